// SPDX-License-Identifier: GPL-2.0
/*
 * Pacing: when the instance's rings are read.
 *
 * A ring fd wakes us once (EPOLLONESHOT) and stays quiet until the pace
 * timer re-arms it.  The first record after a quiet spell is handled at
 * once, a busy ring is read in batches, and while it is not armed the kernel
 * queues no wake-up per record (that costs the traced program ~40% more per
 * event than the record itself).
 *
 * The pause after a drain must end before a ring can fill.  It is at most
 * half the time a CPU writing records as fast as a kernel can (a syscall
 * record every ~300 ns, ~250 MB/s) takes to fill its ring: 2 ms for the
 * default 1.4 MB, 8 ms for 4 MB, never over pace_ms (10).  Within that, it
 * is the time the busiest CPU, at the rate it wrote since the last drain,
 * takes to fill a quarter of its ring: a busy ring is read often enough, a
 * slow one in batches.
 *
 * With o.wakeup_percent the kernel wakes the reader at that fill already,
 * and each wake-up simply drains.
 */
#include <stdint.h>

#include "common/loop.h"
#include "common/timefmt.h"
#include "tracefs/internal.h"
#include "tracefs/ring.h"
#include "tracefs/session.h"

#define RING_WORST_BYTES_PER_MS (250 * 1024)

static uint64_t pause_ns(struct pace *p, uint64_t now)
{
	struct session *s = p->s;
	uint64_t pace = (s->o.pace_ms ? s->o.pace_ms : 10) * 1000000ULL;
	uint64_t cap = 1000000ULL * ring_capacity(p->ring) / RING_WORST_BYTES_PER_MS / 2;
	uint64_t since = now - p->last_drain;
	int busiest = ring_busiest(p->ring);

	p->last_drain = now;
	if (cap < pace)
		pace = cap > 1000000 ? cap : 1000000;
	if (busiest) {
		/* busiest pages out of ring_capacity() bytes in @since */
		double quarter = (double)since * (double)ring_capacity(p->ring) / 4 /
				 ((double)busiest * ring_subbuf_size(p->ring));

		if (quarter < (double)pace)
			pace = (uint64_t)quarter;
	}
	return pace;
}

static int rearm(struct loop *l, struct pace *p)
{
	const int *fds;
	int i, k;

	ring_expect(p->ring, time_mono_ns());
	fds = ring_fds(p->ring, &k);
	for (i = 0; i < k; i++)
		loop_rearm(l, fds[i]);
	return 0;
}

/* The pause is over: the ring fds wake on_ring() at once if they have
 * something, so each drain covers the time since the one before. */
static int on_pace(struct loop *l, int fd, void *arg)
{
	return rearm(l, arg);
}

static int on_ring(struct loop *l, int fd, void *arg)
{
	struct pace *p = arg;
	long n = session_drain(p->s);
	uint64_t now = time_mono_ns(), ms = pause_ns(p, now) / 1000000;

	if (n < 0)
		return (int)n;
	ring_expect(p->ring, now + ms * 1000000);
	/* under a millisecond: read again as soon as there is something */
	if (!ms)
		return rearm(l, p);
	if (p->fd < 0) {
		p->fd = loop_timer(l, ms, 0, on_pace, p);
		return p->fd < 0 ? p->fd : 0;
	}
	return loop_timer_arm(p->fd, ms);
}

int pace_start(struct pace *p, struct loop *l)
{
	const int *fds;
	int i, n, err;

	p->fd = -1;
	p->last_drain = time_mono_ns();
	/* a ring woken at a watermark is read in batches already */
	fds = ring_fds(p->ring, &n);
	for (i = 0; i < n; i++) {
		err = p->s->o.wakeup_percent > 0 ?
			loop_add(l, fds[i], session_on_ready, p->s) :
			loop_add_once(l, fds[i], on_ring, p);
		if (err < 0)
			return err;
	}
	return 0;
}
