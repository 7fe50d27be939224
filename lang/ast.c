// SPDX-License-Identifier: GPL-2.0
/*
 * AST nodes: construction, destruction and deep copies.  Which children a
 * node has is known only to lang/walk.c (the walks and
 * ast_expr_children()); the -p1 printer is in ast_print.c.
 */
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

static int free_expr_slot(struct ast_expr **slot, void *ctx)
{
	(void)ctx;
	ast_expr_free(*slot);
	return 0;
}

static int free_stmt_slot(struct ast_stmt **slot, void *ctx)
{
	(void)ctx;
	ast_stmt_free(*slot);
	return 0;
}

/* The children go through ast_expr_children(); here, what a node owns
 * besides them: its strings and the arrays its child lists live in. */
void ast_expr_free(struct ast_expr *e)
{
	size_t i;

	if (!e)
		return;
	ast_expr_children(e, free_expr_slot, NULL);
	switch (e->kind) {
	case AST_E_STR:
	case AST_E_PERF:
		free(e->u.str.s);
		break;
	case AST_E_VAR:
		free(e->u.var.name);
		break;
	case AST_E_INDEX:
		free(e->u.index.args.v);
		break;
	case AST_E_CALL:
		free(e->u.call.name);
		free(e->u.call.args.v);
		break;
	case AST_E_PRINT:
		free(e->u.print.name);
		free(e->u.print.args.v);
		break;
	case AST_E_TARGET:
		free(e->u.target.name);
		free(e->u.target.cast_type);
		free(e->u.target.cast_module);
		free(e->u.target.global);
		free(e->u.target.raw_reg);
		for (i = 0; i < e->u.target.ncomps; i++)
			free(e->u.target.comps[i].name);
		free(e->u.target.comps);
		break;
	default:
		break;
	}
	free(e);
}

void ast_stmt_free(struct ast_stmt *s)
{
	if (!s)
		return;
	ast_stmt_children(s, free_expr_slot, free_stmt_slot, NULL);
	switch (s->kind) {
	case AST_S_BLOCK:
		free(s->u.block.v);
		break;
	case AST_S_FOREACH:
		free(s->u.foreach.keys.v);
		free(s->u.foreach.slice.v);
		break;
	case AST_S_TRY:
		free(s->u.try_.var);
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

/* @vec gets an array of its own (its elements still shared). */
#define VEC_DUP(vec) do {						\
	(vec)->cap = (vec)->n;						\
	(vec)->v = (vec)->n ?						\
		   memdup((vec)->v, (vec)->n * sizeof(*(vec)->v)) : NULL; \
} while (0)

static void *memdup(const void *p, size_t n)
{
	return memcpy(xmalloc(n), p, n);
}

static int clone_expr_slot(struct ast_expr **slot, void *ctx)
{
	(void)ctx;
	*slot = ast_expr_clone(*slot);
	return 0;
}

static int clone_stmt_slot(struct ast_stmt **slot, void *ctx)
{
	(void)ctx;
	*slot = ast_stmt_clone(*slot);
	return 0;
}

/* A shallow copy with its own strings and child arrays, whose children
 * ast_expr_children() then replaces by copies. */
struct ast_expr *ast_expr_clone(const struct ast_expr *e)
{
	struct ast_expr *c;
	size_t i;

	if (!e)
		return NULL;
	c = memdup(e, sizeof(*e));
	switch (e->kind) {
	case AST_E_STR:
	case AST_E_PERF:
		c->u.str.s = memdup(e->u.str.s, e->u.str.len + 1);
		break;
	case AST_E_VAR:
		c->u.var.name = xstrdup(e->u.var.name);
		break;
	case AST_E_INDEX:
		VEC_DUP(&c->u.index.args);
		break;
	case AST_E_CALL:
		c->u.call.name = xstrdup(e->u.call.name);
		VEC_DUP(&c->u.call.args);
		break;
	case AST_E_PRINT:
		c->u.print.name = xstrdup(e->u.print.name);
		VEC_DUP(&c->u.print.args);
		break;
	case AST_E_TARGET:
		c->u.target.name = dup_or_null(e->u.target.name);
		c->u.target.cast_type = dup_or_null(e->u.target.cast_type);
		c->u.target.cast_module = dup_or_null(e->u.target.cast_module);
		c->u.target.global = dup_or_null(e->u.target.global);
		c->u.target.raw_reg = dup_or_null(e->u.target.raw_reg);
		c->u.target.comps = e->u.target.ncomps ?
			memdup(e->u.target.comps, e->u.target.ncomps *
			       sizeof(*e->u.target.comps)) : NULL;
		for (i = 0; i < e->u.target.ncomps; i++)
			c->u.target.comps[i].name =
				dup_or_null(e->u.target.comps[i].name);
		break;
	default:
		break;
	}
	ast_expr_children(c, clone_expr_slot, NULL);
	return c;
}

struct ast_stmt *ast_stmt_clone(const struct ast_stmt *s)
{
	struct ast_stmt *c;

	if (!s)
		return NULL;
	c = memdup(s, sizeof(*s));
	switch (s->kind) {
	case AST_S_BLOCK:
		VEC_DUP(&c->u.block);
		break;
	case AST_S_FOREACH:
		VEC_DUP(&c->u.foreach.keys);
		VEC_DUP(&c->u.foreach.slice);
		break;
	case AST_S_TRY:
		c->u.try_.var = dup_or_null(s->u.try_.var);
		break;
	default:
		break;
	}
	ast_stmt_children(c, clone_expr_slot, clone_stmt_slot, NULL);
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
