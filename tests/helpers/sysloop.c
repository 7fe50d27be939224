/*
 * sysloop: a workload with exactly known syscalls, for tests and benchmarks.
 *   sysloop getppid N        N getppid() calls
 *   sysloop fail N           N failing openat() calls (ENOENT)
 *   sysloop wait-stdin ...   first block until a byte arrives on stdin
 * Prints nothing; exits 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long i, n;
	char c;

	if (argc > 1 && !strcmp(argv[1], "wait-stdin")) {
		if (read(0, &c, 1) < 0)
			return 1;
		argv++;
		argc--;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: sysloop [wait-stdin] getppid|fail N\n");
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
	if (!strcmp(argv[1], "getppid")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "fail")) {
		for (i = 0; i < n; i++)
			syscall(SYS_openat, AT_FDCWD, "/nonexistent/tapkit", O_RDONLY);
	} else {
		return 2;
	}
	return 0;
}
