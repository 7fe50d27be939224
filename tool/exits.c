// SPDX-License-Identifier: GPL-2.0
/*
 * Exit statuses put together from tracepoints (see exits.h for the events
 * and why).  Three tables, all keyed by PID/TID:
 *
 *	thrs	every thread: its thread group, start time, exit(N) asked
 *	grps	every process: parent, start, leader's name, the status its
 *		end will have once known, the signal queued for it
 *	held	processes exited, waiting for their SIGCHLD record
 *
 * A status is set once, by the first of exit_group(N) or a fatal signal
 * delivered with no handler: the other threads then die of the same group
 * exit (their SIGKILL deliveries are the kernel's way of ending them, not
 * another signal).
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/exits.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define CLONE_THREAD_FLAG	0x00010000ULL
#define CLONE_PARENT_FLAG	0x00008000ULL
#define CLD_EXITED_CODE		1
#define CLD_DUMPED_CODE		3

enum status { ST_NONE, ST_CODE, ST_SIGNAL };

struct thr {
	pid_t tgid;
	uint64_t start;		/* 0: unknown */
	int exit_req;		/* exit(N) of this thread, -1: none */
	int exec_zapped;	/* ended by another thread's exec */
};

struct grp {
	pid_t ppid;
	uint64_t start;
	char comm[16];		/* the leader's */
	enum status st;
	int code, sig;
	int queued;		/* fatal-by-default signal queued, not delivered */
	int leader_code;	/* exit(N) of the leader, -1: none */
	bool execing;
	bool in_tree;
};

struct exits {
	struct exits_opts o;
	struct hmap *thrs, *grps, *held;
	struct tp *newtask, *exec, *execve, *execveat, *exit_group, *exit1;
	struct tp *generate, *deliver, *pexit;
	struct tk_field nt_pid, nt_comm, nt_flags;
	struct tk_field ex_pid, ex_old;
	struct tk_field eg_code, e1_code;
	struct tk_field gen_sig, gen_code, gen_pid, gen_result;
	struct tk_field del_sig, del_code, del_handler;
	struct tk_field pe_comm, pe_dead;
	bool have_dead;
};

struct exits *exits_new(const struct exits_opts *o)
{
	struct exits *x = xcalloc(1, sizeof(*x));

	x->o = *o;
	x->thrs = hmap_new(sizeof(struct thr));
	x->grps = hmap_new(sizeof(struct grp));
	x->held = hmap_new(sizeof(struct exit_info));
	return x;
}

void exits_free(struct exits *x)
{
	if (!x)
		return;
	hmap_free(x->thrs);
	hmap_free(x->grps);
	hmap_free(x->held);
	free(x);
}

static struct tp *add(struct session *s, const char *sys, const char *name,
		      const char *const *fields, struct tk_field *out, int n)
{
	struct tp *tp = session_add(s, sys, name, TP_RECORD, NULL);
	int i;

	for (i = 0; tp && i < n; i++)
		if (format_field(tp->event, fields[i], &out[i]) < 0)
			return NULL;
	return tp;
}

int exits_add(struct exits *x, struct session *s)
{
	static const char *const nt[] = { "pid", "comm", "clone_flags" };
	static const char *const ex[] = { "pid", "old_pid" };
	static const char *const code[] = { "error_code" };
	static const char *const gen[] = { "sig", "code", "pid", "result" };
	static const char *const del[] = { "sig", "code", "sa_handler" };
	static const char *const pe[] = { "comm" };
	struct tk_field f[4];

	if (!(x->newtask = add(s, "task", "task_newtask", nt, f, 3)))
		return -1;
	x->nt_pid = f[0], x->nt_comm = f[1], x->nt_flags = f[2];
	if (!(x->exec = add(s, "sched", "sched_process_exec", ex, f, 2)))
		return -1;
	x->ex_pid = f[0], x->ex_old = f[1];
	if (!(x->execve = add(s, "syscalls", "sys_enter_execve", NULL, f, 0)) ||
	    !(x->execveat = add(s, "syscalls", "sys_enter_execveat", NULL, f, 0)))
		return -1;
	if (!(x->exit_group = add(s, "syscalls", "sys_enter_exit_group", code, f, 1)))
		return -1;
	x->eg_code = f[0];
	if (!(x->exit1 = add(s, "syscalls", "sys_enter_exit", code, f, 1)))
		return -1;
	x->e1_code = f[0];
	if (!(x->generate = add(s, "signal", "signal_generate", gen, f, 4)))
		return -1;
	x->gen_sig = f[0], x->gen_code = f[1], x->gen_pid = f[2], x->gen_result = f[3];
	if (!(x->deliver = add(s, "signal", "signal_deliver", del, f, 3)))
		return -1;
	x->del_sig = f[0], x->del_code = f[1], x->del_handler = f[2];
	if (!(x->pexit = add(s, "sched", "sched_process_exit", pe, f, 1)))
		return -1;
	x->pe_comm = f[0];
	/* 6.x kernels say which exit was the thread group's last */
	x->have_dead = format_field(x->pexit->event, "group_dead", &x->pe_dead) == 0;
	return 0;
}

/* /proc/PID/stat's start time (clock ticks of CLOCK_BOOTTIME) as
 * CLOCK_MONOTONIC ns; 0 when unknown. */
static uint64_t proc_start(pid_t pid)
{
	static int64_t boot_minus_mono = -1;
	unsigned long long ticks;
	struct timespec b, m;
	uint64_t ns;

	if (boot_minus_mono < 0) {
		clock_gettime(CLOCK_BOOTTIME, &b);
		clock_gettime(CLOCK_MONOTONIC, &m);
		boot_minus_mono = ((int64_t)b.tv_sec - m.tv_sec) * 1000000000LL +
				  (b.tv_nsec - m.tv_nsec);
		if (boot_minus_mono < 0)
			boot_minus_mono = 0;
	}
	if (task_start_time(pid, &ticks) < 0)
		return 0;
	ns = ticks * (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
	return ns > (uint64_t)boot_minus_mono ? ns - boot_minus_mono : 1;
}

static struct grp *grp_get(struct exits *x, pid_t tgid)
{
	struct grp *g = hmap_get(x->grps, (uint64_t)tgid, false);

	if (g)
		return g;
	g = hmap_get(x->grps, (uint64_t)tgid, true);
	g->ppid = task_ppid(tgid);
	if (g->ppid <= 0)
		g->ppid = -1;
	g->start = proc_start(tgid);
	g->leader_code = -1;
	if (task_comm(tgid, g->comm, sizeof(g->comm)) < 0)
		g->comm[0] = 0;
	g->in_tree = x->o.tree && tgid == x->o.pid;
	return g;
}

static struct thr *thr_get(struct exits *x, pid_t tid)
{
	struct thr *t = hmap_get(x->thrs, (uint64_t)tid, false);
	pid_t tgid;

	if (t)
		return t;
	tgid = task_tgid(tid);
	t = hmap_get(x->thrs, (uint64_t)tid, true);
	t->tgid = tgid > 0 ? tgid : tid;
	t->start = proc_start(tid);
	t->exit_req = -1;
	return t;
}

void exits_snapshot(struct exits *x)
{
	DIR *d = opendir("/proc"), *td;
	struct dirent *de, *te;
	char path[64];

	while (d && (de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);

		if (pid <= 0 || hmap_get(x->grps, (uint64_t)pid, false))
			continue;
		grp_get(x, pid);
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		td = opendir(path);
		while (td && (te = readdir(td))) {
			pid_t tid = (pid_t)atoi(te->d_name);
			struct thr *t;

			if (tid <= 0 || hmap_get(x->thrs, (uint64_t)tid, false))
				continue;
			t = hmap_get(x->thrs, (uint64_t)tid, true);
			t->tgid = pid;
			t->start = proc_start(tid);
			t->exit_req = -1;
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
}

static bool wanted(const struct exits *x, pid_t tgid, const struct grp *g)
{
	if (x->o.tree)
		return g->in_tree;
	return !x->o.pid || tgid == x->o.pid;
}

/* Death by default action: not ignored (CHLD CONT URG WINCH), not a stop. */
static bool fatal_default(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;
	}
	return sig > 0 && sig <= 64;
}

static void on_newtask(struct exits *x, const struct tk_event *ev)
{
	pid_t tid = (pid_t)field_int(ev, &x->nt_pid);
	uint64_t flags = (uint64_t)field_int(ev, &x->nt_flags);
	struct thr *parent = thr_get(x, ev->pid), *t;
	pid_t ptgid = parent->tgid;
	struct grp *pg = grp_get(x, ptgid), *g;
	pid_t pppid = pg->ppid;
	bool in_tree = pg->in_tree;	/* pg moves when grps grows */

	t = hmap_get(x->thrs, (uint64_t)tid, true);
	t->tgid = flags & CLONE_THREAD_FLAG ? ptgid : tid;
	t->start = ev->ts;
	t->exit_req = -1;
	t->exec_zapped = 0;
	if (flags & CLONE_THREAD_FLAG)
		return;
	g = hmap_get(x->grps, (uint64_t)tid, true);
	memset(g, 0, sizeof(*g));
	g->ppid = flags & CLONE_PARENT_FLAG ? pppid : ptgid;
	g->start = ev->ts;
	g->leader_code = -1;
	field_str(ev, &x->nt_comm, g->comm, sizeof(g->comm));
	g->in_tree = in_tree;
}

static void emit(struct exits *x, const struct exit_info *e)
{
	x->o.fn(e, x->o.arg);
}

/* A process's end: held until the SIGCHLD record from the same thread. */
static void on_exit_record(struct exits *x, const struct tk_event *ev)
{
	struct thr *t = thr_get(x, ev->pid);
	pid_t tgid = t->tgid;
	struct grp *g = grp_get(x, tgid);
	bool dead = x->have_dead ? field_int(ev, &x->pe_dead) != 0 : ev->pid == tgid;
	struct exit_info e = { .ts = ev->ts, .pid = tgid, .ppid = g->ppid };

	if (ev->pid == tgid) {
		field_str(ev, &x->pe_comm, g->comm, sizeof(g->comm));
		g->leader_code = t->exit_req;
	}
	if (x->o.per_thread && !dead && wanted(x, tgid, g)) {
		e.tid = ev->pid;
		field_str(ev, &x->pe_comm, e.comm, sizeof(e.comm));
		e.age_ns = t->start ? (int64_t)(ev->ts - t->start) : -1;
		if (t->exit_req >= 0)
			e.code = t->exit_req;
		else if (g->st == ST_SIGNAL && !t->exec_zapped)
			e.sig = g->sig;
		else if (g->st == ST_CODE)
			e.code = g->code;
		emit(x, &e);
	}
	if (dead && wanted(x, tgid, g)) {
		e.process = !x->o.per_thread;
		e.tid = x->o.per_thread ? ev->pid : tgid;
		if (x->o.per_thread)
			field_str(ev, &x->pe_comm, e.comm, sizeof(e.comm));
		else
			memcpy(e.comm, g->comm, sizeof(e.comm));
		if (x->o.per_thread)
			e.age_ns = t->start ? (int64_t)(ev->ts - t->start) : -1;
		else
			e.age_ns = g->start ? (int64_t)(ev->ts - g->start) : -1;
		if (g->st == ST_SIGNAL)
			e.sig = g->sig;
		else if (g->st == ST_CODE)
			e.code = g->code;
		else if (x->o.per_thread && t->exit_req >= 0)
			e.code = t->exit_req;
		else if (g->leader_code >= 0)
			e.code = g->leader_code;
		*(struct exit_info *)hmap_get(x->held, (uint64_t)ev->pid, true) = e;
	}
	hmap_del(x->thrs, (uint64_t)ev->pid);
	if (dead)
		hmap_del(x->grps, (uint64_t)tgid);
}

static void on_generate(struct exits *x, const struct tk_event *ev)
{
	int sig = (int)field_int(ev, &x->gen_sig);
	int code = (int)field_int(ev, &x->gen_code);
	pid_t target = (pid_t)field_int(ev, &x->gen_pid);
	struct exit_info *e = hmap_get(x->held, (uint64_t)ev->pid, false);
	struct grp *g;

	if (e && sig == SIGCHLD && code >= CLD_EXITED_CODE && code <= CLD_DUMPED_CODE) {
		/* the exiting thread tells its parent: the parent at exit */
		e->core = e->sig && code == CLD_DUMPED_CODE;
		e->ppid = thr_get(x, target)->tgid;
		emit(x, e);
		hmap_del(x->held, (uint64_t)ev->pid);
		return;
	}
	if (field_int(ev, &x->gen_result) != 0 || !fatal_default(sig))
		return;
	g = grp_get(x, thr_get(x, target)->tgid);
	g->queued = sig;
}

static void on_deliver(struct exits *x, const struct tk_event *ev)
{
	int sig = (int)field_int(ev, &x->del_sig);
	struct thr *t = thr_get(x, ev->pid);
	struct grp *g = grp_get(x, t->tgid);

	if (field_int(ev, &x->del_handler) != 0 || !fatal_default(sig)) {
		if (sig == g->queued)	/* caught or ignored */
			g->queued = 0;
		return;
	}
	if (g->st != ST_NONE)		/* another thread of a group exit */
		return;
	if (sig == SIGKILL && field_int(ev, &x->del_code) == 0 && g->queued) {
		sig = g->queued;	/* the fast path of a fatal signal */
	} else if (sig == SIGKILL && !g->queued && g->execing) {
		t->exec_zapped = 1;	/* another thread's exec ends this one */
		return;
	}
	g->st = ST_SIGNAL;
	g->sig = sig;
	g->queued = 0;
}

void exits_record(struct exits *x, const struct tk_event *ev)
{
	if (ev->id == x->pexit->id) {
		on_exit_record(x, ev);
	} else if (ev->id == x->generate->id) {
		on_generate(x, ev);
	} else if (ev->id == x->deliver->id) {
		on_deliver(x, ev);
	} else if (ev->id == x->newtask->id) {
		on_newtask(x, ev);
	} else if (ev->id == x->exit_group->id) {
		struct grp *g = grp_get(x, thr_get(x, ev->pid)->tgid);

		if (g->st == ST_NONE) {
			g->st = ST_CODE;
			g->code = (int)(field_int(ev, &x->eg_code) & 0xff);
		}
	} else if (ev->id == x->exit1->id) {
		thr_get(x, ev->pid)->exit_req = (int)(field_int(ev, &x->e1_code) & 0xff);
	} else if (ev->id == x->execve->id || ev->id == x->execveat->id) {
		grp_get(x, thr_get(x, ev->pid)->tgid)->execing = true;
	} else if (ev->id == x->exec->id) {
		pid_t pid = (pid_t)field_int(ev, &x->ex_pid);
		pid_t old = (pid_t)field_int(ev, &x->ex_old);
		struct grp *g = grp_get(x, pid);

		g->execing = false;
		if (old != pid)		/* a thread's exec: it is the leader now */
			hmap_del(x->thrs, (uint64_t)old);
	}
}

void exits_flush(struct exits *x, uint64_t before)
{
	struct exit_info *e;
	size_t pos = 0;
	uint64_t key;

	while ((e = hmap_next(x->held, &pos, &key))) {
		if (e->ts >= before)
			continue;
		emit(x, e);
		hmap_del(x->held, key);
		pos = 0;	/* deleting may move entries: start over */
	}
}
