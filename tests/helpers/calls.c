/*
 * calls: getppid() calls in batches, each released by a byte on stdin, so
 * a test can make a known number of calls after each step of an
 * interactive tool (before and after a drill-down, while paused).
 *   calls N1 [N2 ...]   for each Ni: wait for a byte on stdin, then make
 *                       Ni getppid() calls; after the last batch, wait for
 *                       one more byte (or EOF) and exit 0
 * EOF before a batch exits 0 without making it.  Prints nothing.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char c;
	long i, n;
	int b;

	for (b = 1; b < argc; b++) {
		if (read(0, &c, 1) != 1)
			return 0;
		n = strtol(argv[b], NULL, 10);
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	}
	if (read(0, &c, 1) < 0)
		return 1;
	return 0;
}
