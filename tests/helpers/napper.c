// SPDX-License-Identifier: GPL-2.0
/*
 * A known off-CPU workload for offcputime's tests: `napper MS K` sleeps
 * MS milliseconds K times in nap_here(), each with one nanosleep system
 * call made there (inline, not through the C library, whose functions
 * keep no frame pointer: the user stack is then walked from nap_here()
 * through main), then exits.  Built with frame pointers (see the
 * Makefile).
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

__attribute__((noinline)) void nap_here(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long ret;

	do {
		__asm__ volatile("syscall"
				 : "=a"(ret)
				 : "0"((long)SYS_nanosleep), "D"(&ts), "S"(&ts)
				 : "rcx", "r11", "memory");
	} while (ret == -4);	/* EINTR: the rest, left in ts */
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 20, k = argc > 2 ? atol(argv[2]) : 10, i;

	for (i = 0; i < k; i++)
		nap_here(ms);
	return 0;
}
