// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known call stack for profile tests: `spinstack MS`
 * burns MS milliseconds of CPU time in main -> spin_outer -> spin_middle
 * -> spin_inner, which spins in user code (the clock is read only every
 * few million iterations), then exits.  Frame pointers are kept, so a
 * perf callchain walks the whole stack.
 */
#pragma GCC optimize("no-omit-frame-pointer")
#include <stdlib.h>
#include <time.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void spin_inner(long long end)
{
	volatile unsigned long x = 0;

	while (cpu_ns() < end)
		for (long i = 0; i < 4000000; i++)
			x += i;
}

__attribute__((noinline)) void spin_middle(long long end)
{
	spin_inner(end);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

__attribute__((noinline)) void spin_outer(long long end)
{
	spin_middle(end);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long long ms = argc > 1 ? atoll(argv[1]) : 300;

	spin_outer(cpu_ns() + ms * 1000000LL);
	return 0;
}
