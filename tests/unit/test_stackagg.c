// SPDX-License-Identifier: GPL-2.0
/* Stacks aggregated and printed (common/stackagg.c, common/flamegraph.c),
 * named through this test's own symbols. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/flamegraph.h"
#include "common/stackagg.h"
#include "common/symcache.h"
#include "unit.h"

void tk_inner(void);
void tk_outer(void);

__attribute__((noinline)) void tk_inner(void)
{
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop");
}

__attribute__((noinline)) void tk_outer(void)
{
	tk_inner();
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop");
}

/* What @a prints per @o, in a malloc'ed string. */
static char *printed(struct stackagg *a, const struct stackagg_print_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	stackagg_print(a, f, o);
	fclose(f);
	return buf;
}

static struct stackagg *sample_stacks(void)
{
	struct symcache *c = symcache_new();
	struct stackagg *a = stackagg_new(c);
	uint64_t in = (uint64_t)(uintptr_t)tk_inner, out = (uint64_t)(uintptr_t)tk_outer;
	uint64_t u1[] = { in + 1, out + 5 }, u2[] = { in + 2, out + 6 }, u3[] = { 0x10 };
	struct stackagg_sample s = { .pid = getpid(), .comm = "unit", .upcs = u1, .nu = 2 };

	symcache_note(c, getpid());
	stackagg_add(a, &s, 2);
	s.upcs = u2;			/* other offsets, same functions */
	stackagg_add(a, &s, 3);
	s.upcs = u3;			/* nothing maps it */
	s.nu = 1;
	stackagg_add(a, &s, 1);
	s.nu = 0;
	s.kmissed = true;		/* a kernel stack due, none given */
	stackagg_add(a, &s, 1);
	return a;
}

UNIT_TEST(stacks_sum_by_name_and_count_what_they_miss)
{
	struct stackagg *a = sample_stacks();
	const struct stackagg_stats *st = stackagg_stats(a);
	struct stackagg_print_opts o = { .format = STACKAGG_FOLDED, .kernel = true,
					 .user = true };
	char *s = printed(a, &o);

	CHECK_STR(s, "unit;[Missed Kernel Stack] 1\n"
		     "unit;[unknown] 1\n"
		     "unit;tk_outer;tk_inner 5\n");
	CHECK_INT((int)st->samples, 4);
	CHECK_INT((int)st->frames, 5);
	CHECK_INT((int)st->unknown, 1);
	CHECK_INT((int)st->missed, 1);
	CHECK_INT((int)stackagg_total(a), 7);
	free(s);
	stackagg_free(a);
}

UNIT_TEST(stacks_print_as_bcc_and_json)
{
	struct stackagg *a = sample_stacks();
	struct stackagg_print_opts o = { .format = STACKAGG_TEXT, .kernel = true,
					 .user = true, .value_name = "count" };
	char *s = printed(a, &o), want[512];

	snprintf(want, sizeof(want),
		 "    [Missed Kernel Stack]\n    -                unit (%d)\n        1\n\n"
		 "    [unknown]\n    -                unit (%d)\n        1\n\n"
		 "    tk_inner\n    tk_outer\n    -                unit (%d)\n        5\n\n",
		 getpid(), getpid(), getpid());
	CHECK_STR(s, want);
	free(s);
	o.format = STACKAGG_JSON;
	o.kernel = false;		/* -U */
	s = printed(a, &o);
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"comm\":\"unit\",\"count\":5,\"kernel\":[],"
		 "\"user\":[\"tk_inner\",\"tk_outer\"],\"kernel_missed\":false,"
		 "\"user_missed\":false}\n", getpid());
	CHECK(strstr(s, want) != NULL);
	free(s);
	stackagg_free(a);
}

UNIT_TEST(flame_graph_has_a_box_per_frame)
{
	struct stackagg *a = sample_stacks();
	struct stackagg_print_opts o = { .kernel = true, .user = true };
	struct flamegraph_opts fo = { .title = "T", .unit = "samples" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK_INT(flamegraph_write(a, &o, &fo, f), 0);
	fclose(f);
	CHECK(strstr(buf, "<title>all (7 samples, 100.00%)</title>") != NULL);
	CHECK(strstr(buf, "<title>tk_inner (5 samples, 71.43%)</title>") != NULL);
	CHECK(strstr(buf, "<title>[Missed Kernel Stack] (1 samples, 14.29%)</title>") != NULL);
	CHECK(strstr(buf, "</svg>\n") != NULL);
	free(buf);
	stackagg_free(a);
}

UNIT_MAIN()
