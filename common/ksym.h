/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_KSYM_H
#define TAPKIT_KSYM_H

/* Kernel symbolizer over /proc/kallsyms, for -s stacks. */
#include <stdint.h>

struct ksyms;

/* Loads and sorts /proc/kallsyms (or @path); NULL with errno.  The caller
 * frees with ksyms_free().  With kptr_restrict hiding addresses (all zero)
 * it fails with EPERM; a file without symbols gives ENODATA.  Absolute (a/A)
 * and undefined symbols are left out. */
struct ksyms *ksyms_load(const char *path);
void ksyms_free(struct ksyms *ks);

/* The symbol containing @addr and the offset into it; NULL when none.
 * @module is set to the module name or NULL for the core kernel.  The
 * returned strings live as long as @ks. */
const char *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
			 uint64_t *offset, const char **module);
/* Address of @name, 0 when absent. */
uint64_t ksyms_addr(const struct ksyms *ks, const char *name);
/* The extent of the symbol holding @addr (to the next symbol), 0 unknown. */
uint64_t ksyms_size(const struct ksyms *ks, uint64_t addr);

#endif
