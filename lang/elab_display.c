// SPDX-License-Identifier: GPL-2.0
/*
 * The display pass: globals the script writes and never reads are
 * printed at the end, as stap's add_global_var_display() does.
 *
 * A walk over the reachable code marks each global read and written
 * (the marks are kept: -p2 and code generation see them); then, for each
 * user global written and never read, a `probe end` printing it in stap's
 * layout is generated as source, parsed, and taken through the probes,
 * symbols and types passes like the user's own probes.  Those probes are
 * `synthetic`: -p2 does not list them.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/elab_pass.h"
#include "lang/fmt_sb.h"
#include "lang/parse.h"

enum use { READ = 1, WRITE = 2 };

static void mark(struct elab_sym *s, unsigned use)
{
	if (!s || s->kind != ELAB_GLOBAL)
		return;
	if (use & READ)
		s->read = true;
	if (use & WRITE)
		s->written = true;
}

/* A variable or element used as an lvalue (@use WRITE, or READ|WRITE for
 * `+=` and friends): its indexes are read. */
static void use_lvalue(struct ast_expr *l, unsigned use,
		       const struct ast_visitor *w)
{
	if (l->kind == AST_E_VAR) {
		mark(l->sym, use);
	} else if (l->kind == AST_E_INDEX &&
		   l->u.index.base->kind != AST_E_HIST) {
		mark(l->sym, use);	/* not the base: that is no read */
		for (size_t i = 0; i < l->u.index.args.n; i++)
			ast_walk_expr(l->u.index.args.v[i], w);
	} else {
		ast_walk_expr(l, w);
	}
}

/*
 * varuse_collecting_visitor: `=` and `<<<` write, `++` writes (PR6954),
 * `+=` and friends read and write, `delete` writes, everything else
 * reads.  The walk reaches every use; the writes take their lvalue.
 */
static int use_expr(struct ast_expr *e, void *ctx)
{
	const struct ast_visitor *w = ctx;

	switch (e->kind) {
	case AST_E_VAR:
		mark(e->sym, READ);
		return 0;
	case AST_E_INDEX:
		if (e->u.index.base->kind != AST_E_HIST)
			mark(e->sym, READ);
		return 0;
	case AST_E_CREMENT:
		use_lvalue(e->u.unary.operand, WRITE, w);
		return 1;
	case AST_E_ASSIGN:
		use_lvalue(e->u.bin.left, e->op == AST_OP_ASSIGN ||
			   e->op == AST_OP_STAT_ADD ? WRITE : READ | WRITE, w);
		ast_walk_expr(e->u.bin.right, w);
		return 1;
	default:
		return 0;
	}
}

static int use_stmt(struct ast_stmt *s, void *ctx)
{
	const struct ast_visitor *w = ctx;
	size_t i;

	switch (s->kind) {
	case AST_S_DELETE:
		use_lvalue(s->u.expr, WRITE, w);
		return 1;
	case AST_S_FOREACH:
		/* the array, its slice and limit are read; the loop's own
		 * variables are not counted as uses */
		ast_walk_expr(s->u.foreach.array, w);
		for (i = 0; i < s->u.foreach.slice.n; i++)
			ast_walk_expr(s->u.foreach.slice.v[i], w);
		ast_walk_expr(s->u.foreach.limit, w);
		ast_walk_stmt(s->u.foreach.body, w);
		return 1;
	default:
		return 0;
	}
}

static void display_global(struct strbuf *sb, const struct elab_sym *g)
{
	static const char *const st[] = { "@count", "@min", "@max", "@sum",
					  "@avg" };
	struct strbuf fmt = STRBUF_INIT, args = STRBUF_INIT;
	const char *val = g->name;
	int i;

	fmt_sb_addstr(&fmt, g->name);
	fmt_sb_addstr(sb, "probe end {\n");
	if (g->nkeys > 0) {
		fmt_sb_addc(&fmt, '[');
		fmt_sb_addstr(sb, "foreach (");
		if (g->type != AST_T_STATS) {
			fmt_sb_addstr(sb, "__val = ");
			val = "__val";
		}
		fmt_sb_addc(sb, '[');
		for (i = 0; i < g->nkeys; i++) {
			fmt_sb_addf(sb, "%s__idx%d", i ? "," : "", i);
			fmt_sb_addstr(&fmt, i ? "," : "");
			fmt_sb_addstr(&fmt, g->keys[i] == AST_T_STRING ?
				      "\\\"%#s\\\"" : "%#d");
			fmt_sb_addf(&args, ", __idx%d", i);
		}
		fmt_sb_addf(sb, "] in %s-)\n", g->name);
		fmt_sb_addc(&fmt, ']');
	} else if (g->type == AST_T_STATS) {
		fmt_sb_addf(sb, "if (@count(%s) == 0)\nprintf(\"%s @count=0x0"
			    "\\n\")\nelse\n", g->name, g->name);
	}
	if (g->type == AST_T_STATS) {
		for (i = 0; i < 5; i++) {
			fmt_sb_addf(&fmt, " %s=%%#d", st[i]);
			if (g->nkeys > 0) {
				fmt_sb_addf(&args, ", %s(%s[", st[i], g->name);
				for (int k = 0; k < g->nkeys; k++)
					fmt_sb_addf(&args, "%s__idx%d",
						    k ? "," : "", k);
				fmt_sb_addstr(&args, "])");
			} else {
				fmt_sb_addf(&args, ", %s(%s)", st[i], g->name);
			}
		}
	} else {
		fmt_sb_addstr(&fmt, g->type == AST_T_STRING ?
			      "=\\\"%#s\\\"" : "=%#x");
		fmt_sb_addf(&args, ", %s", val);
	}
	fmt_sb_addf(sb, "printf(\"%s\\n\"%s)\n}\n", fmt_sb_str(&fmt),
		    fmt_sb_str(&args));
	fmt_sb_release(&fmt);
	fmt_sb_release(&args);
}

int elab_pass_display(struct elab *e)
{
	struct strbuf src = STRBUF_INIT;
	struct ast_visitor w = { .expr = use_expr, .stmt = use_stmt };
	size_t i, nprobes = e->script->probes.n, first = e->probes.n;

	if (e->opts->no_display)
		return 0;
	w.ctx = &w;
	for (i = 0; i < e->funcs.n; i++)
		if (e->funcs.v[i]->used)
			ast_walk_stmt(e->funcs.v[i]->decl->body, &w);
	for (i = 0; i < e->probes.n; i++)
		ast_walk_stmt(e->probes.v[i]->body, &w);
	for (i = 0; i < e->globals.n; i++) {
		struct elab_sym *g = e->globals.v[i];

		if (g->written && !g->read && g->decl && !g->decl->library)
			display_global(&src, g);
	}
	if (!src.len)
		return 0;
	if (parse_text(e->script, e->diag, "<global display>", src.buf,
		       src.len, e->opts->lex, 0) == 0) {
		for (i = nprobes; i < e->script->probes.n; i++)
			elab_expand_probe(e, e->script->probes.v[i], true);
		for (i = first; i < e->probes.n; i++)
			elab_resolve_probe(e, e->probes.v[i]);
		elab_pass_types(e);
	}
	fmt_sb_release(&src);
	return 0;
}
