// SPDX-License-Identifier: GPL-2.0
/*
 * @entry(expr) in a return probe, for the symbols pass: the value expr had
 * when the function was entered (stap's semantics, and its way).
 *
 * tapkit's handlers run after the events, so the value is taken by a
 * probe at the entry: the provider's entry() makes one at the same
 * function(s), and it gets a handler of one statement,
 *
 *	__entry_N[tid()] = expr
 *
 * while the return handler reads __entry_N[tid()] in place of @entry(expr)
 * and forgets it when it ends.  The provider delivers a thread's entry
 * before its return (one ordered session), so the pair always matches;
 * recursion sees the innermost entry, as the thread's last one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "lang/elab_pass.h"

/* __entry_N[tid()] */
static struct ast_expr *slot_of(const char *global, struct diag_loc loc)
{
	struct ast_expr *ix = ast_expr_new(AST_E_INDEX, loc);
	struct ast_expr *tid = ast_expr_new(AST_E_CALL, loc);

	tid->u.call.name = xstrdup("tid");
	ix->u.index.base = ast_var(loc, global);
	AST_VEC_PUSH(&ix->u.index.args, tid);
	return ix;
}

int elab_entry(struct elab *e, struct elab_probe *p, struct ast_expr *at)
{
	struct prov_probe *pp = p ? p->pp : NULL;
	struct prov_probe *ep;
	struct ast_global *g;
	struct elab_probe *np;
	struct ast_stmt *s, *del;
	struct diag_loc loc = at->loc;
	char name[32];

	if (!pp || !pp->prov->entry || !(ep = pp->prov->entry(pp))) {
		diag_error(e->diag, loc, "@entry is only available in the return "
			   "probe of a function");
		return -1;
	}
	snprintf(name, sizeof(name), "__entry_%zu", e->script->globals.n);
	g = xcalloc(1, sizeof(*g));
	g->loc = loc;
	g->name = xstrdup(name);
	/* a return that never ran its handler to the end (next, a failed
	 * condition, an error) leaves its thread's value: the oldest go
	 * first rather than the array filling up */
	g->wrap = true;
	AST_VEC_PUSH(&e->script->globals, g);
	elab_find_global(e, name);

	/* the entry probe: __entry_N[tid()] = expr */
	s = ast_stmt_new(AST_S_EXPR, loc);
	s->u.expr = ast_binary(AST_E_ASSIGN, AST_OP_ASSIGN, loc,
			       slot_of(name, loc), at->u.unary.operand);
	at->u.unary.operand = NULL;
	np = xcalloc(1, sizeof(*np));
	np->pp = ep;
	np->src = p->src;
	np->entry = true;
	np->body = ast_stmt_new(AST_S_BLOCK, loc);
	AST_VEC_PUSH(&np->body->u.block, s);
	ep->id = (int)e->probes.n;
	AST_VEC_PUSH(&e->probes, np);	/* resolved later in the same pass */

	/* the return handler ends by forgetting it (added to the body once
	 * the walk over it is done: elab_resolve_probe()) */
	del = ast_stmt_new(AST_S_DELETE, loc);
	del->u.expr = slot_of(name, loc);
	AST_VEC_PUSH(&p->tail, del);

	elab_replace_expr(at, slot_of(name, loc));
	return 0;
}
