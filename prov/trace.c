// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.trace("system:event") and kernel.trace("event"): tracepoints as
 * probe points, fed by the records of our own tracefs instance.
 *
 * expand() matches the point (wildcards on either part, a bare event name
 * in any system) against the tracing filesystem; each concrete tracepoint
 * is one probe whose fields are its target variables ($prev_comm, ...),
 * read with the offsets resolved once from its format.  attach() puts all
 * of them in one session and maps each record's event id back to its
 * probes.  A probe's accepted filter goes into the event's filter file;
 * since an instance has one filter per event, probes on the same event
 * with different filters get sessions of their own.  A probe whose handler
 * reads memory (user_string($filename)) is fed by an event probe on the
 * tracepoint instead (prov_trace_mem.c).
 *
 * This file and the other prov_*.c are the bridge between the language
 * and tracefs/: the compiler and the VM see only lang/provider.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "common/log.h"
#include "common/task.h"
#include "prov/trace.h"
#include "prov/prov.h"
#include "prov/record.h"
#include "lang/run.h"
#include "tracefs/format.h"
#include "tracefs/session.h"
#include "tracefs/tpoints.h"
#include "tracefs/tracing.h"

static struct tprobe *tprobe_new(const char *sys, const char *name)
{
	struct tprobe *t = xcalloc(1, sizeof(*t));

	t->sys = xstrdup(sys);
	t->name = xstrdup(name);
	return t;
}

static void add_probe(struct prov_list *out, const char *sys, const char *name)
{
	char pp[512];
	struct prov_probe *p;

	snprintf(pp, sizeof(pp), "kernel.trace(\"%s:%s\")", sys, name);
	p = prov_probe_new(&prov_trace, pp, PROV_RUNNING);
	p->data = tprobe_new(sys, name);
	prov_list_push(out, p);
}

/* A failure to look at the tracepoints (-errno of tpoints_find()): no
 * privilege, out of descriptors or memory. */
static bool unreadable(int err)
{
	return err == -EACCES || err == -EPERM || err == -EMFILE ||
	       err == -ENFILE || err == -ENOMEM;
}

static int trace_expand(const struct prov_env *env, const struct ast_pp *pp,
			struct prov_list *out)
{
	const struct ast_ppcomp *c;
	struct tpoint_query q = { 0 };
	struct tpoint_list l = { 0 };
	char *spec, *colon;
	size_t i;
	int n, err;

	if (pp->ncomps != 2 || !prov_comp_is(pp, 0, "kernel") ||
	    !prov_comp_is(pp, 1, "trace"))
		return 0;
	c = &pp->comps[1];
	if (!c->arg || c->arg->kind != AST_E_STR) {
		diag_error(env->diag, pp->loc,
			   "kernel.trace needs a string: kernel.trace(\"system:event\")");
		return -1;
	}
	spec = xstrdup(c->arg->u.str.s);
	colon = strchr(spec, ':');
	if (colon) {
		*colon = '\0';
		q.sys = spec;
		q.name = colon + 1;
	} else {
		q.name = spec;
	}
	n = tpoints_find(&q, &l);
	for (i = 0; i < l.n; i++)
		add_probe(out, l.v[i].sys, l.v[i].name);
	tpoints_release(&l);
	err = n < 0 ? n : 0;
	if (n < 0)
		n = 0;
	if (!n && unreadable(err)) {
		/* not a point that is not there, optional or not: the
		 * kernel's tracepoints could not be looked at (said once,
		 * each point would say the same) */
		static bool told;

		if (!told)
			diag_error(env->diag, pp->loc,
				   "cannot read the tracepoints of this kernel: %s%s",
				   strerror(-err), err == -EACCES && geteuid() ?
				   " (tracing needs root)" : "");
		told = true;
		free(spec);
		return -1;
	}
	if (!n && !env->listing && !pp->optional) {
		diag_error(env->diag, pp->loc, "no tracepoint matches \"%s\"",
			   c->arg->u.str.s);
		free(spec);
		return -1;
	}
	free(spec);
	return n;
}

int trace_load_fields(struct tprobe *t)
{
	struct tep_event *ev;

	if (t->loaded)
		return t->fields ? 0 : -ENOENT;
	t->loaded = true;
	ev = format_load(t->sys, t->name);
	if (!ev)
		return -errno;
	t->fields = format_fields(ev, &t->nfields);
	t->used = xcalloc(t->nfields ? t->nfields : 1, sizeof(*t->used));
	return 0;
}

char *trace_str_buf(struct tprobe *t, int idx)
{
	if (!t->bufs)
		t->bufs = xcalloc((size_t)(t->nfields + t->nmem), sizeof(*t->bufs));
	if (!t->bufs[idx])
		t->bufs[idx] = xmalloc(TRACE_STR_MAX);
	return t->bufs[idx];
}

static void fill_var(const struct tk_field *f, int idx, struct prov_var *v)
{
	memset(v, 0, sizeof(*v));
	v->name = f->name;
	v->idx = idx;
	v->array = 0;
	v->type = AST_T_LONG;
	if (f->flags & TK_F_STRING) {
		v->type = AST_T_STRING;
		if (!(f->flags & TK_F_DYNAMIC))
			v->array = f->size;
	}
}

static size_t trace_vars(const struct prov_probe *p, struct prov_var *out, size_t max)
{
	struct tprobe *t = p->data;
	size_t n = 0;
	int i;

	if (trace_load_fields(t))
		return 0;
	for (i = 0; i < t->nfields && n < max; i++)
		fill_var(&t->fields[i], i, &out[n++]);
	return n;
}

static int trace_var(const struct prov_probe *p, const char *name,
		     struct prov_var *out)
{
	struct tprobe *t = p->data;
	int i;

	if (trace_load_fields(t))
		return -ENOENT;
	for (i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i].name, name)) {
			fill_var(&t->fields[i], i, out);
			t->used[i] = true;
			return 0;
		}
	return -ENOENT;
}

static int trace_fetch(const struct prov_probe *p, void *evp, int idx,
		       int64_t sub, struct lang_val *out)
{
	struct tprobe *t = p->data;
	const struct tk_event *ev = evp;
	const struct tk_field *f;

	if (t->efields)
		return tmem_fetch(t, ev, idx, sub, out);
	if (idx < 0 || idx >= t->nfields)
		return -EINVAL;
	f = &t->fields[idx];
	out->s = "";
	out->l = 0;
	if (f->flags & TK_F_STRING && sub < 0) {
		char *b = trace_str_buf(t, idx);

		field_str(ev, f, b, TRACE_STR_MAX);
		out->s = b;
		return 0;
	}
	if (f->flags & TK_F_ARRAY || f->flags & TK_F_STRING) {
		int elem = f->elem > 0 ? f->elem : 1;

		if (sub < 0 || sub >= f->size / elem)
			return -ERANGE;
		out->l = field_elem(ev, f, (int)sub);
		return 0;
	}
	out->l = field_int(ev, f);
	return 0;
}

static int trace_context(const struct prov_probe *p, void *evp,
			 enum prov_ctx what, struct lang_val *out)
{
	struct tprobe *t = p->data;

	if (what == PROV_CTX_PROBEFUNC) {
		out->s = "";
		return 0;
	}
	return record_context(evp, t->s, what, out);
}

/* The callchain a TP_STACK sample carries (kernel part, then user). */
static int trace_stack(const struct prov_probe *p, void *evp,
		       const uint64_t **pcs, size_t *nk, size_t *nu)
{
	return record_stack(evp, pcs, nk, nu);
}

static int trace_filter(struct prov_probe *p, const char *expr)
{
	free(p->filter);
	p->filter = xstrdup(expr);
	return 0;
}

void trace_describe_scope(const struct prov_probe *p, bool plan, FILE *f)
{
	if (p->scope == PROV_SCOPE_ALL)
		return;
	if (!plan && p->count_global >= 0) {
		fprintf(f, "; only target()'s %s (a counter per thread%s)",
			p->scope == PROV_SCOPE_TARGET_THREAD ? "thread" : "process",
			p->scope == PROV_SCOPE_TARGET_THREAD ? "" :
			", inherited by new threads");
		return;
	}
	if (!plan) {
		fprintf(f, "; only target()'s %s (the instance's set_event_pid%s)",
			p->scope == PROV_SCOPE_TARGET_THREAD ? "thread" : "process",
			p->scope == PROV_SCOPE_TARGET_THREAD ? "" : " and event-fork");
		return;
	}
	fputs("echo \"$TARGET\" > \"$T/set_event_pid\"\n", f);
	if (p->scope == PROV_SCOPE_TARGET_PROCESS)
		fputs("for t in /proc/$TARGET/task/*; do echo \"${t##*/}\" >> "
		      "\"$T/set_event_pid\"; done\n"
		      "echo 1 > \"$T/options/event-fork\"\n", f);
}

static void trace_describe(const struct prov_probe *p, bool plan, FILE *f)
{
	struct tprobe *t = p->data;

	if (plan && p->count_global < 0 && !p->stacks)
		trace_describe_scope(p, plan, f);
	if (t->nmem) {
		tmem_describe(p, plan, f);
		if (!plan)
			trace_describe_scope(p, plan, f);
		return;
	}
	if (p->count_global >= 0) {
		if (plan)
			fprintf(f, "# %s:%s: a perf_event counter (perf_event_open(2)%s), "
				"nothing written to tracefs%s%s\n", t->sys, t->name,
				p->scope == PROV_SCOPE_ALL ? "" : " per thread of target()",
				p->filter ? "; filter: " : "", p->filter ? p->filter : "");
		else
			fprintf(f, "perf_event counting mode on tracepoint %s:%s, no records "
				"(the handler only counts)%s%s", t->sys, t->name,
				p->filter ? ", kernel filter: " : "",
				p->filter ? p->filter : "");
		if (!plan)
			trace_describe_scope(p, plan, f);
		return;
	}
	if (!plan) {
		fprintf(f, p->stacks ? "perf_event samples of tracepoint %s:%s with "
			"callchains%s%s" : "records of tracepoint %s:%s from our "
			"tracefs instance%s%s",
			t->sys, t->name, p->filter ? ", kernel filter: " : "",
			p->filter ? p->filter : "");
		trace_describe_scope(p, plan, f);
		return;
	}
	if (p->stacks) {
		fprintf(f, "# %s:%s: perf_event samples with callchains "
			"(perf_event_open(2)), nothing written to tracefs%s%s\n",
			t->sys, t->name, p->filter ? "; filter: " : "",
			p->filter ? p->filter : "");
		return;
	}
	if (p->filter)
		fprintf(f, "echo '%s' > \"$T/events/%s/%s/filter\"\n", p->filter,
			t->sys, t->name);
	fprintf(f, "echo 1 > \"$T/events/%s/%s/enable\"\n", t->sys, t->name);
}

static void trace_free_probe(struct prov_probe *p)
{
	struct tprobe *t = p->data;
	int i;

	if (!t)
		return;
	free(t->sys);
	free(t->name);
	for (i = 0; t->bufs && i < t->nfields + t->nmem; i++)
		free(t->bufs[i]);
	free(t->bufs);
	free(t->fields);
	free(t->used);
	free(t->mem);
	free(t->ename);
	free(t->efields);
	free(t);
	p->data = NULL;
}

/*
 * Run time.  Probes are grouped into sessions: each (event, filter) pair
 * once per session, a second filter on an event already there opens the
 * next session.  Records come back with their event id, which indexes
 * the probes to fire.
 */
struct tsess {
	struct session *s;
	struct run *run;
	struct prov_probe ***by_id;	/* id -> NULL-ended probe list */
	int nids;
	bool reported;		/* lost records reported */
	enum prov_scope scope;	/* whose events its instance records */
	struct tsess *next;
};

struct tcount {
	struct tp *tp;
	int global;
	const char *key;	/* the probe's count_key */
	uint64_t last;		/* the count at the last sync */
};

struct tstate {
	struct run *run;
	struct tsess *sessions;
	struct tcount *counts;
	size_t ncounts;
	bool stacks;		/* some probe records callchains */
};

/* With stacks, samples are read this often: a process is named from its
 * maps while it still runs (common/symcache.c notes it at its first
 * sample handled), so a short-lived one needs its samples soon. */
#define TRACE_STACK_DRAIN_MS 10

static void on_record(const struct tk_event *ev, void *arg)
{
	struct tsess *ts = arg;
	struct prov_probe **p;

	if (ev->id < 0 || ev->id >= ts->nids || !ts->by_id[ev->id])
		return;
	for (p = ts->by_id[ev->id]; *p; p++)
		if (!run_fire(ts->run, *p, (void *)ev)) {
			/* exit() or an error: no record is handled any more */
			session_drain_stop(ts->s);
			return;
		}
}

static void by_id_add(struct tsess *ts, int id, struct prov_probe *p)
{
	int n = 0;

	if (id >= ts->nids) {
		ts->by_id = xrealloc(ts->by_id, (size_t)(id + 1) * sizeof(*ts->by_id));
		memset(ts->by_id + ts->nids, 0,
		       (size_t)(id + 1 - ts->nids) * sizeof(*ts->by_id));
		ts->nids = id + 1;
	}
	while (ts->by_id[id] && ts->by_id[id][n])
		n++;
	ts->by_id[id] = xrealloc(ts->by_id[id], (size_t)(n + 2) * sizeof(**ts->by_id));
	ts->by_id[id][n] = p;
	ts->by_id[id][n + 1] = NULL;
}

/* The probe already in @ts on the same event, if any. */
static struct prov_probe *same_event(struct tsess *ts, const struct tprobe *t)
{
	int id;

	for (id = 0; id < ts->nids; id++) {
		struct prov_probe **p = ts->by_id[id];
		struct tprobe *o;

		if (!p || !*p)
			continue;
		o = (*p)->data;
		/* a probe fed by an event probe has that event to itself */
		if (!o->nmem && !strcmp(o->sys, t->sys) && !strcmp(o->name, t->name))
			return *p;
	}
	return NULL;
}

static bool same_filter(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void batch_end(void *arg)
{
	struct tsess *ts = arg;

	run_flush(ts->run);
}

/* A new session for probes of @scope: the target's process or thread
 * only, through the instance's set_event_pid (tracefs/session.c). */
static struct tsess *tsess_new(struct tstate *st, enum prov_scope scope)
{
	struct session_opts so = { .ordered = true, .batch_end = batch_end,
				   .buffer_kb = run_buffer_kb(st->run),
				   .size_option = "-s MB" };
	struct tsess *ts = xcalloc(1, sizeof(*ts)), **tail;
	int err;

	if (st->stacks)
		so.drain_ms = TRACE_STACK_DRAIN_MS;

	if (scope == PROV_SCOPE_TARGET_PROCESS)
		so.pid = run_target(st->run);
	else if (scope == PROV_SCOPE_TARGET_THREAD)
		so.tid = run_target(st->run);
	ts->scope = scope;
	ts->run = st->run;
	ts->s = session_new(&so);
	for (tail = &st->sessions; *tail; tail = &(*tail)->next)
		;
	*tail = ts;
	if ((err = session_open(ts->s)) < 0) {
		run_error(st->run, "%s", session_error(ts->s));
		errno = -err;
		return NULL;
	}
	return ts;
}

/* A handler that only counts: a perf counter, no records (elab_count.c). */
/* The first session of @scope, or a new one. */
static struct tsess *scoped_sess(struct tstate *st, enum prov_scope scope)
{
	struct tsess *ts;

	for (ts = st->sessions; ts; ts = ts->next)
		if (ts->scope == scope)
			return ts;
	return tsess_new(st, scope);
}

static int attach_count(struct tstate *st, struct prov_probe *p)
{
	struct tprobe *t = p->data;
	struct tsess *ts = scoped_sess(st, p->scope);
	struct tcount *c;
	struct tp *tp;

	if (!ts)
		return -errno;
	t->s = ts->s;
	tp = session_add(ts->s, t->sys, t->name, TP_COUNT, p->filter);
	if (!tp) {
		int err = errno ? -errno : -EINVAL;

		run_error(st->run, "%s", session_error(ts->s));
		return err;
	}
	st->counts = xrealloc(st->counts, (st->ncounts + 1) * sizeof(*st->counts));
	c = &st->counts[st->ncounts++];
	c->tp = tp;
	c->global = p->count_global;
	c->key = p->count_key;
	c->last = 0;
	return 0;
}

static void prov_trace_sync(struct run *run, void *state)
{
	struct tstate *st = state;
	size_t i;

	for (i = 0; st && i < st->ncounts; i++) {
		struct tcount *c = &st->counts[i];
		uint64_t v = session_count(c->tp);

		if (v == c->last)
			continue;
		run_global_add(run, c->global, c->key, (int64_t)(v - c->last));
		c->last = v;
	}
}

static int attach_probe(struct tstate *st, struct prov_probe *p)
{
	struct tprobe *t = p->data;
	struct prov_probe *o = NULL;
	struct tsess *ts;
	struct tp *tp;

	if (p->count_global >= 0)
		return attach_count(st, p);
	if (t->nmem) {
		ts = scoped_sess(st, p->scope);
		if (!ts)
			return -errno;
		t->s = ts->s;
		tp = tmem_attach(st->run, p, ts->s);
		if (!tp)
			return -errno;
		by_id_add(ts, tp->id, p);
		return 0;
	}

	for (ts = st->sessions; ts; ts = ts->next) {
		if (ts->scope != p->scope)
			continue;
		o = same_event(ts, t);
		if (!o || (same_filter(o->filter, p->filter) &&
			   o->stacks == p->stacks))
			break;
	}
	if (!ts && !(ts = tsess_new(st, p->scope)))
		return -errno;
	t->s = ts->s;
	if (o && same_filter(o->filter, p->filter) && o->stacks == p->stacks) {
		int id = format_event_id(t->sys, t->name);

		if (id < 0) {
			run_error(st->run, "tracepoint %s:%s is gone: %s", t->sys,
				  t->name, strerror(-id));
			return id;
		}
		by_id_add(ts, id, p);
		return 0;
	}
	/* a handler that prints stacks: perf samples with callchains */
	tp = session_add(ts->s, t->sys, t->name, p->stacks ? TP_STACK : TP_RECORD,
			 p->filter);
	if (!tp) {
		int err = errno ? -errno : -EINVAL;

		run_error(st->run, "%s", session_error(ts->s));
		return err;
	}
	by_id_add(ts, tp->id, p);
	return 0;
}

static int prov_trace_attach(struct run *run, struct prov_probe *const *probes,
			     size_t n, void **state)
{
	struct tstate *st = xcalloc(1, sizeof(*st));
	struct tsess *ts;
	size_t i;
	int err;

	st->run = run;
	*state = st;
	for (i = 0; i < n; i++)
		st->stacks |= probes[i]->stacks;
	for (i = 0; i < n; i++)
		if ((err = attach_probe(st, probes[i])) < 0)
			return err;
	for (ts = st->sessions; ts; ts = ts->next)
		if ((err = session_start(ts->s, run_loop(run), on_record, ts)) < 0) {
			run_error(run, "%s", session_error(ts->s));
			return err;
		}
	return 0;
}

static void prov_trace_phase(struct run *run, void *state, enum prov_phase ph)
{
	struct tstate *st = state;
	struct tsess *ts;

	if (ph != PROV_PHASE_DRAIN || !st)
		return;
	for (ts = st->sessions; ts; ts = ts->next) {
		record_drain(run, ts->s);
		ts->reported = true;
	}
	run_flush(run);
}

static void prov_trace_detach(struct run *run, void *state)
{
	struct tstate *st = state;
	struct tsess *ts, *next;
	int id;

	if (!st)
		return;
	for (ts = st->sessions; ts; ts = ts->next) {
		session_stop(ts->s);
		if (!ts->reported)
			session_report_lost(ts->s);
	}
	for (ts = st->sessions; ts; ts = next) {
		next = ts->next;
		session_close(ts->s);
		session_free(ts->s);
		for (id = 0; id < ts->nids; id++)
			if (ts->by_id[id]) {
				struct prov_probe **p;

				for (p = ts->by_id[id]; *p; p++)
					((struct tprobe *)(*p)->data)->s = NULL;
				free(ts->by_id[id]);
			}
		free(ts->by_id);
		free(ts);
	}
	free(st->counts);
	free(st);
}

const struct provider prov_trace = {
	.name = "trace",
	.counts = true,
	.scopes = true,
	.expand = trace_expand,
	.vars = trace_vars,
	.var = trace_var,
	.deref = trace_deref,
	.stack = trace_stack,
	.fetch = trace_fetch,
	.context = trace_context,
	.filter = trace_filter,
	.describe = trace_describe,
	.attach = prov_trace_attach,
	.phase = prov_trace_phase,
	.sync = prov_trace_sync,
	.detach = prov_trace_detach,
	.free_probe = trace_free_probe,
};
