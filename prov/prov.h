/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROV_H
#define TAPKIT_PROV_H

/*
 * The providers: the bridges between the language (lang/provider.h, the
 * interface) and the core (tracefs/, common/).  One file per probe family.
 */
#include "lang/provider.h"

/* The providers tapkit knows, in the order they are asked; NULL-ended. */
extern const struct provider *const prov_all[];

/* basic.c: begin, end, error, never, timer.* */
extern const struct provider prov_basic;
/* trace.c: kernel.trace("system:event"), with trace_mem.c's memory reads */
extern const struct provider prov_trace;
/* kprobe.c: kernel.function, module().function, kprobe.function,
 * kernel.statement, through kprobes, typed by BTF (common/kbtf.c) */
extern const struct provider prov_kprobe;

/* perf.c: timer.profile, perf.sw/hw/type(T).config(C) sampling */
extern const struct provider prov_perf;
/* procs.c: process.begin/end, process.thread.begin/end, on a path or PID */
extern const struct provider prov_procs;

/* procfs.c: procfs("name").read/.write (FIFOs under /run/tapkit/PID),
 * input.char/line, and the prometheus endpoint */
extern const struct provider prov_procfs;
/* Whether @p is the probe --prometheus serves (`prometheus`). */
bool procfs_is_prometheus(const struct prov_probe *p);
/* Remove the /run/tapkit/PID directories of tapkit processes that are
 * gone (--cleanup); how many, or -errno. */
int procfs_cleanup_stale(void);

/* uprobe.c: process("path"|PID).function/statement/mark(...) */
extern const struct provider prov_uprobe;

#endif
