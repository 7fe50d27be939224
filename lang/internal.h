/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_INTERNAL_H
#define TAPKIT_LANG_INTERNAL_H

/*
 * Declarations shared by the files of lang/'s front end and nobody else:
 * the lexer state of lex.c and its preprocessor pp.c, and the parser
 * state of parse.c and its expression grammar parse_expr.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/lex.h"

/* ---- lexer (lex.c, pp.c) ---------------------------------------------- */

struct tokvec {
	struct token *v;
	size_t n, cap;
};

struct macro {
	struct macro *next;
	char *name;		/* without the '@' */
	char **params;
	size_t nparams;
	struct tokvec body;
	struct diag_loc loc;
};

/*
 * One expansion in progress, replaying a macro body or the argument given
 * for a parameter.  @scope is the activation whose parameters an `@name`
 * met while replaying refers to: the activation itself for a macro body,
 * the invoker's scope (@caller of the macro activation) for an argument.
 * Scopes always lie deeper in the stack, so they outlive their users.
 */
struct act {
	struct act *down;
	const struct tokvec *toks;
	size_t pos;
	struct macro *macro;	/* NULL when replaying an argument */
	struct tokvec *args;	/* macro->nparams argument token lists */
	struct act *scope;
	struct act *caller;
};

enum pp_state { PP_KEEP_THEN, PP_SKIP_THEN, PP_KEEP_ELSE, PP_SKIP_ELSE };

struct pp_cond {
	struct diag_loc loc;	/* of its %( */
	enum pp_state state;
};

struct lexer {
	struct diag *d;
	const struct diag_file *file;
	struct lex_config cfg;
	char *kernel_v;		/* derived from kernel_vr when not given */

	/* scanner: a private copy of the text, arguments pasted in */
	char *buf;
	size_t len, pos;
	unsigned line, col;
	size_t paste_left;	/* pasted bytes still to read */
	unsigned saved_line, saved_col;	/* the cursor after the `$N` */
	unsigned end_line, end_col;	/* just past the last token */
	bool quiet;		/* skipping a branch: no lexical errors */

	/* macros */
	struct macro *macros;
	struct act *top;
	unsigned depth;
	struct diag_loc outer;	/* the invocation the stack started from */
	struct token pending;	/* one token pushed back at file level */
	bool has_pending;

	/* conditionals */
	struct pp_cond *conds;
	size_t nconds, conds_cap;
};

/* Append *@t to @v, taking its text; *@t is left empty. */
void lex_tokvec_push(struct tokvec *v, struct token *t);
/* Release every token of @v and its array; @v is left empty. */
void lex_tokvec_release(struct tokvec *v);
/* The next raw token: no macros, no conditionals (layer 1, lex.c). */
void lex_scan(struct lexer *lx, struct token *t);
/* Abandon every expansion in progress (after a runaway recursion). */
void pp_unwind(struct lexer *lx);
/* Free a macro definition. */
void pp_macro_free(struct macro *m);

/* ---- parser (parse.c, parse_expr.c) ------------------------------------ */

struct parser {
	struct lexer *lx;
	struct diag *d;
	struct ast_script *script;
	const struct diag_file *file;
	struct token tok;	/* the lookahead */
	unsigned long ntok;	/* tokens consumed: recovery must progress */
	long depth;		/* '(' minus ')' consumed, for recover_head() */
	bool panic;		/* an error was reported: skip to resync */
	bool in_function;	/* 'return' is allowed */
	bool library;
};

/* Tokens and errors (parse.c). */
/* Consume the lookahead and read the next token. */
void parse_next(struct parser *p);
/* Is the lookahead of @kind? */
bool parse_at(const struct parser *p, enum tok kind);
/* Consume the lookahead if it is of @kind. */
bool parse_accept(struct parser *p, enum tok kind);
/* The text of the lookahead, which the caller now owns. */
char *parse_take_text(struct parser *p);
bool parse_is_keyword(enum tok k);
/* An identifier that is a plain name, not a $target or a lone '$'. */
bool parse_at_name(const struct parser *p);
/* A lone "$" or "$$": the pretty-printing suffix of a target variable. */
bool parse_at_dollars(const struct parser *p);
/* An error that leaves the token stream in order: no recovery needed. */
void parse_report(struct parser *p, struct diag_loc loc, const char *fmt,
		  ...) __attribute__((format(printf, 3, 4)));
/* A syntax error at the lookahead; later ones wait for the resync. */
void parse_syntax_error(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "expected WHAT before 'TOKEN'" / "expected WHAT at end of input" */
void parse_expected(struct parser *p, const char *what);
/* Consume a token of @kind or report "expected 'X' before ...". */
bool parse_expect(struct parser *p, enum tok kind);

/* Literals and expressions (parse_expr.c). */
/* number: [ '-' ] NUMBER   (into *@v; the literal's location in *@loc) */
bool parse_number(struct parser *p, int64_t *v, struct diag_loc *loc);
/* literal: string | number */
struct ast_expr *parse_literal(struct parser *p);
/* expression: assignment */
struct ast_expr *parse_expr(struct parser *p);
/* indexable: IDENT | hist_op */
struct ast_expr *parse_indexable(struct parser *p);
/* index_list: ( '*' | expression ) { ',' ... } ']'   ('[' already read) */
bool parse_index_list(struct parser *p, struct ast_exprs *args);
/* The statistical operation @name ("@count"...), else AST_STAT_NONE. */
enum ast_stat parse_stat_kind(const char *name);

#endif
