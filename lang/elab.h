/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_ELAB_H
#define TAPKIT_LANG_ELAB_H

/*
 * The elaborator: from a parsed script to resolved, typed probes.
 *
 * A chain of passes, as stap's semantic_pass(), each in a file of its
 * own; elab_new() runs them in this order and stops at the first that
 * fails (lang/elab_pass.h):
 *   1. globals  the user's globals numbered in declaration order (elab.c)
 *   2. probes   every probe point expanded through aliases (user's and
 *               tapsets') and the providers (lang/provider.h); each
 *               concrete probe gets its own copy of the body, alias
 *               prologues before it and epilogues after it
 *               (elab_probes.c); -l stops here
 *   3. symbols  names resolved to locals, globals, functions and built-ins;
 *               tapsets are parsed only when something is unresolved;
 *               constructs that need what tapkit lacks (stacks, memory)
 *               reported (elab_symbols.c, elab_mem.c)
 *   4. types    long/string/stats inferred to a fixed point; mismatches
 *               reported at the use; printf formats checked
 *               (elab_types.c); -L stops here
 *   5. filters  leading conditions offered to providers as kernel filters
 *               (elab_filter.c)
 *   6. display  globals written and never read are printed at the end
 *               (stap's add_global_var_display; elab_display.c)
 *   7. counting handlers that only count are counted by the kernel
 *               (elab_count.c)
 *
 * Each pass that traverses code walks it with lang/walk.c's visitor.
 * The AST is annotated in place: ast_expr.type, and for names ast_expr.sym
 * (a struct elab_sym *) or for calls ast_expr.sym (struct elab_func *) /
 * ast_expr.slot (a built-in's id + 1).
 */
#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/lex.h"
#include "lang/map.h"
#include "lang/provider.h"
#include "lang/stat.h"

enum elab_symkind {
	ELAB_LOCAL,
	ELAB_GLOBAL,
};

/* A variable: a local of a probe or function, or a global. */
struct elab_sym {
	enum elab_symkind kind;
	char *name;
	struct diag_loc loc;	/* declaration or first use */
	enum ast_type type;	/* value type (AST_T_STATS for <<<) */
	int nkeys;		/* 0: scalar; -1: not known yet */
	enum ast_type keys[MAP_MAX_KEYS];
	int index;		/* local: frame slot; global: global number */
	bool read, written;	/* by reachable code (for auto-print) */
	bool used;
	/* globals */
	struct ast_global *decl;
	/* statistics: histogram and @variance uses, all must agree */
	enum stat_hist hist;
	int64_t hist_params[3];
	bool variance;
	int bit_shift;
	bool hist_set;
};

struct elab_func {
	struct ast_func *decl;
	enum ast_type type;	/* return type */
	struct elab_sym **locals;	/* params first */
	size_t nlocals;
	size_t nparams;
	bool used;		/* reachable from a probe */
	bool resolved;
	bool stacks;		/* uses a stack built-in, itself or below */
	int index;
};

/* One concrete probe with its handler. */
struct elab_probe {
	struct prov_probe *pp;	/* owned */
	char *alias;		/* the alias point it was reached by ("signal.send"),
				 * NULL when none; owned */
	struct ast_probe *src;	/* the declaration it comes from */
	struct ast_stmt *body;	/* owned: aliases merged in, a copy */
	struct elab_sym **locals;
	size_t nlocals;
	char *cond_filter;	/* the leading condition in ftrace syntax, or NULL */
	bool cond_dropped;	/* the provider took it: not in body any more */
	bool synthetic;		/* global display: not in -p2 listings */
	bool entry;		/* @entry's probe for another: not in -l/-L */
	/* statements the symbols pass appends to the body after resolving
	 * it (@entry's cleanup); empty after it */
	struct { struct ast_stmt **v; size_t n, cap; } tail;
};

struct tpath;

struct elab_opts {
	const char *const *tapset_dirs;	/* searched in order; NULL-ended */
	const struct lex_config *lex;	/* for parsing tapsets */
	bool listing;			/* -l/-L: only probe points matter */
	bool listing_vars;		/* -L: and the variables' types */
	bool no_display;		/* -p1..: no auto-print of globals */
	bool has_target;		/* -c or -x: target() is a process */
	/* -c's program (its first word through $PATH) or -x's executable:
	 * what a bare process.function("f") probes; NULL when unknown */
	const char *target_exe;
	pid_t target_pid;		/* -x's PID (the view that counts for
					 * its libraries), 0 with -c */
	/* the probe families, asked in order; NULL-ended (prov/prov.h) */
	const struct provider *const *providers;
	/* @cast of a constant (offsetof, sizeof, @type_member_defined):
	 * the layout of @type in @module, as prov/layout.h's prov_layout();
	 * NULL: such casts are refused */
	int (*layout)(const char *module, const char *type,
		      const struct tpath *path, int64_t *value, char *err,
		      size_t errlen);
};

struct elab {
	struct ast_script *script;	/* not owned */
	struct diag *diag;		/* not owned */
	struct { struct elab_sym **v; size_t n, cap; } globals;
	struct { struct elab_func **v; size_t n, cap; } funcs;
	struct { struct elab_probe **v; size_t n, cap; } probes;
	const struct elab_opts *opts;
	bool tapsets_loaded;
	/* the tapset files something of the script uses, and how many of
	 * them had their probes joined (elab_join_tapsets()) */
	struct { const struct diag_file **v; size_t n, cap; } used;
	size_t joined;
	unsigned errors0;		/* diag_errors() as elab_new() began */
};

/**
 * elab_new() - elaborate @script
 * @script: the parsed script (tapsets are added to it when needed)
 * @d: receives every error
 * @opts: tapset directories and modes
 *
 * Return: the result (free with elab_free()); check diag_errors(@d): the
 * result is only fit for code generation when no error was reported.
 */
struct elab *elab_new(struct ast_script *script, struct diag *d,
		      const struct elab_opts *opts);
void elab_free(struct elab *e);

/* The symbol an lvalue or array expression names (VAR/INDEX/HIST base),
 * or NULL. */
struct elab_sym *elab_expr_sym(const struct ast_expr *e);

/* -p2: globals, functions and probes with their locals, mechanism, body. */
void elab_print(const struct elab *e, FILE *f);

#endif
