// SPDX-License-Identifier: GPL-2.0
/*
 * threads [wait-stdin] N CODE: a process of N threads (the main one and
 * N-1 started here) that each live 100 ms; the extra threads end with
 * pthread_exit(), then the process with exit(CODE).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wait_stdin.h"

static void *worker(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tids[64];
	int i, n, code;

	wait_stdin(&argc, &argv);
	if (argc != 3) {
		fprintf(stderr, "usage: threads [wait-stdin] N CODE\n");
		return 2;
	}
	n = atoi(argv[1]);
	code = atoi(argv[2]);
	if (n < 1 || n > 64)
		return 2;
	for (i = 0; i < n - 1; i++)
		if (pthread_create(&tids[i], NULL, worker, NULL))
			return 1;
	worker(NULL);
	for (i = 0; i < n - 1; i++)
		pthread_join(tids[i], NULL);
	return code;
}
