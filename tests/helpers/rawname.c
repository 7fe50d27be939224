/*
 * rawname: a process whose name and string arguments hold the bytes a
 * terminal or a line-based reader would act on, for the tests of text
 * escaping.
 *   rawname [wait-stdin] COMM ACTION...
 * sets its comm to COMM (prctl PR_SET_NAME: any bytes but NUL, the kernel
 * keeps the first 15) before it waits, then does each ACTION in order:
 *   str:TEXT   calls tk_str(TEXT)
 *   empty      calls tk_str("")
 *   null       calls tk_str(NULL), a pointer the kernel cannot read
 *   kill       kill(getpid(), 0): a signal-0 existence check on itself
 *   getppid    getppid()
 *   getppid:N  getppid() N times
 *   name:COMM  renames itself COMM (prctl PR_SET_NAME)
 *   cpu:N      moves itself to CPU N (sched_setaffinity) and waits there
 *   sleep:MS   sleeps MS milliseconds
 * tk_str(s) returns 0 for NULL, else the length of s.  Prints nothing; exits 0.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "wait_stdin.h"

volatile long tk_sink;

__attribute__((noinline, noipa, used)) long tk_str(const char *s)
{
	long n = s ? (long)strlen(s) : 0;

	tk_sink += n;
	return n;
}

int main(int argc, char **argv)
{
	int i, held = argc > 1 && !strcmp(argv[1], "wait-stdin");

	if (argc < 2 + held) {
		fprintf(stderr, "usage: rawname [wait-stdin] COMM ACTION...\n");
		return 2;
	}
	if (prctl(PR_SET_NAME, argv[1 + held], 0, 0, 0) < 0) {
		perror("rawname: prctl");
		return 1;
	}
	wait_stdin(&argc, &argv);
	for (i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "str:", 4))
			tk_str(argv[i] + 4);
		else if (!strcmp(argv[i], "empty"))
			tk_str("");
		else if (!strcmp(argv[i], "null"))
			tk_str(NULL);
		else if (!strcmp(argv[i], "kill"))
			kill(getpid(), 0);
		else if (!strcmp(argv[i], "getppid"))
			tk_sink += getppid();
		else if (!strncmp(argv[i], "getppid:", 8))
			for (long n = atol(argv[i] + 8); n > 0; n--)
				tk_sink += getppid();
		else if (!strncmp(argv[i], "name:", 5)) {
			if (prctl(PR_SET_NAME, argv[i] + 5, 0, 0, 0) < 0) {
				perror("rawname: prctl");
				return 1;
			}
		} else if (!strncmp(argv[i], "cpu:", 4)) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(atoi(argv[i] + 4), &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0) {
				perror("rawname: sched_setaffinity");
				return 1;
			}
			/* the kernel moves it before the call returns */
		}
		else if (!strncmp(argv[i], "sleep:", 6))
			usleep(1000 * atoi(argv[i] + 6));
		else {
			fprintf(stderr, "rawname: unknown action '%s'\n", argv[i]);
			return 2;
		}
	}
	return 0;
}
