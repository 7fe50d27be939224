// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics: values and histogram texts as systemtap's runtime computes
 * and prints them (runtime/stat-common.c, stat.c, map.c).  The expected
 * histograms follow _stp_stat_print_histogram_buf() rule by rule:
 *   - header "%*s |" of "value", HIST_WIDTH (50) '-', " count";
 *   - value column: max(5, widest label of the first/last row shown);
 *   - rows from the first non-empty bucket minus 2 to the last plus 2 (a
 *     log histogram stops at the 0 row unless it holds negatives; a linear
 *     one drops empty under/overflow rows);
 *   - a row is elided when it and its 2 neighbours each side are all 0,
 *     a run of elided rows shows as "%*s ~";
 *   - bar: count / scale '@', scale = ceil(max / 50) when max > 50;
 *   - count right-aligned in HIST_WIDTH - bar + 1 + digits(max);
 *   - a blank line at the end.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lang/fmt_sb.h"
#include "lang/stat.h"
#include "tests/unit/unit.h"

static struct stat_cfg cfg;
static struct stat_agg *st;
static char text[8192];

static void make(enum stat_hist type, int64_t lo, int64_t hi, int64_t step)
{
	char err[256];

	CHECK_INT(stat_cfg_init(&cfg, type, lo, hi, step, err, sizeof(err)), 0);
	stat_free(st);
	st = stat_new(&cfg);
}

static void feed(const int64_t *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		stat_add(&cfg, st, v[i]);
}

__attribute__((destructor)) static void free_stat(void)
{
	stat_free(st);
}

static const char *print(size_t cap)
{
	struct strbuf sb = STRBUF_INIT;
	int r = stat_print_hist(&sb, &cfg, st, cap);

	snprintf(text, sizeof(text), "%s", r ? "ERR" : fmt_sb_str(&sb));
	fmt_sb_release(&sb);
	return text;
}

static int64_t get(enum stat_op op)
{
	int64_t v = -12345;

	CHECK_INT(stat_get(&cfg, st, op, &v), 0);
	return v;
}

UNIT_TEST(count_sum_min_max_avg)
{
	const int64_t v[] = { 5, -7, 12, 2 };

	make(STAT_HIST_NONE, 0, 0, 0);
	feed(v, 4);
	CHECK_INT(get(STAT_COUNT), 4);
	CHECK_INT(get(STAT_SUM), 12);
	CHECK_INT(get(STAT_MIN), -7);
	CHECK_INT(get(STAT_MAX), 12);
	CHECK_INT(get(STAT_AVG), 3);
}

UNIT_TEST(avg_truncates_toward_zero)
{
	const int64_t v[] = { -7, 2 };

	/* _stp_div64(): C division, -5 / 2 == -2 */
	make(STAT_HIST_NONE, 0, 0, 0);
	feed(v, 2);
	CHECK_INT(get(STAT_AVG), -2);
}

UNIT_TEST(empty_aggregate)
{
	int64_t out;

	make(STAT_HIST_LOG, 0, 0, 0);
	/* translate.cxx: @count and @sum of nothing are 0, the rest raise
	 * "empty aggregate" */
	CHECK_INT(stat_get(&cfg, st, STAT_COUNT, &out), 0);
	CHECK_INT(out, 0);
	CHECK_INT(stat_get(&cfg, st, STAT_SUM, &out), 0);
	CHECK_INT(stat_get(&cfg, st, STAT_MIN, &out), -ENODATA);
	CHECK_INT(stat_get(&cfg, st, STAT_MAX, &out), -ENODATA);
	CHECK_INT(stat_get(&cfg, st, STAT_AVG, &out), -ENODATA);
	CHECK_INT(stat_get(&cfg, st, STAT_VARIANCE, &out), -ENODATA);
	CHECK_INT(stat_get(&cfg, NULL, STAT_COUNT, &out), 0);
	CHECK_INT(stat_get(&cfg, NULL, STAT_AVG, &out), -ENODATA);
	CHECK_STR(print(0), "ERR");
	CHECK_INT(stat_bucket(&cfg, st, 64, &out), -ENODATA);
	CHECK_STR(STAT_ERR_EMPTY, "empty aggregate");
	stat_add(&cfg, st, 1);
	stat_clear(&cfg, st);			/* `delete x` */
	CHECK_INT(stat_get(&cfg, st, STAT_MIN, &out), -ENODATA);
}

/*
 * @variance: the integers stap's Welford update and its two read paths
 * produce (see lang/stat.c).  For 1, 2, 3, 4 with bit shift 0:
 *   avg_s stays 1 (1/2, 2/3, 3/4 all truncate to 0), M2 = 1 + 4 + 9 = 14,
 *   variance_s = 14 / 3 = 4.
 *   scalar: avg = 10 / 4 = 2, S1 = 4 * (1 - 2)^2 = 4, S2 = 3 * 4 = 12,
 *   (4 + 12) / 3 = 5.   array element: variance_s = 4.
 * (The true sample variance is 1.67; stap's integers say 5 and 4.)
 */
UNIT_TEST(variance_scalar_and_element)
{
	const int64_t v[] = { 1, 2, 3, 4 };

	make(STAT_HIST_NONE, 0, 0, 0);
	cfg.variance = true;
	feed(v, 4);
	CHECK_INT(get(STAT_VARIANCE), 5);
	cfg.in_map = true;
	CHECK_INT(get(STAT_VARIANCE), 4);
}

UNIT_TEST(variance_exact_cases)
{
	const int64_t a[] = { 10, 20, 30 }, b[] = { -3, 3 }, c[] = { 42 };

	/* 10: avg 10; 20: delta 10, avg 15, M2 50; 30: delta 15, avg 20,
	 * M2 50 + 15 * 10 = 200, variance_s 100; S1 = 0: both read 100 */
	make(STAT_HIST_NONE, 0, 0, 0);
	cfg.variance = true;
	feed(a, 3);
	CHECK_INT(get(STAT_VARIANCE), 100);
	/* -3, 3: delta 6, avg 0, M2 18, variance 18 */
	make(STAT_HIST_NONE, 0, 0, 0);
	cfg.variance = true;
	feed(b, 2);
	CHECK_INT(get(STAT_VARIANCE), 18);
	/* one value: (S1 + S2) / 0 is 0 in _stp_div64() */
	make(STAT_HIST_NONE, 0, 0, 0);
	cfg.variance = true;
	feed(c, 1);
	CHECK_INT(get(STAT_VARIANCE), 0);
}

UNIT_TEST(variance_bit_shift)
{
	const int64_t v[] = { 1, 2, 3, 4 };

	/* shift 2: values scaled by 4; avg_s 4, 6, 8, 10; M2 8, 32, 80;
	 * variance_s = 80 / 3 = 26; S1 = 0; 26 >> 4 == 1 */
	make(STAT_HIST_NONE, 0, 0, 0);
	cfg.variance = true;
	cfg.bit_shift = 2;
	feed(v, 4);
	CHECK_INT(get(STAT_VARIANCE), 1);
	cfg.in_map = true;
	CHECK_INT(get(STAT_VARIANCE), 1);
	/* shift 8: M2 = 32768 + 98304 + 196608 = 327680, / 3 = 109226,
	 * >> 16 == 1 */
	make(STAT_HIST_NONE, 0, 0, 0);
	cfg.variance = true;
	cfg.bit_shift = 8;
	feed(v, 4);
	CHECK_INT(get(STAT_VARIANCE), 1);
}

UNIT_TEST(variance_int_delta_wraps)
{
	const int64_t v[] = { 0, INT64_C(1) << 32 };

	/* stap's delta is an int: (int)(2^32 - 0) == 0, so M2 stays 0; the
	 * scalar read then adds S1 = 2 * (0 - 2^31)^2 = 2^63, which wraps */
	make(STAT_HIST_NONE, 0, 0, 0);
	cfg.variance = true;
	feed(v, 2);
	CHECK_INT(get(STAT_VARIANCE), INT64_MIN);
	cfg.in_map = true;
	CHECK_INT(get(STAT_VARIANCE), 0);
}

UNIT_TEST(log_buckets)
{
	/* _stp_val_to_bucket() / _stp_bucket_to_val() */
	CHECK_INT(stat_log_bucket(0), 64);
	CHECK_INT(stat_log_bucket(1), 65);
	CHECK_INT(stat_log_bucket(2), 66);
	CHECK_INT(stat_log_bucket(3), 66);
	CHECK_INT(stat_log_bucket(1024), 75);
	CHECK_INT(stat_log_bucket(-1), 63);
	CHECK_INT(stat_log_bucket(-3), 62);
	CHECK_INT(stat_log_bucket(INT64_MIN), 0);
	CHECK_INT(stat_log_bucket(INT64_MAX), 127);
	CHECK_INT(stat_log_bucket_value(0), INT64_MIN);
	CHECK_INT(stat_log_bucket_value(62), -2);
	CHECK_INT(stat_log_bucket_value(63), -1);
	CHECK_INT(stat_log_bucket_value(64), 0);
	CHECK_INT(stat_log_bucket_value(65), 1);
	CHECK_INT(stat_log_bucket_value(127), INT64_C(1) << 62);
}

UNIT_TEST(linear_config)
{
	struct stat_cfg c;
	char err[256];

	CHECK_INT(stat_cfg_init(&c, STAT_HIST_LINEAR, 0, 100, 10, err, sizeof(err)), 0);
	CHECK_INT(c.buckets, 13);	/* (100 - 0) / 10 + 3 */
	CHECK_INT(stat_cfg_init(&c, STAT_HIST_LINEAR, 0, 100, 200, err, sizeof(err)), 0);
	CHECK_INT(c.buckets, 3);
	CHECK_INT(stat_cfg_init(&c, STAT_HIST_LINEAR, 0, 100, 0, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "histogram: interval cannot be zero.");
	CHECK_INT(stat_cfg_init(&c, STAT_HIST_LINEAR, 0, 1000, 1, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "histogram: Number of buckets must be between 1 and 126\n"
		  "Number_of_buckets = (stop - start) / interval.\n"
		  "Please adjust your start, stop, and interval values.");
	CHECK_INT(stat_cfg_init(&c, STAT_HIST_LINEAR, 100, 0, 10, err, sizeof(err)), -EINVAL);
	CHECK_INT(stat_cfg_init(&c, STAT_HIST_LOG, 0, 0, 0, err, sizeof(err)), 0);
	CHECK_INT(c.buckets, 128);
}

UNIT_TEST(bucket_index)
{
	const int64_t v[] = { -5, 0, 9, 10, 500 };
	int64_t out;

	make(STAT_HIST_LINEAR, 0, 100, 10);
	feed(v, 5);
	CHECK_INT(stat_bucket(&cfg, st, 0, &out), 0);	/* underflow */
	CHECK_INT(out, 1);
	CHECK_INT(stat_bucket(&cfg, st, 1, &out), 0);	/* [0, 10) */
	CHECK_INT(out, 2);
	CHECK_INT(stat_bucket(&cfg, st, 2, &out), 0);
	CHECK_INT(out, 1);
	CHECK_INT(stat_bucket(&cfg, st, 12, &out), 0);	/* overflow */
	CHECK_INT(out, 1);
	CHECK_INT(stat_bucket(&cfg, st, 13, &out), -ERANGE);
	CHECK_INT(stat_bucket(&cfg, st, -1, &out), -ERANGE);
	CHECK_STR(STAT_ERR_INDEX, "histogram index out of range");
}

UNIT_TEST(hist_log_spread_with_gap)
{
	const int64_t v[] = { 1, 2, 2, 3, 4, 7, 8, 1000 };

	make(STAT_HIST_LOG, 0, 0, 0);
	feed(v, 8);
	/* rows 0..2048: two zero rows beyond the data on each side, but not
	 * below 0; 64 is elided (16..256 zero around it) and shown as "~" */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"    0 |                                                   0\n"
		"    1 |@                                                  1\n"
		"    2 |@@@                                                3\n"
		"    4 |@@                                                 2\n"
		"    8 |@                                                  1\n"
		"   16 |                                                   0\n"
		"   32 |                                                   0\n"
		"      ~\n"
		"  128 |                                                   0\n"
		"  256 |                                                   0\n"
		"  512 |@                                                  1\n"
		" 1024 |                                                   0\n"
		" 2048 |                                                   0\n"
		"\n");
}

UNIT_TEST(hist_log_single_value)
{
	const int64_t v[] = { 5 };

	make(STAT_HIST_LOG, 0, 0, 0);
	feed(v, 1);
	/* 5 is in the 4 bucket; margins of two rows start at 1 */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"    1 |                                                   0\n"
		"    2 |                                                   0\n"
		"    4 |@                                                  1\n"
		"    8 |                                                   0\n"
		"   16 |                                                   0\n"
		"\n");
}

UNIT_TEST(hist_log_zeros_only)
{
	const int64_t v[] = { 0, 0, 0 };

	make(STAT_HIST_LOG, 0, 0, 0);
	feed(v, 3);
	/* the low margin never goes below the 0 bucket */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"    0 |@@@                                                3\n"
		"    1 |                                                   0\n"
		"    2 |                                                   0\n"
		"\n");
}

UNIT_TEST(hist_log_negative_values)
{
	const int64_t v[] = { -1, -2, -3, 0, 1, 5 };

	make(STAT_HIST_LOG, 0, 0, 0);
	feed(v, 6);
	/* -2 and -3 share the bucket labelled -2; with negatives the low
	 * margin goes below 0 */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"   -8 |                                                   0\n"
		"   -4 |                                                   0\n"
		"   -2 |@@                                                 2\n"
		"   -1 |@                                                  1\n"
		"    0 |@                                                  1\n"
		"    1 |@                                                  1\n"
		"    2 |                                                   0\n"
		"    4 |@                                                  1\n"
		"    8 |                                                   0\n"
		"   16 |                                                   0\n"
		"\n");
}

UNIT_TEST(hist_log_scaled_bar)
{
	int64_t v[127];
	int i;

	for (i = 0; i < 120; i++)
		v[i] = 3;
	for (; i < 127; i++)
		v[i] = 100;
	make(STAT_HIST_LOG, 0, 0, 0);
	feed(v, 127);
	/* max 120 > 50: scale = ceil(120 / 50) = 3, so 40 and 2 '@';
	 * the count column is 3 digits wide */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"    0 |                                                     0\n"
		"    1 |                                                     0\n"
		"    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           120\n"
		"    4 |                                                     0\n"
		"    8 |                                                     0\n"
		"   16 |                                                     0\n"
		"   32 |                                                     0\n"
		"   64 |@@                                                   7\n"
		"  128 |                                                     0\n"
		"  256 |                                                     0\n"
		"\n");
}

UNIT_TEST(hist_log_extremes)
{
	const int64_t v[] = { INT64_MIN, INT64_MAX };

	make(STAT_HIST_LOG, 0, 0, 0);
	feed(v, 2);
	/* the value column widens to 20 for -9223372036854775808 */
	CHECK_STR(print(0),
		"               value |-------------------------------------------------- count\n"
		"-9223372036854775808 |@                                                  1\n"
		"-4611686018427387904 |                                                   0\n"
		"-2305843009213693952 |                                                   0\n"
		"                     ~\n"
		" 1152921504606846976 |                                                   0\n"
		" 2305843009213693952 |                                                   0\n"
		" 4611686018427387904 |@                                                  1\n"
		"\n");
}

UNIT_TEST(hist_linear_basic)
{
	const int64_t v[] = { 0, 5, 15, 15, 42, 99 };

	make(STAT_HIST_LINEAR, 0, 100, 10);
	feed(v, 6);
	/* no under/overflow rows (both empty); 100 is the last regular
	 * bucket: (stop - start) / interval + 3 buckets leave one past stop */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"    0 |@@                                                 2\n"
		"   10 |@@                                                 2\n"
		"   20 |                                                   0\n"
		"   30 |                                                   0\n"
		"   40 |@                                                  1\n"
		"   50 |                                                   0\n"
		"   60 |                                                   0\n"
		"   70 |                                                   0\n"
		"   80 |                                                   0\n"
		"   90 |@                                                  1\n"
		"  100 |                                                   0\n"
		"\n");
}

UNIT_TEST(hist_linear_under_and_overflow)
{
	const int64_t v[] = { -5, -1, 3, 250, 1000 };

	make(STAT_HIST_LINEAR, 0, 100, 10);
	feed(v, 5);
	/* "<0" and ">100" rows; the column counts the prefix */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"   <0 |@@                                                 2\n"
		"    0 |@                                                  1\n"
		"   10 |                                                   0\n"
		"   20 |                                                   0\n"
		"      ~\n"
		"   90 |                                                   0\n"
		"  100 |                                                   0\n"
		" >100 |@@                                                 2\n"
		"\n");
}

UNIT_TEST(hist_linear_negative_range)
{
	const int64_t v[] = { -50, -45, -10, 0, 7 };

	make(STAT_HIST_LINEAR, -50, 50, 10);
	feed(v, 5);
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"  -50 |@@                                                 2\n"
		"  -40 |                                                   0\n"
		"  -30 |                                                   0\n"
		"  -20 |                                                   0\n"
		"  -10 |@                                                  1\n"
		"    0 |@@                                                 2\n"
		"   10 |                                                   0\n"
		"   20 |                                                   0\n"
		"\n");
}

UNIT_TEST(hist_elision_settings)
{
	const int64_t v[] = { 1, 1, 1, 95 };

	make(STAT_HIST_LINEAR, 0, 100, 10);
	feed(v, 4);
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"    0 |@@@                                                3\n"
		"   10 |                                                   0\n"
		"   20 |                                                   0\n"
		"      ~\n"
		"   70 |                                                   0\n"
		"   80 |                                                   0\n"
		"   90 |@                                                  1\n"
		"  100 |                                                   0\n"
		"\n");
	cfg.hist_elision = 0;		/* -DHIST_ELISION=0: no empty rows */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"    0 |@@@                                                3\n"
		"      ~\n"
		"   90 |@                                                  1\n"
		"\n");
	cfg.hist_elision = -1;		/* negative: nothing elided */
	CHECK_STR(print(0),
		"value |-------------------------------------------------- count\n"
		"    0 |@@@                                                3\n"
		"   10 |                                                   0\n"
		"   20 |                                                   0\n"
		"   30 |                                                   0\n"
		"   40 |                                                   0\n"
		"   50 |                                                   0\n"
		"   60 |                                                   0\n"
		"   70 |                                                   0\n"
		"   80 |                                                   0\n"
		"   90 |@                                                  1\n"
		"  100 |                                                   0\n"
		"\n");
}

UNIT_TEST(hist_sprint_truncation)
{
	int64_t v[127];
	const char *t;
	int i;

	for (i = 0; i < 120; i++)
		v[i] = 3;
	for (; i < 127; i++)
		v[i] = 100;
	make(STAT_HIST_LOG, 0, 0, 0);
	feed(v, 127);
	/* each HIST_PRINTF piece is _stp_snprintf()'d into the room left:
	 * the count of row "2" meets 5 bytes of room, its "%14lld" width is
	 * clamped to 5 ("  120"), and 4 bytes fit before the NUL */
	t = print(240);
	CHECK_INT(strlen(t), 239);
	CHECK(strcmp(t + strlen(t) - 8, "@@@@  12") == 0);
	CHECK_STR(print(64), "value |-------------------------------------------------- count");
	CHECK_STR(print(4), "val");
}

UNIT_TEST(hist_kind_checks)
{
	struct strbuf sb = STRBUF_INIT;
	const int64_t v[] = { 1 };

	make(STAT_HIST_LINEAR, 0, 10, 1);
	feed(v, 1);
	CHECK_INT(stat_print_hist_log(&sb, &cfg, st, 0), -EINVAL);
	CHECK_INT(stat_print_hist_linear(&sb, &cfg, st, 0), 0);
	make(STAT_HIST_NONE, 0, 0, 0);
	feed(v, 1);
	CHECK_INT(stat_print_hist(&sb, &cfg, st, 0), -EINVAL);
	fmt_sb_release(&sb);
}

UNIT_MAIN()
