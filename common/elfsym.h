/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_ELFSYM_H
#define TAPKIT_ELFSYM_H

/*
 * Function symbols of an ELF object, for placing uprobes by name:
 * `malloc`, `mem*` (every match), `main+0x1c` (checked to be inside main and
 * on an instruction boundary).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/elffile.h"

struct elfsym {
	char *name;
	uint64_t vaddr;		/* st_value: the link-time address */
	uint64_t size;		/* st_size, 0 when unknown */
	uint64_t offset;	/* the file offset of vaddr: PATH:OFFSET */
	bool ifunc;		/* STT_GNU_IFUNC: vaddr is the resolver, not
				 * the implementation the program calls */
	bool global;		/* STB_GLOBAL or STB_WEAK */
};

struct elfsym_list {
	struct elfsym *v;
	size_t n;
};

/**
 * elfsym_find() - every function symbol whose name matches @pattern
 * @pattern: a name or an fnmatch(3) glob (`mem*`, `str?cpy`)
 * @out: receives the matches sorted by address then name; the caller
 *       releases it with elfsym_list_release()
 *
 * Reads .symtab, then .dynsym (all a stripped object has); a symbol found
 * in both is listed once, and old symbol versions kept for compatibility
 * (memcpy@GLIBC_2.2.5 beside the default memcpy@@GLIBC_2.14) are not.  Functions (STT_FUNC) and IFUNC resolvers
 * (STT_GNU_IFUNC, flagged) that are defined in a file-backed segment are
 * listed; imports are not.  0 with @out->n == 0 when nothing matches, or
 * -errno with a reason in @err.
 */
int elfsym_find(struct elffile *ef, const char *pattern,
		struct elfsym_list *out, char *err, size_t errlen);
void elfsym_list_release(struct elfsym_list *l);

/**
 * elfsym_addr() - the link-time address of symbol @name, of any type
 *
 * For operands naming data (a USDT argument `8@counter(%rip)`).  -ENOENT
 * when absent, -ENOTUNIQ when several symbols of that name have different
 * addresses (two file-local statics).
 */
int elfsym_addr(struct elffile *ef, const char *name, uint64_t *vaddr);

/**
 * elfsym_check_offset() - check that @sym + @off is a place for a uprobe
 *
 * @off must be inside the function (below its size) and, on x86-64, at the
 * start of an instruction, found by decoding the function from its start
 * (a breakpoint inside an instruction would corrupt it); on arm64 a
 * multiple of 4.  Other machines are not checked beyond the size.  0, or
 * -EINVAL with the reason in @err.
 */
int elfsym_check_offset(struct elffile *ef, const struct elfsym *sym,
			uint64_t off, char *err, size_t errlen);

/**
 * elfsym_resolve() - the one place a `FUNC[+OFF]` or `0xADDR` spec names
 * @spec: a function name (not a glob), optionally `+OFF` (decimal or 0x
 *        hex); or a link-time address `0x...`
 * @out: receives the location: a copy of the symbol with vaddr and offset
 *       moved by OFF and name set to @spec; the caller releases it with
 *       elfsym_release()
 *
 * -ENOENT when the function is not there, -ENOTUNIQ when the name is
 * ambiguous (same-named statics), -EINVAL for a bad spec or offset, each
 * with a reason in @err.
 */
int elfsym_resolve(struct elffile *ef, const char *spec, struct elfsym *out,
		   char *err, size_t errlen);
void elfsym_release(struct elfsym *sym);

#endif
