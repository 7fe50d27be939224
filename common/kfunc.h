/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_KFUNC_H
#define TAPKIT_KFUNC_H

/*
 * Kernel functions a kprobe can be put on: the names the kprobe tool checks
 * before it defines a probe, and the matches of funccount's and
 * funclatency's kernel patterns (`vfs_*`).  Nothing here touches tracefs
 * definitions; it only reads /proc/kallsyms, the function tracer's
 * available_filter_functions (when readable) and the kprobes blacklist.
 */
#include <stddef.h>

struct kfunc_list {
	char **v;		/* names, sorted, each once */
	size_t n;
};

/**
 * kfunc_match() - the traceable kernel functions matching glob @pattern
 *
 * From available_filter_functions when it is readable (what bcc's
 * funccount uses), else the text symbols of /proc/kallsyms; either way
 * without the kprobes blacklist and the functions a kprobe on would
 * recurse into the tracing code itself.  Module functions are included,
 * by their bare name.  0 with @out->n possibly 0, or -errno with the
 * reason in @err.  Release @out with kfunc_list_release().
 */
int kfunc_match(const char *pattern, struct kfunc_list *out, char *err,
		size_t errlen);

/**
 * kfunc_check() - can a kprobe go on @name (`func` or `func+OFF`)?
 *
 * 0 when @name is a text symbol in /proc/kallsyms and not blacklisted;
 * -ENOENT ("no kernel function 'x'"), -EPERM (blacklisted, or kallsyms
 * unreadable) or another -errno, with the reason in @err.
 */
int kfunc_check(const char *name, char *err, size_t errlen);

void kfunc_list_release(struct kfunc_list *l);

/*
 * kfunc_set_paths() - read these files instead of /proc/kallsyms,
 * tracefs' available_filter_functions and debugfs' kprobes/blacklist (NULL:
 * the default); for tests.  Drops what was read so far.
 */
void kfunc_set_paths(const char *kallsyms, const char *filter_functions,
		     const char *blacklist);

#endif
