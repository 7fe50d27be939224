/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_RING_H
#define TAPKIT_RING_H

/*
 * The record source: the per-CPU ring buffers of one tracefs instance, read
 * as raw sub-buffers through libtracefs and walked with rb_page.h.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/event.h"

struct tracefs_instance;
struct ring;

/**
 * ring_open() - open trace_pipe_raw of every online CPU of @inst (non-blocking)
 * Returns the ring or NULL with errno; free with ring_free().
 */
struct ring *ring_open(struct tracefs_instance *inst);
void ring_free(struct ring *r);

/* Bytes a CPU's ring holds, the size of its sub-buffers, and the most
 * sub-buffers one CPU gave the last drain: how soon a ring would fill. */
uint64_t ring_capacity(const struct ring *r);
int ring_subbuf_size(const struct ring *r);
int ring_busiest(const struct ring *r);
/* Per-CPU fds to poll for readability (count in *n); owned by the ring. */
const int *ring_fds(const struct ring *r, int *n);

/**
 * ring_drain() - read every sub-buffer the kernel has and deliver its records
 * @ordered: merge the CPUs by timestamp (snoop tools); otherwise each CPU's
 *	records are delivered as read, which is cheaper (aggregating tools)
 * Returns the number of records delivered, or -errno.
 */
long ring_drain(struct ring *r, bool ordered, tk_event_fn fn, void *arg);

/* Add @offset to every timestamp delivered (the clock's offset to
 * CLOCK_MONOTONIC, measured by the session). */
void ring_set_ts_offset(struct ring *r, int64_t offset);
/*
 * Unordered drains deliver a CPU's records after those of the CPUs before
 * it, so a record can come after a later one of another CPU.  Where that
 * matters (a rename, and the records it names), @fn sees each round's
 * records of every CPU but the first before any is delivered.
 */
void ring_set_prescan(struct ring *r, tk_event_fn fn, void *arg);
/* Do not deliver the records of thread @pid (our own; -1: none). */
void ring_skip_pid(struct ring *r, pid_t pid);

/* From a record callback: end the drain in progress after the pages already
 * read (the rest stays in the kernel's ring for the next drain). */
void ring_stop(struct ring *r);

/* From now on, drains also read the pages the writers are still on, to
 * the end (after the events were switched off: nothing is left behind). */
void ring_flush(struct ring *r);
/*
 * ring_keep_start() - start the keeper thread (ring_keep.c), which moves
 * full pages into the CPUs' pipes when the drain is @slack_ns late, so a
 * late drain loses nothing until ring and pipes are both full.
 * Returns 0 (also when there is no pipe to keep pages in) or -errno.
 */
int ring_keep_start(struct ring *r, uint64_t slack_ns);
/* The drain will read again by @when_ns (CLOCK_MONOTONIC): after its pause,
 * or at once (now) when it waits for the rings to wake it. */
void ring_expect(struct ring *r, uint64_t when_ns);
/* Stop the keeper (before the last drain); returns the pages set aside,
 * 0 when it was not running. */
unsigned long ring_keep_stop(struct ring *r);

/* Records the pages said were lost (missed-events flags), summed over CPUs. */
uint64_t ring_missed(const struct ring *r);

/*
 * The pure part, used by ring_drain() and by the unit tests: walk the
 * sub-buffers queued per CPU, ordered or not.  @pages[q] holds @npages[q]
 * sub-buffers of @subbuf_size bytes of queue q; records are reported with
 * cpu = q.  Adds missed-event counts of the
 * pages to @missed[cpu] (a page that says "some" without a count adds 1).
 */
long ring_walk(void **const *pages, const int *npages, int ncpu,
	       int subbuf_size, bool ordered, uint64_t *missed, tk_event_fn fn,
	       void *arg);

#endif
