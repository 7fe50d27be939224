/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_STAT_H
#define TAPKIT_LANG_STAT_H

/*
 * Statistics aggregates (`x <<< v`) as SystemTap keeps them: count, sum,
 * min, max, @avg, @variance with its integer Welford algorithm and bit
 * shift, and @hist_log / @hist_linear buckets printed exactly as stap's
 * _stp_stat_print_histogram().
 *
 * One struct stat_cfg describes a statistic variable (all elements of a
 * stat-valued array share it); struct stat_agg holds the data of one
 * statistic and is stat_size() bytes long (its buckets follow it).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

enum stat_hist {
	STAT_HIST_NONE,
	STAT_HIST_LOG,
	STAT_HIST_LINEAR,
};

enum stat_op {
	STAT_COUNT,
	STAT_SUM,
	STAT_MIN,
	STAT_MAX,
	STAT_AVG,
	STAT_VARIANCE,
};

#define STAT_LOG_BUCKETS	128	/* HIST_LOG_BUCKETS */
#define STAT_LOG_BUCKET0	64	/* HIST_LOG_BUCKET0: the bucket of 0 */
#define STAT_MAX_BUCKETS	128	/* STP_MAX_BUCKETS, under/overflow included */
#define STAT_HIST_WIDTH		50	/* HIST_WIDTH: the bar at its longest */
#define STAT_HIST_ELISION	2	/* HIST_ELISION: zero rows kept by data */

/*
 * Run-time error texts, verbatim from stap's translate.cxx, for the VM:
 * @min/@max/@avg/@variance, print(@hist_*) and @hist_*()[i] of a statistic
 * with no data raise STAT_ERR_EMPTY (@count and @sum give 0); a bucket
 * index outside [0, buckets) raises STAT_ERR_INDEX.
 */
#define STAT_ERR_EMPTY		"empty aggregate"
#define STAT_ERR_INDEX		"histogram index out of range"
/* stat_cfg_init() texts, from runtime/stat-common.c's warnings */
#define STAT_ERR_INTERVAL	"histogram: interval cannot be zero."
#define STAT_ERR_NBUCKETS	"histogram: Number of buckets must be between 1 and 126\n" \
				"Number_of_buckets = (stop - start) / interval.\n" \
				"Please adjust your start, stop, and interval values."

struct stat_cfg {
	enum stat_hist type;
	int start, stop, interval;	/* @hist_linear(x, start, stop, interval) */
	int buckets;			/* 128 for log; (stop-start)/interval + 3 */
	int bit_shift;			/* @variance(x, N): N, 0 by default */
	bool variance;			/* @variance is used: keep Welford state */
	bool in_map;			/* element of a stat array (set by map) */
	int hist_width;			/* -DHIST_WIDTH, default 50 */
	int hist_elision;		/* -DHIST_ELISION, default 2; < 0: none */
};

struct stat_agg {
	int64_t count, sum, min, max;
	int64_t avg_s;		/* running mean << bit_shift */
	int64_t m2;		/* Welford's M2, scaled */
	int64_t variance_s;	/* M2 / (count - 1), scaled */
	int64_t hist[];		/* cfg->buckets counters */
};

/**
 * stat_cfg_init() - describe a statistic
 * @cfg: filled in
 * @type: histogram kind
 * @start: @hist_linear low bound (ignored otherwise)
 * @stop: @hist_linear high bound
 * @interval: @hist_linear bucket width
 * @err: receives STAT_ERR_INTERVAL or STAT_ERR_NBUCKETS (may be NULL)
 * @errlen: size of @err
 *
 * A linear histogram has (stop - start) / interval + 3 buckets: underflow,
 * the range, overflow; at most STAT_MAX_BUCKETS.  Set ->variance and
 * ->bit_shift afterwards when the script uses @variance.
 *
 * Return: 0, or -EINVAL (also for a negative interval or bounds beyond int).
 */
int stat_cfg_init(struct stat_cfg *cfg, enum stat_hist type, int64_t start,
		  int64_t stop, int64_t interval, char *err, size_t errlen);

/* Bytes of one struct stat_agg with its buckets. */
size_t stat_size(const struct stat_cfg *cfg);
/* A zeroed statistic; free with stat_free(). */
struct stat_agg *stat_new(const struct stat_cfg *cfg);
void stat_free(struct stat_agg *s);
/* Forget all data (`delete x`). */
void stat_clear(const struct stat_cfg *cfg, struct stat_agg *s);

/**
 * stat_add() - `x <<< v`
 * @cfg: the statistic's description
 * @s: its data
 * @v: the value
 *
 * As stap's __stp_stat_add(): Welford's update with a 32-bit delta (stap
 * declares it int) when @cfg->variance, and the bucket counters.
 */
void stat_add(const struct stat_cfg *cfg, struct stat_agg *s, int64_t v);

/**
 * stat_get() - read @count, @sum, @min, @max, @avg or @variance
 * @cfg: the statistic's description
 * @s: its data; NULL reads as empty (a missing array element)
 * @op: which one
 * @out: the value
 *
 * @avg is sum / count truncated toward zero.  @variance follows stap's
 * read path: a scalar is aggregated by _stp_stat_get() (total variance
 * over the one CPU we have), an array element by _new_map_copy_stat()
 * (the element's running variance); both shifted right by 2 * bit_shift.
 *
 * Return: 0, or -ENODATA (STAT_ERR_EMPTY) for min/max/avg/variance of a
 * statistic with no data; count and sum of one are 0.
 */
int stat_get(const struct stat_cfg *cfg, const struct stat_agg *s,
	     enum stat_op op, int64_t *out);

/**
 * stat_bucket() - `@hist_log(x)[i]` / `@hist_linear(x, ...)[i]`
 * @cfg: the statistic's description
 * @s: its data, or NULL
 * @index: raw bucket number: 0..127 for log (64 holds 0), 0 (underflow)
 *	to buckets-1 (overflow) for linear; foreach over a histogram walks
 *	these in order
 * @out: the count in that bucket
 *
 * Return: 0, -ENODATA (STAT_ERR_EMPTY) when there is no data, -ERANGE
 * (STAT_ERR_INDEX) for an index out of range, -EINVAL without histogram.
 */
int stat_bucket(const struct stat_cfg *cfg, const struct stat_agg *s,
		int64_t index, int64_t *out);

/* stap's _stp_val_to_bucket(): log2 bucket of @v (negatives mirror below 64). */
int stat_log_bucket(int64_t v);
/* stap's _stp_bucket_to_val(): the row label of log bucket @b. */
int64_t stat_log_bucket_value(int b);

/**
 * stat_print_hist() - print(@hist_log(x)) / print(@hist_linear(x, ...))
 * @out: appended to
 * @cfg: the statistic's description
 * @s: its data, or NULL
 * @cap: 0 for print(); MAXSTRINGLEN for sprint(), which keeps what stap's
 *	_stp_stat_print_histogram_buf() keeps in a buffer of that size
 *
 * Return: 0, -ENODATA (STAT_ERR_EMPTY) with no data, -EINVAL without a
 * histogram.
 */
int stat_print_hist(struct strbuf *out, const struct stat_cfg *cfg,
		    const struct stat_agg *s, size_t cap);
/* The same, refusing (-EINVAL) a statistic of the other histogram kind. */
int stat_print_hist_log(struct strbuf *out, const struct stat_cfg *cfg,
			const struct stat_agg *s, size_t cap);
int stat_print_hist_linear(struct strbuf *out, const struct stat_cfg *cfg,
			   const struct stat_agg *s, size_t cap);

#endif
