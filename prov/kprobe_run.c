// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.function at run time: the kprobes of all the program's kernel
 * probes go into one ordered session (one write to kprobe_events), their
 * records come back in timestamp order and fire the probe of their event.
 *
 * A .return probe that reads a parameter has an entry twin, a kprobe on
 * the same function fetching the parameters' args.  Its records are kept
 * per (probe, thread) on a small stack, for recursion, and the return's
 * record pops the innermost: the variables read at entry come from it,
 * $return from the return's own record.  A return whose entry was not seen
 * (the function was running when the probes were attached) does not fire.
 *
 * @entry(expr) makes a probe of its own at the entry (the provider's
 * entry(), lang/elab_entry.c), whose handler stores expr in a global
 * keyed by tid() that the return handler reads.  Its records are held
 * the same way, and each is handled just before its thread's return from
 * that call: run at once, the entries of a recursion would overwrite
 * each other's value before the first return read it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "lang/fmt_sb.h"
#include "lang/run.h"
#include "prov/kprobe.h"
#include "prov/prov.h"
#include "prov/record.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define SAVED_DEPTH 16

/* The record a handler runs on: the event, and for a .return with
 * parameters, the entry record paired with it. */
struct kev {
	const struct tk_event *ev;
	struct tk_event entry;
	bool has_entry;
};

struct saved_rec {
	struct tk_event ev;	/* a held twin's record (data: below) */
	unsigned char *data;
	unsigned int size, cap;
};

struct saved {
	int depth;
	struct saved_rec rec[SAVED_DEPTH];
};

/* What an event id of ours is. */
struct kslot {
	struct prov_probe *p;	/* its probe */
	bool entry;		/* the entry twin of a .return's $params */
	bool held;		/* an entry() twin: handled at the return */
	struct prov_probe **twins;	/* a .return: its entry() twins */
	size_t ntwins;
};

struct kstate {
	struct run *run;
	struct session *s;
	struct kslot *by_id;		/* event id -> what it is */
	int nids;
	struct hmap *saved;		/* (probe id, tid) -> struct saved */
	bool reported;
};

static void set_id(struct kstate *st, int id, struct prov_probe *p, bool entry)
{
	if (id < 0)
		return;
	if (id >= st->nids) {
		st->by_id = xrealloc(st->by_id, (size_t)(id + 1) * sizeof(*st->by_id));
		memset(st->by_id + st->nids, 0,
		       (size_t)(id + 1 - st->nids) * sizeof(*st->by_id));
		st->nids = id + 1;
	}
	st->by_id[id].p = p;
	st->by_id[id].entry = entry;
	st->by_id[id].held = !entry && ((struct kprobe *)p->data)->ret_probe;
}

/* The entry() twins among @probes whose .return probe is @ret; with
 * @out NULL, only counted. */
static size_t twins_of(const struct prov_probe *ret,
		       struct prov_probe *const *probes, size_t n,
		       struct prov_probe **out)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (((struct kprobe *)probes[i]->data)->ret_probe == ret) {
			if (out)
				out[m] = probes[i];
			m++;
		}
	return m;
}

/* Each .return's event knows its entry() twins (fire_twins()). */
static void link_twins(struct kstate *st, struct prov_probe *const *probes,
		       size_t n)
{
	int id;

	for (id = 0; id < st->nids; id++) {
		struct kslot *sl = &st->by_id[id];
		size_t m;

		if (!sl->p || sl->entry || !((struct kprobe *)sl->p->data)->ret ||
		    !(m = twins_of(sl->p, probes, n, NULL)))
			continue;
		sl->twins = xcalloc(m, sizeof(*sl->twins));
		sl->ntwins = twins_of(sl->p, probes, n, sl->twins);
	}
}

static uint64_t saved_key(const struct prov_probe *p, int tid)
{
	return (uint64_t)(uint32_t)p->id << 32 | (uint32_t)tid;
}

/* Keep @ev, an entry record of probe @p, on its thread's stack. */
static void push_entry(struct kstate *st, struct prov_probe *p,
		       const struct tk_event *ev)
{
	struct saved *s = hmap_get(st->saved, saved_key(p, ev->pid), true);
	struct saved_rec *r;

	if (s->depth == SAVED_DEPTH) {	/* missed returns: drop the oldest */
		struct saved_rec first = s->rec[0];

		memmove(s->rec, s->rec + 1, (SAVED_DEPTH - 1) * sizeof(*s->rec));
		s->rec[SAVED_DEPTH - 1] = first;
		s->depth--;
	}
	r = &s->rec[s->depth++];
	if (r->cap < ev->size) {
		r->cap = ev->size;
		r->data = xrealloc(r->data, r->cap);
	}
	memcpy(r->data, ev->data, ev->size);
	r->size = ev->size;
	r->ev = *ev;
	r->ev.data = r->data;
	r->ev.stack = NULL;
	r->ev.nstack = r->ev.nkstack = 0;
}

/* The innermost record of @p kept for thread @tid, unlinked (valid until
 * the next push_entry()), or NULL. */
static struct saved_rec *pop_entry(struct kstate *st,
				   const struct prov_probe *p, int tid)
{
	struct saved *s = hmap_get(st->saved, saved_key(p, tid), false);

	return s && s->depth ? &s->rec[--s->depth] : NULL;
}

/* Handle the entry() twins of the .return in @sl with their records of
 * thread @tid's call; false when the run is to stop. */
static bool fire_twins(struct kstate *st, const struct kslot *sl, int tid)
{
	size_t i;

	for (i = 0; i < sl->ntwins; i++) {
		struct saved_rec *r = pop_entry(st, sl->twins[i], tid);
		struct kev kev;

		if (!r)
			continue;
		kev = (struct kev){ .ev = &r->ev };
		if (!run_fire(st->run, sl->twins[i], &kev))
			return false;
	}
	return true;
}

static void on_record(const struct tk_event *ev, void *arg)
{
	struct kstate *st = arg;
	const struct kslot *sl;
	struct prov_probe *p;
	struct kev kev = { .ev = ev };

	if (ev->id < 0 || ev->id >= st->nids || !(p = st->by_id[ev->id].p))
		return;
	sl = &st->by_id[ev->id];
	if (sl->entry || sl->held) {
		push_entry(st, p, ev);
		return;
	}
	if (sl->ntwins && !fire_twins(st, sl, ev->pid)) {
		session_drain_stop(st->s);
		return;
	}
	if (kprobe_has_entry(p->data)) {
		struct saved_rec *r = pop_entry(st, p, ev->pid);

		if (!r)
			return;
		kev.entry = *ev;
		kev.entry.data = r->data;
		kev.entry.size = r->size;
		kev.has_entry = true;
	}
	if (!run_fire(st->run, p, &kev))
		session_drain_stop(st->s);
}

static void batch_end(void *arg)
{
	struct kstate *st = arg;

	run_flush(st->run);
}

/* Where each arg of @k's variables is in the records of its events. */
static int resolve_fields(struct run *run, struct prov_probe *p,
			  const struct tp *tp, const struct tp *etp)
{
	struct kprobe *k = p->data;
	int i;
	size_t j;

	for (i = 0; i < k->nvars; i++) {
		struct kvar *kv = &k->vars[i];
		const struct tp *t = kv->entry && k->ret ? etp : tp;

		kv->fields = xcalloc(kv->v.nargs ? kv->v.nargs : 1,
				     sizeof(*kv->fields));
		for (j = 0; j < kv->v.nargs; j++)
			if (!t || format_field(t->event, kv->v.args[j].name,
					       &kv->fields[j]) < 0) {
				run_error(run, "%s: the kprobe has no field '%s'",
					  p->pp, kv->v.args[j].name);
				return -ENOENT;
			}
		if (kv->v.kind != TVAL_LONG)
			kv->buf = xmalloc(KPROBE_STR_MAX);
	}
	return 0;
}

/* Define the events of @probes whose mode is @mode; 0 or -errno. */
static int add_events(struct kstate *st, struct prov_probe *const *probes,
		      size_t n, bool stacks)
{
	struct session_probe *v = xcalloc(2 * n + 1, sizeof(*v));
	struct prov_probe **owner = xcalloc(2 * n + 1, sizeof(*owner));
	char **args = xcalloc(2 * n + 1, sizeof(*args));
	struct tp **tps;
	size_t i, m = 0;
	int err = 0;

	for (i = 0; i < n; i++) {
		struct prov_probe *p = probes[i];
		struct kprobe *k = p->data;
		char name[80];

		if (p->stacks != stacks)
			continue;
		if (stacks && (kprobe_has_entry(k) || twins_of(p, probes, n, NULL))) {
			/* its records would come from perf samples, its
			 * entry twin's from the ring: not merged in time */
			run_error(st->run, "%s prints stacks and reads values from "
				  "the function's entry ($param, @entry): not both "
				  "in one return probe yet", p->pp);
			err = -EOPNOTSUPP;
			goto out;
		}
		if (stacks && k->ret_probe) {
			/* held for the return, which comes from the ring */
			run_error(st->run, "%s: @entry(...) of a stack built-in is "
				  "not supported yet", k->ret_probe->pp);
			err = -EOPNOTSUPP;
			goto out;
		}
		kprobe_ename(p, false, name, sizeof(name));
		free(k->ename);
		k->ename = xstrdup(name);
		if (kprobe_has_entry(k)) {
			kprobe_ename(p, true, name, sizeof(name));
			free(k->entry_ename);
			k->entry_ename = xstrdup(name);
		}
		args[m] = kprobe_args(k, false);
		v[m] = (struct session_probe){ .event = k->ename, .addr = k->addr,
			.args = *args[m] ? args[m] + 1 : NULL, .ret = k->ret };
		owner[m++] = p;
	}
	if (!m)
		goto out;
	tps = xcalloc(m, sizeof(*tps));
	err = session_add_probes(st->s, v, m, stacks ? TP_STACK : TP_RECORD, tps);
	if (err < 0) {
		run_error(st->run, "%s", session_error(st->s));
		free(tps);
		goto out;
	}
	for (i = 0; i < m; i++)
		set_id(st, tps[i]->id, owner[i], false);
	/* the entry twins, always records */
	{
		size_t e = 0, base = m;
		struct tp **etps;

		for (i = 0; i < m; i++) {
			struct kprobe *k = owner[i]->data;

			if (!k->entry_ename)
				continue;
			args[base + e] = kprobe_args(k, true);
			v[base + e] = (struct session_probe){ .event = k->entry_ename,
				.addr = k->addr, .args = *args[base + e] ?
				args[base + e] + 1 : NULL };
			owner[base + e] = owner[i];
			e++;
		}
		etps = xcalloc(e + 1, sizeof(*etps));
		if (e && (err = session_add_probes(st->s, v + base, e, TP_RECORD,
						   etps)) < 0) {
			run_error(st->run, "%s", session_error(st->s));
		}
		for (i = 0; !err && i < e; i++)
			set_id(st, etps[i]->id, owner[base + i], true);
		for (i = 0; !err && i < m; i++) {
			const struct tp *etp = NULL;
			size_t j;

			for (j = 0; j < e; j++)
				if (owner[base + j] == owner[i])
					etp = etps[j];
			err = resolve_fields(st->run, owner[i], tps[i], etp);
		}
		free(etps);
		m = base + e;
	}
	free(tps);
out:
	for (i = 0; i < 2 * n + 1; i++)
		free(args[i]);
	free(args);
	free(v);
	free(owner);
	return err;
}

int kprobe_attach(struct run *run, struct prov_probe *const *probes, size_t n,
		  void **state)
{
	struct session_opts so = { .ordered = true, .batch_end = batch_end,
				   .buffer_kb = run_buffer_kb(run),
				   .size_option = "-s MB" };
	struct kstate *st = xcalloc(1, sizeof(*st));
	size_t i;
	int err;

	st->run = run;
	st->saved = hmap_new(sizeof(struct saved));
	*state = st;
	st->s = session_new(&so);
	if ((err = session_open(st->s)) < 0) {
		run_error(run, "%s", session_error(st->s));
		return err;
	}
	for (i = 0; i < n; i++)
		((struct kprobe *)probes[i]->data)->s = st->s;
	if ((err = add_events(st, probes, n, false)) < 0 ||
	    (err = add_events(st, probes, n, true)) < 0)
		return err;
	link_twins(st, probes, n);
	if ((err = session_start(st->s, run_loop(run), on_record, st)) < 0) {
		run_error(run, "%s", session_error(st->s));
		return err;
	}
	return 0;
}

void kprobe_phase(struct run *run, void *state, enum prov_phase ph)
{
	struct kstate *st = state;

	if (ph != PROV_PHASE_DRAIN || !st)
		return;
	record_drain(run, st->s);
	st->reported = true;
	run_flush(run);
}

void kprobe_detach(struct run *run, void *state)
{
	struct kstate *st = state;
	struct saved *s;
	size_t pos = 0;
	uint64_t key;
	int i;

	if (!st)
		return;
	record_close(st->s, st->reported);
	for (i = 0; i < st->nids; i++) {
		if (st->by_id[i].p)
			((struct kprobe *)st->by_id[i].p->data)->s = NULL;
		free(st->by_id[i].twins);
	}
	while ((s = hmap_next(st->saved, &pos, &key)))
		for (i = 0; i < SAVED_DEPTH; i++)
			free(s->rec[i].data);
	hmap_free(st->saved);
	free(st->by_id);
	free(st);
}

/* Argument @a of a pretty-printed value, as text. */
static void pretty_arg(const struct fetcharg *a, const struct tk_event *rec,
		       const struct tk_field *f, struct strbuf *sb)
{
	char s[KPROBE_STR_MAX];

	if (!strcmp(a->type, "string") || !strcmp(a->type, "ustring")) {
		if (field_str_fault(rec, f))
			fmt_sb_addf(sb, "(fault)");
		else {
			field_str(rec, f, s, sizeof(s));
			fmt_sb_addf(sb, "%s", s);
		}
	} else if (a->type[0] == 'x') {
		fmt_sb_addf(sb, "0x%" PRIx64, (uint64_t)field_int(rec, f));
	} else if (a->is_signed) {
		fmt_sb_addf(sb, "%" PRId64, field_int(rec, f));
	} else {
		fmt_sb_addf(sb, "%" PRIu64, (uint64_t)field_int(rec, f));
	}
}

static const char *pretty(struct kvar *kv, const struct tk_event *rec)
{
	struct strbuf *sb = &kv->text;
	const char *c;

	fmt_sb_reset(sb);

	for (c = kv->v.fmt; *c; c++) {
		char *end;
		unsigned long i;

		if (*c != '%' || c[1] < '1' || c[1] > '9') {
			fmt_sb_addc(sb, *c);
			continue;
		}
		i = strtoul(c + 1, &end, 10);
		if (i >= 1 && i <= kv->v.nargs)
			pretty_arg(&kv->v.args[i - 1], rec, &kv->fields[i - 1], sb);
		c = end - 1;
	}
	if (sb->len >= KPROBE_STR_MAX)
		fmt_sb_truncate(sb, KPROBE_STR_MAX - 1);
	return sb->len ? fmt_sb_str(sb) : "";
}

int kprobe_fetch(const struct prov_probe *p, void *evp, int idx, int64_t sub,
		 struct lang_val *out)
{
	struct kprobe *k = p->data;
	struct kev *kev = evp;
	const struct tk_event *rec;
	struct kvar *kv;

	out->s = "";
	out->l = 0;
	if (idx < 0 || idx >= k->nvars || !k->vars[idx].fields)
		return -EINVAL;
	kv = &k->vars[idx];
	rec = kv->entry && k->ret ? &kev->entry : kev->ev;
	if (kv->entry && k->ret && !kev->has_entry)
		return -ENOENT;
	switch (kv->v.kind) {
	case TVAL_LONG:
		if (sub >= 0)
			return -EINVAL;
		out->l = field_int(rec, &kv->fields[0]) + kv->v.add;
		return 0;
	case TVAL_STRING:
		if (field_str_fault(rec, &kv->fields[0])) {
			out->l = 1;		/* the read faulted */
			return 0;
		}
		field_str(rec, &kv->fields[0], kv->buf, KPROBE_STR_MAX);
		if (sub >= 0) {
			out->l = sub < (int64_t)strlen(kv->buf) ?
				 (unsigned char)kv->buf[sub] : 0;
			return 0;
		}
		out->s = kv->buf;
		return 0;
	case TVAL_PRETTY:
		out->s = pretty(kv, rec);
		return 0;
	}
	return -EINVAL;
}

int kprobe_context(const struct prov_probe *p, void *evp, enum prov_ctx what,
		   struct lang_val *out)
{
	const struct kev *kev = evp;
	const struct kprobe *k = p->data;

	switch (what) {
	case PROV_CTX_PROBEFUNC:
		out->s = k->func;
		return 0;
	case PROV_CTX_IS_RETURN:
		out->l = k->ret;
		return 0;
	default:
		return record_context(kev->ev, k->s, what, out);
	}
}

int kprobe_stack(const struct prov_probe *p, void *evp, const uint64_t **pcs,
		 size_t *nk, size_t *nu)
{
	const struct kev *kev = evp;

	return record_stack(kev->ev, pcs, nk, nu);
}
