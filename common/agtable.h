/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_AGTABLE_H
#define TAPKIT_AGTABLE_H

/*
 * An aggregate table: what tracetop shows.  Rows are identified by their
 * key columns; each value column aggregates one input of the samples that
 * reach the row (count, sum, min, max, avg, rate per second, p50/p99 from a
 * log2 histogram, or the last value).  The table knows nothing of events:
 * a feeder turns each event into a struct agt_sample, whose slots the
 * columns name by index.
 *
 * Time is cut into intervals by agt_tick().  Every row keeps three sets of
 * accumulators, so the display can switch at any time between:
 *
 *	AGT_INTERVAL	the last closed interval (rows without hits in it
 *			are not shown)
 *	AGT_CUMULATIVE	everything since the table was made or reset
 *	AGT_DECAY	decaying totals: at each tick the old totals are halved
 *			and the interval added (histogram slots too), so a row
 *			fades out over a few intervals once it stops
 *
 *	t = agt_new(cols, n);
 *	agt_add(t, &sample);		per event (no allocation once the row exists)
 *	agt_tick(t, elapsed_ns);	per interval
 *	n = agt_rows(t, &vo, &rows);	sorted, filtered rows to print
 *	agt_free(t);
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"

#define AGT_MAX_COLS	16
#define AGT_MAX_SLOTS	32	/* inputs of one sample */
#define AGT_STR_MAX	256	/* a string key or value longer is cut */

enum agt_fn {
	AGT_KEY,	/* a key column: part of the row's identity */
	AGT_COUNT,	/* hits: the sum of the samples' weights */
	AGT_SUM,
	AGT_MIN,
	AGT_MAX,
	AGT_AVG,	/* sum / samples that had the input */
	AGT_RATE,	/* per second of the interval: hits, or with an input
			 * its sum (bytes/s) */
	AGT_P50,	/* percentiles of the input's log2 histogram, */
	AGT_P99,	/* interpolated in their bucket, clamped to [min, max] */
	AGT_LAST,	/* the input's last value (a parent PID, a file name) */
};

enum agt_type {
	AGT_INT,
	AGT_STR,
};

/* How a number is shown (JSON always has the plain number). */
enum agt_unit {
	AGT_PLAIN,
	AGT_NS,		/* a time in ns: "812ns", "13.5us", "2.10ms", "1.25s" */
	AGT_BYTES,	/* "512", "12.0K", "3.4M", "1.2G" */
	AGT_HEX,	/* "0x..." */
};

struct agt_col {
	const char *title;	/* screen header: "PID", "P99" */
	const char *name;	/* JSON member; NULL: title in lower case */
	enum agt_fn fn;
	enum agt_type type;	/* of the input: keys and AGT_LAST may be
				 * strings; other functions take numbers */
	int input;		/* sample slot; -1: none (AGT_COUNT, AGT_RATE
				 * of hits) */
	enum agt_unit unit;
	int width;		/* on screen; 0: from the title and type */
};

/* One event's contribution. */
struct agt_sample {
	int64_t num[AGT_MAX_SLOTS];
	const char *str[AGT_MAX_SLOTS];	/* string slots; NULL reads as "" */
	uint64_t have;		/* bit i: slot i has a value; a value column
				 * whose input is missing (a latency without
				 * its entry) ignores the sample, keys read 0/"" */
	uint64_t weight;	/* hits it stands for: 1 per record, a
				 * counter's delta; 0 is taken as 1 */
};

enum agt_mode {
	AGT_INTERVAL,
	AGT_CUMULATIVE,
	AGT_DECAY,
};

/* How to list the rows. */
struct agt_view_opts {
	enum agt_mode mode;
	int sort_col;		/* column index */
	bool ascending;		/* false: descending (the default) */
	const char *filter;	/* rows whose shown key text contains it
				 * (case-insensitive); NULL/"": all */
	/* rows whose key column i equals match[i] (its shown text) where
	 * match[i] is not NULL, indexed by column (agt_ncols() entries);
	 * NULL: no such condition (a drill-down inside one table) */
	const char *const *match;
};

struct agtable;
struct agt_row;
struct json;

/**
 * agt_new() - a table of @ncols columns (copied; the strings must outlive
 * the table).  At least one key column; at most AGT_MAX_COLS.  NULL with
 * errno EINVAL for a bad description.  Free with agt_free().
 */
struct agtable *agt_new(const struct agt_col *cols, int ncols);
void agt_free(struct agtable *t);

int agt_ncols(const struct agtable *t);
const struct agt_col *agt_col(const struct agtable *t, int col);
/* The column titled @title (case-insensitive), or -1. */
int agt_col_find(const struct agtable *t, const char *title);

/**
 * agt_add() - one sample: its row is found (or made) by the key columns'
 * inputs and every value column takes its input.  When the table holds
 * AGT_MAX_ROWS rows, the rows idle longest are dropped first.
 */
void agt_add(struct agtable *t, const struct agt_sample *s);

/**
 * agt_set() - the row of @s's keys takes @s's inputs as its values now (not
 * added to them): for rows that are aggregated elsewhere already, such as a
 * script's arrays.  A value column shows the input as it is, in every mode.
 */
void agt_set(struct agtable *t, const struct agt_sample *s);

/* Close the interval that lasted @elapsed_ns: it becomes AGT_INTERVAL's
 * data, is added to the cumulative and decaying totals, and a new one
 * starts. */
void agt_tick(struct agtable *t, uint64_t elapsed_ns);
/* Forget every row (the interval and totals with them). */
void agt_reset(struct agtable *t);
/* Rows held (shown or not). */
size_t agt_size(const struct agtable *t);
/* Hits in the last closed interval, and in all. */
uint64_t agt_hits(const struct agtable *t, enum agt_mode mode);

/**
 * agt_rows() - the rows to show under @vo, sorted by its column (ties by
 * the keys in column order, ascending: numbers as numbers, strings by
 * strcmp(); rows without a value last), into *@rows: an array the table
 * owns, valid until the next agt_add(), agt_set(), agt_tick() or
 * agt_rows().
 * Returns their number.
 */
size_t agt_rows(struct agtable *t, const struct agt_view_opts *vo,
		struct agt_row ***rows);

/* A stable identity of @r's keys (the selection follows it). */
uint64_t agt_row_id(const struct agt_row *r);
/* The row with identity @id, or NULL. */
struct agt_row *agt_row_find(struct agtable *t, uint64_t id);

/* A key or AGT_LAST column's raw value: its number, or its string. */
int64_t agt_int(const struct agtable *t, const struct agt_row *r, int col);
const char *agt_str(const struct agtable *t, const struct agt_row *r, int col);
/* A value column's number in @mode; false when it has none (no sample had
 * its input: shown as "-", JSON null). */
bool agt_value(const struct agtable *t, const struct agt_row *r, int col,
	       enum agt_mode mode, double *v);
/* The histogram behind a column with an input (empty when none), or NULL
 * when the column keeps none (only P50/P99 columns and the other columns
 * of the same input keep one). */
const struct hist_log2 *agt_hist(const struct agtable *t,
				 const struct agt_row *r, int col,
				 enum agt_mode mode);

/**
 * agt_cell() - the text of @col for @r in @mode, escaped for a terminal
 * (common/escape.h), units applied, "-" for no value; into @buf.
 * Returns @buf.
 */
char *agt_cell(const struct agtable *t, const struct agt_row *r, int col,
	       enum agt_mode mode, char *buf, size_t len);
/* The shown width of @col: its width, or from its title and type. */
int agt_width(const struct agtable *t, int col);

/* @r as the members of the open object @j: each column under its name,
 * numbers plain (ns, bytes), strings exact, null for no value. */
void agt_json_row(const struct agtable *t, const struct agt_row *r,
		  enum agt_mode mode, struct json *j);

/* Formatting one number as agt_cell() does (tests, histogram labels). */
char *agt_format(double v, enum agt_unit unit, char *buf, size_t len);

#define AGT_MAX_ROWS	(1u << 16)

#endif
