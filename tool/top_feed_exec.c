// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's "exec" feeder: programs started (sched:sched_process_exec),
 * by the new program's name and file, with the last PID that ran it and
 * its parent.  sched:sched_process_fork says each new task's parent as it
 * is made, so a parent that has exited (or a child that has) is still
 * known; a process forked before tracing began gets its parent from /proc.
 * The new comm is the file's base name as the kernel makes it (at most 15
 * bytes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/top_int.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

enum { F_COMM, F_FILENAME, F_PID, F_PPID, F_PCOMM, F_N };

static const struct top_field fields[F_N] = {
	[F_COMM]     = { "comm", "COMM", AGT_STR, AGT_PLAIN, 15 },
	[F_FILENAME] = { "filename", "FILENAME", AGT_STR, AGT_PLAIN, 24 },
	[F_PID]      = { "pid", "PID", AGT_INT, AGT_PLAIN, 0 },
	[F_PPID]     = { "ppid", "PPID", AGT_INT, AGT_PLAIN, 0 },
	[F_PCOMM]    = { "pcomm", "PCOMM", AGT_STR, AGT_PLAIN, 15 },
};

struct parent {
	pid_t ppid;		/* the parent process (its tgid) */
	char pcomm[16];
};

#define MAX_FORKS	65536

struct execs {
	int exec_id, fork_id;
	struct tk_field filename, pid, old_pid, parent_pid, child_pid, parent_comm;
	struct hmap *parents;	/* child tid -> struct parent */
};

static int exec_init(struct top_feed *f)
{
	f->fields = fields;
	f->nfields = F_N;
	return 0;
}

static void on_fork(struct execs *x, const struct tk_event *ev)
{
	pid_t parent = (pid_t)field_int(ev, &x->parent_pid);
	pid_t tgid = task_cache_tgid(parent);
	struct parent *p;

	if (hmap_count(x->parents) >= MAX_FORKS)
		hmap_clear(x->parents);
	p = hmap_get(x->parents, (uint64_t)field_int(ev, &x->child_pid), true);
	p->ppid = tgid > 0 ? tgid : parent;
	field_str(ev, &x->parent_comm, p->pcomm, sizeof(p->pcomm));
}

static void on_exec(struct top_feed *f, struct execs *x, const struct tk_event *ev)
{
	pid_t pid = (pid_t)field_int(ev, &x->pid);
	pid_t old = (pid_t)field_int(ev, &x->old_pid);
	char file[AGT_STR_MAX], comm[16], pcomm[16] = "";
	struct parent *p;
	struct agt_sample s;
	const char *base;
	pid_t ppid = -1;

	field_str(ev, &x->filename, file, sizeof(file));
	base = strrchr(file, '/');
	snprintf(comm, sizeof(comm), "%.15s", base ? base + 1 : file);
	p = hmap_get(x->parents, (uint64_t)old, false);
	if (!p && old != pid)
		p = hmap_get(x->parents, (uint64_t)pid, false);
	if (p) {
		ppid = p->ppid;
		snprintf(pcomm, sizeof(pcomm), "%s", p->pcomm);
	} else {
		ppid = task_ppid(pid);
		if (ppid > 0)
			snprintf(pcomm, sizeof(pcomm), "%s", session_comm(f->s, ppid));
	}
	memset(&s, 0, sizeof(s));
	s.str[F_COMM] = comm;
	s.str[F_FILENAME] = file;
	s.num[F_PID] = pid;
	s.num[F_PPID] = ppid;
	s.str[F_PCOMM] = pcomm;
	s.have = (1ull << F_N) - 1;
	if (ppid <= 0)
		s.have &= ~(1ull << F_PPID | 1ull << F_PCOMM);
	top_emit(f, ev, &s);
}

static void exec_event(struct top_feed *f, const struct tk_event *ev)
{
	struct execs *x = f->priv;

	if (ev->id == x->fork_id)
		on_fork(x, ev);
	else if (ev->id == x->exec_id)
		on_exec(f, x, ev);
}

static int exec_setup(struct top_feed *f)
{
	struct execs *x = xcalloc(1, sizeof(*x));
	struct tp *ex, *fk;

	f->priv = x;
	x->parents = hmap_new(sizeof(struct parent));
	ex = session_add(f->s, "sched", "sched_process_exec", TP_RECORD, NULL);
	fk = ex ? session_add(f->s, "sched", "sched_process_fork", TP_RECORD, NULL)
		: NULL;
	if (!fk) {
		snprintf(f->err, sizeof(f->err), "exec: %s", session_error(f->s));
		return errno ? -errno : -ENOENT;
	}
	x->exec_id = ex->id;
	x->fork_id = fk->id;
	if (format_field(ex->event, "filename", &x->filename) < 0 ||
	    format_field(ex->event, "pid", &x->pid) < 0 ||
	    format_field(ex->event, "old_pid", &x->old_pid) < 0 ||
	    format_field(fk->event, "parent_pid", &x->parent_pid) < 0 ||
	    format_field(fk->event, "parent_comm", &x->parent_comm) < 0 ||
	    format_field(fk->event, "child_pid", &x->child_pid) < 0) {
		snprintf(f->err, sizeof(f->err),
			 "exec: unexpected format of sched_process_exec or sched_process_fork");
		return -ENOENT;
	}
	if (f->verbose)
		pr_info("exec: sched:sched_process_exec records, parents from sched:sched_process_fork");
	return 0;
}

static void exec_release(struct top_feed *f)
{
	struct execs *x = f->priv;

	if (!x)
		return;
	hmap_free(x->parents);
	free(x);
	f->priv = NULL;
}

const struct top_feeder top_feed_exec = {
	.name = "exec",
	.init = exec_init,
	.setup = exec_setup,
	.event = exec_event,
	.release = exec_release,
	.ordered = true,
};
