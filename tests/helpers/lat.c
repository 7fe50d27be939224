/*
 * lat: a workload whose functions take known times, for funclatency tests.
 *   lat [wait-stdin] SHORT LONG [DEPTH [GONE]]
 * calls tk_lat_short() SHORT times (70.4 ms each) and tk_lat_long() LONG
 * times (281.6 ms each); then, when DEPTH > 0, tk_lat_rec(DEPTH - 1) once:
 * a recursion DEPTH calls deep whose calls take 70.4, 140.8, 281.6, ... ms,
 * innermost first (each call sleeps as long as the call it makes); then
 * GONE threads each enter tk_lat_gone() and exit inside it.
 * Every duration is a nanosleep(2), so no call takes less; each is a little
 * above the low edge of its power-of-two bucket in ns, us and ms alike
 * (70.4 ms: above 2^26 ns = 67.1 ms, and below 128 ms), leaving it 57 ms
 * (and twice that per doubling) to oversleep on a busy machine or an
 * emulated one.
 * wait-stdin first blocks until a byte arrives on stdin.  Prints
 * "short NS\nlong NS\n": the time of each function's calls, summed, as
 * timed around the calls.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "wait_stdin.h"

#define BASE 70400000L	/* ns */

volatile long tk_sink;

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts))
		;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noipa, used)) void tk_lat_short(void)
{
	sleep_ns(BASE);
	tk_sink++;
}

__attribute__((noinline, noipa, used)) void tk_lat_long(void)
{
	sleep_ns(4 * BASE);
	tk_sink++;
}

/* Takes BASE << k: BASE at k = 0, else BASE << (k - 1) and a call of k - 1. */
__attribute__((noinline, noipa, used)) void tk_lat_rec(int k)
{
	sleep_ns(BASE << (k ? k - 1 : 0));
	if (k > 0)
		tk_lat_rec(k - 1);
	tk_sink++;	/* not a tail call */
}

/* Never returns: the thread exits inside. */
__attribute__((noinline, noipa, used)) void tk_lat_gone(void)
{
	sleep_ns(BASE);
	pthread_exit(NULL);
}

static void *gone(void *arg)
{
	tk_lat_gone();
	return NULL;
}

int main(int argc, char **argv)
{
	long i, nshort, nlong, depth = 0, ngone = 0;
	uint64_t t, tshort = 0, tlong = 0;

	wait_stdin(&argc, &argv);
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: lat [wait-stdin] SHORT LONG [DEPTH [GONE]]\n");
		return 2;
	}
	nshort = strtol(argv[1], NULL, 10);
	nlong = strtol(argv[2], NULL, 10);
	if (argc > 3)
		depth = strtol(argv[3], NULL, 10);
	if (argc > 4)
		ngone = strtol(argv[4], NULL, 10);
	for (i = 0; i < nshort; i++) {
		t = now_ns();
		tk_lat_short();
		tshort += now_ns() - t;
	}
	for (i = 0; i < nlong; i++) {
		t = now_ns();
		tk_lat_long();
		tlong += now_ns() - t;
	}
	if (depth > 0)
		tk_lat_rec((int)depth - 1);
	for (i = 0; i < ngone; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, gone, NULL) || pthread_join(th, NULL))
			return 1;
	}
	printf("short %llu\nlong %llu\n", (unsigned long long)tshort,
	       (unsigned long long)tlong);
	return 0;
}
