/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROBE_TOOL_H
#define TAPKIT_PROBE_TOOL_H

/*
 * The run of a command that traces one dynamic probe as perf-tools' uprobe
 * and kprobe do: a session of its own, the probe defined in its group,
 * each hit printed by probe_out (tool/probedef.h) with -s stacks, -p/-t
 * scoping, -d; or with -v the event's format printed and the probe removed.
 * The command parses its definition and says how to define the probe.
 */
#include <stdbool.h>

#include "common/opt.h"
#include "tool/probedef.h"
#include "tracefs/session.h"

struct ksyms;

struct probe_tool {
	/* filled by the command */
	const char *tool;		/* "uprobe": the banner's word */
	const struct trace_opts *t;
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

/* Run it (or -v): the process's exit status. */
int probe_tool_run(struct probe_tool *pt);

#endif
