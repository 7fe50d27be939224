// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF-typed target variables (common/dwtype.c) on the fixture
 * tests/fixtures/dwtype_*.c, built at -O0 and -O2.  Expected offsets come
 * from offsetof() over the fixture's own header, stack slots from the
 * stores objdump shows, global addresses from nm and the executable
 * segment from readelf: never from the code under test.
 */
#include <errno.h>
#include <stddef.h>

#include "common/dwtype.h"
#include "tests/fixtures/dwtype_types.h"
#include "tests/unit/elftest.h"
#include "tests/unit/unit.h"

#define DWT(name) "build/tests/fixtures/" name

static struct tval last;
static char last_err[512];

/* "$x->a[2]->b$$", "&$x", "@var(g@f.c)->a", "$return->a" (RET: the entry
 * of the function) into a path and a call. */
static int resolve(struct dwinfo *dw, uint64_t pc, const char *expr,
		   uint64_t ret_entry)
{
	static struct tstep steps[16];
	static char names[16][64];
	struct tpath path = { 0 };
	char root[128], *end;
	const char *s = expr;
	size_t n = 0, k;

	tval_release(&last);
	last_err[0] = '\0';
	if (*s == '&') {
		path.addressof = true;
		s++;
	}
	if (!strncmp(s, "@var(", 5)) {
		k = strcspn(s + 5, ")");
		snprintf(root, sizeof(root), "%.*s", (int)k, s + 5);
		s += 5 + k + 1;
	} else if (!strncmp(s, "@cast(", 6)) {
		k = strcspn(s + 6, ")");
		snprintf(root, sizeof(root), "%.*s", (int)k, s + 6);
		s += 6 + k + 1;
	} else {
		s++;
		k = strcspn(s, "-[$");
		snprintf(root, sizeof(root), "%.*s", (int)k, s);
		s += k;
	}
	while (*s && n < 16) {
		if (!strncmp(s, "->", 2)) {
			s += 2;
			k = strcspn(s, "-[$");
			snprintf(names[n], sizeof(names[n]), "%.*s", (int)k, s);
			steps[n].kind = TSTEP_MEMBER;
			steps[n].name = names[n];
			n++;
			s += k;
		} else if (*s == '[') {
			steps[n].kind = TSTEP_INDEX;
			steps[n].index = strtoll(s + 1, &end, 0);
			n++;
			s = end + 1;
		} else {
			path.pretty = !strcmp(s, "$$") ? 2 : 1;
			break;
		}
	}
	path.steps = steps;
	path.nsteps = n;
	if (!strncmp(expr + path.addressof, "@var(", 5))
		return dwtype_global_at(dw, pc, root, &path, &last, last_err,
					sizeof(last_err));
	if (!strncmp(expr, "@cast(", 6)) {
		/* @cast(TYPE): the pointer is in %di */
		struct tplace p = { .loc = (char *)"%di" };

		return dwtype_cast(dw, root, &p, &path, &last, last_err,
				   sizeof(last_err));
	}
	if (!strcmp(root, "return"))
		return dwtype_return(dw, ret_entry, &path, &last, last_err,
				     sizeof(last_err));
	return dwtype_resolve(dw, pc, root, &path, &last, last_err,
			      sizeof(last_err));
}

/* The args of @expr as "LOC:TYPE LOC:TYPE", or "E: message". */
static const char *args(struct dwinfo *dw, uint64_t pc, const char *expr)
{
	static char s[4096];
	int ret = resolve(dw, pc, expr, 0);
	size_t i;

	if (ret == -ENOENT && !last_err[0])
		return "ENOENT";
	if (ret) {
		snprintf(s, sizeof(s), "E: %s", last_err);
		return s;
	}
	s[0] = '\0';
	for (i = 0; i < last.nargs; i++)
		snprintf(s + strlen(s), sizeof(s) - strlen(s), "%s%s:%s",
			 i ? " " : "", last.args[i].loc, last.args[i].type);
	return s;
}

static const char *ret_args(struct dwinfo *dw, uint64_t entry, const char *expr)
{
	static char s[1024];
	int ret = resolve(dw, 0, expr, entry);

	if (ret == -ENOENT)
		return "ENOENT";
	if (ret)
		snprintf(s, sizeof(s), "E: %s", last_err);
	else
		snprintf(s, sizeof(s), "%s:%s", last.args[0].loc,
			 last.args[0].type);
	return s;
}

/* Where @fn's code starts and where its prologue ends. */
static int func(struct dwinfo *dw, const char *fn, uint64_t *entry,
		uint64_t *body)
{
	struct dwfunc_list l;
	char err[256];

	if (dwinfo_funcs(dw, fn, 0, &l, err, sizeof(err)) || l.n != 1) {
		printf("#   %s: %s\n", fn, err);
		return -1;
	}
	*entry = l.v[0].entry;
	*body = l.v[0].body;
	dwfunc_list_release(&l);
	return 0;
}

/* The frame offset the prologue of @fn stores @reg at (objdump). */
static long slot(const char *file, const char *fn, const char *reg)
{
	char *out = sh_out("objdump -d --no-show-raw-insn %s | sed -n "
			   "'/<%s>:/,/^$/p' | grep -m1 'mov *%%%s,-0x'",
			   file, fn, reg);
	char *p = strstr(out, ",-0x");
	long off = p ? -strtol(p + 4, NULL, 16) : 0;

	free(out);
	return off;
}

/* @sym's uprobe file offset: its address less the executable segment's
 * distance from its file offset (readelf). */
static uint64_t fileoff(const char *file, uint64_t addr)
{
	char *out = sh_out("readelf -lW %s | awk '$1 == \"LOAD\" && / R E / "
			   "{ print $3, $2; exit }'", file);
	uint64_t va, off;

	va = strtoull(out, NULL, 16);
	off = strtoull(strchr(out, ' ') + 1, NULL, 16);
	free(out);
	return addr - (va - off);
}

static const char *vars(struct dwinfo *dw, uint64_t pc, unsigned int flags);

#define OFF(m) ((long)offsetof(struct node, m))

UNIT_TEST(o0_member_chains)
{
	const char *file = DWT("dwtype-O0");
	struct dwinfo *dw = dwinfo_open(file, NULL, NULL, 0);
	uint64_t entry, pc;
	long n = slot(file, "tk_walk", "rdi"), m = slot(file, "tk_walk", "rsi");
	char w[512];

	CHECK(dw && n && m);
	if (!dw || func(dw, "tk_walk", &entry, &pc))
		goto out;
#define EXPECT(expr, ...) do {						\
	snprintf(w, sizeof(w), __VA_ARGS__);				\
	CHECK_STR(args(dw, pc, expr), w);				\
} while (0)
	EXPECT("$n", "%ld(%%bp):x64", n);
	CHECK_STR(last.ctype, "struct node *");
	CHECK_INT(last.kind, TVAL_LONG);
	EXPECT("$n->val", "+%ld(%ld(%%bp)):s32", OFF(val), n);
	EXPECT("$n->next->val", "+%ld(+%ld(%ld(%%bp))):s32", OFF(val),
	       OFF(next), n);
	EXPECT("$n->next->next->name", "+%ld(+%ld(+%ld(%ld(%%bp)))):string",
	       OFF(name), OFF(next), OFF(next), n);
	EXPECT("$n->name", "+%ld(%ld(%%bp)):string", OFF(name), n);
	CHECK_INT(last.kind, TVAL_STRING);
	CHECK_STR(last.ctype, "char [12]");
	EXPECT("$n->label", "+0(+%ld(%ld(%%bp))):string", OFF(label), n);
	CHECK_STR(last.ctype, "const char *");
	/* flags:3 and mode:5 share the unsigned int before arr */
	EXPECT("$n->flags", "+%ld(%ld(%%bp)):b3@0/32", OFF(arr) - 4, n);
	CHECK_STR(last.ctype, "unsigned int");
	EXPECT("$n->mode", "+%ld(%ld(%%bp)):b5@3/32", OFF(arr) - 4, n);
	EXPECT("$n->arr[2]", "+%ld(%ld(%%bp)):s32", OFF(arr) + 8, n);
	EXPECT("$n->arr[-1]", "+%ld(%ld(%%bp)):s32", OFF(arr) - 4, n);
	EXPECT("$n->in->s", "+%ld(%ld(%%bp)):s16", OFF(in), n);
	EXPECT("$n->in->c", "+%ld(%ld(%%bp)):u8", OFF(in) + 2, n);
	EXPECT("$n->u->i", "+%ld(%ld(%%bp)):s32", OFF(u), n);
	EXPECT("$n->anon_b", "+%ld(%ld(%%bp)):s64", OFF(anon_b), n);
	EXPECT("$n->color", "+%ld(%ld(%%bp)):u32", OFF(color), n);
	CHECK_STR(last.ctype, "enum color");
	EXPECT("$n->grid[1][2]", "+%ld(%ld(%%bp)):s32", OFF(grid) + 20, n);
	EXPECT("$n->cb", "+%ld(%ld(%%bp)):x64", OFF(cb), n);
	CHECK_STR(last.ctype, "int (*)(int, const char *)");
	EXPECT("$m->next", "+%ld(%ld(%%bp)):x64", OFF(next), m);
	CHECK_STR(last.ctype, "struct node *");
	EXPECT("$m[1]->val", "+%ld(%ld(%%bp)):s32",
	       (long)sizeof(struct node) + OFF(val), m);
	EXPECT("$msg", "+0(%ld(%%bp)):string", slot(file, "tk_walk", "rcx"));
	EXPECT("$k", "%ld(%%bp):s32", slot(file, "tk_walk", "edx"));
	/* the address: the base fetched, the offset added afterwards */
	EXPECT("&$n->arr[1]", "%ld(%%bp):x64", n);
	CHECK_INT(last.add, OFF(arr) + 4);
	CHECK_STR(last.ctype, "int *");
	EXPECT("&$n", "%%bp:x64");
	CHECK_INT(last.add, n);
	CHECK_STR(last.ctype, "struct node **");
	EXPECT("&$local_buf", "%%bp:x64");
	CHECK_STR(last.ctype, "char (*)[8]");
	EXPECT("&$n->grid[1]", "%ld(%%bp):x64", n);
	CHECK_INT(last.add, OFF(grid) + 12);
	CHECK_STR(last.ctype, "int (*)[3]");
	/* @cast of a pointer in %di */
	EXPECT("@cast(struct node)->next->val", "+0(+%ld(%%di)):s32", OFF(next));
	EXPECT("@cast(node_t)->in->c", "+%ld(%%di):u8", OFF(in) + 2);
	EXPECT("@cast(node)->label", "+0(+%ld(%%di)):string", OFF(label));
	EXPECT("@cast(int)", "+0(%%di):s32");
#undef EXPECT
out:
	tval_release(&last);
	dwinfo_free(dw);
}

UNIT_TEST(o0_errors)
{
	struct dwinfo *dw = dwinfo_open(DWT("dwtype-O0"), NULL, NULL, 0);
	uint64_t entry, pc, g = fileoff(DWT("dwtype-O0"),
					nm_addr(DWT("dwtype-O0"), "g_node"));
	char w[256];

	CHECK(dw != NULL);
	if (!dw || func(dw, "tk_walk", &entry, &pc))
		goto out;
	CHECK_STR(args(dw, pc, "$n->nope"), "E: no member 'nope' in 'struct node'");
	CHECK_STR(args(dw, pc, "$n->in->nope"), "E: no member 'nope' in 'struct inner'");
	CHECK_STR(args(dw, pc, "$k->x"), "E: 'k' is 'int', not a struct, union "
		  "or pointer to one: it has no member 'x'");
	CHECK_STR(args(dw, pc, "$k[1]"), "E: 'k' is 'int', not an array or "
		  "pointer: it cannot be indexed");
	CHECK_STR(args(dw, pc, "$n->arr"), "E: 'n->arr' is an array ('int [4]'): "
		  "index it or print it with $n->arr$");
	CHECK_STR(args(dw, pc, "$n->grid[1]"), "E: 'n->grid[1]' is an array "
		  "('int [3]'): index it or print it with $n->grid[1]$");
	CHECK_STR(args(dw, pc, "$n->in"), "E: 'n->in' is 'struct inner': read a "
		  "member, or print it with $n->in$");
	CHECK_STR(args(dw, pc, "$n->weight"), "E: 'n->weight' is a floating-point "
		  "value ('double'), which cannot be fetched");
	CHECK_STR(args(dw, pc, "$scale"), "E: 'scale' is a floating-point value "
		  "('double'), which cannot be fetched");
	CHECK_STR(args(dw, pc, "$n->cookie->x"), "E: 'n->cookie' is a void "
		  "pointer: @cast it to read member 'x'");
	CHECK_STR(args(dw, pc, "$n->cookie[1]"), "E: 'n->cookie' points to void: "
		  "it cannot be indexed");
	CHECK_STR(args(dw, pc, "$n->flags->x"), "E: 'n->flags' is a bitfield: it "
		  "has no member 'x'");
	CHECK_STR(args(dw, pc, "&$n->flags"), "E: 'n->flags' is a bitfield: it has "
		  "no address");
	CHECK_STR(args(dw, pc, "$nope"), "ENOENT");
	/* a block's local is not visible outside the block */
	CHECK_STR(args(dw, pc, "$step"), "ENOENT");
	CHECK_STR(args(dw, pc, "@var(nope)"), "E: no global 'nope'");
	CHECK_STR(args(dw, pc, "@var(s_count@dwtype_main.c)"),
		  "E: no global 's_count' in 'dwtype_main.c'");
	CHECK_INT(resolve(dw, pc, "@cast(struct nope)->x", 0), -ENOENT);
	CHECK_STR(last_err, "no type 'struct nope' in '" DWT("dwtype-O0") "'");
	/* $ of a scalar: its value */
	snprintf(w, sizeof(w), "@+0x%" PRIx64 ":s32", g);
	CHECK_STR(args(dw, pc, "@var(g_node)->val$"), w);
	CHECK_STR(last.fmt, "%1");
	snprintf(w, sizeof(w), "@+0x%" PRIx64 ":string", g + OFF(name));
	CHECK_STR(args(dw, pc, "@var(g_node)->name$$"), w);
	CHECK_STR(last.fmt, "%1");
out:
	tval_release(&last);
	dwinfo_free(dw);
}

UNIT_TEST(globals_at_file_offsets)
{
	static const char *const files[] = {
		DWT("dwtype-O0"), DWT("dwtype-O2"), DWT("dwtype-O2-nopie"),
	};
	char w[256];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *file = files[i];
		struct dwinfo *dw = dwinfo_open(file, NULL, NULL, 0);
		uint64_t g = fileoff(file, nm_addr(file, "g_node"));
		uint64_t entry, pc;

		CHECK(dw != NULL);
		if (!dw || func(dw, "tk_walk", &entry, &pc)) {
			dwinfo_free(dw);
			continue;
		}
		snprintf(w, sizeof(w), "@+0x%" PRIx64 ":s32", g + OFF(val));
		CHECK_STR(args(dw, pc, "@var(g_node)->val"), w);
		/* found by name as $g_node too: not a local, so a global */
		CHECK_STR(args(dw, pc, "$g_node->val"), w);
		snprintf(w, sizeof(w), "@+0x%" PRIx64 ":string", g + OFF(name));
		CHECK_STR(args(dw, pc, "@var(g_node@dwtype_main.c)->name"), w);
		snprintf(w, sizeof(w), "+0(@+0x%" PRIx64 "):string", g + OFF(label));
		CHECK_STR(args(dw, pc, "@var(g_node)->label"), w);
		snprintf(w, sizeof(w), "+%ld(@+0x%" PRIx64 "):s32", OFF(val),
			 g + OFF(next));
		CHECK_STR(args(dw, pc, "@var(g_node)->next->val"), w);
		/* .bss: no file contents, an offset all the same */
		snprintf(w, sizeof(w), "@+0x%" PRIx64 ":s32",
			 fileoff(file, nm_addr(file, "g_bss")));
		CHECK_STR(args(dw, pc, "@var(g_bss)"), w);
		/* &: %ip is the probed address, the global a constant away */
		CHECK_STR(args(dw, pc, "&@var(g_node)->arr[1]"), "%ip:x64");
		CHECK_INT(last.add, (int64_t)(nm_addr(file, "g_node") + OFF(arr) +
					      4 - pc));
		CHECK_STR(last.ctype, "int *");
		/* same-named statics: the probe's unit first, or by file */
		{
			char mine[64], other[64];

			snprintf(mine, sizeof(mine), "%s", args(dw, pc, "@var(s_dup)"));
			snprintf(other, sizeof(other), "%s",
				 args(dw, pc, "@var(s_dup@dwtype_other.c)"));
			CHECK(strcmp(mine, other) != 0);
			CHECK_STR(args(dw, pc, "@var(s_dup@dwtype_main.c)"), mine);
		}
		snprintf(w, sizeof(w), "@+0x%" PRIx64 ":s64",
			 fileoff(file, nm_addr(file, "s_count")));
		CHECK_STR(args(dw, pc, "@var(s_count@dwtype_other.c)->hits"), w);
		dwinfo_free(dw);
	}
	tval_release(&last);
}

UNIT_TEST(pretty)
{
	struct dwinfo *dw = dwinfo_open(DWT("dwtype-O2"), NULL, NULL, 0);
	uint64_t entry, pc;
	char w[2048];

	CHECK(dw != NULL);
	if (!dw || func(dw, "tk_walk", &entry, &pc))
		goto out;
	/* $: one level, pointers in hex, char arrays as strings */
	snprintf(w, sizeof(w), "+%ld(%%di):s16 +%ld(%%di):u8", OFF(in), OFF(in) + 2);
	CHECK_STR(args(dw, pc, "$n->in$"), w);
	CHECK_STR(last.fmt, "{.s=%1, .c=%2}");
	CHECK_INT(last.kind, TVAL_PRETTY);
	CHECK_STR(last.ctype, "struct inner");
	args(dw, pc, "$n$");
	CHECK_STR(last.fmt, "{.val=%1, .next=%2, .name=%3, .label=%4, .flags=%5, "
		  ".mode=%6, .arr=[...], .in={...}, .u={...}, .anon_a=%7, "
		  ".anon_b=%8, .color=%9, .weight=?, .grid=[...], .cookie=%10, "
		  ".cb=%11}");
	CHECK_INT(last.nargs, 11);
	snprintf(w, sizeof(w), "+%ld(%%di)", OFF(label));
	CHECK_STR(last.args[3].loc, w);
	CHECK_STR(last.args[3].type, "x64");
	CHECK_STR(last.args[2].type, "string");
	/* $$: all levels, char pointers as strings too */
	args(dw, pc, "$n$$");
	CHECK_STR(last.fmt, "{.val=%1, .next=%2, .name=%3, .label=%4, .flags=%5, "
		  ".mode=%6, .arr=[%7, %8, %9, %10], .in={.s=%11, .c=%12}, "
		  ".u={.i=%13, .f=?}, .anon_a=%14, .anon_b=%15, .color=%16, "
		  ".weight=?, .grid=[[%17, %18, %19], [%20, %21, %22]], "
		  ".cookie=%23, .cb=%24}");
	CHECK_INT(last.nargs, 24);
	snprintf(w, sizeof(w), "+0(+%ld(%%di))", OFF(label));
	CHECK_STR(last.args[3].loc, w);
	CHECK_STR(last.args[3].type, "string");
	snprintf(w, sizeof(w), "+%ld(%%di)", OFF(grid) + 20);
	CHECK_STR(last.args[21].loc, w);
	/* a scalar: its value */
	CHECK_STR(args(dw, pc, "$k$"), "%dx:s32");
	CHECK_STR(last.fmt, "%1");
	CHECK_STR(args(dw, pc, "$msg$"), "+0(%cx):string");
	CHECK_STR(last.fmt, "%1");
	/* a pointer to a struct member: the struct it points to */
	args(dw, pc, "$n->next$");
	CHECK_INT(last.nargs, 11);
	snprintf(w, sizeof(w), "+%ld(+%ld(%%di))", OFF(val), OFF(next));
	CHECK_STR(last.args[0].loc, w);
out:
	tval_release(&last);
	dwinfo_free(dw);
}

UNIT_TEST(o2_registers)
{
	struct dwinfo *dw = dwinfo_open(DWT("dwtype-O2"), NULL, NULL, 0);
	uint64_t entry, pc;
	char w[256];

	CHECK(dw != NULL);
	if (!dw || func(dw, "tk_walk", &entry, &pc))
		goto out;
	CHECK_STR(args(dw, entry, "$n"), "%di:x64");
	snprintf(w, sizeof(w), "+%ld(+%ld(%%di)):s32", OFF(val), OFF(next));
	CHECK_STR(args(dw, entry, "$n->next->val"), w);
	snprintf(w, sizeof(w), "+%ld(%%si):s32", OFF(val));
	CHECK_STR(args(dw, entry, "$m->val"), w);
	CHECK_STR(args(dw, entry, "$k"), "%dx:s32");
	CHECK_STR(args(dw, entry, "$msg"), "+0(%cx):string");
	CHECK_STR(args(dw, entry, "&$n"), "E: 'n' is in a register here: it "
		  "has no address");
	CHECK_STR(args(dw, entry, "$scale"), "E: 'scale' is a floating-point "
		  "value ('double'), which cannot be fetched");
	/* its address: in an SSE register it has none */
	CHECK_STR(args(dw, entry, "&$scale"), "E: 'scale' is in DWARF register "
		  "17, which uprobes cannot fetch");
	/* main's r has no location before its call, its static locals live
	 * in .data */
	if (func(dw, "main", &entry, &pc))
		goto out;
	snprintf(w, sizeof(w), "E: 'r' is optimized out at 0x%" PRIx64, entry);
	CHECK_STR(args(dw, entry, "$r"), w);
	/* at the entry, DW_OP_entry_value(%di) is %di itself */
	CHECK_STR(args(dw, entry, "$argc"), "%di:s32");
	CHECK(!strncmp(args(dw, entry, "$a->next->name"), "+16(@+0x", 8));
	CHECK_STR(args(dw, entry, "$b"), "E: 'b' is 'struct node': read a "
		  "member, or print it with $b$");
	snprintf(w, sizeof(w), "+b:struct node, +a:struct node, +c:char!not "
		 "in its stack slot before the end of the prologue (probe at "
		 "0x%" PRIx64 " or later), +r:int!optimized out at 0x%" PRIx64,
		 pc, entry);
	CHECK_STR(vars(dw, entry, DWTYPE_LOCALS), w);
out:
	tval_release(&last);
	dwinfo_free(dw);
}

UNIT_TEST(return_values)
{
	struct dwinfo *dw = dwinfo_open(DWT("dwtype-O2"), NULL, NULL, 0);
	uint64_t entry, body, walk, nop;
	char w[256];

	CHECK(dw != NULL);
	if (!dw || func(dw, "tk_find", &entry, &body) ||
	    func(dw, "tk_walk", &walk, &body) || func(dw, "tk_nop", &nop, &body))
		goto out;
	CHECK_STR(ret_args(dw, entry, "$return"), "%ax:x64");
	CHECK_STR(last.ctype, "struct node *");
	snprintf(w, sizeof(w), "+%ld(%%ax):s32", OFF(val));
	CHECK_STR(ret_args(dw, entry, "$return->val"), w);
	snprintf(w, sizeof(w), "+%ld(%%ax):string", OFF(name));
	CHECK_STR(ret_args(dw, entry, "$return->name"), w);
	CHECK_STR(ret_args(dw, walk, "$return"), "%ax:s32");
	CHECK_STR(last.ctype, "int");
	CHECK_STR(ret_args(dw, nop, "$return"), "ENOENT");
	CHECK_STR(ret_args(dw, walk, "$return->x"), "E: 'return' is 'int', not a "
		  "struct, union or pointer to one: it has no member 'x'");
out:
	tval_release(&last);
	dwinfo_free(dw);
}

/* "name:ctype" or "name:ctype!why" of each variable, joined by ", " */
static const char *vars(struct dwinfo *dw, uint64_t pc, unsigned int flags)
{
	static char s[2048];
	struct dwvar *v;
	char err[256];
	size_t n, i;
	int ret = dwtype_vars(dw, pc, flags, &v, &n, err, sizeof(err));

	if (ret) {
		snprintf(s, sizeof(s), "E%d: %s", ret, ret == -ENOENT ? "" : err);
		return s;
	}
	s[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(s + strlen(s), sizeof(s) - strlen(s), "%s%s%s:%s%s%s",
			 i ? ", " : "", v[i].param ? "" : "+", v[i].name,
			 v[i].ctype, v[i].unavailable ? "!" : "",
			 v[i].unavailable ? v[i].unavailable : "");
	dwvars_free(v, n);
	return s;
}

/* The first address of @spec's line (dwinfo_statement). */
static uint64_t line_addr(struct dwinfo *dw, const char *spec)
{
	struct dwline *l;
	char err[256];
	size_t n;
	uint64_t a = 0;

	if (!dwinfo_statement(dw, spec, &l, &n, err, sizeof(err)) && n) {
		a = l[0].addr;
		dwlines_free(l, n);
	}
	return a;
}

UNIT_TEST(vars_in_scope)
{
	const char *file = DWT("dwtype-O0");
	struct dwinfo *dw = dwinfo_open(file, NULL, NULL, 0);
	struct dwfunc_list l;
	uint64_t entry, pc, in_loop;
	char err[256], *line, w[256], want[2048];

	CHECK(dw != NULL);
	if (!dw || func(dw, "tk_walk", &entry, &pc))
		goto out;
	CHECK_STR(vars(dw, pc, DWTYPE_PARAMS), "n:struct node *, m:node_p, k:int, "
		  "msg:const char *, scale:double");
	CHECK_STR(vars(dw, pc, DWTYPE_PARAMS | DWTYPE_LOCALS),
		  "n:struct node *, m:node_p, k:int, msg:const char *, "
		  "scale:double, +local_buf:char [8], +sum:int, +i:int");
	/* at the entry the stack slots are not written yet */
	snprintf(w, sizeof(w), "not in its stack slot before the end of the "
		 "prologue (probe at 0x%" PRIx64 " or later)", pc);
	snprintf(want, sizeof(want), "n:struct node *!%s, m:node_p!%s, k:int!%s, "
		 "msg:const char *!%s, scale:double!%s", w, w, w, w, w);
	CHECK_STR(vars(dw, entry, DWTYPE_PARAMS), want);
	/* in the loop's block: its local first among the locals */
	line = sh_out("grep -n 'int step = ' tests/fixtures/dwtype_main.c | "
		      "cut -d: -f1 | tr -d '\\n'");
	{
		char spec[64];

		snprintf(spec, sizeof(spec), "dwtype_main.c:%s", line);
		in_loop = line_addr(dw, spec);
	}
	free(line);
	CHECK(in_loop != 0);
	CHECK_STR(vars(dw, in_loop, DWTYPE_LOCALS),
		  "+step:int, +local_buf:char [8], +sum:int, +i:int");
	CHECK(strstr(args(dw, in_loop, "$step"), "(%bp):s32") != NULL);
	/* inside the inline instance: its parameters, not the caller's */
	if (dwinfo_funcs(dw, "tk_inl", DWINFO_INLINE, &l, err, sizeof(err)) ||
	    l.n != 1) {
		CHECK(!"one inline instance of tk_inl");
		goto out;
	}
	CHECK_STR(vars(dw, l.v[0].entry, DWTYPE_PARAMS | DWTYPE_LOCALS),
		  "in_n:struct node *, in_k:int");
	CHECK_STR(args(dw, l.v[0].entry, "$n"), "ENOENT");
	CHECK(strstr(args(dw, l.v[0].entry, "$in_n->val"), ":s32") != NULL);
	dwfunc_list_release(&l);
	CHECK_STR(vars(dw, 1, DWTYPE_PARAMS), "E-2: ");
out:
	tval_release(&last);
	dwinfo_free(dw);
}

UNIT_MAIN()
