/*
 * usdtloop: USDT probes of a dtrace provider (tkfc.d: `dtrace -h` header,
 * `dtrace -G` object with the semaphores), for funccount's tests.
 *   usdtloop [wait-stdin] N   N times tkfc:tick (one call site), N times
 *                             tkfc:tock (two call sites, even and odd i);
 *                             each only while its semaphore is raised
 * Prints how many of each fired ("tick N tock N"); exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tkfc.h"
#include "../wait_stdin.h"

int main(int argc, char **argv)
{
	long i, n, ticks = 0, tocks = 0;

	wait_stdin(&argc, &argv);
	if (argc != 2) {
		fprintf(stderr, "usage: usdtloop [wait-stdin] N\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	for (i = 0; i < n; i++) {
		if (TKFC_TICK_ENABLED()) {
			TKFC_TICK((int)i);
			ticks++;
		}
		if (i % 2 == 0 && TKFC_TOCK_ENABLED()) {
			TKFC_TOCK((int)i);
			tocks++;
		} else if (i % 2 && TKFC_TOCK_ENABLED()) {
			TKFC_TOCK((int)-i);
			tocks++;
		}
	}
	printf("tick %ld tock %ld\n", ticks, tocks);
	return 0;
}
