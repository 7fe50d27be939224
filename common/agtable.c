// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregate table behind tracetop (common/agtable.h).
 *
 * Rows.  A row is one allocation, made the first time its keys are seen:
 * its header, the key values (strings copied after the header, cut at
 * AGT_STR_MAX on a UTF-8 boundary), and its accumulators.  An index of
 * (hash, row) pairs, open addressing with linear probing, finds it again;
 * the hash of the keys is also the row's identity (agt_row_id()), so a
 * row dropped and made again keeps it.  agt_add() on an existing row
 * hashes the keys, compares them and adds: no allocation, no copy but a
 * string AGT_LAST input's.
 *
 * Inputs.  Value columns name sample slots; each distinct slot is one
 * "input" of the row, accumulated once however many columns show it
 * (LAT:avg and LAT:max share it).  Per input and per set -- the current
 * interval (CUR), the last closed one (LAST), all closed ones (CUM) -- a
 * row keeps the samples that had the input, their sum, min, max and last
 * value; the decaying set (DEC) keeps the same in doubles, halved at each
 * tick, and forgets an input whose decayed samples fall below 0.5.  A
 * log2 histogram per set is kept only for an input that a P50 or P99
 * column reads.  Hits (the samples' weights) are per row.  Sums wrap
 * past 64 bits rather than overflow.
 *
 * agt_tick() walks only the rows with something in CUR, LAST or DEC: an
 * idle row whose decay has faded costs nothing.  When the table holds
 * AGT_MAX_ROWS rows, a new row first drops the sixteenth of the rows
 * whose last sample is oldest (t->seq counts samples, so "oldest" is
 * exact), and the index is rebuilt.
 *
 * agt_set() rows (a script's arrays) keep the input as set in their CUM
 * set and show it in every mode; agt_tick() leaves them alone.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agtable.h"
#include "common/agtable_int.h"
#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"

/* ---- description ---- */

static bool bad_col(const struct agt_col *c)
{
	bool has_in = c->input >= 0 && c->input < AGT_MAX_SLOTS;

	if (!c->title || c->input >= AGT_MAX_SLOTS || c->input < -1)
		return true;
	if ((unsigned)c->fn > AGT_LAST || (unsigned)c->type > AGT_STR ||
	    (unsigned)c->unit > AGT_HEX)
		return true;
	if (c->type == AGT_STR && c->fn != AGT_KEY && c->fn != AGT_LAST)
		return true;
	if (c->fn != AGT_COUNT && c->fn != AGT_RATE && !has_in)
		return true;
	return false;
}

static void json_name(const struct agt_col *c, char *buf, size_t len)
{
	const char *s = c->name ? c->name : c->title;
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = c->name ? s[i] :
			 isalnum((unsigned char)s[i]) ?
			 (char)tolower((unsigned char)s[i]) : '_';
	buf[i] = '\0';
}

/**
 * agt_new() - a table of @ncols columns @cols (copied; their strings must
 * outlive the table)
 *
 * At least one key column, at most AGT_MAX_COLS columns.  NULL with errno
 * EINVAL for a bad description: a slot out of range, a function other than
 * AGT_COUNT/AGT_RATE without an input, a string input for a function that
 * takes numbers, or one slot read both as a string and as a number.
 * Free with agt_free().
 */
struct agtable *agt_new(const struct agt_col *cols, int ncols)
{
	struct agtable *t;
	int i, k;

	if (!cols || ncols < 1 || ncols > AGT_MAX_COLS)
		goto bad;
	t = xcalloc(1, sizeof(*t));
	t->ncols = ncols;
	for (i = 0; i < ncols; i++) {
		const struct agt_col *c = &cols[i];

		if (bad_col(c))
			goto bad_free;
		t->col[i] = *c;
		json_name(c, t->name[i], sizeof(t->name[i]));
		t->col_key[i] = t->col_in[i] = -1;
		if (c->fn == AGT_KEY) {
			t->col_key[i] = t->nkeys;
			t->key_col[t->nkeys++] = i;
			continue;
		}
		if (c->input < 0)
			continue;
		for (k = 0; k < t->nin && t->in_slot[k] != c->input; k++)
			;
		if (k == t->nin) {
			t->in_slot[k] = c->input;
			t->in_hist[k] = t->in_lstr[k] = -1;
			t->nin++;
		}
		t->col_in[i] = k;
	}
	if (!t->nkeys)
		goto bad_free;
	/* a string input is one every reader takes as a string */
	for (k = 0; k < t->nin; k++) {
		int nstr = 0, nnum = 0;
		bool pct = false;

		for (i = 0; i < ncols; i++) {
			if (t->col_in[i] != k)
				continue;
			if (t->col[i].type == AGT_STR)
				nstr++;
			else
				nnum++;
			pct |= t->col[i].fn == AGT_P50 || t->col[i].fn == AGT_P99;
		}
		if (nstr && nnum)
			goto bad_free;
		if (nstr)
			t->in_lstr[k] = t->nlstr++;
		if (pct)
			t->in_hist[k] = t->nhist++;
	}
	t->cap = 64;
	t->ix = xcalloc(t->cap, sizeof(*t->ix));
	t->ftextlen = (size_t)t->nkeys * (4 * AGT_STR_MAX + 32);
	t->ftext = xmalloc(t->ftextlen);
	return t;
bad_free:
	free(t);
bad:
	errno = EINVAL;
	return NULL;
}

static void free_rows(struct agtable *t)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		free(t->all[i]);
	t->nrows = 0;
	t->last = NULL;
	memset(t->ix, 0, t->cap * sizeof(*t->ix));
}

/** agt_free() - free @t and its rows; NULL is a no-op */
void agt_free(struct agtable *t)
{
	if (!t)
		return;
	free_rows(t);
	free(t->ix);
	free(t->all);
	free(t->out);
	free(t->sort);
	free(t->ftext);
	free(t);
}

/** agt_ncols() - the number of columns of @t */
int agt_ncols(const struct agtable *t)
{
	return t->ncols;
}

/** agt_col() - column @col of @t (its description, as given) */
const struct agt_col *agt_col(const struct agtable *t, int col)
{
	return col >= 0 && col < t->ncols ? &t->col[col] : NULL;
}

/** agt_col_find() - the column titled @title (case-insensitive), or -1 */
int agt_col_find(const struct agtable *t, const char *title)
{
	int i;

	for (i = 0; title && i < t->ncols; i++)
		if (!strcasecmp(t->col[i].title, title))
			return i;
	return -1;
}

/* ---- finding rows ---- */

/* The length a string key or value keeps: at most AGT_STR_MAX bytes, cut
 * before a UTF-8 sequence that would not fit whole. */
static size_t cut_len(const char *s)
{
	size_t n = strnlen(s, AGT_STR_MAX + 1);

	if (n <= AGT_STR_MAX)
		return n;
	n = AGT_STR_MAX;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
	uint64_t w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = mix(h, w);
	}
	w = 0;
	memcpy(&w, s, n);
	return mix(h, w ^ ((uint64_t)n << 56));
}

/* The sample's keys: hash and string lengths. */
static uint64_t sample_keys(const struct agtable *t, const struct agt_sample *s,
			    int64_t *num, const char **str, uint32_t *len)
{
	uint64_t h = 0x243f6a8885a308d3ULL;
	int k;

	for (k = 0; k < t->nkeys; k++) {
		const struct agt_col *c = &t->col[t->key_col[k]];
		bool have = s->have >> c->input & 1;

		if (c->type == AGT_STR) {
			str[k] = have && s->str[c->input] ? s->str[c->input] : "";
			len[k] = (uint32_t)cut_len(str[k]);
			h = hash_bytes(h, str[k], len[k]);
		} else {
			num[k] = have ? s->num[c->input] : 0;
			h = mix(h, (uint64_t)num[k]);
		}
	}
	return h;
}

static bool same_keys(const struct agtable *t, const struct agt_row *r,
		      const int64_t *num, const char *const *str,
		      const uint32_t *len)
{
	int k;

	for (k = 0; k < t->nkeys; k++) {
		if (t->col[t->key_col[k]].type == AGT_STR) {
			if (r->key[k].len != len[k] ||
			    memcmp(r->key[k].str, str[k], len[k]))
				return false;
		} else if (r->key[k].num != num[k]) {
			return false;
		}
	}
	return true;
}

static void ix_put(struct agtable *t, struct agt_row *r)
{
	size_t i = r->hash & (t->cap - 1);

	while (t->ix[i].row)
		i = (i + 1) & (t->cap - 1);
	t->ix[i].hash = r->hash;
	t->ix[i].row = r;
}

static void ix_rebuild(struct agtable *t, size_t cap)
{
	size_t i;

	if (cap != t->cap) {
		free(t->ix);
		t->cap = cap;
		t->ix = xcalloc(cap, sizeof(*t->ix));
	} else {
		memset(t->ix, 0, cap * sizeof(*t->ix));
	}
	for (i = 0; i < t->nrows; i++)
		ix_put(t, t->all[i]);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Drop the sixteenth of the rows idle longest. */
static void evict(struct agtable *t)
{
	size_t i, o, drop = t->nrows / 16 ? t->nrows / 16 : 1;
	uint64_t *seen = xmalloc(t->nrows * sizeof(*seen)), limit;

	for (i = 0; i < t->nrows; i++)
		seen[i] = t->all[i]->seen;
	qsort(seen, t->nrows, sizeof(*seen), cmp_u64);
	limit = seen[drop - 1];
	free(seen);
	for (i = o = 0; i < t->nrows; i++) {
		if (t->all[i]->seen <= limit)
			free(t->all[i]);
		else
			t->all[o++] = t->all[i];
	}
	t->nrows = o;
	t->last = NULL;
	ix_rebuild(t, t->cap);
}

static struct agt_row *new_row(struct agtable *t, uint64_t h,
			       const int64_t *num, const char *const *str,
			       const uint32_t *len)
{
	size_t keys = (size_t)t->nkeys * sizeof(struct key);
	size_t in = (size_t)NSETS * t->nin * sizeof(struct acc_in);
	size_t din = (size_t)t->nin * sizeof(struct dacc_in);
	size_t hist = (size_t)(NSETS + 1) * t->nhist * sizeof(struct hist_log2);
	size_t lstr = (size_t)t->nlstr * (AGT_STR_MAX + 1);
	size_t strs = 0, off;
	struct agt_row *r;
	char *p;
	int k;

	for (k = 0; k < t->nkeys; k++)
		if (t->col[t->key_col[k]].type == AGT_STR)
			strs += len[k] + 1;
	if (t->nrows >= AGT_MAX_ROWS)
		evict(t);
	if ((t->nrows + 1) * 10 > t->cap * 7)
		ix_rebuild(t, t->cap * 2);
	if (t->nrows == t->allcap) {
		t->allcap = t->allcap ? 2 * t->allcap : 64;
		t->all = xrealloc(t->all, t->allcap * sizeof(*t->all));
	}
	/* the header and keys, then the 8-byte aligned accumulators */
	off = (sizeof(*r) + keys + 15) & ~(size_t)15;
	p = xcalloc(1, off + in + din + hist + lstr + strs);
	r = (struct agt_row *)p;
	r->hash = h;
	r->in = (struct acc_in *)(p + off);
	r->din = (struct dacc_in *)(p + off + in);
	r->h = (struct hist_log2 *)(p + off + in + din);
	r->lstr = p + off + in + din + hist;
	p = r->lstr + lstr;
	for (k = 0; k < t->nkeys; k++) {
		if (t->col[t->key_col[k]].type == AGT_STR) {
			memcpy(p, str[k], len[k]);
			p[len[k]] = '\0';
			r->key[k].str = p;
			r->key[k].len = len[k];
			p += len[k] + 1;
		} else {
			r->key[k].num = num[k];
		}
	}
	t->all[t->nrows++] = r;
	ix_put(t, r);
	return r;
}

/* @s's keys are @r's: compared as they stand, without hashing (strings
 * kept whole only: a cut one goes the long way). */
static bool is_row_of(const struct agtable *t, const struct agt_row *r,
		      const struct agt_sample *s)
{
	int k;

	for (k = 0; k < t->nkeys; k++) {
		const struct agt_col *c = &t->col[t->key_col[k]];
		bool have = s->have >> c->input & 1;

		if (c->type == AGT_STR) {
			const char *v = have && s->str[c->input] ? s->str[c->input] : "";
			const char *a = r->key[k].str;

			/* inline: keys are short (a comm), a memcmp() call
			 * cost more than the bytes on every record */
			if (r->key[k].len >= AGT_STR_MAX)
				return false;
			while (*a && *a == *v)
				a++, v++;
			if (*a != *v)
				return false;
		} else if (r->key[k].num != (have ? s->num[c->input] : 0)) {
			return false;
		}
	}
	return true;
}

static struct agt_row *probe_row(struct agtable *t, const struct agt_sample *s)
{
	int64_t num[AGT_MAX_COLS];
	const char *str[AGT_MAX_COLS];
	uint32_t len[AGT_MAX_COLS];
	uint64_t h = sample_keys(t, s, num, str, len);
	size_t i = h & (t->cap - 1);

	for (; t->ix[i].row; i = (i + 1) & (t->cap - 1))
		if (t->ix[i].hash == h && same_keys(t, t->ix[i].row, num, str, len))
			return t->ix[i].row;
	return new_row(t, h, num, str, len);
}

static struct agt_row *find_row(struct agtable *t, const struct agt_sample *s)
{
	struct agt_row *r;

	if (t->last && is_row_of(t, t->last, s))
		return t->last;
	r = probe_row(t, s);
	t->last = r;
	return r;
}

/* ---- adding ---- */

static void copy_str(char *dst, const char *s)
{
	size_t n;

	s = s ? s : "";
	n = cut_len(s);
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/**
 * agt_add() - add sample @s to the current interval of its row
 *
 * The row is found by the key columns' inputs (made when new; at
 * AGT_MAX_ROWS rows, the rows idle longest are dropped first).  Hits grow
 * by the sample's weight (0 counts as 1); every input the sample has is
 * counted once in the row's samples, sum, min, max and last value, and in
 * its histogram where a P50/P99 column reads it.
 */
void agt_add(struct agtable *t, const struct agt_sample *s)
{
	struct agt_row *r = find_row(t, s);
	uint64_t w = s->weight ? s->weight : 1;
	int k;

	r->seen = ++t->seq;
	r->busy = true;
	r->hits[CUR] += w;
	t->hits[CUR] += w;
	for (k = 0; k < t->nin; k++) {
		int slot = t->in_slot[k];
		struct acc_in *a = &r->in[k];
		int64_t v;

		if (!(s->have >> slot & 1))
			continue;
		if (t->in_lstr[k] >= 0) {
			copy_str(r->lstr + t->in_lstr[k] * (AGT_STR_MAX + 1),
				 s->str[slot]);
			a->n++;
			continue;
		}
		v = s->num[slot];
		if (!a->n || v < a->min)
			a->min = v;
		if (!a->n || v > a->max)
			a->max = v;
		a->n++;
		a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)v);
		a->last = v;
		if (t->in_hist[k] >= 0)
			hist_log2_add(&r->h[t->in_hist[k]], v < 0 ? 0 : (uint64_t)v);
	}
}

/**
 * agt_set() - the row of @s's keys takes @s's inputs as its values
 *
 * For rows aggregated elsewhere (a script's arrays): every value column
 * shows its input as set (AGT_COUNT and AGT_RATE without an input show
 * the weight), in every mode, and agt_tick() leaves the row as it is.  An
 * input @s lacks shows as no value.
 */
void agt_set(struct agtable *t, const struct agt_sample *s)
{
	struct agt_row *r = find_row(t, s);
	struct acc_in *a = &r->in[CUM * t->nin];
	int k;

	r->set = true;
	r->seen = ++t->seq;
	r->hits[CUM] = s->weight ? s->weight : 1;
	for (k = 0; k < t->nin; k++) {
		int slot = t->in_slot[k];

		memset(&a[k], 0, sizeof(a[k]));
		if (!(s->have >> slot & 1))
			continue;
		a[k].n = 1;
		if (t->in_lstr[k] >= 0)
			copy_str(r->lstr + t->in_lstr[k] * (AGT_STR_MAX + 1),
				 s->str[slot]);
		else
			a[k].sum = a[k].min = a[k].max = a[k].last = s->num[slot];
	}
}

/* ---- ticking ---- */

static void merge(struct acc_in *to, const struct acc_in *a)
{
	if (!a->n)
		return;
	if (!to->n || a->min < to->min)
		to->min = a->min;
	if (!to->n || a->max > to->max)
		to->max = a->max;
	to->n += a->n;
	to->sum = (int64_t)((uint64_t)to->sum + (uint64_t)a->sum);
	to->last = a->last;
}

static void hist_merge(struct hist_log2 *to, const struct hist_log2 *a)
{
	int i;

	if (!a->count)
		return;
	for (i = 0; i < HIST_LOG2_SLOTS; i++)
		to->slot[i] += a->slot[i];
	if (!to->count || a->min < to->min)
		to->min = a->min;
	if (!to->count || a->max > to->max)
		to->max = a->max;
	to->count += a->count;
	to->sum += a->sum;
}

/* @d halved (rounding up, so a slot fades with its input, not before:
 * decay() drops both when the input's decayed samples are below 0.5) and
 * @a added. */
static void hist_decay(struct hist_log2 *d, const struct hist_log2 *a)
{
	uint64_t count = 0;
	int i;

	for (i = 0; i < HIST_LOG2_SLOTS; i++) {
		d->slot[i] = (d->slot[i] + 1) / 2 + a->slot[i];
		count += d->slot[i];
	}
	if (a->count && (!d->count || a->min < d->min))
		d->min = a->min;
	if (a->count && (!d->count || a->max > d->max))
		d->max = a->max;
	d->count = count;
	d->sum = d->sum / 2 + a->sum;
}

static void decay(struct agtable *t, struct agt_row *r)
{
	const struct acc_in *c = &r->in[CUR * t->nin];
	struct hist_log2 *dh = &r->h[NSETS * t->nhist];
	int k;

	r->dhits = r->dhits / 2 + (double)r->hits[CUR];
	if (r->dhits < 0.5) {	/* faded: forget it all */
		r->dhits = 0;
		memset(r->din, 0, (size_t)t->nin * sizeof(*r->din));
		memset(dh, 0, (size_t)t->nhist * sizeof(*dh));
		r->decaying = false;
		return;
	}
	r->decaying = true;
	for (k = 0; k < t->nin; k++) {
		struct dacc_in *d = &r->din[k];
		int hk = t->in_hist[k];

		if (c[k].n) {
			if (d->n == 0 || c[k].min < d->min)
				d->min = c[k].min;
			if (d->n == 0 || c[k].max > d->max)
				d->max = c[k].max;
			d->last = c[k].last;
		}
		d->n = d->n / 2 + (double)c[k].n;
		d->sum = d->sum / 2 + (double)c[k].sum;
		if (d->n < 0.5) {
			memset(d, 0, sizeof(*d));
			if (hk >= 0)
				memset(&dh[hk], 0, sizeof(dh[hk]));
		} else if (hk >= 0) {
			hist_decay(&dh[hk], &r->h[CUR * t->nhist + hk]);
		}
	}
}

static void tick_row(struct agtable *t, struct agt_row *r)
{
	struct acc_in *cur = &r->in[CUR * t->nin], *last = &r->in[LAST * t->nin];
	struct acc_in *cum = &r->in[CUM * t->nin];
	struct hist_log2 *h = r->h;
	size_t nh = (size_t)t->nhist;
	int k;

	decay(t, r);
	for (k = 0; k < t->nin; k++)
		merge(&cum[k], &cur[k]);
	for (k = 0; k < t->nhist; k++)
		hist_merge(&h[CUM * nh + k], &h[CUR * nh + k]);
	r->hits[CUM] += r->hits[CUR];
	r->hits[LAST] = r->hits[CUR];
	r->hits[CUR] = 0;
	memcpy(last, cur, (size_t)t->nin * sizeof(*cur));
	memset(cur, 0, (size_t)t->nin * sizeof(*cur));
	memcpy(&h[LAST * nh], &h[CUR * nh], nh * sizeof(*h));
	memset(&h[CUR * nh], 0, nh * sizeof(*h));
	r->busy = false;
}

/**
 * agt_tick() - close the interval that lasted @elapsed_ns
 *
 * It becomes AGT_INTERVAL's data, is added to the cumulative totals, the
 * decaying totals are halved and it is added to them, and a new interval
 * starts.  agt_set() rows are left as they are.
 */
void agt_tick(struct agtable *t, uint64_t elapsed_ns)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		struct agt_row *r = t->all[i];

		if (!r->set && (r->busy || r->hits[LAST] || r->decaying))
			tick_row(t, r);
	}
	t->hits[CUM] += t->hits[CUR];
	t->hits[LAST] = t->hits[CUR];
	t->dhits = t->dhits / 2 + (double)t->hits[CUR];
	t->hits[CUR] = 0;
	t->ns_last = elapsed_ns;
	t->ns_cum += elapsed_ns;
	t->ns_dec = t->ns_dec / 2 + (double)elapsed_ns;
}

/** agt_reset() - forget every row, the totals and the time ticked */
void agt_reset(struct agtable *t)
{
	free_rows(t);
	t->seq = 0;
	memset(t->hits, 0, sizeof(t->hits));
	t->dhits = 0;
	t->ns_last = t->ns_cum = 0;
	t->ns_dec = 0;
}

/** agt_size() - the rows @t holds, shown or not */
size_t agt_size(const struct agtable *t)
{
	return t->nrows;
}

/**
 * agt_hits() - hits in the last closed interval (AGT_INTERVAL), in all
 * closed intervals (AGT_CUMULATIVE) or decayed (AGT_DECAY, rounded); rows
 * dropped at the cap still count, agt_set() rows do not
 */
uint64_t agt_hits(const struct agtable *t, enum agt_mode mode)
{
	switch (mode) {
	case AGT_INTERVAL:
		return t->hits[LAST];
	case AGT_CUMULATIVE:
		return t->hits[CUM];
	default:
		return (uint64_t)agt_round(t->dhits);
	}
}

/* ---- values ---- */

/* 2^@i, without libm */
static double pow2(int i)
{
	return i < 64 ? (double)(1ULL << i) : 18446744073709551616.0;
}

static struct agt_val vint(int64_t i)
{
	return (struct agt_val){ true, true, i, (double)i };
}

static struct agt_val vdbl(double d)
{
	struct agt_val v = { true, false, 0, d };

	if (agt_whole(d)) {
		v.isint = true;
		v.i = (int64_t)d;
	}
	return v;
}

static struct agt_val vfrac(double d)	/* an average or a rate */
{
	return (struct agt_val){ true, false, 0, d };
}

static const struct hist_log2 *row_hist(const struct agtable *t,
					const struct agt_row *r, int k,
					enum agt_mode mode)
{
	int set = r->set ? CUM : mode == AGT_INTERVAL ? LAST :
		  mode == AGT_CUMULATIVE ? CUM : NSETS;

	return &r->h[set * t->nhist + t->in_hist[k]];
}

/* The @p quantile of @h: linear inside its log2 bucket, clamped to
 * [min, max]. */
static bool percentile(const struct hist_log2 *h, double p, int64_t *out)
{
	uint64_t total = 0, c = 0;
	double rank, lo, hi, v;
	int i;

	for (i = 0; i < HIST_LOG2_SLOTS; i++)
		total += h->slot[i];
	if (!total)
		return false;
	rank = p * (double)total;
	for (i = 0; i < HIST_LOG2_SLOTS - 1; i++) {
		if (h->slot[i] && (double)(c + h->slot[i]) >= rank)
			break;
		c += h->slot[i];
	}
	lo = i ? pow2(i - 1) : 0;
	hi = i ? pow2(i) : 0;
	v = lo + (hi - lo) * (rank - (double)c) / (double)h->slot[i];
	if (v < (double)h->min)
		v = (double)h->min;
	if (v > (double)h->max)
		v = (double)h->max;
	*out = agt_round(v);
	return true;
}

static double secs(const struct agtable *t, enum agt_mode mode)
{
	return mode == AGT_INTERVAL ? (double)t->ns_last / 1e9 :
	       mode == AGT_CUMULATIVE ? (double)t->ns_cum / 1e9 : t->ns_dec / 1e9;
}

static struct agt_val set_value(const struct agtable *t, const struct agt_row *r,
			    int col)
{
	int k = t->col_in[col];
	const struct acc_in *a;

	if (k < 0)
		return vint((int64_t)r->hits[CUM]);
	a = &r->in[CUM * t->nin + k];
	if (!a->n || t->in_lstr[k] >= 0)
		return (struct agt_val){ 0 };
	return vint(a->last);
}

static struct agt_val dec_value(const struct agtable *t, const struct agt_row *r,
			    int col)
{
	const struct agt_col *c = &t->col[col];
	int k = t->col_in[col];
	const struct dacc_in *d = k >= 0 ? &r->din[k] : NULL;
	double s = t->ns_dec / 1e9;
	int64_t p;

	if (k < 0) {
		if (c->fn == AGT_RATE)
			return s > 0 ? vfrac(r->dhits / s) : (struct agt_val){ 0 };
		return vdbl(r->dhits);
	}
	if (c->fn == AGT_COUNT)
		return vdbl(d->n);
	if (!d->n || t->in_lstr[k] >= 0)
		return (struct agt_val){ 0 };
	switch (c->fn) {
	case AGT_SUM:
		return vdbl(d->sum);
	case AGT_MIN:
		return vint(d->min);
	case AGT_MAX:
		return vint(d->max);
	case AGT_AVG:
		return vfrac(d->sum / d->n);
	case AGT_RATE:
		return s > 0 ? vfrac(d->sum / s) : (struct agt_val){ 0 };
	case AGT_P50:
	case AGT_P99:
		if (!percentile(row_hist(t, r, k, AGT_DECAY),
				c->fn == AGT_P50 ? 0.5 : 0.99, &p))
			return (struct agt_val){ 0 };
		return vint(p);
	case AGT_LAST:
		return vint(d->last);
	default:
		return (struct agt_val){ 0 };
	}
}

struct agt_val agt_value_of(const struct agtable *t, const struct agt_row *r,
			    int col, enum agt_mode mode)
{
	const struct agt_col *c = &t->col[col];
	int k = t->col_in[col], set;
	const struct acc_in *a;
	double s;
	int64_t p;

	if (c->fn == AGT_KEY)
		return c->type == AGT_STR ? (struct agt_val){ 0 } :
		       vint(r->key[t->col_key[col]].num);
	if (r->set)
		return set_value(t, r, col);
	if (mode == AGT_DECAY)
		return dec_value(t, r, col);
	set = mode == AGT_INTERVAL ? LAST : CUM;
	s = secs(t, mode);
	if (k < 0) {
		if (c->fn == AGT_RATE)
			return s > 0 ? vfrac((double)r->hits[set] / s) :
			       (struct agt_val){ 0 };
		return vint((int64_t)r->hits[set]);
	}
	a = &r->in[set * t->nin + k];
	if (c->fn == AGT_COUNT)
		return vint((int64_t)a->n);
	if (!a->n || t->in_lstr[k] >= 0)
		return (struct agt_val){ 0 };
	switch (c->fn) {
	case AGT_SUM:
		return vint(a->sum);
	case AGT_MIN:
		return vint(a->min);
	case AGT_MAX:
		return vint(a->max);
	case AGT_AVG:
		return vfrac((double)a->sum / (double)a->n);
	case AGT_RATE:
		return s > 0 ? vfrac((double)a->sum / s) : (struct agt_val){ 0 };
	case AGT_P50:
	case AGT_P99:
		if (!percentile(row_hist(t, r, k, mode),
				c->fn == AGT_P50 ? 0.5 : 0.99, &p))
			return (struct agt_val){ 0 };
		return vint(p);
	case AGT_LAST:
		return vint(a->last);
	default:
		return (struct agt_val){ 0 };
	}
}

/**
 * agt_value() - @col's number for row @r in @mode into *@v
 *
 * Key columns give their number (false for a string key).  False when the
 * column has no value: no sample of the row had its input in that set, a
 * string column, or a rate before the first tick.
 */
bool agt_value(const struct agtable *t, const struct agt_row *r, int col,
	       enum agt_mode mode, double *v)
{
	struct agt_val x;

	if (col < 0 || col >= t->ncols)
		return false;
	x = agt_value_of(t, r, col, mode);
	if (x.has)
		*v = x.d;
	return x.has;
}

/** agt_hist() - the histogram of @col's input in @mode, or NULL when the
 * input keeps none (a column without a P50/P99 sibling) */
const struct hist_log2 *agt_hist(const struct agtable *t,
				 const struct agt_row *r, int col,
				 enum agt_mode mode)
{
	int k = col >= 0 && col < t->ncols ? t->col_in[col] : -1;

	if (k < 0 || t->in_hist[k] < 0)
		return NULL;
	return row_hist(t, r, k, mode);
}

/** agt_int() - a key or AGT_LAST column's number (for AGT_LAST the latest
 * value of any interval, the current one included); 0 for another column */
int64_t agt_int(const struct agtable *t, const struct agt_row *r, int col)
{
	const struct agt_col *c = agt_col(t, col);
	const struct acc_in *cur, *cum;

	if (!c || c->type != AGT_INT)
		return 0;
	if (c->fn == AGT_KEY)
		return r->key[t->col_key[col]].num;
	if (c->fn != AGT_LAST)
		return 0;
	cur = &r->in[CUR * t->nin + t->col_in[col]];
	cum = &r->in[CUM * t->nin + t->col_in[col]];
	return cur->n ? cur->last : cum->n ? cum->last : 0;
}

/** agt_str() - a string key's or string AGT_LAST column's text (the
 * latest value, cut at AGT_STR_MAX); "" for another column */
const char *agt_str(const struct agtable *t, const struct agt_row *r, int col)
{
	const struct agt_col *c = agt_col(t, col);
	int k;

	if (!c || c->type != AGT_STR)
		return "";
	if (c->fn == AGT_KEY)
		return r->key[t->col_key[col]].str;
	k = t->col_in[col];
	return r->lstr + t->in_lstr[k] * (AGT_STR_MAX + 1);
}

bool agt_str_has(const struct agtable *t, const struct agt_row *r, int col,
		    enum agt_mode mode)
{
	int k = t->col_in[col];

	if (r->set)
		return r->in[CUM * t->nin + k].n > 0;
	if (mode == AGT_DECAY)
		return r->din[k].n > 0;
	return r->in[(mode == AGT_INTERVAL ? LAST : CUM) * t->nin + k].n > 0;
}

/** agt_row_id() - the identity of @r's keys (a hash: the same keys give
 * the same identity, also after the row was dropped and made again) */
uint64_t agt_row_id(const struct agt_row *r)
{
	return r->hash;
}

/** agt_row_find() - the row whose identity is @id, or NULL */
struct agt_row *agt_row_find(struct agtable *t, uint64_t id)
{
	size_t i = id & (t->cap - 1);

	for (; t->ix[i].row; i = (i + 1) & (t->cap - 1))
		if (t->ix[i].hash == id)
			return t->ix[i].row;
	return NULL;
}
