/*
 * epnest: nest epoll instances, for the kernel @entry tests.
 *   epnest [wait-stdin] N    makes N epoll instances e0..eN-1 and adds
 *                            each e(i-1) into e(i), i = 1..N-1, in turn
 * Adding an epoll instance into another makes the kernel check for loops
 * by walking down what the added one contains: ep_loop_check_proc(ep,
 * depth) recurses once per level, so the i-th add enters it i times on
 * this thread, at depth 0 (the added e(i-1)) down to i-1 (e0), and
 * returns innermost first.  N is at most 5 (the kernel's nesting limit).
 * With wait-stdin it first blocks until a byte arrives on stdin.
 * Prints nothing; exits 0, or 1 when an epoll call fails.
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "wait_stdin.h"

int main(int argc, char **argv)
{
	int e[5], i, n;

	wait_stdin(&argc, &argv);
	if (argc != 2)
		return 2;
	n = (int)strtol(argv[1], NULL, 10);
	if (n < 1 || n > 5)
		return 2;
	for (i = 0; i < n; i++)
		if ((e[i] = epoll_create1(0)) < 0)
			return 1;
	for (i = 1; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = e[i - 1] };

		if (epoll_ctl(e[i], EPOLL_CTL_ADD, e[i - 1], &ev) < 0)
			return 1;
	}
	return 0;
}
