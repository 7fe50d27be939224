/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_SYMCACHE_H
#define TAPKIT_SYMCACHE_H

/*
 * Symbols of the addresses in stacks: kernel addresses through kallsyms,
 * user addresses of any process, including processes that have exited by
 * the time the stack is printed.
 *
 *	c = symcache_new();
 *	symcache_note(c, pid);		at the first sample of @pid: keeps
 *					its maps and opens its mapped files
 *	symcache_user(c, pid, addr, 0, &s);	any time later
 *	symcache_kernel(c, addr, &s);
 *	symcache_free(c);
 *
 * Files are cached per (device, inode), so a shared library used by many
 * processes is opened and read once.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What symcache_user() and symcache_kernel() print for an address that
 * nothing names, in tools that print perf's style. */
#define SYMCACHE_UNKNOWN "[unknown]"

struct symcache;

/* One resolved address; the strings live as long as the cache. */
struct symcache_sym {
	const char *module;	/* "kernel", a kernel module's name, the
				 * mapped file's path as the process named
				 * it, "[vdso]", "/tmp/perf-PID.map" for
				 * JIT code; NULL: unknown */
	const char *name;	/* the symbol, NULL when unknown */
	uint64_t offset;	/* into the symbol; without one, into the
				 * module (its link-time address) */
	uint64_t size;		/* of the symbol; without one, of the
				 * module; 0 unknown */
	const char *file;	/* with SYMCACHE_LINES: the source file,
				 * NULL unknown */
	int line;		/* and its line, 0 unknown */
};

/* symcache_user() flags */
#define SYMCACHE_LINES	 (1 << 0)	/* also file and line (DWARF) */
#define SYMCACHE_RETADDR (1 << 1)	/* @addr is a return address: the
					 * line is that of the call (addr-1) */

/* An empty cache; kallsyms is read at the first kernel lookup.  Free
 * with symcache_free(). */
struct symcache *symcache_new(void);
void symcache_free(struct symcache *c);

/**
 * symcache_note() - remember process @pid as it is now
 *
 * The first time: reads /proc/PID/maps, opens every mapped file (through
 * /proc/PID/map_files/, else /proc/PID/root/PATH, so files of other mount
 * namespaces and deleted files work) and its JIT map /tmp/perf-PID.map in
 * the process's own root.  Later calls for the same @pid return at once.
 * 0, or -errno (-ESRCH: the process is gone).
 */
int symcache_note(struct symcache *c, pid_t pid);

/**
 * symcache_add_map() - a mapping of process @pid told by someone else (a
 * perf PERF_RECORD_MMAP2), for a process that may be gone before it could
 * be noted
 * @path: the mapped file as the process named it; opened now through
 *        /proc/PID/root/, else as it is (tapkit's own mount namespace)
 *
 * Replaces what overlaps it.  A process known only this way has its maps
 * read at symcache_note() all the same, while it lives.  0, or -errno
 * when the file cannot be opened (the mapping is kept, named by @path).
 */
int symcache_add_map(struct symcache *c, pid_t pid, uint64_t start,
		     uint64_t len, uint64_t pgoff, const char *path);

/**
 * symcache_user() - name user address @addr of process @pid
 * @pid: looked up first; when it was never noted or does not map @addr,
 *       the most recently noted process that maps it answers (0: only
 *       that)
 *
 * Through the file's PT_LOAD segments to its link-time address, then
 * .symtab (the separate debug file's when stripped) and .dynsym, and
 * with SYMCACHE_LINES the DWARF line tables; anonymous memory through the
 * process's JIT map.  0 with @out filled (out->name may still be NULL:
 * the module is known), or -ENOENT when nothing names @addr.
 */
int symcache_user(struct symcache *c, pid_t pid, uint64_t addr,
		  unsigned int flags, struct symcache_sym *out);

/**
 * symcache_kernel() - name kernel address @addr through /proc/kallsyms
 *
 * module is "kernel" for the core kernel.  0, or -ENOENT (also when
 * kallsyms cannot be read: kptr_restrict, no permission).
 */
int symcache_kernel(struct symcache *c, uint64_t addr,
		    struct symcache_sym *out);

#endif
