// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler source (TP_STACK): a perf_event sampler per event, with the
 * kernel and user callchain (perf_sampler.h).  Its rings wake the reader
 * only at a watermark, so the session also drains them on a timer.
 *
 * Beside the samplers, one perf sideband (perf_sideband.h) with the
 * session's scope tells the mappings, execs and forks of the sampled
 * tasks to the run's symbol cache, each sample's older records before
 * the sample itself: a process that exits before its samples are read is
 * still named by its stacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/symcache.h"
#include "tracefs/internal.h"
#include "tracefs/perf_sampler.h"
#include "tracefs/perf_sideband.h"
#include "tracefs/session.h"
#include "tracefs/source.h"

/* A quiet ring is drained this often. */
#define SAMPLER_DRAIN_MS 100
/* Data pages per CPU ring. */
#define SAMPLER_PAGES 64
/* Data pages per CPU ring of the sideband: a few records per exec. */
#define SIDEBAND_PAGES 16

/* The source and what its samplers share. */
struct sampler_src {
	struct source src;
	struct perf_sideband *sb;	/* NULL: none (not opened, or failed) */
	struct symcache *syms;		/* symcache_shared()'s, while open */
};

#define ssrc(src) ((struct sampler_src *)(src))

/* A drain's callback, with the sideband told up to each sample. */
struct told_fn {
	struct sampler_src *ss;
	tk_event_fn fn;
	void *arg;
};

/* The events' samplers, each in its event's tp->src_data. */
#define sampler_of(tp) ((struct perf_sampler *)(tp)->src_data)
#define for_each_sampler(tp, src) \
	for ((tp) = (src)->s->tps; (tp); (tp) = (tp)->next) \
		if ((tp)->src == (src) && (tp)->src_data)

static int sampler_add(struct source *src, struct tp *tp, const char *filter)
{
	struct perf_scope scope;
	int err;

	scope_perf(src->s, &scope);
	tp->src_data = perf_sampler_open(tp->id, &scope, filter, true, SAMPLER_PAGES);
	if (!tp->src_data) {
		err = errno ? errno : EIO;
		session_errorf(src->s, "cannot sample %s:%s with perf_event: %s",
			       tp->system, tp->name, strerror(err));
		return -err;
	}
	return 0;
}

/*
 * The sideband of the samplers: without it (an older kernel, no fds left)
 * stacks are named from /proc at their first sample, as before.
 */
static void open_sideband(struct sampler_src *ss)
{
	struct source *src = &ss->src;
	struct perf_scope scope;
	struct tp *tp;

	for_each_sampler(tp, src)
		break;
	if (!tp || ss->sb)
		return;
	scope_perf(ss->src.s, &scope);
	ss->sb = perf_sideband_open(&scope, SIDEBAND_PAGES);
	if (ss->sb)
		ss->syms = symcache_shared();
}

static int sampler_open_src(struct source *src, struct loop *l)
{
	const int *fds;
	struct tp *tp;
	int i, n, err;

	open_sideband(ssrc(src));
	for_each_sampler(tp, src) {
		fds = perf_sampler_fds(sampler_of(tp), &n);
		for (i = 0; i < n; i++) {
			err = loop_add(l, fds[i], session_on_ready, src->s);
			if (err < 0) {
				session_errorf(src->s, "cannot poll the perf rings: %s",
					       strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

static int sampler_start(struct source *src)
{
	struct sampler_src *ss = ssrc(src);
	struct tp *tp;
	int err;

	if (ss->sb && perf_sideband_enable(ss->sb) < 0) {
		perf_sideband_free(ss->sb);	/* named from /proc instead */
		ss->sb = NULL;
	}
	for_each_sampler(tp, src) {
		err = perf_sampler_enable(sampler_of(tp));
		if (err < 0) {
			session_errorf(src->s, "cannot enable sampling of %s:%s: %s",
				       tp->system, tp->name, strerror(-err));
			return err;
		}
	}
	return 0;
}

static void told_sample(const struct tk_event *ev, void *arg)
{
	struct told_fn *t = arg;

	perf_sideband_tell(t->ss->sb, ev->ts, t->ss->syms);
	t->fn(ev, t->arg);
}

static long sampler_drain(struct source *src, tk_event_fn fn, void *arg)
{
	struct sampler_src *ss = ssrc(src);
	struct told_fn t = { ss, fn, arg };
	struct tp *tp;
	long n = 0;

	for_each_sampler(tp, src)
		n += ss->sb ? perf_sampler_drain(sampler_of(tp), told_sample, &t) :
		     perf_sampler_drain(sampler_of(tp), fn, arg);
	if (ss->sb) {
		perf_sideband_tell(ss->sb, UINT64_MAX, ss->syms);
		symcache_sweep(ss->syms);
	}
	return n;
}

static uint64_t sampler_lost(struct source *src, uint64_t *per_cpu, int max_cpu)
{
	uint64_t total = 0;
	struct tp *tp;

	for_each_sampler(tp, src)
		total += perf_sampler_lost(sampler_of(tp));
	return total;
}

static void sampler_stop(struct source *src)
{
	struct tp *tp;

	for_each_sampler(tp, src)
		perf_sampler_disable(sampler_of(tp));
	/* after the samplers: their last samples' records are there */
	if (ssrc(src)->sb)
		perf_sideband_disable(ssrc(src)->sb);
}

static void sampler_close(struct source *src)
{
	struct sampler_src *ss = ssrc(src);
	struct tp *tp;

	for_each_sampler(tp, src) {
		perf_sampler_free(sampler_of(tp));
		tp->src_data = NULL;
	}
	perf_sideband_free(ss->sb);
	ss->sb = NULL;
	symcache_free(ss->syms);
	ss->syms = NULL;
}

static void sampler_free(struct source *src)
{
	free(src);
}

static const struct source_ops sampler_ops = {
	.kind = "sampler",
	.add = sampler_add,
	.open = sampler_open_src,
	.start = sampler_start,
	.drain = sampler_drain,
	.lost = sampler_lost,
	.stop = sampler_stop,
	.close = sampler_close,
	.free = sampler_free,
};

struct source *sampler_source_new(struct session *s)
{
	struct sampler_src *ss = xcalloc(1, sizeof(*ss));

	ss->src.ops = &sampler_ops;
	ss->src.s = s;
	ss->src.drain_ms = SAMPLER_DRAIN_MS;
	return &ss->src;
}
