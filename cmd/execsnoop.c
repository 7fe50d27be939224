// SPDX-License-Identifier: GPL-2.0
/*
 * execsnoop: trace new processes (execve/execveat), with their arguments.
 *
 * The exec records and the argv, from the best mechanism the kernel has
 * (kprobe, C library and loader uprobes, /proc), are tool/execargs.c's;
 * here are the options, the filters and the columns.  Text columns are
 * escaped (common/escape.h); ARGS starts with "?" when the argv was not
 * captured at the exec.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/timefmt.h"
#include "tool/execargs.h"
#include "tool/tool.h"
#include "tool/uids.h"
#include "tracefs/session.h"

#define MAX_ARGS_LIMIT 60	/* EXECARGS_MAX */

struct opts {
	bool json, time, seconds, print_uid, quote, failed;
	const char *name, *line;
	regex_t name_re, line_re;
	pid_t ppid;
	long uid;		/* -u: only this UID; -1: any */
	long duration, max_args;
};

static const char usage[] =
"Trace new processes via exec() syscalls, with their arguments.\n"
"\n"
"USAGE: execsnoop [-hjTtUqxv] [-n NAME] [-l ARGLINE] [-P PPID] [-u UID]\n"
"                 [-d SECS] [-c CMD] [--max-args N]\n"
"\n"
"  -T, --time           include a time column (HH:MM:SS)\n"
"  -t, --timestamp      include a TIME(s) column: seconds since tracing began\n"
"  -U, --print-uid      include a UID column\n"
"  -u, --uid UID        only processes of this user (a UID or a name)\n"
"  -q, --quote          put \"quotemarks\" around each argument\n"
"  -x, --failed         include failed exec()s\n"
"  -n, --name NAME      only commands whose name matches this regex\n"
"  -l, --line ARGLINE   only commands whose arguments match this regex\n"
"  -P, --ppid PPID      only children of this parent process (-p too)\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -c, --command CMD    run CMD, trace only its process tree, end when it\n"
"                       exits, with its exit status\n"
"      --max-args N     arguments to read per exec (default 20, max 60)\n"
"  -j, --json           JSON Lines: one object per exec\n"
"  -v, --verbose        say how arguments are read (kprobe, uprobe, procfs)\n"
"  -h, --help           this help\n"
"\n"
"FIELDS:\n"
"  PCOMM  the process's name after the exec (at the exec: renames later\n"
"         do not change it); ARGS its argv, as the exec passed it\n"
"  UID    the real UID at the exec: from the setuid family's records and\n"
"         the forks since tracing began, else /proc (? when unknown)\n"
"  ?ARGS  argv not captured at the exec: read from /proc/PID/cmdline\n"
"         afterwards (a static program exec'd without the C library's\n"
"         wrapper, where there are no kprobes), or only the exec's file\n"
"         (the process was gone); a lone ? is a failed exec no probe saw\n"
"  Control bytes and invalid UTF-8 in PCOMM and ARGS print as \\n, \\t,\n"
"  \\e, \\xNN (a backslash as \\\\); -j keeps the exact bytes and says\n"
"  where the argv came from (\"source\")\n"
"\n"
"EXAMPLES:\n"
"  execsnoop            # trace all exec()s\n"
"  execsnoop -x         # include failed exec()s\n"
"  execsnoop -T         # include time (HH:MM:SS)\n"
"  execsnoop -t         # include seconds since tracing began\n"
"  execsnoop -U         # include UID\n"
"  execsnoop -u 1000    # only processes of UID 1000\n"
"  execsnoop -q         # \"quote\" each argument\n"
"  execsnoop -n main    # only commands whose name contains \"main\"\n"
"  execsnoop -l tpkg    # only commands whose arguments contain \"tpkg\"\n"
"  execsnoop -P 1234    # only children of PID 1234\n"
"  execsnoop -c 'make -j2'  # the execs of one build\n"
"  execsnoop -j         # JSON Lines\n";

enum { OPT_MAX_ARGS = 256 };

static const struct tool_option options[] = {
	{ 'l', "line", required_argument, NULL },
	{ 'P', "ppid", required_argument, NULL },
	{ 'p', NULL, required_argument, NULL },
	{ 'T', "time", no_argument, NULL },
	{ 't', "timestamp", no_argument, NULL },
	{ 'U', "print-uid", no_argument, NULL },
	{ 'u', "uid", required_argument, NULL },
	{ 'q', "quote", no_argument, NULL },
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
	case 'P': case 'p':
		o->ppid = opt_num(key == 'p' ? "-p" : "-P", arg, 1, 1 << 30);
		break;
	case 'T': o->time = true; break;
	case 't': o->seconds = true; break;
	case 'U': o->print_uid = true; break;
	case 'q': o->quote = true; break;
	case 'u': o->uid = opt_uid("-u", arg); break;
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
	o->failed = t->opt.failed;
	o->json = t->opt.json;
	o->duration = t->opt.duration;
	o->name = t->opt.name;
	if (o->name)
		compile_re(&o->name_re, "-n", o->name);
	return 0;
}

struct execsnoop {
	struct opts o;
	struct session *s;
	struct execargs *ea;
	struct uids *uids;	/* -U, -u, -j */
	uint64_t start_ns;
};

/* One argument, escaped, in quotemarks; its own quotemarks as \". */
static void print_quoted(const char *a)
{
	const char *p;

	putchar('"');
	for (p = esc_str(a); *p; p++) {
		if (*p == '"')
			putchar('\\');
		putchar(*p);
	}
	putchar('"');
}

/* The ARGS column: each argument escaped; "?" first when they were not
 * captured at the exec (and an argument's own leading "?" escaped). */
static void print_args(const struct execargs_event *e, bool quote)
{
	const char *a = e->args;
	int i;

	if (e->source >= EXECARGS_PROC)
		putchar('?');
	for (i = 0; i < e->argc; i++) {
		if (i)
			putchar(' ');
		if (quote)
			print_quoted(a);
		else if (!i && a[0] == '?' && e->source < EXECARGS_PROC)
			printf("\\x3f%s", esc_str(a + 1));
		else
			fputs(esc_str(a), stdout);
		a += strlen(a) + 1;
	}
	if (e->truncated)
		fputs(" ...", stdout);
	putchar('\n');
}

static void emit(const struct execargs_event *e, void *arg)
{
	struct execsnoop *es = arg;
	char line[4096 + 8], hms[16];
	const char *a = e->args;
	int i, len = 0;
	long uid = -1;

	if (es->o.ppid && e->ppid != es->o.ppid)
		return;
	if (es->o.uid >= 0 || es->o.print_uid || es->o.json) {
		uid = uids_get(es->uids, e->pid, e->ppid, e->ts);
		if (es->o.uid >= 0 && uid != es->o.uid)
			return;
	}
	if (es->o.name && regexec(&es->o.name_re, e->comm, 0, NULL, 0))
		return;
	if (es->o.line) {
		line[0] = '\0';
		for (i = 0; i < e->argc && len < (int)sizeof(line); i++) {
			len += snprintf(line + len, sizeof(line) - len, "%s%s",
					i ? " " : "", a);
			a += strlen(a) + 1;
		}
		if (e->truncated && len < (int)sizeof(line))
			snprintf(line + len, sizeof(line) - len, " ...");
		if (regexec(&es->o.line_re, line, 0, NULL, 0))
			return;
	}
	time_hms(e->ts, hms, sizeof(hms));
	if (es->o.json) {
		struct json j;

		json_begin(&j, stdout);
		json_str(&j, "time", hms);
		json_uint(&j, "ts_ns", time_to_real(e->ts));
		json_str(&j, "pcomm", e->comm);
		json_int(&j, "pid", e->pid);
		json_int(&j, "ppid", e->ppid);
		if (uid >= 0)
			json_int(&j, "uid", uid);
		else
			json_null(&j, "uid");
		json_int(&j, "ret", e->ret);
		json_arr_open(&j, "args");
		for (i = 0, a = e->args; i < e->argc; i++) {
			json_elem_str(&j, a);
			a += strlen(a) + 1;
		}
		json_arr_close(&j);
		json_bool(&j, "truncated", e->truncated);
		json_str(&j, "source", execargs_source_name(e->source));
		json_end(&j);
		return;
	}
	if (es->o.time)
		printf("%-9s", hms);
	if (es->o.seconds)
		printf("%-8.3f ", (double)(int64_t)(e->ts - es->start_ns) / 1e9);
	if (es->o.print_uid) {
		if (uid >= 0)
			printf("%-6ld ", uid);
		else
			printf("%-6s ", "?");
	}
	printf("%-16s %-7d %-7d %3ld ", esc_str(e->comm), e->pid, e->ppid, e->ret);
	print_args(e, es->o.quote);
}

/* The session's records: UID changes first, then the execs. */
static void on_record(const struct tk_event *ev, void *arg)
{
	struct execsnoop *es = arg;

	if (!es->uids || !uids_record(es->uids, ev))
		execargs_record(ev, es->ea);
}

static int setup(struct tool *t, struct loop *l)
{
	struct execsnoop *es = t->ctx;
	struct session_opts so = {
		.ordered = true, .wakeup_percent = 0, .batch_end = tool_flush_batch,
		.pid = t->opt.pid, .tree = t->opt.tree,
	};
	struct execargs_opts eo = { .max_args = es->o.max_args, .failed = es->o.failed };
	char err[512];

	es->s = session_new(&so);
	if (session_open(es->s) < 0) {
		pr_err("%s", session_error(es->s));
		return -1;
	}
	es->ea = execargs_new(es->s, &eo, emit, es);
	if (execargs_add(es->ea, l, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (es->o.uid >= 0 || es->o.print_uid || es->o.json) {
		es->uids = uids_new(es->s);
		if (uids_add(es->uids, err, sizeof(err)) < 0) {
			pr_err("%s", err);
			return -1;
		}
		if (t->child.pid > 0)	/* -c: forked by us, held */
			uids_seed(es->uids, t->child.pid, (long)getuid());
	}
	pr_info("arguments from %s", execargs_mechanism(es->ea));
	if (session_start(es->s, l, on_record, es) < 0) {
		pr_err("%s", session_error(es->s));
		return -1;
	}
	execargs_started(es->ea);
	if (es->uids)
		uids_started(es->uids);
	es->start_ns = time_mono_ns();
	if (!es->o.json) {
		if (es->o.time)
			printf("%-9s", "TIME");
		if (es->o.seconds)
			printf("%-8s ", "TIME(s)");
		if (es->o.print_uid)
			printf("%-6s ", "UID");
		printf("%-16s %-7s %-7s %3s %s\n", "PCOMM", "PID", "PPID", "RET", "ARGS");
		tool_flush();
	}
	return 0;
}

/* The rings, then the execs still waiting for their loader. */
static int drain(struct tool *t)
{
	struct execsnoop *es = t->ctx;
	int ret = session_tool_drain(t);

	if (es->ea)
		execargs_flush(es->ea);
	return ret;
}

static void teardown(struct tool *t)
{
	struct execsnoop *es = t->ctx;

	session_tool_teardown(t);
	execargs_free(es->ea);
	es->ea = NULL;
	uids_free(es->uids);
	es->uids = NULL;
}

int main(int argc, char **argv)
{
	struct execsnoop es = { .o.max_args = 20, .o.uid = -1 };
	struct tool t = {
		.ctx = &es,
		.usage = usage,
		.shared = TOPT_FAILED | TOPT_NAME | TOPT_DURATION |
			  TOPT_JSON | TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = drain,
		.summary = session_tool_summary,
		.teardown = teardown,
		.session = &es.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
