// SPDX-License-Identifier: GPL-2.0
/*
 * ring_walk(): the pure part of the ring reader, fed with sub-buffers built
 * here byte for byte in the kernel's format (x86-64: little endian, 8-byte
 * long), as kernel/trace/ring_buffer.c writes them and trace_pipe_raw hands
 * them out:
 *
 *	u64 timestamp		base time of the page
 *	long commit		bytes of data; bit 31 RB_MISSED_EVENTS, bit 30
 *				RB_MISSED_STORED (a long count follows the data)
 *	data			events: u32 { type_len:5, time_delta:27 } then
 *				type_len 1..28: type_len * 4 bytes of payload
 *				type_len 0: array[0] = payload (aligned) + 4,
 *					    then the payload
 *				29 padding: array[0] = bytes after the header
 *				30 time extend: delta = array[0] << 27 | time_delta
 *				31 absolute stamp, encoded like 30
 *
 * The decoding rules asserted here are libtraceevent's kbuffer-parse.c (the
 * decoder trace-cmd uses too): every delta adds to the running timestamp,
 * those of padding (discarded events) included; a payload of type_len 0 is
 * array[0] - 4 bytes rounded up to 4.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/ring.h"
#include "tracefs/ring_int.h"
#include "tests/unit/unit.h"

#define SUBBUF		4096
#define HDR		16		/* u64 timestamp + long commit */
#define MISSED_EVENTS	(1UL << 31)
#define MISSED_STORED	(1UL << 30)
#define TS_BITS		27
#define TS_MASK		((1U << TS_BITS) - 1)
#define T_PADDING	29
#define T_EXTEND	30
#define T_STAMP		31

/* One sub-buffer under construction. */
struct page {
	unsigned char b[SUBBUF];
	size_t len;		/* bytes of data after the header */
	uint64_t ts;
};

static void page_init(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	p->ts = ts;
}

static void put32(struct page *p, uint32_t v)
{
	memcpy(p->b + HDR + p->len, &v, 4);
	p->len += 4;
}

static void put_bytes(struct page *p, const void *d, size_t n)
{
	memcpy(p->b + HDR + p->len, d, n);
	p->len += n;
}

static uint32_t ev_hdr(unsigned int type_len, uint32_t delta)
{
	return type_len | (delta & TS_MASK) << 5;
}

/*
 * A data event as rb_update_event() lays it out: up to 112 bytes
 * (RB_MAX_SMALL_DATA) the length is in type_len, beyond in array[0].
 */
static void put_event(struct page *p, uint32_t delta, const void *d, size_t n)
{
	size_t aligned = (n + 3) & ~(size_t)3;
	static const unsigned char zero[4];

	if (aligned <= 112) {
		put32(p, ev_hdr(aligned / 4, delta));
	} else {
		put32(p, ev_hdr(0, delta));
		put32(p, (uint32_t)aligned + 4);
	}
	put_bytes(p, d, n);
	put_bytes(p, zero, aligned - n);
}

/* A time extend (or absolute stamp) carrying @v in 27 + 32 bits. */
static void put_time(struct page *p, unsigned int type, uint64_t v)
{
	put32(p, ev_hdr(type, (uint32_t)(v & TS_MASK)));
	put32(p, (uint32_t)(v >> TS_BITS));
}

/* Padding of @total bytes including its header (a discarded event). */
static void put_padding(struct page *p, uint32_t delta, size_t total)
{
	put32(p, ev_hdr(T_PADDING, delta));
	put32(p, (uint32_t)(total - 4));
	memset(p->b + HDR + p->len, 0xee, total - 8);
	p->len += total - 8;
}

/* Write the header; @flags are MISSED_*; @missed is stored with STORED. */
static void page_finish(struct page *p, unsigned long flags, long missed)
{
	unsigned long commit = p->len | flags;

	memcpy(p->b, &p->ts, 8);
	memcpy(p->b + 8, &commit, 8);
	if (flags & MISSED_STORED)
		memcpy(p->b + HDR + p->len, &missed, sizeof(long));
}

/* A record: common_type, flags, preempt_count, common_pid, u32 seq. */
struct rec {
	uint16_t type;
	uint8_t flags;
	uint8_t preempt;
	int32_t pid;
	uint32_t seq;
};

static void put_rec(struct page *p, uint32_t delta, uint16_t type, int32_t pid,
		    uint32_t seq)
{
	struct rec r = { type, 0, 0, pid, seq };

	put_event(p, delta, &r, sizeof(r));
}

/* What the callback saw. */
#define MAXGOT 4096
struct got {
	uint64_t ts;
	int cpu, pid, id;
	unsigned int size;
	uint32_t seq;		/* bytes 8..11 when size >= 12 */
	const void *data;
};

static struct got got[MAXGOT];
static int ngot;

static void collect(const struct tk_event *ev, void *arg)
{
	struct got *g;

	(*(int *)arg)++;
	if (ngot == MAXGOT)
		return;
	g = &got[ngot++];
	g->ts = ev->ts;
	g->cpu = ev->cpu;
	g->pid = ev->pid;
	g->id = ev->id;
	g->size = ev->size;
	g->data = ev->data;
	g->seq = 0;
	if (ev->size >= 12)
		memcpy(&g->seq, (const unsigned char *)ev->data + 8, 4);
	CHECK(ev->stack == NULL && ev->nstack == 0);
}

/* Walk @ncpu queues of struct page (with @hold: one round of an ordered
 * drain, up to @until); returns the count, checks it. */
static long walk_queues(struct page **q, const int *n, int ncpu, bool ordered,
			uint64_t until, struct ring_hold *hold, uint64_t *missed)
{
	void **pages[8];
	void *ptrs[8][64];
	uint64_t dummy[8] = { 0 };
	int calls = 0, c, i;
	long ret;

	for (c = 0; c < ncpu; c++) {
		for (i = 0; i < n[c]; i++)
			ptrs[c][i] = q[c][i].b;
		pages[c] = ptrs[c];
	}
	if (hold)
		ret = ring_walk_held((void **const *)pages, n, ncpu, SUBBUF, until,
				     hold, missed ? missed : dummy, collect, &calls);
	else
		ret = ring_walk((void **const *)pages, n, ncpu, SUBBUF, ordered,
				missed ? missed : dummy, collect, &calls);
	CHECK_INT(ret, calls);
	return ret;
}

static long walk_pages(struct page **q, const int *n, int ncpu, bool ordered,
		       uint64_t *missed)
{
	ngot = 0;
	return walk_queues(q, n, ncpu, ordered, UINT64_MAX, NULL, missed);
}

UNIT_TEST(one_page_in_order)
{
	static struct page p[1];
	int n[1] = { 1 };
	uint64_t missed[1] = { 0 };

	page_init(&p[0], 1000000);
	put_rec(&p[0], 0, 7, 100, 1);
	put_rec(&p[0], 10, 8, 101, 2);
	put_rec(&p[0], 100, 9, -1, 3);
	page_finish(&p[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, true, missed), 3);
	CHECK_INT(ngot, 3);
	CHECK_INT(got[0].ts, 1000000);
	CHECK_INT(got[1].ts, 1000010);
	CHECK_INT(got[2].ts, 1000110);
	CHECK_INT(got[0].id, 7);
	CHECK_INT(got[1].id, 8);
	CHECK_INT(got[2].id, 9);
	CHECK_INT(got[0].pid, 100);
	CHECK_INT(got[1].pid, 101);
	CHECK_INT(got[2].pid, -1);
	CHECK_INT(got[0].seq, 1);
	CHECK_INT(got[2].seq, 3);
	CHECK_INT(got[0].size, sizeof(struct rec));
	CHECK_INT(got[0].cpu, 0);
	/* the data points into the page, right after each 4-byte header */
	CHECK(got[0].data == p[0].b + HDR + 4);
	CHECK(got[1].data == p[0].b + HDR + 4 + 12 + 4);
	CHECK_INT(missed[0], 0);

	/* the same page unordered gives the same records */
	CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, false, missed), 3);
	CHECK_INT(got[2].ts, 1000110);
}

UNIT_TEST(payload_sizes)
{
	static struct page p[1];
	unsigned char big[300];
	int n[1] = { 1 }, i;
	size_t sizes[] = { 8, 10, 112, 113, 116, 300 };
	size_t expect[] = { 8, 12, 112, 116, 116, 300 };

	for (i = 0; i < (int)sizeof(big); i++)
		big[i] = (unsigned char)i;
	big[1] = 0;
	page_init(&p[0], 5);
	for (i = 0; i < 6; i++) {
		big[0] = (unsigned char)(20 + i);	/* common_type */
		put_event(&p[0], 1, big, sizes[i]);
	}
	page_finish(&p[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, true, NULL), 6);
	for (i = 0; i < 6 && i < ngot; i++) {
		const unsigned char *d = got[i].data;

		CHECK_INT(got[i].size, expect[i]);
		CHECK_INT(got[i].id, 20 + i);
		CHECK_INT(got[i].ts, 5 + i + 1);
		CHECK_INT(d[sizes[i] - 1], (unsigned char)(sizes[i] - 1));
		CHECK(memcmp(d + 1, big + 1, sizes[i] - 1) == 0);
	}
	/* type_len 0 events: the payload starts after array[0] */
	CHECK(got[3].data == p[0].b + HDR + (4 + 8) + (4 + 12) + (4 + 112) + 8);
}

UNIT_TEST(record_shorter_than_common_fields)
{
	static struct page p[1];
	uint32_t w = 0x12345678;
	int n[1] = { 1 };

	page_init(&p[0], 50);
	put_event(&p[0], 0, &w, 4);
	page_finish(&p[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, true, NULL), 1);
	CHECK_INT(got[0].size, 4);
	CHECK_INT(got[0].id, 0);
	CHECK_INT(got[0].pid, 0);
	CHECK_INT(got[0].ts, 50);
}

UNIT_TEST(time_extend)
{
	static struct page p[1];
	int n[1] = { 1 };
	uint64_t base = 1000;

	page_init(&p[0], base);
	put_rec(&p[0], 0, 1, 10, 1);
	/* 5 s does not fit 27 bits: the kernel writes an extend, then the
	 * event with delta 0 */
	put_time(&p[0], T_EXTEND, 5000000000ULL);
	put_rec(&p[0], 0, 1, 10, 2);
	put_rec(&p[0], 3, 1, 10, 3);
	/* an extend followed by an event with its own delta: both add */
	put_time(&p[0], T_EXTEND, (1ULL << 40) + 17);
	put_rec(&p[0], 7, 1, 10, 4);
	page_finish(&p[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, true, NULL), 4);
	CHECK_INT(got[0].ts, base);
	CHECK_INT(got[1].ts, base + 5000000000ULL);
	CHECK_INT(got[2].ts, base + 5000000003ULL);
	CHECK_INT(got[3].ts, base + 5000000003ULL + (1ULL << 40) + 17 + 7);
	CHECK_INT(got[3].seq, 4);
}

UNIT_TEST(large_deltas)
{
	static struct page p[1];
	int n[1] = { 1 };
	uint64_t base = 0x0123456789abcdefULL & ((1ULL << 59) - 1);

	page_init(&p[0], base);
	put_rec(&p[0], TS_MASK, 2, 1, 1);	/* largest inline delta */
	put_rec(&p[0], TS_MASK, 2, 1, 2);
	put_rec(&p[0], 1, 2, 1, 3);
	page_finish(&p[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, true, NULL), 3);
	CHECK_INT(got[0].ts, base + TS_MASK);
	CHECK_INT(got[1].ts, base + 2ULL * TS_MASK);
	CHECK_INT(got[2].ts, base + 2ULL * TS_MASK + 1);
}

UNIT_TEST(absolute_timestamp)
{
	static struct page p[1];
	int n[1] = { 1 };
	uint64_t abs = 123456789012345ULL;	/* > 2^27: uses array[0] */

	page_init(&p[0], 1000);
	put_rec(&p[0], 2, 3, 1, 1);
	put_time(&p[0], T_STAMP, abs);
	put_rec(&p[0], 0, 3, 1, 2);
	put_rec(&p[0], 5, 3, 1, 3);
	page_finish(&p[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, true, NULL), 3);
	CHECK_INT(got[0].ts, 1002);
	CHECK_INT(got[1].ts, abs);
	CHECK_INT(got[2].ts, abs + 5);
}

/*
 * A page whose lengths point past its commit (a damaged or hostile copy):
 * the walk delivers what fits and ends the page, never reading beyond it
 * or looping.  Each case follows one good record.
 */
UNIT_TEST(damaged_page_ends_early)
{
	static struct page p[1];
	int n[1] = { 1 }, c;

	for (c = 0; c < 5; c++) {
		page_init(&p[0], 100);
		put_rec(&p[0], 1, 4, 1, 1);
		switch (c) {
		case 0:		/* type_len 0 with a length past the end */
			put32(&p[0], ev_hdr(0, 1));
			put32(&p[0], 0xfffffff0);
			break;
		case 1:		/* type_len 0 with array[0] < 4 */
			put32(&p[0], ev_hdr(0, 1));
			put32(&p[0], 2);
			break;
		case 2:		/* padding that would wrap the offset */
			put32(&p[0], ev_hdr(T_PADDING, 1));
			put32(&p[0], 0xfffffffc);
			break;
		case 3:		/* a small record cut by the commit */
			put32(&p[0], ev_hdr(28, 1));
			put32(&p[0], 0);
			break;
		case 4:		/* a header whose array[0] is past the commit */
			put32(&p[0], ev_hdr(T_EXTEND, 1));
			break;
		}
		page_finish(&p[0], 0, 0);
		CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, true, NULL), 1);
		CHECK_INT(got[0].seq, 1);
		CHECK_INT(got[0].ts, 101);
	}
	/* a commit longer than the sub-buffer is cut to it */
	page_init(&p[0], 100);
	put_rec(&p[0], 1, 4, 1, 1);
	page_finish(&p[0], 0, 0);
	{
		unsigned long commit = SUBBUF * 4;

		memcpy(p[0].b + 8, &commit, 8);
	}
	CHECK(walk_pages((struct page *[]){ p }, n, 1, true, NULL) >= 1);
	CHECK_INT(got[0].seq, 1);
}

UNIT_TEST(padding)
{
	static struct page p[1];
	int n[1] = { 1 };

	page_init(&p[0], 100);
	put_rec(&p[0], 1, 4, 1, 1);
	/* a discarded event in the middle: skipped, its delta counts */
	put_padding(&p[0], 3, 24);
	put_rec(&p[0], 4, 4, 1, 2);
	/* a discarded large event (its array[0] kept as the length) */
	put_padding(&p[0], 1, 200);
	put_rec(&p[0], 0, 4, 1, 3);
	/* rb_reset_tail(): padding to the end of the page, delta 1 */
	put_padding(&p[0], 1, SUBBUF - HDR - p[0].len);
	page_finish(&p[0], 0, 0);
	CHECK_INT(p[0].len, SUBBUF - HDR);

	CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, true, NULL), 3);
	CHECK_INT(got[0].ts, 101);
	CHECK_INT(got[1].ts, 108);
	CHECK_INT(got[2].ts, 109);
	CHECK_INT(got[1].seq, 2);
	CHECK_INT(got[2].seq, 3);
}

UNIT_TEST(multi_page_queue)
{
	static struct page p[3];
	int n[1] = { 3 }, i;

	for (i = 0; i < 3; i++) {
		page_init(&p[i], 1000ULL * (i + 1));
		put_rec(&p[i], 0, 5, 1, 10 * i + 1);
		put_rec(&p[i], 100, 5, 1, 10 * i + 2);
		page_finish(&p[i], 0, 0);
	}
	for (i = 0; i < 2; i++) {
		bool ordered = i;

		CHECK_INT(walk_pages((struct page *[]){ p }, n, 1, ordered, NULL), 6);
		CHECK_INT(got[0].ts, 1000);
		CHECK_INT(got[1].ts, 1100);
		CHECK_INT(got[2].ts, 2000);
		CHECK_INT(got[3].ts, 2100);
		CHECK_INT(got[4].ts, 3000);
		CHECK_INT(got[5].ts, 3100);
		CHECK_INT(got[4].seq, 21);
		CHECK(got[2].data == p[1].b + HDR + 4);
	}
}

/* CPU0: 10 30 | 50 70; CPU1: 20 40 60 | 80 */
static void two_cpu_pages(struct page *c0, struct page *c1)
{
	page_init(&c0[0], 10);
	put_rec(&c0[0], 0, 1, 100, 10);
	put_rec(&c0[0], 20, 1, 100, 30);
	page_finish(&c0[0], 0, 0);
	page_init(&c0[1], 50);
	put_rec(&c0[1], 0, 1, 100, 50);
	put_rec(&c0[1], 20, 1, 100, 70);
	page_finish(&c0[1], 0, 0);
	page_init(&c1[0], 15);
	put_rec(&c1[0], 5, 2, 200, 20);
	put_rec(&c1[0], 20, 2, 200, 40);
	put_rec(&c1[0], 20, 2, 200, 60);
	page_finish(&c1[0], 0, 0);
	page_init(&c1[1], 80);
	put_rec(&c1[1], 0, 2, 200, 80);
	page_finish(&c1[1], 0, 0);
}

UNIT_TEST(two_cpus_merged_when_ordered)
{
	static struct page c0[2], c1[2];
	int n[2] = { 2, 2 }, i;
	uint64_t missed[2] = { 0, 0 };

	two_cpu_pages(c0, c1);
	CHECK_INT(walk_pages((struct page *[]){ c0, c1 }, n, 2, true, missed), 8);
	for (i = 0; i < 8 && i < ngot; i++) {
		CHECK_INT(got[i].ts, 10 * (i + 1));
		CHECK_INT(got[i].seq, 10 * (i + 1));
		CHECK_INT(got[i].cpu, i % 2);
		CHECK_INT(got[i].pid, i % 2 ? 200 : 100);
		CHECK_INT(got[i].id, i % 2 ? 2 : 1);
	}
	CHECK_INT(missed[0] + missed[1], 0);
}

UNIT_TEST(two_cpus_cpu_by_cpu_when_not_ordered)
{
	static struct page c0[2], c1[2];
	int n[2] = { 2, 2 }, i;
	const int ts[8] = { 10, 30, 50, 70, 20, 40, 60, 80 };

	two_cpu_pages(c0, c1);
	CHECK_INT(walk_pages((struct page *[]){ c0, c1 }, n, 2, false, NULL), 8);
	for (i = 0; i < 8 && i < ngot; i++) {
		CHECK_INT(got[i].ts, ts[i]);
		CHECK_INT(got[i].cpu, i < 4 ? 0 : 1);
	}
}

/* Deterministic generator for the randomized tests. */
static uint64_t rng_state;

static uint32_t rng(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33);
}

UNIT_TEST(random_merge_four_cpus)
{
	enum { NCPU = 4, NPAGE = 5 };
	static struct page q[NCPU][NPAGE];
	struct page *qs[NCPU];
	int n[NCPU], c, i, round, total = 0;
	uint32_t last_seq[NCPU];

	rng_state = 42;
	for (c = 0; c < NCPU; c++) {
		uint64_t ts = rng() % 1000;
		uint32_t seq = 0;

		qs[c] = q[c];
		n[c] = 1 + rng() % NPAGE;
		for (i = 0; i < n[c]; i++) {
			int k, nrec = rng() % 40;	/* some pages empty */

			ts += rng() % 100000;
			page_init(&q[c][i], ts);
			for (k = 0; k < nrec; k++) {
				uint32_t d = rng() % 3 ? rng() % 5000 : 0;

				if (rng() % 10 == 0) {	/* now and then a gap */
					uint64_t gap = (uint64_t)rng() << 4;

					put_time(&q[c][i], T_EXTEND, gap);
					ts += gap;
				}
				put_rec(&q[c][i], d, (uint16_t)c, c, ++seq);
				ts += d;
				total++;
			}
			page_finish(&q[c][i], 0, 0);
		}
	}
	for (round = 0; round < 2; round++) {
		bool ordered = round == 0;
		int prev_cpu = 0;

		memset(last_seq, 0, sizeof(last_seq));
		CHECK_INT(walk_pages(qs, n, NCPU, ordered, NULL), total);
		for (i = 0; i < ngot; i++) {
			c = got[i].cpu;
			CHECK(c >= 0 && c < NCPU);
			if (c < 0 || c >= NCPU)
				break;
			/* each CPU's records in their order, none lost */
			CHECK_INT(got[i].seq, last_seq[c] + 1);
			last_seq[c] = got[i].seq;
			CHECK_INT(got[i].id, c);
			if (ordered && i)
				CHECK(got[i].ts >= got[i - 1].ts);
			if (!ordered)
				CHECK(c >= prev_cpu);
			prev_cpu = c;
		}
	}
}

UNIT_TEST(empty_pages)
{
	static struct page c0[3], c1[1];
	int n[2] = { 3, 1 };
	uint64_t missed[2] = { 0, 0 };

	page_init(&c0[0], 10);
	put_rec(&c0[0], 0, 1, 1, 1);
	page_finish(&c0[0], 0, 0);
	page_init(&c0[1], 20);		/* nothing committed */
	page_finish(&c0[1], 0, 0);
	page_init(&c0[2], 30);
	put_rec(&c0[2], 1, 1, 1, 2);
	page_finish(&c0[2], 0, 0);
	page_init(&c1[0], 5);		/* a CPU with only an empty page */
	page_finish(&c1[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ c0, c1 }, n, 2, true, missed), 2);
	CHECK_INT(got[0].ts, 10);
	CHECK_INT(got[1].ts, 31);
	CHECK_INT(got[1].seq, 2);
	CHECK_INT(missed[0] + missed[1], 0);
	CHECK_INT(walk_pages((struct page *[]){ c0, c1 }, n, 2, false, missed), 2);
}

UNIT_TEST(no_cpus_and_no_pages)
{
	int n[2] = { 0, 0 };
	void **pages[2] = { NULL, NULL };
	uint64_t missed[2] = { 0, 0 };
	int calls = 0;

	CHECK_INT(ring_walk(NULL, NULL, 0, SUBBUF, true, NULL, collect, &calls), 0);
	CHECK_INT(ring_walk(NULL, NULL, 0, SUBBUF, false, NULL, collect, &calls), 0);
	CHECK_INT(ring_walk((void **const *)pages, n, 2, SUBBUF, true, missed, collect, &calls), 0);
	CHECK_INT(ring_walk((void **const *)pages, n, 2, SUBBUF, false, missed, collect, &calls), 0);
	CHECK_INT(calls, 0);
}

UNIT_TEST(missed_events_without_count_adds_one)
{
	static struct page c0[2], c1[1];
	int n[2] = { 2, 1 };
	uint64_t missed[2] = { 0, 0 };

	/* a full page: no room for the count, only RB_MISSED_EVENTS */
	page_init(&c0[0], 10);
	put_rec(&c0[0], 0, 1, 1, 1);
	put_padding(&c0[0], 1, SUBBUF - HDR - c0[0].len);
	page_finish(&c0[0], 0, 0);
	page_init(&c0[1], 20);
	put_rec(&c0[1], 0, 1, 1, 2);
	put_padding(&c0[1], 1, SUBBUF - HDR - c0[1].len);
	page_finish(&c0[1], MISSED_EVENTS, 0);
	page_init(&c1[0], 15);
	put_rec(&c1[0], 0, 1, 2, 1);
	page_finish(&c1[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ c0, c1 }, n, 2, true, missed), 3);
	CHECK_INT(missed[0], 1);
	CHECK_INT(missed[1], 0);
	CHECK_INT(got[2].ts, 20);	/* records of the page still delivered */

	CHECK_INT(walk_pages((struct page *[]){ c0, c1 }, n, 2, false, missed), 3);
	CHECK_INT(missed[0], 2);	/* added, not overwritten */
}

UNIT_TEST(missed_events_stored_count)
{
	static struct page c0[1], c1[3];
	int n[2] = { 1, 3 };
	uint64_t missed[2] = { 0, 5 };

	page_init(&c0[0], 10);
	put_rec(&c0[0], 0, 1, 1, 1);
	page_finish(&c0[0], 0, 0);
	page_init(&c1[0], 11);
	put_rec(&c1[0], 0, 1, 2, 1);
	put_rec(&c1[0], 1, 1, 2, 2);
	page_finish(&c1[0], MISSED_EVENTS | MISSED_STORED, 42);
	page_init(&c1[1], 30);
	put_rec(&c1[1], 0, 1, 2, 3);
	page_finish(&c1[1], 0, 0);
	page_init(&c1[2], 40);
	put_rec(&c1[2], 0, 1, 2, 4);
	page_finish(&c1[2], MISSED_EVENTS | MISSED_STORED, 1000000);

	CHECK_INT(walk_pages((struct page *[]){ c0, c1 }, n, 2, true, missed), 5);
	CHECK_INT(missed[0], 0);
	CHECK_INT(missed[1], 5 + 42 + 1000000);
	/* the count is not mistaken for a record */
	CHECK_INT(got[4].seq, 4);
	CHECK_INT(got[2].ts, 12);
}

UNIT_TEST(missed_events_on_empty_page)
{
	static struct page c0[2];
	int n[1] = { 2 };
	uint64_t missed[1] = { 0 };

	page_init(&c0[0], 10);
	page_finish(&c0[0], MISSED_EVENTS | MISSED_STORED, 7);
	page_init(&c0[1], 20);
	page_finish(&c0[1], MISSED_EVENTS, 0);

	CHECK_INT(walk_pages((struct page *[]){ c0 }, n, 1, true, missed), 0);
	CHECK_INT(missed[0], 8);
}

/*
 * ring_buffer_read_page() copies a partly consumed reader page event by
 * event, "keeping the time extend and data together", so the copy can start
 * with a time extend (or an absolute stamp); RB_MISSED_EVENTS is set on it
 * like on any page.  The loss must still be counted.
 */
UNIT_TEST(missed_events_when_page_starts_with_time_extend)
{
	static struct page c0[2];
	int n[1] = { 2 };
	uint64_t missed[1] = { 0 };

	page_init(&c0[0], 1000);
	put_time(&c0[0], T_EXTEND, 1ULL << 30);
	put_rec(&c0[0], 0, 1, 1, 1);
	page_finish(&c0[0], MISSED_EVENTS | MISSED_STORED, 9);
	page_init(&c0[1], 5000000000ULL);
	put_time(&c0[1], T_STAMP, 6000000000ULL);
	put_rec(&c0[1], 0, 1, 1, 2);
	page_finish(&c0[1], MISSED_EVENTS, 0);

	CHECK_INT(walk_pages((struct page *[]){ c0 }, n, 1, true, missed), 2);
	CHECK_INT(got[0].ts, 1000 + (1ULL << 30));
	CHECK_INT(got[1].ts, 6000000000ULL);
	CHECK_INT(missed[0], 9 + 1);
}

/* The stored count is a long: counts past INT_MAX are not cut to an int. */
UNIT_TEST(missed_events_count_beyond_int)
{
	static struct page c0[2];
	int n[1] = { 2 };
	uint64_t missed[1] = { 0 };

	page_init(&c0[0], 10);
	put_rec(&c0[0], 0, 1, 1, 1);
	page_finish(&c0[0], MISSED_EVENTS | MISSED_STORED, 5000000000L);
	page_init(&c0[1], 20);
	put_rec(&c0[1], 0, 1, 1, 2);
	page_finish(&c0[1], MISSED_EVENTS | MISSED_STORED, 0x80000000L);

	CHECK_INT(walk_pages((struct page *[]){ c0 }, n, 1, true, missed), 2);
	CHECK_INT(missed[0], 5000000000LL + 0x80000000LL);
}

/*
 * Sub-buffers come out in ring order: a CPU that was idle for a long time
 * hands out a page whose base timestamp follows a long gap; another CPU's
 * queue runs out half-way while the first continues.  The merge must not
 * stall on the exhausted queue or reorder across the gap.
 */
UNIT_TEST(wrap_around_gap_and_uneven_queues)
{
	static struct page c0[3], c1[1], c2[2];
	int n[3] = { 3, 1, 2 }, i;
	const uint64_t s = 1000000000ULL;	/* 1 s */
	/* expected (ts, cpu) in merged order */
	const uint64_t ets[] = { 100, 150, 200, 250, 300, 60 * s, 60 * s + 10,
				 61 * s, 120 * s, 3600 * s, 3600 * s + 5 };
	const int ecpu[] = { 0, 1, 0, 1, 2, 0, 0, 2, 0, 2, 2 };

	page_init(&c0[0], 100);
	put_rec(&c0[0], 0, 1, 1, 1);
	put_rec(&c0[0], 100, 1, 1, 2);
	page_finish(&c0[0], 0, 0);
	page_init(&c0[1], 60 * s);	/* after a minute of silence */
	put_rec(&c0[1], 0, 1, 1, 3);
	put_rec(&c0[1], 10, 1, 1, 4);
	page_finish(&c0[1], 0, 0);
	page_init(&c0[2], 120 * s);
	put_rec(&c0[2], 0, 1, 1, 5);
	page_finish(&c0[2], MISSED_EVENTS | MISSED_STORED, 3);

	page_init(&c1[0], 150);		/* ends early */
	put_rec(&c1[0], 0, 1, 2, 1);
	put_rec(&c1[0], 100, 1, 2, 2);
	page_finish(&c1[0], 0, 0);

	page_init(&c2[0], 300);
	put_rec(&c2[0], 0, 1, 3, 1);
	put_time(&c2[0], T_EXTEND, 61 * s - 300);
	put_rec(&c2[0], 0, 1, 3, 2);
	page_finish(&c2[0], 0, 0);
	page_init(&c2[1], 3600 * s);	/* an hour later */
	put_rec(&c2[1], 0, 1, 3, 3);
	put_rec(&c2[1], 5, 1, 3, 4);
	page_finish(&c2[1], 0, 0);

	{
		uint64_t missed[3] = { 0, 0, 0 };

		CHECK_INT(walk_pages((struct page *[]){ c0, c1, c2 }, n, 3, true,
				     missed), 11);
		for (i = 0; i < 11 && i < ngot; i++) {
			CHECK_INT(got[i].ts, ets[i]);
			CHECK_INT(got[i].cpu, ecpu[i]);
		}
		CHECK_INT(missed[0], 3);
	}
	{
		uint64_t missed[3] = { 0, 0, 0 };
		const int ucpu[] = { 0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 2 };

		CHECK_INT(walk_pages((struct page *[]){ c0, c1, c2 }, n, 3, false,
				     missed), 11);
		for (i = 0; i < 11 && i < ngot; i++)
			CHECK_INT(got[i].cpu, ucpu[i]);
		CHECK_INT(got[4].ts, 120 * s);
		CHECK_INT(got[10].ts, 3600 * s + 5);
		CHECK_INT(missed[0], 3);
	}
}

/* Equal timestamps: every record once, each CPU's in its own order. */
UNIT_TEST(equal_timestamps_across_cpus)
{
	static struct page c0[1], c1[1];
	int n[2] = { 1, 1 }, i, seen[2] = { 0, 0 };

	page_init(&c0[0], 500);
	page_init(&c1[0], 500);
	for (i = 0; i < 3; i++) {
		put_rec(&c0[0], 0, 1, 1, i + 1);
		put_rec(&c1[0], 0, 1, 2, i + 1);
	}
	page_finish(&c0[0], 0, 0);
	page_finish(&c1[0], 0, 0);

	CHECK_INT(walk_pages((struct page *[]){ c0, c1 }, n, 2, true, NULL), 6);
	for (i = 0; i < ngot; i++) {
		int c = got[i].cpu;

		CHECK_INT(got[i].ts, 500);
		CHECK_INT(got[i].seq, ++seen[c & 1]);
	}
	CHECK_INT(seen[0], 3);
	CHECK_INT(seen[1], 3);
}

/*
 * An ordered drain's rounds: a round delivers the records up to the time it
 * began and holds the later ones, from the middle of a page, for the next
 * round, whose queue starts with the held pages (moved to its head).
 */
static long walk_held(struct page **q, const int *n, int ncpu, uint64_t until,
		      struct ring_hold *hold)
{
	return walk_queues(q, n, ncpu, true, until, hold, NULL);
}

UNIT_TEST(ordered_rounds_hold_what_came_after_they_began)
{
	static struct page c0[3], c1[2];
	struct ring_hold hold[2];
	int n[2] = { 2, 1 }, i;
	static const uint64_t want[] = { 100, 200, 300, 310, 400, 500, 600 };

	memset(hold, 0, sizeof(hold));
	/* CPU 0: a page at 100, then one at 300 with 310 and 500 after it */
	page_init(&c0[0], 100);
	put_rec(&c0[0], 0, 1, 0, 1);
	page_finish(&c0[0], 0, 0);
	page_init(&c0[1], 300);
	put_rec(&c0[1], 0, 1, 0, 2);
	put_rec(&c0[1], 10, 1, 0, 3);
	put_rec(&c0[1], 190, 1, 0, 4);
	page_finish(&c0[1], 0, 0);
	/* CPU 1: 200 and 400 */
	page_init(&c1[0], 200);
	put_rec(&c1[0], 0, 1, 1, 1);
	put_rec(&c1[0], 200, 1, 1, 2);
	page_finish(&c1[0], 0, 0);

	ngot = 0;
	CHECK_INT(walk_held((struct page *[]){ c0, c1 }, n, 2, 350, hold), 4);
	CHECK_INT(hold[0].npages, 1);		/* 500, in CPU 0's second page */
	CHECK_INT(hold[1].npages, 1);		/* 400 */
	/* the next round: CPU 0's held page at the head, then a new one */
	memcpy(&c0[0], &c0[1], sizeof(c0[0]));
	page_init(&c0[1], 600);
	put_rec(&c0[1], 0, 1, 0, 5);
	page_finish(&c0[1], 0, 0);
	CHECK_INT(walk_held((struct page *[]){ c0, c1 }, n, 2, UINT64_MAX, hold), 3);
	CHECK_INT(hold[0].npages, 0);
	CHECK_INT(hold[1].npages, 0);
	CHECK_INT(ngot, 7);
	for (i = 0; i < ngot && i < 7; i++)
		CHECK_INT(got[i].ts, want[i]);
	CHECK_INT(got[5].seq, 4);		/* 500: the record held mid-page */
}

/*
 * A drain skips our own thread's records, but not one made in an
 * interrupt that came while it ran: that names the task it interrupted
 * (a block request completed on our CPU).  The offset is added to each
 * timestamp.
 */
UNIT_TEST(own_records_skipped_but_not_interrupts)
{
	static struct page p[1];
	void *ptrs[1] = { p[0].b };
	int n[1] = { 1 }, calls = 0;
	uint64_t missed[1] = { 0 };
	struct walk_opts o = { .ts_offset = 5, .skip = true, .skip_pid = 42,
			       .skip_tid = 43 };
	static const struct rec recs[] = {
		{ 7, 0x00, 0, 42, 1 },	/* ours: skipped */
		{ 7, 0x08, 0, 42, 2 },	/* a hard interrupt's */
		{ 7, 0x10, 0, 42, 3 },	/* a softirq's */
		{ 7, 0x40, 0, 42, 4 },	/* an NMI's */
		{ 7, 0x01, 0, 42, 5 },	/* irqs off, still ours: skipped */
		{ 7, 0x00, 0, 43, 6 },	/* the keeper's: skipped */
		{ 7, 0x00, 0, 44, 7 },	/* another task's */
	};
	size_t i;

	page_init(&p[0], 1000);
	for (i = 0; i < sizeof(recs) / sizeof(*recs); i++)
		put_event(&p[0], 1, &recs[i], sizeof(recs[i]));
	page_finish(&p[0], 0, 0);

	ngot = 0;
	CHECK_INT(ring_walk_opts((void **const *)(void **[]){ ptrs }, n, 1,
				 SUBBUF, true, &o, missed, collect, &calls), 4);
	CHECK_INT(calls, 4);
	CHECK_INT(got[0].seq, 2);
	CHECK_INT(got[1].seq, 3);
	CHECK_INT(got[2].seq, 4);
	CHECK_INT(got[3].seq, 7);
	CHECK_INT(got[0].ts, 1000 + 2 + 5);
	CHECK_INT(got[3].pid, 44);

	/* without skip everything comes */
	o.skip = false;
	ngot = calls = 0;
	CHECK_INT(ring_walk_opts((void **const *)(void **[]){ ptrs }, n, 1,
				 SUBBUF, false, &o, missed, collect, &calls), 7);
}

UNIT_MAIN()
