// SPDX-License-Identifier: GPL-2.0
/*
 * The symbols pass: names resolved to locals, globals, functions and
 * built-ins in every probe body, and through the calls in every function
 * reached (marked used; the others are never typed nor compiled).
 *
 * A name is a local of its probe or function unless a global of that
 * name is declared; an unknown function loads the tapsets once and is
 * looked up again.  Arrays must be globals with one arity everywhere.
 * Constructs tapkit lacks are reported here: built-ins marked
 * unsupported, @entry, @perf, and memory reads the probe cannot make
 * (elab_mem.c).  $$vars becomes the sprintf() stap would build.
 *
 * The AST is annotated in place: ast_expr.sym (a struct elab_sym * for
 * names, a struct elab_func * for calls), ast_expr.slot (a built-in's
 * id + 1, a target variable's index), ast_stmt.aux (a catch variable).
 * Locals are numbered in the order of their first use, so the walk keeps
 * source order: where a construct's parts are resolved in another order
 * than the walk's, its callback walks them itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/backend.h"
#include "lang/elab_pass.h"

struct scope {
	struct elab *e;
	struct { struct elab_sym **v; size_t n, cap; } locals;
	struct elab_func *fn;		/* resolving a function body */
	struct elab_probe *probe;	/* resolving a probe body */
	struct ast_visitor walk;	/* ctx: this scope */
};

static void resolve_expr(struct scope *sc, struct ast_expr *e)
{
	ast_walk_expr(e, &sc->walk);
}

static void resolve_stmt(struct scope *sc, struct ast_stmt *s)
{
	ast_walk_stmt(s, &sc->walk);
}

static struct elab_sym *new_local(struct scope *sc, const char *name,
				  struct diag_loc loc)
{
	struct elab_sym *s = elab_sym_new(ELAB_LOCAL, name, loc);

	s->nkeys = 0;
	s->index = (int)sc->locals.n;
	AST_VEC_PUSH(&sc->locals, s);
	return s;
}

static struct elab_sym *find_local(struct scope *sc, const char *name)
{
	size_t i;

	for (i = 0; i < sc->locals.n; i++)
		if (!strcmp(sc->locals.v[i]->name, name))
			return sc->locals.v[i];
	return NULL;
}

/* Resolving the body of a tapset's function or of a tapset's own probe
 * (not an alias's prologue: that is the script's probe). */
static bool in_tapset(const struct scope *sc)
{
	return sc->fn ? sc->fn->decl->library :
	       sc->probe && sc->probe->src && sc->probe->src->library;
}

static struct elab_sym *lookup(struct scope *sc, const char *name,
			       struct diag_loc loc)
{
	struct elab_sym *s;

	if ((s = find_local(sc, name)))
		return s;
	/* a tapset's function or own probe sees the tapsets' globals, not
	 * the script's: its names are not the script's globals */
	if ((s = elab_find_global_in(sc->e, name, in_tapset(sc)))) {
		s->used = true;
		return s;
	}
	return new_local(sc, name, loc);
}

static void set_arity(struct scope *sc, struct elab_sym *s, int n,
		      struct diag_loc loc)
{
	if (s->nkeys < 0) {
		s->nkeys = n;
		return;
	}
	if (s->nkeys == n)
		return;
	if (s->nkeys == 0)
		diag_error(sc->e->diag, loc, "'%s' is a scalar: it cannot be "
			   "indexed", s->name);
	else if (n == 0)
		diag_error(sc->e->diag, loc, "array '%s' used as a scalar "
			   "(it has %d index%s)", s->name, s->nkeys,
			   s->nkeys == 1 ? "" : "es");
	else
		diag_error(sc->e->diag, loc, "inconsistent arity for array "
			   "'%s': %d index%s here, %d elsewhere", s->name, n,
			   n == 1 ? "" : "es", s->nkeys);
}

/* A name used as an array: it must be a global. */
static struct elab_sym *array_sym(struct scope *sc, struct ast_expr *base,
				  int nkeys)
{
	struct elab_sym *s;

	if (base->kind != AST_E_VAR) {
		diag_error(sc->e->diag, base->loc, "expected an array name");
		return NULL;
	}
	/* no local is an array: a name neither a local nor a global yet may
	 * be a tapset's global (a macro library's @this1 is one), as in stap */
	if (!sc->e->tapsets_loaded && !find_local(sc, base->u.var.name) &&
	    !elab_find_global(sc->e, base->u.var.name))
		elab_load_tapsets(sc->e);
	s = lookup(sc, base->u.var.name, base->loc);
	base->sym = s;
	if (s->kind != ELAB_GLOBAL) {
		diag_error(sc->e->diag, base->loc, "array locals not supported, "
			   "missing global declaration for '%s'?", s->name);
		return NULL;
	}
	if (nkeys > MAP_MAX_KEYS)
		diag_error(sc->e->diag, base->loc, "too many indexes for '%s' "
			   "(%d, at most %d)", s->name, nkeys, MAP_MAX_KEYS);
	else
		set_arity(sc, s, nkeys, base->loc);
	return s;
}

static void resolve_exprs(struct scope *sc, struct ast_exprs *v, bool star)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (v->v[i]->kind == AST_E_STAR) {
			if (!star)
				diag_error(sc->e->diag, v->v[i]->loc, "'*' is "
					   "only allowed in delete, in and "
					   "foreach slices");
			continue;
		}
		resolve_expr(sc, v->v[i]);
	}
}

/* An indexed array a[k...] (or a histogram bucket @hist_log(x)[i]). */
static void resolve_index(struct scope *sc, struct ast_expr *e, bool star)
{
	struct ast_expr *base = e->u.index.base;

	resolve_exprs(sc, &e->u.index.args, star);
	if (base->kind == AST_E_HIST) {
		resolve_expr(sc, base);
		if (e->u.index.args.n != 1)
			diag_error(sc->e->diag, e->loc, "a histogram takes "
				   "one bucket index");
		return;
	}
	e->sym = array_sym(sc, base, (int)e->u.index.args.n);
}

static void resolve_func(struct elab *e, struct elab_func *f);

/* The handler (or function) being resolved calls a built-in that reads
 * the callchain: its probe records one (prov_probe.stacks).  What a
 * function passes on to its callers is settled once every body is
 * resolved (propagate_stacks()): a call to a function still being
 * resolved cannot tell yet. */
static void uses_stack(struct scope *sc)
{
	if (sc->probe)
		sc->probe->pp->stacks = true;
	else if (sc->fn)
		sc->fn->stacks = true;
}

/* A call with a number of arguments no function of its name takes: the
 * error says which numbers they take ("1 argument", "1 or 2 arguments"). */
static void arity_error(struct scope *sc, struct ast_expr *e)
{
	const struct ast_script *s = sc->e->script;
	const char *name = e->u.call.name;
	bool take[8] = { false };
	char list[64] = "";
	size_t i, o = 0;
	int k, last = -1, n = 0;

	for (i = 0; i < s->funcs.n; i++)
		if (!strcmp(s->funcs.v[i]->name, name) &&
		    s->funcs.v[i]->nparams < 8)
			take[s->funcs.v[i]->nparams] = true;
	for (i = 0; i < builtin_count; i++)
		if (!strcmp(builtin_table[i].name, name) &&
		    builtin_table[i].nargs < 8)
			take[builtin_table[i].nargs] = true;
	for (k = 0; k < 8; k++)
		if (take[k])
			n++;
	for (k = 0; k < 8; k++) {
		if (!take[k])
			continue;
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%d",
				      !o ? "" : --n == 1 ? " or " : ", ", k);
		last = k;
	}
	diag_error(sc->e->diag, e->loc, "function '%s' takes %s argument%s, "
		   "%zu given", name, list, last == 1 && !strchr(list, ' ') ?
		   "" : "s", e->u.call.args.n);
}

/*
 * stap's returnstr(format): return_str(format, the probe's return value),
 * which is $ret in a syscall's exit tracepoint, $return in a function's
 * return, else returnval() (a register, where the provider reads one).
 * False when @e is not such a call.
 */
static bool returnstr_call(struct scope *sc, struct ast_expr *e)
{
	const struct prov_probe *pp;
	struct prov_var v = { 0 };
	struct ast_expr *r;

	if (strcmp(e->u.call.name, "returnstr") || e->u.call.args.n != 1 ||
	    elab_find_func(sc->e, "returnstr", 1))
		return false;
	if (!sc->probe) {
		diag_error(sc->e->diag, e->loc, "returnstr() reads the return "
			   "value of the probe it is called in: call it in a "
			   "probe handler");
		return true;
	}
	pp = sc->probe->pp;
	if (pp->prov->var && (pp->prov->var(pp, "ret", &v) == 0 ||
			      pp->prov->var(pp, "return", &v) == 0)) {
		r = ast_expr_new(AST_E_TARGET, e->loc);
		r->u.target.name = xasprintf("$%s", v.name);
	} else if (pp->prov->target) {
		r = ast_expr_new(AST_E_CALL, e->loc);
		r->u.call.name = xstrdup("returnval");
	} else {
		diag_error(sc->e->diag, e->loc, "returnstr() needs a return "
			   "value: probe '%s' has none ($ret, $return)", pp->pp);
		return true;
	}
	resolve_expr(sc, r);
	AST_VEC_PUSH(&e->u.call.args, r);
	free(e->u.call.name);
	e->u.call.name = xstrdup("return_str");
	return false;
}

/*
 * Functions and built-ins are overloaded by their number of arguments:
 * the script's or a tapset's function of that arity, else the built-in;
 * with neither, the error names the arity of one of the name.
 */
static void resolve_call(struct scope *sc, struct ast_expr *e)
{
	const char *name = e->u.call.name;
	int nargs = (int)e->u.call.args.n, id;
	const struct builtin *b;
	struct elab_func *f;

	if (returnstr_call(sc, e))
		return;
	name = e->u.call.name;
	nargs = (int)e->u.call.args.n;
	/* the arguments were resolved by the walk, before the call */
	for (;;) {
		if ((f = elab_find_func(sc->e, name, nargs))) {
			e->sym = f;
			resolve_func(sc->e, f);
			return;
		}
		if ((b = builtin_find(name, nargs, &id)) &&
		    (b->nargs == nargs || b->unsupported)) {
			e->slot = id + 1;
			if (builtin_uses_stack(b))
				uses_stack(sc);
			if (b->unsupported)
				diag_error(sc->e->diag, e->loc, "'%s' is not "
					   "supported yet: %s", name,
					   b->unsupported);
			else if (builtin_mem(b) >= 0)
				elab_mem_call(sc->e, sc->probe, e, b);
			return;
		}
		if (!elab_load_tapsets(sc->e))
			break;
	}
	if (b || elab_find_func(sc->e, name, -1))
		arity_error(sc, e);
	else
		diag_error(sc->e->diag, e->loc, "unresolved function '%s'",
			   name);
}

void elab_replace_expr(struct ast_expr *e, struct ast_expr *n)
{
	struct ast_expr old = *e;
	struct ast_expr *o = xmalloc(sizeof(*o));

	*e = *n;
	free(n);
	*o = old;
	ast_expr_free(o);
}

/* Which of a probe's variables $$vars, $$parms, $$locals, $$return
 * print (providers without flags: all of them, as parameters). */
static bool dollars_take(const char *which, const struct prov_var *v)
{
	unsigned int f = v->flags & (PROV_VAR_PARAM | PROV_VAR_LOCAL |
				     PROV_VAR_RETURN);

	if (!f)
		f = PROV_VAR_PARAM;
	if (!strcmp(which, "$$parms"))
		return f & PROV_VAR_PARAM;
	if (!strcmp(which, "$$locals"))
		return f & PROV_VAR_LOCAL;
	if (!strcmp(which, "$$return"))
		return f & PROV_VAR_RETURN;
	return f & (PROV_VAR_PARAM | PROV_VAR_LOCAL);	/* $$vars */
}

/*
 * $$vars, $$parms, $$locals, $$return: the sprintf() stap builds,
 * "a=%d b=%s" (0x%x where the provider asks), a variable that cannot be
 * read there as "a=?"; with a trailing $ or $$ each variable pretty.
 */
static void expand_dollars(struct scope *sc, struct ast_expr *e)
{
	const struct prov_probe *pp = sc->probe->pp;
	struct prov_var vars[64];
	struct ast_expr *p = ast_expr_new(AST_E_PRINT, e->loc);
	struct strbuf fmt = STRBUF_INIT;
	const char *pretty = NULL;
	size_t i, n = 0, k = 0;

	/* a provider without types prints its values plainly */
	if (e->u.target.ncomps == 1 && e->u.target.comps[0].kind == AST_TC_PRETTY &&
	    pp->prov->target)
		pretty = e->u.target.comps[0].name;
	if (pp->prov->vars)
		n = pp->prov->vars(pp, vars, 64);
	if (n > 64)
		n = 64;
	p->u.print.name = xstrdup("sprintf");
	p->u.print.flags = AST_PRINT_FORMAT | AST_PRINT_TOSTR;
	for (i = 0; i < n; i++) {
		struct ast_expr *t;
		const char *conv;

		if (!dollars_take(e->u.target.name, &vars[i]))
			continue;
		if (vars[i].flags & PROV_VAR_UNAVAILABLE) {
			fmt_sb_addf(&fmt, "%s%s=?", k++ ? " " : "", vars[i].name);
			continue;
		}
		conv = vars[i].type == AST_T_STRING && !pretty ? "\"%s\"" :
		       pretty ? "%s" : vars[i].flags & PROV_VAR_HEX ? "%#x" : "%d";
		fmt_sb_addf(&fmt, "%s%s=%s", k++ ? " " : "", vars[i].name, conv);
		t = ast_expr_new(AST_E_TARGET, e->loc);
		t->u.target.name = xasprintf("$%s", vars[i].name);
		if (pretty) {
			t->u.target.comps = xcalloc(1, sizeof(*t->u.target.comps));
			t->u.target.comps[0].kind = AST_TC_PRETTY;
			t->u.target.comps[0].loc = e->loc;
			t->u.target.comps[0].name = xstrdup(pretty);
			t->u.target.ncomps = 1;
		}
		AST_VEC_PUSH(&p->u.print.args, t);
	}
	p->u.print.fmt = ast_str(e->loc, fmt_sb_str(&fmt), fmt.len);
	fmt_sb_release(&fmt);
	elab_replace_expr(e, p);
	resolve_expr(sc, e);
}

static bool is_dollars(const char *name)
{
	return name && (!strcmp(name, "$$vars") || !strcmp(name, "$$parms") ||
			!strcmp(name, "$$locals") || !strcmp(name, "$$return"));
}

/* Make @e a call of the $value built-in @fn (with @arg, taken over). */
static void value_call(struct scope *sc, struct ast_expr *e, const char *fn,
		       struct ast_expr *arg)
{
	struct ast_expr *c = ast_expr_new(AST_E_CALL, e->loc);

	c->u.call.name = xstrdup(fn);
	if (arg)
		AST_VEC_PUSH(&c->u.call.args, arg);
	elab_replace_expr(e, c);
	resolve_call(sc, e);
}

/*
 * `$value = x` and `$value .= x` in a probe whose $value the script
 * holds (PROV_VAR_VALUE): calls of __value_set(x) and __value_append(x).
 * True when @e was such an assignment.
 */
static bool value_assign(struct scope *sc, struct ast_expr *e)
{
	struct ast_expr *l = e->u.bin.left, *r;
	const struct prov_probe *pp;
	struct prov_var v = { 0 };

	if (l->kind != AST_E_TARGET || !sc->probe || !l->u.target.name ||
	    l->u.target.ncomps || l->u.target.addressof || l->u.target.raw)
		return false;
	pp = sc->probe->pp;
	if (!pp->prov->var || pp->prov->var(pp, l->u.target.name + 1, &v) < 0 ||
	    !(v.flags & PROV_VAR_VALUE))
		return false;
	if (e->op != AST_OP_ASSIGN && e->op != AST_OP_CONCAT_ASSIGN) {
		diag_error(sc->e->diag, e->loc, "%s is a string: only = and .= "
			   "write it", l->u.target.name);
		return true;
	}
	r = e->u.bin.right;
	e->u.bin.right = NULL;
	resolve_expr(sc, r);
	value_call(sc, e, e->op == AST_OP_ASSIGN ? "__value_set" :
		   "__value_append", r);
	return true;
}

/* $name, $name[i]; returns false when the probe has no such variable. */
static bool resolve_target(struct scope *sc, struct ast_expr *e, bool quiet)
{
	const char *name = e->u.target.name;
	struct prov_var v = { 0 };
	const struct prov_probe *pp;

	elab_cast_hoist(e);
	if (e->u.target.cast_type) {
		switch (elab_cast(sc->e, sc->probe, e, quiet)) {
		case -1:
			return false;
		case 1:
			/* a number, the pointer itself, or a member found */
			if (!quiet)
				resolve_expr(sc, e);
			return true;
		}
	}
	if (!sc->probe) {
		if (!quiet)
			diag_error(sc->e->diag, e->loc, "target variables are "
				   "only available in probe handlers");
		return false;
	}
	pp = sc->probe->pp;
	if (is_dollars(name) && !e->u.target.raw) {
		if (quiet)
			return true;
		expand_dollars(sc, e);
		return true;
	}
	if (pp->prov->target)
		return elab_target_resolve(sc->e, sc->probe, e, quiet);
	if (!name || e->u.target.raw) {
		if (!quiet)
			diag_error(sc->e->diag, e->loc, "probe '%s' has no %s",
				   pp->pp, e->u.target.raw ? "registers or "
				   "arguments to read" : e->u.target.global ?
				   "global variables to read (@var needs "
				   "debug info)" : "types to cast to (@cast "
				   "needs debug info or BTF)");
		return false;
	}
	if (name[1] == '$' || !pp->prov->var ||
	    pp->prov->var(pp, name + 1, &v) < 0) {
		if (!quiet)
			diag_error(sc->e->diag, e->loc, "no target variable "
				   "'%s' in probe '%s'", name, pp->pp);
		return false;
	}
	if ((v.flags & PROV_VAR_VALUE) && !e->u.target.addressof &&
	    !e->u.target.ncomps) {
		if (!quiet)	/* read: __value_get() */
			value_call(sc, e, "__value_get", NULL);
		return true;
	}
	if (e->u.target.addressof || e->u.target.ncomps > 1 ||
	    (e->u.target.ncomps == 1 &&
	     (e->u.target.comps[0].kind != AST_TC_INDEX || v.array <= 0))) {
		if (!quiet)
			diag_error(sc->e->diag, e->loc, "'%s' of probe '%s' has "
				   "no members or elements to reach (needs "
				   "debug info)", name, pp->pp);
		return false;
	}
	e->slot = v.idx;
	e->type = v.type;
	if (e->u.target.ncomps == 1) {
		e->type = AST_T_LONG;
		if (!quiet)
			resolve_expr(sc, e->u.target.comps[0].index);
	}
	return true;
}

static void check_lvalue(struct scope *sc, struct ast_expr *l)
{
	if (l->kind == AST_E_VAR ||
	    (l->kind == AST_E_INDEX && l->u.index.base->kind == AST_E_VAR))
		return;
	if (l->kind == AST_E_TARGET)
		diag_error(sc->e->diag, l->loc, "target variables cannot be "
			   "written: tapkit reads the traced program and never "
			   "changes it (stap's guru mode)");
	else
		diag_error(sc->e->diag, l->loc, "expected an lvalue "
			   "(variable or array element)");
}

/* @defined(@op): whether the probe has what @op names, asked quietly. */
static bool defined_now(struct scope *sc, struct ast_expr *op)
{
	if (op->kind == AST_E_CALL)
		return elab_raw_call(sc->e, sc->probe, op, true) >= 0;
	if (op->kind == AST_E_TARGET)
		return resolve_target(sc, op, true);
	return true;
}

/*
 * A condition made of @defined() (with numbers, !, && and ||) is decided
 * at compile time, as stap does, so that `@defined($x) ? $x : 0` and
 * `if (@defined($x)) ... $x ...` elaborate where $x does not exist: 1 or
 * 0, or -1 when @c is not such a condition.
 */
static int defined_cond(struct scope *sc, struct ast_expr *c, bool *any)
{
	int a, b;

	switch (c->kind) {
	case AST_E_NUM:
		return c->u.num != 0;
	case AST_E_DEFINED:
		*any = true;
		return defined_now(sc, c->u.unary.operand);
	case AST_E_UNARY:
		if (c->op != AST_OP_NOT)
			return -1;
		a = defined_cond(sc, c->u.unary.operand, any);
		return a < 0 ? -1 : !a;
	case AST_E_LOGICAL:
		a = defined_cond(sc, c->u.bin.left, any);
		b = defined_cond(sc, c->u.bin.right, any);
		if (a < 0 || b < 0)
			return -1;
		return c->op == AST_OP_LAND ? a && b : a || b;
	default:
		return -1;
	}
}

/* `@defined(...) ? a : b`: the branch the condition picks, alone. */
static int prune_ternary(struct scope *sc, struct ast_expr *e)
{
	bool any = false;
	int v = defined_cond(sc, e->u.ternary.cond, &any);
	struct ast_expr *keep;

	if (v < 0 || !any)
		return 0;
	keep = v ? e->u.ternary.then : e->u.ternary.els;
	*(v ? &e->u.ternary.then : &e->u.ternary.els) = NULL;
	elab_replace_expr(e, keep);
	resolve_expr(sc, e);
	return 1;
}

/* `if (@defined(...)) a else b`: the statement the condition picks. */
static int prune_if(struct scope *sc, struct ast_stmt *s)
{
	bool any = false;
	int v = defined_cond(sc, s->u.if_.cond, &any);
	struct ast_stmt *keep, *old;

	if (v < 0 || !any)
		return 0;
	keep = v ? s->u.if_.then : s->u.if_.els;
	*(v ? &s->u.if_.then : &s->u.if_.els) = NULL;
	old = xmalloc(sizeof(*old));
	*old = *s;
	if (keep) {
		*s = *keep;
		free(keep);
	} else {
		memset(&s->u, 0, sizeof(s->u));
		s->kind = AST_S_BLOCK;
	}
	ast_stmt_free(old);
	resolve_stmt(sc, s);
	return 1;
}

/*
 * The walk's callbacks.  Most kinds only need their children resolved,
 * which the walk does; these are the ones that mean something here.
 */
static int name_expr(struct ast_expr *e, void *ctx)
{
	struct scope *sc = ctx;
	struct ast_expr *op;
	struct elab_sym *s;
	bool found;

	switch (e->kind) {
	case AST_E_NUM:
		e->type = AST_T_LONG;
		return 0;
	case AST_E_STR:
		e->type = AST_T_STRING;
		return 0;
	case AST_E_VAR:
		e->sym = s = lookup(sc, e->u.var.name, e->loc);
		if (s->kind == ELAB_GLOBAL)
			set_arity(sc, s, 0, e->loc);
		return 0;
	case AST_E_INDEX:
		resolve_index(sc, e, false);
		return 1;
	case AST_E_STAR:
		diag_error(sc->e->diag, e->loc, "unexpected '*'");
		return 0;
	case AST_E_ASSIGN:
		if (value_assign(sc, e))
			return 1;
		resolve_expr(sc, e->u.bin.left);
		check_lvalue(sc, e->u.bin.left);
		resolve_expr(sc, e->u.bin.right);
		return 1;
	case AST_E_IN:
		resolve_index(sc, e->u.in.index, true);
		return 1;
	case AST_E_CALL:
		/* task_pid($p): the read of $p's task_struct */
		switch (elab_task_call(sc->e, sc->probe, e)) {
		case 1:
			resolve_expr(sc, e);
			return 1;
		case -1:
			return 1;
		}
		/* register(), int_arg(N)...: a raw operand of the probe */
		switch (elab_raw_call(sc->e, sc->probe, e, false)) {
		case 0:
			return 0;
		case 1:
			resolve_target(sc, e, false);
			return 1;
		default:
			return 1;
		}
	case AST_E_TARGET:
		resolve_target(sc, e, false);
		return 1;
	case AST_E_TERNARY:
		return prune_ternary(sc, e);
	case AST_E_DEFINED:
		op = e->u.unary.operand;
		found = defined_now(sc, op);
		ast_expr_free(op);
		e->kind = AST_E_NUM;
		e->u.num = found;
		e->type = AST_T_LONG;
		return 1;
	case AST_E_ENTRY:
		if (elab_entry(sc->e, sc->probe, e) == 0)
			resolve_expr(sc, e);
		return 1;
	case AST_E_PERF:
		diag_error(sc->e->diag, e->loc, "@perf is not supported yet");
		return 0;
	default:
		return 0;
	}
}

/* After the children: a call's arguments are resolved before its name. */
static int name_expr_post(struct ast_expr *e, void *ctx)
{
	struct scope *sc = ctx;

	if (e->kind == AST_E_CALL)
		resolve_call(sc, e);
	else if (e->kind == AST_E_CREMENT)
		check_lvalue(sc, e->u.unary.operand);
	return 0;
}

static void resolve_foreach(struct scope *sc, struct ast_stmt *s)
{
	struct ast_expr *arr = s->u.foreach.array;
	size_t i, n = s->u.foreach.keys.n;

	for (i = 0; i < n; i++)
		resolve_expr(sc, s->u.foreach.keys.v[i]);
	if (s->u.foreach.value)
		resolve_expr(sc, s->u.foreach.value);
	resolve_exprs(sc, &s->u.foreach.slice, true);
	if (arr->kind == AST_E_HIST) {
		resolve_expr(sc, arr);
		if (n != 1)
			diag_error(sc->e->diag, arr->loc, "foreach over a "
				   "histogram takes one bucket variable");
	} else {
		array_sym(sc, arr, (int)n);
		if (s->u.foreach.slice.n && s->u.foreach.slice.n != n)
			diag_error(sc->e->diag, arr->loc, "the slice has %zu "
				   "indexes, the loop %zu",
				   s->u.foreach.slice.n, n);
	}
	if (s->u.foreach.limit)
		resolve_expr(sc, s->u.foreach.limit);
	resolve_stmt(sc, s->u.foreach.body);
}

static void resolve_delete(struct scope *sc, struct ast_stmt *s)
{
	struct ast_expr *x = s->u.expr;

	if (x->kind == AST_E_INDEX && x->u.index.base->kind == AST_E_VAR)
		resolve_index(sc, x, true);
	else if (x->kind == AST_E_VAR)
		x->sym = lookup(sc, x->u.var.name, x->loc);
	else
		diag_error(sc->e->diag, x->loc, "delete needs a variable, an "
			   "array or an array element");
}

static void resolve_try(struct scope *sc, struct ast_stmt *s)
{
	resolve_stmt(sc, s->u.try_.body);
	if (s->u.try_.var) {
		struct elab_sym *v = lookup(sc, s->u.try_.var,
					    s->u.try_.var_loc);

		s->aux = v;
		if (v->kind != ELAB_LOCAL)
			diag_error(sc->e->diag, s->u.try_.var_loc,
				   "the catch variable must be a local");
	}
	resolve_stmt(sc, s->u.try_.handler);
}

static int name_stmt(struct ast_stmt *s, void *ctx)
{
	struct scope *sc = ctx;

	switch (s->kind) {
	case AST_S_IF:
		return prune_if(sc, s);
	case AST_S_FOREACH:
		resolve_foreach(sc, s);
		return 1;
	case AST_S_DELETE:
		resolve_delete(sc, s);
		return 1;
	case AST_S_TRY:
		resolve_try(sc, s);
		return 1;
	default:
		return 0;
	}
}

static int name_stmt_post(struct ast_stmt *s, void *ctx)
{
	struct scope *sc = ctx;

	if (s->kind == AST_S_RETURN && !sc->fn)
		diag_error(sc->e->diag, s->loc, "cannot 'return' from a probe");
	return 0;
}

static void take_locals(struct scope *sc, struct elab_sym ***v, size_t *n)
{
	*v = sc->locals.v;
	*n = sc->locals.n;
}

static void scope_init(struct scope *sc, struct elab *e)
{
	sc->e = e;
	sc->walk = (struct ast_visitor){
		.expr = name_expr,
		.expr_post = name_expr_post,
		.stmt = name_stmt,
		.stmt_post = name_stmt_post,
		.ctx = sc,
	};
}

static void resolve_func(struct elab *e, struct elab_func *f)
{
	struct scope sc = { .fn = f };
	size_t i;

	scope_init(&sc, e);
	f->used = true;
	if (f->resolved)
		return;
	f->resolved = true;
	for (i = 0; i < f->decl->nparams; i++) {
		struct elab_sym *p = new_local(&sc, f->decl->params[i].name,
					       f->decl->params[i].loc);

		p->type = f->decl->params[i].type;
	}
	f->nparams = f->decl->nparams;
	resolve_stmt(&sc, f->decl->body);
	take_locals(&sc, &f->locals, &f->nlocals);
}

void elab_resolve_probe(struct elab *e, struct elab_probe *p)
{
	struct scope sc = { .probe = p };

	size_t i;

	scope_init(&sc, e);
	resolve_stmt(&sc, p->body);
	for (i = 0; i < p->tail.n; i++) {
		resolve_stmt(&sc, p->tail.v[i]);
		AST_VEC_PUSH(&p->body->u.block, p->tail.v[i]);
	}
	free(p->tail.v);
	memset(&p->tail, 0, sizeof(p->tail));
	take_locals(&sc, &p->locals, &p->nlocals);
}

/* A visitor's expr callback: stop (-1) at a call of a function that
 * reaches a stack built-in. */
static int calls_stack_fn(struct ast_expr *x, void *ctx)
{
	const struct elab_func *f = x->kind == AST_E_CALL ? x->sym : NULL;

	(void)ctx;
	return f && f->stacks ? -1 : 0;
}

static bool body_calls_stack_fn(struct ast_stmt *body)
{
	struct ast_visitor w = { .expr = calls_stack_fn };

	return ast_walk_stmt(body, &w) < 0;
}

/*
 * Stack use through calls, to a fixed point over the call graph: a
 * function reaches a stack built-in when it calls one (marked while
 * resolving) or calls a function that does; a probe whose handler
 * reaches one records callchains.  Mutual recursion (probe -> g -> f
 * -> g, g printing a backtrace) is why this runs after resolution:
 * while g is being resolved, f cannot know yet what g does.
 */
static void propagate_stacks(struct elab *e)
{
	bool changed = true;
	size_t i;

	while (changed) {
		changed = false;
		for (i = 0; i < e->funcs.n; i++) {
			struct elab_func *f = e->funcs.v[i];

			if (f->used && f->resolved && !f->stacks &&
			    body_calls_stack_fn(f->decl->body)) {
				f->stacks = true;
				changed = true;
			}
		}
	}
	for (i = 0; i < e->probes.n; i++) {
		struct elab_probe *p = e->probes.v[i];

		if (!p->pp->stacks && body_calls_stack_fn(p->body))
			p->pp->stacks = true;
	}
}

int elab_pass_symbols(struct elab *e)
{
	size_t i;

	/* a probe a tapset file brings is resolved in turn, and may use
	 * another file */
	for (i = 0; !diag_full(e->diag); i++) {
		elab_join_tapsets(e);
		if (i >= e->probes.n)
			break;
		elab_resolve_probe(e, e->probes.v[i]);
	}
	propagate_stacks(e);
	return diag_errors(e->diag) != e->errors0 ? -EINVAL : 0;
}
