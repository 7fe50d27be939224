// SPDX-License-Identifier: GPL-2.0
/*
 * The counter source (TP_COUNT): perf_event counting mode, no records at
 * all; session_count() reads an event's count.  Every counter joins one
 * group (perf_counter.h) so that the lot is switched on and off with one
 * call per CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/detach.h"
#include "common/log.h"
#include "tracefs/format.h"
#include "tracefs/internal.h"
#include "tracefs/perf_counter.h"
#include "tracefs/perf_event.h"
#include "tracefs/session.h"
#include "tracefs/source.h"

struct counter_source {
	struct source src;
	struct perf_group *group;
	int ncounters;
	int release_token;		/* detach_release() until we closed ours */
};

/* An event's own part (tp->src_data). */
struct counted {
	struct perf_counter *counter;	/* from open */
	char *filter;			/* applied at open */
};

static struct counter_source *csrc(struct source *src)
{
	return (struct counter_source *)src;
}

/* Counters are opened all at once by open. */
static int counter_add(struct source *src, struct tp *tp, const char *filter)
{
	struct counted *c = xcalloc(1, sizeof(*c));

	c->filter = filter ? xstrdup(filter) : NULL;
	tp->src_data = c;
	csrc(src)->ncounters++;
	return 0;
}

static int open_one(struct counter_source *cs, struct tp *tp,
		    const struct perf_scope *scope)
{
	struct counted *c = tp->src_data;

	if (tp->id < 0 && (tp->id = format_event_id(tp->system, tp->name)) < 0)
		return tp->id;
	c->counter = perf_counter_open(tp->id, scope, c->filter, cs->group);
	return c->counter ? 0 : -errno;
}

/*
 * Counters are opened from this thread alone: the kernel serializes
 * tracepoint perf_event_open() under event_mutex, and openers on several
 * threads hand that mutex back and forth between CPUs, which measured five
 * times slower (720 syscall counters: 30 ms against 6 ms).
 */
static int counter_open(struct source *src, struct loop *l)
{
	struct counter_source *cs = csrc(src);
	struct session *s = src->s;
	struct perf_scope scope;
	struct tp *tp;
	int err = 0;

	if (!cs->ncounters)
		return 0;
	scope_perf(s, &scope);
	cs->group = perf_group_open(&scope);
	if (!cs->group) {
		err = -errno;
		session_errorf(s, "cannot open perf_event counters: %s", perf_strerror(-err));
		return err;
	}
	for (tp = s->tps; tp && !err; tp = tp->next) {
		if (tp->src != src || !(err = open_one(cs, tp, &scope)))
			continue;
		if (tp->id < 0 && err == -ENOENT)
			session_errorf(s, "tracepoint %s:%s does not exist",
				       tp->system, tp->name);
		else if (err == -EMFILE || err == -ENFILE)
			session_errorf(s, "cannot count %s:%s: out of file descriptors "
				       "(%d counters, one per CPU each; raise ulimit -n)",
				       tp->system, tp->name, cs->ncounters);
		else
			session_errorf(s, "cannot count %s:%s with perf_event: %s",
				       tp->system, tp->name, perf_strerror(-err));
	}
	return err;
}

static int counter_start(struct source *src)
{
	struct counter_source *cs = csrc(src);
	int err;

	if (!cs->group)
		return 0;
	err = perf_group_enable(cs->group);
	if (err < 0)
		session_errorf(src->s, "cannot enable the counters: %s", strerror(-err));
	return err;
}

static uint64_t counter_count(struct source *src, const struct tp *tp)
{
	struct counted *c = tp->src_data;

	return c && c->counter ? perf_counter_read(c->counter) : 0;
}

static void counter_stop(struct source *src)
{
	if (csrc(src)->group)
		perf_group_disable(csrc(src)->group);
}

/* In the release helper, after its closes. */
static void remove_group(void *name)
{
	dynevents_remove_group(name);
}

/*
 * Releasing a tracepoint's last perf event waits for an RCU grace period
 * under the kernel's event_mutex, tracepoint after tracepoint: for
 * syscount's ~360 counters that measured 16-18 s on an idle machine (perf
 * stat pays the same).  The counters are disabled by now, so a detached
 * helper holds the last references while the kernel releases them, and our
 * own closes return at once.
 */
static void hand_over(struct counter_source *cs)
{
	struct session *s = cs->src.s;
	int *fds, nfds = 0, n, i, token;
	const int *cfds;
	struct counted *c;
	struct tp *tp;

	n = perf_group_size(cs->group);
	fds = xcalloc((size_t)(cs->ncounters + 1) * n, sizeof(int));
	for (tp = s->tps; tp; tp = tp->next) {
		c = tp->src == &cs->src ? tp->src_data : NULL;
		if (!c || !c->counter)
			continue;
		cfds = perf_counter_fds(c->counter, &n);
		for (i = 0; i < n; i++)
			fds[nfds++] = cfds[i];
	}
	nfds += perf_group_fds(cs->group, fds + nfds);
	/* our dynamic events stay busy until its last close: the helper
	 * removes the group then (stale.c leaves a group alone while its
	 * helper lives, and removes it if the helper dies) */
	token = s->has_dynevents ?
		detach_release_then(fds, nfds, s->name, remove_group, s->name) :
		detach_release(fds, nfds);
	if (token < 0)
		pr_info("closing %d perf events here: cannot fork", nfds);
	else
		s->group_handed = s->has_dynevents;
	free(fds);
	cs->release_token = token;
}

static void counter_close(struct source *src)
{
	struct counter_source *cs = csrc(src);
	struct counted *c;
	struct tp *tp;

	if (cs->group && cs->ncounters > 8)
		hand_over(cs);
	for (tp = src->s->tps; tp; tp = tp->next) {
		c = tp->src == src ? tp->src_data : NULL;
		if (c) {
			perf_counter_free(c->counter);
			c->counter = NULL;
		}
	}
	perf_group_free(cs->group);
	cs->group = NULL;
	/* the leaders are closed now: the helper's closes are the last */
	detach_release_done(cs->release_token);
	cs->release_token = -1;
}

static void counter_free(struct source *src)
{
	struct counted *c;
	struct tp *tp;

	for (tp = src->s->tps; tp; tp = tp->next) {
		if (tp->src != src || !(c = tp->src_data))
			continue;
		free(c->filter);
		free(c);
		tp->src_data = NULL;
	}
	free(src);
}

static const struct source_ops counter_ops = {
	.kind = "counter",
	.add = counter_add,
	.open = counter_open,
	.start = counter_start,
	.count = counter_count,
	.stop = counter_stop,
	.close = counter_close,
	.free = counter_free,
};

struct source *counter_source_new(struct session *s)
{
	struct counter_source *cs = xcalloc(1, sizeof(*cs));

	cs->src.ops = &counter_ops;
	cs->src.s = s;
	cs->release_token = -1;
	return &cs->src;
}
