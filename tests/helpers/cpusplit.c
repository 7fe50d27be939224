// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU workload split 3:1 between two functions, for profile's tests:
 * `cpusplit N` runs N rounds, each calling busy_three() for three units
 * of work and busy_one() for one, then exits.  Both spin in user code on
 * the same loop, so their CPU time is 3:1 whatever the machine; built
 * with frame pointers (see the Makefile) so that a perf callchain walks
 * from them through main.
 */
#include <stdlib.h>

#define UNIT 2000000L

static volatile unsigned long sink;

/* The same loop in both functions, so that each sample lands in one of
 * them (not in a helper they share). */
#define SPIN(n)								\
	do {								\
		unsigned long x_ = 0;					\
		long i_;						\
		for (i_ = 0; i_ < (n); i_++) {				\
			x_ += (unsigned long)i_ * 2654435761u;		\
			__asm__ volatile("" : "+r"(x_));		\
		}							\
		sink = x_;						\
	} while (0)

__attribute__((noinline)) void busy_three(void)
{
	SPIN(3 * UNIT);
}

__attribute__((noinline)) void busy_one(void)
{
	SPIN(UNIT);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100, r;

	for (r = 0; r < rounds; r++) {
		busy_three();
		busy_one();
		__asm__ volatile("" ::: "memory");
	}
	return 0;
}
