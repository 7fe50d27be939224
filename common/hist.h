/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_HIST_H
#define TAPKIT_HIST_H

/*
 * Histograms: power-of-two buckets printed as bcc's tools do
 * ("     usecs               : count     distribution"), linear buckets, and
 * both as JSON bucket arrays.
 */
#include <stdint.h>
#include <stdio.h>

#define HIST_LOG2_SLOTS 65

struct hist_log2 {
	uint64_t slot[HIST_LOG2_SLOTS];	/* slot 0: value 0; slot n: [2^(n-1), 2^n) */
	uint64_t count, sum, min, max;
};

/* Count @v; @h starts zeroed.  Also keeps count, sum, min and max. */
void hist_log2_add(struct hist_log2 *h, uint64_t v);
/* bcc's print_log2_hist(): @unit is the column title ("usecs").  As in bcc,
 * 0 and 1 share the first row ("0 -> 1"), rows run from there to the last
 * non-empty slot, and values past 32 bits widen the columns.  Prints nothing
 * for an empty histogram. */
void hist_log2_print(FILE *f, const struct hist_log2 *h, const char *unit);

struct hist_linear {
	int64_t min, max, step;		/* buckets [min + i*step, +step) */
	unsigned int nslots;		/* ceil((max - min) / step); +2 slots below */
	uint64_t *slot;			/* slot[0] underflow, slot[nslots+1] overflow */
	uint64_t count;
};

/* Returns 0, or -EINVAL for step <= 0 or max <= min. */
int hist_linear_init(struct hist_linear *h, int64_t min, int64_t max, int64_t step);
void hist_linear_release(struct hist_linear *h);
void hist_linear_add(struct hist_linear *h, int64_t v);
/* bcc's print_linear_hist() rows, labelled by bucket low bound ("<MIN" and
 * ">=END" for under/overflow), from the first non-empty bucket to the last. */
void hist_linear_print(FILE *f, const struct hist_linear *h, const char *unit);

struct json;
/* "key":[{"low":L,"high":H,"count":N},...] with empty edge buckets omitted;
 * one element per slot (0 apart from 1), H inclusive. */
void hist_log2_json(struct json *j, const char *key, const struct hist_log2 *h);

#endif
