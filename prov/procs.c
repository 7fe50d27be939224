// SPDX-License-Identifier: GPL-2.0
/*
 * process.begin, process.end, process.thread.begin, process.thread.end,
 * and the same on process("path") or process(PID): the life of processes
 * and threads, from the task, sched and syscalls tracepoints recorded in
 * our own tracefs instance.
 *
 * What stap means, and what it is made of here:
 *
 *   begin         a new process: task:task_newtask of a task created
 *                 without CLONE_THREAD.  For process("path"), also an
 *                 existing process that execs into path
 *                 (sched:sched_process_exec), and the children a process
 *                 running path forks.
 *   end           the end of a process: sched:sched_process_exit of its
 *                 last thread (group_dead, Linux 6.16), or on older
 *                 kernels of its main thread (a process whose main thread
 *                 leaves first ends early there).  For process("path"),
 *                 also an exec of such a process into another program.
 *   thread.begin  a new thread (CLONE_THREAD) of the process(es)
 *   thread.end    a thread other than the main one exits
 *
 * The handler runs in the context of the new or ending task, as stap's
 * do: pid(), tid(), execname() and ppid() are the child's, not the
 * parent's that forked it.  process.end offers $code: the status the
 * process gave exit_group(2) or exit(2) (syscalls:sys_enter_exit_group,
 * sys_enter_exit), or -1 when it died of a signal; stap's process.end has
 * no variables, its kprocess.exit has `code`.
 *
 * As in stap, the processes and threads that already run when the script
 * starts fire begin and thread.begin too: they are read from /proc at
 * attach, just before recording starts, and fired first once the run
 * proper begins (before any record).  For process("path"), those running
 * path are found there as well, so that their end fires.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/task.h"
#include "lang/diag.h"
#include "lang/run.h"
#include "prov/prov.h"
#include "prov/record.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define CLONE_THREAD_FLAG 0x00010000ULL

enum pkind { P_BEGIN, P_END, P_TBEGIN, P_TEND };
enum pmatch_kind { M_ALL, M_PATH, M_PID };

/* A set of process ids (open addressing; 0 is empty, -1 a hole). */
struct pidset {
	pid_t *v;
	size_t cap, n;
};

struct procs {
	enum pkind kind;
	enum pmatch_kind match;
	char *path;		/* M_PATH: resolved */
	pid_t pid;		/* M_PID */
	struct pidset running;	/* M_PATH: processes running path */
};

/* What a handler sees: the task that begins or ends. */
struct pev {
	const struct tk_event *ev;
	pid_t pid, tid, ppid;
	const char *comm;
	int64_t code;
};

static bool pidset_has(const struct pidset *s, pid_t p)
{
	size_t i, mask = s->cap - 1;

	if (!s->cap)
		return false;
	for (i = (size_t)p & mask; s->v[i]; i = (i + 1) & mask)
		if (s->v[i] == p)
			return true;
	return false;
}

static void pidset_add(struct pidset *s, pid_t p)
{
	size_t i, mask;

	if (pidset_has(s, p))
		return;
	if ((s->n + 1) * 2 > s->cap) {
		struct pidset old = *s;

		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xcalloc(s->cap, sizeof(*s->v));
		s->n = 0;
		for (i = 0; i < old.cap; i++)
			if (old.v[i] > 0)
				pidset_add(s, old.v[i]);
		free(old.v);
	}
	mask = s->cap - 1;
	for (i = (size_t)p & mask; s->v[i] > 0; i = (i + 1) & mask)
		;
	s->v[i] = p;
	s->n++;
}

static void pidset_del(struct pidset *s, pid_t p)
{
	size_t i, mask = s->cap - 1;

	if (!s->cap)
		return;
	for (i = (size_t)p & mask; s->v[i]; i = (i + 1) & mask)
		if (s->v[i] == p) {
			s->v[i] = -1;	/* a hole keeps the chains whole */
			return;
		}
}

/* ---- compile time -------------------------------------------------------- */

static int procs_expand(const struct prov_env *env, const struct ast_pp *pp,
			struct prov_list *out)
{
	static const char *const names[] = { "begin", "end", "thread.begin",
					     "thread.end" };
	const struct ast_ppcomp *c0;
	struct procs *pr;
	struct prov_probe *p;
	char text[PATH_MAX + 64], real[PATH_MAX];
	enum pkind kind;
	size_t i = 1;

	if (pp->ncomps < 2 || !prov_comp_is(pp, 0, "process"))
		return 0;
	if (prov_comp_is(pp, 1, "thread") && !pp->comps[1].arg) {
		if (pp->ncomps != 3)
			return 0;
		i = 2;
	} else if (pp->ncomps != 2) {
		return 0;
	}
	if (pp->comps[i].arg)
		return 0;
	if (prov_comp_is(pp, i, "begin"))
		kind = i == 2 ? P_TBEGIN : P_BEGIN;
	else if (prov_comp_is(pp, i, "end"))
		kind = i == 2 ? P_TEND : P_END;
	else
		return 0;

	c0 = &pp->comps[0];
	pr = xcalloc(1, sizeof(*pr));
	pr->kind = kind;
	if (!c0->arg) {
		pr->match = M_ALL;
		snprintf(text, sizeof(text), "process.%s", names[kind]);
	} else if (c0->arg->kind == AST_E_NUM) {
		if (c0->arg->u.num <= 0 || c0->arg->u.num > INT32_MAX) {
			diag_error(env->diag, c0->loc, "process(%lld): not a "
				   "process id", (long long)c0->arg->u.num);
			free(pr);
			return -1;
		}
		pr->match = M_PID;
		pr->pid = (pid_t)c0->arg->u.num;
		snprintf(text, sizeof(text), "process(%d).%s", (int)pr->pid,
			 names[kind]);
	} else if (c0->arg->kind == AST_E_STR && c0->arg->u.str.s[0]) {
		const char *want = c0->arg->u.str.s;

		if (!realpath(want, real)) {
			if (!env->listing) {
				diag_error(env->diag, c0->loc, "cannot find "
					   "program '%s': %s", want, strerror(errno));
				free(pr);
				return -1;
			}
			snprintf(real, sizeof(real), "%s", want);
		}
		pr->match = M_PATH;
		pr->path = xstrdup(real);
		snprintf(text, sizeof(text), "process(\"%s\").%s", real, names[kind]);
	} else {
		diag_error(env->diag, c0->loc, "process() needs a program's path "
			   "or a process id");
		free(pr);
		return -1;
	}
	p = prov_probe_new(&prov_procs, text, PROV_RUNNING);
	p->data = pr;
	prov_list_push(out, p);
	return 1;
}

static size_t procs_vars(const struct prov_probe *p, struct prov_var *out,
			 size_t max)
{
	const struct procs *pr = p->data;

	if (pr->kind != P_END || !max)
		return 0;
	memset(out, 0, sizeof(*out));
	out->name = "code";
	out->type = AST_T_LONG;
	out->ctype = "int";
	return 1;
}

static int procs_var(const struct prov_probe *p, const char *name,
		     struct prov_var *out)
{
	if (strcmp(name, "code") || !procs_vars(p, out, 1))
		return -ENOENT;
	return 0;
}

static int procs_fetch(const struct prov_probe *p, void *evp, int idx,
		       int64_t sub, struct lang_val *out)
{
	const struct pev *e = evp;

	(void)p;
	(void)sub;
	if (idx != 0)
		return -EINVAL;
	out->s = "";
	out->l = e->code;
	return 0;
}

static int procs_context(const struct prov_probe *p, void *evp,
			 enum prov_ctx what, struct lang_val *out)
{
	const struct pev *e = evp;

	(void)p;
	switch (what) {
	case PROV_CTX_PID:
		out->l = e->pid;
		return 0;
	case PROV_CTX_TID:
		out->l = e->tid;
		return 0;
	case PROV_CTX_PPID:
		out->l = e->ppid;
		return 0;
	case PROV_CTX_CPU:
		out->l = e->ev->cpu;
		return 0;
	case PROV_CTX_TIME:
		out->l = (int64_t)e->ev->ts;
		return 0;
	case PROV_CTX_EXECNAME:
		out->s = e->comm;
		return 0;
	case PROV_CTX_PROBEFUNC:
		out->s = "";
		return 0;
	case PROV_CTX_IS_RETURN:
		out->l = 0;
		return 0;
	default:
		return -ENOENT;
	}
}

static void procs_describe(const struct prov_probe *p, bool plan, FILE *f)
{
	const struct procs *pr = p->data;
	static const char *const what[] = {
		[P_BEGIN] = "task:task_newtask without CLONE_THREAD",
		[P_END] = "sched:sched_process_exit of a process's last thread "
			  "(group_dead), with syscalls:sys_enter_exit_group for $code",
		[P_TBEGIN] = "task:task_newtask with CLONE_THREAD",
		[P_TEND] = "sched:sched_process_exit of a thread but the main one",
	};

	if (plan) {
		fputs("echo 1 > \"$T/events/task/task_newtask/enable\"\n"
		      "echo 1 > \"$T/events/sched/sched_process_exec/enable\"\n"
		      "echo 1 > \"$T/events/sched/sched_process_exit/enable\"\n", f);
		if (pr->kind == P_END)
			fputs("echo 1 > \"$T/events/syscalls/sys_enter_exit_group/enable\"\n"
			      "echo 1 > \"$T/events/syscalls/sys_enter_exit/enable\"\n", f);
		return;
	}
	fprintf(f, "records of %s from our tracefs instance", what[pr->kind]);
	if (pr->match == M_PATH)
		fprintf(f, "; processes running %s (sched:sched_process_exec "
			"into it %s, and their forks)", pr->path,
			pr->kind == P_END ? "or out of it" : "");
	else if (pr->match == M_PID)
		fprintf(f, "; process %d only", (int)pr->pid);
}

static void procs_free_probe(struct prov_probe *p)
{
	struct procs *pr = p->data;

	if (!pr)
		return;
	free(pr->path);
	free(pr->running.v);
	free(pr);
	p->data = NULL;
}

/* ---- running ------------------------------------------------------------- */

struct pstate {
	struct run *run;
	struct session *s;
	struct prov_probe **v;
	size_t n;
	bool want_code;
	int newtask_id, exec_id, exit_id, exitg_id, exit1_id;
	struct tk_field nt_pid, nt_comm, nt_flags;
	struct tk_field ex_file, ex_pid;
	struct tk_field xt_comm, xt_pid, xt_dead;
	bool has_dead;			/* the kernel has group_dead */
	struct tk_field eg_code, e1_code;
	struct hmap *threads;	/* threads made while we watched: process */
	struct hmap *parents;	/* processes made while we watched: parent */
	struct hmap *codes;	/* exit codes: -tgid (exit_group), tid (exit) */
	bool stopped;
	bool reported;
	/* begin of the tasks running at the start: fired before any record */
	struct existing *pending;
	size_t npending;
	bool fired_existing;
};

/* A task that ran before the start. */
struct existing {
	pid_t pid, tid, ppid;
	char comm[16];
};

static void map_set(struct hmap *m, int64_t key, pid_t val)
{
	*(pid_t *)hmap_get(m, (uint64_t)key, true) = val;
}

/* The value of @key in @m into *@val, and with @remove the entry goes. */
static bool map_take(struct hmap *m, int64_t key, pid_t *val, bool remove)
{
	pid_t *v = hmap_get(m, (uint64_t)key, false);

	if (!v)
		return false;
	*val = *v;
	if (remove)
		hmap_del(m, (uint64_t)key);
	return true;
}

static pid_t tgid_of(struct pstate *st, pid_t tid)
{
	pid_t t;

	if (map_take(st->threads, tid, &t, false))
		return t;
	t = task_cache_tgid(tid);
	return t > 0 ? t : tid;
}

static bool matches(const struct procs *pr, pid_t tgid)
{
	switch (pr->match) {
	case M_ALL: return true;
	case M_PID: return tgid == pr->pid;
	case M_PATH: return pidset_has(&pr->running, tgid);
	}
	return false;
}

static void fire(struct pstate *st, struct prov_probe *p, struct pev *e)
{
	if (!st->stopped && !run_fire(st->run, p, e)) {
		st->stopped = true;
		session_drain_stop(st->s);
	}
}

static void fire_kind(struct pstate *st, enum pkind kind, struct pev *e)
{
	size_t i;

	for (i = 0; i < st->n; i++) {
		struct procs *pr = st->v[i]->data;

		if (pr->kind == kind && matches(pr, e->pid))
			fire(st, st->v[i], e);
	}
}

static void on_newtask(struct pstate *st, const struct tk_event *ev)
{
	char comm[16];
	pid_t child = (pid_t)field_int(ev, &st->nt_pid);
	uint64_t flags = (uint64_t)field_int(ev, &st->nt_flags);
	pid_t parent = tgid_of(st, ev->pid);
	struct pev e = { .ev = ev, .tid = child, .comm = comm, .code = -1 };
	size_t i;

	field_str(ev, &st->nt_comm, comm, sizeof(comm));
	if (flags & CLONE_THREAD_FLAG) {
		map_set(st->threads, child, parent);
		task_cache_set(child, comm, parent);
		e.pid = parent;
		e.ppid = task_ppid(parent);
		fire_kind(st, P_TBEGIN, &e);
		return;
	}
	task_cache_set(child, comm, child);
	map_set(st->parents, child, parent);
	e.pid = child;
	e.ppid = parent;
	/* a child of a process running path runs it too */
	for (i = 0; i < st->n; i++) {
		struct procs *pr = st->v[i]->data;

		if (pr->match == M_PATH && pidset_has(&pr->running, parent))
			pidset_add(&pr->running, child);
	}
	fire_kind(st, P_BEGIN, &e);
}

/* The program @file names, as the exec'ing process @pid saw it. */
static bool exec_is(const char *file, pid_t pid, const char *path)
{
	char buf[PATH_MAX + 64], real[PATH_MAX];

	if (!strcmp(file, path))
		return true;
	if (file[0] != '/') {
		snprintf(buf, sizeof(buf), "/proc/%d/cwd/%s", (int)pid, file);
		file = buf;
	}
	return realpath(file, real) && !strcmp(real, path);
}

static void on_exec(struct pstate *st, const struct tk_event *ev)
{
	char file[PATH_MAX], comm[16];
	const char *base;
	pid_t pid = (pid_t)field_int(ev, &st->ex_pid);
	struct pev e = { .ev = ev, .pid = pid, .tid = pid, .comm = comm, .code = -1 };
	size_t i;

	field_str(ev, &st->ex_file, file, sizeof(file));
	base = strrchr(file, '/');
	snprintf(comm, sizeof(comm), "%.15s", base ? base + 1 : file);
	task_cache_set(pid, comm, pid);
	e.ppid = task_ppid(pid);
	for (i = 0; i < st->n; i++) {
		struct prov_probe *p = st->v[i];
		struct procs *pr = p->data;
		bool was, is;

		if (pr->match != M_PATH)
			continue;
		was = pidset_has(&pr->running, pid);
		is = exec_is(file, pid, pr->path);
		/* the old program ends, the new one begins */
		if (was && pr->kind == P_END)
			fire(st, p, &e);
		if (was && !is)
			pidset_del(&pr->running, pid);
		if (is && !was)
			pidset_add(&pr->running, pid);
	}
	for (i = 0; i < st->n; i++) {
		struct procs *pr = st->v[i]->data;

		if (pr->match == M_PATH && pr->kind == P_BEGIN &&
		    pidset_has(&pr->running, pid))
			fire(st, st->v[i], &e);
	}
}

static void on_exit_task(struct pstate *st, const struct tk_event *ev)
{
	char comm[16];
	pid_t tid = (pid_t)field_int(ev, &st->xt_pid), tgid, code;
	struct pev e = { .ev = ev, .tid = tid, .comm = comm, .code = -1 };
	bool dead;
	size_t i;

	field_str(ev, &st->xt_comm, comm, sizeof(comm));
	tgid = tgid_of(st, tid);
	dead = st->has_dead ? field_int(ev, &st->xt_dead) != 0 : tid == tgid;
	e.pid = tgid;
	if (!map_take(st->parents, tgid, &e.ppid, dead)) {
		e.ppid = task_ppid(tgid);
		if (e.ppid < 0)
			e.ppid = 0;
	}
	if (tid != tgid)
		fire_kind(st, P_TEND, &e);
	if (dead) {
		if (map_take(st->codes, -(int64_t)tgid, &code, true) ||
		    map_take(st->codes, tid, &code, true))
			e.code = code;
		fire_kind(st, P_END, &e);
		for (i = 0; i < st->n; i++) {
			struct procs *pr = st->v[i]->data;

			if (pr->match == M_PATH)
				pidset_del(&pr->running, tgid);
		}
	} else {
		map_take(st->codes, tid, &code, true);
	}
	map_take(st->threads, tid, &code, true);
	task_cache_forget(tid);
}

/* begin and thread.begin of the tasks that ran at the start. */
static void fire_existing(struct pstate *st)
{
	struct tk_event ev = { .cpu = -1 };
	size_t i;

	if (st->fired_existing)
		return;
	st->fired_existing = true;
	for (i = 0; i < st->npending && !st->stopped; i++) {
		struct existing *x = &st->pending[i];
		struct pev e = { .ev = &ev, .pid = x->pid, .tid = x->tid,
				 .ppid = x->ppid, .comm = x->comm, .code = -1 };

		fire_kind(st, x->tid == x->pid ? P_BEGIN : P_TBEGIN, &e);
	}
	free(st->pending);
	st->pending = NULL;
	st->npending = 0;
	run_flush(st->run);
}

static int on_start(struct loop *l, int fd, void *arg)
{
	(void)l;
	(void)fd;
	fire_existing(arg);
	return 0;
}

static void add_existing(struct pstate *st, size_t *cap, pid_t pid, pid_t tid,
			 pid_t ppid)
{
	struct existing *x;

	if (st->npending == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		st->pending = xrealloc(st->pending, *cap * sizeof(*st->pending));
	}
	x = &st->pending[st->npending++];
	x->pid = pid;
	x->tid = tid;
	x->ppid = ppid;
	if (task_comm(tid, x->comm, sizeof(x->comm)) < 0)
		x->comm[0] = '\0';
}

/*
 * The tasks running now, for the begin probes (@threads: the threads of
 * each process too).  Only the processes some begin probe would take.
 */
static void scan_existing(struct pstate *st, bool threads)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	size_t cap = 0, i;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		bool want = false;
		pid_t ppid;

		if (*end || pid <= 0)
			continue;
		for (i = 0; i < st->n && !want; i++)
			want = matches(st->v[i]->data, (pid_t)pid);
		if (!want)
			continue;
		ppid = task_ppid((pid_t)pid);
		add_existing(st, &cap, (pid_t)pid, (pid_t)pid, ppid > 0 ? ppid : 0);
		if (threads) {
			pid_t *tids = NULL;
			int n = task_threads((pid_t)pid, &tids), t;

			for (t = 0; t < n; t++)
				if (tids[t] != (pid_t)pid)
					add_existing(st, &cap, (pid_t)pid, tids[t],
						     ppid > 0 ? ppid : 0);
			free(tids);
		}
	}
	closedir(dir);
}

static void on_record(const struct tk_event *ev, void *arg)
{
	struct pstate *st = arg;

	if (!st->fired_existing)
		fire_existing(st);
	if (st->stopped)
		return;
	if (ev->id == st->newtask_id) {
		on_newtask(st, ev);
	} else if (ev->id == st->exec_id) {
		on_exec(st, ev);
	} else if (ev->id == st->exit_id) {
		on_exit_task(st, ev);
	} else if (ev->id == st->exitg_id || ev->id == st->exit1_id) {
		bool group = ev->id == st->exitg_id;
		int64_t c = field_int(ev, group ? &st->eg_code : &st->e1_code);

		/* processes keyed -tgid, threads by tid */
		map_set(st->codes, group ? -(int64_t)tgid_of(st, ev->pid) : ev->pid,
			(pid_t)(c & 0xff));
	}
}

static void batch_end(void *arg)
{
	struct pstate *st = arg;

	run_flush(st->run);
}

/* Processes running @pr->path now, from /proc. */
static void scan_running(struct procs *pr)
{
	char link[64], exe[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	ssize_t n;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		snprintf(link, sizeof(link), "/proc/%ld/exe", pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		if (n <= 0)
			continue;
		exe[n] = '\0';
		if (!strcmp(exe, pr->path))
			pidset_add(&pr->running, (pid_t)pid);
	}
	closedir(dir);
}

static struct tp *add_event(struct pstate *st, const char *sys, const char *name,
			    bool optional)
{
	struct tp *tp = session_add(st->s, sys, name, TP_RECORD, NULL);

	if (!tp && !optional)
		run_error(st->run, "%s", session_error(st->s));
	return tp;
}

static int field(struct pstate *st, struct tp *tp, const char *name,
		 struct tk_field *f)
{
	if (format_field(tp->event, name, f) < 0) {
		run_error(st->run, "tracepoint %s:%s has no field '%s'", tp->system,
			  tp->name, name);
		return -ENOENT;
	}
	return 0;
}

static int prov_procs_attach(struct run *run, struct prov_probe *const *probes,
			     size_t n, void **state)
{
	struct session_opts so = { .ordered = true, .batch_end = batch_end,
				   .buffer_kb = run_buffer_kb(run),
				   .size_option = "-s MB" };
	struct pstate *st = xcalloc(1, sizeof(*st));
	struct tp *nt, *ex, *xt, *eg, *e1;
	bool begins = false, threads = false;
	size_t i;
	int err;

	st->run = run;
	st->v = xcalloc(n ? n : 1, sizeof(*st->v));
	st->threads = hmap_new(sizeof(pid_t));
	st->parents = hmap_new(sizeof(pid_t));
	st->codes = hmap_new(sizeof(pid_t));
	st->newtask_id = st->exec_id = st->exit_id = st->exitg_id = st->exit1_id = -2;
	*state = st;
	for (i = 0; i < n; i++) {
		struct procs *pr = probes[i]->data;

		st->v[st->n++] = probes[i];
		if (pr->kind == P_END)
			st->want_code = true;
		begins |= pr->kind == P_BEGIN || pr->kind == P_TBEGIN;
		threads |= pr->kind == P_TBEGIN;
		if (pr->match == M_PATH)
			scan_running(pr);
	}
	so.batch_end = batch_end;
	st->s = session_new(&so);
	if ((err = session_open(st->s)) < 0) {
		run_error(run, "%s", session_error(st->s));
		return err;
	}
	if (!(nt = add_event(st, "task", "task_newtask", false)) ||
	    !(ex = add_event(st, "sched", "sched_process_exec", false)) ||
	    !(xt = add_event(st, "sched", "sched_process_exit", false)))
		return errno ? -errno : -EINVAL;
	if ((err = field(st, nt, "pid", &st->nt_pid)) < 0 ||
	    (err = field(st, nt, "comm", &st->nt_comm)) < 0 ||
	    (err = field(st, nt, "clone_flags", &st->nt_flags)) < 0 ||
	    (err = field(st, ex, "filename", &st->ex_file)) < 0 ||
	    (err = field(st, ex, "pid", &st->ex_pid)) < 0 ||
	    (err = field(st, xt, "comm", &st->xt_comm)) < 0 ||
	    (err = field(st, xt, "pid", &st->xt_pid)) < 0)
		return err;
	/* without group_dead (before 6.16) the main thread's exit ends it */
	st->has_dead = format_field(xt->event, "group_dead", &st->xt_dead) == 0;
	st->newtask_id = nt->id;
	st->exec_id = ex->id;
	st->exit_id = xt->id;
	if (st->want_code) {
		eg = add_event(st, "syscalls", "sys_enter_exit_group", true);
		e1 = add_event(st, "syscalls", "sys_enter_exit", true);
		if (eg && format_field(eg->event, "error_code", &st->eg_code) == 0)
			st->exitg_id = eg->id;
		if (e1 && format_field(e1->event, "error_code", &st->e1_code) == 0)
			st->exit1_id = e1->id;
	}
	if (begins) {
		scan_existing(st, threads);
		err = loop_timer(run_loop(run), 0, 0, on_start, st);
		if (err < 0) {
			run_error(run, "cannot create a timer: %s", strerror(-err));
			return err;
		}
	} else {
		st->fired_existing = true;
	}
	if ((err = session_start(st->s, run_loop(run), on_record, st)) < 0) {
		run_error(run, "%s", session_error(st->s));
		return err;
	}
	return 0;
}

static void prov_procs_phase(struct run *run, void *state, enum prov_phase ph)
{
	struct pstate *st = state;

	if (ph != PROV_PHASE_DRAIN || !st || !st->s)
		return;
	record_drain(run, st->s);
	st->reported = true;
	run_flush(run);
}

static void prov_procs_detach(struct run *run, void *state)
{
	struct pstate *st = state;

	(void)run;
	if (!st)
		return;
	record_close(st->s, st->reported);
	free(st->pending);
	hmap_free(st->threads);
	hmap_free(st->parents);
	hmap_free(st->codes);
	free(st->v);
	free(st);
}

const struct provider prov_procs = {
	.name = "procs",
	.expand = procs_expand,
	.vars = procs_vars,
	.var = procs_var,
	.fetch = procs_fetch,
	.context = procs_context,
	.describe = procs_describe,
	.attach = prov_procs_attach,
	.phase = prov_procs_phase,
	.detach = prov_procs_detach,
	.free_probe = procs_free_probe,
};
