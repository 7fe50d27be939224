// SPDX-License-Identifier: GPL-2.0
/*
 * Working directories of processes, from fork and chdir records and /proc
 * (see cwds.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/cwds.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

struct cwds {
	struct session *s;
	struct tp *fork, *chdir, *fchdir;
	struct tk_field fork_parent, fork_child;
	struct hmap *dirs;		/* tgid -> char * (malloc'ed) */
};

struct cwds *cwds_new(struct session *s)
{
	struct cwds *c = xcalloc(1, sizeof(*c));

	c->s = s;
	c->dirs = hmap_new(sizeof(char *));
	return c;
}

void cwds_free(struct cwds *c)
{
	size_t pos = 0;
	char **d;

	if (!c)
		return;
	while ((d = hmap_next(c->dirs, &pos, NULL)))
		free(*d);
	hmap_free(c->dirs);
	free(c);
}

int cwds_add(struct cwds *c, char *err, size_t errlen)
{
	c->fork = session_add(c->s, "sched", "sched_process_fork", TP_RECORD, NULL);
	c->chdir = c->fork ? session_add(c->s, "syscalls", "sys_exit_chdir",
					 TP_RECORD, "ret == 0") : NULL;
	c->fchdir = c->chdir ? session_add(c->s, "syscalls", "sys_exit_fchdir",
					   TP_RECORD, "ret == 0") : NULL;
	if (!c->fchdir)
		return errmsg(err, errlen, -EINVAL, "%s", session_error(c->s));
	if (format_field(c->fork->event, "parent_pid", &c->fork_parent) < 0 ||
	    format_field(c->fork->event, "child_pid", &c->fork_child) < 0)
		return errmsg(err, errlen, -EINVAL,
			      "sched:sched_process_fork lacks parent_pid or child_pid");
	return 0;
}

static void set(struct cwds *c, pid_t pid, const char *dir)
{
	char **d = hmap_get(c->dirs, (uint64_t)pid, true);

	free(*d);
	*d = dir ? xstrdup(dir) : NULL;
}

/* /proc/PID/cwd into the map; what it says, or NULL. */
static const char *read_cwd(struct cwds *c, pid_t pid)
{
	char link[64], dir[PATH_MAX];
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/%d/cwd", pid);
	len = readlink(link, dir, sizeof(dir) - 1);
	if (len <= 0 || dir[0] != '/')
		return NULL;
	dir[len] = '\0';
	set(c, pid, dir);
	return cwds_get(c, pid);
}

void cwds_started(struct cwds *c)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	char *end;
	long pid;

	while (dir && (d = readdir(dir))) {
		pid = strtol(d->d_name, &end, 10);
		if (!*end && pid > 0 && !hmap_get(c->dirs, (uint64_t)pid, false))
			read_cwd(c, (pid_t)pid);
	}
	if (dir)
		closedir(dir);
}

static pid_t tgid_of(pid_t tid)
{
	pid_t tgid = task_cache_tgid(tid);

	return tgid > 0 ? tgid : tid;
}

bool cwds_record(struct cwds *c, const struct tk_event *ev)
{
	const char *dir;

	if (ev->id == c->fork->id) {	/* not only ours: the caller goes on */
		dir = cwds_get(c, tgid_of((pid_t)field_int(ev, &c->fork_parent)));
		set(c, (pid_t)field_int(ev, &c->fork_child), dir);
		return false;
	}
	if (ev->id == c->chdir->id || ev->id == c->fchdir->id) {
		read_cwd(c, tgid_of(ev->pid));
		return true;
	}
	return false;
}

const char *cwds_get(struct cwds *c, pid_t pid)
{
	char **d = hmap_get(c->dirs, (uint64_t)pid, false);

	if (d)
		return *d;
	return read_cwd(c, pid);
}
