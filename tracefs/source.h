/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_SOURCE_H
#define TAPKIT_SOURCE_H

/*
 * The event sources of a session behind one interface (DESIGN.md "Event
 * transport"): the rings of our instance (TP_RECORD, source_ring.c), perf
 * counters (TP_COUNT, source_counter.c) and perf samplers (TP_STACK,
 * source_sampler.c).  The session keeps one source per mode it uses and
 * drives the list through sources_*() without knowing their kinds.
 *
 * The operations are called per event added, per phase or per batch of
 * records, never per record: each drain hands the records of a batch to
 * the callback directly.
 *
 * Life of a source:
 *	add (per event) -> open (fds polled) -> start (recording)
 *	-> drain ... -> stop -> drain (what is left) -> close -> free
 */
#include <stdbool.h>
#include <stdint.h>

#include "common/event.h"

struct loop;
struct session;
struct source;
struct tp;

struct source_ops {
	const char *kind;		/* "ring", "counter", "sampler" */
	/* the filter of an event is the one in the instance's filter file
	 * (else the kernel only checks it there, and add() gets it) */
	bool instance_filter;
	/* Take @tp (@filter: accepted by the kernel, NULL: none).  0 or
	 * -errno with session_error() saying why. */
	int (*add)(struct source *src, struct tp *tp, const char *filter);
	/* Open what add() left for the start and put the fds to poll into
	 * @l; nothing is recorded yet.  0 or -errno with session_error(). */
	int (*open)(struct source *src, struct loop *l);
	/* Start recording.  0 or -errno with session_error(). */
	int (*start)(struct source *src);
	/* Deliver what is buffered to @fn: how many, or -errno.  NULL for a
	 * source without records. */
	long (*drain)(struct source *src, tk_event_fn fn, void *arg);
	/* From the record callback: end the drain in progress early (NULL:
	 * drains are not stopped). */
	void (*drain_stop)(struct source *src);
	/* The kernel's count of @tp so far (NULL: not a counting source). */
	uint64_t (*count)(struct source *src, const struct tp *tp);
	/* Records lost so far, also added to @per_cpu[cpu < @max_cpu] where
	 * the source knows the CPU (@per_cpu may be NULL).  NULL: none. */
	uint64_t (*lost)(struct source *src, uint64_t *per_cpu, int max_cpu);
	/* Is what the kernel holds for us still as start() left it (another
	 * tool may switch it off)?  0, or -ECANCELED with session_error()
	 * saying what changed.  NULL: nothing to look at. */
	int (*check)(struct source *src);
	/* Stop recording; what is buffered stays for a last drain. */
	void (*stop)(struct source *src);
	/* Release what the kernel holds for us (fds, maps); idempotent. */
	void (*close)(struct source *src);
	void (*free)(struct source *src);
};

/* The part every source begins with. */
struct source {
	const struct source_ops *ops;
	struct session *s;
	/* drain at least this often (ms): a ring that wakes nobody until it
	 * fills a watermark; 0: its fds say when */
	unsigned int drain_ms;
	struct source *next;
};

/* The three kinds: a new source of session @s (no side effects). */
struct source *ring_source_new(struct session *s);
struct source *counter_source_new(struct session *s);
struct source *sampler_source_new(struct session *s);

/* Driving a list: the first error stops the phase and is returned. */
int sources_open(struct source *list, struct loop *l);
int sources_start(struct source *list);
/* Records delivered by every source, or the first -errno. */
long sources_drain(struct source *list, tk_event_fn fn, void *arg);
/* The first check() that fails, or 0. */
int sources_check(struct source *list);
void sources_drain_stop(struct source *list);
/* Lost records summed; @per_cpu[0..@max_cpu) zeroed first, then filled. */
uint64_t sources_lost(struct source *list, uint64_t *per_cpu, int max_cpu);
/* The shortest drain period any source asks for; 0: none. */
unsigned int sources_drain_ms(const struct source *list);
void sources_stop(struct source *list);
void sources_close(struct source *list);
/* Free every source of the list (closing them first). */
void sources_free(struct source *list);

#endif
