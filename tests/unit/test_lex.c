// SPDX-License-Identifier: GPL-2.0
/*
 * The probe-language lexer and preprocessor: tokens, literals, comments,
 * locations, script arguments, macros, %( %) conditionals, and the exact
 * diagnostics (with line:col and caret) for the lexical errors.
 *
 * Tokens are rendered one per word: operators and keywords as spelled,
 * identifiers and @words as written, numbers as "#value", strings quoted
 * (escapes re-encoded), embedded C as %{...%}, junk as ?text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/diag.h"
#include "lang/lex.h"
#include "lang/pp.h"
#include "tests/unit/unit.h"

static void render(FILE *m, const struct token *t)
{
	char *q;

	switch (t->kind) {
	case TOK_NUMBER:
		fprintf(m, "#%" PRId64, (int64_t)t->num);
		break;
	case TOK_STRING:
		q = lex_quote(t->text, t->len);
		fprintf(m, "\"%s\"", q);
		free(q);
		break;
	case TOK_EMBEDDED:
		fprintf(m, "%%{%s%%}", t->text);
		break;
	case TOK_ERROR:
		fprintf(m, "?%s", t->text);
		break;
	default:
		fputs(t->text, m);
		break;
	}
}

static char *print_diags(struct diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	diag_print(d, m);
	fclose(m);
	return buf;
}

/* All tokens of @src as one string; the diagnostics into *diags. */
static char *lex_str(const char *src, const struct lex_config *cfg,
		     char **diags)
{
	struct diag *d = diag_new();
	const struct diag_file *f = diag_add_file(d, "t.stp", src, strlen(src));
	struct pp *pp = pp_new(d, f, cfg);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	struct token t;
	bool first = true;

	for (;;) {
		pp_next(pp, &t);
		if (t.kind == TOK_EOF) {
			lex_token_release(&t);
			break;
		}
		if (!first)
			fputc(' ', m);
		first = false;
		render(m, &t);
		lex_token_release(&t);
	}
	fclose(m);
	*diags = print_diags(d);
	pp_free(pp);
	diag_free(d);
	return out;
}

/* Lex @src with @cfg: tokens must be @toks and diagnostics @errs. */
#define CHECK_LEX(src, cfg, toks, errs) do {				\
	char *e_, *t_ = lex_str((src), (cfg), &e_);			\
	CHECK_STR(t_, (toks));						\
	CHECK_STR(e_, (errs));						\
	free(t_);							\
	free(e_);							\
} while (0)

#define CHECK_TOKS(src, toks) CHECK_LEX((src), NULL, (toks), "")

/* The tokens of @src, each with its kind, location and space flag. */
static size_t lex_tokens(const char *src, struct token *out, size_t max)
{
	struct diag *d = diag_new();
	const struct diag_file *f = diag_add_file(d, "t.stp", src, strlen(src));
	struct pp *pp = pp_new(d, f, NULL);
	size_t n = 0;
	struct token t;

	for (;;) {
		pp_next(pp, &t);
		if (t.kind == TOK_EOF || n == max) {
			if (n < max)
				out[n++] = t;	/* keep the EOF too */
			else
				lex_token_release(&t);
			break;
		}
		out[n++] = t;
	}
	pp_free(pp);
	diag_free(d);	/* the locations' file is gone: compare line/col */
	return n;
}

static void release_all(struct token *t, size_t n)
{
	while (n--)
		lex_token_release(&t[n]);
}

UNIT_TEST(lex_operators_longest_match)
{
	CHECK_TOKS("<<< <<= >>= << >> <= >= == != =~ !~ -> && || ++ --",
		   "<<< <<= >>= << >> <= >= == != =~ !~ -> && || ++ --");
	CHECK_TOKS("+= -= *= /= %= &= ^= |= .=",
		   "+= -= *= /= %= &= ^= |= .=");
	CHECK_TOKS("( ) [ ] { } , ; : ? . + - * / % = < > ! ~ & | ^",
		   "( ) [ ] { } , ; : ? . + - * / % = < > ! ~ & | ^");
	/* no whitespace: the longest operator wins, left to right */
	CHECK_TOKS("a<<<=b", "a <<< = b");
	CHECK_TOKS("x+++y", "x ++ + y");
	CHECK_TOKS("a-->b", "a -- > b");
	CHECK_TOKS("!~x", "!~ x");
	CHECK_TOKS("s.=t", "s .= t");
}

UNIT_TEST(lex_keywords_identifiers_atwords)
{
	static const char *const kw[] = {
		"probe", "global", "private", "function", "if", "else", "for",
		"foreach", "in", "limit", "return", "delete", "while", "break",
		"continue", "next", "string", "long", "try", "catch",
	};
	struct token t[40];
	size_t i, n;

	n = lex_tokens("probe global private function if else for foreach in "
		       "limit return delete while break continue next string "
		       "long try catch", t, 40);
	CHECK_INT(n, 21);
	for (i = 0; i < 20 && i < n; i++) {
		CHECK(t[i].kind >= TOK_PROBE && t[i].kind <= TOK_CATCH);
		CHECK_STR(lex_kind_str(t[i].kind), kw[i]);
	}
	CHECK_INT(t[n - 1].kind, TOK_EOF);
	release_all(t, n);

	n = lex_tokens("probes _x a1_b $var $$vars $x$ $ @count @my_macro "
		       "nextval", t, 40);
	CHECK_INT(n, 11);
	CHECK_INT(t[0].kind, TOK_IDENT);
	CHECK_STR(t[0].text, "probes");
	CHECK_INT(t[1].kind, TOK_IDENT);
	CHECK_INT(t[2].kind, TOK_IDENT);
	CHECK_STR(t[3].text, "$var");
	CHECK_INT(t[3].kind, TOK_IDENT);
	CHECK_STR(t[4].text, "$$vars");
	CHECK_STR(t[5].text, "$x$");
	CHECK_STR(t[6].text, "$");
	CHECK_INT(t[7].kind, TOK_ATWORD);
	CHECK_STR(t[7].text, "@count");
	CHECK_INT(t[8].kind, TOK_ATWORD);
	CHECK_STR(t[8].text, "@my_macro");
	CHECK_INT(t[9].kind, TOK_IDENT);
	release_all(t, n);
}

UNIT_TEST(lex_integer_literals)
{
	CHECK_TOKS("0 42 0x10 0XfF 010 0777", "#0 #42 #16 #255 #8 #511");
	CHECK_TOKS("9223372036854775807", "#9223372036854775807");
	/* stap takes up to 2^64-1; above INT64_MAX the value wraps */
	CHECK_TOKS("9223372036854775808", "#-9223372036854775808");
	CHECK_TOKS("18446744073709551615 0xffffffffffffffff", "#-1 #-1");
	/* a minus is an operator: the parser folds it */
	CHECK_TOKS("-1", "- #1");
	CHECK_TOKS("1-1", "#1 - #1");
}

UNIT_TEST(lex_integer_errors)
{
	CHECK_LEX("x = 08", NULL, "x = ?08",
		  "t.stp:1:5: error: invalid number '08'\n"
		  "x = 08\n"
		  "    ^\n");
	CHECK_LEX("0x 12ab", NULL, "?0x ?12ab",
		  "t.stp:1:1: error: invalid number '0x'\n"
		  "0x 12ab\n"
		  "^\n"
		  "t.stp:1:4: error: invalid number '12ab'\n"
		  "0x 12ab\n"
		  "   ^\n");
	CHECK_LEX("18446744073709551616", NULL, "?18446744073709551616",
		  "t.stp:1:1: error: number '18446744073709551616' out of "
		  "range\n"
		  "18446744073709551616\n"
		  "^\n");
}

UNIT_TEST(lex_string_escapes)
{
	struct token t[4];
	size_t n;

	CHECK_TOKS("\"a\\n\\t\\r\\\\\\\"b\"", "\"a\\n\\t\\r\\\\\\\"b\"");
	CHECK_TOKS("\"\\a\\b\\f\\v\"", "\"\\a\\b\\f\\v\"");
	/* octal: up to three digits; hex: up to two */
	CHECK_TOKS("\"\\101\\1012\\x41\\x4a1\"", "\"AA2AJ1\"");
	/* an unknown escape is the character itself, as in stap */
	CHECK_TOKS("\"\\q\\'\\%\"", "\"q'%\"");
	CHECK_TOKS("\"\"", "\"\"");
	/* adjacent literals are two tokens; the parser joins them */
	CHECK_TOKS("\"a\" \"b\"", "\"a\" \"b\"");

	/* a NUL inside a string is kept, with its length */
	n = lex_tokens("\"a\\0b\"", t, 4);
	CHECK_INT(n, 2);
	CHECK_INT(t[0].kind, TOK_STRING);
	CHECK_INT(t[0].len, 3);
	CHECK(!memcmp(t[0].text, "a\0b", 3));
	release_all(t, n);
}

UNIT_TEST(lex_unterminated_string_and_comment)
{
	CHECK_LEX("x = \"abc\ny = 1", NULL, "x = \"abc\" y = #1",
		  "t.stp:1:5: error: unterminated string literal\n"
		  "x = \"abc\n"
		  "    ^\n");
	CHECK_LEX("a /* one\ntwo", NULL, "a",
		  "t.stp:1:3: error: unterminated comment\n"
		  "a /* one\n"
		  "  ^\n");
	CHECK_LEX("probe %{ int x;", NULL, "probe ?%{",
		  "t.stp:1:7: error: unterminated embedded C code, missing "
		  "'%}'\n"
		  "probe %{ int x;\n"
		  "      ^\n");
}

UNIT_TEST(lex_comments)
{
	CHECK_TOKS("a # shell\nb // c++\nc /* c\n * multi */ d",
		   "a b c d");
	CHECK_TOKS("a#b\nc", "a c");
	CHECK_TOKS("/**/x/***/y", "x y");
	CHECK_TOKS("x = 1 / 2", "x = #1 / #2");
}

UNIT_TEST(lex_embedded_and_junk)
{
	CHECK_TOKS("%{ int x; %} y", "%{ int x; %} y");
	CHECK_LEX("a ` b", NULL, "a ?` b",
		  "t.stp:1:3: error: stray '`' in program\n"
		  "a ` b\n"
		  "  ^\n");
	CHECK_LEX("a \001", NULL, "a ?\001",
		  "t.stp:1:3: error: stray '\\001' in program\n"
		  "a \001\n"
		  "  ^\n");
}

UNIT_TEST(lex_locations_and_spacing)
{
	struct token t[16];
	size_t n;

	/* columns count bytes: a tab is one column */
	n = lex_tokens("probe\tbegin {\n\tx = \"s\" /* c */ +\n  y.*}", t, 16);
	CHECK_INT(n, 12);
	CHECK_INT(t[0].loc.line, 1);
	CHECK_INT(t[0].loc.col, 1);
	CHECK_INT(t[1].loc.col, 7);		/* begin, after the tab */
	CHECK_INT(t[2].loc.col, 13);		/* { */
	CHECK_INT(t[3].loc.line, 2);		/* x */
	CHECK_INT(t[3].loc.col, 2);
	CHECK_INT(t[5].loc.col, 6);		/* "s" */
	CHECK_INT(t[6].loc.col, 18);		/* + after the comment */
	CHECK(t[6].space_before);
	CHECK_INT(t[7].loc.line, 3);		/* y */
	CHECK_INT(t[7].loc.col, 3);
	CHECK(!t[8].space_before);		/* . */
	CHECK_INT(t[9].kind, TOK_STAR);
	CHECK(!t[9].space_before);		/* y.* touch */
	CHECK(!t[10].space_before);
	/* EOF is located just past the last token */
	CHECK_INT(t[11].kind, TOK_EOF);
	CHECK_INT(t[11].loc.line, 3);
	CHECK_INT(t[11].loc.col, 7);
	release_all(t, n);
}

static const char *const args2[] = { "5", "x.y" };
static const struct lex_config cfg2 = { .argv = args2, .argc = 2 };

UNIT_TEST(lex_script_arguments)
{
	static const char *const qargs[] = { "say \"hi\"\\", "$2", "" };
	static const struct lex_config qcfg = { .argv = qargs, .argc = 3 };
	struct diag *d = diag_new();
	const struct diag_file *f;
	struct lexer *lx;
	struct token t;

	/* $N is pasted as text, @N as a string literal */
	CHECK_LEX("x = $1 + $2", &cfg2, "x = #5 + x . y", "");
	CHECK_LEX("@1 . @2", &cfg2, "\"5\" . \"x.y\"", "");
	CHECK_LEX("$# @#", &cfg2, "#2 \"2\"", "");
	/* pasting is by characters: $1 joins what follows */
	CHECK_LEX("$10", &cfg2, "?$10",
		  "t.stp:1:1: error: command line argument index 10 out of "
		  "range [1-2]\n"
		  "$10\n"
		  "^\n");
	CHECK_LEX("@1", &qcfg, "\"say \\\"hi\\\"\\\\\"", "");
	CHECK_LEX("x=@3.$3;", &qcfg, "x = \"\" . ;", "");
	/* no substitution inside strings, nor of $name */
	CHECK_LEX("\"$1\" $name", &cfg2, "\"$1\" $name", "");

	/* tokens from an argument are located at the $N */
	f = diag_add_file(d, "t.stp", "  $2", 4);
	lx = lex_new(d, f, &cfg2);
	lex_next(lx, &t);
	CHECK_STR(t.text, "x");
	CHECK_INT(t.loc.col, 3);
	lex_token_release(&t);
	lex_next(lx, &t);
	CHECK_STR(t.text, ".");
	CHECK_INT(t.loc.col, 3);
	lex_token_release(&t);
	lex_free(lx);
	diag_free(d);
}

UNIT_TEST(lex_script_argument_errors)
{
	static const char *const nested[] = { "$2", "7" };
	static const struct lex_config ncfg = { .argv = nested, .argc = 2 };

	CHECK_LEX("a = $3", &cfg2, "a = ?$3",
		  "t.stp:1:5: error: command line argument index 3 out of "
		  "range [1-2]\n"
		  "a = $3\n"
		  "    ^\n");
	CHECK_LEX("\t@0", &cfg2, "?@0",
		  "t.stp:1:2: error: command line argument index 0 out of "
		  "range [1-2]\n"
		  "\t@0\n"
		  "\t^\n");
	CHECK_LEX("$1", NULL, "?$1",
		  "t.stp:1:1: error: command line argument index 1 out of "
		  "range (no arguments given)\n"
		  "$1\n"
		  "^\n");
	/* an argument's text is not substituted again */
	CHECK_LEX("x $1", &ncfg, "x ?$2",
		  "t.stp:1:3: error: invalid nested substitution of command "
		  "line arguments\n"
		  "x $1\n"
		  "  ^\n");
}

/* The lexer alone: macros and conditionals are the preprocessor's. */
UNIT_TEST(lex_raw_tokens_leave_preprocessing)
{
	const char *src = "@define m %( 1 %) %( arch == \"x\" %? @m %: 2 %)";
	struct diag *d = diag_new();
	const struct diag_file *f = diag_add_file(d, "t.stp", src, strlen(src));
	struct lexer *lx = lex_new(d, f, NULL);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	struct token t;

	for (;;) {
		lex_next(lx, &t);
		if (t.kind == TOK_EOF) {
			lex_token_release(&t);
			break;
		}
		render(m, &t);
		fputc(' ', m);
		lex_token_release(&t);
	}
	fclose(m);
	CHECK_STR(out, "@define m %( #1 %) %( arch == \"x\" %? @m %: #2 %) ");
	CHECK_INT(diag_errors(d), 0);
	free(out);
	lex_free(lx);

	/* the same text through the preprocessor */
	CHECK_TOKS(src, "#2");
	diag_free(d);
}

/* A skipped branch is lexed quietly; outside one, junk is reported. */
UNIT_TEST(lex_quiet_mode)
{
	struct diag *d = diag_new();
	const struct diag_file *f = diag_add_file(d, "t.stp", "` `", 3);
	struct lexer *lx = lex_new(d, f, NULL);
	struct token t;

	lex_set_quiet(lx, true);
	lex_next(lx, &t);
	CHECK_INT(t.kind, TOK_ERROR);
	lex_token_release(&t);
	CHECK_INT(diag_errors(d), 0);
	lex_set_quiet(lx, false);
	lex_next(lx, &t);
	CHECK_INT(t.kind, TOK_ERROR);
	lex_token_release(&t);
	CHECK_INT(diag_errors(d), 1);
	lex_free(lx);
	diag_free(d);
}

UNIT_TEST(lex_macros)
{
	CHECK_TOKS("@define one %( 1 %) x = @one + @one", "x = #1 + #1");
	CHECK_TOKS("@define add(a, b) %( (@a + @b) %) @add(1, y[2, 3])",
		   "( #1 + y [ #2 , #3 ] )");
	/* an argument is expanded where it is used, in the caller's scope */
	CHECK_TOKS("@define f(x) %( [@x] %) @define g(y) %( @f(@y . @y) %)"
		   " @g(z)", "[ z . z ]");
	/* a parameterless macro leaves a following ( alone */
	CHECK_TOKS("@define fn %( exit %) @fn()", "exit ( )");
	/* macros can hold conditionals, evaluated where expanded */
	CHECK_TOKS("@define c %( %( 1 == 1 %? yes %: no %) %) @c", "yes");
	/* unknown @words pass through to the parser */
	CHECK_TOKS("@count(x) @cast", "@count ( x ) @cast");
	/* empty body, empty argument */
	CHECK_TOKS("@define e %( %) @define id(a) %( <@a> %) a @e b @id()",
		   "a b < >");
}

UNIT_TEST(lex_macro_errors)
{
	/* runaway recursion: one "1 +" per level, then the error token */
	{
		char *want = xstrdup("x =");
		int i;

		for (i = 0; i < PP_MACRO_DEPTH; i++) {
			char *w = xasprintf("%s #1 +", want);

			free(want);
			want = w;
		}
		want = xrealloc(want, strlen(want) + 8);
		strcat(want, " ?@r ;");
		CHECK_LEX("@define r %( 1 + @r %)\nx = @r;", NULL, want,
			  "t.stp:2:5: error: macro expansion nested deeper than "
			  "100 (recursive macro '@r'?)\n"
			  "x = @r;\n"
			  "    ^\n");
		free(want);
	}
	CHECK_LEX("@define f(a) %( @a %)\n@f(1, 2) @f;", NULL, "?@f ?@f ;",
		  "t.stp:2:5: error: too many arguments for macro '@f' "
		  "(expected 1)\n"
		  "@f(1, 2) @f;\n"
		  "    ^\n"
		  "t.stp:2:10: error: expected '(' in invocation of macro '@f' "
		  "taking 1 parameter\n"
		  "@f(1, 2) @f;\n"
		  "         ^\n");
	CHECK_LEX("@define g(a, b) %( @a @b %) @g(1)", NULL, "?@g",
		  "t.stp:1:33: error: too few arguments for macro '@g' "
		  "(expected 2)\n"
		  "@define g(a, b) %( @a @b %) @g(1)\n"
		  "                                ^\n");
	CHECK_LEX("@define m %( 1 %)\n@define m %( 2 %) @m", NULL, "#1",
		  "t.stp:2:9: error: redefinition of macro '@m'\n"
		  "@define m %( 2 %) @m\n"
		  "        ^\n"
		  "t.stp:1:9: note: '@m' was first defined here\n"
		  "@define m %( 1 %)\n"
		  "        ^\n");
	CHECK_LEX("@define u %( 1", NULL, "",
		  "t.stp:1:9: error: unterminated definition of macro '@u', "
		  "missing '%)'\n"
		  "@define u %( 1\n"
		  "        ^\n");
	/* the rest of the body then reads as a malformed conditional */
	CHECK_LEX("@define a %( @define b %( 1 %) %) @a x", NULL, "b x",
		  "t.stp:1:14: error: '@define' is not allowed inside a macro "
		  "body\n"
		  "@define a %( @define b %( 1 %) %) @a x\n"
		  "             ^\n"
		  "t.stp:1:35: note: in expansion of the macro invoked here\n"
		  "@define a %( @define b %( 1 %) %) @a x\n"
		  "                                  ^\n"
		  "t.stp:1:29: error: expected comparison operator after '1'\n"
		  "@define a %( @define b %( 1 %) %) @a x\n"
		  "                            ^\n"
		  "t.stp:1:35: note: in expansion of the macro invoked here\n"
		  "@define a %( @define b %( 1 %) %) @a x\n"
		  "                                  ^\n");
	CHECK_LEX("@define count %( 3 %) @count", NULL, "#3",
		  "t.stp:1:9: warning: macro '@count' hides the built-in "
		  "operator of that name\n"
		  "@define count %( 3 %) @count\n"
		  "        ^\n");
}

/* A kernel configuration for the CONFIG_ tests. */
static const char *kconfig(void *ctx, const char *name, const char **err)
{
	(void)ctx;
	if (!strcmp(name, "CONFIG_UNREADABLE")) {
		*err = "no configuration";
		return NULL;
	}
	if (!strcmp(name, "CONFIG_Y"))
		return "y";
	if (!strcmp(name, "CONFIG_HZ"))
		return "250";
	if (!strcmp(name, "CONFIG_NR"))
		return "0x40";
	return NULL;
}

static const struct lex_config kcfg = {
	.argv = args2, .argc = 2,
	.kernel_vr = "6.1.0-18-amd64", .arch = "x86_64",
	.systemtap_v = "4.9", .runtime = "kernel",
	.kconfig = kconfig,
};

#define CHECK_PP(src, toks) CHECK_LEX((src), &kcfg, (toks), "")

UNIT_TEST(lex_cond_versions)
{
	/* kernel_v is the release up to its '-' */
	CHECK_PP("%( kernel_v == \"6.1.0\" %? a %: b %)", "a");
	/* versions compare as versions, not as strings */
	CHECK_PP("%( kernel_v >= \"6.1\" %? a %: b %)", "a");
	CHECK_PP("%( kernel_v < \"6.18\" %? a %: b %)", "a");
	CHECK_PP("%( kernel_v > \"6.10\" %? a %: b %)", "b");
	CHECK_PP("%( kernel_v <= \"5.19.9\" %? a %: b %)", "b");
	CHECK_PP("%( kernel_v != \"6.1.0\" %? a %: b %)", "b");
	CHECK_PP("%( kernel_vr == \"6.1.0-18-amd64\" %? a %: b %)", "a");
	/* globs on == and != */
	CHECK_PP("%( kernel_vr == \"6.1.*\" %? a %: b %)", "a");
	CHECK_PP("%( kernel_vr != \"*-amd64\" %? a %: b %)", "b");
	CHECK_PP("%( systemtap_v >= \"4.0\" %? a %: b %)", "a");
	CHECK_PP("%( systemtap_v < \"4.10\" %? a %: b %)", "a");
}

UNIT_TEST(lex_cond_arch_runtime_args_config)
{
	CHECK_PP("%( arch == \"x86_64\" %? a %: b %)", "a");
	CHECK_PP("%( arch == \"i?86\" %? a %: b %)", "b");
	CHECK_PP("%( arch != \"arm*\" %? a %: b %)", "a");
	CHECK_PP("%( arch == \"x86_*\" %? a %: b %)", "a");
	CHECK_PP("%( runtime == \"kernel\" %? a %: b %)", "a");
	CHECK_PP("%( runtime == \"dyninst\" %? a %: b %)", "b");
	CHECK_PP("%( systemtap_privilege == \"stapusr\" %? a %: b %)", "a");
	CHECK_PP("%( guru_mode == 0 %? a %: b %)", "a");
	/* $# and @# are the argument count, as a number and a string */
	CHECK_PP("%( $# == 2 %? a %: b %)", "a");
	CHECK_PP("%( $# > 2 %? a %: b %)", "b");
	CHECK_PP("%( @# == \"2\" %? a %: b %)", "a");
	CHECK_PP("%( 3 >= -1 %? a %: b %)", "a");
	CHECK_PP("%( \"abc\" < \"abd\" %? a %: b %)", "a");
	/* CONFIG_: unset is "", numbers compare as numbers */
	CHECK_PP("%( CONFIG_Y == \"y\" %? a %: b %)", "a");
	CHECK_PP("%( CONFIG_Y == \"[ym]\" %? a %: b %)", "a");
	CHECK_PP("%( CONFIG_UNSET == \"y\" %? a %: b %)", "b");
	CHECK_PP("%( CONFIG_UNSET == \"\" %? a %: b %)", "a");
	CHECK_PP("%( CONFIG_HZ >= 100 %? a %: b %)", "a");
	CHECK_PP("%( CONFIG_NR == 64 %? a %: b %)", "a");
	CHECK_PP("%( CONFIG_HZ < CONFIG_NR %? a %: b %)", "b");
	/* with no kconfig callback every CONFIG_ is unset */
	CHECK_LEX("%( CONFIG_Y == \"\" %? a %: b %)", NULL, "a", "");
	/* an unreadable configuration is an error at the name */
	CHECK_LEX("%( CONFIG_UNREADABLE == \"y\" %? a %: b %)", &kcfg, "b",
		  "t.stp:1:4: error: cannot tell CONFIG_UNREADABLE: no "
		  "configuration\n"
		  "%( CONFIG_UNREADABLE == \"y\" %? a %: b %)\n"
		  "   ^\n");
}

UNIT_TEST(lex_cond_logic_and_nesting)
{
	CHECK_PP("%( arch == \"x86_64\" && $# == 1 %? a %: b %)", "b");
	CHECK_PP("%( arch == \"x86_64\" || $# == 1 %? a %: b %)", "a");
	/* && binds tighter than || */
	CHECK_PP("%( 1 == 1 || 1 == 2 && 1 == 2 %? a %: b %)", "a");
	CHECK_PP("%( (1 == 1 || 1 == 2) && 1 == 2 %? a %: b %)", "b");
	/* no else part */
	CHECK_PP("x %( 1 == 2 %? a %) y", "x y");
	CHECK_PP("x %( 1 == 1 %? a b %) y", "x a b y");
	/* nested, in the taken and in the skipped branch */
	CHECK_PP("%( 1 == 1 %? %( 2 == 2 %? in %: out %) %: %( 3 == 3 %? no "
		 "%) %)", "in");
	CHECK_PP("%( 1 == 2 %? %( 2 == 2 %? no %: no2 %) %: else %)", "else");
	/* a skipped branch may hold what does not lex, or a $N too far */
	CHECK_PP("%( $# >= 3 %? x = $3 ` 08 \"open\n%: x = $2 %)",
		 "x = x . y");
	/* macros are not defined in a skipped branch */
	CHECK_PP("%( 1 == 2 %? @define m %( 1 %) %) @m", "@m");
}

UNIT_TEST(lex_cond_errors)
{
	CHECK_LEX("%( arch == \"x\" %? a", &kcfg, "",
		  "t.stp:1:1: error: unterminated conditional, missing '%)'\n"
		  "%( arch == \"x\" %? a\n"
		  "^\n");
	CHECK_LEX("a %: b %) c %? d", &kcfg, "a b c d",
		  "t.stp:1:3: error: '%:' without '%('\n"
		  "a %: b %) c %? d\n"
		  "  ^\n"
		  "t.stp:1:8: error: '%)' without '%('\n"
		  "a %: b %) c %? d\n"
		  "       ^\n"
		  "t.stp:1:13: error: '%?' without '%('\n"
		  "a %: b %) c %? d\n"
		  "            ^\n");
	CHECK_LEX("%( 1 == 1 %? a %: b %: c %) d", &kcfg, "a d",
		  "t.stp:1:21: error: duplicate '%:' in conditional\n"
		  "%( 1 == 1 %? a %: b %: c %) d\n"
		  "                    ^\n");
	CHECK_LEX("%( kernel_v < \"6.*\" %? a %: b %)", &kcfg, "b",
		  "t.stp:1:13: error: wildcard not allowed with order "
		  "comparison operators\n"
		  "%( kernel_v < \"6.*\" %? a %: b %)\n"
		  "            ^\n");
	CHECK_LEX("%( arch < \"x\" %? a %: b %)", &kcfg, "b",
		  "t.stp:1:9: error: expected '==' or '!='\n"
		  "%( arch < \"x\" %? a %: b %)\n"
		  "        ^\n");
	/* no '%?': the whole conditional is dropped */
	CHECK_LEX("%( kernel_v == \"1\" a %: b %) c", &kcfg, "c",
		  "t.stp:1:20: error: expected '%?' after the condition of "
		  "'%(' at line 1\n"
		  "%( kernel_v == \"1\" a %: b %) c\n"
		  "                   ^\n");
	CHECK_LEX("%( foo == 1 %? a %: b %)", &kcfg, "b",
		  "t.stp:1:4: error: expected 'kernel_v', 'kernel_vr', "
		  "'systemtap_v', 'arch', 'runtime', 'systemtap_privilege', "
		  "'guru_mode', 'CONFIG_...', a string or a number in "
		  "preprocessor condition\n"
		  "%( foo == 1 %? a %: b %)\n"
		  "   ^\n");
	CHECK_LEX("%( kernel_v == 6 %? a %: b %)", &kcfg, "b",
		  "t.stp:1:16: error: expected a string after 'kernel_v'\n"
		  "%( kernel_v == 6 %? a %: b %)\n"
		  "               ^\n");
}

UNIT_TEST(lex_quote_round_trip)
{
	static const char raw[] = "a\"b\\c\n\t\001\177\xc3\xa9 %d";
	char *q = lex_quote(raw, sizeof(raw) - 1), *src;
	struct token t[2];
	size_t n;

	CHECK_STR(q, "a\\\"b\\\\c\\n\\t\\001\\177\xc3\xa9 %d");
	src = xasprintf("\"%s\"", q);
	n = lex_tokens(src, t, 2);
	CHECK_INT(t[0].kind, TOK_STRING);
	CHECK_INT(t[0].len, sizeof(raw) - 1);
	CHECK(!memcmp(t[0].text, raw, sizeof(raw) - 1));
	release_all(t, n);
	free(src);
	free(q);
}

UNIT_TEST(diag_format_and_limit)
{
	static const char text[] =
		"probe begin {\n\t\tx = 1 / y\n\xc3\xa9t\xc3\xa9 = 2\n";
	struct diag *d = diag_new();
	const struct diag_file *f = diag_add_file(d, "t.stp", text,
						  sizeof(text) - 1);
	char buf[64], *out;
	int i;

	diag_error(d, (struct diag_loc){ f, 2, 9, NULL }, "division by %d", 0);
	diag_warn(d, (struct diag_loc){ f, 3, 6, NULL }, "after UTF-8");
	diag_note(d, (struct diag_loc){ f, 0, 0, NULL }, "file only");
	diag_error(d, (struct diag_loc){ 0 }, "nowhere");
	CHECK_INT(diag_count(d), 4);
	CHECK_INT(diag_errors(d), 2);
	CHECK_INT(diag_warnings(d), 1);
	CHECK_STR(diag_message(d, 0, NULL, NULL), "division by 0");
	out = print_diags(d);
	/* the caret line repeats the tabs; UTF-8 counts one per character */
	CHECK_STR(out, "t.stp:2:9: error: division by 0\n"
		       "\t\tx = 1 / y\n"
		       "\t\t      ^\n"
		       "t.stp:3:6: warning: after UTF-8\n"
		       "\xc3\xa9t\xc3\xa9 = 2\n"
		       "   ^\n"
		       "t.stp: note: file only\n"
		       "error: nowhere\n");
	free(out);
	CHECK_INT(diag_count(d), 0);
	CHECK_STR(diag_loc_str((struct diag_loc){ f, 2, 9, NULL }, buf, sizeof(buf)),
		  "t.stp:2:9");

	/* past the limit errors are counted, not kept */
	diag_set_limit(d, 5);
	for (i = 0; i < 7; i++)
		diag_error(d, (struct diag_loc){ f, 1, 1, NULL }, "e%d", i);
	CHECK(diag_full(d));
	CHECK_INT(diag_count(d), 3);	/* 2 errors were reported before */
	CHECK_INT(diag_errors(d), 9);
	out = print_diags(d);
	CHECK(strstr(out, "e2\n") && !strstr(out, "e3\n"));
	CHECK(strstr(out, "note: too many errors, stopped after 5\n") != NULL);
	free(out);
	diag_free(d);
}

UNIT_MAIN()
