// SPDX-License-Identifier: GPL-2.0
/*
 * The parser: one function per grammar rule, each headed by the rule it
 * implements, following systemtap's parse.cxx (parse_probe ..
 * parse_value) so that precedence and the odd corners match stap.
 *
 * Error handling is panic mode.  The first error sets p->panic and later
 * ones are not reported until a recovery point clears it: the statement
 * loop of a block (skip to ';', '}' or a statement keyword) and the
 * top-level loop (skip to 'probe', 'global', 'private', 'function').  A
 * parse function that fails returns NULL having freed what it built, so
 * a half-built node never reaches the script; and the top level drops a
 * whole declaration when the error count grew while it was parsed.
 * Errors that leave the token stream in order (embedded C, @cast, a
 * duplicate global) are reported with parse_report(), without panic.
 *
 * This file holds the token helpers, statements, probe points and
 * declarations; the expression grammar is in parse_expr.c, the struct
 * parser they share in internal.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/internal.h"
#include "lang/parse.h"

static struct ast_stmt *parse_statement(struct parser *p);
static struct ast_stmt *parse_block(struct parser *p);

/* ---------------------------------------------------------------- */
/* Tokens and errors                                                 */

void parse_next(struct parser *p)
{
	if (p->tok.kind == TOK_LPAREN)
		p->depth++;
	else if (p->tok.kind == TOK_RPAREN)
		p->depth--;
	lex_token_release(&p->tok);
	pp_next(p->pp, &p->tok);
	p->ntok++;
}

bool parse_at(const struct parser *p, enum tok kind)
{
	return p->tok.kind == kind;
}

bool parse_accept(struct parser *p, enum tok kind)
{
	if (!parse_at(p, kind))
		return false;
	parse_next(p);
	return true;
}

/* The text of the lookahead, which the caller now owns. */
char *parse_take_text(struct parser *p)
{
	char *s = p->tok.text;

	p->tok.text = NULL;
	return s;
}

bool parse_is_keyword(enum tok k)
{
	return k >= TOK_PROBE && k <= TOK_CATCH;
}

/* An identifier that is a plain name, not a $target or a lone '$'. */
bool parse_at_name(const struct parser *p)
{
	return parse_at(p, TOK_IDENT) && p->tok.text[0] != '$';
}

/* A lone "$" or "$$": the pretty-printing suffix of a target variable. */
bool parse_at_dollars(const struct parser *p)
{
	return parse_at(p, TOK_IDENT) &&
	       p->tok.text[strspn(p->tok.text, "$")] == '\0';
}

/* An error that leaves the token stream in order: no recovery needed. */
void parse_report(struct parser *p, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(p->d, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

/* A syntax error at the lookahead; later ones wait for the resync. */
void parse_syntax_error(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->panic && p->tok.kind != TOK_ERROR) {
		va_start(ap, fmt);
		diag_vreport(p->d, DIAG_ERROR, p->tok.loc, fmt, ap);
		va_end(ap);
	}
	p->panic = true;	/* after TOK_ERROR: the lexer reported it */
}

/* "expected WHAT before 'TOKEN'" / "expected WHAT at end of input" */
void parse_expected(struct parser *p, const char *what)
{
	char *q;

	switch (p->tok.kind) {
	case TOK_EOF:
		parse_syntax_error(p, "expected %s at end of input", what);
		break;
	case TOK_STRING:
		q = lex_quote(p->tok.text, p->tok.len > 24 ? 24 : p->tok.len);
		parse_syntax_error(p, "expected %s before \"%s%s\"", what, q,
			     p->tok.len > 24 ? "..." : "");
		free(q);
		break;
	case TOK_EMBEDDED:
		parse_syntax_error(p, "expected %s before '%%{'", what);
		break;
	default:
		parse_syntax_error(p, "expected %s before '%s'", what, p->tok.text);
		break;
	}
}

/* Consume a token of @kind or report "expected 'X' before ...". */
bool parse_expect(struct parser *p, enum tok kind)
{
	char what[16];

	if (parse_accept(p, kind))
		return true;
	snprintf(what, sizeof(what), "'%s'", lex_kind_str(kind));
	parse_expected(p, what);
	return false;
}

/* ---------------------------------------------------------------- */
/* Statements                                                        */

static bool at_top_keyword(const struct parser *p)
{
	return parse_at(p, TOK_PROBE) || parse_at(p, TOK_GLOBAL) || parse_at(p, TOK_PRIVATE) ||
	       parse_at(p, TOK_FUNCTION);
}

static bool at_stmt_keyword(const struct parser *p)
{
	switch (p->tok.kind) {
	case TOK_IF: case TOK_FOR: case TOK_FOREACH: case TOK_WHILE:
	case TOK_RETURN: case TOK_DELETE: case TOK_BREAK: case TOK_CONTINUE:
	case TOK_NEXT: case TOK_TRY:
		return true;
	default:
		return false;
	}
}

/*
 * Recover inside a block after a syntax error: skip to just after a ';',
 * or to a '}', a statement keyword or a top-level keyword, skipping
 * nested { } groups whole and stopping after one.  At least one token is
 * skipped if none was consumed since the statement began (@start).
 */
static void sync_statement(struct parser *p, unsigned long start)
{
	unsigned nest = 0;

	p->panic = false;
	if (p->ntok == start && !parse_at(p, TOK_RBRACE) && !parse_at(p, TOK_EOF) &&
	    !at_top_keyword(p))
		parse_next(p);
	while (!parse_at(p, TOK_EOF) && !at_top_keyword(p)) {
		if (parse_at(p, TOK_LBRACE)) {
			nest++;
		} else if (parse_at(p, TOK_RBRACE)) {
			if (!nest)
				return;
			if (!--nest) {
				parse_next(p);
				return;
			}
		} else if (!nest && parse_at(p, TOK_SEMI)) {
			parse_next(p);
			return;
		} else if (!nest && at_stmt_keyword(p)) {
			return;
		}
		parse_next(p);
	}
}

/*
 * After a syntax error in the parenthesized head of if, while, for or
 * foreach, begun at parenthesis depth @depth: if the error is inside the
 * head, skip to the ')' closing it (unless a '{', '}' or top-level
 * keyword shows the ')' is missing) and parse and drop the body, so that
 * its errors are reported too.  for (i = 0 i < 3; i++) { ... } thus
 * costs one error, not a cascade.
 */
static void recover_head(struct parser *p, long depth)
{
	if (!p->panic || p->depth <= depth)
		return;
	while (!parse_at(p, TOK_EOF) && !parse_at(p, TOK_LBRACE) && !parse_at(p, TOK_RBRACE) &&
	       !at_top_keyword(p)) {
		if (parse_at(p, TOK_RPAREN) && p->depth == depth + 1) {
			parse_next(p);
			p->panic = false;
			ast_stmt_free(parse_statement(p));
			return;
		}
		parse_next(p);
	}
}

/* block: '{' { statement } '}' */
static struct ast_stmt *parse_block(struct parser *p)
{
	struct ast_stmt *b, *s;
	unsigned long start;

	if (!parse_at(p, TOK_LBRACE)) {
		parse_expected(p, "'{'");
		return NULL;
	}
	b = ast_stmt_new(AST_S_BLOCK, p->tok.loc);
	parse_next(p);
	while (!parse_at(p, TOK_RBRACE) && !parse_at(p, TOK_EOF) && !at_top_keyword(p) &&
	       !diag_full(p->d)) {
		start = p->ntok;
		s = parse_statement(p);
		if (s)
			AST_VEC_PUSH(&b->u.block, s);
		if (p->panic)
			sync_statement(p, start);
	}
	if (!parse_expect(p, TOK_RBRACE)) {
		ast_stmt_free(b);
		return NULL;
	}
	return b;
}

/* Parse '(' expression ')' into *@out. */
static bool parse_paren_expr(struct parser *p, struct ast_expr **out)
{
	return parse_expect(p, TOK_LPAREN) && (*out = parse_expr(p)) &&
	       parse_expect(p, TOK_RPAREN);
}

/* if: 'if' '(' expression ')' statement [ 'else' statement ] */
static struct ast_stmt *parse_if(struct parser *p)
{
	struct ast_stmt *s = ast_stmt_new(AST_S_IF, p->tok.loc);
	long depth = p->depth;

	parse_next(p);
	if (!parse_paren_expr(p, &s->u.if_.cond) ||
	    !(s->u.if_.then = parse_statement(p)))
		goto fail;
	if (parse_accept(p, TOK_ELSE) && !(s->u.if_.els = parse_statement(p)))
		goto fail;
	return s;
fail:
	ast_stmt_free(s);
	recover_head(p, depth);
	return NULL;
}

/* while: 'while' '(' expression ')' statement */
static struct ast_stmt *parse_while(struct parser *p)
{
	struct ast_stmt *s = ast_stmt_new(AST_S_WHILE, p->tok.loc);
	long depth = p->depth;

	parse_next(p);
	if (!parse_paren_expr(p, &s->u.loop.cond) ||
	    !(s->u.loop.body = parse_statement(p))) {
		ast_stmt_free(s);
		recover_head(p, depth);
		return NULL;
	}
	return s;
}

/*
 * for: 'for' '(' [ expression ] ';' [ expression ] ';' [ expression ] ')'
 *      statement
 * A missing condition is NULL: true.
 */
static struct ast_stmt *parse_for(struct parser *p)
{
	struct ast_stmt *s = ast_stmt_new(AST_S_FOR, p->tok.loc);
	long depth = p->depth;

	parse_next(p);
	if (!parse_expect(p, TOK_LPAREN))
		goto fail;
	if (!parse_at(p, TOK_SEMI) && !(s->u.loop.init = parse_expr(p)))
		goto fail;
	if (!parse_expect(p, TOK_SEMI))
		goto fail;
	if (!parse_at(p, TOK_SEMI) && !(s->u.loop.cond = parse_expr(p)))
		goto fail;
	if (!parse_expect(p, TOK_SEMI))
		goto fail;
	if (!parse_at(p, TOK_RPAREN) && !(s->u.loop.incr = parse_expr(p)))
		goto fail;
	if (!parse_expect(p, TOK_RPAREN) || !(s->u.loop.body = parse_statement(p)))
		goto fail;
	return s;
fail:
	ast_stmt_free(s);
	recover_head(p, depth);
	return NULL;
}

/* sort: '+' | '-'   (returns +1, -1, or 0 when absent) */
static int parse_sort(struct parser *p)
{
	if (parse_accept(p, TOK_PLUS))
		return 1;
	if (parse_accept(p, TOK_MINUS))
		return -1;
	return 0;
}

/* Record sort direction @dir on column @col; false if one was given. */
static bool set_sort(struct parser *p, struct ast_stmt *s, int dir, int col,
		     struct diag_loc loc)
{
	if (!dir)
		return true;
	if (s->u.foreach.sort_dir) {
		parse_report(p, loc, "multiple sort directives");
		return false;
	}
	s->u.foreach.sort_dir = dir;
	s->u.foreach.sort_col = col;
	return true;
}

/*
 * foreach: 'foreach' '(' [ IDENT [ sort ] '=' ] keys 'in' indexable
 *          [ '[' index_list ] [ stat_word sort ] [ sort ]
 *          [ 'limit' expression ] ')' statement
 * keys: IDENT [ sort ] | '[' IDENT [ sort ] { ',' IDENT [ sort ] } ']'
 * A sort mark after the value or after the array sorts by value (column
 * 0), after a key by that key (column k); only one is allowed.
 */
static struct ast_stmt *parse_foreach(struct parser *p)
{
	struct ast_stmt *s = ast_stmt_new(AST_S_FOREACH, p->tok.loc);
	struct ast_expr *first = NULL, *k;
	long depth = p->depth;
	struct diag_loc loc;
	bool bracket = false;
	int dir = 0;

	parse_next(p);
	if (!parse_expect(p, TOK_LPAREN))
		goto fail;
	if (parse_at_name(p)) {
		first = ast_var(p->tok.loc, p->tok.text);
		parse_next(p);
		loc = p->tok.loc;
		dir = parse_sort(p);
		if (parse_accept(p, TOK_ASSIGN)) {
			s->u.foreach.value = first;
			first = NULL;
			set_sort(p, s, dir, 0, loc);
			dir = 0;
		}
	}
	if (first) {
		AST_VEC_PUSH(&s->u.foreach.keys, first);
		first = NULL;
		set_sort(p, s, dir, 1, loc);
	} else {
		bracket = parse_accept(p, TOK_LBRACKET);
		for (;;) {
			if (!parse_at_name(p)) {
				parse_expected(p, "identifier");
				goto fail;
			}
			k = ast_var(p->tok.loc, p->tok.text);
			AST_VEC_PUSH(&s->u.foreach.keys, k);
			parse_next(p);
			loc = p->tok.loc;
			dir = parse_sort(p);
			set_sort(p, s, dir, (int)s->u.foreach.keys.n, loc);
			if (!bracket || parse_accept(p, TOK_RBRACKET))
				break;
			if (!parse_accept(p, TOK_COMMA)) {
				parse_expected(p, "',' or ']'");
				goto fail;
			}
		}
	}
	if (!parse_expect(p, TOK_IN) || !(s->u.foreach.array = parse_indexable(p)))
		goto fail;
	if (parse_accept(p, TOK_LBRACKET) &&
	    !parse_index_list(p, &s->u.foreach.slice))
		goto fail;
	if (parse_at(p, TOK_ATWORD)) {
		s->u.foreach.sort_aggr = parse_stat_kind(p->tok.text);
		if (!s->u.foreach.sort_aggr) {
			parse_syntax_error(p, "expected statistical operation before "
				     "'%s'", p->tok.text);
			goto fail;
		}
		parse_next(p);
		if (!parse_at(p, TOK_PLUS) && !parse_at(p, TOK_MINUS)) {
			parse_expected(p, "'+' or '-'");
			goto fail;
		}
	}
	loc = p->tok.loc;
	set_sort(p, s, parse_sort(p), 0, loc);
	if (parse_accept(p, TOK_LIMIT) && !(s->u.foreach.limit = parse_expr(p)))
		goto fail;
	if (!parse_expect(p, TOK_RPAREN) || !(s->u.foreach.body = parse_statement(p)))
		goto fail;
	return s;
fail:
	ast_expr_free(first);
	ast_stmt_free(s);
	recover_head(p, depth);
	return NULL;
}

/* try: 'try' block 'catch' [ '(' IDENT ')' ] block */
static struct ast_stmt *parse_try(struct parser *p)
{
	struct ast_stmt *s = ast_stmt_new(AST_S_TRY, p->tok.loc);

	parse_next(p);
	if (!(s->u.try_.body = parse_block(p)) || !parse_expect(p, TOK_CATCH))
		goto fail;
	if (parse_accept(p, TOK_LPAREN)) {
		if (!parse_at_name(p)) {
			parse_expected(p, "identifier");
			goto fail;
		}
		s->u.try_.var_loc = p->tok.loc;
		s->u.try_.var = parse_take_text(p);
		parse_next(p);
		if (!parse_expect(p, TOK_RPAREN))
			goto fail;
	}
	if (!(s->u.try_.handler = parse_block(p)))
		goto fail;
	return s;
fail:
	ast_stmt_free(s);
	return NULL;
}

/* Can the lookahead start an expression? */
static bool at_expr_start(const struct parser *p)
{
	switch (p->tok.kind) {
	case TOK_IDENT: case TOK_NUMBER: case TOK_STRING: case TOK_ATWORD:
	case TOK_LPAREN: case TOK_LBRACKET: case TOK_PLUS: case TOK_MINUS:
	case TOK_NOT: case TOK_TILDE: case TOK_INC: case TOK_DEC: case TOK_AMP:
		return true;
	default:
		return false;
	}
}

/*
 * statement: ';' | block | try | if | for | foreach | while
 *          | ( 'return' [ expression ] | 'delete' expression | 'break'
 *            | 'continue' | 'next' | expression ) [ ';' ]
 */
static struct ast_stmt *parse_statement(struct parser *p)
{
	struct diag_loc loc = p->tok.loc;
	struct ast_stmt *s;
	struct ast_expr *e;

	switch (p->tok.kind) {
	case TOK_SEMI:
		parse_next(p);
		return ast_stmt_new(AST_S_NULL, loc);
	case TOK_LBRACE:
		return parse_block(p);
	case TOK_TRY:
		return parse_try(p);
	case TOK_IF:
		return parse_if(p);
	case TOK_FOR:
		return parse_for(p);
	case TOK_FOREACH:
		return parse_foreach(p);
	case TOK_WHILE:
		return parse_while(p);
	case TOK_BREAK:
	case TOK_CONTINUE:
	case TOK_NEXT:
		s = ast_stmt_new(parse_at(p, TOK_BREAK) ? AST_S_BREAK :
				 parse_at(p, TOK_CONTINUE) ? AST_S_CONTINUE :
				 AST_S_NEXT, loc);
		parse_next(p);
		break;
	case TOK_RETURN:
		if (!p->in_function)
			parse_report(p, loc, "'return' outside of a function");
		s = ast_stmt_new(AST_S_RETURN, loc);
		parse_next(p);
		if (!parse_at(p, TOK_SEMI) && !parse_at(p, TOK_RBRACE) &&
		    !(s->u.expr = parse_expr(p))) {
			ast_stmt_free(s);
			return NULL;
		}
		break;
	case TOK_DELETE:
		s = ast_stmt_new(AST_S_DELETE, loc);
		parse_next(p);
		if (!(s->u.expr = parse_expr(p))) {
			ast_stmt_free(s);
			return NULL;
		}
		break;
	case TOK_EMBEDDED:
		parse_report(p, loc, "embedded C code is not supported: tapkit compiles no C (no guru mode)");
		parse_next(p);
		return NULL;
	default:
		if (!at_expr_start(p)) {
			parse_expected(p, "statement");
			return NULL;
		}
		if (!(e = parse_expr(p)))
			return NULL;
		s = ast_stmt_new(AST_S_EXPR, loc);
		s->u.expr = e;
		break;
	}
	parse_accept(p, TOK_SEMI);
	return s;
}

/* ---------------------------------------------------------------- */
/* Probe points                                                      */

static void parse_pp_list(struct parser *p, struct ast_pps *out, bool braces);

static struct ast_pp *point_new(struct diag_loc loc)
{
	struct ast_pp *pp = xcalloc(1, sizeof(*pp));

	pp->loc = loc;
	return pp;
}

static void pps_release(struct ast_pps *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		ast_pp_free(v->v[i]);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/*
 * component: ( IDENT | keyword | '*' ) { IDENT | keyword | '*' }
 *            [ '(' literal ')' ]
 *          | '{' pp_list '}'
 * The pieces of a name must touch: `open*` is one component, `open *`
 * is not.  A brace group yields each of its points (brace expansion).
 */
static void parse_component(struct parser *p, struct ast_pps *out)
{
	struct ast_ppcomp c = { .loc = p->tok.loc };
	struct ast_pp *pp;
	size_t n;

	if (parse_accept(p, TOK_LBRACE)) {
		parse_pp_list(p, out, true);
		if (!p->panic)
			parse_expect(p, TOK_RBRACE);
		return;
	}
	if (!parse_at(p, TOK_IDENT) && !parse_is_keyword(p->tok.kind) && !parse_at(p, TOK_STAR)) {
		parse_expected(p, "probe point");
		return;
	}
	c.name = parse_take_text(p);
	parse_next(p);
	while (!p->tok.space_before && (parse_at(p, TOK_IDENT) || parse_at(p, TOK_STAR) ||
					parse_is_keyword(p->tok.kind))) {
		n = strlen(c.name);
		c.name = xrealloc(c.name, n + p->tok.len + 1);
		memcpy(c.name + n, p->tok.text, p->tok.len + 1);
		parse_next(p);
	}
	if (parse_accept(p, TOK_LPAREN)) {
		if (!(c.arg = parse_literal(p)) || !parse_expect(p, TOK_RPAREN)) {
			free(c.name);
			ast_expr_free(c.arg);
			return;
		}
	}
	pp = point_new(c.loc);
	pp->comps = xmalloc(sizeof(c));
	pp->comps[0] = c;
	pp->ncomps = 1;
	AST_VEC_PUSH(out, pp);
}

/* @pps := every prefix in @pps followed by every point in @suffix. */
static bool point_product(struct parser *p, struct ast_pps *pps,
		       struct ast_pps *suffix)
{
	struct ast_pps prod = { 0 };
	struct ast_pp *a, *b, *c;
	size_t i, j, k;

	for (i = 0; i < pps->n; i++) {
		a = pps->v[i];
		if (a->optional || a->cond) {
			parse_report(p, a->loc, "'?', '!' or condition must only be "
			       "specified in suffix");
			pps_release(suffix);
			return false;
		}
		for (j = 0; j < suffix->n; j++) {
			b = suffix->v[j];
			c = point_new(a->loc);
			c->ncomps = a->ncomps + b->ncomps;
			c->comps = xcalloc(c->ncomps, sizeof(*c->comps));
			for (k = 0; k < c->ncomps; k++) {
				const struct ast_ppcomp *from = k < a->ncomps ?
					&a->comps[k] : &b->comps[k - a->ncomps];

				c->comps[k].name = xstrdup(from->name);
				c->comps[k].arg = ast_expr_clone(from->arg);
				c->comps[k].loc = from->loc;
			}
			c->optional = b->optional;
			c->sufficient = b->sufficient;
			c->cond = ast_expr_clone(b->cond);
			AST_VEC_PUSH(&prod, c);
		}
	}
	pps_release(pps);
	pps_release(suffix);
	*pps = prod;
	return true;
}

/*
 * pp: component { '.' component } [ '?' | '!' ] [ 'if' '(' expression ')' ]
 * Appends the expanded points to @out.
 */
static void parse_pp(struct parser *p, struct ast_pps *out)
{
	struct ast_pps pps = { 0 }, suffix = { 0 };
	struct ast_expr *cond = NULL;
	size_t i;

	parse_component(p, &pps);
	while (!p->panic && parse_accept(p, TOK_DOT)) {
		parse_component(p, &suffix);
		if (p->panic || !point_product(p, &pps, &suffix))
			goto fail;
	}
	if (p->panic)
		goto fail;
	if (parse_at(p, TOK_QUESTION) || parse_at(p, TOK_NOT)) {
		for (i = 0; i < pps.n; i++) {
			if (pps.v[i]->optional) {
				parse_syntax_error(p, "'?' or '!' respecified");
				goto fail;
			}
			pps.v[i]->optional = true;
			pps.v[i]->sufficient = parse_at(p, TOK_NOT);
		}
		parse_next(p);
	}
	if (parse_accept(p, TOK_IF)) {
		if (!parse_paren_expr(p, &cond)) {
			ast_expr_free(cond);
			goto fail;
		}
		for (i = 0; i < pps.n; i++) {
			if (pps.v[i]->cond) {
				parse_report(p, cond->loc, "condition respecified");
				break;
			}
			pps.v[i]->cond = i ? ast_expr_clone(cond) : cond;
		}
		if (!pps.n || i < pps.n)
			ast_expr_free(cond);
	}
	for (i = 0; i < pps.n; i++)
		AST_VEC_PUSH(out, pps.v[i]);
	free(pps.v);
	return;
fail:
	pps_release(&pps);
	pps_release(&suffix);
}

/*
 * pp_list: pp { ',' pp }
 * followed by '{', '=' or '+=' (or '}' inside a brace group).
 */
static void parse_pp_list(struct parser *p, struct ast_pps *out, bool braces)
{
	for (;;) {
		parse_pp(p, out);
		if (p->panic)
			return;
		if (parse_accept(p, TOK_COMMA))
			continue;
		if (braces ? parse_at(p, TOK_RBRACE) :
		    parse_at(p, TOK_LBRACE) || parse_at(p, TOK_ASSIGN) ||
		    parse_at(p, TOK_ADD_ASSIGN))
			return;
		parse_expected(p, braces ? "',' or '}'" : "',' or '{'");
		return;
	}
}

/* ---------------------------------------------------------------- */
/* Declarations                                                      */

/*
 * probe: 'probe' pp_list block
 * alias: 'probe' pp ( '=' | '+=' ) { pp ( '=' | '+=' ) } pp_list block
 *        [ ',' block ]
 */
static void parse_probe(struct parser *p)
{
	struct diag_loc loc = p->tok.loc;
	struct ast_pps names = { 0 }, pps = { 0 };
	struct ast_stmt *body, *body2 = NULL;
	struct ast_alias *a;
	struct ast_probe *pr;
	bool epilogue = false;

	parse_next(p);
	for (;;) {
		parse_pp_list(p, &pps, false);
		if (p->panic)
			goto fail;
		if (pps.n == 1 && (parse_at(p, TOK_ASSIGN) || parse_at(p, TOK_ADD_ASSIGN))) {
			if (pps.v[0]->optional || pps.v[0]->cond)
				parse_report(p, pps.v[0]->loc, "probe alias name "
				       "cannot be optional nor conditional");
			epilogue |= parse_at(p, TOK_ADD_ASSIGN);
			AST_VEC_PUSH(&names, pps.v[0]);
			free(pps.v);
			memset(&pps, 0, sizeof(pps));
			parse_next(p);
			continue;
		}
		if (pps.n > 1 && (parse_at(p, TOK_ASSIGN) || parse_at(p, TOK_ADD_ASSIGN))) {
			parse_syntax_error(p, "probe alias name must be a single "
				     "probe point");
			goto fail;
		}
		break;
	}
	if (!(body = parse_block(p)))
		goto fail;
	if (!names.n) {
		pr = xcalloc(1, sizeof(*pr));
		pr->loc = loc;
		pr->pps = pps;
		pr->body = body;
		pr->library = p->library;
		AST_VEC_PUSH(&p->script->probes, pr);
		return;
	}
	if (parse_at(p, TOK_COMMA)) {
		if (epilogue) {
			parse_syntax_error(p, "combined prologue and epilogue cannot "
				     "be defined with '+='");
			ast_stmt_free(body);
			goto fail;
		}
		parse_next(p);
		if (!(body2 = parse_block(p))) {
			ast_stmt_free(body);
			goto fail;
		}
	}
	a = xcalloc(1, sizeof(*a));
	a->loc = loc;
	a->names = names;
	a->pps = pps;
	a->epilogue = epilogue;
	a->body = body;
	a->body2 = body2;
	a->library = p->library;
	AST_VEC_PUSH(&p->script->aliases, a);
	return;
fail:
	pps_release(&names);
	pps_release(&pps);
}

/* type: 'long' | 'string' */
static bool parse_type(struct parser *p, enum ast_type *t)
{
	if (parse_accept(p, TOK_LONG_KW)) {
		*t = AST_T_LONG;
		return true;
	}
	if (parse_accept(p, TOK_STRING_KW)) {
		*t = AST_T_STRING;
		return true;
	}
	parse_expected(p, "'long' or 'string'");
	return false;
}

static struct ast_global *find_global(struct parser *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->script->globals.n; i++) {
		struct ast_global *g = p->script->globals.v[i];

		if (g->loc.file == p->file && !strcmp(g->name, name))
			return g;
	}
	return NULL;
}

/*
 * global: 'global' gdecl { ',' gdecl } [ ';' ]
 * gdecl: IDENT [ '%' ] [ '[' number ']' ] [ '=' literal ]
 * (after 'private', the 'global' keyword may be left out)
 */
static void parse_global(struct parser *p, bool private_)
{
	struct ast_global *g, *old;
	struct diag_loc loc;

	if (parse_at(p, TOK_GLOBAL))
		parse_next(p);
	for (;;) {
		if (!parse_at_name(p)) {
			parse_expected(p, "global variable name");
			return;
		}
		g = xcalloc(1, sizeof(*g));
		g->loc = p->tok.loc;
		g->name = parse_take_text(p);
		g->private_ = private_;
		g->library = p->library;
		parse_next(p);
		old = find_global(p, g->name);
		if (old) {
			parse_report(p, g->loc, "duplicate global name '%s'", g->name);
			diag_note(p->d, old->loc, "'%s' was first declared here",
				  g->name);
		}
		AST_VEC_PUSH(&p->script->globals, g);
		if (parse_accept(p, TOK_PERCENT))
			g->wrap = true;
		if (parse_accept(p, TOK_LBRACKET)) {
			if (!parse_number(p, &g->maxsize, &loc) ||
			    !parse_expect(p, TOK_RBRACKET))
				return;
			if (g->maxsize <= 0 || g->maxsize > INT_MAX)
				parse_report(p, loc, "array size out of range");
			g->array = true;
		}
		if (parse_at(p, TOK_ASSIGN)) {
			if (g->array)
				parse_report(p, p->tok.loc, "only scalar globals can "
				       "be initialized");
			parse_next(p);
			if (!(g->init = parse_literal(p)))
				return;
			g->type = g->init->kind == AST_E_NUM ? AST_T_LONG :
							       AST_T_STRING;
		}
		if (parse_accept(p, TOK_SEMI) || !parse_accept(p, TOK_COMMA))
			return;
	}
}

/*
 * function: 'function' NAME [ ':' type ] '(' [ param { ',' param } ] ')'
 *           [ ':' number ] block
 * NAME: IDENT | 'long' | 'string'      param: IDENT [ ':' type ]
 * A body of embedded C (%{ %}) is reported as not supported.
 */
static void parse_function(struct parser *p, bool private_)
{
	struct ast_func *f;
	struct diag_loc loc;
	size_t i;

	parse_next(p);	/* 'function' */
	if (!parse_at_name(p) && !parse_at(p, TOK_LONG_KW) && !parse_at(p, TOK_STRING_KW)) {
		parse_expected(p, "function name");
		return;
	}
	f = xcalloc(1, sizeof(*f));
	f->loc = p->tok.loc;
	f->name = parse_take_text(p);
	f->private_ = private_;
	f->library = p->library;
	parse_next(p);
	if (parse_accept(p, TOK_COLON) && !parse_type(p, &f->type))
		goto fail;
	if (!parse_expect(p, TOK_LPAREN))
		goto fail;
	while (!parse_accept(p, TOK_RPAREN)) {
		struct ast_param *prm;

		if (f->nparams && !parse_expect(p, TOK_COMMA))
			goto fail;
		if (!parse_at_name(p)) {
			parse_expected(p, "parameter name");
			goto fail;
		}
		for (i = 0; i < f->nparams; i++)
			if (!strcmp(f->params[i].name, p->tok.text))
				parse_report(p, p->tok.loc, "duplicate parameter "
				       "name '%s'", p->tok.text);
		f->params = xrealloc(f->params,
				     (f->nparams + 1) * sizeof(*f->params));
		prm = &f->params[f->nparams++];
		memset(prm, 0, sizeof(*prm));
		prm->loc = p->tok.loc;
		prm->name = parse_take_text(p);
		parse_next(p);
		if (parse_accept(p, TOK_COLON) && !parse_type(p, &prm->type))
			goto fail;
	}
	if (parse_accept(p, TOK_COLON)) {
		if (!parse_number(p, &f->priority, &loc))
			goto fail;
		if (f->priority < 1)
			parse_report(p, loc, "specified priority must be > 0");
	}
	if (parse_at(p, TOK_EMBEDDED)) {
		parse_report(p, p->tok.loc, "embedded C code is not supported: tapkit compiles no C (no guru mode)");
		parse_next(p);
		goto fail;
	}
	p->in_function = true;
	f->body = parse_block(p);
	p->in_function = false;
	if (!f->body)
		goto fail;
	AST_VEC_PUSH(&p->script->funcs, f);
	return;
fail:
	ast_func_free(f);
}

/* Skip to the next top-level keyword after an error. */
static void sync_top(struct parser *p)
{
	p->panic = false;
	while (!parse_at(p, TOK_EOF) && !at_top_keyword(p) && !parse_at(p, TOK_EMBEDDED))
		parse_next(p);
}

/* Drop the declarations added since @mark (the vector sizes then). */
static void drop_since(struct ast_script *s, const size_t mark[4])
{
	while (s->probes.n > mark[0])
		ast_probe_free(s->probes.v[--s->probes.n]);
	while (s->aliases.n > mark[1])
		ast_alias_free(s->aliases.v[--s->aliases.n]);
	while (s->globals.n > mark[2])
		ast_global_free(s->globals.v[--s->globals.n]);
	while (s->funcs.n > mark[3])
		ast_func_free(s->funcs.v[--s->funcs.n]);
}

/*
 * script: { probe | alias | global | private | function }
 * private: 'private' ( 'global' gdecls | 'function' ... | gdecls )
 */
static void parse_script(struct parser *p)
{
	while (!parse_at(p, TOK_EOF) && !diag_full(p->d)) {
		unsigned errors = diag_errors(p->d);
		size_t mark[4] = { p->script->probes.n, p->script->aliases.n,
				   p->script->globals.n, p->script->funcs.n };

		switch (p->tok.kind) {
		case TOK_PROBE:
			parse_probe(p);
			break;
		case TOK_GLOBAL:
			parse_global(p, false);
			break;
		case TOK_FUNCTION:
			parse_function(p, false);
			break;
		case TOK_PRIVATE:
			parse_next(p);
			if (parse_at(p, TOK_FUNCTION))
				parse_function(p, true);
			else
				parse_global(p, true);
			break;
		case TOK_EMBEDDED:
			parse_report(p, p->tok.loc, "embedded C code is not supported: tapkit compiles no C (no guru mode)");
			parse_next(p);
			break;
		default:
			parse_expected(p, "'probe', 'global', 'private' or 'function'");
			break;
		}
		if (p->panic)
			sync_top(p);
		if (diag_errors(p->d) != errors)
			drop_since(p->script, mark);
	}
}

int parse_source(struct ast_script *script, struct diag *d,
		 const struct diag_file *src, const struct lex_config *cfg,
		 unsigned flags)
{
	struct parser p = {
		.d = d,
		.script = script,
		.file = src,
		.library = flags & PARSE_LIBRARY,
	};
	unsigned errors = diag_errors(d);
	struct ast_file *f = xcalloc(1, sizeof(*f));

	f->src = src;
	f->library = p.library;
	AST_VEC_PUSH(&script->files, f);
	p.pp = pp_new(d, src, cfg);
	pp_next(p.pp, &p.tok);
	parse_script(&p);
	lex_token_release(&p.tok);
	pp_free(p.pp);
	return diag_errors(d) != errors ? -EINVAL : 0;
}

int parse_text(struct ast_script *script, struct diag *d, const char *name,
	       const char *text, size_t len, const struct lex_config *cfg,
	       unsigned flags)
{
	return parse_source(script, d, diag_add_file(d, name, text, len), cfg,
			    flags);
}

int parse_file(struct ast_script *script, struct diag *d, const char *path,
	       const struct lex_config *cfg, unsigned flags)
{
	const struct diag_file *src;
	int err = diag_read_file(d, path, &src);

	if (err) {
		diag_error(d, (struct diag_loc){ 0 }, "cannot read '%s': %s",
			   path, strerror(-err));
		return err;
	}
	return parse_source(script, d, src, cfg, flags);
}
