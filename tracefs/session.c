// SPDX-License-Identifier: GPL-2.0
/*
 * The session's life: new, open, add, start, drain, stop, close.  Every
 * kernel-side change is recorded in the session as it is made, so teardown
 * after a partial setup removes exactly what exists.  The other concerns
 * are in files of their own (internal.h lists them); the events are read by
 * sources (source.h), one per mode in use, which this file drives without
 * knowing their kinds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "common/detach.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/task.h"
#include "tracefs/format.h"
#include "common/timefmt.h"
#include "tracefs/internal.h"
#include "tracefs/session.h"
#include "tracefs/source.h"
#include "tracefs/tracing.h"

/* How often a session looks whether another tool switched it off (ms). */
#define CHECK_MS 1000

/* The source of each mode (DESIGN.md "Event transport"). */
static struct source *(*const source_new[])(struct session *s) = {
	[TP_RECORD] = ring_source_new,
	[TP_COUNT] = counter_source_new,
	[TP_STACK] = sampler_source_new,
};

static struct session *open_sessions;

void session_errorf(struct session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
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

struct tp *session_tps(struct session *s)
{
	return s->tps;
}

static void close_all_at_exit(void)
{
	while (open_sessions)
		session_close(open_sessions);
}

struct session *session_new(const struct session_opts *o)
{
	static unsigned int nsessions;
	struct session *s = xcalloc(1, sizeof(*s));
	unsigned long long start = 0;
	unsigned int n = nsessions++;

	if (o)
		s->o = *o;
	s->self = getpid();
	task_start_time(getpid(), &start);
	/* the second and later sessions of a process (a script's providers)
	 * get instances and groups of their own: a shared instance would
	 * split its rings' records between two readers */
	if (n)
		snprintf(s->name, sizeof(s->name), SESSION_PREFIX "%d_%llu_%u",
			 getpid(), start, n);
	else
		snprintf(s->name, sizeof(s->name), SESSION_PREFIX "%d_%llu",
			 getpid(), start);
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

/* What a session of this process left, removed once the process ended:
 * by its atexit teardown already, or here after a SIGKILL or a crash. */
static void remove_when_gone(void)
{
	session_cleanup_stale();
}

/* A watchdog for the sessions of this process, started with its first. */
static void watch_sessions(void)
{
	static bool started;

	if (!started)
		detach_watch(remove_when_gone);
	started = true;
}

int session_open(struct session *s)
{
	const char *dir;
	int err;

	err = tracing_mount(&dir);
	if (err == -EACCES || err == -EPERM) {
		session_errorf(s, "cannot access the tracing filesystem: %s (tracing needs root)",
			       strerror(-err));
		return err;
	}
	if (err) {
		session_errorf(s, "cannot mount the tracing filesystem: %s", strerror(-err));
		return err;
	}
	err = scope_load(s);
	if (err)
		return err;
	session_cleanup_stale();
	watch_sessions();
	track_open(s);
	return 0;
}

/* The source for @mode, made on first use; appended so that sources are
 * driven in the order they were first used. */
static struct source *source_for(struct session *s, enum tp_mode mode)
{
	struct source **p;

	if (!s->by_mode[mode]) {
		for (p = &s->sources; *p; p = &(*p)->next)
			;
		*p = s->by_mode[mode] = source_new[mode](s);
	}
	return s->by_mode[mode];
}

struct tp *session_add(struct session *s, const char *sys, const char *name,
		       enum tp_mode mode, const char *filter)
{
	struct tep_event *ev = NULL;
	struct source *src;
	struct tp *tp;
	int err, id = -1;

	if (filter && !*filter)
		filter = NULL;
	/*
	 * Counting needs only the id, and without a filter to check not even
	 * that now: the counters' opens read their ids side by side, ~10 us
	 * each for syscount's 360.
	 */
	if (mode == TP_COUNT && !filter)
		id = 0;
	else if (mode == TP_COUNT)
		id = format_event_id(sys, name);
	else
		ev = format_load(sys, name);
	if (!ev && id < 0) {
		err = mode == TP_COUNT ? -id : errno;
		if (err == ENOENT)
			session_errorf(s, "tracepoint %s:%s does not exist", sys, name);
		else
			session_errorf(s, "cannot read the format of %s:%s: %s", sys,
				       name, strerror(err));
		errno = err;
		return NULL;
	}
	src = source_for(s, mode);
	tp = xcalloc(1, sizeof(*tp));
	tp->system = xstrdup(sys);
	tp->name = xstrdup(name);
	tp->id = ev ? format_id(ev) : id ? id : -1;
	tp->event = ev;
	tp->mode = mode;
	tp->src = src;
	tp->next = s->tps;
	s->tps = tp;
	err = filter ? session_filter(s, tp, filter, src->ops->instance_filter) : 0;
	if (!err)
		err = src->ops->add(src, tp, src->ops->instance_filter ? NULL : filter);
	if (err) {
		errno = -err;
		return NULL;
	}
	return tp;
}

int session_on_ready(struct loop *l, int fd, void *arg)
{
	long n = session_drain(arg);

	return n < 0 ? (int)n : 0;
}

/*
 * Once a second: is our instance still as we set it, and are our uprobes'
 * files still those on disk?  When another tool switched the instance off,
 * or a probed binary was replaced, the session says what happened and ends
 * the loop (-ECANCELED: said), instead of tracing nothing.
 */
static char ended_why[sizeof(((struct session *)0)->err)];

static int session_on_check(struct loop *l, int fd, void *arg)
{
	struct session *s = arg;

	if (sources_check(s->sources) < 0 || probed_files_check(s) < 0) {
		snprintf(ended_why, sizeof(ended_why), "%s", session_error(s));
		return -ECANCELED;
	}
	return 0;
}

const char *session_ended_why(void)
{
	return ended_why[0] ? ended_why : NULL;
}

int session_start(struct session *s, struct loop *l, tk_event_fn fn, void *arg)
{
	unsigned int drain_ms;
	int err;

	s->fn = fn;
	s->arg = arg;
	s->loop = l;
	err = sources_open(s->sources, l);
	if (!err)
		err = sources_start(s->sources);
	if (err)
		return err;
	/* sources that wake nobody while quiet are drained on a timer too */
	drain_ms = s->o.drain_ms ? s->o.drain_ms : sources_drain_ms(s->sources);
	if (drain_ms)
		loop_timer(l, drain_ms, drain_ms, session_on_ready, s);
	loop_timer(l, CHECK_MS, CHECK_MS, session_on_check, s);
	s->started = true;
	return 0;
}

long session_drain(struct session *s)
{
	long n;

	if (!s->started)
		return 0;
	s->drain_at = time_mono_ns();
	n = sources_drain(s->sources, s->fn, s->arg);
	if (n < 0)
		return n;
	loss_report_new(s);
	if (n > 0 && s->o.batch_end)
		s->o.batch_end(s->arg);
	return n;
}

void session_drain_stop(struct session *s)
{
	sources_drain_stop(s->sources);
}

void session_stop(struct session *s)
{
	sources_stop(s->sources);
}

uint64_t session_count(const struct tp *tp)
{
	struct source *src = tp->src;

	return src && src->ops->count ? src->ops->count(src, tp) : 0;
}

void session_close(struct session *s)
{
	if (!s || s->closed)
		return;
	s->closed = true;
	untrack(s);
	session_stop(s);
	/* out of the loop before any fd closes: a session closed while the
	 * loop runs on (tracetop's views) is never called again */
	loop_forget(s->loop, s);
	/* the sources' fds first: they keep events and the instance busy */
	sources_close(s->sources);
	if (instance_remove(s) < 0)
		pr_warn("%s", session_error(s));
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
	sources_free(s->sources);
	for (tp = s->tps; tp; tp = next) {
		next = tp->next;
		free(tp->system);
		free(tp->name);
		free(tp);
	}
	free(s->tids);
	free(s->checked_filter);
	probed_files_free(s);
	free(s);
}
