/* SPDX-License-Identifier: GPL-2.0 */
/* A perf_event ring buffer mapped and read from its tail (perf_mmap.c). */
#ifndef TAPKIT_TRACEFS_PERF_MMAP_H
#define TAPKIT_TRACEFS_PERF_MMAP_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct perf_mmap {
	int fd;				/* the event the ring is mapped on */
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size;			/* data bytes, a power of two */
	size_t map_len;
	uint64_t tail;			/* where reading is */
	unsigned char *scratch;		/* a record that wraps, copied whole */
};

/* Map @pages data pages (a power of two) of @fd's ring: 0 or -errno. */
int perf_mmap_map(struct perf_mmap *m, int fd, unsigned int pages);
void perf_mmap_unmap(struct perf_mmap *m);

/* The kernel's head: records before it are complete. */
static inline uint64_t perf_mmap_head(const struct perf_mmap *m)
{
	return __atomic_load_n(&m->meta->data_head, __ATOMIC_ACQUIRE);
}

/* Hand what is before m->tail back to the kernel. */
static inline void perf_mmap_release(struct perf_mmap *m)
{
	__atomic_store_n(&m->meta->data_tail, m->tail, __ATOMIC_RELEASE);
}

/**
 * perf_mmap_record() - the record at m->tail, when one is there before @head
 * @h: receives its header
 *
 * Returns its bytes (a record that wraps is copied whole), or NULL when
 * none is (a header that cannot be right moves the tail to @head).  The
 * caller moves m->tail past it.
 */
const unsigned char *perf_mmap_record(struct perf_mmap *m, uint64_t head,
				      struct perf_event_header *h);

#endif
