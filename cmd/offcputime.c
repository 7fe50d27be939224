// SPDX-License-Identifier: GPL-2.0
/*
 * offcputime: the time threads spend blocked (off-CPU), summed by the
 * stack they blocked in (bcc's offcputime).  Without kprobes or BPF: the
 * sched:sched_switch tracepoint is sampled through perf_event with
 * sample_period 1 and callchains on every CPU; a sample is taken in the
 * context of the task switched out, so its callchain is where that task
 * blocks.  The times come from the kernel's context switch records in
 * the same rings (PERF_RECORD_SWITCH_CPU_WIDE): off-CPU from the record
 * of the switch out, back at the record of the switch in, on whichever
 * CPU.  The tracepoint alone would do, but this kernel does not fire it
 * when a CPU leaves idle, so a thread woken on an idle CPU would never
 * be seen coming back.  Pairing per thread: tool/offcpu.h.  -p and -c are
 * applied here, since every CPU is watched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/opt.h"
#include "common/stackagg.h"
#include "common/symcache.h"
#include "common/task.h"
#include "tool/offcpu.h"
#include "tool/stacks.h"
#include "tool/tool.h"
#include "tracefs/perf_event.h"
#include "tracefs/perf_sampler.h"

enum { OPT_SVG = 256, OPT_FOLDED_FILE };

struct opts {
	bool user_only, kernel_only, folded, delimited, annotate, json;
	long min_us, max_us, duration;
	const char *svg, *folded_file;
};

static const char usage[] =
"Summarize off-CPU time by stack trace (bcc's offcputime).\n"
"\n"
"USAGE: offcputime [-hjvUKfda] [-p PID | -c CMD] [-m MIN_US] [-M MAX_US]\n"
"                  [--svg FILE] [--folded-file FILE] [duration]\n"
"\n"
"  -p, --pid PID           trace this process only (all its threads)\n"
"  -c, --command CMD       run CMD, trace its process tree, print when it\n"
"                          exits (exit status 0)\n"
"  -U, --user-stacks-only  show user-space stacks only (no kernel frames)\n"
"  -K, --kernel-stacks-only  show kernel stacks only (no user frames)\n"
"  -m, --min-block-time US   only blocks of at least US microseconds (1)\n"
"  -M, --max-block-time US   only blocks of at most US microseconds\n"
"  -f, --folded            folded format, one line per stack (flame graphs)\n"
"  -d, --delimited         a delimiter between kernel and user stacks\n"
"  -a, --annotations       add _[k] annotations to kernel frames\n"
"      --svg FILE          also write an SVG flame graph to FILE\n"
"      --folded-file FILE  also write the folded stacks to FILE\n"
"  -j, --json              JSON Lines: one object per stack\n"
"  -v, --verbose           say what is traced and how\n"
"  -h, --help              this help\n"
"  duration                trace for this many seconds (default: until\n"
"                          Ctrl-C)\n"
"\n"
"EXAMPLES:\n"
"  offcputime                # trace off-CPU stack time until Ctrl-C\n"
"  offcputime 5              # trace for 5 seconds only\n"
"  offcputime -f 5           # 5 seconds, and output in folded format\n"
"  offcputime -m 1000        # trace only events that last more than 1 ms\n"
"  offcputime -M 10000       # trace only events that last less than 10 ms\n"
"  offcputime -p 185         # only trace threads for PID 185\n"
"  offcputime -U             # only show user space stacks (no kernel)\n"
"  offcputime -K             # only show kernel space stacks (no user)\n"
"  offcputime --svg off.svg 10  # an off-CPU flame graph of 10 seconds\n"
"  offcputime -c './server'  # one command's blocked time\n";

static const struct tool_option options[] = {
	{ 'U', "user-stacks-only", no_argument, NULL },
	{ 'K', "kernel-stacks-only", no_argument, NULL },
	{ 'm', "min-block-time", required_argument, NULL },
	{ 'M', "max-block-time", required_argument, NULL },
	{ 'f', "folded", no_argument, NULL },
	{ 'd', "delimited", no_argument, NULL },
	{ 'a', "annotations", no_argument, NULL },
	{ OPT_SVG, "svg", required_argument, NULL },
	{ OPT_FOLDED_FILE, "folded-file", required_argument, NULL },
	{ 0 },
};

#define US_MAX (1L << 50)

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct offcpu */

	switch (key) {
	case 'U': o->user_only = true; break;
	case 'K': o->kernel_only = true; break;
	case 'm': o->min_us = opt_num("-m", arg, 0, US_MAX); break;
	case 'M': o->max_us = opt_num("-M", arg, 1, US_MAX); break;
	case 'f': o->folded = true; break;
	case 'd': o->delimited = true; break;
	case 'a': o->annotate = true; break;
	case OPT_SVG: o->svg = arg; break;
	case OPT_FOLDED_FILE: o->folded_file = arg; break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (o->user_only && o->kernel_only)
		usage_error("-U and -K cannot be used together");
	if (o->folded && t->opt.json)
		usage_error("-f and -j cannot be used together");
	if (!o->max_us)
		o->max_us = US_MAX;
	if (o->min_us > o->max_us)
		usage_error("-m must not be greater than -M");
	if (optind < argc)
		o->duration = opt_num("duration", argv[optind++], 1, 86400L * 365);
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	t->opt.duration = o->duration;
	o->json = t->opt.json;
	return 0;
}

struct offcpu {
	struct opts o;
	struct stacks_sampler *smp;
	struct stackagg *agg;
	struct offcpu_table *blocked;
	struct stacks_keep keep;
	struct symcache *syms;		/* to note a process while it lives */
	pid_t pid;			/* -p, or -c's command */
	bool tree;			/* -c: its descendants too */
	pid_t self;
};

/* Is a thread of process @tgid one that -p/-c asks for? */
static bool wanted(struct offcpu *oc, pid_t tgid)
{
	if (tgid <= 0 || tgid == oc->self)
		return false;
	if (!oc->pid || tgid == oc->pid)
		return true;
	return oc->tree && offcpu_descends(oc->blocked, tgid, oc->pid);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct offcpu *oc = arg;
	const struct perf_switch *sw = ev->data;
	struct stackagg_sample s;
	const char *comm;
	uint64_t us;

	if (ev->pid <= 0)
		return;			/* idle */
	if (ev->id != PERF_SAMPLER_SWITCH) {
		/* sched_switch: the stack the thread is about to block in */
		stacks_split(ev, 0, NULL, false, &oc->keep, &s);
		offcpu_stack(oc->blocked, ev->pid, ev->ts, &s);
		return;
	}
	if (!sw->out) {
		if (offcpu_in(oc->blocked, ev->pid, ev->ts, &s, &us) &&
		    us >= (uint64_t)oc->o.min_us && us <= (uint64_t)oc->o.max_us)
			stackagg_add(oc->agg, &s, us);
		return;
	}
	if (!wanted(oc, (pid_t)sw->pid))
		return;
	symcache_note(oc->syms, (pid_t)sw->pid);
	comm = task_cache_comm(ev->pid);
	offcpu_out(oc->blocked, ev->pid, (pid_t)sw->pid,
		   comm && *comm ? comm : SYMCACHE_UNKNOWN, ev->ts);
}

static const char *stack_context(const struct opts *o)
{
	return o->user_only ? "user" : o->kernel_only ? "kernel" : "user + kernel";
}

static int setup(struct tool *t, struct loop *l)
{
	struct offcpu *oc = t->ctx;
	char err[512];

	oc->pid = t->opt.pid;
	oc->tree = t->opt.tree;
	oc->self = getpid();
	oc->keep.kernel = !oc->o.user_only;
	oc->keep.user = !oc->o.kernel_only;
	oc->syms = symcache_shared();
	oc->agg = stackagg_new(symcache_shared());
	oc->blocked = offcpu_new();
	perf_raise_fd_limit();
	oc->smp = stacks_switch_sampler_open("sched", "sched_switch", l, on_event,
					     oc, err, sizeof(err));
	if (!oc->smp || stacks_sampler_enable(oc->smp, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	pr_info("sampling sched:sched_switch on every CPU with perf_event "
		"(sample_period 1, kernel and user callchains) with the kernel's "
		"context switch records; nothing written to tracefs");
	if (!oc->o.folded && !oc->o.json) {
		printf("Tracing off-CPU time (us) of %s by %s stack",
		       t->opt.command ? "the command's threads" :
		       oc->pid ? "the process's threads" : "all threads",
		       stack_context(&oc->o));
		if (oc->o.duration)
			printf(" for %ld secs.\n", oc->o.duration);
		else
			printf("... Hit Ctrl-C to end.\n");
	}
	tool_flush();
	return 0;
}

static int drain(struct tool *t)
{
	struct offcpu *oc = t->ctx;

	stacks_sampler_finish(oc->smp);
	return 0;
}

static void summary(struct tool *t)
{
	struct offcpu *oc = t->ctx;
	struct stacks_report r = {
		.json = oc->o.json, .folded = oc->o.folded,
		.delimit = oc->o.delimited, .annotate = oc->o.annotate,
		.keep = oc->keep, .value_name = "usecs",
		.folded_file = oc->o.folded_file, .svg = oc->o.svg,
		.svg_title = "Off-CPU Time Flame Graph", .svg_unit = "us",
	};
	char msg[1024], *line, *save = NULL;

	if (stacks_report(oc->agg, &r, msg, sizeof(msg)) < 0) {
		pr_err("%s", msg);
		t->status = TK_EXIT_RUNTIME;
	}
	tool_flush();
	stacks_warnings(oc->agg, stacks_sampler_lost(oc->smp),
			stacks_sampler_sideband_lost(oc->smp), msg, sizeof(msg));
	for (line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		pr_warn("%s", line);
	if (offcpu_unpaired(oc->blocked))
		pr_info("%llu switches read out of order were not paired",
			(unsigned long long)offcpu_unpaired(oc->blocked));
}

static void teardown(struct tool *t)
{
	struct offcpu *oc = t->ctx;

	stacks_sampler_free(oc->smp);
	oc->smp = NULL;
	offcpu_free(oc->blocked);
	oc->blocked = NULL;
	stackagg_free(oc->agg);
	oc->agg = NULL;
	symcache_free(oc->syms);
	oc->syms = NULL;
}

int main(int argc, char **argv)
{
	struct offcpu oc = { 0 };
	struct tool t = {
		.ctx = &oc,
		.usage = usage,
		.shared = TOPT_PID | TOPT_COMMAND | TOPT_JSON | TOPT_VERBOSE,
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
