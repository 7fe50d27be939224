/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_FETCHARG_H
#define TAPKIT_FETCHARG_H

/*
 * One argument of a uprobe definition, as the USDT and DWARF resolvers
 * produce it and the tracefs layer writes it:
 *
 *	NAME=LOC:TYPE		arg1=%bx:s32   fd=+8(%sp):s32   p=%di:x64
 *
 * An argument the kernel cannot fetch (an indexed memory operand, a
 * floating-point register, a DWARF location too complex) is kept with
 * @refused saying why, so a listing can show it and a script fails only
 * when it uses it.
 */
#include <stdbool.h>
#include <stddef.h>

struct fetcharg {
	char *name;		/* "arg1", "fd": a C identifier */
	char *loc;		/* "%bx", "-24(%bp)", "+0x2e50(%ip)", "\\5";
				 * NULL when refused */
	char type[16];		/* "s32", "u64", "x64", "b8@8/64" */
	int size;		/* bytes: 1, 2, 4 or 8 */
	bool is_signed;
	bool is_ptr;		/* a pointer (from DWARF) */
	bool is_char_ptr;	/* a char pointer: a ustring candidate */
	char *refused;		/* why it cannot be fetched; NULL when it can */
};

/* "s32", "u8"... for @size bytes (1, 2, 4, 8); "" for other sizes. */
const char *fetcharg_int_type(int size, bool is_signed);

/**
 * fetcharg_format() - "NAME=LOC:TYPE" as a uprobe definition wants it
 *
 * NULL for a refused argument.  The caller frees the string.
 */
char *fetcharg_format(const struct fetcharg *a);

/* Sets @a->refused (printf-style) and drops @a->loc. */
void fetcharg_refuse(struct fetcharg *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Frees what @a owns (free(NULL)-like on a zeroed one). */
void fetcharg_release(struct fetcharg *a);
/* Releases @n arguments and frees the array. */
void fetchargs_free(struct fetcharg *args, size_t n);

#endif
