// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF: parameters as fetch arguments, inline instances, line tables and
 * separate debug files, on the fixtures (tests/unit/elf/).  Expected
 * locations come from the x86-64 calling convention and from the stores
 * objdump shows in the prologue; addresses from nm.
 */
#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "common/dwinfo.h"
#include "common/elfsym.h"
#include "tests/unit/elftest.h"
#include "tests/unit/unit.h"

/* The one out-of-line function @name of @dw (into @l). */
static struct dwfunc *func(struct dwinfo *dw, const char *name,
			   struct dwfunc_list *l)
{
	char err[256];

	if (dwinfo_funcs(dw, name, 0, l, err, sizeof(err)) || l->n != 1) {
		printf("#   %s: %zu functions %s\n", name, l->n, err);
		return NULL;
	}
	return &l->v[0];
}

/* "name=loc:type" or the refusal of each parameter at @pc, joined by '|' */
static char *params(struct dwinfo *dw, struct dwfunc *f, uint64_t pc)
{
	static char s[2048];
	struct fetcharg *a;
	char err[256];
	size_t n, i;

	s[0] = '\0';
	if (dwinfo_params(dw, f, pc, &a, &n, err, sizeof(err)))
		return strcpy(s, err);
	for (i = 0; i < n; i++) {
		char *t = fetcharg_format(&a[i]);

		snprintf(s + strlen(s), sizeof(s) - strlen(s), "%s%s",
			 i ? "|" : "", t ? t : a[i].refused);
		free(t);
	}
	fetchargs_free(a, n);
	return s;
}

/* The frame offset objdump shows tk_add's prologue storing @reg at. */
static long stored_at(const char *file, const char *reg, uint64_t *insn)
{
	char *out = sh_out("objdump -d --no-show-raw-insn %s | sed -n "
			   "'/<tk_add>:/,/^$/p' | grep -m1 'mov *%%%s,-0x'",
			   file, reg);
	char *p = strstr(out, ",-0x");
	long off = p ? -strtol(p + 4, NULL, 16) : 0;

	*insn = strtoull(out, NULL, 16);
	free(out);
	return off;
}

UNIT_TEST(unoptimized_params)
{
	const char *file = FIX("prog-pie");
	struct dwinfo *dw = dwinfo_open(file, NULL, NULL, 0);
	struct dwfunc_list l;
	struct dwfunc *f;
	uint64_t ia, ib, is;
	long oa, ob, os;
	char want[512];

	CHECK(dw != NULL);
	if (!dw || !(f = func(dw, "tk_add", &l)))
		goto out;
	CHECK_INT(f->entry, nm_addr(file, "tk_add"));
	CHECK_STR(f->file, "tests/unit/elf/prog.c");
	CHECK(f->inlined_into == NULL);
	oa = stored_at(file, "edi", &ia);
	ob = stored_at(file, "rsi", &ib);
	os = stored_at(file, "rdx", &is);
	CHECK(oa < 0 && ob < 0 && os < 0);
	/* the body starts after the prologue has stored them */
	CHECK(f->body > ia && f->body > ib && f->body > is);
	CHECK(f->body < f->entry + 64);
	snprintf(want, sizeof(want), "a=%ld(%%bp):s32|b=%ld(%%bp):s64|"
		 "s=%ld(%%bp):x64|'p' is an aggregate passed by value|"
		 "'d' is a floating-point value", oa, ob, os);
	CHECK_STR(params(dw, f, f->body), want);
	/* at the entry the slots are not written yet */
	snprintf(want, sizeof(want), "'a' is not in its stack slot before the "
		 "end of the prologue (probe at 0x%" PRIx64 " or later)",
		 f->body);
	CHECK(!strncmp(params(dw, f, f->entry), want, strlen(want)));
	dwfunc_list_release(&l);
out:
	dwinfo_free(dw);
}

UNIT_TEST(char_pointer_flagged)
{
	struct dwinfo *dw = dwinfo_open(FIX("prog-pie"), NULL, NULL, 0);
	struct dwfunc_list l;
	struct dwfunc *f = dw ? func(dw, "tk_add", &l) : NULL;
	struct fetcharg *a;
	size_t n;

	CHECK(f != NULL);
	if (!f)
		goto out;
	CHECK_INT(dwinfo_params(dw, f, f->body, &a, &n, NULL, 0), 0);
	CHECK_INT(n, 5);
	if (n == 5) {
		CHECK(a[2].is_ptr && a[2].is_char_ptr);
		CHECK(!a[0].is_ptr && a[0].is_signed && a[0].size == 4);
	}
	fetchargs_free(a, n);
	dwfunc_list_release(&l);
out:
	dwinfo_free(dw);
}

/* Arguments 7 and 8 are on the stack (System V ABI): above the return
 * address at the entry, above the saved frame pointer in the body. */
UNIT_TEST(stack_arguments)
{
	static const char *const files[] = { FIX("prog-pie"), FIX("prog-nopie") };
	struct dwfunc_list l;
	struct dwfunc *f;
	struct dwinfo *dw;
	char *p;
	int i;

	for (i = 0; i < 2; i++) {
		dw = dwinfo_open(files[i], NULL, NULL, 0);
		CHECK(dw != NULL);
		if (!dw || !(f = func(dw, "tk_many", &l))) {
			dwinfo_free(dw);
			continue;
		}
		CHECK_INT(f->entry, nm_addr(files[i], "tk_many"));
		p = params(dw, f, f->entry);
		CHECK(strstr(p, "|a7=+8(%sp):s64|a8=+16(%sp):s64") != NULL);
		CHECK(!strncmp(p, "'a1' is not in its stack slot", 29));
		p = params(dw, f, f->body);
		CHECK(!strncmp(p, "a1=-8(%bp):s64|", 15));
		CHECK(strstr(p, "|a7=+16(%bp):s64|a8=+24(%bp):s64") != NULL);
		dwfunc_list_release(&l);
		dwinfo_free(dw);
	}
}

/* Optimized code: at the entry, the arguments' registers (System V ABI). */
UNIT_TEST(optimized_params)
{
	struct dwinfo *dw = dwinfo_open(FIX("prog-pie"), NULL, NULL, 0);
	struct dwfunc_list l;
	struct dwfunc *f = dw ? func(dw, "tk_opt", &l) : NULL;

	CHECK(f != NULL);
	if (f) {
		CHECK_INT(f->entry, nm_addr(FIX("prog-pie"), "tk_opt"));
		CHECK_STR(params(dw, f, f->entry), "x=%di:s64|y=%si:s32");
		dwfunc_list_release(&l);
	}
	dwinfo_free(dw);
}

UNIT_TEST(inline_instances)
{
	const char *file = FIX("prog-pie");
	struct dwinfo *dw = dwinfo_open(file, NULL, NULL, 0);
	struct elffile *ef = elffile_open(file, NULL, 0);
	struct dwfunc_list l;
	struct elfsym_list c;
	size_t i;

	CHECK(dw && ef);
	if (!dw || !ef)
		goto out;
	/* always inlined: no code of its own */
	CHECK_INT(dwinfo_funcs(dw, "tk_inl", 0, &l, NULL, 0), 0);
	CHECK_INT(l.n, 0);
	CHECK_INT(dwinfo_funcs(dw, "tk_inl", DWINFO_INLINE, &l, NULL, 0), 0);
	CHECK_INT(l.n, 2);
	for (i = 0; i < l.n && i < 2; i++) {
		CHECK_STR(l.v[i].inlined_into, i ? "tk_caller2" : "tk_caller1");
		CHECK_INT(elfsym_find(ef, l.v[i].inlined_into, &c, NULL, 0), 0);
		CHECK(c.n == 1 && l.v[i].entry >= c.v[0].vaddr &&
		      l.v[i].entry < c.v[0].vaddr + c.v[0].size);
		CHECK_INT(l.v[i].body, l.v[i].entry);
		elfsym_list_release(&c);
	}
	if (l.n == 2) {
		/* tk_inl(v): v is the caller's rdi */
		CHECK_STR(params(dw, &l.v[0], l.v[0].entry), "v=%di:s32");
		/* tk_inl(v + 1): computed, nowhere in memory or a register */
		CHECK_STR(params(dw, &l.v[1], l.v[1].entry), "'v' is a value "
			  "computed from others (DW_OP_breg5 ... "
			  "DW_OP_stack_value), which uprobes cannot fetch");
	}
	dwfunc_list_release(&l);
	CHECK_INT(dwinfo_funcs(dw, "tk_caller*", DWINFO_INLINE, &l, NULL, 0), 0);
	CHECK_INT(l.n, 2);
	dwfunc_list_release(&l);
out:
	elffile_free(ef);
	dwinfo_free(dw);
}

UNIT_TEST(library_at_a_base)
{
	const char *file = FIX("libtk-based.so");
	struct dwinfo *dw = dwinfo_open(file, NULL, NULL, 0);
	struct dwfunc_list l;
	size_t i;

	CHECK(dw != NULL);
	if (!dw)
		return;
	CHECK_INT(dwinfo_funcs(dw, "tk_lib_*", 0, &l, NULL, 0), 0);
	CHECK_INT(l.n, 3);
	for (i = 0; i < l.n; i++) {
		CHECK_INT(l.v[i].entry, nm_addr(file, l.v[i].name));
		CHECK_STR(params(dw, &l.v[i], l.v[i].entry), "x=%di:s32");
	}
	dwfunc_list_release(&l);
	dwinfo_free(dw);
}

UNIT_TEST(debuglink)
{
	struct dwinfo *dw = dwinfo_open(FIX("prog-stripped"), NULL, NULL, 0);
	struct dwfunc_list l;
	struct dwfunc *f;
	const char *dbg;

	CHECK(dw != NULL);
	if (!dw)
		return;
	dbg = dwinfo_debug_file(dw);
	CHECK(strlen(dbg) > 19 && !strcmp(dbg + strlen(dbg) - 19,
					  "prog-stripped.debug"));
	f = func(dw, "tk_add", &l);
	CHECK(f && f->entry == nm_addr(FIX("prog-pie"), "tk_add"));
	if (f)
		dwfunc_list_release(&l);
	dwinfo_free(dw);
}

UNIT_TEST(symbol_file)
{
	char *s = dwinfo_symbol_file(FIX("prog-stripped"), NULL);

	CHECK(s && strlen(s) > 19 && !strcmp(s + strlen(s) - 19, "prog-stripped.debug"));
	free(s);
	/* an object with its own .symtab needs none */
	CHECK(dwinfo_symbol_file(FIX("prog-pie"), NULL) == NULL);
}

UNIT_TEST(build_id)
{
	char err[256], root[PATH_MAX];
	struct dwinfo *dw;
	struct dwfunc_list l;

	errno = 0;
	dw = dwinfo_open(FIX("prog-buildid"), NULL, err, sizeof(err));
	CHECK(dw == NULL);
	CHECK_INT(errno, ENODATA);
	CHECK(!strncmp(err, "no debug information for "
		       "'build/tests/elf/prog-buildid'", 55));
	if (!realpath(FIX("debugroot"), root))
		return;
	dw = dwinfo_open(FIX("prog-buildid"), root, err, sizeof(err));
	CHECK(dw != NULL);
	if (!dw)
		return;
	CHECK(strstr(dwinfo_debug_file(dw), "/.build-id/") != NULL);
	CHECK(func(dw, "tk_add", &l) != NULL);
	dwfunc_list_release(&l);
	dwinfo_free(dw);
}

/* The line of prog.c holding TK_LINE_MARKER; 0 if not found. */
static int marker_line(void)
{
	char *out = sh_out("grep -n TK_LINE_MARKER tests/unit/elf/prog.c");
	int n = atoi(out);

	free(out);
	return n;
}

static int stmt(struct dwinfo *dw, const char *fmt, int line,
		struct dwline **v, size_t *n, char *err)
{
	char spec[128];

	snprintf(spec, sizeof(spec), fmt, line);
	return dwinfo_statement(dw, spec, v, n, err, 256);
}

UNIT_TEST(line_table)
{
	struct dwinfo *dw = dwinfo_open(FIX("prog-pie"), NULL, NULL, 0);
	uint64_t mark = nm_addr(FIX("prog-pie"), "tk_line_marker");
	static const char *const found[] = {
		"prog.c:%d", "tk_add@prog.c:%d", "tk_*@prog.c:%d",
		"tests/unit/elf/prog.c:%d", "elf/prog.c:%d", "pro?.c:%d",
	};
	int line = marker_line();
	struct dwline *v;
	char err[256];
	size_t n, i;

	CHECK(dw && line > 0 && mark);
	if (!dw)
		return;
	for (i = 0; i < sizeof(found) / sizeof(found[0]); i++) {
		CHECK_INT(stmt(dw, found[i], line, &v, &n, err), 0);
		CHECK_INT(n, 1);
		if (n == 1) {
			CHECK_INT(v[0].addr, mark);
			CHECK_STR(v[0].func, "tk_add");
			CHECK_INT(v[0].line, line);
			CHECK(strstr(v[0].file, "tests/unit/elf/prog.c") != NULL);
		}
		dwlines_free(v, n);
	}
	CHECK_INT(stmt(dw, "tk_many@prog.c:%d", line, &v, &n, err), -ENOENT);
	CHECK_INT(stmt(dw, "rog.c:%d", line, &v, &n, err), -ENOENT);
	CHECK_INT(stmt(dw, "prog.c:%d", 1, &v, &n, err), -ENOENT);
	CHECK(!strncmp(err, "no code at prog.c:1 (nearest line with code: ", 45));
	CHECK_INT(stmt(dw, "prog.c:%d", line + 1, &v, &n, err), -ENOENT);
	CHECK(strstr(err, "nearest lines with code: ") != NULL);
	CHECK_INT(stmt(dw, "prog.c", 0, &v, &n, err), -EINVAL);
	CHECK_STR(err, "'prog.c': expected [FUNC@]FILE:LINE");
	CHECK_INT(stmt(dw, "prog.c:x%d", 0, &v, &n, err), -EINVAL);
	CHECK_STR(err, "'prog.c:x0': bad line number");
	CHECK_INT(stmt(dw, "@prog.c:%d", 3, &v, &n, err), -EINVAL);
	CHECK_INT(stmt(dw, "prog.c:%d", 0, &v, &n, err), -EINVAL);
	dwinfo_free(dw);
}

UNIT_TEST(truncated_dwarf)
{
	struct dwinfo *dw;
	struct dwfunc_list l;
	struct dwline *v;
	char err[256] = "";
	size_t n;

	dw = dwinfo_open(FIX("prog-trunc-info"), NULL, err, sizeof(err));
	if (dw) {
		CHECK_INT(dwinfo_funcs(dw, "*", DWINFO_INLINE, &l, err,
				       sizeof(err)), -EINVAL);
		CHECK_STR(err, "'build/tests/elf/prog-trunc-info': bad debug "
			  "information: invalid DWARF");
		dwinfo_free(dw);
	} else {
		CHECK(strstr(err, "prog-trunc-info") != NULL);
	}
	dw = dwinfo_open(FIX("prog-trunc-line"), NULL, err, sizeof(err));
	CHECK(dw != NULL);
	if (!dw)
		return;
	CHECK_INT(dwinfo_statement(dw, "prog.c:40", &v, &n, err, sizeof(err)),
		  -EINVAL);
	CHECK_STR(err, "'build/tests/elf/prog-trunc-line': bad debug "
		  "information: invalid offset");
	/* functions still come, without prologue analysis */
	CHECK_INT(dwinfo_funcs(dw, "tk_add", 0, &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 1);
	dwfunc_list_release(&l);
	dwinfo_free(dw);
}

UNIT_TEST(not_elf)
{
	char err[256];

	errno = 0;
	CHECK(dwinfo_open("Makefile", NULL, err, sizeof(err)) == NULL);
	CHECK(errno != 0);
	CHECK(!strncmp(err, "'Makefile': ", 12));
}

UNIT_MAIN()
