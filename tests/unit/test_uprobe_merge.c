// SPDX-License-Identifier: GPL-2.0
/* Which uprobe definitions share an event (prov/uprobe_merge.c). */
#include <stdlib.h>
#include <string.h>

#include "prov/uprobe.h"
#include "tracefs/session.h"
#include "tests/unit/unit.h"

#define N 7

UNIT_TEST(uprobe_merge_shapes)
{
	/* 0, 2, 3 and 6: entries with no args (6 is at 0's site); 1: the
	 * same name and type as 4 in another register; 5: a semaphore */
	struct session_probe v[N] = {
		{ .event = "u0", .path = "/a", .offset = 0x10 },
		{ .event = "u1", .path = "/a", .offset = 0x20, .args = "v0=%di:s32" },
		{ .event = "u2", .path = "/b", .offset = 0x10 },
		{ .event = "u3", .path = "/a", .offset = 0x30 },
		{ .event = "u4", .path = "/a", .offset = 0x40, .args = "v0=-8(%bp):s32" },
		{ .event = "u5", .path = "/a", .offset = 0x50, .ref_ctr = 0x99 },
		{ .event = "u6", .path = "/a", .offset = 0x10 },
	};
	bool entry[N] = { 0 };
	size_t order[N], i, pos[N];
	int site[N];
	unsigned seq = 0;
	struct umerge *m = uprobe_merge(v, N, entry, &seq, order, site);

	for (i = 0; i < N; i++)
		pos[order[i]] = i;
	CHECK_INT(seq, 3);	/* no-args twice (6 repeats 0's site), v0:s32 */
	CHECK_STR(v[5].event, "u5");
	CHECK_INT(site[5], -1);
	CHECK_STR(v[1].event, v[4].event);
	CHECK_STR(v[1].args, "v0=%di:s32 tk_site=\\0:u32");
	CHECK_STR(v[4].args, "v0=-8(%bp):s32 tk_site=\\1:u32");
	CHECK_STR(v[0].event, v[2].event);
	CHECK_STR(v[0].event, v[3].event);
	CHECK(strcmp(v[0].event, v[6].event) != 0);
	CHECK_INT(site[6], 0);
	CHECK_STR(v[6].args, "tk_site=\\0:u32");
	/* the probes of one event are adjacent, in site order */
	CHECK_INT(pos[4], pos[1] + 1);
	CHECK_INT(pos[2] - pos[0] == 1 || pos[3] - pos[0] == 1, 1);
	CHECK_INT(abs((int)pos[2] - (int)pos[3]) <= 2, 1);
	uprobe_merge_free(m);
}

UNIT_TEST(uprobe_merge_apart)
{
	/* an entry twin's record, a return, and too many args: no sharing */
	char many[2048] = "";
	struct session_probe v[4] = {
		{ .event = "a", .path = "/a", .offset = 1 },
		{ .event = "b", .path = "/a", .offset = 2 },
		{ .event = "c", .path = "/a", .offset = 3, .ret = true },
		{ .event = "d", .path = "/a", .offset = 4, .args = many },
	};
	struct session_probe w[2] = {
		{ .event = "e", .path = "/a", .offset = 5, .args = many },
		{ .event = "f", .path = "/a", .offset = 6, .args = many },
	};
	bool entry[4] = { true, false, false, false }, we[2] = { 0 };
	size_t order[4], i;
	int site[4];
	unsigned seq = 0;
	struct umerge *m;

	for (i = 0; i < 127; i++)
		sprintf(many + strlen(many), "%sv%zu=%%di:u8", i ? " " : "", i);
	m = uprobe_merge(v, 4, entry, &seq, order, site);

	CHECK_INT(seq, 0);
	for (i = 0; i < 4; i++)
		CHECK_INT(site[i], -1);
	uprobe_merge_free(m);
	m = uprobe_merge(w, 2, we, &seq, order, site);
	CHECK_INT(seq, 0);	/* no room for tk_site: an event each */
	CHECK_STR(w[0].event, "e");
	uprobe_merge_free(m);
}

UNIT_MAIN()
