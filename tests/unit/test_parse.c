// SPDX-License-Identifier: GPL-2.0
/*
 * The probe-language parser and AST: precedence (seen through the -p1
 * printer, which parenthesizes every operator below the top), every
 * statement and expression form, probe points with brace expansion,
 * declarations, the located errors with their carets, recovery (all the
 * errors of a script in one run), the print/parse round trip, walks,
 * copies, and parsing several files into one script.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/parse.h"
#include "tests/unit/unit.h"

static char *print_diags(struct diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	diag_print(d, m);
	fclose(m);
	return buf;
}

static char *print_script(const struct ast_script *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	ast_print(m, s);
	fclose(m);
	return buf;
}

static const char header[] = "# parse tree dump\n# file t.stp\n";

/*
 * The -p1 text of @src (file "t.stp") without its two header lines, or
 * "ERRORS:\n" and the diagnostics if there were any.
 */
static char *dump_cfg(const char *src, const struct lex_config *cfg)
{
	struct diag *d = diag_new();
	struct ast_script *s = ast_script_new();
	char *out, *body;

	if (parse_text(s, d, "t.stp", src, strlen(src), cfg, 0)) {
		char *e = print_diags(d);

		out = xasprintf("ERRORS:\n%s", e);
		free(e);
	} else {
		body = print_script(s);
		out = xstrdup(strncmp(body, header, strlen(header)) ? body :
			      body + strlen(header));
		free(body);
	}
	ast_script_free(s);
	diag_free(d);
	return out;
}

static char *dump(const char *src)
{
	return dump_cfg(src, NULL);
}

/* Only the diagnostics of @src, printed. */
static char *errors(const char *src)
{
	struct diag *d = diag_new();
	struct ast_script *s = ast_script_new();
	char *out;

	parse_text(s, d, "t.stp", src, strlen(src), NULL, 0);
	out = print_diags(d);
	ast_script_free(s);
	diag_free(d);
	return out;
}

#define CHECK_DUMP(src, want) do {					\
	char *got_ = dump(src);						\
	CHECK_STR(got_, (want));					\
	free(got_);							\
} while (0)

#define CHECK_ERRORS(src, want) do {					\
	char *got_ = errors(src);					\
	CHECK_STR(got_, (want));					\
	free(got_);							\
} while (0)

/*
 * The statement(s) @body of "probe begin { BODY }" as printed, without
 * the probe line, indentation and final ";\n": "x = (a + b)".
 */
static char *stmt(const char *body)
{
	char *src = xasprintf("probe begin { %s }", body), *out = dump(src);
	static const char pre[] = "probe begin {\n  ", post[] = ";\n}\n";
	size_t n = strlen(out);
	char *r;

	if (!strncmp(out, pre, strlen(pre)) && n > strlen(pre) + strlen(post) &&
	    !strcmp(out + n - strlen(post), post))
		r = strndup(out + strlen(pre), n - strlen(pre) - strlen(post));
	else
		r = xstrdup(out);
	free(out);
	free(src);
	return r;
}

#define CHECK_STMT(body, want) do {					\
	char *got_ = stmt(body);					\
	CHECK_STR(got_, (want));					\
	free(got_);							\
} while (0)

/* A parsed script kept for AST checks; free with done(). */
struct parsed {
	struct diag *d;
	struct ast_script *s;
	int rc;
};

static struct parsed parse(const char *src)
{
	struct parsed p = { diag_new(), ast_script_new(), 0 };

	p.rc = parse_text(p.s, p.d, "t.stp", src, strlen(src), NULL, 0);
	return p;
}

static void done(struct parsed *p)
{
	ast_script_free(p->s);
	diag_free(p->d);
}

/* The expression of the first statement of the first probe. */
static struct ast_expr *first_expr(struct parsed *p)
{
	struct ast_stmt *b;

	if (p->s->probes.n < 1)
		return NULL;
	b = p->s->probes.v[0]->body;
	if (b->u.block.n < 1 || b->u.block.v[0]->kind != AST_S_EXPR)
		return NULL;
	return b->u.block.v[0]->u.expr;
}

/* ---------------------------------------------------------------- */

UNIT_TEST(parse_precedence_low_levels)
{
	CHECK_STMT("a = b = c", "a = (b = c)");
	CHECK_STMT("a += b -= c", "a += (b -= c)");
	CHECK_STMT("s .= a . b", "s .= (a . b)");
	CHECK_STMT("st <<< a + 1", "st <<< (a + 1)");
	CHECK_STMT("x = a ? b : c ? d : e", "x = (a ? b : (c ? d : e))");
	CHECK_STMT("x = a ? b = 1 : c", "x = (a ? (b = 1) : c)");
	CHECK_STMT("x = a || b && c", "x = (a || (b && c))");
	CHECK_STMT("x = a && b || c", "x = ((a && b) || c)");
	CHECK_STMT("x = a && b | c", "x = (a && (b | c))");
	CHECK_STMT("x = a | b ^ c & d", "x = (a | (b ^ (c & d)))");
	CHECK_STMT("x = a & k in arr", "x = (a & (k in arr))");
	CHECK_STMT("x = a == b in arr", "x = ((a == b) in arr)");
}

UNIT_TEST(parse_precedence_high_levels)
{
	CHECK_STMT("x = a < b << 1", "x = (a < (b << 1))");
	CHECK_STMT("x = a << b . c", "x = (a << (b . c))");
	CHECK_STMT("x = a . b + c", "x = (a . (b + c))");
	CHECK_STMT("x = a + b * c - d", "x = ((a + (b * c)) - d)");
	CHECK_STMT("x = a / b % c * d", "x = (((a / b) % c) * d)");
	CHECK_STMT("x = a < b < c", "x = ((a < b) < c)");
	CHECK_STMT("x = a != b >= c", "x = ((a != b) >= c)");
	CHECK_STMT("x = (a + b) * c", "x = ((a + b) * c)");
	CHECK_STMT("x = a >> 2 << 1", "x = ((a >> 2) << 1)");
}

UNIT_TEST(parse_unary_and_crement)
{
	CHECK_STMT("x = -a * b", "x = (-a * b)");
	CHECK_STMT("x = !a == b", "x = (!a == b)");
	CHECK_STMT("x = ~a & b", "x = (~a & b)");
	CHECK_STMT("x = +a", "x = +a");
	CHECK_STMT("x = -x++", "x = -(x++)");
	CHECK_STMT("x = ++a + b--", "x = (++a + b--)");
	CHECK_STMT("x = - -a", "x = -(-a)");
	CHECK_STMT("x = !!a", "x = !(!a)");
	CHECK_STMT("x = ! ~a", "x = !(~a)");
	CHECK_STMT("x = !(a && b)", "x = !(a && b)");
	CHECK_STMT("x = a - -1", "x = (a - -1)");
	/* '-' folds into a literal, twice over */
	CHECK_STMT("x = -(-5)", "x = 5");
	CHECK_STMT("--i", "--i");
}

UNIT_TEST(parse_literals)
{
	struct parsed p = parse("probe begin { x = -9223372036854775808;"
				" y = 9223372036854775807; z = 0x7f + 010;"
				" s = \"a\" \"b\\n\" \"\\0c\" }");
	struct ast_stmt *b;
	struct ast_expr *e;

	CHECK_INT(p.rc, 0);
	b = p.s->probes.v[0]->body;
	CHECK_INT(b->u.block.n, 4);
	e = b->u.block.v[0]->u.expr->u.bin.right;
	CHECK_INT(e->kind, AST_E_NUM);
	CHECK(e->u.num == INT64_MIN);
	CHECK_INT(e->loc.col, 19);		/* the '-' */
	e = b->u.block.v[1]->u.expr->u.bin.right;
	CHECK(e->u.num == INT64_MAX);
	e = b->u.block.v[2]->u.expr->u.bin.right;
	CHECK_INT(e->u.bin.left->u.num, 127);
	CHECK_INT(e->u.bin.right->u.num, 8);
	/* adjacent strings join; escapes are decoded, NULs kept */
	e = b->u.block.v[3]->u.expr->u.bin.right;
	CHECK_INT(e->kind, AST_E_STR);
	CHECK_INT(e->u.str.len, 5);
	CHECK(!memcmp(e->u.str.s, "ab\n\0c", 5));
	done(&p);

	CHECK_STMT("x = -9223372036854775808", "x = -9223372036854775808");
	CHECK_STMT("s = \"tab\\there\\001\"", "s = \"tab\\there\\001\"");
}

UNIT_TEST(parse_array_membership)
{
	CHECK_STMT("x = k in arr", "x = (k in arr)");
	CHECK_STMT("x = [a, b] in arr", "x = ([a, b] in arr)");
	CHECK_STMT("x = [a, *] in arr", "x = ([a, *] in arr)");
	CHECK_STMT("x = [*] in arr", "x = ([*] in arr)");
	CHECK_STMT("x = [a + 1] in arr", "x = ((a + 1) in arr)");
	CHECK_STMT("x = [a]", "x = a");
	CHECK_STMT("if (!([a, b] in arr)) x = 1",
		   "if (!([a, b] in arr))\n    x = 1");
	CHECK_ERRORS("probe begin { x = [a, b] }",
		     "t.stp:1:26: error: expected 'in' after a bracketed list of "
		     "keys before '}'\n"
		     "probe begin { x = [a, b] }\n"
		     "                         ^\n");
}

UNIT_TEST(parse_regex_match)
{
	CHECK_STMT("x = s =~ \"^a\" \"b\"", "x = (s =~ \"^ab\")");
	CHECK_STMT("x = s !~ \"x\" && t", "x = ((s !~ \"x\") && t)");
	CHECK_ERRORS("probe begin { x = s =~ t }",
		     "t.stp:1:24: error: expected string literal before 't'\n"
		     "probe begin { x = s =~ t }\n"
		     "                       ^\n");
}

UNIT_TEST(parse_target_variables)
{
	struct parsed p = parse("probe begin { $var->a[i + 1]$ }");
	struct ast_expr *e;

	CHECK_STMT("x = $var", "x = $var");
	CHECK_STMT("x = $var->a->b[1]->c", "x = $var->a->b[1]->c");
	CHECK_STMT("x = $$vars$ . $$parms$$ . $$locals . $$return",
		   "x = ((($$vars$ . $$parms$$) . $$locals) . $$return)");
	CHECK_STMT("x = $p->f$", "x = $p->f$");
	CHECK_STMT("x = $p[0]$", "x = $p[0]$");
	CHECK_STMT("x = &$p->f", "x = &$p->f");
	CHECK_STMT("x = @entry($p)->f", "x = @entry($p)->f");
	CHECK_STMT("x = @defined($p->f) ? $p->f : 0",
		   "x = (@defined($p->f) ? $p->f : 0)");
	CHECK_STMT("x = @perf(\"cycles\")", "x = @perf(\"cycles\")");

	CHECK_INT(p.rc, 0);
	e = first_expr(&p);
	CHECK(e && e->kind == AST_E_TARGET);
	if (e && e->kind == AST_E_TARGET) {
		CHECK_STR(e->u.target.name, "$var");
		CHECK_INT(e->u.target.ncomps, 3);
		CHECK_INT(e->u.target.comps[0].kind, AST_TC_MEMBER);
		CHECK_STR(e->u.target.comps[0].name, "a");
		CHECK_INT(e->u.target.comps[1].kind, AST_TC_INDEX);
		CHECK_INT(e->u.target.comps[1].index->kind, AST_E_BINARY);
		CHECK_INT(e->u.target.comps[2].kind, AST_TC_PRETTY);
		CHECK_STR(e->u.target.comps[2].name, "$");
	}
	done(&p);

	CHECK_ERRORS("probe begin { x = $p$->f }",
		     "t.stp:1:22: error: '->' is not allowed after a "
		     "pretty-printed target variable\n"
		     "probe begin { x = $p$->f }\n"
		     "                     ^\n");
}

UNIT_TEST(parse_statistics)
{
	struct parsed p = parse("probe begin { x = @variance(s[1], 3) }");
	struct ast_expr *e;

	CHECK_STMT("x = @count(s) + @sum(s) + @min(s) + @max(s) + @avg(a[1]) "
		   "+ @variance(s, 3)",
		   "x = (((((@count(s) + @sum(s)) + @min(s)) + @max(s)) + "
		   "@avg(a[1])) + @variance(s, 3))");
	CHECK_STMT("print(@hist_log(s))", "print(@hist_log(s))");
	CHECK_STMT("println(@hist_linear(s[k], -10, 100, 5))",
		   "println(@hist_linear(s[k], -10, 100, 5))");
	CHECK_STMT("x = @hist_log(s)[3]", "x = @hist_log(s)[3]");
	CHECK_STMT("print(@hist_log(s)[3], 1)", "print(@hist_log(s)[3], 1)");

	e = first_expr(&p)->u.bin.right;
	CHECK_INT(e->kind, AST_E_STAT);
	CHECK_INT(e->u.stat.op, AST_STAT_VARIANCE);
	CHECK_INT(e->u.stat.nparams, 1);
	CHECK_INT(e->u.stat.params[0], 3);
	CHECK_INT(e->u.stat.operand->kind, AST_E_INDEX);
	done(&p);

	CHECK_ERRORS("probe begin { x = @count(s, 1) }",
		     "t.stp:1:27: error: too many arguments for '@count'\n"
		     "probe begin { x = @count(s, 1) }\n"
		     "                          ^\n");
	CHECK_ERRORS("probe begin { x = @hist_log(s) }",
		     "t.stp:1:19: error: histogram operator used where a value "
		     "is expected\n"
		     "probe begin { x = @hist_log(s) }\n"
		     "                  ^\n");
}

UNIT_TEST(parse_print_family)
{
	struct parsed p = parse("probe begin { printf(\"%d\" \"\\n\", a) }");
	struct ast_expr *e;

	CHECK_STMT("printf(\"%d %s\\n\", a, b)", "printf(\"%d %s\\n\", a, b)");
	CHECK_STMT("s = sprintf(\"%d\", 1)", "s = sprintf(\"%d\", 1)");
	CHECK_STMT("printd(\",\", a, b)", "printd(\",\", a, b)");
	CHECK_STMT("printdln(\",\", a, b, c)", "printdln(\",\", a, b, c)");
	CHECK_STMT("println()", "println()");
	CHECK_STMT("print(a)", "print(a)");
	CHECK_STMT("s = sprintln(a, b)", "s = sprintln(a, b)");

	e = first_expr(&p);
	CHECK(e && e->kind == AST_E_PRINT);
	if (e && e->kind == AST_E_PRINT) {
		CHECK_INT(e->u.print.flags, AST_PRINT_FORMAT);
		CHECK_STR(e->u.print.fmt->u.str.s, "%d\n");
		CHECK_INT(e->u.print.args.n, 1);
	}
	done(&p);

	CHECK_ERRORS("probe begin { printf(x) }",
		     "t.stp:1:22: error: expected string literal before 'x'\n"
		     "probe begin { printf(x) }\n"
		     "                     ^\n");
	CHECK_ERRORS("probe begin { printd(\",\", a) }",
		     "t.stp:1:28: error: too few arguments to 'printd'\n"
		     "probe begin { printd(\",\", a) }\n"
		     "                           ^\n");
	CHECK_ERRORS("probe begin { print() }",
		     "t.stp:1:21: error: too few arguments to 'print'\n"
		     "probe begin { print() }\n"
		     "                    ^\n");
}

UNIT_TEST(parse_calls_and_indexes)
{
	CHECK_STMT("f()", "f()");
	CHECK_STMT("x = f(1, g(2), \"s\")", "x = f(1, g(2), \"s\")");
	CHECK_STMT("x = a[1, \"s\", b + 1]", "x = a[1, \"s\", b + 1]");
	CHECK_STMT("delete a[*, 1]", "delete a[*, 1]");
	CHECK_STMT("x = a[f(1)][2]", "x = a[f(1)][2]");
	/* stap allows statements without ';' between them */
	CHECK_STMT("x = 1 y = 2", "x = 1;\n  y = 2");
	CHECK_ERRORS("probe begin { f(1 2) }",
		     "t.stp:1:19: error: expected ',' or ')' before '2'\n"
		     "probe begin { f(1 2) }\n"
		     "                  ^\n");
}

UNIT_TEST(parse_if_while_for)
{
	CHECK_DUMP("probe begin { if (a) b = 1 else if (c) { d = 2 } else e = 3"
		   " }",
		   "probe begin {\n"
		   "  if (a)\n"
		   "    b = 1;\n"
		   "  else if (c) {\n"
		   "    d = 2;\n"
		   "  } else\n"
		   "    e = 3;\n"
		   "}\n");
	CHECK_DUMP("probe begin { while (i < 3) i++ for (i = 0; i < 3; i++) ;"
		   " for (;;) { break } for (; i;) continue }",
		   "probe begin {\n"
		   "  while (i < 3)\n"
		   "    i++;\n"
		   "  for (i = 0; i < 3; i++)\n"
		   "    ;\n"
		   "  for (;;) {\n"
		   "    break;\n"
		   "  }\n"
		   "  for (; i;)\n"
		   "    continue;\n"
		   "}\n");
	/* a dangling else goes with the nearest if */
	CHECK_DUMP("probe begin { if (a) if (b) x = 1; else y = 2 }",
		   "probe begin {\n"
		   "  if (a)\n"
		   "    if (b)\n"
		   "      x = 1;\n"
		   "    else\n"
		   "      y = 2;\n"
		   "}\n");
}

UNIT_TEST(parse_foreach_forms)
{
	struct parsed p = parse("probe begin {"
		" foreach ([k1, k2-] in a limit 5) {}"
		" foreach (v- = k in a) {}"
		" foreach (k in s @avg+) {}"
		" foreach ([x, y] in arr[*, 5]) {}"
		" foreach (b in @hist_log(s)) {} }");
	struct ast_stmt **v;

	CHECK_INT(p.rc, 0);
	v = p.s->probes.v[0]->body->u.block.v;
	CHECK_INT(v[0]->u.foreach.keys.n, 2);
	CHECK_INT(v[0]->u.foreach.sort_dir, -1);
	CHECK_INT(v[0]->u.foreach.sort_col, 2);
	CHECK_INT(v[0]->u.foreach.limit->u.num, 5);
	CHECK_STR(v[1]->u.foreach.value->u.var.name, "v");
	CHECK_INT(v[1]->u.foreach.sort_col, 0);
	CHECK_INT(v[1]->u.foreach.sort_dir, -1);
	CHECK_INT(v[2]->u.foreach.sort_aggr, AST_STAT_AVG);
	CHECK_INT(v[2]->u.foreach.sort_dir, 1);
	CHECK_INT(v[3]->u.foreach.slice.n, 2);
	CHECK_INT(v[3]->u.foreach.slice.v[0]->kind, AST_E_STAR);
	CHECK_INT(v[4]->u.foreach.array->kind, AST_E_HIST);
	done(&p);

	CHECK_DUMP("probe begin { foreach (k in a) next foreach (k+ in a) {}"
		   " foreach (v = [k1, k2] in a+ limit n * 2) delete a[k1, k2]"
		   " foreach (v- = k in a) {} foreach ([x, y] in arr[*, 5]) {} }",
		   "probe begin {\n"
		   "  foreach (k in a)\n"
		   "    next;\n"
		   "  foreach (k+ in a) {\n"
		   "  }\n"
		   "  foreach (v = [k1, k2] in a+ limit (n * 2))\n"
		   "    delete a[k1, k2];\n"
		   "  foreach (v = k in a-) {\n"
		   "  }\n"
		   "  foreach ([x, y] in arr[*, 5]) {\n"
		   "  }\n"
		   "}\n");
	CHECK_ERRORS("probe begin { foreach ([a-, b+] in x) {} }",
		     "t.stp:1:30: error: multiple sort directives\n"
		     "probe begin { foreach ([a-, b+] in x) {} }\n"
		     "                             ^\n");
	CHECK_ERRORS("probe begin { foreach (k in a @foo+) {} }",
		     "t.stp:1:31: error: expected statistical operation before "
		     "'@foo'\n"
		     "probe begin { foreach (k in a @foo+) {} }\n"
		     "                              ^\n");
	CHECK_ERRORS("probe begin { foreach (k in a @sum) {} }",
		     "t.stp:1:35: error: expected '+' or '-' before ')'\n"
		     "probe begin { foreach (k in a @sum) {} }\n"
		     "                                  ^\n");
}

UNIT_TEST(parse_try_delete_return_next)
{
	CHECK_DUMP("probe begin { try { a = 1 } catch (e) { b = e }"
		   " try { } catch { } delete a[1]; delete a; ; next }",
		   "probe begin {\n"
		   "  try {\n"
		   "    a = 1;\n"
		   "  } catch (e) {\n"
		   "    b = e;\n"
		   "  }\n"
		   "  try {\n"
		   "  } catch {\n"
		   "  }\n"
		   "  delete a[1];\n"
		   "  delete a;\n"
		   "  ;\n"
		   "  next;\n"
		   "}\n");
	CHECK_DUMP("function f() { return } function g() { return 1 + 2; }",
		   "function f () {\n"
		   "  return;\n"
		   "}\n"
		   "function g () {\n"
		   "  return 1 + 2;\n"
		   "}\n");
	CHECK_ERRORS("probe begin { return 1 }",
		     "t.stp:1:15: error: 'return' outside of a function\n"
		     "probe begin { return 1 }\n"
		     "              ^\n");
}

UNIT_TEST(parse_probe_points)
{
	struct parsed p = parse("probe syscall.{open,close}.return, "
				"a.{b,c}.d? if (x > 1) {}");
	struct ast_pps *pps;

	CHECK_INT(p.rc, 0);
	pps = &p.s->probes.v[0]->pps;
	CHECK_INT(pps->n, 4);
	CHECK_INT(pps->v[0]->ncomps, 3);
	CHECK_STR(pps->v[1]->comps[1].name, "close");
	CHECK(pps->v[2]->optional && !pps->v[2]->sufficient);
	CHECK(pps->v[2]->cond && pps->v[3]->cond);
	CHECK(pps->v[2]->cond != pps->v[3]->cond);	/* each its own copy */
	CHECK(!pps->v[0]->cond);
	done(&p);

	CHECK_DUMP("probe syscall.{open,close}.return, a.{b,c}.d? if (x) {}",
		   "probe syscall.open.return, syscall.close.return, "
		   "a.b.d? if (x), a.c.d? if (x) {\n}\n");
	CHECK_DUMP("probe {a,b}.{c,d} {}", "probe a.c, a.d, b.c, b.d {\n}\n");
	CHECK_DUMP("probe k.{f?, g!} {}", "probe k.f?, k.g! {\n}\n");
	CHECK_DUMP("probe timer.s(1).randomize(2), begin(-10), end, "
		   "kernel.trace(\"sched:sched_switch\"), "
		   "process(\"/bin/ls\").function(\"main\").return, "
		   "process(123).statement(\"f@x.c:10\"), syscall.open*, *.foo, "
		   "sys_*_at, perf.sw.cpu_clock.sample(1000000) {}",
		   "probe timer.s(1).randomize(2), begin(-10), end, "
		   "kernel.trace(\"sched:sched_switch\"), "
		   "process(\"/bin/ls\").function(\"main\").return, "
		   "process(123).statement(\"f@x.c:10\"), syscall.open*, *.foo, "
		   "sys_*_at, perf.sw.cpu_clock.sample(1000000) {\n}\n");
	CHECK_DUMP("probe process(\"a\" \"b\").function(\"f\") {}",
		   "probe process(\"ab\").function(\"f\") {\n}\n");
	/* the pieces of a wildcard name must touch */
	CHECK_ERRORS("probe syscall.open * {}",
		     "t.stp:1:20: error: expected ',' or '{' before '*'\n"
		     "probe syscall.open * {}\n"
		     "                   ^\n");
	CHECK_ERRORS("probe {a?, b}.c {}",
		     "t.stp:1:8: error: '?', '!' or condition must only be "
		     "specified in suffix\n"
		     "probe {a?, b}.c {}\n"
		     "       ^\n");
}

UNIT_TEST(parse_probe_aliases)
{
	struct parsed p = parse("probe a.b = c, d { x = 1 } probe e += f {}"
				" probe g = h = i {} probe j = k { y = 1 }, "
				"{ z = 2 }");
	struct ast_alias **a;

	CHECK_INT(p.rc, 0);
	CHECK_INT(p.s->aliases.n, 4);
	CHECK_INT(p.s->probes.n, 0);
	a = p.s->aliases.v;
	CHECK_INT(a[0]->names.n, 1);
	CHECK_INT(a[0]->names.v[0]->ncomps, 2);
	CHECK_INT(a[0]->pps.n, 2);
	CHECK(!a[0]->epilogue);
	CHECK(a[1]->epilogue);
	CHECK_INT(a[2]->names.n, 2);
	CHECK(a[3]->body2 != NULL);
	done(&p);

	CHECK_DUMP("probe a.b = c, d { x = 1 } probe e += f {}"
		   " probe j = k { y = 1 }, { z = 2 }",
		   "probe a.b = c, d {\n  x = 1;\n}\n"
		   "probe e += f {\n}\n"
		   "probe j = k {\n  y = 1;\n}, {\n  z = 2;\n}\n");
	CHECK_ERRORS("probe a? = b {}",
		     "t.stp:1:7: error: probe alias name cannot be optional nor "
		     "conditional\n"
		     "probe a? = b {}\n"
		     "      ^\n");
	CHECK_ERRORS("probe a += b {}, {}",
		     "t.stp:1:16: error: combined prologue and epilogue cannot "
		     "be defined with '+='\n"
		     "probe a += b {}, {}\n"
		     "               ^\n");
}

UNIT_TEST(parse_globals)
{
	struct parsed p = parse("global a, b = 5, s = \"x\", arr[100], w%[10],"
				" n = -3; private global p; private q");
	struct ast_global **g;

	CHECK_INT(p.rc, 0);
	CHECK_INT(p.s->globals.n, 8);
	g = p.s->globals.v;
	CHECK_INT(g[1]->type, AST_T_LONG);
	CHECK_INT(g[2]->type, AST_T_STRING);
	CHECK(g[3]->array && g[3]->maxsize == 100);
	CHECK(g[4]->wrap);
	CHECK_INT(g[5]->init->u.num, -3);
	CHECK(g[6]->private_ && g[7]->private_ && !g[0]->private_);
	done(&p);

	CHECK_DUMP("global a, b = 5, s = \"x\", arr[100], w%[10], n = -3;"
		   " private global p; private q",
		   "global a\nglobal b = 5\nglobal s = \"x\"\nglobal arr[100]\n"
		   "global w%[10]\nglobal n = -3\nprivate global p\n"
		   "private global q\n");
	CHECK_ERRORS("global a[10] = 5",
		     "t.stp:1:14: error: only scalar globals can be "
		     "initialized\n"
		     "global a[10] = 5\n"
		     "             ^\n");
	CHECK_ERRORS("global z[0]",
		     "t.stp:1:10: error: array size out of range\n"
		     "global z[0]\n"
		     "         ^\n");
	CHECK_ERRORS("global d\nglobal d",
		     "t.stp:2:8: error: duplicate global name 'd'\n"
		     "global d\n"
		     "       ^\n"
		     "t.stp:1:8: note: 'd' was first declared here\n"
		     "global d\n"
		     "       ^\n");
}

UNIT_TEST(parse_functions)
{
	struct parsed p = parse("function f:long (a, b:long, c:string) "
				"{ return a }");
	struct ast_func *f;

	CHECK_INT(p.rc, 0);
	f = p.s->funcs.v[0];
	CHECK_STR(f->name, "f");
	CHECK_INT(f->type, AST_T_LONG);
	CHECK_INT(f->nparams, 3);
	CHECK_INT(f->params[0].type, AST_T_UNKNOWN);
	CHECK_INT(f->params[1].type, AST_T_LONG);
	CHECK_INT(f->params[2].type, AST_T_STRING);
	CHECK_INT(f->params[2].loc.col, 29);
	done(&p);

	CHECK_DUMP("function f:long (a, b:long, c:string) { return a }"
		   " function string() { } private function p() : 3 { }",
		   "function f:long (a, b:long, c:string) {\n"
		   "  return a;\n"
		   "}\n"
		   "function string () {\n"
		   "}\n"
		   "private function p () : 3 {\n"
		   "}\n");
	CHECK_ERRORS("function f(a, a) { }",
		     "t.stp:1:15: error: duplicate parameter name 'a'\n"
		     "function f(a, a) { }\n"
		     "              ^\n");
	CHECK_ERRORS("function f:int () {}",
		     "t.stp:1:12: error: expected 'long' or 'string' before "
		     "'int'\n"
		     "function f:int () {}\n"
		     "           ^\n");
}

UNIT_TEST(parse_rejects_embedded_c_and_unsupported)
{
	CHECK_ERRORS("%{ #include <x> %}\n"
		     "function f() %{ return; %}\n"
		     "probe begin { %{ 1 %} ; x = %{ 2 %} }\n",
		     "t.stp:1:1: error: embedded C code is not supported: tapkit compiles no C (no guru mode)\n"
		     "%{ #include <x> %}\n"
		     "^\n"
		     "t.stp:2:14: error: embedded C code is not supported: tapkit compiles no C (no guru mode)\n"
		     "function f() %{ return; %}\n"
		     "             ^\n"
		     "t.stp:3:15: error: embedded C code is not supported: tapkit compiles no C (no guru mode)\n"
		     "probe begin { %{ 1 %} ; x = %{ 2 %} }\n"
		     "              ^\n"
		     "t.stp:3:29: error: embedded C code is not supported: tapkit compiles no C (no guru mode)\n"
		     "probe begin { %{ 1 %} ; x = %{ 2 %} }\n"
		     "                            ^\n");
	CHECK_ERRORS("probe end { y = @const(\"X\") + @kderef(4, p) }",
		     "t.stp:1:17: error: '@const' is not supported: it reads a C "
		     "constant through embedded C, which tapkit does not compile\n"
		     "probe end { y = @const(\"X\") + @kderef(4, p) }\n"
		     "                ^\n"
		     "t.stp:1:31: error: '@kderef' is not supported: an operator of "
		     "stap's own tapsets, for their embedded C\n"
		     "probe end { y = @const(\"X\") + @kderef(4, p) }\n"
		     "                              ^\n");
	/* @cast and @var parse into targets (their errors come later) */
	CHECK_DUMP("probe begin { x = @cast(p, \"task_struct\")->pid + "
		   "@var(\"jiffies@kernel/time.c\", \"kernel\")->a[1] }",
		   "probe begin {\n"
		   "  x = (@cast(p, \"task_struct\")->pid + "
		   "@var(\"jiffies@kernel/time.c\", \"kernel\")->a[1]);\n"
		   "}\n");
	CHECK_ERRORS("probe begin { x = @cast(p)->pid + @var(1) }",
		     "t.stp:1:26: error: expected ',' before ')'\n"
		     "probe begin { x = @cast(p)->pid + @var(1) }\n"
		     "                         ^\n");
	CHECK_ERRORS("probe begin { x = @nosuch(1) }",
		     "t.stp:1:19: error: unknown operator or macro '@nosuch'\n"
		     "probe begin { x = @nosuch(1) }\n"
		     "                  ^\n");
}

UNIT_TEST(parse_error_carets)
{
	CHECK_ERRORS("probe begin {\n  if (a b) c = 1\n}\n",
		     "t.stp:2:9: error: expected ')' before 'b'\n"
		     "  if (a b) c = 1\n"
		     "        ^\n");
	/* tabs in the line are repeated in the caret line */
	CHECK_ERRORS("probe begin {\n\tfor (i = 0 i < 3; i++) {}\n}\n",
		     "t.stp:2:13: error: expected ';' before 'i'\n"
		     "\tfor (i = 0 i < 3; i++) {}\n"
		     "\t           ^\n");
	CHECK_ERRORS("probe begin {\n  x = 1\n",
		     "t.stp:2:8: error: expected '}' at end of input\n"
		     "  x = 1\n"
		     "       ^\n");
	CHECK_ERRORS("probe begin { x = }",
		     "t.stp:1:19: error: expected expression before '}'\n"
		     "probe begin { x = }\n"
		     "                  ^\n");
	CHECK_ERRORS("probe begin { s = \"abc }\nprobe end {}",
		     "t.stp:1:19: error: unterminated string literal\n"
		     "probe begin { s = \"abc }\n"
		     "                  ^\n"
		     "t.stp:2:1: error: expected '}' before 'probe'\n"
		     "probe end {}\n"
		     "^\n");
	CHECK_ERRORS("probe begin { x = 1 } else",
		     "t.stp:1:23: error: expected 'probe', 'global', 'private' "
		     "or 'function' before 'else'\n"
		     "probe begin { x = 1 } else\n"
		     "                      ^\n");
	/* an error inside a macro expansion notes the invocation */
	CHECK_ERRORS("@define bad %( 1 + ) %)\nprobe begin { x = @bad }",
		     "t.stp:1:20: error: expected expression before ')'\n"
		     "@define bad %( 1 + ) %)\n"
		     "                   ^\n"
		     "t.stp:2:19: note: in expansion of the macro invoked here\n"
		     "probe begin { x = @bad }\n"
		     "                  ^\n");
}

UNIT_TEST(parse_reports_every_error)
{
	struct parsed p = parse("probe begin {\n"
				"  a = (1 + 2\n"
				"  b = 3\n"
				"}\n"
				"probe end { x = * 2 }\n"
				"function f( { }\n"
				"global 5\n"
				"probe timer.s(1) { if (x) else y = 1 }\n"
				"probe good { z = 1 }\n"
				"global ok\n");
	char *out = print_diags(p.d);

	CHECK_INT(p.rc, -EINVAL);
	CHECK_INT(diag_errors(p.d), 5);
	CHECK(strstr(out, "t.stp:3:3: error: expected ')' before 'b'\n"));
	CHECK(strstr(out, "t.stp:5:17: error: expected expression before "
		     "'*'\n"));
	CHECK(strstr(out, "t.stp:6:13: error: expected parameter name before "
		     "'{'\n"));
	CHECK(strstr(out, "t.stp:7:8: error: expected global variable name "
		     "before '5'\n"));
	CHECK(strstr(out, "t.stp:8:27: error: expected statement before "
		     "'else'\n"));
	/* declarations with errors are dropped, the others kept */
	CHECK_INT(p.s->probes.n, 1);
	CHECK_STR(p.s->probes.v[0]->pps.v[0]->comps[0].name, "good");
	CHECK_INT(p.s->globals.n, 1);
	CHECK_INT(p.s->funcs.n, 0);
	free(out);
	done(&p);

	/* several errors in one block, each statement recovered */
	CHECK_ERRORS("probe begin {\n"
		     "  x = (1 +\n"
		     "  ;\n"
		     "  y = ]\n"
		     "  if (a) { z = ) }\n"
		     "}\n",
		     "t.stp:3:3: error: expected expression before ';'\n"
		     "  ;\n"
		     "  ^\n"
		     "t.stp:4:7: error: expected expression before ']'\n"
		     "  y = ]\n"
		     "      ^\n"
		     "t.stp:5:16: error: expected expression before ')'\n"
		     "  if (a) { z = ) }\n"
		     "               ^\n");
}

/* An error in a statement head skips to its ')' and still reads the body. */
UNIT_TEST(parse_recovers_after_statement_heads)
{
	CHECK_ERRORS("probe begin {\n"
		     "  for (i = 0 i < f(3); i++) { x = }\n"
		     "  while (a b) y = ]\n"
		     "  foreach (k in) { }\n"
		     "  z = 1 +\n"
		     "}\n",
		     "t.stp:2:14: error: expected ';' before 'i'\n"
		     "  for (i = 0 i < f(3); i++) { x = }\n"
		     "             ^\n"
		     "t.stp:2:35: error: expected expression before '}'\n"
		     "  for (i = 0 i < f(3); i++) { x = }\n"
		     "                                  ^\n"
		     "t.stp:3:12: error: expected ')' before 'b'\n"
		     "  while (a b) y = ]\n"
		     "           ^\n"
		     "t.stp:3:19: error: expected expression before ']'\n"
		     "  while (a b) y = ]\n"
		     "                  ^\n"
		     "t.stp:4:16: error: expected array name or histogram before "
		     "')'\n"
		     "  foreach (k in) { }\n"
		     "               ^\n"
		     "t.stp:6:1: error: expected expression before '}'\n"
		     "}\n"
		     "^\n");
}

UNIT_TEST(parse_error_limit)
{
	struct diag *d = diag_new();
	struct ast_script *s = ast_script_new();
	char *src = xstrdup(""), *out;
	int i;

	for (i = 0; i < 80; i++) {
		char *t = xasprintf("%sprobe begin { x = }\n", src);

		free(src);
		src = t;
	}
	CHECK_INT(parse_text(s, d, "t.stp", src, strlen(src), NULL, 0),
		  -EINVAL);
	CHECK_INT(diag_errors(d), DIAG_DEFAULT_LIMIT);
	CHECK(diag_full(d));
	out = print_diags(d);
	CHECK(strstr(out, "t.stp:50:19: error: expected expression before "
		     "'}'\n") != NULL);
	CHECK(strstr(out, "t.stp:51:") == NULL);
	CHECK(strstr(out, "note: too many errors, stopped after 50\n") != NULL);
	free(out);
	free(src);
	ast_script_free(s);
	diag_free(d);
}

UNIT_TEST(parse_arguments_and_conditionals)
{
	static const char *const argv[] = { "10", "hello" };
	static const struct lex_config cfg = {
		.argv = argv, .argc = 2, .kernel_vr = "6.8.0-1-amd64",
		.arch = "aarch64",
	};
	static const struct lex_config cfg1 = { .argv = argv, .argc = 1 };
	char *out;

	out = dump_cfg("probe begin { x = $1 + 1; s = @2; n = $# }", &cfg);
	CHECK_STR(out, "probe begin {\n  x = (10 + 1);\n  s = \"hello\";\n"
		       "  n = 2;\n}\n");
	free(out);
	out = dump_cfg("probe begin { %( $# > 1 %? x = $2 %: x = 0 %) }", &cfg1);
	CHECK_STR(out, "probe begin {\n  x = 0;\n}\n");
	free(out);
	out = dump_cfg("probe %( arch == \"x86_64\" %? syscall.openat %: "
		       "%( kernel_v >= \"6.8\" %? syscall.open %) %) {}", &cfg);
	CHECK_STR(out, "probe syscall.open {\n}\n");
	free(out);
	out = dump_cfg("@define inc(v) %( @v += 1 %)\n"
		       "probe begin { @inc(a[$1]) }", &cfg);
	CHECK_STR(out, "probe begin {\n  a[10] += 1;\n}\n");
	free(out);
}

/* A script using every construct the parser knows. */
static const char big[] =
	"# every construct, for the round trip\n"
	"global counts, total = 0, name = \"tapkit\", sizes[1024], ring%[16]\n"
	"private global secret\n"
	"@define MAX %( 100 %)\n"
	"function add:long (a:long, b) { return a + b }\n"
	"function greet:string (who:string) { return \"hi \" . who }\n"
	"function noop () { return }\n"
	"private function prio () : 2 { }\n"
	"probe my.alias = kernel.function(\"do_sys_open\") { fname = \"x\" }\n"
	"probe my.epi += syscall.close { done = 1 }\n"
	"probe both = timer.ms(10) { pro = 1 }, { epi = 2 }\n"
	"probe begin, begin(-5), end(10)? {\n"
	"  x = y = 1; x += 1; x -= 1; x *= 2; x /= 2; x %= 3\n"
	"  x <<= 1; x >>= 1; x &= 7; x ^= 1; x |= 8; s .= \"t\"\n"
	"  st <<< x; st[1] <<< 2\n"
	"  z = a ? b : c ? d : e\n"
	"  z = a || b && c | d ^ e & f\n"
	"  z = [a, *] in counts && k in counts && [x + 1] in counts\n"
	"  z = a == b != c < d <= e > f >= g\n"
	"  z = s =~ \"^[a-z]+$\" || s !~ \"x\"\n"
	"  z = a << 2 >> 1 . \"s\" + 1 - 2 * 3 / 4 % 5\n"
	"  z = -a + +b - !c * ~d; z = ++i + i++ - --j - j--; z = - -a\n"
	"  n = -9223372036854775808; h = 0xff; o = 0755; m = @MAX\n"
	"  s = \"a\\tb\\nc\\\\d\\\"e\\001\" \"more\"\n"
	"  t = $var + $var->f->g[2] + $$vars$ . $$parms$$ . $p[0]$\n"
	"  t = &$p->f + @entry($p)->x + @defined($x) + @perf(\"cycles\")\n"
	"  c = @count(st) + @sum(st) + @min(st) + @max(st) + @avg(st)\n"
	"  c = @variance(st, 2) + @hist_log(st)[3]\n"
	"  print(@hist_log(st)); println(@hist_linear(st, -10, 100, 10))\n"
	"  printf(\"%d %s\\n\", x, s); s = sprintf(\"%x\", x); print(x)\n"
	"  println(); printd(\",\", a, b); printdln(\"|\", a, b, c)\n"
	"  s = sprint(x); s = sprintln(x); s = sprintd(\",\", a, b)\n"
	"  x = add(1, 2) + f(g(h()), counts[1, \"two\", x])\n"
	"  if (x) y = 1 else if (y) { z = 2 } else { }\n"
	"  if (a) if (b) c = 1; else c = 2\n"
	"  while (i < 10) { i++; if (i == 5) break; continue }\n"
	"  for (i = 0; i < 3; i++) x += i\n"
	"  for (;;) break\n"
	"  for (; i > 0;) --i\n"
	"  foreach (k in counts) next\n"
	"  foreach ([k1, k2-] in counts limit 10) delete counts[k1, k2]\n"
	"  foreach (v = [k1, k2] in counts+) { }\n"
	"  foreach (v- = k in counts) { }\n"
	"  foreach (k in st @sum-) { }\n"
	"  foreach ([a, b] in counts[*, 5]) { }\n"
	"  foreach (b in @hist_linear(st, 0, 10, 1)) { }\n"
	"  try { error(\"e\") } catch (msg) { println(msg) }\n"
	"  try { x = 1 } catch { }\n"
	"  delete counts; delete counts[*, 2]; delete total\n"
	"  ;\n"
	"}\n"
	"probe syscall.{open,openat}.return!, process(\"/bin/ls\")"
	".function(\"m*\").return if (total >= 0) { }\n"
	"probe timer.s(1).randomize(2), kernel.trace(\"sched:sched_switch\"), "
	"perf.sw.cpu_clock.sample(1000), *.foo?, sys_*_x { }\n";

UNIT_TEST(parse_print_round_trip)
{
	struct diag *d = diag_new();
	struct ast_script *s1 = ast_script_new(), *s2 = ast_script_new();
	char *p1, *p2;

	CHECK_INT(parse_text(s1, d, "t.stp", big, strlen(big), NULL, 0), 0);
	p1 = print_script(s1);
	CHECK_INT(s1->probes.n, 3);
	CHECK_INT(s1->aliases.n, 3);
	CHECK_INT(s1->funcs.n, 4);
	CHECK_INT(s1->globals.n, 6);
	CHECK_INT(parse_text(s2, d, "t.stp", p1, strlen(p1), NULL, 0), 0);
	p2 = print_script(s2);
	CHECK_STR(p2, p1);
	CHECK(strstr(p1, "  z = (a ? b : (c ? d : e));\n") != NULL);
	CHECK(strstr(p1, "  m = 100;\n") != NULL);
	CHECK(strlen(p1) > 2500);
	if (diag_count(d)) {
		char *e = print_diags(d);

		printf("# %s", e);
		free(e);
	}
	free(p1);
	free(p2);
	ast_script_free(s1);
	ast_script_free(s2);
	diag_free(d);
}

struct counts {
	int exprs, vars, stmts, skip_calls, abort_num;
	char order[64];
};

static int count_expr(struct ast_expr *e, void *ctx)
{
	struct counts *c = ctx;

	c->exprs++;
	if (e->kind == AST_E_VAR) {
		c->vars++;
		strcat(c->order, e->u.var.name);
	}
	if (c->abort_num && e->kind == AST_E_NUM)
		return -7;
	return c->skip_calls && e->kind == AST_E_CALL ? 1 : 0;
}

static int count_stmt(struct ast_stmt *s, void *ctx)
{
	(void)s;
	((struct counts *)ctx)->stmts++;
	return 0;
}

static int post_expr(struct ast_expr *e, void *ctx)
{
	struct counts *c = ctx;

	if (e->kind == AST_E_ASSIGN)
		strcat(c->order, "=");
	return 0;
}

UNIT_TEST(ast_walk_and_clone)
{
	struct parsed p = parse("global g = 3\n"
				"probe begin { x = a + f(b[1], $t->c) }");
	struct counts c = { 0 };
	struct ast_visitor v = { count_expr, post_expr, count_stmt, NULL, &c };
	struct ast_stmt *copy;
	char *a = NULL, *b = NULL;
	size_t alen, blen;
	FILE *m;

	CHECK_INT(p.rc, 0);
	CHECK_INT(ast_walk_script(p.s, &v), 0);
	/* g's 3; x, +, a, f(), b[1], b, 1, $t->c and the assignment */
	CHECK_INT(c.exprs, 10);
	CHECK_INT(c.vars, 3);
	CHECK_INT(c.stmts, 2);
	CHECK_STR(c.order, "xab=");	/* pre-order, post after children */

	memset(&c, 0, sizeof(c));
	c.skip_calls = 1;
	CHECK_INT(ast_walk_stmt(p.s->probes.v[0]->body, &v), 0);
	CHECK_INT(c.exprs, 5);
	CHECK_STR(c.order, "xa=");

	memset(&c, 0, sizeof(c));
	c.abort_num = 1;
	CHECK_INT(ast_walk_script(p.s, &v), -7);
	CHECK_INT(c.exprs, 1);

	copy = ast_stmt_clone(p.s->probes.v[0]->body);
	m = open_memstream(&a, &alen);
	ast_print_stmt(m, p.s->probes.v[0]->body, 0);
	fclose(m);
	m = open_memstream(&b, &blen);
	ast_print_stmt(m, copy, 0);
	fclose(m);
	CHECK_STR(b, a);
	CHECK(copy->u.block.v[0] != p.s->probes.v[0]->body->u.block.v[0]);
	ast_stmt_free(copy);
	free(a);
	free(b);
	done(&p);
}

/* Every node kind at least once (lang/walk.c must know them all). */
static const char all_kinds[] =
	"global a, s\n"
	"function f(x) { return x + 1 }\n"
	"probe begin {\n"
	"  ;\n"
	"  x = -1 + 2 * 3; y = \"a\" . \"b\"; a[1, \"k\"] = x++; --x\n"
	"  if (x == 1 && !(y =~ \"a.*\")) next; else x = x ? 1 : 2\n"
	"  while (x < 3) { x++; if (x) break; continue }\n"
	"  for (i = 0; i < 2; i++) s <<< i\n"
	"  foreach ([k1, k2] in a[*, \"k\"] limit 3) printf(\"%d %s\\n\", k1, k2)\n"
	"  z = @count(s) + @hist_log(s)[0] + ([1, \"k\"] in a) + @defined($v) + f(1)\n"
	"  print(@hist_linear(s, 0, 10, 1))\n"
	"  w = $var->m[1] + @entry($x) + @perf(\"cycles\")\n"
	"  delete a[*, \"k\"]\n"
	"  try { error(\"e\") } catch (m) { println(m) }\n"
	"}\n";

struct kinds {
	unsigned expr[AST_E_COUNT_];
	unsigned stmt[AST_S_COUNT_];
	unsigned post;
};

static int kind_expr(struct ast_expr *e, void *ctx)
{
	((struct kinds *)ctx)->expr[e->kind]++;
	return 0;
}

static int kind_expr_post(struct ast_expr *e, void *ctx)
{
	(void)e;
	((struct kinds *)ctx)->post++;
	return 0;
}

static int kind_stmt(struct ast_stmt *s, void *ctx)
{
	((struct kinds *)ctx)->stmt[s->kind]++;
	return 0;
}

UNIT_TEST(ast_walk_reaches_every_kind)
{
	struct parsed p = parse(all_kinds);
	struct kinds k = { 0 };
	struct ast_visitor v = { kind_expr, kind_expr_post, kind_stmt, NULL, &k };
	unsigned pre = 0;
	int i;

	/* counted by hand in all_kinds: a child a kind's walk forgets
	 * shows here (each HIST's operand is a VAR, say) */
	static const unsigned want_expr[AST_E_COUNT_] = {
		[AST_E_NUM] = 16, [AST_E_STR] = 9, [AST_E_VAR] = 31,
		[AST_E_INDEX] = 4, [AST_E_STAR] = 2, [AST_E_CALL] = 2,
		[AST_E_PRINT] = 3, [AST_E_UNARY] = 1, [AST_E_CREMENT] = 4,
		[AST_E_BINARY] = 9, [AST_E_CONCAT] = 1, [AST_E_COMPARE] = 3,
		[AST_E_LOGICAL] = 1, [AST_E_REGEX] = 1, [AST_E_ASSIGN] = 8,
		[AST_E_TERNARY] = 1, [AST_E_IN] = 1, [AST_E_TARGET] = 3,
		[AST_E_DEFINED] = 1, [AST_E_ENTRY] = 1, [AST_E_PERF] = 1,
		[AST_E_STAT] = 1, [AST_E_HIST] = 2,
	};
	static const unsigned want_stmt[AST_S_COUNT_] = {
		[AST_S_BLOCK] = 5, [AST_S_NULL] = 1, [AST_S_EXPR] = 13,
		[AST_S_IF] = 2, [AST_S_WHILE] = 1, [AST_S_FOR] = 1,
		[AST_S_FOREACH] = 1, [AST_S_BREAK] = 1, [AST_S_CONTINUE] = 1,
		[AST_S_NEXT] = 1, [AST_S_RETURN] = 1, [AST_S_DELETE] = 1,
		[AST_S_TRY] = 1,
	};

	CHECK_INT(p.rc, 0);
	CHECK_INT(ast_walk_script(p.s, &v), 0);
	for (i = 0; i < AST_E_COUNT_; i++) {
		if (k.expr[i] != want_expr[i])
			printf("#   %s reached %u times, expected %u\n",
			       ast_ekind_str((enum ast_ekind)i), k.expr[i],
			       want_expr[i]);
		CHECK(want_expr[i] > 0 && k.expr[i] == want_expr[i]);
		pre += k.expr[i];
	}
	CHECK_INT(k.post, pre);
	for (i = 0; i < AST_S_COUNT_; i++) {
		if (k.stmt[i] != want_stmt[i])
			printf("#   statement kind %d reached %u times, "
			       "expected %u\n", i, k.stmt[i], want_stmt[i]);
		CHECK(want_stmt[i] > 0 && k.stmt[i] == want_stmt[i]);
	}
	done(&p);
}

/* A slot handed by ast_expr_children() replaces the child in place. */
static int zero_child(struct ast_expr **slot, void *ctx)
{
	(*(int *)ctx)++;
	ast_expr_free(*slot);
	*slot = ast_num((struct diag_loc){ 0 }, 0);
	return 0;
}

UNIT_TEST(ast_children_slots)
{
	struct parsed p = parse("probe begin { x = a ? f(b, c) : d[e] }");
	struct ast_expr *e;
	char *out = NULL;
	size_t len = 0;
	FILE *m;
	int n = 0;

	CHECK_INT(p.rc, 0);
	e = first_expr(&p)->u.bin.right;	/* the ternary */
	CHECK_INT(ast_expr_children(e, zero_child, &n), 0);
	CHECK_INT(n, 3);
	m = open_memstream(&out, &len);
	ast_print_expr(m, e);
	fclose(m);
	CHECK_STR(out, "0 ? 0 : 0");
	free(out);
	done(&p);
}

/* Deep copies of every kind print the same and share nothing with the
 * original: they are printed after it is freed. */
UNIT_TEST(ast_clone_every_kind)
{
	struct parsed p = parse(all_kinds);
	struct ast_stmt **body, **fbody, *orig;
	char *a, *b;

	CHECK_INT(p.rc, 0);
	a = print_script(p.s);
	body = &p.s->probes.v[0]->body;
	fbody = &p.s->funcs.v[0]->body;
	orig = *body;
	*body = ast_stmt_clone(orig);
	ast_stmt_free(orig);
	orig = *fbody;
	*fbody = ast_stmt_clone(orig);
	ast_stmt_free(orig);
	b = print_script(p.s);
	CHECK_STR(b, a);
	free(a);
	free(b);
	done(&p);
}

UNIT_TEST(ast_locations)
{
	struct parsed p = parse("probe begin {\n  x = a / b\n  y = s[k] . \"t\"\n}");
	struct ast_expr *e, *div;
	char buf[64];

	CHECK_INT(p.rc, 0);
	e = first_expr(&p);
	CHECK_INT(e->kind, AST_E_ASSIGN);
	CHECK_INT(e->op, AST_OP_ASSIGN);
	CHECK_INT(e->loc.line, 2);
	CHECK_INT(e->loc.col, 3);
	CHECK_INT(e->op_loc.col, 5);
	div = e->u.bin.right;
	CHECK_INT(div->kind, AST_E_BINARY);
	CHECK_INT(div->op, AST_OP_DIV);
	CHECK_INT(div->loc.col, 7);
	CHECK_INT(div->op_loc.col, 9);
	CHECK_STR(ast_op_str(div->op), "/");
	CHECK_STR(diag_loc_str(div->op_loc, buf, sizeof(buf)), "t.stp:2:9");
	CHECK_INT(div->type, AST_T_UNKNOWN);
	CHECK(div->sym == NULL);
	e = p.s->probes.v[0]->body->u.block.v[1]->u.expr->u.bin.right;
	CHECK_INT(e->kind, AST_E_CONCAT);
	CHECK_INT(e->op_loc.line, 3);
	CHECK_INT(e->op_loc.col, 12);
	CHECK_INT(e->u.bin.left->kind, AST_E_INDEX);
	CHECK_INT(p.s->probes.v[0]->loc.col, 1);
	CHECK_INT(p.s->probes.v[0]->pps.v[0]->loc.col, 7);
	done(&p);
}

UNIT_TEST(parse_several_files_into_one_script)
{
	struct diag *d = diag_new();
	struct ast_script *s = ast_script_new();
	static const char user[] = "@define m %( 1 %)\nprobe begin { f(@m) }";
	static const char lib[] = "function f(x) { }\nprobe lib.a = begin { }\n"
				  "probe end { y = @m }";
	char *out;

	CHECK_INT(parse_text(s, d, "user.stp", user, strlen(user), NULL, 0), 0);
	/* macros are per file: @m is unknown in the tapset */
	CHECK_INT(parse_text(s, d, "/usr/share/t/lib.stp", lib, strlen(lib),
			     NULL, PARSE_LIBRARY), -EINVAL);
	CHECK_INT(s->files.n, 2);
	CHECK(s->files.v[1]->library && !s->files.v[0]->library);
	CHECK_INT(s->funcs.n, 1);
	CHECK(s->funcs.v[0]->library);
	CHECK_INT(s->aliases.n, 1);
	CHECK(s->aliases.v[0]->library);
	CHECK_INT(s->probes.n, 1);
	CHECK(!s->probes.v[0]->library);
	CHECK_STR(s->funcs.v[0]->loc.file->name, "/usr/share/t/lib.stp");
	out = print_diags(d);
	CHECK_STR(out, "/usr/share/t/lib.stp:3:17: error: unknown operator or "
		       "macro '@m'\n"
		       "probe end { y = @m }\n"
		       "                ^\n");
	free(out);
	/* -p1 shows the user's files only */
	out = print_script(s);
	CHECK_STR(out, "# parse tree dump\n# file user.stp\n"
		       "probe begin {\n  f(1);\n}\n");
	free(out);
	ast_script_free(s);
	diag_free(d);
}

UNIT_TEST(parse_file_io)
{
	struct diag *d = diag_new();
	struct ast_script *s = ast_script_new();
	char path[] = "/tmp/tapkit-test-parse-XXXXXX", *out;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK_INT(write(fd, "probe begin { exit() }\n", 23), 23);
	close(fd);
	CHECK_INT(parse_file(s, d, path, NULL, 0), 0);
	CHECK_INT(s->probes.n, 1);
	CHECK_STR(s->probes.v[0]->loc.file->name, path);
	unlink(path);

	CHECK_INT(parse_file(s, d, "/nonexistent/x.stp", NULL, 0), -ENOENT);
	out = print_diags(d);
	CHECK_STR(out, "error: cannot read '/nonexistent/x.stp': No such file "
		       "or directory\n");
	free(out);
	ast_script_free(s);
	diag_free(d);
}

UNIT_MAIN()
