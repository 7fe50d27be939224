// SPDX-License-Identifier: GPL-2.0
/*
 * Timestamps: the instance keeps its default clock ("local", the scheduler
 * clock), because switching clocks resets the ring and waits for an RCU
 * grace period (20-40 ms of start-up here).  Its offset to CLOCK_MONOTONIC
 * is measured once, as trace-cmd does, by writing a marker between two
 * clock_gettime() calls and reading back the marker's timestamp; no event
 * is enabled yet, so the ring holds nothing else.  Both clocks tick at the
 * TSC's rate; they drift apart only by NTP's frequency correction (ppm)
 * where the TSC is stable.  Where it is not (a guest under emulation), the
 * scheduler clock wanders from CLOCK_MONOTONIC by more than an entry and
 * its return are apart, so a session that merges its records with perf
 * samples by time takes the samples' clock itself (clock_mono()).
 */
#include <errno.h>
#include <string.h>

#include <tracefs.h>

#include "common/timefmt.h"
#include "tracefs/format.h"
#include "tracefs/internal.h"
#include "tracefs/ring.h"

#define CLOCK_MARK "tapkit clock sync"

struct mark_search {
	int print_id;
	uint64_t ts;
	bool found;
};

static void find_mark(const struct tk_event *ev, void *arg)
{
	struct mark_search *m = arg;

	if (ev->id == m->print_id &&
	    memmem(ev->data, ev->size, CLOCK_MARK, sizeof(CLOCK_MARK) - 1)) {
		m->ts = ev->ts;
		m->found = true;
	}
}

int clock_sync(struct tracefs_instance *inst, struct ring *r)
{
	struct mark_search m = { .print_id = format_event_id("ftrace", "print") };
	uint64_t t0, t1;
	long n;

	t0 = time_mono_ns();
	n = tracefs_instance_file_write(inst, "trace_marker", CLOCK_MARK);
	t1 = time_mono_ns();
	if (n > 0 && m.print_id >= 0) {
		ring_skip_pid(r, -1);
		n = ring_drain(r, false, find_mark, &m);
	}
	if (m.found) {
		ring_set_ts_offset(r, (int64_t)(t0 / 2 + t1 / 2 - m.ts));
		return 0;
	}
	/* no markers here (e.g. options/markers off): the slow way */
	return clock_mono(inst, r);
}

int clock_mono(struct tracefs_instance *inst, struct ring *r)
{
	errno = 0;
	if (tracefs_instance_file_write(inst, "trace_clock", "mono") < 0)
		return errno ? -errno : -EIO;
	ring_set_ts_offset(r, 0);
	return 0;
}
