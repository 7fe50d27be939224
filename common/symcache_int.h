/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_SYMCACHE_INT_H
#define TAPKIT_SYMCACHE_INT_H

/*
 * Between symcache.c (processes, their maps, JIT maps, the kernel) and
 * symcache_file.c (one mapped file: segments, symbols, lines).
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sc_file;

/*
 * scfile_new() - a mapped file, held open through @fd (taken over)
 * @root_path: where the process's root shows it now, for a debug file
 *             beside it; may stop existing
 */
struct sc_file *scfile_new(int fd, dev_t dev, ino_t ino, const char *root_path);
void scfile_free(struct sc_file *f);
bool scfile_is(const struct sc_file *f, dev_t dev, ino_t ino);

/* The link-time address of file offset @off: 0, or -ENOENT (no segment
 * loads it, or not an ELF object). */
int scfile_vaddr(struct sc_file *f, uint64_t off, uint64_t *vaddr);
/* The extent of its loadable segments (link-time), for a module's size. */
uint64_t scfile_size(struct sc_file *f);
/* The function symbol holding @vaddr: its name, *@start and *@size;
 * NULL when none. */
const char *scfile_sym(struct sc_file *f, uint64_t vaddr, uint64_t *start,
		       uint64_t *size);
/* Source file and line of @vaddr: 0, or -ENOENT. */
int scfile_line(struct sc_file *f, uint64_t vaddr, const char **file,
		int *line);

#endif
