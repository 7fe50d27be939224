// SPDX-License-Identifier: GPL-2.0
/* Fixture: optimized code (-O2 -g) for location lists and inlining. */
static inline __attribute__((always_inline)) int tk_inl(int v)
{
	return v * 7 + 3;
}

static __attribute__((noinline)) int tk_dup(void)
{
	return 2;
}

__attribute__((noinline)) long tk_opt(long x, int y)
{
	return x * y + tk_dup();
}

__attribute__((noinline)) int tk_caller1(int v)
{
	return tk_inl(v) + 1;
}

__attribute__((noinline)) int tk_caller2(int v)
{
	return tk_inl(v + 1) * 2;
}
