/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PERF_H
#define TAPKIT_PERF_H

/*
 * perf_event sources.  Counting mode for tools that only count (no records
 * at all: the kernel's floor, see PERF.md), and sampling with callchains for
 * tools that need stacks.  Both attach to a trace event id (a tracepoint or a
 * dynamic event of ours) either on every CPU, or on a process's threads.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/event.h"

/* Where a perf source attaches. */
struct perf_scope {
	const pid_t *tids;	/* NULL: system-wide, one fd per online CPU */
	int ntids;		/* threads of the target; children inherit
				 * only threads (inherit_thread) where the
				 * kernel has it */
	bool tree;		/* children (the process tree) too */
};

struct perf_counter;
struct perf_group;

/**
 * perf_group_open() - dummy leaders (one per CPU or thread of @scope) that
 * counters can join, so that all of them are switched on and off with one
 * call per CPU: enabling, disabling and closing hundreds of active events
 * one by one costs a cross-CPU call each.  NULL with errno.
 */
struct perf_group *perf_group_open(const struct perf_scope *scope);
int perf_group_enable(struct perf_group *g);
int perf_group_disable(struct perf_group *g);
/* Closes the leaders: free the group's counters first.  NULL is a no-op. */
void perf_group_free(struct perf_group *g);

/**
 * perf_counter_open() - count trace event @id in @scope, disabled
 * @filter: ftrace filter expression or NULL (PERF_EVENT_IOC_SET_FILTER)
 * @group: NULL, or a group to join (its scope is used, and the counter
 *	counts while the group is enabled)
 * Returns a counter the caller frees with perf_counter_free(), or NULL with
 * errno set (EINVAL for a filter the kernel rejects).
 */
struct perf_counter *perf_counter_open(int id, const struct perf_scope *scope,
				       const char *filter, struct perf_group *group);
/* The counter's fds (owned by it), count in *n. */
const int *perf_counter_fds(const struct perf_counter *c, int *n);
/* The group's leader fds into @out (perf_group_size() entries at most). */
int perf_group_fds(const struct perf_group *g, int *out);
int perf_group_size(const struct perf_group *g);

int perf_counter_enable(struct perf_counter *c);
int perf_counter_disable(struct perf_counter *c);
/* Sum over all fds (and inherited children). */
uint64_t perf_counter_read(struct perf_counter *c);
void perf_counter_free(struct perf_counter *c);

struct perf_sampler;

/**
 * perf_sampler_open() - a record per hit of trace event @id, with RAW data,
 * TID, TIME (CLOCK_MONOTONIC), CPU and, when @callchain, the kernel and user
 * callchain.  @pages_per_cpu data pages (a power of two, 0 for a default of
 * 128) per ring; there is one ring per online CPU in both scopes.
 * Returns NULL with errno on failure; free with perf_sampler_free().
 */
struct perf_sampler *perf_sampler_open(int id, const struct perf_scope *scope,
				       const char *filter, bool callchain,
				       unsigned int pages_per_cpu);
int perf_sampler_enable(struct perf_sampler *s);
/* Stop recording; buffered samples stay for a final drain. */
int perf_sampler_disable(struct perf_sampler *s);
/* The ring fds to poll (count in *n); owned by the sampler.  A ring wakes
 * its poller only when a quarter full: drain on a timer and at exit too. */
const int *perf_sampler_fds(struct perf_sampler *s, int *n);
/* Deliver every buffered sample to @fn, merged across rings in timestamp
 * order; the event is valid only during the call.  Returns how many. */
int perf_sampler_drain(struct perf_sampler *s, tk_event_fn fn, void *arg);
/* Samples the kernel dropped on full rings, summed: its own per-event
 * counter (PERF_FORMAT_LOST) on Linux 6.0+, else PERF_RECORD_LOST seen. */
uint64_t perf_sampler_lost(struct perf_sampler *s);
void perf_sampler_free(struct perf_sampler *s);

/* Raise RLIMIT_NOFILE to its hard limit (many counters need many fds). */
void perf_raise_fd_limit(void);

#endif
