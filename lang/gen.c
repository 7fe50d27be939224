// SPDX-License-Identifier: GPL-2.0
/*
 * Code generation: a post-order walk of each probe body and reachable
 * function, emitting the stack code of lang/opcodes.h.
 *
 * Statements are counted against MAXACTION as stap's record_actions()
 * does: one per statement and one per loop iteration, queued and
 * charged with one ACT at the end of each basic block (before a label or
 * a jump), so straight-line code pays one check per block.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/backend.h"

const int gen_op_nops[OP_COUNT_] = {
#define OP(name, nops, doc) [OP_##name] = nops,
#include "lang/opcodes.h"
#undef OP
};

const char *const gen_op_name[OP_COUNT_] = {
#define OP(name, nops, doc) [OP_##name] = #name,
#include "lang/opcodes.h"
#undef OP
};

#define MAX_LOOPS 64

struct loopctx {
	struct { size_t *v; size_t n, cap; } brk, cont;	/* jumps to patch */
	int try_depth;
};

struct gen {
	struct prog *p;
	const struct elab *e;
	struct diag *d;
	const struct gen_opts *o;
	int depth, maxdepth;
	int nlocals;			/* elab's locals plus hidden ones */
	int pending;			/* queued actions */
	int pending_loc;
	struct loopctx loops[MAX_LOOPS];
	int nloops;
	int try_depth;
	struct elab_func *fn;
};

static void gen_expr(struct gen *g, struct ast_expr *e);
static void gen_stmt(struct gen *g, struct ast_stmt *s);

/* ---- emitting ---------------------------------------------------------- */

static size_t here(struct gen *g)
{
	return g->p->ncode;
}

static void word(struct gen *g, int32_t w)
{
	struct prog *p = g->p;

	if (p->ncode == p->capcode) {
		p->capcode = p->capcode ? 2 * p->capcode : 1024;
		p->code = xrealloc(p->code, p->capcode * sizeof(*p->code));
	}
	p->code[p->ncode++] = w;
}

static void adjust(struct gen *g, int delta)
{
	g->depth += delta;
	if (g->depth > g->maxdepth)
		g->maxdepth = g->depth;
}

/* Emit @op with its operands; @delta is its effect on the stack depth. */
static void emit(struct gen *g, enum gen_op op, int delta, ...)
{
	va_list ap;
	int i;

	word(g, op);
	va_start(ap, delta);
	for (i = 0; i < gen_op_nops[op]; i++)
		word(g, va_arg(ap, int32_t));
	va_end(ap);
	adjust(g, delta);
}

/* Flush the queued actions: one ACT before a label or a jump. */
static void flush(struct gen *g)
{
	if (!g->pending)
		return;
	emit(g, OP_ACT, 0, g->pending, g->pending_loc);
	g->pending = 0;
}

static size_t jump(struct gen *g, enum gen_op op, int delta)
{
	flush(g);
	emit(g, op, delta, 0);
	return here(g) - 1;
}

static void patch(struct gen *g, size_t at, size_t target)
{
	g->p->code[at] = (int32_t)target;
}

static size_t label(struct gen *g)
{
	flush(g);
	return here(g);
}

/* ---- tables ------------------------------------------------------------ */

#define PUSH(arr, n, item) do {						\
	(arr) = xrealloc((arr), ((n) + 1) * sizeof(*(arr)));		\
	(arr)[(n)++] = (item);						\
} while (0)

static int add_loc(struct gen *g, const char *kind, const char *text,
		   struct diag_loc loc)
{
	char where[256];
	struct prog_loc l;

	diag_loc_str(loc, where, sizeof(where));
	if (text)
		l.near = xasprintf("%s '%s' at %s", kind, text, where);
	else
		l.near = xasprintf("%s at %s", kind, where);
	PUSH(g->p->locs, g->p->nlocs, l);
	return (int)g->p->nlocs - 1;
}

/* stap's token description of an expression's (operator) token. */
static int expr_loc(struct gen *g, const struct ast_expr *e)
{
	char num[32];

	switch (e->kind) {
	case AST_E_UNARY: case AST_E_CREMENT: case AST_E_BINARY:
	case AST_E_CONCAT: case AST_E_COMPARE: case AST_E_LOGICAL:
	case AST_E_REGEX: case AST_E_ASSIGN:
		return add_loc(g, "operator", ast_op_str(e->op), e->op_loc);
	case AST_E_TERNARY:
		return add_loc(g, "operator", "?", e->op_loc);
	case AST_E_CALL:
		return add_loc(g, "identifier", e->u.call.name, e->loc);
	case AST_E_PRINT:
		return add_loc(g, "identifier", e->u.print.name, e->loc);
	case AST_E_VAR:
		return add_loc(g, "identifier", e->u.var.name, e->loc);
	case AST_E_INDEX:
		if (e->u.index.base->kind == AST_E_VAR)
			return add_loc(g, "identifier",
				       e->u.index.base->u.var.name, e->loc);
		return expr_loc(g, e->u.index.base);
	case AST_E_TARGET:
		return add_loc(g, "identifier", e->u.target.name, e->loc);
	case AST_E_HIST:
		return add_loc(g, "operator", e->u.hist.kind == AST_HIST_LOG ?
			       "@hist_log" : "@hist_linear", e->loc);
	case AST_E_STAT: {
		char op[32];

		snprintf(op, sizeof(op), "@%s", ast_stat_str(e->u.stat.op));
		return add_loc(g, "operator", op, e->loc);
	}
	case AST_E_NUM:
		snprintf(num, sizeof(num), "%lld", (long long)e->u.num);
		return add_loc(g, "number", num, e->loc);
	case AST_E_STR:
		return add_loc(g, "string", e->u.str.s, e->loc);
	default:
		return add_loc(g, "keyword", NULL, e->loc);
	}
}

static int stmt_loc(struct gen *g, const struct ast_stmt *s)
{
	if (s->kind == AST_S_EXPR)
		return expr_loc(g, s->u.expr);
	if (s->kind == AST_S_BLOCK)
		return add_loc(g, "operator", "{", s->loc);
	return add_loc(g, "keyword", NULL, s->loc);
}

/* Count @n actions at @loc (charged at the next flush). */
static void act(struct gen *g, int n, int loc)
{
	g->pending += n;
	g->pending_loc = loc;
}

static int add_str(struct gen *g, const char *s)
{
	size_t i;

	for (i = 0; i < g->p->nstrs; i++)
		if (!strcmp(g->p->strs[i], s))
			return (int)i;
	PUSH(g->p->strs, g->p->nstrs, xstrdup(s));
	return (int)g->p->nstrs - 1;
}

static void push_num(struct gen *g, int64_t v)
{
	if (v >= INT32_MIN && v <= INT32_MAX) {
		emit(g, OP_PUSHI, 1, (int32_t)v);
		return;
	}
	PUSH(g->p->consts, g->p->nconsts, v);
	emit(g, OP_PUSHK, 1, (int32_t)g->p->nconsts - 1);
}

static int add_fmt(struct gen *g, const char *text, struct diag_loc loc)
{
	struct prog_fmt f = { 0 };
	char err[128];
	int n;

	f.text = xstrdup(text);
	n = fmt_compile(f.text, &f.specs, err, sizeof(err));
	if (n < 0) {
		diag_error(g->d, loc, "%s", err);
		free(f.text);
		return 0;
	}
	f.nspecs = n;
	f.nargs = fmt_parse(f.text, f.types, FMT_MAX_ARGS, err, sizeof(err));
	PUSH(g->p->fmts, g->p->nfmts, f);
	return (int)g->p->nfmts - 1;
}

static int add_regex(struct gen *g, const struct ast_expr *re)
{
	struct prog *p = g->p;
	char err[256];
	regex_t r;
	size_t i;
	int rc;

	for (i = 0; i < p->nregexes; i++)
		if (!strcmp(p->regex_src[i], re->u.str.s))
			return (int)i;
	rc = regcomp(&r, re->u.str.s, REG_EXTENDED);
	if (rc) {
		regerror(rc, &r, err, sizeof(err));
		diag_error(g->d, re->loc, "invalid regular expression: %s",
			   err);
		return -1;
	}
	p->regexes = xrealloc(p->regexes, (p->nregexes + 1) * sizeof(r));
	p->regexes[p->nregexes] = r;
	PUSH(p->regex_src, p->nregexes, xstrdup(re->u.str.s));
	return (int)p->nregexes - 1;
}

/* ---- lvalues ----------------------------------------------------------- */

static bool is_str(enum ast_type t)
{
	return t == AST_T_STRING;
}

static void load_sym(struct gen *g, const struct elab_sym *s)
{
	if (s->kind == ELAB_LOCAL)
		emit(g, is_str(s->type) ? OP_LDLS : OP_LDL, 1, s->index);
	else
		emit(g, is_str(s->type) ? OP_LDGS : OP_LDG, 1, s->index);
}

static void store_sym(struct gen *g, const struct elab_sym *s)
{
	if (s->kind == ELAB_LOCAL)
		emit(g, is_str(s->type) ? OP_STLS : OP_STL, -1, s->index);
	else
		emit(g, is_str(s->type) ? OP_STGS : OP_STG, -1, s->index);
}

/* Push the non-'*' keys of an index list; returns the '*' column mask. */
static int gen_keys(struct gen *g, struct ast_exprs *args)
{
	int mask = 0;
	size_t i;

	for (i = 0; i < args->n; i++) {
		if (args->v[i]->kind == AST_E_STAR)
			mask |= 1 << i;
		else
			gen_expr(g, args->v[i]);
	}
	return mask;
}

static const int mop_of[AST_OP_COUNT_] = {
	[AST_OP_ADD_ASSIGN] = MOP_ADD, [AST_OP_SUB_ASSIGN] = MOP_SUB,
	[AST_OP_MUL_ASSIGN] = MOP_MUL, [AST_OP_DIV_ASSIGN] = MOP_DIV,
	[AST_OP_MOD_ASSIGN] = MOP_MOD, [AST_OP_SHL_ASSIGN] = MOP_SHL,
	[AST_OP_SHR_ASSIGN] = MOP_SHR, [AST_OP_AND_ASSIGN] = MOP_AND,
	[AST_OP_XOR_ASSIGN] = MOP_XOR, [AST_OP_OR_ASSIGN] = MOP_OR,
	[AST_OP_CONCAT_ASSIGN] = MOP_CAT,
};

static void arith(struct gen *g, int mop, int loc)
{
	static const enum gen_op ops[] = {
		[MOP_ADD] = OP_ADD, [MOP_SUB] = OP_SUB, [MOP_MUL] = OP_MUL,
		[MOP_SHL] = OP_SHL, [MOP_SHR] = OP_SHR, [MOP_AND] = OP_AND,
		[MOP_OR] = OP_OR, [MOP_XOR] = OP_XOR, [MOP_CAT] = OP_CAT,
	};

	if (mop == MOP_DIV || mop == MOP_MOD)
		emit(g, mop == MOP_DIV ? OP_DIV : OP_MOD, -1, loc);
	else
		emit(g, ops[mop], -1);
}

/* x op= v, x = v, x <<< v; @keep leaves the new value on the stack. */
static void gen_assign(struct gen *g, struct ast_expr *e, bool keep)
{
	struct ast_expr *l = e->u.bin.left, *r = e->u.bin.right;
	struct elab_sym *s = elab_expr_sym(l);
	int loc = expr_loc(g, e);

	if (e->op == AST_OP_STAT_ADD) {
		if (l->kind == AST_E_INDEX) {
			gen_keys(g, &l->u.index.args);
			gen_expr(g, r);
			emit(g, OP_MSADD, -(int)l->u.index.args.n - 1,
			     s->index, loc);
		} else {
			gen_expr(g, r);
			emit(g, OP_SADD, -1, s->index);
		}
		if (keep)
			emit(g, OP_PUSHI, 1, 0);
		return;
	}
	if (l->kind == AST_E_INDEX) {
		int n = (int)l->u.index.args.n;

		gen_keys(g, &l->u.index.args);
		gen_expr(g, r);
		if (e->op == AST_OP_ASSIGN)
			emit(g, OP_MSET, -n - 1 + keep, s->index, keep, loc);
		else
			emit(g, OP_MOP, -n - 1 + keep, s->index,
			     mop_of[e->op], keep ? MOP_KEEP : 0, loc);
		return;
	}
	if (e->op == AST_OP_ASSIGN) {
		gen_expr(g, r);
	} else {
		load_sym(g, s);
		gen_expr(g, r);
		arith(g, mop_of[e->op], loc);
	}
	if (keep)
		emit(g, OP_DUP, 1);
	store_sym(g, s);
}

static void gen_crement(struct gen *g, struct ast_expr *e, bool keep)
{
	struct ast_expr *l = e->u.unary.operand;
	struct elab_sym *s = elab_expr_sym(l);
	bool inc = e->op == AST_OP_PREINC || e->op == AST_OP_POSTINC;
	bool post = e->op == AST_OP_POSTINC || e->op == AST_OP_POSTDEC;

	if (l->kind == AST_E_INDEX) {
		int n = (int)l->u.index.args.n;

		gen_keys(g, &l->u.index.args);
		emit(g, OP_PUSHI, 1, inc ? 1 : -1);
		emit(g, OP_MOP, -n - 1 + keep, s->index, MOP_ADD,
		     (keep ? MOP_KEEP : 0) | (post ? MOP_POST : 0),
		     expr_loc(g, e));
		return;
	}
	if (!keep && s->kind == ELAB_LOCAL) {
		emit(g, OP_INCL, 0, s->index, inc ? 1 : -1);
		return;
	}
	load_sym(g, s);
	if (keep && post)
		emit(g, OP_DUP, 1);
	emit(g, OP_PUSHI, 1, inc ? 1 : -1);
	emit(g, OP_ADD, -1);
	if (keep && !post)
		emit(g, OP_DUP, 1);
	store_sym(g, s);
}

/* ---- expressions ------------------------------------------------------- */

static const struct elab_sym *hist_sym(const struct ast_expr *h)
{
	return elab_expr_sym(h->u.hist.operand);
}

/* Keys of the statistic a histogram reads, if it is an array element. */
static int hist_keys(struct gen *g, const struct ast_expr *h)
{
	const struct ast_expr *op = h->u.hist.operand;

	if (op->kind != AST_E_INDEX)
		return 0;
	gen_keys(g, (struct ast_exprs *)&op->u.index.args);
	return (int)op->u.index.args.n;
}

static void gen_print(struct gen *g, struct ast_expr *e, bool keep)
{
	unsigned fl = e->u.print.flags;
	struct ast_exprs *args = &e->u.print.args;
	struct strbuf fmt = STRBUF_INIT;
	bool tostr = fl & AST_PRINT_TOSTR;
	size_t i;
	int f, loc = expr_loc(g, e);

	if (args->n && args->v[0]->kind == AST_E_HIST) {
		const struct ast_expr *h = args->v[0];
		int n = hist_keys(g, h);

		emit(g, OP_HPRINT, -n + tostr, hist_sym(h)->index,
		     (n ? HIST_KEYED : 0) | (tostr ? HIST_TOSTR : 0) |
		     (fl & AST_PRINT_NEWLINE ? 4 : 0), loc);
		if (keep && !tostr)
			emit(g, OP_PUSHI, 1, 0);
		if (!keep && tostr)
			emit(g, OP_POP, -1);
		return;
	}
	if (fl & AST_PRINT_FORMAT) {
		fmt_sb_add(&fmt, e->u.print.fmt->u.str.s,
			   e->u.print.fmt->u.str.len);
	} else {
		for (i = 0; i < args->n; i++) {
			if (i && (fl & AST_PRINT_DELIM)) {
				const char *d = e->u.print.fmt->u.str.s;

				for (; *d; d++)
					fmt_sb_addstr(&fmt, *d == '%' ? "%%" :
						      (char[]){ *d, 0 });
			}
			fmt_sb_addstr(&fmt, is_str(args->v[i]->type) ?
				      "%s" : "%d");
		}
		if (fl & AST_PRINT_NEWLINE)
			fmt_sb_addc(&fmt, '\n');
	}
	f = add_fmt(g, fmt_sb_str(&fmt), e->loc);
	fmt_sb_release(&fmt);
	for (i = 0; i < args->n; i++)
		gen_expr(g, args->v[i]);
	if (tostr) {
		emit(g, OP_SPRINTF, -(int)args->n + 1, f, loc);
		if (!keep)
			emit(g, OP_POP, -1);
	} else {
		emit(g, OP_PRINTF, -(int)args->n, f, loc);
		if (keep)
			emit(g, OP_PUSHI, 1, 0);
	}
}

static void gen_logical(struct gen *g, struct ast_expr *e)
{
	bool and = e->op == AST_OP_LAND;
	enum gen_op j = and ? OP_JZ : OP_JNZ;
	size_t j1, j2, jend, lshort;

	gen_expr(g, e->u.bin.left);
	j1 = jump(g, j, -1);
	gen_expr(g, e->u.bin.right);
	j2 = jump(g, j, -1);
	emit(g, OP_PUSHI, 1, and ? 1 : 0);
	jend = jump(g, OP_JMP, 0);
	adjust(g, -1);
	lshort = label(g);
	emit(g, OP_PUSHI, 1, and ? 0 : 1);
	patch(g, j1, lshort);
	patch(g, j2, lshort);
	patch(g, jend, label(g));
}

static void gen_target(struct gen *g, struct ast_expr *e)
{
	const char *name = e->u.target.name ? e->u.target.name :
			   e->u.target.cast_type ? "@cast" : "@var";
	struct prog_tvar tv = { e->slot, xstrdup(name), e->type };
	int loc = expr_loc(g, e);

	PUSH(g->p->tvars, g->p->ntvars, tv);
	if (e->u.target.ncomps == 1 && !e->u.target.typed) {
		gen_expr(g, e->u.target.comps[0].index);
		emit(g, OP_TVARI, 0, (int)g->p->ntvars - 1, loc);
	} else {
		emit(g, OP_TVAR, 1, (int)g->p->ntvars - 1, loc);
	}
}

static const enum gen_op cmp_ops[2][AST_OP_COUNT_] = {
	{ [AST_OP_EQ] = OP_EQ, [AST_OP_NE] = OP_NE, [AST_OP_LT] = OP_LT,
	  [AST_OP_LE] = OP_LE, [AST_OP_GT] = OP_GT, [AST_OP_GE] = OP_GE },
	{ [AST_OP_EQ] = OP_SEQ, [AST_OP_NE] = OP_SNE, [AST_OP_LT] = OP_SLT,
	  [AST_OP_LE] = OP_SLE, [AST_OP_GT] = OP_SGT, [AST_OP_GE] = OP_SGE },
};

static const enum gen_op bin_ops[AST_OP_COUNT_] = {
	[AST_OP_ADD] = OP_ADD, [AST_OP_SUB] = OP_SUB, [AST_OP_MUL] = OP_MUL,
	[AST_OP_SHL] = OP_SHL, [AST_OP_SHR] = OP_SHR, [AST_OP_BAND] = OP_AND,
	[AST_OP_BOR] = OP_OR, [AST_OP_BXOR] = OP_XOR,
};

static void gen_expr(struct gen *g, struct ast_expr *e)
{
	const struct elab_sym *s;
	size_t j1, j2;
	int n, r;

	switch (e->kind) {
	case AST_E_NUM:
		push_num(g, e->u.num);
		break;
	case AST_E_STR:
		emit(g, OP_PUSHS, 1, add_str(g, e->u.str.s));
		break;
	case AST_E_VAR:
		load_sym(g, e->sym);
		break;
	case AST_E_INDEX:
		if (e->u.index.base->kind == AST_E_HIST) {
			const struct ast_expr *h = e->u.index.base;

			n = hist_keys(g, h);
			gen_expr(g, e->u.index.args.v[0]);
			emit(g, OP_HBUCKET, -n, hist_sym(h)->index,
			     n ? HIST_KEYED : 0, expr_loc(g, e));
			break;
		}
		s = e->sym;
		n = (int)e->u.index.args.n;
		gen_keys(g, &e->u.index.args);
		emit(g, OP_MGET, 1 - n, s->index);
		break;
	case AST_E_CALL:
		n = (int)e->u.call.args.n;
		for (size_t i = 0; i < e->u.call.args.n; i++)
			gen_expr(g, e->u.call.args.v[i]);
		if (e->slot)
			emit(g, OP_BCALL, 1 - n, e->slot - 1, n, expr_loc(g, e));
		else
			emit(g, OP_CALL, 1 - n, ((struct elab_func *)e->sym)->index,
			     n, expr_loc(g, e));
		break;
	case AST_E_PRINT:
		gen_print(g, e, true);
		break;
	case AST_E_UNARY:
		gen_expr(g, e->u.unary.operand);
		if (e->op == AST_OP_NEG)
			emit(g, OP_NEG, 0);
		else if (e->op == AST_OP_BNOT)
			emit(g, OP_BNOT, 0);
		else if (e->op == AST_OP_NOT)
			emit(g, OP_NOT, 0);
		break;
	case AST_E_CREMENT:
		gen_crement(g, e, true);
		break;
	case AST_E_BINARY:
		gen_expr(g, e->u.bin.left);
		gen_expr(g, e->u.bin.right);
		if (e->op == AST_OP_DIV || e->op == AST_OP_MOD)
			emit(g, e->op == AST_OP_DIV ? OP_DIV : OP_MOD, -1,
			     expr_loc(g, e));
		else
			emit(g, bin_ops[e->op], -1);
		break;
	case AST_E_CONCAT:
		gen_expr(g, e->u.bin.left);
		gen_expr(g, e->u.bin.right);
		emit(g, OP_CAT, -1);
		break;
	case AST_E_COMPARE:
		gen_expr(g, e->u.bin.left);
		gen_expr(g, e->u.bin.right);
		emit(g, cmp_ops[is_str(e->u.bin.left->type)][e->op], -1);
		break;
	case AST_E_LOGICAL:
		gen_logical(g, e);
		break;
	case AST_E_REGEX:
		gen_expr(g, e->u.bin.left);
		r = add_regex(g, e->u.bin.right);
		emit(g, OP_REGEX, 0, r < 0 ? 0 : r, e->op == AST_OP_NOMATCH);
		break;
	case AST_E_ASSIGN:
		gen_assign(g, e, true);
		break;
	case AST_E_TERNARY:
		gen_expr(g, e->u.ternary.cond);
		j1 = jump(g, OP_JZ, -1);
		gen_expr(g, e->u.ternary.then);
		j2 = jump(g, OP_JMP, 0);
		adjust(g, -1);
		patch(g, j1, label(g));
		gen_expr(g, e->u.ternary.els);
		patch(g, j2, label(g));
		break;
	case AST_E_IN: {
		struct ast_expr *ix = e->u.in.index;
		int mask;

		s = elab_expr_sym(ix);
		n = (int)ix->u.index.args.n;
		mask = gen_keys(g, &ix->u.index.args);
		if (mask)
			emit(g, OP_MINW, 1 - n + __builtin_popcount(mask),
			     s->index, mask);
		else
			emit(g, OP_MIN, 1 - n, s->index);
		break;
	}
	case AST_E_TARGET:
		gen_target(g, e);
		break;
	case AST_E_STAT: {
		const struct ast_expr *op = e->u.stat.operand;
		static const enum stat_op sop[] = {
			[AST_STAT_COUNT] = STAT_COUNT, [AST_STAT_SUM] = STAT_SUM,
			[AST_STAT_MIN] = STAT_MIN, [AST_STAT_MAX] = STAT_MAX,
			[AST_STAT_AVG] = STAT_AVG,
			[AST_STAT_VARIANCE] = STAT_VARIANCE,
		};

		s = elab_expr_sym(op);
		if (op->kind == AST_E_INDEX) {
			n = (int)op->u.index.args.n;
			gen_keys(g, (struct ast_exprs *)&op->u.index.args);
			emit(g, OP_MSGET, 1 - n, s->index, sop[e->u.stat.op],
			     expr_loc(g, e));
		} else {
			emit(g, OP_SGET, 1, s->index, sop[e->u.stat.op],
			     expr_loc(g, e));
		}
		break;
	}
	default:
		diag_error(g->d, e->loc, "cannot generate code for %s",
			   ast_ekind_str(e->kind));
		emit(g, OP_PUSHI, 1, 0);
		break;
	}
}

/* Evaluate @e for its effects only. */
static void gen_effect(struct gen *g, struct ast_expr *e)
{
	switch (e->kind) {
	case AST_E_ASSIGN:
		gen_assign(g, e, false);
		break;
	case AST_E_CREMENT:
		gen_crement(g, e, false);
		break;
	case AST_E_PRINT:
		gen_print(g, e, false);
		break;
	default:
		gen_expr(g, e);
		emit(g, OP_POP, -1);
		break;
	}
}

/* ---- statements -------------------------------------------------------- */

static struct loopctx *loop_push(struct gen *g, struct diag_loc loc)
{
	struct loopctx *l;

	if (g->nloops == MAX_LOOPS) {
		diag_error(g->d, loc, "loops nested too deeply (at most %d)",
			   MAX_LOOPS);
		g->nloops--;
	}
	l = &g->loops[g->nloops++];
	memset(l, 0, sizeof(*l));
	l->try_depth = g->try_depth;
	return l;
}

static void loop_pop(struct gen *g, size_t brk, size_t cont)
{
	struct loopctx *l = &g->loops[--g->nloops];
	size_t i;

	for (i = 0; i < l->brk.n; i++)
		patch(g, l->brk.v[i], brk);
	for (i = 0; i < l->cont.n; i++)
		patch(g, l->cont.v[i], cont);
	free(l->brk.v);
	free(l->cont.v);
}

static void gen_foreach_hist(struct gen *g, struct ast_stmt *s, int loc)
{
	const struct ast_expr *h = s->u.foreach.array;
	const struct elab_sym *st = hist_sym(h);
	struct stat_cfg cfg;
	int i = g->nlocals++, lim = -1, nb, n;
	size_t top, jend, cont;
	struct loopctx *l;

	if (stat_cfg_init(&cfg, h->u.hist.kind == AST_HIST_LOG ?
			  STAT_HIST_LOG : STAT_HIST_LINEAR, h->u.hist.params[0],
			  h->u.hist.params[1], h->u.hist.params[2], NULL, 0) < 0)
		cfg.buckets = 0;
	nb = cfg.buckets;
	if (s->u.foreach.limit) {
		lim = g->nlocals++;
		gen_expr(g, s->u.foreach.limit);
		emit(g, OP_STL, -1, lim);
	}
	emit(g, OP_PUSHI, 1, 0);
	emit(g, OP_STL, -1, i);
	l = loop_push(g, s->loc);
	top = label(g);
	act(g, 1, loc);
	flush(g);
	emit(g, OP_LDL, 1, i);
	emit(g, OP_PUSHI, 1, nb);
	emit(g, OP_LT, -1);
	jend = jump(g, OP_JZ, -1);
	if (lim >= 0) {
		emit(g, OP_LDL, 1, i);
		emit(g, OP_LDL, 1, lim);
		emit(g, OP_LT, -1);
		PUSH(l->brk.v, l->brk.n, jump(g, OP_JZ, -1));
		l = &g->loops[g->nloops - 1];
	}
	emit(g, OP_LDL, 1, i);
	store_sym(g, s->u.foreach.keys.v[0]->sym);
	if (s->u.foreach.value) {
		n = hist_keys(g, h);
		emit(g, OP_LDL, 1, i);
		emit(g, OP_HBUCKET, -n, st->index, n ? HIST_KEYED : 0,
		     expr_loc(g, h));
		store_sym(g, s->u.foreach.value->sym);
	}
	gen_stmt(g, s->u.foreach.body);
	cont = label(g);
	emit(g, OP_INCL, 0, i, 1);
	patch(g, jump(g, OP_JMP, 0), top);
	loop_pop(g, label(g), cont);
	patch(g, jend, label(g));
}

static void gen_foreach(struct gen *g, struct ast_stmt *s)
{
	const struct elab_sym *a = s->u.foreach.array->sym;
	struct prog_iter it = { 0 };
	size_t top, jend, i, n = s->u.foreach.keys.n;
	int loc = add_loc(g, "keyword", NULL, s->loc), id, flags = 0;

	act(g, 1, loc);
	if (s->u.foreach.array->kind == AST_E_HIST) {
		gen_foreach_hist(g, s, loc);
		return;
	}
	it.global = a->index;
	it.sort.dir = s->u.foreach.sort_dir;
	it.sort.column = s->u.foreach.sort_col;
	it.sort.agg = s->u.foreach.sort_aggr ? (enum stat_op)
		      (s->u.foreach.sort_aggr - AST_STAT_COUNT) : STAT_COUNT;
	if (s->u.foreach.limit) {
		gen_expr(g, s->u.foreach.limit);
		flags |= ITER_LIMIT;
	}
	if (s->u.foreach.slice.n) {
		int mask = gen_keys(g, &s->u.foreach.slice);

		it.slice_mask = ~mask & ((1 << n) - 1);
		flags |= ITER_SLICE;
	}
	PUSH(g->p->iters, g->p->niters, it);
	id = (int)g->p->niters - 1;
	flush(g);
	emit(g, OP_ITER, -(int)(flags & ITER_LIMIT ? 1 : 0) -
	     __builtin_popcount((unsigned)it.slice_mask), id, a->index, 0,
	     flags);
	loop_push(g, s->loc);
	top = label(g);
	act(g, 1, loc);
	flush(g);
	emit(g, OP_INEXT, (int)n + (s->u.foreach.value ? 1 : 0), id, 0,
	     s->u.foreach.value != NULL);
	jend = here(g) - 2;
	if (s->u.foreach.value)
		store_sym(g, s->u.foreach.value->sym);
	for (i = n; i-- > 0;)
		store_sym(g, s->u.foreach.keys.v[i]->sym);
	gen_stmt(g, s->u.foreach.body);
	patch(g, jump(g, OP_JMP, 0), top);
	i = label(g);
	patch(g, jend, i);
	loop_pop(g, i, top);
	emit(g, OP_IEND, 0, id);
}

static void gen_loop(struct gen *g, struct ast_stmt *s)
{
	int loc = add_loc(g, "keyword", NULL, s->loc);
	size_t top, jend = 0, cont;
	bool has_cond = s->u.loop.cond != NULL;

	if (s->u.loop.init) {
		act(g, 1, loc);
		gen_effect(g, s->u.loop.init);
	}
	loop_push(g, s->loc);
	top = label(g);
	act(g, 1, loc);
	flush(g);
	if (has_cond) {
		gen_expr(g, s->u.loop.cond);
		jend = jump(g, OP_JZ, -1);
	}
	gen_stmt(g, s->u.loop.body);
	cont = label(g);
	if (s->u.loop.incr)
		gen_effect(g, s->u.loop.incr);
	patch(g, jump(g, OP_JMP, 0), top);
	top = label(g);
	if (has_cond)
		patch(g, jend, top);
	loop_pop(g, top, cont);
}

static void gen_delete(struct gen *g, struct ast_stmt *s)
{
	struct ast_expr *x = s->u.expr;
	const struct elab_sym *sym = elab_expr_sym(x);
	int mask, n;

	if (x->kind == AST_E_INDEX) {
		n = (int)x->u.index.args.n;
		mask = gen_keys(g, &x->u.index.args);
		if (mask)
			emit(g, OP_MDELW, -n + __builtin_popcount(mask),
			     sym->index, mask);
		else
			emit(g, OP_MDEL, -n, sym->index);
	} else if (sym->kind == ELAB_LOCAL) {
		if (is_str(sym->type))
			emit(g, OP_PUSHS, 1, add_str(g, ""));
		else
			emit(g, OP_PUSHI, 1, 0);
		store_sym(g, sym);
	} else if (sym->nkeys > 0) {
		emit(g, OP_MCLR, 0, sym->index);
	} else {
		emit(g, OP_CLRG, 0, sym->index);
	}
}

static void gen_try(struct gen *g, struct ast_stmt *s)
{
	const struct elab_sym *v = s->aux;
	size_t jtry, jend;
	int depth = g->depth;

	flush(g);
	emit(g, OP_TRY, 0, 0, v ? v->index : -1);
	jtry = here(g) - 2;
	g->try_depth++;
	gen_stmt(g, s->u.try_.body);
	flush(g);
	emit(g, OP_TRYEND, 0);
	g->try_depth--;
	jend = jump(g, OP_JMP, 0);
	g->depth = depth;
	patch(g, jtry, label(g));
	act(g, 1, add_loc(g, "keyword", NULL, s->loc));
	gen_stmt(g, s->u.try_.handler);
	patch(g, jend, label(g));
}

static void leave_tries(struct gen *g, const struct loopctx *l)
{
	int i;

	for (i = l->try_depth; i < g->try_depth; i++)
		emit(g, OP_TRYEND, 0);
}

static void gen_stmt(struct gen *g, struct ast_stmt *s)
{
	struct loopctx *l;
	size_t i, j1, j2;

	if (!s)
		return;
	switch (s->kind) {
	case AST_S_BLOCK:
		for (i = 0; i < s->u.block.n; i++)
			gen_stmt(g, s->u.block.v[i]);
		break;
	case AST_S_NULL:
		break;
	case AST_S_EXPR:
		act(g, 1, stmt_loc(g, s));
		gen_effect(g, s->u.expr);
		break;
	case AST_S_IF:
		act(g, 1, stmt_loc(g, s));
		gen_expr(g, s->u.if_.cond);
		j1 = jump(g, OP_JZ, -1);
		gen_stmt(g, s->u.if_.then);
		if (s->u.if_.els) {
			j2 = jump(g, OP_JMP, 0);
			patch(g, j1, label(g));
			gen_stmt(g, s->u.if_.els);
			patch(g, j2, label(g));
		} else {
			patch(g, j1, label(g));
		}
		break;
	case AST_S_WHILE:
	case AST_S_FOR:
		gen_loop(g, s);
		break;
	case AST_S_FOREACH:
		gen_foreach(g, s);
		break;
	case AST_S_BREAK:
	case AST_S_CONTINUE:
		if (!g->nloops) {
			diag_error(g->d, s->loc, "'%s' outside of a loop",
				   s->kind == AST_S_BREAK ? "break" :
				   "continue");
			break;
		}
		l = &g->loops[g->nloops - 1];
		act(g, 1, stmt_loc(g, s));
		flush(g);
		leave_tries(g, l);
		if (s->kind == AST_S_BREAK)
			PUSH(l->brk.v, l->brk.n, jump(g, OP_JMP, 0));
		else
			PUSH(l->cont.v, l->cont.n, jump(g, OP_JMP, 0));
		break;
	case AST_S_NEXT:
		act(g, 1, stmt_loc(g, s));
		flush(g);
		emit(g, OP_NEXT, 0);
		break;
	case AST_S_RETURN:
		act(g, 1, stmt_loc(g, s));
		if (s->u.expr)
			gen_expr(g, s->u.expr);
		flush(g);
		if (s->u.expr)
			emit(g, OP_RET, -1, is_str(g->fn ? g->fn->type :
						   AST_T_LONG));
		else
			emit(g, OP_RET0, 0);
		break;
	case AST_S_DELETE:
		act(g, 1, stmt_loc(g, s));
		gen_delete(g, s);
		break;
	case AST_S_TRY:
		gen_try(g, s);
		break;
	default:
		break;
	}
}

/* ---- globals ----------------------------------------------------------- */

static enum map_type map_type_of(enum ast_type t)
{
	return t == AST_T_STRING ? MAP_STRING : t == AST_T_STATS ? MAP_STAT :
	       MAP_LONG;
}

static void gen_global(struct gen *g, const struct elab_sym *s,
		       struct prog_global *pg)
{
	char err[256];
	int i;

	pg->name = xstrdup(s->name);
	pg->type = s->type == AST_T_UNKNOWN ? AST_T_LONG : s->type;
	pg->nkeys = s->nkeys > 0 ? s->nkeys : 0;
	if (s->type == AST_T_STATS) {
		if (stat_cfg_init(&pg->scfg, s->hist_set ? s->hist :
				  STAT_HIST_NONE, s->hist_params[0],
				  s->hist_params[1], s->hist_params[2], err,
				  sizeof(err)) < 0)
			diag_error(g->d, s->loc, "%s", err);
		pg->scfg.variance = s->variance;
		pg->scfg.bit_shift = s->bit_shift;
		if (g->o->hist_width)
			pg->scfg.hist_width = g->o->hist_width;
		if (g->o->hist_elision)
			pg->scfg.hist_elision = g->o->hist_elision;
	}
	if (pg->nkeys) {
		pg->mcfg.nkeys = pg->nkeys;
		for (i = 0; i < pg->nkeys; i++)
			pg->mcfg.keys[i] = map_type_of(s->keys[i]);
		pg->mcfg.value = map_type_of(pg->type);
		pg->mcfg.max_entries = s->decl && s->decl->maxsize > 0 ?
			(size_t)s->decl->maxsize : g->o->maxmapentries;
		pg->mcfg.wrap = s->decl && s->decl->wrap;
		pg->sized = s->decl && s->decl->maxsize > 0;
		pg->mcfg.maxstrlen = g->o->maxstrlen;
	}
	if (s->decl && s->decl->init) {
		pg->has_init = true;
		if (s->decl->init->kind == AST_E_STR)
			pg->init_s = xstrdup(s->decl->init->u.str.s);
		else
			pg->init_l = s->decl->init->u.num;
	}
}

/* ---- driver ------------------------------------------------------------ */

static void gen_body(struct gen *g, struct ast_stmt *body, int nlocals,
		     struct elab_func *fn)
{
	g->depth = g->maxdepth = 0;
	g->nlocals = nlocals;
	g->pending = 0;
	g->nloops = 0;
	g->try_depth = 0;
	g->fn = fn;
	gen_stmt(g, body);
	flush(g);
	if (fn)
		emit(g, OP_RET0, 0);
	else
		emit(g, OP_END, 0);
}

struct prog *gen_program(const struct elab *e, const struct gen_opts *opts,
			 struct diag *d)
{
	struct prog *p = xcalloc(1, sizeof(*p));
	struct gen g = { .p = p, .e = e, .d = d, .o = opts };
	unsigned errs = diag_errors(d);
	size_t i;

	p->maxstrlen = opts->maxstrlen;
	p->nglobals = e->globals.n;
	p->globals = xcalloc(p->nglobals + 1, sizeof(*p->globals));
	for (i = 0; i < e->globals.n; i++)
		gen_global(&g, e->globals.v[i], &p->globals[i]);

	p->nfuncs = e->funcs.n;
	p->funcs = xcalloc(p->nfuncs + 1, sizeof(*p->funcs));
	for (i = 0; i < e->funcs.n; i++) {
		struct elab_func *f = e->funcs.v[i];
		struct prog_func *pf = &p->funcs[i];

		pf->name = xstrdup(f->decl->name);
		pf->nparams = (int)f->nparams;
		pf->ret = f->type;
		if (!f->used)
			continue;
		pf->entry = (int)here(&g);
		pf->used = true;
		gen_body(&g, f->decl->body, (int)f->nlocals, f);
		pf->end = (int)here(&g);
		pf->nlocals = g.nlocals;
		pf->maxstack = g.maxdepth;
	}
	p->nprobes = e->probes.n;
	p->probes = xcalloc(p->nprobes + 1, sizeof(*p->probes));
	for (i = 0; i < e->probes.n; i++) {
		struct elab_probe *ep = e->probes.v[i];
		struct prog_probe *pp = &p->probes[i];

		pp->pp = ep->pp;
		pp->synthetic = ep->synthetic;
		pp->entry = (int)here(&g);
		gen_body(&g, ep->body, (int)ep->nlocals, NULL);
		pp->end = (int)here(&g);
		pp->nlocals = g.nlocals;
		pp->maxstack = g.maxdepth;
	}
	for (i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].nlocals + p->funcs[i].maxstack > p->maxframe)
			p->maxframe = p->funcs[i].nlocals + p->funcs[i].maxstack;
	for (i = 0; i < p->nprobes; i++)
		if (p->probes[i].nlocals + p->probes[i].maxstack > p->maxframe)
			p->maxframe = p->probes[i].nlocals +
				      p->probes[i].maxstack;
	p->maxframe += 4;
	if (diag_errors(d) != errs) {
		gen_free(p);
		return NULL;
	}
	return p;
}

void gen_free(struct prog *p)
{
	size_t i;

	if (!p)
		return;
	free(p->code);
	free(p->consts);
	for (i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	free(p->strs);
	for (i = 0; i < p->nlocs; i++)
		free(p->locs[i].near);
	free(p->locs);
	for (i = 0; i < p->nfmts; i++) {
		free(p->fmts[i].text);
		free(p->fmts[i].specs);
	}
	free(p->fmts);
	for (i = 0; i < p->nregexes; i++) {
		regfree(&p->regexes[i]);
		free(p->regex_src[i]);
	}
	free(p->regexes);
	free(p->regex_src);
	free(p->iters);
	for (i = 0; i < p->ntvars; i++)
		free(p->tvars[i].name);
	free(p->tvars);
	for (i = 0; i < p->nglobals; i++) {
		free(p->globals[i].name);
		free(p->globals[i].init_s);
	}
	free(p->globals);
	for (i = 0; i < p->nfuncs; i++)
		free(p->funcs[i].name);
	free(p->funcs);
	free(p->probes);
	free(p);
}
