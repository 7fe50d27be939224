// SPDX-License-Identifier: GPL-2.0
/*
 * The preprocessor of the probe language, layered on the lexer as in
 * systemtap's parse.cxx (lexer::scan, parser::scan_pp1, parser::scan_pp):
 *
 * 1. lex_next() (lex.c): characters to raw tokens, script arguments
 *    pasted.
 *
 * 2. scan_pp1(): macros.  `@define` is handled where it appears (outside
 *    macro bodies only); an `@name` naming a macro, or a parameter of the
 *    macro being expanded, pushes an activation that replays its tokens.
 *    Arguments are collected unexpanded and expanded where the parameter
 *    is used, in the scope of the invocation (a closure, as stap does), so
 *    `@define f(x) %( @x %)  @define g(y) %( @f(@y) %)` works.  Expansion
 *    deeper than PP_MACRO_DEPTH is reported and abandoned.  Macros are
 *    per preprocessor, i.e. per file.  Tokens from a macro body keep the
 *    location they have in the definition.
 *
 * 3. pp_next(): conditionals %( COND %? ... %: ... %).  The condition is
 *    read from macro-expanded tokens and evaluated at once; the tokens of
 *    the branch not taken are skipped raw (no macro definitions or
 *    expansions, and the lexer quiet: a skipped branch may hold what this
 *    version cannot read, or a `$3` beyond the arguments given).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/lex.h"
#include "lang/pp.h"

struct tokvec {
	struct token *v;
	size_t n, cap;
};

struct macro {
	struct macro *next;
	bool library;		/* from a .stpm file: a script may hide it */
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

struct pp {
	struct lexer *lx;	/* layer 1: owned */
	struct diag *d;
	struct lex_config cfg;
	char *kernel_v;		/* derived from kernel_vr when not given */

	/* macros */
	struct macro *macros;
	struct act *top;
	unsigned depth;
	struct diag_loc outer;	/* the invocation the stack started from */
	const struct diag_loc *outer_kept;	/* the same, for tokens */
	struct token pending;	/* one token pushed back at file level */
	bool has_pending;

	/* conditionals */
	struct pp_cond *conds;
	size_t nconds, conds_cap;
};

/* Append *@t to @v, taking its text; *@t is left empty. */
static void tokvec_push(struct tokvec *v, struct token *t)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 8;
		v->v = xrealloc(v->v, v->cap * sizeof(*v->v));
	}
	v->v[v->n++] = *t;
	memset(t, 0, sizeof(*t));
}

/* Release every token of @v and its array; @v is left empty. */
static void tokvec_release(struct tokvec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		lex_token_release(&v->v[i]);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/* The built-in @words; a macro by one of these names gets a warning. */
static const char *const atwords[] = {
	"cast", "defined", "probewrite", "entry", "perf", "var", "avg",
	"count", "sum", "min", "max", "hist_linear", "hist_log", "const",
	"variance", "kregister", "uregister", "kderef", "uderef",
};

/* ---------------------------------------------------------------- */
/* Layer 2: macros                                                   */

static void act_pop(struct pp *pp)
{
	struct act *a = pp->top;
	size_t i;

	pp->top = a->down;
	pp->depth--;
	if (a->macro && a->args) {
		for (i = 0; i < a->macro->nparams; i++)
			tokvec_release(&a->args[i]);
		free(a->args);
	}
	free(a);
}

static void act_push(struct pp *pp, const struct tokvec *toks,
		     struct macro *m, struct tokvec *args, struct act *scope,
		     const struct diag_loc *at)
{
	struct act *a = xcalloc(1, sizeof(*a));

	a->down = pp->top;
	a->toks = toks;
	a->macro = m;
	a->args = args;
	if (m) {
		a->caller = scope;
		a->scope = a;
	} else {
		a->scope = scope;
	}
	if (!pp->top) {
		pp->outer = *at;
		pp->outer_kept = diag_loc_keep(pp->d, *at);
	}
	pp->top = a;
	pp->depth++;
}

/*
 * The next token of the innermost source: the top activation, else the
 * file.  False at the end of an activation (which stays on the stack).
 */
static bool next_pp1(struct pp *pp, struct token *t)
{
	if (pp->top) {
		if (pp->top->pos >= pp->top->toks->n)
			return false;
		lex_token_copy(t, &pp->top->toks->v[pp->top->pos++]);
		t->loc.expanded_at = pp->outer_kept;
		return true;
	}
	if (pp->has_pending) {
		*t = pp->pending;
		memset(&pp->pending, 0, sizeof(pp->pending));
		pp->has_pending = false;
		return true;
	}
	lex_next(pp->lx, t);
	return true;
}

/* Give back @t, just read by next_pp1(), to be read again. */
static void unget_pp1(struct pp *pp, struct token *t)
{
	if (pp->top) {
		pp->top->pos--;
		lex_token_release(t);
	} else {
		pp->pending = *t;
		pp->has_pending = true;
		memset(t, 0, sizeof(*t));
	}
}

static struct macro *find_macro(struct pp *pp, const char *name)
{
	struct macro *m;

	for (m = pp->macros; m; m = m->next)
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
static void define_macro(struct pp *pp, struct token *at)
{
	struct macro *m = xcalloc(1, sizeof(*m)), *old;
	struct token t;
	unsigned nest = 0;
	size_t i;

	if (pp->top) {
		diag_error(pp->d, at->loc, "'@define' is not allowed inside "
			   "a macro body");
		goto drop;
	}
	next_pp1(pp, &t);
	if (t.kind != TOK_IDENT || t.text[0] == '$') {
		diag_error(pp->d, t.loc, "expected macro name after '@define'");
		unget_pp1(pp, &t);
		goto drop;
	}
	m->name = t.text;
	m->loc = t.loc;
	t.text = NULL;
	lex_token_release(&t);

	next_pp1(pp, &t);
	if (t.kind == TOK_LPAREN) {
		for (;;) {
			lex_token_release(&t);
			next_pp1(pp, &t);
			if (t.kind != TOK_IDENT) {
				diag_error(pp->d, t.loc, "expected parameter "
					   "name in definition of macro '@%s'",
					   m->name);
				unget_pp1(pp, &t);
				goto drop;
			}
			for (i = 0; i < m->nparams; i++)
				if (!strcmp(m->params[i], t.text))
					diag_error(pp->d, t.loc, "duplicate "
						   "macro parameter '%s'",
						   t.text);
			m->params = xrealloc(m->params, (m->nparams + 1) *
					     sizeof(*m->params));
			m->params[m->nparams++] = t.text;
			t.text = NULL;
			lex_token_release(&t);
			next_pp1(pp, &t);
			if (t.kind == TOK_RPAREN)
				break;
			if (t.kind != TOK_COMMA) {
				diag_error(pp->d, t.loc, "expected ',' or ')' "
					   "in definition of macro '@%s'",
					   m->name);
				unget_pp1(pp, &t);
				goto drop;
			}
		}
		lex_token_release(&t);
		next_pp1(pp, &t);
	}
	if (t.kind != TOK_PP_OPEN) {
		diag_error(pp->d, t.loc, "expected '%%(' to start the body of "
			   "macro '@%s'", m->name);
		unget_pp1(pp, &t);
		goto drop;
	}
	lex_token_release(&t);
	for (;;) {
		next_pp1(pp, &t);
		if (t.kind == TOK_EOF) {
			diag_error(pp->d, m->loc, "unterminated definition of "
				   "macro '@%s', missing '%%)'", m->name);
			unget_pp1(pp, &t);
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
		diag_error(pp->d, m->loc, "cannot redefine '@define'");
		goto drop;
	}
	old = find_macro(pp, m->name);
	if (old && !old->library) {
		diag_error(pp->d, m->loc, "redefinition of macro '@%s'",
			   m->name);
		diag_note(pp->d, old->loc, "'@%s' was first defined here",
			  m->name);
		goto drop;
	}
	for (i = 0; i < sizeof(atwords) / sizeof(atwords[0]); i++)
		if (!strcmp(m->name, atwords[i]))
			diag_warn(pp->d, m->loc, "macro '@%s' hides the "
				  "built-in operator of that name", m->name);
	m->next = pp->macros;
	pp->macros = m;
	lex_token_release(at);
	return;
drop:
	macro_free(m);
	lex_token_release(at);
}

/* After an error at @t in an invocation: skip to its closing ')'. */
static void skip_invocation(struct pp *pp, struct token *t)
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
		if (!next_pp1(pp, t))
			return;
		if (t->kind == TOK_EOF) {
			unget_pp1(pp, t);
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
static struct tokvec *macro_args(struct pp *pp, struct macro *m,
				 struct diag_loc at)
{
	struct tokvec *args = xcalloc(m->nparams, sizeof(*args));
	struct token t;
	unsigned nest;
	size_t i, j;

	for (i = 0; i < m->nparams; i++) {
		nest = 0;
		for (;;) {
			bool got = next_pp1(pp, &t);

			if (!got || t.kind == TOK_EOF) {
				if (got)
					unget_pp1(pp, &t);
				diag_error(pp->d, at, "unterminated invocation "
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
			diag_error(pp->d, t.loc, "too many arguments for macro "
				   "'@%s' (expected %zu)", m->name, m->nparams);
			skip_invocation(pp, &t);
			goto fail;
		}
		if (t.kind == TOK_RPAREN && i + 1 < m->nparams) {
			diag_error(pp->d, t.loc, "too few arguments for macro "
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
static void unwind(struct pp *pp)
{
	while (pp->top)
		act_pop(pp);
}

/*
 * @at is an @word: if it names a parameter in scope or a macro, start
 * replaying it (consuming @at) and return true; false leaves @at alone.
 * A failed invocation turns @at into a TOK_ERROR (already reported) and
 * returns false, so the parser resynchronizes without another message.
 */
static bool expand(struct pp *pp, struct token *at)
{
	const char *name = at->text + 1;
	struct act *scope = pp->top ? pp->top->scope : NULL;
	struct tokvec *args = NULL;
	struct macro *m;
	struct token t;
	size_t i;

	if (scope) {
		for (i = 0; i < scope->macro->nparams; i++) {
			if (strcmp(scope->macro->params[i], name))
				continue;
			if (pp->depth >= PP_MACRO_DEPTH)
				goto too_deep;
			act_push(pp, &scope->args[i], NULL, NULL,
				 scope->caller, &at->loc);
			lex_token_release(at);
			return true;
		}
	}
	m = find_macro(pp, name);
	if (!m)
		return false;
	if (pp->depth >= PP_MACRO_DEPTH)
		goto too_deep;
	if (m->nparams) {
		bool got = next_pp1(pp, &t);

		if (!got || t.kind != TOK_LPAREN) {
			diag_error(pp->d, at->loc, "expected '(' in invocation "
				   "of macro '@%s' taking %zu parameter%s",
				   m->name, m->nparams,
				   m->nparams == 1 ? "" : "s");
			if (got)
				unget_pp1(pp, &t);
			at->kind = TOK_ERROR;
			return false;
		}
		lex_token_release(&t);
		args = macro_args(pp, m, at->loc);
		if (!args) {
			at->kind = TOK_ERROR;
			return false;
		}
	}
	act_push(pp, &m->body, m, args, scope, &at->loc);
	lex_token_release(at);
	return true;
too_deep:
	diag_error(pp->d, pp->outer, "macro expansion nested deeper than %d "
		   "(recursive macro '%s'?)", PP_MACRO_DEPTH, at->text);
	unwind(pp);
	at->kind = TOK_ERROR;
	return false;
}

/* The next token with macros defined and expanded (unless @raw). */
static void scan_pp1(struct pp *pp, struct token *t, bool raw)
{
	for (;;) {
		if (!next_pp1(pp, t)) {
			act_pop(pp);
			continue;
		}
		if (t->kind != TOK_ATWORD || raw)
			return;
		if (!strcmp(t->text, "@define")) {
			define_macro(pp, t);
			continue;
		}
		if (!expand(pp, t))
			return;
	}
}

/* ---------------------------------------------------------------- */
/* Layer 3: conditionals                                             */

/* A condition being read: one token of lookahead. */
struct cp {
	struct pp *pp;
	struct token t;
	bool bad;		/* an error was reported */
};

static void cp_next(struct cp *cp)
{
	lex_token_release(&cp->t);
	scan_pp1(cp->pp, &cp->t, false);
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
	diag_vreport(cp->pp->d, DIAG_ERROR, loc, fmt, ap);
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

/* The value of CONFIG_X (token @t), "" when unset; NULL after an error
 * when the kernel's configuration cannot be read. */
static const char *kconfig(struct cp *cp, const struct token *t)
{
	struct pp *pp = cp->pp;
	const char *v = NULL, *err = NULL;

	if (pp->cfg.kconfig)
		v = pp->cfg.kconfig(pp->cfg.kconfig_ctx, t->text, &err);
	if (err) {
		cp_error(cp, t->loc, "cannot tell %s: %s", t->text, err);
		return NULL;
	}
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
	struct pp *pp = cp->pp;
	const char *target;
	int64_t a, b;

	if (l->kind == TOK_IDENT && (!strcmp(l->text, "kernel_v") ||
				     !strcmp(l->text, "kernel_vr") ||
				     !strcmp(l->text, "systemtap_v"))) {
		if (r->kind != TOK_STRING)
			goto want_string;
		target = !strcmp(l->text, "kernel_v") ? pp->kernel_v :
			 !strcmp(l->text, "kernel_vr") ? pp->cfg.kernel_vr :
			 pp->cfg.systemtap_v;
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
		target = l->text[0] == 'a' ? pp->cfg.arch : pp->cfg.runtime;
		return glob_cmp(cp, op, target, r->text);
	}
	if (l->kind == TOK_IDENT && !strcmp(l->text, "systemtap_privilege")) {
		if (r->kind != TOK_STRING)
			goto want_string;
		if (op->kind != TOK_EQ && op->kind != TOK_NE) {
			cp_error(cp, op->loc, "expected '==' or '!='");
			return false;
		}
		return cmp_result(op->kind, strcmp(pp->cfg.privilege, r->text));
	}
	if (l->kind == TOK_IDENT && !strcmp(l->text, "guru_mode")) {
		if (r->kind != TOK_NUMBER) {
			cp_error(cp, r->loc, "expected a number after 'guru_mode'");
			return false;
		}
		return cmp_result(op->kind, cmp_i64(pp->cfg.guru_mode, rnum));
	}
	if (l->kind == TOK_IDENT && !strncmp(l->text, "CONFIG_", 7)) {
		const char *lv = kconfig(cp, l), *rv;

		if (!lv)
			return false;
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
			if (!(rv = kconfig(cp, r)))
				return false;
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
static int conditional(struct pp *pp, struct diag_loc open)
{
	struct cp cp = { .pp = pp };
	unsigned nest = 0;
	bool v;

	scan_pp1(pp, &cp.t, false);
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
static void skip_branch(struct pp *pp, struct token *t)
{
	unsigned nest = 0;

	lex_set_quiet(pp->lx, true);
	for (;;) {
		scan_pp1(pp, t, true);
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
	lex_set_quiet(pp->lx, false);
}

static void push_cond(struct pp *pp, struct diag_loc loc, enum pp_state s)
{
	if (pp->nconds == pp->conds_cap) {
		pp->conds_cap = pp->conds_cap ? 2 * pp->conds_cap : 4;
		pp->conds = xrealloc(pp->conds,
				     pp->conds_cap * sizeof(*pp->conds));
	}
	pp->conds[pp->nconds++] = (struct pp_cond){ .loc = loc, .state = s };
}

void pp_next(struct pp *pp, struct token *t)
{
	for (;;) {
		struct pp_cond *c = pp->nconds ? &pp->conds[pp->nconds - 1] :
				    NULL;
		struct diag_loc loc;
		int r;

		if (c && (c->state == PP_SKIP_THEN || c->state == PP_SKIP_ELSE))
			skip_branch(pp, t);
		else
			scan_pp1(pp, t, false);

		switch (t->kind) {
		case TOK_EOF:
			if (c) {
				diag_error(pp->d, c->loc, "unterminated "
					   "conditional, missing '%%)'");
				pp->nconds = 0;
			}
			return;
		case TOK_PP_THEN:
			diag_error(pp->d, t->loc, "'%%?' without '%%('");
			break;
		case TOK_PP_ELSE:
			if (!c)
				diag_error(pp->d, t->loc, "'%%:' without '%%('");
			else if (c->state == PP_KEEP_ELSE ||
				 c->state == PP_SKIP_ELSE)
				diag_error(pp->d, t->loc, "duplicate '%%:' in "
					   "conditional");
			else
				c->state = c->state == PP_KEEP_THEN ?
					   PP_SKIP_ELSE : PP_KEEP_ELSE;
			break;
		case TOK_PP_CLOSE:
			if (!c)
				diag_error(pp->d, t->loc, "'%%)' without '%%('");
			else
				pp->nconds--;
			break;
		case TOK_PP_OPEN:
			loc = t->loc;
			lex_token_release(t);
			r = conditional(pp, loc);
			if (r != COND_DROPPED)
				push_cond(pp, loc, r == COND_TRUE ?
					  PP_KEEP_THEN : PP_SKIP_THEN);
			continue;
		default:
			return;
		}
		lex_token_release(t);
	}
}

/* A macro library: its @defines, marked as the library's; anything else
 * in it is an error. */
static void load_library(struct pp *pp, const struct diag_file *lib)
{
	struct macro *m;
	struct token t = { 0 };
	bool said = false;

	pp->lx = lex_new(pp->d, lib, &pp->cfg);
	for (;;) {
		pp_next(pp, &t);
		if (t.kind == TOK_EOF)
			break;
		if (!said)
			diag_error(pp->d, t.loc, "a macro library (.stpm) holds "
				   "only @define");
		said = true;
		lex_token_release(&t);
	}
	lex_token_release(&t);
	lex_token_release(&pp->pending);
	pp->has_pending = false;
	pp->nconds = 0;
	lex_free(pp->lx);
	pp->lx = NULL;
	for (m = pp->macros; m; m = m->next)
		m->library = true;
}

struct pp *pp_new(struct diag *d, const struct diag_file *src,
		  const struct lex_config *cfg)
{
	struct pp *pp = xcalloc(1, sizeof(*pp));
	const char *dash;
	size_t n;

	pp->d = d;
	if (cfg)
		pp->cfg = *cfg;
	if (!pp->cfg.kernel_vr)
		pp->cfg.kernel_vr = "";
	if (!pp->cfg.arch)
		pp->cfg.arch = "";
	if (!pp->cfg.runtime)
		pp->cfg.runtime = "kernel";
	if (!pp->cfg.systemtap_v)
		pp->cfg.systemtap_v = "5.0";
	if (!pp->cfg.privilege)
		pp->cfg.privilege = "stapusr";
	if (pp->cfg.kernel_v) {
		pp->kernel_v = xstrdup(pp->cfg.kernel_v);
	} else {
		dash = strchr(pp->cfg.kernel_vr, '-');
		n = dash ? (size_t)(dash - pp->cfg.kernel_vr) :
			   strlen(pp->cfg.kernel_vr);
		pp->kernel_v = xmalloc(n + 1);
		memcpy(pp->kernel_v, pp->cfg.kernel_vr, n);
		pp->kernel_v[n] = '\0';
	}
	for (n = 0; n < pp->cfg.nmacro_libs; n++)
		load_library(pp, pp->cfg.macro_libs[n]);
	pp->lx = lex_new(d, src, &pp->cfg);
	return pp;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t pp_dir_files(const char *dir, const char *suffix, char ***out)
{
	size_t n = 0, k, slen = strlen(suffix);
	char **v = NULL;
	struct dirent *de;
	DIR *dp = opendir(dir);

	*out = NULL;
	if (!dp)
		return 0;
	while ((de = readdir(dp))) {
		k = strlen(de->d_name);
		if (k <= slen || strcmp(de->d_name + k - slen, suffix))
			continue;
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(dp);
	if (n)
		qsort(v, n, sizeof(*v), cmp_path);
	*out = v;
	return n;
}

size_t pp_macro_libs(struct diag *d, const char *const *dirs,
		     const struct diag_file ***out)
{
	const struct diag_file **v = NULL, *f;
	size_t n = 0, i, nn;
	char **names;

	for (; dirs && *dirs; dirs++) {
		nn = pp_dir_files(*dirs, ".stpm", &names);
		for (i = 0; i < nn; i++) {
			if (diag_read_file(d, names[i], &f) == 0) {
				v = xrealloc(v, (n + 1) * sizeof(*v));
				v[n++] = f;
			}
			free(names[i]);
		}
		free(names);
	}
	*out = v;
	return n;
}

void pp_free(struct pp *pp)
{
	struct macro *m, *next;

	if (!pp)
		return;
	unwind(pp);
	for (m = pp->macros; m; m = next) {
		next = m->next;
		macro_free(m);
	}
	lex_token_release(&pp->pending);
	free(pp->conds);
	free(pp->kernel_v);
	lex_free(pp->lx);
	free(pp);
}
