/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_USITE_H
#define TAPKIT_USITE_H

/*
 * User-space probe sites: the one entry point the tools (uprobe, funccount,
 * funclatency, tplist, the C library and loader sites of opensnoop and
 * execsnoop) and the language
 * (process("x").function/statement/mark) share to turn what a user wrote
 * into what a uprobe definition needs:
 *
 *	p:GROUP/EVENT PATH:OFFSET[(REF_CTR_OFFSET)] NAME=LOC:TYPE ...
 *
 * Nothing here touches tracefs.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/fetcharg.h"

struct usite {
	char *path;		/* PATH, openable by the kernel from here */
	uint64_t offset;	/* OFFSET: file offset of the site */
	uint64_t ref_ctr_offset;/* REF_CTR_OFFSET: a USDT semaphore; 0 none */
	uint64_t vaddr;		/* link-time address, for listings */
	char *name;		/* "malloc", "main+0x4", "prov:name",
				 * "main.c:42": what the user matched */
	char *func;		/* the function it is in, NULL when unknown */
	struct fetcharg *args;	/* DWARF parameters or USDT arguments, some
				 * possibly refused (see fetcharg.h) */
	size_t nargs;
	bool ifunc;		/* an IFUNC resolver we could not resolve */
	bool after_prologue;	/* moved past the prologue for its args */
};

struct usite_list {
	struct usite *v;
	size_t n;
};

/* usite_opts.flags */
#define USITE_ARGS	(1 << 0)	/* parameters from DWARF, if any */

struct usite_opts {
	pid_t pid;		/* 0, or the process whose view counts */
	const char *debug_dirs;	/* roots for debug files, NULL: default */
	unsigned int flags;
};

/**
 * usite_functions() - sites at function entries
 * @target: a path, library or program name (target_resolve()); NULL or ""
 *          with @o->pid for the process's executable
 * @pattern: a glob (`mem*`: every match), `func+OFF` (one site, checked to
 *           be on an instruction boundary) or a link-time address `0x...`
 * @out: receives the sites; release with usite_list_release()
 *
 * IFUNC resolvers of a library our own process has loaded (the C
 * library) are replaced by the implementation they pick, since our CPU is
 * the target's; others are kept and flagged.  With USITE_ARGS each site
 * gets its DWARF parameters; when some of them are only in their stack
 * slots after the prologue (unoptimized code), the site moves there.
 * 0 with @out->n possibly 0, or -errno with the reason in @err.
 */
int usite_functions(const char *target, const char *pattern,
		    const struct usite_opts *o, struct usite_list *out,
		    char *err, size_t errlen);

/**
 * usite_marks() - the call sites of USDT probes
 * @target: as for usite_functions(); NULL or "" with @o->pid means every
 *          object the process has mapped
 * @provider, @name: globs, NULL for all
 *
 * Each call site is one site named "provider:name", with its semaphore
 * and its arguments (arg1..argN).  Sites that cannot be probed at all are
 * left out with the reason in @err when nothing else matches.
 */
int usite_marks(const char *target, const char *provider, const char *name,
		const struct usite_opts *o, struct usite_list *out, char *err,
		size_t errlen);

/**
 * usite_statement() - sites at a source line, `[FUNC@]FILE:LINE`
 *
 * Needs DWARF; one site per block of code the line starts.  No arguments
 * yet (variables in scope are for a later step).
 */
int usite_statement(const char *target, const char *spec,
		    const struct usite_opts *o, struct usite_list *out,
		    char *err, size_t errlen);

/**
 * usite_entry() - the site at the ELF entry point of @target
 *
 * For a dynamic loader (`usite_interp()`) this is the first instruction
 * of every dynamically linked program after exec, with the stack as the
 * kernel built it: argc at 0(%sp), then argv[], NULL, envp[].  One site
 * named "_entry" (0 on success, -errno with @err said).
 */
int usite_entry(const char *target, const struct usite_opts *o,
		struct usite_list *out, char *err, size_t errlen);

/**
 * usite_interp() - the program interpreter (PT_INTERP) of @target, the
 * dynamic loader that runs before it, as a real path in *@path (the
 * caller frees).  "libc" gives the loader of the system's programs.
 * 0, -ENOENT for a static program, or -errno with @err said.
 */
int usite_interp(const char *target, pid_t pid, char **path, char *err,
		 size_t errlen);

/**
 * usite_dedupe() - keep one site per address, named by its plainest name
 * @l: sites, some of them aliases (two symbols at one address: `malloc`
 *     and `__libc_malloc`), as bcc keeps one uprobe per address
 * @paired: NULL, or a list of as many sites as @l, one for each (a return
 *     probe's entries): the same ones are removed from it
 */
void usite_dedupe(struct usite_list *l, struct usite_list *paired);
void usite_list_release(struct usite_list *l);

struct elffile;
/*
 * usite_open() - resolve @target (as the functions above do, in @pid's view
 * when @pid) and open it: 0 with *@path and *@ef set (free both:
 * free(), elffile_free()), or -errno with @err said.
 */
int usite_open(const char *target, pid_t pid, char **path, struct elffile **ef,
	       char *err, size_t errlen);

#endif
