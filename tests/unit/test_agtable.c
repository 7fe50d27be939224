// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregate table: rows by key, every aggregation in each mode, decay,
 * percentiles, set rows, sorting, filters, cells, widths and JSON rows,
 * with exact values.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agtable.h"
#include "common/json.h"
#include "tests/unit/unit.h"

#define NS_PER_SEC 1000000000ULL

/* slots of the samples below */
enum { S_PID, S_COMM, S_LAT, S_BYTES, S_NAME, S_ERR };

/* PID COMM COUNT RATE LAT:sum LAT:avg LAT:p50 LAT:p99 LAT:max BYTES:rate */
static const struct agt_col cols[] = {
	{ "PID", NULL, AGT_KEY, AGT_INT, S_PID, AGT_PLAIN, 0 },
	{ "COMM", NULL, AGT_KEY, AGT_STR, S_COMM, AGT_PLAIN, 0 },
	{ "COUNT", NULL, AGT_COUNT, AGT_INT, -1, AGT_PLAIN, 0 },
	{ "RATE", NULL, AGT_RATE, AGT_INT, -1, AGT_PLAIN, 0 },
	{ "TIME", NULL, AGT_SUM, AGT_INT, S_LAT, AGT_NS, 0 },
	{ "AVG", NULL, AGT_AVG, AGT_INT, S_LAT, AGT_NS, 0 },
	{ "P50", NULL, AGT_P50, AGT_INT, S_LAT, AGT_NS, 0 },
	{ "P99", NULL, AGT_P99, AGT_INT, S_LAT, AGT_NS, 0 },
	{ "MAX", NULL, AGT_MAX, AGT_INT, S_LAT, AGT_NS, 0 },
	{ "B/S", "bytes_per_sec", AGT_RATE, AGT_INT, S_BYTES, AGT_BYTES, 0 },
};
enum { C_PID, C_COMM, C_COUNT, C_RATE, C_TIME, C_AVG, C_P50, C_P99, C_MAX,
       C_BPS, NCOLS };

static struct agtable *table(void)
{
	struct agtable *t = agt_new(cols, NCOLS);

	CHECK(t != NULL);
	return t;
}

/* one sample of @pid/@comm with latency @lat (< 0: none) */
static void add(struct agtable *t, int pid, const char *comm, int64_t lat)
{
	struct agt_sample s = { .have = 1 << S_PID | 1 << S_COMM };

	s.num[S_PID] = pid;
	s.str[S_COMM] = comm;
	if (lat >= 0) {
		s.num[S_LAT] = lat;
		s.have |= 1 << S_LAT;
	}
	agt_add(t, &s);
}

static void add_bytes(struct agtable *t, int pid, const char *comm, int64_t b)
{
	struct agt_sample s = { .have = 1 << S_PID | 1 << S_COMM | 1 << S_BYTES };

	s.num[S_PID] = pid;
	s.str[S_COMM] = comm;
	s.num[S_BYTES] = b;
	agt_add(t, &s);
}

static size_t rows(struct agtable *t, enum agt_mode mode, int sort,
		   struct agt_row ***r)
{
	struct agt_view_opts vo = { .mode = mode, .sort_col = sort };

	return agt_rows(t, &vo, r);
}

static const char *cell(struct agtable *t, struct agt_row *r, int col,
			enum agt_mode mode)
{
	static char buf[8][64];
	static int n;

	return agt_cell(t, r, col, mode, buf[n++ % 8], sizeof(buf[0]));
}

static double val(struct agtable *t, struct agt_row *r, int col,
		  enum agt_mode mode)
{
	double v = -12345;

	if (!agt_value(t, r, col, mode, &v))
		return NAN;
	return v;
}

/* The keys of the listed rows, "pid/comm pid/comm". */
static const char *order(struct agtable *t, struct agt_view_opts *vo)
{
	static char buf[512];
	struct agt_row **r;
	size_t i, n = agt_rows(t, vo, &r), o = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		o += snprintf(buf + o, sizeof(buf) - o, "%s%lld/%s", i ? " " : "",
			      (long long)agt_int(t, r[i], C_PID),
			      agt_str(t, r[i], C_COMM));
	return buf;
}

UNIT_TEST(new_rejects_bad_descriptions)
{
	struct agt_col c[3] = {
		{ "PID", NULL, AGT_KEY, AGT_INT, 0, AGT_PLAIN, 0 },
		{ "COUNT", NULL, AGT_COUNT, AGT_INT, -1, AGT_PLAIN, 0 },
		{ "X", NULL, AGT_SUM, AGT_INT, 1, AGT_PLAIN, 0 },
	};
	struct agtable *t;

	t = agt_new(c, 3);
	CHECK(t != NULL);
	CHECK_INT(agt_ncols(t), 3);
	CHECK_INT(agt_col_find(t, "count"), 1);
	CHECK_INT(agt_col_find(t, "nope"), -1);
	CHECK_STR(agt_col(t, 2)->title, "X");
	CHECK(agt_col(t, 3) == NULL);
	agt_free(t);

	errno = 0;
	CHECK(agt_new(c + 1, 2) == NULL);	/* no key */
	CHECK_INT(errno, EINVAL);
	CHECK(agt_new(c, 0) == NULL);
	c[2].input = -1;			/* a sum of nothing */
	CHECK(agt_new(c, 3) == NULL);
	c[2].input = AGT_MAX_SLOTS;
	CHECK(agt_new(c, 3) == NULL);
	c[2].input = 1;
	c[2].type = AGT_STR;			/* a sum of strings */
	CHECK(agt_new(c, 3) == NULL);
	c[2].fn = AGT_LAST;			/* the last string is fine */
	t = agt_new(c, 3);
	CHECK(t != NULL);
	agt_free(t);
	{
		struct agt_col d[3] = {
			{ "K", NULL, AGT_KEY, AGT_INT, 0, AGT_PLAIN, 0 },
			{ "S", NULL, AGT_LAST, AGT_STR, 1, AGT_PLAIN, 0 },
			{ "N", NULL, AGT_MAX, AGT_INT, 1, AGT_PLAIN, 0 },
		};

		CHECK(agt_new(d, 3) == NULL);	/* slot 1 string and number */
	}
	agt_free(NULL);
}

UNIT_TEST(rows_by_int_and_string_keys)
{
	struct agtable *t = table();
	char comm[16] = "bash";
	struct agt_row **r;
	size_t n;

	add(t, 10, comm, -1);
	strcpy(comm, "zsh");			/* the key was copied */
	add(t, 10, comm, -1);
	add(t, 10, "bash", -1);
	add(t, 11, "bash", -1);
	CHECK_INT(agt_size(t), 3);
	/* nothing closed yet: nothing to show */
	CHECK_INT(rows(t, AGT_INTERVAL, C_COUNT, &r), 0);
	CHECK_INT(rows(t, AGT_CUMULATIVE, C_COUNT, &r), 0);
	agt_tick(t, NS_PER_SEC);
	n = rows(t, AGT_INTERVAL, C_COUNT, &r);
	CHECK_INT(n, 3);
	CHECK_INT(agt_int(t, r[0], C_PID), 10);
	CHECK_STR(agt_str(t, r[0], C_COMM), "bash");
	CHECK_STR(cell(t, r[0], C_COUNT, AGT_INTERVAL), "2");
	CHECK_INT(agt_int(t, r[1], C_PID), 10);
	CHECK_STR(agt_str(t, r[1], C_COMM), "zsh");
	CHECK_INT(agt_int(t, r[2], C_PID), 11);
	CHECK_INT(agt_hits(t, AGT_INTERVAL), 4);
	/* a missing key reads 0 / "" */
	{
		struct agt_sample s = { 0 };

		agt_add(t, &s);
		agt_tick(t, NS_PER_SEC);
		n = rows(t, AGT_INTERVAL, C_COUNT, &r);
		CHECK_INT(n, 1);
		CHECK_INT(agt_int(t, r[0], C_PID), 0);
		CHECK_STR(agt_str(t, r[0], C_COMM), "");
	}
	agt_free(t);
}

UNIT_TEST(long_string_keys_are_cut)
{
	struct agtable *t = table();
	char a[AGT_STR_MAX + 10], b[AGT_STR_MAX + 10];
	struct agt_row **r;

	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	b[AGT_STR_MAX + 3] = 'y';		/* differs past the cut */
	add(t, 1, a, -1);
	add(t, 1, b, -1);
	CHECK_INT(agt_size(t), 1);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, C_COUNT, &r), 1);
	CHECK_INT(strlen(agt_str(t, r[0], C_COMM)), AGT_STR_MAX);
	/* a UTF-8 sequence across the cut is left out whole */
	a[AGT_STR_MAX - 1] = (char)0xc3;
	a[AGT_STR_MAX] = (char)0xa9;
	add(t, 2, a, -1);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, C_COUNT, &r), 1);
	CHECK_INT(strlen(agt_str(t, r[0], C_COMM)), AGT_STR_MAX - 1);
	agt_free(t);
}

UNIT_TEST(count_sum_min_max_avg_last)
{
	struct agt_col c[] = {
		{ "K", NULL, AGT_KEY, AGT_INT, 0, AGT_PLAIN, 0 },
		{ "N", NULL, AGT_COUNT, AGT_INT, -1, AGT_PLAIN, 0 },
		{ "SUM", NULL, AGT_SUM, AGT_INT, 1, AGT_PLAIN, 0 },
		{ "MIN", NULL, AGT_MIN, AGT_INT, 1, AGT_PLAIN, 0 },
		{ "MAX", NULL, AGT_MAX, AGT_INT, 1, AGT_PLAIN, 0 },
		{ "AVG", NULL, AGT_AVG, AGT_INT, 1, AGT_PLAIN, 0 },
		{ "LAST", NULL, AGT_LAST, AGT_INT, 1, AGT_PLAIN, 0 },
		{ "FILE", NULL, AGT_LAST, AGT_STR, 2, AGT_PLAIN, 0 },
		{ "W", NULL, AGT_COUNT, AGT_INT, 1, AGT_PLAIN, 0 },
	};
	struct agtable *t = agt_new(c, 9);
	struct agt_sample s = { .have = 1 | 2 | 4 };
	int64_t v[] = { 7, -3, 12, 5 };
	struct agt_row **r;
	size_t i;

	for (i = 0; i < 4; i++) {
		s.num[1] = v[i];
		s.str[2] = i == 3 ? "/etc/passwd" : "/tmp/x";
		agt_add(t, &s);
	}
	s.have = 1;		/* no input: hits only */
	s.weight = 3;
	agt_add(t, &s);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, 1, &r), 1);
	CHECK_INT(agt_int(t, r[0], 6), 5);
	CHECK_STR(cell(t, r[0], 1, AGT_INTERVAL), "7");		/* 4 + 3 */
	CHECK_STR(cell(t, r[0], 2, AGT_INTERVAL), "21");
	CHECK_STR(cell(t, r[0], 3, AGT_INTERVAL), "-3");
	CHECK_STR(cell(t, r[0], 4, AGT_INTERVAL), "12");
	CHECK_STR(cell(t, r[0], 5, AGT_INTERVAL), "5.2");	/* 21 / 4 */
	CHECK_STR(cell(t, r[0], 6, AGT_INTERVAL), "5");
	CHECK_STR(cell(t, r[0], 7, AGT_INTERVAL), "/etc/passwd");
	CHECK_STR(cell(t, r[0], 8, AGT_INTERVAL), "4");	/* samples with it */
	CHECK(val(t, r[0], 5, AGT_INTERVAL) == 5.25);
	/* a second interval with only hits: the input columns have no value */
	agt_add(t, &s);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, 1, &r), 1);
	CHECK_STR(cell(t, r[0], 1, AGT_INTERVAL), "3");
	CHECK_STR(cell(t, r[0], 2, AGT_INTERVAL), "-");
	CHECK(isnan(val(t, r[0], 2, AGT_INTERVAL)));
	CHECK_STR(cell(t, r[0], 5, AGT_INTERVAL), "-");
	CHECK_STR(cell(t, r[0], 7, AGT_INTERVAL), "-");
	CHECK_STR(cell(t, r[0], 8, AGT_INTERVAL), "0");
	/* ... while the cumulative ones keep everything */
	CHECK_STR(cell(t, r[0], 1, AGT_CUMULATIVE), "10");
	CHECK_STR(cell(t, r[0], 2, AGT_CUMULATIVE), "21");
	CHECK_STR(cell(t, r[0], 3, AGT_CUMULATIVE), "-3");
	CHECK_STR(cell(t, r[0], 6, AGT_CUMULATIVE), "5");
	CHECK_STR(cell(t, r[0], 7, AGT_CUMULATIVE), "/etc/passwd");
	CHECK_INT(agt_hits(t, AGT_INTERVAL), 3);
	CHECK_INT(agt_hits(t, AGT_CUMULATIVE), 10);
	/* no histogram without a percentile column */
	CHECK(agt_hist(t, r[0], 2, AGT_CUMULATIVE) == NULL);
	agt_free(t);
}

UNIT_TEST(rates)
{
	struct agtable *t = table();
	struct agt_row **r;
	int i;

	for (i = 0; i < 30; i++)
		add(t, 1, "a", -1);
	add_bytes(t, 1, "a", 3000);
	add_bytes(t, 1, "a", 1000);
	/* before any tick a rate has no time to divide by */
	agt_tick(t, 2 * NS_PER_SEC);			/* 32 hits in 2 s */
	CHECK_INT(rows(t, AGT_INTERVAL, C_COUNT, &r), 1);
	CHECK(val(t, r[0], C_RATE, AGT_INTERVAL) == 16);
	CHECK_STR(cell(t, r[0], C_RATE, AGT_INTERVAL), "16.0");
	CHECK(val(t, r[0], C_BPS, AGT_INTERVAL) == 2000);	/* 4000 B / 2 s */
	CHECK_STR(cell(t, r[0], C_BPS, AGT_INTERVAL), "2.0K");
	for (i = 0; i < 8; i++)
		add(t, 1, "a", -1);
	agt_tick(t, NS_PER_SEC / 2);			/* 8 hits in 0.5 s */
	CHECK(val(t, r[0], C_RATE, AGT_INTERVAL) == 16);
	CHECK(isnan(val(t, r[0], C_BPS, AGT_INTERVAL)));
	/* cumulative: 40 hits in 2.5 s */
	CHECK(val(t, r[0], C_RATE, AGT_CUMULATIVE) == 16);
	CHECK(val(t, r[0], C_BPS, AGT_CUMULATIVE) == 1600);
	/* decay: hits 32/2 + 8 = 24 over 2 s/2 + 0.5 s = 1.5 s */
	CHECK(val(t, r[0], C_RATE, AGT_DECAY) == 16);
	CHECK(val(t, r[0], C_BPS, AGT_DECAY) == 2000.0 / 1.5);
	CHECK_STR(cell(t, r[0], C_BPS, AGT_DECAY), "1.3K");
	agt_free(t);

	t = table();
	add(t, 1, "a", -1);
	agt_tick(t, 0);			/* a zero interval has no rate */
	CHECK_INT(rows(t, AGT_INTERVAL, C_COUNT, &r), 1);
	CHECK_STR(cell(t, r[0], C_RATE, AGT_INTERVAL), "-");
	agt_free(t);
}

UNIT_TEST(decay_halves_and_fades)
{
	struct agtable *t = table();
	struct agt_row **r;
	int i;

	for (i = 0; i < 8; i++)
		add(t, 1, "a", 100);
	add(t, 2, "b", -1);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_DECAY, C_COUNT, &r), 2);
	CHECK(val(t, r[0], C_COUNT, AGT_DECAY) == 8);
	CHECK(val(t, r[1], C_COUNT, AGT_DECAY) == 1);
	CHECK(val(t, r[0], C_TIME, AGT_DECAY) == 800);
	for (i = 0; i < 2; i++)
		add(t, 1, "a", 400);
	agt_tick(t, NS_PER_SEC);
	/* 8/2 + 2 = 6 hits; sum 800/2 + 800 = 1200; b: 0.5, still shown */
	CHECK_INT(rows(t, AGT_DECAY, C_COUNT, &r), 2);
	CHECK(val(t, r[0], C_COUNT, AGT_DECAY) == 6);
	CHECK(val(t, r[0], C_TIME, AGT_DECAY) == 1200);
	CHECK(val(t, r[0], C_AVG, AGT_DECAY) == 200);	/* 1200 / (4 + 2) */
	CHECK(val(t, r[0], C_MAX, AGT_DECAY) == 400);
	CHECK(val(t, r[1], C_COUNT, AGT_DECAY) == 0.5);
	CHECK_STR(cell(t, r[1], C_COUNT, AGT_DECAY), "0.5");
	CHECK_INT(rows(t, AGT_INTERVAL, C_COUNT, &r), 1);
	/* the decayed histogram: slot 7 (100) 8/2 = 4, slot 9 (400) 2 */
	{
		const struct hist_log2 *h;

		rows(t, AGT_DECAY, C_COUNT, &r);
		h = agt_hist(t, r[0], C_P99, AGT_DECAY);
		CHECK(h != NULL);
		CHECK_INT(h->slot[7], 4);
		CHECK_INT(h->slot[9], 2);
		CHECK_INT(h->count, 6);
		CHECK_INT(h->min, 100);
		CHECK_INT(h->max, 400);
		/* P50: rank 3 of 6 in [64, 128): 64 + 64 * 3/4 */
		CHECK(val(t, r[0], C_P50, AGT_DECAY) == 112);
		/* P99: rank 5.94, 1.94 into [256, 512) of 2: 504, clamped 400 */
		CHECK(val(t, r[0], C_P99, AGT_DECAY) == 400);
	}
	agt_tick(t, NS_PER_SEC);
	/* a: 3 hits; b: 0.25, gone */
	CHECK_INT(rows(t, AGT_DECAY, C_COUNT, &r), 1);
	CHECK(val(t, r[0], C_COUNT, AGT_DECAY) == 3);
	CHECK_INT(agt_hits(t, AGT_DECAY), 3);	/* 9/4 + 2/2 = 3.25 */
	agt_tick(t, NS_PER_SEC);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_DECAY, C_COUNT, &r), 1);	/* 0.75 */
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_DECAY, C_COUNT, &r), 0);	/* 0.375 */
	CHECK_INT(rows(t, AGT_CUMULATIVE, C_COUNT, &r), 2);
	CHECK_STR(cell(t, r[0], C_COUNT, AGT_CUMULATIVE), "10");
	/* a row with hits in the last interval is shown in decay mode too */
	add(t, 2, "b", -1);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_DECAY, C_COUNT, &r), 1);
	CHECK_INT(agt_int(t, r[0], C_PID), 2);
	agt_free(t);
}

UNIT_TEST(percentiles)
{
	struct agtable *t = table();
	struct agt_row **r;
	int i;

	add(t, 1, "one", 1234567);
	for (i = 1; i <= 1000; i++)
		add(t, 2, "many", i);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, C_PID, &r), 2);
	/* ascending by PID would be r[1]; descending: 2 then 1 */
	CHECK_INT(agt_int(t, r[1], C_PID), 1);
	/* a single value is itself */
	CHECK(val(t, r[1], C_P50, AGT_INTERVAL) == 1234567);
	CHECK(val(t, r[1], C_P99, AGT_INTERVAL) == 1234567);
	CHECK_STR(cell(t, r[1], C_P50, AGT_INTERVAL), "1.23ms");
	/*
	 * 1..1000: slots hold 1, 2, 4, ... 256 up to [256, 512) (511 values),
	 * then 489 in [512, 1024).  P50 rank 500: 245 into [256, 512) of
	 * 256: 256 + 256 * 245/256 = 501.  P99 rank 990: 479 into
	 * [512, 1024) of 489: 512 + 512 * 479/489 = 1013.5, clamped to 1000.
	 */
	CHECK(val(t, r[0], C_P50, AGT_INTERVAL) == 501);
	CHECK(val(t, r[0], C_P99, AGT_INTERVAL) == 1000);
	CHECK_STR(cell(t, r[0], C_P50, AGT_INTERVAL), "501ns");
	/* the histogram is shared by the columns of one input */
	CHECK(agt_hist(t, r[0], C_P50, AGT_INTERVAL) ==
	      agt_hist(t, r[0], C_AVG, AGT_INTERVAL));
	CHECK(agt_hist(t, r[0], C_P50, AGT_INTERVAL) !=
	      agt_hist(t, r[0], C_P50, AGT_CUMULATIVE));
	CHECK_INT(agt_hist(t, r[0], C_MAX, AGT_INTERVAL)->count, 1000);
	CHECK(agt_hist(t, r[0], C_COUNT, AGT_INTERVAL) == NULL);
	CHECK(agt_hist(t, r[0], C_BPS, AGT_INTERVAL) == NULL);
	/* 1000 values of 10 and 10 of 100000: P99 in the 10s, P50 too */
	add(t, 3, "skew", 100000);
	for (i = 0; i < 1000; i++)
		add(t, 3, "skew", 10);
	for (i = 0; i < 9; i++)
		add(t, 3, "skew", 100000);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, C_PID, &r), 1);
	/* rank 505 of 1000 in [8, 16): 8 + 8 * 505/1000 = 12.04, clamped
	 * to [10, 100000]: 12; rank 999.9 -> 8 + 8 * 999.9/1000 = 16 */
	CHECK(val(t, r[0], C_P50, AGT_INTERVAL) == 12);
	CHECK(val(t, r[0], C_P99, AGT_INTERVAL) == 16);
	CHECK_STR(cell(t, r[0], C_MAX, AGT_INTERVAL), "100us");
	agt_free(t);
}

UNIT_TEST(set_rows_keep_their_values)
{
	struct agt_col c[] = {
		{ "NAME", NULL, AGT_KEY, AGT_STR, 0, AGT_PLAIN, 0 },
		{ "COUNT", NULL, AGT_COUNT, AGT_INT, 1, AGT_PLAIN, 0 },
		{ "P99", NULL, AGT_P99, AGT_INT, 2, AGT_NS, 0 },
		{ "HITS", NULL, AGT_COUNT, AGT_INT, -1, AGT_PLAIN, 0 },
		{ "WHO", NULL, AGT_LAST, AGT_STR, 3, AGT_PLAIN, 0 },
	};
	struct agtable *t = agt_new(c, 5);
	struct agt_sample s = { .have = 1 | 2 | 8, .weight = 0 };
	struct agt_row **r;
	enum agt_mode m;

	s.str[0] = "read";
	s.num[1] = 42;
	s.str[3] = "bash";
	agt_set(t, &s);
	for (m = AGT_INTERVAL; m <= AGT_DECAY; m++) {
		CHECK_INT(rows(t, m, 1, &r), 1);
		CHECK_STR(cell(t, r[0], 1, m), "42");
		CHECK_STR(cell(t, r[0], 2, m), "-");
		CHECK_STR(cell(t, r[0], 3, m), "1");
		CHECK_STR(cell(t, r[0], 4, m), "bash");
	}
	agt_tick(t, NS_PER_SEC);
	agt_tick(t, NS_PER_SEC);
	for (m = AGT_INTERVAL; m <= AGT_DECAY; m++) {
		CHECK_INT(rows(t, m, 1, &r), 1);
		CHECK_STR(cell(t, r[0], 1, m), "42");
	}
	s.num[1] = 40;
	s.num[2] = 2100000;
	s.have = 1 | 2 | 4;
	s.weight = 7;
	agt_set(t, &s);			/* replaced, not added */
	CHECK_INT(rows(t, AGT_INTERVAL, 1, &r), 1);
	CHECK_STR(cell(t, r[0], 1, AGT_INTERVAL), "40");
	CHECK_STR(cell(t, r[0], 2, AGT_DECAY), "2.10ms");
	CHECK_STR(cell(t, r[0], 3, AGT_CUMULATIVE), "7");
	CHECK_STR(cell(t, r[0], 4, AGT_CUMULATIVE), "-");
	CHECK_INT(agt_hits(t, AGT_CUMULATIVE), 0);
	agt_free(t);
}

UNIT_TEST(sorting)
{
	struct agtable *t = table();
	struct agt_view_opts vo = { .mode = AGT_INTERVAL, .sort_col = C_COUNT };
	int i;

	add(t, 9, "b", 50);
	add(t, 10, "a", -1);
	add(t, 100, "c", 10);
	for (i = 0; i < 3; i++)
		add(t, 7, "d", 20);
	agt_tick(t, NS_PER_SEC);
	/* count descending, ties by keys ascending (numbers as numbers) */
	CHECK_STR(order(t, &vo), "7/d 9/b 10/a 100/c");
	vo.ascending = true;
	CHECK_STR(order(t, &vo), "9/b 10/a 100/c 7/d");
	vo.sort_col = C_PID;
	CHECK_STR(order(t, &vo), "7/d 9/b 10/a 100/c");
	vo.ascending = false;
	CHECK_STR(order(t, &vo), "100/c 10/a 9/b 7/d");
	vo.sort_col = C_COMM;
	CHECK_STR(order(t, &vo), "7/d 100/c 9/b 10/a");
	/* rows without a value last, either way */
	vo.sort_col = C_MAX;
	CHECK_STR(order(t, &vo), "9/b 7/d 100/c 10/a");
	vo.ascending = true;
	CHECK_STR(order(t, &vo), "100/c 7/d 9/b 10/a");
	/* no sort column: by keys */
	vo.sort_col = -1;
	CHECK_STR(order(t, &vo), "7/d 9/b 10/a 100/c");
	agt_free(t);
}

UNIT_TEST(filter_and_match)
{
	struct agtable *t = table();
	struct agt_view_opts vo = { .mode = AGT_INTERVAL, .sort_col = C_PID,
				    .ascending = true };
	const char *match[NCOLS] = { 0 };

	add(t, 1234, "Bash", -1);
	add(t, 1235, "bash", -1);
	add(t, 77, "sshd", -1);
	add(t, 12, "bash\n", -1);
	agt_tick(t, NS_PER_SEC);
	vo.filter = "BASH";
	CHECK_STR(order(t, &vo), "12/bash\n 1234/Bash 1235/bash");
	vo.filter = "4 ba";			/* across the keys */
	CHECK_STR(order(t, &vo), "1234/Bash");
	vo.filter = "h\\n";			/* the shown text is escaped */
	CHECK_STR(order(t, &vo), "12/bash\n");
	vo.filter = "";
	CHECK_STR(order(t, &vo), "12/bash\n 77/sshd 1234/Bash 1235/bash");
	vo.match = match;
	match[C_COMM] = "bash";
	CHECK_STR(order(t, &vo), "1235/bash");
	match[C_COMM] = NULL;
	match[C_PID] = "77";
	CHECK_STR(order(t, &vo), "77/sshd");
	match[C_PID] = "7";
	CHECK_STR(order(t, &vo), "");
	agt_free(t);
}

UNIT_TEST(cells_escape_and_units)
{
	struct agt_col c[] = {
		{ "COMM", NULL, AGT_KEY, AGT_STR, 0, AGT_PLAIN, 0 },
		{ "ADDR", NULL, AGT_KEY, AGT_INT, 1, AGT_HEX, 0 },
		{ "BYTES", NULL, AGT_SUM, AGT_INT, 2, AGT_BYTES, 0 },
		{ "AVG", NULL, AGT_AVG, AGT_INT, 2, AGT_PLAIN, 0 },
	};
	struct agtable *t = agt_new(c, 4);
	struct agt_sample s = { .have = 7 };
	struct agt_row **r;

	s.str[0] = "a\033[2Jb\t";
	s.num[1] = 0xffffffff81000000LL;
	s.num[2] = 3 * 1024 * 1024 + 500000;
	agt_add(t, &s);
	agt_add(t, &s);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, 2, &r), 1);
	CHECK_STR(cell(t, r[0], 0, AGT_INTERVAL), "a\\e[2Jb\\t");
	CHECK_STR(cell(t, r[0], 1, AGT_INTERVAL), "0xffffffff81000000");
	CHECK_STR(cell(t, r[0], 2, AGT_INTERVAL), "7.0M");
	CHECK_STR(cell(t, r[0], 3, AGT_INTERVAL), "3645728.0");
	agt_free(t);
}

UNIT_TEST(format_numbers)
{
	char b[32];

	CHECK_STR(agt_format(812, AGT_NS, b, sizeof(b)), "812ns");
	CHECK_STR(agt_format(0, AGT_NS, b, sizeof(b)), "0ns");
	CHECK_STR(agt_format(7.4, AGT_NS, b, sizeof(b)), "7ns");
	CHECK_STR(agt_format(999999, AGT_NS, b, sizeof(b)), "1.00ms");
	CHECK_STR(agt_format(999.4, AGT_NS, b, sizeof(b)), "999ns");
	CHECK_STR(agt_format(999.6, AGT_NS, b, sizeof(b)), "1.00us");
	CHECK_STR(agt_format(13500, AGT_NS, b, sizeof(b)), "13.5us");
	CHECK_STR(agt_format(123456, AGT_NS, b, sizeof(b)), "123us");
	CHECK_STR(agt_format(2100000, AGT_NS, b, sizeof(b)), "2.10ms");
	CHECK_STR(agt_format(1250000000, AGT_NS, b, sizeof(b)), "1.25s");
	CHECK_STR(agt_format(999.7e9, AGT_NS, b, sizeof(b)), "1000s");
	CHECK_STR(agt_format(12345e9, AGT_NS, b, sizeof(b)), "12345s");
	CHECK_STR(agt_format(-2500, AGT_NS, b, sizeof(b)), "-2.50us");
	CHECK_STR(agt_format(512, AGT_BYTES, b, sizeof(b)), "512");
	CHECK_STR(agt_format(1023, AGT_BYTES, b, sizeof(b)), "1023");
	CHECK_STR(agt_format(1024, AGT_BYTES, b, sizeof(b)), "1.0K");
	CHECK_STR(agt_format(12288, AGT_BYTES, b, sizeof(b)), "12.0K");
	CHECK_STR(agt_format(1048575, AGT_BYTES, b, sizeof(b)), "1.0M");
	CHECK_STR(agt_format(3.4 * 1048576, AGT_BYTES, b, sizeof(b)), "3.4M");
	CHECK_STR(agt_format(1.2 * 1073741824, AGT_BYTES, b, sizeof(b)), "1.2G");
	CHECK_STR(agt_format(5.0 * 1099511627776.0, AGT_BYTES, b, sizeof(b)), "5.0T");
	CHECK_STR(agt_format(42, AGT_PLAIN, b, sizeof(b)), "42");
	CHECK_STR(agt_format(-42, AGT_PLAIN, b, sizeof(b)), "-42");
	CHECK_STR(agt_format(12.5, AGT_PLAIN, b, sizeof(b)), "12.5");
	CHECK_STR(agt_format(255, AGT_HEX, b, sizeof(b)), "0xff");
}

UNIT_TEST(widths)
{
	struct agt_col c[] = {
		{ "PID", NULL, AGT_KEY, AGT_INT, 0, AGT_PLAIN, 0 },
		{ "COMM", NULL, AGT_KEY, AGT_STR, 1, AGT_PLAIN, 0 },
		{ "ADDR", NULL, AGT_KEY, AGT_INT, 2, AGT_HEX, 0 },
		{ "A_LONG_TITLE", NULL, AGT_COUNT, AGT_INT, -1, AGT_PLAIN, 0 },
		{ "PATH", NULL, AGT_LAST, AGT_STR, 3, AGT_PLAIN, 40 },
		{ "LAT", NULL, AGT_AVG, AGT_INT, 4, AGT_NS, 0 },
		{ "ERRORS_N", NULL, AGT_SUM, AGT_INT, 5, AGT_PLAIN, 3 },
	};
	struct agtable *t = agt_new(c, 7);

	CHECK_INT(agt_width(t, 0), 8);
	CHECK_INT(agt_width(t, 1), 16);
	CHECK_INT(agt_width(t, 2), 18);
	CHECK_INT(agt_width(t, 3), 12);
	CHECK_INT(agt_width(t, 4), 40);
	CHECK_INT(agt_width(t, 5), 8);
	CHECK_INT(agt_width(t, 6), 8);	/* never narrower than its title */
	agt_free(t);
}

UNIT_TEST(json_rows)
{
	struct agtable *t = table();
	struct agt_row **r;
	struct json j;
	char *text;
	size_t len;
	FILE *f;

	add(t, 42, "a\"b\xff", 1500);
	add(t, 42, "a\"b\xff", 2000);
	add(t, 42, "a\"b\xff", -1);
	agt_tick(t, 2 * NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, C_COUNT, &r), 1);
	f = open_memstream(&text, &len);
	json_begin(&j, f);
	agt_json_row(t, r[0], AGT_INTERVAL, &j);
	json_end(&j);
	fclose(f);
	CHECK_STR(text, "{\"pid\":42,\"comm\":\"a\\\"b\\udcff\",\"count\":3,"
		  "\"rate\":1.5,\"time\":3500,\"avg\":1750,\"p50\":1536,"
		  "\"p99\":2000,\"max\":2000,\"bytes_per_sec\":null}\n");
	free(text);
	/* rates and averages to 3 decimals; a decayed count with its half */
	add(t, 42, "a\"b\xff", 1000);
	agt_tick(t, 3 * NS_PER_SEC);
	add_bytes(t, 42, "a\"b\xff", 2);
	agt_tick(t, 3 * NS_PER_SEC);
	CHECK_INT(rows(t, AGT_DECAY, C_COUNT, &r), 1);
	f = open_memstream(&text, &len);
	json_begin(&j, f);
	agt_json_row(t, r[0], AGT_DECAY, &j);
	json_end(&j);
	fclose(f);
	/*
	 * hits 3/4 + 1/2 + 1 in (2/4 + 3/2 + 3) s; latency: 3500/4 + 1000/2
	 * over 2/4 + 1/2 samples, the histogram's slots rounded up: one
	 * in [512, 1024) and one in [1024, 2048), P50 1024, clamped to
	 * [1000, 2000] P99 2027.5 -> 2000; bytes 2 in 5 s
	 */
	CHECK_STR(text, "{\"pid\":42,\"comm\":\"a\\\"b\\udcff\",\"count\":2.25,"
		  "\"rate\":0.45,\"time\":1375,\"avg\":1375,\"p50\":1024,"
		  "\"p99\":2000,\"max\":2000,\"bytes_per_sec\":0.4}\n");
	free(text);
	agt_tick(t, 3 * NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, C_COUNT, &r), 0);
	CHECK_INT(rows(t, AGT_DECAY, C_COUNT, &r), 1);
	CHECK_STR(cell(t, r[0], C_RATE, AGT_DECAY), "0.2");	/* 1.125 / 5.5 s */
	f = open_memstream(&text, &len);
	json_begin(&j, f);
	agt_json_row(t, r[0], AGT_DECAY, &j);
	json_end(&j);
	fclose(f);
	CHECK(strstr(text, "\"rate\":0.205,") != NULL);
	free(text);
	agt_free(t);
}

UNIT_TEST(row_ids_are_stable)
{
	struct agtable *t = table();
	struct agt_row **r;
	uint64_t id;

	add(t, 5, "x", -1);
	add(t, 6, "x", -1);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, C_PID, &r), 2);
	id = agt_row_id(r[1]);
	CHECK(agt_row_id(r[0]) != id);
	CHECK(agt_row_find(t, id) == r[1]);
	agt_reset(t);
	CHECK_INT(agt_size(t), 0);
	CHECK(agt_row_find(t, id) == NULL);
	CHECK_INT(agt_hits(t, AGT_CUMULATIVE), 0);
	add(t, 5, "x", -1);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(rows(t, AGT_INTERVAL, C_PID, &r), 1);
	CHECK(agt_row_id(r[0]) == id);
	CHECK_STR(cell(t, r[0], C_RATE, AGT_CUMULATIVE), "1.0");
	agt_free(t);
}

UNIT_TEST(cap_drops_the_rows_idle_longest)
{
	struct agtable *t = table();
	struct agt_row **r;
	unsigned i;

	for (i = 0; i < AGT_MAX_ROWS; i++)
		add(t, (int)i, "w", -1);
	CHECK_INT(agt_size(t), AGT_MAX_ROWS);
	add(t, 0, "w", -1);		/* row 0 is fresh again */
	add(t, -1, "new", -1);
	/* a sixteenth dropped: rows 1 .. 4096 */
	CHECK_INT(agt_size(t), AGT_MAX_ROWS - AGT_MAX_ROWS / 16 + 1);
	agt_tick(t, NS_PER_SEC);
	CHECK_INT(agt_hits(t, AGT_INTERVAL), AGT_MAX_ROWS + 2);
	{
		const char *m[NCOLS] = { 0 };
		struct agt_view_opts vo = { .mode = AGT_INTERVAL,
					    .sort_col = C_PID, .match = m };

		m[C_PID] = "0";
		CHECK_INT(agt_rows(t, &vo, &r), 1);
		CHECK_STR(cell(t, r[0], C_COUNT, AGT_INTERVAL), "2");
		m[C_PID] = "4096";
		CHECK_INT(agt_rows(t, &vo, &r), 0);
		m[C_PID] = "4097";
		CHECK_INT(agt_rows(t, &vo, &r), 1);
		m[C_PID] = "-1";
		CHECK_INT(agt_rows(t, &vo, &r), 1);
	}
	agt_free(t);
}

UNIT_MAIN()
