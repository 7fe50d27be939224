// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop: a live view of any aggregate of the tracing core, top-style:
 * a sortable table with drill-down on a terminal, or the same table every
 * interval as text (-b) or JSON Lines (-j).
 *
 * The views are data (tool/top_views.c); the engine (tool/top.c) opens
 * them; the screen (tool/top_ui.c) and the batch printers
 * (tool/top_print.c) show them.  This file is the options and the wiring.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/opt.h"
#include "tool/tool.h"
#include "tool/top.h"
#include "tracefs/session.h"

#define MAX_FILTERS 16

struct opts {
	bool batch, list, ascending;
	long iterations, rows, buffer_kb;
	double delay;
	const char *sort, *mode, *event, *keys, *values;
	const char *filters[MAX_FILTERS];
	int nfilters;
	const char *view, *arg;
	const char *script;	/* -S: a tapkit script's arrays */
};

static const char usage[] =
"A live view of any aggregate of the tracing core: a sortable table with\n"
"drill-down, or the same table every interval as text or JSON Lines.\n"
"\n"
"USAGE: tracetop [-bjlrv] [-d SECS] [-n N] [-N ROWS] [-m MODE] [-s COLUMN]\n"
"                [-p PID | -c CMD] [-F FIELD=VALUE]... [VIEW [ARG]]\n"
"       tracetop [options] -e SYSTEM:EVENT [-k FIELDS] [-V VALUES]\n"
"       tracetop [-bjrv] [-d SECS] [-n N] [-N ROWS] [-s COLUMN] [-c CMD]\n"
"                -S SCRIPT [ARGS...]\n"
"\n"
"  VIEW                 a view (default syscalls; -l lists them), ARG its\n"
"                       argument (funcs PATTERN)\n"
"  -b, --batch          print the view every interval as text (no screen;\n"
"                       also when stdout is not a terminal)\n"
"  -j, --json           the same as JSON Lines, one object per interval\n"
"  -n, --iterations N   stop after N intervals\n"
"  -d, --delay SECS     the interval (default 1; decimals allowed, >= 0.1)\n"
"  -N, --rows ROWS      batch: print at most ROWS rows per interval\n"
"  -m, --mode MODE      interval (default), cumulative or decay totals\n"
"  -s, --sort COLUMN    sort by COLUMN (its title) instead of the view's\n"
"  -r, --reverse        sort ascending\n"
"  -F, --filter F=V     only events whose field F is V (repeatable): the\n"
"                       drill-down of a row, from the command line\n"
"  -e, --event SYS:EV   any tracepoint, keyed by its fields:\n"
"  -k, --keys FIELDS    its key columns (default pid,comm)\n"
"  -V, --values SPECS   its value columns (default count,rate): count, rate,\n"
"                       FIELD:AGG[=TITLE], AGG sum min max avg rate p50 p99 last\n"
"  -S, --script FILE    every global array of a tapkit script as a view\n"
"                       (run by tapkit --top; ARGS are the script's)\n"
"  -p, --pid PID        only this process (all its threads)\n"
"  -c, --command CMD    run CMD and show only its process tree\n"
"  -B, --buffer-kb KB   per-CPU ring size (default: the kernel's)\n"
"  -l, --list           list the views and their fields, and exit\n"
"  -v, --verbose        say which events and kernel filters each view uses\n"
"  -h, --help           this help\n"
"\n"
"KEYS (on the screen): arrows move, Enter drills into the row, Backspace\n"
"goes back, < > choose the sort column, I inverts it, / filters rows, v\n"
"chooses a view, e shows the row's events, z interval/cumulative/decay,\n"
"d the interval, p pauses, H the histogram pane, h help, q quits.\n"
"\n"
"EXAMPLES:\n"
"  tracetop                       # system calls by process, live\n"
"  tracetop bio                   # block I/O by device\n"
"  tracetop funcs 'c:malloc'      # calls and latency of libc's malloc\n"
"  tracetop -b -n 3 syscount      # 3 intervals of syscalls counted in-kernel\n"
"  tracetop -j -n 1 -d 5 syscalls # one 5 s interval as JSON\n"
"  tracetop -b syscalls-pid -F pid=1234   # one process's syscalls by name\n"
"  tracetop -e sched:sched_switch -k prev_comm -V prev_state:last\n"
"  tracetop -e block:block_rq_issue -k comm -V bytes:sum=BYTES,bytes:p99\n"
"  tracetop -S count.stp          # the arrays of a SystemTap script, live\n";

static const struct tool_option options[] = {
	{ 'b', "batch", no_argument, NULL },
	{ 'n', "iterations", required_argument, NULL },
	{ 'd', "delay", required_argument, NULL },
	{ 'N', "rows", required_argument, NULL },
	{ 'm', "mode", required_argument, NULL },
	{ 's', "sort", required_argument, NULL },
	{ 'r', "reverse", no_argument, NULL },
	{ 'F', "filter", required_argument, NULL },
	{ 'e', "event", required_argument, NULL },
	{ 'k', "keys", required_argument, NULL },
	{ 'V', "values", required_argument, NULL },
	{ 'B', "buffer-kb", required_argument, NULL },
	{ 'l', "list", no_argument, NULL },
	{ 'S', "script", required_argument, NULL },
	{ 0 },
};

struct tracetop {
	struct opts o;
	struct top *top;
	struct top_display d;
	struct top_view event_view;	/* -e */
	bool batch;			/* -b, -j, or no terminal */
};

static int list_views(struct tool *t);

/*
 * -S FILE [ARGS]: the arrays of a script are tapkit's to run; tracetop's
 * display options become tapkit's --top ones and tapkit (next to this
 * program) takes over the process.  Nothing is traced before the exec.
 */
static int run_script(struct tool *t, int argc, char **argv, int optind)
{
	struct tracetop *tt = t->ctx;
	struct opts *o = &tt->o;
	char self[4096], *slash, num[3][32];
	const char **av = xcalloc(argc + 24, sizeof(*av));
	ssize_t n;
	int k = 0;

	if (o->event || o->keys || o->values || o->nfilters || o->mode ||
	    o->buffer_kb || t->opt.pid)
		usage_error("-S takes the display options only (-b -j -d -n -N -s -r -c -v)");
	n = readlink("/proc/self/exe", self, sizeof(self) - 16);
	if (n < 0) {
		pr_err("cannot find tapkit: /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	strcpy(slash ? slash + 1 : self, "tapkit");
	av[k++] = "tapkit";
	av[k++] = t->opt.json ? "--top-json" :
		  o->batch || !isatty(STDOUT_FILENO) ? "--top-batch" : "--top";
	snprintf(num[0], sizeof(num[0]), "%llu",
		 (unsigned long long)(o->delay * 1000 + 0.5));
	av[k++] = "--top-interval";
	av[k++] = num[0];
	if (o->iterations) {
		snprintf(num[1], sizeof(num[1]), "%ld", o->iterations);
		av[k++] = "--top-iterations";
		av[k++] = num[1];
	}
	if (o->rows) {
		snprintf(num[2], sizeof(num[2]), "%ld", o->rows);
		av[k++] = "--top-rows";
		av[k++] = num[2];
	}
	if (o->sort) {
		av[k++] = "--top-sort";
		av[k++] = o->sort;
	}
	if (o->ascending)
		av[k++] = "--top-reverse";
	if (t->opt.command) {
		av[k++] = "-c";
		av[k++] = t->opt.command;
	}
	if (tk_verbose)
		av[k++] = "-v";
	av[k++] = "--";
	av[k++] = o->script;
	while (optind < argc)
		av[k++] = argv[optind++];
	av[k] = NULL;
	execv(self, (char *const *)av);
	pr_err("cannot run '%s': %s", self, strerror(errno));
	free(av);
	return -1;
}

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;
	char *end;

	switch (key) {
	case 'b': o->batch = true; break;
	case 'n': o->iterations = opt_num("-n", arg, 1, 1L << 30); break;
	case 'd':
		errno = 0;
		o->delay = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->delay >= 0.1) ||
		    o->delay > 86400)
			usage_error("-d: '%s' is not a number of seconds from 0.1 to 86400", arg);
		break;
	case 'N': o->rows = opt_num("-N", arg, 1, 1L << 20); break;
	case 'm':
		if (strcmp(arg, "interval") && strcmp(arg, "cumulative") &&
		    strcmp(arg, "decay"))
			usage_error("-m: '%s' is not interval, cumulative or decay", arg);
		o->mode = arg;
		break;
	case 's': o->sort = arg; break;
	case 'r': o->ascending = true; break;
	case 'F':
		if (o->nfilters == MAX_FILTERS)
			usage_error("more than %d filters", MAX_FILTERS);
		if (!strchr(arg, '=') || arg[0] == '=')
			usage_error("-F: '%s' is not FIELD=VALUE", arg);
		o->filters[o->nfilters++] = arg;
		break;
	case 'e': o->event = arg; break;
	case 'k': o->keys = arg; break;
	case 'V': o->values = arg; break;
	case 'B': o->buffer_kb = opt_num("-B", arg, 4, 1 << 22); break;
	case 'l': o->list = true; t->list = list_views; break;
	case 'S': o->script = arg; break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct tracetop *tt = t->ctx;
	struct opts *o = &tt->o;
	const struct top_view *v;

	if (o->list)
		return 0;
	if (o->script)
		return run_script(t, argc, argv, optind);
	if ((o->keys || o->values) && !o->event)
		usage_error("-k and -V go with -e SYSTEM:EVENT");
	if (o->event && optind < argc)
		usage_error("give either -e or a view, not both");
	if (optind < argc)
		o->view = argv[optind++];
	if (optind < argc)
		o->arg = argv[optind++];
	if (optind < argc)
		usage_error("unexpected operand '%s'", argv[optind]);
	if (o->event) {
		tt->event_view = (struct top_view){
			.name = "event", .feed = "tp",
			.keys = o->keys ? o->keys : "pid,comm",
			.values = o->values ? o->values : "count,rate",
			.sort = o->values ? NULL : "COUNT",
		};
		o->arg = o->event;
		return 0;
	}
	if (!o->view)
		o->view = "syscalls";
	v = top_view_find(o->view);
	if (!v)
		usage_error("unknown view '%s' (tracetop -l lists them)", o->view);
	if (v->needs_arg && !o->arg)
		usage_error("view '%s' needs an argument", o->view);
	if (!v->needs_arg && o->arg)
		usage_error("view '%s' takes no argument", o->view);
	return 0;
}

static int list_views(struct tool *t)
{
	const struct top_view *v;
	size_t i, n;

	v = top_views(&n);
	for (i = 0; i < n; i++) {
		printf("%-14s %s%s\n", v[i].name, v[i].help,
		       v[i].hidden ? " (drill-down)" : "");
		printf("%-14s   keys %s; values %s\n", "", v[i].keys, v[i].values);
	}
	return TK_EXIT_OK;
}

static int setup(struct tool *t, struct loop *l)
{
	struct tracetop *tt = t->ctx;
	struct opts *o = &tt->o;
	const struct top_opts to = {
		.pid = t->opt.pid, .tree = t->opt.tree,
		.buffer_kb = (unsigned long)o->buffer_kb,
		.verbose = tk_verbose,
	};
	const struct top_view *v = o->event ? &tt->event_view : top_view_find(o->view);
	const struct top_model *m;
	struct agtable *tab;
	char err[256];

	tt->top = top_new(&to, l);
	if (top_open(tt->top, v, o->arg, o->filters, o->nfilters) < 0) {
		pr_err("%s", top_error(tt->top));
		return -1;
	}
	m = top_engine_model(tt->top);
	tab = m->table(m->ctx);
	tt->d.sort_col = -1;
	if (o->sort) {
		tt->d.sort_col = agt_col_find(tab, o->sort);
		if (tt->d.sort_col < 0) {
			pr_err("no column '%s' in view '%s'", o->sort, v->name);
			return -1;
		}
	}
	tt->d.ascending = o->ascending;
	tt->d.interval_ms = (uint64_t)(o->delay * 1000 + 0.5);
	tt->d.count = o->iterations;
	tt->d.json = t->opt.json;
	tt->d.rows = (int)o->rows;
	tt->d.mode = !o->mode || o->mode[0] == 'i' ? AGT_INTERVAL :
		     o->mode[0] == 'c' ? AGT_CUMULATIVE : AGT_DECAY;
	if (o->batch || t->opt.json || !isatty(STDOUT_FILENO)) {
		tt->batch = true;
		return top_batch_start(m, &tt->d, l);
	}
	if (top_ui_start(m, &tt->d, l, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	return 0;
}

static void summary(struct tool *t)
{
	struct tracetop *tt = t->ctx;
	struct session *s = tt->top ? top_session(tt->top) : NULL;

	if (tt->batch)
		top_batch_end();
	top_ui_end();
	if (s)
		session_report_lost(s);
}

static void teardown(struct tool *t)
{
	struct tracetop *tt = t->ctx;

	top_ui_end();
	top_free(tt->top);
	tt->top = NULL;
}

int main(int argc, char **argv)
{
	struct tracetop tt = { .o.delay = 1.0 };
	struct tool t = {
		.ctx = &tt,
		.usage = usage,
		.shared = TOPT_PID | TOPT_JSON | TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.summary = summary,
		.teardown = teardown,
		.summarises = true,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
