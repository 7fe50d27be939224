/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_USDT_H
#define TAPKIT_USDT_H

/*
 * USDT probes (<sys/sdt.h>, DTRACE_PROBE, dtrace -G) of an ELF object:
 * what `tplist -l`, `process("x").mark("name")` and `uprobe -u` need to
 * define a uprobe at each call site.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/elffile.h"
#include "common/fetcharg.h"
#include "common/usdt_note.h"

/* One call site, ready for `p PATH:OFFSET(REF_CTR_OFFSET) ARGS`. */
struct usdt_probe {
	char *provider;
	char *name;
	uint64_t pc;		/* link-time address (prelink-adjusted) */
	uint64_t offset;	/* file offset of pc */
	uint64_t sema;		/* semaphore address, 0 when none */
	uint64_t sema_offset;	/* its file offset, the REF_CTR_OFFSET;
				 * 0 when none */
	char *argstr;		/* the note's specs, for listings */
	struct fetcharg *args;	/* arg1..argN, some possibly refused */
	size_t nargs;
	char *refused;		/* why this site cannot be probed at all;
				 * NULL when it can */
};

struct usdt_list {
	struct usdt_probe *v;
	size_t n;
};

/**
 * usdt_find() - the call sites of the probes matching the patterns
 * @provider, @name: fnmatch(3) globs; NULL matches all
 * @out: receives the call sites in note order; release it with
 *       usdt_list_release()
 *
 * An object without .note.stapsdt has no probes (0, @out->n == 0).  Notes
 * are moved by the difference between .stapsdt.base's address and the
 * one they recorded (prelink); the argument specs are translated for
 * x86-64 objects (others' are refused).  0, or -errno with the reason in
 * @err (-EINVAL for a malformed note section).
 */
int usdt_find(struct elffile *ef, const char *provider, const char *name,
	      struct usdt_list *out, char *err, size_t errlen);
void usdt_list_release(struct usdt_list *l);

#endif
