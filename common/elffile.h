/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_ELFFILE_H
#define TAPKIT_ELFFILE_H

/*
 * An executable or shared object opened for probing: its libelf handle and
 * the loadable segments that turn link-time addresses into the file
 * offsets uprobes are defined with (PATH:OFFSET).
 */
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct elffile;

/**
 * elffile_open() - open the ELF executable or shared object at @path
 * @err: receives the reason on failure (@errlen bytes)
 *
 * Refuses relocatable objects, cores and files of another byte order than
 * ours.  NULL with errno set (ENOEXEC for a file that is not a loadable
 * ELF object).  The caller frees with elffile_free().
 */
struct elffile *elffile_open(const char *path, char *err, size_t errlen);
void elffile_free(struct elffile *ef);

Elf *elffile_elf(const struct elffile *ef);
const char *elffile_path(const struct elffile *ef);
/* ET_EXEC or ET_DYN; EM_X86_64...; 8 for ELFCLASS64, 4 for ELFCLASS32. */
int elffile_type(const struct elffile *ef);
int elffile_machine(const struct elffile *ef);
int elffile_addr_size(const struct elffile *ef);

/**
 * elffile_vaddr_to_off() - file offset of link-time address @vaddr
 *
 * Found through the PT_LOAD segment holding @vaddr, so it is right for
 * PIE, shared objects, fixed-address executables and prelinked objects
 * alike.  -ENOENT when no segment maps @vaddr from the file (including the
 * zero-filled tail of a data segment).
 */
int elffile_vaddr_to_off(const struct elffile *ef, uint64_t vaddr,
			 uint64_t *off);

/**
 * elffile_read() - up to @n bytes of the file at link-time address @vaddr
 *
 * Stops at the end of the segment's file contents.  Returns the number of
 * bytes read, or -errno (-ENOENT when @vaddr is not file-backed).
 */
ssize_t elffile_read(const struct elffile *ef, uint64_t vaddr, void *buf,
		     size_t n);

/*
 * elffile_add_symbols() - the .symtab of the separate debug file at
 * @debug_path stands in for the one a stripped object lacks (same
 * link-time addresses; offsets still come from the object's segments).
 * 0 or -errno.
 */
int elffile_add_symbols(struct elffile *ef, const char *debug_path);
/* That debug file's ELF, or NULL. */
Elf *elffile_symbols_elf(const struct elffile *ef);

/* The section named @name (and its header in @shdr), or NULL. */
Elf_Scn *elffile_section(const struct elffile *ef, const char *name,
			 GElf_Shdr *shdr);

#endif
