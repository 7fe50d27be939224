/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LDCACHE_H
#define TAPKIT_LDCACHE_H

/*
 * The dynamic linker's cache, /etc/ld.so.cache, mapping library names
 * (libc.so.6) to paths, as `ldconfig -p` prints it.
 */
#include <stdbool.h>
#include <stddef.h>

#define LDCACHE_PATH "/etc/ld.so.cache"

/**
 * ldcache_lookup() - path of the first library of ours matching @name
 * @data, @len: the cache file's contents
 * @name: a library name as target_resolve() takes it (`libc`, `c`,
 *        `libc.so.6`); see ldcache_name_match()
 * @path: receives the path (@n bytes)
 *
 * Only entries for this machine's ABI count (x86-64 libraries on x86-64).
 * 0, -ENOENT when no entry matches, -EINVAL for a malformed cache,
 * -ENAMETOOLONG when @path is too small.
 */
int ldcache_lookup(const void *data, size_t len, const char *name,
		   char *path, size_t n);

/**
 * ldcache_name_match() - does library file name @base match @name
 *
 * `libc.so.6` matches `libc.so.6` itself, `libc.so`, `libc` and `c`; a name
 * without `.so` matches `lib<name>.so*` and old-style `lib<name>-2.31.so`.
 */
bool ldcache_name_match(const char *base, const char *name);

#endif
