// SPDX-License-Identifier: GPL-2.0
/*
 * The probes pass: every probe point of the user's probes expanded into
 * concrete probes, each with its own copy of the body.
 *
 * A point is asked of the aliases first (the user's and, once loaded, the
 * tapsets'), then of the providers (lang/provider.h) in order; when
 * nobody knows it, the tapsets are loaded and it is asked again.  An
 * alias's prologue runs before the body, innermost alias first, and its
 * epilogue after it, outermost first; a point's condition becomes
 * `if (!(cond)) next;` at the top.
 *
 * Tapsets are parsed only when something in the script is unresolved (a
 * function, or a probe point no alias and no provider claims), so a script
 * that needs none starts without reading a single tapset file.  A
 * consequence: a tapset global is visible only once tapsets were loaded for
 * another reason (stap reads them all up front).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/elab_pass.h"

#define ALIAS_DEPTH 16

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

/* Does @name match the first components of @pp, which has more: an alias
 * used with a suffix (`myalias.return`)? */
static bool alias_prefix_matches(const struct ast_pp *name,
				 const struct ast_pp *pp)
{
	struct ast_pp head;

	if (name->ncomps >= pp->ncomps)
		return false;
	head = *pp;
	head.ncomps = name->ncomps;
	return alias_matches(name, &head);
}

/* A copy of @base with the components of @use after its first @k (the
 * suffix an alias was used with) appended. */
static struct ast_pp *with_suffix(const struct ast_pp *base,
				  const struct ast_pp *use, size_t k)
{
	struct ast_pp *c = ast_pp_clone(base);
	size_t i, n = use->ncomps - k;

	c->comps = xrealloc(c->comps, (c->ncomps + n) * sizeof(*c->comps));
	for (i = 0; i < n; i++) {
		struct ast_ppcomp *d = &c->comps[c->ncomps + i];

		d->name = xstrdup(use->comps[k + i].name);
		d->arg = ast_expr_clone(use->comps[k + i].arg);
		d->loc = use->comps[k + i].loc;
	}
	c->ncomps += n;
	return c;
}

static struct ast_stmt *block_of(struct diag_loc loc)
{
	return ast_stmt_new(AST_S_BLOCK, loc);
}

static int expand_pp(struct elab *e, const struct ast_pp *pp, int depth,
		     struct expansions *out);
static char *pp_text(const struct ast_pp *pp);

/* Does @pp name its components with wildcards (`syscall.*`)? */
static bool pp_wild(const struct ast_pp *pp)
{
	size_t i;

	for (i = 0; i < pp->ncomps; i++)
		if (strpbrk(pp->comps[i].name, "*?["))
			return true;
	return false;
}

static bool all_optional(const struct ast_alias *a)
{
	size_t i;

	for (i = 0; i < a->pps.n; i++)
		if (!a->pps.v[i]->optional)
			return false;
	return a->pps.n > 0;
}

/*
 * Alias @a, used by @use as a point that must match, matched nothing, and
 * each of its points was optional: say why each did not match, as if it had
 * been required.  -EINVAL.
 */
static int alias_mismatch(struct elab *e, const struct ast_alias *a,
			  const struct ast_pp *name, const struct ast_pp *use,
			  size_t suffix, int depth)
{
	struct expansions none = { 0 };
	char *t = pp_text(name);
	size_t i;

	diag_error(e->diag, use->loc, "probe point mismatch: no match for "
		   "'%s', because none of its points matched:", t);
	free(t);
	for (i = 0; i < a->pps.n; i++) {
		struct ast_pp *p = suffix ? with_suffix(a->pps.v[i], use, suffix)
					  : ast_pp_clone(a->pps.v[i]);

		p->optional = false;
		expand_pp(e, p, depth + 1, &none);
		ast_pp_free(p);
	}
	/* a point that did match after all is not used: nothing of it
	 * reaches the program, which is not made */
	for (i = 0; i < none.n; i++) {
		prov_probe_free(none.v[i].pp);
		ast_stmt_free(none.v[i].head);
		ast_stmt_free(none.v[i].tail);
		free(none.v[i].alias);
	}
	free(none.v);
	return -EINVAL;
}

/*
 * Alias @a reached by its point @name from the script's @use; @suffix is
 * 0, or @name's number of components when @use goes on past them (stap's
 * alias suffixes: `probe a = kernel.function("f") { }` makes `a.return`
 * kernel.function("f").return, with a's body).
 */
static int expand_alias(struct elab *e, struct ast_alias *a,
			const struct ast_pp *name, const struct ast_pp *use,
			size_t suffix, int depth, struct expansions *out)
{
	struct expansions sub = { 0 };
	struct ast_stmt *epi;
	size_t i, j;
	int err = 0;

	for (i = 0; i < a->pps.n; i++) {
		size_t start = sub.n;
		struct ast_pp *p = suffix ? with_suffix(a->pps.v[i], use, suffix)
					  : NULL;

		/* an optional use makes each of the alias's points optional */
		if (use->optional && !a->pps.v[i]->optional) {
			if (!p)
				p = ast_pp_clone(a->pps.v[i]);
			p->optional = true;
		}
		if (expand_pp(e, p ? p : a->pps.v[i], depth + 1, &sub) < 0) {
			/* the error is at the alias's point: name the use
			 * (a point made with the use's suffix is at it) */
			if (!err && !p) {
				char *t = pp_text(name);

				diag_note(e->diag, use->loc, "in expansion of "
					  "the probe alias '%s' used here", t);
				free(t);
			}
			err = -EINVAL;
		}
		ast_pp_free(p);
		if (a->pps.v[i]->sufficient && sub.n > start)
			break;
	}
	/* (a wildcard's aliases that match nothing are no error: the
	 * wildcard as a whole must match something) */
	if (!sub.n && !err && !use->optional && !pp_wild(use) &&
	    !e->opts->listing && all_optional(a))
		return alias_mismatch(e, a, name, use, suffix, depth);
	epi = a->epilogue ? a->body : a->body2;
	for (j = 0; j < sub.n; j++) {
		struct expansion *x = &sub.v[j];

		free(x->alias);
		if (suffix) {
			struct ast_pp *n = with_suffix(name, use, suffix);

			x->alias = pp_text(n);
			ast_pp_free(n);
		} else {
			x->alias = pp_text(name);
		}
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

/*
 * stap's other syscall families (nd_syscall.* without DWARF, nd1_syscall.*,
 * dw_syscall.*) are the same points as syscall.* here, with the same
 * variables: all come from the syscall tracepoints.
 */
static const char *const syscall_twins[] = {
	"nd_syscall", "nd1_syscall", "dw_syscall",
};

static int expand_pp(struct elab *e, const struct ast_pp *pp, int depth,
		     struct expansions *out);

/*
 * Points of stap's tapsets that no kernel tapkit runs on still has: a
 * script using one is told why, instead of "no match".  @name is the
 * point's first components (what follows, e.g. .return, is the same).
 */
static const struct {
	const char *name, *why;
} retired[] = {		/* a NULL why: the one before it */
#define SYNC(op, instead) \
	{ "nfs.proc." op, "the kernel's NFS client no longer makes a " \
	  "synchronous " instead }, \
	{ "nfs.proc2." op, NULL }, { "nfs.proc3." op, NULL }, \
	{ "nfs.proc4." op, NULL }
	SYNC("read", "READ: nfs.proc.read_setup and nfs.proc.read_done are "
		     "its requests"),
	SYNC("write", "WRITE: nfs.proc.write_setup and nfs.proc.write_done are "
		      "its requests"),
	SYNC("rename", "RENAME: nfs.proc.rename_setup and "
		       "nfs.proc.rename_done are its requests"),
#undef SYNC
	{ "nfsd.proc2", "the kernel's NFS server is built without NFSv2 since "
			"Linux 6.2 (CONFIG_NFSD_V2): nfsd.proc3.* and "
			"nfsd.proc4.* are its procedures" },
};

/* The reason @pp is retired, or NULL. */
static const char *retired_why(const struct ast_pp *pp)
{
	char name[64];
	size_t i, k, len = 0;

	for (i = 0; i < sizeof(retired) / sizeof(*retired); i++) {
		const char *why = retired[i].why;

		for (k = i; !why; k--)
			why = retired[k].why;
		for (k = 0, len = 0; k < pp->ncomps && len < sizeof(name); k++) {
			int n = snprintf(name + len, sizeof(name) - len, "%s%s",
					 k ? "." : "", pp->comps[k].name);

			if (n < 0 || (size_t)n >= sizeof(name) - len)
				break;
			len += n;
			if (!strcmp(name, retired[i].name) && !pp->comps[k].arg)
				return why;
		}
	}
	return NULL;
}

/* A point of a syscall twin family expanded as its syscall.* point; 0 when
 * @pp is not one. */
static int expand_twin(struct elab *e, const struct ast_pp *pp, int depth,
		       struct expansions *out)
{
	struct ast_pp *as;
	size_t i, k, start;
	int r;

	if (!pp->ncomps)
		return 0;
	for (i = 0; i < sizeof(syscall_twins) / sizeof(*syscall_twins); i++)
		if (!strcmp(pp->comps[0].name, syscall_twins[i]))
			break;
	if (i == sizeof(syscall_twins) / sizeof(*syscall_twins))
		return 0;
	as = ast_pp_clone(pp);
	free(as->comps[0].name);
	as->comps[0].name = xstrdup("syscall");
	as->optional = true;	/* a mismatch is reported under its own name */
	start = out->n;
	r = expand_pp(e, as, depth + 1, out);
	ast_pp_free(as);
	if (r < 0)
		return r;
	/* listed and named (pp()) under the family the script used */
	for (k = start; k < out->n; k++) {
		char *a = out->v[k].alias;

		if (a && !strncmp(a, "syscall", 7)) {
			out->v[k].alias = xasprintf("%s%s", syscall_twins[i], a + 7);
			free(a);
		}
	}
	if (out->n == start && !pp->optional && !e->opts->listing) {
		char *text = pp_text(pp);

		diag_error(e->diag, pp->loc, "probe point mismatch: no match for '%s'",
			   text);
		free(text);
		return -EINVAL;
	}
	return 1;
}

/* Every alias that names @pp (@suffix: that names its first components,
 * the rest a suffix), expanded into @out; 0 or -EINVAL. */
static int expand_aliases(struct elab *e, const struct ast_pp *pp,
			  bool suffix, int depth, struct expansions *out)
{
	size_t i, k;
	int err = 0;

	for (i = 0; i < e->script->aliases.n; i++) {
		struct ast_alias *a = e->script->aliases.v[i];

		for (k = 0; k < a->names.n; k++) {
			const struct ast_pp *name = a->names.v[k];

			if (suffix ? !alias_prefix_matches(name, pp) :
				     !alias_matches(name, pp))
				continue;
			elab_use_file(e, a->loc.file, a->library);
			if (expand_alias(e, a, name, pp,
					 suffix ? name->ncomps : 0, depth,
					 out) < 0)
				err = -EINVAL;
			break;
		}
	}
	return err;
}

/* Ask the aliases, then the providers; load tapsets when nobody knows. */
static int expand_pp(struct elab *e, const struct ast_pp *pp, int depth,
		     struct expansions *out)
{
	const struct prov_env env = { e->diag, e->opts->listing,
				      e->opts->target_exe, e->opts->target_pid };
	struct prov_list list = { 0 };
	size_t start = out->n, i;
	int r, err = 0;
	bool tried_tapsets = false;
	char *text;

	if (depth > ALIAS_DEPTH) {
		diag_error(e->diag, pp->loc, "probe alias expansion too deep "
			   "(recursive alias?)");
		return -EINVAL;
	}
	r = expand_twin(e, pp, depth, out);
	if (r)
		return r < 0 ? r : 0;
again:
	err = expand_aliases(e, pp, false, depth, out);
	if (out->n > start || err)
		goto done;
	for (i = 0; e->opts->providers && e->opts->providers[i]; i++) {
		r = e->opts->providers[i]->expand(&env, pp, &list);
		if (r < 0) {
			err = -EINVAL;
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
	/* nothing has the whole point: an alias with a suffix */
	err = expand_aliases(e, pp, true, depth, out);
	if (out->n > start || err)
		goto done;
	if (!tried_tapsets) {
		tried_tapsets = true;
		if (elab_load_tapsets(e))
			goto again;
	}
	if (pp->optional || e->opts->listing)
		return 0;
	text = pp_text(pp);
	if (retired_why(pp))
		diag_error(e->diag, pp->loc, "'%s' is not offered: %s", text,
			   retired_why(pp));
	else
		diag_error(e->diag, pp->loc, "probe point mismatch: no match "
			   "for '%s'", text);
	free(text);
	return -EINVAL;
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
			err = -EINVAL;
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
		if (!e->opts->listing)	/* -L lists every variable */
			elab_drop_unused(e, p->body);
		p->src = src;
		p->synthetic = synthetic;
		p->pp->id = (int)e->probes.n;
		AST_VEC_PUSH(&e->probes, p);
	}
	free(ex.v);
	return err;
}

int elab_pass_probes(struct elab *e)
{
	size_t i, nuser = e->script->probes.n;

	for (i = 0; i < nuser && !diag_full(e->diag); i++)
		if (!e->script->probes.v[i]->library)
			elab_expand_probe(e, e->script->probes.v[i], false);
	if (!e->probes.n && diag_errors(e->diag) == e->errors0 &&
	    !e->opts->listing) {
		diag_error(e->diag, (struct diag_loc){ 0 }, "no probes found");
		return -EINVAL;
	}
	return 0;
}
