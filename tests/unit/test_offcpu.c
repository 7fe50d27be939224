// SPDX-License-Identifier: GPL-2.0
/* Threads' blocks paired from switch-out to switch-in (tool/offcpu.c). */
#include <stdint.h>

#include "tool/offcpu.h"
#include "unit.h"

#define MS 1000000ULL

UNIT_TEST(a_block_ends_at_the_switch_in_with_the_stack_sampled_at_the_switch_out)
{
	struct offcpu_table *t = offcpu_new();
	uint64_t k[] = { 0xffffffff81000010ULL, 0xffffffff81000020ULL }, u[] = { 0x401000 };
	struct stackagg_sample s = { .kpcs = k, .nk = 2, .upcs = u, .nu = 1 }, got;
	uint64_t us;

	CHECK(!offcpu_in(t, 42, 5 * MS, &got, &us));	/* never seen out */
	offcpu_stack(t, 42, 10 * MS, &s);
	offcpu_out(t, 42, 40, "napper", 10 * MS + 500);
	CHECK(offcpu_in(t, 42, 30 * MS + 500, &got, &us));
	CHECK_INT((int)us, 20000);
	CHECK_INT(got.pid, 40);
	CHECK_STR(got.comm, "napper");
	CHECK_INT((int)got.nk, 2);
	CHECK_INT((int)got.nu, 1);
	CHECK(got.kpcs[1] == k[1] && got.upcs[0] == u[0]);
	CHECK(!got.kmissed);
	CHECK(!offcpu_in(t, 42, 40 * MS, &got, &us));	/* ended already */
	offcpu_free(t);
}

UNIT_TEST(a_switch_without_its_stack_is_a_missed_one_and_late_ones_are_counted)
{
	struct offcpu_table *t = offcpu_new();
	uint64_t k[] = { 0xffffffff81000010ULL };
	struct stackagg_sample s = { .kpcs = k, .nk = 1 }, got;
	uint64_t us;

	offcpu_stack(t, 7, 1 * MS, &s);
	offcpu_out(t, 7, 7, "x", 25 * MS);		/* stack 24 ms old: not its */
	CHECK(offcpu_in(t, 7, 26 * MS, &got, &us));
	CHECK(got.kmissed);
	CHECK_INT((int)got.nk, 0);
	CHECK_INT((int)us, 1000);
	offcpu_stack(t, 7, 30 * MS, &s);
	offcpu_out(t, 7, 7, "x", 45 * MS);		/* 15 ms late (a preempted vCPU): its */
	CHECK(offcpu_in(t, 7, 46 * MS, &got, &us));
	CHECK(!got.kmissed);
	CHECK_INT((int)got.nk, 1);
	offcpu_out(t, 7, 7, "x", 25 * MS + 1);		/* before its switch-in */
	CHECK_INT((int)offcpu_unpaired(t), 1);
	CHECK(!offcpu_in(t, 7, 47 * MS, &got, &us));
	offcpu_free(t);
}

UNIT_MAIN()
