/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PERF_SAMPLER_H
#define TAPKIT_PERF_SAMPLER_H

/*
 * perf_event sampling over a trace event: a record per hit, with
 * callchains for tools that need stacks; and sampling of any perf event
 * (cpu-clock, page faults, hardware counters) for profiles.
 */
#include <stdbool.h>
#include <stdint.h>

#include "common/event.h"
#include "tracefs/perf_event.h"

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
/* The tk_event id of a context switch record (perf_sampler_open_switches()):
 * its pid is the thread switched in or out, its data a struct perf_switch. */
#define PERF_SAMPLER_SWITCH (-2)

struct perf_switch {
	uint32_t pid;		/* the process of the thread (ev->pid) */
	uint32_t other_pid;	/* switched out: the next task; in: the */
	uint32_t other_tid;	/* previous one */
	uint32_t out;		/* 1: switched out, 0: switched in */
};

struct perf_sampler *perf_sampler_open_switches(int id, unsigned int pages_per_cpu);

/* What perf_sampler_open_spec() samples: perf_event_attr's type and
 * config, every @period events or @freq times a second (one of the two). */
struct perf_sample_spec {
	uint32_t type;
	uint64_t config;
	uint64_t period;
	uint64_t freq;
};

/* Where the tk_event data of a perf_sampler_open_spec() sample points. */
struct perf_sample_head {
	uint64_t ip;		/* the sampled instruction */
	uint32_t pid, tid;	/* process and thread */
};

/**
 * perf_sampler_open_spec() - a sample of @spec's event, with IP, TID, TIME,
 * CPU and, when @callchain, the callchain; the tk_event's data points at a
 * struct perf_sample_head, its id is -1.  Scope and pages as
 * perf_sampler_open().  NULL with errno (ENOENT/ENODEV/EOPNOTSUPP: no such
 * event on this machine).
 */
struct perf_sampler *perf_sampler_open_spec(const struct perf_sample_spec *spec,
					    const struct perf_scope *scope,
					    bool callchain, unsigned int pages_per_cpu);
/* Can this machine sample @spec's event (a trial open)?  0 or -errno. */
int perf_sampler_check(const struct perf_sample_spec *spec);
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

#endif
