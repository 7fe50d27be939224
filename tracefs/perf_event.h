/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PERF_EVENT_H
#define TAPKIT_PERF_EVENT_H

/*
 * perf_event sources over trace events: what counters (perf_counter.h) and
 * samplers (perf_sampler.h) share.  Both attach to a trace event id (a
 * tracepoint or a dynamic event of ours) either on every CPU, or on a
 * process's threads.
 */
#include <stdbool.h>
#include <sys/types.h>

/* Where a perf source attaches. */
struct perf_scope {
	const pid_t *tids;	/* NULL: system-wide, one fd per online CPU */
	int ntids;		/* threads of the target; children inherit
				 * only threads (inherit_thread) where the
				 * kernel has it */
	bool tree;		/* children (the process tree) too */
};

/* Raise RLIMIT_NOFILE to its hard limit (many counters need many fds). */
void perf_raise_fd_limit(void);

/*
 * strerror() of a perf_event_open() failure (@err > 0), with the privilege
 * it lacks when it was refused: "Permission denied (perf_event needs root,
 * CAP_PERFMON or CAP_SYS_ADMIN at kernel.perf_event_paranoid 2)", or for
 * root without those capabilities, that it has neither.
 * A static buffer.
 */
const char *perf_strerror(int err);

#endif
