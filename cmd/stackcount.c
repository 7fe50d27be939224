// SPDX-License-Identifier: GPL-2.0
/*
 * stackcount: count the stacks that lead to events matching a bcc pattern
 * (bcc's stackcount): kernel functions, functions of programs and
 * libraries, tracepoints and USDT probes, as funccount takes them
 * (tool/probeset.c).  Every match is sampled by perf_event at each hit
 * with its kernel and user callchain (TP_STACK); the stacks are named
 * while their process lives (or from the mappings the perf sideband told
 * of it) and counted in userspace (common/stackagg.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/stackagg.h"
#include "common/symcache.h"
#include "common/task.h"
#include "tool/probeset.h"
#include "tool/stacks.h"
#include "tool/tool.h"
#include "tracefs/perf_event.h"
#include "tracefs/session.h"

enum { OPT_SVG = 256, OPT_FOLDED_FILE };

struct opts {
	long interval, duration;
	bool regex, perpid, user_only, kernel_only, delimited, folded, json;
	bool timestamp, tree;
	const char *pattern, *svg, *folded_file;
	pid_t pid;
};

static const char usage[] =
"Count events and their stack traces (bcc's stackcount).\n"
"\n"
"USAGE: stackcount [-hjvTrPKUdf] [-p PID | -c CMD] [-i SECS] [-D SECS]\n"
"                  [--svg FILE] [--folded-file FILE] PATTERN\n"
"\n"
"  -p, --pid PID           count only in this process (ends when it does)\n"
"  -c, --command CMD       run CMD, count only in its process tree, print\n"
"                          when it exits (exit status 0)\n"
"  -i, --interval SECS     print and reset the counts every SECS seconds\n"
"  -D, --duration SECS     total duration of the trace, in seconds\n"
"  -T, --timestamp         print a timestamp with each summary\n"
"  -r, --regexp            the function name is a regular expression\n"
"                          (matched from its start), not a '*' wildcard\n"
"  -P, --perpid            show the stacks of each process apart\n"
"  -K, --kernel-stacks-only  kernel stacks only\n"
"  -U, --user-stacks-only  user stacks only\n"
"  -d, --delimited         a delimiter between kernel and user stacks\n"
"  -f, --folded            folded format, one line per stack (flame graphs)\n"
"      --svg FILE          also write an SVG flame graph of the run to FILE\n"
"      --folded-file FILE  also write the run's folded stacks to FILE\n"
"  -j, --json              JSON Lines: one object per stack\n"
"  -v, --verbose           say the mechanism and list the events\n"
"  -h, --help              this help\n"
"  PATTERN                 FUNC*          kernel functions (kprobes)\n"
"                          LIB:FUNC*      functions of a program or library\n"
"                                         (a path, a name in $PATH, c, libc)\n"
"                          t:SYS:EVENT*   tracepoints\n"
"                          u:LIB:PROBE*   USDT probes\n"
"\n"
"EXAMPLES:\n"
"  stackcount submit_bio            # kernel stacks of submit_bio\n"
"  stackcount -d ip_output          # a user/kernel stack delimiter\n"
"  stackcount 'tcp_send*'           # functions matching tcp_send*\n"
"  stackcount -r '^tcp_send.*'      # the same, as a regular expression\n"
"  stackcount -Ti 5 ip_output       # every 5 seconds, with timestamps\n"
"  stackcount -p 185 c:malloc       # stacks of malloc() in PID 185\n"
"  stackcount t:sched:sched_fork    # the sched_fork tracepoint\n"
"  stackcount -p 185 u::gc__begin   # a USDT probe of PID 185\n"
"  stackcount -K t:sched:sched_switch  # kernel stacks only\n"
"  stackcount -U t:sched:sched_switch  # user stacks only\n"
"  stackcount -f -D 10 t:block:block_rq_issue > out.folded\n"
"  stackcount --svg malloc.svg -c ./a.out c:malloc  # one command's mallocs\n";

static const struct tool_option options[] = {
	{ 'i', "interval", required_argument, NULL },
	{ 'D', "duration", required_argument, NULL },
	{ 'r', "regexp", no_argument, NULL },
	{ 'P', "perpid", no_argument, NULL },
	{ 'K', "kernel-stacks-only", no_argument, NULL },
	{ 'U', "user-stacks-only", no_argument, NULL },
	{ 'd', "delimited", no_argument, NULL },
	{ 'f', "folded", no_argument, NULL },
	{ OPT_SVG, "svg", required_argument, NULL },
	{ OPT_FOLDED_FILE, "folded-file", required_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct stackcount */

	switch (key) {
	case 'i': o->interval = opt_num("-i", arg, 1, 86400L * 365); break;
	case 'D': o->duration = opt_num("-D", arg, 1, 86400L * 365); break;
	case 'r': o->regex = true; break;
	case 'P': o->perpid = true; break;
	case 'K': o->kernel_only = true; break;
	case 'U': o->user_only = true; break;
	case 'd': o->delimited = true; break;
	case 'f': o->folded = true; break;
	case OPT_SVG: o->svg = arg; break;
	case OPT_FOLDED_FILE: o->folded_file = arg; break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;
	char err[512];

	if (optind >= argc)
		usage_error("no pattern given (e.g. submit_bio, c:malloc, t:sched:sched_fork)");
	o->pattern = argv[optind++];
	if (probeset_check(o->pattern, o->regex ? PROBESET_REGEX : 0,
			   err, sizeof(err)) < 0)
		usage_error("%s", err);
	if (optind < argc)
		usage_error("unexpected argument '%s' (one pattern only)", argv[optind]);
	if (o->user_only && o->kernel_only)
		usage_error("-U and -K cannot be used together (both stacks are the default)");
	if (o->folded && t->opt.json)
		usage_error("-f and -j cannot be used together");
	o->json = t->opt.json;
	o->timestamp = t->opt.timestamp;
	/* bcc: -D alone is one interval of that length; with -i, as many
	 * intervals as fit, the last one the end */
	t->interval_secs = o->interval;
	if (o->interval && o->duration)
		t->count = (o->duration + o->interval - 1) / o->interval;
	else
		t->opt.duration = o->duration;
	return 0;
}

struct stackcount {
	struct opts o;
	struct session *s;
	struct probeset ps;
	struct stacks_keep keep;
	bool user_event;	/* uprobes and USDT probes: user mode */
	bool split;		/* stacks of each process apart */
	struct stackagg *agg;	/* this interval's */
	struct stackagg *run;	/* with -i, the whole run's */
	struct symcache *syms;	/* the run's (symcache_shared()) */
	unsigned long long events;
};

static void on_event(const struct tk_event *ev, void *arg)
{
	struct stackcount *sc = arg;
	struct stackagg_sample s;
	pid_t tgid = task_cache_tgid(ev->pid);

	if (tgid <= 0)
		tgid = ev->pid;
	/* noted before the batch's sweep: a process that exited is named
	 * from what the sideband told of it */
	if (sc->keep.user && tgid > 0)
		symcache_note(sc->syms, tgid);
	/* a user-mode event (uprobes, and the syscall tracepoints, whose
	 * registers are the user's) has no kernel stack to miss */
	stacks_split(ev, tgid, task_cache_comm(ev->pid),
		     sc->user_event || (ev->stack && !ev->nkstack && ev->nstack),
		     &sc->keep, &s);
	if (!sc->split) {
		s.pid = -1;
		s.comm = "";
	}
	stackagg_add(sc->agg, &s, 1);
	if (sc->run)
		stackagg_add(sc->run, &s, 1);
	sc->events++;
}

static void report(struct tool *t, bool final)
{
	struct stackcount *sc = t->ctx;
	time_t now = time(NULL);
	char hms[16], msg[1024];
	struct stacks_report r = {
		.json = sc->o.json, .folded = sc->o.folded,
		.delimit = sc->o.delimited && sc->keep.kernel && sc->keep.user,
		.counts_text = true, .comm_line = !sc->o.pid || sc->o.tree,
		.keep = sc->keep, .value_name = "count",
		.svg_title = "Stack Count Flame Graph", .svg_unit = "events",
	};
	struct json j;

	strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&now));
	if (sc->o.timestamp)
		r.heading = hms;
	if (stacks_report(sc->agg, &r, msg, sizeof(msg)) < 0) {
		pr_err("%s", msg);
		t->status = TK_EXIT_RUNTIME;
	}
	if (sc->o.json && sc->o.interval) {
		json_begin(&j, stdout);
		json_str(&j, "type", final ? "summary" : "interval");
		json_str(&j, "time", hms);
		json_uint(&j, "events", sc->events);
		json_end(&j);
	}
}

/* The run's folded file and SVG, with nothing printed. */
static void write_files(struct tool *t)
{
	struct stackcount *sc = t->ctx;
	struct stacks_report r = {
		.files_only = true, .keep = sc->keep,
		.delimit = sc->o.delimited && sc->keep.kernel && sc->keep.user,
		.folded_file = sc->o.folded_file, .svg = sc->o.svg,
		.svg_title = "Stack Count Flame Graph", .svg_unit = "events",
	};
	char msg[1024];

	if ((r.folded_file || r.svg) &&
	    stacks_report(sc->run ? sc->run : sc->agg, &r, msg, sizeof(msg)) < 0) {
		pr_err("%s", msg);
		t->status = TK_EXIT_RUNTIME;
	}
}

static void on_interval(struct tool *t)
{
	struct stackcount *sc = t->ctx;

	report(t, false);
	stackagg_free(sc->agg);
	sc->agg = stackagg_new(symcache_shared());
	sc->events = 0;
}

static void on_summary(struct tool *t)
{
	struct stackcount *sc = t->ctx;
	char msg[1024], *line, *save = NULL;

	/* with -i and -D the last interval was the end: nothing is left to
	 * print, only the files of the run to write */
	if (!(sc->o.interval && sc->o.duration && t->count == 0))
		report(t, true);
	write_files(t);
	if (!sc->o.folded && !sc->o.json)
		printf("Detaching...\n");
	tool_flush();
	stacks_warnings(sc->run ? sc->run : sc->agg, session_lost(sc->s, NULL, 0), 0,
			msg, sizeof(msg));
	for (line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		pr_warn("%s", line);
}

static int setup(struct tool *t, struct loop *l)
{
	struct stackcount *sc = t->ctx;
	struct session_opts so = { .pid = t->opt.pid, .tree = t->opt.tree };
	struct probeset_opts po = {
		.pid = t->opt.pid, .mode = TP_STACK,
		.flags = sc->o.regex ? PROBESET_REGEX : 0,
	};
	size_t i;

	sc->o.pid = t->opt.pid;
	sc->o.tree = t->opt.tree;
	sc->keep.kernel = !sc->o.user_only;
	sc->keep.user = !sc->o.kernel_only;
	if (probeset_session(&so, sc->o.pattern, &po, &sc->s, &sc->ps) < 0)
		return -1;
	if (sc->ps.nsemas) {
		pr_err("cannot enable the semaphores of '%s': this kernel's uprobes have no reference counters",
		       sc->o.pattern);
		return -1;
	}
	sc->user_event = sc->ps.kind == PROBESET_UFUNC || sc->ps.kind == PROBESET_USDT;
	/* bcc: stacks are kept apart by process unless only kernel stacks
	 * of kernel events are counted */
	sc->split = sc->o.perpid || sc->user_event || sc->keep.user;
	sc->syms = symcache_shared();
	/* what runs now is named now: a process that exits right after its
	 * event is read later from what was noted here */
	stacks_note_tasks();
	if (sc->o.pid && !sc->o.tree && sc->keep.user)
		symcache_note(sc->syms, sc->o.pid);
	sc->agg = stackagg_new(symcache_shared());
	if (sc->o.interval)	/* the run's, for the files and warnings */
		sc->run = stackagg_new(symcache_shared());
	pr_info("sampling %zu events with perf_event at every hit, with %s callchains; defined and added in %.1f ms",
		sc->ps.n, sc->keep.kernel && sc->keep.user ? "kernel and user" :
		sc->keep.kernel ? "kernel" : "user", sc->ps.attach_ms);
	for (i = 0; i < sc->ps.ndefs; i++)
		pr_info("  %s", sc->ps.defs[i]);
	for (i = 0; !sc->ps.ndefs && i < sc->ps.n; i++)
		pr_info("  t:%s", sc->ps.v[i].name);
	if (session_start(sc->s, l, on_event, sc) < 0) {
		pr_err("%s", session_error(sc->s));
		return -1;
	}
	if (!sc->o.folded && !sc->o.json)
		printf("Tracing %zu functions for \"%s\"... Hit Ctrl-C to end.\n",
		       sc->ps.nnames, sc->o.pattern);
	tool_flush();
	return 0;
}

static int drain(struct tool *t)
{
	struct stackcount *sc = t->ctx;

	return session_drain(sc->s) < 0 ? -1 : 0;
}

static void teardown(struct tool *t)
{
	struct stackcount *sc = t->ctx;

	session_free(sc->s);
	sc->s = NULL;
	probeset_release(&sc->ps);
	stackagg_free(sc->agg);
	sc->agg = NULL;
	stackagg_free(sc->run);
	sc->run = NULL;
	symcache_free(sc->syms);
	sc->syms = NULL;
}

int main(int argc, char **argv)
{
	struct stackcount sc = { 0 };
	struct tool t = {
		.ctx = &sc,
		.usage = usage,
		.shared = TOPT_PID | TOPT_TIMESTAMP | TOPT_JSON | TOPT_VERBOSE |
			  TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = drain,
		.interval = on_interval,
		.summary = on_summary,
		.teardown = teardown,
		.summarises = true,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
