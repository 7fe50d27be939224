/*
 * execer: execs that bypass the C library's execve wrapper, for the
 * execsnoop tests.
 *   execer [wait-stdin] execve PATH ARG0 ARGS...   execve(2) of PATH
 *   execer [wait-stdin] fexecve PATH ARG0 ARGS...  open PATH, fexecve(3) it
 *                                                  (execveat(2) on the fd)
 *   execer hold ARGS...                            stay until stdin closes
 * Built static (execer-static) its execve is its own copy, not the
 * shared C library's.  Exits 127 when the exec fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "wait_stdin.h"

extern char **environ;

int main(int argc, char **argv)
{
	char c;
	int fd;

	wait_stdin(&argc, &argv);
	if (argc >= 2 && !strcmp(argv[1], "hold")) {
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	if (argc < 4)
		return 2;
	if (!strcmp(argv[1], "execve")) {
		execve(argv[2], argv + 3, environ);
	} else if (!strcmp(argv[1], "fexecve")) {
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			fexecve(fd, argv + 3, environ);
	}
	perror("execer");
	return 127;
}
