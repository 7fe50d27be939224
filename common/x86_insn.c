// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 instruction lengths.
 *
 * An instruction is: legacy prefixes, an optional REX, an opcode (one byte,
 * or 0F xx, 0F 38 xx, 0F 3A xx, or a VEX/EVEX/XOP prefix that names the map),
 * then a ModRM byte with an optional SIB and displacement, then an
 * immediate.  Whether ModRM and which immediate follow is a property of the
 * opcode, kept in one table per map below; their sizes depend on the 66
 * (operand size), 67 (address size) prefixes and REX.W.
 *
 * Why our own decoder rather than a disassembler library: we need nothing
 * but lengths, the tables fit on a screen, and elfutils' libasm stops at
 * many AVX-512 instructions that glibc's string functions are made of.
 * The unit test checks it against objdump over real code.
 */
#include <errno.h>
#include <stdbool.h>

#include "common/x86_insn.h"

/* What follows an opcode. */
enum {
	M	= 1 << 0,	/* ModRM (with SIB and displacement) */
	I8	= 1 << 1,	/* imm8 or rel8 */
	IZ	= 1 << 2,	/* imm16/imm32 by operand size (also rel32) */
	IV	= 1 << 3,	/* imm16/32/64: mov r, imm with REX.W */
	IW	= 1 << 4,	/* imm16 */
	MO	= 1 << 5,	/* moffs: 8 bytes, 4 with 67 */
	X	= 1 << 6,	/* invalid in 64-bit mode */
	GRP3	= 1 << 7,	/* F6/F7: the immediate only for /0 and /1 */
};

#define R4(a)	a, a, a, a
#define R8(a)	R4(a), R4(a)
#define R16(a)	R8(a), R8(a)

/* the one-byte map; prefixes and escapes (0F, VEX, EVEX) are handled in code */
static const uint8_t map1[256] = {
	/* 00 */ M, M, M, M, I8, IZ, X, X, M, M, M, M, I8, IZ, X, 0,
	/* 10 */ M, M, M, M, I8, IZ, X, X, M, M, M, M, I8, IZ, X, X,
	/* 20 */ M, M, M, M, I8, IZ, 0, X, M, M, M, M, I8, IZ, 0, X,
	/* 30 */ M, M, M, M, I8, IZ, 0, X, M, M, M, M, I8, IZ, 0, X,
	/* 40 */ R16(0),
	/* 50 */ R16(0),
	/* 60 */ X, X, 0, M, 0, 0, 0, 0, IZ, M | IZ, I8, M | I8, R4(0),
	/* 70 */ R16(I8),
	/* 80 */ M | I8, M | IZ, X, M | I8, R4(M), R8(M),
	/* 90 */ R8(0), 0, 0, X, 0, R4(0),
	/* A0 */ MO, MO, MO, MO, R4(0), I8, IZ, 0, 0, R4(0),
	/* B0 */ R8(I8), R8(IV),
	/* C0 */ M | I8, M | I8, IW, 0, 0, 0, M | I8, M | IZ,
		 IW | I8, 0, IW, 0, 0, I8, X, 0,
	/* D0 */ R4(M), X, X, X, 0, R8(M),
	/* E0 */ R8(I8), IZ, IZ, X, I8, R4(0),
	/* F0 */ 0, 0, 0, 0, 0, 0, M | GRP3, M | GRP3, 0, 0, 0, 0, 0, 0, M, M,
};

/* 0F xx; 38 and 3A are escapes to the three-byte maps */
static const uint8_t map0f[256] = {
	/* 00 */ M, M, M, M, X, 0, 0, 0, 0, 0, X, 0, X, M, 0, M | I8,
	/* 10 */ R16(M),
	/* 20 */ M, M, M, M, X, X, X, X, R8(M),
	/* 30 */ 0, 0, 0, 0, 0, 0, X, 0, 0, X, 0, X, X, X, X, X,
	/* 40 */ R16(M),
	/* 50 */ R16(M),
	/* 60 */ R16(M),
	/* 70 */ R4(M | I8), M, M, M, 0, M, M, X, X, R4(M),
	/* 80 */ R16(IZ),
	/* 90 */ R16(M),
	/* A0 */ 0, 0, 0, M, M | I8, M, X, X, 0, 0, 0, M, M | I8, M, M, M,
	/* B0 */ R8(M), M, M, M | I8, M, R4(M),
	/* C0 */ M, M, M | I8, M, M | I8, M | I8, M | I8, M, R8(0),
	/* D0 */ R16(M),
	/* E0 */ R16(M),
	/* F0 */ R16(M),
};

/* Legacy prefixes: lock, rep, segment overrides, 66 and 67. */
static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3:
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67:
		return true;
	}
	return false;
}

/* Bytes of ModRM, SIB and displacement starting at @p[0]; -ENODATA if cut. */
static int modrm_len(const uint8_t *p, size_t n)
{
	uint8_t mod, rm;
	int len = 1;

	if (n < 1)
		return -ENODATA;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {			/* SIB */
		if (n < 2)
			return -ENODATA;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;	/* no base: disp32 */
	} else if (mod == 0 && rm == 5) {
		len += 4;		/* RIP-relative disp32 */
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len;
}

/*
 * The immediate's size for the flags @f of an opcode, with the operand size
 * prefix @o16, REX.W @w and address size prefix @a32.
 */
static int imm_len(unsigned int f, bool o16, bool w, bool a32)
{
	int len = 0;

	if (f & I8)
		len += 1;
	if (f & IW)
		len += 2;
	if (f & IZ)
		len += o16 && !w ? 2 : 4;
	if (f & IV)
		len += w ? 8 : o16 ? 2 : 4;
	if (f & MO)
		len += a32 ? 4 : 8;
	return len;
}

/* VEX/EVEX/XOP: the immediate that follows an opcode of map @map. */
static int vex_imm(unsigned int map, uint8_t op)
{
	switch (map) {
	case 1:		/* 0F: the same opcodes take imm8 as in legacy code */
		return (map0f[op] & I8) ? 1 : 0;
	case 3:		/* 0F 3A */
	case 8:		/* XOP 8 */
		return 1;
	case 10:	/* XOP A */
		return 4;
	default:	/* 0F 38, EVEX maps 5 and 6, XOP 9 */
		return 0;
	}
}

/*
 * The rest of a VEX (C4/C5), EVEX (62) or XOP (8F) encoded instruction,
 * @p at its first byte, @pre the length of what came before.
 */
static int vex_len(const uint8_t *p, size_t n, int pre)
{
	unsigned int map, plen;
	int m, len;
	uint8_t op;

	switch (p[0]) {
	case 0xc5:
		plen = 2;
		map = 1;
		break;
	case 0x62:
		plen = 4;
		break;
	default:		/* C4, 8F */
		plen = 3;
		break;
	}
	if (n < plen + 1)
		return -ENODATA;
	if (p[0] == 0xc4 || p[0] == 0x8f)
		map = p[1] & 0x1f;
	else if (p[0] == 0x62)
		map = p[1] & 0x07;
	if (p[0] == 0x8f ? map < 8 || map > 10 :
	    map == 0 || map == 4 || map == 7 || map > 6 ||
	    (p[0] == 0xc4 && map > 3))
		return -EINVAL;
	op = p[plen];
	len = pre + plen + 1;
	/* VZEROUPPER/VZEROALL are the only VEX instructions without ModRM */
	if (!(p[0] != 0x62 && p[0] != 0x8f && map == 1 && op == 0x77)) {
		m = modrm_len(p + plen + 1, n - plen - 1);
		if (m < 0)
			return m;
		len += m;
	}
	len += vex_imm(map, op);
	if ((size_t)len - pre > n)
		return -ENODATA;
	return len > 15 ? -EINVAL : len;
}

int x86_insn_len(const uint8_t *p, size_t n)
{
	bool o16 = false, a32 = false, w = false, repne = false;
	const uint8_t *start = p;
	unsigned int f;
	size_t left = n;
	int len, m;
	uint8_t op;

	/* legacy prefixes in any order; a REX counts only right before the opcode */
	for (;;) {
		if (!left)
			return -ENODATA;
		if (is_legacy_prefix(*p)) {
			o16 |= *p == 0x66;
			a32 |= *p == 0x67;
			repne |= *p == 0xf2;
			w = false;
		} else if ((*p & 0xf0) == 0x40) {
			w = *p & 8;
		} else {
			break;
		}
		p++;
		left--;
		if (p - start >= 15)
			return -EINVAL;
	}
	len = p - start;
	op = *p;

	if (op == 0xc4 || op == 0xc5 || op == 0x62)
		return vex_len(p, left, len);
	/* 8F with ModRM.reg != 0 is AMD's XOP; /0 is POP Ev */
	if (op == 0x8f && left > 1 && ((p[1] >> 3) & 7))
		return vex_len(p, left, len);

	if (op != 0x0f) {
		f = map1[op];
		p++, left--, len++;
	} else {
		if (left < 2)
			return -ENODATA;
		op = p[1];
		if (op == 0x38 || op == 0x3a) {
			if (left < 3)
				return -ENODATA;
			f = op == 0x38 ? M : M | I8;
			p += 3, left -= 3, len += 3;
		} else if (op >= 0x20 && op <= 0x23) {
			/* MOV to/from control and debug registers: the mod
			 * field is ignored, ModRM is always one byte */
			if (left < 3)
				return -ENODATA;
			f = 0;
			p += 3, left -= 3, len += 3;
		} else {
			f = map0f[op];
			/* SSE4a EXTRQ/INSERTQ: 66/F2 0F 78 take two imm8 */
			if (op == 0x78 && (o16 || repne))
				f = M | IW;
			p += 2, left -= 2, len += 2;
		}
	}
	if (f & X)
		return -EINVAL;
	if (f & M) {
		m = modrm_len(p, left);
		if (m < 0)
			return m;
		/* TEST Eb/Ev, imm is /0 (and /1); NOT, NEG, MUL, DIV have none */
		if ((f & GRP3) && ((p[0] >> 3) & 7) < 2)
			f |= op == 0xf6 ? I8 : IZ;
		len += m;
	}
	len += imm_len(f, o16, w, a32);
	if ((size_t)len > n)
		return -ENODATA;
	if (len > 15)
		return -EINVAL;
	return len;
}
