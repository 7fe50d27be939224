// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for runqlat and cpudist: `schedpp ROUNDS BUSY_MS SLEEP_MS
 * [INFO]`.  The process pins itself to the CPU it starts on
 * (sched_setaffinity, inherited by its thread and child), forks a child
 * process that spins there at SCHED_IDLE, starts a worker thread and
 * writes "tids MAIN WORKER SPINNER" to INFO (default stdout).  Then, for
 * each line read on stdin, the main thread plays ROUNDS rounds of ping-pong with the
 * worker over two pipes:
 *
 *	main:   write(p1)  -> read(p2), blocked until the worker answers
 *	worker: read(p1)   -> busy for BUSY_MS (wall clock)
 *		-> nanosleep(SLEEP_MS) -> write(p2) -> read(p1) again
 *
 * and writes "done NS" to INFO, NS the batch's wall-clock nanoseconds
 * (bench/runqlat.sh times context switches with BUSY_MS and SLEEP_MS 0).  Between batches (and at start) both threads
 * block in read(), so their context-switch counters in /proc stand still;
 * EOF on stdin ends the process.
 *
 * The spinner keeps that CPU from ever running its idle task: on some
 * kernels (seen on a 6.18 guest) a switch from the idle task to a woken
 * task often fires no sched:sched_switch at all (perf counts fewer
 * switches away from pid 0 than to it), so the test threads must be
 * switched in from another task for every switch to be seen.  SCHED_IDLE
 * never preempts the test threads, and it is a process of its own, so a
 * tool scoped to the test process (-p) must leave it out.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int p1[2], p2[2];
static long busy_ms, sleep_ms;
static FILE *info;
static volatile int worker_tid;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Busy for @ms of wall-clock time: the span a tracer sees even where the
 * host steals time from this guest's CPU, which thread CPU time would
 * leave out. */
static void burn(long ms)
{
	long long end = now_ns() + ms * 1000000LL;
	volatile unsigned long x = 0;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += i;
}

static void *worker(void *arg)
{
	struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
	char c = 'x';

	(void)arg;
	worker_tid = (int)syscall(SYS_gettid);
	if (write(p2[1], &c, 1) != 1)
		exit(1);
	while (read(p1[0], &c, 1) == 1) {
		if (busy_ms)
			burn(busy_ms);
		if (sleep_ms)
			nanosleep(&ts, NULL);
		if (write(p2[1], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char line[64], c = 'x';
	long rounds, i;
	pthread_t th;
	pid_t spinner;
	bool rt;
	cpu_set_t set;

	if (argc < 4) {
		fprintf(stderr, "usage: schedpp ROUNDS BUSY_MS SLEEP_MS [INFO]\n");
		return 2;
	}
	rounds = atol(argv[1]);
	busy_ms = atol(argv[2]);
	sleep_ms = atol(argv[3]);
	info = argc > 4 ? fopen(argv[4], "w") : stdout;
	rt = argc > 5 && !strcmp(argv[5], "rt");
	if (!info)
		return 1;
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0 || pipe(p1) || pipe(p2))
		return 1;
	spinner = fork();
	if (spinner < 0)
		return 1;
	if (!spinner) {
		struct sched_param sp = { 0 };
		volatile unsigned long x = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1 || sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
			_exit(1);
		for (;;)
			x++;
	}
	/* real-time, so that no ordinary task cuts a busy span short */
	if (rt) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			return 1;
	}
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	/* the worker says its TID, then blocks in read(p1) */
	if (read(p2[0], &c, 1) != 1)
		return 1;
	fprintf(info, "tids %d %d %d\n", getpid(), worker_tid, (int)spinner);
	fflush(info);
	while (fgets(line, sizeof(line), stdin)) {
		long long t0 = now_ns();

		for (i = 0; i < rounds; i++)
			if (write(p1[1], &c, 1) != 1 || read(p2[0], &c, 1) != 1)
				return 1;
		fprintf(info, "done %lld\n", now_ns() - t0);
		fflush(info);
	}
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	return 0;
}
