// SPDX-License-Identifier: GPL-2.0
/*
 * funccount: count kernel and user functions, tracepoints and USDT probes
 * matching a bcc pattern (bcc's funccount).  Every match is one event of
 * our group (tool/probeset.c, all defined with one write) counted by
 * the kernel in perf_event counting mode: no records, so no loss and the
 * least cost per hit.  USDT semaphores are the kernel's reference counters
 * where it has them, else raised in the -p process (common/usema.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/tool.h"
#include "common/usema.h"
#include "tool/probeset.h"
#include "tracefs/perf_event.h"
#include "tracefs/session.h"

struct opts {
	bool json, timestamp;
	pid_t pid;
	long interval, duration;
	const char *pattern;
};

static const char usage[] =
"Count functions, tracepoints and USDT probes (bcc's funccount).\n"
"\n"
"USAGE: funccount [-hjTv] [-p PID] [-i SECS] [-d SECS] PATTERN\n"
"       funccount [-hjTv] [-i SECS] [-d SECS] -c CMD PATTERN\n"
"\n"
"  -p, --pid PID        count only in this process (ends when it does)\n"
"  -i, --interval SECS  print and reset the counts every SECS seconds\n"
"  -d, --duration SECS  count for SECS seconds, then print and exit\n"
"  -c, --command CMD    run CMD, count only in its process tree, print the\n"
"                       counts when it exits (exit status 0)\n"
"  -T, --timestamp      print a timestamp with each summary\n"
"  -j, --json           JSON Lines: one object per summary\n"
"  -v, --verbose        say the mechanism and attach time, list the events\n"
"  -h, --help           this help\n"
"  PATTERN              FUNC*            kernel functions (also p:FUNC, p::FUNC)\n"
"                       LIB:FUNC*        functions of a program or library\n"
"                                        (a path, a name in $PATH, c or libc)\n"
"                       t:SYS:EVENT*     tracepoints\n"
"                       u:LIB:[PROV:]PROBE*  USDT probes (LIB empty with -p:\n"
"                                        every object of the process)\n"
"\n"
"EXAMPLES:\n"
"  funccount 'vfs_*'                # kernel functions starting with vfs_\n"
"  funccount -i 1 'tcp_send*'       # every second\n"
"  funccount -Ti 5 -d 60 'vfs_*'    # every 5 s for a minute, timestamped\n"
"  funccount -p 185 'vfs_*'         # only for PID 185\n"
"  funccount t:sched:sched_fork     # a tracepoint\n"
"  funccount 't:syscalls:sys_enter_*'  # every syscall entry\n"
"  funccount c:malloc               # every process's malloc()\n"
"  funccount -p 185 'c:str*'        # libc's str* functions in PID 185\n"
"  funccount ./test:'read*'         # read* in the ./test binary\n"
"  funccount -p 185 'u::gc*'        # USDT probes gc* of PID 185\n"
"  funccount -j -d 10 'c:mem*'      # one JSON summary after 10 s\n"
"  funccount -c 'ls /' 'c:str*'     # libc's str* functions in one command\n";

static const struct tool_option options[] = {
	{ 'i', "interval", required_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct funccount */

	if (key == 'i')
		o->interval = opt_num("-i", arg, 1, 86400L * 365);
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;
	char err[512];

	if (optind >= argc)
		usage_error("no pattern given (e.g. 'vfs_*', c:malloc, t:sched:sched_fork)");
	o->pattern = argv[optind++];
	if (probeset_check(o->pattern, 0, err, sizeof(err)) < 0)
		usage_error("%s", err);
	if (optind < argc)
		usage_error("unexpected argument '%s' (one pattern only)", argv[optind]);
	o->pid = t->opt.pid;	/* -c's command is not running yet: 0 */
	o->json = t->opt.json;
	o->timestamp = t->opt.timestamp;
	o->duration = t->opt.duration;
	t->interval_secs = o->interval;
	/* -i with -d: as many intervals as fit, the last one the end (bcc) */
	if (o->interval && o->duration) {
		t->count = (o->duration + o->interval - 1) / o->interval;
		t->opt.duration = 0;
	}
	return 0;
}

/* The sites of one name, summed. */
struct func {
	const char *name;
	struct tp **tps;
	size_t ntps;
	uint64_t last, count;
};

struct funccount {
	struct opts o;
	struct session *s;
	struct probeset ps;
	struct func *f;
	size_t nf;
	struct usema *sema;
};

static int by_count(const void *a, const void *b)
{
	const struct func *x = *(struct func *const *)a, *y = *(struct func *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;	/* bcc: largest last */
	return strcmp(x->name, y->name);
}

/* This interval's counts (non-zero ones, sorted) into a malloc'ed array. */
static struct func **collect(struct funccount *fc, size_t *n)
{
	struct func **rows = xcalloc(fc->nf ? fc->nf : 1, sizeof(*rows));
	size_t i, k;

	*n = 0;
	for (i = 0; i < fc->nf; i++) {
		struct func *f = &fc->f[i];
		uint64_t v = 0;

		for (k = 0; k < f->ntps; k++)
			v += session_count(f->tps[k]);
		f->count = v - f->last;
		f->last = v;
		if (f->count)
			rows[(*n)++] = f;
	}
	qsort(rows, *n, sizeof(*rows), by_count);
	return rows;
}

static void print_counts(struct tool *t, bool final)
{
	struct funccount *fc = t->ctx;
	time_t now = time(NULL);
	struct func **rows;
	char hms[16];
	size_t i, n;
	struct json j;

	strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&now));
	rows = collect(fc, &n);
	if (fc->o.json) {
		json_begin(&j, stdout);
		json_str(&j, "type", final ? "summary" : "interval");
		json_str(&j, "time", hms);
		json_str(&j, "pattern", fc->o.pattern);
		json_arr_open(&j, "counts");
		for (i = 0; i < n; i++) {
			json_obj_open(&j, NULL);
			json_str(&j, "func", rows[i]->name);
			json_uint(&j, "count", rows[i]->count);
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_end(&j);
	} else {
		printf("\n");
		if (fc->o.timestamp)
			printf("%-8s\n", hms);
		printf("%-36s %8s\n", "FUNC", "COUNT");
		for (i = 0; i < n; i++)
			printf("%-36s %8llu\n", esc_str(rows[i]->name),
			       (unsigned long long)rows[i]->count);
		if (final)
			printf("Detaching...\n");
	}
	free(rows);
}

static void on_interval(struct tool *t)
{
	print_counts(t, false);
}

static void on_summary(struct tool *t)
{
	struct funccount *fc = t->ctx;

	/* with -i and -d the last interval was the end: nothing is left */
	if (fc->o.interval && fc->o.duration && t->count == 0) {
		if (!fc->o.json)
			printf("Detaching...\n");
		return;
	}
	print_counts(t, true);
}

/* One struct func per name, over the probeset's sites. */
static void group_names(struct funccount *fc)
{
	size_t i, k;

	fc->f = xcalloc(fc->ps.nnames, sizeof(*fc->f));
	for (i = 0; i < fc->ps.n; i++) {
		struct probeset_probe *p = &fc->ps.v[i];

		for (k = 0; k < fc->nf && strcmp(fc->f[k].name, p->name); k++)
			;
		if (k == fc->nf)
			fc->f[fc->nf++].name = p->name;
		fc->f[k].tps = xrealloc(fc->f[k].tps, (fc->f[k].ntps + 1) * sizeof(struct tp *));
		fc->f[k].tps[fc->f[k].ntps++] = p->entry;
	}
}

/*
 * Semaphores the kernel does not count (no reference counters, or
 * TAPKIT_NO_REF_CTR): raised by hand in the -p process, else refused.
 */
static int hold_semaphores(struct funccount *fc)
{
	char **paths, err[512];
	uint64_t *offs;
	size_t i;

	if (!fc->ps.nsemas)
		return 0;
	if (!fc->o.pid) {
		pr_err("cannot enable the semaphores of '%s': this kernel's uprobes have no reference counters (use -p PID)",
		       fc->o.pattern);
		return -1;
	}
	paths = xcalloc(fc->ps.nsemas, sizeof(*paths));
	offs = xcalloc(fc->ps.nsemas, sizeof(*offs));
	for (i = 0; i < fc->ps.nsemas; i++) {
		paths[i] = fc->ps.semas[i].path;
		offs[i] = fc->ps.semas[i].offset;
	}
	fc->sema = usema_hold(fc->o.pid, paths, offs, fc->ps.nsemas, err, sizeof(err));
	free(paths);
	free(offs);
	if (!fc->sema) {
		pr_err("%s", err);
		return -1;
	}
	pr_warn("no uprobe reference counters: %zu USDT semaphore%s raised in process %d through /proc/%d/mem",
		fc->ps.nsemas, fc->ps.nsemas == 1 ? "" : "s", fc->o.pid, fc->o.pid);
	return 0;
}

static void report_setup(struct funccount *fc)
{
	size_t i;

	pr_info("counting %zu events (%zu %s) with perf_event counting mode (no records); defined and added in %.1f ms",
		fc->ps.n, fc->nf, fc->ps.kind == PROBESET_TRACEPOINT ? "tracepoints" :
		fc->ps.kind == PROBESET_USDT ? "USDT probes" : "functions",
		fc->ps.attach_ms);
	if (fc->ps.kind == PROBESET_USDT)
		pr_info("USDT semaphores: %s", fc->ps.nsemas ? "raised through /proc/PID/mem" :
			"counted by the kernel (uprobe reference counters)");
	for (i = 0; i < fc->ps.ndefs; i++)
		pr_info("  %s", fc->ps.defs[i]);
	for (i = 0; !fc->ps.ndefs && i < fc->ps.n; i++)
		pr_info("  t:%s", fc->ps.v[i].name);
}

static int setup(struct tool *t, struct loop *l)
{
	struct funccount *fc = t->ctx;
	struct session_opts so = { .pid = t->opt.pid, .tree = t->opt.tree };
	struct probeset_opts po = { .pid = fc->o.pid, .mode = TP_COUNT };

	if (probeset_session(&so, fc->o.pattern, &po, &fc->s, &fc->ps) < 0)
		return -1;
	group_names(fc);
	report_setup(fc);
	if (hold_semaphores(fc) < 0)
		return -1;
	if (session_start(fc->s, l, NULL, fc) < 0) {
		pr_err("%s", session_error(fc->s));
		return -1;
	}
	if (!fc->o.json)
		fprintf(stderr, "Tracing %zu functions for \"%s\"... Hit Ctrl-C to end.\n",
			fc->nf, fc->o.pattern);
	tool_flush();
	return 0;
}

static void teardown(struct tool *t)
{
	struct funccount *fc = t->ctx;
	size_t i;

	/* the events first: a semaphore lowered under a live probe only
	 * stops the program's probe early */
	session_free(fc->s);
	fc->s = NULL;
	usema_release(fc->sema);
	fc->sema = NULL;
	for (i = 0; i < fc->nf; i++)
		free(fc->f[i].tps);
	free(fc->f);
	fc->f = NULL;
	fc->nf = 0;
	probeset_release(&fc->ps);
}

int main(int argc, char **argv)
{
	struct funccount fc = { 0 };
	struct tool t = {
		.ctx = &fc,
		.usage = usage,
		.shared = TOPT_PID | TOPT_DURATION | TOPT_TIMESTAMP | TOPT_JSON |
			  TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.interval = on_interval,
		.summary = on_summary,
		.teardown = teardown,
		.summarises = true,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
