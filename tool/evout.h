/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_EVOUT_H
#define TAPKIT_EVOUT_H

/*
 * What the tools that print one line per traced event share (tpoint,
 * uprobe): the ftrace-style line and an event's fields as JSON.
 */
#include <stdbool.h>
#include <stdint.h>

#include "common/event.h"

struct json;
struct trace_opts;

/* Unless -j: "Tracing WHAT. Ctrl-C to end." on stderr, and with -H the
 * header of ftrace's trace file on stdout. */
void evout_start(const struct trace_opts *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "            comm-pid     [cpu] secs.usecs: name: TEXT", as ftrace's trace
 * file prints an event, @ts in nanoseconds, TEXT from @fmt. */
void evout_line(const char *comm, int pid, int cpu, uint64_t ts,
		const char *name, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Member @key of @j: an object with each of @n fields of @ev, typed (strings
 * with their exact bytes, arrays of numbers, signed or unsigned numbers).
 * With @faults (a probe's fetched args), a string the kernel could not read
 * (field_str_fault()) is null. */
void evout_json_fields(struct json *j, const char *key, const struct tk_field *f,
		       int n, const struct tk_event *ev, bool faults);

#endif
