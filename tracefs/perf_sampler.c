// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event sampling over trace events, and over any other perf event
 * (software clocks, page faults, hardware counters) for profiles.
 *
 * Thread scope.  Counters open one event per thread with inherit (cpu -1);
 * samplers cannot, since the kernel refuses to mmap an inherited per-task
 * event (all children would write into one ring from many CPUs).  So, as perf record does, a sampler opens one event per
 * (thread, CPU) pair with inherit, maps one ring per CPU on the first of
 * them and points the others at it with PERF_EVENT_IOC_SET_OUTPUT.  Ring
 * memory is then per CPU whatever the number of threads, and inherited
 * children write to their parent event's ring on that CPU.
 *
 * Ring layout.  Each ring is one metadata page (struct perf_event_mmap_page:
 * data_head written by the kernel, data_tail written by us) followed by 2^n
 * data pages.  Records (struct perf_event_header + body) are 8-byte aligned,
 * so a header never straddles the end of the ring, but a body may: such a
 * record is copied into a per-ring scratch buffer before it is handed out.
 * data_head is read with acquire ordering (the kernel publishes it after the
 * record bytes); data_tail is stored with release ordering after a record
 * has been consumed, because from that moment the kernel may overwrite it.
 *
 * Wake-ups.  The kernel wakes a poller when wakeup_watermark bytes are
 * pending (watermark = 1); we ask for a quarter of the ring.  Waking per
 * event costs the traced program ~24 us each (PERF.md), while a quarter of
 * the ring leaves three quarters of headroom for the reader to catch up.
 * The consequence for callers: a quiet ring does not wake anyone, so drain
 * also on a timer and at exit.
 *
 * Clock.  use_clockid with CLOCK_MONOTONIC: sample timestamps are on the same
 * clock as our tracefs instance ("mono" trace_clock) and clock_gettime(), so
 * records from both transports and user-side timestamps interleave.
 *
 * Order.  perf_sampler_drain() merges the rings by timestamp (a small heap
 * over the rings' next samples), so one drain delivers in time order even
 * when the traced threads migrate between CPUs.  Across drains, a sample
 * still being written on one CPU can be older than one already delivered
 * from another; callers that need a strict total order must hold back.
 *
 * Loss.  When a ring is full the kernel drops the sample and only reports it
 * in a PERF_RECORD_LOST written once space frees up, so a ring nobody
 * drains never says it lost anything.  Where the kernel has it (Linux 6.0),
 * PERF_FORMAT_LOST makes read() return each event's own drop counter, and
 * that is what perf_sampler_lost() sums; older kernels fall back to the sum
 * of the LOST records seen so far.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/task.h"
#include "tracefs/internal.h"
#include "tracefs/perf_mmap.h"
#include "tracefs/perf_sampler.h"

#define DEFAULT_PAGES		128		/* 512 KiB per ring with 4 KiB pages */

struct perf_ring {
	struct perf_mmap m;

	/* drain state: the next sample, parsed, while it waits in the merge */
	uint64_t head;
	unsigned int rec_size;
	struct tk_event ev;
	uint64_t *stack;		/* callchain without context markers */
	unsigned int stack_cap;
	uint64_t lost_records;		/* sum of PERF_RECORD_LOST */
	struct perf_sample_head head_copy;	/* ev.data of IP samples */
	struct perf_switch switch_copy;		/* ev.data of switch records */
};

struct perf_sampler {
	struct fdset fds;		/* every event, ring owners included */
	struct perf_ring *rings;
	int nrings;
	int *ring_fds;			/* for perf_sampler_fds() */
	int *heap;			/* ring indices, by next sample's ts */
	uint64_t sample_type;
	bool format_lost;		/* read() gives each event's drops */
	bool switches;			/* context switch records delivered */
	int id;
};

static void ring_unmap(struct perf_ring *r)
{
	perf_mmap_unmap(&r->m);
	free(r->stack);
}

/*
 * Open @attr (disabled, with the sample layout set) on every online CPU,
 * system-wide or on the threads of @scope, one ring per CPU; see the
 * notes on thread scope and wake-ups at the top of this file.
 */
static struct perf_sampler *sampler_open(struct perf_event_attr *attr,
					 const struct perf_scope *scope,
					 const char *filter, bool callchain,
					 unsigned int pages_per_cpu, int id)
{
	struct perf_sampler *s;
	unsigned int pages = pages_per_cpu ? pages_per_cpu : DEFAULT_PAGES;
	int *cpus = NULL, ncpus, c, t, err;
	bool threads = scope && scope->tids;

	if (!perf_scope_valid(scope) || (pages & (pages - 1)) || pages > (1u << 20)) {
		errno = EINVAL;
		return NULL;
	}
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->sample_type |= PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr->read_format = PERF_FORMAT_LOST_BIT;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->watermark = 1;
	attr->comm = 1;		/* COMM records name short-lived tasks */
	if (callchain) {
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr->exclude_callchain_user = 0;
		attr->exclude_callchain_kernel = 0;
	}
	attr->wakeup_watermark = pages * sysconf(_SC_PAGESIZE) / 4;
	if (threads) {
		attr->inherit = 1;
		attr->inherit_thread = !scope->tree;
	}

	ncpus = online_cpus(&cpus);
	if (ncpus < 0) {
		errno = -ncpus;
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->id = id;
	s->sample_type = attr->sample_type;
	s->rings = xcalloc(ncpus, sizeof(*s->rings));
	s->ring_fds = xcalloc(ncpus, sizeof(*s->ring_fds));
	s->heap = xcalloc(ncpus, sizeof(*s->heap));

	for (c = 0; c < ncpus; c++) {
		int nt = threads ? scope->ntids : 1;
		struct perf_ring *r = &s->rings[s->nrings];
		bool mapped = false;

		for (t = 0; t < nt; t++) {
			pid_t pid = threads ? scope->tids[t] : -1;
			int fd = perf_open_event(attr, pid, cpus[c], -1);

			if (fd == -ESRCH && threads)
				continue;	/* exited meanwhile */
			if (fd < 0) {
				err = fd;
				goto fail;
			}
			fdset_add(&s->fds, fd);
			if (!mapped) {
				err = perf_mmap_map(&r->m, fd, pages);
				if (err)
					goto fail;
				s->ring_fds[s->nrings++] = fd;
				mapped = true;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->m.fd) < 0) {
				goto fail_errno;
			}
		}
	}
	if (!s->nrings) {
		err = -ESRCH;
		goto fail;
	}
	s->format_lost = attr->read_format & PERF_FORMAT_LOST_BIT;
	err = fdset_set_filter(&s->fds, filter);
	if (err)
		goto fail;
	free(cpus);
	return s;

fail_errno:
	err = -errno;
fail:
	free(cpus);
	perf_sampler_free(s);
	errno = -err;
	return NULL;
}

/**
 * perf_sampler_open() - a record per hit of trace event @id
 * @scope: NULL or tids NULL for system-wide, else the threads to sample
 *	(and the threads they create: see the note at the top of this file)
 * @filter: ftrace filter expression or NULL
 * @callchain: also record the kernel and user callchain
 * @pages_per_cpu: data pages per ring, a power of two; 0 for the default
 *
 * Each record carries RAW data, TID, TIME (CLOCK_MONOTONIC), CPU and the
 * callchain when asked.  Returns a disabled sampler, freed with
 * perf_sampler_free(), or NULL with errno set (EINVAL for a rejected filter,
 * a bad page count or @scope; ESRCH when every thread of @scope is gone;
 * EPERM when the rings exceed the locked-memory allowance of an
 * unprivileged user).
 */
struct perf_sampler *perf_sampler_open(int id, const struct perf_scope *scope,
				       const char *filter, bool callchain,
				       unsigned int pages_per_cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.config = id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
	};

	return sampler_open(&attr, scope, filter, callchain, pages_per_cpu, id);
}

/**
 * perf_sampler_open_switches() - perf_sampler_open() of trace event @id on
 * every CPU, with the callchain, and the kernel's context switch records
 * (PERF_RECORD_SWITCH_CPU_WIDE) delivered in the same time-ordered
 * stream as tk_events of id PERF_SAMPLER_SWITCH
 *
 * The switch records come from the scheduler's perf hooks, which see the
 * switches some tracepoints miss (a CPU leaving idle, on some kernels).
 * NULL with errno as perf_sampler_open().
 */
struct perf_sampler *perf_sampler_open_switches(int id, unsigned int pages_per_cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.config = id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.context_switch = 1,
		.sample_id_all = 1,
	};
	struct perf_sampler *s;

	s = sampler_open(&attr, NULL, NULL, true, pages_per_cpu, id);
	if (s)
		s->switches = true;
	return s;
}

/**
 * perf_sampler_open_spec() - samples of any perf event: @spec's type and
 * config, every @spec->period events or @spec->freq times a second
 * @scope, @callchain, @pages_per_cpu: as perf_sampler_open()
 *
 * Each record carries IP, TID, TIME (CLOCK_MONOTONIC), CPU and the
 * callchain when asked; the tk_event's data points at a struct
 * perf_sample_head (the IP, process and thread ids) and its id is -1.
 * Returns a disabled sampler or NULL with errno set (ENOENT, ENODEV or
 * EOPNOTSUPP when the kernel has no such event, EINVAL for a bad @spec).
 */
struct perf_sampler *perf_sampler_open_spec(const struct perf_sample_spec *spec,
					    const struct perf_scope *scope,
					    bool callchain, unsigned int pages_per_cpu)
{
	struct perf_event_attr attr = {
		.type = spec->type,
		.config = spec->config,
		.sample_type = PERF_SAMPLE_IP,
	};

	if (!spec->period == !spec->freq) {
		errno = EINVAL;
		return NULL;
	}
	if (spec->freq) {
		attr.freq = 1;
		attr.sample_freq = spec->freq;
	} else {
		attr.sample_period = spec->period;
	}
	return sampler_open(&attr, scope, NULL, callchain, pages_per_cpu, -1);
}

/**
 * perf_sampler_check() - can this machine sample @spec's event?  A trial
 * open (disabled) on the calling thread.  0 or -errno (ENOENT, ENODEV or
 * EOPNOTSUPP: no such event; EACCES/EPERM: not allowed to try).
 */
int perf_sampler_check(const struct perf_sample_spec *spec)
{
	struct perf_event_attr attr = {
		.type = spec->type,
		.size = sizeof(attr),
		.config = spec->config,
		.disabled = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	int fd;

	if (!spec->period == !spec->freq)
		return -EINVAL;
	if (spec->freq) {
		attr.freq = 1;
		attr.sample_freq = spec->freq;
	} else {
		attr.sample_period = spec->period;
	}
	fd = perf_open_event(&attr, 0, -1, -1);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/** perf_sampler_enable() - start recording; 0 or -errno */
int perf_sampler_enable(struct perf_sampler *s)
{
	return fdset_ioctl(&s->fds, PERF_EVENT_IOC_ENABLE);
}

/**
 * perf_sampler_disable() - stop recording; what is buffered stays for
 * perf_sampler_drain().  0 or -errno.
 */
int perf_sampler_disable(struct perf_sampler *s)
{
	return fdset_ioctl(&s->fds, PERF_EVENT_IOC_DISABLE);
}

/**
 * perf_sampler_fds() - the ring fds to poll, one per ring, *@n of them
 *
 * They become readable when a ring holds a quarter of its size; see the
 * note on wake-ups at the top of this file.  Owned by the sampler.
 */
const int *perf_sampler_fds(struct perf_sampler *s, int *n)
{
	*n = s->nrings;
	return s->ring_fds;
}

/* Split a callchain into r->stack: kernel part, then user part, no markers. */
static void take_callchain(struct perf_ring *r, const uint64_t *ips,
			   uint64_t nr, struct tk_event *ev)
{
	unsigned int n = 0, nk = 0;
	bool user = false;
	uint64_t i;

	if (nr > r->stack_cap) {
		r->stack_cap = nr;
		r->stack = xrealloc(r->stack, nr * sizeof(*r->stack));
	}
	for (i = 0; i < nr; i++) {
		uint64_t ip;

		memcpy(&ip, &ips[i], sizeof(ip));
		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_USER || ip == PERF_CONTEXT_GUEST_USER)
				user = true;
			else if (ip == PERF_CONTEXT_KERNEL ||
				 ip == PERF_CONTEXT_GUEST_KERNEL)
				user = false;
			continue;
		}
		r->stack[n++] = ip;
		if (!user)
			nk = n;
	}
	ev->stack = r->stack;
	ev->nstack = n;
	ev->nkstack = nk;
}

/*
 * Parse the PERF_RECORD_SAMPLE at @rec (@size bytes) into r->ev, following
 * the kernel's field order for our sample_type: IP, TID, TIME, CPU,
 * CALLCHAIN, RAW.  Returns false for a record too short for what it claims.
 */
static bool parse_sample(struct perf_sampler *s, struct perf_ring *r,
			 const unsigned char *rec, unsigned int size)
{
	const unsigned char *p = rec + sizeof(struct perf_event_header);
	const unsigned char *end = rec + size;
	struct tk_event *ev = &r->ev;
	uint32_t u32[2];
	uint64_t nr;

	memset(ev, 0, sizeof(*ev));
	ev->id = s->id;
	if (s->sample_type & PERF_SAMPLE_IP) {
		/* IP, then pid and tid: the head the data points at */
		if (end - p < (long)sizeof(struct perf_sample_head))
			return false;
		memcpy(&r->head_copy, p, sizeof(r->head_copy));
		ev->data = &r->head_copy;
		ev->size = sizeof(r->head_copy);
		p += 8;
	}
	if (end - p < 24)
		return false;
	memcpy(u32, p, 8);			/* pid, tid */
	ev->pid = u32[1];
	memcpy(&ev->ts, p + 8, 8);
	memcpy(u32, p + 16, 8);			/* cpu, reserved */
	ev->cpu = u32[0];
	p += 24;
	if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (end - p < 8)
			return false;
		memcpy(&nr, p, 8);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return false;
		take_callchain(r, (const uint64_t *)p, nr, ev);
		p += nr * 8;
	}
	if (!(s->sample_type & PERF_SAMPLE_RAW))
		return true;
	if (end - p < 4)
		return false;
	memcpy(u32, p, 4);			/* raw size, then the record */
	p += 4;
	if (u32[0] > (uint64_t)(end - p))
		return false;
	ev->data = p;
	ev->size = u32[0];
	if (ev->size >= 2) {
		uint16_t type;

		memcpy(&type, p, 2);		/* common_type */
		ev->id = type;
	}
	return true;
}

/*
 * A PERF_RECORD_SWITCH_CPU_WIDE at @rec into r->ev: the other task's pid
 * and tid, then the sample_id trailer of our sample_type (TID, TIME, CPU).
 */
static bool parse_switch(struct perf_ring *r, const unsigned char *rec,
			 struct perf_event_header h)
{
	const unsigned char *p = rec + sizeof(h);
	struct tk_event *ev = &r->ev;
	uint32_t u[2];

	if (h.size < sizeof(h) + 8 + 24)
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->id = PERF_SAMPLER_SWITCH;
	memcpy(u, p, 8);
	r->switch_copy.other_pid = u[0];
	r->switch_copy.other_tid = u[1];
	r->switch_copy.out = !!(h.misc & PERF_RECORD_MISC_SWITCH_OUT);
	memcpy(u, p + 8, 8);				/* pid, tid */
	r->switch_copy.pid = u[0];
	ev->pid = (int)u[1];
	memcpy(&ev->ts, p + 16, 8);
	memcpy(u, p + 24, 4);				/* cpu */
	ev->cpu = (int)u[0];
	ev->data = &r->switch_copy;
	ev->size = sizeof(r->switch_copy);
	return true;
}

/*
 * Move @r to its next sample: count LOST records and skip other kinds on
 * the way.  Returns true with r->ev filled, false when the ring is empty
 * (up to the head read at the start of this drain).
 */
static bool ring_next(struct perf_sampler *s, struct perf_ring *r)
{
	const unsigned char *rec;
	struct perf_event_header h;

	while ((rec = perf_mmap_record(&r->m, r->head, &h))) {
		if (h.type == PERF_RECORD_SAMPLE && parse_sample(s, r, rec, h.size)) {
			r->rec_size = h.size;
			return true;
		}
		if (h.type == PERF_RECORD_SWITCH_CPU_WIDE && s->switches &&
		    parse_switch(r, rec, h)) {
			r->rec_size = h.size;
			return true;
		}
		if (h.type == PERF_RECORD_COMM && h.size > sizeof(h) + 8) {
			uint32_t pid, tid;
			char comm[16];

			memcpy(&pid, rec + sizeof(h), 4);
			memcpy(&tid, rec + sizeof(h) + 4, 4);
			snprintf(comm, sizeof(comm), "%.*s",
				 (int)(h.size - sizeof(h) - 8), rec + sizeof(h) + 8);
			task_cache_set((pid_t)tid, comm, (pid_t)pid);
		}
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, rec + sizeof(h) + 8, 8);	/* id, lost */
			r->lost_records += lost;
		}
		r->m.tail += h.size;
		perf_mmap_release(&r->m);
	}
	return false;
}

static bool heap_less(const struct perf_sampler *s, int a, int b)
{
	return s->rings[a].ev.ts < s->rings[b].ev.ts;
}

static void heap_down(struct perf_sampler *s, int n, int i)
{
	int *h = s->heap;

	for (;;) {
		int l = 2 * i + 1, m = i, tmp;

		if (l < n && heap_less(s, h[l], h[m]))
			m = l;
		if (l + 1 < n && heap_less(s, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/**
 * perf_sampler_drain() - deliver every buffered sample to @fn, oldest first
 *
 * Takes what the rings hold when called (samples written meanwhile wait for
 * the next call), merged across rings in timestamp order.  The tk_event and
 * everything it points to are valid only during the call of @fn, and each
 * sample's ring space is handed back to the kernel as soon as @fn returns.
 * Returns the number of samples delivered.
 */
int perf_sampler_drain(struct perf_sampler *s, tk_event_fn fn, void *arg)
{
	int i, n = 0, delivered = 0;

	for (i = 0; i < s->nrings; i++) {
		struct perf_ring *r = &s->rings[i];

		r->head = perf_mmap_head(&r->m);
		r->m.tail = r->m.meta->data_tail;
		if (ring_next(s, r))
			s->heap[n++] = i;
	}
	for (i = n / 2 - 1; i >= 0; i--)
		heap_down(s, n, i);

	while (n > 0) {
		struct perf_ring *r = &s->rings[s->heap[0]];

		fn(&r->ev, arg);
		delivered++;
		r->m.tail += r->rec_size;
		perf_mmap_release(&r->m);
		if (!ring_next(s, r))
			s->heap[0] = s->heap[--n];
		heap_down(s, n, 0);
	}
	return delivered;
}

/**
 * perf_sampler_lost() - samples the kernel dropped because a ring was full
 *
 * Exact and current on Linux 6.0+ (each event's PERF_FORMAT_LOST counter);
 * on older kernels the sum of PERF_RECORD_LOST records drained so far, which
 * lags until the reader has made room in the ring.
 */
uint64_t perf_sampler_lost(struct perf_sampler *s)
{
	uint64_t sum = 0;
	int i;

	if (s->format_lost) {
		for (i = 0; i < s->fds.n; i++) {
			uint64_t v[2];	/* value, lost */

			if (read(s->fds.fd[i], v, sizeof(v)) == sizeof(v))
				sum += v[1];
		}
		return sum;
	}
	for (i = 0; i < s->nrings; i++)
		sum += s->rings[i].lost_records;
	return sum;
}

/** perf_sampler_free() - unmap, close and free @s (NULL is a no-op) */
void perf_sampler_free(struct perf_sampler *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nrings; i++)
		ring_unmap(&s->rings[i]);
	fdset_close(&s->fds);
	free(s->rings);
	free(s->ring_fds);
	free(s->heap);
	free(s);
}
