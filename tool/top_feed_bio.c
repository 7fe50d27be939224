// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's "bio" feeder: block I/O requests, from the task that started
 * them to their completion, as biosnoop follows them (tool/bioreq.c: the
 * start event in the submitter's context, issue and completion paired by
 * device and sector): one sample per request with the device (its name
 * from /sys/dev/block/MAJ:MIN/uevent, else "MAJ:MIN"), the task that
 * started it, the bytes and the latency from issue.  A request issued
 * before tracing began is not counted.
 *
 * A filter on the device (a drill-down from a device's row) goes into the
 * kernel as `dev == N` on the events, so other devices cost nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/task.h"
#include "tool/bioreq.h"
#include "tool/top_int.h"
#include "tracefs/session.h"

enum {
	F_DEV, F_DEVNO, F_PID, F_TID, F_COMM, F_BYTES, F_LAT, F_RWBS, F_ERROR,
	F_N
};

static const struct top_field fields[F_N] = {
	[F_DEV]   = { "dev", "DEV", AGT_STR, AGT_PLAIN, 10 },
	[F_DEVNO] = { "devno", "DEVNO", AGT_INT, AGT_PLAIN, 0 },
	[F_PID]   = { "pid", "PID", AGT_INT, AGT_PLAIN, 0 },
	[F_TID]   = { "tid", "TID", AGT_INT, AGT_PLAIN, 0 },
	[F_COMM]  = { "comm", "COMM", AGT_STR, AGT_PLAIN, 15 },
	[F_BYTES] = { "bytes", "BYTES", AGT_INT, AGT_BYTES, 0 },
	[F_LAT]   = { "lat", "LAT", AGT_INT, AGT_NS, 0 },
	[F_RWBS]  = { "rwbs", "RWBS", AGT_STR, AGT_PLAIN, 5 },
	[F_ERROR] = { "error", "ERROR", AGT_INT, AGT_PLAIN, 0 },
};

struct bio {
	struct top_feed *f;
	struct bioreqs *reqs;
	const struct tk_event *ev;	/* the record being fed */
};

static int bio_init(struct top_feed *f)
{
	f->fields = fields;
	f->nfields = F_N;
	return 0;
}

static void on_request(const struct bioreq *r, void *arg)
{
	struct bio *b = arg;
	struct agt_sample s;
	pid_t tgid = r->tid ? task_cache_tgid(r->tid) : 0;

	memset(&s, 0, sizeof(s));
	s.str[F_DEV] = bioreqs_dev_name(b->reqs, r->dev);
	s.num[F_DEVNO] = r->dev;
	s.num[F_PID] = tgid > 0 ? tgid : r->tid;
	s.num[F_TID] = r->tid;
	s.str[F_COMM] = r->comm;
	s.num[F_BYTES] = r->bytes;
	s.num[F_LAT] = r->done_ts > r->issue_ts ? (int64_t)(r->done_ts - r->issue_ts) : 0;
	s.str[F_RWBS] = r->rwbs;
	s.num[F_ERROR] = r->error;
	s.have = (1ull << F_N) - 1;
	top_emit(b->f, b->ev, &s);
}

static void bio_event(struct top_feed *f, const struct tk_event *ev)
{
	struct bio *b = f->priv;

	b->ev = ev;
	bioreqs_event(b->reqs, ev);
}

static int bio_setup(struct top_feed *f)
{
	struct bio *b = xcalloc(1, sizeof(*b));
	struct top_filter *flt = top_filter_find(f, "dev");
	char err[200];
	int64_t dev = -1;
	int e;

	f->priv = b;
	b->f = f;
	b->reqs = bioreqs_new(on_request, b);
	if (flt)
		dev = bio_dev_parse(flt->text, err, sizeof(err));
	e = bioreqs_add(b->reqs, f->s, dev, err, sizeof(err));
	if (e < 0) {
		snprintf(f->err, sizeof(f->err), "bio: %s", err);
		return e;
	}
	if (dev >= 0)
		flt->kernel = true;
	if (f->verbose && dev >= 0)
		pr_info("bio: %s, paired by device and sector; kernel filter dev == %lld",
			bioreqs_events(b->reqs), (long long)dev);
	else if (f->verbose)
		pr_info("bio: %s, paired by device and sector", bioreqs_events(b->reqs));
	return 0;
}

static void bio_release(struct top_feed *f)
{
	struct bio *b = f->priv;

	if (!b)
		return;
	bioreqs_free(b->reqs);
	free(b);
	f->priv = NULL;
}

const struct top_feeder top_feed_bio = {
	.name = "bio",
	.init = bio_init,
	.setup = bio_setup,
	.event = bio_event,
	.release = bio_release,
	.ordered = true,
	.keep_self = true,
	.scope_by_field = true,
	.pid_field = "pid",
};
