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
	pid_t pid;
	const char *name;
	long duration;
};

static const char usage[] =
"Trace signals issued by the kill(), tkill() and tgkill() syscalls.\n"
"\n"
"USAGE: killsnoop [-hjTxv] [-s SIG] [-p PID] [-n NAME] [-d SECS] [-c CMD]\n"
"\n"
"  -s, --signal SIG     only this signal (9, KILL or SIGKILL)\n"
"  -p, --pid PID        only signals sent by this process\n"
"  -n, --name NAME      only signals sent by processes named NAME\n"
"  -x, --failed         only failed calls\n"
"  -T, --timestamp      TIME(s) column: seconds since tracing began\n"
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
"  killsnoop -n bash    # only signals sent by processes named bash\n"
"  killsnoop -j         # JSON Lines\n";

static const struct tool_option options[] = {
	{ 's', "signal", required_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct killsnoop */

	if (key == 's') {
		o->sig = opt_signal(arg);
		if (o->sig < 0)
			usage_error("unknown signal '%s'", arg);
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
	o->seconds = t->opt.timestamp;
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
	struct tk_field tpid, sig, ret;
};

struct sent {
	uint64_t ts;
	pid_t tpid;
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
		json_int(&j, "result", ret);
		json_end(&j);
	} else {
		printf("%-9s %-7d %-16s %-4d %-7d %d\n", when, pid, esc_str(st->comm),
		       st->sig, st->tpid, ret);
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

static int add_call(struct killsnoop *ks, struct call *c, const char *name,
		    const char *tpid_field, const char *filter)
{
	char ev[64];

	c->name = name;
	snprintf(ev, sizeof(ev), "sys_enter_%s", name);
	c->enter = session_add(ks->s, "syscalls", ev, TP_RECORD, filter);
	if (!c->enter)
		return -1;
	snprintf(ev, sizeof(ev), "sys_exit_%s", name);
	c->exit = session_add(ks->s, "syscalls", ev, TP_RECORD,
			      ks->o.failed ? "ret < 0" : NULL);
	if (!c->exit ||
	    format_field(c->enter->event, tpid_field, &c->tpid) < 0 ||
	    format_field(c->enter->event, "sig", &c->sig) < 0 ||
	    format_field(c->exit->event, "ret", &c->ret) < 0)
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
	char filter[128] = "";
	int len = 0;

	if (ks->o.sig)
		len += snprintf(filter, sizeof(filter), "sig == %d", ks->o.sig);
	if (ks->o.name)
		snprintf(filter + len, sizeof(filter) - len, "%scomm == \"%s\"",
			 len ? " && " : "", ks->o.name);
	ks->inflight = hmap_new(sizeof(struct sent));
	ks->s = session_new(&so);
	if (session_open(ks->s) < 0 ||
	    add_call(ks, &ks->calls[0], "kill", "pid", filter) < 0 ||
	    add_call(ks, &ks->calls[1], "tkill", "pid", filter) < 0 ||
	    add_call(ks, &ks->calls[2], "tgkill", "pid", filter) < 0) {
		pr_err("%s", session_error(ks->s));
		return -1;
	}
	pr_info("recording syscalls:sys_{enter,exit}_{kill,tkill,tgkill}%s%s",
		filter[0] ? " with filter " : "", filter);
	if (session_start(ks->s, l, on_event, ks) < 0) {
		pr_err("%s", session_error(ks->s));
		return -1;
	}
	ks->start_ns = time_mono_ns();
	if (!ks->o.json) {
		printf("%-9s %-7s %-16s %-4s %-7s %s\n", ks->o.seconds ? "TIME(s)" : "TIME",
		       "PID", "COMM", "SIG", "TPID", "RESULT");
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
		.shared = TOPT_PID | TOPT_NAME | TOPT_FAILED | TOPT_TIMESTAMP |
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
