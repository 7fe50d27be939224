// SPDX-License-Identifier: GPL-2.0
/*
 * Execs with their arguments (the mechanisms are described in execargs.h).
 *
 * An entry probe (kprobe or C library uprobe) reads the argv into the
 * thread's pending slot; the exec record that follows for that thread
 * reports it.  When no entry probe saw the exec, the loader's entry, hit
 * a few microseconds after the exec record in the new program, reads it:
 * the exec record is held until then.  Whether a loader record will come
 * is told from the process's mappings when the exec record is read (its
 * interpreter is the loader we probe); for a process already gone the
 * loader's record, if any, is in the rings already.  A timer reads the
 * rings and reports whatever is still held 200 ms later (20 ms for a
 * process gone), with what /proc said when the exec was read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "common/usite.h"
#include "tool/comms.h"
#include "tool/execargs.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define ARGS_LEN 4096
#define HOLD_MS 200
#define COMM_LEN 16

/* The arguments read for one exec: NUL-separated. */
struct argv {
	int argc, len;
	bool truncated;
	enum execargs_source source;
	char args[ARGS_LEN];
};

/* An exec reported once its loader has read the argv. */
struct held {
	uint64_t ts, deadline;
	char comm[COMM_LEN];
	struct argv fallback;	/* /proc or the file name, read at the record */
};

/* A probe reading argv: its fields resolved once. */
struct argv_probe {
	struct tp *tp;
	enum execargs_source source;
	struct tk_field ptr[EXECARGS_MAX + 1];
	struct tk_field arg[EXECARGS_MAX];
};

struct execargs {
	struct session *s;
	struct execargs_opts o;
	execargs_fn fn;
	void *arg;
	const char *mechanism;
	struct comms *comms;
	struct loop *loop;
	int timer;			/* fd, -1: none */
	bool timer_armed;
	char *loader;			/* the probed loader's path, NULL: none */
	struct tp *exec, *fork, *exit_execve, *exit_execveat;
	struct tk_field exec_filename, exec_pid, exec_old_pid;
	struct tk_field fork_parent, fork_child, exit_ret;
	struct argv_probe probes[5];
	int nprobes;
	struct hmap *pending;		/* tid -> struct argv, from entry probes */
	struct hmap *held;		/* pid -> struct held */
	struct hmap *parent;		/* pid -> parent pid, from fork records */
};

const char *execargs_source_name(enum execargs_source src)
{
	static const char *const names[] = {
		"kprobe", "uprobe", "loader", "proc", "filename", "none",
	};

	return src <= EXECARGS_NONE ? names[src] : "none";
}

struct execargs *execargs_new(struct session *s, const struct execargs_opts *o,
			      execargs_fn fn, void *arg)
{
	struct execargs *ea = xcalloc(1, sizeof(*ea));

	ea->s = s;
	ea->o = *o;
	if (ea->o.max_args <= 0 || ea->o.max_args > EXECARGS_MAX)
		ea->o.max_args = ea->o.max_args <= 0 ? 20 : EXECARGS_MAX;
	ea->fn = fn;
	ea->arg = arg;
	ea->timer = -1;
	ea->comms = comms_new();
	ea->pending = hmap_new(sizeof(struct argv));
	ea->held = hmap_new(sizeof(struct held));
	ea->parent = hmap_new(sizeof(pid_t));
	return ea;
}

void execargs_free(struct execargs *ea)
{
	if (!ea)
		return;
	comms_free(ea->comms);
	hmap_free(ea->pending);
	hmap_free(ea->held);
	hmap_free(ea->parent);
	free(ea->loader);
	free(ea);
}

const char *execargs_mechanism(const struct execargs *ea)
{
	return ea->mechanism ? ea->mechanism : "none";
}

static void read_probe(struct execargs *ea, struct argv_probe *p,
		       const struct tk_event *ev, struct argv *a)
{
	int i;

	a->argc = 0;
	a->len = 0;
	a->truncated = false;
	a->source = p->source;
	for (i = 0; i < ea->o.max_args; i++) {
		int n;

		if (field_int(ev, &p->ptr[i]) == 0)
			return;
		n = field_str(ev, &p->arg[i], a->args + a->len, ARGS_LEN - a->len);
		a->len += n + 1;
		a->argc++;
		if (a->len >= ARGS_LEN - 1) {
			a->truncated = true;
			return;
		}
	}
	a->truncated = field_int(ev, &p->ptr[ea->o.max_args]) != 0;
}

/* @a from /proc/PID/cmdline, else the exec's @filename. */
static void read_cmdline(struct execargs *ea, pid_t pid, const char *filename,
			 struct argv *a)
{
	char path[64];
	FILE *f;
	size_t n = 0;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(a->args, 1, ARGS_LEN - 1, f);
		fclose(f);
	}
	a->source = EXECARGS_PROC;
	if (!n) {	/* gone already: the file name is what we know */
		n = (size_t)snprintf(a->args, ARGS_LEN, "%s", filename) + 1;
		if (n > ARGS_LEN - 1)
			n = ARGS_LEN - 1;
		a->source = EXECARGS_FILENAME;
	}
	a->args[n] = '\0';
	a->len = (int)n;
	a->truncated = n >= ARGS_LEN - 1;
	a->argc = 0;
	for (i = 0; i < (int)n; i++)
		a->argc += a->args[i] == '\0';
	if (n && a->args[n - 1] != '\0')
		a->argc++;
	if (a->argc > ea->o.max_args) {
		int k, cut = 0;

		for (k = 0; k < ea->o.max_args; k++)
			cut += (int)strlen(a->args + cut) + 1;
		a->len = cut;
		a->argc = (int)ea->o.max_args;
		a->truncated = true;
	}
}

static pid_t parent_of(struct execargs *ea, pid_t pid)
{
	pid_t *pp = hmap_get(ea->parent, (uint64_t)pid, false);
	pid_t ppid;

	if (pp)
		return *pp;
	ppid = task_ppid(pid);
	return ppid > 0 ? ppid : 0;
}

static void report(struct execargs *ea, uint64_t ts, pid_t pid, const char *comm,
		   long ret, const struct argv *a)
{
	struct execargs_event e = {
		.ts = ts, .pid = pid, .ppid = parent_of(ea, pid), .comm = comm,
		.ret = ret, .args = "", .source = EXECARGS_NONE,
	};

	if (a) {
		e.argc = a->argc;
		e.args = a->args;
		e.truncated = a->truncated;
		e.source = a->source;
	}
	ea->fn(&e, ea->arg);
}

static void report_held(struct execargs *ea, pid_t pid, struct held *h,
			const struct argv *a)
{
	report(ea, h->ts, pid, h->comm, 0, a ? a : &h->fallback);
	hmap_del(ea->held, (uint64_t)pid);
}

/*
 * Will the loader we probe run in @pid?  1 when its mappings have it, 0
 * when they do not, -1 when they cannot be read (gone).
 */
static int runs_loader(struct execargs *ea, pid_t pid)
{
	char path[64], line[4608];
	size_t n = strlen(ea->loader);
	int found = 0, lines = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		lines++;
		found = len > n && !memcmp(line + len - n, ea->loader, n) &&
			line[len - n - 1] == ' ';
	}
	fclose(f);
	/* a zombie has no mappings left */
	return found ? 1 : lines ? 0 : -1;
}

static void arm(struct execargs *ea, uint64_t ms)
{
	if (ea->timer < 0 || ea->timer_armed)
		return;
	if (loop_timer_arm(ea->timer, ms) == 0)
		ea->timer_armed = true;
}

static void on_exec(struct execargs *ea, const struct tk_event *ev)
{
	char filename[ARGS_LEN], comm[COMM_LEN];
	pid_t pid = (pid_t)field_int(ev, &ea->exec_pid);
	pid_t old = (pid_t)field_int(ev, &ea->exec_old_pid);
	struct argv *a = hmap_get(ea->pending, (uint64_t)old, false);
	struct held *h = hmap_get(ea->held, (uint64_t)pid, false);
	int loader;

	/* the new name: task_rename came just before (fexecve names the task
	 * after the file, though the record's file is /dev/fd/N) */
	snprintf(comm, sizeof(comm), "%s", comms_get(ea->comms, ea->s, pid));
	if (h)		/* exec'd again before its loader ran */
		report_held(ea, pid, h, NULL);
	if (a) {
		report(ea, ev->ts, pid, comm, 0, a);
		hmap_del(ea->pending, (uint64_t)old);
		return;
	}
	field_str(ev, &ea->exec_filename, filename, sizeof(filename));
	loader = ea->loader ? runs_loader(ea, pid) : 0;
	h = hmap_get(ea->held, (uint64_t)pid, true);
	h->ts = ev->ts;
	memcpy(h->comm, comm, sizeof(comm));
	read_cmdline(ea, pid, filename, &h->fallback);
	if (loader == 0) {
		report_held(ea, pid, h, NULL);
		return;
	}
	/* gone: its loader's record, if any, is in the rings already */
	h->deadline = time_mono_ns() + (loader > 0 ? HOLD_MS : 20) * 1000000ULL;
	arm(ea, loader > 0 ? HOLD_MS : 20);
}

static void on_loader(struct execargs *ea, struct argv_probe *p,
		      const struct tk_event *ev)
{
	/* the exec'ing thread has the process's PID by now */
	struct held *h = hmap_get(ea->held, (uint64_t)ev->pid, false);
	struct argv a;

	if (!h)		/* an entry probe read this exec's argv already */
		return;
	read_probe(ea, p, ev, &a);
	report_held(ea, ev->pid, h, &a);
}

/* The timer: report what waited long enough, first reading the rings. */
static int on_timer(struct loop *l, int fd, void *arg)
{
	struct execargs *ea = arg;
	uint64_t n, now, key, next = 0;
	size_t pos = 0;
	struct held *h;

	(void)l;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return 0;
	ea->timer_armed = false;
	session_drain(ea->s);
	now = time_mono_ns();
	while ((h = hmap_next(ea->held, &pos, &key))) {
		if (h->deadline <= now) {
			report_held(ea, (pid_t)key, h, NULL);
			pos = 0;	/* the map changed */
		} else if (!next || h->deadline < next) {
			next = h->deadline;
		}
	}
	if (next)
		arm(ea, (next - now) / 1000000 + 1);
	return 0;
}

void execargs_flush(struct execargs *ea)
{
	uint64_t key;
	size_t pos = 0;
	struct held *h;

	while ((h = hmap_next(ea->held, &pos, &key))) {
		report_held(ea, (pid_t)key, h, NULL);
		pos = 0;
	}
}

void execargs_record(const struct tk_event *ev, void *arg)
{
	struct execargs *ea = arg;
	struct argv *a;
	int i;

	if (ev->id == ea->exec->id) {
		on_exec(ea, ev);
		return;
	}
	if (ev->id == ea->fork->id) {
		pid_t child = (pid_t)field_int(ev, &ea->fork_child);
		pid_t parent = task_cache_tgid((pid_t)field_int(ev, &ea->fork_parent));

		*(pid_t *)hmap_get(ea->parent, (uint64_t)child, true) = parent;
	} else {
		pid_t gone = comms_exited(ea->comms, ev);

		/* forks of a long run must not pile up; an exec still held
		 * for its argv keeps its parent until it is reported */
		if (gone && !hmap_get(ea->held, (uint64_t)gone, false))
			hmap_del(ea->parent, (uint64_t)gone);
	}
	if (comms_record(ea->comms, ev))
		return;
	if ((ea->exit_execve && ev->id == ea->exit_execve->id) ||
	    (ea->exit_execveat && ev->id == ea->exit_execveat->id)) {
		pid_t tgid = task_cache_tgid(ev->pid);

		a = hmap_get(ea->pending, (uint64_t)ev->pid, false);
		report(ea, ev->ts, tgid > 0 ? tgid : ev->pid,
		       comms_get(ea->comms, ea->s, ev->pid),
		       (long)field_int(ev, &ea->exit_ret), a);
		hmap_del(ea->pending, (uint64_t)ev->pid);
		return;
	}
	for (i = 0; i < ea->nprobes; i++) {
		struct argv_probe *p = &ea->probes[i];

		if (ev->id != p->tp->id)
			continue;
		if (p->source == EXECARGS_LOADER) {
			on_loader(ea, p, ev);
		} else {
			a = hmap_get(ea->pending, (uint64_t)ev->pid, true);
			read_probe(ea, p, ev, a);
		}
		return;
	}
}

/* "p0=+B(A):u64 a0=+0(+B(A)):ustring p1=+B+8(A):u64 ...": argv[] at
 * @base bytes from what @loc holds (a register or the stack pointer). */
static char *argv_fetchargs(const char *loc, long base, long max)
{
	size_t cap = 64 + (size_t)max * 80, len = 0;
	char *buf = xmalloc(cap);
	long i;

	buf[0] = '\0';
	for (i = 0; i <= max; i++) {
		len += snprintf(buf + len, cap - len, "%sp%ld=+%ld(%s):u64",
				i ? " " : "", i, base + 8 * i, loc);
		if (i < max)
			len += snprintf(buf + len, cap - len, " a%ld=+0(+%ld(%s)):ustring",
					i, base + 8 * i, loc);
	}
	return buf;
}

static int resolve_probe(struct execargs *ea, struct tp *tp, enum execargs_source src)
{
	struct argv_probe *p = &ea->probes[ea->nprobes];
	char name[24];
	int i;

	p->tp = tp;
	p->source = src;
	for (i = 0; i <= ea->o.max_args; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		if (format_field(tp->event, name, &p->ptr[i]) < 0)
			return -1;
		snprintf(name, sizeof(name), "a%d", i);
		if (i < ea->o.max_args && format_field(tp->event, name, &p->arg[i]) < 0)
			return -1;
	}
	ea->nprobes++;
	return 0;
}

/* kprobes on the syscall entries: pt_regs of the caller in %di (x86-64). */
static bool try_kprobes(struct execargs *ea)
{
#ifdef __x86_64__
	static const struct { const char *ev, *sym, *argv; } k[] = {
		{ "execve", "__x64_sys_execve", "+104(%di)" },
		{ "execveat", "__x64_sys_execveat", "+96(%di)" },
	};
	unsigned int i;

	if (!session_has_kprobes())
		return false;
	for (i = 0; i < 2; i++) {
		char *args = argv_fetchargs(k[i].argv, 0, ea->o.max_args);
		struct tp *tp = session_add_kprobe(ea->s, k[i].ev, k[i].sym, args,
						   false, TP_RECORD, NULL);

		free(args);
		if (!tp || resolve_probe(ea, tp, EXECARGS_KPROBE) < 0) {
			pr_info("kprobe on %s unusable: %s", k[i].sym, session_error(ea->s));
			if (i == 0)
				return false;
			ea->mechanism = "kprobe on __x64_sys_execve";
			return true;	/* execve alone is enough */
		}
	}
	ea->mechanism = "kprobe on __x64_sys_execve/__x64_sys_execveat";
	return true;
#else
	return false;
#endif
}

/* A uprobe at @site reading argv at @base bytes from @loc. */
static bool add_uprobe(struct execargs *ea, const char *event, const struct usite *site,
		       const char *loc, long base, enum execargs_source src)
{
	char *args = argv_fetchargs(loc, base, ea->o.max_args);
	struct tp *tp = session_add_uprobe(ea->s, event, site->path, site->offset,
					   args, false, TP_RECORD, NULL);

	free(args);
	if (!tp || resolve_probe(ea, tp, src) < 0) {
		pr_info("uprobe on %s:%s unusable: %s", site->path, site->name,
			session_error(ea->s));
		return false;
	}
	return true;
}

/*
 * uprobes on the C library's wrappers (System V AMD64 argument registers)
 * and on the dynamic loader's entry (argv[] just above argc, at the stack
 * pointer the kernel left).
 */
static bool try_uprobes(struct execargs *ea)
{
#ifdef __x86_64__
	static const struct { const char *sym, *argv; } u[] = {
		{ "execve", "%si" },
		{ "execveat", "%dx" },
	};
	char why[512];
	struct usite_list l;
	bool libc = false;
	unsigned int i;

	if (!session_has_uprobes())
		return false;
	for (i = 0; i < 2; i++) {
		if (usite_functions("libc", u[i].sym, NULL, &l, why, sizeof(why)) || !l.n) {
			pr_info("no %s in the C library: %s", u[i].sym, l.n ? why : "");
			continue;
		}
		libc |= add_uprobe(ea, u[i].sym, &l.v[0], u[i].argv, 0, EXECARGS_UPROBE);
		usite_list_release(&l);
	}
	/* the loader of our own (dynamically linked) program is the system's */
	if (!usite_interp("/proc/self/exe", 0, &ea->loader, why, sizeof(why)) &&
	    !usite_entry(ea->loader, NULL, &l, why, sizeof(why))) {
		if (!add_uprobe(ea, "loader", &l.v[0], "%sp", 8, EXECARGS_LOADER)) {
			free(ea->loader);
			ea->loader = NULL;
		}
		usite_list_release(&l);
	} else {
		pr_info("no dynamic loader to probe: %s", why);
		free(ea->loader);
		ea->loader = NULL;
	}
	if (!ea->nprobes)
		return false;
	ea->mechanism = libc && ea->loader ?
		"uprobe on the C library's execve/execveat and the dynamic loader's entry (no kprobes here)" :
		libc ? "uprobe on the C library's execve/execveat (no kprobes here)" :
		"uprobe on the dynamic loader's entry (no kprobes here)";
	return true;
#else
	return false;
#endif
}

static struct tp *add(struct execargs *ea, const char *sys, const char *name,
		      const char *filter, char *err, size_t errlen)
{
	struct tp *tp = session_add(ea->s, sys, name, TP_RECORD, filter);

	if (!tp)
		errmsg(err, errlen, -EINVAL, "%s", session_error(ea->s));
	return tp;
}

int execargs_add(struct execargs *ea, struct loop *l, char *err, size_t errlen)
{
	int ret;

	ea->loop = l;
	ea->exec = add(ea, "sched", "sched_process_exec", NULL, err, errlen);
	ea->fork = ea->exec ? add(ea, "sched", "sched_process_fork", NULL, err, errlen) : NULL;
	if (!ea->fork)
		return -EINVAL;
	if (format_field(ea->exec->event, "filename", &ea->exec_filename) < 0 ||
	    format_field(ea->exec->event, "pid", &ea->exec_pid) < 0 ||
	    format_field(ea->exec->event, "old_pid", &ea->exec_old_pid) < 0 ||
	    format_field(ea->fork->event, "parent_pid", &ea->fork_parent) < 0 ||
	    format_field(ea->fork->event, "child_pid", &ea->fork_child) < 0)
		return errmsg(err, errlen, -EINVAL, "unexpected format of the sched events");
	ret = comms_add(ea->comms, ea->s, err, errlen);
	if (ret)
		return ret;
	if (ea->o.failed) {
		ea->exit_execve = add(ea, "syscalls", "sys_exit_execve", "ret < 0", err, errlen);
		if (!ea->exit_execve ||
		    format_field(ea->exit_execve->event, "ret", &ea->exit_ret) < 0)
			return -EINVAL;
		/* execveat is missing on some architectures and old kernels */
		ea->exit_execveat = session_add(ea->s, "syscalls", "sys_exit_execveat",
						TP_RECORD, "ret < 0");
	}
	if (!try_kprobes(ea) && !try_uprobes(ea))
		ea->mechanism = "/proc/PID/cmdline at exec (no kprobes or uprobes here)";
	if (ea->loader) {
		/* armed (shorter) when an exec waits; an idle firing is harmless */
		ea->timer = loop_timer(l, 3600 * 1000, 0, on_timer, ea);
		if (ea->timer < 0)
			return errmsg(err, errlen, ea->timer, "cannot make a timer: %s",
				      strerror(-ea->timer));
	}
	return 0;
}

void execargs_started(struct execargs *ea)
{
	comms_snapshot(ea->comms, 0);
}
