// SPDX-License-Identifier: GPL-2.0
/* Fixture: a shared library (test_elfsym), plain and at a fixed base. */
int tk_lib_one(int x);
int tk_lib_two(int x);
int tk_lib_three(int x);

int tk_lib_one(int x)
{
	return x + 1;
}

int tk_lib_two(int x)
{
	return x * 2;
}

int tk_lib_three(int x)
{
	return x - 3;
}
