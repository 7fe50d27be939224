// SPDX-License-Identifier: GPL-2.0
/*
 * The counting pass: handlers that only count, counted by the kernel.
 *
 * `probe syscall.* { c[name]++ }` needs no record per event: the kernel's
 * perf_event counting mode can keep one count per probe, and the script
 * only ever sees the sums.  A handler qualifies when, after alias
 * expansion, it is nothing but
 *
 *	assignments of pure expressions to locals   (an alias's prologue:
 *	                                             name = "read", argstr = $$parms)
 *	one increment of a long global             (g++, ++g, g += 1, or g[k]++
 *	                                             with k pp() or a local the
 *	                                             prologue set to a string)
 *
 * and its provider can count (struct provider.counts).  Such a probe is
 * marked with the global and the key; the provider counts it instead of
 * recording it, and its handler never runs.
 *
 * The script must still see the same values.  Every probe whose handler
 * reads or writes a counted global (end probes, timers, the display of
 * globals at the end) is marked `sync`: before it runs, the providers add
 * what their counters gained since the last sync to the globals
 * (run_global_add()).  When such a probe fires per event itself (a
 * provider that can count is one whose probes do), nothing is counted:
 * reading every counter per record would cost more than it saves.
 * Adding deltas, rather than storing totals, keeps `delete c` and
 * `c[k] = 0` in those handlers meaning what they mean.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/elab_pass.h"

struct flat {
	struct ast_stmt **v;
	size_t n, cap;
};

static void flatten(struct ast_stmt *s, struct flat *out)
{
	size_t i;

	if (!s)
		return;
	if (s->kind == AST_S_BLOCK) {
		for (i = 0; i < s->u.block.n; i++)
			flatten(s->u.block.v[i], out);
		return;
	}
	if (s->kind == AST_S_NULL)
		return;
	AST_VEC_PUSH(out, s);
}

/* No call, no assignment, nothing that can fail but a fetch. */
static bool pure(const struct ast_expr *e)
{
	size_t i;

	switch (e->kind) {
	case AST_E_NUM:
	case AST_E_STR:
	case AST_E_TARGET:
		return true;
	case AST_E_VAR:
		return ((struct elab_sym *)e->sym) &&
		       ((struct elab_sym *)e->sym)->kind == ELAB_LOCAL;
	case AST_E_UNARY:
		return pure(e->u.unary.operand);
	case AST_E_BINARY:
		/* '/' and '%' can raise "division by 0" */
		return e->op != AST_OP_DIV && e->op != AST_OP_MOD &&
		       pure(e->u.bin.left) && pure(e->u.bin.right);
	case AST_E_CONCAT:
	case AST_E_COMPARE:
	case AST_E_LOGICAL:
		return pure(e->u.bin.left) && pure(e->u.bin.right);
	case AST_E_TERNARY:
		return pure(e->u.ternary.cond) && pure(e->u.ternary.then) &&
		       pure(e->u.ternary.els);
	case AST_E_PRINT:	/* sprintf("...", ...): $$parms becomes one */
		if (!(e->u.print.flags & AST_PRINT_TOSTR))
			return false;
		for (i = 0; i < e->u.print.args.n; i++)
			if (!pure(e->u.print.args.v[i]))
				return false;
		return true;
	default:
		return false;
	}
}

static bool is_local_set(const struct ast_stmt *s)
{
	const struct ast_expr *x = s->kind == AST_S_EXPR ? s->u.expr : NULL;
	const struct elab_sym *l;

	if (!x || x->kind != AST_E_ASSIGN || x->op != AST_OP_ASSIGN ||
	    x->u.bin.left->kind != AST_E_VAR)
		return false;
	l = x->u.bin.left->sym;
	return l && l->kind == ELAB_LOCAL && pure(x->u.bin.right);
}

/* The string constant local @l was last set to before statement @upto. */
static const char *local_const(struct flat *f, size_t upto, const struct elab_sym *l)
{
	const char *v = NULL;
	size_t i;

	for (i = 0; i < upto; i++) {
		const struct ast_expr *x = f->v[i]->u.expr;

		if (x->u.bin.left->sym != l)
			continue;
		v = x->u.bin.right->kind == AST_E_STR &&
		    strlen(x->u.bin.right->u.str.s) == x->u.bin.right->u.str.len ?
		    x->u.bin.right->u.str.s : NULL;
	}
	return v;
}

static bool call_is(const struct ast_expr *e, const char *name)
{
	return e->kind == AST_E_CALL && !e->u.call.args.n &&
	       !strcmp(e->u.call.name, name);
}

/* The counted global of @p's handler and its key (NULL: unkeyed). */
static struct elab_sym *count_plan(struct elab_probe *p, const char **key)
{
	struct flat f = { 0 };
	const struct ast_expr *x, *lv, *k;
	struct elab_sym *g = NULL;
	size_t i;

	flatten(p->body, &f);
	if (!f.n)
		goto out;
	for (i = 0; i + 1 < f.n; i++)
		if (!is_local_set(f.v[i])) {
			goto out;
		}
	if (f.v[f.n - 1]->kind != AST_S_EXPR)
		goto out;
	x = f.v[f.n - 1]->u.expr;
	if (x->kind == AST_E_CREMENT &&
	    (x->op == AST_OP_PREINC || x->op == AST_OP_POSTINC))
		lv = x->u.unary.operand;
	else if (x->kind == AST_E_ASSIGN && x->op == AST_OP_ADD_ASSIGN &&
		 x->u.bin.right->kind == AST_E_NUM && x->u.bin.right->u.num == 1)
		lv = x->u.bin.left;
	else
		goto out;
	g = elab_expr_sym(lv);
	if (!g || g->kind != ELAB_GLOBAL || g->type != AST_T_LONG) {
		g = NULL;
		goto out;
	}
	*key = NULL;
	if (lv->kind == AST_E_VAR && g->nkeys == 0)
		goto out;
	g = NULL;
	if (lv->kind != AST_E_INDEX || lv->u.index.args.n != 1)
		goto out;
	k = lv->u.index.args.v[0];
	if (call_is(k, "pp"))
		*key = p->pp->pp;
	else if (k->kind == AST_E_VAR && k->sym &&
		 ((struct elab_sym *)k->sym)->kind == ELAB_LOCAL)
		*key = local_const(&f, f.n - 1, k->sym);
	else if (k->kind == AST_E_STR && strlen(k->u.str.s) == k->u.str.len)
		*key = k->u.str.s;
	if (*key)
		g = elab_expr_sym(lv);
out:
	free(f.v);
	return g;
}

struct uses {
	const bool *counted;	/* by global index */
	size_t n;
	bool found;
};

static int find_counted(struct ast_expr *x, void *ctx)
{
	struct uses *u = ctx;
	const struct elab_sym *s = x->kind == AST_E_VAR ? x->sym : NULL;

	if (s && s->kind == ELAB_GLOBAL && s->index >= 0 &&
	    (size_t)s->index < u->n && u->counted[s->index]) {
		u->found = true;
		return 1;
	}
	return 0;
}

static bool uses_counted(const bool *counted, size_t n, struct ast_stmt *body)
{
	struct uses u = { counted, n, false };
	struct ast_visitor v = { .expr = find_counted, .ctx = &u };

	ast_walk_stmt(body, &v);
	return u.found;
}

static bool uses_counted_in_funcs(struct elab *e, const bool *counted)
{
	size_t i;

	for (i = 0; i < e->funcs.n; i++)
		if (e->funcs.v[i]->used &&
		    uses_counted(counted, e->globals.n, e->funcs.v[i]->decl->body))
			return true;
	return false;
}

/* Everything back to records: no probe counted, none synced. */
static void undo_counting(struct elab *e)
{
	size_t i;

	for (i = 0; i < e->probes.n; i++) {
		struct prov_probe *pp = e->probes.v[i]->pp;

		pp->count_global = -1;
		free(pp->count_key);
		pp->count_key = NULL;
		pp->sync = false;
	}
}

/* Whether @prov would count more of @e's probes than it can (count_max). */
static bool over_count_max(struct elab *e, const struct provider *prov)
{
	size_t i, n = 0;

	if (!prov->count_max)
		return false;
	for (i = 0; i < e->probes.n; i++) {
		struct elab_probe *p = e->probes.v[i];
		const char *key;

		if (p->pp->prov == prov && !p->synthetic &&
		    p->pp->state == PROV_RUNNING && count_plan(p, &key))
			n++;
	}
	return n > prov->count_max;
}

int elab_pass_counting(struct elab *e)
{
	bool *counted = xcalloc(e->globals.n + 1, sizeof(bool)), any = false, funcs;
	const struct provider *over = NULL, *fine = NULL;
	size_t i;

	for (i = 0; i < e->probes.n; i++) {
		struct elab_probe *p = e->probes.v[i];
		const struct provider *prov = p->pp->prov;
		const char *key = NULL;
		struct elab_sym *g;

		if (p->synthetic || !prov->counts || p->pp->state != PROV_RUNNING)
			continue;
		if (prov->count_max && prov != over && prov != fine) {
			if (over_count_max(e, prov))
				over = prov;
			else
				fine = prov;
		}
		if (prov == over)
			continue;
		g = count_plan(p, &key);
		if (!g)
			continue;
		p->pp->count_global = g->index;
		p->pp->count_key = key ? xstrdup(key) : NULL;
		if (g->index >= 0 && (size_t)g->index < e->globals.n)
			counted[g->index] = true;
		any = true;
	}
	if (any) {
		/* a function reading the global may run from any handler */
		funcs = uses_counted_in_funcs(e, counted);
		for (i = 0; i < e->probes.n; i++) {
			struct elab_probe *p = e->probes.v[i];

			if (p->pp->count_global < 0)
				p->pp->sync = funcs ||
					uses_counted(counted, e->globals.n, p->body);
			/* a sync per event (reading every counter) would cost
			 * more than the records counting saves */
			if (p->pp->sync && p->pp->prov->counts)
				any = false;
		}
	}
	if (!any)
		undo_counting(e);
	free(counted);
	return 0;
}
