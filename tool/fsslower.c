// SPDX-License-Identifier: GPL-2.0
/*
 * File operations slower than a threshold: see fsslower.h.
 *
 * Each operation is two kprobes of our group (TP_RECORD): at the entry,
 * the file's name, position, mode and requested size fetched by the
 * kernel through the function's BTF (common/kbtf.h gives the fetch
 * syntax of "$iocb->ki_filp->f_path->dentry->d_name->name"); at the
 * return, $retval.  An entry waits in a per-thread slot for its return;
 * the threshold is applied there, in userspace, since no kernel filter
 * sees both halves.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fetcharg.h"
#include "common/hmap.h"
#include "common/kbtf.h"
#include "common/kfunc.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/tpath.h"
#include "tool/fsslower.h"
#include "tool/tool.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define MAX_STEPS 8

struct fs_probe {
	const struct fsslower_op *op;
	struct tp *entry, *ret;
	struct tk_field file, pos, mode, size, result;
	bool has_pos, has_mode, has_size;
};

/* An entry waiting for its return, per thread. */
struct pending {
	uint64_t ts;
	unsigned int probe;
	int64_t pos, size;
	unsigned int mode;
	char file[256];
};

struct fsslower {
	struct fs_probe *v;
	size_t n;
	uint64_t min_ns;
	fsslower_fn fn;
	void *arg;
	struct hmap *pending;	/* tid -> struct pending */
	char **defs;
	size_t ndefs;
};

/* "NAME=LOC:TYPE" of $@param->@members... at @func's entry, into @out. */
static int fetch(struct kbtf *k, const char *module, const struct fsslower_op *op,
		 const char *param, const char *const *members, const char *name,
		 char **out, char *err, size_t errlen)
{
	struct tstep steps[MAX_STEPS];
	struct tpath path = { .steps = steps };
	struct tval v;
	int e;

	for (; members && *members && path.nsteps < MAX_STEPS; members++)
		steps[path.nsteps++] = (struct tstep){ .kind = TSTEP_MEMBER, .name = *members };
	e = kbtf_resolve(k, module, op->func, param, &path, &v, err, errlen);
	if (e == -ENOENT && !err[0])
		snprintf(err, errlen, "%s() has no parameter '%s' in this kernel's BTF",
			 op->func, param);
	if (e < 0)
		return e;
	if (v.nargs != 1 || v.add || !v.args[0].loc) {
		tval_release(&v);
		return errmsg(err, errlen, -EINVAL, "cannot fetch %s of %s()", name, op->func);
	}
	free(v.args[0].name);
	v.args[0].name = xstrdup(name);
	if (v.kind == TVAL_LONG && v.ctype && strstr(v.ctype, "char*") &&
	    !strcmp(name, "file")) {
		/* d_name.name is an unsigned char *: the string it points to */
		char *loc = xasprintf("+0(%s)", v.args[0].loc);

		free(v.args[0].loc);
		v.args[0].loc = loc;
		snprintf(v.args[0].type, sizeof(v.args[0].type), "string");
	}
	*out = fetcharg_format(&v.args[0]);
	tval_release(&v);
	return *out ? 0 : errmsg(err, errlen, -EINVAL, "cannot fetch %s of %s()", name, op->func);
}

static void add_def(struct fsslower *f, char *def)
{
	f->defs = xrealloc(f->defs, (f->ndefs + 1) * sizeof(*f->defs));
	f->defs[f->ndefs++] = def;
}

/* The entry and return probes of @p->op. */
static int add_probe(struct fsslower *f, struct session *s, struct kbtf *k,
		     const char *module, struct fs_probe *p, char *err, size_t errlen)
{
	const struct fsslower_op *op = p->op;
	char *a[4] = { NULL }, args[2048], event[96];
	size_t na = 0, i;
	int e = 0;

	if (kfunc_check(op->func, err, errlen) < 0)
		return -ENOENT;
	e = fetch(k, module, op, op->param, op->name, "file", &a[na++], err, errlen);
	if (!e && op->pos)
		e = fetch(k, module, op, op->param, op->pos, "pos", &a[na++], err, errlen);
	if (!e && op->mode)
		e = fetch(k, module, op, op->param, op->mode, "mode", &a[na++], err, errlen);
	if (!e && op->size)
		e = fetch(k, module, op, op->size, NULL, "size", &a[na++], err, errlen);
	args[0] = '\0';
	for (i = 0; i < na; i++)
		if (a[i])
			snprintf(args + strlen(args), sizeof(args) - strlen(args), "%s%s",
				 i ? " " : "", a[i]);
	for (i = 0; i < na; i++)
		free(a[i]);
	if (e < 0)
		return e;
	snprintf(event, sizeof(event), "%s", op->func);
	p->entry = session_add_kprobe(s, event, op->func, args, false, TP_RECORD, NULL);
	if (!p->entry)
		return errmsg(err, errlen, -EIO, "%s", session_error(s));
	add_def(f, xasprintf("p:%s %s %s", event, op->func, args));
	snprintf(event, sizeof(event), "%s_return", op->func);
	p->ret = session_add_kprobe(s, event, op->func, "ret=$retval:s64", true,
				    TP_RECORD, NULL);
	if (!p->ret)
		return errmsg(err, errlen, -EIO, "%s", session_error(s));
	add_def(f, xasprintf("r:%s %s ret=$retval:s64", event, op->func));
	if (format_field(p->entry->event, "file", &p->file) < 0 ||
	    format_field(p->ret->event, "ret", &p->result) < 0)
		return errmsg(err, errlen, -EIO, "the probes of %s() lack their fields", op->func);
	p->has_pos = op->pos && format_field(p->entry->event, "pos", &p->pos) == 0;
	p->has_mode = op->mode && format_field(p->entry->event, "mode", &p->mode) == 0;
	p->has_size = op->size && format_field(p->entry->event, "size", &p->size) == 0;
	return 0;
}

struct fsslower *fsslower_add(struct session *s, const char *module,
			      const struct fsslower_op *ops, size_t n,
			      uint64_t min_ns, fsslower_fn fn, void *arg,
			      char *err, size_t errlen)
{
	struct fsslower *f;
	struct kbtf *k;
	size_t i;
	int e = 0;

	if (!session_has_kprobes()) {
		errmsg(err, errlen, -ENOTSUP, "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS): %s() cannot be timed",
		       ops[0].func);
		return NULL;
	}
	k = kbtf_open(err, errlen);
	if (!k)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->v = xcalloc(n, sizeof(*f->v));
	f->n = n;
	f->min_ns = min_ns;
	f->fn = fn;
	f->arg = arg;
	f->pending = hmap_new(sizeof(struct pending));
	for (i = 0; i < n && !e; i++) {
		f->v[i].op = &ops[i];
		err[0] = '\0';
		e = add_probe(f, s, k, module, &f->v[i], err, errlen);
	}
	kbtf_free(k);
	if (e < 0) {
		fsslower_free(f);
		return NULL;
	}
	return f;
}

static void on_entry(struct fsslower *f, unsigned int i, const struct tk_event *ev)
{
	struct fs_probe *p = &f->v[i];
	struct pending *w = hmap_get(f->pending, (uint64_t)ev->pid, true);

	w->ts = ev->ts;
	w->probe = i;
	w->pos = p->has_pos ? field_int(ev, &p->pos) : 0;
	w->mode = p->has_mode ? (unsigned int)field_int(ev, &p->mode) : 0;
	w->size = p->has_size ? field_int(ev, &p->size) : -1;
	if (field_str_fault(ev, &p->file))
		snprintf(w->file, sizeof(w->file), "(fault)");
	else
		field_str(ev, &p->file, w->file, sizeof(w->file));
}

static void on_return(struct fsslower *f, unsigned int i, const struct tk_event *ev)
{
	struct fs_probe *p = &f->v[i];
	struct pending *w = hmap_get(f->pending, (uint64_t)ev->pid, false);
	struct fsslower_event e;

	if (!w)
		return;			/* entered before tracing began */
	if (w->probe != i || ev->ts < w->ts) {
		hmap_del(f->pending, (uint64_t)ev->pid);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ts = ev->ts;
	e.lat_ns = ev->ts - w->ts;
	e.tid = ev->pid;
	e.type = p->op->type;
	e.bytes = p->op->type == 'R' || p->op->type == 'W' ? field_int(ev, &p->result) : 0;
	e.pos = w->pos;
	e.mode = w->mode;
	memcpy(e.file, w->file, sizeof(e.file));
	hmap_del(f->pending, (uint64_t)ev->pid);
	if (e.lat_ns >= f->min_ns)
		f->fn(&e, f->arg);
}

static void fsslower_event(const struct tk_event *ev, void *arg)
{
	struct fsslower *f = arg;
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (ev->id == f->v[i].entry->id) {
			on_entry(f, (unsigned int)i, ev);
			return;
		}
		if (ev->id == f->v[i].ret->id) {
			on_return(f, (unsigned int)i, ev);
			return;
		}
	}
}

void fsslower_free(struct fsslower *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->ndefs; i++)
		free(f->defs[i]);
	free(f->defs);
	hmap_free(f->pending);
	free(f->v);
	free(f);
}

int fsslower_check(struct tool *t, int argc, char **argv, int optind)
{
	struct fsslower_cmd *c = t->ctx;

	c->min_ms = 10;
	if (optind < argc)
		c->min_ms = opt_num("min_ms", argv[optind++], 0, 86400000L);
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	c->json = t->opt.json;
	return 0;
}

int fsslower_setup(struct tool *t, struct loop *l, const char *module,
		   const struct fsslower_op *ops, size_t n, fsslower_fn fn)
{
	struct session_opts so = { .pid = t->opt.pid, .tree = t->opt.tree };
	struct fsslower_cmd *c = t->ctx;
	char err[512];
	size_t i;

	c->s = session_new(&so);
	if (session_open(c->s) < 0) {
		pr_err("%s", session_error(c->s));
		return -1;
	}
	c->f = fsslower_add(c->s, module, ops, n, (uint64_t)c->min_ms * 1000000,
			    fn, t->ctx, err, sizeof(err));
	if (!c->f) {
		pr_err("%s", err);
		return -1;
	}
	for (i = 0; i < c->f->ndefs; i++)
		pr_info("  %s", c->f->defs[i]);
	if (session_start(c->s, l, fsslower_event, c->f) < 0) {
		pr_err("%s", session_error(c->s));
		return -1;
	}
	return 0;
}

void fsslower_teardown(struct tool *t)
{
	struct fsslower_cmd *c = t->ctx;

	session_free(c->s);
	c->s = NULL;
	fsslower_free(c->f);
	c->f = NULL;
}
