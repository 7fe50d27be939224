/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_PARSE_H
#define TAPKIT_LANG_PARSE_H

/*
 * The recursive-descent parser of the probe language (stap's grammar, as
 * in systemtap's parse.cxx; each function in parse.c starts with the rule
 * it implements).  It reads preprocessed tokens from lang/pp.h and adds
 * declarations to a struct ast_script.
 *
 * Errors are reported to the struct diag, all of them in one run: after a
 * syntax error the parser skips to the end of the statement (';', '}' or
 * a statement keyword) or, failing that, to the next top-level 'probe',
 * 'global', 'private' or 'function', and goes on, until the diag's error
 * limit.  A declaration with an error is not added to the script.  After
 * any error the script is incomplete: report and stop, but still free it.
 *
 * Not supported, reported as errors naming the construct: embedded C
 * (%{ %} at top level, as a function body or in an expression), @cast,
 * @var, @const, @probewrite, @kregister, @uregister, @kderef, @uderef.
 */
#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/lex.h"

enum {
	/* a tapset: declarations get library = true, -p1 leaves it out */
	PARSE_LIBRARY = 1 << 0,
};

/*
 * Parse @src (registered in @d) into @script, appending to what it holds:
 * the user's script and later tapsets can go into one script object.
 * @cfg (may be NULL) gives the script arguments and what %( %)
 * conditionals test.  Returns 0, or -EINVAL when errors were reported.
 */
int parse_source(struct ast_script *script, struct diag *d,
		 const struct diag_file *src, const struct lex_config *cfg,
		 unsigned flags);

/* The same for @len bytes of @text named @name ("<input>" for -e). */
int parse_text(struct ast_script *script, struct diag *d, const char *name,
	       const char *text, size_t len, const struct lex_config *cfg,
	       unsigned flags);

/*
 * The same for the file at @path.  If it cannot be read, reports
 * "cannot read 'PATH': REASON" and returns -errno.
 */
int parse_file(struct ast_script *script, struct diag *d, const char *path,
	       const struct lex_config *cfg, unsigned flags);

#endif
