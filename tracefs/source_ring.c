// SPDX-License-Identifier: GPL-2.0
/*
 * The ring source (TP_RECORD): a record per hit in the per-CPU rings of our
 * instance (ring.c reads them, pacing.c says when).  Its events are
 * enabled only in our instance.  On the way to the callback a record may
 * update the name cache (comm.c) and, with -p, is checked against the
 * target's thread group; which of those apply is chosen once per drain, so
 * a record pays for nothing it does not need.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/task.h"
#include "tracefs/internal.h"
#include "tracefs/ring.h"
#include "tracefs/session.h"
#include "tracefs/source.h"

struct ring_source {
	struct source src;
	struct ring *ring;
	struct pace pace;
	struct comm_track comm;		/* renames seen in the records */
	bool track_comm;
	/* records of other thread groups than -p's are dropped (-p with
	 * set_event_pid also admits children; -c wants its whole tree) */
	bool scope;
	bool started;			/* events on, until stop */
	tk_event_fn fn;			/* the session's callback */
	void *arg;
};

static struct ring_source *rsrc(struct source *src)
{
	return (struct ring_source *)src;
}

/* The instance is the ring: made with the first event. */
static int ring_add(struct source *src, struct tp *tp, const char *filter)
{
	return instance_get(src->s);
}


/*
 * Every thread of ours, in the instance's set_event_notrace_pid: for
 * probes the reader hits itself (a uprobe in libc), where reading one
 * record would make more.  Not event-fork: a -c command is our child.
 */
static int notrace_self(struct session *s)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	int err = 0;

	if (!dir)
		return -errno;
	if (!tracefs_file_exists(s->inst, "set_event_notrace_pid")) {
		closedir(dir);
		return 0;	/* before 5.8: dropped by the reader alone */
	}
	while (!err && (d = readdir(dir)))
		if (d->d_name[0] != '.' &&
		    tracefs_instance_file_append(s->inst, "set_event_notrace_pid",
						 d->d_name) < 0)
			err = errno ? -errno : -EIO;
	closedir(dir);
	return err;
}

/* An unordered round's renames, before its records are delivered. */
static void prescan(const struct tk_event *ev, void *arg)
{
	struct ring_source *rs = arg;

	comm_track_event(&rs->comm, ev);
}

static int ring_open_src(struct source *src, struct loop *l)
{
	struct ring_source *rs = rsrc(src);
	struct session *s = src->s;
	int err;

	comm_track_init(s, &rs->comm);
	rs->track_comm = rs->comm.exec_id >= 0 || rs->comm.rename_id >= 0;
	rs->ring = ring_open(s->inst);
	if (!rs->ring) {
		err = -errno;
		session_errorf(s, "cannot open the ring buffers of %s: %s", s->name,
			       strerror(-err));
		return err;
	}
	/* records merged by time with perf samples (an entry's beside its
	 * sampled return) need the samples' clock, not an offset to it */
	err = s->o.ordered && s->by_mode[TP_STACK] ? clock_mono(s->inst, rs->ring) :
	      clock_sync(s->inst, rs->ring);
	if (err) {
		session_errorf(s, "cannot read the clock of %s: %s", s->name,
			       strerror(-err));
		return err;
	}
	/*
	 * Our own records are dropped here rather than with the instance's
	 * set_event_notrace_pid, which makes every record of every task take
	 * the kernel's slower filtered path (~40 ns each).  Reading the ring
	 * makes a few syscalls per batch, not per record, so there is no
	 * feedback loop to break.
	 */
	if (!s->o.keep_self)
		ring_skip_pid(rs->ring, s->self);
	if (rs->track_comm && !s->o.ordered)
		ring_set_prescan(rs->ring, prescan, rs);
	/* a handler or the output that holds the loop 2 ms past a drain's
	 * time: the keeper sets the full pages aside */
	err = ring_keep_start(rs->ring, 2000000);
	if (err < 0)
		pr_info("no ring keeper (%s): a busy handler may lose events",
			strerror(-err));
	if (s->o.notrace_self && (err = notrace_self(s)) < 0) {
		session_errorf(s, "cannot keep our own records out of %s: %s",
			       s->name, strerror(-err));
		return err;
	}
	rs->pace.s = s;
	rs->pace.ring = rs->ring;
	err = pace_start(&rs->pace, l);
	if (err < 0) {
		session_errorf(s, "cannot poll the ring buffers: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* How many events the kernel has in group @group; -1 when unknown. */
static long group_size(const char *group)
{
	char *file = xasprintf("events/%s", group);
	char *path = tracefs_get_tracing_file(file);
	struct dirent *d;
	long n = 0;
	DIR *dir;

	free(file);
	dir = path ? opendir(path) : NULL;
	tracefs_put_tracing_file(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_type == DT_DIR && d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/*
 * When this ring reads every event of our own group (no counter, sampler
 * or other session of ours has one), the group is enabled with one write:
 * enabling a uprobe event by its own file costs the kernel a grace period
 * each (about 20 ms: hours for a whole C library), the group's file one
 * for all.
 */
static bool group_at_once(struct source *src)
{
	struct session *s = src->s;
	const char *group = session_name(s);
	struct tp *tp;
	long n = 0;

	for (tp = s->tps; tp; tp = tp->next) {
		if (strcmp(tp->system, group))
			continue;
		if (tp->src != src)
			return false;
		n++;
	}
	return n > 1 && group_size(group) == n;
}

static int ring_start(struct source *src)
{
	struct session *s = src->s;
	bool group = group_at_once(src);
	struct tp *tp;
	int err;

	if (group) {
		err = instance_enable_group(s, session_name(s), true);
		if (err) {
			session_errorf(s, "cannot enable the events of %s: %s",
				       session_name(s), strerror(-err));
			return err;
		}
	}
	for (tp = s->tps; tp; tp = tp->next) {
		if (tp->src != src || (group && !strcmp(tp->system, session_name(s))))
			continue;
		err = instance_enable(s, tp, true);
		if (err) {
			session_errorf(s, "cannot enable %s:%s: %s", tp->system,
				       tp->name, strerror(-err));
			return err;
		}
	}
	rsrc(src)->started = true;
	return 0;
}

/*
 * With -p, set_event_pid also admits children (event-fork cannot tell a
 * thread from a process), so records are checked against the thread group.
 * A task already gone when its records are read cannot be checked: it is
 * in the target's family (set_event_pid said so) and is kept.
 */
static void scoped(const struct tk_event *ev, void *arg)
{
	struct ring_source *rs = arg;
	pid_t pid = rs->src.s->o.pid;
	pid_t tgid = ev->pid == pid ? pid : task_cache_tgid(ev->pid);

	if (tgid > 0 && tgid != pid)
		return;
	rs->fn(ev, rs->arg);
}

/* Renames update the name cache; then the record goes on (or not), named
 * as of its time. */
static void tracked(const struct tk_event *ev, void *arg)
{
	struct ring_source *rs = arg;

	if (comm_track_event(&rs->comm, ev))
		return;
	rs->src.s->rec_ts = ev->ts;
	if (rs->scope)
		scoped(ev, rs);
	else
		rs->fn(ev, rs->arg);
	rs->src.s->rec_ts = 0;
}


static long ring_drain_src(struct source *src, tk_event_fn fn, void *arg)
{
	struct ring_source *rs = rsrc(src);
	const struct session_opts *o = &src->s->o;
	bool wrap = rs->track_comm || rs->scope;

	if (!rs->ring)
		return 0;
	rs->fn = fn;
	rs->arg = arg;
	return ring_drain(rs->ring, o->ordered,
			  rs->track_comm ? tracked : rs->scope ? scoped : fn,
			  wrap ? (void *)rs : arg);
}

static void ring_drain_stop(struct source *src)
{
	if (rsrc(src)->ring)
		ring_stop(rsrc(src)->ring);
}

static uint64_t ring_lost(struct source *src, uint64_t *per_cpu, int max_cpu)
{
	struct ring_source *rs = rsrc(src);
	uint64_t total;

	if (!rs->ring)
		return 0;
	total = instance_lost(src->s, per_cpu, max_cpu);
	/* the pages' flags are a floor when stats are unavailable */
	if (ring_missed(rs->ring) > total)
		total = ring_missed(rs->ring);
	return total;
}

/* "0" or "1" (and a newline) of our instance's file @rel; '\0' when it
 * cannot be read (errno says why) */
static char instance_flag(struct session *s, const char *rel)
{
	char *text = tracefs_instance_file_read(s->inst, rel, NULL);
	char c = text ? text[0] : '\0';

	free(text);
	return c;
}

/*
 * Another tool switched our instance off (trace-cmd reset -a writes 0 to
 * every instance's tracing_on and disables every event), or removed what
 * we record from: the session would go on tracing nothing.
 */
static int ring_check(struct source *src)
{
	struct session *s = src->s;
	char rel[512];
	struct tp *tp;

	if (!s->inst || !rsrc(src)->started)
		return 0;
	switch (instance_flag(s, "tracing_on")) {
	case '1':
		break;
	case '0':
		session_errorf(s, "another tool switched tracing off in our "
			       "instance %s (its tracing_on is 0)", s->name);
		return -ECANCELED;
	default:
		session_errorf(s, "our instance %s is gone: %s (another tool "
			       "removed it)", s->name, strerror(errno ? errno : EIO));
		return -ECANCELED;
	}
	for (tp = s->tps; tp; tp = tp->next) {
		if (tp->src != src)
			continue;
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", tp->system,
			 tp->name);
		switch (instance_flag(s, rel)) {
		case '1':
			continue;
		case '0':
			session_errorf(s, "another tool disabled %s:%s in our "
				       "instance %s", tp->system, tp->name, s->name);
			return -ECANCELED;
		default:
			session_errorf(s, "event %s:%s is gone from our instance "
				       "%s (another tool removed it)", tp->system,
				       tp->name, s->name);
			return -ECANCELED;
		}
	}
	return 0;
}

static void ring_stop_src(struct source *src)
{
	struct ring_source *rs = rsrc(src);
	struct session *s = src->s;
	struct tp *tp;

	rs->started = false;
	for (tp = s->tps; tp && s->inst; tp = tp->next)
		if (tp->src == src)
			instance_enable(s, tp, false);
	if (rs->ring) {
		unsigned long kept = ring_keep_stop(rs->ring);

		if (kept)
			pr_info("%lu sub-buffers were set aside while the reader was busy",
				kept);
		ring_flush(rs->ring);
	}
}

static void ring_close(struct source *src)
{
	/* the paced ring fds and the pause's timer: out of the loop first */
	loop_forget(src->s->loop, &rsrc(src)->pace);
	ring_free(rsrc(src)->ring);
	rsrc(src)->ring = NULL;
}

static void ring_free_src(struct source *src)
{
	free(src);
}

static const struct source_ops ring_ops = {
	.kind = "ring",
	.instance_filter = true,
	.add = ring_add,
	.open = ring_open_src,
	.start = ring_start,
	.drain = ring_drain_src,
	.drain_stop = ring_drain_stop,
	.lost = ring_lost,
	.check = ring_check,
	.stop = ring_stop_src,
	.close = ring_close,
	.free = ring_free_src,
};

struct source *ring_source_new(struct session *s)
{
	struct ring_source *rs = xcalloc(1, sizeof(*rs));

	rs->src.ops = &ring_ops;
	rs->src.s = s;
	rs->pace.fd = -1;
	rs->scope = s->o.pid > 0 && !s->o.tree && !s->o.scope_kernel;
	return &rs->src;
}
