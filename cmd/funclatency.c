// SPDX-License-Identifier: GPL-2.0
/*
 * funclatency: time kernel or user functions matching a pattern and print
 * their latency as a power-of-two histogram (bcc's funclatency).
 *
 * Each function gets an entry and a return probe (kprobes, or uprobes for
 * LIB:FUNC) recording into our instance's ring, read in timestamp order.
 * Per thread a stack of entry timestamps pairs each return with its own
 * entry, so recursion and nesting time correctly; a return with no entry
 * (the call began before tracing did) is ignored, and a thread's stack goes
 * when sched_process_exit says the thread is gone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/escape.h"
#include "common/hist.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/tool.h"
#include "tool/callstack.h"
#include "tool/probeset.h"
#include "tracefs/session.h"

#define MAX_DEPTH 1024		/* entries kept per thread by default (-l);
				 * deeper ones are counted and their returns
				 * skipped */

struct opts {
	bool json, timestamp, usecs, msecs, per_func, regexp;
	pid_t pid;
	long interval, duration, buffer_kb;
	long level;		/* -l: nested calls timed per thread */
	const char *pattern;
};

static const char usage[] =
"Time functions and print their latency as a histogram.\n"
"\n"
"USAGE: funclatency [-hjTmuvFr] [-p PID] [-i SECS] [-d SECS] [-l LEVEL]\n"
"                   [-b KB] PATTERN\n"
"       funclatency [-hjTmuvFr] [-i SECS] [-d SECS] [-l LEVEL] [-b KB]\n"
"                   -c CMD PATTERN\n"
"\n"
"  -p, --pid PID          only this process (ends when it does); LIB\n"
"                         is looked up in its mappings first\n"
"  -i, --interval SECS    print a summary every SECS seconds\n"
"  -d, --duration SECS    trace for SECS seconds, then print and exit\n"
"  -c, --command CMD      run CMD, time only its process tree, print the\n"
"                         histogram when it exits (exit status 0)\n"
"  -T, --timestamp        print the time before each summary\n"
"  -u, --microseconds     histogram in microseconds (default nanoseconds)\n"
"  -m, --milliseconds     histogram in milliseconds\n"
"  -F, --function         one histogram per function\n"
"  -r, --regexp           FUNC is a regular expression (POSIX extended,\n"
"                         matched from the name's start), not a glob\n"
"  -l, --level LEVEL      time nested or recursive calls LEVEL deep per\n"
"                         thread (default 1024); deeper ones are not timed\n"
"  -b, --buffer-kb KB     per-CPU ring size\n"
"  -j, --json             JSON Lines: one object per summary\n"
"  -v, --verbose          say how the functions are probed, list the probes\n"
"  -h, --help             this help\n"
"  PATTERN                FUNC* for kernel functions (kprobes), LIB:FUNC*\n"
"                         for a program's or library's (uprobes; LIB a\n"
"                         path, a program in $PATH, or c/libc)\n"
"\n"
"EXAMPLES:\n"
"  funclatency do_sys_open       # time the do_sys_open() kernel function\n"
"  funclatency c:read            # time the read() C library function\n"
"  funclatency -u vfs_read       # time vfs_read(), in microseconds\n"
"  funclatency -m do_nanosleep   # time do_nanosleep(), in milliseconds\n"
"  funclatency -i 2 -d 10 c:open # output every 2 seconds, for duration 10s\n"
"  funclatency -mTi 5 vfs_read   # output every 5 seconds, with timestamps\n"
"  funclatency -p 181 vfs_read   # time process 181 only\n"
"  funclatency 'vfs_fstat*'      # time both vfs_fstat() and vfs_fstatat()\n"
"  funclatency 'c:*printf'       # time the *printf family of functions\n"
"  funclatency -F 'vfs_r*'       # show one histogram per matched function\n"
"  funclatency -l 1 c:qsort      # time only the outermost call of a recursion\n"
"  funclatency -r 'c:(malloc|free)$'  # time malloc() and free()\n"
"  funclatency -j -d 5 c:malloc  # one JSON summary after 5 seconds\n"
"  funclatency -c 'ls /' c:malloc  # time malloc() in one command\n";

static const struct tool_option options[] = {
	{ 'i', "interval", required_argument, NULL },
	{ 'u', "microseconds", no_argument, NULL },
	{ 'm', "milliseconds", no_argument, NULL },
	{ 'F', "function", no_argument, NULL },
	{ 'l', "level", required_argument, NULL },
	{ 'r', "regexp", no_argument, NULL },
	{ 'b', "buffer-kb", required_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct funclat */

	switch (key) {
	case 'i': o->interval = opt_num("-i", arg, 1, 86400L * 365); break;
	case 'u': o->usecs = true; break;
	case 'm': o->msecs = true; break;
	case 'F': o->per_func = true; break;
	case 'r': o->regexp = true; break;
	case 'l': o->level = opt_num("-l", arg, 1, 1 << 20); break;
	case 'b': o->buffer_kb = opt_num("-b", arg, 4, 1 << 22); break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (o->usecs && o->msecs)
		usage_error("-u and -m cannot be used together");
	if (optind >= argc)
		usage_error("no pattern given (FUNC* or LIB:FUNC*)");
	o->pattern = argv[optind++];
	if (optind < argc)
		usage_error("unexpected argument '%s' (one pattern)", argv[optind]);
	if (!*o->pattern)
		usage_error("empty pattern");
	if (!strncmp(o->pattern, "t:", 2) || !strncmp(o->pattern, "u:", 2))
		usage_error("'%s': tracepoints (t:) and USDT probes (u:) have no return to time",
			    o->pattern);
	if (o->regexp) {
		char err[256];

		if (probeset_check(o->pattern, PROBESET_RET | PROBESET_REGEX, err,
				   sizeof(err)) < 0)
			usage_error("%s", err);
	}
	o->pid = t->opt.pid;	/* -c's command is not running yet: 0 */
	o->json = t->opt.json;
	o->timestamp = t->opt.timestamp;
	o->duration = t->opt.duration;
	t->interval_secs = o->interval;
	return 0;
}

/* What a record's event id stands for. */
struct idref {
	unsigned int probe;	/* index in the probeset */
	bool ret, exit;
};

struct agg {
	struct hist_log2 h;	/* in the unit */
	uint64_t total_ns;
};

struct func {
	const char *name;
	struct agg a;
};

struct funclat {
	struct opts o;
	struct session *s;
	struct probeset ps;
	struct hmap *ids;		/* event id -> struct idref */
	struct callstacks *stacks;	/* the calls each thread is in */
	struct func *funcs;		/* by name, sorted */
	size_t nfuncs;
	unsigned int *func_of;		/* probe index -> funcs index */
	struct agg all;
	uint64_t div;			/* ns per unit */
	const char *unit;
	bool printed;			/* an interval was printed */
};

static void record(struct funclat *fl, unsigned int probe, uint64_t ns)
{
	hist_log2_add(&fl->all.h, ns / fl->div);
	fl->all.total_ns += ns;
	if (fl->o.per_func) {
		struct agg *a = &fl->funcs[fl->func_of[probe]].a;

		hist_log2_add(&a->h, ns / fl->div);
		a->total_ns += ns;
	}
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct funclat *fl = arg;
	struct idref *r = hmap_get(fl->ids, (uint64_t)ev->id, false);

	if (!r)
		return;
	if (r->exit) {
		callstacks_forget(fl->stacks, ev->pid);
	} else if (r->ret) {
		int64_t ns = callstacks_return(fl->stacks, ev->pid, ev->ts, r->probe);

		if (ns >= 0)
			record(fl, r->probe, (uint64_t)ns);
	} else {
		callstacks_enter(fl->stacks, ev->pid, ev->ts, r->probe);
	}
}

static void print_text(struct funclat *fl, const char *now)
{
	const struct agg *a = &fl->all;
	size_t i;

	putchar('\n');
	if (fl->o.timestamp)
		printf("%-8s\n", now);
	for (i = 0; fl->o.per_func && i < fl->nfuncs; i++) {
		if (!fl->funcs[i].a.h.count)
			continue;
		printf("\nFunction = %s\n", esc_str(fl->funcs[i].name));
		hist_log2_print(stdout, &fl->funcs[i].a.h, fl->unit);
	}
	if (!fl->o.per_func)
		hist_log2_print(stdout, &a->h, fl->unit);
	if (a->h.count)
		printf("\navg = %llu %s, total: %llu %s, count: %llu\n\n",
		       (unsigned long long)(a->total_ns / fl->div / a->h.count), fl->unit,
		       (unsigned long long)(a->total_ns / fl->div), fl->unit,
		       (unsigned long long)a->h.count);
}

static void json_agg(struct json *j, const struct agg *a)
{
	json_uint(j, "count", a->h.count);
	json_uint(j, "total_ns", a->total_ns);
	if (a->h.count)
		json_uint(j, "avg_ns", a->total_ns / a->h.count);
	else
		json_null(j, "avg_ns");
	hist_log2_json(j, "hist", &a->h);
}

static void print_json(struct funclat *fl, const char *now)
{
	struct json j;
	size_t i;

	json_begin(&j, stdout);
	json_str(&j, "time", now);
	json_str(&j, "pattern", fl->o.pattern);
	json_str(&j, "unit", fl->unit);
	json_agg(&j, &fl->all);
	if (fl->o.per_func) {
		json_arr_open(&j, "functions");
		for (i = 0; i < fl->nfuncs; i++) {
			if (!fl->funcs[i].a.h.count)
				continue;
			json_obj_open(&j, NULL);
			json_str(&j, "function", fl->funcs[i].name);
			json_agg(&j, &fl->funcs[i].a);
			json_obj_close(&j);
		}
		json_arr_close(&j);
	}
	session_json_lost(fl->s, &j);
	json_end(&j);
}

static void print_summary(struct tool *t)
{
	struct funclat *fl = t->ctx;
	time_t tt = time(NULL);
	char now[16];
	size_t i;

	strftime(now, sizeof(now), "%H:%M:%S", localtime(&tt));
	if (fl->o.json)
		print_json(fl, now);
	else
		print_text(fl, now);
	memset(&fl->all, 0, sizeof(fl->all));
	for (i = 0; i < fl->nfuncs; i++)
		memset(&fl->funcs[i].a, 0, sizeof(fl->funcs[i].a));
	fl->printed = true;
}

static void print_final(struct tool *t)
{
	struct funclat *fl = t->ctx;

	/* after intervals, a last one only when it has calls */
	if (!fl->printed || fl->all.h.count)
		print_summary(t);
	pr_info("threads inside a timed call at the end: %zu",
		callstacks_busy(fl->stacks));
	session_report_lost(fl->s);
}

static int cmp_func(const void *a, const void *b)
{
	return strcmp(((const struct func *)a)->name, ((const struct func *)b)->name);
}

/* Index the probes' events, and their names as functions (sorted, once). */
static void index_probes(struct funclat *fl, struct tp *exit_tp)
{
	struct probeset *ps = &fl->ps;
	struct idref *r;
	size_t i, k = 0;

	fl->funcs = xcalloc(ps->n, sizeof(*fl->funcs));
	for (i = 0; i < ps->n; i++)
		fl->funcs[i].name = ps->v[i].name;
	qsort(fl->funcs, ps->n, sizeof(*fl->funcs), cmp_func);
	for (i = 0; i < ps->n; i++)
		if (!k || strcmp(fl->funcs[k - 1].name, fl->funcs[i].name))
			fl->funcs[k++] = fl->funcs[i];
	fl->nfuncs = k;
	fl->func_of = xcalloc(ps->n, sizeof(*fl->func_of));
	fl->ids = hmap_new(sizeof(struct idref));
	for (i = 0; i < ps->n; i++) {
		struct func key = { .name = ps->v[i].name };
		struct func *f = bsearch(&key, fl->funcs, fl->nfuncs,
					 sizeof(*fl->funcs), cmp_func);

		fl->func_of[i] = (unsigned int)(f - fl->funcs);
		r = hmap_get(fl->ids, (uint64_t)ps->v[i].entry->id, true);
		*r = (struct idref){ .probe = (unsigned int)i };
		r = hmap_get(fl->ids, (uint64_t)ps->v[i].ret->id, true);
		*r = (struct idref){ .probe = (unsigned int)i, .ret = true };
	}
	r = hmap_get(fl->ids, (uint64_t)exit_tp->id, true);
	*r = (struct idref){ .exit = true };
	fl->stacks = callstacks_new((unsigned int)(fl->o.level ? fl->o.level : MAX_DEPTH));
}

static void say_probes(struct funclat *fl)
{
	const struct probeset *ps = &fl->ps;
	bool k = ps->kind == PROBESET_KFUNC;
	size_t i;

	pr_info("%s at entry and return of %zu functions (%zu probe pairs, defined in %.1f ms); records in the ring of instance %s, paired per thread; sched:sched_process_exit ends a thread's calls",
		k ? "kprobes and kretprobes" : "uprobes and uretprobes",
		fl->nfuncs, ps->n, ps->attach_ms, session_name(fl->s));
	for (i = 0; i < ps->ndefs; i++)
		pr_info("  %s", ps->defs[i]);
}

static int setup(struct tool *t, struct loop *l)
{
	struct funclat *fl = t->ctx;
	struct session_opts so = {
		.ordered = true, .pid = t->opt.pid, .tree = t->opt.tree,
		.buffer_kb = (unsigned long)fl->o.buffer_kb,
	};
	struct probeset_opts po = {
		.pid = fl->o.pid, .mode = TP_RECORD,
		.flags = PROBESET_RET | (fl->o.regexp ? PROBESET_REGEX : 0),
	};
	struct tp *exit_tp;

	fl->div = fl->o.msecs ? 1000000 : fl->o.usecs ? 1000 : 1;
	fl->unit = fl->o.msecs ? "msecs" : fl->o.usecs ? "usecs" : "nsecs";
	if (probeset_session(&so, fl->o.pattern, &po, &fl->s, &fl->ps) < 0)
		return -1;
	exit_tp = session_add(fl->s, "sched", "sched_process_exit", TP_RECORD, NULL);
	if (!exit_tp) {
		pr_err("%s", session_error(fl->s));
		return -1;
	}
	index_probes(fl, exit_tp);
	if (session_start(fl->s, l, on_event, fl) < 0) {
		pr_err("%s", session_error(fl->s));
		return -1;
	}
	say_probes(fl);
	if (!fl->o.json)
		fprintf(stderr, "Tracing %zu functions for \"%s\"... Hit Ctrl-C to end.\n",
			fl->nfuncs, fl->o.pattern);
	return 0;
}

static void teardown(struct tool *t)
{
	struct funclat *fl = t->ctx;
	session_tool_teardown(t);
	probeset_release(&fl->ps);
	memset(&fl->ps, 0, sizeof(fl->ps));
	callstacks_free(fl->stacks);
	hmap_free(fl->ids);
	fl->stacks = NULL;
	fl->ids = NULL;
	free(fl->funcs);
	free(fl->func_of);
	fl->funcs = NULL;
	fl->func_of = NULL;
}

int main(int argc, char **argv)
{
	struct funclat fl = { 0 };
	struct tool t = {
		.ctx = &fl,
		.usage = usage,
		.shared = TOPT_PID | TOPT_DURATION | TOPT_TIMESTAMP | TOPT_JSON |
			  TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.interval = print_summary,
		.summary = print_final,
		.teardown = teardown,
		.summarises = true,
		.session = &fl.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
