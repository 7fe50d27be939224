// SPDX-License-Identifier: GPL-2.0
/*
 * getppid_loop: the benchmark workload, a tight loop of syscall(SYS_getppid)
 * (the same loop as tests/helpers/sysloop) that times itself.
 *
 *   getppid_loop [-w] N     make exactly N getppid() calls, then print the
 *                           loop's duration in nanoseconds on stdout
 *   getppid_loop [-w] spin  call getppid() until killed
 *   getppid_loop [-w] spin RATE   the same at RATE calls per second (paced
 *                           in batches of 1000 against the clock)
 *
 *   -w   first block until a byte arrives on stdin, so the process (its
 *        exec, loader and libc start-up syscalls) exists before any tracer
 *        and the loop starts only when the tracer is live.
 *
 * After the wait, the process makes exactly N getppid() calls, one write()
 * and exit_group(): a per-process syscall count must read N + 2.  The clock
 * is read through the vDSO (no syscall with the tsc/kvm-clock clocksources;
 * bench/lib.sh checks the count, not this comment).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
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
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		long long rate = strtoll(argv[2], &end, 10), done = 0;

		if (*end || rate <= 0) {
			fprintf(stderr, "getppid_loop: bad rate '%s'\n", argv[2]);
			return 2;
		}
		t0 = now_ns();
		for (;;) {
			for (i = 0; i < 1000; i++)
				syscall(SYS_getppid);
			done += 1000;
			/* ahead of the rate: wait for the clock to catch up */
			while ((now_ns() - t0) * rate < done * 1000000000LL)
				;
		}
	}
	if (argc != 2) {
		fprintf(stderr, "usage: getppid_loop [-w] N|spin [RATE]\n");
		return 2;
	}
	if (!strcmp(argv[1], "spin")) {
		for (;;)
			syscall(SYS_getppid);
	}
	n = strtol(argv[1], &end, 10);
	if (*end || n < 0) {
		fprintf(stderr, "getppid_loop: bad count '%s'\n", argv[1]);
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	len = snprintf(buf, sizeof(buf), "%lld\n", t1 - t0);
	if (write(1, buf, len) != len)
		return 1;
	return 0;
}
