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

/**
 * symcache_shared() - the one cache of this process that every part of a
 * run names addresses through and tells of mappings (the stack built-ins,
 * the perf sideband of each sampler), so what one learns the others see
 * @return: a reference, created at the first call; each is dropped with
 * symcache_free(), the last frees the cache
 */
struct symcache *symcache_shared(void);

/* Drop a reference (symcache_new() gives one); NULL is a no-op. */
void symcache_free(struct symcache *c);

/**
 * symcache_note() - remember process @pid as it is now
 *
 * The first time: reads /proc/PID/maps, opens every mapped file (through
 * /proc/PID/map_files/, else /proc/PID/root/PATH, so files of other mount
 * namespaces and deleted files work) and its JIT map /tmp/perf-PID.map in
 * the process's own root.  Later calls for the same @pid return at once
 * (until a symcache_task() says it runs a new program).  A process that
 * is gone keeps what symcache_mmap() told of it, and is not read again.
 * 0, or -errno (-ESRCH: the process is gone and nothing was told of it).
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

/* A mapping as a PERF_RECORD_MMAP2 tells it. */
struct symcache_mapping {
	uint64_t start, len, pgoff;
	dev_t dev;		/* the kernel's device and inode of the file, */
	uint64_t ino;		/* 0: unknown (opened and stat()ed instead) */
	const char *path;	/* as the process named it, maybe ending in
				 * " (deleted)"; "//anon", "[vdso]"... */
};

/**
 * symcache_mmap() - mapping @m of process @pid, made at time @ts (ns, any
 * clock the caller keeps to; 0: unknown), told by a perf sideband record
 *
 * As symcache_add_map(); a file the kernel named before (@m->dev and
 * @m->ino) is not opened again.  A record older than the last one told of
 * @pid is ignored (a second sideband read later).  0, or -errno as
 * symcache_add_map().
 */
int symcache_mmap(struct symcache *c, uint64_t ts, pid_t pid,
		  const struct symcache_mapping *m);

/* What symcache_task() tells of a process. */
enum symcache_task_ev {
	SYMCACHE_FORK,		/* a new process @pid, a copy of @ppid */
	SYMCACHE_EXEC,		/* @pid runs a new program: its maps follow */
	SYMCACHE_EXIT,		/* @pid exited: kept while it is named */
};

/**
 * symcache_task() - a fork, exec or exit of process @pid at time @ts
 * (PERF_RECORD_FORK, a PERF_RECORD_COMM of an exec, PERF_RECORD_EXIT),
 * in record order with symcache_mmap()'s
 *
 * A fork copies what is known of @ppid's maps (a child that does not exec
 * runs its parent's code); an exec forgets @pid's maps and JIT map.  An
 * exited process stays until symcache_sweep() finds it was never noted.
 * 0, or -EINVAL for a bad @pid.
 */
int symcache_task(struct symcache *c, uint64_t ts, enum symcache_task_ev what,
		  pid_t pid, pid_t ppid);

/**
 * symcache_sweep() - free the processes told to have exited that nobody
 * noted (symcache_note()) since, at the second sweep after their exit;
 * call it after each batch of records, so a process's samples of the
 * same batch are handled first
 */
void symcache_sweep(struct symcache *c);

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
