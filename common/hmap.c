// SPDX-License-Identifier: GPL-2.0
/*
 * Open addressing with linear probing.  Deletion uses backward-shift, so no
 * tombstones accumulate in long runs that insert and delete per event
 * (per-thread entry timestamps).
 */
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"

struct hmap {
	size_t vsize;
	size_t cap;		/* power of two */
	size_t count;
	uint64_t *keys;
	unsigned char *used;
	unsigned char *vals;
};

static size_t hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static void alloc_table(struct hmap *m, size_t cap)
{
	m->cap = cap;
	m->keys = xcalloc(cap, sizeof(uint64_t));
	m->used = xcalloc(cap, 1);
	m->vals = xcalloc(cap, m->vsize);
}

struct hmap *hmap_new(size_t value_size)
{
	struct hmap *m = xcalloc(1, sizeof(*m));

	m->vsize = value_size ? value_size : 1;
	alloc_table(m, 64);
	return m;
}

void hmap_free(struct hmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->used);
	free(m->vals);
	free(m);
}

static size_t find(const struct hmap *m, uint64_t key)
{
	size_t i = hash(key) & (m->cap - 1);

	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void grow(struct hmap *m)
{
	struct hmap old = *m;
	size_t i;

	alloc_table(m, old.cap * 2);
	for (i = 0; i < old.cap; i++) {
		size_t j;

		if (!old.used[i])
			continue;
		j = find(m, old.keys[i]);
		m->used[j] = 1;
		m->keys[j] = old.keys[i];
		memcpy(m->vals + j * m->vsize, old.vals + i * m->vsize, m->vsize);
	}
	free(old.keys);
	free(old.used);
	free(old.vals);
}

void *hmap_get(struct hmap *m, uint64_t key, bool create)
{
	size_t i = find(m, key);

	if (m->used[i])
		return m->vals + i * m->vsize;
	if (!create)
		return NULL;
	if ((m->count + 1) * 10 > m->cap * 7) {
		grow(m);
		i = find(m, key);
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->count++;
	memset(m->vals + i * m->vsize, 0, m->vsize);
	return m->vals + i * m->vsize;
}

void hmap_del(struct hmap *m, uint64_t key)
{
	size_t i = find(m, key), j;

	if (!m->used[i])
		return;
	m->used[i] = 0;
	m->count--;
	/* backward-shift the rest of the run into the hole */
	for (j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = hash(m->keys[j]) & (m->cap - 1);

		/* move j to i unless its home lies cyclically in (i, j] */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			m->used[i] = 1;
			m->keys[i] = m->keys[j];
			memcpy(m->vals + i * m->vsize, m->vals + j * m->vsize, m->vsize);
			m->used[j] = 0;
			i = j;
		}
	}
}

size_t hmap_count(const struct hmap *m)
{
	return m->count;
}

void hmap_clear(struct hmap *m)
{
	memset(m->used, 0, m->cap);
	m->count = 0;
}

void *hmap_next(const struct hmap *m, size_t *pos, uint64_t *key)
{
	for (; *pos < m->cap; (*pos)++) {
		if (m->used[*pos]) {
			size_t i = (*pos)++;

			if (key)
				*key = m->keys[i];
			return m->vals + i * m->vsize;
		}
	}
	return NULL;
}
