// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms printed the way bcc's tools print them (bcc's Python
 * table.py _print_log2_hist()/_print_linear_hist(), the format in bcc's
 * tools/ *_example.txt files), so output diffs cleanly against bcc's:
 *
 *	     usecs               : count     distribution
 *	         0 -> 1          : 2        |****************************************|
 *	         2 -> 3          : 1        |********************                    |
 *
 * bcc's log2 rows are [2^(i-1), 2^i - 1] with 0 folded into the first row
 * ("0 -> 1"), because bpf_log2l() maps 0 and 1 alike.  struct hist_log2 keeps
 * 0 apart (slot 0) for JSON and scripts; the text printer folds slots 0 and
 * 1 into bcc's "0 -> 1" row.  Like bcc, rows run from that first row to the
 * last non-empty one; past 32-bit values (the last non-empty slot above 32)
 * bcc switches to 20-digit columns and 20 stars, and so do we.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/json.h"
#include "common/log.h"

#define STARS_MAX 40

/* Slot of @v: 0 for 0, else 1 + floor(log2(v)), i.e. [2^(n-1), 2^n). */
static unsigned int log2_slot(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/**
 * hist_log2_add() - count @v in @h
 *
 * @h starts zeroed (e.g. "struct hist_log2 h = { 0 };"); count, sum, min and
 * max are kept alongside the slots.  sum wraps silently past 2^64.
 */
void hist_log2_add(struct hist_log2 *h, uint64_t v)
{
	h->slot[log2_slot(v)]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
}

/* bcc's _stars(): floor(width * val / max) stars, padded to @width. */
static void put_bar(FILE *f, uint64_t val, uint64_t val_max, int width)
{
	int stars = val_max ? (int)((unsigned __int128)val * width / val_max) : 0;
	int i;

	fputc('|', f);
	for (i = 0; i < width; i++)
		fputc(i < stars ? '*' : ' ', f);
	fputs("|\n", f);
}

/**
 * hist_log2_print() - print @h as bcc's print_log2_hist() does
 * @unit: the value column title, e.g. "usecs"
 *
 * Nothing is printed for an empty histogram (as in bcc).
 */
void hist_log2_print(FILE *f, const struct hist_log2 *h, const char *unit)
{
	uint64_t row[HIST_LOG2_SLOTS] = { 0 }, val_max = 0;
	int i, idx_max = 0, width, stars;

	/* bcc's rows: 1 is "0 -> 1" (slots 0 and 1), i >= 2 is slot i */
	row[1] = h->slot[0] + h->slot[1];
	for (i = 2; i < HIST_LOG2_SLOTS; i++)
		row[i] = h->slot[i];
	for (i = 1; i < HIST_LOG2_SLOTS; i++) {
		if (row[i])
			idx_max = i;
		if (row[i] > val_max)
			val_max = row[i];
	}
	if (!idx_max)
		return;

	if (idx_max <= 32) {
		fprintf(f, "     %-19s : count     distribution\n", unit);
		width = 10;
		stars = STARS_MAX;
	} else {
		fprintf(f, "               %-29s : count     distribution\n", unit);
		width = 20;
		stars = STARS_MAX / 2;
	}
	for (i = 1; i <= idx_max; i++) {
		uint64_t low = (uint64_t)1 << (i - 1);
		uint64_t high = i == 64 ? UINT64_MAX : ((uint64_t)1 << i) - 1;

		if (low == high)
			low--;
		fprintf(f, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " ",
			width, low, width, high, row[i]);
		put_bar(f, row[i], val_max, stars);
	}
}

/**
 * hist_log2_json() - "key":[{"low":L,"high":H,"count":N},...]
 *
 * One element per slot of @h (0 apart from 1, unlike the text form), @high
 * inclusive, from the first non-empty slot to the last; empty slots between
 * them are written with count 0.  An empty histogram gives "key":[].
 */
void hist_log2_json(struct json *j, const char *key, const struct hist_log2 *h)
{
	int i, lo = -1, hi = -1;

	for (i = 0; i < HIST_LOG2_SLOTS; i++) {
		if (!h->slot[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
	}
	json_arr_open(j, key);
	for (i = lo; lo >= 0 && i <= hi; i++) {
		uint64_t low = i ? (uint64_t)1 << (i - 1) : 0;
		uint64_t high = i == 64 ? UINT64_MAX : i ? ((uint64_t)1 << i) - 1 : 0;

		json_obj_open(j, NULL);
		json_uint(j, "low", low);
		json_uint(j, "high", high);
		json_uint(j, "count", h->slot[i]);
		json_obj_close(j);
	}
	json_arr_close(j);
}

/**
 * hist_linear_init() - buckets [min + i*step, min + (i+1)*step) covering
 * [@min, @max), plus an underflow and an overflow slot
 *
 * When @step does not divide max - min the last bucket is whole, so values
 * up to min + nslots*step - 1 land in it.  Returns 0, or -EINVAL for
 * @step <= 0, @max <= @min or a range too large to hold.  Release with
 * hist_linear_release().
 */
int hist_linear_init(struct hist_linear *h, int64_t min, int64_t max, int64_t step)
{
	uint64_t span, n;

	memset(h, 0, sizeof(*h));
	if (step <= 0 || max <= min)
		return -EINVAL;
	span = (uint64_t)max - (uint64_t)min;
	n = span / (uint64_t)step + (span % (uint64_t)step != 0);
	if (n > 1u << 24)
		return -EINVAL;
	h->min = min;
	h->max = max;
	h->step = step;
	h->nslots = n;
	h->slot = xcalloc(n + 2, sizeof(*h->slot));
	return 0;
}

/** hist_linear_release() - free the buckets of @h (safe twice) */
void hist_linear_release(struct hist_linear *h)
{
	free(h->slot);
	h->slot = NULL;
	h->nslots = 0;
	h->count = 0;
}

/** hist_linear_add() - count @v in @h (under/overflow slots outside the range) */
void hist_linear_add(struct hist_linear *h, int64_t v)
{
	uint64_t i;

	if (!h->slot)
		return;
	if (v < h->min) {
		i = 0;
	} else {
		i = ((uint64_t)v - (uint64_t)h->min) / (uint64_t)h->step;
		i = i < h->nslots ? i + 1 : h->nslots + 1;
	}
	h->slot[i]++;
	h->count++;
}

/**
 * hist_linear_print() - print @h as bcc's print_linear_hist() does
 *
 * Each row is labelled with its bucket's low bound; rows run from the first
 * non-empty bucket to the last, empty buckets between them included (bcc's
 * Python starts at bucket 0; its libbpf-tools trim the edges too).  The
 * underflow and overflow rows, when non-empty, are labelled "<MIN" and
 * ">=END" (END being the first value past the last bucket).  Nothing is
 * printed for an empty histogram.
 */
void hist_linear_print(FILE *f, const struct hist_linear *h, const char *unit)
{
	uint64_t val_max = 0;
	int64_t end;
	long i, lo = -1, hi = -1, last;

	if (!h->slot)
		return;
	last = (long)h->nslots + 1;
	for (i = 0; i <= last; i++) {
		if (!h->slot[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		if (h->slot[i] > val_max)
			val_max = h->slot[i];
	}
	if (lo < 0)
		return;

	end = (int64_t)((uint64_t)h->min + (uint64_t)h->nslots * (uint64_t)h->step);
	fprintf(f, "     %-13s : count     distribution\n", unit);
	for (i = lo; i <= hi; i++) {
		char label[32];

		if (i == 0)
			snprintf(label, sizeof(label), "<%" PRId64, h->min);
		else if (i == last)
			snprintf(label, sizeof(label), ">=%" PRId64, end);
		else
			snprintf(label, sizeof(label), "%" PRId64,
				 (int64_t)((uint64_t)h->min +
					   (uint64_t)(i - 1) * (uint64_t)h->step));
		fprintf(f, "        %-10s : %-8" PRIu64 " ", label, h->slot[i]);
		put_bar(f, h->slot[i], val_max, STARS_MAX);
	}
}
