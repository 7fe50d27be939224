/*
 * sysloop: a workload with exactly known syscalls, for tests and benchmarks.
 *   sysloop getppid N        N getppid() calls
 *   sysloop fail N           N failing openat() calls (ENOENT)
 *   sysloop badpath N        N openat() calls whose path pointer is 0x10,
 *                            never mapped (EFAULT)
 *   sysloop seq N K USEC     lseek(-1, i, SEEK_SET) for i = 1..N (EBADF), the
 *                            offsets a sequence; a USEC microsecond sleep
 *                            after every K calls
 *   sysloop touch N          map N pages at 0x200000000000 (nothing else
 *                            is there), write a byte to each, unmap them:
 *                            N write faults at known addresses
 *   sysloop wait-stdin ...   first block until a byte arrives on stdin
 * Prints nothing; exits 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "wait_stdin.h"

int main(int argc, char **argv)
{
	long i, n;

	wait_stdin(&argc, &argv);
	if (argc < 3 || (!strcmp(argv[1], "seq") && argc < 5)) {
		fprintf(stderr, "usage: sysloop [wait-stdin] getppid|fail|badpath|touch N | seq N K USEC\n");
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
	if (!strcmp(argv[1], "getppid")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "fail")) {
		for (i = 0; i < n; i++)
			syscall(SYS_openat, AT_FDCWD, "/nonexistent/tapkit", O_RDONLY);
	} else if (!strcmp(argv[1], "badpath")) {
		for (i = 0; i < n; i++)
			syscall(SYS_openat, AT_FDCWD, (const char *)0x10, O_RDONLY);
	} else if (!strcmp(argv[1], "seq")) {
		long k = strtol(argv[3], NULL, 10);
		long usec = strtol(argv[4], NULL, 10);

		for (i = 1; i <= n; i++) {
			syscall(SYS_lseek, -1, i, SEEK_SET);
			if (k > 0 && i % k == 0)
				usleep((useconds_t)usec);
		}
	} else if (!strcmp(argv[1], "touch")) {
		char *p = mmap((void *)0x200000000000UL, (size_t)n * 4096,
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			       MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED) {
			perror("sysloop: mmap");
			return 1;
		}
		for (i = 0; i < n; i++)
			((volatile char *)p)[i * 4096] = 1;
		munmap(p, (size_t)n * 4096);
	} else {
		return 2;
	}
	return 0;
}
