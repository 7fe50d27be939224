// SPDX-License-Identifier: GPL-2.0
/*
 * profile: sample the stacks running on every CPU at a fixed rate and
 * count them (bcc's profile).  The cpu-clock software event (no PMU
 * needed) is sampled with kernel and user callchains; each stack is named
 * through the symbol cache while its process lives (or from the mappings
 * the perf sideband told of it) and counted in userspace; the counts are
 * printed at the end as bcc's stacks, its folded format, JSON Lines or an
 * SVG flame graph.  Nothing is written to tracefs.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/opt.h"
#include "common/stackagg.h"
#include "common/symcache.h"
#include "common/task.h"
#include "tool/stacks.h"
#include "tool/tool.h"

/* The top of the user-space address range of x86-64 (47 bits). */
#define USER_TOP (1ULL << 47)

enum { OPT_COMMAND = 256, OPT_SVG, OPT_FOLDED_FILE };

struct opts {
	long freq, period, duration;
	bool user_only, kernel_only, folded, delimited, annotate, idle, json;
	const char *svg, *folded_file;
	pid_t pid;
};

static const char usage[] =
"Profile CPU usage by sampling stack traces at a timed interval (bcc's profile).\n"
"\n"
"USAGE: profile [-hjvUKIfda] [-F HZ | -c COUNT] [-p PID | --command CMD]\n"
"               [--svg FILE] [--folded-file FILE] [duration]\n"
"\n"
"  -F, --frequency HZ      sample HZ times a second on each CPU (default 49)\n"
"  -c, --count COUNT       sample every COUNT cpu-clock events (nanoseconds)\n"
"  -p, --pid PID           profile this process only (all its threads)\n"
"      --command CMD       run CMD, profile its process tree, print when it\n"
"                          exits (tapkit's -c CMD: -c is bcc's COUNT here)\n"
"  -U, --user-stacks-only  show user-space stacks only (no kernel frames)\n"
"  -K, --kernel-stacks-only  show kernel stacks only (no user frames)\n"
"  -I, --include-idle      include the CPU idle stacks (pid 0)\n"
"  -f, --folded            folded format, one line per stack (flame graphs)\n"
"  -d, --delimited         a delimiter between kernel and user stacks\n"
"  -a, --annotations       add _[k] annotations to kernel frames\n"
"      --svg FILE          also write an SVG flame graph to FILE\n"
"      --folded-file FILE  also write the folded stacks to FILE\n"
"  -j, --json              JSON Lines: one object per stack\n"
"  -v, --verbose           say what is sampled and how\n"
"  -h, --help              this help\n"
"  duration                profile for this many seconds (default: until\n"
"                          Ctrl-C)\n"
"\n"
"EXAMPLES:\n"
"  profile                  # profile stack traces at 49 Hertz until Ctrl-C\n"
"  profile -F 99            # profile stack traces at 99 Hertz\n"
"  profile -c 1000000       # profile every millisecond of CPU time\n"
"  profile 5                # profile at 49 Hertz for 5 seconds only\n"
"  profile -f 5             # output in folded format for flame graphs\n"
"  profile --svg cpu.svg 10 # a flame graph of 10 seconds\n"
"  profile -p 185           # only profile process 185\n"
"  profile -U               # only show user space stacks (no kernel)\n"
"  profile -K               # only show kernel space stacks (no user)\n"
"  profile -F 999 --command ./a.out  # one command, sampled finely\n";

static const struct tool_option options[] = {
	{ 'F', "frequency", required_argument, NULL },
	{ 'c', "count", required_argument, NULL },
	{ 'U', "user-stacks-only", no_argument, NULL },
	{ 'K', "kernel-stacks-only", no_argument, NULL },
	{ 'I', "include-idle", no_argument, NULL },
	{ 'f', "folded", no_argument, NULL },
	{ 'd', "delimited", no_argument, NULL },
	{ 'a', "annotations", no_argument, NULL },
	{ OPT_COMMAND, "command", required_argument, NULL },
	{ OPT_SVG, "svg", required_argument, NULL },
	{ OPT_FOLDED_FILE, "folded-file", required_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct profile */

	switch (key) {
	case 'F': o->freq = opt_num("-F", arg, 1, 1000000); break;
	case 'c': o->period = opt_num("-c", arg, 1, 1L << 40); break;
	case 'U': o->user_only = true; break;
	case 'K': o->kernel_only = true; break;
	case 'I': o->idle = true; break;
	case 'f': o->folded = true; break;
	case 'd': o->delimited = true; break;
	case 'a': o->annotate = true; break;
	case OPT_SVG: o->svg = arg; break;
	case OPT_FOLDED_FILE: o->folded_file = arg; break;
	case OPT_COMMAND:
		if (!*arg)
			usage_error("empty command for --command");
		t->opt.command = arg;
		break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (o->freq && o->period)
		usage_error("-F and -c cannot be used together");
	if (o->user_only && o->kernel_only)
		usage_error("-U and -K cannot be used together");
	if (o->folded && t->opt.json)
		usage_error("-f and -j cannot be used together");
	if (optind < argc)
		o->duration = opt_num("duration", argv[optind++], 1, 86400L * 365);
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->freq && !o->period)
		o->freq = 49;
	t->opt.duration = o->duration;
	o->json = t->opt.json;
	return 0;
}

struct profile {
	struct opts o;
	struct stacks_sampler *smp;
	struct stackagg *agg;
	struct stacks_keep keep;
};

static void on_sample(const struct tk_event *ev, void *arg)
{
	struct profile *p = arg;
	const struct perf_sample_head *h = ev->data;
	struct stackagg_sample s;
	const char *comm;
	char idle[32];

	if (!h || ev->size < sizeof(*h))
		return;
	if (!h->pid && !p->o.idle)
		return;
	if (!h->tid) {
		snprintf(idle, sizeof(idle), "swapper/%d", ev->cpu);
		comm = idle;
	} else {
		comm = task_cache_comm((pid_t)h->tid);
	}
	stacks_split(ev, (pid_t)h->pid, comm, h->ip < USER_TOP && h->pid,
		     &p->keep, &s);
	stackagg_add(p->agg, &s, 1);
}

/* The threads to sample (-p: the process's; --command: the command's,
 * inherited by its children), or NULL: every CPU. */
static int scope_of(struct tool *t, struct perf_scope *scope, pid_t **tids)
{
	pid_t pid = t->opt.pid;
	int n;

	if (!pid)
		return 0;
	n = task_threads(pid, tids);
	if (n <= 0) {
		pr_err("cannot profile process %d: %s", (int)pid,
		       strerror(n < 0 ? -n : ESRCH));
		return -1;
	}
	scope->tids = *tids;
	scope->ntids = n;
	scope->tree = t->opt.tree;
	return 1;
}

static const char *stack_context(const struct opts *o)
{
	return o->user_only ? "user" : o->kernel_only ? "kernel" : "user + kernel";
}

static int setup(struct tool *t, struct loop *l)
{
	struct profile *p = t->ctx;
	struct perf_sample_spec spec = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = (uint64_t)p->o.freq, .period = (uint64_t)p->o.period,
	};
	struct perf_scope scope = { 0 };
	pid_t *tids = NULL;
	char err[512];
	int n;

	p->o.pid = t->opt.pid;
	p->keep.kernel = !p->o.user_only;
	p->keep.user = !p->o.kernel_only;
	perf_raise_fd_limit();
	if ((n = scope_of(t, &scope, &tids)) < 0)
		return -1;
	p->agg = stackagg_new(symcache_shared());
	p->smp = stacks_sampler_open(&spec, n ? &scope : NULL, l, on_sample, p,
				     err, sizeof(err));
	free(tids);
	if (!p->smp || stacks_sampler_enable(p->smp, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	pr_info("sampling cpu-clock %s %ld %s on %s with kernel and user "
		"callchains (perf_event_open, nothing written to tracefs)",
		p->o.freq ? "at" : "every", p->o.freq ? p->o.freq : p->o.period,
		p->o.freq ? "Hz" : "ns", n ? "the process's threads" : "every CPU");
	if (!p->o.folded && !p->o.json) {
		printf("Sampling at ");
		if (p->o.freq)
			printf("%ld Hertz", p->o.freq);
		else
			printf("every %ld events", p->o.period);
		if (t->opt.command)
			printf(" of the command's processes");
		else if (p->o.pid)
			printf(" of PID %d", (int)p->o.pid);
		else
			printf(" of all threads");
		printf(" by %s stack", stack_context(&p->o));
		if (p->o.duration)
			printf(" for %ld secs.\n", p->o.duration);
		else
			printf("... Hit Ctrl-C to end.\n");
	}
	tool_flush();
	return 0;
}

static int drain(struct tool *t)
{
	struct profile *p = t->ctx;

	stacks_sampler_finish(p->smp);
	return 0;
}

static void summary(struct tool *t)
{
	struct profile *p = t->ctx;
	struct stacks_report r = {
		.json = p->o.json, .folded = p->o.folded,
		.delimit = p->o.delimited, .annotate = p->o.annotate,
		.keep = p->keep, .value_name = "count",
		.folded_file = p->o.folded_file, .svg = p->o.svg,
		.svg_title = "CPU Flame Graph", .svg_unit = "samples",
	};
	char msg[1024], *line, *save = NULL;

	if (stacks_report(p->agg, &r, msg, sizeof(msg)) < 0) {
		pr_err("%s", msg);
		t->status = TK_EXIT_RUNTIME;
	}
	tool_flush();
	stacks_warnings(p->agg, stacks_sampler_lost(p->smp),
			stacks_sampler_sideband_lost(p->smp), msg, sizeof(msg));
	for (line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		pr_warn("%s", line);
}

static void teardown(struct tool *t)
{
	struct profile *p = t->ctx;

	stacks_sampler_free(p->smp);
	p->smp = NULL;
	stackagg_free(p->agg);
	p->agg = NULL;
}

int main(int argc, char **argv)
{
	struct profile p = { 0 };
	struct tool t = {
		.ctx = &p,
		.usage = usage,
		.shared = TOPT_PID | TOPT_JSON | TOPT_VERBOSE,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = drain,
		.summary = summary,
		.teardown = teardown,
		.summarises = true,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
