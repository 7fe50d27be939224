// SPDX-License-Identifier: GPL-2.0
/*
 * A perf_event ring buffer, mapped and read from its tail: the samplers'
 * rings (perf_sampler.c) and the sideband's (perf_sideband.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/log.h"
#include "tracefs/perf_mmap.h"

#define MAX_RECORD 65536	/* perf_event_header.size is a u16 */

int perf_mmap_map(struct perf_mmap *m, int fd, unsigned int pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *p;

	m->fd = fd;
	m->size = (uint64_t)pages * psz;
	m->map_len = (size_t)(pages + 1) * psz;
	p = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		m->meta = NULL;
		return -errno;
	}
	m->meta = p;
	m->data = (unsigned char *)p + psz;
	return 0;
}

void perf_mmap_unmap(struct perf_mmap *m)
{
	if (m->meta)
		munmap(m->meta, m->map_len);
	m->meta = NULL;
	free(m->scratch);
	m->scratch = NULL;
}

const unsigned char *perf_mmap_record(struct perf_mmap *m, uint64_t head,
				      struct perf_event_header *h)
{
	uint64_t off = m->tail & (m->size - 1);
	const unsigned char *rec = m->data + off;

	if (m->tail >= head)
		return NULL;
	memcpy(h, rec, sizeof(*h));
	if (h->size < sizeof(*h) || h->size > head - m->tail) {
		m->tail = head;		/* cannot happen with a sane kernel */
		perf_mmap_release(m);
		return NULL;
	}
	if (off + h->size > m->size) {
		uint64_t first = m->size - off;

		if (!m->scratch)
			m->scratch = xmalloc(MAX_RECORD);
		memcpy(m->scratch, rec, first);
		memcpy(m->scratch + first, m->data, h->size - first);
		rec = m->scratch;
	}
	return rec;
}
