// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel functions as probe points, through kprobes:
 *
 *	kernel.function("pattern")[.call|.return]    typed by BTF
 *	module("m").function("pattern")[.call|.return]
 *	kprobe.function("name")[.return]              no target variables
 *	kernel.statement("func+0x10"), kernel.statement(ADDR).absolute
 *
 * expand() matches the pattern against the kernel's traceable functions
 * (common/kfunc.c; a module's from the [m] tags of /proc/kallsyms), so a
 * pattern that matches nothing is reported even on a kernel without
 * kprobes, which is then reported as the missing feature.
 *
 * Target variables are compiled by common/kbtf.c into fetch args of the
 * kprobe: $param is the kernel's $argN, $return its $retval, and member
 * chains become nested dereferences the kernel reads when the probe fires.
 * In a .return probe, $param means the value at entry (stap's semantics):
 * those args go on an entry twin of the kretprobe, whose records are kept
 * per thread and paired with the return's (prov/kprobe_run.c).
 *
 * BTF has no source files, lines, locals or inlined instances: those
 * come from the kernel's DWARF where its debug vmlinux is installed
 * (prov/kprobe_dwarf.c places them; common/dwtype.c types them), and are
 * refused, naming the package to install, where it is not.  A plain
 * kernel.function("name") stays on BTF, which every kernel has.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/dwtype.h"
#include "common/kbtf.h"
#include "common/kdwarf.h"
#include "common/kfunc.h"
#include "common/log.h"
#include "lang/diag.h"
#include "lang/fmt_sb.h"
#include "prov/kprobe.h"
#include "prov/prov.h"
#include "tracefs/session.h"

struct kbtf *kprobe_btf(char *err, size_t errlen)
{
	static struct kbtf *k;
	static char why[256];
	static bool tried;

	if (!tried) {
		tried = true;
		k = kbtf_open(why, sizeof(why));
	}
	if (!k)
		snprintf(err, errlen, "%s", why);
	return k;
}

static struct kprobe *kprobe_new(const char *func, const char *module,
				 const char *addr, bool ret, bool typed)
{
	struct kprobe *k = xcalloc(1, sizeof(*k));

	k->func = xstrdup(func);
	k->module = module ? xstrdup(module) : NULL;
	k->addr = xstrdup(addr);
	k->ret = ret;
	k->typed = typed;
	return k;
}

static void add_probe(struct prov_list *out, const char *pp,
		      struct kprobe *k)
{
	struct prov_probe *p = prov_probe_new(&prov_kprobe, pp, PROV_RUNNING);

	p->data = k;
	prov_list_push(out, p);
}

/* Functions of module @m matching @pat, from the [m] tags of kallsyms. */
static int module_funcs(const char *m, const char *pat, struct kfunc_list *out)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[1024], tag[128];
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (!f)
		return -errno;
	snprintf(tag, sizeof(tag), "[%s]", m);
	while (fgets(line, sizeof(line), f)) {
		char type, name[512], mod[128];
		unsigned long long addr;
		size_t i;

		if (sscanf(line, "%llx %c %511s %127s", &addr, &type, name, mod) != 4 ||
		    strcmp(mod, tag) || !strchr("tTwW", type) ||
		    fnmatch(pat, name, 0))
			continue;
		for (i = 0; i < out->n && strcmp(out->v[i], name); i++)
			;
		if (i < out->n)
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->v = xrealloc(out->v, cap * sizeof(*out->v));
		}
		out->v[out->n++] = xstrdup(name);
	}
	fclose(f);
	return 0;
}

/* Is module @m loaded (not built in: those have no initstate)? */
static bool module_loaded(const char *m)
{
	char path[256];

	if (!*m || strchr(m, '/') || snprintf(path, sizeof(path),
			"/sys/module/%s/initstate", m) >= (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

/* "kernel needs kprobes": one error naming the missing feature; an
 * optional point (`?`, `!`) is then left out, as stap does. */
static int no_kprobes(const struct prov_env *env, const struct ast_pp *pp,
		      const char *what)
{
	if (pp->optional)
		return 0;
	diag_error(env->diag, pp->loc, "%s needs kprobes, which this kernel "
		   "does not have (no kprobe_events in tracefs)", what);
	return -1;
}

static const char *str_arg(const struct ast_pp *pp, size_t i)
{
	const struct ast_ppcomp *c = &pp->comps[i];

	return c->arg && c->arg->kind == AST_E_STR ? c->arg->u.str.s : NULL;
}

/* The sites of a point by source file or line, from the kernel's DWARF. */
static int expand_dwarf(const struct prov_env *env, const struct ast_pp *pp,
			const char *what, const char *shown, const char *spec,
			enum kdkind kind, bool nearest, struct prov_list *out)
{
	struct kdsite_list l;
	char err[768];
	size_t i;
	int n;

	if (kprobe_dwarf_sites(spec, kind, nearest, &l, err, sizeof(err)) < 0) {
		if (pp->optional)
			return 0;
		diag_error(env->diag, pp->loc, "%s(\"%s\"): %s", what, shown, err);
		return -1;
	}
	if (!l.n) {
		if (env->listing || pp->optional)
			return 0;
		diag_error(env->diag, pp->loc, "no kernel function matches \"%s\"",
			   shown);
		return -1;
	}
	if (!env->listing && !session_has_kprobes()) {
		kdsite_list_release(&l);
		return no_kprobes(env, pp, what);
	}
	for (i = 0; i < l.n; i++) {
		struct kprobe *k = kprobe_new(l.v[i].func, NULL, l.v[i].addr,
					      kind == KD_RETURN, false);

		k->dwarf = true;
		k->pc = l.v[i].pc;
		add_probe(out, l.v[i].pp, k);
	}
	n = (int)l.n;
	kdsite_list_release(&l);
	return n;
}

/* kernel.statement("func+0x10") / kernel.statement(ADDR).absolute */
static int expand_statement(const struct prov_env *env, const struct ast_pp *pp,
			    struct prov_list *out)
{
	const char *s = str_arg(pp, 1);
	bool absolute = pp->ncomps == 3 && prov_comp_is(pp, 2, "absolute");
	bool nearest = pp->ncomps == 3 && prov_comp_is(pp, 2, "nearest");
	char err[256], ppbuf[512], addr[64];
	int64_t a;

	if (pp->ncomps > 3 || (pp->ncomps == 3 && !absolute && !nearest))
		return 0;
	if (s && (strchr(s, '@') || strchr(s, ':')))
		return expand_dwarf(env, pp, "kernel.statement", s, s, KD_STMT,
				    nearest, out);
	if (nearest) {
		diag_error(env->diag, pp->loc, ".nearest needs a source line: "
			   "kernel.statement(\"func@file:line\").nearest");
		return -1;
	}
	if (absolute) {
		if (!prov_comp_num(pp, 1, &a)) {
			diag_error(env->diag, pp->loc, "kernel.statement(ADDRESS)"
				   ".absolute needs a number");
			return -1;
		}
		if (!env->listing && !session_has_kprobes())
			return no_kprobes(env, pp, "kernel.statement");
		snprintf(addr, sizeof(addr), "0x%" PRIx64, (uint64_t)a);
		snprintf(ppbuf, sizeof(ppbuf), "kernel.statement(%s).absolute", addr);
		add_probe(out, ppbuf, kprobe_new("", NULL, addr, false, false));
		return 1;
	}
	if (!s) {
		diag_error(env->diag, pp->loc, "kernel.statement needs \"func+OFFSET\" "
			   "or an address with .absolute");
		return -1;
	}
	if (kfunc_check(s, err, sizeof(err)) < 0) {
		if (env->listing || pp->optional)
			return 0;
		diag_error(env->diag, pp->loc, "%s", err);
		return -1;
	}
	if (!env->listing && !session_has_kprobes())
		return no_kprobes(env, pp, "kernel.statement");
	snprintf(ppbuf, sizeof(ppbuf), "kernel.statement(\"%s\")", s);
	{
		char *fn = xstrdup(s), *plus = strchr(fn, '+');

		if (plus)
			*plus = '\0';
		add_probe(out, ppbuf, kprobe_new(fn, NULL, s, false, false));
		free(fn);
	}
	return 1;
}

static int kprobe_expand(const struct prov_env *env, const struct ast_pp *pp,
			 struct prov_list *out)
{
	const char *module = NULL, *what, *pat, *suffix = "";
	bool raw = false, ret = false, inl = false;
	struct kfunc_list l = { 0 };
	char err[256], *name, *at;
	size_t i;
	int n;

	if (pp->ncomps < 2)
		return 0;
	if (prov_comp_is(pp, 0, "kernel") && prov_comp_is(pp, 1, "statement") &&
	    !pp->comps[0].arg)
		return expand_statement(env, pp, out);
	if (!prov_comp_is(pp, 1, "function"))
		return 0;
	if (prov_comp_is(pp, 0, "kernel") && !pp->comps[0].arg) {
		what = "kernel.function";
	} else if (prov_comp_is(pp, 0, "kprobe") && !pp->comps[0].arg) {
		what = "kprobe.function";
		raw = true;
	} else if (prov_comp_is(pp, 0, "module")) {
		what = "module().function";
		module = str_arg(pp, 0);
		if (!module) {
			diag_error(env->diag, pp->loc, "module needs a string: "
				   "module(\"name\").function(\"pattern\")");
			return -1;
		}
	} else {
		return 0;
	}
	if (pp->ncomps > 3)
		return 0;
	if (pp->ncomps == 3) {
		if (prov_comp_is(pp, 2, "return")) {
			ret = true;
			suffix = ".return";
		} else if (prov_comp_is(pp, 2, "call") && !raw) {
			suffix = ".call";	/* kallsyms functions are not inlined */
		} else if (prov_comp_is(pp, 2, "inline") && !raw) {
			inl = true;
			suffix = ".inline";
		} else {
			return 0;
		}
	}
	pat = str_arg(pp, 1);
	if (!pat) {
		diag_error(env->diag, pp->loc, "%s needs a string: %s(\"pattern\")",
			   what, raw ? "kprobe.function" : "kernel.function");
		return -1;
	}
	if (inl && !strchr(pat, '@')) {
		/* inline instances are in the units that call the function:
		 * without a file, every unit of the kernel (minutes to read) */
		diag_error(env->diag, pp->loc, "%s(\"%s\").inline needs a source "
			   "file: \"%s@FILE\" (the file the instances are in), or "
			   "\"%s@*\" to read all of the kernel's DWARF", what, pat,
			   pat, pat);
		return -1;
	}
	if (!raw && !module && strchr(pat, '@'))
		return expand_dwarf(env, pp, what, pat, pat, inl ? KD_INLINE :
				    ret ? KD_RETURN : *suffix ? KD_CALL : KD_FUNC,
				    false, out);
	name = xstrdup(pat);
	if ((at = strchr(name, '@'))) {
		if (!env->listing)
			diag_warn(env->diag, pp->loc, "%s: BTF has no source "
				  "files: \"%s\" matches functions named \"%.*s\" "
				  "in any file", what, pat, (int)(at - name), name);
		*at = '\0';
	}
	if (raw && strpbrk(name, "*?[")) {
		diag_error(env->diag, pp->loc, "kprobe.function takes a function "
			   "name, not a pattern: \"%s\"", name);
		free(name);
		return -1;
	}
	n = module ? module_funcs(module, name, &l) :
		     kfunc_match(name, &l, err, sizeof(err));
	if (n < 0) {
		if (!module)
			diag_error(env->diag, pp->loc, "%s", err);
		else
			diag_error(env->diag, pp->loc, "cannot read /proc/kallsyms: %s",
				   strerror(-n));
		free(name);
		return -1;
	}
	if (!l.n) {
		free(name);
		if (env->listing || pp->optional)
			return 0;
		if (module && !module_loaded(module))
			diag_error(env->diag, pp->loc, "module '%s' is not loaded "
				   "(no /sys/module/%s/initstate): module(\"%s\")"
				   ".function(\"%s\") needs it", module, module,
				   module, pat);
		else if (module)
			diag_error(env->diag, pp->loc, "no function of module '%s' "
				   "matches \"%s\"", module, pat);
		else
			diag_error(env->diag, pp->loc, "no kernel function matches "
				   "\"%s\"", pat);
		return -1;
	}
	if (!env->listing && !session_has_kprobes()) {
		kfunc_list_release(&l);
		free(name);
		return no_kprobes(env, pp, module ? "module().function" :
				  raw ? "kprobe.function" : "kernel.function");
	}
	for (i = 0; i < l.n; i++) {
		char ppbuf[640], addr[640];

		if (module) {
			snprintf(ppbuf, sizeof(ppbuf), "module(\"%s\").function(\"%s\")%s",
				 module, l.v[i], suffix);
			snprintf(addr, sizeof(addr), "%s:%s", module, l.v[i]);
		} else {
			snprintf(ppbuf, sizeof(ppbuf), "%s(\"%s\")%s", what, l.v[i],
				 suffix);
			snprintf(addr, sizeof(addr), "%s", l.v[i]);
		}
		add_probe(out, ppbuf, kprobe_new(l.v[i], module, addr, ret, !raw));
	}
	n = (int)l.n;
	kfunc_list_release(&l);
	free(name);
	return n;
}

/* The variables DWARF has at a DWARF probe's address, as -L lists them:
 * those readable there. */
static void load_dwarf_vars(struct kprobe *k)
{
	struct kdwarf *kd;
	struct dwvar *v;
	char err[256];
	size_t i, n;

	if (!(kd = kprobe_dwarf(err, sizeof(err))) ||
	    dwtype_vars(kdwarf_dwinfo(kd), k->pc, DWTYPE_PARAMS |
			(k->ret ? 0 : DWTYPE_LOCALS), &v, &n, err, sizeof(err)))
		return;
	k->params = xcalloc(n + 1, sizeof(*k->params));
	for (i = 0; i < n; i++) {
		if (v[i].unavailable)
			continue;
		k->params[k->nparams].name = xstrdup(v[i].name);
		k->params[k->nparams].ctype = xstrdup(v[i].ctype);
		k->nparams++;
	}
	dwvars_free(v, n);
	if (k->ret) {
		struct tpath none = { 0 };
		struct tval r;

		if (!dwtype_return(kdwarf_dwinfo(kd), k->pc, &none, &r, err,
				   sizeof(err))) {
			k->retctype = r.ctype;
			r.ctype = NULL;
			tval_release(&r);
		}
	}
}

/* The function's BTF parameters, once (none when it has no BTF). */
static void load_params(struct kprobe *k)
{
	char err[256];
	struct kbtf *b;

	if (k->params_loaded)
		return;
	k->params_loaded = true;
	if (k->dwarf) {
		load_dwarf_vars(k);
		return;
	}
	if (!k->typed || !(b = kprobe_btf(err, sizeof(err))))
		return;
	if (kbtf_params(b, k->module, k->func, &k->params, &k->nparams,
			&k->retctype, err, sizeof(err)) < 0) {
		k->params = NULL;
		k->nparams = 0;
	}
}

static size_t kprobe_vars(const struct prov_probe *p, struct prov_var *out,
			  size_t max)
{
	struct kprobe *k = p->data;
	size_t i, n = 0;

	load_params(k);
	for (i = 0; i < k->nparams && n < max; i++) {
		if (!*k->params[i].name)
			continue;
		out[n] = (struct prov_var){ .name = k->params[i].name,
			.type = AST_T_LONG, .idx = -1,
			.ctype = k->params[i].ctype, .flags = PROV_VAR_PARAM |
			(strchr(k->params[i].ctype, '*') ? PROV_VAR_HEX : 0) };
		n++;
	}
	if (k->ret && k->retctype && n < max)
		out[n++] = (struct prov_var){ .name = "return", .type = AST_T_LONG,
			.idx = -1, .ctype = k->retctype, .flags = PROV_VAR_RETURN |
			(strchr(k->retctype, '*') ? PROV_VAR_HEX : 0) };
	return n;
}

/* Add compiled variable @v (taken over) under @key, or find it. */
static int add_var(struct kprobe *k, const char *key, const char *name,
		   struct tval *v, bool entry)
{
	struct kvar *kv;
	size_t j;
	int i;

	for (i = 0; i < k->nvars; i++)
		if (!strcmp(k->vars[i].key, key)) {
			tval_release(v);
			return i;
		}
	k->vars = xrealloc(k->vars, (size_t)(k->nvars + 1) * sizeof(*k->vars));
	kv = &k->vars[k->nvars];
	memset(kv, 0, sizeof(*kv));
	kv->key = xstrdup(key);
	kv->name = xstrdup(name);
	kv->v = *v;
	kv->entry = entry;
	for (j = 0; j < kv->v.nargs; j++) {
		free(kv->v.args[j].name);
		kv->v.args[j].name = xasprintf("v%d_%zu", k->nvars, j);
	}
	memset(v, 0, sizeof(*v));
	return k->nvars++;
}

static void fill_out(const struct kprobe *k, int idx, struct prov_var *out)
{
	const struct kvar *kv = &k->vars[idx];

	out->name = kv->name;
	out->idx = idx;
	out->array = 0;
	out->type = kv->v.kind == TVAL_LONG ? AST_T_LONG : AST_T_STRING;
	out->ctype = kv->v.ctype;
	out->flags = kv->v.nargs == 1 && kv->v.args[0].is_ptr ? PROV_VAR_HEX : 0;
}

/* A key naming a path: "p->a[3]$" */
static void key_path(struct strbuf *sb, const struct tpath *t)
{
	size_t i;

	for (i = 0; i < t->nsteps; i++)
		if (t->steps[i].kind == TSTEP_MEMBER)
			fmt_sb_addf(sb, "->%s", t->steps[i].name);
		else
			fmt_sb_addf(sb, "[%" PRId64 "]", t->steps[i].index);
	fmt_sb_addf(sb, "%s%.*s", t->addressof ? "&" : "", t->pretty, "$$");
	if (t->off)
		fmt_sb_addf(sb, "%+" PRId64, t->off);
}

/* x86-64 register names as the kprobe fetch syntax spells them. */
static const char *fetch_reg(const char *r, char *buf, size_t len)
{
	static const char *const regs[] = {
		"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", "flags",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	size_t i;

	if (r[0] == '%')
		r++;
	if ((r[0] == 'r' || r[0] == 'e') && strlen(r) == 3 && !strchr("0123456789", r[1]))
		r++;
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(r, regs[i])) {
			snprintf(buf, len, "%%%s", regs[i]);
			return buf;
		}
	return NULL;
}

/* The raw operand of @t as a fetch location, or NULL with @err. */
static const char *raw_loc(const struct kprobe *k, const struct prov_target *t,
			   char *buf, size_t len, char *err, size_t errlen)
{
	switch (t->raw) {
	case PROV_RAW_REG:
		if (!fetch_reg(t->root, buf, len)) {
			snprintf(err, errlen, "unknown register '%s'", t->root);
			return NULL;
		}
		return buf;
	case PROV_RAW_ARG:
		snprintf(buf, len, "$arg%d", t->raw_arg);
		return buf;
	case PROV_RAW_RETVAL:
		if (!k->ret) {
			snprintf(err, errlen, "the return value is only known in "
				 "a .return probe");
			return NULL;
		}
		return "$retval";
	case PROV_RAW_IP:
		return "%ip";
	case PROV_RAW_UIP:
		snprintf(err, errlen, "uaddr() in a kernel function needs the "
			 "task's user-space registers, which kprobe fetch "
			 "arguments cannot read: use addr()");
		return NULL;
	default:
		return NULL;
	}
}

/* A raw operand as a number of @t->raw_type. */
static int raw_value(const char *loc, const char *type, struct tval *v)
{
	memset(v, 0, sizeof(*v));
	v->args = xcalloc(1, sizeof(*v->args));
	v->nargs = 1;
	v->args[0].name = xstrdup("a0");
	v->args[0].loc = xstrdup(loc);
	snprintf(v->args[0].type, sizeof(v->args[0].type), "%s",
		 type && *type ? type : "s64");
	v->args[0].size = strstr(v->args[0].type, "32") ? 4 : 8;
	v->args[0].is_signed = v->args[0].type[0] == 's';
	v->kind = TVAL_LONG;
	v->ctype = xstrdup("long");
	return 0;
}

/*
 * The read of @kind at the value of @src plus @off (user_string($x),
 * kernel_long($p->next + 8)): one fetch arg dereferencing @src's.
 */
static int read_at(const struct tval *src, int64_t off, enum prov_mem kind,
		   struct tval *v)
{
	static const char *const type[] = {
		[PROV_MEM_USTRING] = "ustring", [PROV_MEM_KSTRING] = "string",
		[PROV_MEM_ULONG] = "s64", [PROV_MEM_UINT] = "s32",
		[PROV_MEM_KLONG] = "s64", [PROV_MEM_KINT] = "s32",
	};
	bool user = kind == PROV_MEM_ULONG || kind == PROV_MEM_UINT;
	bool str = kind == PROV_MEM_USTRING || kind == PROV_MEM_KSTRING;
	int64_t o;

	memset(v, 0, sizeof(*v));
	if (src->kind != TVAL_LONG || src->nargs != 1)
		return -EINVAL;
	o = off + src->add;
	v->args = xcalloc(1, sizeof(*v->args));
	v->nargs = 1;
	v->args[0].name = xstrdup("a0");
	v->args[0].loc = xasprintf("%c%s%" PRIu64 "(%s)", o < 0 ? '-' : '+',
				   user ? "u" : "",
				   o < 0 ? 0 - (uint64_t)o : (uint64_t)o,
				   src->args[0].loc);
	snprintf(v->args[0].type, sizeof(v->args[0].type), "%s", type[kind]);
	v->args[0].size = kind == PROV_MEM_UINT || kind == PROV_MEM_KINT ? 4 : 8;
	v->args[0].is_signed = true;
	v->kind = str ? TVAL_STRING : TVAL_LONG;
	v->ctype = xstrdup(str ? "char*" : "long");
	return 0;
}

/*
 * The root of @t then @path from the kernel's DWARF: a global by name, or
 * in a DWARF probe a parameter or local at its address, or $return.
 */
static int dwarf_root(const struct kprobe *k, const struct prov_target *t,
		      const struct tpath *path, struct tval *out, char *err,
		      size_t errlen)
{
	char why[512];
	struct kdwarf *kd = kprobe_dwarf(why, sizeof(why));
	struct dwinfo *dw;
	const char *file;
	int ret;

	if (!kd)
		return errmsg(err, errlen, -EINVAL, "%s%s%s needs the kernel's "
			      "DWARF debug info: %s", t->is_global ? "@var(\"" : "$",
			      t->root, t->is_global ? "\")" : "", why);
	dw = kdwarf_dwinfo(kd);
	if (t->is_global) {
		/* the units of its file only: not all of vmlinux */
		file = strchr(t->root, '@');
		if (file && kdwarf_scope(kd, file + 1) == -ENOENT)
			kdwarf_scope(kd, NULL);
		ret = dwtype_global_at(dw, k->dwarf && !k->ret ? k->pc : 0,
				       t->root, path, out, err, errlen);
		kdwarf_scope(kd, NULL);
		return ret == -ENOENT ? -EINVAL : ret;
	}
	if (!strcmp(t->root, "return"))
		return k->ret ? dwtype_return(dw, k->pc, path, out, err, errlen) :
				-ENOENT;
	/* $name is the probe's unit's, not a global of another unit */
	kdwarf_scope_at(kd, k->pc);
	ret = dwtype_resolve(dw, k->pc, t->root, path, out, err, errlen);
	kdwarf_scope(kd, NULL);
	return ret;
}

/*
 * The value of @t, without its read (deref), into @v and what names it onto
 * @key: the root (a raw operand, a parameter or $return from BTF or DWARF,
 * or a cast's pointer that is a target of its own), then the cast and the
 * path.  *@entry: the root is read at the function's entry.  0 or -errno.
 */
static int target_value(struct kprobe *k, struct kbtf *b,
			const struct prov_target *t, struct strbuf *key,
			struct tval *v, bool *entry, char *err, size_t errlen)
{
	struct tval pre = { 0 };
	char buf[32];
	const char *loc;
	int ret;

	if (t->base) {
		fmt_sb_addf(key, "[");
		ret = target_value(k, b, t->base, key, &pre, entry, err, errlen);
		if (ret < 0)
			return ret;
		fmt_sb_addf(key, "]");
	} else if (t->raw != PROV_RAW_NONE) {
		if (!(loc = raw_loc(k, t, buf, sizeof(buf), err, errlen)))
			return -EINVAL;
		fmt_sb_addf(key, "raw:%s:%s", loc, t->raw_type ? t->raw_type : "");
		if (!t->cast_type && (t->path.nsteps || t->path.addressof ||
				      t->path.pretty))
			return errmsg(err, errlen, -EINVAL, "a raw value has no "
				      "type: use @cast to reach members");
		raw_value(loc, t->cast_type ? "u64" : t->raw_type, &pre);
		*entry = k->ret && t->raw == PROV_RAW_ARG;
	} else {
		const struct tpath *first = t->cast_type ? &t->pre : &t->path;

		if (t->is_global || k->dwarf) {
			ret = dwarf_root(k, t, first, &pre, err, errlen);
			if (ret < 0)
				return ret;
			*entry = k->ret && !t->is_global && strcmp(t->root, "return");
			fmt_sb_addf(key, "%s%s", t->is_global ? "@var:" : "", t->root);
		} else {
			if (!k->typed || !k->func[0])
				return -ENOENT;
			if (!strcmp(t->root, "return") && !k->ret)
				return -ENOENT;
			ret = kbtf_resolve(b, k->module, k->func, t->root, first,
					   &pre, err, errlen);
			if (ret < 0)
				return ret;
			*entry = k->ret && strcmp(t->root, "return");
			fmt_sb_addf(key, "%s", t->root);
		}
		if (t->cast_type)
			key_path(key, &t->pre);
	}
	if (t->cast_type) {
		struct tpath path = t->path;
		struct tplace ptr;

		if (pre.kind != TVAL_LONG || pre.nargs != 1) {
			tval_release(&pre);
			return errmsg(err, errlen, -EINVAL, "@cast needs a pointer "
				      "value");
		}
		/* &$s->f as the pointer: f's offset joins the cast's */
		path.off += pre.add;
		tplace_parse(pre.args[0].loc, &ptr);
		ret = kbtf_cast(b, t->cast_module, t->cast_type, &ptr, &path,
				v, err, errlen);
		tplace_release(&ptr);
		tval_release(&pre);
		if (ret < 0)
			return ret == -ENOENT ? -EINVAL : ret;
		fmt_sb_addf(key, "@cast(%s,%s)", t->cast_type,
			    t->cast_module ? t->cast_module : "");
		key_path(key, &path);
	} else {
		*v = pre;
		key_path(key, &t->path);
	}
	return 0;
}

static int kprobe_target(struct prov_probe *p, const struct prov_target *t,
			 struct prov_var *out, char *err, size_t errlen)
{
	struct kprobe *k = p->data;
	struct strbuf key = STRBUF_INIT;
	struct tval v = { 0 };
	const struct prov_target *root = t;
	struct kbtf *b = NULL;
	bool entry = false;
	int ret, idx;

	if ((k->typed || t->cast_type) && !(b = kprobe_btf(err, errlen)))
		return -ENOENT;
	while (root->base)
		root = root->base;
	ret = target_value(k, b, t, &key, &v, &entry, err, errlen);
	if (ret < 0) {
		fmt_sb_release(&key);
		return ret;
	}
	if (t->deref) {
		struct tval r;

		ret = read_at(&v, t->deref_off, t->deref_kind, &r);
		tval_release(&v);
		if (ret < 0) {
			fmt_sb_release(&key);
			return errmsg(err, errlen, -EINVAL, "the value is not an "
				      "address");
		}
		v = r;
		fmt_sb_addf(&key, " %s%+" PRId64, t->deref_fn ? t->deref_fn : "read",
			    t->deref_off);
	}
	idx = add_var(k, fmt_sb_str(&key), root->root ? root->root : "raw", &v, entry);
	fmt_sb_release(&key);
	fill_out(k, idx, out);
	return 0;
}

static int kprobe_var(const struct prov_probe *p, const char *name,
		      struct prov_var *out)
{
	struct prov_target t = { .root = name };
	char err[256];

	/* var() is asked for a bare $name: the same compile as target() */
	return kprobe_target((struct prov_probe *)p, &t, out, err, sizeof(err)) < 0 ?
	       -ENOENT : 0;
}

static int kprobe_deref(struct prov_probe *p, const struct prov_var *var,
			int64_t off, enum prov_mem kind, const char *fn,
			struct prov_var *out)
{
	struct kprobe *k = p->data;
	const struct kvar *src;
	struct tval v;
	char *key;
	int idx;

	if (var->idx < 0 || var->idx >= k->nvars)
		return -EINVAL;
	src = &k->vars[var->idx];
	if (read_at(&src->v, off, kind, &v) < 0)
		return -EINVAL;
	key = xasprintf("%s(%s)%+" PRId64, fn, src->key, off);
	idx = add_var(k, key, src->name, &v, src->entry);
	free(key);
	fill_out(k, idx, out);
	return 0;
}

static struct prov_probe *kprobe_entry(const struct prov_probe *ret)
{
	const struct kprobe *k = ret->data;
	struct prov_probe *p;
	char *pp, *dot;

	if (!k->ret)
		return NULL;
	pp = xstrdup(ret->pp);
	if ((dot = strrchr(pp, '.')) && !strcmp(dot, ".return"))
		*dot = '\0';
	p = prov_probe_new(&prov_kprobe, pp, PROV_RUNNING);
	p->data = kprobe_new(k->func, k->module, k->addr, false, k->typed);
	((struct kprobe *)p->data)->ret_probe = ret;
	((struct kprobe *)p->data)->dwarf = k->dwarf;
	((struct kprobe *)p->data)->pc = k->pc;
	free(pp);
	return p;
}

char *kprobe_args(const struct kprobe *k, bool entry)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	size_t j;
	int i;

	for (i = 0; i < k->nvars; i++) {
		const struct kvar *kv = &k->vars[i];

		if (kv->entry != entry && k->ret)
			continue;
		if (!k->ret && entry)
			continue;
		for (j = 0; j < kv->v.nargs; j++) {
			char *a = fetcharg_format(&kv->v.args[j]);

			if (a)
				fmt_sb_addf(&sb, " %s", a);
			free(a);
		}
	}
	s = xstrdup(sb.len ? fmt_sb_str(&sb) : "");
	fmt_sb_release(&sb);
	return s;
}

void kprobe_ename(const struct prov_probe *p, bool entry, char *buf,
		  size_t len)
{
	const struct kprobe *k = p->data;
	size_t i;

	snprintf(buf, len, "%.40s_%d%s", k->func[0] ? k->func : "addr", p->id,
		 entry ? "_entry" : "");
	for (i = 0; buf[i]; i++)
		if (!isalnum((unsigned char)buf[i]))
			buf[i] = '_';
}

static void kprobe_describe(const struct prov_probe *p, bool plan, FILE *f)
{
	const struct kprobe *k = p->data;
	char *args, *eargs;
	char name[64];

	if (!plan) {
		fprintf(f, "%s at %s from our tracefs instance%s%s",
			k->ret ? "kretprobe" : "kprobe", k->addr,
			kprobe_has_entry(k) ? ", with a kprobe at its entry for "
			"the parameters' values" : "",
			p->stacks ? ", with callchains (perf_event sampling)" : "");
		return;
	}
	if (kprobe_has_entry(k)) {
		kprobe_ename(p, true, name, sizeof(name));
		eargs = kprobe_args(k, true);
		fprintf(f, "echo 'p:'\"$G\"'/%s %s%s' >> \"$T/../../kprobe_events\"\n",
			name, k->addr, eargs);
		fprintf(f, "echo 1 > \"$T/events/$G/%s/enable\"\n", name);
		free(eargs);
	}
	kprobe_ename(p, false, name, sizeof(name));
	args = kprobe_args(k, false);
	fprintf(f, "echo '%c:'\"$G\"'/%s %s%s' >> \"$T/../../kprobe_events\"\n",
		k->ret ? 'r' : 'p', name, k->addr, args);
	fprintf(f, "echo 1 > \"$T/events/$G/%s/enable\"\n", name);
	free(args);
}

static void kprobe_free_probe(struct prov_probe *p)
{
	struct kprobe *k = p->data;
	int i;

	if (!k)
		return;
	for (i = 0; i < k->nvars; i++) {
		free(k->vars[i].key);
		free(k->vars[i].name);
		tval_release(&k->vars[i].v);
		free(k->vars[i].fields);
		free(k->vars[i].buf);
		fmt_sb_release(&k->vars[i].text);
	}
	free(k->vars);
	kbtf_vars_free(k->params, k->nparams);
	free(k->retctype);
	free(k->func);
	free(k->module);
	free(k->addr);
	free(k->ename);
	free(k->entry_ename);
	free(k);
	p->data = NULL;
}

const struct provider prov_kprobe = {
	.name = "kprobe",
	.expand = kprobe_expand,
	.vars = kprobe_vars,
	.var = kprobe_var,
	.target = kprobe_target,
	.entry = kprobe_entry,
	.stack = kprobe_stack,
	.deref = kprobe_deref,
	.fetch = kprobe_fetch,
	.context = kprobe_context,
	.describe = kprobe_describe,
	.attach = kprobe_attach,
	.phase = kprobe_phase,
	.detach = kprobe_detach,
	.free_probe = kprobe_free_probe,
};
