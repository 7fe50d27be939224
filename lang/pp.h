/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_PP_H
#define TAPKIT_LANG_PP_H

/*
 * The preprocessor of the SystemTap probe language, layered on the lexer
 * (lang/lex.h): it pulls raw tokens from lex_next() and hands the parser
 * preprocessed ones.
 *
 *   - macros: @define NAME %( body %) and @define NAME(a, b) %( ... @a ...
 *     %), invoked as @NAME or @NAME(x, y);
 *   - conditionals: %( COND %? tokens [%: tokens] %), COND comparing
 *     kernel_v, kernel_vr, systemtap_v (as versions, with globs for == and
 *     !=), arch, runtime, systemtap_privilege (globs), guru_mode,
 *     CONFIG_XXX, strings or numbers, joined with && and || (&& binds
 *     tighter) and grouped with parentheses (a tapkit extension).
 *
 * Errors go to the struct diag; the token stream goes on after them.
 */
#include "lang/diag.h"
#include "lang/lex.h"

/* Macro expansion deeper than this is reported as (likely) recursion. */
#define PP_MACRO_DEPTH 100

struct pp;

/*
 * A preprocessor over @src (registered in @d, which receives the errors),
 * with a lexer of its own.  @cfg may be NULL; it is copied, but the
 * strings it points to must live as long as the preprocessor.  Free with
 * pp_free().
 */
struct pp *pp_new(struct diag *d, const struct diag_file *src,
		  const struct lex_config *cfg);
void pp_free(struct pp *pp);

/*
 * The next preprocessed token into *@t (overwritten, not released: the
 * caller owns t->text and calls lex_token_release()).  At the end it
 * returns TOK_EOF, again and again.
 */
void pp_next(struct pp *pp, struct token *t);

/* The files of @dir whose names end in @suffix (".stp"), as "dir/name",
 * sorted; their count, with *@out an array the caller frees (each path
 * too).  0 when the directory cannot be read. */
size_t pp_dir_files(const char *dir, const char *suffix, char ***out);

/*
 * The macro libraries in @dirs (NULL-ended): every "*.stpm" file, sorted
 * by name within each directory, read and registered in @d.  The array
 * (*@out, freed by the caller) holds their count entries.
 */
size_t pp_macro_libs(struct diag *d, const char *const *dirs,
		     const struct diag_file ***out);

#endif
