// SPDX-License-Identifier: GPL-2.0
/*
 * The lexer and preprocessor of the probe language.
 *
 * Three layers, each pulling tokens from the one below, as in systemtap's
 * parse.cxx (lexer::scan, parser::scan_pp1, parser::scan_pp):
 *
 * 1. scan(): characters to raw tokens.  Script arguments are pasted here,
 *    as characters: "$1" inserts the argument's text into the buffer at
 *    the cursor and scanning goes on through it, so `$1` = "5" is the
 *    number 5 and `@1` = `a"b` the string "a\"b".  Tokens lexed from
 *    pasted text are located at the `$1`.  A `$N` inside pasted text is an
 *    error (no recursive substitution), as in stap.
 *
 * 2. scan_pp1(): macros.  `@define` is handled where it appears (outside
 *    macro bodies only); an `@name` naming a macro, or a parameter of the
 *    macro being expanded, pushes an activation that replays its tokens.
 *    Arguments are collected unexpanded and expanded where the parameter
 *    is used, in the scope of the invocation (a closure, as stap does), so
 *    `@define f(x) %( @x %)  @define g(y) %( @f(@y) %)` works.  Expansion
 *    deeper than LEX_MACRO_DEPTH is reported and abandoned.  Macros are
 *    per lexer, i.e. per file.  Tokens from a macro body keep the location
 *    they have in the definition.
 *
 * 3. lex_next(): conditionals %( COND %? ... %: ... %).  The condition is
 *    read from macro-expanded tokens and evaluated at once; the tokens of
 *    the branch not taken are skipped raw (no macro definitions or
 *    expansions, no lexical errors reported: a skipped branch may hold
 *    what this version cannot read, or a `$3` beyond the arguments given).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/lex.h"

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

/* The built-in @words; a macro by one of these names gets a warning. */
static const char *const atwords[] = {
	"cast", "defined", "probewrite", "entry", "perf", "var", "avg",
	"count", "sum", "min", "max", "hist_linear", "hist_log", "const",
	"variance", "kregister", "uregister", "kderef", "uderef",
};

const char *lex_kind_str(enum tok kind)
{
	return (unsigned)kind < TOK_NKINDS ? kind_str[kind] : "?";
}

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

static struct diag_loc mkloc(const struct lexer *lx, unsigned line,
			     unsigned col)
{
	return (struct diag_loc){ .file = lx->file, .line = line, .col = col };
}

static void tokvec_push(struct tokvec *v, struct token *t)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 8;
		v->v = xrealloc(v->v, v->cap * sizeof(*v->v));
	}
	v->v[v->n++] = *t;
	memset(t, 0, sizeof(*t));
}

static void tokvec_release(struct tokvec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		lex_token_release(&v->v[i]);
	free(v->v);
	memset(v, 0, sizeof(*v));
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
/* Layer 1: the scanner                                              */

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
		snprintf(num, sizeof(num), "%d", lx->cfg.argc);
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
		if (idx == 0 || idx > (unsigned long)lx->cfg.argc) {
			if (lx->cfg.argc > 0)
				lex_error(lx, loc, "command line argument index "
					  "%lu out of range [1-%d]", idx,
					  lx->cfg.argc);
			else
				lex_error(lx, loc, "command line argument index "
					  "%lu out of range (no arguments given)",
					  idx);
			return false;
		}
		arg = lx->cfg.argv[idx - 1];
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

/* The next raw token: no macros, no conditionals. */
static void scan(struct lexer *lx, struct token *t)
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

/* ---------------------------------------------------------------- */
/* Layer 2: macros                                                   */

static void act_pop(struct lexer *lx)
{
	struct act *a = lx->top;
	size_t i;

	lx->top = a->down;
	lx->depth--;
	if (a->macro && a->args) {
		for (i = 0; i < a->macro->nparams; i++)
			tokvec_release(&a->args[i]);
		free(a->args);
	}
	free(a);
}

static void act_push(struct lexer *lx, const struct tokvec *toks,
		     struct macro *m, struct tokvec *args, struct act *scope,
		     const struct diag_loc *at)
{
	struct act *a = xcalloc(1, sizeof(*a));

	a->down = lx->top;
	a->toks = toks;
	a->macro = m;
	a->args = args;
	if (m) {
		a->caller = scope;
		a->scope = a;
	} else {
		a->scope = scope;
	}
	if (!lx->top)
		lx->outer = *at;
	lx->top = a;
	lx->depth++;
}

/*
 * The next token of the innermost source: the top activation, else the
 * file.  False at the end of an activation (which stays on the stack).
 */
static bool next_pp1(struct lexer *lx, struct token *t)
{
	if (lx->top) {
		if (lx->top->pos >= lx->top->toks->n)
			return false;
		lex_token_copy(t, &lx->top->toks->v[lx->top->pos++]);
		t->macro_loc = lx->outer;
		return true;
	}
	if (lx->has_pending) {
		*t = lx->pending;
		memset(&lx->pending, 0, sizeof(lx->pending));
		lx->has_pending = false;
		return true;
	}
	scan(lx, t);
	return true;
}

/* Give back @t, just read by next_pp1(), to be read again. */
static void unget_pp1(struct lexer *lx, struct token *t)
{
	if (lx->top) {
		lx->top->pos--;
		lex_token_release(t);
	} else {
		lx->pending = *t;
		lx->has_pending = true;
		memset(t, 0, sizeof(*t));
	}
}

static struct macro *find_macro(struct lexer *lx, const char *name)
{
	struct macro *m;

	for (m = lx->macros; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

static void macro_free(struct macro *m)
{
	size_t i;

	for (i = 0; i < m->nparams; i++)
		free(m->params[i]);
	free(m->params);
	tokvec_release(&m->body);
	free(m->name);
	free(m);
}

/*
 * define: '@define' NAME [ '(' NAME { ',' NAME } ')' ] '%(' tokens '%)'
 * @at is the '@define' token.  Nested %( %) pairs in the body are kept.
 */
static void define_macro(struct lexer *lx, struct token *at)
{
	struct macro *m = xcalloc(1, sizeof(*m)), *old;
	struct token t;
	unsigned nest = 0;
	size_t i;

	if (lx->top) {
		diag_error(lx->d, at->loc, "'@define' is not allowed inside "
			   "a macro body");
		goto drop;
	}
	next_pp1(lx, &t);
	if (t.kind != TOK_IDENT || t.text[0] == '$') {
		diag_error(lx->d, t.loc, "expected macro name after '@define'");
		unget_pp1(lx, &t);
		goto drop;
	}
	m->name = t.text;
	m->loc = t.loc;
	t.text = NULL;
	lex_token_release(&t);

	next_pp1(lx, &t);
	if (t.kind == TOK_LPAREN) {
		for (;;) {
			lex_token_release(&t);
			next_pp1(lx, &t);
			if (t.kind != TOK_IDENT) {
				diag_error(lx->d, t.loc, "expected parameter "
					   "name in definition of macro '@%s'",
					   m->name);
				unget_pp1(lx, &t);
				goto drop;
			}
			for (i = 0; i < m->nparams; i++)
				if (!strcmp(m->params[i], t.text))
					diag_error(lx->d, t.loc, "duplicate "
						   "macro parameter '%s'",
						   t.text);
			m->params = xrealloc(m->params, (m->nparams + 1) *
					     sizeof(*m->params));
			m->params[m->nparams++] = t.text;
			t.text = NULL;
			lex_token_release(&t);
			next_pp1(lx, &t);
			if (t.kind == TOK_RPAREN)
				break;
			if (t.kind != TOK_COMMA) {
				diag_error(lx->d, t.loc, "expected ',' or ')' "
					   "in definition of macro '@%s'",
					   m->name);
				unget_pp1(lx, &t);
				goto drop;
			}
		}
		lex_token_release(&t);
		next_pp1(lx, &t);
	}
	if (t.kind != TOK_PP_OPEN) {
		diag_error(lx->d, t.loc, "expected '%%(' to start the body of "
			   "macro '@%s'", m->name);
		unget_pp1(lx, &t);
		goto drop;
	}
	lex_token_release(&t);
	for (;;) {
		next_pp1(lx, &t);
		if (t.kind == TOK_EOF) {
			diag_error(lx->d, m->loc, "unterminated definition of "
				   "macro '@%s', missing '%%)'", m->name);
			unget_pp1(lx, &t);
			goto drop;
		}
		if (t.kind == TOK_PP_OPEN) {
			nest++;
		} else if (t.kind == TOK_PP_CLOSE) {
			if (!nest)
				break;
			nest--;
		}
		tokvec_push(&m->body, &t);
	}
	lex_token_release(&t);

	if (!strcmp(m->name, "define")) {
		diag_error(lx->d, m->loc, "cannot redefine '@define'");
		goto drop;
	}
	old = find_macro(lx, m->name);
	if (old) {
		diag_error(lx->d, m->loc, "redefinition of macro '@%s'",
			   m->name);
		diag_note(lx->d, old->loc, "'@%s' was first defined here",
			  m->name);
		goto drop;
	}
	for (i = 0; i < sizeof(atwords) / sizeof(atwords[0]); i++)
		if (!strcmp(m->name, atwords[i]))
			diag_warn(lx->d, m->loc, "macro '@%s' hides the "
				  "built-in operator of that name", m->name);
	m->next = lx->macros;
	lx->macros = m;
	lex_token_release(at);
	return;
drop:
	macro_free(m);
	lex_token_release(at);
}

/* After an error at @t in an invocation: skip to its closing ')'. */
static void skip_invocation(struct lexer *lx, struct token *t)
{
	unsigned nest = 0;

	for (;;) {
		if (t->kind == TOK_LPAREN || t->kind == TOK_LBRACKET) {
			nest++;
		} else if (t->kind == TOK_RPAREN || t->kind == TOK_RBRACKET) {
			if (!nest)
				break;
			nest--;
		}
		lex_token_release(t);
		if (!next_pp1(lx, t))
			return;
		if (t->kind == TOK_EOF) {
			unget_pp1(lx, t);
			return;
		}
	}
	lex_token_release(t);
}

/*
 * Read the arguments of an invocation of @m, '(' already read:
 *   args: tokens { ',' tokens } ')'   (commas inside () or [] kept)
 * Returns the token lists, or NULL after reporting.
 */
static struct tokvec *macro_args(struct lexer *lx, struct macro *m,
				 struct diag_loc at)
{
	struct tokvec *args = xcalloc(m->nparams, sizeof(*args));
	struct token t;
	unsigned nest;
	size_t i, j;

	for (i = 0; i < m->nparams; i++) {
		nest = 0;
		for (;;) {
			bool got = next_pp1(lx, &t);

			if (!got || t.kind == TOK_EOF) {
				if (got)
					unget_pp1(lx, &t);
				diag_error(lx->d, at, "unterminated invocation "
					   "of macro '@%s'", m->name);
				goto fail;
			}
			if (t.kind == TOK_LPAREN || t.kind == TOK_LBRACKET) {
				nest++;
			} else if (nest && (t.kind == TOK_RPAREN ||
					    t.kind == TOK_RBRACKET)) {
				nest--;
			} else if (!nest && (t.kind == TOK_RPAREN ||
					     t.kind == TOK_COMMA)) {
				break;
			}
			tokvec_push(&args[i], &t);
		}
		if (t.kind == TOK_COMMA && i + 1 == m->nparams) {
			diag_error(lx->d, t.loc, "too many arguments for macro "
				   "'@%s' (expected %zu)", m->name, m->nparams);
			skip_invocation(lx, &t);
			goto fail;
		}
		if (t.kind == TOK_RPAREN && i + 1 < m->nparams) {
			diag_error(lx->d, t.loc, "too few arguments for macro "
				   "'@%s' (expected %zu)", m->name, m->nparams);
			lex_token_release(&t);
			goto fail;
		}
		lex_token_release(&t);
	}
	return args;
fail:
	for (j = 0; j < m->nparams; j++)
		tokvec_release(&args[j]);
	free(args);
	return NULL;
}

/* Abandon every expansion in progress (after a runaway recursion). */
static void unwind(struct lexer *lx)
{
	while (lx->top)
		act_pop(lx);
}

/*
 * @at is an @word: if it names a parameter in scope or a macro, start
 * replaying it (consuming @at) and return true; false leaves @at alone.
 * A failed invocation turns @at into a TOK_ERROR (already reported) and
 * returns false, so the parser resynchronizes without another message.
 */
static bool expand(struct lexer *lx, struct token *at)
{
	const char *name = at->text + 1;
	struct act *scope = lx->top ? lx->top->scope : NULL;
	struct tokvec *args = NULL;
	struct macro *m;
	struct token t;
	size_t i;

	if (scope) {
		for (i = 0; i < scope->macro->nparams; i++) {
			if (strcmp(scope->macro->params[i], name))
				continue;
			if (lx->depth >= LEX_MACRO_DEPTH)
				goto too_deep;
			act_push(lx, &scope->args[i], NULL, NULL,
				 scope->caller, &at->loc);
			lex_token_release(at);
			return true;
		}
	}
	m = find_macro(lx, name);
	if (!m)
		return false;
	if (lx->depth >= LEX_MACRO_DEPTH)
		goto too_deep;
	if (m->nparams) {
		bool got = next_pp1(lx, &t);

		if (!got || t.kind != TOK_LPAREN) {
			diag_error(lx->d, at->loc, "expected '(' in invocation "
				   "of macro '@%s' taking %zu parameter%s",
				   m->name, m->nparams,
				   m->nparams == 1 ? "" : "s");
			if (got)
				unget_pp1(lx, &t);
			at->kind = TOK_ERROR;
			return false;
		}
		lex_token_release(&t);
		args = macro_args(lx, m, at->loc);
		if (!args) {
			at->kind = TOK_ERROR;
			return false;
		}
	}
	act_push(lx, &m->body, m, args, scope, &at->loc);
	lex_token_release(at);
	return true;
too_deep:
	diag_error(lx->d, lx->outer, "macro expansion nested deeper than %d "
		   "(recursive macro '%s'?)", LEX_MACRO_DEPTH, at->text);
	unwind(lx);
	at->kind = TOK_ERROR;
	return false;
}

/* The next token with macros defined and expanded (unless @raw). */
static void scan_pp1(struct lexer *lx, struct token *t, bool raw)
{
	for (;;) {
		if (!next_pp1(lx, t)) {
			act_pop(lx);
			continue;
		}
		if (t->kind != TOK_ATWORD || raw)
			return;
		if (!strcmp(t->text, "@define")) {
			define_macro(lx, t);
			continue;
		}
		if (!expand(lx, t))
			return;
	}
}

/* ---------------------------------------------------------------- */
/* Layer 3: conditionals                                             */

/* A condition being read: one token of lookahead. */
struct cp {
	struct lexer *lx;
	struct token t;
	bool bad;		/* an error was reported */
};

static void cp_next(struct cp *cp)
{
	lex_token_release(&cp->t);
	scan_pp1(cp->lx, &cp->t, false);
}

static void cp_error(struct cp *cp, struct diag_loc loc, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));

static void cp_error(struct cp *cp, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;

	if (cp->bad)
		return;		/* one error per condition is enough */
	cp->bad = true;
	va_start(ap, fmt);
	diag_vreport(cp->lx->d, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

static bool is_cmp(enum tok k)
{
	return k == TOK_EQ || k == TOK_NE || k == TOK_LT || k == TOK_LE ||
	       k == TOK_GT || k == TOK_GE;
}

/* Apply comparison @op to the sign of a three-way result @r. */
static bool cmp_result(enum tok op, int r)
{
	switch (op) {
	case TOK_EQ: return r == 0;
	case TOK_NE: return r != 0;
	case TOK_LT: return r < 0;
	case TOK_LE: return r <= 0;
	case TOK_GT: return r > 0;
	default: return r >= 0;
	}
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static const char *kconfig(struct lexer *lx, const char *name)
{
	const char *v = NULL;

	if (lx->cfg.kconfig)
		v = lx->cfg.kconfig(lx->cfg.kconfig_ctx, name);
	return v ? v : "";
}

static bool parse_i64(const char *s, int64_t *out)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*out = strtoll(s, &end, 0);
	return !errno && !*end;
}

/* ==/!= of @target against the glob @pattern; other operators refused. */
static bool glob_cmp(struct cp *cp, const struct token *op, const char *target,
		     const char *pattern)
{
	bool match = !fnmatch(pattern, target, FNM_NOESCAPE);

	if (op->kind != TOK_EQ && op->kind != TOK_NE) {
		cp_error(cp, op->loc, "expected '==' or '!='");
		return false;
	}
	return op->kind == TOK_EQ ? match : !match;
}

/*
 * One comparison L OP R.  The left operand names what is compared:
 *   kernel_v, kernel_vr, systemtap_v OP "version"  (strverscmp; globs)
 *   arch, runtime OP "glob"    systemtap_privilege OP "name"
 *   guru_mode OP number        CONFIG_X OP "glob" | number | CONFIG_Y
 *   "string" OP "string"       number OP number
 */
static bool compare(struct cp *cp, const struct token *l, const struct token *op,
		    const struct token *r, int64_t lnum, int64_t rnum)
{
	struct lexer *lx = cp->lx;
	const char *target;
	int64_t a, b;

	if (l->kind == TOK_IDENT && (!strcmp(l->text, "kernel_v") ||
				     !strcmp(l->text, "kernel_vr") ||
				     !strcmp(l->text, "systemtap_v"))) {
		if (r->kind != TOK_STRING)
			goto want_string;
		target = !strcmp(l->text, "kernel_v") ? lx->kernel_v :
			 !strcmp(l->text, "kernel_vr") ? lx->cfg.kernel_vr :
			 lx->cfg.systemtap_v;
		if (strpbrk(r->text, "*?[")) {
			if (op->kind != TOK_EQ && op->kind != TOK_NE) {
				cp_error(cp, op->loc, "wildcard not allowed "
					 "with order comparison operators");
				return false;
			}
			return glob_cmp(cp, op, target, r->text);
		}
		return cmp_result(op->kind, strverscmp(target, r->text));
	}
	if (l->kind == TOK_IDENT && (!strcmp(l->text, "arch") ||
				     !strcmp(l->text, "runtime"))) {
		if (r->kind != TOK_STRING)
			goto want_string;
		target = l->text[0] == 'a' ? lx->cfg.arch : lx->cfg.runtime;
		return glob_cmp(cp, op, target, r->text);
	}
	if (l->kind == TOK_IDENT && !strcmp(l->text, "systemtap_privilege")) {
		if (r->kind != TOK_STRING)
			goto want_string;
		if (op->kind != TOK_EQ && op->kind != TOK_NE) {
			cp_error(cp, op->loc, "expected '==' or '!='");
			return false;
		}
		return cmp_result(op->kind, strcmp(lx->cfg.privilege, r->text));
	}
	if (l->kind == TOK_IDENT && !strcmp(l->text, "guru_mode")) {
		if (r->kind != TOK_NUMBER) {
			cp_error(cp, r->loc, "expected a number after 'guru_mode'");
			return false;
		}
		return cmp_result(op->kind, cmp_i64(lx->cfg.guru_mode, rnum));
	}
	if (l->kind == TOK_IDENT && !strncmp(l->text, "CONFIG_", 7)) {
		const char *lv = kconfig(lx, l->text);

		if (r->kind == TOK_STRING)
			return glob_cmp(cp, op, lv, r->text);
		if (r->kind == TOK_NUMBER) {
			if (!parse_i64(lv, &a)) {
				cp_error(cp, l->loc, "value of %s is not a number",
					 l->text);
				return false;
			}
			return cmp_result(op->kind, cmp_i64(a, rnum));
		}
		if (r->kind == TOK_IDENT && !strncmp(r->text, "CONFIG_", 7)) {
			const char *rv = kconfig(lx, r->text);

			if (parse_i64(lv, &a) && parse_i64(rv, &b))
				return cmp_result(op->kind, cmp_i64(a, b));
			return cmp_result(op->kind, strcmp(lv, rv));
		}
		cp_error(cp, r->loc, "expected a string, a number or CONFIG_... "
			 "after '%s'", l->text);
		return false;
	}
	if (l->kind == TOK_STRING && r->kind == TOK_STRING)
		return cmp_result(op->kind, strcmp(l->text, r->text));
	if (l->kind == TOK_NUMBER && r->kind == TOK_NUMBER)
		return cmp_result(op->kind, cmp_i64(lnum, rnum));
	if (l->kind == TOK_STRING || l->kind == TOK_NUMBER) {
		cp_error(cp, r->loc, "expected a %s to compare with",
			 l->kind == TOK_STRING ? "string" : "number");
		return false;
	}
	cp_error(cp, l->loc, "expected 'kernel_v', 'kernel_vr', 'systemtap_v', "
		 "'arch', 'runtime', 'systemtap_privilege', 'guru_mode', "
		 "'CONFIG_...', a string or a number in preprocessor condition");
	return false;
want_string:
	cp_error(cp, r->loc, "expected a string after '%s'", l->text);
	return false;
}

/* operand: IDENT | STRING | ['-'] NUMBER;  the value of a number in *@num */
static bool cond_operand(struct cp *cp, struct token *out, int64_t *num)
{
	bool neg = false;

	if (cp->t.kind == TOK_MINUS) {
		neg = true;
		cp_next(cp);
		if (cp->t.kind != TOK_NUMBER) {
			cp_error(cp, cp->t.loc, "expected a number after '-'");
			return false;
		}
	}
	if (cp->t.kind == TOK_ERROR) {
		cp->bad = true;		/* the scanner reported it */
		return false;
	}
	if (cp->t.kind != TOK_IDENT && cp->t.kind != TOK_STRING &&
	    cp->t.kind != TOK_NUMBER) {
		cp_error(cp, cp->t.loc, "expected preprocessor condition "
			 "before '%s'", cp->t.kind == TOK_EOF ?
			 "end of input" : cp->t.text);
		return false;
	}
	*num = neg ? (int64_t)(0 - cp->t.num) : (int64_t)cp->t.num;
	*out = cp->t;
	memset(&cp->t, 0, sizeof(cp->t));
	cp_next(cp);
	return true;
}

static bool cond_or(struct cp *cp);

/* cond_prim: '(' cond_or ')' | operand cmp operand */
static bool cond_prim(struct cp *cp)
{
	struct token l = { 0 }, op = { 0 }, r = { 0 };
	int64_t lnum = 0, rnum = 0;
	bool v = false;

	if (cp->t.kind == TOK_LPAREN) {
		cp_next(cp);
		v = cond_or(cp);
		if (cp->t.kind != TOK_RPAREN)
			cp_error(cp, cp->t.loc, "expected ')' in preprocessor "
				 "condition");
		else
			cp_next(cp);
		return v;
	}
	if (!cond_operand(cp, &l, &lnum))
		return false;
	if (!is_cmp(cp->t.kind)) {
		cp_error(cp, cp->t.loc, "expected comparison operator after "
			 "'%s'", l.text);
		goto out;
	}
	op = cp->t;
	memset(&cp->t, 0, sizeof(cp->t));
	cp_next(cp);
	if (!cond_operand(cp, &r, &rnum))
		goto out;
	v = compare(cp, &l, &op, &r, lnum, rnum);
out:
	lex_token_release(&l);
	lex_token_release(&op);
	lex_token_release(&r);
	return v;
}

/* cond_and: cond_prim { '&&' cond_prim } */
static bool cond_and(struct cp *cp)
{
	bool v = cond_prim(cp);

	while (cp->t.kind == TOK_ANDAND) {
		cp_next(cp);
		v = cond_prim(cp) && v;
	}
	return v;
}

/* cond_or: cond_and { '||' cond_and } */
static bool cond_or(struct cp *cp)
{
	bool v = cond_and(cp);

	while (cp->t.kind == TOK_OROR) {
		cp_next(cp);
		v = cond_and(cp) || v;
	}
	return v;
}

enum { COND_FALSE, COND_TRUE, COND_DROPPED };

/*
 * conditional: '%(' cond_or '%?' tokens [ '%:' tokens ] '%)'
 * Called after '%(' (at @open): evaluate up to and including '%?'.  A
 * malformed condition counts as false; if no '%?' follows, the tokens up
 * to the closing '%)' are dropped (COND_DROPPED).
 */
static int conditional(struct lexer *lx, struct diag_loc open)
{
	struct cp cp = { .lx = lx };
	unsigned nest = 0;
	bool v;

	scan_pp1(lx, &cp.t, false);
	v = cond_or(&cp);
	if (cp.t.kind == TOK_PP_THEN) {
		lex_token_release(&cp.t);
		return v && !cp.bad ? COND_TRUE : COND_FALSE;
	}
	cp_error(&cp, cp.t.loc, "expected '%%?' after the condition of "
		 "'%%(' at line %u", open.line);
	/* resynchronize at this conditional's '%?' or '%)' */
	for (;;) {
		switch (cp.t.kind) {
		case TOK_EOF:	/* the scanner repeats it */
			lex_token_release(&cp.t);
			return COND_DROPPED;
		case TOK_PP_OPEN:
			nest++;
			break;
		case TOK_PP_CLOSE:
			if (!nest) {
				lex_token_release(&cp.t);
				return COND_DROPPED;
			}
			nest--;
			break;
		case TOK_PP_THEN:
			if (!nest) {
				lex_token_release(&cp.t);
				return COND_FALSE;
			}
			break;
		default:
			break;
		}
		cp_next(&cp);
	}
}

/* The tokens of a branch not taken, up to its %: %? or %) (returned). */
static void skip_branch(struct lexer *lx, struct token *t)
{
	unsigned nest = 0;

	lx->quiet = true;
	for (;;) {
		scan_pp1(lx, t, true);
		if (t->kind == TOK_EOF)
			break;
		if (t->kind == TOK_PP_OPEN) {
			nest++;
		} else if (t->kind == TOK_PP_CLOSE && nest) {
			nest--;
		} else if (!nest && (t->kind == TOK_PP_ELSE ||
				     t->kind == TOK_PP_THEN ||
				     t->kind == TOK_PP_CLOSE)) {
			break;
		}
		lex_token_release(t);
	}
	lx->quiet = false;
}

static void push_cond(struct lexer *lx, struct diag_loc loc, enum pp_state s)
{
	if (lx->nconds == lx->conds_cap) {
		lx->conds_cap = lx->conds_cap ? 2 * lx->conds_cap : 4;
		lx->conds = xrealloc(lx->conds,
				     lx->conds_cap * sizeof(*lx->conds));
	}
	lx->conds[lx->nconds++] = (struct pp_cond){ .loc = loc, .state = s };
}

void lex_next(struct lexer *lx, struct token *t)
{
	for (;;) {
		struct pp_cond *c = lx->nconds ? &lx->conds[lx->nconds - 1] :
				    NULL;
		struct diag_loc loc;
		int r;

		if (c && (c->state == PP_SKIP_THEN || c->state == PP_SKIP_ELSE))
			skip_branch(lx, t);
		else
			scan_pp1(lx, t, false);

		switch (t->kind) {
		case TOK_EOF:
			if (c) {
				diag_error(lx->d, c->loc, "unterminated "
					   "conditional, missing '%%)'");
				lx->nconds = 0;
			}
			return;
		case TOK_PP_THEN:
			diag_error(lx->d, t->loc, "'%%?' without '%%('");
			break;
		case TOK_PP_ELSE:
			if (!c)
				diag_error(lx->d, t->loc, "'%%:' without '%%('");
			else if (c->state == PP_KEEP_ELSE ||
				 c->state == PP_SKIP_ELSE)
				diag_error(lx->d, t->loc, "duplicate '%%:' in "
					   "conditional");
			else
				c->state = c->state == PP_KEEP_THEN ?
					   PP_SKIP_ELSE : PP_KEEP_ELSE;
			break;
		case TOK_PP_CLOSE:
			if (!c)
				diag_error(lx->d, t->loc, "'%%)' without '%%('");
			else
				lx->nconds--;
			break;
		case TOK_PP_OPEN:
			loc = t->loc;
			lex_token_release(t);
			r = conditional(lx, loc);
			if (r != COND_DROPPED)
				push_cond(lx, loc, r == COND_TRUE ?
					  PP_KEEP_THEN : PP_SKIP_THEN);
			continue;
		default:
			return;
		}
		lex_token_release(t);
	}
}

/* ---------------------------------------------------------------- */

struct lexer *lex_new(struct diag *d, const struct diag_file *src,
		      const struct lex_config *cfg)
{
	struct lexer *lx = xcalloc(1, sizeof(*lx));
	const char *dash;

	lx->d = d;
	lx->file = src;
	if (cfg)
		lx->cfg = *cfg;
	if (!lx->cfg.kernel_vr)
		lx->cfg.kernel_vr = "";
	if (!lx->cfg.arch)
		lx->cfg.arch = "";
	if (!lx->cfg.runtime)
		lx->cfg.runtime = "kernel";
	if (!lx->cfg.systemtap_v)
		lx->cfg.systemtap_v = "5.0";
	if (!lx->cfg.privilege)
		lx->cfg.privilege = "stapusr";
	if (lx->cfg.argc < 0 || !lx->cfg.argv)
		lx->cfg.argc = 0;
	if (lx->cfg.kernel_v) {
		lx->kernel_v = xstrdup(lx->cfg.kernel_v);
	} else {
		dash = strchr(lx->cfg.kernel_vr, '-');
		lx->kernel_v = dash ? strndup(lx->cfg.kernel_vr,
					      (size_t)(dash - lx->cfg.kernel_vr)) :
				      xstrdup(lx->cfg.kernel_vr);
		if (!lx->kernel_v)
			die("out of memory");
	}
	lx->buf = xmalloc(src->len + 1);
	memcpy(lx->buf, src->text, src->len + 1);
	lx->len = src->len;
	lx->line = lx->col = 1;
	lx->end_line = lx->end_col = 1;
	return lx;
}

void lex_free(struct lexer *lx)
{
	struct macro *m, *next;

	if (!lx)
		return;
	unwind(lx);
	for (m = lx->macros; m; m = next) {
		next = m->next;
		macro_free(m);
	}
	lex_token_release(&lx->pending);
	free(lx->conds);
	free(lx->kernel_v);
	free(lx->buf);
	free(lx);
}
