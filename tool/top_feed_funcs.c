// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's "funcs" feeder: a bcc pattern (tool/probeset.h, funccount's)
 * as calls and latency per function.
 *
 * Every site the pattern matches is an event of our group, recorded in the
 * ring.  Functions (kprobes where the kernel has them, uprobes in programs
 * and libraries) get a return probe too, and per thread a small stack of
 * entry times pairs each return with its own entry (recursion and nesting
 * time right; a return whose entry was missed is left out).  Tracepoints
 * and USDT probes have no return: calls only.
 *
 * Each entry is a sample with call = 1; each paired return one with lat,
 * so CALLS is call:sum, not count.
 *
 * A filter on the function (a drill-down from its row) narrows the
 * pattern to that function before anything is defined, so the other
 * functions the pattern matched cost nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/callstack.h"
#include "tool/probeset.h"
#include "tool/top_int.h"
#include "tracefs/session.h"

enum { F_FUNC, F_PID, F_TID, F_COMM, F_CALL, F_LAT, F_N };

static const struct top_field fields[F_N] = {
	[F_FUNC] = { "func", "FUNC", AGT_STR, AGT_PLAIN, 28 },
	[F_PID]  = { "pid", "PID", AGT_INT, AGT_PLAIN, 0 },
	[F_TID]  = { "tid", "TID", AGT_INT, AGT_PLAIN, 0 },
	[F_COMM] = { "comm", "COMM", AGT_STR, AGT_PLAIN, 15 },
	[F_CALL] = { "call", "CALLS", AGT_INT, AGT_PLAIN, 0 },
	[F_LAT]  = { "lat", "LAT", AGT_INT, AGT_NS, 0 },
};

#define MAX_DEPTH	32
#define MAX_THREADS	65536

struct idref {
	unsigned int probe;	/* index in the probeset */
	bool ret;
};


struct funcs {
	struct probeset ps;
	bool have_ps;
	struct hmap *ids;	/* event id -> struct idref */
	struct callstacks *stacks;	/* the calls each thread is in */
};

static int funcs_init(struct top_feed *f)
{
	char err[200];

	if (!f->arg || !*f->arg) {
		snprintf(f->err, sizeof(f->err),
			 "funcs: a pattern is needed (e.g. c:malloc, t:sched:*, 'vfs_*')");
		return -EINVAL;
	}
	if (probeset_check(f->arg, 0, err, sizeof(err)) < 0) {
		snprintf(f->err, sizeof(f->err), "funcs: %s", err);
		return -EINVAL;
	}
	f->fields = fields;
	f->nfields = F_N;
	return 0;
}

static void emit(struct top_feed *f, const struct tk_event *ev,
		 unsigned int probe, int64_t lat)
{
	struct funcs *fn = f->priv;
	pid_t tgid = task_cache_tgid(ev->pid);
	struct agt_sample s;

	memset(&s, 0, sizeof(s));
	s.str[F_FUNC] = fn->ps.v[probe].name;
	s.num[F_PID] = tgid > 0 ? tgid : ev->pid;
	s.num[F_TID] = ev->pid;
	s.str[F_COMM] = session_comm(f->s, ev->pid);
	s.num[F_CALL] = lat < 0;
	s.num[F_LAT] = lat;
	s.have = (1ull << F_N) - 1;
	if (lat < 0)
		s.have &= ~(1ull << F_LAT);
	else
		s.have &= ~(1ull << F_CALL);
	top_emit(f, ev, &s);
}

static void on_entry(struct funcs *fn, const struct tk_event *ev, unsigned int probe)
{
	if (!fn->ps.v[probe].ret)
		return;
	/* threads that exited are not seen leaving: a bound, not a leak */
	if (callstacks_threads(fn->stacks) >= MAX_THREADS)
		callstacks_clear(fn->stacks);
	callstacks_enter(fn->stacks, ev->pid, ev->ts, probe);
}

static void funcs_event(struct top_feed *f, const struct tk_event *ev)
{
	struct funcs *fn = f->priv;
	struct idref *r = hmap_get(fn->ids, (uint64_t)ev->id, false);
	int64_t lat;

	if (!r)
		return;
	if (r->ret) {
		lat = callstacks_return(fn->stacks, ev->pid, ev->ts, r->probe);
		if (lat >= 0)
			emit(f, ev, r->probe, lat);
		return;
	}
	on_entry(fn, ev, r->probe);
	emit(f, ev, r->probe, -1);
}

/*
 * @pattern narrowed to the function @func (a name the pattern matched):
 * the pattern's prefix up to its last ':' and the name's last part
 * ("c:mall*" and "malloc" -> "c:malloc"; "t:sched:*" and
 * "sched:sched_switch" -> "t:sched:sched_switch").  NULL when it cannot
 * be said.  The caller frees.
 */
static char *narrow(const char *pattern, const char *func)
{
	const char *colon = strrchr(pattern, ':');
	const char *last = strrchr(func, ':');

	if (strpbrk(func, "*?[{, "))
		return NULL;
	if (!colon)
		return xstrdup(func);
	return xasprintf("%.*s%s", (int)(colon - pattern + 1), pattern,
			 last ? last + 1 : func);
}

static int add(struct top_feed *f, const char *pattern, struct probeset *ps)
{
	struct probeset_opts o = { .pid = f->pid, .mode = TP_RECORD };
	char err[200];
	int ret;

	/* a return probe where the pattern's kind has one */
	if (probeset_check(pattern, PROBESET_RET, err, sizeof(err)) == 0)
		o.flags = PROBESET_RET;
	ret = probeset_add(f->s, pattern, &o, ps, err, sizeof(err));
	if (ret < 0)
		snprintf(f->err, sizeof(f->err), "funcs: %s", err);
	return ret;
}

static int funcs_setup(struct top_feed *f)
{
	struct funcs *fn = xcalloc(1, sizeof(*fn));
	struct top_filter *flt = top_filter_find(f, "func");
	char *narrowed = flt ? narrow(f->arg, flt->text) : NULL;
	struct idref *r;
	size_t i;
	int ret = -ENOENT;

	f->priv = fn;
	fn->ids = hmap_new(sizeof(struct idref));
	fn->stacks = callstacks_new(MAX_DEPTH);
	if (narrowed) {
		ret = add(f, narrowed, &fn->ps);
		if (ret == 0)
			flt->kernel = true;
		else
			probeset_release(&fn->ps);
	}
	if (ret < 0)
		ret = add(f, f->arg, &fn->ps);
	if (ret < 0) {
		free(narrowed);
		return ret;
	}
	fn->have_ps = true;
	for (i = 0; i < fn->ps.n; i++) {
		r = hmap_get(fn->ids, (uint64_t)fn->ps.v[i].entry->id, true);
		*r = (struct idref){ .probe = (unsigned int)i };
		if (fn->ps.v[i].ret) {
			r = hmap_get(fn->ids, (uint64_t)fn->ps.v[i].ret->id, true);
			*r = (struct idref){ .probe = (unsigned int)i, .ret = true };
		}
	}
	if (f->verbose)
		pr_info("funcs: '%s': %zu sites of %zu names, %s, defined in %.1f ms%s",
			flt && flt->kernel ? narrowed : f->arg, fn->ps.n, fn->ps.nnames,
			fn->ps.n && fn->ps.v[0].ret ? "entry and return probes paired per thread"
						     : "entries only (no return to time)",
			fn->ps.attach_ms,
			fn->ps.nsemas ? "; USDT semaphores this kernel does not count are not raised" : "");
	free(narrowed);
	return 0;
}

static void funcs_release(struct top_feed *f)
{
	struct funcs *fn = f->priv;

	if (!fn)
		return;
	if (fn->have_ps)
		probeset_release(&fn->ps);
	hmap_free(fn->ids);
	callstacks_free(fn->stacks);
	free(fn);
	f->priv = NULL;
}

const struct top_feeder top_feed_funcs = {
	.name = "funcs",
	.init = funcs_init,
	.setup = funcs_setup,
	.event = funcs_event,
	.release = funcs_release,
	.ordered = true,
	.pid_field = "pid",
};
