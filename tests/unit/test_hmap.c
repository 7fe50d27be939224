// SPDX-License-Identifier: GPL-2.0
/*
 * The u64 -> inline value hash map: basic operations, growth, iteration, and
 * backward-shift deletion checked against a plain reference array under a
 * fixed-seed random workload.
 *
 * Table slots are observable through the public API: hmap_next() leaves
 * *pos one past the slot it returned, and ends with *pos at the capacity.
 * The collision tests use that to find keys sharing a home slot without
 * copying the hash function.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "tests/unit/unit.h"

struct val {
	uint64_t key;
	uint64_t n;
};

/* Slot of each entry, by iteration; returns the count found. */
static size_t slots(const struct hmap *m, uint64_t *keys, size_t *where,
		    size_t max)
{
	size_t pos = 0, n = 0;
	uint64_t k;

	while (hmap_next(m, &pos, &k)) {
		if (n < max) {
			keys[n] = k;
			where[n] = pos - 1;
		}
		n++;
	}
	return n;
}

static size_t capacity(const struct hmap *m)
{
	size_t pos = 0;

	while (hmap_next(m, &pos, NULL))
		;
	return pos;
}

/* The home slot of @key in an empty table of the initial capacity. */
static size_t home_slot(struct hmap *empty, uint64_t key)
{
	uint64_t k;
	size_t w = (size_t)-1;

	hmap_get(empty, key, true);
	slots(empty, &k, &w, 1);
	hmap_del(empty, key);
	return w;
}

UNIT_TEST(basic_get_del)
{
	struct hmap *m = hmap_new(sizeof(struct val));
	struct val *v;

	CHECK_INT(hmap_count(m), 0);
	CHECK(hmap_get(m, 5, false) == NULL);
	CHECK_INT(hmap_count(m), 0);
	v = hmap_get(m, 5, true);
	CHECK(v != NULL);
	CHECK_INT(v->key, 0);			/* zeroed */
	CHECK_INT(v->n, 0);
	v->key = 5;
	v->n = 50;
	CHECK_INT(hmap_count(m), 1);
	CHECK(hmap_get(m, 5, false) == v);
	CHECK(hmap_get(m, 5, true) == v);	/* no second insert */
	CHECK_INT(hmap_count(m), 1);
	CHECK_INT(((struct val *)hmap_get(m, 5, false))->n, 50);
	/* key 0 and the largest key are ordinary keys */
	v = hmap_get(m, 0, true);
	v->n = 1;
	v = hmap_get(m, UINT64_MAX, true);
	v->n = 2;
	CHECK_INT(hmap_count(m), 3);
	CHECK_INT(((struct val *)hmap_get(m, 0, false))->n, 1);
	CHECK_INT(((struct val *)hmap_get(m, UINT64_MAX, false))->n, 2);

	hmap_del(m, 5);
	CHECK(hmap_get(m, 5, false) == NULL);
	CHECK_INT(hmap_count(m), 2);
	hmap_del(m, 5);				/* absent: no-op */
	hmap_del(m, 12345);
	CHECK_INT(hmap_count(m), 2);
	/* re-inserted after delete: zeroed again */
	v = hmap_get(m, 5, true);
	CHECK_INT(v->n, 0);
	CHECK_INT(hmap_count(m), 3);
	hmap_free(m);
	hmap_free(NULL);
}

UNIT_TEST(zero_value_size)
{
	struct hmap *m = hmap_new(0);
	size_t pos = 0;
	uint64_t k = 0;

	CHECK(hmap_get(m, 1, true) != NULL);
	CHECK(hmap_get(m, 1, false) != NULL);
	CHECK(hmap_get(m, 2, false) == NULL);
	CHECK(hmap_next(m, &pos, &k) != NULL);
	CHECK_INT(k, 1);
	CHECK(hmap_next(m, &pos, &k) == NULL);
	hmap_free(m);
}

UNIT_TEST(growth_many_keys)
{
	enum { N = 200000 };
	struct hmap *m = hmap_new(sizeof(struct val));
	uint64_t i;
	int bad = 0;

	for (i = 0; i < N; i++) {
		/* sequential keys and widely spread ones */
		uint64_t key = i & 1 ? i : i * 0x9e3779b97f4a7c15ULL;
		struct val *v = hmap_get(m, key, true);

		v->key = key;
		v->n = i;
	}
	CHECK_INT(hmap_count(m), N);
	/* load stays at or below 70% */
	CHECK(capacity(m) * 7 >= (size_t)N * 10);
	for (i = 0; i < N; i++) {
		uint64_t key = i & 1 ? i : i * 0x9e3779b97f4a7c15ULL;
		struct val *v = hmap_get(m, key, false);

		if (!v || v->key != key || v->n != i)
			bad++;
	}
	CHECK_INT(bad, 0);
	for (i = N; i < N + 1000; i += 2)
		if (hmap_get(m, i, false))
			bad++;
	CHECK_INT(bad, 0);
	CHECK_INT(hmap_count(m), N);
	hmap_free(m);
}

UNIT_TEST(large_values_survive_moves)
{
	struct big { uint64_t key; unsigned char pad[91]; };
	struct hmap *m = hmap_new(sizeof(struct big));
	uint64_t i;
	int bad = 0;

	for (i = 1; i <= 5000; i++) {
		struct big *b = hmap_get(m, i, true);

		b->key = i;
		memset(b->pad, (int)(i & 0xff), sizeof(b->pad));
	}
	for (i = 1; i <= 5000; i += 3)
		hmap_del(m, i);
	for (i = 1; i <= 5000; i++) {
		struct big *b = hmap_get(m, i, false);

		if (i % 3 == 1) {
			bad += b != NULL;
			continue;
		}
		if (!b || b->key != i || b->pad[0] != (i & 0xff) ||
		    b->pad[sizeof(b->pad) - 1] != (i & 0xff))
			bad++;
	}
	CHECK_INT(bad, 0);
	hmap_free(m);
}

UNIT_TEST(iteration_and_clear)
{
	enum { N = 3000 };
	struct hmap *m = hmap_new(sizeof(struct val));
	static unsigned char seen[N];
	size_t pos = 0, n = 0;
	uint64_t i, k;
	struct val *v;
	int bad = 0;

	/* empty map: nothing */
	CHECK(hmap_next(m, &pos, &k) == NULL);
	for (i = 0; i < N; i++) {
		v = hmap_get(m, i * 7, true);
		v->key = i * 7;
	}
	memset(seen, 0, sizeof(seen));
	pos = 0;
	while ((v = hmap_next(m, &pos, &k))) {
		if (k % 7 || k / 7 >= N || v->key != k || seen[k / 7]++)
			bad++;
		n++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(n, N);
	/* a key pointer is optional */
	pos = 0;
	n = 0;
	while (hmap_next(m, &pos, NULL))
		n++;
	CHECK_INT(n, N);
	/* the end is sticky */
	CHECK(hmap_next(m, &pos, &k) == NULL);

	hmap_clear(m);
	CHECK_INT(hmap_count(m), 0);
	pos = 0;
	CHECK(hmap_next(m, &pos, &k) == NULL);
	CHECK(hmap_get(m, 7, false) == NULL);
	v = hmap_get(m, 7, true);
	CHECK_INT(v->key, 0);			/* zeroed, not the old value */
	CHECK_INT(hmap_count(m), 1);
	hmap_free(m);
}

/*
 * Keys sharing one home slot form a run; deleting from its middle must
 * shift the later ones back so none becomes unreachable, also when the run
 * wraps from the last slot to the first.
 */
static void collide_and_delete(size_t home, int nsame, int nnext)
{
	struct hmap *m = hmap_new(sizeof(struct val));
	uint64_t same[16], next[16], key;
	int ns = 0, nn = 0, i, d, bad = 0;
	size_t cap = capacity(m);

	CHECK(nsame <= 16 && nnext <= 16);
	for (key = 1; (ns < nsame || nn < nnext) && key < 1000000; key++) {
		size_t h = home_slot(m, key);

		if (h == home && ns < nsame)
			same[ns++] = key;
		else if (h == ((home + 1) & (cap - 1)) && nn < nnext)
			next[nn++] = key;
	}
	CHECK_INT(ns, nsame);
	CHECK_INT(nn, nnext);
	/* delete each of them in turn from a freshly built run */
	for (d = 0; d < ns + nn; d++) {
		uint64_t gone = d < ns ? same[d] : next[d - ns];

		hmap_clear(m);
		/* interleave so the two runs mix */
		for (i = 0; i < ns || i < nn; i++) {
			if (i < ns)
				((struct val *)hmap_get(m, same[i], true))->key = same[i];
			if (i < nn)
				((struct val *)hmap_get(m, next[i], true))->key = next[i];
		}
		CHECK_INT(capacity(m), cap);	/* no growth: one table */
		hmap_del(m, gone);
		CHECK_INT(hmap_count(m), ns + nn - 1);
		CHECK(hmap_get(m, gone, false) == NULL);
		for (i = 0; i < ns + nn; i++) {
			uint64_t k = i < ns ? same[i] : next[i - ns];
			struct val *v = hmap_get(m, k, false);

			if (k == gone)
				continue;
			if (!v || v->key != k)
				bad++;
		}
		/* and the run left no hole: slots are contiguous from home */
		{
			uint64_t ks[32];
			size_t w[32], n = slots(m, ks, w, 32), j, fill = 0;
			unsigned char used[64] = { 0 };

			for (j = 0; j < n && j < 32; j++)
				if (w[j] < 64)
					used[w[j]] = 1;
			for (j = 0; j < n; j++)
				fill += used[(home + j) & (cap - 1)];
			CHECK_INT(fill, n);
		}
	}
	CHECK_INT(bad, 0);
	hmap_free(m);
}

UNIT_TEST(collisions_in_one_home_slot)
{
	collide_and_delete(10, 6, 0);
	collide_and_delete(20, 5, 4);
}

UNIT_TEST(collisions_wrapping_past_last_slot)
{
	size_t cap;
	struct hmap *m = hmap_new(sizeof(struct val));

	cap = capacity(m);
	hmap_free(m);
	CHECK_INT(cap, 64);
	collide_and_delete(cap - 2, 5, 3);
	collide_and_delete(cap - 1, 4, 4);
}

/* Per-event insert/delete with few live keys: no growth, no tombstones. */
UNIT_TEST(insert_delete_churn_keeps_table_small)
{
	struct hmap *m = hmap_new(sizeof(uint64_t));
	uint64_t i;
	int bad = 0;

	for (i = 0; i < 500000; i++) {
		*(uint64_t *)hmap_get(m, i, true) = i;
		if (i >= 8) {
			hmap_del(m, i - 8);
			if (*(uint64_t *)hmap_get(m, i - 4, false) != i - 4)
				bad++;
		}
	}
	CHECK_INT(bad, 0);
	CHECK_INT(hmap_count(m), 8);
	CHECK_INT(capacity(m), 64);
	hmap_free(m);
}

/* Deterministic generator (fixed seed). */
static uint64_t rng_state;

static uint32_t rng(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33);
}

/* The reference: a plain array indexed by key number. */
enum { UNIVERSE = 6000 };
static uint64_t ref_key[UNIVERSE];
static uint64_t ref_val[UNIVERSE];
static unsigned char ref_in[UNIVERSE];
static int ref_n;			/* keys in use */

static int check_against_ref(const struct hmap *m, size_t ref_count)
{
	static unsigned char seen[UNIVERSE];
	size_t pos = 0, n = 0;
	struct val *v;
	uint64_t k;
	int i, bad = 0;

	if (hmap_count(m) != ref_count)
		bad++;
	for (i = 0; i < ref_n; i++) {
		v = hmap_get((struct hmap *)m, ref_key[i], false);
		if (ref_in[i] ? !v || v->key != ref_key[i] || v->n != ref_val[i] : v != NULL)
			bad++;
	}
	memset(seen, 0, sizeof(seen));
	while ((v = hmap_next(m, &pos, &k))) {
		int idx = (int)(v->n >> 32);

		n++;
		if (idx < 0 || idx >= ref_n || ref_key[idx] != k ||
		    !ref_in[idx] || seen[idx]++)
			bad++;
	}
	if (n != ref_count)
		bad++;
	return bad;
}

/*
 * @nkeys keys, @nops random inserts/deletes/lookups in phases that fill
 * and drain the map, compared with the reference every @every operations.
 * Returns the number of mismatches.
 */
static int random_run(int nkeys, int nops, int every, uint64_t seed,
		      bool crowd_the_end)
{
	struct hmap *m = hmap_new(sizeof(struct val));
	size_t count = 0;
	int i, op, bad = 0;

	rng_state = seed;
	ref_n = nkeys;
	/* keys: random 64-bit, small sequential, and some sharing low bits */
	for (i = 0; i < nkeys; i++) {
		switch (i % 3) {
		case 0: ref_key[i] = (uint64_t)rng() << 32 | rng(); break;
		case 1: ref_key[i] = (uint64_t)i; break;
		default: ref_key[i] = (uint64_t)i << 40; break;
		}
		/* or: random keys whose home is one of the last 8 of 64 slots,
		 * so runs keep wrapping to the start of the table */
		while (crowd_the_end && i % 2 &&
		       home_slot(m, ref_key[i]) < 56)
			ref_key[i] = (uint64_t)rng() << 32 | rng();
	}
	memset(ref_in, 0, sizeof(ref_in));
	for (op = 0; op < nops; op++) {
		/* phases: mostly inserts, mixed, mostly deletes, mixed */
		int phase = (op / (nkeys * 8)) % 4;
		unsigned int r = rng() % 100;
		int idx = (int)(rng() % (unsigned int)nkeys);
		int insert = phase == 0 ? r < 75 : phase == 2 ? r < 25 : r < 50;
		struct val *v;

		if (insert) {
			v = hmap_get(m, ref_key[idx], true);
			if (!ref_in[idx]) {
				if (v->key || v->n)
					bad++;	/* new entries are zeroed */
				ref_in[idx] = 1;
				count++;
			}
			v->key = ref_key[idx];
			v->n = ref_val[idx] = (uint64_t)idx << 32 | (uint32_t)op;
		} else if (r % 2) {
			hmap_del(m, ref_key[idx]);
			if (ref_in[idx]) {
				ref_in[idx] = 0;
				count--;
			}
		} else {
			v = hmap_get(m, ref_key[idx], false);
			if (ref_in[idx] ? !v || v->n != ref_val[idx] : v != NULL)
				bad++;
		}
		if (op % every == 0)
			bad += check_against_ref(m, count);
	}
	bad += check_against_ref(m, count);
	/* empty it completely through deletes */
	for (i = 0; i < nkeys; i++) {
		hmap_del(m, ref_key[i]);
		ref_in[i] = 0;
	}
	bad += check_against_ref(m, 0);
	hmap_free(m);
	return bad;
}

UNIT_TEST(random_against_reference)
{
	/* thousands of keys: growth and long runs */
	CHECK_INT(random_run(UNIVERSE, 600000, 9973, 20240601, false), 0);
}

/* 40 keys never grow the 64-slot table; half of them crowd its last slots. */
UNIT_TEST(random_small_table_wraps)
{
	CHECK_INT(random_run(40, 200000, 1, 7, true), 0);
	CHECK_INT(random_run(40, 200000, 1, 8, false), 0);
	CHECK_INT(random_run(100, 200000, 7, 9, true), 0);
}

/*
 * hmap.h forbids only inserting while iterating, so deleting the entry just
 * returned (dropping dead threads from a per-thread map) must not make the
 * iteration skip or repeat others.
 */
/* hmap.h forbids deleting while iterating: collect, then delete. */
UNIT_TEST(delete_collected_after_iterating)
{
	enum { N = 2000 };
	struct hmap *m = hmap_new(sizeof(struct val));
	static uint64_t keys[N];
	size_t pos = 0;
	uint64_t i, k;
	int n = 0;

	for (i = 0; i < N; i++)
		((struct val *)hmap_get(m, i, true))->key = i;
	while (hmap_next(m, &pos, &k) && n < N)
		keys[n++] = k;
	CHECK_INT(n, N);
	for (i = 0; i < (uint64_t)n; i++)
		hmap_del(m, keys[i]);
	CHECK_INT(hmap_count(m), 0);
	pos = 0;
	CHECK(hmap_next(m, &pos, &k) == NULL);
	hmap_free(m);
}

UNIT_MAIN()
