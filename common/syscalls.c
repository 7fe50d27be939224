// SPDX-License-Identifier: GPL-2.0
/* The table is generated at build time by scripts/gen-syscalls.sh. */
#include <string.h>

#include "common/syscalls.h"

static const char *const names[] = {
#include "syscall_table.h"
};

#define NNAMES ((long)(sizeof(names) / sizeof(names[0])))

const char *syscall_name(long nr)
{
	return nr >= 0 && nr < NNAMES ? names[nr] : NULL;
}

long syscall_nr(const char *name)
{
	long i;

	for (i = 0; i < NNAMES; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return i;
	return -1;
}
