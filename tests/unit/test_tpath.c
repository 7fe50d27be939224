// SPDX-License-Identifier: GPL-2.0
/* The fetch-syntax arithmetic of target-variable paths (common/tpath.c). */
#include <stdlib.h>
#include <string.h>

#include "common/tpath.h"
#include "tests/unit/unit.h"

/* The value expression of @loc after following @n pointers (each deref
 * adding @off). */
static char *after(const char *loc, int n, long off)
{
	struct tplace p;
	char *v;

	tplace_parse(loc, &p);
	while (n--)
		tplace_deref(&p, off);
	v = tplace_value(&p);
	tplace_release(&p);
	return v;
}

UNIT_TEST(tpath_places)
{
	struct tplace p;
	char *v;

	tplace_parse("-24(%bp)", &p);
	CHECK_STR(p.loc, "%bp");
	CHECK_INT(p.off, -24);
	CHECK(p.mem);
	tplace_release(&p);
	tplace_parse("+8(+16(%di))", &p);
	CHECK_STR(p.loc, "+16(%di)");
	CHECK_INT(p.off, 8);
	CHECK(p.mem);
	tplace_release(&p);
	tplace_parse("%di", &p);
	CHECK_STR(p.loc, "%di");
	CHECK(!p.mem);
	tplace_release(&p);
	tplace_parse("@+0x4048", &p);
	CHECK_STR(p.loc, "@+");
	CHECK_INT(p.off, 0x4048);
	CHECK(p.mem);
	tplace_release(&p);

	CHECK_STR(v = after("%di", 0, 0), "%di");
	free(v);
	CHECK_STR(v = after("%di", 1, 8), "+8(%di)");
	free(v);
	CHECK_STR(v = after("-24(%bp)", 1, 16), "+16(-24(%bp))");
	free(v);
	CHECK_STR(v = after("%si", 2, 0), "+0(+0(%si))");
	free(v);
	CHECK_STR(v = after("@+0x4048", 0, 0), "@+0x4048");
	free(v);
	/* a global pointer followed: its value is the base now */
	CHECK_STR(v = after("@+0x4048", 1, 8), "+8(@+0x4048)");
	free(v);
	CHECK_STR(v = after("@0xffff0000", 1, 0), "+0(@0xffff0000)");
	free(v);
}

UNIT_MAIN()
