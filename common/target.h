/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TARGET_H
#define TAPKIT_TARGET_H

/*
 * Which file a user-space probe goes into: `uprobe -p 1234 libc:malloc`,
 * `process("bash").function("readline")`, `tplist -p 1234`.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * target_resolve() - the file to place uprobes in for @name
 * @name: a path (`/usr/bin/bash`, `./a.out`); a library name as the dynamic
 *        linker knows it (`libc`, `c`, `libc.so.6`, `pthread`); a program
 *        name looked up in $PATH (`bash`); or NULL/"" with @pid for the
 *        process's executable
 * @pid: 0, or a process whose view counts: its executable and mapped
 *       libraries are matched first (so `libc` is the one it runs), and
 *       paths are taken inside its root (a container's file system)
 * @path: receives the path to write in the uprobe definition, openable
 *        from our mount namespace (`/proc/PID/root/...` for a process in
 *        another one); the caller frees it
 *
 * A bare name is tried, in order: the process's mappings (with @pid), then
 * for names starting with `lib` or holding `.so` the linker cache
 * (/etc/ld.so.cache), else $PATH and then the cache as `lib<name>`.
 * 0, or -ENOENT/-ESRCH/-EACCES... with the reason in @err.
 */
int target_resolve(const char *name, pid_t pid, char **path, char *err,
		   size_t errlen);

/**
 * target_objects() - the files process @pid runs code from
 * @paths: receives @n allocated paths (openable from here, as above), the
 *         executable first, then libraries in address order, each once;
 *         free with target_objects_free()
 *
 * For listing a process's USDT probes or matching `lib*:func` in all its
 * objects.  Mappings of deleted files are left out.  0 or -errno.
 */
int target_objects(pid_t pid, char ***paths, size_t *n, char *err,
		   size_t errlen);
void target_objects_free(char **paths, size_t n);

/**
 * target_root() - the prefix under which @pid's paths are seen from here
 *
 * "" when @pid shares our mount namespace, "/proc/PID/root" otherwise (or
 * when that cannot be told).  Writes @buf (@n bytes); 0 or -errno.
 */
int target_root(pid_t pid, char *buf, size_t n);

/*
 * target_proc_addr() - the run-time address of file offset @off of @path
 * in process @pid: its mapping of that file (same device and inode) that
 * holds the offset.  0 when not mapped (or @pid is gone).
 */
uint64_t target_proc_addr(pid_t pid, const char *path, uint64_t off);

#endif
