// SPDX-License-Identifier: GPL-2.0
/*
 * The one place that knows which children each kind of AST node has.
 *
 * ast_expr_children() and ast_stmt_children() hand over the slots of a
 * node's direct children in source order; everything that only needs to
 * reach every node is built on them: the walks below, and ast_expr_free()
 * and ast_expr_clone() in ast.c.  So a new node kind with children is
 * added to the two switches here once, and every traversal (the
 * elaborator's passes among them) reaches into it without another edit;
 * only the code that gives the kind a meaning (parsing, printing,
 * resolution, types, code generation) has to learn about it.
 */
#include <stdlib.h>

#include "lang/ast.h"

static int each_expr(struct ast_exprs *v, ast_expr_slot_fn fn, void *ctx)
{
	size_t i;
	int r;

	for (i = 0; i < v->n; i++)
		if (v->v[i] && (r = fn(&v->v[i], ctx)) < 0)
			return r;
	return 0;
}

/* @fn on each of the slots given (NULL: none) that holds a child; stop
 * at the first < 0. */
static int each(ast_expr_slot_fn fn, void *ctx, struct ast_expr **a,
		struct ast_expr **b, struct ast_expr **c)
{
	struct ast_expr **slots[3] = { a, b, c };
	int i, r;

	for (i = 0; i < 3; i++)
		if (slots[i] && *slots[i] && (r = fn(slots[i], ctx)) < 0)
			return r;
	return 0;
}

int ast_expr_children(struct ast_expr *e, ast_expr_slot_fn fn, void *ctx)
{
	size_t i;
	int r = 0;

	switch (e->kind) {
	case AST_E_NUM:
	case AST_E_STR:
	case AST_E_VAR:
	case AST_E_STAR:
	case AST_E_PERF:
		return 0;
	case AST_E_INDEX:
		r = each(fn, ctx, &e->u.index.base, NULL, NULL);
		return r ? r : each_expr(&e->u.index.args, fn, ctx);
	case AST_E_CALL:
		return each_expr(&e->u.call.args, fn, ctx);
	case AST_E_PRINT:
		r = each(fn, ctx, &e->u.print.fmt, NULL, NULL);
		return r ? r : each_expr(&e->u.print.args, fn, ctx);
	case AST_E_UNARY:
	case AST_E_CREMENT:
	case AST_E_DEFINED:
	case AST_E_ENTRY:
		return each(fn, ctx, &e->u.unary.operand, NULL, NULL);
	case AST_E_BINARY:
	case AST_E_CONCAT:
	case AST_E_COMPARE:
	case AST_E_LOGICAL:
	case AST_E_REGEX:
	case AST_E_ASSIGN:
		return each(fn, ctx, &e->u.bin.left, &e->u.bin.right, NULL);
	case AST_E_TERNARY:
		return each(fn, ctx, &e->u.ternary.cond, &e->u.ternary.then,
			    &e->u.ternary.els);
	case AST_E_IN:
		return each(fn, ctx, &e->u.in.index, NULL, NULL);
	case AST_E_TARGET:
		r = each(fn, ctx, &e->u.target.base, NULL, NULL);
		for (i = 0; !r && i < e->u.target.ncomps; i++)
			r = each(fn, ctx, &e->u.target.comps[i].index, NULL,
				 NULL);
		return r;
	case AST_E_STAT:
		return each(fn, ctx, &e->u.stat.operand, NULL, NULL);
	case AST_E_HIST:
		return each(fn, ctx, &e->u.hist.operand, NULL, NULL);
	case AST_E_COUNT_:
		break;
	}
	return 0;
}

static int each_stmt(struct ast_stmt **s, ast_stmt_slot_fn fn, void *ctx)
{
	return *s ? fn(s, ctx) : 0;
}

int ast_stmt_children(struct ast_stmt *s, ast_expr_slot_fn efn,
		      ast_stmt_slot_fn sfn, void *ctx)
{
	size_t i;
	int r = 0;

	switch (s->kind) {
	case AST_S_NULL:
	case AST_S_BREAK:
	case AST_S_CONTINUE:
	case AST_S_NEXT:
		return 0;
	case AST_S_BLOCK:
		for (i = 0; !r && i < s->u.block.n; i++)
			r = each_stmt(&s->u.block.v[i], sfn, ctx);
		return r;
	case AST_S_EXPR:
	case AST_S_RETURN:
	case AST_S_DELETE:
		return each(efn, ctx, &s->u.expr, NULL, NULL);
	case AST_S_IF:
		r = each(efn, ctx, &s->u.if_.cond, NULL, NULL);
		if (!r)
			r = each_stmt(&s->u.if_.then, sfn, ctx);
		return r ? r : each_stmt(&s->u.if_.els, sfn, ctx);
	case AST_S_WHILE:
	case AST_S_FOR:
		r = each(efn, ctx, &s->u.loop.init, &s->u.loop.cond,
			 &s->u.loop.incr);
		return r ? r : each_stmt(&s->u.loop.body, sfn, ctx);
	case AST_S_FOREACH:
		r = each(efn, ctx, &s->u.foreach.value, NULL, NULL);
		if (!r)
			r = each_expr(&s->u.foreach.keys, efn, ctx);
		if (!r)
			r = each(efn, ctx, &s->u.foreach.array, NULL, NULL);
		if (!r)
			r = each_expr(&s->u.foreach.slice, efn, ctx);
		if (!r)
			r = each(efn, ctx, &s->u.foreach.limit, NULL, NULL);
		return r ? r : each_stmt(&s->u.foreach.body, sfn, ctx);
	case AST_S_TRY:
		r = each_stmt(&s->u.try_.body, sfn, ctx);
		return r ? r : each_stmt(&s->u.try_.handler, sfn, ctx);
	case AST_S_COUNT_:
		break;
	}
	return 0;
}

/* ---- walks --------------------------------------------------------------- */

static int walk_expr_slot(struct ast_expr **slot, void *w)
{
	return ast_walk_expr(*slot, w);
}

static int walk_stmt_slot(struct ast_stmt **slot, void *w)
{
	return ast_walk_stmt(*slot, w);
}

int ast_walk_expr(struct ast_expr *e, const struct ast_visitor *w)
{
	int r;

	if (!e)
		return 0;
	if (w->expr) {
		r = w->expr(e, w->ctx);
		if (r < 0)
			return r;
		if (r > 0)
			return 0;
	}
	r = ast_expr_children(e, walk_expr_slot, (void *)w);
	if (r < 0)
		return r;
	return w->expr_post ? w->expr_post(e, w->ctx) : 0;
}

int ast_walk_stmt(struct ast_stmt *s, const struct ast_visitor *w)
{
	int r;

	if (!s)
		return 0;
	if (w->stmt) {
		r = w->stmt(s, w->ctx);
		if (r < 0)
			return r;
		if (r > 0)
			return 0;
	}
	r = ast_stmt_children(s, walk_expr_slot, walk_stmt_slot, (void *)w);
	if (r < 0)
		return r;
	return w->stmt_post ? w->stmt_post(s, w->ctx) : 0;
}

static int walk_pps(struct ast_pps *pps, const struct ast_visitor *w)
{
	size_t i, j;
	int r = 0;

	for (i = 0; !r && i < pps->n; i++) {
		for (j = 0; !r && j < pps->v[i]->ncomps; j++)
			r = ast_walk_expr(pps->v[i]->comps[j].arg, w);
		if (!r)
			r = ast_walk_expr(pps->v[i]->cond, w);
	}
	return r < 0 ? r : 0;
}

int ast_walk_script(struct ast_script *s, const struct ast_visitor *w)
{
	size_t i;
	int r = 0;

	for (i = 0; !r && i < s->globals.n; i++)
		r = ast_walk_expr(s->globals.v[i]->init, w);
	for (i = 0; !r && i < s->funcs.n; i++)
		r = ast_walk_stmt(s->funcs.v[i]->body, w);
	for (i = 0; !r && i < s->aliases.n; i++) {
		struct ast_alias *a = s->aliases.v[i];

		r = walk_pps(&a->names, w);
		if (!r)
			r = walk_pps(&a->pps, w);
		if (!r)
			r = ast_walk_stmt(a->body, w);
		if (!r)
			r = ast_walk_stmt(a->body2, w);
	}
	for (i = 0; !r && i < s->probes.n; i++) {
		r = walk_pps(&s->probes.v[i]->pps, w);
		if (!r)
			r = ast_walk_stmt(s->probes.v[i]->body, w);
	}
	return r;
}
