// SPDX-License-Identifier: GPL-2.0
/*
 * runqlat: run-queue (scheduler) latency as a power-of-two histogram
 * (bcc's runqlat).
 *
 * A task enters a run queue when it is woken (sched:sched_wakeup,
 * sched:sched_wakeup_new) or when it leaves the CPU still runnable
 * (sched:sched_switch with prev_state R: preempted or yielding, as bcc
 * counts it); it leaves the queue when sched_switch picks it (next_pid).
 * The time between is one sample, counted for the task picked, its process
 * (-P), its thread (-L) or its PID namespace (--pidnss).  A switch-in with
 * no enqueue seen (the task was queued before tracing began) is no sample.
 * The records and the scope (-p, -c) are tool/schedev.c's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/lathist.h"
#include "tool/schedev.h"
#include "tool/tool.h"
#include "tracefs/session.h"

/* threads waiting on a run queue kept before the map starts over */
#define MAX_QUEUED	(1 << 20)

enum { OPT_PIDNSS = 256 };

struct opts {
	bool msecs, pids, tids, pidnss;
	long buffer_kb;
	struct interval iv;
};

static const char usage[] =
"Summarize run queue (scheduler) latency as a histogram.\n"
"\n"
"USAGE: runqlat [-hjTmPLv] [--pidnss] [-p PID] [-d SECS] [-b KB]\n"
"               [interval [count]]\n"
"       runqlat [-hjTmPLv] [--pidnss] [-b KB] -c CMD [interval [count]]\n"
"\n"
"  -T, --timestamp        include a timestamp on each summary\n"
"  -m, --milliseconds     millisecond histogram (default microseconds)\n"
"  -P, --pids             print a histogram per process ID\n"
"  -L, --tids             print a histogram per thread ID\n"
"      --pidnss           print a histogram per PID namespace\n"
"  -p, --pid PID          only the threads of this process (ends when it\n"
"                         does)\n"
"  -c, --command CMD      run CMD, measure only its process tree, print\n"
"                         when it exits\n"
"  -d, --duration SECS    trace for SECS seconds, then print and exit\n"
"  -b, --buffer-kb KB     per-CPU ring size\n"
"  -j, --json             JSON Lines: one object per summary\n"
"  -v, --verbose          say how the events are read\n"
"  -h, --help             this help\n"
"  interval [count]       print every interval seconds, count times\n"
"\n"
"EXAMPLES:\n"
"  runqlat               # summarize run queue latency as a histogram\n"
"  runqlat 1 10          # print 1 second summaries, 10 times\n"
"  runqlat -mT 1         # 1s summaries, milliseconds, and timestamps\n"
"  runqlat -P            # show each PID separately\n"
"  runqlat -L -p 185     # each thread of PID 185\n"
"  runqlat -p 185        # trace PID 185 only\n"
"  runqlat --pidnss      # one histogram per PID namespace (container)\n"
"  runqlat -j -d 5       # one JSON summary after 5 seconds\n"
"  runqlat -c 'make -j4' # the latency of one command's tasks\n";

static const struct tool_option options[] = {
	{ 'm', "milliseconds", no_argument, NULL },
	{ 'P', "pids", no_argument, NULL },
	{ 'L', "tids", no_argument, NULL },
	{ OPT_PIDNSS, "pidnss", no_argument, NULL },
	{ 'b', "buffer-kb", required_argument, NULL },
	{ 0 },
};

struct runqlat {
	struct opts o;
	struct schedev *se;
	struct session *s;
	struct lathist *lh;
	struct hmap *queued;	/* tid -> uint64_t: entered the run queue */
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct runqlat */

	switch (key) {
	case 'm': o->msecs = true; break;
	case 'P': o->pids = true; break;
	case 'L': o->tids = true; break;
	case OPT_PIDNSS: o->pidnss = true; break;
	case 'b': o->buffer_kb = opt_num("-b", arg, 4, 1 << 22); break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (o->pids + o->tids + o->pidnss > 1)
		usage_error("-P, -L and --pidnss cannot be used together");
	opt_interval(argc, argv, optind, &o->iv);
	t->interval_secs = o->iv.secs;
	t->count = o->iv.count;
	return 0;
}

static void enqueue(struct runqlat *r, pid_t tid, uint64_t ts)
{
	if (hmap_count(r->queued) >= MAX_QUEUED)
		hmap_clear(r->queued);
	*(uint64_t *)hmap_get(r->queued, (uint64_t)tid, true) = ts;
}

static void on_wakeup(void *arg, pid_t tid, uint64_t ts)
{
	enqueue(arg, tid, ts);
}

static void on_switch_out(void *arg, pid_t tid, const char *comm, long state,
			  uint64_t ts)
{
	struct runqlat *r = arg;

	(void)comm;
	if (!(state & SCHEDEV_STATE_MASK))	/* still runnable */
		enqueue(r, tid, ts);
}

static void on_switch_in(void *arg, pid_t tid, const char *comm, uint64_t ts)
{
	struct runqlat *r = arg;
	uint64_t *q = hmap_get(r->queued, (uint64_t)tid, false), key;
	pid_t pid;

	if (!q)		/* queued before tracing began */
		return;
	pid = schedev_tgid(r->se, tid);
	key = r->o.tids ? (uint64_t)tid : r->o.pidnss ?
		schedev_pidns(r->se, tid) : (uint64_t)pid;
	lathist_add(r->lh, key, pid, comm, r->o.tids || tid == pid,
		    ts > *q ? ts - *q : 0);
	hmap_del(r->queued, (uint64_t)tid);
}

static const struct schedev_ops ops = {
	.wakeup = on_wakeup,
	.switch_out = on_switch_out,
	.switch_in = on_switch_in,
};

static void print_summary(struct tool *t)
{
	struct runqlat *r = t->ctx;

	lathist_summary(r->lh, r->s, t->opt.json, t->opt.timestamp, false);
}

static void print_final(struct tool *t)
{
	struct runqlat *r = t->ctx;

	/* with [interval count] the last interval was already printed */
	if (!(r->o.iv.secs && r->o.iv.count && t->count == 0))
		print_summary(t);
	session_report_lost(r->s);
}

static int setup(struct tool *t, struct loop *l)
{
	struct runqlat *r = t->ctx;
	struct schedev_opts so = {
		.pid = t->opt.pid, .tree = t->opt.tree, .wakeups = true,
		.buffer_kb = (unsigned long)r->o.buffer_kb,
	};
	struct lathist_opts lo = {
		.section = r->o.pids ? "pid" : r->o.tids ? "tid" :
			   r->o.pidnss ? "pidns" : NULL,
		.msecs = r->o.msecs,
	};
	char err[512];

	r->lh = lathist_new(&lo);
	r->queued = hmap_new(sizeof(uint64_t));
	r->se = schedev_new(&so, &ops, r);
	if (schedev_start(r->se, l, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	r->s = schedev_session(r->se);
	pr_info("sched:sched_wakeup, sched_wakeup_new and sched_switch in the ring of instance %s, read in time order; %s",
		session_name(r->s), schedev_describe(r->se));
	if (!t->opt.json)
		fprintf(stderr, "Tracing run queue latency... Hit Ctrl-C to end.\n");
	return 0;
}

static int drain(struct tool *t)
{
	struct runqlat *r = t->ctx;
	long n = r->s ? session_drain(r->s) : 0;

	return n < 0 ? (int)n : 0;
}

static void teardown(struct tool *t)
{
	struct runqlat *r = t->ctx;

	schedev_free(r->se);
	r->se = NULL;
	r->s = NULL;
	lathist_free(r->lh);
	r->lh = NULL;
	hmap_free(r->queued);
	r->queued = NULL;
}

int main(int argc, char **argv)
{
	struct runqlat r = { 0 };
	struct tool t = {
		.ctx = &r,
		.usage = usage,
		.shared = TOPT_PID | TOPT_DURATION | TOPT_TIMESTAMP | TOPT_JSON |
			  TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = drain,
		.interval = print_summary,
		.summary = print_final,
		.teardown = teardown,
		.summarises = true,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
