/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_ELAB_PASS_H
#define TAPKIT_LANG_ELAB_PASS_H

/*
 * Declarations shared by the elaborator's files and nobody else: its
 * passes, one file each, and the symbol tables and tapsets they share
 * (elab.c).  elab_new() chains the passes in the order below.
 *
 * A pass works over the probes' bodies and the functions they reach,
 * traversing them with the AST walk (struct ast_visitor, lang/walk.c),
 * and returns
 *
 *	0		go on with the next pass;
 *	-EINVAL		stop: the errors are in the struct diag;
 *	ELAB_DONE	stop without an error: nothing more is needed in
 *			this mode (-l, -L).
 */
#include <stdbool.h>

#include "lang/ast.h"
#include "lang/elab.h"

#define ELAB_DONE 1

/* ---- the passes, in their order --------------------------------------- */

/* User globals numbered in declaration order (elab.c). */
int elab_pass_globals(struct elab *e);
/*
 * Every user probe's points expanded through aliases and providers into
 * concrete probes (elab_probes.c).  Its errors do not stop the chain
 * (the names are resolved too, so one run reports both); a script
 * without a single probe does.
 */
int elab_pass_probes(struct elab *e);
/*
 * Names resolved in every probe body and, through the calls, in every
 * function reached; built-ins that read memory get their read
 * (elab_mem.c).  -EINVAL when anything so far failed (elab_symbols.c).
 */
int elab_pass_symbols(struct elab *e);
/* Types inferred to a fixed point, then checked (elab_types.c). */
int elab_pass_types(struct elab *e);
/* Leading conditions offered to providers as kernel filters
 * (elab_filter.c). */
int elab_pass_filters(struct elab *e);
/* Globals written and never read printed at the end (elab_display.c). */
int elab_pass_display(struct elab *e);
/* Handlers that only count, counted by the kernel (elab_count.c). */
int elab_pass_counting(struct elab *e);

/* ---- what the passes share ---------------------------------------------- */

/* Expand @src's points and append the concrete probes (elab_probes.c);
 * -EINVAL when an error was reported. */
int elab_expand_probe(struct elab *e, struct ast_probe *src, bool synthetic);
/* Resolve the names in probe @p's body (elab_symbols.c), for probes
 * added after the symbols pass (the display's). */
void elab_resolve_probe(struct elab *e, struct elab_probe *p);

struct builtin;
/* A call of a built-in that reads memory, in probe @p (NULL: in a
 * function): through the provider's deref(), or an error (elab_mem.c). */
void elab_mem_call(struct elab *e, struct elab_probe *p, struct ast_expr *call,
		   const struct builtin *b);

/* Replace @e's contents by @n's, freeing what @e held and @n itself
 * (elab_symbols.c). */
void elab_replace_expr(struct ast_expr *e, struct ast_expr *n);

/*
 * Typed target expressions (elab_target.c).  elab_raw_call(): when @call
 * is register(), int_arg(N), returnval(), uaddr()..., turn it into a raw
 * target in place: 1, or -1 after reporting an error; 0 for any other
 * call.  elab_target_build(): the struct prov_target of target @t, freed
 * with elab_target_release(); -1 after an error (nothing to free).
 * elab_target_resolve(): have @p's provider resolve @t (its target()
 * hook); false when it cannot.  With @quiet (@defined()) nothing is
 * reported.
 */
struct tstep;
int elab_raw_call(struct elab *e, struct elab_probe *p, struct ast_expr *call,
		  bool quiet);
int elab_target_build(struct elab *e, struct elab_probe *p, struct ast_expr *t,
		      struct prov_target *out, bool quiet);
void elab_target_release(struct prov_target *t);
/* The steps of @t's components into @path (the steps array is the
 * caller's to free); -1 after an error. */
int elab_target_path(struct elab *e, const struct ast_expr *t,
		     struct tpath *path, struct tstep **steps, bool quiet);
/*
 * @cast(...) made simple before a provider sees it (elab_cast.c): a
 * constant pointer is answered from the type's layout (&@cast(0, "T")->m
 * becomes a number), &@cast(x, "T") becomes x, and @cast(x + N, "T")
 * keeps x as the pointer and N aside.  1 when @t is done (a number, x,
 * or with @quiet a member that exists), 0 when the provider resolves
 * it, -1 after an error (reported unless @quiet).
 */
int elab_cast(struct elab *e, struct elab_probe *p, struct ast_expr *t,
	      bool quiet);
/* (&@cast(x, "T"))->m...: @t (members of a value without a type) becomes
 * @cast(x, "T")->m..., which is what stap's @container_of(...)->m means;
 * true if it did. */
bool elab_cast_hoist(struct ast_expr *t);
/*
 * task_pid($p), task_execname(pointer_arg(1))...: in a kernel probe with
 * typed targets, a task function of a task pointer the probe fetches
 * becomes the read of its task_struct (elab_task.c).  1 when @call was
 * replaced, 0 when it stays a call, -1 after an error.
 */
int elab_task_call(struct elab *e, struct elab_probe *p, struct ast_expr *call);
/* A name for target @e in messages: "$p", "@cast", "@var", "int_arg". */
const char *elab_target_shown(const struct ast_expr *e);
bool elab_target_resolve(struct elab *e, struct elab_probe *p,
			 struct ast_expr *t, bool quiet);

/* @entry(expr) @at in return probe @p (NULL: in a function): a probe at
 * the entry saves expr, @at becomes the read of it (elab_entry.c).  0, or
 * -1 after reporting an error. */
int elab_entry(struct elab *e, struct elab_probe *p, struct ast_expr *at);

/* Symbol tables (elab.c). */
struct elab_sym *elab_sym_new(enum elab_symkind kind, const char *name,
			      struct diag_loc loc);
void elab_sym_free(struct elab_sym *s);
/* The global @name, entered in the table on first use (user globals
 * before tapsets'); NULL when none is declared. */
struct elab_sym *elab_find_global(struct elab *e, const char *name);
/* The same among the tapsets' globals alone with @library_only: what a
 * tapset function's names resolve to, never the script's globals. */
struct elab_sym *elab_find_global_in(struct elab *e, const char *name,
				     bool library_only);
/* The function @name taking @nargs arguments (-1: any), entered on first
 * use; NULL when none is declared with that many parameters. */
struct elab_func *elab_find_func(struct elab *e, const char *name, int nargs);
/*
 * Parse every .stp file of the tapset directories into the script, the
 * first time only: true when that added any (then look again for what
 * was missing).
 */
bool elab_load_tapsets(struct elab *e);
/*
 * As stap, a tapset file whose function, global or alias the script uses
 * brings its own probes (e.g. a procfs file it serves): elab_use_file()
 * notes the file of a declaration the script used, elab_join_tapsets()
 * adds the probes of the files noted since its last call.
 */
void elab_use_file(struct elab *e, const struct diag_file *file, bool library);
/* Drop the statements of tapset aliases in @body that set a local nothing
 * reads (lang/elab_unused.c). */
void elab_drop_unused(struct elab *e, struct ast_stmt *body);
void elab_join_tapsets(struct elab *e);

#endif
