/*
 * ptarget: the user-space probe provider's test program (process(...)
 * probes of tapkit), built -g at -O0 and -O2, as PIE and fixed-address.
 *   ptarget N MS    N times: snooze(MS) (a function that sleeps MS ms),
 *                   then calc(i, &nodes[i % 2]) and the timed region;
 *                   then fact(4), recursively
 * Prints "sum S" (the sum of calc()'s results) and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct node {
	int val;
	struct node *next;
	char name[16];
};

struct node nodes[2] = {
	{ 7, &nodes[1], "first" },
	{ 11, &nodes[0], "second" },
};
int counter = 42;
long table[4] = { 100, 200, 300, 400 };

/* a function whose first instruction uprobes refuse (a LOCK prefix) */
void locked_inc(void);
__asm__(".pushsection .text\n.globl locked_inc\n.type locked_inc, @function\nlocked_inc:\n"
	"\tlock incl counter(%rip)\n\tret\n.size locked_inc, .-locked_inc\n"
	".popsection\n");

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void snooze(int ms)
{
	sleep_ms(ms);
}

__attribute__((noinline)) int calc(int x, struct node *n)
{
	counter++;
	return x * 100 + n->next->val;
}

__attribute__((noinline)) void region(int ms)
{
	volatile int before = ms;	/* PT_REGION_START */
	sleep_ms(before);
	before++;			/* PT_REGION_END */
}

/* recursion, for return probes pairing entries per thread (-O2 may
 * turn it into a loop: the tests use -O0) */
__attribute__((noinline)) long fact(int k)
{
	return k <= 1 ? 1 : k * fact(k - 1);
}

int main(int argc, char **argv)
{
	long sum = 0;
	int i, n, ms;

	if (argc != 3) {
		fprintf(stderr, "usage: ptarget N MS\n");
		return 2;
	}
	n = atoi(argv[1]);
	ms = atoi(argv[2]);
	for (i = 0; i < n; i++) {
		snooze(ms);
		sum += calc(i, &nodes[i % 2]);
		region(ms);
	}
	locked_inc();
	if (fact(4) != 24)
		return 1;
	printf("sum %ld\n", sum);
	return 0;
}
