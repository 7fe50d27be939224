// SPDX-License-Identifier: GPL-2.0
/* Probe sites as tools and scripts ask for them, on the fixtures. */
#include <errno.h>
#include <limits.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "common/elfsym.h"
#include "common/usite.h"
#include "tests/unit/elftest.h"
#include "tests/unit/unit.h"

static const struct usite_opts with_args = { .flags = USITE_ARGS };

static char *real(const char *p)
{
	static char buf[PATH_MAX];

	return realpath(p, buf) ? buf : "?";
}

static char *args(const struct usite *s)
{
	static char b[1024];
	size_t i;

	b[0] = '\0';
	for (i = 0; i < s->nargs; i++) {
		char *f = fetcharg_format(&s->args[i]);

		snprintf(b + strlen(b), sizeof(b) - strlen(b), "%s%s",
			 i ? " " : "", f ? f : "!");
		free(f);
	}
	return b;
}

UNIT_TEST(function_with_params)
{
	const char *file = FIX("prog-pie");
	struct usite_list l;
	char err[256];

	CHECK_INT(usite_functions(file, "tk_opt", &with_args, &l, err,
				  sizeof(err)), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_STR(l.v[0].path, real(file));
		CHECK_INT(l.v[0].vaddr, nm_addr(file, "tk_opt"));
		CHECK_INT(l.v[0].offset, sec_offset(file, ".text", l.v[0].vaddr));
		CHECK(!l.v[0].after_prologue && !l.v[0].ref_ctr_offset);
		CHECK_STR(args(&l.v[0]), "x=%di:s64 y=%si:s32");
		CHECK_STR(l.v[0].func, "tk_opt");
	}
	usite_list_release(&l);

	/* unoptimized: moved past the prologue, where the slots are filled */
	CHECK_INT(usite_functions(file, "tk_many", &with_args, &l, err,
				  sizeof(err)), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK(l.v[0].after_prologue);
		CHECK(l.v[0].vaddr > nm_addr(file, "tk_many"));
		CHECK_INT(l.v[0].offset, sec_offset(file, ".text", l.v[0].vaddr));
		CHECK(!strncmp(args(&l.v[0]), "a1=-8(%bp):s64 a2=", 18));
	}
	usite_list_release(&l);

	/* without USITE_ARGS: the entry, no arguments */
	CHECK_INT(usite_functions(file, "tk_many", NULL, &l, err, sizeof(err)), 0);
	CHECK(l.n == 1 && l.v[0].nargs == 0 &&
	      l.v[0].vaddr == nm_addr(file, "tk_many"));
	usite_list_release(&l);
}

UNIT_TEST(globs_offsets_errors)
{
	struct usite_list l;
	char err[256];

	CHECK_INT(usite_functions(FIX("libtk.so"), "tk_lib_*", NULL, &l, err,
				  sizeof(err)), 0);
	CHECK_INT(l.n, 3);
	usite_list_release(&l);
	CHECK_INT(usite_functions(FIX("prog-pie"), "tk_asm_func+5", &with_args,
				  &l, err, sizeof(err)), 0);
	CHECK(l.n == 1 && l.v[0].offset == sec_offset(FIX("prog-pie"), ".text",
			nm_addr(FIX("prog-pie"), "tk_asm_func")) + 5);
	if (l.n)
		CHECK_STR(l.v[0].func, "tk_asm_func");
	usite_list_release(&l);
	CHECK_INT(usite_functions(FIX("prog-pie"), "tk_asm_func+1", NULL, &l,
				  err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "inside an instruction") != NULL);
	CHECK_INT(usite_functions("tk_no_such_lib", "f", NULL, &l, err,
				  sizeof(err)), -ENOENT);
	CHECK_INT(usite_functions(FIX("prog-pie"), "tk_nothing*", NULL, &l, err,
				  sizeof(err)), 0);
	CHECK_INT(l.n, 0);
}

/* glibc's memcpy is an IFUNC: the site is the implementation our CPU
 * uses, the one the dynamic linker gave us. */
UNIT_TEST(ifunc_resolved)
{
	unsigned long long off = 0;
	char path[PATH_MAX], err[256];
	struct usite_list l;

	if (libc_sym("memcpy", path, sizeof(path), &off))
		SKIP("requires: memcpy in the C library");
	CHECK_INT(usite_functions("libc", "memcpy", NULL, &l, err,
				  sizeof(err)), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK(!l.v[0].ifunc);
		CHECK_INT(l.v[0].offset, off);
		CHECK_STR(l.v[0].path, path);
	}
	usite_list_release(&l);
	/* a library not loaded here: kept, flagged */
	CHECK_INT(usite_functions(FIX("prog-pie"), "tk_ifunc", NULL, &l, err,
				  sizeof(err)), 0);
	CHECK(l.n == 1 && l.v[0].ifunc);
	usite_list_release(&l);
}

UNIT_TEST(marks)
{
	const char *file = FIX("usdt-pie");
	struct usite_opts self = { .pid = getpid() };
	struct usite_list l;
	char err[256];

	CHECK_INT(usite_marks(file, "tk", "hand_sema", NULL, &l, err,
			      sizeof(err)), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_STR(l.v[0].name, "tk:hand_sema");
		CHECK_INT(l.v[0].vaddr, nm_addr(file, "tk_usdt_sema"));
		CHECK_INT(l.v[0].ref_ctr_offset, sec_offset(file, ".probes",
			  nm_addr(file, "tk_hand_sema_semaphore")));
		CHECK_STR(args(&l.v[0]), "arg1=%di:u32");
	}
	usite_list_release(&l);
	/* a site that cannot be probed is left out, and says why */
	CHECK_INT(usite_marks(FIX("usdt-moved"), "tk", "hand_sema", NULL, &l,
			      err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "is not backed by the file") != NULL);
	/* every object of a process: this test has a probe of its own */
	if (getpid() < 0)
		STAP_PROBE1(tk_self, here, err[0]);
	CHECK_INT(usite_marks(NULL, "tk_self", "*", &self, &l, err,
			      sizeof(err)), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_STR(l.v[0].name, "tk_self:here");
		CHECK_STR(l.v[0].path, real("/proc/self/exe"));
		CHECK_INT(l.v[0].nargs, 1);
	}
	usite_list_release(&l);
}

UNIT_TEST(statement)
{
	const char *file = FIX("prog-pie");
	char *line = sh_out("grep -n TK_LINE_MARKER tests/unit/elf/prog.c");
	struct usite_list l;
	char spec[64], err[256];

	snprintf(spec, sizeof(spec), "tk_add@prog.c:%d", atoi(line));
	free(line);
	CHECK_INT(usite_statement(file, spec, NULL, &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_INT(l.v[0].vaddr, nm_addr(file, "tk_line_marker"));
		CHECK_INT(l.v[0].offset, sec_offset(file, ".text", l.v[0].vaddr));
		CHECK_STR(l.v[0].func, "tk_add");
		CHECK_STR(l.v[0].name, spec);
	}
	usite_list_release(&l);
	CHECK_INT(usite_statement(FIX("prog-buildid"), "prog.c:3", NULL, &l,
				  err, sizeof(err)), -ENODATA);
}

/* The loader a program names (PT_INTERP) and its entry point, as
 * readelf tells them. */
UNIT_TEST(interp_and_entry)
{
	const char *file = FIX("prog-pie");
	char *want = sh_out("readelf -lW %s | sed -n 's/.*Requesting program interpreter: \\(.*\\)]/\\1/p'", file);
	char *path = NULL, *entry, err[256];
	struct usite_list l;

	want[strcspn(want, "\n")] = '\0';
	if (!*want || !realpath(want, err))
		SKIP("requires: a dynamically linked fixture and its loader");
	CHECK_INT(usite_interp(file, 0, &path, err, sizeof(err)), 0);
	CHECK_STR(path, real(want));
	free(path);
	/* a shared library names no loader */
	CHECK_INT(usite_interp(FIX("libtk.so"), 0, &path, err, sizeof(err)), -ENOENT);
	entry = sh_out("readelf -hW %s | sed -n 's/.*Entry point address: *//p'", real(want));
	CHECK_INT(usite_entry(real(want), NULL, &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_INT(l.v[0].vaddr, strtoull(entry, NULL, 16));
		CHECK_INT(l.v[0].offset, sec_offset(real(want), ".text", l.v[0].vaddr));
		CHECK_STR(l.v[0].name, "_entry");
		CHECK_STR(l.v[0].path, real(want));
	}
	usite_list_release(&l);
	free(want);
	free(entry);
}

UNIT_MAIN()
