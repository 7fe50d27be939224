/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_HMAP_H
#define TAPKIT_HMAP_H

/*
 * A hash map from u64 keys to fixed-size values stored inline (open
 * addressing, linear probing, grows at 70% load).  Aggregations per PID,
 * per thread, per syscall: no allocation per hit once the table is sized.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap;

/* A map whose values are @value_size bytes; free with hmap_free(). */
struct hmap *hmap_new(size_t value_size);
void hmap_free(struct hmap *m);

/* The value of @key; with @create, inserted zeroed when absent; else NULL. */
void *hmap_get(struct hmap *m, uint64_t key, bool create);
/* Remove @key if present. */
void hmap_del(struct hmap *m, uint64_t key);
size_t hmap_count(const struct hmap *m);
void hmap_clear(struct hmap *m);

/*
 * Iterate: start with *pos = 0; returns each value (and its key) in table
 * order until NULL.  Neither inserting nor deleting is allowed while
 * iterating: deletion shifts later entries back into visited slots.
 */
void *hmap_next(const struct hmap *m, size_t *pos, uint64_t *key);

#endif
