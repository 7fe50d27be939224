/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_USDT_ARG_H
#define TAPKIT_USDT_ARG_H

/*
 * USDT argument specs (x86-64), as <sys/sdt.h> writes them into the
 * .note.stapsdt notes: `-4@%ebx 8@-24(%rbp) 8@counter(%rip) -4@$5`, turned
 * into uprobe fetch arguments: `%bx:s32 -24(%bp):u64 +0x2e50(%ip):u64
 * \0xfffffffb:s32`.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/fetcharg.h"

/* What translating a spec may need to know about the call site. */
struct usdt_arg_ctx {
	uint64_t pc;		/* the call site's link-time address: %ip
				 * there when the uprobe fires */
	bool absolute;		/* a fixed-address executable (ET_EXEC):
				 * link-time addresses are run-time ones */
	/* link-time address of symbol @name: 0 or -errno; NULL: none known */
	int (*sym_addr)(void *priv, const char *name, uint64_t *vaddr);
	void *priv;
};

/**
 * usdt_arg_parse() - translate one spec into a fetch location and type
 * @spec: one argument, `[[-]SIZE@]OPERAND`, NUL-terminated
 * @arg: receives loc (allocated), type, size, is_signed; name is left
 *       alone.  Untouched on failure
 *
 * 0, or -EINVAL with the reason in @err: a malformed spec, or one uprobes
 * cannot fetch (an indexed operand `(%rax,%rdx,8)`, a vector register,
 * a symbol's address that only the dynamic linker knows).
 */
int usdt_arg_parse(const char *spec, const struct usdt_arg_ctx *ctx,
		   struct fetcharg *arg, char *err, size_t errlen);

/**
 * usdt_args_parse() - all the arguments of a call site
 * @args: the note's argument string, specs separated by blanks
 * @out: receives @n arguments named arg1..argN; one that cannot be
 *       fetched has its refused set (the others stay usable).  The caller
 *       frees them with fetchargs_free()
 *
 * 0, or -EINVAL when @args holds more than USDT_MAX_ARGS specs.
 */
#define USDT_MAX_ARGS 32
int usdt_args_parse(const char *args, const struct usdt_arg_ctx *ctx,
		    struct fetcharg **out, size_t *n, char *err,
		    size_t errlen);

#endif
