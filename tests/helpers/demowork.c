// SPDX-License-Identifier: GPL-2.0
/*
 * demowork: a small program for make demo and the language's tests: it
 * handles N "requests", each in handle_request(), which sleeps MS
 * milliseconds and returns twice the request's id.
 *
 *   demowork N MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct request {
	int id;
	int ms;
	const char *name;
};

__attribute__((noinline)) int handle_request(struct request *r)
{
	struct timespec ts = { r->ms / 1000, (long)(r->ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	return r->id * 2;
}

int main(int argc, char **argv)
{
	struct request r = { 0, 0, "demo" };
	long sum = 0;
	int i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: demowork N MS\n");
		return 2;
	}
	n = atoi(argv[1]);
	r.ms = atoi(argv[2]);
	for (i = 1; i <= n; i++) {
		r.id = i;
		sum += handle_request(&r);
	}
	printf("handled %d requests (sum %ld)\n", n, sum);
	return 0;
}
