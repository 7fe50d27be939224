/*
 * ptarget-usdt [wait-stdin] N: N times, ptk:hello(i, "msg-i") when its
 * semaphore is raised, printing the semaphore's value each time ("sem V").
 */
#include <stdio.h>
#include <stdlib.h>

#include "ptk.h"
#include "../wait_stdin.h"

int main(int argc, char **argv)
{
	char msg[32];
	int i, n;

	wait_stdin(&argc, &argv);
	n = argc > 1 ? atoi(argv[1]) : 1;

	for (i = 0; i < n; i++) {
		printf("sem %d\n", (int)ptk_hello_semaphore);
		if (PTK_HELLO_ENABLED()) {
			snprintf(msg, sizeof(msg), "msg-%d", i);
			PTK_HELLO(i, msg);
		}
	}
	return 0;
}
