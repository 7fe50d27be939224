// SPDX-License-Identifier: GPL-2.0
/* uprobe fetch arguments shared by the USDT and DWARF resolvers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/fetcharg.h"
#include "common/log.h"

const char *fetcharg_int_type(int size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? "s8" : "u8";
	case 2: return is_signed ? "s16" : "u16";
	case 4: return is_signed ? "s32" : "u32";
	case 8: return is_signed ? "s64" : "u64";
	}
	return "";
}

char *fetcharg_format(const struct fetcharg *a)
{
	if (a->refused || !a->loc)
		return NULL;
	if (!a->type[0])
		return xasprintf("%s=%s", a->name, a->loc);
	return xasprintf("%s=%s:%s", a->name, a->loc, a->type);
}

void fetcharg_refuse(struct fetcharg *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	free(a->refused);
	a->refused = s;
	free(a->loc);
	a->loc = NULL;
}

void fetcharg_release(struct fetcharg *a)
{
	free(a->name);
	free(a->loc);
	free(a->refused);
	a->name = a->loc = a->refused = NULL;
}

void fetchargs_free(struct fetcharg *args, size_t n)
{
	size_t i;

	for (i = 0; args && i < n; i++)
		fetcharg_release(&args[i]);
	free(args);
}
