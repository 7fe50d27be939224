/*
 * ucall: a workload with exactly known user-level calls, for uprobe tests.
 *   ucall [wait-stdin] N STR   calls tk_ucall(i, STR) for i = 0..N-1
 * tk_ucall(n, s) returns n + 1000.  wait-stdin first blocks until a byte
 * arrives on stdin.  Prints nothing; exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "wait_stdin.h"

volatile long tk_sink;

__attribute__((noinline, noipa, used)) int tk_ucall(int n, const char *s)
{
	tk_sink += s[0];
	return n + 1000;
}

int main(int argc, char **argv)
{
	long i, n;

	wait_stdin(&argc, &argv);
	if (argc < 3) {
		fprintf(stderr, "usage: ucall [wait-stdin] N STR\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	for (i = 0; i < n; i++)
		tk_sink += tk_ucall((int)i, argv[2]);
	return 0;
}
