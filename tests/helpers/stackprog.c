/*
 * stackprog: a workload with a known call stack, for backtrace tests.
 *   stackprog [wait-stdin] [MODE [MS]]
 * main -> a -> b -> c, and c calls getppid (system call 110), then the
 * program sleeps MS milliseconds (default 300) and exits 0.  MODE:
 *   main   c makes the system call itself: the stack is c b a main
 *   lib    c calls tkstack_lib() of libtkstack.so, which makes it
 *   jit    c calls code it wrote into anonymous memory, named tk_jit in
 *          /tmp/perf-PID.map (removed at exit)
 *   anon   the same code, with no map naming it
 *   addrs  prints "ADDR NAME" for a b c main tkstack_lib, then waits for
 *          stdin before exiting (for symbolizer unit tests)
 * Built -O0 with frame pointers: every function keeps its frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "stacklib/tkstack.h"
#include "wait_stdin.h"

static const char *mode = "main";
static char perfmap[64];

/* push %rbp; mov %rsp,%rbp; mov $110,%eax; syscall; pop %rbp; ret */
static const unsigned char jit_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0xb8, 0x6e, 0x00, 0x00, 0x00, 0x0f, 0x05,
	0x5d, 0xc3,
};

static long jit_call(int named)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long (*fn)(void);
	FILE *f;

	if (p == MAP_FAILED)
		exit(3);
	memcpy((char *)p + 16, jit_code, sizeof(jit_code));
	fn = (long (*)(void))((char *)p + 16);
	if (named) {
		snprintf(perfmap, sizeof(perfmap), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(perfmap, "w");
		if (!f)
			exit(3);
		fprintf(f, "%lx %zx tk_jit\n", (unsigned long)fn, sizeof(jit_code));
		fclose(f);
	}
	return fn();
}

__attribute__((noinline)) long c(void)
{
	if (!strcmp(mode, "lib"))
		return tkstack_lib();
	if (!strcmp(mode, "jit") || !strcmp(mode, "anon"))
		return jit_call(!strcmp(mode, "jit"));
	return tkstack_getppid();
}

__attribute__((noinline)) long b(void)
{
	return c() + 1;
}

__attribute__((noinline)) long a(void)
{
	return b() + 1;
}

int main(int argc, char **argv)
{
	long ms = 300;
	char ch;

	wait_stdin(&argc, &argv);
	if (argc > 1)
		mode = argv[1];
	if (argc > 2)
		ms = strtol(argv[2], NULL, 10);
	if (!strcmp(mode, "addrs")) {
		printf("%lx a\n%lx b\n%lx c\n%lx main\n%lx tkstack_lib\n",
		       (unsigned long)a, (unsigned long)b, (unsigned long)c,
		       (unsigned long)main, (unsigned long)tkstack_lib);
		fflush(stdout);
		return read(0, &ch, 1) < 0;
	}
	if (a() < 0)
		return 1;
	usleep((useconds_t)ms * 1000);
	if (perfmap[0])
		unlink(perfmap);
	return 0;
}
