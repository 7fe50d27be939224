// SPDX-License-Identifier: GPL-2.0
/*
 * Typed target expressions, for the symbols pass: `$p->next->val[3]`,
 * `&$s->f`, `$x$$`, `@cast(ptr, "type")->f`, `@var("g@f.c")` and the raw
 * operands of register(), int_arg(N), returnval(), uaddr()...
 *
 * The elaborator knows no types: it turns the expression into a struct
 * prov_target (lang/provider.h: a root, an optional cast, a path of
 * constant steps, common/tpath.h) and asks the probe's provider to
 * resolve it into a variable the kernel fetches when the probe fires.
 * Providers without types (tracepoints) have no target() hook and keep
 * their plain `$field` and `$field[i]` variables (elab_symbols.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/backend.h"
#include "lang/elab_pass.h"

/* The functions that read a raw operand of the probe: stap's
 * context tapset (register(), the *_arg() family, returnval(), uaddr()). */
static const struct raw_fn {
	const char *name;
	enum prov_raw raw;
	const char *type;
} raw_fns[] = {
	{ "register", PROV_RAW_REG, "s64" },
	{ "u_register", PROV_RAW_REG, "u64" },
	{ "int_arg", PROV_RAW_ARG, "s32" },
	{ "uint_arg", PROV_RAW_ARG, "u32" },
	{ "long_arg", PROV_RAW_ARG, "s64" },
	{ "ulong_arg", PROV_RAW_ARG, "u64" },
	{ "longlong_arg", PROV_RAW_ARG, "s64" },
	{ "ulonglong_arg", PROV_RAW_ARG, "u64" },
	{ "pointer_arg", PROV_RAW_ARG, "u64" },
	{ "s32_arg", PROV_RAW_ARG, "s32" },
	{ "u32_arg", PROV_RAW_ARG, "u32" },
	{ "s64_arg", PROV_RAW_ARG, "s64" },
	{ "u64_arg", PROV_RAW_ARG, "u64" },
	{ "short_arg", PROV_RAW_ARG, "s16" },
	{ "ushort_arg", PROV_RAW_ARG, "u16" },
	{ "char_arg", PROV_RAW_ARG, "s8" },
	{ "uchar_arg", PROV_RAW_ARG, "u8" },
	{ "returnval", PROV_RAW_RETVAL, "s64" },
	{ "uaddr", PROV_RAW_UIP, "u64" },
	{ "addr", PROV_RAW_IP, "u64" },
};

static const struct raw_fn *raw_fn(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(raw_fns) / sizeof(raw_fns[0]); i++)
		if (!strcmp(raw_fns[i].name, name))
			return &raw_fns[i];
	return NULL;
}

/* diag_error() unless @quiet (@defined() asks without reporting). */
#define report(e, quiet, ...) \
	do { if (!(quiet)) diag_error((e)->diag, __VA_ARGS__); } while (0)

int elab_raw_call(struct elab *e, struct elab_probe *p, struct ast_expr *call,
		  bool quiet)
{
	const struct raw_fn *r;
	const struct ast_exprs *a = &call->u.call.args;
	struct ast_expr *t;
	bool reg;
	int want;

	if (call->kind != AST_E_CALL || !(r = raw_fn(call->u.call.name)) ||
	    elab_find_func(e, call->u.call.name, -1))
		return 0;
	reg = r->raw == PROV_RAW_REG;
	want = reg || r->raw == PROV_RAW_ARG;
	if (a->n != (size_t)want) {
		report(e, quiet, call->loc, "function '%s' takes %d argument%s, "
		       "%zu given", call->u.call.name, want, want == 1 ? "" : "s",
		       a->n);
		return -1;
	}
	if (a->n && a->v[0]->kind != (reg ? AST_E_STR : AST_E_NUM)) {
		report(e, quiet, a->v[0]->loc, "%s() takes a %s: the kernel "
		       "reads it when the probe fires", call->u.call.name,
		       reg ? "register name as a string literal" :
		       "constant argument number");
		return -1;
	}
	if (!p || !p->pp->prov->target) {
		report(e, quiet, call->loc, "%s() needs a probe on a function "
		       "or a statement (%s)", call->u.call.name, p ?
		       "this probe has no registers" : "not in a function");
		return -1;
	}
	if (r->raw == PROV_RAW_ARG && (a->v[0]->u.num < 1 || a->v[0]->u.num > 64)) {
		report(e, quiet, a->v[0]->loc, "%s(): argument %lld does not "
		       "exist", call->u.call.name, (long long)a->v[0]->u.num);
		return -1;
	}
	t = ast_expr_new(AST_E_TARGET, call->loc);
	t->op_loc = call->op_loc;
	t->u.target.name = xstrdup(call->u.call.name);
	t->u.target.raw = r->raw;
	t->u.target.raw_type = r->type;
	if (reg)
		t->u.target.raw_reg = xstrdup(a->v[0]->u.str.s);
	else if (a->n)
		t->u.target.raw_arg = (int)a->v[0]->u.num;
	elab_replace_expr(call, t);
	return 1;
}

const char *elab_target_shown(const struct ast_expr *e)
{
	if (e->u.target.name)
		return e->u.target.name;
	return e->u.target.cast_type ? "@cast" : e->u.target.global ? "@var" :
	       "the value";
}

int elab_target_path(struct elab *e, const struct ast_expr *t,
		     struct tpath *path, struct tstep **steps, bool quiet)
{
	size_t i, n = 0;
	struct tstep *v = xcalloc(t->u.target.ncomps + 1, sizeof(*v));

	memset(path, 0, sizeof(*path));
	for (i = 0; i < t->u.target.ncomps; i++) {
		const struct ast_tcomp *c = &t->u.target.comps[i];

		switch (c->kind) {
		case AST_TC_MEMBER:
			v[n].kind = TSTEP_MEMBER;
			v[n++].name = c->name;
			break;
		case AST_TC_INDEX:
			if (c->index->kind != AST_E_NUM) {
				report(e, quiet, c->index->loc, "the index of "
				       "%s must be a constant: the kernel "
				       "reads the element when the probe "
				       "fires", elab_target_shown(t));
				free(v);
				return -1;
			}
			v[n].kind = TSTEP_INDEX;
			v[n++].index = c->index->u.num;
			break;
		case AST_TC_PRETTY:
			path->pretty = strcmp(c->name, "$$") ? 1 : 2;
			break;
		}
	}
	path->steps = v;
	path->nsteps = n;
	path->addressof = t->u.target.addressof;
	*steps = v;
	return 0;
}

/* The root of @t (a variable, a raw operand or a global) into @out. */
static void root_of(const struct ast_expr *t, struct prov_target *out)
{
	if (t->u.target.raw) {
		out->raw = t->u.target.raw;
		out->raw_arg = t->u.target.raw_arg;
		out->raw_type = t->u.target.raw_type;
		out->root = t->u.target.raw_reg;
	} else if (t->u.target.global) {
		out->root = t->u.target.global;
		out->is_global = true;
		out->cast_module = t->u.target.cast_module;
	} else {
		out->root = t->u.target.name + 1;
	}
}

int elab_target_build(struct elab *e, struct elab_probe *p, struct ast_expr *t,
		      struct prov_target *out, bool quiet)
{
	struct ast_expr *base = t->u.target.base;
	struct tstep *steps;

	memset(out, 0, sizeof(*out));
	if (t->u.target.cast_type) {
		if (base->kind == AST_E_CALL && elab_raw_call(e, p, base, quiet) < 0)
			return -1;
		if (base->kind == AST_E_TARGET && base->u.target.cast_type &&
		    base->u.target.ncomps) {
			/* @cast(&@cast(x, "A")->m->n, "B"), @cast(@cast(x,
			 * "A")->ptr, "B"): the pointer is the value of a
			 * cast of its own */
			struct prov_target *in = xcalloc(1, sizeof(*in));

			if (elab_target_build(e, p, base, in, quiet) < 0) {
				free(in);
				return -1;
			}
			out->base = in;
		} else if (base->kind != AST_E_TARGET || base->u.target.cast_type ||
			   (!base->u.target.raw && !base->u.target.global &&
			    (!base->u.target.name || base->u.target.name[1] == '$'))) {
			report(e, quiet, base->loc, "@cast needs a pointer the "
			       "kernel can read when the probe fires: a target "
			       "variable, register() or a *_arg() function");
			return -1;
		} else {
			root_of(base, out);
			if (elab_target_path(e, base, &out->pre, &steps, quiet) < 0)
				return -1;
		}
		out->cast_type = t->u.target.cast_type;
		out->cast_module = t->u.target.cast_module;
	} else if (!t->u.target.name && !t->u.target.global) {
		report(e, quiet, t->loc, "autocast values are not supported: "
		       "use @cast(value, \"type\")");
		return -1;
	} else {
		root_of(t, out);
	}
	if (elab_target_path(e, t, &out->path, &steps, quiet) < 0) {
		elab_target_release(out);
		return -1;
	}
	out->path.off = t->u.target.cast_off;
	return 0;
}

void elab_target_release(struct prov_target *t)
{
	if (t->base) {
		elab_target_release((struct prov_target *)t->base);
		free((void *)t->base);
	}
	free((void *)t->pre.steps);
	free((void *)t->path.steps);
	memset(t, 0, sizeof(*t));
}

bool elab_target_resolve(struct elab *e, struct elab_probe *p,
			 struct ast_expr *t, bool quiet)
{
	struct prov_probe *pp = p->pp;
	struct prov_target pt;
	struct prov_var v = { 0 };
	char err[512] = "";
	int r;

	if (elab_target_build(e, p, t, &pt, quiet) < 0)
		return false;
	r = pp->prov->target(pp, &pt, &v, err, sizeof(err));
	elab_target_release(&pt);
	if (r < 0) {
		if (quiet)
			return false;
		if (r == -ENOENT && !err[0])
			diag_error(e->diag, t->loc, "no target variable '%s' in "
				   "probe '%s'", t->u.target.global ?
				   t->u.target.global : elab_target_shown(t), pp->pp);
		else
			diag_error(e->diag, t->loc, "%s", err[0] ? err :
				   strerror(-r));
		return false;
	}
	t->slot = v.idx;
	t->type = v.type;
	t->u.target.typed = true;
	return true;
}
