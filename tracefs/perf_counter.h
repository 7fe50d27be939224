/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PERF_COUNTER_H
#define TAPKIT_PERF_COUNTER_H

/*
 * perf_event counting mode over a trace event, for tools that only count:
 * no records at all, the kernel's floor (PERF.md).
 */
#include <stdint.h>

#include "tracefs/perf_event.h"

struct perf_counter;
struct perf_group;

/**
 * perf_group_open() - dummy leaders (one per CPU or thread of @scope) that
 * counters can join, so that all of them are switched on and off with one
 * call per CPU: enabling, disabling and closing hundreds of active events
 * one by one costs a cross-CPU call each.  NULL with errno.
 */
struct perf_group *perf_group_open(const struct perf_scope *scope);
/* Start / stop every counter of the group; 0 or -errno. */
int perf_group_enable(struct perf_group *g);
int perf_group_disable(struct perf_group *g);
/* Closes the leaders: free the group's counters first.  NULL is a no-op. */
void perf_group_free(struct perf_group *g);
/* The group's leader fds into @out (perf_group_size() entries at most);
 * returns how many. */
int perf_group_fds(const struct perf_group *g, int *out);
int perf_group_size(const struct perf_group *g);

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

int perf_counter_enable(struct perf_counter *c);
int perf_counter_disable(struct perf_counter *c);
/* Sum over all fds (and inherited children). */
uint64_t perf_counter_read(struct perf_counter *c);
void perf_counter_free(struct perf_counter *c);

#endif
