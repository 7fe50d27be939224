// SPDX-License-Identifier: GPL-2.0
/*
 * killsnoop: trace signals sent with kill(2), tkill(2) and tgkill(2).
 *
 * The syscall tracepoints give the arguments at entry and the result at
 * exit; entries wait per thread for their exit.  -s and -n become kernel
 * filters on the entry events (sig, comm), so unwanted calls are never
 * recorded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "tool/tool.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

struct opts {
	bool json, seconds, failed;
	int sig;
	pid_t pid, tpid;
	const char *name;
	long duration;
};

static const char usage[] =
"Trace signals issued by the kill(), tkill() and tgkill() syscalls.\n"
"\n"
"USAGE: killsnoop [-hjtxv] [-s SIG] [-p PID] [-T TPID] [-n NAME] [-d SECS]\n"
"                 [-c CMD]\n"
"\n"
"  -s, --signal SIG     only this signal (9, KILL or SIGKILL)\n"
"  -p, --pid PID        only signals sent by this process\n"
"  -T, --tpid TPID      only signals sent to this process (or thread)\n"
"  -n, --name NAME      only signals sent by processes named NAME\n"
"  -x, --failed         only failed calls\n"
"  -t, --timestamp      TIME(s) column: seconds since tracing began\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -c, --command CMD    run CMD, trace only signals its process tree sends,\n"
"                       end when it exits, with its exit status\n"
"  -j, --json           JSON Lines: one object per signal\n"
"  -v, --verbose        say which events and filters are used\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  killsnoop            # trace all signals sent\n"
"  killsnoop -x         # only failed kill()s\n"
"  killsnoop -s KILL    # only SIGKILL\n"
"  killsnoop -p 181     # only signals sent by PID 181\n"
"  killsnoop -T 189     # only signals sent to PID 189\n"
"  killsnoop -n bash    # only signals sent by processes named bash\n"
"  killsnoop -j         # JSON Lines\n";

static const struct tool_option options[] = {
	{ 's', "signal", required_argument, NULL },
	{ 'T', "tpid", required_argument, NULL },
	{ 't', "timestamp", no_argument, "time" },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct killsnoop */

	switch (key) {
	case 's':
		o->sig = opt_signal(arg);
		if (o->sig < 0)
			usage_error("unknown signal '%s'", arg);
		break;
	case 'T': o->tpid = (pid_t)opt_num("-T", arg, 1, 1 << 30); break;
	case 't': o->seconds = true; break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;
	const char *name = t->opt.name;

	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	tool_check_comm(name);
	o->name = name;
	o->failed = t->opt.failed;
	o->json = t->opt.json;
	o->duration = t->opt.duration;
	o->pid = t->opt.pid;
	return 0;
}

/* One of kill, tkill, tgkill: entry and exit events and their fields. */
struct call {
	const char *name;
	struct tp *enter, *exit;
	struct tk_field tpid, tgid, sig, ret;
};

struct sent {
	uint64_t ts;
	pid_t tpid;
	pid_t ttgid;		/* the target's process (tgkill's tgid) */
	int sig;
	int call;
	char comm[16];
};

struct killsnoop {
	struct opts o;
	struct session *s;
	struct call calls[3];
	struct hmap *inflight;		/* tid -> struct sent */
	uint64_t start_ns;
};

/* The target's process: kill()'s pid when positive, tgkill()'s tgid, the
 * thread's process for tkill() (from /proc: -1 once it is gone). */
static pid_t target_tgid(const struct killsnoop *ks, const struct sent *st)
{
	if (st->ttgid)
		return st->ttgid;
	if (!strcmp(ks->calls[st->call].name, "tkill"))
		return st->tpid > 0 ? task_cache_tgid(st->tpid) : -1;
	return st->tpid;
}

static void emit(struct killsnoop *ks, const struct tk_event *ev,
		 const struct sent *st, int ret)
{
	pid_t tgid = task_cache_tgid(ev->pid);
	pid_t pid = tgid > 0 ? tgid : ev->pid;
	char when[32], hms[16];

	time_hms(st->ts, hms, sizeof(hms));
	if (ks->o.seconds)
		snprintf(when, sizeof(when), "%.6f",
			 (st->ts - ks->start_ns) / 1e9);
	else
		snprintf(when, sizeof(when), "%s", hms);
	if (ks->o.json) {
		struct json j;

		json_begin(&j, stdout);
		json_str(&j, "time", hms);
		json_uint(&j, "ts_ns", time_to_real(st->ts));
		json_double(&j, "elapsed_s", (st->ts - ks->start_ns) / 1e9);
		json_int(&j, "pid", pid);
		json_int(&j, "tid", ev->pid);
		json_str(&j, "comm", st->comm);
		json_str(&j, "syscall", ks->calls[st->call].name);
		json_int(&j, "sig", st->sig);
		if (st->sig)
			json_str(&j, "signame", signal_name(st->sig));
		else
			json_null(&j, "signame");	/* 0: existence check */
		json_int(&j, "tpid", st->tpid);
		if (target_tgid(ks, st) > 0)
			json_int(&j, "ttgid", target_tgid(ks, st));
		else
			json_null(&j, "ttgid");
		json_int(&j, "result", ret);
		json_end(&j);
	} else {
		printf("%-9s %-7d %-16s %-4d %-7d %-6d %s\n", when, pid, esc_str(st->comm),
		       st->sig, st->tpid, ret, ks->calls[st->call].name);
	}
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct killsnoop *ks = arg;
	struct sent *st;
	int i;

	for (i = 0; i < 3; i++) {
		struct call *c = &ks->calls[i];

		if (c->enter && ev->id == c->enter->id) {
			st = hmap_get(ks->inflight, (uint64_t)ev->pid, true);
			st->ts = ev->ts;
			st->tpid = (pid_t)field_int(ev, &c->tpid);
			st->ttgid = c->tgid.size ? (pid_t)field_int(ev, &c->tgid) : 0;
			st->sig = (int)field_int(ev, &c->sig);
			st->call = i;
			/* the sender is alive now; it may not be at exit */
			snprintf(st->comm, sizeof(st->comm), "%s",
				 session_comm(ks->s, ev->pid));
			return;
		}
		if (c->exit && ev->id == c->exit->id) {
			st = hmap_get(ks->inflight, (uint64_t)ev->pid, false);
			if (!st)	/* filtered out at entry, or began before us */
				return;
			if (st->call == i)
				emit(ks, ev, st, (int)field_int(ev, &c->ret));
			hmap_del(ks->inflight, (uint64_t)ev->pid);
			return;
		}
	}
}

/*
 * The entry events' kernel filter: -s, -n and -T, the target being the
 * process for kill() and tgkill() (its tgid), the thread for tkill().
 */
static void call_filter(const struct killsnoop *ks, const char *name, char *f,
			size_t n)
{
	int len = 0;

	f[0] = '\0';
	if (ks->o.sig)
		len += snprintf(f + len, n - len, "sig == %d", ks->o.sig);
	if (ks->o.name)
		len += snprintf(f + len, n - len, "%scomm == \"%s\"",
				len ? " && " : "", ks->o.name);
	if (ks->o.tpid)
		snprintf(f + len, n - len, "%s%s == %d", len ? " && " : "",
			 strcmp(name, "tgkill") ? "pid" : "tgid", ks->o.tpid);
}

static int add_call(struct killsnoop *ks, struct call *c, const char *name,
		    const char *tpid_field)
{
	char ev[64], filter[160];

	c->name = name;
	call_filter(ks, name, filter, sizeof(filter));
	snprintf(ev, sizeof(ev), "sys_enter_%s", name);
	c->enter = session_add(ks->s, "syscalls", ev, TP_RECORD,
			       filter[0] ? filter : NULL);
	if (!c->enter)
		return -1;
	snprintf(ev, sizeof(ev), "sys_exit_%s", name);
	c->exit = session_add(ks->s, "syscalls", ev, TP_RECORD,
			      ks->o.failed ? "ret < 0" : NULL);
	if (!c->exit ||
	    format_field(c->enter->event, tpid_field, &c->tpid) < 0 ||
	    format_field(c->enter->event, "sig", &c->sig) < 0 ||
	    format_field(c->exit->event, "ret", &c->ret) < 0 ||
	    (!strcmp(name, "tgkill") &&
	     format_field(c->enter->event, "tgid", &c->tgid) < 0))
		return -1;
	return 0;
}

static int setup(struct tool *t, struct loop *l)
{
	struct killsnoop *ks = t->ctx;
	struct session_opts so = {
		.ordered = true, .pid = t->opt.pid, .tree = t->opt.tree,
		.batch_end = tool_flush_batch,
	};
	char filter[160];

	ks->inflight = hmap_new(sizeof(struct sent));
	ks->s = session_new(&so);
	if (session_open(ks->s) < 0 ||
	    add_call(ks, &ks->calls[0], "kill", "pid") < 0 ||
	    add_call(ks, &ks->calls[1], "tkill", "pid") < 0 ||
	    add_call(ks, &ks->calls[2], "tgkill", "pid") < 0) {
		pr_err("%s", session_error(ks->s));
		return -1;
	}
	call_filter(ks, "tgkill", filter, sizeof(filter));
	pr_info("recording syscalls:sys_{enter,exit}_{kill,tkill,tgkill}%s%s",
		filter[0] ? " with filter " : "", filter);
	if (session_start(ks->s, l, on_event, ks) < 0) {
		pr_err("%s", session_error(ks->s));
		return -1;
	}
	ks->start_ns = time_mono_ns();
	if (!ks->o.json) {
		printf("%-9s %-7s %-16s %-4s %-7s %-6s %s\n", ks->o.seconds ? "TIME(s)" : "TIME",
		       "PID", "COMM", "SIG", "TPID", "RESULT", "SYSCALL");
		tool_flush();
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct killsnoop ks = { 0 };
	struct tool t = {
		.ctx = &ks,
		.usage = usage,
		.shared = TOPT_PID | TOPT_NAME | TOPT_FAILED |
			  TOPT_DURATION | TOPT_JSON | TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
		.teardown = session_tool_teardown,
		.session = &ks.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
