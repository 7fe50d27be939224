/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_RB_PAGE_H
#define TAPKIT_RB_PAGE_H

/*
 * Decoding one sub-buffer of the kernel's ring buffer, as trace_pipe_raw
 * hands them out (events/header_page and events/header_event describe it;
 * kernel/trace/ring_buffer.c writes it):
 *
 *	u64 timestamp		base time of the page
 *	long commit		bytes of data (low 27 bits); the top bits flag
 *				missed events (ring.c's page_missed())
 *	data			events: u32 { type_len:5, time_delta:27 }, then
 *				type_len 1..28: type_len * 4 bytes of payload
 *				type_len 0: array[0] = payload (aligned) + 4,
 *					    then the payload
 *				29 padding: array[0] = bytes after the header
 *				30 time extend: delta = array[0] << 27 | time_delta
 *				31 absolute stamp, encoded like 30
 *
 * The rules are those of libtraceevent's kbuffer, which trace-cmd uses:
 * every delta adds to the running timestamp, those of padding (discarded
 * events) included, and a type_len 0 payload is array[0] - 4 rounded up to
 * 4 bytes.  kbuffer reads every word through a function pointer, for
 * traces read on a machine of another byte order; rings read live are
 * always in the host's, so this walker is a few inline loads per record.
 * It stops at the commit length and at a record that would run past it,
 * so a damaged page ends early rather than being read out of bounds.
 * The bit fields' order follows the host's byte order, as the kernel's C
 * bit fields do.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define RB_PAGE_HDR	(8 + sizeof(long))	/* u64 timestamp, long commit */
#define RB_TYPE_PADDING	29
#define RB_TYPE_EXTEND	30
#define RB_TYPE_STAMP	31
#define RB_TS_BITS	27
#define RB_SIZE_MASK	((1U << 27) - 1)	/* commit's length bits */
#define RB_TS_MSB	(0x1fULL << 59)		/* an absolute stamp's lost bits */

/* A position in one sub-buffer. */
struct rb_page {
	const unsigned char *data;	/* the first event */
	unsigned int size;		/* bytes of events */
	unsigned int next;		/* offset of the next event header */
	uint64_t ts;			/* time of the last event read */
	uint64_t base;			/* the page's timestamp */
};

static inline uint32_t rb_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Start reading the sub-buffer at @page of @subbuf_size bytes. */
static inline void rb_page_load(struct rb_page *w, const void *page, int subbuf_size)
{
	const unsigned char *p = page;
	unsigned long commit;
	unsigned int max = subbuf_size > (int)RB_PAGE_HDR ?
			   (unsigned int)subbuf_size - RB_PAGE_HDR : 0;

	memcpy(&w->base, p, 8);
	memcpy(&commit, p + 8, sizeof(commit));
	w->data = p + RB_PAGE_HDR;
	w->size = (unsigned int)(commit & RB_SIZE_MASK);
	if (w->size > max)
		w->size = max;
	w->next = 0;
	w->ts = w->base;
}

/*
 * The next data record of @w and its length in @len, with its time in
 * @w->ts; NULL at the end of the page.
 */
static inline const void *rb_page_next(struct rb_page *w, unsigned int *len)
{
	while (w->next + 4 <= w->size) {
		const unsigned char *e = w->data + w->next;
		uint32_t h = rb_u32(e);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		unsigned int type = h >> 27, at = w->next + 4, n;
		uint64_t delta = h & ((1U << RB_TS_BITS) - 1);
#else
		unsigned int type = h & 0x1f, at = w->next + 4, n;
		uint64_t delta = h >> 5;
#endif

		if (type >= 1 && type <= 28) {		/* the common case */
			n = type * 4;
			if (n > w->size - at)
				break;
			w->ts += delta;
			w->next = at + n;
			*len = n;
			return e + 4;
		}
		if (at + 4 > w->size)
			break;
		n = rb_u32(e + 4);
		switch (type) {
		case 0:
			if (n < 4)
				goto out;
			n = (n - 4 + 3) & ~3U;
			if (n > w->size - at - 4)
				goto out;
			w->ts += delta;
			w->next = at + 4 + n;
			*len = n;
			return e + 8;
		case RB_TYPE_PADDING:
			if (n > w->size - at)
				goto out;
			w->ts += delta;
			w->next = at + n;
			break;
		case RB_TYPE_EXTEND:
			w->ts += (uint64_t)n << RB_TS_BITS | delta;
			w->next = at + 4;
			break;
		default: {				/* RB_TYPE_STAMP */
			uint64_t abs = (uint64_t)n << RB_TS_BITS | delta;

			/* the kernel keeps 59 bits; the rest is the page's */
			if (w->base & RB_TS_MSB) {
				abs |= w->base & RB_TS_MSB;
				if (abs < w->base)
					abs += 1ULL << 59;
			}
			w->ts = abs;
			w->next = at + 4;
			break;
		}
		}
	}
out:
	w->next = w->size;
	return NULL;
}

#endif
