/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_KDWARF_H
#define TAPKIT_KDWARF_H

/*
 * The running kernel's DWARF, where its debug vmlinux is installed: source
 * files and lines, inline instances, locals and globals that BTF lacks.
 * The reading is common/dwinfo.c's, dwloc.c's and dwtype.c's; this file
 * finds the file, checks it is the running kernel's, and keeps each
 * question to the compile units it concerns (a vmlinux has thousands, and
 * hundreds of megabytes of DWARF that must not be read per run).
 *
 * Addresses here are link-time addresses of vmlinux; kprobes are put at
 * `symbol+offset` (kdwarf_symbol()), which KASLR does not change, and
 * globals are read at their running address (dwinfo_set_kernel()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dwinfo.h"

struct kdwarf;

/**
 * kdwarf_open() - the DWARF of the running kernel
 *
 * The first of /usr/lib/debug/boot/vmlinux-R, /usr/lib/debug/lib/modules/R/
 * vmlinux, /boot/vmlinux-R, /lib/modules/R/build/vmlinux (R: uname -r)
 * that exists, whose GNU build ID must be the running kernel's
 * (/sys/kernel/notes).  NULL with errno and the reason in @err: ENOENT
 * when none is installed (the message names the package to install),
 * ESTALE when the file is another kernel's (both build IDs named), or
 * what reading it failed with.  Free with kdwarf_free().
 */
struct kdwarf *kdwarf_open(char *err, size_t errlen);
void kdwarf_free(struct kdwarf *k);

/* The debug information, for the dwinfo_ and dwtype_ functions. */
struct dwinfo *kdwarf_dwinfo(struct kdwarf *k);
/* The vmlinux it was read from. */
const char *kdwarf_path(const struct kdwarf *k);

/**
 * kdwarf_scope() - what follows reads only the units whose name matches
 * source file @file (dwinfo_file_matches(): "fs/open.c", "open.c", a
 * glob); NULL: every unit again.  -ENOENT (and every unit) when no unit
 * has that name, as for a header file: the caller then decides whether a
 * walk of them all is worth it.  The units are found through the symbol
 * table when the file has a local function, else by every unit's name.
 */
int kdwarf_scope(struct kdwarf *k, const char *file);

/* kdwarf_scope() to the one unit whose code covers link-time @pc (no unit
 * at all when none does). */
void kdwarf_scope_at(struct kdwarf *k, uint64_t pc);

/**
 * kdwarf_symbol() - the function symbol of vmlinux around link-time
 * @addr, with @addr's offset in it: "do_sys_openat2", 0x1a
 *
 * 0, or -ENOENT when no function symbol covers @addr.  @name points into
 * @k's symbol table.
 */
int kdwarf_symbol(struct kdwarf *k, uint64_t addr, const char **name,
		  uint64_t *off);

/* Is @name the name of one function symbol of vmlinux only? */
bool kdwarf_symbol_unique(struct kdwarf *k, const char *name);

/* @path (a unit's or declaring file's name) relative to the kernel's
 * source tree, as users write it: "fs/open.c".  Points into @path. */
const char *kdwarf_relpath(const struct kdwarf *k, const char *path);

/*
 * kdwarf_set_paths() - use these files instead of the installed vmlinux,
 * /sys/kernel/notes and /proc/kallsyms (NULL: the default); for tests.
 */
void kdwarf_set_paths(const char *vmlinux, const char *notes,
		      const char *kallsyms);

#endif
