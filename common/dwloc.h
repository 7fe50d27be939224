/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_DWLOC_H
#define TAPKIT_DWLOC_H

/*
 * DWARF variable locations and types as uprobe fetch arguments (x86-64).
 * The engine behind dwinfo_params(); separate so the translation rules sit
 * in one place, apart from finding the DIEs.
 */
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/fetcharg.h"

/* Where the probe fires; all addresses in the DWARF's own address space. */
struct dwloc_ctx {
	uint64_t pc;		/* the probe's address */
	uint64_t entry;		/* the function's entry */
	uint64_t body;		/* the first address after its prologue */
	int machine;		/* EM_X86_64... */
	bool kernel;		/* kprobes fetch (messages say so) */
	Dwarf_Die *frame;	/* the subprogram whose DW_AT_frame_base
				 * DW_OP_fbreg refers to (for an inline
				 * instance, the function it is part of) */
	/*
	 * The canonical frame address (the stack pointer before the call) at
	 * @pc from the call frame information, as one DW_OP_bregN/bregx.
	 * 0, or -errno with the reason in @err.
	 */
	int (*cfa)(void *priv, Dwarf_Op *op, char *err, size_t errlen);
	void *priv;
};

/**
 * dwloc_param() - a formal parameter (or variable) DIE as a fetch argument
 * @die: DW_TAG_formal_parameter or DW_TAG_variable, concrete (the location
 *       is its own; name and type may come from its abstract origin)
 * @index: its position (1-based), to name it argN when it has no name
 * @arg: receives name, loc and type, or refused with the reason: a
 *       floating-point or aggregate value, a location not available at the
 *       pc, too complex for uprobes, or a stack slot not yet written at
 *       the entry (before the prologue has stored the register there)
 *
 * Always fills @arg; the caller releases it with fetcharg_release().
 */
void dwloc_param(Dwarf_Die *die, int index, const struct dwloc_ctx *ctx,
		 struct fetcharg *arg);

/**
 * dwloc_var() - where variable @die lives at ctx->pc, whatever its type
 * @arg: receives the name and loc (a register "%di", memory "-24(%bp)",
 *       "+0x2e50(%ip)", a constant "\\5"), or refused with the reason as
 *       dwloc_param() gives it; type and size are left for the caller
 *       (size 8 is assumed for a negative constant).
 *
 * For resolvers that follow the type themselves (dwtype.c): a struct on
 * the stack has a place though not a fetchable value.  The caller
 * releases @arg with fetcharg_release().
 */
void dwloc_var(Dwarf_Die *die, const struct dwloc_ctx *ctx,
	       struct fetcharg *arg);

/* The pt_regs name of x86-64 DWARF register @dwreg, or NULL. */
const char *dwloc_reg_name(int machine, int dwreg);

#endif
