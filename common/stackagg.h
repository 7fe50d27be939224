/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_STACKAGG_H
#define TAPKIT_STACKAGG_H

/*
 * Stacks aggregated to values: the kernel and user callchains of samples
 * (a perf_event callchain split at its context markers) with the process
 * and its name, named through a symbol cache when first seen, summed by
 * what they print as.  profile counts samples, offcputime sums blocked
 * microseconds; the printers write bcc's multi-line stacks, bcc's folded
 * format and JSON Lines (flamegraph.h draws the SVG).
 *
 *	a = stackagg_new(symcache_shared());
 *	stackagg_add(a, &sample, 1);	per sample (names resolved once per
 *					distinct address stack)
 *	stackagg_print(a, stdout, &how);
 *	stackagg_free(a);
 *
 * A frame nothing names prints as "[unknown]" and is counted; a stack the
 * kernel could not walk prints as bcc's "[Missed Kernel Stack]" or
 * "[Missed User Stack]" and is counted too: nothing is dropped silently.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct symcache;
struct stackagg;

/* One sample's stack as the caller has it. */
struct stackagg_sample {
	pid_t pid;		/* the process (thread group), 0: idle,
				 * -1: any (kernel frames only, stacks of
				 * every process summed together) */
	const char *comm;	/* its name; NULL: "" */
	const uint64_t *kpcs;	/* kernel frames, innermost first */
	size_t nk;
	const uint64_t *upcs;	/* user frames, innermost first */
	size_t nu;
	bool kmissed;		/* a kernel stack was due but is missing */
	bool umissed;		/* a user stack was due but is missing */
};

/* One printed stack: its frames' names and its summed value. */
struct stackagg_entry {
	pid_t pid;
	char comm[16];
	const char **kname;	/* nk names, innermost first */
	size_t nk;
	const char **uname;	/* nu names, innermost first */
	size_t nu;
	bool kmissed, umissed;
	uint64_t value;
	struct stackagg_entry *next;	/* private: the hash chain */
	uint64_t hash;			/* private */
};

/* What the stacks saw, for the end-of-run report. */
struct stackagg_stats {
	uint64_t samples;	/* stackagg_add() calls */
	uint64_t frames;	/* frames of those samples */
	uint64_t unknown;	/* of them, named by nothing ("[unknown]") */
	uint64_t missed;	/* samples with a missed kernel or user stack */
};

/* An empty aggregation naming through @c, whose reference it takes over
 * (symcache_shared()'s or symcache_new()'s: the names live in the cache)
 * and drops in stackagg_free().  Free with stackagg_free(). */
struct stackagg *stackagg_new(struct symcache *c);
void stackagg_free(struct stackagg *a);

/**
 * stackagg_add() - add @value to the stack of sample @s
 *
 * The user frames are named as process s->pid maps them (the caller has
 * noted the process, symcache_note(), or its sideband told its maps);
 * the names of a stack of addresses are looked up the first time it is
 * seen.  Never fails (out of memory dies).
 */
void stackagg_add(struct stackagg *a, const struct stackagg_sample *s,
		  uint64_t value);

/* The stacks, smallest value first (bcc's order; ties by comm, pid and
 * frames), in an array freed by the caller (the entries stay the
 * aggregation's); *n set. */
struct stackagg_entry **stackagg_sorted(const struct stackagg *a, size_t *n);

const struct stackagg_stats *stackagg_stats(const struct stackagg *a);
/* The sum of every stack's value. */
uint64_t stackagg_total(const struct stackagg *a);

/* How to print. */
enum stackagg_format {
	STACKAGG_TEXT,		/* bcc's multi-line stacks (profile's) */
	STACKAGG_COUNTS,	/* stackcount's multi-line stacks: "comm
				 * [pid]" under them unless pid is -1 */
	STACKAGG_FOLDED,	/* comm;user...;kernel... value */
	STACKAGG_JSON,		/* one object per stack */
};

struct stackagg_print_opts {
	enum stackagg_format format;
	bool kernel, user;	/* which frames to print */
	bool delimit;		/* "--" (text) or "-" (folded) between them */
	bool annotate;		/* "_[k]" after kernel frames */
	const char *value_name;	/* JSON key of the value ("count") */
	bool comm_line;		/* STACKAGG_COUNTS: "comm [pid]" lines */
};

/* Print every stack, smallest first, per @o.  Text columns escaped (JSON
 * keeps the bytes). */
void stackagg_print(const struct stackagg *a, FILE *f,
		    const struct stackagg_print_opts *o);

/* Frame @i of @e in root-first order (user outermost first, then kernel
 * outermost first, as the folded format and flame graphs have them) for
 * the frames @o asks for; returns false past the end.  *kernel tells the
 * frame's side. */
bool stackagg_frame(const struct stackagg_entry *e,
		    const struct stackagg_print_opts *o, size_t i,
		    const char **name, bool *kernel);

#endif
