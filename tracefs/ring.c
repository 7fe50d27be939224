// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the instance's ring buffers.
 *
 * Each CPU has its own ring; trace_pipe_raw hands out whole sub-buffers
 * ("pages": a 16-byte header with the page's base timestamp and commit
 * length, then the records with their time deltas).  Full pages are moved
 * with splice(2) into a pipe, many per call, and read from it in one
 * read(2).  The page the writer is still on can only be had by a read(2) of
 * trace_pipe_raw, which copies what is committed so far; a drain does that
 * once per CPU, after the full pages.  A reader that took partial pages
 * for as long as they came would chase a busy writer a few records per
 * syscall, and on raw_syscalls each of those syscalls is itself a record.
 * Non-blocking, so a drain never sleeps.
 *
 * Snoop tools want one stream in time order.  The CPUs' records are only
 * ordered within a CPU, so a drain first reads what every CPU has into
 * per-CPU page queues, then merges the queue heads by timestamp (a linear
 * scan: there are few CPUs).  The CPUs are read one after the other, so
 * what one CPU wrote after its read may be older than what a CPU read
 * later holds: each round delivers only the records up to the time it
 * began and holds the later ones for the next round (ring_drain()).
 * Aggregating tools do not need order and walk each page as soon as it is
 * read, with no queue; the renames that name their records are shown
 * first (ring_set_prescan()).
 *
 * Loss is seen twice: a page whose header says events were missed before it
 * (page_missed()), and the instance's per-CPU stats, which the session
 * reads at the end.
 *
 * Per record the work is: the header decode (rb_page.h: a few inline
 * loads; libtraceevent's kbuffer, reading each word through a function
 * pointer, took 40% of a reader's time at 1 M records/s), the tk_event
 * fill, the callback.  No allocation; the page buffers are reused across
 * drains.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <tracefs.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "tracefs/internal.h"
#include "tracefs/rb_page.h"
#include "tracefs/ring_int.h"

/* common_flags of a record made in a hard interrupt, a softirq or an NMI
 * (the kernel's TRACE_FLAG_HARDIRQ, _SOFTIRQ and _NMI) */
#define TRACE_FLAGS_IRQ 0x58

/* Per-CPU pages read per drain round: merged by timestamp in ordered mode,
 * walked as read otherwise (bounds memory and keeps the pages in cache). */
#define ORDERED_MAX_PAGES 256
#define UNORDERED_MAX_PAGES 32
/* Per-CPU pages one drain reads at most, so a CPU that never runs dry
 * cannot keep the event loop (and Ctrl-C) waiting; the rest is read on the
 * next wakeup. */
#define DRAIN_MAX_PAGES 2048
/* Pages one splice(2) of the drain moves at most; a pipe holds at least
 * that many. */
#define SPLICE_PAGES 64
/* The largest pipe we ask for (ring_keep.c sets pages aside in them). */
#define PIPE_MAX_BYTES (16UL << 20)

/* Sub-buffers in one CPU's ring (buffer_size_kb), at least 1. */
static int ring_pages(struct tracefs_instance *inst, int subbuf)
{
	long long kb = 0;
	char *v = tracefs_instance_file_read(inst, "buffer_size_kb", NULL);

	if (v)
		kb = atoll(v);	/* "1410", or "7 (expanded: 1408)" */
	free(v);
	return kb * 1024 > subbuf ? (int)(kb * 1024 / subbuf) : 1;
}

static int subbuf_size(struct tracefs_instance *inst)
{
	long long kb;

	if (tracefs_instance_file_read_number(inst, "buffer_subbuf_size_kb", &kb) == 0 &&
	    kb > 0)
		return (int)kb * 1024;
	return getpagesize();
}

static void close_pipes(struct ring_cpu *rc)
{
	int i;

	for (i = 0; i < rc->npipes; i++) {
		close(rc->pipes[i].fd[0]);
		close(rc->pipes[i].fd[1]);
	}
	rc->npipes = 0;
}

/* A pipe of @size bytes (a power of two), or the largest smaller one of
 * at least @min we may have; its size, or 0. */
static size_t open_pipe(struct ring_pipe *p, size_t size, size_t min)
{
	int got;

	if (pipe2(p->fd, O_CLOEXEC | O_NONBLOCK) < 0)
		return 0;
	for (; size >= min; size /= 2) {
		got = size <= INT_MAX ? fcntl(p->fd[0], F_SETPIPE_SZ, (int)size) : -1;
		if (got >= (int)min) {
			p->size = (size_t)got;
			p->kept = 0;
			return p->size;
		}
	}
	close(p->fd[0]);
	close(p->fd[1]);
	return 0;
}

/*
 * The pipes full pages are spliced into: together twice as large as the
 * ring, so that the keeper can set aside that much while the drain is late; the
 * kernel only lends them pages while the pages are in them.  Each is as
 * large as we may make one (pipe-max-size without CAP_SYS_RESOURCE, 1 MB by
 * default).  Without one of SPLICE_PAGES, pages are read one by one.
 */
static void open_pipes(struct ring *r, struct ring_cpu *rc, int max)
{
	size_t min = (size_t)SPLICE_PAGES * r->subbuf_size, size = min, total = 0;

	while (size < 2 * ring_capacity(r) && size < PIPE_MAX_BYTES)
		size *= 2;
	while (rc->npipes < max && (!total || total < 2 * ring_capacity(r))) {
		size = open_pipe(&rc->pipes[rc->npipes], size, min);
		if (!size)
			break;
		total += size;
		rc->npipes++;
	}
}

/*
 * Pipes per CPU: RING_MAX_PIPES, fewer where they would take more than a
 * quarter of the fds we may open (two per pipe); the soft limit is raised
 * to the hard one first, as many CPUs need many fds.  At least one.
 */
static int pipes_per_cpu(int ncpu)
{
	struct rlimit rl;
	long n;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	n = rl.rlim_cur == RLIM_INFINITY ? RING_MAX_PIPES :
	    (long)(rl.rlim_cur / 4 / 2 / (rlim_t)ncpu);
	return n < 1 ? 1 : n > RING_MAX_PIPES ? RING_MAX_PIPES : (int)n;
}

struct ring *ring_open(struct tracefs_instance *inst)
{
	struct ring *r = xcalloc(1, sizeof(*r));
	int *cpus = NULL, i, n, err, npipes;

	n = online_cpus(&cpus);
	if (n <= 0) {
		free(r);
		errno = n < 0 ? -n : ENODEV;
		return NULL;
	}
	r->ncpu = n;
	r->wo.cpu_ids = cpus;
	r->wo.skip_tid = -1;
	r->subbuf_size = subbuf_size(inst);
	r->capacity = ring_pages(inst, r->subbuf_size);
	npipes = pipes_per_cpu(n);
	r->cpus = xcalloc(n, sizeof(*r->cpus));
	r->fds = xcalloc(n, sizeof(*r->fds));
	r->scratch_pages = xcalloc(n, sizeof(void **));
	r->scratch_n = xcalloc(n, sizeof(int));
	r->scratch_missed = xcalloc(n, sizeof(uint64_t));
	r->holds = xcalloc(n, sizeof(*r->holds));
	for (i = 0; i < n; i++) {
		r->cpus[i].fd = -1;
		pthread_mutex_init(&r->cpus[i].lock, NULL);
	}
	for (i = 0; i < n; i++) {
		struct ring_cpu *rc = &r->cpus[i];
		char rel[64];
		char *path;

		rc->cpu = cpus[i];
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", rc->cpu);
		path = tracefs_instance_get_file(inst, rel);
		rc->fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(path);
		if (rc->fd < 0)
			goto out_err;
		r->fds[i] = rc->fd;
		open_pipes(r, rc, npipes);
	}
	return r;

out_err:
	err = errno ? errno : EIO;
	ring_free(r);
	errno = err;
	return NULL;
}

void ring_free(struct ring *r)
{
	int i;

	if (!r)
		return;
	ring_keep_stop(r);
	for (i = 0; i < r->ncpu; i++) {
		struct ring_cpu *rc = &r->cpus[i];

		if (rc->fd >= 0)
			close(rc->fd);
		close_pipes(rc);
		pthread_mutex_destroy(&rc->lock);
		free(rc->buf);
		free(rc->pages);
	}
	free(r->cpus);
	free((void *)r->wo.cpu_ids);
	free(r->fds);
	free(r->scratch_pages);
	free(r->scratch_n);
	free(r->scratch_missed);
	free(r->holds);
	free(r);
}

uint64_t ring_capacity(const struct ring *r)
{
	return (uint64_t)r->capacity * r->subbuf_size;
}

int ring_subbuf_size(const struct ring *r)
{
	return r->subbuf_size;
}

int ring_busiest(const struct ring *r)
{
	return r->busiest;
}

const int *ring_fds(const struct ring *r, int *n)
{
	*n = r->ncpu;
	return r->fds;
}

uint64_t ring_missed(const struct ring *r)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < r->ncpu; i++)
		sum += r->cpus[i].missed;
	return sum;
}

/* A cursor over one CPU's queued pages. */
struct cursor {
	struct rb_page pg;	/* the page being read */
	void **pages;
	int npages;
	int next;		/* next page to load */
	const void *rec;	/* current record or NULL when exhausted */
	unsigned int len;	/* its length */
	int cpu;
	int subbuf_size;
	uint64_t *missed;
	const struct walk_opts *o;
};

/*
 * Events lost before @page, from its header: a u64 timestamp, then the
 * commit word whose top bits say "events were missed" (bit 31) and "their
 * count is stored after the data" (bit 30).  Read here rather than through
 * kbuffer_missed_events(), which answers only while positioned on the first
 * record (a page may start with a time extend) and truncates to int.
 */
#define RB_MISSED_EVENTS (1UL << 31)
#define RB_MISSED_STORED (1UL << 30)
#define RB_COMMIT_MASK	 (RB_MISSED_STORED - 1)

static uint64_t page_missed(const void *page, int subbuf_size)
{
	const unsigned char *p = page;
	unsigned long commit, count;
	size_t hdr = 8 + sizeof(long), len;

	memcpy(&commit, p + 8, sizeof(commit));
	if (!(commit & RB_MISSED_EVENTS))
		return 0;
	len = commit & RB_COMMIT_MASK;
	if (!(commit & RB_MISSED_STORED) || hdr + len + sizeof(long) > (size_t)subbuf_size)
		return 1;	/* some, count unknown */
	memcpy(&count, p + hdr + len, sizeof(count));
	return count ? count : 1;
}

static void cursor_load(struct cursor *c)
{
	c->rec = NULL;
	while (!c->rec && c->next < c->npages) {
		void *page = c->pages[c->next++];

		*c->missed += page_missed(page, c->subbuf_size);
		rb_page_load(&c->pg, page, c->subbuf_size);
		c->rec = rb_page_next(&c->pg, &c->len);
	}
}

static inline void cursor_next(struct cursor *c)
{
	c->rec = rb_page_next(&c->pg, &c->len);
	if (!c->rec)
		cursor_load(c);
}

/* 1 when a record was delivered, 0 when it was skipped */
static inline int deliver(struct cursor *c, tk_event_fn fn, void *arg)
{
	const struct walk_opts *o = c->o;
	struct tk_event ev = {
		.ts = c->pg.ts + (uint64_t)o->ts_offset,
		.cpu = o->cpu_ids ? o->cpu_ids[c->cpu] : c->cpu,
		.data = (void *)c->rec,
		.size = c->len,
	};
	const unsigned char *d = c->rec;

	if (ev.size >= 8) {
		uint16_t type;
		int32_t pid;

		memcpy(&type, d, 2);
		memcpy(&pid, d + 4, 4);
		ev.id = type;
		ev.pid = pid;
		/* an interrupt's record names the task it interrupted: a
		 * block request completed while we ran is not ours */
		if (o->skip && !(d[2] & TRACE_FLAGS_IRQ) &&
		    (pid == o->skip_pid ||
		     pid == __atomic_load_n(&o->skip_tid, __ATOMIC_RELAXED)))
			return 0;
	}
	fn(&ev, arg);
	return 1;
}

/* Start @c on its queue, where @h (if any) says the last round stopped. */
static void cursor_start(struct cursor *c, const struct ring_hold *h)
{
	const unsigned char *page;

	if (!h || !h->npages) {
		cursor_load(c);
		return;
	}
	page = c->pages[0];
	c->pg = h->pg;
	c->pg.data = page + h->data_off;
	c->rec = page + h->rec_off;
	c->len = h->len;
	c->next = 1;
}

/* Where @c stopped, into @h: its current page and those after it. */
static void cursor_hold(const struct cursor *c, struct ring_hold *h)
{
	const unsigned char *page;

	memset(h, 0, sizeof(*h));
	if (!c->rec)
		return;
	page = c->pages[c->next - 1];
	h->npages = c->npages - (c->next - 1);
	h->pg = c->pg;
	h->data_off = (size_t)(c->pg.data - page);
	h->rec_off = (size_t)((const unsigned char *)c->rec - page);
	h->len = c->len;
}

/*
 * Deliver the records of the queued pages: merged by timestamp when
 * @ordered, and then only those up to @until (delivered time); with @hold
 * (an array of @ncpu), each queue starts where hold[i] says and where it
 * stops is put back there.
 */
static long walk(void **const *pages, const int *npages, int ncpu, int subbuf_size, bool ordered,
		 uint64_t until, struct ring_hold *hold, uint64_t *missed,
		 const struct walk_opts *o, tk_event_fn fn, void *arg)
{
	struct cursor cur[ncpu > 0 ? ncpu : 1];
	long n = 0;
	int i;

	for (i = 0; i < ncpu; i++) {
		cur[i].pages = pages[i];
		cur[i].npages = npages[i];
		cur[i].next = 0;
		cur[i].cpu = i;
		cur[i].subbuf_size = subbuf_size;
		cur[i].missed = &missed[i];
		cur[i].o = o;
		cursor_start(&cur[i], hold ? &hold[i] : NULL);
	}
	if (ordered) {
		/* @until in the ring's clock (it is the records' time once
		 * their offset is added) */
		uint64_t last = until == UINT64_MAX ? UINT64_MAX :
				until - (uint64_t)o->ts_offset;

		if (until != UINT64_MAX && o->ts_offset > 0 &&
		    until < (uint64_t)o->ts_offset)
			last = 0;
		for (;;) {
			struct cursor *best = NULL;

			for (i = 0; i < ncpu; i++)
				if (cur[i].rec && (!best || cur[i].pg.ts < best->pg.ts))
					best = &cur[i];
			if (!best || best->pg.ts > last)
				break;
			n += deliver(best, fn, arg);
			cursor_next(best);
		}
		for (i = 0; hold && i < ncpu; i++)
			cursor_hold(&cur[i], &hold[i]);
	} else {
		for (i = 0; i < ncpu; i++)
			for (; cur[i].rec; cursor_next(&cur[i]))
				n += deliver(&cur[i], fn, arg);
	}
	return n;
}

long ring_walk(void **const *pages, const int *npages, int ncpu,
	       int subbuf_size, bool ordered, uint64_t *missed, tk_event_fn fn,
	       void *arg)
{
	return walk(pages, npages, ncpu, subbuf_size, ordered, UINT64_MAX, NULL,
		    missed, &(struct walk_opts){ 0 }, fn, arg);
}

long ring_walk_opts(void **const *pages, const int *npages, int ncpu,
		    int subbuf_size, bool ordered, const struct walk_opts *o,
		    uint64_t *missed, tk_event_fn fn, void *arg)
{
	return walk(pages, npages, ncpu, subbuf_size, ordered, UINT64_MAX, NULL,
		    missed, o, fn, arg);
}

long ring_walk_held(void **const *pages, const int *npages, int ncpu,
		    int subbuf_size, uint64_t until, struct ring_hold *hold,
		    uint64_t *missed, tk_event_fn fn, void *arg)
{
	return walk(pages, npages, ncpu, subbuf_size, true, until, hold,
		    missed, &(struct walk_opts){ 0 }, fn, arg);
}

/* Room for @n queued sub-buffers on @rc. */
static void reserve(struct ring *r, struct ring_cpu *rc, int n)
{
	int i;

	if (n <= rc->cap)
		return;
	rc->buf = xrealloc(rc->buf, (size_t)n * r->subbuf_size);
	rc->pages = xrealloc(rc->pages, n * sizeof(void *));
	for (i = 0; i < n; i++)
		rc->pages[i] = rc->buf + (size_t)i * r->subbuf_size;
	rc->cap = n;
}

static bool again(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK;
}

/* @len bytes (whole pages) from pipe @p into @rc's queue at @slot. */
static int read_pipe(struct ring *r, struct ring_cpu *rc, struct ring_pipe *p,
		     int slot, size_t len)
{
	char *to = rc->buf + (size_t)slot * r->subbuf_size;
	size_t have = 0;

	while (have < len) {
		ssize_t m = read(p->fd[0], to + have, len - have);

		if (m <= 0)
			return m < 0 ? -errno : -EIO;
		have += (size_t)m;
	}
	return (int)(len / r->subbuf_size);
}

void ring_set_aside(struct ring *r, struct ring_cpu *rc)
{
	size_t page = (size_t)r->subbuf_size;
	struct ring_pipe *p;
	ssize_t n;
	int next;

	while (rc->npipes) {
		p = &rc->pipes[rc->tail];
		if (p->kept + page > p->size) {
			next = (rc->tail + 1) % rc->npipes;
			if (next == rc->head || rc->pipes[next].kept)
				break;		/* all full */
			rc->tail = next;
			continue;
		}
		n = splice(rc->fd, NULL, p->fd[1], NULL, p->size - p->kept,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n <= 0)
			break;
		p->kept += (size_t)n;
		__atomic_add_fetch(&r->set_aside, (unsigned long)n / page, __ATOMIC_RELAXED);
	}
}

/*
 * Up to @max full pages of @rc into its queue from slot @slot, through a
 * pipe: first those set aside, then from the kernel's ring.  While it
 * works through pages set aside, the drain keeps setting the ring's full
 * pages aside behind them, so the ring stays empty until it catches up.
 * Returns the number read (0: none is full), or -errno.
 */
static int read_full(struct ring *r, struct ring_cpu *rc, int slot, int max)
{
	size_t want = (size_t)max * r->subbuf_size;
	struct ring_pipe *p = &rc->pipes[rc->head];
	ssize_t n;
	int k;

	while (!p->kept && rc->head != rc->tail) {
		rc->head = (rc->head + 1) % rc->npipes;
		p = &rc->pipes[rc->head];
	}
	if (p->kept) {
		if (want > p->kept)
			want = p->kept;
		k = read_pipe(r, rc, p, slot, want);
		if (k > 0) {
			p->kept -= want;
			ring_set_aside(r, rc);
		}
		return k;
	}
	if (max > SPLICE_PAGES)
		want = (size_t)SPLICE_PAGES * r->subbuf_size;
	n = splice(rc->fd, NULL, p->fd[1], NULL, want, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	if (n <= 0) {
		if (n < 0 && errno == EINVAL) {
			close_pipes(rc);	/* no splice here: read(2) */
			return 0;
		}
		return n == 0 || again() ? 0 : -errno;
	}
	return read_pipe(r, rc, p, slot, (size_t)n);
}

/* One page by read(2), partial if the writer is on it; 1 read, 0 empty. */
static int read_one(struct ring *r, struct ring_cpu *rc, int slot)
{
	ssize_t n = read(rc->fd, rc->pages[slot], r->subbuf_size);

	if (n > 0)
		return 1;
	return n == 0 || again() ? 0 : -errno;
}

/*
 * Fill @rc's queue with up to @max pages for one round of a drain: the full
 * pages, then once the CPU has none left, the page its writer is on (once
 * per drain, or to the end when flushing).  Returns the pages queued.
 */
static int fill_locked(struct ring *r, struct ring_cpu *rc, int max)
{
	int got = 0, k, held = r->holds[rc - r->cpus].npages;

	while (got < max && rc->npipes) {
		k = read_full(r, rc, held + got, max - got);
		if (k < 0)
			return k;
		if (!k)
			break;
		got += k;
	}
	while (got < max && !rc->partial) {
		k = read_one(r, rc, held + got);
		if (k < 0)
			return k;
		if (!k)
			break;
		got++;
		/* without a pipe every page comes this way */
		if (rc->npipes && !r->flush)
			rc->partial = true;
	}
	if (got < max)
		rc->empty = true;
	return got;
}

static int fill(struct ring *r, struct ring_cpu *rc, int max)
{
	int got;

	reserve(r, rc, r->holds[rc - r->cpus].npages + max);
	pthread_mutex_lock(&rc->lock);
	got = fill_locked(r, rc, max);
	pthread_mutex_unlock(&rc->lock);
	__atomic_store_n(&r->last_fill, time_mono_ns(), __ATOMIC_RELAXED);
	return got;
}

void ring_stop(struct ring *r)
{
	r->stop = true;
}

void ring_set_ts_offset(struct ring *r, int64_t offset)
{
	r->wo.ts_offset = offset;
}

void ring_set_prescan(struct ring *r, tk_event_fn fn, void *arg)
{
	r->prescan = fn;
	r->prescan_arg = arg;
}

void ring_skip_pid(struct ring *r, pid_t pid)
{
	r->wo.skip = pid >= 0;
	r->wo.skip_pid = pid;
}

void ring_flush(struct ring *r)
{
	r->flush = true;
}

/* A signal that ends the run is pending (blocked for the loop's signalfd). */
static bool stop_requested(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 ||
				     sigismember(&set, SIGTERM) == 1 ||
				     sigismember(&set, SIGHUP) == 1);
}

/* The pages of each CPU's queue from where its hold starts: moved to the
 * head of the queue, for the next round to read after them. */
static void keep_held(struct ring *r)
{
	int i;

	for (i = 0; i < r->ncpu; i++) {
		struct ring_cpu *rc = &r->cpus[i];
		int first = r->scratch_n[i] - r->holds[i].npages;

		if (r->holds[i].npages && first > 0)
			memmove(rc->buf, rc->buf + (size_t)first * r->subbuf_size,
				(size_t)r->holds[i].npages * r->subbuf_size);
	}
}

static bool any_held(const struct ring *r)
{
	int i;

	for (i = 0; i < r->ncpu; i++)
		if (r->holds[i].npages)
			return true;
	return false;
}

/* Walk the queues of scratch_pages/scratch_n (from their holds when
 * @ordered) and count what each CPU missed. */
static long walk_queues(struct ring *r, bool ordered, uint64_t until,
			tk_event_fn fn, void *arg)
{
	long n;
	int i;

	memset(r->scratch_missed, 0, r->ncpu * sizeof(*r->scratch_missed));
	n = walk(r->scratch_pages, r->scratch_n, r->ncpu, r->subbuf_size,
		 ordered, until, ordered ? r->holds : NULL, r->scratch_missed,
		 &r->wo, fn, arg);
	for (i = 0; n >= 0 && i < r->ncpu; i++)
		r->cpus[i].missed += r->scratch_missed[i];
	return n;
}

/*
 * An ordered drain merges what each round read.  The CPUs are read one
 * after the other, so a record that one CPU wrote after the round began
 * may be read while an earlier one of another CPU, read before it was
 * written, waits for the next round: the block request completed on one
 * CPU would come before its insert on another.  So a round delivers only
 * the records up to the time it began (CLOCK_MONOTONIC, the records' time
 * once their offset is added); the later ones stay queued for the next
 * round, which reads every CPU again.  A round that reads nothing new
 * delivers them all, as does the end of the drain (its page budget, a
 * stop): a drain leaves nothing held.
 */
long ring_drain(struct ring *r, bool ordered, tk_event_fn fn, void *arg)
{
	int max = ordered ? ORDERED_MAX_PAGES : UNORDERED_MAX_PAGES;
	int rounds = DRAIN_MAX_PAGES / max;
	bool stop_after = false, hold = ordered && !r->flush, first = true;
	long total = 0, n;
	int i;

	int pages[r->ncpu > 0 ? r->ncpu : 1];
	uint64_t ignored[r->ncpu > 1 ? r->ncpu - 1 : 1];

	for (i = 0; i < r->ncpu; i++)
		pages[i] = 0;
	r->stop = false;
	r->busiest = 0;
	while (rounds-- > 0 && !r->stop && !stop_after) {
		uint64_t until = hold ? time_mono_ns() : UINT64_MAX;
		int busy = 0;

		for (i = 0; i < r->ncpu; i++) {
			struct ring_cpu *rc = &r->cpus[i];
			int got;

			if (hold || first) {
				/* the first round, and each of an ordered
				 * drain, reads every CPU to its writer */
				rc->empty = false;
				rc->partial = false;
			}
			got = rc->empty ? 0 : fill(r, rc, max);
			if (got < 0)
				return got;
			pages[i] += got;
			if (pages[i] > r->busiest)
				r->busiest = pages[i];
			r->scratch_pages[i] = rc->pages;
			r->scratch_n[i] = r->holds[i].npages + got;
			busy += got > 0;
		}
		first = false;
		if (!busy && !any_held(r))
			break;
		memset(ignored, 0, sizeof(ignored));
		/* the CPUs are walked one after the other: the records of all
		 * but the first, walked first anyway, are shown beforehand */
		if (!ordered && r->prescan && busy > 1) {
			struct walk_opts wo = r->wo;

			wo.cpu_ids = wo.cpu_ids ? wo.cpu_ids + 1 : NULL;
			walk(r->scratch_pages + 1, r->scratch_n + 1, r->ncpu - 1,
			     r->subbuf_size, false, UINT64_MAX, NULL, ignored,
			     &wo, r->prescan, r->prescan_arg);
		}
		/* (a drain that is not held, the last one, still starts
		 * where an ordered one that failed stopped) */
		n = walk_queues(r, ordered, until, fn, arg);
		if (n < 0)
			return n;
		total += n;
		if (ordered)
			keep_held(r);
		if (!busy)
			break;		/* nothing new: the held ones went */
		/*
		 * Pages that held only our own records (skip_pid): what comes
		 * now is the records our reads make (raw_syscalls), and
		 * reading on would feed itself, a page per read, at full CPU.
		 * The rest waits for the next drain.
		 */
		if (!n && r->wo.skip && !any_held(r))
			stop_after = true;
		/* Ctrl-C waits in the loop's signalfd: let it be seen now, so
		 * that stopping (which ends the probes' cost) comes first */
		if (stop_requested())
			stop_after = true;
	}
	if (ordered && any_held(r)) {
		/* the drain ends: what is held goes, in order */
		for (i = 0; i < r->ncpu; i++) {
			r->scratch_pages[i] = r->cpus[i].pages;
			r->scratch_n[i] = r->holds[i].npages;
		}
		n = walk_queues(r, true, UINT64_MAX, fn, arg);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}
