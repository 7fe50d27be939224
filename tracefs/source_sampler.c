// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler source (TP_STACK): a perf_event sampler per event, with the
 * kernel and user callchain (perf_sampler.h).  Its rings wake the reader
 * only at a watermark, so the session also drains them on a timer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/loop.h"
#include "tracefs/internal.h"
#include "tracefs/perf_sampler.h"
#include "tracefs/session.h"
#include "tracefs/source.h"

/* A quiet ring is drained this often. */
#define SAMPLER_DRAIN_MS 100
/* Data pages per CPU ring. */
#define SAMPLER_PAGES 64

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

static int sampler_open_src(struct source *src, struct loop *l)
{
	const int *fds;
	struct tp *tp;
	int i, n, err;

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
	struct tp *tp;
	int err;

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

static long sampler_drain(struct source *src, tk_event_fn fn, void *arg)
{
	struct tp *tp;
	long n = 0;

	for_each_sampler(tp, src)
		n += perf_sampler_drain(sampler_of(tp), fn, arg);
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
}

static void sampler_close(struct source *src)
{
	struct tp *tp;

	for_each_sampler(tp, src) {
		perf_sampler_free(sampler_of(tp));
		tp->src_data = NULL;
	}
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
	struct source *src = xcalloc(1, sizeof(*src));

	src->ops = &sampler_ops;
	src->s = s;
	src->drain_ms = SAMPLER_DRAIN_MS;
	return src;
}
