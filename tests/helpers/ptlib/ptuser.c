/*
 * ptarget-lib: calls pt_lib_add(i, 1000) of libptarget.so N times and
 * prints the sum ("sum S").
 */
#include <stdio.h>
#include <stdlib.h>

int pt_lib_add(int a, int b);

int main(int argc, char **argv)
{
	long sum = 0;
	int i, n = argc > 1 ? atoi(argv[1]) : 1;

	for (i = 0; i < n; i++)
		sum += pt_lib_add(i, 1000);
	printf("sum %ld\n", sum);
	return 0;
}
