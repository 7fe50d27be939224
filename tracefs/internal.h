/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TRACEFS_INTERNAL_H
#define TAPKIT_TRACEFS_INTERNAL_H

/*
 * What the files of tracefs/ share and nobody else uses.  The session is
 * one object whose concerns live in files of their own:
 *
 *	session.c	its life: new, open, add, start, drain, stop, close
 *	instance.c	our tracefs instance, its scope (-p/-t), error_log
 *	filter.c	kernel-side filters
 *	session_probes.c  dynamic event definitions (kprobe, uprobe, eprobe)
 *	source.c	driving the event sources (source.h), one per mode:
 *	source_ring.c	  the instance's rings (TP_RECORD)
 *	source_counter.c  perf counters (TP_COUNT)
 *	source_sampler.c  perf samplers (TP_STACK)
 *	pacing.c	when the rings are read
 *	clock.c		the rings' clock against CLOCK_MONOTONIC
 *	loss.c		lost records: counted, reported
 *	comm.c		task names
 *	stale.c		what dead sessions left behind
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/event.h"
#include "tracefs/session.h"

struct loop;
struct perf_event_attr;
struct perf_scope;
struct ring;
struct source;
struct tracefs_instance;

/* ---- session.c ---------------------------------------------------------- */

struct session {
	struct session_opts o;
	uint64_t drain_at;	/* CLOCK_MONOTONIC ns: the last drain began */
	uint64_t rec_ts;	/* the ring record being delivered: its time */
	char name[64];
	struct tracefs_instance *inst;	/* instance.c: made on first need */
	bool instance_created;
	bool has_dynevents;
	bool group_handed;		/* a release helper removes the group */
	bool started;
	struct loop *loop;		/* session_start()'s: its watches there */
	bool closed;
	struct tp *tps;
	struct source *sources;		/* one per mode in use, in order of use */
	struct source *by_mode[TP_STACK + 1];
	char *checked_filter;		/* filter.c: last one the kernel accepted */
	pid_t *tids;			/* -p/-t scope for perf sources */
	int ntids;
	tk_event_fn fn;
	void *arg;
	uint64_t lost_seen;		/* loss.c: for -v live reports */
	pid_t self;			/* our records are dropped */
	struct probed_file *probed;	/* probed_files.c: our uprobes' files */
	size_t nprobed;
	char err[512];
	struct session *next_open;	/* atexit list */
};

/* Set session_error() to the formatted message. */
void session_errorf(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A loop callback that drains every source of session @arg. */
int session_on_ready(struct loop *l, int fd, void *arg);

/* ---- probed_files.c ----------------------------------------------------- */

/* Note @path, a file one of our uprobes was just defined in. */
void probed_files_note(struct session *s, const char *path);
/* 0, or -ECANCELED with session_error() when one of them was replaced or
 * removed on disk since. */
int probed_files_check(struct session *s);
void probed_files_free(struct session *s);

/* ---- instance.c --------------------------------------------------------- */

/* Our instance, created (and configured) on first need: counting-only
 * sessions have none.  0 or -errno with session_error() said. */
int instance_get(struct session *s);
/* Write @fmt... into instance file @file; 0 or -errno. */
int instance_write(struct session *s, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Switch event @tp on or off in our instance; 0 or -errno. */
int instance_enable(struct session *s, const struct tp *tp, bool on);
/* Every event of our own dynamic-event group @group at once, in one write
 * (each event's own file costs the kernel a grace period, the group's
 * one for all); 0 or -errno. */
int instance_enable_group(struct session *s, const char *group, bool on);
/* Remove our instance, if we made it; 0 or -errno with session_error(). */
int instance_remove(struct session *s);
/* Load the threads of -p/-t; 0 or -ESRCH with session_error() said. */
int scope_load(struct session *s);
/* The -p/-t scope as perf sources take it (system-wide without one). */
void scope_perf(const struct session *s, struct perf_scope *scope);
/* The kernel's reason for the last failed write into our instance, from
 * its error_log (which is ours to clear), into @buf ("" when none). */
void instance_kernel_reason(struct session *s, char *buf, size_t n);
/*
 * The kernel's reason for the last failed dynamic event write into @buf
 * ("" when none): what the top-level error_log gained since it read @before.
 */
void session_kernel_reason(const char *before, char *buf, size_t n);

/* ---- filter.c ----------------------------------------------------------- */

/* Have the kernel check @filter for @tp, and apply it in our instance when
 * @in_instance; 0 or -EINVAL with session_error() quoting the kernel. */
int session_filter(struct session *s, struct tp *tp, const char *filter,
		   bool in_instance);

/* ---- session_probes.c, stale.c: dynamic events -------------------------- */

/* Parse "tapkit_<pid>_<start>" (or a later session's "..._<n>"); true when
 * @name is one of ours. */
bool session_parse_name(const char *name, pid_t *pid, unsigned long long *start);
/* True while the session named by @pid/@start is alive. */
bool session_owner_alive(pid_t pid, unsigned long long start);
/* Remove every dynamic event of @group (ours), retrying on EBUSY; 0 or -errno. */
int dynevents_remove_group(const char *group);
/* session_add_probes() without the session_add(): define @v[0..@n) in our
 * group with one write; 0 or -errno with session_error() said. */
struct session_probe;
int session_define_probes(struct session *s, const struct session_probe *v,
			  size_t n);
/* Append @buf to tracefs file @file (dynamic_events, uprobe_events...)
 * with one write, never truncating it; 0 or -errno. */
int dynevents_write(const char *file, const char *buf, size_t len);

/* ---- pacing.c ----------------------------------------------------------- */

/* When the rings of a ring source are read (see pacing.c). */
struct pace {
	struct session *s;
	struct ring *ring;
	int fd;				/* the pause's timer; -1 before the first */
	uint64_t last_drain;		/* when the last paced drain ran */
};

/* Poll the fds of @p->ring in @l, each wake-up draining the session: at
 * once, then paced, or at the watermark of o.wakeup_percent.  0 or -errno. */
int pace_start(struct pace *p, struct loop *l);

/* ---- clock.c ------------------------------------------------------------ */

/* Measure the offset of @inst's clock to CLOCK_MONOTONIC and have @r add it
 * to every timestamp (or switch @inst to the mono clock); 0 or -errno.
 * Before any event is enabled: @r is read to find the marker. */
int clock_sync(struct tracefs_instance *inst, struct ring *r);
/* The instance on CLOCK_MONOTONIC ("mono"), the perf samplers' clock:
 * exact, at the cost of a ring reset (20-40 ms). */
int clock_mono(struct tracefs_instance *inst, struct ring *r);

/* ---- loss.c ------------------------------------------------------------- */

/* Records lost in our instance (its per-CPU overrun and drop counts) added
 * to @per_cpu[cpu < @max_cpu]; the total. */
uint64_t instance_lost(struct session *s, uint64_t *per_cpu, int max_cpu);
/* With -v: say how many records were lost when that number grew. */
void loss_report_new(struct session *s);

/* ---- comm.c: task names that follow exec and renames -------------------- */

struct hmap;

struct comm_track {
	int exec_id, rename_id, fork_id;	/* -1: not recorded */
	/* the command asked for them */
	bool deliver_exec, deliver_rename, deliver_fork;
	struct tk_field exec_file, exec_pid, rename_comm, rename_pid;
	struct tk_field fork_pid, fork_comm, fork_flags;
};
/* Record the renaming events in @s too (before the rings are opened). */
void comm_track_init(struct session *s, struct comm_track *ct);
/* Note a rename in @ev; true when @ev is ours alone (not to deliver). */
bool comm_track_event(struct comm_track *ct, const struct tk_event *ev);

/* ---- cpus.c ------------------------------------------------------------- */

/* Every online CPU, from "0-3,6,8-9" (0..N-1 without sysfs); the count,
 * with *@cpus an array the caller frees, or -errno. */
int online_cpus(int **cpus);

/* ---- perf_event.c: what counters and samplers share --------------------- */

/* PERF_FORMAT_LOST (Linux 6.0), spelled out for older headers. */
#define PERF_FORMAT_LOST_BIT	(1U << 4)

/* A growing array of fds. */
struct fdset {
	int *fd;
	int n, cap;
};

void fdset_add(struct fdset *s, int fd);
/* Close every fd and empty @s. */
void fdset_close(struct fdset *s);
/* Apply ftrace filter @filter (NULL: none) to every fd; 0 or -errno. */
int fdset_set_filter(const struct fdset *s, const char *filter);
/* ioctl(@req, 0) on every fd; 0 or -errno. */
int fdset_ioctl(const struct fdset *s, unsigned long req);
/*
 * perf_event_open() with close-on-exec, dropping what an older kernel
 * rejects (PERF_FORMAT_LOST, inherit_thread) from @attr for good.
 * The fd, or -errno.
 */
int perf_open_event(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd);
/* A scope with threads has at least one. */
bool perf_scope_valid(const struct perf_scope *scope);

#endif
