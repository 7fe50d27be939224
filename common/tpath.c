// SPDX-License-Identifier: GPL-2.0
/*
 * Places and values of target-variable paths (tpath.h): the arithmetic on
 * the kernel's fetch syntax both resolvers (DWARF, BTF) share.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/tpath.h"

void tval_release(struct tval *v)
{
	if (!v)
		return;
	fetchargs_free(v->args, v->nargs);
	free(v->fmt);
	free(v->ctype);
	memset(v, 0, sizeof(*v));
}

/* The offset and base of "OFF(BASE)", or false when @loc is not one. */
static bool split_mem(const char *loc, int64_t *off, char **base)
{
	size_t n = strlen(loc);
	const char *open;
	char *end;

	if (!n || loc[n - 1] != ')' || !(open = strchr(loc, '(')))
		return false;
	if (open == loc || !strchr("+-0123456789", loc[0]))
		return false;
	*off = strtoll(loc, &end, 0);
	if (end != open)
		return false;
	*base = xasprintf("%.*s", (int)(n - (size_t)(open - loc) - 2), open + 1);
	return true;
}

void tplace_parse(const char *loc, struct tplace *out)
{
	char *end;

	memset(out, 0, sizeof(*out));
	if (loc[0] == '@') {		/* @ADDR, @+FILEOFF: memory, no base */
		bool rel = loc[1] == '+';

		out->off = (int64_t)strtoull(loc + 1 + rel, &end, 0);
		out->loc = xstrdup(rel ? "@+" : "@");
		out->mem = true;
		return;
	}
	if (split_mem(loc, &out->off, &out->loc)) {
		out->mem = true;
		return;
	}
	out->loc = xstrdup(loc);
}

char *tplace_value(const struct tplace *p)
{
	if (!p->mem)
		return xstrdup(p->loc);
	/* a bare global: the address itself is the offset (after a deref
	 * the base is a value, "@+0x4048", like any other) */
	if (!strcmp(p->loc, "@+") || !strcmp(p->loc, "@"))
		return xasprintf("%s0x%" PRIx64, p->loc, (uint64_t)p->off);
	return xasprintf("%+" PRId64 "(%s)", p->off, p->loc);
}

void tplace_deref(struct tplace *p, int64_t off)
{
	char *v = tplace_value(p);

	free(p->loc);
	p->loc = v;
	p->off = off;
	p->mem = true;
}

void tplace_release(struct tplace *p)
{
	free(p->loc);
	memset(p, 0, sizeof(*p));
}
