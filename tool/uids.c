// SPDX-License-Identifier: GPL-2.0
/*
 * Real UIDs of processes, from the setuid family's records and /proc
 * (see uids.h).  Entries wait per thread for their exit; a successful exit
 * sets the process's real UID when the call changed it:
 *
 *	setresuid(r, e, s), setreuid(r, e)	r, unless -1
 *	setuid(u)				u, when the caller was root
 *						(else only the effective UID)
 *
 * and a fork gives the child its parent's.  The processes there before
 * tracing began are read from /proc once, as it begins (uids_started()).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/uids.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

static const struct call {
	const char *name;	/* syscall */
	const char *field;	/* the new real UID's argument */
} calls[] = {
	{ "setuid", "uid" },
	{ "setreuid", "ruid" },
	{ "setresuid", "ruid" },
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

struct pending {
	uint32_t uid;
	unsigned int call;
};

struct uids {
	struct session *s;
	struct tp *enter[NCALLS], *exit[NCALLS];
	struct tk_field arg[NCALLS];
	struct tp *fork;
	struct tk_field fork_parent, fork_child;
	struct hmap *pending;		/* tid -> struct pending */
	struct hmap *set;		/* tgid -> struct uid */
};

/* A process's real UID: @before until @ts, @after from then on (UID + 1;
 * 0: unknown). */
struct uid {
	uint64_t ts;
	uint64_t before, after;
};

struct uids *uids_new(struct session *s)
{
	struct uids *u = xcalloc(1, sizeof(*u));

	u->s = s;
	u->pending = hmap_new(sizeof(struct pending));
	u->set = hmap_new(sizeof(struct uid));
	return u;
}

void uids_free(struct uids *u)
{
	if (!u)
		return;
	hmap_free(u->pending);
	hmap_free(u->set);
	free(u);
}

int uids_add(struct uids *u, char *err, size_t errlen)
{
	char name[64];
	size_t i;

	u->fork = session_add(u->s, "sched", "sched_process_fork", TP_RECORD, NULL);
	if (!u->fork)
		return errmsg(err, errlen, -EINVAL, "%s", session_error(u->s));
	if (format_field(u->fork->event, "parent_pid", &u->fork_parent) < 0 ||
	    format_field(u->fork->event, "child_pid", &u->fork_child) < 0)
		return errmsg(err, errlen, -EINVAL,
			      "sched:sched_process_fork lacks parent_pid or child_pid");

	for (i = 0; i < NCALLS; i++) {
		snprintf(name, sizeof(name), "sys_enter_%s", calls[i].name);
		u->enter[i] = session_add(u->s, "syscalls", name, TP_RECORD, NULL);
		snprintf(name, sizeof(name), "sys_exit_%s", calls[i].name);
		u->exit[i] = u->enter[i] ?
			session_add(u->s, "syscalls", name, TP_RECORD, "ret == 0") : NULL;
		if (!u->exit[i])
			return errmsg(err, errlen, -EINVAL, "%s", session_error(u->s));
		if (format_field(u->enter[i]->event, calls[i].field, &u->arg[i]) < 0)
			return errmsg(err, errlen, -EINVAL,
				      "syscalls:sys_enter_%s has no field '%s'",
				      calls[i].name, calls[i].field);
	}
	return 0;
}

static pid_t tgid_of(pid_t tid)
{
	pid_t tgid = task_cache_tgid(tid);

	return tgid > 0 ? tgid : tid;
}

static long known(struct uids *u, pid_t pid, uint64_t ts);

/* From @ts on, @pid's real UID is @uid (-1: unknown); before, what it was. */
static void set_uid(struct uids *u, pid_t pid, uint64_t ts, long uid, bool fresh)
{
	long was = fresh ? uid : known(u, pid, ts);
	struct uid *e = hmap_get(u->set, (uint64_t)pid, true);

	e->ts = ts;
	e->before = (uint64_t)(was + 1);
	e->after = (uint64_t)(uid + 1);
}

void uids_seed(struct uids *u, pid_t pid, long uid)
{
	set_uid(u, pid, 0, uid, true);
}

void uids_started(struct uids *u)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	long pid, uid;
	char *end;

	while (dir && (d = readdir(dir))) {
		pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0 || hmap_get(u->set, (uint64_t)pid, false))
			continue;
		uid = task_uid((pid_t)pid);
		if (uid >= 0)
			set_uid(u, (pid_t)pid, 0, uid, true);
	}
	if (dir)
		closedir(dir);
}

bool uids_record(struct uids *u, const struct tk_event *ev)
{
	struct pending *p;
	unsigned int i;
	pid_t tgid;

	if (ev->id == u->fork->id) {	/* not only ours: the caller goes on */
		tgid = tgid_of((pid_t)field_int(ev, &u->fork_parent));
		set_uid(u, (pid_t)field_int(ev, &u->fork_child), 0,
			known(u, tgid, ev->ts), true);
		return false;
	}
	for (i = 0; i < NCALLS; i++) {
		if (ev->id == u->enter[i]->id) {
			p = hmap_get(u->pending, (uint64_t)ev->pid, true);
			p->uid = (uint32_t)field_int(ev, &u->arg[i]);
			p->call = i;
			return true;
		}
		if (ev->id != u->exit[i]->id)
			continue;
		p = hmap_get(u->pending, (uint64_t)ev->pid, false);
		if (!p)
			return true;
		tgid = tgid_of(ev->pid);
		if (p->call == i && p->uid != UINT32_MAX &&
		    (strcmp(calls[i].name, "setuid") || known(u, tgid, ev->ts) == 0))
			set_uid(u, tgid, ev->ts, (long)p->uid, false);
		hmap_del(u->pending, (uint64_t)ev->pid);
		return true;
	}
	return false;
}

/* What the records said of @pid at @ts, else /proc (kept: later changes
 * come as records); -1 when nothing says. */
static long known(struct uids *u, pid_t pid, uint64_t ts)
{
	struct uid *e = hmap_get(u->set, (uint64_t)pid, false);
	long uid;

	if (e && (ts >= e->ts ? e->after : e->before))
		return (long)((ts >= e->ts ? e->after : e->before) - 1);
	if (e)
		return -1;
	uid = task_uid(pid);
	if (uid >= 0)
		set_uid(u, pid, 0, uid, true);
	return uid;
}

long uids_get(struct uids *u, pid_t pid, pid_t ppid, uint64_t ts)
{
	long uid = known(u, pid, ts);

	if (uid < 0 && ppid > 0)
		uid = known(u, ppid, ts);
	return uid;
}
