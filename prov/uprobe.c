// SPDX-License-Identifier: GPL-2.0
/*
 * process("path"|PID).function/statement/mark(...): user-space probes
 * (SystemTap's "Userspace probing") through uprobes of our tracefs group.
 *
 * expand() parses the point and has common/usite.c find the sites (ELF
 * symbols and DWARF for functions and lines, the .note.stapsdt notes for
 * marks); each site is one probe with one uprobe:
 *
 *	p:GROUP/u3 /abs/prog:0x1139 v0=%di:s32 v1=+0(%si):string
 *	r:GROUP/u4 /abs/prog:0x1130 v0=$retval:s64
 *	p:GROUP/u5 /abs/prog:0x1e2a(0x4010) v0=%ax:s32	(semaphore)
 *
 * Only what a handler reads is fetched (uprobe_vars.c adds a fetch arg
 * per variable it resolves).  A .return probe's $param is its value at
 * the entry, as in stap: an entry uprobe fetches it and the two records
 * are paired per thread (uprobe_attach.c).  A USDT semaphore goes into the
 * definition as the kernel's reference counter, so it is raised exactly
 * while the probe exists, in every process mapping the object.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dwinfo.h"
#include "common/elffile.h"
#include "common/log.h"
#include "common/target.h"
#include "common/usite.h"
#include "lang/diag.h"
#include "prov/prov.h"
#include "prov/trace.h"
#include "prov/uprobe.h"
#include "tracefs/session.h"

static const char *comp_str(const struct ast_pp *pp, size_t i)
{
	const struct ast_ppcomp *c = &pp->comps[i];

	return c->arg && c->arg->kind == AST_E_STR ? c->arg->u.str.s : NULL;
}

/* 1: parsed; 0: not ours; -1: reported. */
static int parse_point(const struct prov_env *env, const struct ast_pp *pp,
		       struct upoint *u)
{
	size_t i = 1;
	int64_t v;

	memset(u, 0, sizeof(*u));
	if (pp->ncomps < 2 || !prov_comp_is(pp, 0, "process"))
		return 0;
	if (pp->comps[0].arg) {
		u->proc = comp_str(pp, 0);
		if (!u->proc) {
			if (!prov_comp_num(pp, 0, &v) || v <= 0)
				goto bad;
			u->pid = (pid_t)v;
		}
	}
	if (prov_comp_is(pp, i, "library") || prov_comp_is(pp, i, "provider")) {
		if (!comp_str(pp, i))
			goto bad;
		if (prov_comp_is(pp, i, "library"))
			u->lib = comp_str(pp, i);
		else
			u->provider = comp_str(pp, i);
		if (++i >= pp->ncomps)
			return 0;
	}
	if (prov_comp_is(pp, i, "function") || prov_comp_is(pp, i, "plt")) {
		u->kind = UK_FUNC;
		u->plt = prov_comp_is(pp, i, "plt");
	} else if (prov_comp_is(pp, i, "statement")) {
		u->kind = UK_STMT;
	} else if (prov_comp_is(pp, i, "mark")) {
		u->kind = UK_MARK;
	} else {
		return 0;	/* process.begin and others: not ours */
	}
	if (u->provider && u->kind != UK_MARK)
		goto bad;
	u->spec = comp_str(pp, i);
	if (!u->spec && u->kind == UK_STMT && prov_comp_num(pp, i, &v)) {
		u->addr = v;
		u->has_addr = true;
	} else if (!u->spec) {
		goto bad;
	}
	if (u->spec && u->kind == UK_STMT && prov_comp_is(pp, pp->ncomps - 1, "absolute")) {
		char *end;

		errno = 0;
		u->addr = (int64_t)strtoull(u->spec, &end, 0);
		if (errno || *end || end == u->spec)
			goto bad;
		u->has_addr = true;
	}
	for (i++; i < pp->ncomps; i++) {
		if (pp->comps[i].arg)
			goto bad;
		if (prov_comp_is(pp, i, "call") && u->kind == UK_FUNC)
			u->call = true;
		else if (prov_comp_is(pp, i, "return") && u->kind == UK_FUNC)
			u->ret = true;
		else if (prov_comp_is(pp, i, "inline") && u->kind == UK_FUNC)
			u->inl = true;
		else if (prov_comp_is(pp, i, "exported") && u->kind == UK_FUNC)
			u->exported = true;
		else if (prov_comp_is(pp, i, "nearest") && u->kind == UK_STMT)
			u->nearest = true;
		else if (prov_comp_is(pp, i, "absolute") && u->has_addr)
			u->absolute = true;
		else
			goto bad;
	}
	if (u->has_addr && !u->absolute)
		u->absolute = true;	/* stap takes .statement(ADDR) as is */
	if (!u->proc && !u->pid) {
		/* a bare process.function(): the -c program or -x process */
		u->proc = env->target_exe;
		if (!u->proc && env->target_pid)
			u->pid = env->target_pid;
		else if (!u->proc) {
			diag_error(env->diag, pp->loc, "process.%s without -c or -x "
				   "needs the target's path: process(\"path\").%s",
				   pp->comps[1].name, pp->comps[1].name);
			return -1;
		}
	}
	return 1;
bad:
	diag_error(env->diag, pp->loc, "malformed process probe point: "
		   "process(\"path\"|PID)[.library(\"lib\")].function(\"f\")"
		   "[.call|.return|.inline|.exported], .statement(\"f@file:line\")"
		   "[.nearest], .statement(ADDR).absolute, "
		   "[.provider(\"p\")].mark(\"name\"), .plt(\"name\")");
	return -1;
}

/* @name beside the program @exe (where its $ORIGIN run path finds
 * libraries), when there is such a file; else NULL. */
static char *beside(const char *exe, pid_t pid, const char *name)
{
	char *path = NULL, *slash, *p = NULL;
	char err[256];

	if (!exe && !pid)
		return NULL;
	if (!target_resolve(exe, pid, &path, err, sizeof(err)) &&
	    (slash = strrchr(path, '/'))) {
		p = xasprintf("%.*s/%s", (int)(slash - path), path, name);
		if (access(p, R_OK)) {
			free(p);
			p = NULL;
		}
	}
	free(path);
	return p;
}

/*
 * The object the sites are in: .library("x") beside the program when the
 * loader would find it there ($ORIGIN), else as target_resolve() does; a
 * bare library name in process("libx.so") likewise beside the -c/-x
 * program.
 */
static char *object_of(const struct prov_env *env, const struct upoint *u)
{
	char *p;

	if (!u->lib) {
		if (u->proc && !strchr(u->proc, '/') && strstr(u->proc, ".so") &&
		    (p = beside(env->target_exe, env->target_pid, u->proc)))
			return p;
		return u->proc ? xstrdup(u->proc) : NULL;
	}
	if (strchr(u->lib, '/'))
		return xstrdup(u->lib);
	p = beside(u->proc, u->pid, u->lib);
	return p ? p : xstrdup(u->lib);
}

static char *quoted_proc(const struct upoint *u, const char *path)
{
	if (path)
		return xasprintf("process(\"%s\")", path);
	return xasprintf("process(%d)", (int)u->pid);
}

static struct prov_probe *new_probe(const char *pp, struct uprobe *d)
{
	struct prov_probe *p = prov_probe_new(&prov_uprobe, pp, PROV_RUNNING);

	p->data = d;
	return p;
}

static struct uprobe *uprobe_of(const struct usite *s, enum usite_kind kind)
{
	struct uprobe *d = xcalloc(1, sizeof(*d));

	d->kind = kind;
	d->path = xstrdup(s->path);
	d->offset = s->offset;
	d->vaddr = s->vaddr;
	d->ref_ctr = s->ref_ctr_offset;
	d->func = s->func ? xstrdup(s->func) : NULL;
	d->site = xstrdup(s->name);
	d->args = s->args;
	d->nargs = s->nargs;
	return d;
}

/* .return: each site's entry offset (the uretprobe's) and the site of
 * its parameters, which may be after the prologue. */
static void add_return(struct uprobe *d, const struct usite *entry)
{
	d->eoffset = d->offset;
	d->evaddr = d->vaddr;
	d->eargs = d->args;
	d->neargs = d->nargs;
	d->args = NULL;
	d->nargs = 0;
	d->offset = entry->offset;
	d->vaddr = entry->vaddr;
	d->ret = true;
}

/* The functions of @spec's name part, for their declarations. */
static void decls_of(const char *path, const char *spec, struct dwfunc_list *fl)
{
	struct dwinfo *dw = uprobe_dwinfo(path);
	char *glob = xasprintf("%.*s", (int)strcspn(spec, "@"), spec);

	if (dw && dwinfo_funcs(dw, glob, DWINFO_INLINE, fl, NULL, 0))
		fl->n = 0;
	free(glob);
}

/* "@file:line" of site @s as stap's pp() names it, or NULL. */
static char *decl_of(const struct dwfunc_list *fl, const struct usite *s,
		     bool inl)
{
	size_t i;

	for (i = 0; s->func && i < fl->n; i++) {
		const struct dwfunc *f = &fl->v[i];

		if (!f->file || strcmp(f->name, s->func) || !f->inlined_into != !inl ||
		    (inl && f->entry != s->vaddr))
			continue;
		return f->line ? xasprintf("@%s:%d", f->file, f->line) :
				 xasprintf("@%s", f->file);
	}
	return NULL;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int expand_functions(const struct prov_env *env, const struct ast_pp *pp,
			    const struct upoint *u, const char *obj,
			    struct prov_list *out)
{
	struct usite_opts o = { .pid = u->pid, .flags = USITE_ARGS };
	struct usite_list l = { 0 }, e = { 0 };
	char err[512] = "", *pproc, ppbuf[1024], *decl;
	struct dwfunc_list fl = { 0 };
	size_t i, n = 0, ninl;
	int ret;

	if (u->inl)
		ret = 0;
	else if (u->plt)
		ret = uprobe_plt_sites(obj, u->pid, u->spec, &l, err, sizeof(err));
	else
		ret = uprobe_find_functions(obj, u, &o, &l, err, sizeof(err));
	if (!ret && u->exported)
		uprobe_keep_exported(obj, u, &l);
	if (!ret && u->ret) {
		o.flags = 0;
		ret = u->plt ? uprobe_plt_sites(obj, u->pid, u->spec, &e, err, sizeof(err)) :
		      uprobe_find_functions(obj, u, &o, &e, err, sizeof(err));
		if (!ret && e.n != l.n)
			ret = errmsg(err, sizeof(err), -EINVAL,
				     "the entries of \"%s\" changed", u->spec);
	}
	if (ret) {
		usite_list_release(&l);
		usite_list_release(&e);
		if (env->listing)
			return 0;
		diag_error(env->diag, pp->loc, "%s", err);
		return -1;
	}
	if (is_glob(u->spec))	/* aliases: one probe per address */
		usite_dedupe(&l, u->ret ? &e : NULL);
	ninl = l.n;
	if (!ret && !u->call && !u->ret && !u->exported && !u->plt)
		uprobe_add_inlines(obj, u, &l);
	if (l.n && !u->plt)
		decls_of(l.v[0].path, u->spec, &fl);
	for (i = 0; i < l.n; i++) {
		struct usite *s = &l.v[i];
		struct uprobe *d;

		if (s->ifunc)
			continue;
		if (!uprobe_insn_ok(s->path, u->ret ? e.v[i].offset : s->offset)) {
			if (!is_glob(u->spec) && !env->listing) {
				diag_error(env->diag, pp->loc, "cannot probe %s at "
					   "%s:0x%llx: an instruction uprobes refuse",
					   s->name, s->path,
					   (unsigned long long)s->offset);
				usite_list_release(&l);
				usite_list_release(&e);
				return -1;
			}
			continue;	/* a wildcard leaves it out */
		}
		d = uprobe_of(s, UK_FUNC);
		s->args = NULL;
		s->nargs = 0;
		if (u->ret)
			add_return(d, &e.v[i]);
		pproc = quoted_proc(u, s->path);
		decl = decl_of(&fl, s, i >= ninl);
		snprintf(ppbuf, sizeof(ppbuf), "%s.%s(\"%s%s\")%s", pproc,
			 u->plt ? "plt" : "function",
			 d->func ? d->func : s->name, decl ? decl : "",
			 u->ret ? ".return" : u->call ? ".call" :
			 i >= ninl ? ".inline" : u->exported ? ".exported" : "");
		free(pproc);
		free(decl);
		prov_list_push(out, new_probe(ppbuf, d));
		n++;
	}
	dwfunc_list_release(&fl);
	usite_list_release(&l);
	usite_list_release(&e);
	if (!n && !env->listing && !pp->optional) {
		diag_error(env->diag, pp->loc, "no %s matches \"%s\" in %s",
			   u->plt ? "PLT entry" : "function", u->spec, obj);
		return -1;
	}
	return (int)n;
}

static int expand_statements(const struct prov_env *env, const struct ast_pp *pp,
			     const struct upoint *u, const char *obj,
			     struct prov_list *out)
{
	struct usite_opts o = { .pid = u->pid };
	struct usite_list l = { 0 };
	char err[512] = "", *pproc, ppbuf[1024];
	size_t i;
	int ret;

	if (u->has_addr) {
		struct elffile *ef;
		char *path;
		struct usite s = { 0 };

		ret = usite_open(obj, u->pid, &path, &ef, err, sizeof(err));
		if (!ret) {
			if (elffile_vaddr_to_off(ef, (uint64_t)u->addr, &s.offset))
				ret = errmsg(err, sizeof(err), -ENOENT, "address 0x%llx "
					     "is not in the code of %s",
					     (unsigned long long)u->addr, path);
			elffile_free(ef);
		}
		if (ret) {
			diag_error(env->diag, pp->loc, "%s", err);
			return -1;
		}
		s.path = path;
		s.vaddr = (uint64_t)u->addr;
		s.name = xasprintf("0x%llx", (unsigned long long)u->addr);
		pproc = quoted_proc(u, path);
		snprintf(ppbuf, sizeof(ppbuf), "%s.statement(0x%llx).absolute",
			 pproc, (unsigned long long)u->addr);
		prov_list_push(out, new_probe(ppbuf, uprobe_of(&s, UK_STMT)));
		free(pproc);
		free(s.name);
		free(path);
		return 1;
	}
	ret = uprobe_find_statements(obj, u, &o, &l, err, sizeof(err));
	if (ret || !l.n) {
		usite_list_release(&l);
		if (env->listing || pp->optional)
			return 0;
		if (!err[0])
			snprintf(err, sizeof(err), "no statement matches \"%s\" in %s",
				 u->spec, obj);
		diag_error(env->diag, pp->loc, "%s", err);
		return -1;
	}
	for (i = 0; i < l.n; i++) {
		struct usite *s = &l.v[i];

		pproc = quoted_proc(u, s->path);
		snprintf(ppbuf, sizeof(ppbuf), "%s.statement(\"%s\")", pproc, s->name);
		free(pproc);
		prov_list_push(out, new_probe(ppbuf, uprobe_of(s, UK_STMT)));
		s->args = NULL;
		s->nargs = 0;
	}
	usite_list_release(&l);
	return (int)i;
}

static int expand_marks(const struct prov_env *env, const struct ast_pp *pp,
			const struct upoint *u, const char *obj,
			struct prov_list *out)
{
	struct usite_opts o = { .pid = u->pid };
	struct usite_list l = { 0 };
	char err[512] = "", *pproc, ppbuf[1024];
	size_t i;
	int ret;

	ret = usite_marks(obj, u->provider, u->spec, &o, &l, err, sizeof(err));
	if (ret || !l.n) {
		usite_list_release(&l);
		if (env->listing || pp->optional)
			return 0;
		if (!err[0])
			snprintf(err, sizeof(err), "no mark matches \"%s\" in %s",
				 u->spec, obj);
		diag_error(env->diag, pp->loc, "%s", err);
		return -1;
	}
	for (i = 0; i < l.n; i++) {
		struct usite *s = &l.v[i];
		struct uprobe *d = uprobe_of(s, UK_MARK);
		char *colon = strchr(s->name, ':');

		s->args = NULL;
		s->nargs = 0;
		d->provider = colon ? xasprintf("%.*s", (int)(colon - s->name), s->name)
				    : xstrdup("");
		d->mark = xstrdup(colon ? colon + 1 : s->name);
		pproc = quoted_proc(u, s->path);
		snprintf(ppbuf, sizeof(ppbuf), "%s.provider(\"%s\").mark(\"%s\")",
			 pproc, d->provider, d->mark);
		free(pproc);
		prov_list_push(out, new_probe(ppbuf, d));
	}
	usite_list_release(&l);
	return (int)i;
}

static int uprobe_expand(const struct prov_env *env, const struct ast_pp *pp,
			 struct prov_list *out)
{
	struct upoint u;
	char *obj;
	int ret = parse_point(env, pp, &u);

	if (ret <= 0)
		return ret;
	if (!session_has_uprobes() && !env->listing) {
		diag_error(env->diag, pp->loc, "process probes need uprobes "
			   "(CONFIG_UPROBE_EVENTS), which this kernel does not have");
		return -1;
	}
	obj = object_of(env, &u);
	if (u.kind == UK_FUNC)
		ret = expand_functions(env, pp, &u, obj, out);
	else if (u.kind == UK_STMT)
		ret = expand_statements(env, pp, &u, obj, out);
	else
		ret = expand_marks(env, pp, &u, obj, out);
	free(obj);
	return ret;
}

/*
 * entry() - the entry twin of a .return probe, for @entry(expr): a probe
 * at the site of the function's parameters, delivered in the return's
 * session (uprobe_attach.c puts every probe of the provider in one
 * ordered session, so the entry's record comes first).
 */
static struct prov_probe *uprobe_entry(const struct prov_probe *ret)
{
	const struct uprobe *r = ret->data;
	struct uprobe *d;
	char *pp;
	struct prov_probe *p;
	size_t i;

	if (!r->ret)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	d->kind = UK_FUNC;
	d->ret_probe = ret;
	d->path = xstrdup(r->path);
	d->offset = r->eoffset;
	d->vaddr = r->evaddr;
	d->func = r->func ? xstrdup(r->func) : NULL;
	d->site = xstrdup(r->site);
	d->nargs = r->neargs;
	d->args = xcalloc(d->nargs ? d->nargs : 1, sizeof(*d->args));
	for (i = 0; i < d->nargs; i++) {
		const struct fetcharg *a = &r->eargs[i];

		d->args[i] = *a;
		d->args[i].name = xstrdup(a->name);
		d->args[i].loc = a->loc ? xstrdup(a->loc) : NULL;
		d->args[i].refused = a->refused ? xstrdup(a->refused) : NULL;
	}
	pp = xstrdup(ret->pp);
	if (strlen(pp) > 7 && !strcmp(pp + strlen(pp) - 7, ".return"))
		strcpy(pp + strlen(pp) - 7, ".call");
	p = new_probe(pp, d);
	free(pp);
	return p;
}

static void uprobe_describe(const struct prov_probe *p, bool plan, FILE *f)
{
	const struct uprobe *d = p->data;
	char *args = uprobe_fetch_args(d, false), *eargs = uprobe_fetch_args(d, true);
	char ref[40] = "";

	if (d->ref_ctr)
		snprintf(ref, sizeof(ref), "(0x%llx)", (unsigned long long)d->ref_ctr);
	if (!plan) {
		fprintf(f, "%s at %s:0x%llx%s (%s) in our group, %s",
			d->ret ? "uretprobe" : "uprobe", d->path,
			(unsigned long long)d->offset,
			d->ref_ctr ? " with its semaphore as reference counter" : "",
			d->site, p->count_global >= 0 ?
			"perf_event counting mode, no records (the handler only counts)" :
			"records from our tracefs instance");
		if (*eargs)
			fprintf(f, "; the entry values from a uprobe at 0x%llx, "
				"paired per thread", (unsigned long long)d->eoffset);
		if (p->stacks)
			fputs("; callchains from perf_event samples", f);
		trace_describe_scope(p, plan, f);
		goto out;
	}
	if (p->count_global < 0)
		trace_describe_scope(p, plan, f);
	if (*eargs) {
		fprintf(f, "echo \"p:$G/u%d_entry\" '%s:0x%llx%s' >> \"$T/../../dynamic_events\"\n",
			p->id, d->path, (unsigned long long)d->eoffset, eargs);
		fprintf(f, "echo 1 > \"$T/events/$G/u%d_entry/enable\"\n", p->id);
	}
	fprintf(f, "echo \"%c:$G/u%d\" '%s:0x%llx%s%s' >> \"$T/../../dynamic_events\"\n",
		d->ret ? 'r' : 'p', p->id, d->path, (unsigned long long)d->offset,
		ref, args);
	if (p->count_global >= 0)
		fprintf(f, "# $G/u%d: a perf_event counter (perf_event_open(2)), "
			"not enabled in the instance\n", p->id);
	else
		fprintf(f, "echo 1 > \"$T/events/$G/u%d/enable\"\n", p->id);
	fprintf(f, "# to remove it after rmdir \"$T\": echo \"-:$G/u%d\" >> "
		"\"${T%%/*/*}/dynamic_events\"\n", p->id);
	if (*eargs)
		fprintf(f, "# and: echo \"-:$G/u%d_entry\" >> "
			"\"${T%%/*/*}/dynamic_events\"\n", p->id);
out:
	free(args);
	free(eargs);
}

static void uprobe_free_probe(struct prov_probe *p)
{
	struct uprobe *d = p->data;

	if (!d)
		return;
	uprobe_vars_free(d);
	free(d->path);
	free(d->func);
	free(d->site);
	free(d->provider);
	free(d->mark);
	free(d->ename);
	fetchargs_free(d->args, d->nargs);
	fetchargs_free(d->eargs, d->neargs);
	free(d);
	p->data = NULL;
}

static const char *uprobe_object(const struct prov_probe *p)
{
	const struct uprobe *d = p->data;

	return d ? d->path : NULL;
}

const struct provider prov_uprobe = {
	.name = "uprobe",
	.counts = true,
	/* Each counted uprobe is an event of its own, and each event costs
	 * the kernel a grace period (~70 ms) to stop: more counted ones would
	 * keep trapping for seconds after the run, while recorded ones stop
	 * together (uprobe_merge.c) for a few hundred ns more a hit. */
	.count_max = 32,
	/* a session per scope (uprobe_attach.c), each with its own group */
	.scopes = true,
	.expand = uprobe_expand,
	.vars = uprobe_vars,
	.var = uprobe_var,
	.target = uprobe_target,
	.entry = uprobe_entry,
	.stack = uprobe_stack,
	.deref = uprobe_deref,
	.fetch = uprobe_fetch,
	.context = uprobe_context,
	.describe = uprobe_describe,
	.object = uprobe_object,
	.attach = uprobe_attach,
	.phase = uprobe_phase,
	.sync = uprobe_sync,
	.detach = uprobe_detach,
	.free_probe = uprobe_free_probe,
};
