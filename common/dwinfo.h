/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_DWINFO_H
#define TAPKIT_DWINFO_H

/*
 * Debug information of an executable or library, for probes by source:
 * functions with their parameters (`$fd` in process("x").function("f")),
 * inline instances, and `func@file:line` statements.
 *
 * Every address here is a link-time address of the object itself (what
 * elffile_vaddr_to_off() turns into a file offset), even when the DWARF
 * comes from a separate debug file.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dwloc.h"
#include "common/fetcharg.h"

struct dwinfo;

/**
 * dwinfo_open() - the DWARF of the object at @path
 * @debug_dirs: colon-separated roots searched for separate debug files,
 *              NULL for /usr/lib/debug
 *
 * The DWARF is the object's own, or that of a separate debug file found by
 * build ID (ROOT/.build-id/xx/rest.debug) or by .gnu_debuglink (next to
 * the object, in its .debug/ folder, or ROOT/its folder/).  NULL with errno
 * (ENODATA when there is none) and the reason in @err.  The caller frees
 * it with dwinfo_free().
 */
struct dwinfo *dwinfo_open(const char *path, const char *debug_dirs,
			   char *err, size_t errlen);
void dwinfo_free(struct dwinfo *dw);

/*
 * dwinfo_symbol_file() - the separate debug file whose .symtab stands in
 * for the one the stripped object at @path lacks (found as dwinfo_open()
 * finds DWARF, without reading any), or NULL.  The caller frees it.
 */
char *dwinfo_symbol_file(const char *path, const char *debug_dirs);

/**
 * dwinfo_line() - the source file and line of link-time address @addr
 * (stacks printed with file:line)
 * @file: receives the line table's file name, valid as long as @dw
 *
 * 0, or -ENOENT when no line covers @addr.
 */
int dwinfo_line(struct dwinfo *dw, uint64_t addr, const char **file, int *line);

/* The file the DWARF was read from: the object or its debug file. */
const char *dwinfo_debug_file(const struct dwinfo *dw);

struct dwfunc {
	char *name;
	uint64_t entry;		/* where it starts (out-of-line: its low
				 * address; inline: the instance's entry) */
	uint64_t body;		/* the first address after the prologue, from
				 * the line table; entry when none */
	char *file;		/* declaring file and line; NULL/0 unknown */
	int line;
	char *inlined_into;	/* NULL for an out-of-line function; else
				 * the function this instance is part of */
	void *priv;		/* the DIEs, for dwinfo_params() */
};

struct dwfunc_list {
	struct dwfunc *v;
	size_t n;
};

/* dwinfo_funcs() flags */
#define DWINFO_INLINE	(1 << 0)	/* also the inline instances */

/**
 * dwinfo_funcs() - the functions whose name matches @pattern (fnmatch)
 * @out: receives them sorted by entry address; release with
 *       dwfunc_list_release() before dwinfo_free()
 *
 * Out-of-line functions (with code of their own), and with DWINFO_INLINE
 * each place a function was inlined.  0 (possibly no match), or -errno
 * with the reason in @err (-EINVAL for DWARF that cannot be read).
 */
int dwinfo_funcs(struct dwinfo *dw, const char *pattern, unsigned int flags,
		 struct dwfunc_list *out, char *err, size_t errlen);
void dwfunc_list_release(struct dwfunc_list *l);

/**
 * dwinfo_params() - @f's parameters as fetch arguments at address @pc
 * @pc: where the probe fires: @f->entry, @f->body, or another address in @f
 * @args: receives @n arguments in declaration order; those that cannot be
 *        fetched at @pc carry the reason in refused.  The caller frees
 *        them with fetchargs_free()
 *
 * Unoptimized code keeps parameters in stack slots that the prologue fills:
 * at @f->entry those are refused and @f->body is the address to use.
 * 0, or -errno with the reason in @err.
 */
int dwinfo_params(struct dwinfo *dw, const struct dwfunc *f, uint64_t pc,
		  struct fetcharg **args, size_t *n, char *err, size_t errlen);

/* One address of a source line. */
struct dwline {
	uint64_t addr;
	char *func;		/* the function it is in (innermost, may be
				 * an inlined one), NULL when unknown */
	char *file;		/* the line table's file name */
	int line;
};

/**
 * dwinfo_statement() - the addresses of a source line
 * @spec: `[FUNC@]FILE:LINE`; FUNC is a glob (all functions when absent);
 *        FILE is a base name or a path suffix (`src/main.c`)
 * @out: receives @n addresses in increasing order, one per block of code
 *       the line starts (a loop condition may have several; inlined
 *       copies each have theirs); free with dwlines_free()
 *
 * -ENOENT when the line has no code, saying which nearby lines have; -EINVAL
 * for a bad spec; each with the reason in @err.
 */
int dwinfo_statement(struct dwinfo *dw, const char *spec, struct dwline **out,
		     size_t *n, char *err, size_t errlen);
void dwlines_free(struct dwline *v, size_t n);

/*
 * For resolvers that walk the DIEs themselves (dwtype.c).  DWARF addresses
 * (what libdw's DIEs hold) differ from link-time addresses only for a debug
 * file split off before prelinking.
 */
Dwarf *dwinfo_dwarf(const struct dwinfo *dw);
int dwinfo_machine(const struct dwinfo *dw);
uint64_t dwinfo_to_dwarf(const struct dwinfo *dw, uint64_t addr);
uint64_t dwinfo_to_link(const struct dwinfo *dw, uint64_t dwaddr);

/**
 * dwinfo_file_offset() - the uprobe file offset (@+OFF) of link-time @addr
 *
 * The kernel reads @+OFF at (probed address - probe's file offset + OFF),
 * that is relative to the mapping of the executable segment every probe
 * is in.  So OFF is @addr less that segment's (p_vaddr - p_offset), which
 * also holds for .data and .bss, whose segment sits at another distance
 * from its file offset.  0, or -ENOENT when the object has no executable
 * segment or @addr lies below it.
 */
int dwinfo_file_offset(const struct dwinfo *dw, uint64_t addr, uint64_t *off);

/*
 * dwinfo_file_matches() - does source file @path (a line table's or a
 * DW_AT_name) name the file the user wrote as @want: a base name, a path
 * suffix at a component boundary (`src/main.c`), or a glob.
 */
bool dwinfo_file_matches(const char *path, const char *want);

/* What dwinfo_loc_ctx()'s CFA callback reads; lives as long as the ctx. */
struct dwinfo_cfa {
	struct dwinfo *dw;
	uint64_t pc;		/* link-time */
};

/**
 * dwinfo_loc_ctx() - the dwloc context at link-time @pc in out-of-line
 * function DIE @func (a subprogram with code)
 * @cfa: storage for the CFA callback's state, kept by the caller as long
 *       as @ctx is used
 *
 * Entry and body are @func's (stack slots read before the end of its
 * prologue are refused); the frame base is @func's.  @ctx->frame points at
 * @func.
 */
void dwinfo_loc_ctx(struct dwinfo *dw, uint64_t pc, Dwarf_Die *func,
		    struct dwinfo_cfa *cfa, struct dwloc_ctx *ctx);

/*
 * Hooks for the kernel's DWARF (common/kdwarf.c), where reading every unit
 * of a 600 MB vmlinux is what must not happen.
 */

/**
 * dwinfo_set_units() - restrict dwinfo_funcs(), dwinfo_statement() and the
 * searches of dwtype.c for globals and types to the units whose DIE
 * offsets are in @offs (sorted, kept by the caller while set); NULL: all.
 */
void dwinfo_set_units(struct dwinfo *dw, const uint64_t *offs, size_t n);
/* Is unit @cudie among those dwinfo_set_units() left? */
bool dwinfo_unit_wanted(const struct dwinfo *dw, Dwarf_Die *cudie);

/**
 * dwinfo_set_kernel() - @dw is a kernel image: statics are read at their
 * running addresses (link-time + @reloc, the KASLR slide) with the kprobe
 * syntax @ADDR, not at file offsets of a mapping.
 */
void dwinfo_set_kernel(struct dwinfo *dw, int64_t reloc);
/* The running address of link-time @addr: false unless a kernel image. */
bool dwinfo_kernel_addr(const struct dwinfo *dw, uint64_t addr, uint64_t *out);

#endif
