/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PERF_SIDEBAND_H
#define TAPKIT_PERF_SIDEBAND_H

/*
 * The perf sideband of a sampler: the executable mappings, execs, forks
 * and exits of the sampled tasks (PERF_RECORD_MMAP2, COMM with its exec
 * flag, FORK, EXIT) as the kernel writes them, told to a symbol cache in
 * record order.  A stack sampled from a process that exits before its
 * samples are read is then still named: its maps were told as it made
 * them, where /proc/PID/maps would come too late.
 */
#include <stdint.h>

#include "tracefs/perf_event.h"

struct perf_sideband;
struct symcache;

/**
 * perf_sideband_open() - a dummy software event per online CPU (and per
 * thread of @scope: NULL for every task) recording only sideband records,
 * stamped on CLOCK_MONOTONIC like the samplers' samples, in rings of
 * @pages data pages (a power of two)
 *
 * Nothing is recorded before perf_sideband_enable().  NULL with errno on
 * failure; free with perf_sideband_free().
 */
struct perf_sideband *perf_sideband_open(const struct perf_scope *scope,
					 unsigned int pages);
/* Start and stop recording: 0 or -errno. */
int perf_sideband_enable(struct perf_sideband *sb);
int perf_sideband_disable(struct perf_sideband *sb);

/**
 * perf_sideband_tell() - tell @c every record made up to time @ts
 * (UINT64_MAX: all there is), oldest first across CPUs
 *
 * Called before each sample is handled with the sample's time, the
 * mappings of its process are known when its stack is named; called
 * with UINT64_MAX after a batch of samples, then symcache_sweep().  No
 * allocation unless a record is told.  Returns how many were told.
 */
int perf_sideband_tell(struct perf_sideband *sb, uint64_t ts,
		       struct symcache *c);

/* Sideband records the kernel dropped on full rings (PERF_RECORD_LOST). */
uint64_t perf_sideband_lost(const struct perf_sideband *sb);

/* Unmap, close and free @sb (NULL is a no-op). */
void perf_sideband_free(struct perf_sideband *sb);

#endif
