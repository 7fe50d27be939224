// SPDX-License-Identifier: GPL-2.0
/*
 * The types pass: type inference and format checks.
 *
 * Types are inferred as stap's semantic_pass_types() does: a pass over
 * every probe and reachable function assigns what it can (a variable gets
 * its type from the first place that tells), repeated until nothing
 * changes; then one last pass reports the mismatches at the use, and
 * what stayed unknown is "unresolved".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/backend.h"
#include "lang/elab_pass.h"

struct tctx {
	struct elab *e;
	struct elab_func *fn;		/* function being typed, or NULL */
	bool report;
	bool changed;
	struct ast_visitor walk;	/* over statements; ctx: this */
};

static enum ast_type infer(struct tctx *t, struct ast_expr *e);

static const char *tname(enum ast_type ty)
{
	return ast_type_str(ty);
}

static void mismatch(struct tctx *t, struct diag_loc loc, enum ast_type want,
		     enum ast_type found)
{
	if (t->report)
		diag_error(t->e->diag, loc, "type mismatch: expected %s but "
			   "found %s", tname(want), tname(found));
}

static void set_sym(struct tctx *t, struct elab_sym *s, enum ast_type ty,
		    struct diag_loc loc)
{
	if (!s || ty == AST_T_UNKNOWN)
		return;
	if (s->type == AST_T_UNKNOWN) {
		s->type = ty;
		t->changed = true;
	} else if (s->type != ty && t->report) {
		diag_error(t->e->diag, loc, "type mismatch for '%s': expected "
			   "%s but found %s", s->name, tname(s->type),
			   tname(ty));
		diag_note(t->e->diag, s->loc, "'%s' was first used here",
			  s->name);
	}
}

/* Tell @e (a variable, an element, a call...) that its type is @ty. */
static void set_type(struct tctx *t, struct ast_expr *e, enum ast_type ty)
{
	struct elab_func *f;

	if (ty == AST_T_UNKNOWN)
		return;
	switch (e->kind) {
	case AST_E_VAR:
	case AST_E_INDEX:
		if (e->kind == AST_E_INDEX &&
		    e->u.index.base->kind == AST_E_HIST)
			break;
		set_sym(t, elab_expr_sym(e), ty, e->loc);
		break;
	case AST_E_CALL:
		f = e->slot ? NULL : e->sym;
		if (f && f->type == AST_T_UNKNOWN) {
			f->type = ty;
			t->changed = true;
		}
		break;
	case AST_E_TERNARY:
		set_type(t, e->u.ternary.then, ty);
		set_type(t, e->u.ternary.els, ty);
		break;
	case AST_E_ASSIGN:
		if (e->op == AST_OP_ASSIGN) {
			set_type(t, e->u.bin.left, ty);
			set_type(t, e->u.bin.right, ty);
		}
		break;
	default:
		break;
	}
}

/* The type of @e used as a value: statistics are not values. */
static enum ast_type value(struct tctx *t, struct ast_expr *e)
{
	enum ast_type ty = infer(t, e);

	if (ty == AST_T_STATS && t->report)
		diag_error(t->e->diag, e->loc, "statistic used as a value: read "
			   "it with @count, @sum, @min, @max or @avg");
	return ty;
}

/* @e must be of type @want. */
static void expect(struct tctx *t, struct ast_expr *e, enum ast_type want)
{
	enum ast_type ty = value(t, e);

	if (ty == AST_T_UNKNOWN)
		set_type(t, e, want);
	else if (ty != want && ty != AST_T_STATS)
		mismatch(t, e->loc, want, ty);
}

/* Two expressions of one type (==, ?:, =). */
static enum ast_type unify(struct tctx *t, struct ast_expr *a,
			   struct ast_expr *b, struct diag_loc loc)
{
	enum ast_type ta = value(t, a), tb = value(t, b);

	if (ta == AST_T_UNKNOWN && tb != AST_T_UNKNOWN)
		set_type(t, a, tb);
	else if (tb == AST_T_UNKNOWN && ta != AST_T_UNKNOWN)
		set_type(t, b, ta);
	else if (ta != tb && ta != AST_T_STATS && tb != AST_T_STATS)
		mismatch(t, loc, ta, tb);
	return ta != AST_T_UNKNOWN ? ta : tb;
}

static void key_types(struct tctx *t, struct elab_sym *s,
		      struct ast_exprs *args)
{
	size_t i;

	for (i = 0; i < args->n && i < MAP_MAX_KEYS; i++) {
		struct ast_expr *k = args->v[i];
		enum ast_type ty;

		if (k->kind == AST_E_STAR)
			continue;
		ty = value(t, k);
		if (!s)
			continue;
		if (s->keys[i] == AST_T_UNKNOWN && ty != AST_T_UNKNOWN) {
			s->keys[i] = ty;
			t->changed = true;
		} else if (ty == AST_T_UNKNOWN) {
			set_type(t, k, s->keys[i]);
		} else if (ty != s->keys[i]) {
			mismatch(t, k->loc, s->keys[i], ty);
		}
	}
}

/* A statistic operand (VAR or INDEX): make its symbol a statistic. */
static struct elab_sym *stat_operand(struct tctx *t, struct ast_expr *op)
{
	struct elab_sym *s = elab_expr_sym(op);

	if (op->kind == AST_E_INDEX)
		key_types(t, s, &op->u.index.args);
	if (!s || (op->kind != AST_E_VAR && op->kind != AST_E_INDEX)) {
		if (t->report)
			diag_error(t->e->diag, op->loc, "expected a statistic "
				   "variable or array element");
		return NULL;
	}
	set_sym(t, s, AST_T_STATS, op->loc);
	return s;
}

static void infer_hist(struct tctx *t, struct ast_expr *e)
{
	struct elab_sym *s = stat_operand(t, e->u.hist.operand);
	enum stat_hist kind = e->u.hist.kind == AST_HIST_LOG ?
			      STAT_HIST_LOG : STAT_HIST_LINEAR;

	if (!s)
		return;
	if (!s->hist_set) {
		s->hist_set = true;
		s->hist = kind;
		memcpy(s->hist_params, e->u.hist.params,
		       sizeof(s->hist_params));
		return;
	}
	if (t->report && (s->hist != kind ||
	    (kind == STAT_HIST_LINEAR &&
	     memcmp(s->hist_params, e->u.hist.params,
		    sizeof(s->hist_params)))))
		diag_error(t->e->diag, e->loc, "inconsistent histogram for "
			   "'%s': each statistic has one kind of histogram",
			   s->name);
}

static void check_format(struct tctx *t, struct ast_expr *e)
{
	enum fmt_type types[FMT_MAX_ARGS];
	const char *fmt = e->u.print.fmt->u.str.s;
	char err[128];
	size_t i, n = e->u.print.args.n;
	int nslots = fmt_parse(fmt, types, FMT_MAX_ARGS, err, sizeof(err));

	if (nslots < 0) {
		for (i = 0; i < n; i++)
			value(t, e->u.print.args.v[i]);
		if (t->report)
			diag_error(t->e->diag, e->u.print.fmt->loc, "%s", err);
		return;
	}
	if ((size_t)nslots != n) {
		for (i = 0; i < n; i++)
			value(t, e->u.print.args.v[i]);
		if (t->report)
			diag_error(t->e->diag, e->loc, "%s", FMT_ERR_NARGS);
		return;
	}
	for (i = 0; i < n; i++)
		expect(t, e->u.print.args.v[i],
		       i < FMT_MAX_ARGS && types[i] == FMT_STRING ?
		       AST_T_STRING : AST_T_LONG);
}

static enum ast_type infer_print(struct tctx *t, struct ast_expr *e)
{
	unsigned fl = e->u.print.flags;
	size_t i;

	if (e->u.print.args.n > FMT_MAX_ARGS && t->report)
		diag_error(t->e->diag, e->loc, "too many arguments to print "
			   "(%zu)", e->u.print.args.n);
	if (fl & AST_PRINT_FORMAT) {
		check_format(t, e);
	} else {
		for (i = 0; i < e->u.print.args.n; i++) {
			struct ast_expr *a = e->u.print.args.v[i];

			if (a->kind == AST_E_HIST)
				infer_hist(t, a);
			else
				value(t, a);
		}
	}
	return fl & AST_PRINT_TOSTR ? AST_T_STRING : AST_T_LONG;
}

static enum ast_type infer_call(struct tctx *t, struct ast_expr *e)
{
	struct ast_exprs *args = &e->u.call.args;
	size_t i;

	if (e->slot) {
		const struct builtin *b = &builtin_table[e->slot - 1];

		for (i = 0; i < args->n; i++)
			if ((int)i < b->nargs)
				expect(t, args->v[i], b->args[i]);
		return b->ret;
	}
	if (e->sym) {
		struct elab_func *f = e->sym;

		for (i = 0; i < args->n && i < f->nparams; i++) {
			struct elab_sym *p = f->locals[i];
			enum ast_type ty = value(t, args->v[i]);

			if (ty == AST_T_UNKNOWN)
				set_type(t, args->v[i], p->type);
			else if (p->type == AST_T_UNKNOWN)
				set_sym(t, p, ty, args->v[i]->loc);
			else if (p->type != ty)
				mismatch(t, args->v[i]->loc, p->type, ty);
		}
		return f->type;
	}
	return AST_T_UNKNOWN;
}

static enum ast_type infer_assign(struct tctx *t, struct ast_expr *e)
{
	struct ast_expr *l = e->u.bin.left, *r = e->u.bin.right;
	enum ast_type tl;

	if (l->kind == AST_E_INDEX)
		key_types(t, elab_expr_sym(l), &l->u.index.args);
	switch (e->op) {
	case AST_OP_ASSIGN:
		tl = elab_expr_sym(l) ? elab_expr_sym(l)->type : AST_T_UNKNOWN;
		if (tl == AST_T_STATS) {
			value(t, r);
			if (t->report)
				diag_error(t->e->diag, e->op_loc, "a statistic "
					   "is fed with <<<, not assigned");
			return AST_T_LONG;
		}
		if (tl != AST_T_UNKNOWN && elab_expr_sym(l)) {
			enum ast_type tr = value(t, r);

			if (tr == AST_T_UNKNOWN)
				set_type(t, r, tl);
			else if (tr != AST_T_STATS)
				set_sym(t, elab_expr_sym(l), tr, e->op_loc);
			return tl;
		}
		return unify(t, l, r, e->op_loc);
	case AST_OP_CONCAT_ASSIGN:
		expect(t, l, AST_T_STRING);
		expect(t, r, AST_T_STRING);
		return AST_T_STRING;
	case AST_OP_STAT_ADD:
		stat_operand(t, l);
		expect(t, r, AST_T_LONG);
		return AST_T_LONG;
	default:
		expect(t, l, AST_T_LONG);
		expect(t, r, AST_T_LONG);
		return AST_T_LONG;
	}
}

static enum ast_type infer(struct tctx *t, struct ast_expr *e)
{
	struct elab_sym *s;
	enum ast_type ty;

	switch (e->kind) {
	case AST_E_NUM:
		return e->type = AST_T_LONG;
	case AST_E_STR:
		return e->type = AST_T_STRING;
	case AST_E_VAR:
		s = e->sym;
		return e->type = s ? s->type : AST_T_UNKNOWN;
	case AST_E_INDEX:
		if (e->u.index.base->kind == AST_E_HIST) {
			infer_hist(t, e->u.index.base);
			expect(t, e->u.index.args.v[0], AST_T_LONG);
			return e->type = AST_T_LONG;
		}
		s = e->sym;
		key_types(t, s, &e->u.index.args);
		return e->type = s ? s->type : AST_T_UNKNOWN;
	case AST_E_CALL:
		return e->type = infer_call(t, e);
	case AST_E_PRINT:
		return e->type = infer_print(t, e);
	case AST_E_UNARY:
	case AST_E_CREMENT:
		expect(t, e->u.unary.operand, AST_T_LONG);
		return e->type = AST_T_LONG;
	case AST_E_BINARY:
	case AST_E_LOGICAL:
		expect(t, e->u.bin.left, AST_T_LONG);
		expect(t, e->u.bin.right, AST_T_LONG);
		return e->type = AST_T_LONG;
	case AST_E_CONCAT:
		expect(t, e->u.bin.left, AST_T_STRING);
		expect(t, e->u.bin.right, AST_T_STRING);
		return e->type = AST_T_STRING;
	case AST_E_REGEX:
		expect(t, e->u.bin.left, AST_T_STRING);
		return e->type = AST_T_LONG;
	case AST_E_COMPARE:
		ty = unify(t, e->u.bin.left, e->u.bin.right, e->op_loc);
		e->u.bin.left->type = e->u.bin.right->type = ty;
		return e->type = AST_T_LONG;
	case AST_E_ASSIGN:
		return e->type = infer_assign(t, e);
	case AST_E_TERNARY:
		expect(t, e->u.ternary.cond, AST_T_LONG);
		return e->type = unify(t, e->u.ternary.then, e->u.ternary.els,
				       e->u.ternary.then->loc);
	case AST_E_IN:
		key_types(t, elab_expr_sym(e->u.in.index),
			  &e->u.in.index->u.index.args);
		return e->type = AST_T_LONG;
	case AST_E_TARGET:
		if (e->u.target.ncomps == 1 && !e->u.target.typed)
			expect(t, e->u.target.comps[0].index, AST_T_LONG);
		return e->type;
	case AST_E_STAT:
		if ((s = stat_operand(t, e->u.stat.operand)) &&
		    e->u.stat.op == AST_STAT_VARIANCE) {
			if (s->variance && t->report &&
			    s->bit_shift != e->u.stat.params[0])
				diag_error(t->e->diag, e->loc, "inconsistent "
					   "@variance bit shift for '%s'",
					   s->name);
			s->variance = true;
			s->bit_shift = (int)e->u.stat.params[0];
		}
		return e->type = AST_T_LONG;
	case AST_E_HIST:
		infer_hist(t, e);
		if (t->report)
			diag_error(t->e->diag, e->loc, "a histogram can only be "
				   "printed or indexed");
		return AST_T_LONG;
	default:
		return AST_T_UNKNOWN;
	}
}

static void infer_foreach(struct tctx *t, struct ast_stmt *s)
{
	struct ast_expr *arr = s->u.foreach.array;
	struct elab_sym *a;
	size_t i;

	if (arr->kind == AST_E_HIST) {
		infer_hist(t, arr);
		for (i = 0; i < s->u.foreach.keys.n; i++)
			expect(t, s->u.foreach.keys.v[i], AST_T_LONG);
		if (s->u.foreach.value)
			expect(t, s->u.foreach.value, AST_T_LONG);
	} else if ((a = arr->sym)) {
		key_types(t, a, &s->u.foreach.keys);
		key_types(t, a, &s->u.foreach.slice);
		if (s->u.foreach.value) {
			if (a->type == AST_T_STATS && t->report)
				diag_error(t->e->diag, s->u.foreach.value->loc,
					   "the values of statistic array '%s' "
					   "are read with @count, @sum...",
					   a->name);
			else
				unify(t, s->u.foreach.value, arr,
				      s->u.foreach.value->loc);
		}
	}
	if (s->u.foreach.limit)
		expect(t, s->u.foreach.limit, AST_T_LONG);
}

static void infer_return(struct tctx *t, struct ast_stmt *s)
{
	enum ast_type ty;

	if (!s->u.expr || !t->fn)
		return;
	ty = value(t, s->u.expr);
	if (ty == AST_T_UNKNOWN) {
		set_type(t, s->u.expr, t->fn->type);
	} else if (t->fn->type == AST_T_UNKNOWN) {
		t->fn->type = ty;
		t->changed = true;
	} else if (t->fn->type != ty) {
		mismatch(t, s->u.expr->loc, t->fn->type, ty);
	}
}

/*
 * The walk over statements: each types its own expressions with infer()
 * (whose switch is the logic of this pass, so expressions are not walked)
 * before the walk goes on to the statements inside it.
 */
static int infer_stmt(struct ast_stmt *s, void *ctx)
{
	struct tctx *t = ctx;

	switch (s->kind) {
	case AST_S_EXPR:
		infer(t, s->u.expr);
		return 1;
	case AST_S_IF:
		expect(t, s->u.if_.cond, AST_T_LONG);
		return 0;
	case AST_S_WHILE:
	case AST_S_FOR:
		if (s->u.loop.init)
			infer(t, s->u.loop.init);
		if (s->u.loop.cond)
			expect(t, s->u.loop.cond, AST_T_LONG);
		if (s->u.loop.incr)
			infer(t, s->u.loop.incr);
		return 0;
	case AST_S_FOREACH:
		infer_foreach(t, s);
		return 0;
	case AST_S_RETURN:
		infer_return(t, s);
		return 1;
	case AST_S_DELETE:
		if (s->u.expr->kind == AST_E_INDEX)
			key_types(t, elab_expr_sym(s->u.expr),
				  &s->u.expr->u.index.args);
		return 1;
	case AST_S_TRY:
		ast_walk_stmt(s->u.try_.body, &t->walk);
		if (s->aux)
			set_sym(t, s->aux, AST_T_STRING, s->u.try_.var_loc);
		ast_walk_stmt(s->u.try_.handler, &t->walk);
		return 1;
	default:
		return 0;
	}
}

/* Expressions are infer()'s: the statement walk does not enter them. */
static int skip_expr(struct ast_expr *e, void *ctx)
{
	(void)e;
	(void)ctx;
	return 1;
}

static void pass(struct tctx *t)
{
	struct elab *e = t->e;
	size_t i;

	for (i = 0; i < e->funcs.n; i++) {
		struct elab_func *f = e->funcs.v[i];

		if (!f->used)
			continue;
		t->fn = f;
		ast_walk_stmt(f->decl->body, &t->walk);
	}
	t->fn = NULL;
	for (i = 0; i < e->probes.n; i++)
		ast_walk_stmt(e->probes.v[i]->body, &t->walk);
}

static void unresolved(struct elab *e, struct elab_sym **v, size_t n,
		       const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i]->type == AST_T_UNKNOWN)
			diag_error(e->diag, v[i]->loc, "unresolved type for %s "
				   "'%s'", what, v[i]->name);
}

int elab_pass_types(struct elab *e)
{
	struct tctx t = { .e = e };
	unsigned errs = diag_errors(e->diag);
	int rounds = 0;
	size_t i, k;

	t.walk = (struct ast_visitor){ .expr = skip_expr, .stmt = infer_stmt,
				       .ctx = &t };
	do {
		t.changed = false;
		pass(&t);
	} while (t.changed && ++rounds < 100);
	t.report = true;
	pass(&t);
	for (i = 0; i < e->probes.n; i++)
		unresolved(e, e->probes.v[i]->locals, e->probes.v[i]->nlocals,
			   "local");
	for (i = 0; i < e->funcs.n; i++) {
		struct elab_func *f = e->funcs.v[i];

		if (!f->used)
			continue;
		unresolved(e, f->locals, f->nparams, "parameter");
		if (f->nlocals > f->nparams)	/* (no locals: no array) */
			unresolved(e, f->locals + f->nparams,
				   f->nlocals - f->nparams, "local");
		if (f->type == AST_T_UNKNOWN)
			f->type = AST_T_LONG;	/* no value returned */
	}
	for (i = 0; i < e->globals.n; i++) {
		struct elab_sym *g = e->globals.v[i];

		if (!g->used)
			continue;
		if (g->nkeys < 0)
			g->nkeys = 0;
		if (g->type == AST_T_UNKNOWN)
			diag_error(e->diag, g->loc, "unresolved type for global "
				   "'%s'", g->name);
		for (k = 0; k < (size_t)g->nkeys; k++)
			if (g->keys[k] == AST_T_UNKNOWN)
				diag_error(e->diag, g->loc, "unresolved type "
					   "for index %zu of array '%s'", k + 1,
					   g->name);
		if (g->decl && g->decl->init && g->nkeys > 0)
			diag_error(e->diag, g->loc, "array '%s' cannot have an "
				   "initializer", g->name);
	}
	return diag_errors(e->diag) == errs ? 0 : -EINVAL;
}
