// SPDX-License-Identifier: GPL-2.0
/*
 * ctropen: the kernel's floor for starting syscall counters.
 *
 *   ctropen [-t THREADS] [-p]
 *
 * Opens one perf_event counter (counting mode, disabled) per
 * syscalls:sys_enter_* tracepoint on every online CPU, as syscount and
 * perf stat -e 'syscalls:sys_enter_*' must, and prints the wall time of the
 * opens in ms.  -t spreads the opens over THREADS threads (default 1); -p
 * pins one thread per CPU to open that CPU's counters (no cross-CPU call
 * per open).  The counters are then closed by a detached child, which can
 * take seconds (a grace period per tracepoint), so the caller should wait
 * for it before the next run: the exit status is 0 and the child's PID is
 * printed on stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_IDS 1024
#define MAX_CPUS 256

static int ids[MAX_IDS], nids, ncpus, nthreads = 1, pinned;
static int *fds;		/* [cpu * nids + i] */
static atomic_int next;

static int open_counter(int id, int cpu)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
		.config = (unsigned long long)id, .disabled = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void *worker(void *p)
{
	int self = (int)(long)p, k;

	if (pinned) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(self, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (k = 0; k < nids; k++)
			fds[self * nids + k] = open_counter(ids[k], self);
		return NULL;
	}
	while ((k = atomic_fetch_add(&next, 1)) < nids * ncpus)
		fds[k] = open_counter(ids[k % nids], k / nids);
	return NULL;
}

static int load_ids(void)
{
	const char *dir = "/sys/kernel/tracing/events/syscalls";
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d)) && nids < MAX_IDS) {
		char path[512];
		FILE *f;

		if (strncmp(e->d_name, "sys_enter_", 10))
			continue;
		snprintf(path, sizeof(path), "%s/%s/id", dir, e->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%d", &ids[nids]) == 1)
			nids++;
		if (f)
			fclose(f);
	}
	closedir(d);
	return nids ? 0 : -1;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_CPUS];
	struct timespec t0, t1;
	int c, i, bad = 0;
	pid_t child;

	while ((c = getopt(argc, argv, "t:p")) != -1) {
		if (c == 't')
			nthreads = atoi(optarg);
		else if (c == 'p')
			pinned = 1;
		else
			return 2;
	}
	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > MAX_CPUS || load_ids() < 0) {
		fprintf(stderr, "ctropen: no syscall tracepoints (root and tracefs needed)\n");
		return 1;
	}
	if (pinned)
		nthreads = ncpus;
	if (nthreads < 1 || nthreads > MAX_CPUS)
		return 2;
	fds = calloc((size_t)nids * ncpus, sizeof(int));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 1; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	worker((void *)0L);
	for (i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < nids * ncpus; i++)
		bad += fds[i] < 0;
	printf("%.1f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e6);
	fprintf(stderr, "ctropen: %d tracepoints x %d CPUs, %d failed\n", nids, ncpus, bad);
	fflush(stdout);
	child = fork();
	if (child == 0) {	/* the slow part: release in the background */
		setsid();
		for (i = 0; i < nids * ncpus; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		_exit(0);
	}
	fprintf(stderr, "ctropen: releasing in %d\n", (int)child);
	return bad ? 1 : 0;
}
