// SPDX-License-Identifier: GPL-2.0
/*
 * USDT notes: hand-made note bytes (well-formed and hostile), then the
 * probes of the fixture programs (tests/unit/elf/usdt.c) checked against
 * nm and readelf.
 */
#include <errno.h>

#include "common/elfsym.h"
#include "common/usdt.h"
#include "tests/unit/elftest.h"
#include "tests/unit/unit.h"

struct buf {
	uint8_t b[1024];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void pad4(struct buf *b)
{
	while (b->n % 4)
		b->b[b->n++] = 0;
}

/* A note of @type by @owner whose descriptor is @desc (@dn bytes). */
static void note(struct buf *b, const char *owner, uint32_t type,
		 const void *desc, size_t dn)
{
	put32(b, strlen(owner) + 1);
	put32(b, dn);
	put32(b, type);
	put(b, owner, strlen(owner) + 1);
	pad4(b);
	put(b, desc, dn);
	pad4(b);
}

/* A stapsdt descriptor: addresses then strings (with their NULs). */
static size_t desc(uint8_t *d, uint64_t pc, uint64_t base, uint64_t sema,
		   const char *strs, size_t slen)
{
	memcpy(d, &pc, 8);
	memcpy(d + 8, &base, 8);
	memcpy(d + 16, &sema, 8);
	memcpy(d + 24, strs, slen);
	return 24 + slen;
}

#define STRS(s)	s, sizeof(s)		/* keeps the final NUL */

UNIT_TEST(parses_notes)
{
	struct buf b = { .n = 0 };
	struct usdt_note n;
	uint8_t d[128];
	char err[256];
	size_t pos = 0, dn;

	dn = desc(d, 0x1129, 0x2004, 0x4022, STRS("prov\0name\0-4@%edi"));
	note(&b, "stapsdt", 3, d, dn);
	note(&b, "GNU", 3, d, dn);		/* another owner: skipped */
	note(&b, "stapsdt", 4, d, dn);		/* another type: skipped */
	dn = desc(d, 0x1130, 0x2004, 0, STRS("p2\0n2\0"));
	note(&b, "stapsdt", 3, d, dn);

	CHECK_INT(usdt_note_next(b.b, b.n, &pos, 8, &n, err, sizeof(err)), 1);
	CHECK_INT(n.pc, 0x1129);
	CHECK_INT(n.base, 0x2004);
	CHECK_INT(n.sema, 0x4022);
	CHECK_STR(n.provider, "prov");
	CHECK_STR(n.name, "name");
	CHECK_STR(n.args, "-4@%edi");
	CHECK_INT(usdt_note_next(b.b, b.n, &pos, 8, &n, err, sizeof(err)), 1);
	CHECK_INT(n.pc, 0x1130);
	CHECK_STR(n.provider, "p2");
	CHECK_STR(n.args, "");
	CHECK_INT(usdt_note_next(b.b, b.n, &pos, 8, &n, err, sizeof(err)), 0);
	CHECK_INT(pos, b.n);
}

UNIT_TEST(parses_32bit_notes)
{
	struct buf b = { .n = 0 };
	uint8_t d[64];
	uint32_t a[3] = { 0x8048100, 0x8048200, 0 };
	struct usdt_note n;
	size_t pos = 0;

	memcpy(d, a, 12);
	memcpy(d + 12, "p\0n\0" "4@%eax", 11);
	note(&b, "stapsdt", 3, d, 23);
	CHECK_INT(usdt_note_next(b.b, b.n, &pos, 4, &n, NULL, 0), 1);
	CHECK_INT(n.pc, 0x8048100);
	CHECK_INT(n.base, 0x8048200);
	CHECK_STR(n.args, "4@%eax");
}

/* @b's notes are refused with a message containing @why. */
static void rejects(const struct buf *b, const char *why)
{
	struct usdt_note n;
	char err[256] = "";
	size_t pos = 0;
	int ret;

	while ((ret = usdt_note_next(b->b, b->n, &pos, 8, &n, err,
				     sizeof(err))) > 0)
		;
	CHECK_INT(ret, -EINVAL);
	if (!strstr(err, why))
		printf("#   '%s' does not say '%s'\n", err, why);
	CHECK(strstr(err, why) != NULL);
}

UNIT_TEST(rejects_malformed_notes)
{
	struct buf b = { .n = 0 }, t;
	uint8_t d[128];
	size_t dn;

	dn = desc(d, 0x1129, 0x2004, 0, STRS("prov\0name\0args"));
	note(&b, "stapsdt", 3, d, dn);

	t = b;			/* cut inside the header */
	t.n = 7;
	rejects(&t, "truncated note header");
	t = b;			/* cut inside the descriptor */
	t.n -= 12;
	rejects(&t, "descriptor size");
	t = b;			/* name size past the end */
	memcpy(t.b, (uint32_t[]){ 0xfffffff0 }, 4);
	rejects(&t, "name size");
	t = b;			/* a huge descriptor size, no overflow */
	memcpy(t.b + 4, (uint32_t[]){ 0xffffffff }, 4);
	rejects(&t, "descriptor size");
	t.n = 0;		/* strings without their NULs */
	dn = desc(d, 1, 2, 0, "prov\0name\0args", 14);
	note(&t, "stapsdt", 3, d, dn);
	rejects(&t, "arguments not NUL-terminated");
	t.n = 0;
	dn = desc(d, 1, 2, 0, "provname", 8);
	note(&t, "stapsdt", 3, d, dn);
	rejects(&t, "provider not NUL-terminated");
	t.n = 0;		/* too short for the addresses */
	note(&t, "stapsdt", 3, d, 20);
	rejects(&t, "too short");
	t.n = 0;
	dn = desc(d, 1, 2, 0, STRS("\0name\0"));
	note(&t, "stapsdt", 3, d, dn);
	rejects(&t, "empty provider or name");
	/* a good note after a bad one is not reached */
	t = b;
	memcpy(t.b + 4, (uint32_t[]){ 3 }, 4);
	rejects(&t, "too short");
}

/* The fixture's probe @prov:@name at its @i-th call site, or NULL. */
static const struct usdt_probe *probe(const struct usdt_list *l,
				      const char *prov, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].provider, prov) &&
		    !strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

static char *arg(const struct usdt_probe *p, size_t i)
{
	static char s[256];
	char *f;

	if (!p || i >= p->nargs)
		return "(none)";
	f = fetcharg_format(&p->args[i]);
	snprintf(s, sizeof(s), "%s", f ? f : p->args[i].refused);
	free(f);
	return s;
}

/* Every call site of @file against nm/readelf. */
static void check_fixture(const char *file, bool pie)
{
	char err[256] = "", want[64];
	const struct usdt_probe *p;
	struct usdt_list l;
	struct elffile *ef = elffile_open(file, err, sizeof(err));
	uint64_t counter = nm_addr(file, "tk_counter"), site;
	uint8_t byte = 0;

	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_INT(usdt_find(ef, NULL, NULL, &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 8);

	p = probe(&l, "tk", "regs");
	CHECK(p != NULL);
	if (!p)
		goto out;
	site = nm_addr(file, "tk_usdt_regs");
	CHECK(site != 0);
	CHECK_INT(p->pc, site);
	CHECK_INT(p->offset, sec_offset(file, ".text", site));
	CHECK(!file_bytes(file, p->offset, &byte, 1) && byte == 0x90);
	CHECK_INT(p->sema, 0);
	CHECK_INT(p->sema_offset, 0);
	CHECK(p->refused == NULL);
	CHECK_STR(p->argstr, "-4@%ebx 8@%rax 4@%eax 2@%r9w 1@%ah -1@%dil 8@%r15 %ecx");
	CHECK_INT(p->nargs, 8);
	CHECK_STR(arg(p, 0), "arg1=%bx:s32");
	CHECK_STR(arg(p, 1), "arg2=%ax:u64");
	CHECK_STR(arg(p, 2), "arg3=%ax:u32");
	CHECK_STR(arg(p, 3), "arg4=%r9:u16");
	CHECK_STR(arg(p, 4), "arg5=%ax:b8@8/64");
	CHECK_STR(arg(p, 5), "arg6=%di:s8");
	CHECK_STR(arg(p, 6), "arg7=%r15:u64");
	CHECK_STR(arg(p, 7), "arg8=%cx:s32");

	p = probe(&l, "tk", "mem");
	site = nm_addr(file, "tk_usdt_mem");
	CHECK_INT(p->pc, site);
	CHECK_STR(arg(p, 0), "arg1=-24(%bp):u64");
	CHECK_STR(arg(p, 1), "arg2=+16(%sp):s32");
	CHECK_STR(arg(p, 2), "arg3=+0(%ax):u64");
	snprintf(want, sizeof(want), "arg4=+0x%" PRIx64 "(%%ip):u64",
		 counter - site);
	CHECK_STR(arg(p, 3), want);
	snprintf(want, sizeof(want), "arg5=+0x%" PRIx64 "(%%ip):s64",
		 counter + 8 - site);
	CHECK_STR(arg(p, 4), want);
	snprintf(want, sizeof(want), "arg6=+0x%" PRIx64 "(%%ip):u64",
		 counter - site);
	CHECK_STR(arg(p, 5), want);

	p = probe(&l, "tk", "imm");
	CHECK_STR(arg(p, 0), "arg1=\\5:s32");
	CHECK_STR(arg(p, 1), "arg2=\\0xfffffffb:s32");
	CHECK_STR(arg(p, 2), "arg3=\\16:u64");
	CHECK_STR(arg(p, 3), "arg4=\\0xffff:s16");

	p = probe(&l, "tk", "bad");
	CHECK(p->refused == NULL);	/* the site is fine, its args are not */
	CHECK_STR(arg(p, 0), "8@(%rax,%rdx,8): indexed memory operand "
		  "(base,index,scale): uprobes cannot add registers");
	CHECK_STR(arg(p, 1), "16@%rax: unsupported argument size 16");
	CHECK_STR(arg(p, 2), "8@%xmm1: register '%xmm1' cannot be fetched "
		  "(not a general-purpose register)");
	CHECK_STR(arg(p, 3), "8@tk_nosuch(%rip): symbol 'tk_nosuch' not found");
	if (pie) {
		CHECK_STR(arg(p, 4), "8@$tk_counter: immediate address of "
			  "symbol 'tk_counter' is only known at run time");
	} else {
		snprintf(want, sizeof(want), "arg5=\\%" PRIu64 ":u64", counter);
		CHECK_STR(arg(p, 4), want);
	}

	/* the semaphores, as file offsets: what the kernel takes */
	p = probe(&l, "tk", "hand_sema");
	CHECK_INT(p->sema, nm_addr(file, "tk_hand_sema_semaphore"));
	CHECK_INT(p->sema_offset, sec_offset(file, ".probes", p->sema));
	CHECK(p->sema_offset != 0);
	CHECK_STR(arg(p, 0), "arg1=%di:u32");
	p = probe(&l, "tk", "compiled");
	CHECK_INT(p->sema, nm_addr(file, "tk_compiled_semaphore"));
	CHECK_INT(p->sema_offset, sec_offset(file, ".probes", p->sema));
	CHECK_INT(p->nargs, 2);
	CHECK(p->args[0].refused == NULL && p->args[1].refused == NULL);
	CHECK_STR(p->args[0].type, "s32");	/* int argc */
	CHECK_STR(p->args[1].type, "s64");	/* (long)argv */
	CHECK(!file_bytes(file, p->offset, &byte, 1) && byte == 0x90);
out:
	usdt_list_release(&l);
	/* globs; two call sites of one probe */
	CHECK_INT(usdt_find(ef, "tk2", "twice", &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 2);
	if (l.n == 2) {
		CHECK_INT(l.v[0].pc, nm_addr(file, "tk_usdt_twice1"));
		CHECK_INT(l.v[1].pc, nm_addr(file, "tk_usdt_twice2"));
	}
	usdt_list_release(&l);
	CHECK_INT(usdt_find(ef, "tk", "*m*", &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 4);		/* mem imm hand_sema compiled */
	usdt_list_release(&l);
	elffile_free(ef);
}

UNIT_TEST(fixture_pie)
{
	check_fixture(FIX("usdt-pie"), true);
}

UNIT_TEST(fixture_fixed_address)
{
	check_fixture(FIX("usdt-nopie"), false);
}

/* prelink moves code and .stapsdt.base, not the notes' contents */
UNIT_TEST(prelink_adjustment)
{
	const char *file = FIX("usdt-moved");
	struct elffile *ef = elffile_open(file, NULL, 0);
	const struct usdt_probe *p;
	struct usdt_list l;
	char err[256];

	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_INT(usdt_find(ef, NULL, NULL, &l, err, sizeof(err)), 0);
	p = probe(&l, "tk", "regs");
	CHECK(p != NULL);
	if (p) {
		CHECK_INT(p->pc, nm_addr(FIX("usdt-pie"), "tk_usdt_regs") + 0x10);
		CHECK_INT(p->offset, sec_offset(file, ".text", p->pc));
	}
	/* the semaphore moved past the file's data with it */
	p = probe(&l, "tk", "hand_sema");
	CHECK(p != NULL);
	if (p) {
		CHECK_INT(p->sema, nm_addr(FIX("usdt-pie"),
					   "tk_hand_sema_semaphore") + 0x10);
		CHECK(p->refused && strstr(p->refused, "is not backed by the file"));
	}
	usdt_list_release(&l);
	elffile_free(ef);
}

UNIT_TEST(no_notes)
{
	struct elffile *ef = elffile_open(FIX("libtk.so"), NULL, 0);
	struct usdt_list l;

	CHECK_INT(usdt_find(ef, NULL, NULL, &l, NULL, 0), 0);
	CHECK_INT(l.n, 0);
	elffile_free(ef);
}

UNIT_MAIN()
