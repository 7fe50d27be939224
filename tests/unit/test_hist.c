// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms: the exact bytes bcc prints.  The expected texts were checked
 * against bcc's Python _print_log2_hist()/_stars() run on the same values
 * (bcc's bpf_log2l() puts 0 and 1 both in the "0 -> 1" row).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/hist.h"
#include "common/json.h"
#include "tests/unit/unit.h"

/* Run @stmt with f open on a memory stream; @var gets the text to free. */
#define CAPTURE(var, stmt) do {						\
	size_t len_;							\
	FILE *f = open_memstream(&(var), &len_);			\
	stmt;								\
	fclose(f);							\
} while (0)

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

UNIT_TEST(log2_slots)
{
	struct hist_log2 h = { 0 };

	hist_log2_add(&h, 0);
	hist_log2_add(&h, 1);
	hist_log2_add(&h, 2);
	hist_log2_add(&h, 3);
	hist_log2_add(&h, 4);
	hist_log2_add(&h, 1000);
	hist_log2_add(&h, 1ULL << 40);
	hist_log2_add(&h, UINT64_MAX);
	CHECK_INT(h.slot[0], 1);
	CHECK_INT(h.slot[1], 1);
	CHECK_INT(h.slot[2], 2);	/* [2, 4) */
	CHECK_INT(h.slot[3], 1);	/* [4, 8) */
	CHECK_INT(h.slot[10], 1);	/* [512, 1024) */
	CHECK_INT(h.slot[41], 1);	/* [2^40, 2^41) */
	CHECK_INT(h.slot[64], 1);
	CHECK_INT(h.count, 8);
	CHECK_INT(h.min, 0);
	CHECK(h.max == UINT64_MAX);
}

UNIT_TEST(log2_min_max_sum)
{
	struct hist_log2 h = { 0 };

	hist_log2_add(&h, 7);
	hist_log2_add(&h, 3);
	hist_log2_add(&h, 12);
	CHECK_INT(h.min, 3);
	CHECK_INT(h.max, 12);
	CHECK_INT(h.sum, 22);
	CHECK_INT(h.count, 3);
}

UNIT_TEST(log2_print_small)
{
	struct hist_log2 h = { 0 };
	char *t;

	hist_log2_add(&h, 0);
	hist_log2_add(&h, 1);
	hist_log2_add(&h, 2);
	hist_log2_add(&h, 3);
	hist_log2_add(&h, 1000);
	CAPTURE(t, hist_log2_print(f, &h, "usecs"));
	CHECK_STR(t,
		"     usecs               : count     distribution\n"
		"         0 -> 1          : 2        |****************************************|\n"
		"         2 -> 3          : 2        |****************************************|\n"
		"         4 -> 7          : 0        |                                        |\n"
		"         8 -> 15         : 0        |                                        |\n"
		"        16 -> 31         : 0        |                                        |\n"
		"        32 -> 63         : 0        |                                        |\n"
		"        64 -> 127        : 0        |                                        |\n"
		"       128 -> 255        : 0        |                                        |\n"
		"       256 -> 511        : 0        |                                        |\n"
		"       512 -> 1023       : 1        |********************                    |\n");
	free(t);
}

UNIT_TEST(log2_print_only_zero)
{
	struct hist_log2 h = { 0 };
	char *t;
	int i;

	for (i = 0; i < 7; i++)
		hist_log2_add(&h, 0);
	CAPTURE(t, hist_log2_print(f, &h, "usecs"));
	CHECK_STR(t,
		"     usecs               : count     distribution\n"
		"         0 -> 1          : 7        |****************************************|\n");
	free(t);
}

UNIT_TEST(log2_print_empty_prints_nothing)
{
	struct hist_log2 h = { 0 };
	char *t;

	CAPTURE(t, hist_log2_print(f, &h, "usecs"));
	CHECK_STR(t, "");
	free(t);
}

/* Star scaling: floor(40 * count / max), as bcc's _stars(). */
UNIT_TEST(log2_print_star_scaling)
{
	struct hist_log2 h = { 0 };
	char *t;
	int i;

	for (i = 0; i < 1000; i++)
		hist_log2_add(&h, 100);
	for (i = 0; i < 333; i++)
		hist_log2_add(&h, 3000);
	hist_log2_add(&h, 70000);
	for (i = 0; i < 25; i++)
		hist_log2_add(&h, 40);
	for (i = 0; i < 999; i++)
		hist_log2_add(&h, 9);
	CAPTURE(t, hist_log2_print(f, &h, "msecs"));
	CHECK_STR(t,
		"     msecs               : count     distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 0        |                                        |\n"
		"         4 -> 7          : 0        |                                        |\n"
		"         8 -> 15         : 999      |*************************************** |\n"
		"        16 -> 31         : 0        |                                        |\n"
		"        32 -> 63         : 25       |*                                       |\n"
		"        64 -> 127        : 1000     |****************************************|\n"
		"       128 -> 255        : 0        |                                        |\n"
		"       256 -> 511        : 0        |                                        |\n"
		"       512 -> 1023       : 0        |                                        |\n"
		"      1024 -> 2047       : 0        |                                        |\n"
		"      2048 -> 4095       : 333      |*************                           |\n"
		"      4096 -> 8191       : 0        |                                        |\n"
		"      8192 -> 16383      : 0        |                                        |\n"
		"     16384 -> 32767      : 0        |                                        |\n"
		"     32768 -> 65535      : 0        |                                        |\n"
		"     65536 -> 131071     : 1        |                                        |\n");
	free(t);
}

/* Past 32 bits bcc widens the columns to 20 and halves the bar. */
UNIT_TEST(log2_print_wide)
{
	struct hist_log2 h = { 0 };
	char *t;

	hist_log2_add(&h, 5);
	hist_log2_add(&h, 5);
	hist_log2_add(&h, 5);
	hist_log2_add(&h, 1ULL << 40);
	CAPTURE(t, hist_log2_print(f, &h, "nsecs"));
	CHECK_STR(t,
		"               nsecs                         : count     distribution\n"
		"                   0 -> 1                    : 0        |                    |\n"
		"                   2 -> 3                    : 0        |                    |\n"
		"                   4 -> 7                    : 3        |********************|\n"
		"                   8 -> 15                   : 0        |                    |\n"
		"                  16 -> 31                   : 0        |                    |\n"
		"                  32 -> 63                   : 0        |                    |\n"
		"                  64 -> 127                  : 0        |                    |\n"
		"                 128 -> 255                  : 0        |                    |\n"
		"                 256 -> 511                  : 0        |                    |\n"
		"                 512 -> 1023                 : 0        |                    |\n"
		"                1024 -> 2047                 : 0        |                    |\n"
		"                2048 -> 4095                 : 0        |                    |\n"
		"                4096 -> 8191                 : 0        |                    |\n"
		"                8192 -> 16383                : 0        |                    |\n"
		"               16384 -> 32767                : 0        |                    |\n"
		"               32768 -> 65535                : 0        |                    |\n"
		"               65536 -> 131071               : 0        |                    |\n"
		"              131072 -> 262143               : 0        |                    |\n"
		"              262144 -> 524287               : 0        |                    |\n"
		"              524288 -> 1048575              : 0        |                    |\n"
		"             1048576 -> 2097151              : 0        |                    |\n"
		"             2097152 -> 4194303              : 0        |                    |\n"
		"             4194304 -> 8388607              : 0        |                    |\n"
		"             8388608 -> 16777215             : 0        |                    |\n"
		"            16777216 -> 33554431             : 0        |                    |\n"
		"            33554432 -> 67108863             : 0        |                    |\n"
		"            67108864 -> 134217727            : 0        |                    |\n"
		"           134217728 -> 268435455            : 0        |                    |\n"
		"           268435456 -> 536870911            : 0        |                    |\n"
		"           536870912 -> 1073741823           : 0        |                    |\n"
		"          1073741824 -> 2147483647           : 0        |                    |\n"
		"          2147483648 -> 4294967295           : 0        |                    |\n"
		"          4294967296 -> 8589934591           : 0        |                    |\n"
		"          8589934592 -> 17179869183          : 0        |                    |\n"
		"         17179869184 -> 34359738367          : 0        |                    |\n"
		"         34359738368 -> 68719476735          : 0        |                    |\n"
		"         68719476736 -> 137438953471         : 0        |                    |\n"
		"        137438953472 -> 274877906943         : 0        |                    |\n"
		"        274877906944 -> 549755813887         : 0        |                    |\n"
		"        549755813888 -> 1099511627775        : 0        |                    |\n"
		"       1099511627776 -> 2199023255551        : 1        |******              |\n");
	free(t);
}

/* The switch to the wide form is at 2^32, and the top slot ends at 2^64-1. */
UNIT_TEST(log2_print_width_boundary)
{
	struct hist_log2 h = { 0 };
	const char *last;
	char *t;

	hist_log2_add(&h, 0xffffffffULL);
	CAPTURE(t, hist_log2_print(f, &h, "usecs"));
	CHECK_INT(count_lines(t), 33);
	CHECK(!strncmp(t, "     usecs               : count     distribution\n", 50));
	last = strstr(t, "2147483648 -> ");
	CHECK_STR(last, "2147483648 -> 4294967295 : 1        "
		  "|****************************************|\n");
	free(t);

	hist_log2_add(&h, 1ULL << 32);
	CAPTURE(t, hist_log2_print(f, &h, "usecs"));
	CHECK_INT(count_lines(t), 34);
	CHECK(!strncmp(t, "               usecs                         : count", 52));
	free(t);

	memset(&h, 0, sizeof(h));
	hist_log2_add(&h, UINT64_MAX);
	hist_log2_add(&h, 1ULL << 63);
	CAPTURE(t, hist_log2_print(f, &h, "bytes"));
	CHECK_INT(count_lines(t), 65);
	last = strstr(t, " 9223372036854775808 -> ");
	CHECK_STR(last, " 9223372036854775808 -> 18446744073709551615 : 2        "
		  "|********************|\n");
	free(t);
}

UNIT_TEST(log2_json)
{
	struct hist_log2 h = { 0 };
	struct json j;
	char *t;

	hist_log2_add(&h, 0);
	hist_log2_add(&h, 0);
	hist_log2_add(&h, 5);
	hist_log2_add(&h, 6);
	hist_log2_add(&h, 20);
	CAPTURE(t, (json_begin(&j, f), hist_log2_json(&j, "usecs", &h),
		    json_int(&j, "n", 5), json_end(&j)));
	CHECK_STR(t, "{\"usecs\":[{\"low\":0,\"high\":0,\"count\":2},"
		  "{\"low\":1,\"high\":1,\"count\":0},"
		  "{\"low\":2,\"high\":3,\"count\":0},"
		  "{\"low\":4,\"high\":7,\"count\":2},"
		  "{\"low\":8,\"high\":15,\"count\":0},"
		  "{\"low\":16,\"high\":31,\"count\":1}],\"n\":5}\n");
	free(t);
}

UNIT_TEST(log2_json_edges)
{
	struct hist_log2 h = { 0 };
	struct json j;
	char *t;

	CAPTURE(t, (json_begin(&j, f), hist_log2_json(&j, "h", &h), json_end(&j)));
	CHECK_STR(t, "{\"h\":[]}\n");
	free(t);

	hist_log2_add(&h, UINT64_MAX);
	CAPTURE(t, (json_begin(&j, f), hist_log2_json(&j, "h", &h), json_end(&j)));
	CHECK_STR(t, "{\"h\":[{\"low\":9223372036854775808,"
		  "\"high\":18446744073709551615,\"count\":1}]}\n");
	free(t);
}

UNIT_TEST(linear_init_rejects)
{
	struct hist_linear h;

	CHECK_INT(hist_linear_init(&h, 0, 100, 0), -EINVAL);
	CHECK_INT(hist_linear_init(&h, 0, 100, -1), -EINVAL);
	CHECK_INT(hist_linear_init(&h, 10, 10, 1), -EINVAL);
	CHECK_INT(hist_linear_init(&h, 10, 5, 1), -EINVAL);
	hist_linear_release(&h);
}

UNIT_TEST(linear_print)
{
	struct hist_linear h;
	int64_t v[] = { -5, 0, 5, 9, 10, 55, 99, 100, 250 };
	unsigned int i;
	char *t;

	CHECK_INT(hist_linear_init(&h, 0, 100, 10), 0);
	CHECK_INT(h.nslots, 10);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		hist_linear_add(&h, v[i]);
	CHECK_INT(h.count, 9);
	CHECK_INT(h.slot[0], 1);
	CHECK_INT(h.slot[1], 3);
	CHECK_INT(h.slot[11], 2);
	CAPTURE(t, hist_linear_print(f, &h, "ms"));
	CHECK_STR(t,
		"     ms            : count     distribution\n"
		"        <0         : 1        |*************                           |\n"
		"        0          : 3        |****************************************|\n"
		"        10         : 1        |*************                           |\n"
		"        20         : 0        |                                        |\n"
		"        30         : 0        |                                        |\n"
		"        40         : 0        |                                        |\n"
		"        50         : 1        |*************                           |\n"
		"        60         : 0        |                                        |\n"
		"        70         : 0        |                                        |\n"
		"        80         : 0        |                                        |\n"
		"        90         : 1        |*************                           |\n"
		"        >=100      : 2        |**************************              |\n");
	free(t);
	hist_linear_release(&h);
	hist_linear_release(&h);
}

/* Edge buckets that are empty are left out, negative ranges work. */
UNIT_TEST(linear_print_trimmed_negative)
{
	struct hist_linear h;
	char *t;

	CHECK_INT(hist_linear_init(&h, -20, 0, 5), 0);
	hist_linear_add(&h, -20);
	hist_linear_add(&h, -16);
	hist_linear_add(&h, -1);
	CAPTURE(t, hist_linear_print(f, &h, "value"));
	CHECK_STR(t,
		"     value         : count     distribution\n"
		"        -20        : 2        |****************************************|\n"
		"        -15        : 0        |                                        |\n"
		"        -10        : 0        |                                        |\n"
		"        -5         : 1        |********************                    |\n");
	free(t);
	hist_linear_release(&h);

	CHECK_INT(hist_linear_init(&h, 0, 10, 1), 0);
	CAPTURE(t, hist_linear_print(f, &h, "value"));
	CHECK_STR(t, "");
	free(t);
	hist_linear_release(&h);
}

/* A step that does not divide the range: the last bucket stays whole. */
UNIT_TEST(linear_uneven_step)
{
	struct hist_linear h;
	char *t;

	CHECK_INT(hist_linear_init(&h, 0, 10, 3), 0);
	CHECK_INT(h.nslots, 4);
	hist_linear_add(&h, 11);	/* [9, 12) */
	hist_linear_add(&h, 12);	/* overflow */
	CHECK_INT(h.slot[4], 1);
	CHECK_INT(h.slot[5], 1);
	CAPTURE(t, hist_linear_print(f, &h, "n"));
	CHECK_STR(t,
		"     n             : count     distribution\n"
		"        9          : 1        |****************************************|\n"
		"        >=12       : 1        |****************************************|\n");
	free(t);
	hist_linear_release(&h);
}

UNIT_MAIN()
