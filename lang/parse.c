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
 * duplicate global) are reported with report(), without panic.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/parse.h"

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

static struct ast_expr *parse_expr(struct parser *p);
static struct ast_stmt *parse_statement(struct parser *p);
static struct ast_stmt *parse_block(struct parser *p);

/* ---------------------------------------------------------------- */
/* Tokens and errors                                                 */

static void next(struct parser *p)
{
	if (p->tok.kind == TOK_LPAREN)
		p->depth++;
	else if (p->tok.kind == TOK_RPAREN)
		p->depth--;
	lex_token_release(&p->tok);
	lex_next(p->lx, &p->tok);
	p->ntok++;
}

static bool at(const struct parser *p, enum tok kind)
{
	return p->tok.kind == kind;
}

static bool accept(struct parser *p, enum tok kind)
{
	if (!at(p, kind))
		return false;
	next(p);
	return true;
}

/* The text of the lookahead, which the caller now owns. */
static char *take_text(struct parser *p)
{
	char *s = p->tok.text;

	p->tok.text = NULL;
	return s;
}

static bool is_keyword(enum tok k)
{
	return k >= TOK_PROBE && k <= TOK_CATCH;
}

/* An identifier that is a plain name, not a $target or a lone '$'. */
static bool at_name(const struct parser *p)
{
	return at(p, TOK_IDENT) && p->tok.text[0] != '$';
}

/* A lone "$" or "$$": the pretty-printing suffix of a target variable. */
static bool at_dollars(const struct parser *p)
{
	return at(p, TOK_IDENT) &&
	       p->tok.text[strspn(p->tok.text, "$")] == '\0';
}

/* An error that leaves the token stream in order: no recovery needed. */
static void report(struct parser *p, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(struct parser *p, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(p->d, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

/* A syntax error at the lookahead; later ones wait for the resync. */
static void syntax_error(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void syntax_error(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->panic && p->tok.kind != TOK_ERROR) {
		va_start(ap, fmt);
		diag_vreport(p->d, DIAG_ERROR, p->tok.loc, fmt, ap);
		va_end(ap);
		if (p->tok.macro_loc.file)
			diag_note(p->d, p->tok.macro_loc, "in expansion of "
				  "the macro invoked here");
	}
	p->panic = true;	/* after TOK_ERROR: the lexer reported it */
}

/* "expected WHAT before 'TOKEN'" / "expected WHAT at end of input" */
static void expected(struct parser *p, const char *what)
{
	char *q;

	switch (p->tok.kind) {
	case TOK_EOF:
		syntax_error(p, "expected %s at end of input", what);
		break;
	case TOK_STRING:
		q = lex_quote(p->tok.text, p->tok.len > 24 ? 24 : p->tok.len);
		syntax_error(p, "expected %s before \"%s%s\"", what, q,
			     p->tok.len > 24 ? "..." : "");
		free(q);
		break;
	case TOK_EMBEDDED:
		syntax_error(p, "expected %s before '%%{'", what);
		break;
	default:
		syntax_error(p, "expected %s before '%s'", what, p->tok.text);
		break;
	}
}

/* Consume a token of @kind or report "expected 'X' before ...". */
static bool expect(struct parser *p, enum tok kind)
{
	char what[16];

	if (accept(p, kind))
		return true;
	snprintf(what, sizeof(what), "'%s'", lex_kind_str(kind));
	expected(p, what);
	return false;
}

/* ---------------------------------------------------------------- */
/* Literals                                                          */

/* string: STRING { STRING }   (adjacent literals concatenate) */
static struct ast_expr *parse_string(struct parser *p)
{
	struct ast_expr *e;
	size_t len;

	if (!at(p, TOK_STRING)) {
		expected(p, "string literal");
		return NULL;
	}
	e = ast_expr_new(AST_E_STR, p->tok.loc);
	e->u.str.len = p->tok.len;
	e->u.str.s = take_text(p);
	next(p);
	while (at(p, TOK_STRING)) {
		len = e->u.str.len + p->tok.len;
		e->u.str.s = xrealloc(e->u.str.s, len + 1);
		memcpy(e->u.str.s + e->u.str.len, p->tok.text, p->tok.len + 1);
		e->u.str.len = len;
		next(p);
	}
	return e;
}

/* number: [ '-' ] NUMBER   (into *@v; the literal's location in *@loc) */
static bool parse_number(struct parser *p, int64_t *v, struct diag_loc *loc)
{
	bool neg;

	*loc = p->tok.loc;
	neg = accept(p, TOK_MINUS);
	if (!at(p, TOK_NUMBER)) {
		expected(p, "number");
		return false;
	}
	*v = (int64_t)(neg ? 0 - p->tok.num : p->tok.num);
	next(p);
	return true;
}

/* literal: string | number */
static struct ast_expr *parse_literal(struct parser *p)
{
	struct diag_loc loc;
	int64_t v;

	if (at(p, TOK_STRING))
		return parse_string(p);
	if (!at(p, TOK_MINUS) && !at(p, TOK_NUMBER)) {
		expected(p, "string or number");
		return NULL;
	}
	if (!parse_number(p, &v, &loc))
		return NULL;
	return ast_num(loc, v);
}

/* ---------------------------------------------------------------- */
/* Expressions, lowest precedence first                              */

struct opmap {
	enum tok tok;
	enum ast_op op;
};

static enum ast_op lookup_op(const struct opmap *m, enum tok k)
{
	for (; m->tok; m++)
		if (m->tok == k)
			return m->op;
	return AST_OP_NONE;
}

/* Left-associative level: sub { OP sub }, nodes of @kind. */
static struct ast_expr *binary_level(struct parser *p, enum ast_ekind kind,
				     const struct opmap *ops,
				     struct ast_expr *(*sub)(struct parser *))
{
	struct ast_expr *e = sub(p), *r;
	struct diag_loc loc;
	enum ast_op op;

	while (e && (op = lookup_op(ops, p->tok.kind)) != AST_OP_NONE) {
		loc = p->tok.loc;
		next(p);
		r = sub(p);
		if (!r) {
			ast_expr_free(e);
			return NULL;
		}
		e = ast_binary(kind, op, loc, e, r);
	}
	return e;
}

static const struct opmap assign_ops[] = {
	{ TOK_ASSIGN, AST_OP_ASSIGN }, { TOK_STAT_ADD, AST_OP_STAT_ADD },
	{ TOK_ADD_ASSIGN, AST_OP_ADD_ASSIGN },
	{ TOK_SUB_ASSIGN, AST_OP_SUB_ASSIGN },
	{ TOK_MUL_ASSIGN, AST_OP_MUL_ASSIGN },
	{ TOK_DIV_ASSIGN, AST_OP_DIV_ASSIGN },
	{ TOK_MOD_ASSIGN, AST_OP_MOD_ASSIGN },
	{ TOK_SHL_ASSIGN, AST_OP_SHL_ASSIGN },
	{ TOK_SHR_ASSIGN, AST_OP_SHR_ASSIGN },
	{ TOK_AND_ASSIGN, AST_OP_AND_ASSIGN },
	{ TOK_XOR_ASSIGN, AST_OP_XOR_ASSIGN },
	{ TOK_OR_ASSIGN, AST_OP_OR_ASSIGN },
	{ TOK_CAT_ASSIGN, AST_OP_CONCAT_ASSIGN }, { 0, 0 }
};
static const struct opmap lor_ops[] = { { TOK_OROR, AST_OP_LOR }, { 0, 0 } };
static const struct opmap land_ops[] = { { TOK_ANDAND, AST_OP_LAND }, { 0, 0 } };
static const struct opmap bor_ops[] = { { TOK_PIPE, AST_OP_BOR }, { 0, 0 } };
static const struct opmap bxor_ops[] = { { TOK_CARET, AST_OP_BXOR }, { 0, 0 } };
static const struct opmap band_ops[] = { { TOK_AMP, AST_OP_BAND }, { 0, 0 } };
static const struct opmap cmp_ops[] = {
	{ TOK_EQ, AST_OP_EQ }, { TOK_NE, AST_OP_NE }, { TOK_LT, AST_OP_LT },
	{ TOK_LE, AST_OP_LE }, { TOK_GT, AST_OP_GT }, { TOK_GE, AST_OP_GE },
	{ 0, 0 }
};
static const struct opmap shift_ops[] = {
	{ TOK_SHL, AST_OP_SHL }, { TOK_SHR, AST_OP_SHR }, { 0, 0 }
};
static const struct opmap concat_ops[] = { { TOK_DOT, AST_OP_CONCAT }, { 0, 0 } };
static const struct opmap add_ops[] = {
	{ TOK_PLUS, AST_OP_ADD }, { TOK_MINUS, AST_OP_SUB }, { 0, 0 }
};
static const struct opmap mul_ops[] = {
	{ TOK_STAR, AST_OP_MUL }, { TOK_SLASH, AST_OP_DIV },
	{ TOK_PERCENT, AST_OP_MOD }, { 0, 0 }
};
static const struct opmap unary_ops[] = {
	{ TOK_PLUS, AST_OP_PLUS }, { TOK_MINUS, AST_OP_NEG },
	{ TOK_NOT, AST_OP_NOT }, { TOK_TILDE, AST_OP_BNOT }, { 0, 0 }
};

static struct ast_expr *parse_ternary(struct parser *p);
static struct ast_expr *parse_comparison(struct parser *p);
static struct ast_expr *parse_unary(struct parser *p);
static struct ast_expr *parse_indexable(struct parser *p);

/* expression: assignment */
static struct ast_expr *parse_expr(struct parser *p)
{
	struct ast_expr *e = parse_ternary(p), *r;
	struct diag_loc loc;
	enum ast_op op;

	/*
	 * assignment: ternary [ ( '=' | '<<<' | '+=' | '-=' | '*=' | '/='
	 *                       | '%=' | '<<=' | '>>=' | '&=' | '^=' | '|='
	 *                       | '.=' ) assignment ]
	 * Right-associative; lvalues are checked by the elaborator.
	 */
	if (!e || (op = lookup_op(assign_ops, p->tok.kind)) == AST_OP_NONE)
		return e;
	loc = p->tok.loc;
	next(p);
	r = parse_expr(p);
	if (!r) {
		ast_expr_free(e);
		return NULL;
	}
	return ast_binary(AST_E_ASSIGN, op, loc, e, r);
}

static struct ast_expr *parse_logical_or(struct parser *p);

/* ternary: logical_or [ '?' expression ':' ternary ] */
static struct ast_expr *parse_ternary(struct parser *p)
{
	struct ast_expr *c = parse_logical_or(p), *e;

	if (!c || !at(p, TOK_QUESTION))
		return c;
	e = ast_expr_new(AST_E_TERNARY, c->loc);
	e->op_loc = p->tok.loc;
	e->u.ternary.cond = c;
	next(p);
	if (!(e->u.ternary.then = parse_expr(p)) || !expect(p, TOK_COLON) ||
	    !(e->u.ternary.els = parse_ternary(p))) {
		ast_expr_free(e);
		return NULL;
	}
	return e;
}

static struct ast_expr *parse_logical_and(struct parser *p);
static struct ast_expr *parse_bit_or(struct parser *p);
static struct ast_expr *parse_bit_xor(struct parser *p);
static struct ast_expr *parse_bit_and(struct parser *p);
static struct ast_expr *parse_array_in(struct parser *p);

/* logical_or: logical_and { '||' logical_and } */
static struct ast_expr *parse_logical_or(struct parser *p)
{
	return binary_level(p, AST_E_LOGICAL, lor_ops, parse_logical_and);
}

/* logical_and: bit_or { '&&' bit_or } */
static struct ast_expr *parse_logical_and(struct parser *p)
{
	return binary_level(p, AST_E_LOGICAL, land_ops, parse_bit_or);
}

/* bit_or: bit_xor { '|' bit_xor } */
static struct ast_expr *parse_bit_or(struct parser *p)
{
	return binary_level(p, AST_E_BINARY, bor_ops, parse_bit_xor);
}

/* bit_xor: bit_and { '^' bit_and } */
static struct ast_expr *parse_bit_xor(struct parser *p)
{
	return binary_level(p, AST_E_BINARY, bxor_ops, parse_bit_and);
}

/* bit_and: array_in { '&' array_in } */
static struct ast_expr *parse_bit_and(struct parser *p)
{
	return binary_level(p, AST_E_BINARY, band_ops, parse_array_in);
}

/*
 * array_in: comparison [ 'in' indexable ]
 *         | '[' key { ',' key } ']' [ 'in' indexable ]
 * key: '*' | comparison
 * A bracketed single key without 'in' is just that expression, as in stap.
 */
static struct ast_expr *parse_array_in(struct parser *p)
{
	struct ast_expr *idx, *e, *k;
	struct diag_loc loc = p->tok.loc;

	if (!accept(p, TOK_LBRACKET)) {
		k = parse_comparison(p);
		if (!k || !at(p, TOK_IN))
			return k;
		idx = ast_expr_new(AST_E_INDEX, loc);
		AST_VEC_PUSH(&idx->u.index.args, k);
	} else {
		idx = ast_expr_new(AST_E_INDEX, loc);
		for (;;) {
			if (at(p, TOK_STAR)) {
				k = ast_expr_new(AST_E_STAR, p->tok.loc);
				next(p);
			} else if (!(k = parse_comparison(p))) {
				goto fail;
			}
			AST_VEC_PUSH(&idx->u.index.args, k);
			if (accept(p, TOK_RBRACKET))
				break;
			if (!accept(p, TOK_COMMA)) {
				expected(p, "',' or ']'");
				goto fail;
			}
		}
		if (!at(p, TOK_IN)) {
			if (idx->u.index.args.n == 1 && k->kind != AST_E_STAR) {
				idx->u.index.args.n = 0;
				ast_expr_free(idx);
				return k;
			}
			expected(p, "'in' after a bracketed list of keys");
			goto fail;
		}
	}
	e = ast_expr_new(AST_E_IN, loc);
	e->op_loc = p->tok.loc;
	e->u.in.index = idx;
	next(p);	/* 'in' */
	idx->loc = idx->op_loc = p->tok.loc;
	if (!(idx->u.index.base = parse_indexable(p))) {
		ast_expr_free(e);
		return NULL;
	}
	return e;
fail:
	ast_expr_free(idx);
	return NULL;
}

static struct ast_expr *parse_shift(struct parser *p);

/*
 * comparison: shift [ ( '=~' | '!~' ) string ]
 *           | shift { ( '==' | '!=' | '<' | '<=' | '>' | '>=' ) shift }
 */
static struct ast_expr *parse_comparison(struct parser *p)
{
	struct ast_expr *e, *r;
	struct diag_loc loc;
	enum ast_op op;

	if (!(e = parse_shift(p)))
		return NULL;
	if (at(p, TOK_MATCH) || at(p, TOK_NOMATCH)) {
		op = at(p, TOK_MATCH) ? AST_OP_MATCH : AST_OP_NOMATCH;
		loc = p->tok.loc;
		next(p);
		if (!(r = parse_string(p))) {
			ast_expr_free(e);
			return NULL;
		}
		return ast_binary(AST_E_REGEX, op, loc, e, r);
	}
	while ((op = lookup_op(cmp_ops, p->tok.kind)) != AST_OP_NONE) {
		loc = p->tok.loc;
		next(p);
		if (!(r = parse_shift(p))) {
			ast_expr_free(e);
			return NULL;
		}
		e = ast_binary(AST_E_COMPARE, op, loc, e, r);
	}
	return e;
}

static struct ast_expr *parse_concat(struct parser *p);
static struct ast_expr *parse_additive(struct parser *p);
static struct ast_expr *parse_multiplicative(struct parser *p);

/* shift: concatenation { ( '<<' | '>>' ) concatenation } */
static struct ast_expr *parse_shift(struct parser *p)
{
	return binary_level(p, AST_E_BINARY, shift_ops, parse_concat);
}

/* concatenation: additive { '.' additive } */
static struct ast_expr *parse_concat(struct parser *p)
{
	return binary_level(p, AST_E_CONCAT, concat_ops, parse_additive);
}

/* additive: multiplicative { ( '+' | '-' ) multiplicative } */
static struct ast_expr *parse_additive(struct parser *p)
{
	return binary_level(p, AST_E_BINARY, add_ops, parse_multiplicative);
}

/* multiplicative: unary { ( '*' | '/' | '%' ) unary } */
static struct ast_expr *parse_multiplicative(struct parser *p)
{
	return binary_level(p, AST_E_BINARY, mul_ops, parse_unary);
}

static struct ast_expr *parse_crement(struct parser *p);

/*
 * unary: ( '+' | '-' | '!' | '~' ) unary | crement
 * '-' NUMBER folds into a negative literal: -9223372036854775808 works.
 */
static struct ast_expr *parse_unary(struct parser *p)
{
	enum ast_op op = lookup_op(unary_ops, p->tok.kind);
	struct ast_expr *e, *operand;
	struct diag_loc loc = p->tok.loc;

	if (op == AST_OP_NONE)
		return parse_crement(p);
	next(p);
	if (!(operand = parse_unary(p)))
		return NULL;
	if (op == AST_OP_NEG && operand->kind == AST_E_NUM) {
		operand->u.num = (int64_t)(0 - (uint64_t)operand->u.num);
		operand->loc = operand->op_loc = loc;
		return operand;
	}
	e = ast_expr_new(AST_E_UNARY, loc);
	e->op = op;
	e->u.unary.operand = operand;
	return e;
}

static struct ast_expr *parse_dwarf_value(struct parser *p);

/* crement: ( '++' | '--' ) dwarf_value | dwarf_value [ '++' | '--' ] */
static struct ast_expr *parse_crement(struct parser *p)
{
	struct ast_expr *e, *operand;
	struct diag_loc loc = p->tok.loc;

	if (at(p, TOK_INC) || at(p, TOK_DEC)) {
		e = ast_expr_new(AST_E_CREMENT, loc);
		e->op = at(p, TOK_INC) ? AST_OP_PREINC : AST_OP_PREDEC;
		next(p);
		if (!(e->u.unary.operand = parse_dwarf_value(p))) {
			ast_expr_free(e);
			return NULL;
		}
		return e;
	}
	if (!(operand = parse_dwarf_value(p)))
		return NULL;
	if (!at(p, TOK_INC) && !at(p, TOK_DEC))
		return operand;
	e = ast_expr_new(AST_E_CREMENT, operand->loc);
	e->op_loc = p->tok.loc;
	e->op = at(p, TOK_INC) ? AST_OP_POSTINC : AST_OP_POSTDEC;
	e->u.unary.operand = operand;
	next(p);
	return e;
}

static void add_tcomp(struct ast_expr *e, enum ast_tcomp_kind kind,
		      struct diag_loc loc, char *name, struct ast_expr *index)
{
	struct ast_tcomp *c;

	e->u.target.comps = xrealloc(e->u.target.comps,
				     (e->u.target.ncomps + 1) * sizeof(*c));
	c = &e->u.target.comps[e->u.target.ncomps++];
	c->kind = kind;
	c->loc = loc;
	c->name = name;
	c->index = index;
}

/*
 * If @name ends in '$' or '$$' after other characters ("$var$",
 * "field$$"), cut that suffix off and return it; else NULL.
 */
static char *pretty_suffix(char *name)
{
	size_t n = strlen(name);
	char *suffix;

	while (n && name[n - 1] == '$')
		n--;
	if (n == strlen(name))
		return NULL;
	suffix = xstrdup(name + n);
	name[n] = '\0';
	return suffix;
}

/*
 * target_components: { '->' member | '[' expression ']' } [ '$' | '$$' ]
 * member: IDENT | keyword        (a trailing '$' / '$$' pretty-prints)
 */
static bool parse_target_components(struct parser *p, struct ast_expr *e,
				    bool pretty)
{
	struct ast_expr *idx;
	struct diag_loc loc;
	char *member, *suffix;

	while (!pretty) {
		loc = p->tok.loc;
		if (accept(p, TOK_ARROW)) {
			if (!at(p, TOK_IDENT) && !is_keyword(p->tok.kind)) {
				expected(p, "member name after '->'");
				return false;
			}
			member = take_text(p);
			next(p);
			suffix = pretty_suffix(member);
			if (member[0])
				add_tcomp(e, AST_TC_MEMBER, loc, member, NULL);
			else
				free(member);
			if (suffix) {
				add_tcomp(e, AST_TC_PRETTY, loc, suffix, NULL);
				pretty = true;
			}
		} else if (accept(p, TOK_LBRACKET)) {
			if (!(idx = parse_expr(p)))
				return false;
			add_tcomp(e, AST_TC_INDEX, loc, NULL, idx);
			if (!expect(p, TOK_RBRACKET))
				return false;
		} else {
			break;
		}
	}
	if (!pretty && at_dollars(p)) {
		add_tcomp(e, AST_TC_PRETTY, p->tok.loc, take_text(p), NULL);
		next(p);
		pretty = true;
	}
	if (pretty && (at(p, TOK_ARROW) || at(p, TOK_LBRACKET))) {
		syntax_error(p, "'%s' is not allowed after a pretty-printed "
			     "target variable", p->tok.text);
		return false;
	}
	return true;
}

static struct ast_expr *parse_value(struct parser *p);

/* Skip a balanced '(' ... ')' group, if one is next. */
static void skip_parens(struct parser *p)
{
	unsigned nest = 0;

	if (!at(p, TOK_LPAREN))
		return;
	do {
		if (at(p, TOK_LPAREN))
			nest++;
		else if (at(p, TOK_RPAREN))
			nest--;
		next(p);
	} while (nest && !at(p, TOK_EOF));
}

/* An @word tapkit does not implement: report, skip its arguments. */
static struct ast_expr *unsupported_atword(struct parser *p)
{
	struct diag_loc loc = p->tok.loc;

	report(p, loc, "'%s' is not supported", p->tok.text);
	next(p);
	skip_parens(p);
	return ast_num(loc, 0);	/* stands in; the declaration is dropped */
}

static bool is_unsupported_atword(const char *s)
{
	static const char *const words[] = {
		"@cast", "@var", "@const", "@probewrite", "@kregister",
		"@uregister", "@kderef", "@uderef",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i]))
			return true;
	return false;
}

/*
 * dwarf_value: [ '&' ] ( TARGET | value ) target_components
 * TARGET: '$name' | '$$vars' | '$$parms' | '$$locals' | '$$return',
 * each possibly ending in '$' or '$$'.  A value followed by '->', '[' or
 * a lone '$' becomes an autocast target (name NULL, base the value).
 */
static struct ast_expr *parse_dwarf_value(struct parser *p)
{
	struct diag_loc loc = p->tok.loc;
	bool addressof = accept(p, TOK_AMP);
	struct ast_expr *e, *v;
	char *suffix;

	if (at(p, TOK_IDENT) && p->tok.text[0] == '$' && !at_dollars(p)) {
		e = ast_expr_new(AST_E_TARGET, loc);
		e->op_loc = p->tok.loc;
		e->u.target.name = take_text(p);
		next(p);
		suffix = pretty_suffix(e->u.target.name);
		if (suffix)
			add_tcomp(e, AST_TC_PRETTY, e->op_loc, suffix, NULL);
	} else {
		if (at(p, TOK_ATWORD) && is_unsupported_atword(p->tok.text))
			v = unsupported_atword(p);
		else if (!(v = parse_value(p)))
			return NULL;
		if (!addressof && !at(p, TOK_ARROW) && !at(p, TOK_LBRACKET) &&
		    !at_dollars(p))
			return v;
		e = ast_expr_new(AST_E_TARGET, loc);
		e->op_loc = v->loc;
		e->u.target.base = v;
		suffix = NULL;
	}
	e->u.target.addressof = addressof;
	if (!parse_target_components(p, e, suffix != NULL)) {
		ast_expr_free(e);
		return NULL;
	}
	return e;
}

static struct ast_expr *parse_symbol(struct parser *p);

/*
 * value: '(' expression ')' | symbol | literal
 * symbol covers identifiers, calls, arrays and the @words.
 */
static struct ast_expr *parse_value(struct parser *p)
{
	struct ast_expr *e;
	struct diag_loc loc = p->tok.loc;

	switch (p->tok.kind) {
	case TOK_LPAREN:
		next(p);
		if (!(e = parse_expr(p)))
			return NULL;
		if (!expect(p, TOK_RPAREN)) {
			ast_expr_free(e);
			return NULL;
		}
		return e;
	case TOK_IDENT:
		if (at_dollars(p))
			break;
		return parse_symbol(p);
	case TOK_ATWORD:
		return parse_symbol(p);
	case TOK_NUMBER:
	case TOK_STRING:
		return parse_literal(p);
	case TOK_EMBEDDED:
		report(p, loc, "embedded C code is not supported");
		next(p);
		return ast_num(loc, 0);	/* stands in; the declaration is dropped */
	default:
		break;
	}
	expected(p, "expression");
	return NULL;
}

/*
 * hist_op: '@hist_log' '(' expression ')'
 *        | '@hist_linear' '(' expression ',' number ',' number ',' number ')'
 */
static struct ast_expr *parse_hist_op(struct parser *p)
{
	struct ast_expr *e = ast_expr_new(AST_E_HIST, p->tok.loc);
	struct diag_loc loc;
	int i;

	e->u.hist.kind = strcmp(p->tok.text, "@hist_log") ? AST_HIST_LINEAR :
							    AST_HIST_LOG;
	next(p);
	if (!expect(p, TOK_LPAREN) || !(e->u.hist.operand = parse_expr(p)))
		goto fail;
	for (i = 0; e->u.hist.kind == AST_HIST_LINEAR && i < 3; i++)
		if (!expect(p, TOK_COMMA) ||
		    !parse_number(p, &e->u.hist.params[i], &loc))
			goto fail;
	if (!expect(p, TOK_RPAREN))
		goto fail;
	return e;
fail:
	ast_expr_free(e);
	return NULL;
}

static bool at_hist_op(const struct parser *p)
{
	return at(p, TOK_ATWORD) && (!strcmp(p->tok.text, "@hist_log") ||
				     !strcmp(p->tok.text, "@hist_linear"));
}

/* indexable: IDENT | hist_op */
static struct ast_expr *parse_indexable(struct parser *p)
{
	struct ast_expr *e;

	if (at_hist_op(p))
		return parse_hist_op(p);
	if (!at_name(p)) {
		expected(p, "array name or histogram");
		return NULL;
	}
	e = ast_expr_new(AST_E_VAR, p->tok.loc);
	e->u.var.name = take_text(p);
	next(p);
	return e;
}

/* args: expression { ',' expression } ')'   ('(' already read) */
static bool parse_args(struct parser *p, struct ast_exprs *args)
{
	struct ast_expr *a;

	if (accept(p, TOK_RPAREN))
		return true;
	for (;;) {
		if (!(a = parse_expr(p)))
			return false;
		AST_VEC_PUSH(args, a);
		if (accept(p, TOK_RPAREN))
			return true;
		if (!accept(p, TOK_COMMA)) {
			expected(p, "',' or ')'");
			return false;
		}
	}
}

/* index_list: ( '*' | expression ) { ',' ... } ']'   ('[' already read) */
static bool parse_index_list(struct parser *p, struct ast_exprs *args)
{
	struct ast_expr *a;

	for (;;) {
		if (at(p, TOK_STAR)) {
			a = ast_expr_new(AST_E_STAR, p->tok.loc);
			next(p);
		} else if (!(a = parse_expr(p))) {
			return false;
		}
		AST_VEC_PUSH(args, a);
		if (accept(p, TOK_RBRACKET))
			return true;
		if (!accept(p, TOK_COMMA)) {
			expected(p, "',' or ']'");
			return false;
		}
	}
}

static const struct {
	const char *name;
	unsigned flags;
} print_fns[] = {
	{ "printf", AST_PRINT_FORMAT },
	{ "sprintf", AST_PRINT_FORMAT | AST_PRINT_TOSTR },
	{ "print", 0 },
	{ "sprint", AST_PRINT_TOSTR },
	{ "println", AST_PRINT_NEWLINE },
	{ "sprintln", AST_PRINT_NEWLINE | AST_PRINT_TOSTR },
	{ "printd", AST_PRINT_DELIM },
	{ "sprintd", AST_PRINT_DELIM | AST_PRINT_TOSTR },
	{ "printdln", AST_PRINT_DELIM | AST_PRINT_NEWLINE },
	{ "sprintdln", AST_PRINT_DELIM | AST_PRINT_NEWLINE | AST_PRINT_TOSTR },
};

/*
 * print: printfn '(' hist_op [ '[' expression ']' { ',' expression } ] ')'
 *      | printfn '(' [ string ] { [','] expression } ')'
 * printf/sprintf take a format string first, printd* a delimiter and at
 * least two values, print/sprint at least one value.  The histogram form
 * is for print, println, sprint and sprintln.
 * (Name and '(' already checked; @e holds the name.)
 */
static struct ast_expr *parse_print(struct parser *p, struct ast_expr *e)
{
	unsigned flags = e->u.print.flags;
	struct ast_expr *a, *idx;
	bool comma = false;
	int min = 0;

	next(p);	/* '(' */
	if (!(flags & (AST_PRINT_FORMAT | AST_PRINT_DELIM)) && at_hist_op(p)) {
		if (!(a = parse_hist_op(p)))
			goto fail;
		if (at(p, TOK_LBRACKET)) {
			idx = ast_expr_new(AST_E_INDEX, a->loc);
			idx->u.index.base = a;
			a = idx;
			next(p);
			if (!(idx = parse_expr(p))) {
				ast_expr_free(a);
				goto fail;
			}
			AST_VEC_PUSH(&a->u.index.args, idx);
			if (!expect(p, TOK_RBRACKET)) {
				ast_expr_free(a);
				goto fail;
			}
			AST_VEC_PUSH(&e->u.print.args, a);
			comma = true;
		} else {
			/* print(@hist_log(x)): the histogram alone */
			AST_VEC_PUSH(&e->u.print.args, a);
			if (!expect(p, TOK_RPAREN))
				goto fail;
			return e;
		}
	} else if (flags & (AST_PRINT_FORMAT | AST_PRINT_DELIM)) {
		if (!(e->u.print.fmt = parse_string(p)))
			goto fail;
		comma = true;
		min = flags & AST_PRINT_DELIM ? 2 : 0;
	} else if (!(flags & AST_PRINT_NEWLINE)) {
		min = 1;
	}
	while (min > 0 || !at(p, TOK_RPAREN)) {
		if (at(p, TOK_RPAREN)) {
			syntax_error(p, "too few arguments to '%s'",
				     e->u.print.name);
			goto fail;
		}
		if (comma && !accept(p, TOK_COMMA)) {
			expected(p, "',' or ')'");
			goto fail;
		}
		if (!(a = parse_expr(p)))
			goto fail;
		AST_VEC_PUSH(&e->u.print.args, a);
		comma = true;
		min--;
	}
	if (!expect(p, TOK_RPAREN))
		goto fail;
	return e;
fail:
	ast_expr_free(e);
	return NULL;
}

static const struct {
	const char *name;
	enum ast_stat op;
} stat_ops[] = {
	{ "@count", AST_STAT_COUNT }, { "@sum", AST_STAT_SUM },
	{ "@min", AST_STAT_MIN }, { "@max", AST_STAT_MAX },
	{ "@avg", AST_STAT_AVG }, { "@variance", AST_STAT_VARIANCE },
};

static enum ast_stat stat_op(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(stat_ops) / sizeof(stat_ops[0]); i++)
		if (!strcmp(name, stat_ops[i].name))
			return stat_ops[i].op;
	return AST_STAT_NONE;
}

/*
 * stat_op: ( '@count' | '@sum' | '@min' | '@max' | '@avg' ) '(' expression ')'
 *        | '@variance' '(' expression [ ',' number ] ')'
 */
static struct ast_expr *parse_stat_op(struct parser *p, enum ast_stat op)
{
	struct ast_expr *e = ast_expr_new(AST_E_STAT, p->tok.loc);
	struct diag_loc loc;
	char *name = take_text(p);

	e->u.stat.op = op;
	next(p);
	if (!expect(p, TOK_LPAREN) || !(e->u.stat.operand = parse_expr(p)))
		goto fail;
	while (at(p, TOK_COMMA)) {
		if (op != AST_STAT_VARIANCE || e->u.stat.nparams) {
			syntax_error(p, "too many arguments for '%s'", name);
			goto fail;
		}
		next(p);
		if (!parse_number(p, &e->u.stat.params[0], &loc))
			goto fail;
		e->u.stat.nparams = 1;
	}
	if (!expect(p, TOK_RPAREN))
		goto fail;
	free(name);
	return e;
fail:
	free(name);
	ast_expr_free(e);
	return NULL;
}

/* '@defined' '(' expression ')' | '@entry' '(' expression ')' */
static struct ast_expr *parse_unary_atword(struct parser *p,
					   enum ast_ekind kind)
{
	struct ast_expr *e = ast_expr_new(kind, p->tok.loc);

	next(p);
	if (!expect(p, TOK_LPAREN) || !(e->u.unary.operand = parse_expr(p)) ||
	    !expect(p, TOK_RPAREN)) {
		ast_expr_free(e);
		return NULL;
	}
	return e;
}

/* '@perf' '(' string ')' */
static struct ast_expr *parse_perf(struct parser *p)
{
	struct diag_loc loc = p->tok.loc;
	struct ast_expr *s;

	next(p);
	if (!expect(p, TOK_LPAREN) || !(s = parse_string(p)))
		return NULL;
	if (!expect(p, TOK_RPAREN)) {
		ast_expr_free(s);
		return NULL;
	}
	if (!s->u.str.len)
		report(p, s->loc, "expected a non-empty string");
	s->kind = AST_E_PERF;
	s->loc = s->op_loc = loc;
	return s;
}

/*
 * symbol: hist_op [ '[' expression ']' ]
 *       | '@defined' ... | '@entry' ... | '@perf' ... | stat_op
 *       | print
 *       | IDENT '(' [ args ] ')'
 *       | IDENT [ '[' index_list ]
 */
static struct ast_expr *parse_symbol(struct parser *p)
{
	struct diag_loc loc = p->tok.loc;
	struct ast_expr *e, *base;
	enum ast_stat sop;
	size_t i;

	if (at(p, TOK_ATWORD)) {
		const char *w = p->tok.text;

		if (at_hist_op(p)) {
			if (!(base = parse_hist_op(p)))
				return NULL;
			if (!at(p, TOK_LBRACKET)) {
				report(p, loc, "histogram operator used where "
				       "a value is expected");
				return base;
			}
			goto index;
		}
		if (!strcmp(w, "@defined"))
			return parse_unary_atword(p, AST_E_DEFINED);
		if (!strcmp(w, "@entry"))
			return parse_unary_atword(p, AST_E_ENTRY);
		if (!strcmp(w, "@perf"))
			return parse_perf(p);
		if ((sop = stat_op(w)) != AST_STAT_NONE)
			return parse_stat_op(p, sop);
		if (is_unsupported_atword(w))
			return unsupported_atword(p);
		report(p, loc, "unknown operator or macro '%s'", w);
		next(p);
		skip_parens(p);
		return ast_num(loc, 0);	/* stands in; the declaration is dropped */
	}

	for (i = 0; i < sizeof(print_fns) / sizeof(print_fns[0]); i++) {
		if (strcmp(p->tok.text, print_fns[i].name))
			continue;
		e = ast_expr_new(AST_E_PRINT, loc);
		e->u.print.name = take_text(p);
		e->u.print.flags = print_fns[i].flags;
		next(p);
		if (!at(p, TOK_LPAREN)) {
			expected(p, "'('");
			ast_expr_free(e);
			return NULL;
		}
		return parse_print(p, e);
	}

	base = ast_expr_new(AST_E_VAR, loc);
	base->u.var.name = take_text(p);
	next(p);
	if (at(p, TOK_LPAREN)) {
		next(p);
		e = ast_expr_new(AST_E_CALL, loc);
		e->u.call.name = base->u.var.name;
		base->u.var.name = NULL;
		ast_expr_free(base);
		if (!parse_args(p, &e->u.call.args)) {
			ast_expr_free(e);
			return NULL;
		}
		return e;
	}
	if (!at(p, TOK_LBRACKET))
		return base;
index:
	e = ast_expr_new(AST_E_INDEX, loc);
	e->u.index.base = base;
	next(p);	/* '[' */
	if (!parse_index_list(p, &e->u.index.args)) {
		ast_expr_free(e);
		return NULL;
	}
	return e;
}

/* ---------------------------------------------------------------- */
/* Statements                                                        */

static bool at_top_keyword(const struct parser *p)
{
	return at(p, TOK_PROBE) || at(p, TOK_GLOBAL) || at(p, TOK_PRIVATE) ||
	       at(p, TOK_FUNCTION);
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
	if (p->ntok == start && !at(p, TOK_RBRACE) && !at(p, TOK_EOF) &&
	    !at_top_keyword(p))
		next(p);
	while (!at(p, TOK_EOF) && !at_top_keyword(p)) {
		if (at(p, TOK_LBRACE)) {
			nest++;
		} else if (at(p, TOK_RBRACE)) {
			if (!nest)
				return;
			if (!--nest) {
				next(p);
				return;
			}
		} else if (!nest && at(p, TOK_SEMI)) {
			next(p);
			return;
		} else if (!nest && at_stmt_keyword(p)) {
			return;
		}
		next(p);
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
	while (!at(p, TOK_EOF) && !at(p, TOK_LBRACE) && !at(p, TOK_RBRACE) &&
	       !at_top_keyword(p)) {
		if (at(p, TOK_RPAREN) && p->depth == depth + 1) {
			next(p);
			p->panic = false;
			ast_stmt_free(parse_statement(p));
			return;
		}
		next(p);
	}
}

/* block: '{' { statement } '}' */
static struct ast_stmt *parse_block(struct parser *p)
{
	struct ast_stmt *b, *s;
	unsigned long start;

	if (!at(p, TOK_LBRACE)) {
		expected(p, "'{'");
		return NULL;
	}
	b = ast_stmt_new(AST_S_BLOCK, p->tok.loc);
	next(p);
	while (!at(p, TOK_RBRACE) && !at(p, TOK_EOF) && !at_top_keyword(p) &&
	       !diag_full(p->d)) {
		start = p->ntok;
		s = parse_statement(p);
		if (s)
			AST_VEC_PUSH(&b->u.block, s);
		if (p->panic)
			sync_statement(p, start);
	}
	if (!expect(p, TOK_RBRACE)) {
		ast_stmt_free(b);
		return NULL;
	}
	return b;
}

/* Parse '(' expression ')' into *@out. */
static bool parse_paren_expr(struct parser *p, struct ast_expr **out)
{
	return expect(p, TOK_LPAREN) && (*out = parse_expr(p)) &&
	       expect(p, TOK_RPAREN);
}

/* if: 'if' '(' expression ')' statement [ 'else' statement ] */
static struct ast_stmt *parse_if(struct parser *p)
{
	struct ast_stmt *s = ast_stmt_new(AST_S_IF, p->tok.loc);
	long depth = p->depth;

	next(p);
	if (!parse_paren_expr(p, &s->u.if_.cond) ||
	    !(s->u.if_.then = parse_statement(p)))
		goto fail;
	if (accept(p, TOK_ELSE) && !(s->u.if_.els = parse_statement(p)))
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

	next(p);
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

	next(p);
	if (!expect(p, TOK_LPAREN))
		goto fail;
	if (!at(p, TOK_SEMI) && !(s->u.loop.init = parse_expr(p)))
		goto fail;
	if (!expect(p, TOK_SEMI))
		goto fail;
	if (!at(p, TOK_SEMI) && !(s->u.loop.cond = parse_expr(p)))
		goto fail;
	if (!expect(p, TOK_SEMI))
		goto fail;
	if (!at(p, TOK_RPAREN) && !(s->u.loop.incr = parse_expr(p)))
		goto fail;
	if (!expect(p, TOK_RPAREN) || !(s->u.loop.body = parse_statement(p)))
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
	if (accept(p, TOK_PLUS))
		return 1;
	if (accept(p, TOK_MINUS))
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
		report(p, loc, "multiple sort directives");
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

	next(p);
	if (!expect(p, TOK_LPAREN))
		goto fail;
	if (at_name(p)) {
		first = ast_var(p->tok.loc, p->tok.text);
		next(p);
		loc = p->tok.loc;
		dir = parse_sort(p);
		if (accept(p, TOK_ASSIGN)) {
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
		bracket = accept(p, TOK_LBRACKET);
		for (;;) {
			if (!at_name(p)) {
				expected(p, "identifier");
				goto fail;
			}
			k = ast_var(p->tok.loc, p->tok.text);
			AST_VEC_PUSH(&s->u.foreach.keys, k);
			next(p);
			loc = p->tok.loc;
			dir = parse_sort(p);
			set_sort(p, s, dir, (int)s->u.foreach.keys.n, loc);
			if (!bracket || accept(p, TOK_RBRACKET))
				break;
			if (!accept(p, TOK_COMMA)) {
				expected(p, "',' or ']'");
				goto fail;
			}
		}
	}
	if (!expect(p, TOK_IN) || !(s->u.foreach.array = parse_indexable(p)))
		goto fail;
	if (accept(p, TOK_LBRACKET) &&
	    !parse_index_list(p, &s->u.foreach.slice))
		goto fail;
	if (at(p, TOK_ATWORD)) {
		s->u.foreach.sort_aggr = stat_op(p->tok.text);
		if (!s->u.foreach.sort_aggr) {
			syntax_error(p, "expected statistical operation before "
				     "'%s'", p->tok.text);
			goto fail;
		}
		next(p);
		if (!at(p, TOK_PLUS) && !at(p, TOK_MINUS)) {
			expected(p, "'+' or '-'");
			goto fail;
		}
	}
	loc = p->tok.loc;
	set_sort(p, s, parse_sort(p), 0, loc);
	if (accept(p, TOK_LIMIT) && !(s->u.foreach.limit = parse_expr(p)))
		goto fail;
	if (!expect(p, TOK_RPAREN) || !(s->u.foreach.body = parse_statement(p)))
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

	next(p);
	if (!(s->u.try_.body = parse_block(p)) || !expect(p, TOK_CATCH))
		goto fail;
	if (accept(p, TOK_LPAREN)) {
		if (!at_name(p)) {
			expected(p, "identifier");
			goto fail;
		}
		s->u.try_.var_loc = p->tok.loc;
		s->u.try_.var = take_text(p);
		next(p);
		if (!expect(p, TOK_RPAREN))
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
		next(p);
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
		s = ast_stmt_new(at(p, TOK_BREAK) ? AST_S_BREAK :
				 at(p, TOK_CONTINUE) ? AST_S_CONTINUE :
				 AST_S_NEXT, loc);
		next(p);
		break;
	case TOK_RETURN:
		if (!p->in_function)
			report(p, loc, "'return' outside of a function");
		s = ast_stmt_new(AST_S_RETURN, loc);
		next(p);
		if (!at(p, TOK_SEMI) && !at(p, TOK_RBRACE) &&
		    !(s->u.expr = parse_expr(p))) {
			ast_stmt_free(s);
			return NULL;
		}
		break;
	case TOK_DELETE:
		s = ast_stmt_new(AST_S_DELETE, loc);
		next(p);
		if (!(s->u.expr = parse_expr(p))) {
			ast_stmt_free(s);
			return NULL;
		}
		break;
	case TOK_EMBEDDED:
		report(p, loc, "embedded C code is not supported");
		next(p);
		return NULL;
	default:
		if (!at_expr_start(p)) {
			expected(p, "statement");
			return NULL;
		}
		if (!(e = parse_expr(p)))
			return NULL;
		s = ast_stmt_new(AST_S_EXPR, loc);
		s->u.expr = e;
		break;
	}
	accept(p, TOK_SEMI);
	return s;
}

/* ---------------------------------------------------------------- */
/* Probe points                                                      */

static void parse_pp_list(struct parser *p, struct ast_pps *out, bool braces);

static struct ast_pp *pp_new(struct diag_loc loc)
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

	if (accept(p, TOK_LBRACE)) {
		parse_pp_list(p, out, true);
		if (!p->panic)
			expect(p, TOK_RBRACE);
		return;
	}
	if (!at(p, TOK_IDENT) && !is_keyword(p->tok.kind) && !at(p, TOK_STAR)) {
		expected(p, "probe point");
		return;
	}
	c.name = take_text(p);
	next(p);
	while (!p->tok.space_before && (at(p, TOK_IDENT) || at(p, TOK_STAR) ||
					is_keyword(p->tok.kind))) {
		n = strlen(c.name);
		c.name = xrealloc(c.name, n + p->tok.len + 1);
		memcpy(c.name + n, p->tok.text, p->tok.len + 1);
		next(p);
	}
	if (accept(p, TOK_LPAREN)) {
		if (!(c.arg = parse_literal(p)) || !expect(p, TOK_RPAREN)) {
			free(c.name);
			ast_expr_free(c.arg);
			return;
		}
	}
	pp = pp_new(c.loc);
	pp->comps = xmalloc(sizeof(c));
	pp->comps[0] = c;
	pp->ncomps = 1;
	AST_VEC_PUSH(out, pp);
}

/* @pps := every prefix in @pps followed by every point in @suffix. */
static bool pp_product(struct parser *p, struct ast_pps *pps,
		       struct ast_pps *suffix)
{
	struct ast_pps prod = { 0 };
	struct ast_pp *a, *b, *c;
	size_t i, j, k;

	for (i = 0; i < pps->n; i++) {
		a = pps->v[i];
		if (a->optional || a->cond) {
			report(p, a->loc, "'?', '!' or condition must only be "
			       "specified in suffix");
			pps_release(suffix);
			return false;
		}
		for (j = 0; j < suffix->n; j++) {
			b = suffix->v[j];
			c = pp_new(a->loc);
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
	while (!p->panic && accept(p, TOK_DOT)) {
		parse_component(p, &suffix);
		if (p->panic || !pp_product(p, &pps, &suffix))
			goto fail;
	}
	if (p->panic)
		goto fail;
	if (at(p, TOK_QUESTION) || at(p, TOK_NOT)) {
		for (i = 0; i < pps.n; i++) {
			if (pps.v[i]->optional) {
				syntax_error(p, "'?' or '!' respecified");
				goto fail;
			}
			pps.v[i]->optional = true;
			pps.v[i]->sufficient = at(p, TOK_NOT);
		}
		next(p);
	}
	if (accept(p, TOK_IF)) {
		if (!parse_paren_expr(p, &cond)) {
			ast_expr_free(cond);
			goto fail;
		}
		for (i = 0; i < pps.n; i++) {
			if (pps.v[i]->cond) {
				report(p, cond->loc, "condition respecified");
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
		if (accept(p, TOK_COMMA))
			continue;
		if (braces ? at(p, TOK_RBRACE) :
		    at(p, TOK_LBRACE) || at(p, TOK_ASSIGN) ||
		    at(p, TOK_ADD_ASSIGN))
			return;
		expected(p, braces ? "',' or '}'" : "',' or '{'");
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

	next(p);
	for (;;) {
		parse_pp_list(p, &pps, false);
		if (p->panic)
			goto fail;
		if (pps.n == 1 && (at(p, TOK_ASSIGN) || at(p, TOK_ADD_ASSIGN))) {
			if (pps.v[0]->optional || pps.v[0]->cond)
				report(p, pps.v[0]->loc, "probe alias name "
				       "cannot be optional nor conditional");
			epilogue |= at(p, TOK_ADD_ASSIGN);
			AST_VEC_PUSH(&names, pps.v[0]);
			free(pps.v);
			memset(&pps, 0, sizeof(pps));
			next(p);
			continue;
		}
		if (pps.n > 1 && (at(p, TOK_ASSIGN) || at(p, TOK_ADD_ASSIGN))) {
			syntax_error(p, "probe alias name must be a single "
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
	if (at(p, TOK_COMMA)) {
		if (epilogue) {
			syntax_error(p, "combined prologue and epilogue cannot "
				     "be defined with '+='");
			ast_stmt_free(body);
			goto fail;
		}
		next(p);
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
	if (accept(p, TOK_LONG_KW)) {
		*t = AST_T_LONG;
		return true;
	}
	if (accept(p, TOK_STRING_KW)) {
		*t = AST_T_STRING;
		return true;
	}
	expected(p, "'long' or 'string'");
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

	if (at(p, TOK_GLOBAL))
		next(p);
	for (;;) {
		if (!at_name(p)) {
			expected(p, "global variable name");
			return;
		}
		g = xcalloc(1, sizeof(*g));
		g->loc = p->tok.loc;
		g->name = take_text(p);
		g->private_ = private_;
		g->library = p->library;
		next(p);
		old = find_global(p, g->name);
		if (old) {
			report(p, g->loc, "duplicate global name '%s'", g->name);
			diag_note(p->d, old->loc, "'%s' was first declared here",
				  g->name);
		}
		AST_VEC_PUSH(&p->script->globals, g);
		if (accept(p, TOK_PERCENT))
			g->wrap = true;
		if (accept(p, TOK_LBRACKET)) {
			if (!parse_number(p, &g->maxsize, &loc) ||
			    !expect(p, TOK_RBRACKET))
				return;
			if (g->maxsize <= 0 || g->maxsize > INT_MAX)
				report(p, loc, "array size out of range");
			g->array = true;
		}
		if (at(p, TOK_ASSIGN)) {
			if (g->array)
				report(p, p->tok.loc, "only scalar globals can "
				       "be initialized");
			next(p);
			if (!(g->init = parse_literal(p)))
				return;
			g->type = g->init->kind == AST_E_NUM ? AST_T_LONG :
							       AST_T_STRING;
		}
		if (accept(p, TOK_SEMI) || !accept(p, TOK_COMMA))
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

	next(p);	/* 'function' */
	if (!at_name(p) && !at(p, TOK_LONG_KW) && !at(p, TOK_STRING_KW)) {
		expected(p, "function name");
		return;
	}
	f = xcalloc(1, sizeof(*f));
	f->loc = p->tok.loc;
	f->name = take_text(p);
	f->private_ = private_;
	f->library = p->library;
	next(p);
	if (accept(p, TOK_COLON) && !parse_type(p, &f->type))
		goto fail;
	if (!expect(p, TOK_LPAREN))
		goto fail;
	while (!accept(p, TOK_RPAREN)) {
		struct ast_param *prm;

		if (f->nparams && !expect(p, TOK_COMMA))
			goto fail;
		if (!at_name(p)) {
			expected(p, "parameter name");
			goto fail;
		}
		for (i = 0; i < f->nparams; i++)
			if (!strcmp(f->params[i].name, p->tok.text))
				report(p, p->tok.loc, "duplicate parameter "
				       "name '%s'", p->tok.text);
		f->params = xrealloc(f->params,
				     (f->nparams + 1) * sizeof(*f->params));
		prm = &f->params[f->nparams++];
		memset(prm, 0, sizeof(*prm));
		prm->loc = p->tok.loc;
		prm->name = take_text(p);
		next(p);
		if (accept(p, TOK_COLON) && !parse_type(p, &prm->type))
			goto fail;
	}
	if (accept(p, TOK_COLON)) {
		if (!parse_number(p, &f->priority, &loc))
			goto fail;
		if (f->priority < 1)
			report(p, loc, "specified priority must be > 0");
	}
	if (at(p, TOK_EMBEDDED)) {
		report(p, p->tok.loc, "embedded C code is not supported");
		next(p);
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
	while (!at(p, TOK_EOF) && !at_top_keyword(p) && !at(p, TOK_EMBEDDED))
		next(p);
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
	while (!at(p, TOK_EOF) && !diag_full(p->d)) {
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
			next(p);
			if (at(p, TOK_FUNCTION))
				parse_function(p, true);
			else
				parse_global(p, true);
			break;
		case TOK_EMBEDDED:
			report(p, p->tok.loc, "embedded C code is not supported");
			next(p);
			break;
		default:
			expected(p, "'probe', 'global', 'private' or 'function'");
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
	p.lx = lex_new(d, src, cfg);
	lex_next(p.lx, &p.tok);
	parse_script(&p);
	lex_token_release(&p.tok);
	lex_free(p.lx);
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
