// SPDX-License-Identifier: GPL-2.0
/*
 * @cast(...) made simple before a provider sees it.  stap's macros build
 * C's offsetof, sizeof and container_of from casts of constants:
 *
 *	&@cast(0, "T")->m		offsetof(T, m): a number
 *	&@cast(0, "T")[1]		sizeof(T): a number
 *	@defined(@cast(0, "T")->m)	whether T has m
 *	&@cast(x, "T")			x itself, once T is known
 *	@cast(x - N, "T")->f		x as the pointer, -N aside: the
 *					provider reads f at x - N + offset
 *
 * The layout comes from elab_opts.layout (the kernel's BTF, a program's
 * DWARF); the module is the cast's own, else the probe's object (a
 * process probe's program), else the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/tpath.h"
#include "lang/ast.h"
#include "lang/elab.h"
#include "lang/elab_pass.h"
#include "lang/provider.h"

#define report(e, quiet, ...) \
	do { if (!(quiet)) diag_error((e)->diag, __VA_ARGS__); } while (0)

/* The module @t's type is looked up in. */
static const char *module_of(const struct elab_probe *p,
			     const struct ast_expr *t)
{
	const struct prov_probe *pp = p ? p->pp : NULL;

	if (t->u.target.cast_module)
		return t->u.target.cast_module;
	if (pp && pp->prov->object && pp->prov->object(pp))
		return pp->prov->object(pp);
	return "kernel";
}

/* Ask the layout of @t's type along @path: 0, or -1 after an error. */
static int layout(struct elab *e, struct elab_probe *p, struct ast_expr *t,
		  const struct tpath *path, int64_t *value, bool quiet)
{
	const char *mod = module_of(p, t);
	char err[512] = "";
	int ret;

	if (!e->opts->layout) {
		report(e, quiet, t->loc, "@cast of a constant needs the "
		       "types of the kernel or a program, which this "
		       "program does not read");
		return -1;
	}
	ret = e->opts->layout(mod, t->u.target.cast_type, path, value, err,
			      sizeof(err));
	if (ret < 0 && t->u.target.base->kind == AST_E_NUM)
		report(e, quiet, t->loc, "@cast(%lld, \"%s\"): %s",
		       (long long)t->u.target.base->u.num, t->u.target.cast_type,
		       err[0] ? err : strerror(-ret));
	else if (ret < 0)
		report(e, quiet, t->loc, "@cast(..., \"%s\"): %s",
		       t->u.target.cast_type, err[0] ? err : strerror(-ret));
	return ret < 0 ? -1 : 0;
}

/* Fold @x in place where it is made of numbers (and casts of them):
 * 0, or -1 after an error. */
static int fold(struct elab *e, struct elab_probe *p, struct ast_expr *x,
		bool quiet)
{
	struct ast_expr *l, *r;
	int64_t v;

	switch (x->kind) {
	case AST_E_TARGET:
		return x->u.target.cast_type && elab_cast(e, p, x, quiet) < 0 ?
		       -1 : 0;
	case AST_E_UNARY:
		if (fold(e, p, x->u.unary.operand, quiet) < 0)
			return -1;
		l = x->u.unary.operand;
		if (l->kind != AST_E_NUM || x->op == AST_OP_NOT)
			return 0;
		v = x->op == AST_OP_NEG ? -l->u.num :
		    x->op == AST_OP_BNOT ? ~l->u.num : l->u.num;
		break;
	case AST_E_BINARY:
		if (fold(e, p, x->u.bin.left, quiet) < 0 ||
		    fold(e, p, x->u.bin.right, quiet) < 0)
			return -1;
		l = x->u.bin.left;
		r = x->u.bin.right;
		if (l->kind != AST_E_NUM || r->kind != AST_E_NUM)
			return 0;
		switch (x->op) {
		case AST_OP_ADD:
			v = (int64_t)((uint64_t)l->u.num + (uint64_t)r->u.num);
			break;
		case AST_OP_SUB:
			v = (int64_t)((uint64_t)l->u.num - (uint64_t)r->u.num);
			break;
		case AST_OP_MUL:
			v = (int64_t)((uint64_t)l->u.num * (uint64_t)r->u.num);
			break;
		default:
			return 0;
		}
		break;
	default:
		return 0;
	}
	l = ast_expr_new(AST_E_NUM, x->loc);
	l->u.num = v;
	elab_replace_expr(x, l);
	return 0;
}

/* @cast(N, "T")...: the address as a number, or (@quiet, no '&')
 * whether the member exists. */
static int cast_const(struct elab *e, struct elab_probe *p, struct ast_expr *t,
		      bool quiet)
{
	struct tstep *steps;
	struct tpath path;
	struct ast_expr *n;
	int64_t v = 0;
	int ret;

	if (elab_target_path(e, t, &path, &steps, quiet) < 0)
		return -1;
	path.off = t->u.target.base->u.num;
	if (path.pretty) {
		free(steps);
		report(e, quiet, t->loc, "@cast of a constant address cannot "
		       "be printed: no probe reads the memory there");
		return -1;
	}
	if (!path.addressof && quiet) {
		/* whether a member exists: its address is known for a
		 * struct as for a scalar (not for a bitfield: then its value) */
		path.addressof = true;
		ret = layout(e, p, t, &path, &v, true);
		path.addressof = false;
		if (ret == 0) {
			free(steps);
			return 1;
		}
	}
	ret = layout(e, p, t, &path, &v, quiet);
	free(steps);
	if (ret < 0)
		return -1;
	if (!path.addressof) {
		/* @defined() asks whether the member exists: it does */
		if (quiet)
			return 1;
		report(e, quiet, t->loc, "@cast of a constant address reads "
		       "memory no probe fetches: cast a pointer the probe "
		       "has ($var, register(), pointer_arg()), or take the "
		       "address with '&'");
		return -1;
	}
	n = ast_expr_new(AST_E_NUM, t->loc);
	n->u.num = v;
	elab_replace_expr(t, n);
	return 1;
}

int elab_cast(struct elab *e, struct elab_probe *p, struct ast_expr *t,
	      bool quiet)
{
	struct ast_expr *b;
	int64_t v;

	if (fold(e, p, t->u.target.base, quiet) < 0)
		return -1;
	b = t->u.target.base;
	if (b->kind == AST_E_NUM)
		return cast_const(e, p, t, quiet);
	if (t->u.target.addressof && !t->u.target.ncomps) {
		/* &@cast(x, "T"): x, once T is known */
		struct tpath path = { .addressof = true };

		if (layout(e, p, t, &path, &v, quiet) < 0)
			return -1;
		if (quiet)
			return 1;
		t->u.target.base = NULL;
		elab_replace_expr(t, b);
		return 1;
	}
	/* x + N, x - N, N + x: x is the pointer, N the cast's offset */
	while (b->kind == AST_E_BINARY &&
	       (b->op == AST_OP_ADD || b->op == AST_OP_SUB)) {
		struct ast_expr **keep;

		if (b->u.bin.right->kind == AST_E_NUM) {
			v = b->u.bin.right->u.num;
			t->u.target.cast_off += b->op == AST_OP_ADD ? v : -v;
			keep = &b->u.bin.left;
		} else if (b->u.bin.left->kind == AST_E_NUM &&
			   b->op == AST_OP_ADD) {
			t->u.target.cast_off += b->u.bin.left->u.num;
			keep = &b->u.bin.right;
		} else {
			break;
		}
		t->u.target.base = *keep;
		*keep = NULL;
		ast_expr_free(b);
		b = t->u.target.base;
	}
	return 0;
}

bool elab_cast_hoist(struct ast_expr *t)
{
	struct ast_expr *b = t->u.target.base;

	if (t->u.target.cast_type || t->u.target.name || t->u.target.global ||
	    !b || b->kind != AST_E_TARGET || !b->u.target.cast_type ||
	    !b->u.target.addressof || b->u.target.ncomps)
		return false;
	t->u.target.cast_type = b->u.target.cast_type;
	t->u.target.cast_module = b->u.target.cast_module;
	t->u.target.cast_off = b->u.target.cast_off;
	t->u.target.base = b->u.target.base;
	b->u.target.cast_type = b->u.target.cast_module = NULL;
	b->u.target.base = NULL;
	ast_expr_free(b);
	return true;
}
