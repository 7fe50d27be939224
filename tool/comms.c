// SPDX-License-Identifier: GPL-2.0
/*
 * Task names that follow the records (see comms.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/comms.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define COMM_LEN 16

struct name {
	char comm[COMM_LEN];
};

struct comms {
	struct hmap *names;		/* tid -> struct name */
	int fork_id, rename_id, exit_id;
	struct tk_field fork_pid, fork_comm, rename_pid, rename_comm, exit_pid;
};

struct comms *comms_new(void)
{
	struct comms *c = xcalloc(1, sizeof(*c));

	c->names = hmap_new(sizeof(struct name));
	c->fork_id = c->rename_id = c->exit_id = -1;
	return c;
}

void comms_free(struct comms *c)
{
	if (!c)
		return;
	hmap_free(c->names);
	free(c);
}

static struct tp *add(struct session *s, const char *sys, const char *name,
		      const char *f1, struct tk_field *t1, const char *f2,
		      struct tk_field *t2, int *id, char *err, size_t errlen)
{
	struct tp *tp = session_add(s, sys, name, TP_RECORD, NULL);

	if (!tp)
		return errmsg(err, errlen, -EINVAL, "%s", session_error(s)), NULL;
	if (format_field(tp->event, f1, t1) || (f2 && format_field(tp->event, f2, t2))) {
		errmsg(err, errlen, -EINVAL, "event %s:%s has no field '%s'", sys,
		       name, f2 ? f2 : f1);
		return NULL;
	}
	*id = tp->id;
	return tp;
}

int comms_add(struct comms *c, struct session *s, char *err, size_t errlen)
{
	if (!add(s, "sched", "sched_process_fork", "child_pid", &c->fork_pid,
		 "child_comm", &c->fork_comm, &c->fork_id, err, errlen) ||
	    !add(s, "sched", "sched_process_exit", "pid", &c->exit_pid, NULL,
		 NULL, &c->exit_id, err, errlen))
		return -EINVAL;
	/* task_rename is missing from some configurations: exec records
	 * still rename through the session's own tracking */
	if (format_event_id("task", "task_rename") >= 0 &&
	    !add(s, "task", "task_rename", "pid", &c->rename_pid, "newcomm",
		 &c->rename_comm, &c->rename_id, err, errlen))
		return -EINVAL;
	return 0;
}

static void set(struct comms *c, pid_t tid, const char *comm, size_t n)
{
	struct name *nm = hmap_get(c->names, (uint64_t)tid, true);

	if (n >= COMM_LEN)
		n = COMM_LEN - 1;
	memcpy(nm->comm, comm, n);
	nm->comm[n] = '\0';
}

bool comms_record(struct comms *c, const struct tk_event *ev)
{
	char buf[COMM_LEN];
	int n;

	if (ev->id == c->fork_id) {
		n = field_str(ev, &c->fork_comm, buf, sizeof(buf));
		set(c, (pid_t)field_int(ev, &c->fork_pid), buf, (size_t)n);
		return true;
	}
	if (ev->id == c->rename_id) {
		n = field_str(ev, &c->rename_comm, buf, sizeof(buf));
		set(c, (pid_t)field_int(ev, &c->rename_pid), buf, (size_t)n);
		return true;
	}
	if (ev->id == c->exit_id) {
		hmap_del(c->names, (uint64_t)field_int(ev, &c->exit_pid));
		return true;
	}
	return false;
}

/* /proc/PID/task/TID/comm of every thread of @pid not named by a record yet. */
static void snapshot_process(struct comms *c, const char *pid)
{
	pid_t *tids = NULL;
	char buf[64];
	int n, i;

	n = task_threads((pid_t)strtol(pid, NULL, 10), &tids);
	for (i = 0; i < n; i++)
		if (!hmap_get(c->names, (uint64_t)tids[i], false) &&
		    !task_comm(tids[i], buf, sizeof(buf)))
			set(c, tids[i], buf, strlen(buf));
	free(tids);
}

void comms_snapshot(struct comms *c, pid_t pid)
{
	struct dirent *p;
	char buf[16];
	DIR *proc;

	if (pid > 0) {
		snprintf(buf, sizeof(buf), "%d", pid);
		snapshot_process(c, buf);
		return;
	}
	proc = opendir("/proc");
	if (!proc)
		return;
	while ((p = readdir(proc)))
		if (p->d_name[0] >= '1' && p->d_name[0] <= '9')
			snapshot_process(c, p->d_name);
	closedir(proc);
}

pid_t comms_exited(const struct comms *c, const struct tk_event *ev)
{
	return ev->id == c->exit_id ? (pid_t)field_int(ev, &c->exit_pid) : 0;
}

const char *comms_get(struct comms *c, struct session *s, pid_t tid)
{
	struct name *nm = hmap_get(c->names, (uint64_t)tid, false);

	return nm ? nm->comm : session_comm(s, tid);
}
