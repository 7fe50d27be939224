// SPDX-License-Identifier: GPL-2.0
/*
 * execsnoop: trace new processes (execve/execveat), with their arguments.
 *
 * sched:sched_process_exec reports every successful exec, static binaries
 * and processes that exit at once included, with the file name.  The full
 * argv needs a probe that reads user memory while the call runs, chosen by
 * what the kernel has:
 *   kprobe   the syscall entry (__x64_sys_execve/execveat), argv read
 *            through pt_regs
 *   uprobe   the C library's execve/execveat wrappers (programs that exec
 *            through the system libc)
 *   procfs   /proc/PID/cmdline when the exec record is handled (racy: a
 *            process that has already exited shows its file name)
 * Failures come from syscalls:sys_exit_execve{,at} filtered on ret < 0.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "tool/tool.h"
#include "common/usym.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define ARGS_LEN 4096
#define MAX_ARGS_LIMIT 60

struct opts {
	bool json, time, failed;
	const char *name, *line;
	regex_t name_re, line_re;
	pid_t ppid;
	long duration, max_args;
};

static const char usage[] =
"Trace new processes via exec() syscalls, with their arguments.\n"
"\n"
"USAGE: execsnoop [-hjTxv] [-n NAME] [-l ARGLINE] [-p PPID] [-d SECS]\n"
"                 [-c CMD] [--max-args N]\n"
"\n"
"  -T, --timestamp      include a time column (HH:MM:SS)\n"
"  -x, --failed         include failed exec()s\n"
"  -n, --name NAME      only commands whose name matches this regex\n"
"  -l, --line ARGLINE   only commands whose arguments match this regex\n"
"  -p, --ppid PPID      only children of this parent process\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -c, --command CMD    run CMD, trace only its process tree, end when it\n"
"                       exits, with its exit status\n"
"      --max-args N     arguments to read per exec (default 20, max 60)\n"
"  -j, --json           JSON Lines: one object per exec\n"
"  -v, --verbose        say how arguments are read (kprobe, uprobe, procfs)\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  execsnoop            # trace all exec()s\n"
"  execsnoop -x         # include failed exec()s\n"
"  execsnoop -T         # include time (HH:MM:SS)\n"
"  execsnoop -n main    # only commands whose name contains \"main\"\n"
"  execsnoop -l tpkg    # only commands whose arguments contain \"tpkg\"\n"
"  execsnoop -p 1234    # only children of PID 1234\n"
"  execsnoop -c 'make -j2'  # the execs of one build\n"
"  execsnoop -j         # JSON Lines\n";

enum { OPT_MAX_ARGS = 256 };

static const struct tool_option options[] = {
	{ 'l', "line", required_argument, NULL },
	{ 'p', "ppid", required_argument, NULL },
	{ OPT_MAX_ARGS, "max-args", required_argument, NULL },
	{ 0 },
};

static void compile_re(regex_t *re, const char *opt, const char *pat)
{
	char msg[128];
	int err = regcomp(re, pat, REG_EXTENDED | REG_NOSUB);

	if (err) {
		regerror(err, re, msg, sizeof(msg));
		usage_error("invalid regex for %s '%s': %s", opt, pat, msg);
	}
}

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct execsnoop */

	switch (key) {
	case 'l': o->line = arg; compile_re(&o->line_re, "-l", arg); break;
	case 'p': o->ppid = opt_num("-p", arg, 1, 1 << 30); break;
	case OPT_MAX_ARGS:
		o->max_args = opt_num("--max-args", arg, 1, MAX_ARGS_LIMIT);
		break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	o->time = t->opt.timestamp;
	o->failed = t->opt.failed;
	o->json = t->opt.json;
	o->duration = t->opt.duration;
	o->name = t->opt.name;
	if (o->name)
		compile_re(&o->name_re, "-n", o->name);
	return 0;
}

/* The arguments a probe read at exec entry, kept until the exec ends. */
struct pending {
	int argc;
	bool truncated;
	char args[ARGS_LEN];	/* NUL-separated */
	int len;
};

/* A probe reading argv: its fields resolved once. */
struct argv_probe {
	struct tp *tp;
	struct tk_field filename;
	struct tk_field ptr[MAX_ARGS_LIMIT + 1];
	struct tk_field arg[MAX_ARGS_LIMIT];
};

struct execsnoop {
	struct opts o;
	struct session *s;
	const char *mechanism;
	struct tp *exec, *fork, *exit_execve, *exit_execveat;
	struct tk_field exec_filename, exec_pid, exec_old_pid;
	struct tk_field fork_parent, fork_child, exit_ret;
	struct argv_probe probes[4];
	int nprobes;
	struct hmap *pending;		/* tid -> struct pending */
	struct hmap *parent;		/* pid -> parent pid, from fork records */
};

static void read_argv(struct execsnoop *es, struct argv_probe *p,
		      const struct tk_event *ev)
{
	struct pending *pd = hmap_get(es->pending, (uint64_t)ev->pid, true);
	int i;

	pd->argc = 0;
	pd->len = 0;
	pd->truncated = false;
	for (i = 0; i < es->o.max_args; i++) {
		int n;

		if (field_int(ev, &p->ptr[i]) == 0)
			return;
		n = field_str(ev, &p->arg[i], pd->args + pd->len, ARGS_LEN - pd->len);
		pd->len += n + 1;
		pd->argc++;
		if (pd->len >= ARGS_LEN - 1) {
			pd->truncated = true;
			return;
		}
	}
	pd->truncated = field_int(ev, &p->ptr[es->o.max_args]) != 0;
}

/* argv from /proc (procfs mechanism, and execs no probe saw). */
static void read_cmdline(struct execsnoop *es, pid_t pid, const char *filename)
{
	struct pending *pd = hmap_get(es->pending, (uint64_t)pid, true);
	char path[64];
	FILE *f;
	size_t n = 0;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(pd->args, 1, ARGS_LEN - 1, f);
		fclose(f);
	}
	if (!n) {	/* gone already: the file name is what we know */
		n = snprintf(pd->args, ARGS_LEN, "%s", filename) + 1;
	}
	pd->args[n] = '\0';
	pd->len = (int)n;
	pd->truncated = n >= ARGS_LEN - 1;
	pd->argc = 0;
	for (i = 0; i < (int)n; i++)
		pd->argc += pd->args[i] == '\0';
	if (n && pd->args[n - 1] != '\0')
		pd->argc++;
	if (pd->argc > es->o.max_args) {
		int k, cut = 0;

		for (k = 0; k < es->o.max_args; k++)
			cut += (int)strlen(pd->args + cut) + 1;
		pd->len = cut;
		pd->argc = (int)es->o.max_args;
		pd->truncated = true;
	}
}

static pid_t parent_of(struct execsnoop *es, pid_t pid)
{
	pid_t *pp = hmap_get(es->parent, (uint64_t)pid, false);
	pid_t ppid;

	if (pp)
		return *pp;
	ppid = task_ppid(pid);
	return ppid > 0 ? ppid : 0;
}

static void emit(struct execsnoop *es, const struct tk_event *ev, pid_t pid,
		 const char *comm, int ret, struct pending *pd)
{
	pid_t ppid = parent_of(es, pid);
	char line[ARGS_LEN + 8], hms[16];
	int i, off = 0, len = 0;

	if (es->o.ppid && ppid != es->o.ppid)
		return;
	for (i = 0; pd && i < pd->argc; i++) {
		len += snprintf(line + len, sizeof(line) - len, "%s%s",
				i ? " " : "", pd->args + off);
		off += (int)strlen(pd->args + off) + 1;
	}
	if (pd && pd->truncated)
		snprintf(line + len, sizeof(line) - len, " ...");
	if (!pd)
		line[0] = '\0';
	if (es->o.name && regexec(&es->o.name_re, comm, 0, NULL, 0))
		return;
	if (es->o.line && regexec(&es->o.line_re, line, 0, NULL, 0))
		return;
	time_hms(ev->ts, hms, sizeof(hms));
	if (es->o.json) {
		struct json j;

		json_begin(&j, stdout);
		json_str(&j, "time", hms);
		json_uint(&j, "ts_ns", time_to_real(ev->ts));
		json_str(&j, "pcomm", comm);
		json_int(&j, "pid", pid);
		json_int(&j, "ppid", ppid);
		json_int(&j, "ret", ret);
		json_arr_open(&j, "args");
		for (i = 0, off = 0; pd && i < pd->argc; i++) {
			json_elem_str(&j, pd->args + off);
			off += (int)strlen(pd->args + off) + 1;
		}
		json_arr_close(&j);
		json_bool(&j, "truncated", pd && pd->truncated);
		json_end(&j);
	} else {
		if (es->o.time)
			printf("%-9s", hms);
		printf("%-16s %-7d %-7d %3d %s\n", comm, pid, ppid, ret, line);
	}
}

static void on_exec(struct execsnoop *es, const struct tk_event *ev)
{
	char filename[ARGS_LEN], comm[16];
	pid_t pid = (pid_t)field_int(ev, &es->exec_pid);
	pid_t old = (pid_t)field_int(ev, &es->exec_old_pid);
	struct pending *pd;
	const char *base;

	field_str(ev, &es->exec_filename, filename, sizeof(filename));
	base = strrchr(filename, '/');
	snprintf(comm, sizeof(comm), "%.15s", base ? base + 1 : filename);
	task_cache_set(pid, comm, pid);
	pd = hmap_get(es->pending, (uint64_t)old, false);
	if (!pd) {
		read_cmdline(es, pid, filename);
		old = pid;
		pd = hmap_get(es->pending, (uint64_t)pid, false);
	}
	emit(es, ev, pid, comm, 0, pd);
	hmap_del(es->pending, (uint64_t)old);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct execsnoop *es = arg;
	int i;

	if (ev->id == es->exec->id) {
		on_exec(es, ev);
	} else if (ev->id == es->fork->id) {
		pid_t child = (pid_t)field_int(ev, &es->fork_child);
		pid_t parent = task_cache_tgid((pid_t)field_int(ev, &es->fork_parent));

		*(pid_t *)hmap_get(es->parent, (uint64_t)child, true) = parent;
	} else if ((es->exit_execve && ev->id == es->exit_execve->id) ||
		   (es->exit_execveat && ev->id == es->exit_execveat->id)) {
		struct pending *pd = hmap_get(es->pending, (uint64_t)ev->pid, false);
		pid_t tgid = task_cache_tgid(ev->pid);

		emit(es, ev, tgid > 0 ? tgid : ev->pid, session_comm(es->s, ev->pid),
		     (int)field_int(ev, &es->exit_ret), pd);
		hmap_del(es->pending, (uint64_t)ev->pid);
	} else {
		for (i = 0; i < es->nprobes; i++)
			if (ev->id == es->probes[i].tp->id)
				read_argv(es, &es->probes[i], ev);
	}
}

/* "filename=+0(F):ustring p0=+0(A):u64 a0=+0(+0(A)):ustring ..." */
static char *argv_fetchargs(const char *fname_loc, const char *argv_loc, long max)
{
	size_t cap = 64 + (size_t)max * 80, len;
	char *buf = xmalloc(cap);
	long i;

	len = snprintf(buf, cap, "filename=+0(%s):ustring", fname_loc);
	for (i = 0; i <= max; i++) {
		len += snprintf(buf + len, cap - len, " p%ld=+%ld(%s):u64", i, 8 * i, argv_loc);
		if (i < max)
			len += snprintf(buf + len, cap - len, " a%ld=+0(+%ld(%s)):ustring",
					i, 8 * i, argv_loc);
	}
	return buf;
}

static int resolve_probe(struct execsnoop *es, struct tp *tp)
{
	struct argv_probe *p = &es->probes[es->nprobes];
	char name[24];
	int i;

	p->tp = tp;
	if (format_field(tp->event, "filename", &p->filename) < 0)
		return -1;
	for (i = 0; i <= es->o.max_args; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		if (format_field(tp->event, name, &p->ptr[i]) < 0)
			return -1;
		snprintf(name, sizeof(name), "a%d", i);
		if (i < es->o.max_args && format_field(tp->event, name, &p->arg[i]) < 0)
			return -1;
	}
	es->nprobes++;
	return 0;
}

/* kprobes on the syscall entries: pt_regs of the caller in %di (x86-64). */
static bool try_kprobes(struct execsnoop *es)
{
#ifdef __x86_64__
	static const struct { const char *ev, *sym, *fname, *argv; } k[] = {
		{ "execve", "__x64_sys_execve", "+112(%di)", "+104(%di)" },
		{ "execveat", "__x64_sys_execveat", "+104(%di)", "+96(%di)" },
	};
	unsigned int i;

	if (!session_has_kprobes())
		return false;
	for (i = 0; i < 2; i++) {
		char *args = argv_fetchargs(k[i].fname, k[i].argv, es->o.max_args);
		struct tp *tp = session_add_kprobe(es->s, k[i].ev, k[i].sym, args,
						   false, TP_RECORD, NULL);

		free(args);
		if (!tp || resolve_probe(es, tp) < 0) {
			pr_info("kprobe on %s unusable: %s", k[i].sym, session_error(es->s));
			if (i == 0)
				return false;
			es->mechanism = "kprobe on __x64_sys_execve";
			return true;	/* execve alone is enough */
		}
	}
	es->mechanism = "kprobe on __x64_sys_execve/__x64_sys_execveat";
	return true;
#else
	return false;
#endif
}

/* uprobes on the C library's wrappers (System V AMD64 argument registers). */
static bool try_uprobes(struct execsnoop *es)
{
#ifdef __x86_64__
	static const struct { const char *sym, *fname, *argv; } u[] = {
		{ "execve", "%di", "%si" },
		{ "execveat", "%si", "%dx" },
	};
	char path[4096];
	unsigned long long off;
	unsigned int i;

	if (!session_has_uprobes())
		return false;
	for (i = 0; i < 2; i++) {
		char *args;
		struct tp *tp;

		if (usym_libc(u[i].sym, path, sizeof(path), &off) < 0)
			continue;
		args = argv_fetchargs(u[i].fname, u[i].argv, es->o.max_args);
		tp = session_add_uprobe(es->s, u[i].sym, path, off, args, false,
					TP_RECORD, NULL);
		free(args);
		if (!tp || resolve_probe(es, tp) < 0) {
			pr_info("uprobe on %s:%s unusable: %s", path, u[i].sym,
				session_error(es->s));
			break;
		}
	}
	if (!es->nprobes)
		return false;
	es->mechanism = "uprobe on the C library's execve/execveat (no kprobes here)";
	return true;
#else
	return false;
#endif
}

static struct tp *add(struct execsnoop *es, const char *sys, const char *name,
		      const char *filter)
{
	struct tp *tp = session_add(es->s, sys, name, TP_RECORD, filter);

	if (!tp)
		pr_err("%s", session_error(es->s));
	return tp;
}

static int setup(struct tool *t, struct loop *l)
{
	struct execsnoop *es = t->ctx;
	struct session_opts so = {
		.ordered = true, .wakeup_percent = 0, .batch_end = tool_flush_batch,
		.pid = t->opt.pid, .tree = t->opt.tree,
	};

	es->pending = hmap_new(sizeof(struct pending));
	es->parent = hmap_new(sizeof(pid_t));
	es->s = session_new(&so);
	if (session_open(es->s) < 0) {
		pr_err("%s", session_error(es->s));
		return -1;
	}
	es->exec = add(es, "sched", "sched_process_exec", NULL);
	es->fork = es->exec ? add(es, "sched", "sched_process_fork", NULL) : NULL;
	if (!es->fork ||
	    format_field(es->exec->event, "filename", &es->exec_filename) < 0 ||
	    format_field(es->exec->event, "pid", &es->exec_pid) < 0 ||
	    format_field(es->exec->event, "old_pid", &es->exec_old_pid) < 0 ||
	    format_field(es->fork->event, "parent_pid", &es->fork_parent) < 0 ||
	    format_field(es->fork->event, "child_pid", &es->fork_child) < 0)
		return -1;
	if (es->o.failed) {
		es->exit_execve = add(es, "syscalls", "sys_exit_execve", "ret < 0");
		if (!es->exit_execve ||
		    format_field(es->exit_execve->event, "ret", &es->exit_ret) < 0)
			return -1;
		/* execveat is missing on some architectures and old kernels */
		es->exit_execveat = session_add(es->s, "syscalls", "sys_exit_execveat",
						TP_RECORD, "ret < 0");
	}
	if (!try_kprobes(es) && !try_uprobes(es))
		es->mechanism = "/proc/PID/cmdline at exec (no kprobes or uprobes here)";
	pr_info("arguments from %s", es->mechanism);
	if (session_start(es->s, l, on_event, es) < 0) {
		pr_err("%s", session_error(es->s));
		return -1;
	}
	if (!es->o.json) {
		if (es->o.time)
			printf("%-9s", "TIME");
		printf("%-16s %-7s %-7s %3s %s\n", "PCOMM", "PID", "PPID", "RET", "ARGS");
		tool_flush();
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct execsnoop es = { .o.max_args = 20 };
	struct tool t = {
		.ctx = &es,
		.usage = usage,
		.shared = TOPT_TIMESTAMP | TOPT_FAILED | TOPT_NAME | TOPT_DURATION |
			  TOPT_JSON | TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
		.teardown = session_tool_teardown,
		.session = &es.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
