// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 instruction lengths: known encodings, then agreement with
 * objdump over the fixtures and the whole C library.
 */
#include <errno.h>

#include "common/elffile.h"
#include "common/target.h"
#include "common/x86_insn.h"
#include "tests/unit/elftest.h"
#include "tests/unit/unit.h"

static int len_of(const char *hex)
{
	uint8_t b[32];
	unsigned int v;
	int n = 0, k;

	while (n < 32 && sscanf(hex, "%2x%n", &v, &k) == 1) {
		b[n++] = (uint8_t)v;
		hex += k;
		while (*hex == ' ')
			hex++;
	}
	return x86_insn_len(b, n);
}

UNIT_TEST(known_encodings)
{
	static const struct {
		const char *hex;
		int len;
	} t[] = {
		{ "90", 1 },				/* nop */
		{ "c3", 1 },				/* ret */
		{ "55", 1 },				/* push %rbp */
		{ "48 89 e5", 3 },			/* mov %rsp,%rbp */
		{ "f3 0f 1e fa", 4 },			/* endbr64 */
		{ "b8 44 33 22 11", 5 },		/* mov $imm32,%eax */
		{ "48 b8 88 77 66 55 44 33 22 11", 10 },/* movabs $imm64 */
		{ "66 b8 34 12", 4 },			/* mov $imm16,%ax */
		{ "89 7d ec", 3 },			/* mov %edi,-0x14(%rbp) */
		{ "48 8b 05 00 00 00 00", 7 },		/* mov rip-rel */
		{ "8b 04 24", 3 },			/* mov (%rsp),%eax: SIB */
		{ "8b 04 25 00 00 00 00", 7 },		/* SIB, no base: disp32 */
		{ "8b 44 24 08", 4 },			/* SIB + disp8 */
		{ "8b 84 24 00 01 00 00", 7 },		/* SIB + disp32 */
		{ "f6 c1 01", 3 },			/* test $1,%cl */
		{ "f7 c1 01 00 00 00", 6 },		/* test $1,%ecx */
		{ "66 f7 c1 01 00", 5 },		/* test $1,%cx */
		{ "f7 d8", 2 },				/* neg %eax: no imm */
		{ "e8 00 00 00 00", 5 },		/* call rel32 */
		{ "eb fe", 2 },				/* jmp rel8 */
		{ "0f 84 00 00 00 00", 6 },		/* je rel32 */
		{ "c8 10 00 00", 4 },			/* enter */
		{ "c2 08 00", 3 },			/* ret $8 */
		{ "a1 00 00 00 00 00 00 00 00", 9 },	/* movabs moffs,%eax */
		{ "67 a1 00 00 00 00", 6 },		/* addr32 moffs */
		{ "0f 05", 2 },				/* syscall */
		{ "0f 1f 44 00 00", 5 },		/* nopl 0(%rax,%rax,1) */
		{ "66 2e 0f 1f 84 00 00 00 00 00", 10 },/* cs nopw */
		{ "0f 22 d8", 3 },			/* mov %rax,%cr3 */
		{ "66 0f 3a 0f c1 08", 6 },		/* palignr $8 */
		{ "66 0f 38 00 c1", 5 },		/* pshufb */
		{ "66 0f 70 c1 1b", 5 },		/* pshufd $0x1b */
		{ "c5 f8 77", 3 },			/* vzeroupper */
		{ "c5 fd 6f 07", 4 },			/* vmovdqa (%rdi),%ymm0 */
		{ "c4 e3 7d 18 c1 01", 6 },		/* vinsertf128 $1 */
		{ "62 f1 fe 48 6f 07", 6 },		/* vmovdqu64 (%rdi),%zmm0 */
		{ "62 f3 7d 48 3e c1 00", 7 },		/* vpcmpub $0 (EVEX map 3) */
		{ "62 f1 7d 48 72 e0 05", 7 },		/* vpsrad $5 (EVEX map 1 imm) */
		{ "f0 48 0f b1 0f", 5 },		/* lock cmpxchg */
		{ "41 41 c3", 3 },			/* redundant REX */
		{ "64 48 8b 04 25 28 00 00 00", 9 },	/* mov %fs:0x28,%rax */
		{ "66 0f 78 c0 04 08", 6 },		/* extrq $8,$4 */
		{ "0f 0f c1 b4", 4 },			/* 3DNow! pfmul */
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int got = len_of(t[i].hex);

		if (got != t[i].len)
			printf("#   %s\n", t[i].hex);
		CHECK_INT(got, t[i].len);
	}
}

UNIT_TEST(invalid_and_truncated)
{
	uint8_t pfx[16];

	CHECK_INT(len_of("06"), -EINVAL);		/* push %es */
	CHECK_INT(len_of("d4 0a"), -EINVAL);		/* aam */
	CHECK_INT(len_of("ea 00 00 00 00 00 00"), -EINVAL);
	CHECK_INT(len_of("62 f4 7c 08 00 00"), -EINVAL);	/* APX map 4 */
	CHECK_INT(len_of(""), -ENODATA);
	CHECK_INT(len_of("48"), -ENODATA);
	CHECK_INT(len_of("b8 00 00"), -ENODATA);
	CHECK_INT(len_of("8b 84 24 00"), -ENODATA);
	CHECK_INT(len_of("0f"), -ENODATA);
	CHECK_INT(len_of("c4 e3"), -ENODATA);
	memset(pfx, 0x66, sizeof(pfx));
	CHECK_INT(x86_insn_len(pfx, sizeof(pfx)), -EINVAL);	/* > 15 bytes */
	memcpy(pfx + 12, "\x0f\x23\xc0", 3);		/* 12 prefixes + 3 */
	CHECK_INT(x86_insn_len(pfx, 15), 15);
	pfx[12] = 0x66;
	memcpy(pfx + 13, "\x0f\x23\xc0", 3);		/* 13 prefixes + 3 */
	CHECK_INT(x86_insn_len(pfx, 16), -EINVAL);
}

/*
 * objdump -d -w prints one instruction per line: "addr:<TAB>bytes<TAB>text".
 * Its only disagreements with the CPU, skipped: a lone REX or FWAIT it
 * shows apart from the instruction they belong to, and "(bad)".
 */
static void against_objdump(const char *file, long *checked)
{
	char *out = sh_out("objdump -d -w %s", file), *line, *save;
	struct elffile *ef = elffile_open(file, NULL, 0);
	int bad = 0;

	CHECK(ef != NULL);
	for (line = strtok_r(out, "\n", &save); ef && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *t1 = strchr(line, '\t'), *t2, *p;
		uint8_t code[32];
		unsigned int v;
		uint64_t addr;
		int n = 0, k, got;

		if (!t1 || !(t2 = strchr(t1 + 1, '\t')) ||
		    sscanf(line, " %" SCNx64 ":", &addr) != 1)
			continue;
		if (strstr(t2, "(bad)") || !strncmp(t2 + 1, "rex", 3) ||
		    !strncmp(t1 + 1, "9b ", 3))
			continue;
		*t2 = '\0';
		for (p = t1 + 1; sscanf(p, "%2x%n", &v, &k) == 1; p += k)
			n++;
		if (elffile_read(ef, addr, code, sizeof(code)) < n)
			continue;
		got = x86_insn_len(code, sizeof(code));
		(*checked)++;
		if (got != n && bad++ < 5) {
			printf("#   %s: %d bytes, decoded %d\n", line, n, got);
			CHECK_INT(got, n);
		}
	}
	CHECK_INT(bad, 0);
	elffile_free(ef);
	free(out);
}

UNIT_TEST(agrees_with_objdump)
{
	char *libc = NULL;
	long n = 0;

	against_objdump(FIX("prog-pie"), &n);
	against_objdump(FIX("usdt-nopie"), &n);
	if (!target_resolve("libc", 0, &libc, NULL, 0))
		against_objdump(libc, &n);
	free(libc);
	printf("# %ld instructions\n", n);
	CHECK(n > 100000);
}

UNIT_MAIN()
