/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_LEX_H
#define TAPKIT_LANG_LEX_H

/*
 * The lexer of the SystemTap probe language: source text to raw tokens,
 * script arguments pasted in.
 *
 * $1..$N are replaced by the argument's text, which is then lexed (stap
 * pastes characters: $1 = "5" gives the number 5, $1 = "a.b" gives three
 * tokens), @1..@N by a string literal holding the argument, $# and @# by
 * the argument count (number / string).  Macros and %( %) conditionals
 * are the preprocessor's (lang/pp.h), which reads its tokens from here
 * and is what the parser reads from.
 *
 * Errors go to the struct diag; the token stream goes on after them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/diag.h"

enum tok {
	TOK_EOF,
	TOK_ERROR,	/* junk; its error was already reported */
	TOK_IDENT,	/* foo, $foo, $$vars, $foo$ */
	TOK_NUMBER,	/* num holds the value, text the lexeme */
	TOK_STRING,	/* text holds the decoded value, len its length */
	TOK_ATWORD,	/* @count, @define, @cast, @mymacro... */
	TOK_EMBEDDED,	/* %{ ... %}: text holds the C code */

	/* keywords */
	TOK_PROBE, TOK_GLOBAL, TOK_PRIVATE, TOK_FUNCTION, TOK_IF, TOK_ELSE,
	TOK_FOR, TOK_FOREACH, TOK_IN, TOK_LIMIT, TOK_RETURN, TOK_DELETE,
	TOK_WHILE, TOK_BREAK, TOK_CONTINUE, TOK_NEXT, TOK_STRING_KW,
	TOK_LONG_KW, TOK_TRY, TOK_CATCH,

	/* punctuation and operators */
	TOK_LPAREN, TOK_RPAREN, TOK_LBRACKET, TOK_RBRACKET, TOK_LBRACE,
	TOK_RBRACE, TOK_COMMA, TOK_SEMI, TOK_COLON, TOK_QUESTION, TOK_DOT,
	TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_PERCENT, TOK_ASSIGN,
	TOK_LT, TOK_GT, TOK_NOT, TOK_TILDE, TOK_AMP, TOK_PIPE, TOK_CARET,
	TOK_EQ, TOK_NE, TOK_LE, TOK_GE, TOK_MATCH, TOK_NOMATCH,
	TOK_ADD_ASSIGN, TOK_SUB_ASSIGN, TOK_MUL_ASSIGN, TOK_DIV_ASSIGN,
	TOK_MOD_ASSIGN, TOK_AND_ASSIGN, TOK_XOR_ASSIGN, TOK_OR_ASSIGN,
	TOK_CAT_ASSIGN, TOK_SHL_ASSIGN, TOK_SHR_ASSIGN, TOK_STAT_ADD,
	TOK_ANDAND, TOK_OROR, TOK_INC, TOK_DEC, TOK_ARROW, TOK_SHL, TOK_SHR,
	TOK_PP_OPEN, TOK_PP_THEN, TOK_PP_ELSE, TOK_PP_CLOSE,

	TOK_NKINDS
};

struct token {
	enum tok kind;
	char *text;		/* heap, owned; never NULL after lex_next() */
	size_t len;		/* bytes in text (a string may hold NULs) */
	uint64_t num;		/* TOK_NUMBER: the value; > INT64_MAX wraps */
	/* where the token starts; from a macro, loc.expanded_at is the
	 * outermost macro invocation */
	struct diag_loc loc;
	bool space_before;	/* whitespace or a comment precedes it */
};

/*
 * The front end's configuration: the script arguments the lexer pastes,
 * and what the preprocessor's conditionals compare against.  The command
 * fills it from its arguments, uname() and its options.  NULL fields take
 * the default noted.
 */
struct lex_config {
	const char *const *argv;	/* script arguments: $1 is argv[0] */
	int argc;
	const char *kernel_vr;	/* uname -r, "6.1.0-18-amd64"; NULL: "" */
	const char *kernel_v;	/* NULL: kernel_vr up to its first '-' */
	const char *arch;	/* "x86_64"; NULL: "" */
	const char *runtime;	/* NULL: "kernel" */
	const char *systemtap_v;	/* compatibility version; NULL: "5.0" */
	const char *privilege;	/* NULL: "stapusr" */
	int guru_mode;		/* value of guru_mode: 0 or 1 */
	/* CONFIG_XXX value ("y", "m", "64"...), or NULL when unset; when
	 * the configuration cannot be read, NULL and *err says why */
	const char *(*kconfig)(void *ctx, const char *name, const char **err);
	void *kconfig_ctx;
	/* macro libraries (stap's .stpm files): their @defines are known
	 * to every file the preprocessor reads; a file's own @define of the
	 * same name hides a library's */
	const struct diag_file *const *macro_libs;
	size_t nmacro_libs;
};

struct lexer;

/*
 * A lexer over @src (registered in @d, which receives the errors).  Of
 * @cfg (may be NULL) it uses the script arguments, which must live as
 * long as the lexer.  Free with lex_free().
 */
struct lexer *lex_new(struct diag *d, const struct diag_file *src,
		      const struct lex_config *cfg);
void lex_free(struct lexer *lx);

/*
 * The next raw token into *@t: script arguments pasted, no macros, no
 * conditionals (*@t is overwritten, not released: the caller owns t->text
 * and calls lex_token_release()).  At the end it returns TOK_EOF, again
 * and again.
 */
void lex_next(struct lexer *lx, struct token *t);

/* While @quiet, lexical errors are not reported (a skipped %( %) branch
 * may hold what this version cannot read). */
void lex_set_quiet(struct lexer *lx, bool quiet);

/* Free t->text and reset *@t to an empty TOK_EOF. */
void lex_token_release(struct token *t);
/* *@dst = a deep copy of *@src (dst is overwritten, not released). */
void lex_token_copy(struct token *dst, const struct token *src);

/*
 * The spelling of a keyword or operator kind ("while", "<<="), or a
 * description for the others ("identifier", "end of input").
 */
const char *lex_kind_str(enum tok kind);

/*
 * Escape @len bytes of @s as the body of a string literal (without the
 * quotes) that lexes back to the same bytes.  The caller frees.
 */
char *lex_quote(const char *s, size_t len);

#endif
