/*
 * fncount: a workload with exactly known calls of many small functions,
 * for funccount's tests and its attach-time measurement.
 *   fncount N              calls tk_fn_I (I = 000..599) (I % 4 + 1) * N times
 *                          (tk_fn_000_alias is a second name of tk_fn_000)
 *   fncount paced N USEC   calls tk_fn_000 N times, sleeping USEC after each
 *   fncount lib PATH N     dlopen()s PATH (tests/unit/elf/lib.c built as a
 *                          shared object) and calls tk_lib_one N times,
 *                          tk_lib_two 2N times, tk_lib_three 3N times
 *   fncount wait-stdin ... first blocks until a byte arrives on stdin (in
 *                          lib mode after the dlopen(): PATH is mapped)
 * Prints nothing; exits 0.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NFN 600

static volatile long sink;

#define FN(n) __attribute__((noinline, noipa, used)) void tk_fn_##n(void); \
	void tk_fn_##n(void) { sink++; }
#define FN10(n) FN(n##0) FN(n##1) FN(n##2) FN(n##3) FN(n##4) \
	FN(n##5) FN(n##6) FN(n##7) FN(n##8) FN(n##9)
#define FN100(n) FN10(n##0) FN10(n##1) FN10(n##2) FN10(n##3) FN10(n##4) \
	FN10(n##5) FN10(n##6) FN10(n##7) FN10(n##8) FN10(n##9)
FN100(0) FN100(1) FN100(2) FN100(3) FN100(4) FN100(5)
/* a second name of tk_fn_000 (as libc's __libc_malloc is malloc's): one site */
void tk_fn_000_alias(void) __attribute__((alias("tk_fn_000"), used));

#define P(n) tk_fn_##n,
#define P10(n) P(n##0) P(n##1) P(n##2) P(n##3) P(n##4) \
	P(n##5) P(n##6) P(n##7) P(n##8) P(n##9)
#define P100(n) P10(n##0) P10(n##1) P10(n##2) P10(n##3) P10(n##4) \
	P10(n##5) P10(n##6) P10(n##7) P10(n##8) P10(n##9)
static void (*const fns[NFN])(void) = {
	P100(0) P100(1) P100(2) P100(3) P100(4) P100(5)
};

static int call_lib(const char *path, long n, int wait)
{
	static const char *const names[] = { "tk_lib_one", "tk_lib_two", "tk_lib_three" };
	void *h = dlopen(path, RTLD_NOW);
	long i, k;
	char c;

	if (!h) {
		fprintf(stderr, "fncount: %s\n", dlerror());
		return 1;
	}
	if (wait && read(0, &c, 1) < 0)
		return 1;
	for (k = 0; k < 3; k++) {
		int (*f)(int) = (int (*)(int))dlsym(h, names[k]);

		if (!f)
			return 1;
		for (i = 0; i < n * (k + 1); i++)
			sink += f((int)i);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long i, k, n;
	int wait = 0;
	char c;

	if (argc > 1 && !strcmp(argv[1], "wait-stdin")) {
		wait = 1;
		argv++;
		argc--;
	}
	if (argc == 4 && !strcmp(argv[1], "lib"))
		return call_lib(argv[2], strtol(argv[3], NULL, 10), wait);
	if (wait && read(0, &c, 1) < 0)
		return 1;
	if (argc == 4 && !strcmp(argv[1], "paced")) {
		n = strtol(argv[2], NULL, 10);
		for (i = 0; i < n; i++) {
			fns[0]();
			usleep((useconds_t)strtol(argv[3], NULL, 10));
		}
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: fncount [wait-stdin] N | paced N USEC | lib PATH N\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	for (k = 0; k < NFN; k++)
		for (i = 0; i < (k % 4 + 1) * n; i++)
			fns[k]();
	return 0;
}
