/*
 * kopen: open a path a known number of times, for the kernel probe tests.
 *   kopen [wait-stdin] PATH N    N openat(AT_FDCWD, PATH, O_RDONLY) calls,
 *                                each fd closed at once; every fd above
 *                                stderr is closed first, so each open
 *                                returns 3 when PATH exists, else -ENOENT
 * With wait-stdin it first blocks until a byte arrives on stdin.
 * Prints nothing; exits 0.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "wait_stdin.h"

int main(int argc, char **argv)
{
	long i, n;
	int fd;

	wait_stdin(&argc, &argv);
	if (argc != 3)
		return 2;
	n = strtol(argv[2], NULL, 10);
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	for (i = 0; i < n; i++) {
		fd = (int)syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
