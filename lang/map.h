/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_MAP_H
#define TAPKIT_LANG_MAP_H

/*
 * SystemTap associative arrays: 1 to 9 index columns (long or string, fixed
 * per array), values long, string or statistic; a bounded number of
 * entries (MAXMAPENTRIES or `global a[N]`), optionally wrapping
 * (`global a%`, `global a%[N]`); foreach in stap's orders, safe against the
 * loop body changing the array.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/stat.h"

#define MAP_MAX_KEYS		9
#define MAP_MAXMAPENTRIES	2048	/* stap's default MAXMAPENTRIES */

/*
 * Run-time error texts, verbatim from stap's translate.cxx, for the VM to
 * raise when an insertion fails with -E2BIG:
 *	"Array overflow, check MAXMAPENTRIES"		(no size declared)
 *	"Array overflow, check size limit (100)"	(`global a[100]`)
 */
#define MAP_ERR_OVERFLOW	"Array overflow, check MAXMAPENTRIES"
#define MAP_ERR_OVERFLOW_SIZE	"Array overflow, check size limit (%zu)"

enum map_type {
	MAP_LONG = 1,
	MAP_STRING = 2,
	MAP_STAT = 3,		/* values only */
};

/* One index column: .l for a long column, .s for a string one (NULL = ""). */
struct map_key {
	int64_t l;
	const char *s;
};

/* Bytes held by all the arrays sharing it; inserting past @limit fails with
 * -ENOMEM (0 = no limit).  Counts entries, string values and hash tables. */
struct map_mem {
	size_t used;
	size_t limit;
};

struct map_cfg {
	int nkeys;			/* 1..MAP_MAX_KEYS */
	enum map_type keys[MAP_MAX_KEYS];
	enum map_type value;
	size_t max_entries;		/* 0: MAP_MAXMAPENTRIES */
	bool wrap;			/* `global a%`: evict the oldest when full */
	size_t maxstrlen;		/* MAXSTRINGLEN incl. NUL; 0: 512 */
	const struct stat_cfg *stat;	/* MAP_STAT values: copied */
	struct map_mem *mem;		/* may be NULL */
};

struct map;
struct map_entry;

/**
 * map_new() - create an empty array
 * @cfg: its shape and limits
 *
 * Strings (keys and values) are copied and cut to maxstrlen - 1 bytes, as
 * stap's strlcpy into MAP_STRING_LENGTH does; two keys equal in their first
 * maxstrlen - 1 bytes are the same key.
 *
 * Return: the array (free with map_free()), or NULL with errno EINVAL for a
 * bad @cfg.
 */
struct map *map_new(const struct map_cfg *cfg);
/* Free the array and its entries.  End its iterators first. */
void map_free(struct map *m);

size_t map_count(const struct map *m);
/* The statistic description of a MAP_STAT array (->in_map set). */
const struct stat_cfg *map_stat_cfg(const struct map *m);
/* The limit this array was created with (for MAP_ERR_OVERFLOW_SIZE). */
size_t map_max_entries(const struct map *m);

/**
 * map_hash() - hash of a key tuple, for the *_h lookups
 * @m: the array
 * @k: m's nkeys columns
 *
 * Lets the VM hash once and use the value for `k in a` then `a[k]`.
 */
uint32_t map_hash(const struct map *m, const struct map_key *k);

/* The entry of @k (hash @hash from map_hash()), or NULL; never inserts. */
struct map_entry *map_find_h(struct map *m, const struct map_key *k,
			     uint32_t hash);
struct map_entry *map_find(struct map *m, const struct map_key *k);

/**
 * map_slot_h() - the entry of @k, inserted with a zero value when missing
 * @m: the array
 * @k: key columns
 * @hash: map_hash(m, k)
 * @out: the entry; valid until it is deleted
 *
 * One lookup for `a[k]++`, `a[k] += v`, `a[k] <<< v`: no allocation when the
 * key exists.  A new entry goes to the end of the array's order.
 *
 * Return: 0, -E2BIG when the array is full (MAP_ERR_OVERFLOW), -ENOMEM
 * when struct map_mem's limit would be passed.
 */
int map_slot_h(struct map *m, const struct map_key *k, uint32_t hash,
	       struct map_entry **out);
int map_slot(struct map *m, const struct map_key *k, struct map_entry **out);

/* `a[k]` for reading: 0, "" and NULL (an empty statistic) when missing. */
int64_t map_get_long(struct map *m, const struct map_key *k);
const char *map_get_str(struct map *m, const struct map_key *k);
const struct stat_agg *map_get_stat(struct map *m, const struct map_key *k);

/* `a[k] = v`; an empty string or 0 is stored (stap keeps the entry).
 * Return: 0, -E2BIG or -ENOMEM as map_slot_h() (for a new string entry the
 * room must hold its value too). */
int map_set_long(struct map *m, const struct map_key *k, int64_t v);
int map_set_str(struct map *m, const struct map_key *k, const char *s);
/* `a[k] += delta`; the new value in *@result if not NULL. */
int map_add_long(struct map *m, const struct map_key *k, int64_t delta,
		 int64_t *result);
/* `a[k] <<< v` */
int map_add_stat(struct map *m, const struct map_key *k, int64_t v);

/* `k in a` */
bool map_exists(struct map *m, const struct map_key *k);
/* `delete a[k]`; deleting a missing key is not an error.  Return: 1 if an
 * entry was deleted, else 0. */
int map_delete(struct map *m, const struct map_key *k);
/* Delete the entry an iterator or map_slot_h() gave (no-op if already). */
void map_delete_entry(struct map *m, struct map_entry *e);
/* `delete a` */
void map_clear(struct map *m);

/* ---- entries ----------------------------------------------------------- */

int64_t map_entry_long(const struct map_entry *e);
int64_t *map_entry_longp(struct map_entry *e);
const char *map_entry_str(const struct map_entry *e);
/* Set a string value (copied, cut to maxstrlen - 1); 0, or -ENOMEM past
 * struct map_mem's limit (the value is then unchanged). */
int map_entry_set_str(struct map *m, struct map_entry *e, const char *s);
struct stat_agg *map_entry_stat(struct map_entry *e);
/* Index column @col (0-based) of @e. */
int64_t map_entry_key_long(const struct map_entry *e, int col);
const char *map_entry_key_str(const struct map_entry *e, int col);
/* False once the entry was deleted (seen only through an iterator). */
bool map_entry_live(const struct map_entry *e);

/* ---- foreach ----------------------------------------------------------- */

/*
 * `foreach ([k1, k2-] in a limit N)`: column 2, dir -1.  `foreach (k in a+)`:
 * column 0 (the value), dir +1.  For statistic values column 0 sorts by
 * @agg: STAT_COUNT by default, `foreach (k in s @sum-)` by STAT_SUM (also
 * STAT_MIN, STAT_MAX, STAT_AVG).
 */
struct map_sort {
	int dir;		/* 0 unsorted, +1 ascending ('+'), -1 descending */
	int column;		/* 0 value, 1..nkeys index column (1-based) */
	enum stat_op agg;	/* for statistic values */
	bool has_limit;
	int64_t limit;		/* at most this many entries; <= 0: none */
};

struct map_iter {
	struct map *map;
	struct map_entry **snap;
	size_t n, pos;
};

/**
 * map_iter_start() - begin a foreach
 * @it: iterator to fill; end it with map_iter_end()
 * @m: the array
 * @sort: order and limit; NULL for unsorted
 *
 * Order, as stap's runtime has it: entries are kept in a list in insertion
 * order, and a sorted foreach sorts that list in place (_stp_map_sort, a
 * stable merge sort; with a limit of 1..30, _stp_map_sortn's partial
 * bubble/insertion sort), so ties keep their list order and a later
 * unsorted foreach sees the last sorted order.  Statistic arrays are
 * sorted in a copy (stap sorts a freshly aggregated map), ties in insertion
 * order.  Keys compare as numbers or by strcmp(); @avg as sum / count.
 *
 * The loop walks a snapshot of the entries taken here: entries inserted by
 * the body are not visited, entries deleted by it are skipped (they stay
 * allocated until map_iter_end()), values changed by it are seen.
 *
 * Return: 0, or -EINVAL for a bad @sort.
 */
int map_iter_start(struct map_iter *it, struct map *m,
		   const struct map_sort *sort);
/* The next live entry, or NULL at the end. */
struct map_entry *map_iter_next(struct map_iter *it);
void map_iter_end(struct map_iter *it);

#endif
