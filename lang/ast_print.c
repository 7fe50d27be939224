// SPDX-License-Identifier: GPL-2.0
/*
 * The -p1 printer.  It writes normalized source that the parser reads
 * back into the same tree (tests/unit/test_parse.c checks the round trip),
 * so every operator expression below the top of a statement is put in
 * parentheses, expression statements end in ';', and a unary operator
 * never touches an operand that starts with an operator character.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lang/ast.h"
#include "lang/lex.h"

static void print_expr(FILE *f, const struct ast_expr *e, bool top);

static void print_string(FILE *f, const char *s, size_t len)
{
	char *q = lex_quote(s, len);

	fprintf(f, "\"%s\"", q);
	free(q);
}

static void print_list(FILE *f, const struct ast_exprs *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (i)
			fputs(", ", f);
		print_expr(f, v->v[i], true);
	}
}

/* An operand a prefix operator must not run into: -(-5), !(~x), -(--x). */
static void print_operand(FILE *f, const struct ast_expr *e)
{
	bool wrap = e->kind == AST_E_UNARY || e->kind == AST_E_CREMENT ||
		    (e->kind == AST_E_NUM && e->u.num < 0);

	if (wrap)
		fputc('(', f);
	print_expr(f, e, wrap);
	if (wrap)
		fputc(')', f);
}

static void print_target(FILE *f, const struct ast_expr *e)
{
	size_t i;

	if (e->u.target.addressof)
		fputc('&', f);
	if (e->u.target.raw && e->u.target.raw_reg)
		fprintf(f, "%s(\"%s\")", e->u.target.name, e->u.target.raw_reg);
	else if (e->u.target.raw && e->u.target.raw_arg)
		fprintf(f, "%s(%d)", e->u.target.name, e->u.target.raw_arg);
	else if (e->u.target.raw)
		fprintf(f, "%s()", e->u.target.name);
	else if (e->u.target.global && e->u.target.cast_module)
		fprintf(f, "@var(\"%s\", \"%s\")", e->u.target.global,
			e->u.target.cast_module);
	else if (e->u.target.global)
		fprintf(f, "@var(\"%s\")", e->u.target.global);
	else if (e->u.target.cast_type) {
		fputs("@cast(", f);
		print_expr(f, e->u.target.base, true);
		if (e->u.target.cast_off)
			fprintf(f, " %c %lld", e->u.target.cast_off < 0 ? '-' : '+',
				(long long)llabs(e->u.target.cast_off));
		fprintf(f, ", \"%s\"", e->u.target.cast_type);
		if (e->u.target.cast_module)
			fprintf(f, ", \"%s\"", e->u.target.cast_module);
		fputc(')', f);
	} else if (e->u.target.name)
		fputs(e->u.target.name, f);
	else
		print_operand(f, e->u.target.base);
	for (i = 0; i < e->u.target.ncomps; i++) {
		const struct ast_tcomp *c = &e->u.target.comps[i];

		switch (c->kind) {
		case AST_TC_MEMBER:
			fprintf(f, "->%s", c->name);
			break;
		case AST_TC_INDEX:
			fputc('[', f);
			print_expr(f, c->index, true);
			fputc(']', f);
			break;
		case AST_TC_PRETTY:
			fputs(c->name, f);
			break;
		}
	}
}

static void print_expr(FILE *f, const struct ast_expr *e, bool top)
{
	const struct ast_exprs *keys;
	bool paren;

	switch (e->kind) {
	case AST_E_BINARY:
	case AST_E_CONCAT:
	case AST_E_COMPARE:
	case AST_E_LOGICAL:
	case AST_E_REGEX:
	case AST_E_ASSIGN:
	case AST_E_TERNARY:
	case AST_E_IN:
		paren = !top;
		break;
	default:
		paren = false;
	}
	if (paren)
		fputc('(', f);
	switch (e->kind) {
	case AST_E_NUM:
		fprintf(f, "%" PRId64, e->u.num);
		break;
	case AST_E_STR:
		print_string(f, e->u.str.s, e->u.str.len);
		break;
	case AST_E_VAR:
		fputs(e->u.var.name, f);
		break;
	case AST_E_INDEX:
		print_expr(f, e->u.index.base, false);
		fputc('[', f);
		print_list(f, &e->u.index.args);
		fputc(']', f);
		break;
	case AST_E_STAR:
		fputc('*', f);
		break;
	case AST_E_CALL:
		fprintf(f, "%s(", e->u.call.name);
		print_list(f, &e->u.call.args);
		fputc(')', f);
		break;
	case AST_E_PRINT:
		fprintf(f, "%s(", e->u.print.name);
		if (e->u.print.fmt) {
			print_expr(f, e->u.print.fmt, true);
			if (e->u.print.args.n)
				fputs(", ", f);
		}
		print_list(f, &e->u.print.args);
		fputc(')', f);
		break;
	case AST_E_UNARY:
		fputs(ast_op_str(e->op), f);
		print_operand(f, e->u.unary.operand);
		break;
	case AST_E_CREMENT:
		if (e->op == AST_OP_PREINC || e->op == AST_OP_PREDEC) {
			fputs(ast_op_str(e->op), f);
			print_operand(f, e->u.unary.operand);
		} else {
			print_operand(f, e->u.unary.operand);
			fputs(ast_op_str(e->op), f);
		}
		break;
	case AST_E_BINARY:
	case AST_E_CONCAT:
	case AST_E_COMPARE:
	case AST_E_LOGICAL:
	case AST_E_REGEX:
	case AST_E_ASSIGN:
		print_expr(f, e->u.bin.left, false);
		fprintf(f, " %s ", ast_op_str(e->op));
		print_expr(f, e->u.bin.right, false);
		break;
	case AST_E_TERNARY:
		print_expr(f, e->u.ternary.cond, false);
		fputs(" ? ", f);
		print_expr(f, e->u.ternary.then, false);
		fputs(" : ", f);
		print_expr(f, e->u.ternary.els, false);
		break;
	case AST_E_IN:
		keys = &e->u.in.index->u.index.args;
		if (keys->n == 1 && keys->v[0]->kind != AST_E_STAR) {
			print_expr(f, keys->v[0], false);
		} else {
			fputc('[', f);
			print_list(f, keys);
			fputc(']', f);
		}
		fputs(" in ", f);
		print_expr(f, e->u.in.index->u.index.base, false);
		break;
	case AST_E_TARGET:
		print_target(f, e);
		break;
	case AST_E_DEFINED:
	case AST_E_ENTRY:
		fputs(e->kind == AST_E_DEFINED ? "@defined(" : "@entry(", f);
		print_expr(f, e->u.unary.operand, true);
		fputc(')', f);
		break;
	case AST_E_PERF:
		fputs("@perf(", f);
		print_string(f, e->u.str.s, e->u.str.len);
		fputc(')', f);
		break;
	case AST_E_STAT:
		fprintf(f, "@%s(", ast_stat_str(e->u.stat.op));
		print_expr(f, e->u.stat.operand, true);
		if (e->u.stat.nparams)
			fprintf(f, ", %" PRId64, e->u.stat.params[0]);
		fputc(')', f);
		break;
	case AST_E_HIST:
		if (e->u.hist.kind == AST_HIST_LOG) {
			fputs("@hist_log(", f);
			print_expr(f, e->u.hist.operand, true);
		} else {
			fputs("@hist_linear(", f);
			print_expr(f, e->u.hist.operand, true);
			fprintf(f, ", %" PRId64 ", %" PRId64 ", %" PRId64,
				e->u.hist.params[0], e->u.hist.params[1],
				e->u.hist.params[2]);
		}
		fputc(')', f);
		break;
	default:
		fputs("<?>", f);
		break;
	}
	if (paren)
		fputc(')', f);
}

void ast_print_expr(FILE *f, const struct ast_expr *e)
{
	print_expr(f, e, true);
}

static void indent(FILE *f, int n)
{
	while (n-- > 0)
		fputs("  ", f);
}

static void print_line(FILE *f, const struct ast_stmt *s, int ind);
static void print_stmt_at(FILE *f, const struct ast_stmt *s, int ind);

/*
 * The body of if/while/for/foreach/try after its head: " { ... }" for a
 * block (returns false: the line is not finished), else the statement on
 * its own line one level deeper (returns true).
 */
static bool print_sub(FILE *f, const struct ast_stmt *s, int ind)
{
	size_t i;

	if (s->kind == AST_S_BLOCK) {
		fputs(" {\n", f);
		for (i = 0; i < s->u.block.n; i++)
			print_line(f, s->u.block.v[i], ind + 1);
		indent(f, ind);
		fputc('}', f);
		return false;
	}
	fputc('\n', f);
	print_line(f, s, ind + 1);
	return true;
}

static void end_sub(FILE *f, bool done)
{
	if (!done)
		fputc('\n', f);
}

static void print_foreach(FILE *f, const struct ast_stmt *s, int ind)
{
	const struct ast_exprs *keys = &s->u.foreach.keys;
	size_t i;

	fputs("foreach (", f);
	if (s->u.foreach.value) {
		print_expr(f, s->u.foreach.value, false);
		fputs(" = ", f);
	}
	if (keys->n != 1)
		fputc('[', f);
	for (i = 0; i < keys->n; i++) {
		if (i)
			fputs(", ", f);
		print_expr(f, keys->v[i], false);
		if (s->u.foreach.sort_col == (int)i + 1 && s->u.foreach.sort_dir)
			fputc(s->u.foreach.sort_dir > 0 ? '+' : '-', f);
	}
	if (keys->n != 1)
		fputc(']', f);
	fputs(" in ", f);
	print_expr(f, s->u.foreach.array, false);
	if (s->u.foreach.slice.n) {
		fputc('[', f);
		print_list(f, &s->u.foreach.slice);
		fputc(']', f);
	}
	if (s->u.foreach.sort_aggr)
		fprintf(f, " @%s", ast_stat_str(s->u.foreach.sort_aggr));
	if (s->u.foreach.sort_col == 0 && s->u.foreach.sort_dir)
		fputc(s->u.foreach.sort_dir > 0 ? '+' : '-', f);
	if (s->u.foreach.limit) {
		fputs(" limit ", f);
		print_expr(f, s->u.foreach.limit, false);
	}
	fputc(')', f);
	end_sub(f, print_sub(f, s->u.foreach.body, ind));
}

/* A statement starting at the current column, ending with a newline. */
static void print_stmt_at(FILE *f, const struct ast_stmt *s, int ind)
{
	bool done;
	size_t i;

	switch (s->kind) {
	case AST_S_BLOCK:
		fputs("{\n", f);
		for (i = 0; i < s->u.block.n; i++)
			print_line(f, s->u.block.v[i], ind + 1);
		indent(f, ind);
		fputs("}\n", f);
		break;
	case AST_S_NULL:
		fputs(";\n", f);
		break;
	case AST_S_EXPR:
		print_expr(f, s->u.expr, true);
		fputs(";\n", f);
		break;
	case AST_S_IF:
		fputs("if (", f);
		print_expr(f, s->u.if_.cond, true);
		fputc(')', f);
		done = print_sub(f, s->u.if_.then, ind);
		if (!s->u.if_.els) {
			end_sub(f, done);
			break;
		}
		if (done)
			indent(f, ind);
		else
			fputc(' ', f);
		fputs("else", f);
		if (s->u.if_.els->kind == AST_S_IF) {
			fputc(' ', f);
			print_stmt_at(f, s->u.if_.els, ind);
		} else {
			end_sub(f, print_sub(f, s->u.if_.els, ind));
		}
		break;
	case AST_S_WHILE:
		fputs("while (", f);
		print_expr(f, s->u.loop.cond, true);
		fputc(')', f);
		end_sub(f, print_sub(f, s->u.loop.body, ind));
		break;
	case AST_S_FOR:
		fputs("for (", f);
		if (s->u.loop.init)
			print_expr(f, s->u.loop.init, true);
		fputc(';', f);
		if (s->u.loop.cond) {
			fputc(' ', f);
			print_expr(f, s->u.loop.cond, true);
		}
		fputc(';', f);
		if (s->u.loop.incr) {
			fputc(' ', f);
			print_expr(f, s->u.loop.incr, true);
		}
		fputc(')', f);
		end_sub(f, print_sub(f, s->u.loop.body, ind));
		break;
	case AST_S_FOREACH:
		print_foreach(f, s, ind);
		break;
	case AST_S_BREAK:
		fputs("break;\n", f);
		break;
	case AST_S_CONTINUE:
		fputs("continue;\n", f);
		break;
	case AST_S_NEXT:
		fputs("next;\n", f);
		break;
	case AST_S_RETURN:
		fputs("return", f);
		if (s->u.expr) {
			fputc(' ', f);
			print_expr(f, s->u.expr, true);
		}
		fputs(";\n", f);
		break;
	case AST_S_DELETE:
		fputs("delete ", f);
		print_expr(f, s->u.expr, true);
		fputs(";\n", f);
		break;
	case AST_S_TRY:
		fputs("try", f);
		done = print_sub(f, s->u.try_.body, ind);
		if (done)
			indent(f, ind);
		else
			fputc(' ', f);
		fputs("catch", f);
		if (s->u.try_.var)
			fprintf(f, " (%s)", s->u.try_.var);
		end_sub(f, print_sub(f, s->u.try_.handler, ind));
		break;
	default:
		fputs("<?>\n", f);
		break;
	}
}

static void print_line(FILE *f, const struct ast_stmt *s, int ind)
{
	indent(f, ind);
	print_stmt_at(f, s, ind);
}

void ast_print_stmt(FILE *f, const struct ast_stmt *s, int ind)
{
	print_line(f, s, ind);
}

void ast_print_pp(FILE *f, const struct ast_pp *pp)
{
	size_t i;

	for (i = 0; i < pp->ncomps; i++) {
		if (i)
			fputc('.', f);
		fputs(pp->comps[i].name, f);
		if (pp->comps[i].arg) {
			fputc('(', f);
			print_expr(f, pp->comps[i].arg, true);
			fputc(')', f);
		}
	}
	if (pp->sufficient)
		fputc('!', f);
	else if (pp->optional)
		fputc('?', f);
	if (pp->cond) {
		fputs(" if (", f);
		print_expr(f, pp->cond, true);
		fputc(')', f);
	}
}

static void print_pps(FILE *f, const struct ast_pps *pps, const char *sep)
{
	size_t i;

	for (i = 0; i < pps->n; i++) {
		if (i)
			fputs(sep, f);
		ast_print_pp(f, pps->v[i]);
	}
}

static void print_global(FILE *f, const struct ast_global *g)
{
	fprintf(f, "%sglobal %s", g->private_ ? "private " : "", g->name);
	if (g->wrap)
		fputc('%', f);
	if (g->array)
		fprintf(f, "[%" PRId64 "]", g->maxsize);
	if (g->init) {
		fputs(" = ", f);
		print_expr(f, g->init, true);
	}
	fputc('\n', f);
}

static void print_func(FILE *f, const struct ast_func *fn)
{
	size_t i;

	fprintf(f, "%sfunction %s", fn->private_ ? "private " : "", fn->name);
	if (fn->type != AST_T_UNKNOWN)
		fprintf(f, ":%s", ast_type_str(fn->type));
	fputs(" (", f);
	for (i = 0; i < fn->nparams; i++) {
		if (i)
			fputs(", ", f);
		fputs(fn->params[i].name, f);
		if (fn->params[i].type != AST_T_UNKNOWN)
			fprintf(f, ":%s", ast_type_str(fn->params[i].type));
	}
	fputc(')', f);
	if (fn->priority)
		fprintf(f, " : %" PRId64, fn->priority);
	end_sub(f, print_sub(f, fn->body, 0));
}

static void print_alias(FILE *f, const struct ast_alias *a)
{
	fputs("probe ", f);
	print_pps(f, &a->names, " = ");
	fputs(a->epilogue ? " += " : " = ", f);
	print_pps(f, &a->pps, ", ");
	print_sub(f, a->body, 0);
	if (a->body2) {
		fputc(',', f);
		print_sub(f, a->body2, 0);
	}
	fputc('\n', f);
}

void ast_print(FILE *f, const struct ast_script *s)
{
	size_t i, j;

	fputs("# parse tree dump\n", f);
	for (i = 0; i < s->files.n; i++) {
		const struct diag_file *src = s->files.v[i]->src;

		if (s->files.v[i]->library)
			continue;
		fprintf(f, "# file %s\n", src->name);
		for (j = 0; j < s->globals.n; j++)
			if (s->globals.v[j]->loc.file == src)
				print_global(f, s->globals.v[j]);
		for (j = 0; j < s->funcs.n; j++)
			if (s->funcs.v[j]->loc.file == src)
				print_func(f, s->funcs.v[j]);
		for (j = 0; j < s->aliases.n; j++)
			if (s->aliases.v[j]->loc.file == src)
				print_alias(f, s->aliases.v[j]);
		for (j = 0; j < s->probes.n; j++) {
			const struct ast_probe *p = s->probes.v[j];

			if (p->loc.file != src)
				continue;
			fputs("probe ", f);
			print_pps(f, &p->pps, ", ");
			end_sub(f, print_sub(f, p->body, 0));
		}
	}
}
