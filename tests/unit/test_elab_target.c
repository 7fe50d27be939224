// SPDX-License-Identifier: GPL-2.0
/*
 * What the elaborator asks of a provider with types (lang/provider.h's
 * target(), entry(), stacks): a fake provider of `fake.function("f")`
 * and `fake.function("f").return` logs every target expression it is
 * asked to resolve, so the tests see exactly the root, cast, path and
 * memory read each script construct becomes, and the errors the
 * elaborator reports without asking.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/elab.h"
#include "lang/parse.h"
#include "lang/provider.h"
#include "tests/unit/unit.h"

static char logbuf[4096];
static int nvars;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	size_t n = strlen(logbuf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(logbuf + n, sizeof(logbuf) - n, fmt, ap);
	va_end(ap);
}

static void log_path(const struct tpath *p)
{
	size_t i;

	for (i = 0; i < p->nsteps; i++)
		if (p->steps[i].kind == TSTEP_MEMBER)
			logf_("->%s", p->steps[i].name);
		else
			logf_("[%lld]", (long long)p->steps[i].index);
	if (p->addressof)
		logf_(" &");
	if (p->pretty)
		logf_(" pretty%d", p->pretty);
	if (p->off)
		logf_(" off%+lld", (long long)p->off);
}

/* A layout where each member is 8 bytes further and an object is 24
 * bytes; "nosuch" is no member. */
static int fake_layout(const char *module, const char *type,
		       const struct tpath *path, int64_t *value, char *err,
		       size_t errlen)
{
	int64_t v = path->off;
	size_t i;

	logf_("layout %s %s", module, type);
	log_path(path);
	logf_("\n");
	for (i = 0; i < path->nsteps; i++) {
		if (path->steps[i].kind == TSTEP_INDEX) {
			v += path->steps[i].index * 24;
			continue;
		}
		if (!strcmp(path->steps[i].name, "nosuch"))
			return errmsg(err, errlen, -EINVAL, "no member 'nosuch' "
				      "in '%s'", type);
		v += 8;
	}
	*value = v;
	return 0;
}

static const struct provider fake, plain;

static int fake_expand(const struct prov_env *env, const struct ast_pp *pp,
		       struct prov_list *out)
{
	bool ret = pp->ncomps == 3 && prov_comp_is(pp, 2, "return");

	if (pp->ncomps < 2 || !prov_comp_is(pp, 0, "fake") ||
	    !prov_comp_is(pp, 1, "function"))
		return 0;
	prov_list_push(out, prov_probe_new(&fake, ret ?
			"fake.function(\"f\").return" : "fake.function(\"f\")",
			PROV_RUNNING));
	out->v[out->n - 1]->data = ret ? (void *)1 : NULL;
	return 1;
}

/* The root, the cast and the path; a cast's pointer that is a target of
 * its own in brackets. */
static void log_target(const struct prov_target *t)
{
	static const char *const raws[] = { "", "reg", "arg", "retval", "ip", "uip" };

	if (t->base) {
		logf_("[");
		log_target(t->base);
		logf_("]");
	} else if (t->raw) {
		logf_("raw %s %s %d %s", raws[t->raw], t->root ? t->root : "-",
		      t->raw_arg, t->raw_type);
	} else {
		logf_("%s%s", t->is_global ? "@var " : "$", t->root);
	}
	if (t->cast_type) {
		log_path(&t->pre);
		logf_(" cast %s/%s ", t->cast_type,
		      t->cast_module ? t->cast_module : "-");
	}
	log_path(&t->path);
}

static int fake_target(struct prov_probe *p, const struct prov_target *t,
		       struct prov_var *out, char *err, size_t errlen)
{
	if (t->root && !strcmp(t->root, "nosuch"))
		return -ENOENT;
	if (t->root && !strcmp(t->root, "gone"))
		return errmsg(err, errlen, -EINVAL, "'gone' is optimized out at 0x401136");
	logf_("%s:", p->pp + 13);
	log_target(t);
	if (t->deref)
		logf_(" read %d%+lld %s", t->deref_kind, (long long)t->deref_off,
		      t->deref_fn);
	logf_("\n");
	memset(out, 0, sizeof(*out));
	out->name = "v";
	out->type = t->path.pretty || (t->deref && t->deref_kind ==
				       PROV_MEM_USTRING) || (t->root && !strcmp(t->root, "s")) ?
		    AST_T_STRING : AST_T_LONG;
	out->idx = nvars++;
	return 0;
}

static size_t fake_vars(const struct prov_probe *p, struct prov_var *out,
			size_t max)
{
	static const struct prov_var v[] = {
		{ .name = "a", .type = AST_T_LONG, .flags = PROV_VAR_PARAM | PROV_VAR_HEX },
		{ .name = "s", .type = AST_T_STRING, .flags = PROV_VAR_PARAM },
		{ .name = "l", .type = AST_T_LONG, .flags = PROV_VAR_LOCAL | PROV_VAR_UNAVAILABLE },
	};

	memcpy(out, v, sizeof(v));
	return 3;
}

static struct prov_probe *fake_entry(const struct prov_probe *ret)
{
	if (!ret->data)
		return NULL;
	return prov_probe_new(&fake, "fake.function(\"f\").call", PROV_RUNNING);
}

static const struct provider fake = {
	.name = "fake",
	.expand = fake_expand,
	.vars = fake_vars,
	.target = fake_target,
	.entry = fake_entry,
};

/* A provider without types (as tracepoints): var() and vars() only. */
static int plain_expand(const struct prov_env *env, const struct ast_pp *pp,
			struct prov_list *out)
{
	if (pp->ncomps != 1 || !prov_comp_is(pp, 0, "plain"))
		return 0;
	prov_list_push(out, prov_probe_new(&plain, "plain", PROV_RUNNING));
	return 1;
}

static int plain_var(const struct prov_probe *p, const char *name,
		     struct prov_var *out)
{
	struct prov_var v[3];
	size_t i, n = fake_vars(p, v, 3);

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name)) {
			*out = v[i];
			out->idx = (int)i;
			return 0;
		}
	return -ENOENT;
}

static const struct provider plain = {
	.name = "plain",
	.expand = plain_expand,
	.vars = fake_vars,
	.var = plain_var,
};

static const struct provider *const providers[] = { &fake, &plain, NULL };

/* Elaborate @src: "" when it went through, else the diagnostics; the
 * provider's log in logbuf, -p2 in *@p2 when asked. */
static char *elab_of(const char *src, char **p2, bool *stacks)
{
	struct elab_opts eo = { .providers = providers, .no_display = true,
				.layout = fake_layout };
	struct diag *d = diag_new();
	struct ast_script *s = ast_script_new();
	struct elab *e = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	logbuf[0] = '\0';
	nvars = 0;
	if (parse_text(s, d, "t.stp", src, strlen(src), NULL, 0) == 0)
		e = elab_new(s, d, &eo);
	diag_print(d, m);
	fclose(m);
	if (p2) {
		size_t n = 0;
		FILE *f = open_memstream(p2, &n);

		for (size_t i = 0; e && !diag_errors(d) && i < e->probes.n; i++)
			ast_print_stmt(f, e->probes.v[i]->body, 0);
		fclose(f);
	}
	if (stacks)
		*stacks = e && e->probes.n && e->probes.v[0]->pp->stacks;
	elab_free(e);
	ast_script_free(s);
	diag_free(d);
	return buf;
}

UNIT_TEST(target_paths_reach_the_provider)
{
	char *err = elab_of("probe fake.function(\"f\") {\n"
			    "  println($p->next->val[3], &$s->f, $x$, $y$$)\n"
			    "  println(@cast($t, \"task_struct\", \"kernel\")->pid)\n"
			    "  println(@cast($q->r, \"struct node\")->v)\n"
			    "  println(@var(\"g@prog.c\")->x)\n"
			    "}\n", NULL, NULL);

	CHECK_STR(err, "");
	CHECK_STR(logbuf,
		  "(\"f\"):$p->next->val[3]\n"
		  "(\"f\"):$s->f &\n"
		  "(\"f\"):$x pretty1\n"
		  "(\"f\"):$y pretty2\n"
		  "(\"f\"):$t cast task_struct/kernel ->pid\n"
		  "(\"f\"):$q->r cast struct node/- ->v\n"
		  "(\"f\"):@var g@prog.c->x\n");
	free(err);
}

UNIT_TEST(raw_operands_and_memory_reads)
{
	char *err = elab_of("probe fake.function(\"f\") {\n"
			    "  println(register(\"rax\"), u_register(\"rdi\"), int_arg(2),\n"
			    "          pointer_arg(1), uaddr())\n"
			    "  println(user_string($p->name), kernel_long($q + 8))\n"
			    "  println(@cast(pointer_arg(1), \"struct node\")->v)\n"
			    "}\n", NULL, NULL);

	CHECK_STR(err, "");
	CHECK_STR(logbuf,
		  "(\"f\"):raw reg rax 0 s64\n"
		  "(\"f\"):raw reg rdi 0 u64\n"
		  "(\"f\"):raw arg - 2 s32\n"
		  "(\"f\"):raw arg - 1 u64\n"
		  "(\"f\"):raw uip - 0 u64\n"
		  "(\"f\"):$p->name\n"
		  "(\"f\"):$p->name read 0+0 user_string\n"
		  "(\"f\"):$q\n"
		  "(\"f\"):$q read 4+8 kernel_long\n"
		  "(\"f\"):raw arg - 1 u64 cast struct node/- ->v\n");
	free(err);
}

UNIT_TEST(a_cast_of_a_member_reached_through_a_cast)
{
	char *err = elab_of("probe fake.function(\"f\") {\n"
			    "  println(@cast(&@cast($p, \"A\")->m->n, \"B\")->x)\n"
			    "  println(@cast(@cast($p + 8, \"A\")->ptr, \"B\", \"mod\")->y[1])\n"
			    "  println(@cast(&@cast(&@cast(pointer_arg(2), \"A\")->m, \"B\")->n, \"C\")->z)\n"
			    "}\n", NULL, NULL);

	CHECK_STR(err, "");
	CHECK_STR(logbuf,
		  "(\"f\"):[$p cast A/- ->m->n &] cast B/- ->x\n"
		  "(\"f\"):[$p cast A/- ->ptr off+8] cast B/mod ->y[1]\n"
		  "(\"f\"):[[raw arg - 2 u64 cast A/- ->m &] cast B/- ->n &] cast C/- ->z\n");
	free(err);
}

UNIT_TEST(casts_of_constants_are_answered_by_the_layout)
{
	char *p2 = NULL;
	char *err = elab_of("probe fake.function(\"f\") {\n"
			    "  println(&@cast(0, \"T\")->a->b, &@cast(0, \"T\", \"m\")[2], @defined(@cast(0, \"T\")->nosuch))\n"
			    "  println(@cast($p - &@cast(0, \"T\")->a, \"T\")->v, &@cast($q + 4, \"T\"))\n"
			    "}\n", &p2, NULL);

	CHECK_STR(err, "");
	CHECK_STR(logbuf,
		  "layout kernel T->a->b &\n"
		  "layout m T[2] &\n"
		  "layout kernel T->nosuch &\n"
		  "layout kernel T->nosuch\n"
		  "layout kernel T->a &\n"
		  "(\"f\"):$p cast T/- ->v off-8\n"
		  "layout kernel T &\n"
		  "(\"f\"):$q\n");
	CHECK(strstr(p2, "println(16, 48, 0)") != NULL);
	CHECK(strstr(p2, "println(@cast($p - 8, \"T\")->v, $q + 4)") != NULL);
	if (unit_failed)
		printf("# %s", p2);
	free(p2);
	free(err);
}

UNIT_TEST(task_functions_of_a_kernel_pointer_read_its_task_struct)
{
	char *p2 = NULL;
	char *err = elab_of("probe fake.function(\"f\") {\n"
			    "  println(task_pid($t), task_execname(task_parent(pointer_arg(1))), task_nice($t))\n"
			    "  println(task_pid(task_current()))\n"
			    "}\n"
			    "probe plain { println(task_pid($a)) }\n", &p2, NULL);

	CHECK_STR(err, "");
	CHECK_STR(logbuf,
		  "(\"f\"):$t cast task_struct/- ->tgid\n"
		  "(\"f\"):raw arg - 1 u64 cast task_struct/- ->real_parent->comm\n"
		  "(\"f\"):raw arg - 1 u64 cast task_struct/- ->real_parent->comm read 1+0 kernel_string\n"
		  "(\"f\"):$t cast task_struct/- ->static_prio\n");
	CHECK(strstr(p2, "- 120") != NULL);
	CHECK(strstr(p2, "task_pid(task_current())") != NULL);
	CHECK(strstr(p2, "task_pid($a)") != NULL);
	if (unit_failed)
		printf("# %s", p2);
	free(p2);
	free(err);
}

UNIT_TEST(target_errors_are_located)
{
	char *err = elab_of("probe fake.function(\"f\") {\n"
			    "  i = 1; println($p[i], $nosuch, $gone)\n"
			    "  println(@cast(gettimeofday_ns(), \"struct x\")->y)\n"
			    "  println(int_arg(0), register(4))\n"
			    "}\n"
			    "probe fake.function(\"f\") { println(@entry($a)) }\n", NULL, NULL);

	CHECK_STR(err,
		  "t.stp:2:21: error: the index of $p must be a constant: the "
		  "kernel reads the element when the probe fires\n"
		  "  i = 1; println($p[i], $nosuch, $gone)\n"
		  "                    ^\n"
		  "t.stp:2:25: error: no target variable '$nosuch' in probe "
		  "'fake.function(\"f\")'\n"
		  "  i = 1; println($p[i], $nosuch, $gone)\n"
		  "                        ^\n"
		  "t.stp:2:34: error: 'gone' is optimized out at 0x401136\n"
		  "  i = 1; println($p[i], $nosuch, $gone)\n"
		  "                                 ^\n"
		  "t.stp:3:17: error: @cast needs a pointer the kernel can read "
		  "when the probe fires: a target variable, register() or a "
		  "*_arg() function\n"
		  "  println(@cast(gettimeofday_ns(), \"struct x\")->y)\n"
		  "                ^\n"
		  "t.stp:4:19: error: int_arg(): argument 0 does not exist\n"
		  "  println(int_arg(0), register(4))\n"
		  "                  ^\n"
		  "t.stp:4:32: error: register() takes a register name as a "
		  "string literal: the kernel reads it when the probe fires\n"
		  "  println(int_arg(0), register(4))\n"
		  "                               ^\n"
		  "t.stp:6:36: error: @entry is only available in the return "
		  "probe of a function\n"
		  "probe fake.function(\"f\") { println(@entry($a)) }\n"
		  "                                   ^\n");
	free(err);
}

UNIT_TEST(entry_makes_an_entry_probe)
{
	char *p2 = NULL;
	char *err = elab_of("probe fake.function(\"f\").return {\n"
			    "  println(gettimeofday_ns() - @entry(gettimeofday_ns()), @entry($a))\n"
			    "}\n", &p2, NULL);

	CHECK_STR(err, "");
	CHECK_STR(logbuf, "(\"f\").call:$a\n");
	CHECK(strstr(p2, "__entry_0[tid()] = gettimeofday_ns()") != NULL);
	CHECK(strstr(p2, "__entry_1[tid()] = $a") != NULL);
	CHECK(strstr(p2, "println(gettimeofday_ns() - __entry_0[tid()], __entry_1[tid()])") != NULL);
	CHECK(strstr(p2, "delete __entry_0[tid()]") != NULL);
	CHECK(strstr(p2, "delete __entry_1[tid()]") != NULL);
	if (unit_failed)
		printf("# %s", p2);
	free(p2);
	free(err);
}

UNIT_TEST(dollars_follow_the_variable_flags)
{
	char *p2 = NULL;
	char *err = elab_of("probe fake.function(\"f\") {\n"
			    "  println($$vars) println($$parms) println($$locals) println($$parms$)\n"
			    "}\n", &p2, NULL);

	CHECK_STR(err, "");
	CHECK(strstr(p2, "sprintf(\"a=%#x s=\\\"%s\\\" l=?\", $a, $s)") != NULL);
	CHECK(strstr(p2, "sprintf(\"a=%#x s=\\\"%s\\\"\", $a, $s)") != NULL);
	CHECK(strstr(p2, "sprintf(\"l=?\")") != NULL);
	CHECK(strstr(p2, "sprintf(\"a=%s s=%s\", $a$, $s$)") != NULL);
	if (unit_failed)
		printf("# %s", p2);
	free(p2);
	free(err);
}

UNIT_TEST(defined_asks_quietly)
{
	char *p2 = NULL;
	char *err = elab_of("probe fake.function(\"f\") {\n"
			    "  i = 1; println(@defined($p[i]), @defined($nosuch), @defined(int_arg(0)),\n"
			    "          @defined(@cast(gettimeofday_ns(), \"t\")->x), @defined($q->r))\n"
			    "}\n"
			    "probe plain { println(@defined(int_arg(1)), @defined($a)) }\n", &p2, NULL);

	CHECK_STR(err, "");
	CHECK(strstr(p2, "println(0, 0, 0, 0, 1)") != NULL);
	CHECK(strstr(p2, "println(0, 1)") != NULL);
	if (unit_failed)
		printf("# %s", p2);
	free(p2);
	free(err);
	err = elab_of("probe fake.function(\"f\") { println(int_arg(1, 2), returnval(1)) }\n",
		      NULL, NULL);
	CHECK(strstr(err, "error: function 'int_arg' takes 1 argument, 2 given") != NULL);
	CHECK(strstr(err, "error: function 'returnval' takes 0 arguments, 1 given") != NULL);
	free(err);
}

UNIT_TEST(dollars_of_a_provider_without_types_print_plainly)
{
	char *p2 = NULL;
	char *err = elab_of("probe plain { println($$vars$) }\n", &p2, NULL);

	CHECK_STR(err, "");
	CHECK(strstr(p2, "sprintf(\"a=%#x s=\\\"%s\\\" l=?\", $a, $s)") != NULL);
	if (unit_failed)
		printf("# %s", p2);
	free(p2);
	free(err);
}

UNIT_TEST(stack_builtins_mark_the_probe)
{
	bool stacks = true;
	char *err = elab_of("function f() { return 1 }\n"
			    "probe fake.function(\"f\") { f() }\n", NULL, &stacks);

	CHECK_STR(err, "");
	CHECK(!stacks);
	free(err);
	/* through a function calling a stack built-in */
	err = elab_of("function g() { return backtrace() }\n"
		      "function f() { return g() }\n"
		      "probe fake.function(\"f\") { print(f()) }\n", NULL, &stacks);
	CHECK_STR(err, "");
	CHECK(stacks);
	free(err);
}

UNIT_MAIN()
