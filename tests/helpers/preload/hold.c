// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD=libhold.so PROGRAM: hold PROGRAM before its main() until a
 * byte (or EOF) arrives on stdin, with its executable and libraries
 * mapped.  For live tests that need a process of a fixture that would
 * otherwise exit at once (tplist -p on build/tests/elf/usdt-pie).
 */
#include <unistd.h>

__attribute__((constructor)) static void hold(void)
{
	char c;

	while (read(0, &c, 1) < 0)
		;
}
