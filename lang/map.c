// SPDX-License-Identifier: GPL-2.0
/*
 * Associative arrays with SystemTap's observable behaviour (runtime/map.c,
 * map-gen.c, pmap-gen.c, translate.cxx's foreach).
 *
 * Storage.  Each entry is one allocation: a header, the index columns
 * (int64 or pointer + length), the statistic for MAP_STAT arrays, then the
 * string key bytes.  A string value is a separate buffer that is reused
 * when it fits.  Entries are found through an open-addressing table of
 * (hash, entry) slots with linear probing and backward-shift deletion, so
 * a hit on an existing key costs a hash, a probe or two and a compare, and
 * never allocates: `c[execname()]++` per event stays cheap.
 *
 * Order.  stap links every node of a map on a list in insertion order and
 * foreach walks that list; a sorted foreach first sorts the list in place.
 * We keep the same list (struct map_link) and sort it the same way, so the
 * order of ties and of later unsorted loops matches stap.  stap iterates
 * statistic arrays through an aggregate rebuilt on each read in per-CPU hash
 * order, which cannot be reproduced; we use insertion order there and sort
 * a copy, so the list of a statistic array never changes.
 *
 * Iteration safety.  stap rejects at compile time a foreach whose body
 * modifies the array it walks; the VM may rely on that, but this library
 * does not need it: map_iter_start() takes a snapshot of entry pointers and
 * holds a reference on each.  Deleting a referenced entry unlinks it from
 * the table and list (so counts, lookups and capacity see it gone) and
 * marks it dead; the last map_iter_end() reference frees it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/fmt.h"
#include "lang/map.h"

struct map_link {
	struct map_link *prev, *next;
};

struct map_col {
	union {
		int64_t l;
		char *s;
	};
	uint32_t len;		/* string columns: bytes kept */
};

struct map_entry {
	struct map_link link;	/* first: list order */
	uint32_t hash;
	uint32_t refs;		/* iterator snapshots holding it */
	bool dead;
	size_t size;		/* bytes of this allocation */
	union {
		int64_t l;
		struct {
			char *p;
			size_t len, cap;
		} s;
		struct stat_agg *st;	/* inside this allocation */
	} v;
	struct map_col col[];
};

struct slot {
	uint32_t hash;
	struct map_entry *e;	/* NULL: empty */
};

struct map {
	int nkeys;
	enum map_type keys[MAP_MAX_KEYS];
	enum map_type value;
	size_t max_entries;
	bool wrap;
	size_t maxstr;		/* maxstrlen - 1: bytes kept of a string */
	struct stat_cfg stat;
	struct map_mem *mem;
	size_t mem_own;		/* what this map added to *mem */

	struct map_link head;	/* list order */
	size_t count;
	struct slot *tab;
	size_t tabcap;		/* power of two */
	size_t stat_off;	/* offset of the statistic in an entry */
	size_t fixed;		/* entry bytes before string keys */
};

#define TAB_MIN 16

static struct map_entry *link_entry(struct map_link *l)
{
	return (struct map_entry *)l;	/* link is the first member */
}

static void list_del(struct map_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
}

static void list_add_tail(struct map *m, struct map_link *l)
{
	l->prev = m->head.prev;
	l->next = &m->head;
	m->head.prev->next = l;
	m->head.prev = l;
}

static void mem_add(struct map *m, size_t n)
{
	m->mem_own += n;
	if (m->mem)
		m->mem->used += n;
}

static void mem_sub(struct map *m, size_t n)
{
	m->mem_own -= n;
	if (m->mem)
		m->mem->used -= n;
}

static bool mem_room(const struct map *m, size_t n)
{
	return !m->mem || !m->mem->limit || m->mem->used + n <= m->mem->limit;
}

/* ---- hashing ----------------------------------------------------------- */

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* Eight bytes per step: a string key is hashed on every event that uses it,
 * and byte-wise FNV-1a was a tenth of a raw_syscalls script's time. */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9fb21c651e98df25ULL;
		h ^= h >> 29;
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0x9fb21c651e98df25ULL;
		h ^= h >> 29;
	}
	return mix64(h);
}

static size_t key_len(const struct map *m, const char *s)
{
	return s ? strnlen(s, m->maxstr) : 0;
}

uint32_t map_hash(const struct map *m, const struct map_key *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	int i;

	for (i = 0; i < m->nkeys; i++) {
		uint64_t c = m->keys[i] == MAP_STRING ?
			     hash_bytes(k[i].s, key_len(m, k[i].s)) :
			     mix64((uint64_t)k[i].l);

		h = (h ^ c) * 0x100000001b3ULL;
	}
	return (uint32_t)(mix64(h) >> 32);
}

static bool key_eq(const struct map *m, const struct map_entry *e,
		   const struct map_key *k)
{
	int i;

	for (i = 0; i < m->nkeys; i++) {
		const struct map_col *c = &e->col[i];

		if (m->keys[i] == MAP_STRING) {
			const char *s = k[i].s ? k[i].s : "";

			if (strncmp(c->s, s, c->len) ||
			    (c->len < m->maxstr && s[c->len]))
				return false;
		} else if (c->l != k[i].l) {
			return false;
		}
	}
	return true;
}

/* ---- table ------------------------------------------------------------- */

static size_t tab_find(const struct map *m, const struct map_key *k,
		       uint32_t hash)
{
	size_t mask = m->tabcap - 1, i = hash & mask;

	for (;; i = (i + 1) & mask) {
		const struct slot *s = &m->tab[i];

		if (!s->e)
			return i;
		if (s->hash == hash && key_eq(m, s->e, k))
			return i;
	}
}

static void tab_put(struct slot *tab, size_t cap, struct map_entry *e)
{
	size_t mask = cap - 1, i = e->hash & mask;

	while (tab[i].e)
		i = (i + 1) & mask;
	tab[i].hash = e->hash;
	tab[i].e = e;
}

static void tab_resize(struct map *m, size_t cap)
{
	struct slot *tab = xcalloc(cap, sizeof(*tab));
	size_t i;

	for (i = 0; i < m->tabcap; i++)
		if (m->tab[i].e)
			tab_put(tab, cap, m->tab[i].e);
	mem_sub(m, m->tabcap * sizeof(*tab));
	mem_add(m, cap * sizeof(*tab));
	free(m->tab);
	m->tab = tab;
	m->tabcap = cap;
}

/* Remove slot @i, shifting back later members of its probe run. */
static void tab_remove(struct map *m, size_t i)
{
	size_t mask = m->tabcap - 1, j = i, home;

	for (;;) {
		m->tab[i].e = NULL;
		for (;;) {
			j = (j + 1) & mask;
			if (!m->tab[j].e)
				return;
			home = m->tab[j].hash & mask;
			/* stays if its home lies cyclically in (i, j] */
			if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
				continue;
			break;
		}
		m->tab[i] = m->tab[j];
		i = j;
	}
}

static size_t tab_slot_of(const struct map *m, const struct map_entry *e)
{
	size_t mask = m->tabcap - 1, i = e->hash & mask;

	while (m->tab[i].e != e)
		i = (i + 1) & mask;
	return i;
}

/* ---- entries ----------------------------------------------------------- */

static void entry_free(struct map *m, struct map_entry *e)
{
	if (m->value == MAP_STRING && e->v.s.p) {
		mem_sub(m, e->v.s.cap);
		free(e->v.s.p);
	}
	mem_sub(m, e->size);
	free(e);
}

/* Take @e out of the table and list; free it unless an iterator holds it. */
static void entry_unlink(struct map *m, struct map_entry *e)
{
	tab_remove(m, tab_slot_of(m, e));
	list_del(&e->link);
	m->count--;
	if (e->refs)
		e->dead = true;
	else
		entry_free(m, e);
}

static struct map_entry *entry_new(struct map *m, const struct map_key *k,
				   uint32_t hash, size_t size)
{
	struct map_entry *e = xcalloc(1, size);
	char *p = (char *)e + m->fixed;
	int i;

	e->hash = hash;
	e->size = size;
	if (m->value == MAP_STAT)
		e->v.st = (struct stat_agg *)(void *)((char *)e + m->stat_off);
	for (i = 0; i < m->nkeys; i++) {
		if (m->keys[i] == MAP_STRING) {
			size_t len = key_len(m, k[i].s);

			if (len)
				memcpy(p, k[i].s, len);
			p[len] = '\0';
			e->col[i].s = p;
			e->col[i].len = (uint32_t)len;
			p += len + 1;
		} else {
			e->col[i].l = k[i].l;
		}
	}
	mem_add(m, size);
	return e;
}

static size_t entry_size(const struct map *m, const struct map_key *k)
{
	size_t size = m->fixed;
	int i;

	for (i = 0; i < m->nkeys; i++)
		if (m->keys[i] == MAP_STRING)
			size += key_len(m, k[i].s) + 1;
	return size;
}

/* ---- the array ----------------------------------------------------------- */

struct map *map_new(const struct map_cfg *cfg)
{
	struct map *m;
	int i;

	if (cfg->nkeys < 1 || cfg->nkeys > MAP_MAX_KEYS ||
	    (cfg->value != MAP_LONG && cfg->value != MAP_STRING &&
	     cfg->value != MAP_STAT) ||
	    (cfg->value == MAP_STAT && !cfg->stat) ||
	    (cfg->maxstrlen && cfg->maxstrlen < 2) ||
	    cfg->max_entries > UINT32_MAX)
		goto inval;
	for (i = 0; i < cfg->nkeys; i++)
		if (cfg->keys[i] != MAP_LONG && cfg->keys[i] != MAP_STRING)
			goto inval;

	m = xcalloc(1, sizeof(*m));
	m->nkeys = cfg->nkeys;
	memcpy(m->keys, cfg->keys, sizeof(m->keys));
	m->value = cfg->value;
	m->max_entries = cfg->max_entries ? cfg->max_entries : MAP_MAXMAPENTRIES;
	m->wrap = cfg->wrap;
	m->maxstr = (cfg->maxstrlen ? cfg->maxstrlen : FMT_MAXSTRINGLEN) - 1;
	if (cfg->value == MAP_STAT) {
		m->stat = *cfg->stat;
		m->stat.in_map = true;
	}
	m->mem = cfg->mem;
	m->head.prev = m->head.next = &m->head;
	m->stat_off = sizeof(struct map_entry) +
		      (size_t)m->nkeys * sizeof(struct map_col);
	m->fixed = m->stat_off +
		   (m->value == MAP_STAT ? stat_size(&m->stat) : 0);
	m->tabcap = TAB_MIN;
	m->tab = xcalloc(m->tabcap, sizeof(*m->tab));
	mem_add(m, sizeof(*m) + m->tabcap * sizeof(*m->tab));
	return m;
inval:
	errno = EINVAL;
	return NULL;
}

void map_free(struct map *m)
{
	struct map_link *l, *next;

	if (!m)
		return;
	for (l = m->head.next; l != &m->head; l = next) {
		next = l->next;
		entry_free(m, link_entry(l));
	}
	free(m->tab);
	if (m->mem)
		m->mem->used -= m->mem_own;
	free(m);
}

size_t map_count(const struct map *m)
{
	return m->count;
}

const struct stat_cfg *map_stat_cfg(const struct map *m)
{
	return &m->stat;
}

size_t map_max_entries(const struct map *m)
{
	return m->max_entries;
}

struct map_entry *map_find_h(struct map *m, const struct map_key *k,
			     uint32_t hash)
{
	return m->tab[tab_find(m, k, hash)].e;
}

struct map_entry *map_find(struct map *m, const struct map_key *k)
{
	return map_find_h(m, k, map_hash(m, k));
}

/* Find or insert; a new entry needs @extra more bytes of room (its value). */
static int slot(struct map *m, const struct map_key *k, uint32_t hash,
		size_t extra, struct map_entry **out)
{
	size_t i = tab_find(m, k, hash), size, grow = 0;
	struct map_entry *e = m->tab[i].e;

	*out = e;
	if (e)
		return 0;

	if (m->count >= m->max_entries) {
		if (!m->wrap || m->count == 0)
			return -E2BIG;
		/* _new_map_create(): reuse the first node of the list */
		entry_unlink(m, link_entry(m->head.next));
		i = tab_find(m, k, hash);
	}
	size = entry_size(m, k);
	if ((m->count + 1) * 10 > m->tabcap * 7)
		grow = m->tabcap * sizeof(struct slot);
	if (!mem_room(m, size + grow + extra))
		return -ENOMEM;
	if (grow) {
		tab_resize(m, m->tabcap * 2);
		i = tab_find(m, k, hash);
	}

	e = entry_new(m, k, hash, size);
	m->tab[i].hash = hash;
	m->tab[i].e = e;
	list_add_tail(m, &e->link);
	m->count++;
	*out = e;
	return 0;
}

int map_slot_h(struct map *m, const struct map_key *k, uint32_t hash,
	       struct map_entry **out)
{
	return slot(m, k, hash, 0, out);
}

int map_slot(struct map *m, const struct map_key *k, struct map_entry **out)
{
	return map_slot_h(m, k, map_hash(m, k), out);
}

int64_t map_get_long(struct map *m, const struct map_key *k)
{
	struct map_entry *e = map_find(m, k);

	return e ? e->v.l : 0;
}

const char *map_get_str(struct map *m, const struct map_key *k)
{
	struct map_entry *e = map_find(m, k);

	return e ? map_entry_str(e) : "";
}

const struct stat_agg *map_get_stat(struct map *m, const struct map_key *k)
{
	struct map_entry *e = map_find(m, k);

	return e ? map_entry_stat(e) : NULL;
}

int map_set_long(struct map *m, const struct map_key *k, int64_t v)
{
	struct map_entry *e;
	int r = map_slot(m, k, &e);

	if (r)
		return r;
	e->v.l = v;
	return 0;
}

static size_t str_cap(size_t len)
{
	return len + 1 < 16 ? 16 : len + 1;
}

int map_set_str(struct map *m, const struct map_key *k, const char *s)
{
	struct map_entry *e;
	int r = slot(m, k, map_hash(m, k), str_cap(key_len(m, s)), &e);

	if (r)
		return r;
	return map_entry_set_str(m, e, s);
}

int map_add_long(struct map *m, const struct map_key *k, int64_t delta,
		 int64_t *result)
{
	struct map_entry *e;
	int r = map_slot(m, k, &e);

	if (r)
		return r;
	e->v.l = (int64_t)((uint64_t)e->v.l + (uint64_t)delta);
	if (result)
		*result = e->v.l;
	return 0;
}

int map_add_stat(struct map *m, const struct map_key *k, int64_t v)
{
	struct map_entry *e;
	int r;

	if (m->value != MAP_STAT)
		return -EINVAL;
	r = map_slot(m, k, &e);
	if (r)
		return r;
	stat_add(&m->stat, map_entry_stat(e), v);
	return 0;
}

bool map_exists(struct map *m, const struct map_key *k)
{
	return map_find(m, k) != NULL;
}

int map_delete(struct map *m, const struct map_key *k)
{
	struct map_entry *e = map_find(m, k);

	if (!e)
		return 0;
	entry_unlink(m, e);
	return 1;
}

void map_delete_entry(struct map *m, struct map_entry *e)
{
	if (!e->dead)
		entry_unlink(m, e);
}

void map_clear(struct map *m)
{
	struct map_link *l, *next;

	for (l = m->head.next; l != &m->head; l = next) {
		struct map_entry *e = link_entry(l);

		next = l->next;
		if (e->refs)
			e->dead = true;
		else
			entry_free(m, e);
	}
	m->head.prev = m->head.next = &m->head;
	m->count = 0;
	memset(m->tab, 0, m->tabcap * sizeof(*m->tab));
}

/* ---- entry access ------------------------------------------------------ */

int64_t map_entry_long(const struct map_entry *e)
{
	return e->v.l;
}

int64_t *map_entry_longp(struct map_entry *e)
{
	return &e->v.l;
}

const char *map_entry_str(const struct map_entry *e)
{
	return e->v.s.p ? e->v.s.p : "";
}

int map_entry_set_str(struct map *m, struct map_entry *e, const char *s)
{
	size_t len = key_len(m, s);

	if (len + 1 > e->v.s.cap) {
		size_t cap = str_cap(len);

		if (!mem_room(m, cap - e->v.s.cap))
			return -ENOMEM;
		mem_sub(m, e->v.s.cap);
		free(e->v.s.p);
		e->v.s.p = xmalloc(cap);
		e->v.s.cap = cap;
		mem_add(m, cap);
	}
	if (len)
		memcpy(e->v.s.p, s, len);
	e->v.s.p[len] = '\0';
	e->v.s.len = len;
	return 0;
}

struct stat_agg *map_entry_stat(struct map_entry *e)
{
	return e->v.st;
}

int64_t map_entry_key_long(const struct map_entry *e, int col)
{
	return e->col[col].l;
}

const char *map_entry_key_str(const struct map_entry *e, int col)
{
	return e->col[col].s;
}

bool map_entry_live(const struct map_entry *e)
{
	return !e->dead;
}

/* ---- sorting ----------------------------------------------------------- */

struct sorter {
	const struct map *m;
	int column;
	int dir;		/* runtime sense: -1 low-to-high, +1 high-to-low */
	enum stat_op agg;
};

static int64_t stat_key(const struct sorter *so, const struct map_entry *e)
{
	const struct stat_agg *s = e->v.st;

	switch (so->agg) {
	case STAT_SUM: return s->sum;
	case STAT_MIN: return s->min;
	case STAT_MAX: return s->max;
	case STAT_AVG: return s->count ? s->sum / s->count : 0;
	default: return s->count;
	}
}

/* runtime/map.c _stp_cmp(): 1 when @p belongs after @q */
static int sort_cmp(const struct sorter *so, const struct map_entry *p,
		    const struct map_entry *q)
{
	int64_t a, b = 0;
	enum map_type t;

	if (so->column > 0) {
		t = so->m->keys[so->column - 1];
		if (t == MAP_STRING)
			a = strcmp(p->col[so->column - 1].s,
				   q->col[so->column - 1].s);
		else {
			a = p->col[so->column - 1].l;
			b = q->col[so->column - 1].l;
		}
	} else if (so->m->value == MAP_STRING) {
		a = strcmp(map_entry_str(p), map_entry_str(q));
	} else if (so->m->value == MAP_STAT) {
		a = stat_key(so, p);
		b = stat_key(so, q);
	} else {
		a = p->v.l;
		b = q->v.l;
	}
	return (a < b && so->dir > 0) || (a > b && so->dir < 0);
}

/* Stable merge sort: the order _stp_map_sort()'s list merge sort gives. */
static void merge_sort(const struct sorter *so, struct map_entry **v,
		       struct map_entry **tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	merge_sort(so, v, tmp, mid);
	merge_sort(so, v + mid, tmp, n - mid);
	while (i < mid && j < n)
		tmp[k++] = !sort_cmp(so, v[i], v[j]) ? v[i++] : v[j++];
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/*
 * _stp_map_sortn() for 0 < n <= 30 (and, as stap, any n < 0): bubble sort
 * over the first n list nodes until no swap, then move each later node into
 * that prefix if it beats the prefix's tail.  Run on an index list so the
 * resulting order, tail included, is the one stap leaves.
 */
static void partial_sort(const struct sorter *so, struct map_entry **v,
			 size_t n, int top)
{
	size_t *next = xmalloc((n + 1) * sizeof(*next));
	size_t *prev = xmalloc((n + 1) * sizeof(*prev));
	size_t head = n, a, b, c, last, tmp, i;
	int num, swaps = 1;

	for (i = 0; i < n; i++) {
		next[i] = i + 1;
		prev[i] = i ? i - 1 : head;
	}
	next[head] = 0;
	prev[head] = n - 1;
	next[n - 1] = head;

#define DEL(x)		(next[prev[x]] = next[x], prev[next[x]] = prev[x])
#define ADD_AFTER(x, at) (next[x] = next[at], prev[x] = (at), \
			  prev[next[at]] = (x), next[at] = (x))

	a = head;
	while (swaps) {
		num = top;
		swaps = 0;
		a = next[head];
		c = next[next[a]];
		while (next[a] != head && --num > 0) {
			b = next[a];
			if (sort_cmp(so, v[a], v[b])) {
				swaps++;
				DEL(a);
				ADD_AFTER(a, b);
			}
			a = prev[c];
			c = next[c];
		}
	}

	last = a;
	a = next[a];
	while (a != head) {
		tmp = next[a];
		c = last;
		while (c != head && sort_cmp(so, v[c], v[a]))
			c = prev[c];
		if (c != last) {
			DEL(a);
			ADD_AFTER(a, c);
			last = prev[last];
		}
		a = tmp;
	}
#undef DEL
#undef ADD_AFTER

	{
		struct map_entry **out = xmalloc(n * sizeof(*out));

		for (i = 0, a = next[head]; a != head; a = next[a])
			out[i++] = v[a];
		memcpy(v, out, n * sizeof(*v));
		free(out);
	}
	free(next);
	free(prev);
}

static void relink(struct map *m, struct map_entry **v, size_t n)
{
	size_t i;

	m->head.prev = m->head.next = &m->head;
	for (i = 0; i < n; i++)
		list_add_tail(m, &v[i]->link);
}

/* ---- iteration --------------------------------------------------------- */

int map_iter_start(struct map_iter *it, struct map *m,
		   const struct map_sort *sort)
{
	struct map_link *l;
	size_t n = m->count, keep, i = 0;

	memset(it, 0, sizeof(*it));
	if (sort && sort->dir &&
	    (sort->dir < -1 || sort->dir > 1 || sort->column < 0 ||
	     sort->column > m->nkeys))
		return -EINVAL;
	it->map = m;
	if (!n)
		return 0;

	it->snap = xmalloc(n * sizeof(*it->snap));
	for (l = m->head.next; l != &m->head; l = l->next)
		it->snap[i++] = link_entry(l);

	if (sort && sort->dir) {
		/* translate.cxx passes -sort_direction to the runtime */
		struct sorter so = { m, sort->column, -sort->dir, sort->agg };
		int top = sort->has_limit ? (int)sort->limit : 0;

		if (top == 0 || top > 30) {
			struct map_entry **tmp = xmalloc(n * sizeof(*tmp));

			merge_sort(&so, it->snap, tmp, n);
			free(tmp);
		} else {
			partial_sort(&so, it->snap, n, top);
		}
		if (m->value != MAP_STAT)
			relink(m, it->snap, n);
	}

	keep = n;
	if (sort && sort->has_limit)
		keep = sort->limit <= 0 ? 0 :
		       (uint64_t)sort->limit < n ? (size_t)sort->limit : n;
	for (i = 0; i < keep; i++)
		it->snap[i]->refs++;
	it->n = keep;
	return 0;
}

struct map_entry *map_iter_next(struct map_iter *it)
{
	while (it->pos < it->n) {
		struct map_entry *e = it->snap[it->pos++];

		if (!e->dead)
			return e;
	}
	return NULL;
}

void map_iter_end(struct map_iter *it)
{
	size_t i;

	for (i = 0; i < it->n; i++) {
		struct map_entry *e = it->snap[i];

		if (--e->refs == 0 && e->dead)
			entry_free(it->map, e);
	}
	free(it->snap);
	memset(it, 0, sizeof(*it));
}
