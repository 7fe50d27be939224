// SPDX-License-Identifier: GPL-2.0
/*
 * AST nodes: construction, destruction, deep copies and walks.  The -p1
 * printer is in ast_print.c.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/ast.h"

static const char *const op_str[AST_OP_COUNT_] = {
	[AST_OP_NONE] = "",
	[AST_OP_ADD] = "+", [AST_OP_SUB] = "-", [AST_OP_MUL] = "*",
	[AST_OP_DIV] = "/", [AST_OP_MOD] = "%", [AST_OP_SHL] = "<<",
	[AST_OP_SHR] = ">>", [AST_OP_BAND] = "&", [AST_OP_BOR] = "|",
	[AST_OP_BXOR] = "^", [AST_OP_CONCAT] = ".",
	[AST_OP_EQ] = "==", [AST_OP_NE] = "!=", [AST_OP_LT] = "<",
	[AST_OP_LE] = "<=", [AST_OP_GT] = ">", [AST_OP_GE] = ">=",
	[AST_OP_LAND] = "&&", [AST_OP_LOR] = "||",
	[AST_OP_MATCH] = "=~", [AST_OP_NOMATCH] = "!~",
	[AST_OP_NEG] = "-", [AST_OP_PLUS] = "+", [AST_OP_NOT] = "!",
	[AST_OP_BNOT] = "~",
	[AST_OP_PREINC] = "++", [AST_OP_PREDEC] = "--",
	[AST_OP_POSTINC] = "++", [AST_OP_POSTDEC] = "--",
	[AST_OP_ASSIGN] = "=", [AST_OP_ADD_ASSIGN] = "+=",
	[AST_OP_SUB_ASSIGN] = "-=", [AST_OP_MUL_ASSIGN] = "*=",
	[AST_OP_DIV_ASSIGN] = "/=", [AST_OP_MOD_ASSIGN] = "%=",
	[AST_OP_SHL_ASSIGN] = "<<=", [AST_OP_SHR_ASSIGN] = ">>=",
	[AST_OP_AND_ASSIGN] = "&=", [AST_OP_XOR_ASSIGN] = "^=",
	[AST_OP_OR_ASSIGN] = "|=", [AST_OP_CONCAT_ASSIGN] = ".=",
	[AST_OP_STAT_ADD] = "<<<",
};

static const char *const ekind_str[AST_E_COUNT_] = {
	[AST_E_NUM] = "AST_E_NUM", [AST_E_STR] = "AST_E_STR",
	[AST_E_VAR] = "AST_E_VAR", [AST_E_INDEX] = "AST_E_INDEX",
	[AST_E_STAR] = "AST_E_STAR", [AST_E_CALL] = "AST_E_CALL",
	[AST_E_PRINT] = "AST_E_PRINT", [AST_E_UNARY] = "AST_E_UNARY",
	[AST_E_CREMENT] = "AST_E_CREMENT", [AST_E_BINARY] = "AST_E_BINARY",
	[AST_E_CONCAT] = "AST_E_CONCAT", [AST_E_COMPARE] = "AST_E_COMPARE",
	[AST_E_LOGICAL] = "AST_E_LOGICAL", [AST_E_REGEX] = "AST_E_REGEX",
	[AST_E_ASSIGN] = "AST_E_ASSIGN", [AST_E_TERNARY] = "AST_E_TERNARY",
	[AST_E_IN] = "AST_E_IN", [AST_E_TARGET] = "AST_E_TARGET",
	[AST_E_DEFINED] = "AST_E_DEFINED", [AST_E_ENTRY] = "AST_E_ENTRY",
	[AST_E_PERF] = "AST_E_PERF", [AST_E_STAT] = "AST_E_STAT",
	[AST_E_HIST] = "AST_E_HIST",
};

const char *ast_op_str(enum ast_op op)
{
	return (unsigned)op < AST_OP_COUNT_ ? op_str[op] : "?";
}

const char *ast_ekind_str(enum ast_ekind k)
{
	return (unsigned)k < AST_E_COUNT_ ? ekind_str[k] : "?";
}

const char *ast_type_str(enum ast_type t)
{
	switch (t) {
	case AST_T_LONG: return "long";
	case AST_T_STRING: return "string";
	case AST_T_STATS: return "stats";
	default: return "unknown";
	}
}

const char *ast_stat_str(enum ast_stat s)
{
	switch (s) {
	case AST_STAT_COUNT: return "count";
	case AST_STAT_SUM: return "sum";
	case AST_STAT_MIN: return "min";
	case AST_STAT_MAX: return "max";
	case AST_STAT_AVG: return "avg";
	case AST_STAT_VARIANCE: return "variance";
	default: return "";
	}
}

/* ---------------------------------------------------------------- */
/* Construction                                                      */

struct ast_script *ast_script_new(void)
{
	return xcalloc(1, sizeof(struct ast_script));
}

struct ast_expr *ast_expr_new(enum ast_ekind kind, struct diag_loc loc)
{
	struct ast_expr *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	e->loc = e->op_loc = loc;
	return e;
}

struct ast_stmt *ast_stmt_new(enum ast_skind kind, struct diag_loc loc)
{
	struct ast_stmt *s = xcalloc(1, sizeof(*s));

	s->kind = kind;
	s->loc = loc;
	return s;
}

struct ast_expr *ast_num(struct diag_loc loc, int64_t v)
{
	struct ast_expr *e = ast_expr_new(AST_E_NUM, loc);

	e->u.num = v;
	return e;
}

struct ast_expr *ast_str(struct diag_loc loc, const char *s, size_t len)
{
	struct ast_expr *e = ast_expr_new(AST_E_STR, loc);

	e->u.str.s = xmalloc(len + 1);
	memcpy(e->u.str.s, s, len);
	e->u.str.s[len] = '\0';
	e->u.str.len = len;
	return e;
}

struct ast_expr *ast_var(struct diag_loc loc, const char *name)
{
	struct ast_expr *e = ast_expr_new(AST_E_VAR, loc);

	e->u.var.name = xstrdup(name);
	return e;
}

struct ast_expr *ast_binary(enum ast_ekind kind, enum ast_op op,
			    struct diag_loc op_loc, struct ast_expr *l,
			    struct ast_expr *r)
{
	struct ast_expr *e = ast_expr_new(kind, l ? l->loc : op_loc);

	e->op = op;
	e->op_loc = op_loc;
	e->u.bin.left = l;
	e->u.bin.right = r;
	return e;
}

/* ---------------------------------------------------------------- */
/* Destruction                                                       */

static void exprs_free(struct ast_exprs *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		ast_expr_free(v->v[i]);
	free(v->v);
}

void ast_expr_free(struct ast_expr *e)
{
	size_t i;

	if (!e)
		return;
	switch (e->kind) {
	case AST_E_STR:
	case AST_E_PERF:
		free(e->u.str.s);
		break;
	case AST_E_VAR:
		free(e->u.var.name);
		break;
	case AST_E_INDEX:
		ast_expr_free(e->u.index.base);
		exprs_free(&e->u.index.args);
		break;
	case AST_E_CALL:
		free(e->u.call.name);
		exprs_free(&e->u.call.args);
		break;
	case AST_E_PRINT:
		free(e->u.print.name);
		ast_expr_free(e->u.print.fmt);
		exprs_free(&e->u.print.args);
		break;
	case AST_E_UNARY:
	case AST_E_CREMENT:
	case AST_E_DEFINED:
	case AST_E_ENTRY:
		ast_expr_free(e->u.unary.operand);
		break;
	case AST_E_BINARY:
	case AST_E_CONCAT:
	case AST_E_COMPARE:
	case AST_E_LOGICAL:
	case AST_E_REGEX:
	case AST_E_ASSIGN:
		ast_expr_free(e->u.bin.left);
		ast_expr_free(e->u.bin.right);
		break;
	case AST_E_TERNARY:
		ast_expr_free(e->u.ternary.cond);
		ast_expr_free(e->u.ternary.then);
		ast_expr_free(e->u.ternary.els);
		break;
	case AST_E_IN:
		ast_expr_free(e->u.in.index);
		break;
	case AST_E_TARGET:
		free(e->u.target.name);
		ast_expr_free(e->u.target.base);
		for (i = 0; i < e->u.target.ncomps; i++) {
			free(e->u.target.comps[i].name);
			ast_expr_free(e->u.target.comps[i].index);
		}
		free(e->u.target.comps);
		break;
	case AST_E_STAT:
		ast_expr_free(e->u.stat.operand);
		break;
	case AST_E_HIST:
		ast_expr_free(e->u.hist.operand);
		break;
	default:
		break;
	}
	free(e);
}

static void stmts_free(struct ast_stmts *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		ast_stmt_free(v->v[i]);
	free(v->v);
}

void ast_stmt_free(struct ast_stmt *s)
{
	if (!s)
		return;
	switch (s->kind) {
	case AST_S_BLOCK:
		stmts_free(&s->u.block);
		break;
	case AST_S_EXPR:
	case AST_S_RETURN:
	case AST_S_DELETE:
		ast_expr_free(s->u.expr);
		break;
	case AST_S_IF:
		ast_expr_free(s->u.if_.cond);
		ast_stmt_free(s->u.if_.then);
		ast_stmt_free(s->u.if_.els);
		break;
	case AST_S_WHILE:
	case AST_S_FOR:
		ast_expr_free(s->u.loop.init);
		ast_expr_free(s->u.loop.cond);
		ast_expr_free(s->u.loop.incr);
		ast_stmt_free(s->u.loop.body);
		break;
	case AST_S_FOREACH:
		ast_expr_free(s->u.foreach.value);
		exprs_free(&s->u.foreach.keys);
		ast_expr_free(s->u.foreach.array);
		exprs_free(&s->u.foreach.slice);
		ast_expr_free(s->u.foreach.limit);
		ast_stmt_free(s->u.foreach.body);
		break;
	case AST_S_TRY:
		ast_stmt_free(s->u.try_.body);
		free(s->u.try_.var);
		ast_stmt_free(s->u.try_.handler);
		break;
	default:
		break;
	}
	free(s);
}

void ast_pp_free(struct ast_pp *pp)
{
	size_t i;

	if (!pp)
		return;
	for (i = 0; i < pp->ncomps; i++) {
		free(pp->comps[i].name);
		ast_expr_free(pp->comps[i].arg);
	}
	free(pp->comps);
	ast_expr_free(pp->cond);
	free(pp);
}

static void pps_free(struct ast_pps *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		ast_pp_free(v->v[i]);
	free(v->v);
}

void ast_probe_free(struct ast_probe *p)
{
	if (!p)
		return;
	pps_free(&p->pps);
	ast_stmt_free(p->body);
	free(p);
}

void ast_alias_free(struct ast_alias *a)
{
	if (!a)
		return;
	pps_free(&a->names);
	pps_free(&a->pps);
	ast_stmt_free(a->body);
	ast_stmt_free(a->body2);
	free(a);
}

void ast_global_free(struct ast_global *g)
{
	if (!g)
		return;
	free(g->name);
	ast_expr_free(g->init);
	free(g);
}

void ast_func_free(struct ast_func *f)
{
	size_t i;

	if (!f)
		return;
	free(f->name);
	for (i = 0; i < f->nparams; i++)
		free(f->params[i].name);
	free(f->params);
	ast_stmt_free(f->body);
	free(f);
}

void ast_script_free(struct ast_script *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->files.n; i++)
		free(s->files.v[i]);
	free(s->files.v);
	for (i = 0; i < s->probes.n; i++)
		ast_probe_free(s->probes.v[i]);
	free(s->probes.v);
	for (i = 0; i < s->aliases.n; i++)
		ast_alias_free(s->aliases.v[i]);
	free(s->aliases.v);
	for (i = 0; i < s->globals.n; i++)
		ast_global_free(s->globals.v[i]);
	free(s->globals.v);
	for (i = 0; i < s->funcs.n; i++)
		ast_func_free(s->funcs.v[i]);
	free(s->funcs.v);
	free(s);
}

/* ---------------------------------------------------------------- */
/* Deep copies                                                       */

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void exprs_clone(struct ast_exprs *dst, const struct ast_exprs *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++)
		AST_VEC_PUSH(dst, ast_expr_clone(src->v[i]));
}

struct ast_expr *ast_expr_clone(const struct ast_expr *e)
{
	struct ast_expr *c;
	size_t i;

	if (!e)
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *e;
	switch (e->kind) {
	case AST_E_STR:
	case AST_E_PERF:
		c->u.str.s = xmalloc(e->u.str.len + 1);
		memcpy(c->u.str.s, e->u.str.s, e->u.str.len + 1);
		break;
	case AST_E_VAR:
		c->u.var.name = xstrdup(e->u.var.name);
		break;
	case AST_E_INDEX:
		c->u.index.base = ast_expr_clone(e->u.index.base);
		exprs_clone(&c->u.index.args, &e->u.index.args);
		break;
	case AST_E_CALL:
		c->u.call.name = xstrdup(e->u.call.name);
		exprs_clone(&c->u.call.args, &e->u.call.args);
		break;
	case AST_E_PRINT:
		c->u.print.name = xstrdup(e->u.print.name);
		c->u.print.fmt = ast_expr_clone(e->u.print.fmt);
		exprs_clone(&c->u.print.args, &e->u.print.args);
		break;
	case AST_E_UNARY:
	case AST_E_CREMENT:
	case AST_E_DEFINED:
	case AST_E_ENTRY:
		c->u.unary.operand = ast_expr_clone(e->u.unary.operand);
		break;
	case AST_E_BINARY:
	case AST_E_CONCAT:
	case AST_E_COMPARE:
	case AST_E_LOGICAL:
	case AST_E_REGEX:
	case AST_E_ASSIGN:
		c->u.bin.left = ast_expr_clone(e->u.bin.left);
		c->u.bin.right = ast_expr_clone(e->u.bin.right);
		break;
	case AST_E_TERNARY:
		c->u.ternary.cond = ast_expr_clone(e->u.ternary.cond);
		c->u.ternary.then = ast_expr_clone(e->u.ternary.then);
		c->u.ternary.els = ast_expr_clone(e->u.ternary.els);
		break;
	case AST_E_IN:
		c->u.in.index = ast_expr_clone(e->u.in.index);
		break;
	case AST_E_TARGET:
		c->u.target.name = dup_or_null(e->u.target.name);
		c->u.target.base = ast_expr_clone(e->u.target.base);
		c->u.target.comps = e->u.target.ncomps ?
			xcalloc(e->u.target.ncomps, sizeof(struct ast_tcomp)) :
			NULL;
		for (i = 0; i < e->u.target.ncomps; i++) {
			const struct ast_tcomp *tc = &e->u.target.comps[i];

			c->u.target.comps[i] = *tc;
			c->u.target.comps[i].name = dup_or_null(tc->name);
			c->u.target.comps[i].index = ast_expr_clone(tc->index);
		}
		break;
	case AST_E_STAT:
		c->u.stat.operand = ast_expr_clone(e->u.stat.operand);
		break;
	case AST_E_HIST:
		c->u.hist.operand = ast_expr_clone(e->u.hist.operand);
		break;
	default:
		break;
	}
	return c;
}

struct ast_stmt *ast_stmt_clone(const struct ast_stmt *s)
{
	struct ast_stmt *c;
	size_t i;

	if (!s)
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *s;
	switch (s->kind) {
	case AST_S_BLOCK:
		memset(&c->u.block, 0, sizeof(c->u.block));
		for (i = 0; i < s->u.block.n; i++)
			AST_VEC_PUSH(&c->u.block,
				     ast_stmt_clone(s->u.block.v[i]));
		break;
	case AST_S_EXPR:
	case AST_S_RETURN:
	case AST_S_DELETE:
		c->u.expr = ast_expr_clone(s->u.expr);
		break;
	case AST_S_IF:
		c->u.if_.cond = ast_expr_clone(s->u.if_.cond);
		c->u.if_.then = ast_stmt_clone(s->u.if_.then);
		c->u.if_.els = ast_stmt_clone(s->u.if_.els);
		break;
	case AST_S_WHILE:
	case AST_S_FOR:
		c->u.loop.init = ast_expr_clone(s->u.loop.init);
		c->u.loop.cond = ast_expr_clone(s->u.loop.cond);
		c->u.loop.incr = ast_expr_clone(s->u.loop.incr);
		c->u.loop.body = ast_stmt_clone(s->u.loop.body);
		break;
	case AST_S_FOREACH:
		c->u.foreach.value = ast_expr_clone(s->u.foreach.value);
		exprs_clone(&c->u.foreach.keys, &s->u.foreach.keys);
		c->u.foreach.array = ast_expr_clone(s->u.foreach.array);
		exprs_clone(&c->u.foreach.slice, &s->u.foreach.slice);
		c->u.foreach.limit = ast_expr_clone(s->u.foreach.limit);
		c->u.foreach.body = ast_stmt_clone(s->u.foreach.body);
		break;
	case AST_S_TRY:
		c->u.try_.body = ast_stmt_clone(s->u.try_.body);
		c->u.try_.var = dup_or_null(s->u.try_.var);
		c->u.try_.handler = ast_stmt_clone(s->u.try_.handler);
		break;
	default:
		break;
	}
	return c;
}

struct ast_pp *ast_pp_clone(const struct ast_pp *pp)
{
	struct ast_pp *c;
	size_t i;

	if (!pp)
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *pp;
	c->comps = pp->ncomps ? xcalloc(pp->ncomps, sizeof(*c->comps)) : NULL;
	for (i = 0; i < pp->ncomps; i++) {
		c->comps[i].name = xstrdup(pp->comps[i].name);
		c->comps[i].arg = ast_expr_clone(pp->comps[i].arg);
		c->comps[i].loc = pp->comps[i].loc;
	}
	c->cond = ast_expr_clone(pp->cond);
	return c;
}

/* ---------------------------------------------------------------- */
/* Walks                                                             */

static int walk_exprs(struct ast_exprs *v, const struct ast_visitor *w)
{
	size_t i;
	int r;

	for (i = 0; i < v->n; i++)
		if ((r = ast_walk_expr(v->v[i], w)) < 0)
			return r;
	return 0;
}

/* Walk each of the @n expressions given; stop at the first < 0. */
static int walk_each(const struct ast_visitor *w, int n, ...)
{
	va_list ap;
	int r = 0;

	va_start(ap, n);
	while (n-- > 0 && r >= 0)
		r = ast_walk_expr(va_arg(ap, struct ast_expr *), w);
	va_end(ap);
	return r < 0 ? r : 0;
}

int ast_walk_expr(struct ast_expr *e, const struct ast_visitor *w)
{
	size_t i;
	int r = 0;

	if (!e)
		return 0;
	if (w->expr) {
		r = w->expr(e, w->ctx);
		if (r < 0)
			return r;
		if (r > 0)
			return 0;
	}
	switch (e->kind) {
	case AST_E_INDEX:
		r = walk_each(w, 1, e->u.index.base);
		if (!r)
			r = walk_exprs(&e->u.index.args, w);
		break;
	case AST_E_CALL:
		r = walk_exprs(&e->u.call.args, w);
		break;
	case AST_E_PRINT:
		r = walk_each(w, 1, e->u.print.fmt);
		if (!r)
			r = walk_exprs(&e->u.print.args, w);
		break;
	case AST_E_UNARY:
	case AST_E_CREMENT:
	case AST_E_DEFINED:
	case AST_E_ENTRY:
		r = walk_each(w, 1, e->u.unary.operand);
		break;
	case AST_E_BINARY:
	case AST_E_CONCAT:
	case AST_E_COMPARE:
	case AST_E_LOGICAL:
	case AST_E_REGEX:
	case AST_E_ASSIGN:
		r = walk_each(w, 2, e->u.bin.left, e->u.bin.right);
		break;
	case AST_E_TERNARY:
		r = walk_each(w, 3, e->u.ternary.cond, e->u.ternary.then,
			      e->u.ternary.els);
		break;
	case AST_E_IN:
		r = walk_each(w, 1, e->u.in.index);
		break;
	case AST_E_TARGET:
		r = walk_each(w, 1, e->u.target.base);
		for (i = 0; !r && i < e->u.target.ncomps; i++)
			r = walk_each(w, 1, e->u.target.comps[i].index);
		break;
	case AST_E_STAT:
		r = walk_each(w, 1, e->u.stat.operand);
		break;
	case AST_E_HIST:
		r = walk_each(w, 1, e->u.hist.operand);
		break;
	default:
		break;
	}
	if (r < 0)
		return r;
	return w->expr_post ? w->expr_post(e, w->ctx) : 0;
}

int ast_walk_stmt(struct ast_stmt *s, const struct ast_visitor *w)
{
	size_t i;
	int r = 0;

	if (!s)
		return 0;
	if (w->stmt) {
		r = w->stmt(s, w->ctx);
		if (r < 0)
			return r;
		if (r > 0)
			return 0;
	}
	switch (s->kind) {
	case AST_S_BLOCK:
		for (i = 0; !r && i < s->u.block.n; i++)
			r = ast_walk_stmt(s->u.block.v[i], w);
		break;
	case AST_S_EXPR:
	case AST_S_RETURN:
	case AST_S_DELETE:
		r = walk_each(w, 1, s->u.expr);
		break;
	case AST_S_IF:
		r = walk_each(w, 1, s->u.if_.cond);
		if (!r)
			r = ast_walk_stmt(s->u.if_.then, w);
		if (!r)
			r = ast_walk_stmt(s->u.if_.els, w);
		break;
	case AST_S_WHILE:
	case AST_S_FOR:
		r = walk_each(w, 3, s->u.loop.init, s->u.loop.cond,
			      s->u.loop.incr);
		if (!r)
			r = ast_walk_stmt(s->u.loop.body, w);
		break;
	case AST_S_FOREACH:
		r = walk_each(w, 1, s->u.foreach.value);
		if (!r)
			r = walk_exprs(&s->u.foreach.keys, w);
		if (!r)
			r = walk_each(w, 1, s->u.foreach.array);
		if (!r)
			r = walk_exprs(&s->u.foreach.slice, w);
		if (!r)
			r = walk_each(w, 1, s->u.foreach.limit);
		if (!r)
			r = ast_walk_stmt(s->u.foreach.body, w);
		break;
	case AST_S_TRY:
		r = ast_walk_stmt(s->u.try_.body, w);
		if (!r)
			r = ast_walk_stmt(s->u.try_.handler, w);
		break;
	default:
		break;
	}
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
