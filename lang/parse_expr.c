// SPDX-License-Identifier: GPL-2.0
/*
 * The expression grammar of the parser, lowest precedence first, and the
 * literals: the rest of the recursive descent of parse.c (whose comment
 * describes the error handling), one function per rule, each headed by
 * the rule it implements.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/internal.h"
#include "lang/parse.h"

/* ---------------------------------------------------------------- */
/* Literals                                                          */

/* string: STRING { STRING }   (adjacent literals concatenate) */
static struct ast_expr *parse_string(struct parser *p)
{
	struct ast_expr *e;
	size_t len;

	if (!parse_at(p, TOK_STRING)) {
		parse_expected(p, "string literal");
		return NULL;
	}
	e = ast_expr_new(AST_E_STR, p->tok.loc);
	e->u.str.len = p->tok.len;
	e->u.str.s = parse_take_text(p);
	parse_next(p);
	while (parse_at(p, TOK_STRING)) {
		len = e->u.str.len + p->tok.len;
		e->u.str.s = xrealloc(e->u.str.s, len + 1);
		memcpy(e->u.str.s + e->u.str.len, p->tok.text, p->tok.len + 1);
		e->u.str.len = len;
		parse_next(p);
	}
	return e;
}

/* number: [ '-' ] NUMBER   (into *@v; the literal's location in *@loc) */
bool parse_number(struct parser *p, int64_t *v, struct diag_loc *loc)
{
	bool neg;

	*loc = p->tok.loc;
	neg = parse_accept(p, TOK_MINUS);
	if (!parse_at(p, TOK_NUMBER)) {
		parse_expected(p, "number");
		return false;
	}
	*v = (int64_t)(neg ? 0 - p->tok.num : p->tok.num);
	parse_next(p);
	return true;
}

/* literal: string | number */
struct ast_expr *parse_literal(struct parser *p)
{
	struct diag_loc loc;
	int64_t v;

	if (parse_at(p, TOK_STRING))
		return parse_string(p);
	if (!parse_at(p, TOK_MINUS) && !parse_at(p, TOK_NUMBER)) {
		parse_expected(p, "string or number");
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
		parse_next(p);
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

/* expression: assignment */
struct ast_expr *parse_expr(struct parser *p)
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
	parse_next(p);
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

	if (!c || !parse_at(p, TOK_QUESTION))
		return c;
	e = ast_expr_new(AST_E_TERNARY, c->loc);
	e->op_loc = p->tok.loc;
	e->u.ternary.cond = c;
	parse_next(p);
	if (!(e->u.ternary.then = parse_expr(p)) || !parse_expect(p, TOK_COLON) ||
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

	if (!parse_accept(p, TOK_LBRACKET)) {
		k = parse_comparison(p);
		if (!k || !parse_at(p, TOK_IN))
			return k;
		idx = ast_expr_new(AST_E_INDEX, loc);
		AST_VEC_PUSH(&idx->u.index.args, k);
	} else {
		idx = ast_expr_new(AST_E_INDEX, loc);
		for (;;) {
			if (parse_at(p, TOK_STAR)) {
				k = ast_expr_new(AST_E_STAR, p->tok.loc);
				parse_next(p);
			} else if (!(k = parse_comparison(p))) {
				goto fail;
			}
			AST_VEC_PUSH(&idx->u.index.args, k);
			if (parse_accept(p, TOK_RBRACKET))
				break;
			if (!parse_accept(p, TOK_COMMA)) {
				parse_expected(p, "',' or ']'");
				goto fail;
			}
		}
		if (!parse_at(p, TOK_IN)) {
			if (idx->u.index.args.n == 1 && k->kind != AST_E_STAR) {
				idx->u.index.args.n = 0;
				ast_expr_free(idx);
				return k;
			}
			parse_expected(p, "'in' after a bracketed list of keys");
			goto fail;
		}
	}
	e = ast_expr_new(AST_E_IN, loc);
	e->op_loc = p->tok.loc;
	e->u.in.index = idx;
	parse_next(p);	/* 'in' */
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
	if (parse_at(p, TOK_MATCH) || parse_at(p, TOK_NOMATCH)) {
		op = parse_at(p, TOK_MATCH) ? AST_OP_MATCH : AST_OP_NOMATCH;
		loc = p->tok.loc;
		parse_next(p);
		if (!(r = parse_string(p))) {
			ast_expr_free(e);
			return NULL;
		}
		return ast_binary(AST_E_REGEX, op, loc, e, r);
	}
	while ((op = lookup_op(cmp_ops, p->tok.kind)) != AST_OP_NONE) {
		loc = p->tok.loc;
		parse_next(p);
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
	parse_next(p);
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

	if (parse_at(p, TOK_INC) || parse_at(p, TOK_DEC)) {
		e = ast_expr_new(AST_E_CREMENT, loc);
		e->op = parse_at(p, TOK_INC) ? AST_OP_PREINC : AST_OP_PREDEC;
		parse_next(p);
		if (!(e->u.unary.operand = parse_dwarf_value(p))) {
			ast_expr_free(e);
			return NULL;
		}
		return e;
	}
	if (!(operand = parse_dwarf_value(p)))
		return NULL;
	if (!parse_at(p, TOK_INC) && !parse_at(p, TOK_DEC))
		return operand;
	e = ast_expr_new(AST_E_CREMENT, operand->loc);
	e->op_loc = p->tok.loc;
	e->op = parse_at(p, TOK_INC) ? AST_OP_POSTINC : AST_OP_POSTDEC;
	e->u.unary.operand = operand;
	parse_next(p);
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
		if (parse_accept(p, TOK_ARROW)) {
			if (!parse_at(p, TOK_IDENT) && !parse_is_keyword(p->tok.kind)) {
				parse_expected(p, "member name after '->'");
				return false;
			}
			member = parse_take_text(p);
			parse_next(p);
			suffix = pretty_suffix(member);
			if (member[0])
				add_tcomp(e, AST_TC_MEMBER, loc, member, NULL);
			else
				free(member);
			if (suffix) {
				add_tcomp(e, AST_TC_PRETTY, loc, suffix, NULL);
				pretty = true;
			}
		} else if (parse_accept(p, TOK_LBRACKET)) {
			if (!(idx = parse_expr(p)))
				return false;
			add_tcomp(e, AST_TC_INDEX, loc, NULL, idx);
			if (!parse_expect(p, TOK_RBRACKET))
				return false;
		} else {
			break;
		}
	}
	if (!pretty && parse_at_dollars(p)) {
		add_tcomp(e, AST_TC_PRETTY, p->tok.loc, parse_take_text(p), NULL);
		parse_next(p);
		pretty = true;
	}
	if (pretty && (parse_at(p, TOK_ARROW) || parse_at(p, TOK_LBRACKET))) {
		parse_syntax_error(p, "'%s' is not allowed after a pretty-printed "
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

	if (!parse_at(p, TOK_LPAREN))
		return;
	do {
		if (parse_at(p, TOK_LPAREN))
			nest++;
		else if (parse_at(p, TOK_RPAREN))
			nest--;
		parse_next(p);
	} while (nest && !parse_at(p, TOK_EOF));
}

/* An @word tapkit does not implement: report, skip its arguments. */
static struct ast_expr *unsupported_atword(struct parser *p)
{
	struct diag_loc loc = p->tok.loc;
	const char *w = p->tok.text;

	parse_report(p, loc, "'%s' is not supported: %s", w,
		     !strcmp(w, "@const") ? "it reads a C constant through "
		     "embedded C, which tapkit does not compile" :
		     !strcmp(w, "@probewrite") ? "tapkit reads the traced "
		     "system and never writes to it" : "an operator of stap's "
		     "own tapsets, for their embedded C");
	parse_next(p);
	skip_parens(p);
	return ast_num(loc, 0);	/* stands in; the declaration is dropped */
}

static bool is_unsupported_atword(const char *s)
{
	static const char *const words[] = {
		"@const", "@probewrite", "@kregister",
		"@uregister", "@kderef", "@uderef",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i]))
			return true;
	return false;
}

/* A string literal argument of @cast/@var, taken; NULL after an error. */
static char *parse_str_arg(struct parser *p, const char *what)
{
	char *s;

	if (!parse_at(p, TOK_STRING)) {
		parse_expected(p, what);
		return NULL;
	}
	s = parse_take_text(p);
	parse_next(p);
	return s;
}

/*
 * cast: '@cast' '(' expression ',' STRING [ ',' STRING ] ')'
 * var: '@var' '(' STRING [ ',' STRING ] ')'
 * Both become a target (name NULL) that target_components may follow.
 */
static struct ast_expr *parse_cast_var(struct parser *p, struct diag_loc loc)
{
	bool cast = !strcmp(p->tok.text, "@cast");
	struct ast_expr *e = ast_expr_new(AST_E_TARGET, loc);
	char **first = cast ? &e->u.target.cast_type : &e->u.target.global;

	e->op_loc = p->tok.loc;
	parse_next(p);
	if (!parse_expect(p, TOK_LPAREN))
		goto fail;
	if (cast && (!(e->u.target.base = parse_expr(p)) ||
		     !parse_expect(p, TOK_COMMA)))
		goto fail;
	if (!(*first = parse_str_arg(p, cast ? "type name string" :
				     "variable name string")))
		goto fail;
	if (parse_accept(p, TOK_COMMA) &&
	    !(e->u.target.cast_module = parse_str_arg(p, "module name string")))
		goto fail;
	if (!parse_expect(p, TOK_RPAREN))
		goto fail;
	return e;
fail:
	ast_expr_free(e);
	return NULL;
}

/*
 * dwarf_value: [ '&' ] ( TARGET | cast | var | value ) target_components
 * TARGET: '$name' | '$$vars' | '$$parms' | '$$locals' | '$$return',
 * each possibly ending in '$' or '$$'.  A value followed by '->', '[' or
 * a lone '$' becomes an autocast target (name NULL, base the value).
 */
static struct ast_expr *parse_dwarf_value(struct parser *p)
{
	struct diag_loc loc = p->tok.loc;
	bool addressof = parse_accept(p, TOK_AMP);
	struct ast_expr *e, *v;
	char *suffix;

	if (parse_at(p, TOK_IDENT) && p->tok.text[0] == '$' && !parse_at_dollars(p)) {
		e = ast_expr_new(AST_E_TARGET, loc);
		e->op_loc = p->tok.loc;
		e->u.target.name = parse_take_text(p);
		parse_next(p);
		suffix = pretty_suffix(e->u.target.name);
		if (suffix)
			add_tcomp(e, AST_TC_PRETTY, e->op_loc, suffix, NULL);
	} else if (parse_at(p, TOK_ATWORD) && (!strcmp(p->tok.text, "@cast") ||
					       !strcmp(p->tok.text, "@var"))) {
		if (!(e = parse_cast_var(p, loc)))
			return NULL;
		suffix = NULL;
	} else {
		if (parse_at(p, TOK_ATWORD) && is_unsupported_atword(p->tok.text))
			v = unsupported_atword(p);
		else if (!(v = parse_value(p)))
			return NULL;
		if (!addressof && !parse_at(p, TOK_ARROW) && !parse_at(p, TOK_LBRACKET) &&
		    !parse_at_dollars(p))
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
		parse_next(p);
		if (!(e = parse_expr(p)))
			return NULL;
		if (!parse_expect(p, TOK_RPAREN)) {
			ast_expr_free(e);
			return NULL;
		}
		return e;
	case TOK_IDENT:
		if (parse_at_dollars(p))
			break;
		return parse_symbol(p);
	case TOK_ATWORD:
		return parse_symbol(p);
	case TOK_NUMBER:
	case TOK_STRING:
		return parse_literal(p);
	case TOK_EMBEDDED:
		parse_report(p, loc, "embedded C code is not supported: tapkit compiles no C (no guru mode)");
		parse_next(p);
		return ast_num(loc, 0);	/* stands in; the declaration is dropped */
	default:
		break;
	}
	parse_expected(p, "expression");
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
	parse_next(p);
	if (!parse_expect(p, TOK_LPAREN) || !(e->u.hist.operand = parse_expr(p)))
		goto fail;
	for (i = 0; e->u.hist.kind == AST_HIST_LINEAR && i < 3; i++)
		if (!parse_expect(p, TOK_COMMA) ||
		    !parse_number(p, &e->u.hist.params[i], &loc))
			goto fail;
	if (!parse_expect(p, TOK_RPAREN))
		goto fail;
	return e;
fail:
	ast_expr_free(e);
	return NULL;
}

static bool at_hist_op(const struct parser *p)
{
	return parse_at(p, TOK_ATWORD) && (!strcmp(p->tok.text, "@hist_log") ||
				     !strcmp(p->tok.text, "@hist_linear"));
}

/* indexable: IDENT | hist_op */
struct ast_expr *parse_indexable(struct parser *p)
{
	struct ast_expr *e;

	if (at_hist_op(p))
		return parse_hist_op(p);
	if (!parse_at_name(p)) {
		parse_expected(p, "array name or histogram");
		return NULL;
	}
	e = ast_expr_new(AST_E_VAR, p->tok.loc);
	e->u.var.name = parse_take_text(p);
	parse_next(p);
	return e;
}

/* args: expression { ',' expression } ')'   ('(' already read) */
static bool parse_args(struct parser *p, struct ast_exprs *args)
{
	struct ast_expr *a;

	if (parse_accept(p, TOK_RPAREN))
		return true;
	for (;;) {
		if (!(a = parse_expr(p)))
			return false;
		AST_VEC_PUSH(args, a);
		if (parse_accept(p, TOK_RPAREN))
			return true;
		if (!parse_accept(p, TOK_COMMA)) {
			parse_expected(p, "',' or ')'");
			return false;
		}
	}
}

/* index_list: ( '*' | expression ) { ',' ... } ']'   ('[' already read) */
bool parse_index_list(struct parser *p, struct ast_exprs *args)
{
	struct ast_expr *a;

	for (;;) {
		if (parse_at(p, TOK_STAR)) {
			a = ast_expr_new(AST_E_STAR, p->tok.loc);
			parse_next(p);
		} else if (!(a = parse_expr(p))) {
			return false;
		}
		AST_VEC_PUSH(args, a);
		if (parse_accept(p, TOK_RBRACKET))
			return true;
		if (!parse_accept(p, TOK_COMMA)) {
			parse_expected(p, "',' or ']'");
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

	parse_next(p);	/* '(' */
	if (!(flags & (AST_PRINT_FORMAT | AST_PRINT_DELIM)) && at_hist_op(p)) {
		if (!(a = parse_hist_op(p)))
			goto fail;
		if (parse_at(p, TOK_LBRACKET)) {
			idx = ast_expr_new(AST_E_INDEX, a->loc);
			idx->u.index.base = a;
			a = idx;
			parse_next(p);
			if (!(idx = parse_expr(p))) {
				ast_expr_free(a);
				goto fail;
			}
			AST_VEC_PUSH(&a->u.index.args, idx);
			if (!parse_expect(p, TOK_RBRACKET)) {
				ast_expr_free(a);
				goto fail;
			}
			AST_VEC_PUSH(&e->u.print.args, a);
			comma = true;
		} else {
			/* print(@hist_log(x)): the histogram alone */
			AST_VEC_PUSH(&e->u.print.args, a);
			if (!parse_expect(p, TOK_RPAREN))
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
	while (min > 0 || !parse_at(p, TOK_RPAREN)) {
		if (parse_at(p, TOK_RPAREN)) {
			parse_syntax_error(p, "too few arguments to '%s'",
				     e->u.print.name);
			goto fail;
		}
		if (comma && !parse_accept(p, TOK_COMMA)) {
			parse_expected(p, "',' or ')'");
			goto fail;
		}
		if (!(a = parse_expr(p)))
			goto fail;
		AST_VEC_PUSH(&e->u.print.args, a);
		comma = true;
		min--;
	}
	if (!parse_expect(p, TOK_RPAREN))
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

enum ast_stat parse_stat_kind(const char *name)
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
	char *name = parse_take_text(p);

	e->u.stat.op = op;
	parse_next(p);
	if (!parse_expect(p, TOK_LPAREN) || !(e->u.stat.operand = parse_expr(p)))
		goto fail;
	while (parse_at(p, TOK_COMMA)) {
		if (op != AST_STAT_VARIANCE || e->u.stat.nparams) {
			parse_syntax_error(p, "too many arguments for '%s'", name);
			goto fail;
		}
		parse_next(p);
		if (!parse_number(p, &e->u.stat.params[0], &loc))
			goto fail;
		e->u.stat.nparams = 1;
	}
	if (!parse_expect(p, TOK_RPAREN))
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

	parse_next(p);
	if (!parse_expect(p, TOK_LPAREN) || !(e->u.unary.operand = parse_expr(p)) ||
	    !parse_expect(p, TOK_RPAREN)) {
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

	parse_next(p);
	if (!parse_expect(p, TOK_LPAREN) || !(s = parse_string(p)))
		return NULL;
	if (!parse_expect(p, TOK_RPAREN)) {
		ast_expr_free(s);
		return NULL;
	}
	if (!s->u.str.len)
		parse_report(p, s->loc, "expected a non-empty string");
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

	if (parse_at(p, TOK_ATWORD)) {
		const char *w = p->tok.text;

		if (at_hist_op(p)) {
			if (!(base = parse_hist_op(p)))
				return NULL;
			if (!parse_at(p, TOK_LBRACKET)) {
				parse_report(p, loc, "histogram operator used where "
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
		if ((sop = parse_stat_kind(w)) != AST_STAT_NONE)
			return parse_stat_op(p, sop);
		if (is_unsupported_atword(w))
			return unsupported_atword(p);
		parse_report(p, loc, "unknown operator or macro '%s'", w);
		parse_next(p);
		skip_parens(p);
		return ast_num(loc, 0);	/* stands in; the declaration is dropped */
	}

	for (i = 0; i < sizeof(print_fns) / sizeof(print_fns[0]); i++) {
		if (strcmp(p->tok.text, print_fns[i].name))
			continue;
		e = ast_expr_new(AST_E_PRINT, loc);
		e->u.print.name = parse_take_text(p);
		e->u.print.flags = print_fns[i].flags;
		parse_next(p);
		if (!parse_at(p, TOK_LPAREN)) {
			parse_expected(p, "'('");
			ast_expr_free(e);
			return NULL;
		}
		return parse_print(p, e);
	}

	base = ast_expr_new(AST_E_VAR, loc);
	base->u.var.name = parse_take_text(p);
	parse_next(p);
	if (parse_at(p, TOK_LPAREN)) {
		parse_next(p);
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
	if (!parse_at(p, TOK_LBRACKET))
		return base;
index:
	e = ast_expr_new(AST_E_INDEX, loc);
	e->u.index.base = base;
	parse_next(p);	/* '[' */
	if (!parse_index_list(p, &e->u.index.args)) {
		ast_expr_free(e);
		return NULL;
	}
	return e;
}
