// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's tracepoints for runqlat and cpudist.
 *
 * Every record goes to our instance's ring and is read in timestamp order:
 * a wakeup and the switch that ends its wait are on different CPUs.
 *
 * Scope.  sched_wakeup is recorded in the waker's context and sched_switch
 * in the context of the task leaving, so the usual check of -p (the
 * running task's thread group) would drop a process's wakeups by other
 * processes.  The kernel knows better: with set_event_pid (and
 * event-fork, for the threads created later) it admits a sched_wakeup
 * when the woken task or the waker is listed, and a sched_switch when prev
 * or next is.  So the session leaves the check to us (scope_kernel) and
 * each record is counted for the task it is about: the woken task, prev,
 * next.  That task is in scope when its thread group is -p's, or, for -c,
 * when it descends from the command.  Thread groups and descent come from
 * task:task_newtask (recorded in the parent's context, so admitted too):
 * a child made with CLONE_THREAD is in its parent's group, any other
 * child leads its own.  Tasks older than the session are looked up in
 * /proc once (the -p process's threads are listed at start).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/schedev.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

/* per-task entries kept before a map starts over */
#define MAX_TASKS	(1 << 20)

struct schedev {
	struct schedev_opts o;
	const struct schedev_ops *ops;
	void *arg;
	struct session *s;
	int switch_id, wakeup_id, wakeup_new_id, newtask_id;
	struct tk_field prev_pid, prev_comm, prev_state, next_pid, next_comm;
	struct tk_field w_pid, wn_pid, nt_pid, nt_flags;
	struct hmap *tgids;	/* tid -> pid_t: seen created, or /proc */
	struct hmap *tree;	/* tid -> bool: in the -c command's tree */
	struct hmap *pidns;	/* tid -> uint64_t: PID namespace inode */
};

struct schedev *schedev_new(const struct schedev_opts *o,
			    const struct schedev_ops *ops, void *arg)
{
	struct schedev *se = xcalloc(1, sizeof(*se));

	se->o = *o;
	se->ops = ops;
	se->arg = arg;
	se->switch_id = se->wakeup_id = se->wakeup_new_id = se->newtask_id = -1;
	se->tgids = hmap_new(sizeof(pid_t));
	se->tree = hmap_new(sizeof(bool));
	se->pidns = hmap_new(sizeof(uint64_t));
	return se;
}

void schedev_free(struct schedev *se)
{
	if (!se)
		return;
	session_free(se->s);
	hmap_free(se->tgids);
	hmap_free(se->tree);
	hmap_free(se->pidns);
	free(se);
}

struct session *schedev_session(struct schedev *se)
{
	return se->s;
}

const char *schedev_describe(const struct schedev *se)
{
	if (se->o.pid && se->o.tree)
		return "records of the command's process tree (set_event_pid with event-fork), counted for the task each is about";
	if (se->o.pid)
		return "records in which a thread of the process takes part (set_event_pid: the woken task or the waker, prev or next), counted for the task each is about";
	return "records of every task";
}

static void *bounded_get(struct hmap *m, pid_t tid)
{
	if (hmap_count(m) >= MAX_TASKS)
		hmap_clear(m);
	return hmap_get(m, (uint64_t)tid, true);
}

pid_t schedev_tgid(struct schedev *se, pid_t tid)
{
	pid_t *p = hmap_get(se->tgids, (uint64_t)tid, false), tgid;

	if (p)
		return *p;
	tgid = task_cache_tgid(tid);
	return tgid > 0 ? tgid : tid;
}

uint64_t schedev_pidns(struct schedev *se, pid_t tid)
{
	uint64_t *v = hmap_get(se->pidns, (uint64_t)tid, false);
	char path[64], link[64];
	unsigned long long ino;
	ssize_t n;

	if (v)
		return *v;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)tid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	if (sscanf(link, "pid:[%llu]", &ino) != 1)
		return 0;
	v = bounded_get(se->pidns, tid);
	*v = ino;
	return ino;
}

static bool in_scope(struct schedev *se, pid_t tid)
{
	if (tid <= 0)
		return false;
	if (!se->o.pid)
		return true;
	if (se->o.tree)
		return hmap_get(se->tree, (uint64_t)tid, false) != NULL;
	/* a task gone before we could ask is not one of -p's: its threads
	 * are listed at start or seen created */
	return schedev_tgid(se, tid) == se->o.pid;
}

static void on_newtask(struct schedev *se, const struct tk_event *ev)
{
	pid_t child = (pid_t)field_int(ev, &se->nt_pid);
	uint64_t flags = (uint64_t)field_int(ev, &se->nt_flags);
	pid_t *tg;

	if (child <= 0)
		return;
	tg = bounded_get(se->tgids, child);
	*tg = flags & CLONE_THREAD ? schedev_tgid(se, ev->pid) : child;
	task_cache_forget(child);	/* a reused TID's old answer */
	hmap_del(se->pidns, (uint64_t)child);
	if (se->o.tree && hmap_get(se->tree, (uint64_t)ev->pid, false))
		*(bool *)bounded_get(se->tree, child) = true;
}

static void on_switch(struct schedev *se, const struct tk_event *ev)
{
	pid_t prev = (pid_t)field_int(ev, &se->prev_pid);
	pid_t next = (pid_t)field_int(ev, &se->next_pid);
	char comm[16];

	if (se->ops->switch_out && in_scope(se, prev)) {
		field_str(ev, &se->prev_comm, comm, sizeof(comm));
		se->ops->switch_out(se->arg, prev, comm,
				    (long)field_int(ev, &se->prev_state), ev->ts);
	}
	if (se->ops->switch_in && in_scope(se, next)) {
		field_str(ev, &se->next_comm, comm, sizeof(comm));
		se->ops->switch_in(se->arg, next, comm, ev->ts);
	}
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct schedev *se = arg;
	pid_t tid;

	if (ev->id == se->switch_id) {
		on_switch(se, ev);
	} else if (ev->id == se->wakeup_id || ev->id == se->wakeup_new_id) {
		tid = (pid_t)field_int(ev, ev->id == se->wakeup_id ?
				       &se->w_pid : &se->wn_pid);
		if (se->ops->wakeup && in_scope(se, tid))
			se->ops->wakeup(se->arg, tid, ev->ts);
	} else if (ev->id == se->newtask_id) {
		on_newtask(se, ev);
	}
}

/* Use @sys:@name and resolve the fields @names into @fl.  0 or -errno. */
static int add(struct schedev *se, const char *sys, const char *name, int *id,
	       const char *const *names, struct tk_field *const *fl,
	       char *err, size_t errlen)
{
	struct tp *tp = session_add(se->s, sys, name, TP_RECORD, NULL);
	int i;

	if (!tp)
		return errmsg(err, errlen, errno ? -errno : -ENOENT, "%s",
			      session_error(se->s));
	*id = tp->id;
	for (i = 0; names[i]; i++)
		if (format_field(tp->event, names[i], fl[i]) < 0)
			return errmsg(err, errlen, -ENOENT, "no field '%s' in %s:%s",
				      names[i], sys, name);
	return 0;
}

/* The -p process's threads now, so that their records count even when
 * they are gone before they are read. */
static void note_threads(struct schedev *se)
{
	pid_t *tids = NULL;
	int i, n = task_threads(se->o.pid, &tids);

	for (i = 0; i < n; i++)
		*(pid_t *)bounded_get(se->tgids, tids[i]) = se->o.pid;
	free(tids);
}

int schedev_start(struct schedev *se, struct loop *l, char *err, size_t errlen)
{
	static const char *const snames[] = {
		"prev_pid", "prev_comm", "prev_state", "next_pid", "next_comm", NULL
	};
	static const char *const wnames[] = { "pid", NULL };
	static const char *const ntnames[] = { "pid", "clone_flags", NULL };
	struct tk_field *sw[] = {
		&se->prev_pid, &se->prev_comm, &se->prev_state, &se->next_pid,
		&se->next_comm
	};
	struct tk_field *w[] = { &se->w_pid }, *wn[] = { &se->wn_pid };
	struct tk_field *nt[] = { &se->nt_pid, &se->nt_flags };
	struct session_opts so = {
		.buffer_kb = se->o.buffer_kb, .pid = se->o.pid, .tree = se->o.tree,
		.ordered = true, .scope_kernel = true, .keep_self = true,
	};
	int e;

	se->s = session_new(&so);
	if (session_open(se->s) < 0)
		return errmsg(err, errlen, -EIO, "%s", session_error(se->s));
	if (se->o.pid && !se->o.tree)
		note_threads(se);
	if (se->o.tree)
		*(bool *)bounded_get(se->tree, se->o.pid) = true;
	e = add(se, "sched", "sched_switch", &se->switch_id, snames, sw, err, errlen);
	if (!e && se->o.wakeups)
		e = add(se, "sched", "sched_wakeup", &se->wakeup_id, wnames, w,
			err, errlen) ?:
		    add(se, "sched", "sched_wakeup_new", &se->wakeup_new_id,
			wnames, wn, err, errlen);
	if (!e)
		e = add(se, "task", "task_newtask", &se->newtask_id, ntnames, nt,
			err, errlen);
	if (e)
		return e;
	if (session_start(se->s, l, on_event, se) < 0)
		return errmsg(err, errlen, -EIO, "%s", session_error(se->s));
	return 0;
}
