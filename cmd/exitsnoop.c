// SPDX-License-Identifier: GPL-2.0
/*
 * exitsnoop: trace process exits (and, with --per-thread, thread exits)
 * with their age and exit status, in bcc's columns.
 *
 * The status is put together from tracepoints by tool/exits.c (exit_group,
 * fatal signals, the parent's SIGCHLD); -p, -c and -x are applied to what
 * it reports, since the signals that decide a status are sent by other
 * processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/opt.h"
#include "common/timefmt.h"
#include "tool/exits.h"
#include "tool/tool.h"
#include "tracefs/session.h"

struct opts {
	bool json, timestamp, utc, per_thread, failed;
	const char *label;
};

static const char usage[] =
"Trace process termination (exit and fatal signal), with age and status.\n"
"\n"
"USAGE: exitsnoop [-hjtxv] [--utc] [--per-thread] [--label LABEL] [-p PID]\n"
"                 [-d SECS] [-c CMD]\n"
"\n"
"  -t, --timestamp      TIME column: local time of each exit\n"
"      --utc            TIME column in UTC (-t implied)\n"
"  -x, --failed         only failed exits: a non-zero code or a signal\n"
"  -p, --pid PID        only this process; end when it exits\n"
"      --per-thread     one line per thread exit, not per process\n"
"      --label LABEL    a LABEL column with this text\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -c, --command CMD    run CMD, trace only its process tree's exits,\n"
"                       end when it exits, with its exit status\n"
"  -j, --json           JSON Lines: one object per exit\n"
"  -v, --verbose        say which events are used\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  exitsnoop                # trace all process termination\n"
"  exitsnoop -x             # only failed exits, not exit(0)\n"
"  exitsnoop -t             # with timestamps (local time)\n"
"  exitsnoop --utc          # with timestamps (UTC)\n"
"  exitsnoop -p 181         # only PID 181\n"
"  exitsnoop --label=exit   # label each line with 'exit'\n"
"  exitsnoop --per-thread   # every thread's exit\n"
"  exitsnoop -c 'make -j4'  # the exits of one build\n";

enum { OPT_UTC = 256, OPT_PER_THREAD, OPT_LABEL };

static const struct tool_option options[] = {
	{ 't', "timestamp", no_argument, NULL },
	{ OPT_UTC, "utc", no_argument, NULL },
	{ OPT_PER_THREAD, "per-thread", no_argument, NULL },
	{ OPT_LABEL, "label", required_argument, NULL },
	{ 0 },
};

struct exitsnoop {
	struct opts o;
	struct session *s;
	struct exits *x;
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct exitsnoop */

	switch (key) {
	case 't': o->timestamp = true; break;
	case OPT_UTC: o->utc = o->timestamp = true; break;
	case OPT_PER_THREAD: o->per_thread = true; break;
	case OPT_LABEL:
		if (strlen(arg) > 64)
			usage_error("--label is longer than 64 bytes");
		o->label = arg;
		break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	o->failed = t->opt.failed;
	o->json = t->opt.json;
	return 0;
}

/* "HH:MM:SS.mmm" of a CLOCK_MONOTONIC time, local or UTC. */
static void clock_ms(const struct opts *o, uint64_t ts, char *buf, size_t n)
{
	uint64_t real = time_to_real(ts);
	time_t secs = (time_t)(real / 1000000000ULL);
	struct tm tm;
	char hms[16];

	if (o->utc)
		gmtime_r(&secs, &tm);
	else
		localtime_r(&secs, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03u", hms, (unsigned)(real / 1000000ULL % 1000));
}

/* bcc's EXIT_CODE column: "0", "code N", "signal N (NAME)[, core dumped]" */
static void status_text(const struct exit_info *e, char *buf, size_t n)
{
	const char *name = signal_name(e->sig);

	if (!e->sig) {
		if (e->code)
			snprintf(buf, n, "code %d", e->code);
		else
			snprintf(buf, n, "0");
		return;
	}
	if (!strncmp(name, "SIG", 3))
		name += 3;
	snprintf(buf, n, "signal %d (%s)%s", e->sig, name,
		 e->core ? ", core dumped" : "");
}

static void on_exit_info(const struct exit_info *e, void *arg)
{
	struct exitsnoop *es = arg;
	char when[32], status[64], age[32];

	if (es->o.failed && !e->sig && !e->code)
		return;
	clock_ms(&es->o, e->ts, when, sizeof(when));
	status_text(e, status, sizeof(status));
	if (es->o.json) {
		struct json j;

		json_begin(&j, stdout);
		json_str(&j, "time", when);
		json_uint(&j, "ts_ns", time_to_real(e->ts));
		if (es->o.label)
			json_str(&j, "label", es->o.label);
		json_str(&j, "comm", e->comm);
		json_int(&j, "pid", e->pid);
		if (e->ppid > 0)
			json_int(&j, "ppid", e->ppid);
		else
			json_null(&j, "ppid");
		json_int(&j, "tid", e->tid);
		if (e->age_ns >= 0)
			json_double(&j, "age_s", e->age_ns / 1e9);
		else
			json_null(&j, "age_s");
		json_int(&j, "exit_code", e->sig ? 0 : e->code);
		json_int(&j, "sig", e->sig);
		if (e->sig)
			json_str(&j, "signame", signal_name(e->sig));
		else
			json_null(&j, "signame");
		json_bool(&j, "core_dumped", e->core);
		json_str(&j, "status", status);
		json_end(&j);
		return;
	}
	if (es->o.timestamp)
		printf("%-13s", when);
	if (es->o.label)
		printf("%-6s", esc_str(es->o.label));
	if (e->age_ns >= 0)
		snprintf(age, sizeof(age), "%.2f", e->age_ns / 1e9);
	else
		snprintf(age, sizeof(age), "?");
	printf("%-16s %-7d %-7d %-7d %-7s %s\n", esc_str(e->comm), e->pid,
	       e->ppid > 0 ? e->ppid : 0, e->tid, age, status);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct exitsnoop *es = arg;

	exits_record(es->x, ev);
}

/* Exits whose SIGCHLD never came (no exit signal): report them late. */
static int on_tick(struct loop *l, int fd, void *arg)
{
	struct exitsnoop *es = arg;
	uint64_t now = time_mono_ns();

	(void)l;
	(void)fd;
	exits_flush(es->x, now > 200000000ULL ? now - 200000000ULL : 0);
	tool_flush();
	return 0;
}

static void print_header(const struct opts *o)
{
	if (o->timestamp) {
		char title[32], tz[16];
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(tz, sizeof(tz), "%Z", &tm);
		snprintf(title, sizeof(title), "TIME-%s", o->utc ? "UTC" : tz);
		printf("%-13s", title);
	}
	if (o->label)
		printf("%-6s", "LABEL");
	printf("%-16s %-7s %-7s %-7s %-7s %s\n", "PCOMM", "PID", "PPID", "TID",
	       "AGE(s)", "EXIT_CODE");
	tool_flush();
}

static int setup(struct tool *t, struct loop *l)
{
	struct exitsnoop *es = t->ctx;
	/* no PID scope in the kernel: the signals that decide a status
	 * are sent from other processes */
	struct session_opts so = { .ordered = true, .batch_end = tool_flush_batch };
	struct exits_opts xo = {
		.per_thread = es->o.per_thread, .pid = t->opt.pid,
		.tree = t->opt.tree, .fn = on_exit_info, .arg = es,
	};

	es->x = exits_new(&xo);
	es->s = session_new(&so);
	if (session_open(es->s) < 0 || exits_add(es->x, es->s) < 0) {
		pr_err("%s", session_error(es->s));
		return -1;
	}
	pr_info("recording task:task_newtask, sched:sched_process_{exec,exit}, "
		"syscalls:sys_enter_{exit,exit_group,execve,execveat}, "
		"signal:signal_{generate,deliver} in instance %s", session_name(es->s));
	if (session_start(es->s, l, on_event, es) < 0) {
		pr_err("%s", session_error(es->s));
		return -1;
	}
	exits_snapshot(es->x);
	if (loop_timer(l, 100, 100, on_tick, es) < 0) {
		pr_err("cannot create a timer: %m");
		return -1;
	}
	if (!es->o.json)
		print_header(&es->o);
	return 0;
}

/* The last exit's SIGCHLD is written just after the exit ends the loop. */
static void end(struct tool *t)
{
	(void)t;
	usleep(20000);
}

static void summary(struct tool *t)
{
	struct exitsnoop *es = t->ctx;

	if (es->x)
		exits_flush(es->x, UINT64_MAX);
	tool_flush();
	session_tool_summary(t);
}

static void teardown(struct tool *t)
{
	struct exitsnoop *es = t->ctx;

	session_tool_teardown(t);
	exits_free(es->x);
	es->x = NULL;
}

int main(int argc, char **argv)
{
	struct exitsnoop es = { 0 };
	struct tool t = {
		.ctx = &es,
		.usage = usage,
		.shared = TOPT_PID | TOPT_FAILED | TOPT_DURATION | TOPT_JSON |
			  TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.end = end,
		.drain = session_tool_drain,
		.summary = summary,
		.teardown = teardown,
		.session = &es.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
