/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROBE_TOOL_H
#define TAPKIT_PROBE_TOOL_H

/*
 * What the commands that trace one event as perf-tools' tpoint, uprobe and
 * kprobe do share: their options, and for uprobe and kprobe the struct tool
 * callbacks of a session of its own with the one dynamic probe defined in
 * its group, each hit printed by probe_out (tool/probedef.h) with -s
 * stacks; or with -v the event's format printed and the probe removed.
 * The command parses its definition and says how to define the probe;
 * tool_run() does the rest.
 */
#include <stdbool.h>

#include "tool/options.h"
#include "tool/probedef.h"
#include "tracefs/session.h"

struct ksyms;
struct tool;

/*
 * The one-event tools' options: the shared -p -t -d -j -c (and -h), and
 * their own -H headers, -s stacks, -v the event's format (long name
 * --verbose), -b KB, -L TID (perf-tools' letter for -t).  TRACE_OPTIONS
 * goes into the command's tool_option table, trace_option() takes them.
 */
struct trace_opts {
	bool json, headers, stacks, view;
	int pid, tid;			/* copies of the tool's (trace_opts_sync) */
	bool tree;			/* pid is -c's command: its process tree */
	long duration, buffer_kb;
};
#define TRACE_SHARED (TOPT_PID | TOPT_TID | TOPT_DURATION | TOPT_JSON | TOPT_COMMAND)
#define TRACE_OPTIONS							\
	{ 'H', "headers", no_argument, NULL },				\
	{ 's', "stacks", no_argument, NULL },				\
	{ 'v', "verbose", no_argument, NULL },				\
	{ 'b', "buffer-kb", required_argument, NULL },			\
	{ 'L', NULL, required_argument, NULL }
/* True when @key (with @arg) is one of TRACE_OPTIONS, now in @o (-L in
 * t->opt.tid); usage errors exit. */
bool trace_option(struct tool *t, struct trace_opts *o, int key, const char *arg);
/* The shared options of @t into @o: after parsing, and again in setup
 * (where -c has given the command's PID). */
void trace_opts_sync(struct trace_opts *o, const struct tool *t);
/*
 * The operands of uprobe and kprobe after their options: a DEFINITION and
 * an optional filter, into *@def and *@filter.  Usage errors exit; @none
 * is the error when there is no definition.
 */
void trace_opts_def(int argc, char **argv, int optind, const struct trace_opts *o,
		    const char *none, char **def, const char **filter);

struct probe_tool {
	/* filled by the command */
	const char *tool;		/* "uprobe": the banner's word */
	struct trace_opts *t;
	bool ret;			/* a return probe */
	bool kernel;			/* kernel addresses and stacks */
	/* define the probe in @s, in @mode: its tp, or NULL after saying
	 * why (pr_err) */
	struct tp *(*define)(struct probe_tool *pt, struct session *s,
			     enum tp_mode mode);
	void *ctx;			/* the command's, for define() */
	/* the run's */
	struct session *s;
	struct tp *tp;
	struct ksyms *ks;
	struct probe_out out;
};

/*
 * probe_tool_init() - the struct tool of @pt: t->ctx is @pt, the setup,
 * drain, summary and teardown of its session; the command adds its usage,
 * options and check.
 */
void probe_tool_init(struct probe_tool *pt, struct tool *t);
/* For the command's check, once its definition is parsed: -v becomes the
 * run (the format printed, no loop). */
void probe_tool_check(struct tool *t);

#endif
