// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF locations to uprobe fetch arguments.
 *
 * A DWARF location is a small stack program; uprobes fetch a register, the
 * memory at a register plus a constant, or an immediate.  The programs
 * compilers emit for parameters map onto those in a few shapes, taken at
 * the probe's pc (a location list picks the expression valid there):
 *
 *	DW_OP_regN			%REG			(in a register)
 *	DW_OP_bregN off			+off(%REG)		(in memory)
 *	DW_OP_fbreg off			+off'(%REG)		(frame base + off)
 *	DW_OP_addr a			+delta(%ip)		(a static)
 *	DW_OP_litN/constN, stack_value	\N			(a known constant)
 *	DW_OP_entry_value(DW_OP_regN), stack_value, at the entry:  %REG
 *
 * The frame base is DW_OP_call_frame_cfa with GCC (the CFA comes from the
 * CFI at pc: rsp+8 at the entry, rbp+16 after `push rbp; mov rsp,rbp`) or a
 * register with clang (rbp).  Anything else (pieces, arithmetic, implicit
 * pointers) is refused with the first operation that is not understood.
 *
 * Unoptimized code describes a parameter by its stack slot with one
 * expression for the whole function, though the prologue only stores it
 * there after the entry: at an address before the end of the prologue such
 * a slot is refused (except the caller's part of the stack, where
 * arguments beyond the sixth already are), and the caller can probe at
 * the function's body instead.  Optimized code uses location lists, which
 * say exactly where the value lives at each address.
 */
#include <dwarf.h>
#include <errno.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwloc.h"
#include "common/log.h"

/* Who fetches: uprobes, or kprobes in the kernel's DWARF. */
#define PROBES(ctx)	((ctx)->kernel ? "kprobes" : "uprobes")

static void locate(Dwarf_Die *die, const struct dwloc_ctx *ctx,
		   struct fetcharg *a);

/* x86-64 DWARF register numbers (psABI) in pt_regs names */
static const char *const x86_64_regs[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};

const char *dwloc_reg_name(int machine, int dwreg)
{
	if (machine != EM_X86_64 || dwreg < 0 ||
	    dwreg >= (int)(sizeof(x86_64_regs) / sizeof(x86_64_regs[0])))
		return NULL;
	return x86_64_regs[dwreg];
}

/* The type's peeled DIE, NULL when it has none. */
static Dwarf_Die *type_die(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, out) || dwarf_peel_type(out, out))
		return NULL;
	return out;
}

static int encoding(Dwarf_Die *t)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc;

	if (!dwarf_attr_integrate(t, DW_AT_encoding, &attr) ||
	    dwarf_formudata(&attr, &enc))
		return -1;
	return (int)enc;
}

static bool is_char(Dwarf_Die *t)
{
	int enc = encoding(t);

	return dwarf_tag(t) == DW_TAG_base_type && dwarf_bytesize(t) == 1 &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

/* Size, sign and fetch type of @die's type; refuses what is not an integer
 * or pointer. */
static void set_type(Dwarf_Die *die, struct fetcharg *a)
{
	Dwarf_Die t, u;
	int size, enc;

	if (!type_die(die, &t)) {
		fetcharg_refuse(a, "'%s' has no type", a->name);
		return;
	}
	size = dwarf_bytesize(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		enc = encoding(&t);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float ||
		    enc == DW_ATE_decimal_float) {
			fetcharg_refuse(a, "'%s' is a floating-point value",
					a->name);
			return;
		}
		a->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		break;
	case DW_TAG_enumeration_type:
		a->is_signed = type_die(&t, &u) && (encoding(&u) == DW_ATE_signed ||
						    encoding(&u) == DW_ATE_signed_char);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		a->is_ptr = true;
		a->is_char_ptr = type_die(&t, &u) && is_char(&u);
		if (size <= 0)
			size = 8;
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_array_type:
		fetcharg_refuse(a, "'%s' is an aggregate passed by value",
				a->name);
		return;
	default:
		fetcharg_refuse(a, "'%s' has an unsupported type (tag 0x%x)",
				a->name, dwarf_tag(&t));
		return;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		fetcharg_refuse(a, "'%s' is a %d-byte value", a->name, size);
		return;
	}
	a->size = size;
	snprintf(a->type, sizeof(a->type), "%s", a->is_ptr ? "x64" :
		 fetcharg_int_type(size, a->is_signed));
}

static int reg_of(const Dwarf_Op *op, int *reg, int64_t *off)
{
	*off = 0;
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		*reg = op->atom - DW_OP_reg0;
	else if (op->atom == DW_OP_regx)
		*reg = (int)op->number;
	else if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
	} else if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*off = (int64_t)op->number2;
	} else {
		return -1;
	}
	return 0;
}

static bool is_reg_op(unsigned int atom)
{
	return (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) || atom == DW_OP_regx;
}

/* A constant pushed by @op, for `const, stack_value`. */
static bool const_of(const Dwarf_Op *op, int64_t *v)
{
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31)
		*v = op->atom - DW_OP_lit0;
	else if (op->atom == DW_OP_const1u || op->atom == DW_OP_const2u ||
		 op->atom == DW_OP_const4u || op->atom == DW_OP_const8u ||
		 op->atom == DW_OP_constu)
		*v = (int64_t)op->number;
	else if (op->atom == DW_OP_const1s || op->atom == DW_OP_const2s ||
		 op->atom == DW_OP_const4s || op->atom == DW_OP_const8s ||
		 op->atom == DW_OP_consts)
		*v = (int64_t)op->number;
	else
		return false;
	return true;
}

static void set_reg(struct fetcharg *a, const struct dwloc_ctx *ctx, int reg)
{
	const char *name = dwloc_reg_name(ctx->machine, reg);

	if (!name) {
		fetcharg_refuse(a, "'%s' is in DWARF register %d, which %s "
				"cannot fetch", a->name, reg, PROBES(ctx));
		return;
	}
	a->loc = xasprintf("%%%s", name);
}

static void set_mem(struct fetcharg *a, const struct dwloc_ctx *ctx, int reg,
		    int64_t off)
{
	const char *name = dwloc_reg_name(ctx->machine, reg);

	if (!name) {
		fetcharg_refuse(a, "'%s' is addressed from DWARF register %d, "
				"which %s cannot fetch", a->name, reg,
				PROBES(ctx));
		return;
	}
	a->loc = xasprintf("%+" PRId64 "(%%%s)", off, name);
}

static void set_const(struct fetcharg *a, int64_t v)
{
	if (v >= 0)
		a->loc = xasprintf("\\%" PRId64, v);
	else
		a->loc = xasprintf("\\0x%" PRIx64, a->size == 8 ? (uint64_t)v :
				   (uint64_t)v & ((UINT64_C(1) << (8 * a->size)) - 1));
}

static const char *op_name(unsigned int atom)
{
	static char buf[16];

	switch (atom) {
	case DW_OP_piece: return "DW_OP_piece";
	case DW_OP_implicit_pointer: return "DW_OP_implicit_pointer";
	case DW_OP_GNU_implicit_pointer: return "DW_OP_GNU_implicit_pointer";
	case DW_OP_implicit_value: return "DW_OP_implicit_value";
	case DW_OP_stack_value: return "DW_OP_stack_value";
	case DW_OP_deref: return "DW_OP_deref";
	case DW_OP_plus_uconst: return "DW_OP_plus_uconst";
	case DW_OP_entry_value: return "DW_OP_entry_value";
	case DW_OP_GNU_entry_value: return "DW_OP_GNU_entry_value";
	}
	if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
		snprintf(buf, sizeof(buf), "DW_OP_breg%u", atom - DW_OP_breg0);
	else if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
		snprintf(buf, sizeof(buf), "DW_OP_reg%u", atom - DW_OP_reg0);
	else
		snprintf(buf, sizeof(buf), "DW_OP 0x%x", atom);
	return buf;
}

/* The operation that makes @e too complex, for the message. */
static unsigned int first_unsupported(const Dwarf_Op *e, size_t n)
{
	int64_t v, off;
	size_t i;
	int reg;

	for (i = 0; i < n; i++)
		if (reg_of(&e[i], &reg, &off) && !const_of(&e[i], &v) &&
		    e[i].atom != DW_OP_fbreg && e[i].atom != DW_OP_addr &&
		    e[i].atom != DW_OP_stack_value)
			return e[i].atom;
	return n > 1 ? e[1].atom : e[0].atom;
}

/* DW_OP_entry_value(DW_OP_regN), DW_OP_stack_value at the entry: %REG. */
static bool entry_value(Dwarf_Attribute *attr, const Dwarf_Op *op,
			const struct dwloc_ctx *ctx, struct fetcharg *a)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;
	int reg;
	int64_t off;

	if (ctx->pc != ctx->entry || dwarf_getlocation_attr(attr, op, &sub) ||
	    dwarf_getlocation(&sub, &ops, &n) || n != 1 ||
	    !is_reg_op(ops[0].atom) || reg_of(&ops[0], &reg, &off))
		return false;
	set_reg(a, ctx, reg);
	return true;
}

/*
 * The frame base at ctx->pc as register + offset: DW_AT_frame_base of the
 * enclosing function, either a register (clang: rbp), a register plus an
 * offset, or DW_OP_call_frame_cfa (GCC) looked up in the CFI.
 */
static int frame_base(const struct dwloc_ctx *ctx, int *reg, int64_t *off,
		      bool *is_cfa, char *err, size_t errlen)
{
	Dwarf_Attribute attr;
	Dwarf_Op *e, cfa;
	size_t n;
	int ret;

	*is_cfa = false;
	if (!ctx->frame || !dwarf_attr(ctx->frame, DW_AT_frame_base, &attr))
		return errmsg(err, errlen, -ENOENT, "no frame base");
	ret = dwarf_getlocation_addr(&attr, ctx->pc, &e, &n, 1);
	if (ret <= 0 || !n)
		return errmsg(err, errlen, -ENOENT, "no frame base at 0x%"
			      PRIx64, ctx->pc);
	if (n == 1 && e[0].atom == DW_OP_call_frame_cfa) {
		*is_cfa = true;
		if (!ctx->cfa)
			return errmsg(err, errlen, -ENOENT, "no call frame "
				      "information");
		ret = ctx->cfa(ctx->priv, &cfa, err, errlen);
		if (ret)
			return ret;
		e = &cfa;
	} else if (n != 1) {
		return errmsg(err, errlen, -EINVAL, "frame base too complex");
	}
	if (reg_of(e, reg, off))
		return errmsg(err, errlen, -EINVAL, "frame base too complex "
			      "(%s)", op_name(e->atom));
	return 0;
}

/* The stack slot of a single-expression location, before the prologue has
 * written it: refuse. */
static bool too_early(const struct dwloc_ctx *ctx, bool single)
{
	return single && ctx->pc >= ctx->entry && ctx->pc < ctx->body;
}

static void translate(Dwarf_Attribute *attr, Dwarf_Op *e, size_t n,
		      bool single, const struct dwloc_ctx *ctx,
		      struct fetcharg *a)
{
	char why[160];
	int64_t off, fboff, v;
	bool is_cfa;
	int reg = -1;

	if (n == 1 && is_reg_op(e[0].atom) && !reg_of(&e[0], &reg, &off)) {
		set_reg(a, ctx, reg);
		return;
	}
	if (n == 1 && !reg_of(&e[0], &reg, &off)) {
		if (too_early(ctx, single) && (reg == 6 || reg == 7))
			goto early;
		set_mem(a, ctx, reg, off);
		return;
	}
	if (n == 1 && e[0].atom == DW_OP_fbreg) {
		if (frame_base(ctx, &reg, &fboff, &is_cfa, why, sizeof(why))) {
			fetcharg_refuse(a, "'%s': %s", a->name, why);
			return;
		}
		off = (int64_t)e[0].number;
		/* at or above the CFA is the caller's part of the stack */
		if (too_early(ctx, single) && !(is_cfa && off >= 0))
			goto early;
		if (__builtin_add_overflow(fboff, off, &off)) {
			fetcharg_refuse(a, "'%s': its frame offset is out of range",
					a->name);
			return;
		}
		set_mem(a, ctx, reg, off);
		return;
	}
	if (n == 1 && e[0].atom == DW_OP_addr) {
		int64_t d = (int64_t)(e[0].number - ctx->pc);

		a->loc = d < 0 ? xasprintf("-0x%" PRIx64 "(%%ip)", -(uint64_t)d) :
				 xasprintf("+0x%" PRIx64 "(%%ip)", (uint64_t)d);
		return;
	}
	if (n == 2 && e[1].atom == DW_OP_stack_value) {
		if (const_of(&e[0], &v)) {
			set_const(a, v);
			return;
		}
		if ((e[0].atom == DW_OP_entry_value ||
		     e[0].atom == DW_OP_GNU_entry_value) &&
		    entry_value(attr, &e[0], ctx, a))
			return;
		if (!reg_of(&e[0], &reg, &off) && !off &&
		    !is_reg_op(e[0].atom)) {
			set_reg(a, ctx, reg);	/* DW_OP_bregN 0: the register */
			return;
		}
	}
	if (n > 1 && e[n - 1].atom == DW_OP_stack_value)
		fetcharg_refuse(a, "'%s' is a value computed from others (%s ... "
				"DW_OP_stack_value), which %s cannot "
				"fetch", a->name, op_name(e[0].atom),
				PROBES(ctx));
	else
		fetcharg_refuse(a, "'%s': location too complex for %s "
				"(%s)", a->name, PROBES(ctx),
				op_name(first_unsupported(e, n)));
	return;
early:
	fetcharg_refuse(a, "'%s' is not in its stack slot before the end of the "
			"prologue (probe at 0x%" PRIx64 " or later)", a->name,
			ctx->body);
}

/*
 * GCC's location views can give a location for an empty address range
 * [pc, pc): valid at pc itself, between two views of it, typically at an
 * inline instance's entry.  A probe at pc sees the state at pc, so such an
 * entry counts when nothing covers pc otherwise.
 */
static int at_view(Dwarf_Attribute *attr, uint64_t pc, Dwarf_Op **e,
		   size_t *n)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int guard = 0;

	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, e,
					 n)) > 0 && guard++ < 4096)
		if (start == pc && end == pc)
			return 1;
	return off < 0 ? -1 : 0;
}

void dwloc_param(Dwarf_Die *die, int index, const struct dwloc_ctx *ctx,
		 struct fetcharg *a)
{
	Dwarf_Attribute attr;
	const char *name;

	memset(a, 0, sizeof(*a));
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	a->name = name ? xstrdup(name) : xasprintf("arg%d", index);
	set_type(die, a);
	if (!a->refused)
		locate(die, ctx, a);
}

void dwloc_var(Dwarf_Die *die, const struct dwloc_ctx *ctx, struct fetcharg *a)
{
	Dwarf_Attribute attr;
	const char *name;

	memset(a, 0, sizeof(*a));
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	a->name = xstrdup(name ? name : "?");
	a->size = 8;		/* for a negative constant's width */
	locate(die, ctx, a);
}

/* Fills a->loc, or a->refused, from @die's location at ctx->pc. */
static void locate(Dwarf_Die *die, const struct dwloc_ctx *ctx,
		   struct fetcharg *a)
{
	Dwarf_Attribute attr, cattr;
	Dwarf_Sword sv;
	Dwarf_Op *e;
	size_t n;
	int form, ret;

	if (ctx->machine != EM_X86_64) {
		fetcharg_refuse(a, "'%s': locations of machine %d are not "
				"supported", a->name, ctx->machine);
		return;
	}
	if (!dwarf_attr(die, DW_AT_location, &attr)) {
		if (dwarf_attr(die, DW_AT_const_value, &cattr) &&
		    !dwarf_formsdata(&cattr, &sv)) {
			set_const(a, sv);
			return;
		}
		fetcharg_refuse(a, "'%s' is optimized out", a->name);
		return;
	}
	ret = dwarf_getlocation_addr(&attr, ctx->pc, &e, &n, 1);
	if (ret == 0)
		ret = at_view(&attr, ctx->pc, &e, &n);
	if (ret < 0) {
		fetcharg_refuse(a, "'%s': bad location: %s", a->name,
				dwarf_errmsg(-1));
		return;
	}
	if (ret == 0 || n == 0) {
		fetcharg_refuse(a, "'%s' is optimized out at 0x%" PRIx64,
				a->name, ctx->pc);
		return;
	}
	form = dwarf_whatform(&attr);
	translate(&attr, e, n, form == DW_FORM_exprloc ||
		  form == DW_FORM_block1 || form == DW_FORM_block2 ||
		  form == DW_FORM_block4 || form == DW_FORM_block, ctx, a);
}
