// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_loop: the workload of bench/funccount.sh, a tight loop that times
 * itself, as bench/getppid_loop.c does for system calls.
 *
 *   uprobe_loop [-w] func N   call tk_bench_hit() N times
 *   uprobe_loop [-w] usdt N   pass the USDT probe tkbench:hit N times (its
 *                             semaphore gates it: the argument is computed
 *                             only while a tracer holds the semaphore)
 *   uprobe_loop [-w] many N   call each of the 500 functions tk_many_000()
 *                             .. tk_many_499() (bench/many_funcs.c) N times
 *
 *   -w   first block until a byte arrives on stdin (the tracer attaches to
 *        a process that already exists; the loop starts once it is live).
 *
 * Prints the loop's duration in nanoseconds on stdout.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

unsigned short tkbench_hit_semaphore __attribute__((section(".probes")));

void tk_many_all(void);

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile long sink;

__attribute__((noinline)) void tk_bench_hit(long i)
{
	sink += i;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long long t0, t1;
	long i, n;
	char buf[64], c, *end;
	int len;

	if (argc > 1 && !strcmp(argv[1], "-w")) {
		if (read(0, &c, 1) != 1)
			return 1;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: uprobe_loop [-w] func|usdt|many N\n");
		return 2;
	}
	n = strtol(argv[2], &end, 10);
	if (*end || n < 0) {
		fprintf(stderr, "uprobe_loop: bad count '%s'\n", argv[2]);
		return 2;
	}
	t0 = now_ns();
	if (!strcmp(argv[1], "func")) {
		for (i = 0; i < n; i++)
			tk_bench_hit(i);
	} else if (!strcmp(argv[1], "usdt")) {
		for (i = 0; i < n; i++) {
			if (tkbench_hit_semaphore)
				STAP_PROBE1(tkbench, hit, i);
			sink += i;
		}
	} else if (!strcmp(argv[1], "many")) {
		for (i = 0; i < n; i++)
			tk_many_all();
	} else {
		fprintf(stderr, "uprobe_loop: unknown mode '%s'\n", argv[1]);
		return 2;
	}
	t1 = now_ns();
	len = snprintf(buf, sizeof(buf), "%lld\n", t1 - t0);
	if (write(1, buf, len) != len)
		return 1;
	return 0;
}
