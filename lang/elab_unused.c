// SPDX-License-Identifier: GPL-2.0
/*
 * Unused variables of tapset aliases, dropped as stap drops them: an
 * alias's prologue sets every variable stap documents (syscall.openat's
 * filename, flags, mode...), and a handler reads a few.  A statement of a
 * tapset file that only sets a local nothing in the probe reads is removed
 * before names are resolved, so what it would read is never fetched: a
 * user_string() an unused variable needs does not make the probe need
 * event probes, nor does an unused @entry() make an entry probe.
 *
 * Only tapset statements are dropped (our own tapsets set variables with
 * pure expressions); the script's own dead assignments stay.  Dropping one
 * may leave another unread (saddr = f(family) read family): repeated
 * until nothing changes.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/elab_pass.h"

struct reads {
	struct elab *e;
	struct { char *name; long n; } *v;	/* names copied: a dropped
						 * statement frees its own */
	size_t n, cap;
	bool changed;
};

static bool is_library(const struct elab *e, const struct diag_file *f)
{
	size_t i;

	for (i = 0; i < e->script->files.n; i++)
		if (e->script->files.v[i]->src == f)
			return e->script->files.v[i]->library;
	return false;
}

static bool is_global(const struct elab *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->script->globals.n; i++)
		if (!strcmp(e->script->globals.v[i]->name, name))
			return true;
	return false;
}

static long *count_of(struct reads *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return &r->v[i].n;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n].name = xstrdup(name);
	r->v[r->n].n = 0;
	return &r->v[r->n++].n;
}

/* The local a droppable statement sets, or NULL. */
static const char *dead_store(const struct elab *e, const struct ast_stmt *s)
{
	const struct ast_expr *x = s->kind == AST_S_EXPR ? s->u.expr : NULL;

	if (!x || x->kind != AST_E_ASSIGN || x->op != AST_OP_ASSIGN ||
	    x->u.bin.left->kind != AST_E_VAR || !is_library(e, s->loc.file) ||
	    is_global(e, x->u.bin.left->u.var.name))
		return NULL;
	return x->u.bin.left->u.var.name;
}

static int count_var(struct ast_expr *x, void *ctx)
{
	if (x->kind == AST_E_VAR)
		(*count_of(ctx, x->u.var.name))++;
	return 0;
}

/* Every name read; the left side of a droppable statement is no read. */
static int count_stmt(struct ast_stmt *s, void *ctx)
{
	struct reads *r = ctx;
	const char *name = dead_store(r->e, s);

	if (name)
		(*count_of(r, name))--;
	return 0;
}

static int drop_stmt(struct ast_stmt *s, void *ctx)
{
	struct reads *r = ctx;
	const char *name = dead_store(r->e, s);

	if (name && *count_of(r, name) == 0) {
		ast_expr_free(s->u.expr);
		s->u.expr = NULL;
		s->kind = AST_S_NULL;
		r->changed = true;	/* count again */
	}
	return 0;
}

void elab_drop_unused(struct elab *e, struct ast_stmt *body)
{
	struct reads r = { .e = e };
	struct ast_visitor count = { .expr = count_var, .stmt = count_stmt,
				     .ctx = &r };
	struct ast_visitor drop = { .stmt = drop_stmt, .ctx = &r };

	do {
		while (r.n)
			free(r.v[--r.n].name);
		r.changed = false;
		ast_walk_stmt(body, &count);
		ast_walk_stmt(body, &drop);
	} while (r.changed);
	while (r.n)
		free(r.v[--r.n].name);
	free(r.v);
}
