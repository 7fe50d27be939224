/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_X86_INSN_H
#define TAPKIT_X86_INSN_H

/*
 * Length of x86-64 instructions, for checking that a `func+off` probe lands
 * on an instruction boundary: a uprobe placed inside an instruction
 * replaces one of its bytes with int3 and corrupts the program.
 */
#include <stddef.h>
#include <stdint.h>

/**
 * x86_insn_len() - length of the 64-bit mode instruction starting at @p
 * @p: the instruction's bytes
 * @n: how many bytes @p holds
 *
 * Returns the length (1..15), -ENODATA when the @n bytes end before the
 * instruction does, or -EINVAL for an encoding that is invalid in 64-bit
 * mode or that this decoder does not know (APX's EVEX map 4, VEX map 7).
 * Decodes lengths only: prefixes, opcode maps, ModRM/SIB, displacement and
 * immediate sizes; no operand semantics.
 */
int x86_insn_len(const uint8_t *p, size_t n);

#endif
