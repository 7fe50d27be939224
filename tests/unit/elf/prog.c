// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for test_elfsym and test_dwinfo, built unoptimized (-O0 -g) as a
 * PIE, a fixed-address executable, a stripped copy with a .gnu_debuglink,
 * and a stripped copy found by build ID (see the Makefile).  The tests
 * compare what the resolvers say against nm, readelf, objdump and the
 * bytes written below; nothing here is ever run.
 */
#include <stdio.h>

struct pair {
	long a, b;
};

int tk_bss_var[1024];			/* zero-filled: not in the file */

/* A function of known bytes: mov $0x11223344,%eax (5); nop (1); ret (1). */
__asm__(".text\n"
	".globl tk_asm_func\n"
	".type tk_asm_func, @function\n"
	"tk_asm_func:\n"
	"	mov $0x11223344, %eax\n"
	"	nop\n"
	"	ret\n"
	".size tk_asm_func, .-tk_asm_func\n");

int tk_add(int a, long b, const char *s, struct pair p, double d);
long tk_many(long a1, long a2, long a3, long a4, long a5, long a6, long a7,
	     long a8);
long tk_opt(long x, int y);		/* opt.c, optimized */
int tk_caller1(int v);			/* opt.c: tk_inl inlined */
int tk_caller2(int v);

int tk_add(int a, long b, const char *s, struct pair p, double d)
{
	int r = a + (int)b + s[0] + (int)p.a + (int)d;

	__asm__ volatile(".globl tk_line_marker\ntk_line_marker: nop"); /* TK_LINE_MARKER */
	/* a line without code, between two with */
	return r;
}

long tk_many(long a1, long a2, long a3, long a4, long a5, long a6, long a7,
	     long a8)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

/* same-named file-local functions: this one and opt.c's */
static int tk_dup(void)
{
	return 1;
}

static long impl_one(void)
{
	return 1;
}

/* an IFUNC: the symbol is the resolver */
static long (*tk_ifunc_resolver(void))(void)
{
	return impl_one;
}
long tk_ifunc(void) __attribute__((ifunc("tk_ifunc_resolver")));

int main(int argc, char **argv)
{
	struct pair p = { 1, 2 };

	printf("%d\n", tk_add(argc, 2, argv[0], p, 1.5) + tk_dup() +
	       (int)tk_many(1, 2, 3, 4, 5, 6, 7, 8) + (int)tk_opt(argc, 3) +
	       tk_caller1(argc) + tk_caller2(argc) + (int)tk_ifunc() +
	       tk_bss_var[argc]);
	return 0;
}
