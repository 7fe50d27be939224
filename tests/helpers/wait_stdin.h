/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TESTS_WAIT_STDIN_H
#define TAPKIT_TESTS_WAIT_STDIN_H

/*
 * The test workloads' optional first argument "wait-stdin": block until a
 * byte (or EOF) arrives on stdin, so that the process exists, its exec and
 * loader done, before the tracer under test starts; then drop the
 * argument (argv[0] becomes "wait-stdin", as with argv++).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void wait_stdin(int *argc, char ***argv)
{
	char c;

	if (*argc > 1 && !strcmp((*argv)[1], "wait-stdin")) {
		if (read(0, &c, 1) < 0)
			exit(1);
		(*argv)++;
		(*argc)--;
	}
}

#endif
