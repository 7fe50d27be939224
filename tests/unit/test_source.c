// SPDX-License-Identifier: GPL-2.0
/*
 * The event-source interface (tracefs/source.h) without a kernel: fake
 * sources record the calls sources_*() make, so the order of the phases,
 * the first error stopping a phase, the sums of drains and losses and the
 * optional operations are checked exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tracefs/source.h"
#include "tests/unit/unit.h"

static char calls[512];

static void note(const char *what, int id)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, "%s%s%d", n ? " " : "", what, id);
}

struct fake {
	struct source src;
	int id;
	int open_err, start_err;
	long records;			/* delivered per drain, or -errno */
	uint64_t lost;
	int lost_cpu;			/* where the loss is, -1: unknown */
	bool freed;
};

static struct fake *F(struct source *src)
{
	return (struct fake *)src;
}

static int f_open(struct source *src, struct loop *l)
{
	note("open", F(src)->id);
	return F(src)->open_err;
}

static int f_start(struct source *src)
{
	note("start", F(src)->id);
	return F(src)->start_err;
}

static long f_drain(struct source *src, tk_event_fn fn, void *arg)
{
	struct tk_event ev = { .id = F(src)->id };
	long i;

	note("drain", F(src)->id);
	for (i = 0; i < F(src)->records; i++)
		fn(&ev, arg);
	return F(src)->records;
}

static void f_drain_stop(struct source *src)
{
	note("dstop", F(src)->id);
}

static uint64_t f_lost(struct source *src, uint64_t *per_cpu, int max_cpu)
{
	struct fake *f = F(src);

	if (per_cpu && f->lost_cpu >= 0 && f->lost_cpu < max_cpu)
		per_cpu[f->lost_cpu] += f->lost;
	return f->lost;
}

static void f_stop(struct source *src)
{
	note("stop", F(src)->id);
}

static void f_close(struct source *src)
{
	note("close", F(src)->id);
}

static void f_free(struct source *src)
{
	note("free", F(src)->id);
	F(src)->freed = true;
}

static const struct source_ops full_ops = {
	.kind = "fake",
	.open = f_open,
	.start = f_start,
	.drain = f_drain,
	.drain_stop = f_drain_stop,
	.lost = f_lost,
	.stop = f_stop,
	.close = f_close,
	.free = f_free,
};

/* A source with nothing but free (a counter has no records, no losses). */
static const struct source_ops bare_ops = {
	.kind = "bare",
	.free = f_free,
};

static void link3(struct fake *f, const struct source_ops *ops1)
{
	int i;

	memset(f, 0, 3 * sizeof(*f));
	calls[0] = '\0';
	for (i = 0; i < 3; i++) {
		f[i].src.ops = i == 1 ? ops1 : &full_ops;
		f[i].id = i + 1;
		f[i].lost_cpu = -1;
		f[i].src.next = i < 2 ? &f[i + 1].src : NULL;
	}
}

static void count_event(const struct tk_event *ev, void *arg)
{
	int *seen = arg;

	seen[ev->id]++;
}

UNIT_TEST(phases_in_list_order)
{
	struct fake f[3];

	link3(f, &full_ops);
	CHECK_INT(sources_open(&f[0].src, NULL), 0);
	CHECK_INT(sources_start(&f[0].src), 0);
	sources_drain_stop(&f[0].src);
	sources_stop(&f[0].src);
	sources_close(&f[0].src);
	CHECK_STR(calls, "open1 open2 open3 start1 start2 start3 dstop1 dstop2 dstop3 "
			 "stop1 stop2 stop3 close1 close2 close3");
}

UNIT_TEST(first_error_stops_the_phase)
{
	struct fake f[3];

	link3(f, &full_ops);
	f[1].open_err = -EMFILE;
	CHECK_INT(sources_open(&f[0].src, NULL), -EMFILE);
	CHECK_STR(calls, "open1 open2");
	calls[0] = '\0';
	f[0].start_err = -EPERM;
	CHECK_INT(sources_start(&f[0].src), -EPERM);
	CHECK_STR(calls, "start1");
}

UNIT_TEST(drain_sums_and_delivers_directly)
{
	struct fake f[3];
	int seen[4] = { 0 };

	link3(f, &full_ops);
	f[0].records = 3;
	f[2].records = 5;
	CHECK_INT(sources_drain(&f[0].src, count_event, seen), 8);
	CHECK_INT(seen[1], 3);
	CHECK_INT(seen[2], 0);
	CHECK_INT(seen[3], 5);
	/* an error ends the drain: the sources after it are not read */
	calls[0] = '\0';
	f[1].records = -EIO;
	CHECK_INT(sources_drain(&f[0].src, count_event, seen), -EIO);
	CHECK_STR(calls, "drain1 drain2");
	CHECK_INT(seen[3], 5);
}

UNIT_TEST(optional_operations_are_skipped)
{
	struct fake f[3];
	uint64_t per_cpu[4];
	int seen[4] = { 0 };

	link3(f, &bare_ops);
	f[0].records = 1;
	f[2].records = 2;
	f[1].lost = 99;		/* no lost op: not counted */
	CHECK_INT(sources_open(&f[0].src, NULL), 0);
	CHECK_INT(sources_start(&f[0].src), 0);
	CHECK_INT(sources_drain(&f[0].src, count_event, seen), 3);
	CHECK_INT(sources_lost(&f[0].src, per_cpu, 4), 0);
	sources_stop(&f[0].src);
	CHECK_STR(calls, "open1 open3 start1 start3 drain1 drain3 stop1 stop3");
}

UNIT_TEST(lost_per_cpu_zeroed_then_summed)
{
	struct fake f[3];
	uint64_t per_cpu[4] = { 7, 7, 7, 7 };

	link3(f, &full_ops);
	f[0].lost = 10;
	f[0].lost_cpu = 2;
	f[1].lost = 4;		/* CPU unknown: in the total only */
	f[2].lost = 1;
	f[2].lost_cpu = 2;
	CHECK_INT(sources_lost(&f[0].src, per_cpu, 4), 15);
	CHECK_INT(per_cpu[0], 0);
	CHECK_INT(per_cpu[1], 0);
	CHECK_INT(per_cpu[2], 11);
	CHECK_INT(per_cpu[3], 0);
	CHECK_INT(sources_lost(&f[0].src, NULL, 0), 15);
	/* a CPU past the array counts in the total only */
	f[0].lost_cpu = 9;
	CHECK_INT(sources_lost(&f[0].src, per_cpu, 4), 15);
	CHECK_INT(per_cpu[2], 1);
}

UNIT_TEST(drain_period_is_the_shortest_asked)
{
	struct fake f[3];

	link3(f, &full_ops);
	CHECK_INT(sources_drain_ms(&f[0].src), 0);
	f[1].src.drain_ms = 100;
	CHECK_INT(sources_drain_ms(&f[0].src), 100);
	f[2].src.drain_ms = 40;
	CHECK_INT(sources_drain_ms(&f[0].src), 40);
	CHECK_INT(sources_drain_ms(NULL), 0);
}

UNIT_TEST(free_closes_then_frees_each)
{
	struct fake f[3];

	link3(f, &bare_ops);
	sources_free(&f[0].src);
	CHECK_STR(calls, "close1 free1 free2 close3 free3");
	CHECK(f[0].freed && f[1].freed && f[2].freed);
}

UNIT_MAIN()
