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
#include "tracefs/session.h"

#define MAX_ARGS_LIMIT 60	/* EXECARGS_MAX */

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
"FIELDS:\n"
"  PCOMM  the process's name after the exec (at the exec: renames later\n"
"         do not change it); ARGS its argv, as the exec passed it\n"
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

struct execsnoop {
	struct opts o;
	struct session *s;
	struct execargs *ea;
};

/* The ARGS column: each argument escaped; "?" first when they were not
 * captured at the exec (and an argument's own leading "?" escaped). */
static void print_args(const struct execargs_event *e)
{
	const char *a = e->args;
	int i;

	if (e->source >= EXECARGS_PROC)
		putchar('?');
	for (i = 0; i < e->argc; i++) {
		if (i)
			putchar(' ');
		else if (a[0] == '?' && e->source < EXECARGS_PROC)
			fputs("\\x3f", stdout), a++;
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

	if (es->o.ppid && e->ppid != es->o.ppid)
		return;
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
	printf("%-16s %-7d %-7d %3ld ", esc_str(e->comm), e->pid, e->ppid, e->ret);
	print_args(e);
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
	pr_info("arguments from %s", execargs_mechanism(es->ea));
	if (session_start(es->s, l, execargs_record, es->ea) < 0) {
		pr_err("%s", session_error(es->s));
		return -1;
	}
	execargs_started(es->ea);
	if (!es->o.json) {
		if (es->o.time)
			printf("%-9s", "TIME");
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
		.drain = drain,
		.summary = session_tool_summary,
		.teardown = teardown,
		.session = &es.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
