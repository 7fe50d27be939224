// SPDX-License-Identifier: GPL-2.0
/*
 * Run time of process(...) probes: every probe of the program is one
 * uprobe (and, for a .return probe whose handler reads entry values, an
 * entry uprobe beside it) in one ordered session, so that a thread's
 * entry record always comes before its return record.  Entry records
 * push their values on a per-thread stack (recursion nests), return
 * records pop them.  Probes whose handlers print stacks are sampled with
 * callchains (TP_STACK); the others are ring records (TP_RECORD).
 *
 * A USDT semaphore is the kernel's reference counter on the uprobe when
 * the kernel has them; without, usema.c raises it by hand in target()'s
 * process (the one process that can be covered).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/log.h"
#include "common/usema.h"
#include "lang/run.h"
#include "prov/prov.h"
#include "prov/uprobe.h"
#include "prov/record.h"
#include "tracefs/format.h"
#include "tracefs/perf_event.h"
#include "tracefs/session.h"

struct uslot {
	struct prov_probe *p;
	bool entry;		/* the entry twin's record */
	/* an event of many probes (uprobe_merge.c): each by its tk_site */
	struct uslot *sites;
	int nsites;
	struct tk_field site;
};

/* A probe whose handler only counts: the kernel's count of its uprobe. */
struct ucount {
	struct tp *tp;
	int global;
	const char *key;
	uint64_t last;		/* the count at the last sync */
};

struct ustate {
	enum prov_scope scope;	/* whose events its instance records */
	struct ucount *counts;
	size_t ncounts;
	struct run *run;
	struct session *s;
	struct uslot *by_id;	/* event id -> probe */
	int nids;
	unsigned nmerged;	/* merged events so far, for their names */
	bool reported;
};

/* The provider's run: a session per scope in use (all, the target's
 * process, its thread), each ordered; the semaphores held by hand. */
struct uall {
	struct run *run;
	struct ustate *sess[3];
	struct usema *sema;
};

/* The scope a probe's events are recorded in: an entry() twin's is its
 * return probe's, so the two share a session and arrive in order. */
static enum prov_scope scope_of(const struct prov_probe *p)
{
	const struct uprobe *d = p->data;

	return d->ret_probe ? d->ret_probe->scope : p->scope;
}

static struct uslot *slot_of(struct ustate *st, int id)
{
	if (id >= st->nids) {
		st->by_id = xrealloc(st->by_id, (size_t)(id + 1) * sizeof(*st->by_id));
		memset(st->by_id + st->nids, 0,
		       (size_t)(id + 1 - st->nids) * sizeof(*st->by_id));
		st->nids = id + 1;
	}
	return &st->by_id[id];
}

static void by_id_set(struct ustate *st, int id, struct prov_probe *p, bool entry)
{
	struct uslot *sl;

	if (id < 0)
		return;
	sl = slot_of(st, id);
	sl->p = p;
	sl->entry = entry;
}

/* Probe @site of the merged event of @tp is @p. */
static int by_site_set(struct ustate *st, const struct tp *tp, int site,
		       struct prov_probe *p, bool entry)
{
	struct uslot *sl;

	if (tp->id < 0)
		return 0;
	sl = slot_of(st, tp->id);
	if (!sl->sites && format_field(tp->event, "tk_site", &sl->site) < 0) {
		run_error(st->run, "%s: the uprobe has no field 'tk_site'", p->pp);
		return -ENOENT;
	}
	if (site >= sl->nsites) {
		sl->sites = xrealloc(sl->sites, (size_t)(site + 1) * sizeof(*sl->sites));
		memset(sl->sites + sl->nsites, 0,
		       (size_t)(site + 1 - sl->nsites) * sizeof(*sl->sites));
		sl->nsites = site + 1;
	}
	sl->sites[site].p = p;
	sl->sites[site].entry = entry;
	return 0;
}

static void frame_free(struct uframe *f, size_t nv)
{
	size_t i;

	for (i = 0; f->vals && i < nv; i++)
		free(f->vals[i]);
	free(f->vals);
	free(f->nums);
	free(f);
}

/* Done with @f: kept, with its string buffers, for the next entry. */
static void frame_recycle(struct uprobe *d, struct uframe *f)
{
	f->next = d->spare;
	d->spare = f;
}

/* An entry record: save its values for the thread's return. */
static void push_entry(struct uprobe *d, const struct tk_event *ev)
{
	struct uframe *f = d->spare;
	size_t i;

	if (f) {		/* a frame of an earlier call: no allocation */
		d->spare = f->next;
	} else {
		f = xcalloc(1, sizeof(*f));
		f->vals = xcalloc(d->nv, sizeof(*f->vals));
		f->nums = xcalloc(d->nv, sizeof(*f->nums));
	}
	f->tid = ev->pid;
	for (i = 0; i < d->nv; i++) {
		const struct uvar *v = &d->v[i];

		if (!v->entry || (!v->def && !v->nparts))
			continue;
		if (v->kind == UV_PRETTY || v->kind == UV_STRING) {
			if (!f->vals[i])	/* the frame's first call */
				f->vals[i] = xmalloc(UPROBE_STR_MAX);
			f->nums[i] = 0;
			if (v->kind == UV_PRETTY)
				snprintf(f->vals[i], UPROBE_STR_MAX, "%s",
					 uprobe_pretty(&d->v[i], ev));
			else if ((f->nums[i] = field_str_fault(ev, &v->f)))
				f->vals[i][0] = '\0';
			else
				field_str(ev, &v->f, f->vals[i], UPROBE_STR_MAX);
		} else {
			f->nums[i] = uprobe_var_long(v, ev);
		}
	}
	f->next = d->frames;
	d->frames = f;
}

/* The innermost saved entry of the thread, unlinked. */
static struct uframe *pop_entry(struct uprobe *d, int tid)
{
	struct uframe **pf, *f;

	for (pf = &d->frames; (f = *pf); pf = &f->next)
		if (f->tid == tid) {
			*pf = f->next;
			return f;
		}
	return NULL;
}

/*
 * An entry() twin's record is not handled when it arrives but just before
 * its thread's return from that call: @entry(expr)'s handler keeps one
 * value per thread, so it must run for each return in turn, innermost
 * first, for recursion to see each call's own.
 */
static void keep_rec(struct uprobe *d, const struct tk_event *ev)
{
	struct urec *r = d->spare_recs;

	if (r)
		d->spare_recs = r->next;
	else
		r = xcalloc(1, sizeof(*r));
	if (r->cap < ev->size) {
		free(r->data);
		r->cap = ev->size;
		r->data = xmalloc(r->cap);
	}
	memcpy(r->data, ev->data, ev->size);
	r->ev = *ev;
	r->ev.data = r->data;
	r->ev.stack = NULL;
	r->ev.nstack = r->ev.nkstack = 0;
	r->next = d->recs;
	d->recs = r;
}

/* Fire @ret's entry() twins with their records of thread @tid's call. */
static bool fire_twins(struct ustate *st, struct uprobe *ret, int tid)
{
	bool ok = true;
	size_t i;

	for (i = 0; i < ret->ntwins && ok; i++) {
		struct uprobe *t = ret->twins[i]->data;
		struct urec **pr, *r;

		for (pr = &t->recs; (r = *pr) && r->ev.pid != tid; pr = &r->next)
			;
		if (!r)
			continue;
		*pr = r->next;
		ok = run_fire(st->run, ret->twins[i], &r->ev);
		r->next = t->spare_recs;
		t->spare_recs = r;
	}
	return ok;
}

static void on_record(const struct tk_event *ev, void *arg)
{
	struct ustate *st = arg;
	struct uslot *sl;
	struct uprobe *d;
	bool ok;

	if (ev->id < 0 || ev->id >= st->nids)
		return;
	sl = &st->by_id[ev->id];
	if (sl->sites) {
		uint64_t k = (uint64_t)field_int(ev, &sl->site);

		if (k >= (uint64_t)sl->nsites)
			return;
		sl = &sl->sites[k];
	}
	if (!sl->p)
		return;
	d = sl->p->data;
	if (sl->entry) {
		push_entry(d, ev);
		return;
	}
	if (d->ret_probe) {
		keep_rec(d, ev);
		return;
	}
	if (d->ntwins && !fire_twins(st, d, ev->pid)) {
		session_drain_stop(st->s);
		return;
	}
	d->cur = d->etp ? pop_entry(d, ev->pid) : NULL;
	if (d->etp && !d->cur)		/* attached in mid-call: no entry */
		return;
	ok = run_fire(st->run, sl->p, (void *)ev);
	if (d->cur)
		frame_recycle(d, d->cur);
	d->cur = NULL;
	if (!ok)
		session_drain_stop(st->s);
}

static void batch_end(void *arg)
{
	struct ustate *st = arg;

	run_flush(st->run);
}

/* Each variable's field in its event's records. */
static int resolve_fields(struct ustate *st, struct prov_probe *p)
{
	struct uprobe *d = p->data;
	char name[64];
	size_t i;

	for (i = 0; i < d->nv; i++) {
		struct uvar *v = &d->v[i];
		struct tp *tp = v->entry ? d->etp : d->tp;

		size_t k;

		for (k = 0; k < v->nparts; k++) {
			snprintf(name, sizeof(name), "v%zu_%zu", i, k);
			if (!tp || format_field(tp->event, name, &v->parts[k].f) < 0)
				goto missing;
		}
		if (!v->def)
			continue;
		snprintf(name, sizeof(name), "v%zu", i);
		if (!tp || format_field(tp->event, name, &v->f) < 0)
			goto missing;
	}
	return 0;
missing:
	run_error(st->run, "%s: the uprobe has no field '%s'", p->pp, name);
	return -ENOENT;
}

static bool has_entry_vars(const struct uprobe *d)
{
	size_t i;

	for (i = 0; i < d->nv; i++)
		if (d->v[i].entry && (d->v[i].def || d->v[i].nparts))
			return true;
	return false;
}

/* How a probe's uprobe is used: counted by the kernel when its handler
 * only counts (lang/elab_count.c), sampled with callchains when it prints
 * stacks, else a record per hit. */
static enum tp_mode mode_of(const struct prov_probe *p)
{
	if (p->count_global >= 0)
		return TP_COUNT;
	return p->stacks ? TP_STACK : TP_RECORD;
}

/* The definitions of one define() call, in the caller's order. */
struct defs {
	struct session_probe *v;
	struct prov_probe **owner;
	bool *isentry;
	char **args, **names;
	size_t k;
};

static void defs_add(struct defs *df, struct prov_probe *p, bool entry,
		     bool refs)
{
	struct uprobe *d = p->data;
	size_t k = df->k++;

	df->names[k] = entry ? xasprintf("u%d_entry", p->id) : xasprintf("u%d", p->id);
	df->args[k] = uprobe_fetch_args(d, entry);
	df->v[k] = (struct session_probe){ .event = df->names[k], .path = d->path,
		.offset = entry ? d->eoffset : d->offset,
		.ref_ctr = !entry && refs ? d->ref_ctr : 0,
		.args = *df->args[k] ? df->args[k] : NULL, .ret = !entry && d->ret };
	df->owner[k] = p;
	df->isentry[k] = entry;
}

/* @tp, the event of definition @i, is its probe's (or its entry twin's). */
static int use_tp(struct ustate *st, const struct defs *df, size_t i,
		  struct tp *tp, int site, enum tp_mode mode)
{
	struct prov_probe *p = df->owner[i];
	struct uprobe *d = p->data;

	if (df->isentry[i])
		d->etp = tp;
	else
		d->tp = tp;
	d->s = st->s;
	free(d->ename);
	d->ename = xstrdup(df->v[i].event);
	if (mode == TP_COUNT) {
		struct ucount *c;

		st->counts = xrealloc(st->counts, (st->ncounts + 1) *
				      sizeof(*st->counts));
		c = &st->counts[st->ncounts++];
		c->tp = tp;
		c->global = p->count_global;
		c->key = p->count_key;
		c->last = 0;
		return 0;
	}
	if (site >= 0)
		return by_site_set(st, tp, site, p, df->isentry[i]);
	by_id_set(st, tp->id, p, df->isentry[i]);
	return 0;
}

/*
 * Define the probes of @mode among @probes with one write.  Recorded
 * probes of one shape share events (uprobe_merge.c); counted ones need an
 * event, and a counter, each.
 */
static int define(struct ustate *st, struct prov_probe *const *probes, size_t n,
		  enum tp_mode mode, bool refs)
{
	struct defs df = {
		.v = xcalloc(2 * n + 1, sizeof(*df.v)),
		.owner = xcalloc(2 * n + 1, sizeof(*df.owner)),
		.isentry = xcalloc(2 * n + 1, sizeof(*df.isentry)),
		.args = xcalloc(2 * n + 1, sizeof(*df.args)),
		.names = xcalloc(2 * n + 1, sizeof(*df.names)),
	};
	struct session_probe *ordered;
	struct umerge *m = NULL;
	struct tp **tps;
	size_t i, *order;
	int ret = 0, *site;

	for (i = 0; i < n; i++) {
		struct prov_probe *p = probes[i];
		struct uprobe *d = p->data;

		if (mode_of(p) != mode || scope_of(p) != st->scope)
			continue;
		if (d->ret && has_entry_vars(d))
			defs_add(&df, p, true, refs);
		defs_add(&df, p, false, refs);
	}
	order = xcalloc(df.k + 1, sizeof(*order));
	site = xcalloc(df.k + 1, sizeof(*site));
	if (mode != TP_COUNT) {
		m = uprobe_merge(df.v, df.k, df.isentry, &st->nmerged, order, site);
	} else {
		for (i = 0; i < df.k; i++) {
			order[i] = i;
			site[i] = -1;
		}
	}
	ordered = xcalloc(df.k + 1, sizeof(*ordered));
	tps = xcalloc(df.k + 1, sizeof(*tps));
	for (i = 0; i < df.k; i++)
		ordered[i] = df.v[order[i]];
	if (df.k && (ret = session_add_probes(st->s, ordered, df.k, mode, tps)) < 0)
		run_error(st->run, "%s", session_error(st->s));
	for (i = 0; !ret && i < df.k; i++)
		ret = use_tp(st, &df, order[i], tps[i], site[order[i]], mode);
	uprobe_merge_free(m);
	for (i = 0; i < df.k; i++) {
		free(df.args[i]);
		free(df.names[i]);
	}
	free(tps);
	free(ordered);
	free(order);
	free(site);
	free(df.args);
	free(df.names);
	free(df.v);
	free(df.owner);
	free(df.isentry);
	return ret;
}

/* Kernels without reference counters: raise the semaphores by hand in
 * target()'s process, as funccount does. */
static int hold_semaphores(struct uall *st, struct prov_probe *const *probes,
			   size_t n)
{
	char **paths = xcalloc(n + 1, sizeof(*paths)), err[256];
	uint64_t *offs = xcalloc(n + 1, sizeof(*offs));
	size_t i, k = 0;
	pid_t pid = run_target(st->run);
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct uprobe *d = probes[i]->data;

		if (d->ref_ctr) {
			paths[k] = d->path;
			offs[k++] = d->ref_ctr;
		}
	}
	if (k && pid <= 0) {
		run_warn(st->run, "this kernel's uprobes take no semaphore: "
			 "USDT probes guarded by one fire only with -x or -c");
	} else if (k) {
		st->sema = usema_hold(pid, paths, offs, k, err, sizeof(err));
		if (!st->sema) {
			run_error(st->run, "cannot raise the USDT semaphores (this "
				  "kernel's uprobes have no reference counters: only "
				  "in a process that runs, -x PID): %s", err);
			ret = -EINVAL;
		} else {
			run_warn(st->run, "no uprobe reference counters: %zu USDT "
				 "semaphore%s raised in process %d through "
				 "/proc/%d/mem", k, k == 1 ? "" : "s", (int)pid,
				 (int)pid);
		}
	}
	free(paths);
	free(offs);
	return ret;
}

/* With stacks, samples are read this often: a process is named from its
 * maps while it still runs (common/symcache.c notes it at its first
 * sample handled), so a short-lived one needs its samples soon. */
#define UPROBE_STACK_DRAIN_MS 10

/* Counters are one fd per CPU each; leave this many fds for the rest. */
#define UPROBE_FD_SPARE 256

/*
 * Counted probes the fd limit cannot hold (counters are one fd per CPU)
 * are recorded instead: their handlers run, and their records share a few
 * events.  (More than UPROBE_COUNT_MAX are recorded from the start.)
 */
static void count_or_record(struct prov_probe *const *probes, size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rlimit rl;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += probes[i]->count_global >= 0;
	if (!k)
		return;
	perf_raise_fd_limit();
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    k * (size_t)(cpus > 0 ? cpus : 1) + UPROBE_FD_SPARE <= rl.rlim_cur)
		return;
	pr_info("%zu counted uprobes on %ld CPUs need more fds than the limit "
		"(%llu): recording them instead", k, cpus,
		(unsigned long long)rl.rlim_cur);
	for (i = 0; i < n; i++) {
		if (probes[i]->count_global < 0)
			continue;
		probes[i]->count_global = -1;
		free(probes[i]->count_key);
		probes[i]->count_key = NULL;
	}
}

/* The session of @scope with its probes among @probes, started. */
static int sess_attach(struct uall *all, struct prov_probe *const *probes,
		       size_t n, enum prov_scope scope, bool refs)
{
	struct run *run = all->run;
	/* our own calls into a probed library stay out of the rings: handling
	 * one record makes many calls (uprobes cost microseconds; the
	 * kernel's pid check, tens of nanoseconds) */
	struct session_opts so = { .ordered = true, .batch_end = batch_end,
				   .buffer_kb = run_buffer_kb(run),
				   .size_option = "-s MB", .notrace_self = true };
	struct ustate *st;
	size_t i;
	int err;

	for (i = 0; i < n && scope_of(probes[i]) != scope; i++)
		;
	if (i == n)
		return 0;
	if (scope == PROV_SCOPE_TARGET_PROCESS)
		so.pid = run_target(run);
	else if (scope == PROV_SCOPE_TARGET_THREAD)
		so.tid = run_target(run);
	for (i = 0; i < n; i++)
		if (probes[i]->stacks)
			so.drain_ms = UPROBE_STACK_DRAIN_MS;
	st = all->sess[scope] = xcalloc(1, sizeof(*st));
	st->run = run;
	st->scope = scope;
	st->s = session_new(&so);
	if ((err = session_open(st->s)) < 0) {
		run_error(run, "%s", session_error(st->s));
		return err;
	}
	if ((err = define(st, probes, n, TP_RECORD, refs)) < 0 ||
	    (err = define(st, probes, n, TP_STACK, refs)) < 0 ||
	    (err = define(st, probes, n, TP_COUNT, refs)) < 0)
		return err;
	for (i = 0; i < n; i++)
		if (scope_of(probes[i]) == scope &&
		    (err = resolve_fields(st, probes[i])) < 0)
			return err;
	return 0;
}

/* Each entry() twin on the list of its return probe (fire_twins()). */
static void link_twins(struct prov_probe *const *probes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct uprobe *d = probes[i]->data;
		struct uprobe *r;

		if (!d->ret_probe || d->ret_probe->prov != &prov_uprobe)
			continue;
		r = d->ret_probe->data;
		r->twins = xrealloc(r->twins, (r->ntwins + 1) * sizeof(*r->twins));
		r->twins[r->ntwins++] = probes[i];
	}
}

int uprobe_attach(struct run *run, struct prov_probe *const *probes, size_t n,
		  void **state)
{
	struct uall *all = xcalloc(1, sizeof(*all));
	bool refs = session_has_ref_ctr();
	int err, k;

	all->run = run;
	*state = all;
	link_twins(probes, n);
	count_or_record(probes, n);
	for (k = 0; k < 3; k++)
		if ((err = sess_attach(all, probes, n, (enum prov_scope)k, refs)) < 0)
			return err;
	if (!refs && (err = hold_semaphores(all, probes, n)) < 0)
		return err;
	for (k = 0; k < 3; k++) {
		struct ustate *st = all->sess[k];

		if (st && (err = session_start(st->s, run_loop(run), on_record, st)) < 0) {
			run_error(run, "%s", session_error(st->s));
			return err;
		}
	}
	return 0;
}

void uprobe_sync(struct run *run, void *state)
{
	struct uall *all = state;
	size_t i;
	int k;

	for (k = 0; all && k < 3; k++) {
		struct ustate *st = all->sess[k];

		for (i = 0; st && i < st->ncounts; i++) {
			struct ucount *c = &st->counts[i];
			uint64_t v = session_count(c->tp);

			if (v == c->last)
				continue;
			run_global_add(run, c->global, c->key, (int64_t)(v - c->last));
			c->last = v;
		}
	}
}

void uprobe_phase(struct run *run, void *state, enum prov_phase ph)
{
	struct uall *all = state;
	int k;

	if (ph != PROV_PHASE_DRAIN || !all)
		return;
	for (k = 0; k < 3; k++) {
		struct ustate *st = all->sess[k];

		if (!st || !st->s)
			continue;
		record_drain(run, st->s);
		st->reported = true;
	}
	run_flush(run);
}

static void recs_free(struct urec *r)
{
	struct urec *next;

	for (; r; r = next) {
		next = r->next;
		free(r->data);
		free(r);
	}
}

/* The run-time state of @p, freed (twice is harmless: entry and return). */
static void probe_release(struct prov_probe *p)
{
	struct uprobe *d;
	struct uframe *f;

	if (!p)
		return;
	d = p->data;
	while ((f = d->frames)) {
		d->frames = f->next;
		frame_free(f, d->nv);
	}
	while ((f = d->spare)) {
		d->spare = f->next;
		frame_free(f, d->nv);
	}
	recs_free(d->recs);
	recs_free(d->spare_recs);
	d->recs = d->spare_recs = NULL;
	free(d->twins);
	d->twins = NULL;
	d->ntwins = 0;
	d->s = NULL;
	d->tp = d->etp = NULL;
}

static void sess_detach(struct ustate *st)
{
	int id, i;

	record_close(st->s, st->reported);
	for (id = 0; id < st->nids; id++) {
		struct uslot *sl = &st->by_id[id];

		probe_release(sl->p);
		for (i = 0; i < sl->nsites; i++)
			probe_release(sl->sites[i].p);
		free(sl->sites);
	}
	free(st->by_id);
	free(st->counts);
	free(st);
}

void uprobe_detach(struct run *run, void *state)
{
	struct uall *all = state;
	int k;

	(void)run;
	if (!all)
		return;
	usema_release(all->sema);
	for (k = 0; k < 3; k++)
		if (all->sess[k])
			sess_detach(all->sess[k]);
	free(all);
}

int uprobe_stack(const struct prov_probe *p, void *evp, const uint64_t **pcs,
		 size_t *nk, size_t *nu)
{
	(void)p;
	return record_stack(evp, pcs, nk, nu);
}
