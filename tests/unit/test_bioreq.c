// SPDX-License-Identifier: GPL-2.0
/*
 * tool/bioreq.c: block requests paired from start through issue to
 * completion, fed hand-made records laid out by the running kernel's
 * formats of block:block_io_start (or block_rq_insert), block_rq_issue and
 * block_rq_complete: in order; a completion read before its issue and
 * start (another CPU's records read a drain late); an issue before its
 * start; a stale completion of a request issued before tracing; two
 * operations at one sector.  And bcc's flag names from rwbs.  The records
 * part reads tracefs's formats; needs root, and skips otherwise.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "common/event.h"
#include "tool/bioreq.h"
#include "tracefs/format.h"
#include "tests/unit/unit.h"

#define DEV_LOOP0	(7u << 20)

struct got {
	struct bioreq r[8];
	int n;
};

static void collect(const struct bioreq *r, void *arg)
{
	struct got *g = arg;

	if (g->n < 8)
		g->r[g->n] = *r;
	g->n++;
}

struct fmt {
	struct tep_event *ev[3];	/* start, issue, complete */
	struct tk_field dev[3], sector[3], rwbs[3], comm[3], bytes[3], error;
};

static const char *load(struct fmt *f)
{
	const char *start = format_event_id("block", "block_io_start") >= 0 ?
			    "block_io_start" : "block_rq_insert";
	int i;

	if (geteuid() != 0)
		return "requires: root";
	f->ev[0] = format_load("block", start);
	f->ev[1] = format_load("block", "block_rq_issue");
	f->ev[2] = format_load("block", "block_rq_complete");
	if (!f->ev[0] || !f->ev[1] || !f->ev[2])
		return "requires: the block tracepoints";
	for (i = 0; i < 3; i++) {
		format_field(f->ev[i], "dev", &f->dev[i]);
		format_field(f->ev[i], "sector", &f->sector[i]);
		format_field(f->ev[i], "rwbs", &f->rwbs[i]);
		if (i < 2) {
			format_field(f->ev[i], "comm", &f->comm[i]);
			format_field(f->ev[i], "bytes", &f->bytes[i]);
		}
	}
	format_field(f->ev[2], "error", &f->error);
	return NULL;
}

static void put(unsigned char *buf, const struct tk_field *fl, uint64_t v)
{
	memcpy(buf + fl->offset, &v, (size_t)fl->size < sizeof(v) ? (size_t)fl->size : sizeof(v));
}

/* Feed record @k (0 start, 1 issue, 2 complete) of @pid/@comm at @ts. */
static void feed(struct bioreqs *b, const struct fmt *f, int k, uint64_t ts,
		 int pid, const char *comm, uint64_t sector, const char *rwbs,
		 uint32_t bytes)
{
	unsigned char buf[256] = { 0 };
	uint16_t type = (uint16_t)format_id(f->ev[k]);
	struct tk_event ev = {
		.ts = ts, .pid = pid, .id = format_id(f->ev[k]),
		.data = buf, .size = sizeof(buf),
	};

	memcpy(buf, &type, sizeof(type));
	put(buf, &f->dev[k], DEV_LOOP0);
	put(buf, &f->sector[k], sector);
	memcpy(buf + f->rwbs[k].offset, rwbs, strlen(rwbs));
	if (k < 2) {
		memcpy(buf + f->comm[k].offset, comm, strlen(comm));
		put(buf, &f->bytes[k], bytes);
	}
	CHECK(bioreqs_event(b, &ev));
}

static struct bioreqs *setup(struct fmt *f, struct got *g)
{
	struct bioreqs *b = bioreqs_new(collect, g);
	char err[256];

	memset(g, 0, sizeof(*g));
	CHECK_INT(bioreqs_use(b, f->ev[0], f->ev[1], f->ev[2], err, sizeof(err)), 0);
	return b;
}

UNIT_TEST(in_order_the_submitter_and_the_times)
{
	struct fmt f;
	struct got g;
	struct bioreqs *b;
	const char *why = load(&f);

	if (why)
		SKIP(why);
	b = setup(&f, &g);
	feed(b, &f, 0, 100, 42, "dd", 128, "WS", 65536);
	feed(b, &f, 1, 110, 7, "kworker/0:1", 128, "WS", 65536);
	CHECK_INT(g.n, 0);
	feed(b, &f, 2, 150, 0, "", 128, "WS", 0);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.r[0].tid, 42);
	CHECK_STR(g.r[0].comm, "dd");
	CHECK_INT(g.r[0].dev, DEV_LOOP0);
	CHECK_INT(g.r[0].sector, 128);
	CHECK_INT(g.r[0].bytes, 65536);
	CHECK_INT(g.r[0].start_ts, 100);
	CHECK_INT(g.r[0].issue_ts, 110);
	CHECK_INT(g.r[0].done_ts, 150);
	CHECK_STR(g.r[0].rwbs, "WS");
	/* a second completion at that sector: nothing in flight there */
	feed(b, &f, 2, 160, 0, "", 128, "WS", 0);
	CHECK_INT(g.n, 1);
	bioreqs_free(b);
}

UNIT_TEST(a_completion_read_before_its_issue_and_start)
{
	struct fmt f;
	struct got g;
	struct bioreqs *b;
	const char *why = load(&f);

	if (why)
		SKIP(why);
	b = setup(&f, &g);
	feed(b, &f, 2, 150, 0, "", 256, "W", 0);
	feed(b, &f, 0, 100, 43, "fio", 256, "W", 4096);
	CHECK_INT(g.n, 0);
	feed(b, &f, 1, 110, 43, "fio", 256, "W", 4096);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.r[0].tid, 43);
	CHECK_INT(g.r[0].start_ts, 100);
	CHECK_INT(g.r[0].issue_ts, 110);
	CHECK_INT(g.r[0].done_ts, 150);
	bioreqs_free(b);
}

UNIT_TEST(an_issue_read_before_its_start_keeps_the_submitter)
{
	struct fmt f;
	struct got g;
	struct bioreqs *b;
	const char *why = load(&f);

	if (why)
		SKIP(why);
	b = setup(&f, &g);
	feed(b, &f, 1, 110, 7, "kworker/1:2", 512, "R", 8192);
	feed(b, &f, 0, 100, 44, "cat", 512, "R", 8192);
	feed(b, &f, 2, 130, 0, "", 512, "R", 0);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.r[0].tid, 44);
	CHECK_STR(g.r[0].comm, "cat");
	CHECK_INT(g.r[0].start_ts, 100);
	CHECK_INT(g.r[0].issue_ts, 110);
	bioreqs_free(b);
}

UNIT_TEST(a_request_issued_before_tracing_is_never_reported)
{
	struct fmt f;
	struct got g;
	struct bioreqs *b;
	const char *why = load(&f);

	if (why)
		SKIP(why);
	b = setup(&f, &g);
	feed(b, &f, 2, 50, 0, "", 1024, "W", 0);	/* issued before us */
	feed(b, &f, 0, 100, 45, "dd", 1024, "W", 4096);
	feed(b, &f, 1, 101, 45, "dd", 1024, "W", 4096);
	CHECK_INT(g.n, 0);
	feed(b, &f, 2, 120, 0, "", 1024, "W", 0);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.r[0].start_ts, 100);
	CHECK_INT(g.r[0].done_ts, 120);
	/* with no start seen, the issuer is the task */
	feed(b, &f, 1, 200, 9, "jbd2/vda1-8", 2048, "WS", 4096);
	feed(b, &f, 2, 210, 0, "", 2048, "WS", 0);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.r[1].tid, 9);
	CHECK_INT(g.r[1].start_ts, 0);
	bioreqs_free(b);
}

UNIT_TEST(a_flush_and_a_write_at_one_sector_are_two_requests)
{
	struct fmt f;
	struct got g;
	struct bioreqs *b;
	const char *why = load(&f);

	if (why)
		SKIP(why);
	b = setup(&f, &g);
	feed(b, &f, 0, 100, 46, "sync", 0, "FF", 0);
	feed(b, &f, 0, 101, 47, "dd", 0, "WS", 4096);
	feed(b, &f, 1, 102, 46, "sync", 0, "FF", 0);
	feed(b, &f, 1, 103, 47, "dd", 0, "WS", 4096);
	feed(b, &f, 2, 120, 0, "", 0, "WS", 0);
	feed(b, &f, 2, 130, 0, "", 0, "FF", 0);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.r[0].tid, 47);
	CHECK_INT(g.r[0].bytes, 4096);
	CHECK_INT(g.r[1].tid, 46);
	CHECK_STR(g.r[1].rwbs, "FF");
	bioreqs_free(b);
}

UNIT_TEST(bcc_flag_names_from_rwbs)
{
	char buf[128];

	CHECK_STR(bio_flags_name("W", buf, sizeof(buf)), "Write");
	CHECK_STR(bio_flags_name("WS", buf, sizeof(buf)), "Sync-Write");
	CHECK_STR(bio_flags_name("R", buf, sizeof(buf)), "Read");
	CHECK_STR(bio_flags_name("RA", buf, sizeof(buf)), "ReadAhead-Read");
	CHECK_STR(bio_flags_name("RM", buf, sizeof(buf)), "Metadata-Read");
	CHECK_STR(bio_flags_name("FWFSM", buf, sizeof(buf)),
		  "ForcedUnitAccess-Metadata-Sync-Write");
	CHECK_STR(bio_flags_name("F", buf, sizeof(buf)), "Flush");
	CHECK_STR(bio_flags_name("FF", buf, sizeof(buf)), "Flush");
	CHECK_STR(bio_flags_name("D", buf, sizeof(buf)), "Discard");
	CHECK_STR(bio_flags_name("DE", buf, sizeof(buf)), "SecureErase");
	CHECK_STR(bio_flags_name("N", buf, sizeof(buf)), "Unknown");
	CHECK_INT(bio_rw("WS"), 'W');
	CHECK_INT(bio_rw("FWFS"), 'W');
	CHECK_INT(bio_rw("RA"), 'R');
}

UNIT_TEST(histograms_by_name_sorted_and_cleared)
{
	struct bio_hists hs = { 0 };

	hist_log2_add(bio_hists_get(&hs, "vda"), 100);
	hist_log2_add(bio_hists_get(&hs, "loop0"), 5);
	hist_log2_add(bio_hists_get(&hs, "vda"), 200);
	CHECK_INT(hs.n, 2);
	bio_hists_sort(&hs);
	CHECK_STR(hs.v[0].name, "loop0");
	CHECK_INT(hs.v[0].h.count, 1);
	CHECK_STR(hs.v[1].name, "vda");
	CHECK_INT(hs.v[1].h.count, 2);
	bio_hists_clear(&hs);
	CHECK_INT(hs.n, 0);
	CHECK_INT(bio_hists_get(&hs, "x")->count, 0);
	bio_hists_release(&hs);
}

UNIT_MAIN()
