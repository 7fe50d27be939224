// SPDX-License-Identifier: GPL-2.0
/*
 * The lexer of the probe language: characters to raw tokens, as
 * systemtap's lexer::scan() in parse.cxx.  The preprocessor (lang/pp.c)
 * pulls its tokens from lex_next() and hands the parser the result.
 *
 * Script arguments are pasted here, as characters: "$1" inserts the
 * argument's text into the buffer at the cursor and scanning goes on
 * through it, so `$1` = "5" is the number 5 and `@1` = `a"b` the string
 * "a\"b".  Tokens lexed from pasted text are located at the `$1`.  A `$N`
 * inside pasted text is an error (no recursive substitution), as in stap.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/lex.h"

struct lexer {
	struct diag *d;
	const struct diag_file *file;
	const char *const *argv;	/* script arguments: $1 is argv[0] */
	int argc;

	/* a private copy of the text, arguments pasted in */
	char *buf;
	size_t len, pos;
	unsigned line, col;
	size_t paste_left;	/* pasted bytes still to read */
	unsigned saved_line, saved_col;	/* the cursor after the `$N` */
	unsigned end_line, end_col;	/* just past the last token */
	bool quiet;		/* no lexical errors (lex_set_quiet()) */
};

static const char *const kind_str[TOK_NKINDS] = {
	[TOK_EOF] = "end of input",
	[TOK_ERROR] = "invalid token",
	[TOK_IDENT] = "identifier",
	[TOK_NUMBER] = "number",
	[TOK_STRING] = "string",
	[TOK_ATWORD] = "@-word",
	[TOK_EMBEDDED] = "embedded C code",

	[TOK_PROBE] = "probe", [TOK_GLOBAL] = "global",
	[TOK_PRIVATE] = "private", [TOK_FUNCTION] = "function",
	[TOK_IF] = "if", [TOK_ELSE] = "else", [TOK_FOR] = "for",
	[TOK_FOREACH] = "foreach", [TOK_IN] = "in", [TOK_LIMIT] = "limit",
	[TOK_RETURN] = "return", [TOK_DELETE] = "delete",
	[TOK_WHILE] = "while", [TOK_BREAK] = "break",
	[TOK_CONTINUE] = "continue", [TOK_NEXT] = "next",
	[TOK_STRING_KW] = "string", [TOK_LONG_KW] = "long",
	[TOK_TRY] = "try", [TOK_CATCH] = "catch",

	[TOK_LPAREN] = "(", [TOK_RPAREN] = ")", [TOK_LBRACKET] = "[",
	[TOK_RBRACKET] = "]", [TOK_LBRACE] = "{", [TOK_RBRACE] = "}",
	[TOK_COMMA] = ",", [TOK_SEMI] = ";", [TOK_COLON] = ":",
	[TOK_QUESTION] = "?", [TOK_DOT] = ".", [TOK_PLUS] = "+",
	[TOK_MINUS] = "-", [TOK_STAR] = "*", [TOK_SLASH] = "/",
	[TOK_PERCENT] = "%", [TOK_ASSIGN] = "=", [TOK_LT] = "<",
	[TOK_GT] = ">", [TOK_NOT] = "!", [TOK_TILDE] = "~", [TOK_AMP] = "&",
	[TOK_PIPE] = "|", [TOK_CARET] = "^", [TOK_EQ] = "==", [TOK_NE] = "!=",
	[TOK_LE] = "<=", [TOK_GE] = ">=", [TOK_MATCH] = "=~",
	[TOK_NOMATCH] = "!~", [TOK_ADD_ASSIGN] = "+=", [TOK_SUB_ASSIGN] = "-=",
	[TOK_MUL_ASSIGN] = "*=", [TOK_DIV_ASSIGN] = "/=",
	[TOK_MOD_ASSIGN] = "%=", [TOK_AND_ASSIGN] = "&=",
	[TOK_XOR_ASSIGN] = "^=", [TOK_OR_ASSIGN] = "|=", [TOK_CAT_ASSIGN] = ".=",
	[TOK_SHL_ASSIGN] = "<<=", [TOK_SHR_ASSIGN] = ">>=",
	[TOK_STAT_ADD] = "<<<", [TOK_ANDAND] = "&&", [TOK_OROR] = "||",
	[TOK_INC] = "++", [TOK_DEC] = "--", [TOK_ARROW] = "->",
	[TOK_SHL] = "<<", [TOK_SHR] = ">>", [TOK_PP_OPEN] = "%(",
	[TOK_PP_THEN] = "%?", [TOK_PP_ELSE] = "%:", [TOK_PP_CLOSE] = "%)",
};

const char *lex_kind_str(enum tok kind)
{
	return (unsigned)kind < TOK_NKINDS ? kind_str[kind] : "?";
}

static struct diag_loc mkloc(const struct lexer *lx, unsigned line,
			     unsigned col)
{
	return (struct diag_loc){ .file = lx->file, .line = line, .col = col };
}

void lex_token_release(struct token *t)
{
	free(t->text);
	memset(t, 0, sizeof(*t));
}

void lex_token_copy(struct token *dst, const struct token *src)
{
	*dst = *src;
	dst->text = xmalloc(src->len + 1);
	memcpy(dst->text, src->text, src->len);
	dst->text[src->len] = '\0';
}

static void set_text(struct token *t, const char *s, size_t len)
{
	free(t->text);
	t->text = xmalloc(len + 1);
	memcpy(t->text, s, len);
	t->text[len] = '\0';
	t->len = len;
}

char *lex_quote(const char *s, size_t len)
{
	char *out = xmalloc(4 * len + 1), *o = out;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;

		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\t': esc = "\\t"; break;
		case '\r': esc = "\\r"; break;
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\v': esc = "\\v"; break;
		}
		if (esc) {
			o = stpcpy(o, esc);
		} else if (c < 0x20 || c == 0x7f) {
			o += sprintf(o, "\\%03o", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return out;
}

/* ---------------------------------------------------------------- */
/* The scanner                                                       */

static int peekc(const struct lexer *lx, size_t n)
{
	return lx->pos + n < lx->len ? (unsigned char)lx->buf[lx->pos + n] : -1;
}

static int getch(struct lexer *lx)
{
	int c = peekc(lx, 0);

	if (c < 0)
		return c;
	lx->pos++;
	if (lx->paste_left) {
		/* pasted text keeps the location of its `$N` */
		if (--lx->paste_left == 0) {
			lx->line = lx->saved_line;
			lx->col = lx->saved_col;
		}
	} else if (c == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	return c;
}

/* Insert @text at the cursor; it is read next, located at @at. */
static void paste(struct lexer *lx, const char *text, struct diag_loc at)
{
	size_t n = strlen(text);

	if (!n)
		return;
	lx->buf = xrealloc(lx->buf, lx->len + n + 1);
	memmove(lx->buf + lx->pos + n, lx->buf + lx->pos, lx->len - lx->pos + 1);
	memcpy(lx->buf + lx->pos, text, n);
	lx->len += n;
	lx->paste_left = n;
	lx->saved_line = lx->line;
	lx->saved_col = lx->col;
	lx->line = at.line;
	lx->col = at.col;
}

static void lex_error(struct lexer *lx, struct diag_loc loc, const char *fmt,
		      ...) __attribute__((format(printf, 3, 4)));

static void lex_error(struct lexer *lx, struct diag_loc loc, const char *fmt,
		      ...)
{
	va_list ap;

	if (lx->quiet)
		return;
	va_start(ap, fmt);
	diag_vreport(lx->d, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

/*
 * `$N`, `@N`, `$#`, `@#` at @loc, the '$' or '@' (@sigil) already read:
 * paste the substitution and return true, or report and return false.
 */
static bool paste_argument(struct lexer *lx, int sigil, struct diag_loc loc,
			   bool nested)
{
	char num[32], *q, *text;
	const char *arg;
	unsigned long idx = 0;
	bool quoted = sigil == '@';

	if (peekc(lx, 0) == '#') {
		getch(lx);
		if (nested) {
			lex_error(lx, loc, "invalid nested substitution of "
				  "command line arguments");
			return false;
		}
		snprintf(num, sizeof(num), "%d", lx->argc);
		arg = num;
	} else {
		while (isdigit(peekc(lx, 0))) {
			int c = getch(lx);

			if (idx < 1000000)
				idx = idx * 10 + (unsigned long)(c - '0');
		}
		if (nested) {
			lex_error(lx, loc, "invalid nested substitution of "
				  "command line arguments");
			return false;
		}
		if (idx == 0 || idx > (unsigned long)lx->argc) {
			if (lx->argc > 0)
				lex_error(lx, loc, "command line argument index "
					  "%lu out of range [1-%d]", idx,
					  lx->argc);
			else
				lex_error(lx, loc, "command line argument index "
					  "%lu out of range (no arguments given)",
					  idx);
			return false;
		}
		arg = lx->argv[idx - 1];
	}
	if (!quoted) {
		paste(lx, arg, loc);
		return true;
	}
	q = lex_quote(arg, strlen(arg));
	text = xasprintf("\"%s\"", q);
	paste(lx, text, loc);
	free(text);
	free(q);
	return true;
}

static bool is_ident_char(int c)
{
	return c >= 0 && (isalnum(c) || c == '_' || c == '$');
}

static void scan_number(struct lexer *lx, struct token *t, size_t start)
{
	unsigned long long v;
	char *end;

	while (peekc(lx, 0) >= 0 && isalnum(peekc(lx, 0)))
		getch(lx);
	t->kind = TOK_NUMBER;
	set_text(t, lx->buf + start, lx->pos - start);
	errno = 0;
	v = strtoull(t->text, &end, 0);
	if (*end || errno) {
		lex_error(lx, t->loc, errno == ERANGE && !*end ?
			  "number '%s' out of range" : "invalid number '%s'",
			  t->text);
		t->kind = TOK_ERROR;	/* reported: the parser stays quiet */
		v = 0;
	}
	t->num = v;
}

static void scan_string(struct lexer *lx, struct token *t)
{
	size_t cap = 32, n = 0;
	char *s = xmalloc(cap);
	int c, i, v;

	for (;;) {
		c = getch(lx);
		if (c < 0 || c == '\n') {
			lex_error(lx, t->loc, "unterminated string literal");
			break;
		}
		if (c == '"')
			break;
		if (c == '\\') {
			c = getch(lx);
			switch (c) {
			case -1:
				lex_error(lx, t->loc, "unterminated string literal");
				goto out;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case '0': case '1': case '2': case '3':
			case '4': case '5': case '6': case '7':
				v = c - '0';
				for (i = 1; i < 3 && peekc(lx, 0) >= '0' &&
					    peekc(lx, 0) <= '7'; i++)
					v = v * 8 + (getch(lx) - '0');
				c = v & 0xff;
				break;
			case 'x':
				if (!isxdigit(peekc(lx, 0)))
					break;	/* "\x" alone is 'x' */
				v = 0;
				for (i = 0; i < 2 && isxdigit(peekc(lx, 0)); i++) {
					int h = getch(lx);

					v = v * 16 + (isdigit(h) ? h - '0' :
						      tolower(h) - 'a' + 10);
				}
				c = v;
				break;
			default:
				break;	/* \\, \", and stap's \q == q */
			}
		}
		if (n + 1 >= cap) {
			cap *= 2;
			s = xrealloc(s, cap);
		}
		s[n++] = (char)c;
	}
out:
	s[n] = '\0';
	t->kind = TOK_STRING;
	free(t->text);
	t->text = s;
	t->len = n;
}

/* After "%{": the code up to "%}" as TOK_EMBEDDED. */
static void scan_embedded(struct lexer *lx, struct token *t)
{
	size_t start = lx->pos;

	for (;;) {
		int c = getch(lx);

		if (c < 0) {
			lex_error(lx, t->loc, "unterminated embedded C code, "
				  "missing '%%}'");
			t->kind = TOK_ERROR;
			set_text(t, "%{", 2);
			return;
		}
		if (c == '%' && peekc(lx, 0) == '}') {
			getch(lx);
			break;
		}
	}
	t->kind = TOK_EMBEDDED;
	set_text(t, lx->buf + start, lx->pos - start - 2);
}

static bool scan_operator(struct lexer *lx, struct token *t, size_t start)
{
	size_t n, len, avail = lx->len - start;
	int k;

	for (len = 3; len >= 1; len--) {
		if (len > avail)
			continue;
		for (k = TOK_LPAREN; k < TOK_NKINDS; k++) {
			if (strlen(kind_str[k]) == len &&
			    !memcmp(lx->buf + start, kind_str[k], len)) {
				for (n = 1; n < len; n++)
					getch(lx);
				t->kind = (enum tok)k;
				set_text(t, kind_str[k], len);
				return true;
			}
		}
	}
	return false;
}

static enum tok keyword(const char *s)
{
	int k;

	for (k = TOK_PROBE; k <= TOK_CATCH; k++)
		if (!strcmp(s, kind_str[k]))
			return (enum tok)k;
	return TOK_IDENT;
}

void lex_next(struct lexer *lx, struct token *t)
{
	bool space = false, nested;
	size_t start;
	int c, c2;

	memset(t, 0, sizeof(*t));
again:
	nested = lx->paste_left > 0;
	t->loc = mkloc(lx, lx->line, lx->col);
	start = lx->pos;
	c = getch(lx);
	if (c < 0) {
		t->kind = TOK_EOF;
		t->loc = mkloc(lx, lx->end_line, lx->end_col);
		set_text(t, "", 0);
		t->space_before = space;
		return;
	}
	if (isspace(c)) {
		space = true;
		goto again;
	}
	c2 = peekc(lx, 0);
	t->space_before = space;

	if ((c == '$' || c == '@') && (c2 == '#' || isdigit(c2))) {
		if (paste_argument(lx, c, t->loc, nested))
			goto again;
		t->kind = TOK_ERROR;
		set_text(t, lx->buf + start, lx->pos - start);
	} else if (isalpha(c) || c == '_' || c == '$' || c == '@') {
		while (is_ident_char(peekc(lx, 0)))
			getch(lx);
		set_text(t, lx->buf + start, lx->pos - start);
		t->kind = c == '@' ? TOK_ATWORD : keyword(t->text);
	} else if (isdigit(c)) {
		scan_number(lx, t, start);
	} else if (c == '"') {
		scan_string(lx, t);
	} else if (c == '#' || (c == '/' && c2 == '/')) {
		while ((c = getch(lx)) >= 0 && c != '\n')
			;
		space = true;
		goto again;
	} else if (c == '/' && c2 == '*') {
		getch(lx);
		for (;;) {
			c = getch(lx);
			if (c < 0) {
				lex_error(lx, t->loc, "unterminated comment");
				break;
			}
			if (c == '*' && peekc(lx, 0) == '/') {
				getch(lx);
				break;
			}
		}
		space = true;
		goto again;
	} else if (c == '%' && c2 == '{') {
		getch(lx);
		scan_embedded(lx, t);
	} else if (!scan_operator(lx, t, start)) {
		if (isprint(c))
			lex_error(lx, t->loc, "stray '%c' in program", c);
		else
			lex_error(lx, t->loc, "stray '\\%03o' in program", c);
		t->kind = TOK_ERROR;
		set_text(t, lx->buf + start, 1);
	}
	lx->end_line = lx->line;
	lx->end_col = lx->col;
}


struct lexer *lex_new(struct diag *d, const struct diag_file *src,
		      const struct lex_config *cfg)
{
	struct lexer *lx = xcalloc(1, sizeof(*lx));

	lx->d = d;
	lx->file = src;
	if (cfg && cfg->argc > 0 && cfg->argv) {
		lx->argv = cfg->argv;
		lx->argc = cfg->argc;
	}
	lx->buf = xmalloc(src->len + 1);
	memcpy(lx->buf, src->text, src->len + 1);
	lx->len = src->len;
	lx->line = lx->col = 1;
	lx->end_line = lx->end_col = 1;
	return lx;
}

void lex_set_quiet(struct lexer *lx, bool quiet)
{
	lx->quiet = quiet;
}

void lex_free(struct lexer *lx)
{
	if (!lx)
		return;
	free(lx->buf);
	free(lx);
}
