// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols and file offsets of the fixtures (tests/unit/elf/), against the
 * bytes written there, nm and readelf.
 */
#include <errno.h>

#include "common/elfsym.h"
#include "tests/unit/elftest.h"
#include "tests/unit/unit.h"

static const uint8_t asm_func[] = { 0xb8, 0x44, 0x33, 0x22, 0x11, 0x90, 0xc3 };

/* tk_asm_func of @file: its offset holds the bytes prog.c wrote there. */
static void known_bytes(const char *file)
{
	struct elffile *ef = elffile_open(file, NULL, 0);
	struct elfsym_list l;
	uint8_t b[sizeof(asm_func)];

	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_INT(elfsym_find(ef, "tk_asm_func", &l, NULL, 0), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_STR(l.v[0].name, "tk_asm_func");
		CHECK_INT(l.v[0].vaddr, nm_addr(file, "tk_asm_func"));
		CHECK_INT(l.v[0].size, 7);
		CHECK_INT(l.v[0].offset, sec_offset(file, ".text", l.v[0].vaddr));
		CHECK(!file_bytes(file, l.v[0].offset, b, sizeof(b)));
		CHECK(!memcmp(b, asm_func, sizeof(b)));
		CHECK(l.v[0].global && !l.v[0].ifunc);
	}
	elfsym_list_release(&l);
	elffile_free(ef);
}

UNIT_TEST(pie_offsets)
{
	known_bytes(FIX("prog-pie"));
}

UNIT_TEST(fixed_address_offsets)
{
	struct elffile *ef = elffile_open(FIX("prog-nopie"), NULL, 0);

	known_bytes(FIX("prog-nopie"));
	CHECK(ef && elffile_type(ef) == ET_EXEC);
	CHECK(nm_addr(FIX("prog-nopie"), "tk_asm_func") >= 0x400000);
	elffile_free(ef);
}

UNIT_TEST(stripped_uses_dynsym)
{
	struct elffile *ef = elffile_open(FIX("prog-stripped"), NULL, 0);
	struct elffile *full = elffile_open(FIX("prog-pie"), NULL, 0);
	struct elfsym_list l, f;

	CHECK(ef && full);
	if (!ef || !full)
		goto out;
	known_bytes(FIX("prog-stripped"));	/* exported (-rdynamic) */
	CHECK_INT(elfsym_find(ef, "tk_add", &l, NULL, 0), 0);
	CHECK_INT(elfsym_find(full, "tk_add", &f, NULL, 0), 0);
	CHECK(l.n == 1 && f.n == 1 && l.v[0].offset == f.v[0].offset);
	elfsym_list_release(&l);
	elfsym_list_release(&f);
	/* file-local functions go with .symtab */
	CHECK_INT(elfsym_find(full, "tk_dup", &f, NULL, 0), 0);
	CHECK_INT(f.n, 2);
	CHECK_INT(elfsym_find(ef, "tk_dup", &l, NULL, 0), 0);
	CHECK_INT(l.n, 0);
	elfsym_list_release(&l);
	/* ... which the debug file has: the same sites as the full object's */
	CHECK_INT(elffile_add_symbols(ef, FIX("prog-stripped.debug")), 0);
	CHECK_INT(elfsym_find(ef, "tk_dup", &l, NULL, 0), 0);
	CHECK_INT(l.n, 2);
	if (l.n == 2 && f.n == 2)
		CHECK(l.v[0].offset == f.v[0].offset && l.v[1].offset == f.v[1].offset);
	elfsym_list_release(&l);
	elfsym_list_release(&f);
out:
	elffile_free(ef);
	elffile_free(full);
}

UNIT_TEST(globs)
{
	const char *file = FIX("libtk.so");
	struct elffile *ef = elffile_open(file, NULL, 0);
	struct elfsym_list l;
	size_t i;

	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_INT(elfsym_find(ef, "tk_lib_*", &l, NULL, 0), 0);
	CHECK_INT(l.n, 3);
	for (i = 0; i < l.n; i++) {
		CHECK_INT(l.v[i].vaddr, nm_addr(file, l.v[i].name));
		CHECK_INT(l.v[i].offset, sec_offset(file, ".text", l.v[i].vaddr));
		if (i)
			CHECK(l.v[i].vaddr > l.v[i - 1].vaddr);
	}
	elfsym_list_release(&l);
	CHECK_INT(elfsym_find(ef, "tk_lib_t*", &l, NULL, 0), 0);
	CHECK_INT(l.n, 2);
	elfsym_list_release(&l);
	CHECK_INT(elfsym_find(ef, "tk_lib_?ne", &l, NULL, 0), 0);
	CHECK_INT(l.n, 1);
	if (l.n)
		CHECK_STR(l.v[0].name, "tk_lib_one");
	elfsym_list_release(&l);
	CHECK_INT(elfsym_find(ef, "nothing*", &l, NULL, 0), 0);
	CHECK_INT(l.n, 0);
	CHECK_INT(elfsym_find(ef, "", &l, NULL, 0), -EINVAL);
	elffile_free(ef);
}

/* A library linked at 0x10000000 (as prelink would leave it): offsets are
 * vaddr - base, and hold the same code as the library at 0. */
UNIT_TEST(shared_object_at_a_base)
{
	struct elffile *a = elffile_open(FIX("libtk.so"), NULL, 0);
	struct elffile *b = elffile_open(FIX("libtk-based.so"), NULL, 0);
	struct elfsym_list la, lb;
	uint8_t ca[16], cb[16];
	size_t i;

	CHECK(a && b);
	if (!a || !b)
		goto out;
	CHECK_INT(elfsym_find(a, "tk_lib_*", &la, NULL, 0), 0);
	CHECK_INT(elfsym_find(b, "tk_lib_*", &lb, NULL, 0), 0);
	CHECK(la.n == 3 && lb.n == 3);
	for (i = 0; i < la.n && i < lb.n; i++) {
		CHECK(lb.v[i].vaddr >= 0x10000000);
		CHECK_INT(lb.v[i].offset, lb.v[i].vaddr - 0x10000000);
		CHECK_INT(lb.v[i].offset, sec_offset(FIX("libtk-based.so"),
						     ".text", lb.v[i].vaddr));
		CHECK(!file_bytes(FIX("libtk.so"), la.v[i].offset, ca, 16));
		CHECK(!file_bytes(FIX("libtk-based.so"), lb.v[i].offset, cb, 16));
		CHECK(!memcmp(ca, cb, la.v[i].size < 16 ? la.v[i].size : 16));
	}
	elfsym_list_release(&la);
	elfsym_list_release(&lb);
out:
	elffile_free(a);
	elffile_free(b);
}

/* elfsym_resolve() of @spec: its return and its message. */
static int resolve(struct elffile *ef, const char *spec, struct elfsym *s,
		   char *err)
{
	err[0] = '\0';
	memset(s, 0, sizeof(*s));
	return elfsym_resolve(ef, spec, s, err, 256);
}

UNIT_TEST(func_plus_offset)
{
	const char *file = FIX("prog-pie");
	struct elffile *ef = elffile_open(file, NULL, 0);
	uint64_t base = nm_addr(file, "tk_asm_func");
	struct elfsym s;
	char err[256], spec[64];

	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_INT(resolve(ef, "tk_asm_func+5", &s, err), 0);
	CHECK_INT(s.vaddr, base + 5);
	CHECK_INT(s.offset, sec_offset(file, ".text", base) + 5);
	CHECK_STR(s.name, "tk_asm_func+5");
	elfsym_release(&s);
	CHECK_INT(resolve(ef, "tk_asm_func+0x6", &s, err), 0);
	elfsym_release(&s);
	CHECK_INT(resolve(ef, "tk_asm_func", &s, err), 0);
	CHECK_INT(s.vaddr, base);
	elfsym_release(&s);

	CHECK_INT(resolve(ef, "tk_asm_func+1", &s, err), -EINVAL);
	CHECK_STR(err, "tk_asm_func+0x1 is inside an instruction (the one at "
		  "tk_asm_func+0x0 is 5 bytes)");
	CHECK_INT(resolve(ef, "tk_asm_func+7", &s, err), -EINVAL);
	CHECK_STR(err, "offset 0x7 is beyond the end of 'tk_asm_func' (0x7 bytes)");
	CHECK_INT(resolve(ef, "tk_asm_func+x", &s, err), -EINVAL);
	CHECK_STR(err, "bad offset 'x' in 'tk_asm_func+x'");
	CHECK_INT(resolve(ef, "tk_asm_func+-1", &s, err), -EINVAL);
	CHECK_INT(resolve(ef, "tk_nosuch", &s, err), -ENOENT);
	CHECK_STR(err, "no function 'tk_nosuch' in 'build/tests/elf/prog-pie'");
	CHECK_INT(resolve(ef, "tk_dup", &s, err), -ENOTUNIQ);
	CHECK(strstr(err, "2 functions are named 'tk_dup'") != NULL);
	CHECK_INT(resolve(ef, "tk_*", &s, err), -EINVAL);
	CHECK_STR(err, "'tk_*' does not name one function");

	/* a bare address: checked against the function holding it */
	snprintf(spec, sizeof(spec), "0x%" PRIx64, base + 5);
	CHECK_INT(resolve(ef, spec, &s, err), 0);
	CHECK_INT(s.offset, sec_offset(file, ".text", base) + 5);
	elfsym_release(&s);
	snprintf(spec, sizeof(spec), "0x%" PRIx64, base + 2);
	CHECK_INT(resolve(ef, spec, &s, err), -EINVAL);
	CHECK(strstr(err, "inside an instruction") != NULL);
	CHECK_INT(resolve(ef, "0xffffffff00", &s, err), -EINVAL);
	CHECK(strstr(err, "is not in a loadable segment") != NULL);
	elffile_free(ef);
}

/* Offsets into real compiled code: every instruction start objdump lists
 * in tk_add is accepted, everything between refused. */
UNIT_TEST(instruction_boundaries)
{
	const char *file = FIX("prog-pie");
	struct elffile *ef = elffile_open(file, NULL, 0);
	uint64_t at = nm_addr(file, "tk_add");
	char *out = sh_out("objdump -d --no-show-raw-insn --start-address=0x%"
			   PRIx64 " --stop-address=0x%" PRIx64 " %s | "
			   "sed -n 's/^ *\\([0-9a-f]*\\):\t.*/\\1/p'", at,
			   at + 512, file);
	bool starts[512] = { false };
	struct elfsym_list l;
	char *p = out, *end;
	uint64_t a, i;
	int n = 0;

	CHECK(ef != NULL);
	if (!ef || elfsym_find(ef, "tk_add", &l, NULL, 0) || l.n != 1)
		goto out;
	for (; (a = strtoull(p, &end, 16)), end != p; p = end) {
		if (a >= l.v[0].vaddr && a - l.v[0].vaddr < 512)
			starts[a - l.v[0].vaddr] = true, n++;
	}
	CHECK(n > 10);
	for (i = 0; i < l.v[0].size && i < 512; i++)
		CHECK_INT(elfsym_check_offset(ef, &l.v[0], i, NULL, 0),
			  starts[i] ? 0 : -EINVAL);
	elfsym_list_release(&l);
out:
	free(out);
	elffile_free(ef);
}

UNIT_TEST(versioned_symtab_names)
{
	struct elffile *ef = elffile_open(FIX("libtk-ver.so"), NULL, 0);
	struct elfsym_list l;

	CHECK(ef != NULL);
	if (!ef)
		return;
	/* tk_ver@@TK_2 is tk_ver, once; tk_ver@TK_1 is an old version */
	CHECK_INT(elfsym_find(ef, "tk_ver", &l, NULL, 0), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1)
		CHECK_INT(l.v[0].vaddr, nm_addr(FIX("libtk-ver.so"), "tk_ver@@TK_2"));
	elfsym_list_release(&l);
	CHECK_INT(elfsym_find(ef, "tk_ver@*", &l, NULL, 0), 0);
	CHECK_INT(l.n, 0);
	elfsym_list_release(&l);
	elffile_free(ef);
}

UNIT_TEST(ifunc_flagged)
{
	struct elffile *ef = elffile_open(FIX("prog-pie"), NULL, 0);
	struct elfsym_list l;

	CHECK_INT(elfsym_find(ef, "tk_ifunc", &l, NULL, 0), 0);
	CHECK_INT(l.n, 1);
	if (l.n)
		CHECK(l.v[0].ifunc);
	elfsym_list_release(&l);
	elffile_free(ef);
}

UNIT_TEST(data_symbols_and_bss)
{
	struct elffile *ef = elffile_open(FIX("prog-pie"), NULL, 0);
	uint64_t v = 0, off;

	CHECK_INT(elfsym_addr(ef, "tk_bss_var", &v), 0);
	CHECK_INT(v, nm_addr(FIX("prog-pie"), "tk_bss_var"));
	CHECK_INT(elffile_vaddr_to_off(ef, v, &off), -ENOENT);
	CHECK_INT(elfsym_addr(ef, "tk_dup", &v), -ENOTUNIQ);
	CHECK_INT(elfsym_addr(ef, "tk_nosuch", &v), -ENOENT);
	elffile_free(ef);
}

UNIT_TEST(open_errors)
{
	char err[256];

	errno = 0;
	CHECK(elffile_open("/nonexistent/x", err, sizeof(err)) == NULL);
	CHECK_INT(errno, ENOENT);
	CHECK_STR(err, "cannot open '/nonexistent/x': No such file or directory");
	CHECK(elffile_open("Makefile", err, sizeof(err)) == NULL);
	CHECK_INT(errno, ENOEXEC);
	CHECK_STR(err, "'Makefile' is not an ELF file");
	CHECK(elffile_open(FIX("prog-pie-prog.o"), err, sizeof(err)) == NULL);
	CHECK_INT(errno, ENOEXEC);
	CHECK_STR(err, "'build/tests/elf/prog-pie-prog.o' is not an executable "
		  "or shared object");
}

UNIT_MAIN()
