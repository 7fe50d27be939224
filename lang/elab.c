// SPDX-License-Identifier: GPL-2.0
/*
 * The elaborator's driver: elab_new() chains the passes (one file each,
 * declared in elab_pass.h, described in elab.h), and this file keeps what
 * they share: the tables of globals and functions, entered on first use,
 * and the tapsets, parsed on demand.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/elab_pass.h"
#include "lang/parse.h"
#include "lang/pp.h"

/* ---- symbol tables ----------------------------------------------------- */

struct elab_sym *elab_sym_new(enum elab_symkind kind, const char *name,
			      struct diag_loc loc)
{
	struct elab_sym *s = xcalloc(1, sizeof(*s));

	s->kind = kind;
	s->name = xstrdup(name);
	s->loc = loc;
	s->nkeys = -1;
	return s;
}

void elab_sym_free(struct elab_sym *s)
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

struct elab_sym *elab_find_global_in(struct elab *e, const char *name,
				     bool library_only)
{
	struct ast_script *s = e->script;
	struct elab_sym *g;
	size_t i;

	for (i = 0; i < e->globals.n; i++)
		if (!strcmp(e->globals.v[i]->name, name) &&
		    (!library_only || (e->globals.v[i]->decl &&
				       e->globals.v[i]->decl->library)))
			return e->globals.v[i];
	/* user globals first, then tapsets' */
	for (int lib = library_only; lib < 2; lib++) {
		for (i = 0; i < s->globals.n; i++) {
			struct ast_global *d = s->globals.v[i];

			if (d->library != lib || strcmp(d->name, name))
				continue;
			elab_use_file(e, d->loc.file, d->library);
			g = elab_sym_new(ELAB_GLOBAL, name, d->loc);
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

struct elab_sym *elab_find_global(struct elab *e, const char *name)
{
	return elab_find_global_in(e, name, false);
}

/*
 * The function @name taking @nargs arguments (-1: any, the first of the
 * name): functions are overloaded by their number of parameters, as in
 * stap.  User functions come before tapsets'.
 */
struct elab_func *elab_find_func(struct elab *e, const char *name, int nargs)
{
	struct ast_script *s = e->script;
	struct elab_func *f;
	size_t i;

	for (i = 0; i < e->funcs.n; i++) {
		const struct ast_func *d = e->funcs.v[i]->decl;

		if (!strcmp(d->name, name) &&
		    (nargs < 0 || d->nparams == (size_t)nargs))
			return e->funcs.v[i];
	}
	for (int lib = 0; lib < 2; lib++) {
		for (i = 0; i < s->funcs.n; i++) {
			struct ast_func *d = s->funcs.v[i];

			if (d->library != lib || strcmp(d->name, name) ||
			    (nargs >= 0 && d->nparams != (size_t)nargs))
				continue;
			elab_use_file(e, d->loc.file, d->library);
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

bool elab_load_tapsets(struct elab *e)
{
	const char *const *dir;
	bool any = false;

	if (e->tapsets_loaded || !e->opts->tapset_dirs)
		return false;
	e->tapsets_loaded = true;
	for (dir = e->opts->tapset_dirs; *dir; dir++) {
		char **files;
		size_t i, n = pp_dir_files(*dir, ".stp", &files);

		for (i = 0; i < n; i++) {
			parse_file(e->script, e->diag, files[i],
				   e->opts->lex, PARSE_LIBRARY);
			free(files[i]);
			any = true;
		}
		free(files);
	}
	return any;
}

void elab_use_file(struct elab *e, const struct diag_file *file, bool library)
{
	size_t i;

	if (!library || !file)
		return;
	for (i = 0; i < e->used.n; i++)
		if (e->used.v[i] == file)
			return;
	AST_VEC_PUSH(&e->used, file);
}

void elab_join_tapsets(struct elab *e)
{
	struct ast_script *s = e->script;
	size_t i;

	for (; e->joined < e->used.n; e->joined++)
		for (i = 0; i < s->probes.n && !diag_full(e->diag); i++)
			if (s->probes.v[i]->library &&
			    s->probes.v[i]->loc.file == e->used.v[e->joined])
				elab_expand_probe(e, s->probes.v[i], false);
}

/* ---- the driver -------------------------------------------------------- */

int elab_pass_globals(struct elab *e)
{
	struct ast_script *s = e->script;
	size_t i;

	for (i = 0; i < s->globals.n; i++)
		if (!s->globals.v[i]->library)
			elab_find_global(e, s->globals.v[i]->name);
	return 0;
}

/* A stop in the chain for a listing mode that needs no more. */
static int done_if(bool done)
{
	return done ? ELAB_DONE : 0;
}

struct elab *elab_new(struct ast_script *script, struct diag *d,
		      const struct elab_opts *opts)
{
	struct elab *e = xcalloc(1, sizeof(*e));
	int err;

	e->script = script;
	e->diag = d;
	e->opts = opts;
	e->errors0 = diag_errors(d);

	err = elab_pass_globals(e);
	err = err ?: elab_pass_probes(e);
	err = err ?: done_if(opts->listing && !opts->listing_vars);	/* -l */
	err = err ?: elab_pass_symbols(e);
	err = err ?: elab_pass_types(e);
	err = err ?: done_if(opts->listing);				/* -L */
	err = err ?: elab_pass_filters(e);
	err = err ?: elab_pass_display(e);
	err = err ?: elab_pass_counting(e);
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
		for (j = 0; j < p->tail.n; j++)
			ast_stmt_free(p->tail.v[j]);
		free(p->tail.v);
		for (j = 0; j < p->nlocals; j++)
			elab_sym_free(p->locals[j]);
		free(p->locals);
		free(p->cond_filter);
		free(p->alias);
		free(p);
	}
	free(e->probes.v);
	free(e->used.v);
	for (i = 0; i < e->funcs.n; i++) {
		struct elab_func *f = e->funcs.v[i];

		for (j = 0; j < f->nlocals; j++)
			elab_sym_free(f->locals[j]);
		free(f->locals);
		free(f);
	}
	free(e->funcs.v);
	for (i = 0; i < e->globals.n; i++)
		elab_sym_free(e->globals.v[i]);
	free(e->globals.v);
	free(e);
}
