// SPDX-License-Identifier: GPL-2.0
/*
 * Associative arrays: stap's semantics (runtime/map.c, map-gen.c,
 * translate.cxx) and our iteration safety.  Orders after sorting follow
 * stap's algorithms: _stp_map_sort() is a stable merge sort of the array's
 * list (insertion order, or the previous sort's order); _stp_map_sortn()
 * with a limit of 1..30 is a partial bubble/insertion sort whose leftover
 * order is visible in later loops.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lang/fmt_sb.h"
#include "lang/map.h"
#include "tests/unit/unit.h"

#define K1(val) (struct map_key[]){ { .l = (val) } }
#define KS(str) (struct map_key[]){ { .s = (str) } }

static char text[4096];

static struct map *new_map(int nkeys, const enum map_type *keys,
			   enum map_type value, size_t max, bool wrap)
{
	struct map_cfg c = { .nkeys = nkeys, .value = value,
			     .max_entries = max, .wrap = wrap };

	memcpy(c.keys, keys, (size_t)nkeys * sizeof(*keys));
	return map_new(&c);
}

static struct map *long_map(size_t max, bool wrap)
{
	static const enum map_type k[] = { MAP_LONG };

	return new_map(1, k, MAP_LONG, max, wrap);
}

/* "key=value ..." for a long -> long array in foreach order */
static const char *walk(struct map *m, const struct map_sort *s)
{
	struct map_iter it;
	struct map_entry *e;
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(map_iter_start(&it, m, s), 0);
	while ((e = map_iter_next(&it))) {
		if (sb.len)
			fmt_sb_addc(&sb, ' ');
		fmt_sb_addf(&sb, "%lld=%lld",
			    (long long)map_entry_key_long(e, 0),
			    (long long)map_entry_long(e));
	}
	map_iter_end(&it);
	snprintf(text, sizeof(text), "%s", fmt_sb_str(&sb));
	fmt_sb_release(&sb);
	return text;
}

/* keys only, for string-keyed arrays */
static const char *walk_keys(struct map *m, const struct map_sort *s)
{
	struct map_iter it;
	struct map_entry *e;
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(map_iter_start(&it, m, s), 0);
	while ((e = map_iter_next(&it))) {
		if (sb.len)
			fmt_sb_addc(&sb, ' ');
		fmt_sb_addstr(&sb, map_entry_key_str(e, 0));
	}
	map_iter_end(&it);
	snprintf(text, sizeof(text), "%s", fmt_sb_str(&sb));
	fmt_sb_release(&sb);
	return text;
}

static void fill(struct map *m, const int64_t (*kv)[2], int n)
{
	int i;

	for (i = 0; i < n; i++)
		CHECK_INT(map_set_long(m, K1(kv[i][0]), kv[i][1]), 0);
}

UNIT_TEST(get_set_exists_delete)
{
	static const enum map_type k[] = { MAP_LONG, MAP_STRING };
	struct map *m = new_map(2, k, MAP_LONG, 0, false);
	struct map_key a[] = { { .l = 4 }, { .s = "hello" } };
	struct map_key b[] = { { .l = 4 }, { .s = "world" } };

	CHECK_INT(map_get_long(m, a), 0);	/* missing reads 0 ... */
	CHECK(!map_exists(m, a));
	CHECK_INT(map_count(m), 0);		/* ... and does not insert */
	CHECK_INT(map_set_long(m, a, 7), 0);
	CHECK_INT(map_add_long(m, b, 1, NULL), 0);	/* `foo[4,"world"]++` */
	CHECK_INT(map_get_long(m, a), 7);
	CHECK_INT(map_get_long(m, b), 1);
	CHECK(map_exists(m, b));
	CHECK_INT(map_count(m), 2);
	CHECK_INT(map_delete(m, a), 1);
	CHECK_INT(map_delete(m, a), 0);		/* deleting a missing key is fine */
	CHECK(!map_exists(m, a));
	CHECK_INT(map_count(m), 1);
	map_clear(m);
	CHECK_INT(map_count(m), 0);
	CHECK(!map_exists(m, b));
	map_free(m);
}

UNIT_TEST(zero_and_empty_values_are_members)
{
	static const enum map_type k[] = { MAP_STRING };
	struct map *m = new_map(1, k, MAP_STRING, 0, false);
	struct map *n = long_map(0, false);

	/* map-gen.c: a set never deletes; "" and 0 are stored */
	CHECK_INT(map_set_str(m, KS("a"), ""), 0);
	CHECK(map_exists(m, KS("a")));
	CHECK_STR(map_get_str(m, KS("a")), "");
	CHECK_STR(map_get_str(m, KS("nope")), "");
	CHECK_INT(map_set_str(m, KS("a"), "value"), 0);
	CHECK_STR(map_get_str(m, KS("a")), "value");
	CHECK_INT(map_set_str(m, KS(NULL), "x"), 0);	/* NULL key is "" */
	CHECK_STR(map_get_str(m, KS("")), "x");
	CHECK_INT(map_set_long(n, K1(0), 0), 0);
	CHECK(map_exists(n, K1(0)));
	map_free(m);
	map_free(n);
}

UNIT_TEST(add_to_slot)
{
	struct map *m = long_map(0, false);
	struct map_entry *e, *e2;
	int64_t r = 0;

	CHECK_INT(map_add_long(m, K1(5), 10, &r), 0);
	CHECK_INT(r, 10);
	CHECK_INT(map_add_long(m, K1(5), -3, &r), 0);
	CHECK_INT(r, 7);
	CHECK_INT(map_slot(m, K1(5), &e), 0);
	(*map_entry_longp(e))++;		/* `a[5]++` with one lookup */
	CHECK_INT(map_get_long(m, K1(5)), 8);
	CHECK_INT(map_slot_h(m, K1(5), map_hash(m, K1(5)), &e2), 0);
	CHECK(e == e2);
	CHECK(map_find_h(m, K1(5), map_hash(m, K1(5))) == e);
	CHECK(map_find(m, K1(6)) == NULL);
	map_free(m);
}

UNIT_TEST(string_truncation)
{
	struct map_cfg c = { .nkeys = 1, .keys = { MAP_STRING },
			     .value = MAP_STRING, .maxstrlen = 8 };
	struct map *m = map_new(&c);

	/* MAXSTRINGLEN 8: keys and values keep 7 bytes (strlcpy) and keys
	 * compare on those 7 (strncmp(.., MAP_STRING_LENGTH - 1)) */
	CHECK_INT(map_set_str(m, KS("abcdefgXYZ"), "0123456789"), 0);
	CHECK_STR(map_get_str(m, KS("abcdefgQQ")), "0123456");
	CHECK(map_exists(m, KS("abcdefg")));
	CHECK(!map_exists(m, KS("abcdef")));
	CHECK_INT(map_count(m), 1);
	CHECK_STR(walk_keys(m, NULL), "abcdefg");
	map_free(m);
}

UNIT_TEST(overflow_at_capacity)
{
	struct map *m = long_map(3, false);

	CHECK_INT(map_set_long(m, K1(1), 1), 0);
	CHECK_INT(map_set_long(m, K1(2), 2), 0);
	CHECK_INT(map_set_long(m, K1(3), 3), 0);
	CHECK_INT(map_set_long(m, K1(4), 4), -E2BIG);
	CHECK_INT(map_add_long(m, K1(4), 1, NULL), -E2BIG);
	CHECK_INT(map_set_long(m, K1(2), 20), 0);	/* updates still work */
	CHECK_INT(map_count(m), 3);
	CHECK(!map_exists(m, K1(4)));
	CHECK_INT(map_delete(m, K1(1)), 1);
	CHECK_INT(map_set_long(m, K1(4), 4), 0);
	CHECK_INT(map_max_entries(m), 3);
	/* translate.cxx STAP_T_01 + "MAXMAPENTRIES" or "size limit (N)" */
	CHECK_STR(MAP_ERR_OVERFLOW, "Array overflow, check MAXMAPENTRIES");
	snprintf(text, sizeof(text), MAP_ERR_OVERFLOW_SIZE, map_max_entries(m));
	CHECK_STR(text, "Array overflow, check size limit (3)");
	map_free(m);

	m = long_map(0, false);			/* default MAXMAPENTRIES */
	CHECK_INT(map_max_entries(m), 2048);
	map_free(m);
}

UNIT_TEST(wrap_evicts_oldest)
{
	struct map *m = long_map(3, true);
	struct map_sort down = { .dir = -1 };

	/* `global a%[3]`: _new_map_create() reuses the first list node */
	CHECK_INT(map_set_long(m, K1(1), 10), 0);
	CHECK_INT(map_set_long(m, K1(2), 30), 0);
	CHECK_INT(map_set_long(m, K1(3), 20), 0);
	CHECK_INT(map_set_long(m, K1(4), 40), 0);
	CHECK_STR(walk(m, NULL), "2=30 3=20 4=40");
	/* the sort reorders the list: the first node is now the largest */
	CHECK_STR(walk(m, &down), "4=40 2=30 3=20");
	CHECK_INT(map_set_long(m, K1(5), 50), 0);
	CHECK_STR(walk(m, NULL), "2=30 3=20 5=50");
	map_free(m);
}

/* testsuite/systemtap.base/foreach_limit.exp's array and expected output */
static const int64_t limit_kv[][2] = {
	{ 9, 18 }, { 1, 40 }, { 8, 16 }, { 2, 4 }, { 7, 14 },
	{ 3, 36 }, { 6, 12 }, { 5, 10 }, { 4, 8 }, { 10, 20 },
};

UNIT_TEST(foreach_limit_stap_testsuite)
{
	struct map *m = long_map(0, false);
	struct map_sort s = { .has_limit = true, .limit = 5 };

	fill(m, limit_kv, 10);
	CHECK_STR(walk(m, NULL),
		  "9=18 1=40 8=16 2=4 7=14 3=36 6=12 5=10 4=8 10=20");
	CHECK_STR(walk(m, &s), "9=18 1=40 8=16 2=4 7=14");	/* unsorted limit 5 */
	s.dir = 1;						/* by value */
	CHECK_STR(walk(m, &s), "2=4 4=8 5=10 6=12 7=14");
	s.column = 1;						/* by key */
	CHECK_STR(walk(m, &s), "1=40 2=4 3=36 4=8 5=10");
	s.column = 0;
	s.limit = 3;
	CHECK_STR(walk(m, &s), "2=4 4=8 5=10");
	map_free(m);
}

UNIT_TEST(sort_value_ties_and_persistence)
{
	struct map *m = long_map(0, false);
	struct map_sort up = { .dir = 1 }, down = { .dir = -1 };
	static const int64_t kv[][2] = {
		{ 1, 5 }, { 2, 3 }, { 3, 5 }, { 4, 1 }, { 5, 3 },
	};

	fill(m, kv, 5);
	/* stable: equal values keep list (here insertion) order */
	CHECK_STR(walk(m, &up), "4=1 2=3 5=3 1=5 3=5");
	/* the list is now sorted ascending: ties keep that order descending */
	CHECK_STR(walk(m, &down), "1=5 3=5 2=3 5=3 4=1");
	/* an unsorted foreach walks the list as the last sort left it */
	CHECK_STR(walk(m, NULL), "1=5 3=5 2=3 5=3 4=1");
	/* new entries go to the end of the list */
	CHECK_INT(map_set_long(m, K1(0), 9), 0);
	CHECK_STR(walk(m, NULL), "1=5 3=5 2=3 5=3 4=1 0=9");
	map_free(m);
}

UNIT_TEST(sort_keys_numeric_and_string)
{
	static const enum map_type k[] = { MAP_STRING };
	struct map *m = new_map(1, k, MAP_LONG, 0, false);
	struct map *n = long_map(0, false);
	struct map_sort up = { .dir = 1, .column = 1 };
	struct map_sort down = { .dir = -1, .column = 1 };
	static const int64_t kv[][2] = { { -5, 0 }, { 10, 0 }, { 2, 0 } };

	CHECK_INT(map_set_long(m, KS("bash"), 3), 0);
	CHECK_INT(map_set_long(m, KS("Xorg"), 1), 0);
	CHECK_INT(map_set_long(m, KS("awk"), 2), 0);
	CHECK_INT(map_set_long(m, KS("bas"), 2), 0);
	CHECK_STR(walk_keys(m, &up), "Xorg awk bas bash");	/* strcmp */
	CHECK_STR(walk_keys(m, &down), "bash bas awk Xorg");
	up.column = 0;						/* value, ties */
	CHECK_STR(walk_keys(m, &up), "Xorg bas awk bash");
	fill(n, kv, 3);
	CHECK_STR(walk(n, &down), "10=0 2=0 -5=0");		/* numerically */
	map_free(m);
	map_free(n);
}

UNIT_TEST(sort_string_values)
{
	static const enum map_type k[] = { MAP_LONG };
	struct map *m = new_map(1, k, MAP_STRING, 0, false);
	struct map_sort up = { .dir = 1 };
	struct map_iter it;
	struct map_entry *e;
	char got[64] = "";

	map_set_str(m, K1(1), "pear");
	map_set_str(m, K1(2), "apple");
	map_set_str(m, K1(3), "");
	map_set_str(m, K1(4), "fig");
	CHECK_INT(map_iter_start(&it, m, &up), 0);
	while ((e = map_iter_next(&it)))
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%lld:%s ",
			 (long long)map_entry_key_long(e, 0), map_entry_str(e));
	map_iter_end(&it);
	CHECK_STR(got, "3: 2:apple 4:fig 1:pear ");
	map_free(m);
}

UNIT_TEST(sort_multi_column)
{
	static const enum map_type k[] = { MAP_STRING, MAP_LONG };
	struct map *m = new_map(2, k, MAP_LONG, 0, false);
	struct map_key a[] = { { .s = "b" }, { .l = 2 } };
	struct map_key b[] = { { .s = "a" }, { .l = 3 } };
	struct map_key c[] = { { .s = "c" }, { .l = 1 } };
	struct map_sort s = { .dir = -1, .column = 2 };	/* `foreach ([x, y-] in m)` */
	struct map_iter it;
	struct map_entry *e;
	char got[64] = "";

	map_set_long(m, a, 0);
	map_set_long(m, b, 0);
	map_set_long(m, c, 0);
	CHECK_INT(map_iter_start(&it, m, &s), 0);
	while ((e = map_iter_next(&it)))
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%lld ",
			 map_entry_key_str(e, 0),
			 (long long)map_entry_key_long(e, 1));
	map_iter_end(&it);
	CHECK_STR(got, "a3 b2 c1 ");
	s.column = 3;
	CHECK_INT(map_iter_start(&it, m, &s), -EINVAL);	/* no third column */
	map_free(m);
}

UNIT_TEST(partial_sort_with_small_limit)
{
	struct map *m = long_map(0, false);
	struct map_sort s = { .dir = 1, .has_limit = true, .limit = 2 };
	static const int64_t kv[][2] = {
		{ 3, 3 }, { 1, 1 }, { 2, 2 }, { 5, 5 }, { 4, 4 },
	};

	fill(m, kv, 5);
	/* _stp_map_sortn(n = 2): bubble the first two (3 1 -> 1 3), then 2
	 * moves in after 1 pushing 3 out; 5 and 4 do not beat 2 and stay
	 * where they were: the list is left 1 2 3 5 4, not fully sorted */
	CHECK_STR(walk(m, &s), "1=1 2=2");
	CHECK_STR(walk(m, NULL), "1=1 2=2 3=3 5=5 4=4");
	map_free(m);
}

UNIT_TEST(limit_zero_and_negative)
{
	struct map *m = long_map(0, false);
	struct map_sort s = { .dir = 1, .has_limit = true, .limit = -1 };
	static const int64_t kv[][2] = { { 3, 3 }, { 1, 1 }, { 2, 2 } };

	fill(m, kv, 3);
	/* translate.cxx: "if (limit++ >= N) break" runs no iteration for
	 * N <= 0, but the sort before it still happens; n < 0 takes sortn's
	 * path with no bubble pass: only the minimum moves to the front */
	CHECK_STR(walk(m, &s), "");
	CHECK_STR(walk(m, NULL), "1=1 3=3 2=2");
	s.limit = 0;			/* 0 sorts everything (_stp_map_sort) */
	CHECK_STR(walk(m, &s), "");
	CHECK_STR(walk(m, NULL), "1=1 2=2 3=3");
	map_free(m);
}

static struct map *stat_map(struct stat_cfg *sc)
{
	struct map_cfg c = { .nkeys = 1, .keys = { MAP_LONG }, .value = MAP_STAT,
			     .stat = sc };

	CHECK_INT(stat_cfg_init(sc, STAT_HIST_LOG, 0, 0, 0, NULL, 0), 0);
	return map_new(&c);
}

static const char *walk_stat(struct map *m, const struct map_sort *s)
{
	struct map_iter it;
	struct map_entry *e;
	char *p = text;

	text[0] = '\0';
	CHECK_INT(map_iter_start(&it, m, s), 0);
	while ((e = map_iter_next(&it)))
		p += sprintf(p, "%s%lld", p == text ? "" : " ",
			     (long long)map_entry_key_long(e, 0));
	map_iter_end(&it);
	return text;
}

UNIT_TEST(stat_array_sorting)
{
	struct stat_cfg sc;
	struct map *m = stat_map(&sc);
	struct map_sort s = { .dir = -1 };
	int64_t v;

	/* key: values */
	map_add_stat(m, K1(1), 100);			/* count 1, sum 100 */
	map_add_stat(m, K1(2), 1);
	map_add_stat(m, K1(2), 2);
	map_add_stat(m, K1(2), 3);			/* count 3, sum 6 */
	map_add_stat(m, K1(3), -50);
	map_add_stat(m, K1(3), 60);			/* count 2, sum 10 */
	/* translate.cxx: `foreach (k in s-)` sorts by @count */
	CHECK_STR(walk_stat(m, &s), "2 3 1");
	s.agg = STAT_SUM;				/* `s @sum-` */
	CHECK_STR(walk_stat(m, &s), "1 3 2");
	s.agg = STAT_MIN;
	s.dir = 1;					/* `s @min+` */
	CHECK_STR(walk_stat(m, &s), "3 2 1");
	s.agg = STAT_MAX;
	CHECK_STR(walk_stat(m, &s), "2 3 1");
	s.agg = STAT_AVG;				/* 100, 2, 5 */
	CHECK_STR(walk_stat(m, &s), "2 3 1");
	/* stap sorts a fresh aggregate: the array itself keeps its order */
	CHECK_STR(walk_stat(m, NULL), "1 2 3");
	CHECK_INT(stat_get(map_stat_cfg(m), map_get_stat(m, K1(2)), STAT_SUM, &v), 0);
	CHECK_INT(v, 6);
	/* a missing element reads as an empty aggregate */
	CHECK(map_get_stat(m, K1(9)) == NULL);
	CHECK_INT(stat_get(map_stat_cfg(m), map_get_stat(m, K1(9)), STAT_COUNT, &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(stat_get(map_stat_cfg(m), NULL, STAT_MAX, &v), -ENODATA);
	CHECK(map_stat_cfg(m)->in_map);
	map_free(m);
	m = long_map(0, false);
	CHECK_INT(map_add_stat(m, K1(1), 1), -EINVAL);	/* not a stat array */
	map_free(m);
}

UNIT_TEST(stat_array_variance_reads_element_path)
{
	struct stat_cfg sc;
	struct map *m;
	int64_t v;
	int i;

	CHECK_INT(stat_cfg_init(&sc, STAT_HIST_NONE, 0, 0, 0, NULL, 0), 0);
	sc.variance = true;
	{
		struct map_cfg c = { .nkeys = 1, .keys = { MAP_LONG },
				     .value = MAP_STAT, .stat = &sc };

		m = map_new(&c);
	}
	for (i = 1; i <= 4; i++)
		CHECK_INT(map_add_stat(m, K1(0), i), 0);
	/* see test_stat.c: an array element reads variance_s = 4, a scalar 5 */
	CHECK_INT(stat_get(map_stat_cfg(m), map_get_stat(m, K1(0)), STAT_VARIANCE, &v), 0);
	CHECK_INT(v, 4);
	map_free(m);
}

UNIT_TEST(delete_during_iteration)
{
	struct map *m = long_map(0, false);
	struct map_iter it;
	struct map_entry *e;
	char seen[64] = "";
	int i;

	for (i = 1; i <= 5; i++)
		map_set_long(m, K1(i), i * 10);
	CHECK_INT(map_iter_start(&it, m, NULL), 0);
	while ((e = map_iter_next(&it))) {
		int64_t k = map_entry_key_long(e, 0);

		snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
			 "%lld ", (long long)k);
		if (k == 2) {
			map_delete(m, K1(2));		/* the current one */
			map_delete(m, K1(4));		/* a later one: skipped */
			CHECK(!map_entry_live(e));
			CHECK_INT(map_entry_long(e), 20);	/* still readable */
			map_set_long(m, K1(6), 60);	/* inserted: not visited */
		}
		if (k == 3)
			*map_entry_longp(e) = 33;	/* changes are seen */
	}
	map_iter_end(&it);
	CHECK_STR(seen, "1 2 3 5 ");
	CHECK_INT(map_count(m), 4);
	CHECK_STR(walk(m, NULL), "1=10 3=33 5=50 6=60");
	map_free(m);
}

UNIT_TEST(clear_and_resort_during_iteration)
{
	struct map *m = long_map(0, false);
	struct map_sort down = { .dir = -1 };
	struct map_iter it, inner;
	struct map_entry *e;
	int n = 0, i;

	for (i = 1; i <= 4; i++)
		map_set_long(m, K1(i), i);
	CHECK_INT(map_iter_start(&it, m, NULL), 0);
	while ((e = map_iter_next(&it))) {
		n++;
		/* a nested sorted loop reorders the list under us: harmless */
		CHECK_INT(map_iter_start(&inner, m, &down), 0);
		map_iter_end(&inner);
		if (map_entry_key_long(e, 0) == 2)
			map_clear(m);			/* `delete a` */
	}
	map_iter_end(&it);
	CHECK_INT(n, 2);
	CHECK_INT(map_count(m), 0);
	CHECK_INT(map_set_long(m, K1(1), 1), 0);
	map_free(m);
}

UNIT_TEST(wrap_eviction_during_iteration)
{
	struct map *m = long_map(2, true);
	struct map_iter it;
	struct map_entry *e;
	int n = 0;

	map_set_long(m, K1(1), 1);
	map_set_long(m, K1(2), 2);
	CHECK_INT(map_iter_start(&it, m, NULL), 0);
	while ((e = map_iter_next(&it))) {
		n++;
		if (n == 1) {
			map_set_long(m, K1(101), 0);	/* evicts 1 (current) */
			map_set_long(m, K1(102), 0);	/* evicts 2 */
		}
	}
	map_iter_end(&it);
	CHECK_INT(n, 1);			/* 2 was evicted before its turn */
	CHECK_STR(walk(m, NULL), "101=0 102=0");
	map_free(m);
}

UNIT_TEST(memory_accounting)
{
	struct map_mem mem = { 0, 0 };
	struct map_cfg c = { .nkeys = 1, .keys = { MAP_STRING },
			     .value = MAP_STRING, .mem = &mem };
	struct map *m = map_new(&c);
	size_t base = mem.used, one;
	int i, r = 0;
	char key[32];

	CHECK(base > 0);
	map_set_str(m, KS("k"), "a fairly long string value");
	one = mem.used - base;
	CHECK(one > 26);
	map_delete(m, KS("k"));
	CHECK_INT(mem.used, base);
	mem.limit = base + 10 * one;
	for (i = 0; i < 100 && !r; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		r = map_set_str(m, KS(key), "a fairly long string value");
	}
	CHECK_INT(r, -ENOMEM);			/* stopped by the limit */
	CHECK(i > 5 && i < 20);
	CHECK(mem.used <= mem.limit);
	map_free(m);
	CHECK_INT(mem.used, 0);
}

UNIT_TEST(many_keys_probe_and_delete)
{
	static const enum map_type k[] = { MAP_STRING };
	struct map *m = new_map(1, k, MAP_LONG, 5000, false);
	char key[32];
	int i, ok = 1;

	for (i = 0; i < 4000; i++) {
		snprintf(key, sizeof(key), "proc-%d", i);
		ok &= map_add_long(m, KS(key), i, NULL) == 0;
	}
	CHECK(ok);
	CHECK_INT(map_count(m), 4000);
	for (i = 0; i < 4000; i += 2) {
		snprintf(key, sizeof(key), "proc-%d", i);
		ok &= map_delete(m, KS(key)) == 1;
	}
	/* backward-shift deletion must keep every survivor reachable */
	for (i = 0; i < 4000; i++) {
		snprintf(key, sizeof(key), "proc-%d", i);
		ok &= map_exists(m, KS(key)) == (i % 2 == 1);
		if (i % 2)
			ok &= map_get_long(m, KS(key)) == i;
	}
	CHECK(ok);
	CHECK_INT(map_count(m), 2000);
	map_free(m);
}

UNIT_TEST(nine_columns)
{
	struct map_cfg c = { .nkeys = 9, .value = MAP_LONG };
	struct map_key k[9], k2[9];
	struct map *m;
	int i;

	for (i = 0; i < 9; i++) {
		c.keys[i] = i % 2 ? MAP_STRING : MAP_LONG;
		k[i].l = i;
		k[i].s = "s";
	}
	m = map_new(&c);
	CHECK(m != NULL);
	CHECK_INT(map_set_long(m, k, 99), 0);
	memcpy(k2, k, sizeof(k));
	k2[8].l = 100;
	CHECK(!map_exists(m, k2));
	CHECK_INT(map_get_long(m, k), 99);
	map_free(m);
	c.nkeys = 10;
	CHECK(map_new(&c) == NULL);
	CHECK_INT(errno, EINVAL);
	c.nkeys = 1;
	c.value = MAP_STAT;			/* statistics need a stat_cfg */
	CHECK(map_new(&c) == NULL);
}

UNIT_MAIN()
