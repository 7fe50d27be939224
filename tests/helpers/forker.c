// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for process.begin/end: `forker N` forks N children, child i
 * exiting with status 10 + i, and prints each child's PID and status as
 * it reaps them ("child PID STATUS"); `forker threads N` makes N threads
 * that each exit at once and prints their thread ids ("thread TID").
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread_main(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

int main(int argc, char **argv)
{
	int i, n, status;

	if (argc > 2 && !strcmp(argv[1], "threads")) {
		pthread_t t[16];
		pid_t tid[16];

		n = atoi(argv[2]);
		for (i = 0; i < n && i < 16; i++)
			pthread_create(&t[i], NULL, thread_main, &tid[i]);
		for (i = 0; i < n && i < 16; i++) {
			pthread_join(t[i], NULL);
			printf("thread %d\n", (int)tid[i]);
		}
		return 0;
	}
	n = argc > 1 ? atoi(argv[1]) : 3;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			_exit(10 + i);
		if (waitpid(pid, &status, 0) != pid)
			return 1;
		printf("child %d %d\n", (int)pid, WEXITSTATUS(status));
	}
	return 0;
}
