// SPDX-License-Identifier: GPL-2.0
/*
 * The filters pass: a handler's leading condition offered to its
 * provider as a kernel filter (ftrace syntax), and with -c/-x a condition
 * on target() as the kernel's pid scope.  What the provider takes leaves
 * the handler; -p2 says what was applied and what was declined.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/elab_pass.h"
#include "lang/fmt_sb.h"

/* The user's body within a probe's, when no alias code surrounds it. */
static struct ast_stmt *user_body(const struct elab_probe *p)
{
	struct ast_stmt *b = p->body, *tail;

	if (b->kind != AST_S_BLOCK || b->u.block.n != 2)
		return NULL;
	tail = b->u.block.v[1];
	if (tail->kind != AST_S_BLOCK || tail->u.block.n)
		return NULL;
	return b->u.block.v[0]->kind == AST_S_BLOCK ? b->u.block.v[0] : NULL;
}

static bool call_is(const struct ast_expr *e, const char *name)
{
	return e->kind == AST_E_CALL && !e->u.call.args.n &&
	       !strcmp(e->u.call.name, name) && e->slot;
}

/* ftrace filter text for @e (negated when @neg); false if not expressible. */
static bool ftrace_expr(struct strbuf *sb, const struct ast_expr *e, bool neg)
{
	static const char *const ops[] = {
		[AST_OP_EQ] = "==", [AST_OP_NE] = "!=", [AST_OP_LT] = "<",
		[AST_OP_LE] = "<=", [AST_OP_GT] = ">", [AST_OP_GE] = ">=",
	};
	static const enum ast_op inv[] = {
		[AST_OP_EQ] = AST_OP_NE, [AST_OP_NE] = AST_OP_EQ,
		[AST_OP_LT] = AST_OP_GE, [AST_OP_LE] = AST_OP_GT,
		[AST_OP_GT] = AST_OP_LE, [AST_OP_GE] = AST_OP_LT,
	};
	const struct ast_expr *l, *r;
	enum ast_op op;

	switch (e->kind) {
	case AST_E_LOGICAL:
		fmt_sb_addc(sb, '(');
		if (!ftrace_expr(sb, e->u.bin.left, neg))
			return false;
		fmt_sb_addstr(sb, (e->op == AST_OP_LAND) != neg ? " && " :
			      " || ");
		if (!ftrace_expr(sb, e->u.bin.right, neg))
			return false;
		fmt_sb_addc(sb, ')');
		return true;
	case AST_E_UNARY:
		return e->op == AST_OP_NOT &&
		       ftrace_expr(sb, e->u.unary.operand, !neg);
	case AST_E_COMPARE:
		break;
	default:
		return false;
	}
	l = e->u.bin.left;
	r = e->u.bin.right;
	op = neg ? inv[e->op] : e->op;
	if (l->kind == AST_E_NUM || l->kind == AST_E_STR) {
		const struct ast_expr *x = l;

		l = r;
		r = x;
		op = op == AST_OP_LT ? AST_OP_GT : op == AST_OP_GT ? AST_OP_LT :
		     op == AST_OP_LE ? AST_OP_GE : op == AST_OP_GE ? AST_OP_LE :
		     op;
	}
	if (call_is(l, "tid"))
		fmt_sb_addstr(sb, "common_pid");
	else if (call_is(l, "execname"))	/* the task's: "comm" would be
						 * an event's own field of that
						 * name (signal_generate's) */
		fmt_sb_addstr(sb, "COMM");
	else if (l->kind == AST_E_TARGET && l->u.target.name &&
		 !l->u.target.raw && !l->u.target.ncomps &&
		 l->u.target.name[1] != '$')
		fmt_sb_addstr(sb, l->u.target.name + 1);
	else
		return false;
	fmt_sb_addf(sb, " %s ", ops[op]);
	if (r->kind == AST_E_NUM) {
		fmt_sb_addf(sb, "%lld", (long long)r->u.num);
		return true;
	}
	if (r->kind != AST_E_STR || (op != AST_OP_EQ && op != AST_OP_NE) ||
	    strpbrk(r->u.str.s, "\"\\*?[") || strlen(r->u.str.s) != r->u.str.len)
		return false;
	fmt_sb_addf(sb, "\"%s\"", r->u.str.s);
	return true;
}

static char *ftrace_filter(const struct ast_expr *cond, bool neg)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	if (!ftrace_expr(&sb, cond, neg)) {
		fmt_sb_release(&sb);
		return NULL;
	}
	s = xstrdup(fmt_sb_str(&sb));
	fmt_sb_release(&sb);
	return s;
}

static bool is_next(const struct ast_stmt *s)
{
	if (s && s->kind == AST_S_BLOCK && s->u.block.n == 1)
		s = s->u.block.v[0];
	return s && s->kind == AST_S_NEXT;
}

/* `pid() == target()` or `tid() == target()`, either way round, as the
 * condition to run (negated when @neg); else PROV_SCOPE_ALL. */
static enum prov_scope target_scope(const struct ast_expr *e, bool neg)
{
	const struct ast_expr *l, *r;

	if (e->kind != AST_E_COMPARE || e->op != (neg ? AST_OP_NE : AST_OP_EQ))
		return PROV_SCOPE_ALL;
	l = e->u.bin.left;
	r = e->u.bin.right;
	if (call_is(l, "target")) {
		l = r;
		r = e->u.bin.left;
	}
	if (!call_is(r, "target"))
		return PROV_SCOPE_ALL;
	return call_is(l, "pid") ? PROV_SCOPE_TARGET_PROCESS :
	       call_is(l, "tid") ? PROV_SCOPE_TARGET_THREAD : PROV_SCOPE_ALL;
}

/*
 * The condition to run (@e, negated when @neg) as its top-level conjuncts:
 * one on target() becomes *@scope, the others go to @rest in ftrace
 * syntax, joined by &&.  False when one of those is not expressible.
 */
static bool split_target(struct strbuf *rest, const struct ast_expr *e,
			 bool neg, enum prov_scope *scope)
{
	enum prov_scope s;
	bool l, r;

	if (e->kind == AST_E_LOGICAL && (e->op == AST_OP_LAND) != neg) {
		l = split_target(rest, e->u.bin.left, neg, scope);
		r = split_target(rest, e->u.bin.right, neg, scope);
		return l && r;
	}
	if (e->kind == AST_E_UNARY && e->op == AST_OP_NOT)
		return split_target(rest, e->u.unary.operand, !neg, scope);
	s = target_scope(e, neg);
	if (s != PROV_SCOPE_ALL && *scope == PROV_SCOPE_ALL) {
		*scope = s;
		return true;
	}
	if (*fmt_sb_str(rest))
		fmt_sb_addstr(rest, " && ");
	return ftrace_expr(rest, e, neg);
}

/* Remove the leading `if (C) next;` (@guard) or `if (C) { ... }` of @b. */
static void drop_condition(struct ast_stmt *b, struct ast_stmt *first, bool guard)
{
	if (guard) {
		memmove(b->u.block.v, b->u.block.v + 1,
			(b->u.block.n - 1) * sizeof(*b->u.block.v));
		b->u.block.n--;
	} else {
		b->u.block.v[0] = first->u.if_.then;
		first->u.if_.then = NULL;
	}
	ast_stmt_free(first);
}

/*
 * With -c or -x, a condition on target() limits the probe to the target's
 * process or thread, which the kernel does exactly (a tracefs instance's
 * set_event_pid); the rest of the condition must then be a filter too
 * for the whole condition to go.  Returns true when @p was scoped.
 */
static bool push_target(struct elab *e, struct elab_probe *p, struct ast_stmt *b,
			struct ast_stmt *first, bool guard)
{
	enum prov_scope scope = PROV_SCOPE_ALL;
	struct strbuf rest = STRBUF_INIT;
	const char *r;
	bool all;

	if (!e->opts->has_target || !p->pp->prov->scopes)
		return false;
	all = split_target(&rest, first->u.if_.cond, guard, &scope);
	if (scope == PROV_SCOPE_ALL) {
		fmt_sb_release(&rest);
		return false;
	}
	p->pp->scope = scope;
	r = fmt_sb_str(&rest);
	if (all && *r && p->pp->prov->filter && p->pp->prov->filter(p->pp, r) == 0) {
		p->cond_filter = xstrdup(r);
		free(p->pp->filter);
		p->pp->filter = xstrdup(r);
	} else if (*r) {
		all = false;	/* the target scope still narrows the events */
	}
	if (all) {
		p->cond_dropped = true;
		drop_condition(b, first, guard);
	}
	fmt_sb_release(&rest);
	return true;
}

/*
 * A handler starting with `if (C) next;` runs only when !C; one whose whole
 * body is `if (C) { ... }` only when C.  Offer that to the provider.
 */
int elab_pass_filters(struct elab *e)
{
	size_t i;

	for (i = 0; i < e->probes.n; i++) {
		struct elab_probe *p = e->probes.v[i];
		struct ast_stmt *b = user_body(p), *first;
		bool guard;

		if (!b || !b->u.block.n)
			continue;
		first = b->u.block.v[0];
		if (first->kind != AST_S_IF || first->u.if_.els)
			continue;
		guard = is_next(first->u.if_.then);
		if (!guard && b->u.block.n != 1)
			continue;
		if (push_target(e, p, b, first, guard))
			continue;
		p->cond_filter = ftrace_filter(first->u.if_.cond, guard);
		if (!p->cond_filter || !p->pp->prov->filter ||
		    p->pp->prov->filter(p->pp, p->cond_filter) < 0)
			continue;
		free(p->pp->filter);
		p->pp->filter = xstrdup(p->cond_filter);
		p->cond_dropped = true;
		drop_condition(b, first, guard);
	}
	return 0;
}
