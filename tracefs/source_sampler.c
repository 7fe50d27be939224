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
 *
 * Merge.  In an ordered session, the samples of all the samplers (an
 * entry uprobe and its return that both sample) and the ring's records
 * (TP_RECORD: the entry of a return probe that prints stacks and runs
 * @entry) are delivered as one stream in timestamp order.
 * The ring source's own drain is taken over at open: each drain of this
 * source reads both, holds copies of what they gave, and delivers what is
 * older than the drain's start less a millisecond (a sample can still be
 * being written on another CPU when its ring is read); the rest waits for
 * the next drain, and once the session stops everything goes.  The copies
 * live in buffers reused from drain to drain.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/symcache.h"
#include "common/timefmt.h"
#include "tracefs/internal.h"
#include "tracefs/perf_event.h"
#include "tracefs/perf_sampler.h"
#include "tracefs/perf_sideband.h"
#include "tracefs/session.h"
#include "tracefs/source.h"

/* A quiet ring is drained this often. */
#define SAMPLER_DRAIN_MS 100
/* Data pages per CPU ring of each of the first samplers; past them the
 * rings shrink so that all of them stay near SAMPLER_BUDGET pages a CPU
 * for each doubling of their number (a wide pattern of hundreds of
 * events), down to SAMPLER_PAGES_MIN. */
#define SAMPLER_PAGES 64
#define SAMPLER_BUDGET 1024
#define SAMPLER_PAGES_MIN 2
/* Data pages per CPU ring of the sideband: a few records per exec. */
#define SIDEBAND_PAGES 16

/* How long a record waits for older ones from the other stream. */
#define MERGE_HOLD_NS 1000000ULL

/* A record held for the merge: its event, its bytes in the arena. */
struct held {
	struct tk_event ev;
	size_t data, stack;	/* offsets of its data and callchain */
	uint64_t seq;		/* arrival: ties keep it */
	bool sample;
};

/* The merge of the samples with the session's ring records. */
struct merge {
	bool on;			/* merging (else samplers one by one) */
	struct source *ring;		/* the ring source taken over, or NULL */
	const struct source_ops *ring_ops;	/* its own */
	struct held *v;
	size_t n, cap;
	unsigned char *arena, *spare;	/* swapped at each compaction */
	size_t used, acap, spare_cap;
	uint64_t seq;
	bool final;			/* stopped: deliver everything */
};

/* The source and what its samplers share. */
struct sampler_src {
	struct source src;
	struct perf_sideband *sb;	/* NULL: none (not opened, or failed) */
	struct symcache *syms;		/* symcache_shared()'s, while open */
	struct merge m;
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

/* The ring size of the next sampler, after @n others. */
static unsigned int sampler_pages(size_t n)
{
	unsigned int pages = SAMPLER_PAGES;

	while (pages > SAMPLER_PAGES_MIN && (n + 1) * pages > SAMPLER_BUDGET)
		pages /= 2;
	return pages;
}

static int sampler_add(struct source *src, struct tp *tp, const char *filter)
{
	struct perf_scope scope;
	struct tp *o;
	size_t n = 0;
	int err;

	for_each_sampler(o, src)
		n++;
	scope_perf(src->s, &scope);
	tp->src_data = perf_sampler_open(tp->id, &scope, filter, true, sampler_pages(n));
	if (!tp->src_data) {
		err = errno ? errno : EIO;
		session_errorf(src->s, "cannot sample %s:%s with perf_event: %s",
			       tp->system, tp->name, perf_strerror(err));
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

/* The ring source's drain while the samplers deliver its records. */
static long ring_held(struct source *src, tk_event_fn fn, void *arg)
{
	(void)src;
	(void)fn;
	(void)arg;
	return 0;
}

/* The ring sources' operations with their drain taken over: static, so
 * that a ring source outliving its sampler source (the order they are
 * freed in) never points at freed memory. */
static struct source_ops ring_hook;

/*
 * In an ordered session, merge the samples of all the samplers (an entry
 * uprobe and its return are two) and the ring's records, if any.
 */
static void take_ring(struct sampler_src *ss)
{
	struct session *s = ss->src.s;
	struct source *ring = s->by_mode[TP_RECORD], *src = &ss->src;
	struct tp *tp;
	int n = 0;

	for_each_sampler(tp, src)
		n++;
	if (!s->o.ordered || ss->m.on)
		return;
	if (!ring || !ring->ops->drain || ring->ops->drain == ring_held) {
		ss->m.on = n > 1;
		return;
	}
	ss->m.on = true;
	ss->m.ring = ring;
	ss->m.ring_ops = ring->ops;
	ring_hook = *ring->ops;
	ring_hook.drain = ring_held;
	ring->ops = &ring_hook;
}

static int sampler_open_src(struct source *src, struct loop *l)
{
	const int *fds;
	struct tp *tp;
	int i, n, err;

	open_sideband(ssrc(src));
	take_ring(ssrc(src));
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

/* Room for @n more bytes in the arena (amortized: no growth once warm). */
static size_t arena_take(struct merge *m, size_t n)
{
	size_t at = (m->used + 7) & ~(size_t)7;

	if (at + n > m->acap) {
		m->acap = 2 * (at + n) + 4096;
		m->arena = xrealloc(m->arena, m->acap);
	}
	m->used = at + n;
	return at;
}

static void hold(struct merge *m, const struct tk_event *ev, bool sample)
{
	struct held *h;

	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
	}
	h = &m->v[m->n++];
	h->ev = *ev;
	h->seq = m->seq++;
	h->sample = sample;
	h->data = arena_take(m, ev->size);
	memcpy(m->arena + h->data, ev->data, ev->size);
	h->stack = arena_take(m, ev->nstack * sizeof(*ev->stack));
	if (ev->nstack)
		memcpy(m->arena + h->stack, ev->stack, ev->nstack * sizeof(*ev->stack));
}

static void hold_sample(const struct tk_event *ev, void *arg)
{
	hold(arg, ev, true);
}

static void hold_record(const struct tk_event *ev, void *arg)
{
	hold(arg, ev, false);
}

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->ev.ts != y->ev.ts)
		return x->ev.ts < y->ev.ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The merged drain: both streams into the held list, then in time order
 * what is older than the horizon; the rest stays, compacted to the front.
 */
static long merged_drain(struct sampler_src *ss, tk_event_fn fn, void *arg)
{
	struct merge *m = &ss->m;
	uint64_t horizon = m->final ? UINT64_MAX : time_mono_ns() - MERGE_HOLD_NS;
	struct source *src = &ss->src;
	size_t i, k, used;
	struct tp *tp;
	long n = 0, r;

	for_each_sampler(tp, src)
		perf_sampler_drain(sampler_of(tp), hold_sample, m);
	r = m->ring ? m->ring_ops->drain(m->ring, hold_record, m) : 0;
	if (r < 0)
		return r;
	if (m->n > 1)		/* qsort() takes no NULL, even for none */
		qsort(m->v, m->n, sizeof(*m->v), cmp_held);
	for (i = 0; i < m->n && m->v[i].ev.ts <= horizon; i++) {
		struct held *h = &m->v[i];

		h->ev.data = m->arena + h->data;
		h->ev.stack = h->ev.nstack ? (const uint64_t *)(m->arena + h->stack) :
			      NULL;
		if (h->sample && ss->sb)
			perf_sideband_tell(ss->sb, h->ev.ts, ss->syms);
		fn(&h->ev, arg);
		n++;
	}
	/* keep the rest, their bytes copied into the spare arena */
	if (m->spare_cap < m->acap) {
		m->spare_cap = m->acap;
		m->spare = xrealloc(m->spare, m->spare_cap);
	}
	for (k = 0, used = 0; i < m->n; i++, k++) {
		struct held h = m->v[i];
		size_t ns = h.ev.nstack * sizeof(*h.ev.stack), d, st;

		d = used;
		memcpy(m->spare + d, m->arena + h.data, h.ev.size);
		used = (d + h.ev.size + 7) & ~(size_t)7;
		st = used;
		memcpy(m->spare + st, m->arena + h.stack, ns);
		used = (st + ns + 7) & ~(size_t)7;
		h.data = d;
		h.stack = st;
		m->v[k] = h;
	}
	m->n = k;
	{
		unsigned char *t = m->arena;
		size_t c = m->acap;

		m->arena = m->spare;
		m->acap = m->spare_cap;
		m->spare = t;
		m->spare_cap = c;
	}
	m->used = used;
	return n;
}

static long sampler_drain(struct source *src, tk_event_fn fn, void *arg)
{
	struct sampler_src *ss = ssrc(src);
	struct told_fn t = { ss, fn, arg };
	struct tp *tp;
	long n = 0;

	if (ss->m.on) {
		n = merged_drain(ss, fn, arg);
		if (ss->sb && n >= 0) {
			if (ss->m.final)
				perf_sideband_tell(ss->sb, UINT64_MAX, ss->syms);
			symcache_sweep(ss->syms);
		}
		return n;
	}
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
	ssrc(src)->m.final = true;
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
	/* the ring source is closed on its own (and may be freed already) */
	free(ss->m.v);
	free(ss->m.arena);
	free(ss->m.spare);
	memset(&ss->m, 0, sizeof(ss->m));
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
