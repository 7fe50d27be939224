/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_USYM_H
#define TAPKIT_USYM_H

#include <stddef.h>

/**
 * usym_libc() - where function @sym of the C library lives on disk
 * @path: receives the library's real path
 * @offset: receives the function's file offset (what a uprobe wants)
 *
 * Uses the C library this program is linked with, which is the one the
 * system's dynamically linked programs use.  0 or -errno (-ENOENT when the
 * library has no such symbol).
 */
int usym_libc(const char *sym, char *path, size_t n, unsigned long long *offset);

#endif
