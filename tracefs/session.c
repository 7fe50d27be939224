// SPDX-License-Identifier: GPL-2.0
/*
 * The session: our instance, our dynamic events, the sources, and undoing
 * all of it.  Every kernel-side change is recorded in the session as it is
 * made, so teardown after a partial setup removes exactly what exists.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "common/log.h"
#include "common/detach.h"
#include "common/json.h"
#include "common/loop.h"
#include "common/perf.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "tracefs/format.h"
#include "tracefs/internal.h"
#include "tracefs/ring.h"
#include "tracefs/session.h"

struct session {
	struct session_opts o;
	char name[64];
	struct tracefs_instance *inst;
	bool instance_created;
	bool has_dynevents;
	bool group_handed;		/* the release helper removes the group */
	bool started;
	bool closed;
	struct tp *tps;
	struct ring *ring;
	struct perf_group *group;	/* the TP_COUNT counters */
	int ncounters;
	int release_token;		/* detach_release() until we closed ours */
	char *checked_filter;		/* last filter the kernel accepted */
	pid_t *tids;			/* -p/-t scope for perf sources */
	int ntids;
	tk_event_fn fn;
	void *arg;
	uint64_t lost_seen;		/* for -v live reports */
	pid_t self;			/* our records are dropped */
	struct comm_track comm;		/* renames seen in the records */
	bool track_comm;
	int pace_fd;			/* timer re-arming the ring fds */
	uint64_t last_drain;		/* when on_ring() last drained */
	char err[512];
	struct session *next_open;	/* atexit list */
};

static struct session *open_sessions;

static void set_err(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_err(struct session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

void session_set_error(struct session *s, const char *msg)
{
	set_err(s, "%s", msg);
}

void session_note_dynevents(struct session *s)
{
	s->has_dynevents = true;
}

const char *session_error(const struct session *s)
{
	return s->err[0] ? s->err : "unknown error";
}

const char *session_name(const struct session *s)
{
	return s->name;
}

struct tep_handle *session_tep(struct session *s)
{
	return format_tep();
}

int tracefs_access(const char **dir)
{
	const char *d = NULL;

	if (geteuid() != 0 && access("/sys/kernel/tracing/events", W_OK) != 0)
		return -EACCES;
	if (tracefs_tracing_dir_is_mounted(true, &d) < 0 || !d)
		return -ENODEV;
	if (access(d, W_OK) != 0)
		return -errno;
	*dir = d;
	return 0;
}

static void close_all_at_exit(void)
{
	while (open_sessions)
		session_close(open_sessions);
}

struct session *session_new(const struct session_opts *o)
{
	struct session *s = xcalloc(1, sizeof(*s));
	unsigned long long start = 0;

	if (o)
		s->o = *o;
	s->release_token = -1;
	s->pace_fd = -1;
	s->self = getpid();
	task_start_time(getpid(), &start);
	snprintf(s->name, sizeof(s->name), SESSION_PREFIX "%d_%llu", getpid(), start);
	return s;
}

static void track_open(struct session *s)
{
	static bool registered;

	if (!registered) {
		atexit(close_all_at_exit);
		registered = true;
	}
	s->next_open = open_sessions;
	open_sessions = s;
}

static void untrack(struct session *s)
{
	struct session **p;

	for (p = &open_sessions; *p; p = &(*p)->next_open)
		if (*p == s) {
			*p = s->next_open;
			break;
		}
}

static int inst_write(struct session *s, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int inst_write(struct session *s, const char *file, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (tracefs_instance_file_write(s->inst, file, buf) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* The scope of -p (all threads of a process) or -t (one thread). */
static int load_scope(struct session *s)
{
	int n;

	if (s->o.tid > 0) {
		if (!task_exists(s->o.tid)) {
			set_err(s, "no such thread: %d", s->o.tid);
			return -ESRCH;
		}
		s->tids = xmalloc(sizeof(pid_t));
		s->tids[0] = s->o.tid;
		s->ntids = 1;
	} else if (s->o.pid > 0) {
		n = task_threads(s->o.pid, &s->tids);
		if (n <= 0) {
			set_err(s, "no such process: %d", s->o.pid);
			return -ESRCH;
		}
		s->ntids = n;
	}
	return 0;
}

static int setup_instance(struct session *s)
{
	int err = 0, i;

	err = inst_write(s, "options/overwrite", "0");
	/* before any event is enabled: the kernel disables recording while
	 * it resizes a ring, and what it drops then is counted nowhere */
	if (!err && s->o.buffer_kb)
		err = inst_write(s, "buffer_size_kb", "%lu", s->o.buffer_kb);
	if (!err && s->o.wakeup_percent >= 0 &&
	    tracefs_file_exists(s->inst, "buffer_percent"))
		err = inst_write(s, "buffer_percent", "%d", s->o.wakeup_percent);
	if (err) {
		set_err(s, "cannot configure instance %s: %s", s->name, strerror(-err));
		return err;
	}
	if (s->ntids) {
		/* set_event_pid matches the task's pid, i.e. the thread id;
		 * event-fork adds the threads (and children) created later. */
		/* one write for all threads: each write waits for the kernel */
		char *list = xcalloc(s->ntids, 12);
		size_t len = 0;

		for (i = 0; i < s->ntids; i++)
			len += sprintf(list + len, "%s%d", i ? " " : "", s->tids[i]);
		if (tracefs_instance_file_append(s->inst, "set_event_pid", list) < 0)
			err = errno ? -errno : -EIO;
		free(list);
		if (!err && s->o.pid > 0)
			err = inst_write(s, "options/event-fork", "1");
		if (err) {
			set_err(s, "cannot scope events to pid %d: %s",
				s->o.pid ? s->o.pid : s->o.tid, strerror(-err));
			return err;
		}
	}
	return 0;
}

int session_open(struct session *s)
{
	const char *dir;
	int err;

	err = tracefs_access(&dir);
	if (err == -EACCES || err == -EPERM) {
		set_err(s, "cannot access the tracing filesystem: %s (tracing needs root)",
			strerror(-err));
		return err;
	}
	if (err) {
		set_err(s, "cannot mount the tracing filesystem: %s", strerror(-err));
		return err;
	}
	err = load_scope(s);
	if (err)
		return err;
	session_cleanup_stale();
	track_open(s);
	return 0;
}

/* The instance is made on first need: counting-only sessions have none. */
static int ensure_instance(struct session *s)
{
	int err;

	if (s->inst)
		return 0;
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst) {
		err = errno ? -errno : -EIO;
		set_err(s, "cannot create instance %s: %s", s->name, strerror(-err));
		return err;
	}
	s->instance_created = true;
	return setup_instance(s);
}

/*
 * The kernel's reason for the last failed write, from error_log:
 *   [  409.380574] event filter parse error: error: Field not found
 *     Command: bogus ==
 *                    ^
 * gives "Field not found".
 */
static void reason_from(const char *log, char *buf, size_t n)
{
	const char *p, *q;

	buf[0] = '\0';
	if (!log)
		return;
	for (p = NULL, q = log; (q = strstr(q, "error: ")); q++)
		p = q;
	if (p) {
		p += strlen("error: ");
		snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
	}
}

/* From our instance's error_log (ours to clear before each write). */
static void kernel_reason(struct session *s, char *buf, size_t n)
{
	char *log = tracefs_error_all(s->inst);

	reason_from(log, buf, n);
	free(log);
}

/*
 * Dynamic events report into the top-level error_log, which is not ours to
 * clear: only what was added since @before counts.
 */
void session_kernel_reason(const char *before, char *buf, size_t n)
{
	char *log = tracefs_error_all(NULL);
	size_t skip = before ? strlen(before) : 0;

	buf[0] = '\0';
	if (log && strcmp(log, before ? before : "") != 0)
		reason_from(strlen(log) > skip && before && !strncmp(log, before, skip) ?
			    log + skip : log, buf, n);
	free(log);
}

static int apply_filter(struct session *s, struct tp *tp, const char *filter)
{
	char file[512], why[256];

	/*
	 * Setting an ftrace filter waits for an RCU grace period: for
	 * counters and samplers (only checked here, applied through perf) a
	 * filter the kernel already accepted is not checked again for every
	 * event (syscount -x puts one filter on ~360 events).  perf still
	 * refuses it where it does not fit.
	 */
	if (tp->mode != TP_RECORD && s->checked_filter &&
	    !strcmp(s->checked_filter, filter))
		return 0;

	snprintf(file, sizeof(file), "events/%s/%s/filter", tp->system, tp->name);
	tracefs_error_clear(s->inst);
	if (tracefs_instance_file_write(s->inst, file, filter) >= 0) {
		if (tp->mode != TP_RECORD) {	/* only checked here */
			tracefs_instance_file_write(s->inst, file, "0");
			free(s->checked_filter);
			s->checked_filter = xstrdup(filter);
		}
		return 0;
	}
	kernel_reason(s, why, sizeof(why));
	set_err(s, "filter '%s' rejected by the kernel: %s", filter,
		why[0] ? why : strerror(errno ? errno : EINVAL));
	return -EINVAL;
}

static int open_perf(struct session *s, struct tp *tp, const char *filter)
{
	struct perf_scope scope = { s->ntids ? s->tids : NULL, s->ntids, s->o.tree };

	if (tp->mode == TP_COUNT) {
		/* opened all at once by session_start() */
		tp->filter = filter ? xstrdup(filter) : NULL;
		s->ncounters++;
	} else {
		tp->sampler = perf_sampler_open(tp->id, &scope, filter, true, 64);
		if (!tp->sampler) {
			set_err(s, "cannot sample %s:%s with perf_event: %s",
				tp->system, tp->name, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

struct tp *session_add(struct session *s, const char *sys, const char *name,
		       enum tp_mode mode, const char *filter)
{
	struct tep_event *ev = NULL;
	struct tp *tp;
	int err, id = -1;

	/*
	 * Counting needs only the id, and without a filter to check not even
	 * that now: the counters' opens read their ids side by side
	 * (open_one()), ~10 us each for syscount's 360.
	 */
	if (mode == TP_COUNT && !(filter && *filter))
		id = 0;
	else if (mode == TP_COUNT)
		id = format_event_id(sys, name);
	else
		ev = format_load(sys, name);
	if (!ev && id < 0) {
		if (mode == TP_COUNT)
			errno = -id;
		err = errno;
		if (err == ENOENT)
			set_err(s, "tracepoint %s:%s does not exist", sys, name);
		else
			set_err(s, "cannot read the format of %s:%s: %s", sys, name,
				strerror(err));
		errno = err;
		return NULL;
	}
	tp = xcalloc(1, sizeof(*tp));
	tp->system = xstrdup(sys);
	tp->name = xstrdup(name);
	tp->id = ev ? format_id(ev) : id ? id : -1;
	tp->event = ev;
	tp->mode = mode;
	tp->next = s->tps;
	s->tps = tp;
	err = mode == TP_RECORD || (filter && *filter) ? ensure_instance(s) : 0;
	if (!err && filter && *filter)
		err = apply_filter(s, tp, filter);
	if (!err && mode != TP_RECORD)
		err = open_perf(s, tp, filter && *filter ? filter : NULL);
	if (err) {
		errno = -err;
		return NULL;
	}
	return tp;
}

bool session_has_kprobes(void)
{
	return tracefs_file_exists(NULL, "kprobe_events");
}

bool session_has_uprobes(void)
{
	return tracefs_file_exists(NULL, "uprobe_events");
}

static struct tp *add_dynevent(struct session *s, struct tracefs_dynevent *de,
			       const char *what, const char *event,
			       enum tp_mode mode, const char *filter)
{
	char why[256], *before;

	if (!de) {
		set_err(s, "cannot describe %s %s: %s", what, event, strerror(errno));
		return NULL;
	}
	before = tracefs_error_all(NULL);
	if (tracefs_dynevent_create(de) < 0) {
		int err = errno ? errno : EINVAL;

		session_kernel_reason(before, why, sizeof(why));
		free(before);
		set_err(s, "the kernel rejected %s %s: %s", what, event,
			why[0] ? why : strerror(err));
		tracefs_dynevent_free(de);
		errno = err;
		return NULL;
	}
	free(before);
	tracefs_dynevent_free(de);
	s->has_dynevents = true;
	return session_add(s, s->name, event, mode, filter);
}

/* One probe through the writer of session_add_probes(), with @filter. */
static struct tp *add_probe(struct session *s, const struct session_probe *p,
			    enum tp_mode mode, const char *filter)
{
	int err = session_define_probes(s, p, 1);

	if (err) {
		errno = -err;
		return NULL;
	}
	return session_add(s, s->name, p->event, mode, filter);
}

struct tp *session_add_kprobe(struct session *s, const char *event,
			      const char *addr, const char *args, bool ret,
			      enum tp_mode mode, const char *filter)
{
	struct session_probe p = {
		.event = event, .addr = addr, .args = args, .ret = ret,
	};

	return add_probe(s, &p, mode, filter);
}

struct tp *session_add_uprobe(struct session *s, const char *event,
			      const char *path, unsigned long long offset,
			      const char *args, bool ret, enum tp_mode mode,
			      const char *filter)
{
	struct session_probe p = {
		.event = event, .path = path, .offset = offset, .args = args,
		.ret = ret,
	};

	return add_probe(s, &p, mode, filter);
}

/*
 * The README lists the e: syntax even where CONFIG_EPROBE_EVENTS is off;
 * such a kernel refuses every 'e:' definition with EINVAL, and no parser
 * says why in error_log.  When the kernel gave no reason, a bare event
 * probe on the same tracepoint tells the two apart.
 */
static bool eprobes_work(struct session *s, const char *sys, const char *name)
{
	struct tracefs_dynevent *de;
	bool ok;

	de = tracefs_eprobe_alloc(s->name, "tapkit_check", sys, name, NULL);
	if (!de)
		return true;
	ok = tracefs_dynevent_create(de) == 0;
	if (ok) {
		s->has_dynevents = true;
		tracefs_dynevent_destroy(de, false);
	}
	tracefs_dynevent_free(de);
	return ok;
}

struct tp *session_add_eprobe(struct session *s, const char *event,
			      const char *sys, const char *name,
			      const char *args, enum tp_mode mode,
			      const char *filter)
{
	struct tracefs_dynevent *de;
	char *before = tracefs_error_all(NULL), why[256];
	bool described;
	struct tp *tp;
	int err;

	de = tracefs_eprobe_alloc(s->name, event, sys, name, args);
	described = de != NULL;
	tp = add_dynevent(s, de, "event probe", event, mode, filter);
	if (tp || errno != EINVAL || !described) {
		free(before);
		return tp;
	}
	err = errno;
	session_kernel_reason(before, why, sizeof(why));
	free(before);
	if (!why[0] && !eprobes_work(s, sys, name)) {
		set_err(s, "this kernel has no event probes (CONFIG_EPROBE_EVENTS)");
		err = ENOTSUP;
	}
	errno = err;
	return tp;
}

/*
 * With -p, set_event_pid also admits children (event-fork cannot tell a
 * thread from a process), so records are checked against the thread group.
 * A task already gone when its records are read cannot be checked: it is
 * in the target's family (set_event_pid said so) and is kept.
 */
static void scoped(const struct tk_event *ev, void *arg)
{
	struct session *s = arg;
	pid_t tgid = ev->pid == s->o.pid ? s->o.pid : task_cache_tgid(ev->pid);

	if (tgid > 0 && tgid != s->o.pid)
		return;
	s->fn(ev, s->arg);
}

static void report_new_loss(struct session *s)
{
	uint64_t lost;

	if (!tk_verbose)
		return;
	lost = session_lost(s, NULL, 0);
	if (lost > s->lost_seen) {
		pr_info("%llu events lost so far", (unsigned long long)lost);
		s->lost_seen = lost;
	}
}

/* Renames update the name cache; then the record goes on (or not). */
static void tracked(const struct tk_event *ev, void *arg)
{
	struct session *s = arg;

	if (comm_track_event(&s->comm, ev))
		return;
	if (s->o.pid > 0 && !s->o.tree)
		scoped(ev, s);
	else
		s->fn(ev, s->arg);
}

struct tp *session_tps(struct session *s)
{
	return s->tps;
}

void session_drain_stop(struct session *s)
{
	if (s->ring)
		ring_stop(s->ring);
}

long session_drain(struct session *s)
{
	bool scope = s->o.pid > 0 && !s->o.tree;
	tk_event_fn fn = s->track_comm ? tracked : scope ? scoped : s->fn;
	void *arg = s->track_comm || scope ? (void *)s : s->arg;
	long n = 0, m;
	struct tp *tp;

	if (!s->started)
		return 0;
	if (s->ring) {
		n = ring_drain(s->ring, s->o.ordered, fn, arg);
		if (n < 0)
			return n;
	}
	for (tp = s->tps; tp; tp = tp->next) {
		if (!tp->sampler)
			continue;
		m = perf_sampler_drain(tp->sampler, s->fn, s->arg);
		if (m < 0)
			return m;
		n += m;
	}
	report_new_loss(s);
	if (n > 0 && s->o.batch_end)
		s->o.batch_end(s->arg);
	return n;
}

static int open_one(struct session *s, struct tp *tp)
{
	struct perf_scope scope = { s->ntids ? s->tids : NULL, s->ntids, s->o.tree };

	if (tp->id < 0 && (tp->id = format_event_id(tp->system, tp->name)) < 0)
		return tp->id;
	tp->counter = perf_counter_open(tp->id, &scope, tp->filter, s->group);
	return tp->counter ? 0 : -errno;
}

/*
 * Counters are opened from this thread alone: the kernel serializes
 * tracepoint perf_event_open() under event_mutex, and openers on several
 * threads hand that mutex back and forth between CPUs, which measured five
 * times slower (720 syscall counters: 30 ms against 6 ms).
 */
static int open_counters(struct session *s)
{
	struct perf_scope scope = { s->ntids ? s->tids : NULL, s->ntids, s->o.tree };
	struct tp *tp;
	int err = 0;

	if (!s->ncounters)
		return 0;
	s->group = perf_group_open(&scope);
	if (!s->group) {
		err = -errno;
		set_err(s, "cannot open perf_event counters: %s", strerror(-err));
		return err;
	}
	for (tp = s->tps; tp && !err; tp = tp->next) {
		if (tp->mode != TP_COUNT || !(err = open_one(s, tp)))
			continue;
		if (tp->id < 0 && err == -ENOENT)
			set_err(s, "tracepoint %s:%s does not exist", tp->system, tp->name);
		else
			set_err(s, "cannot count %s:%s with perf_event: %s",
				tp->system, tp->name, strerror(-err));
	}
	return err;
}

/* In the release helper, after its closes. */
static void remove_group(void *name)
{
	dynevents_remove_group(name);
}

/*
 * Releasing a tracepoint's last perf event waits for an RCU grace period
 * under the kernel's event_mutex, tracepoint after tracepoint: for
 * syscount's ~360 counters that measured 16-18 s on an idle machine (perf
 * stat pays the same).  The counters are disabled by now, so a detached
 * helper holds the last references while the kernel releases them, and our
 * own closes return at once.
 */
static void free_counters(struct session *s)
{
	int *fds, nfds = 0, n, i, token = -1;
	const int *cfds;
	struct tp *tp;

	if (!s->ncounters)
		return;
	if (s->group && s->ncounters > 8) {
		n = perf_group_size(s->group);
		fds = xcalloc((size_t)(s->ncounters + 1) * n, sizeof(int));
		for (tp = s->tps; tp; tp = tp->next) {
			if (!tp->counter)
				continue;
			cfds = perf_counter_fds(tp->counter, &n);
			for (i = 0; i < n; i++)
				fds[nfds++] = cfds[i];
		}
		nfds += perf_group_fds(s->group, fds + nfds);
		/* our dynamic events stay busy until its last close: the
		 * helper removes the group then (stale.c leaves a group alone
		 * while its helper lives, and removes it if the helper dies) */
		token = s->has_dynevents ?
			detach_release_then(fds, nfds, s->name, remove_group, s->name) :
			detach_release(fds, nfds);
		if (token < 0)
			pr_info("closing %d perf events here: cannot fork", nfds);
		else
			s->group_handed = s->has_dynevents;
		free(fds);
	}
	for (tp = s->tps; tp; tp = tp->next) {
		perf_counter_free(tp->counter);
		tp->counter = NULL;
	}
	/* the leaders are closed by session_close() after this: keep the
	 * helper waiting until then, so that its closes are the last */
	s->release_token = token;
}

static int on_ready(struct loop *l, int fd, void *arg)
{
	long n = session_drain(arg);

	return n < 0 ? (int)n : 0;
}

/*
 * Pacing: a ring fd wakes us once (EPOLLONESHOT) and stays quiet until the
 * pace timer re-arms it.  The first record after a quiet spell is handled at
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
 */
#define RING_WORST_BYTES_PER_MS (250 * 1024)

static uint64_t pause_ns(struct session *s, uint64_t now)
{
	uint64_t pace = (s->o.pace_ms ? s->o.pace_ms : 10) * 1000000ULL;
	uint64_t cap = 1000000ULL * ring_capacity(s->ring) / RING_WORST_BYTES_PER_MS / 2;
	uint64_t since = now - s->last_drain;
	int busiest = ring_busiest(s->ring);

	s->last_drain = now;
	if (cap < pace)
		pace = cap > 1000000 ? cap : 1000000;
	if (busiest) {
		/* busiest pages out of ring_capacity() bytes in @since */
		double quarter = (double)since * (double)ring_capacity(s->ring) / 4 /
				 ((double)busiest * ring_subbuf_size(s->ring));

		if (quarter < (double)pace)
			pace = (uint64_t)quarter;
	}
	return pace;
}

static int rearm(struct loop *l, struct session *s)
{
	const int *fds;
	int i, k;

	ring_expect(s->ring, time_mono_ns());
	fds = ring_fds(s->ring, &k);
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
	struct session *s = arg;
	long n = session_drain(s);
	uint64_t now = time_mono_ns(), ms = pause_ns(s, now) / 1000000;

	if (n < 0)
		return (int)n;
	ring_expect(s->ring, now + ms * 1000000);
	/* under a millisecond: read again as soon as there is something */
	if (!ms)
		return rearm(l, s);
	if (s->pace_fd < 0) {
		s->pace_fd = loop_timer(l, ms, 0, on_pace, s);
		return s->pace_fd < 0 ? s->pace_fd : 0;
	}
	return loop_timer_arm(s->pace_fd, ms);
}

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

/*
 * Timestamps: the instance keeps its default clock ("local", the scheduler
 * clock), because switching clocks resets the ring and waits for an RCU
 * grace period (20-40 ms of start-up here).  Its offset to CLOCK_MONOTONIC
 * is measured once, as trace-cmd does, by writing a marker between two
 * clock_gettime() calls and reading back the marker's timestamp; no event
 * is enabled yet, so the ring holds nothing else.  Both clocks tick at the
 * TSC's rate; they drift apart only by NTP's frequency correction (ppm).
 */
static int sync_clock(struct session *s)
{
	struct mark_search m = { .print_id = format_event_id("ftrace", "print") };
	uint64_t t0, t1;
	long n;

	t0 = time_mono_ns();
	n = tracefs_instance_file_write(s->inst, "trace_marker", CLOCK_MARK);
	t1 = time_mono_ns();
	if (n > 0 && m.print_id >= 0) {
		ring_skip_pid(s->ring, -1);
		n = ring_drain(s->ring, false, find_mark, &m);
	}
	if (m.found) {
		ring_set_ts_offset(s->ring, (int64_t)(t0 / 2 + t1 / 2 - m.ts));
		return 0;
	}
	/* no markers here (e.g. options/markers off): the slow way */
	return inst_write(s, "trace_clock", "mono");
}

static int enable_event(struct session *s, const struct tp *tp, bool on)
{
	/* the event's own file: tracefs_event_enable() would match its
	 * arguments as regexes against every event of the system */
	if (tracefs_event_file_write(s->inst, tp->system, tp->name, "enable",
				     on ? "1" : "0") < 0)
		return errno ? -errno : -EIO;
	return 0;
}

static int start_ring(struct session *s, struct loop *l)
{
	const int *fds;
	int i, n, err;

	s->ring = ring_open(s->inst);
	if (!s->ring) {
		err = -errno;
		set_err(s, "cannot open the ring buffers of %s: %s", s->name,
			strerror(errno));
		return err;
	}
	err = sync_clock(s);
	if (err) {
		set_err(s, "cannot read the clock of %s: %s", s->name, strerror(-err));
		return err;
	}
	/*
	 * Our own records are dropped here rather than with the instance's
	 * set_event_notrace_pid, which makes every record of every task take
	 * the kernel's slower filtered path (~40 ns each).  Reading the ring
	 * makes a few syscalls per batch, not per record, so there is no
	 * feedback loop to break.
	 */
	ring_skip_pid(s->ring, s->self);
	/* a handler or the output that holds the loop 2 ms past a drain's
	 * time: the keeper sets the full pages aside */
	err = ring_keep_start(s->ring, 2000000);
	if (err < 0)
		pr_info("no ring keeper (%s): a busy handler may lose events",
			strerror(-err));
	s->last_drain = time_mono_ns();
	/* a ring woken at a watermark is read in batches already */
	fds = ring_fds(s->ring, &n);
	for (i = 0; i < n; i++) {
		err = s->o.wakeup_percent > 0 ? loop_add(l, fds[i], on_ready, s)
					      : loop_add_once(l, fds[i], on_ring, s);
		if (err < 0) {
			set_err(s, "cannot poll the ring buffers: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

int session_start(struct session *s, struct loop *l, tk_event_fn fn, void *arg)
{
	bool records = false;
	struct tp *tp;
	const int *fds;
	int i, n, err;

	s->fn = fn;
	s->arg = arg;
	err = open_counters(s);
	if (err)
		return err;
	for (tp = s->tps; tp; tp = tp->next)
		records |= tp->mode == TP_RECORD;
	if (records) {
		comm_track_init(s, &s->comm);
		s->track_comm = s->comm.exec_id >= 0 || s->comm.rename_id >= 0;
	}
	if (records && (err = start_ring(s, l)) < 0)
		return err;
	for (tp = s->tps; tp; tp = tp->next) {
		if (tp->mode == TP_RECORD) {
			err = enable_event(s, tp, true);
			if (err) {
				set_err(s, "cannot enable %s:%s: %s", tp->system,
					tp->name, strerror(-err));
				return err;
			}
		} else if (tp->sampler) {
			fds = perf_sampler_fds(tp->sampler, &n);
			for (i = 0; i < n; i++)
				loop_add(l, fds[i], on_ready, s);
			perf_sampler_enable(tp->sampler);
		}
	}
	/* perf rings wake the reader only at their watermark: a quiet one
	 * is drained on a timer */
	for (tp = s->tps; tp && !s->o.drain_ms; tp = tp->next)
		if (tp->sampler)
			s->o.drain_ms = 100;
	if (s->o.drain_ms)
		loop_timer(l, s->o.drain_ms, s->o.drain_ms, on_ready, s);
	if (s->group && (err = perf_group_enable(s->group)) < 0) {
		set_err(s, "cannot enable the counters: %s", strerror(-err));
		return err;
	}
	s->started = true;
	return 0;
}

void session_stop(struct session *s)
{
	struct tp *tp;

	for (tp = s->tps; tp; tp = tp->next) {
		if (tp->mode == TP_RECORD && s->inst)
			enable_event(s, tp, false);
		else if (tp->sampler)
			perf_sampler_disable(tp->sampler);
	}
	if (s->group)
		perf_group_disable(s->group);
	if (s->ring) {
		unsigned long kept = ring_keep_stop(s->ring);

		if (kept)
			pr_info("%lu sub-buffers were set aside while the reader was busy",
				kept);
		ring_flush(s->ring);
	}
}

uint64_t session_count(const struct tp *tp)
{
	return tp->counter ? perf_counter_read(tp->counter) : 0;
}

/* "overrun: N" and "dropped events: N" of the instance's per-CPU stats */
static uint64_t cpu_stat_lost(struct session *s, int cpu)
{
	char file[64], *buf, *p;
	uint64_t lost = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	buf = tracefs_instance_file_read(s->inst, file, NULL);
	if (!buf)
		return 0;
	if ((p = strstr(buf, "\noverrun:")) || (p = strstr(buf, "overrun:")))
		lost += strtoull(strchr(p, ':') + 1, NULL, 10);
	if ((p = strstr(buf, "dropped events:")))
		lost += strtoull(p + strlen("dropped events:"), NULL, 10);
	free(buf);
	return lost;
}

uint64_t session_lost(struct session *s, uint64_t *per_cpu, int max_cpu)
{
	uint64_t total = 0, v;
	struct tp *tp;
	int cpu;

	if (s->ring && s->inst) {
		for (cpu = 0; cpu < max_cpu || (!per_cpu && cpu < 1024); cpu++) {
			char file[64];

			snprintf(file, sizeof(file), "per_cpu/cpu%d", cpu);
			if (!tracefs_dir_exists(s->inst, file))
				break;
			v = cpu_stat_lost(s, cpu);
			if (per_cpu && cpu < max_cpu)
				per_cpu[cpu] = v;
			total += v;
		}
		/* the pages' flags are a floor when stats are unavailable */
		if (ring_missed(s->ring) > total)
			total = ring_missed(s->ring);
	}
	for (tp = s->tps; tp; tp = tp->next)
		if (tp->sampler)
			total += perf_sampler_lost(tp->sampler);
	return total;
}

bool session_report_lost(struct session *s)
{
	uint64_t per_cpu[256] = { 0 };
	uint64_t total = session_lost(s, per_cpu, 256);
	const char *opt = s->o.size_option ? s->o.size_option : "-b/--buffer-kb";
	char buf[512];
	int cpu, len = 0;

	if (!total)
		return false;
	for (cpu = 0; cpu < 256 && len < (int)sizeof(buf) - 32; cpu++)
		if (per_cpu[cpu])
			len += snprintf(buf + len, sizeof(buf) - len, "%scpu%d %llu",
					len ? ", " : "", cpu,
					(unsigned long long)per_cpu[cpu]);
	if (len)
		pr_warn("%llu events lost (%s): try a larger %s",
			(unsigned long long)total, buf, opt);
	else
		pr_warn("%llu events lost: try a larger %s",
			(unsigned long long)total, opt);
	return true;
}

void session_json_lost(struct session *s, struct json *j)
{
	uint64_t per_cpu[256] = { 0 };
	uint64_t total = session_lost(s, per_cpu, 256);
	int cpu, ncpu = 0;

	for (cpu = 0; cpu < 256; cpu++)
		if (per_cpu[cpu])
			ncpu = cpu + 1;
	json_uint(j, "lost", total);
	json_arr_open(j, "lost_per_cpu");
	for (cpu = 0; cpu < ncpu; cpu++)
		json_elem_uint(j, per_cpu[cpu]);
	json_arr_close(j);
}

void session_json_summary(struct session *s, FILE *f)
{
	struct json j;

	if (!session_lost(s, NULL, 0))
		return;
	json_begin(&j, f);
	json_str(&j, "type", "summary");
	session_json_lost(s, &j);
	json_end(&j);
}

static const char *saved_cmdline(pid_t pid)
{
	static char comm[32];
	char *buf = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	char *line, *save = NULL;
	const char *found = NULL;

	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long p = strtol(line, &end, 10);

		if (p == pid && *end == ' ') {
			snprintf(comm, sizeof(comm), "%s", end + 1);
			found = comm;
		}
	}
	free(buf);
	return found;
}

const char *session_comm(struct session *s, pid_t pid)
{
	const char *c = task_cache_comm(pid);

	if (c)
		return c;
	c = saved_cmdline(pid);
	if (c) {
		task_cache_set(pid, c, -1);
		return c;
	}
	return pid == 0 ? "<idle>" : "<...>";
}

void session_close(struct session *s)
{
	struct tp *tp;

	if (!s || s->closed)
		return;
	s->closed = true;
	untrack(s);
	session_stop(s);
	/* perf fds and ring fds first: they keep events and the instance busy */
	free_counters(s);
	for (tp = s->tps; tp; tp = tp->next) {
		perf_sampler_free(tp->sampler);
		tp->sampler = NULL;
	}
	perf_group_free(s->group);
	s->group = NULL;
	detach_release_done(s->release_token);
	s->release_token = -1;
	ring_free(s->ring);
	s->ring = NULL;
	if (s->inst && s->instance_created) {
		if (tracefs_instance_destroy(s->inst) < 0)
			pr_warn("cannot remove instance %s: %s", s->name, strerror(errno));
	}
	if (s->inst) {
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	if (s->has_dynevents && !s->group_handed &&
	    dynevents_remove_group(s->name) < 0)
		pr_warn("cannot remove event group %s: still busy", s->name);
}

void session_free(struct session *s)
{
	struct tp *tp, *next;

	if (!s)
		return;
	session_close(s);
	for (tp = s->tps; tp; tp = next) {
		next = tp->next;
		free(tp->system);
		free(tp->name);
		free(tp->filter);
		free(tp);
	}
	free(s->tids);
	free(s->checked_filter);
	free(s);
}
