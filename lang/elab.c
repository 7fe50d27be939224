// SPDX-License-Identifier: GPL-2.0
/*
 * The elaborator, first half: probe points expanded through aliases and
 * providers, names resolved, tapsets loaded on demand.  The type pass,
 * condition push-down, global display and -p2 are in elab_types.c.
 *
 * Tapsets are parsed only when something in the script is unresolved (a
 * function, or a probe point no alias and no provider claims), so a script
 * that needs none starts without reading a single tapset file.  A
 * consequence: a tapset global is visible only once tapsets were loaded for
 * another reason (stap reads them all up front).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/backend.h"
#include "lang/parse.h"

#define ALIAS_DEPTH 16

struct scope {
	struct elab *e;
	struct { struct elab_sym **v; size_t n, cap; } locals;
	struct elab_func *fn;		/* resolving a function body */
	struct elab_probe *probe;	/* resolving a probe body */
};

static void resolve_stmt(struct scope *sc, struct ast_stmt *s);
static void resolve_expr(struct scope *sc, struct ast_expr *e);

/* ---- symbols ----------------------------------------------------------- */

static struct elab_sym *sym_new(enum elab_symkind kind, const char *name,
				struct diag_loc loc)
{
	struct elab_sym *s = xcalloc(1, sizeof(*s));

	s->kind = kind;
	s->name = xstrdup(name);
	s->loc = loc;
	s->nkeys = -1;
	return s;
}

static void sym_free(struct elab_sym *s)
{
	if (!s)
		return;
	free(s->name);
	free(s);
}

struct elab_sym *elab_expr_sym(const struct ast_expr *e)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case AST_E_VAR:
		return e->sym;
	case AST_E_INDEX:
		return elab_expr_sym(e->u.index.base);
	case AST_E_HIST:
		return elab_expr_sym(e->u.hist.operand);
	default:
		return NULL;
	}
}

static struct elab_sym *find_global(struct elab *e, const char *name)
{
	struct ast_script *s = e->script;
	struct elab_sym *g;
	size_t i;

	for (i = 0; i < e->globals.n; i++)
		if (!strcmp(e->globals.v[i]->name, name))
			return e->globals.v[i];
	/* user globals first, then tapsets' */
	for (int lib = 0; lib < 2; lib++) {
		for (i = 0; i < s->globals.n; i++) {
			struct ast_global *d = s->globals.v[i];

			if (d->library != lib || strcmp(d->name, name))
				continue;
			g = sym_new(ELAB_GLOBAL, name, d->loc);
			g->decl = d;
			g->index = (int)e->globals.n;
			if (d->array)
				g->nkeys = -1;
			if (d->init) {
				g->type = d->init->kind == AST_E_STR ?
					  AST_T_STRING : AST_T_LONG;
				g->nkeys = 0;
			} else if (d->type != AST_T_UNKNOWN) {
				g->type = d->type;
			}
			AST_VEC_PUSH(&e->globals, g);
			return g;
		}
	}
	return NULL;
}

static struct elab_func *find_func(struct elab *e, const char *name)
{
	struct ast_script *s = e->script;
	struct elab_func *f;
	size_t i;

	for (i = 0; i < e->funcs.n; i++)
		if (!strcmp(e->funcs.v[i]->decl->name, name))
			return e->funcs.v[i];
	for (int lib = 0; lib < 2; lib++) {
		for (i = 0; i < s->funcs.n; i++) {
			struct ast_func *d = s->funcs.v[i];

			if (d->library != lib || strcmp(d->name, name))
				continue;
			f = xcalloc(1, sizeof(*f));
			f->decl = d;
			f->type = d->type;
			f->index = (int)e->funcs.n;
			AST_VEC_PUSH(&e->funcs, f);
			return f;
		}
	}
	return NULL;
}

/* ---- tapsets ----------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parse every .stp file of the tapset directories, once.  True if any. */
static bool load_tapsets(struct elab *e)
{
	const char *const *dir;
	bool any = false;

	if (e->tapsets_loaded || !e->opts->tapset_dirs)
		return false;
	e->tapsets_loaded = true;
	for (dir = e->opts->tapset_dirs; *dir; dir++) {
		struct { char **v; size_t n, cap; } files = { 0 };
		struct dirent *de;
		DIR *dp = opendir(*dir);
		size_t i, len;

		if (!dp)
			continue;
		while ((de = readdir(dp))) {
			len = strlen(de->d_name);
			if (len > 4 && !strcmp(de->d_name + len - 4, ".stp"))
				AST_VEC_PUSH(&files, xasprintf("%s/%s", *dir,
							       de->d_name));
		}
		closedir(dp);
		if (files.n)
			qsort(files.v, files.n, sizeof(*files.v), cmp_str);
		for (i = 0; i < files.n; i++) {
			parse_file(e->script, e->diag, files.v[i],
				   e->opts->lex, PARSE_LIBRARY);
			free(files.v[i]);
			any = true;
		}
		free(files.v);
	}
	return any;
}

/* ---- probe points ------------------------------------------------------ */

/* One concrete probe while aliases are expanded: the statements to run
 * before the user's body (prologues, innermost alias first) and after it
 * (epilogues, outermost alias first). */
struct expansion {
	struct prov_probe *pp;
	struct ast_stmt *head;		/* blocks */
	struct ast_stmt *tail;
	char *alias;			/* outermost alias point used, or NULL */
};

struct expansions {
	struct expansion *v;
	size_t n, cap;
};

static bool same_arg(const struct ast_expr *a, const struct ast_expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	if (a->kind == AST_E_NUM)
		return a->u.num == b->u.num;
	if (a->kind == AST_E_STR)
		return !strcmp(a->u.str.s, b->u.str.s);
	return false;
}

/* Does the (possibly wildcarded) point @pp name alias point @name? */
static bool alias_matches(const struct ast_pp *name, const struct ast_pp *pp)
{
	size_t i;

	if (name->ncomps != pp->ncomps)
		return false;
	for (i = 0; i < pp->ncomps; i++) {
		if (fnmatch(pp->comps[i].name, name->comps[i].name, 0))
			return false;
		if (!same_arg(name->comps[i].arg, pp->comps[i].arg))
			return false;
	}
	return true;
}

static struct ast_stmt *block_of(struct diag_loc loc)
{
	return ast_stmt_new(AST_S_BLOCK, loc);
}

static int expand_pp(struct elab *e, const struct ast_pp *pp, int depth,
		     struct expansions *out);
static char *pp_text(const struct ast_pp *pp);

static int expand_alias(struct elab *e, struct ast_alias *a,
			const struct ast_pp *name, const struct ast_pp *use,
			int depth, struct expansions *out)
{
	struct expansions sub = { 0 };
	struct ast_stmt *epi;
	size_t i, j;
	int err = 0;

	for (i = 0; i < a->pps.n; i++) {
		size_t start = sub.n;

		if (expand_pp(e, a->pps.v[i], depth + 1, &sub) < 0)
			err = -1;
		if (a->pps.v[i]->sufficient && sub.n > start)
			break;
	}
	epi = a->epilogue ? a->body : a->body2;
	for (j = 0; j < sub.n; j++) {
		struct expansion *x = &sub.v[j];

		free(x->alias);
		x->alias = pp_text(name);
		if (a->body && !a->epilogue)
			AST_VEC_PUSH(&x->head->u.block,
				     ast_stmt_clone(a->body));
		if (epi) {
			struct ast_stmt *t = block_of(use->loc);

			AST_VEC_PUSH(&t->u.block, ast_stmt_clone(epi));
			AST_VEC_PUSH(&t->u.block, x->tail);
			x->tail = t;
		}
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 8;
			out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
		}
		out->v[out->n++] = *x;
	}
	free(sub.v);
	return err;
}

static void push_expansion(struct expansions *out, struct prov_probe *pp,
			   struct diag_loc loc)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 8;
		out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
	}
	out->v[out->n].pp = pp;
	out->v[out->n].head = block_of(loc);
	out->v[out->n].tail = block_of(loc);
	out->v[out->n].alias = NULL;
	out->n++;
}

static char *pp_text(const struct ast_pp *pp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ast_pp tmp = *pp;

	if (!f)
		die("out of memory");
	tmp.optional = tmp.sufficient = false;
	tmp.cond = NULL;
	ast_print_pp(f, &tmp);
	fclose(f);
	return buf;
}

/* Ask the aliases, then the providers; load tapsets when nobody knows. */
static int expand_pp(struct elab *e, const struct ast_pp *pp, int depth,
		     struct expansions *out)
{
	const struct prov_env env = { e->diag, e->opts->listing };
	struct prov_list list = { 0 };
	size_t start = out->n, i, k;
	int r, err = 0;
	bool tried_tapsets = false;
	char *text;

	if (depth > ALIAS_DEPTH) {
		diag_error(e->diag, pp->loc, "probe alias expansion too deep "
			   "(recursive alias?)");
		return -1;
	}
again:
	for (i = 0; i < e->script->aliases.n; i++) {
		struct ast_alias *a = e->script->aliases.v[i];

		for (k = 0; k < a->names.n; k++) {
			if (!alias_matches(a->names.v[k], pp))
				continue;
			if (expand_alias(e, a, a->names.v[k], pp, depth, out) < 0)
				err = -1;
			break;
		}
	}
	if (out->n > start || err)
		goto done;
	for (i = 0; e->opts->providers && e->opts->providers[i]; i++) {
		r = e->opts->providers[i]->expand(&env, pp, &list);
		if (r < 0) {
			err = -1;
			break;
		}
		if (r > 0)
			break;
	}
	for (i = 0; i < list.n; i++)
		push_expansion(out, list.v[i], pp->loc);
	free(list.v);
	if (out->n > start || err)
		goto done;
	if (!tried_tapsets) {
		tried_tapsets = true;
		if (load_tapsets(e))
			goto again;
	}
	if (pp->optional || e->opts->listing)
		return 0;
	text = pp_text(pp);
	diag_error(e->diag, pp->loc, "probe point mismatch: no match for '%s'",
		   text);
	free(text);
	return -1;
done:
	return err;
}

/* if (!(cond)) next;  -- a probe point's condition, checked first */
static struct ast_stmt *cond_guard(const struct ast_expr *cond)
{
	struct ast_stmt *s = ast_stmt_new(AST_S_IF, cond->loc);
	struct ast_expr *n = ast_expr_new(AST_E_UNARY, cond->loc);

	n->op = AST_OP_NOT;
	n->u.unary.operand = ast_expr_clone(cond);
	s->u.if_.cond = n;
	s->u.if_.then = ast_stmt_new(AST_S_NEXT, cond->loc);
	return s;
}

int elab_expand_probe(struct elab *e, struct ast_probe *src, bool synthetic)
{
	struct expansions ex = { 0 };
	size_t i, j;
	int err = 0;

	for (i = 0; i < src->pps.n; i++) {
		struct ast_pp *pp = src->pps.v[i];
		size_t start = ex.n;

		if (expand_pp(e, pp, 0, &ex) < 0)
			err = -1;
		for (j = start; j < ex.n; j++) {
			struct ast_stmt *b = ex.v[j].head;

			if (pp->cond)
				AST_VEC_PUSH(&b->u.block, cond_guard(pp->cond));
			AST_VEC_PUSH(&b->u.block, ast_stmt_clone(src->body));
			AST_VEC_PUSH(&b->u.block, ex.v[j].tail);
		}
		if (pp->sufficient && ex.n > start)
			break;
	}
	for (j = 0; j < ex.n; j++) {
		struct elab_probe *p = xcalloc(1, sizeof(*p));

		p->pp = ex.v[j].pp;
		p->alias = ex.v[j].alias;
		p->body = ex.v[j].head;
		p->src = src;
		p->synthetic = synthetic;
		p->pp->id = (int)e->probes.n;
		AST_VEC_PUSH(&e->probes, p);
	}
	free(ex.v);
	return err;
}

/* ---- names ------------------------------------------------------------- */

static struct elab_sym *new_local(struct scope *sc, const char *name,
				  struct diag_loc loc)
{
	struct elab_sym *s = sym_new(ELAB_LOCAL, name, loc);

	s->nkeys = 0;
	s->index = (int)sc->locals.n;
	AST_VEC_PUSH(&sc->locals, s);
	return s;
}

static struct elab_sym *lookup(struct scope *sc, const char *name,
			       struct diag_loc loc)
{
	struct elab_sym *s;
	size_t i;

	for (i = 0; i < sc->locals.n; i++)
		if (!strcmp(sc->locals.v[i]->name, name))
			return sc->locals.v[i];
	if ((s = find_global(sc->e, name))) {
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

static void resolve_call(struct scope *sc, struct ast_expr *e)
{
	const char *name = e->u.call.name;
	const struct builtin *b;
	struct elab_func *f;
	int id;

	resolve_exprs(sc, &e->u.call.args, false);
	for (;;) {
		if ((f = find_func(sc->e, name))) {
			e->sym = f;
			if (f->decl->nparams != e->u.call.args.n)
				diag_error(sc->e->diag, e->loc, "function '%s' "
					   "takes %zu argument%s, %zu given",
					   name, f->decl->nparams,
					   f->decl->nparams == 1 ? "" : "s",
					   e->u.call.args.n);
			resolve_func(sc->e, f);
			return;
		}
		if ((b = builtin_find(name, &id))) {
			e->slot = id + 1;
			if (b->unsupported)
				diag_error(sc->e->diag, e->loc, "'%s' is not "
					   "supported yet: %s", name,
					   b->unsupported);
			else if (b->nargs != (int)e->u.call.args.n)
				diag_error(sc->e->diag, e->loc, "function '%s' "
					   "takes %d argument%s, %zu given",
					   name, b->nargs,
					   b->nargs == 1 ? "" : "s",
					   e->u.call.args.n);
			else if (builtin_mem(b) >= 0)
				elab_mem_call(sc->e, sc->probe, e, b);
			return;
		}
		if (!load_tapsets(sc->e))
			break;
	}
	diag_error(sc->e->diag, e->loc, "unresolved function '%s'", name);
}

/* Replace @e's contents by @n's (freeing what @e held). */
static void replace_expr(struct ast_expr *e, struct ast_expr *n)
{
	struct ast_expr old = *e;
	struct ast_expr *o = xmalloc(sizeof(*o));

	*e = *n;
	free(n);
	*o = old;
	ast_expr_free(o);
}

/* $$vars: "a=%d b=%s" over the probe's variables. */
static void expand_dollars(struct scope *sc, struct ast_expr *e)
{
	const struct prov_probe *pp = sc->probe->pp;
	struct prov_var vars[64];
	struct ast_expr *p = ast_expr_new(AST_E_PRINT, e->loc);
	struct strbuf fmt = STRBUF_INIT;
	size_t i, n = 0;

	if (pp->prov->vars)
		n = pp->prov->vars(pp, vars, 64);
	if (n > 64)
		n = 64;
	p->u.print.name = xstrdup("sprintf");
	p->u.print.flags = AST_PRINT_FORMAT | AST_PRINT_TOSTR;
	for (i = 0; i < n; i++) {
		struct ast_expr *t = ast_expr_new(AST_E_TARGET, e->loc);

		fmt_sb_addf(&fmt, "%s%s=%s", i ? " " : "", vars[i].name,
			    vars[i].type == AST_T_STRING ? "\"%s\"" : "%d");
		t->u.target.name = xasprintf("$%s", vars[i].name);
		AST_VEC_PUSH(&p->u.print.args, t);
	}
	p->u.print.fmt = ast_str(e->loc, fmt_sb_str(&fmt), fmt.len);
	fmt_sb_release(&fmt);
	replace_expr(e, p);
	resolve_expr(sc, e);
}

/* $name, $name[i]; returns false when the probe has no such variable. */
static bool resolve_target(struct scope *sc, struct ast_expr *e, bool quiet)
{
	const char *name = e->u.target.name;
	struct prov_var v;
	const struct prov_probe *pp;

	if (!sc->probe) {
		if (!quiet)
			diag_error(sc->e->diag, e->loc, "target variables are "
				   "only available in probe handlers");
		return false;
	}
	pp = sc->probe->pp;
	if (!name) {
		if (!quiet)
			diag_error(sc->e->diag, e->loc, "@cast and autocast "
				   "values are not supported");
		return false;
	}
	if (!strcmp(name, "$$vars") || !strcmp(name, "$$parms")) {
		if (quiet)
			return true;
		expand_dollars(sc, e);
		return true;
	}
	if (name[1] == '$' || !pp->prov->var ||
	    pp->prov->var(pp, name + 1, &v) < 0) {
		if (!quiet)
			diag_error(sc->e->diag, e->loc, "no target variable "
				   "'%s' in probe '%s'", name, pp->pp);
		return false;
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
			   "written");
	else
		diag_error(sc->e->diag, l->loc, "expected an lvalue "
			   "(variable or array element)");
}

static void resolve_expr(struct scope *sc, struct ast_expr *e)
{
	struct elab_sym *s;
	bool found;

	switch (e->kind) {
	case AST_E_NUM:
		e->type = AST_T_LONG;
		break;
	case AST_E_STR:
		e->type = AST_T_STRING;
		break;
	case AST_E_VAR:
		e->sym = s = lookup(sc, e->u.var.name, e->loc);
		if (s->kind == ELAB_GLOBAL)
			set_arity(sc, s, 0, e->loc);
		break;
	case AST_E_INDEX:
		resolve_index(sc, e, false);
		break;
	case AST_E_STAR:
		diag_error(sc->e->diag, e->loc, "unexpected '*'");
		break;
	case AST_E_CALL:
		resolve_call(sc, e);
		break;
	case AST_E_PRINT:
		resolve_exprs(sc, &e->u.print.args, false);
		break;
	case AST_E_UNARY:
		resolve_expr(sc, e->u.unary.operand);
		break;
	case AST_E_CREMENT:
		resolve_expr(sc, e->u.unary.operand);
		check_lvalue(sc, e->u.unary.operand);
		break;
	case AST_E_ASSIGN:
		resolve_expr(sc, e->u.bin.left);
		check_lvalue(sc, e->u.bin.left);
		resolve_expr(sc, e->u.bin.right);
		break;
	case AST_E_BINARY: case AST_E_CONCAT: case AST_E_COMPARE:
	case AST_E_LOGICAL: case AST_E_REGEX:
		resolve_expr(sc, e->u.bin.left);
		resolve_expr(sc, e->u.bin.right);
		break;
	case AST_E_TERNARY:
		resolve_expr(sc, e->u.ternary.cond);
		resolve_expr(sc, e->u.ternary.then);
		resolve_expr(sc, e->u.ternary.els);
		break;
	case AST_E_IN:
		resolve_index(sc, e->u.in.index, true);
		break;
	case AST_E_TARGET:
		resolve_target(sc, e, false);
		break;
	case AST_E_DEFINED: {
		struct ast_expr *op = e->u.unary.operand;

		found = true;
		if (op->kind == AST_E_TARGET)
			found = resolve_target(sc, op, true);
		ast_expr_free(op);
		e->kind = AST_E_NUM;
		e->u.num = found;
		e->type = AST_T_LONG;
		break;
	}
	case AST_E_ENTRY:
		diag_error(sc->e->diag, e->loc, "@entry is not supported yet");
		break;
	case AST_E_PERF:
		diag_error(sc->e->diag, e->loc, "@perf is not supported yet");
		break;
	case AST_E_STAT:
		resolve_expr(sc, e->u.stat.operand);
		break;
	case AST_E_HIST:
		resolve_expr(sc, e->u.hist.operand);
		break;
	default:
		break;
	}
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

static void resolve_stmt(struct scope *sc, struct ast_stmt *s)
{
	struct ast_expr *x;
	size_t i;

	if (!s)
		return;
	switch (s->kind) {
	case AST_S_BLOCK:
		for (i = 0; i < s->u.block.n; i++)
			resolve_stmt(sc, s->u.block.v[i]);
		break;
	case AST_S_EXPR:
	case AST_S_RETURN:
		if (s->u.expr)
			resolve_expr(sc, s->u.expr);
		if (s->kind == AST_S_RETURN && !sc->fn)
			diag_error(sc->e->diag, s->loc, "cannot 'return' from "
				   "a probe");
		break;
	case AST_S_IF:
		resolve_expr(sc, s->u.if_.cond);
		resolve_stmt(sc, s->u.if_.then);
		resolve_stmt(sc, s->u.if_.els);
		break;
	case AST_S_WHILE:
	case AST_S_FOR:
		if (s->u.loop.init)
			resolve_expr(sc, s->u.loop.init);
		if (s->u.loop.cond)
			resolve_expr(sc, s->u.loop.cond);
		if (s->u.loop.incr)
			resolve_expr(sc, s->u.loop.incr);
		resolve_stmt(sc, s->u.loop.body);
		break;
	case AST_S_FOREACH:
		resolve_foreach(sc, s);
		break;
	case AST_S_DELETE:
		x = s->u.expr;
		if (x->kind == AST_E_INDEX && x->u.index.base->kind == AST_E_VAR)
			resolve_index(sc, x, true);
		else if (x->kind == AST_E_VAR)
			x->sym = lookup(sc, x->u.var.name, x->loc);
		else
			diag_error(sc->e->diag, x->loc, "delete needs a "
				   "variable, an array or an array element");
		break;
	case AST_S_TRY:
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
		break;
	default:
		break;
	}
}

static void take_locals(struct scope *sc, struct elab_sym ***v, size_t *n)
{
	*v = sc->locals.v;
	*n = sc->locals.n;
}

static void resolve_func(struct elab *e, struct elab_func *f)
{
	struct scope sc = { .e = e, .fn = f };
	size_t i;

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

int elab_resolve_probe(struct elab *e, struct elab_probe *p)
{
	struct scope sc = { .e = e, .probe = p };

	resolve_stmt(&sc, p->body);
	take_locals(&sc, &p->locals, &p->nlocals);
	return 0;
}

/* ---- the driver -------------------------------------------------------- */

struct elab *elab_new(struct ast_script *script, struct diag *d,
		      const struct elab_opts *opts)
{
	struct elab *e = xcalloc(1, sizeof(*e));
	size_t i, nuser = script->probes.n;
	unsigned errs = diag_errors(d);

	e->script = script;
	e->diag = d;
	e->opts = opts;
	/* user globals exist (and are numbered) in declaration order */
	for (i = 0; i < script->globals.n; i++)
		if (!script->globals.v[i]->library)
			find_global(e, script->globals.v[i]->name);
	for (i = 0; i < nuser && !diag_full(d); i++)
		if (!script->probes.v[i]->library)
			elab_expand_probe(e, script->probes.v[i], false);
	if (opts->listing && !opts->listing_vars)
		return e;
	if (!e->probes.n && diag_errors(d) == errs && !opts->listing) {
		diag_error(d, (struct diag_loc){ 0 }, "no probes found");
		return e;
	}
	for (i = 0; i < e->probes.n && !diag_full(d); i++)
		elab_resolve_probe(e, e->probes.v[i]);
	if (diag_errors(d) != errs)
		return e;
	if (elab_pass_types(e) < 0 || opts->listing)
		return e;
	elab_pass_filters(e);
	if (!opts->no_display)
		elab_pass_display(e);
	elab_pass_counting(e);
	return e;
}

void elab_free(struct elab *e)
{
	size_t i, j;

	if (!e)
		return;
	for (i = 0; i < e->probes.n; i++) {
		struct elab_probe *p = e->probes.v[i];

		prov_probe_free(p->pp);
		ast_stmt_free(p->body);
		for (j = 0; j < p->nlocals; j++)
			sym_free(p->locals[j]);
		free(p->locals);
		free(p->cond_filter);
		free(p->alias);
		free(p);
	}
	free(e->probes.v);
	for (i = 0; i < e->funcs.n; i++) {
		struct elab_func *f = e->funcs.v[i];

		for (j = 0; j < f->nlocals; j++)
			sym_free(f->locals[j]);
		free(f->locals);
		free(f);
	}
	free(e->funcs.v);
	for (i = 0; i < e->globals.n; i++)
		sym_free(e->globals.v[i]);
	free(e->globals.v);
	free(e);
}
