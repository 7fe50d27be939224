// SPDX-License-Identifier: GPL-2.0
/*
 * Task names that follow exec and prctl(PR_SET_NAME).
 *
 * Records carry a PID but not the task's name; session_comm() finds it in
 * /proc (or the kernel's saved_cmdlines) the first time and caches it.  A
 * task that execs or renames itself afterwards would keep its old name:
 * a command started by the tracer showed as "tapkit" for good.  A session
 * with records therefore also records sched:sched_process_exec and
 * task:task_rename (rare events; every exec renames the task through
 * task_rename, with the name the kernel really gave, before its
 * sched_process_exec) and updates the cache when they come by.
 * Records before an exec show the old name, those after it the new one:
 * the cache keeps each name's time and the name before it, and a record
 * is named as of its timestamp (session_comm()).  A session that reads the
 * CPUs one after the other shows the renames of a round of pages to
 * comm_track_event() before it delivers any of them (ring_set_prescan()),
 * so that a task's records on one CPU are named by its exec on another
 * even where that CPU is read later.
 * task:task_newtask gives a new task's process and,
 * as a last resort, its parent's name, so that a child that forks, runs
 * and is reaped before its records are read is still named.  Unless
 * the command asked for those events too, they are not delivered to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "common/hmap.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "tracefs/format.h"
#include "tracefs/internal.h"
#include "tracefs/session.h"

static struct tp *track(struct session *s, const char *sys, const char *name,
			bool *wanted)
{
	struct tp *tp, *mine;

	if (format_event_id(sys, name) < 0)
		return NULL;		/* not in this kernel: names may go stale */
	*wanted = false;
	for (tp = session_tps(s); tp; tp = tp->next)
		if (tp->mode == TP_RECORD && !strcmp(tp->system, sys) &&
		    !strcmp(tp->name, name))
			*wanted = true;
	mine = session_add(s, sys, name, TP_RECORD, NULL);
	if (mine)
		mine->internal = true;
	return mine;
}

void comm_track_init(struct session *s, struct comm_track *ct)
{
	struct tp *tp;

	memset(ct, 0, sizeof(*ct));
	ct->exec_id = ct->rename_id = ct->fork_id = -1;
	tp = track(s, "sched", "sched_process_exec", &ct->deliver_exec);
	if (tp && !format_field(tp->event, "filename", &ct->exec_file) &&
	    !format_field(tp->event, "pid", &ct->exec_pid))
		ct->exec_id = tp->id;
	tp = track(s, "task", "task_rename", &ct->deliver_rename);
	if (tp && !format_field(tp->event, "newcomm", &ct->rename_comm) &&
	    !format_field(tp->event, "pid", &ct->rename_pid))
		ct->rename_id = tp->id;
	tp = track(s, "task", "task_newtask", &ct->deliver_fork);
	if (tp && !format_field(tp->event, "pid", &ct->fork_pid) &&
	    !format_field(tp->event, "comm", &ct->fork_comm) &&
	    !format_field(tp->event, "clone_flags", &ct->fork_flags))
		ct->fork_id = tp->id;
}

bool comm_track_event(struct comm_track *ct, const struct tk_event *ev)
{
	char buf[256];
	const char *base;

	if (ev->id == ct->exec_id) {
		/* the exec's task_rename, just before, gave the name the
		 * kernel chose (an fexecve of /bin/true is "true", though the
		 * file is /dev/fd/3); the file's base name only stands in for
		 * it where task_rename cannot be recorded */
		if (ct->rename_id >= 0)
			return !ct->deliver_exec;
		field_str(ev, &ct->exec_file, buf, sizeof(buf));
		base = strrchr(buf, '/');
		base = base ? base + 1 : buf;
		task_cache_rename((pid_t)field_int(ev, &ct->exec_pid), base, ev->ts);
		return !ct->deliver_exec;
	}
	if (ev->id == ct->fork_id) {
		pid_t child = (pid_t)field_int(ev, &ct->fork_pid), tgid = child;

		/* CLONE_THREAD: a thread of its parent's process */
		if (field_int(ev, &ct->fork_flags) & 0x10000)
			tgid = task_cache_tgid(ev->pid);
		field_str(ev, &ct->fork_comm, buf, sizeof(buf));
		task_cache_hint(child, buf, tgid);
		return !ct->deliver_fork;
	}
	if (ev->id == ct->rename_id) {
		field_str(ev, &ct->rename_comm, buf, sizeof(buf));
		task_cache_rename((pid_t)field_int(ev, &ct->rename_pid), buf, ev->ts);
		return !ct->deliver_rename;
	}
	return false;
}

/*
 * The kernel's saved_cmdlines (the names it saw at context switches while
 * recording), for tasks gone before /proc could name them.  The file is
 * read whole (thousands of lines where saved_cmdlines_size was raised:
 * about a millisecond), so one copy serves every gone task for
 * CMDLINES_MIN_NS: on a machine running a build, a read per gone task
 * took 12% of a busy reader's time.  A task missing from a copy read
 * before the drain that met it began may have run since: it is named
 * "<...>" for now and looked up again in the next copy, whose name its
 * later records take.
 */
#define CMDLINES_MIN_NS 50000000ULL
#define CMDLINES_RETRY 256

struct cmdline {
	char comm[16];
};

static struct hmap *cmdlines;	/* pid -> struct cmdline */
static uint64_t cmdlines_at;	/* when read; 0: never */
static pid_t retry[CMDLINES_RETRY];	/* missing from a stale copy */
static int nretry;

static void read_cmdlines(void)
{
	char *buf = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	char *line, *save = NULL;
	int i;

	if (!cmdlines)
		cmdlines = hmap_new(sizeof(struct cmdline));
	hmap_clear(cmdlines);
	cmdlines_at = time_mono_ns();
	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long p = strtol(line, &end, 10);
		struct cmdline *c;

		if (p <= 0 || *end != ' ')
			continue;
		c = hmap_get(cmdlines, (uint64_t)p, true);
		strncpy(c->comm, end + 1, sizeof(c->comm) - 1);
	}
	free(buf);
	for (i = 0; i < nretry; i++) {
		struct cmdline *c = hmap_get(cmdlines, (uint64_t)retry[i], false);

		if (c)
			task_cache_set(retry[i], c->comm, -1);
	}
	nretry = 0;
}

static const char *saved_cmdline(const struct session *s, pid_t pid)
{
	uint64_t now = time_mono_ns();
	struct cmdline *c;

	if (!cmdlines_at || (cmdlines_at <= s->drain_at &&
			     now - cmdlines_at >= CMDLINES_MIN_NS))
		read_cmdlines();
	c = pid > 0 ? hmap_get(cmdlines, (uint64_t)pid, false) : NULL;
	if (!c && pid > 0 && cmdlines_at <= s->drain_at && nretry < CMDLINES_RETRY)
		retry[nretry++] = pid;
	return c ? c->comm : NULL;
}

const char *session_comm(struct session *s, pid_t pid)
{
	const char *c = task_cache_comm_at(pid, s->rec_ts);

	if (c)
		return c;
	/* the whole list is read for one name: remember the answer, also
	 * "not there" (a task gone before its records were read), or a busy
	 * reader would read it again for each of that task's records */
	/* a task we saw forked: its parent's name, which exec and rename
	 * records would have replaced; saved_cmdlines may still hold an
	 * older task of the same PID */
	c = task_cache_hint_comm(pid);
	if (!c)
		c = saved_cmdline(s, pid);
	if (!c)
		c = pid == 0 ? "<idle>" : "<...>";
	task_cache_set(pid, c, -1);
	return task_cache_comm(pid);
}
