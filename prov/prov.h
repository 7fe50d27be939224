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

/* uprobe.c: process("path"|PID).function/statement/mark(...) */
extern const struct provider prov_uprobe;

#endif
