/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_INTERNAL_H
#define TAPKIT_LANG_INTERNAL_H

/*
 * Declarations shared by the files of lang/'s parser and nobody else:
 * the parser state of parse.c and its expression grammar parse_expr.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/lex.h"
#include "lang/pp.h"

/* ---- parser (parse.c, parse_expr.c) ------------------------------------ */

struct parser {
	struct pp *pp;		/* the preprocessed token stream */
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
