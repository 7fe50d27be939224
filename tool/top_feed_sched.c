// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's "sched" feeder: run-queue latency and context switches.
 *
 * A task enters the run queue when it is woken (sched:sched_wakeup,
 * sched:sched_wakeup_new) or preempted (sched:sched_switch away from it
 * while it is still runnable, as bcc's runqlat counts it); it leaves when
 * sched_switch picks it (next_pid).  The time between is its run-queue
 * latency.  Each record makes a sample of the task it concerns:
 *
 *	wakeup		wakeup = 1, cpu = the CPU it was woken on
 *	switch in	lat = the time it waited, cpu = where it runs
 *	switch out	switch = 1 (a context switch away from the task)
 *
 * so one row sums its wakeups and switches and aggregates its latencies.
 * Records are read in timestamp order: a wakeup and the switch that ends
 * it are on different CPUs.  A filter on the thread (a drill-down from a
 * task's row) goes into the kernel (`pid == T`, `prev_pid == T ||
 * next_pid == T`).  The idle tasks (pid 0) are left out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/top_int.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

enum {
	F_PID, F_TID, F_COMM, F_CPU, F_LAT, F_WAKEUP, F_SWITCH, F_N
};

static const struct top_field fields[F_N] = {
	[F_PID]    = { "pid", "PID", AGT_INT, AGT_PLAIN, 0 },
	[F_TID]    = { "tid", "TID", AGT_INT, AGT_PLAIN, 0 },
	[F_COMM]   = { "comm", "COMM", AGT_STR, AGT_PLAIN, 15 },
	[F_CPU]    = { "cpu", "CPU", AGT_INT, AGT_PLAIN, 0 },
	[F_LAT]    = { "lat", "LAT", AGT_INT, AGT_NS, 0 },
	[F_WAKEUP] = { "wakeup", "WAKEUPS", AGT_INT, AGT_PLAIN, 0 },
	[F_SWITCH] = { "switch", "SWITCHES", AGT_INT, AGT_PLAIN, 0 },
};

/* sched_switch's prev_state: the preempted bit above the task states */
#define TASK_REPORT_MASK	0xff

#define MAX_QUEUED	65536

struct queued {
	uint64_t ts;		/* entered the run queue */
};

/* A switch-in read before the wakeup that led to it: the rings of two
 * CPUs are read one after the other, so a wakeup committed on one just
 * after it was read comes in the next drain, after the switch-in another
 * CPU made of the task meanwhile.  The wakeup, when it comes, times it. */
struct early {
	uint64_t ts;		/* switched in */
	int cpu;
	char comm[16];
};

struct sched {
	struct top_feed *f;
	int wakeup_id, wakeup_new_id, switch_id;
	struct tk_field w_pid, w_comm, w_cpu, wn_pid, wn_comm, wn_cpu;
	struct tk_field prev_pid, prev_comm, prev_state, next_pid, next_comm;
	struct hmap *queued;	/* tid -> struct queued */
	struct hmap *early;	/* tid -> struct early */
};

static int sched_init(struct top_feed *f)
{
	f->fields = fields;
	f->nfields = F_N;
	return 0;
}

static void emit(struct sched *sc, const struct tk_event *ev, pid_t tid,
		 const char *comm, int cpu, int64_t lat, int wakeup, int sw)
{
	pid_t tgid = task_cache_tgid(tid);
	struct agt_sample s;

	memset(&s, 0, sizeof(s));
	s.num[F_PID] = tgid > 0 ? tgid : tid;
	s.num[F_TID] = tid;
	s.str[F_COMM] = comm;
	s.num[F_CPU] = cpu;
	s.num[F_LAT] = lat;
	s.num[F_WAKEUP] = wakeup;
	s.num[F_SWITCH] = sw;
	s.have = (1ull << F_N) - 1;
	if (lat < 0)
		s.have &= ~(1ull << F_LAT);
	top_emit(sc->f, ev, &s);
}

static void enqueue(struct sched *sc, pid_t tid, uint64_t ts)
{
	struct queued *q;

	if (hmap_count(sc->queued) >= MAX_QUEUED)
		hmap_clear(sc->queued);
	q = hmap_get(sc->queued, (uint64_t)tid, true);
	q->ts = ts;
}

static void on_wakeup(struct sched *sc, const struct tk_event *ev,
		      const struct tk_field *pidf, const struct tk_field *commf,
		      const struct tk_field *cpuf)
{
	pid_t tid = (pid_t)field_int(ev, pidf);
	char comm[16];

	struct early *e;

	if (tid <= 0)
		return;
	field_str(ev, commf, comm, sizeof(comm));
	emit(sc, ev, tid, comm, (int)field_int(ev, cpuf), -1, 1, 0);
	e = hmap_get(sc->early, (uint64_t)tid, false);
	if (e && e->ts >= ev->ts) {	/* its switch-in came first */
		emit(sc, ev, tid, e->comm, e->cpu, (int64_t)(e->ts - ev->ts), 0, 0);
		hmap_del(sc->early, (uint64_t)tid);
		return;
	}
	if (e)			/* a switch-in of a wakeup before tracing */
		hmap_del(sc->early, (uint64_t)tid);
	enqueue(sc, tid, ev->ts);
}

static void on_switch(struct sched *sc, const struct tk_event *ev)
{
	pid_t prev = (pid_t)field_int(ev, &sc->prev_pid);
	pid_t next = (pid_t)field_int(ev, &sc->next_pid);
	struct queued *q;
	char comm[16];

	if (prev > 0) {
		/* still runnable: preempted, back into the run queue */
		if (!(field_int(ev, &sc->prev_state) & TASK_REPORT_MASK))
			enqueue(sc, prev, ev->ts);
		field_str(ev, &sc->prev_comm, comm, sizeof(comm));
		emit(sc, ev, prev, comm, ev->cpu, -1, 0, 1);
	}
	if (next <= 0)
		return;
	q = hmap_get(sc->queued, (uint64_t)next, false);
	if (!q) {	/* queued before us, or its wakeup is still to come */
		struct early *e;

		if (hmap_count(sc->early) >= MAX_QUEUED)
			hmap_clear(sc->early);
		e = hmap_get(sc->early, (uint64_t)next, true);
		e->ts = ev->ts;
		e->cpu = ev->cpu;
		field_str(ev, &sc->next_comm, e->comm, sizeof(e->comm));
		return;
	}
	field_str(ev, &sc->next_comm, comm, sizeof(comm));
	emit(sc, ev, next, comm, ev->cpu,
	     ev->ts > q->ts ? (int64_t)(ev->ts - q->ts) : 0, 0, 0);
	hmap_del(sc->queued, (uint64_t)next);
}

static void sched_event(struct top_feed *f, const struct tk_event *ev)
{
	struct sched *sc = f->priv;

	if (ev->id == sc->switch_id)
		on_switch(sc, ev);
	else if (ev->id == sc->wakeup_id)
		on_wakeup(sc, ev, &sc->w_pid, &sc->w_comm, &sc->w_cpu);
	else if (ev->id == sc->wakeup_new_id)
		on_wakeup(sc, ev, &sc->wn_pid, &sc->wn_comm, &sc->wn_cpu);
}

static struct tp *add(struct top_feed *f, const char *name, const char *filter,
		      int *id, const char *const *names, struct tk_field *const *fl)
{
	struct tp *tp = session_add(f->s, "sched", name, TP_RECORD, filter);
	int i;

	if (!tp) {
		snprintf(f->err, sizeof(f->err), "sched: %s", session_error(f->s));
		return NULL;
	}
	*id = tp->id;
	for (i = 0; names[i]; i++)
		if (format_field(tp->event, names[i], fl[i]) < 0) {
			snprintf(f->err, sizeof(f->err),
				 "sched: no field '%s' in sched:%s", names[i], name);
			errno = ENOENT;
			return NULL;
		}
	return tp;
}

static int sched_setup(struct top_feed *f)
{
	struct sched *sc = xcalloc(1, sizeof(*sc));
	struct top_filter *flt = top_filter_find(f, "tid");
	char wf[64] = "", sf[96] = "", *end;
	long long tid;
	static const char *const wnames[] = { "pid", "comm", "target_cpu", NULL };
	static const char *const snames[] = {
		"prev_pid", "prev_comm", "prev_state", "next_pid", "next_comm", NULL
	};
	struct tk_field *w[] = { &sc->w_pid, &sc->w_comm, &sc->w_cpu };
	struct tk_field *wn[] = { &sc->wn_pid, &sc->wn_comm, &sc->wn_cpu };
	struct tk_field *sw[] = {
		&sc->prev_pid, &sc->prev_comm, &sc->prev_state, &sc->next_pid,
		&sc->next_comm
	};

	f->priv = sc;
	sc->f = f;
	sc->queued = hmap_new(sizeof(struct queued));
	sc->early = hmap_new(sizeof(struct early));
	if (flt && (tid = strtoll(flt->text, &end, 10)) > 0 && !*end) {
		snprintf(wf, sizeof(wf), "pid == %lld", tid);
		snprintf(sf, sizeof(sf), "prev_pid == %lld || next_pid == %lld",
			 tid, tid);
	}
	if (!add(f, "sched_switch", *sf ? sf : NULL, &sc->switch_id, snames, sw) ||
	    !add(f, "sched_wakeup", *wf ? wf : NULL, &sc->wakeup_id, wnames, w) ||
	    !add(f, "sched_wakeup_new", *wf ? wf : NULL, &sc->wakeup_new_id,
		 wnames, wn))
		return errno ? -errno : -ENOENT;
	if (*wf)
		flt->kernel = true;
	if (f->verbose)
		pr_info("sched: sched_wakeup, sched_wakeup_new and sched_switch records, paired by thread in time order%s%s",
			*sf ? "; kernel filter " : "", sf);
	return 0;
}

static void sched_release(struct top_feed *f)
{
	struct sched *sc = f->priv;

	if (!sc)
		return;
	hmap_free(sc->queued);
	hmap_free(sc->early);
	free(sc);
	f->priv = NULL;
}

const struct top_feeder top_feed_sched = {
	.name = "sched",
	.init = sched_init,
	.setup = sched_setup,
	.event = sched_event,
	.release = sched_release,
	.ordered = true,
	.keep_self = true,
	.scope_by_field = true,
	.scope_kernel = true,
	.pid_field = "pid",
};
