/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_DWLINE_H
#define TAPKIT_DWLINE_H

/*
 * Source lines of code addresses (`main.c:12`), for stacks printed with
 * file and line.  Addresses are link-time addresses of the object, as in
 * dwinfo.h.
 */
#include <stdint.h>

struct dwline_map;

/**
 * dwline_open() - the line tables of the object at @path
 * @debug_dirs: roots searched for a separate debug file (by build ID or
 *              .gnu_debuglink, as dwinfo_open() does), NULL for
 *              /usr/lib/debug
 *
 * NULL with errno (ENODATA: no DWARF) when there are none.  The caller
 * frees it with dwline_free().
 */
struct dwline_map *dwline_open(const char *path, const char *debug_dirs);
void dwline_free(struct dwline_map *dl);

/**
 * dwline_lookup() - the source file and line of link-time address @addr
 * @file: receives the line table's file name, valid as long as @dl
 *
 * 0, or -ENOENT when no line covers @addr.
 */
int dwline_lookup(struct dwline_map *dl, uint64_t addr, const char **file,
		  int *line);

#endif
