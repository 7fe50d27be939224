// SPDX-License-Identifier: GPL-2.0
/*
 * Memory reads: user_string(), kernel_string(), user_long()... and their
 * _n forms, for the symbols pass.
 *
 * tapkit runs handlers in its own process, after the event, so it cannot
 * read the traced task's memory itself: the kernel must copy the memory
 * into the record as the event happens.  So a read is allowed only where
 * the address is known to the probe: a target variable of the handler's
 * probe, optionally plus or minus a constant (`user_string($filename)`,
 * `kernel_long($ptr + 8)`).  The provider's deref() arranges the copy
 * (prov_trace.c: an event probe on the tracepoint) and names the value
 * as a variable of its own; the call then gets that variable as one more
 * argument, after the address, which stays for stap's message when the
 * read faulted:
 *
 *	user_string($filename)  ->  user_string($filename, <read>)
 *
 * Everything else is a compile error that says what is needed.  The
 * elaborator never learns what kind of probe reads the memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/backend.h"
#include "lang/elab_pass.h"

/* The target variable @e names, with the constant added to it (+/-). */
static struct ast_expr *address_of(struct ast_expr *e, int64_t *off)
{
	struct ast_expr *l, *r;

	*off = 0;
	if (e->kind == AST_E_TARGET)
		return e;
	if (e->kind != AST_E_BINARY ||
	    (e->op != AST_OP_ADD && e->op != AST_OP_SUB))
		return NULL;
	l = e->u.bin.left;
	r = e->u.bin.right;
	if (l->kind == AST_E_TARGET && r->kind == AST_E_NUM) {
		*off = e->op == AST_OP_ADD ? r->u.num : (int64_t)(0 - (uint64_t)r->u.num);
		return l;
	}
	if (e->op == AST_OP_ADD && l->kind == AST_E_NUM &&
	    r->kind == AST_E_TARGET) {
		*off = l->u.num;
		return r;
	}
	return NULL;
}

static void mem_error(struct elab *e, const struct ast_expr *call,
		      const char *why)
{
	diag_error(e->diag, call->loc, "%s() reads memory only of a tracepoint "
		   "field ($name), through an event probe%s", call->u.call.name,
		   why);
}

/* The read as one more typed target of the provider (target()): the
 * value of @t's path is the address. */
static void typed_read(struct elab *e, struct elab_probe *p,
		       struct ast_expr *call, const struct builtin *b,
		       struct ast_expr *t, int64_t off)
{
	struct prov_probe *pp = p->pp;
	struct prov_target pt;
	struct prov_var out = { 0 };
	struct ast_expr *read;
	char err[512] = "";
	int r;

	if (!t->u.target.typed)		/* its own error was reported */
		return;
	if (elab_target_build(e, p, t, &pt, false) < 0)
		return;
	pt.deref = true;
	pt.deref_kind = (enum prov_mem)builtin_mem(b);
	pt.deref_off = off;
	pt.deref_fn = b->name;
	r = pp->prov->target(pp, &pt, &out, err, sizeof(err));
	elab_target_release(&pt);
	if (r < 0) {
		diag_error(e->diag, call->loc, "%s() cannot read at %s: %s",
			   b->name, elab_target_shown(t), err[0] ? err : strerror(-r));
		return;
	}
	read = ast_expr_new(AST_E_TARGET, call->loc);
	read->u.target.name = xasprintf("%s()", b->name);
	read->u.target.typed = true;
	read->slot = out.idx;
	read->type = out.type;
	AST_VEC_PUSH(&call->u.call.args, read);
}

void elab_mem_call(struct elab *e, struct elab_probe *p, struct ast_expr *call,
		   const struct builtin *b)
{
	struct ast_expr *arg = call->u.call.args.v[0], *t, *read;
	struct prov_probe *pp = p ? p->pp : NULL;
	struct prov_var v = { 0 }, out = { 0 };
	int64_t off;
	char why[256];

	if (!p) {
		mem_error(e, call, ", in a probe handler (not in a function)");
		return;
	}
	t = address_of(arg, &off);
	if (t && pp->prov->target) {
		typed_read(e, p, call, b, t, off);
		return;
	}
	if (!t || t->u.target.ncomps || t->u.target.addressof) {
		mem_error(e, call, "");
		return;
	}
	/* a variable the probe lacks was reported where it is used */
	if (!t->u.target.name || t->u.target.name[1] == '$' ||
	    !pp->prov->var || pp->prov->var(pp, t->u.target.name + 1, &v) < 0)
		return;
	if (!pp->prov->deref) {
		snprintf(why, sizeof(why), ": probe '%s' cannot read memory",
			 pp->pp);
		mem_error(e, call, why);
		return;
	}
	if (v.type != AST_T_LONG) {
		snprintf(why, sizeof(why), ": %s is a string", t->u.target.name);
		mem_error(e, call, why);
		return;
	}
	if (pp->prov->deref(pp, &v, off, (enum prov_mem)builtin_mem(b), b->name,
			    &out) < 0) {
		snprintf(why, sizeof(why), ": probe '%s' cannot read %s",
			 pp->pp, t->u.target.name);
		mem_error(e, call, why);
		return;
	}
	read = ast_expr_new(AST_E_TARGET, call->loc);
	read->u.target.name = xasprintf("$%s", out.name);
	read->slot = out.idx;
	read->type = out.type;
	AST_VEC_PUSH(&call->u.call.args, read);
}
