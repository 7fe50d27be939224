// SPDX-License-Identifier: GPL-2.0
/*
 * cpudist: on-CPU time per scheduling, or off-CPU time with -O, as a
 * power-of-two histogram (bcc's cpudist).
 *
 * sched:sched_switch alone: a task's on-CPU span runs from the switch that
 * picks it (next_pid) to the switch that takes it off (prev_pid); its
 * off-CPU span from that switch-out to its next switch-in, whatever it
 * waited for (a sleep, a lock, a run queue), as bcc measures it.  Spans
 * are counted for the task, its process (-P) or its thread (-L); a span
 * begun before tracing did is no sample, and a task that exits starts no
 * off-CPU span.  The idle tasks (pid 0) are left out, as bcc does by
 * default.  The records and the scope (-p, -c) are tool/schedev.c's.
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

/* spans kept open before the map starts over */
#define MAX_OPEN	(1 << 20)

struct opts {
	bool offcpu, msecs, pids, tids, ext;
	long buffer_kb;
	struct interval iv;
};

static const char usage[] =
"Summarize on- and off-CPU time per task as a histogram.\n"
"\n"
"USAGE: cpudist [-hjOTmPLev] [-p PID] [-d SECS] [-b KB] [interval [count]]\n"
"       cpudist [-hjOTmPLev] [-b KB] -c CMD [interval [count]]\n"
"\n"
"  -O, --offcpu           measure off-CPU time (default on-CPU time)\n"
"  -T, --timestamp        include a timestamp on each summary\n"
"  -m, --milliseconds     millisecond histogram (default microseconds)\n"
"  -P, --pids             print a histogram per process ID\n"
"  -L, --tids             print a histogram per thread ID\n"
"  -e, --extension        also print the average, total and count\n"
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
"  cpudist               # summarize on-CPU time as a histogram\n"
"  cpudist -O            # summarize off-CPU time as a histogram\n"
"  cpudist 1 10          # print 1 second summaries, 10 times\n"
"  cpudist -mT 1         # 1s summaries, milliseconds, and timestamps\n"
"  cpudist -P            # show each PID separately\n"
"  cpudist -p 185        # trace PID 185 only\n"
"  cpudist -e            # show the average, total and count too\n"
"  cpudist -j -d 5       # one JSON summary after 5 seconds\n"
"  cpudist -L -c 'make'  # each thread of one command\n";

static const struct tool_option options[] = {
	{ 'O', "offcpu", no_argument, NULL },
	{ 'm', "milliseconds", no_argument, NULL },
	{ 'P', "pids", no_argument, NULL },
	{ 'L', "tids", no_argument, NULL },
	{ 'e', "extension", no_argument, NULL },
	{ 'b', "buffer-kb", required_argument, NULL },
	{ 0 },
};

struct cpudist {
	struct opts o;
	struct schedev *se;
	struct session *s;
	struct lathist *lh;
	struct hmap *since;	/* tid -> uint64_t: the open span's start */
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct cpudist */

	switch (key) {
	case 'O': o->offcpu = true; break;
	case 'm': o->msecs = true; break;
	case 'P': o->pids = true; break;
	case 'L': o->tids = true; break;
	case 'e': o->ext = true; break;
	case 'b': o->buffer_kb = opt_num("-b", arg, 4, 1 << 22); break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (o->pids && o->tids)
		usage_error("-P and -L cannot be used together");
	opt_interval(argc, argv, optind, &o->iv);
	t->interval_secs = o->iv.secs;
	t->count = o->iv.count;
	return 0;
}

static void span_open(struct cpudist *c, pid_t tid, uint64_t ts)
{
	if (hmap_count(c->since) >= MAX_OPEN)
		hmap_clear(c->since);
	*(uint64_t *)hmap_get(c->since, (uint64_t)tid, true) = ts;
}

static void span_close(struct cpudist *c, pid_t tid, const char *comm,
		       uint64_t ts)
{
	uint64_t *start = hmap_get(c->since, (uint64_t)tid, false);
	pid_t pid;

	if (!start)		/* begun before tracing did */
		return;
	pid = schedev_tgid(c->se, tid);
	lathist_add(c->lh, c->o.tids ? (uint64_t)tid : (uint64_t)pid, pid, comm,
		    c->o.tids || tid == pid, ts > *start ? ts - *start : 0);
	hmap_del(c->since, (uint64_t)tid);
}

static void on_switch_out(void *arg, pid_t tid, const char *comm, long state,
			  uint64_t ts)
{
	struct cpudist *c = arg;

	if (!c->o.offcpu)
		span_close(c, tid, comm, ts);
	else if (state & SCHEDEV_STATE_EXIT)
		hmap_del(c->since, (uint64_t)tid);
	else
		span_open(c, tid, ts);
}

static void on_switch_in(void *arg, pid_t tid, const char *comm, uint64_t ts)
{
	struct cpudist *c = arg;

	if (c->o.offcpu)
		span_close(c, tid, comm, ts);
	else
		span_open(c, tid, ts);
}

static const struct schedev_ops ops = {
	.switch_out = on_switch_out,
	.switch_in = on_switch_in,
};

static void print_summary(struct tool *t)
{
	struct cpudist *c = t->ctx;

	lathist_summary(c->lh, c->s, t->opt.json, t->opt.timestamp, c->o.ext);
}

static void print_final(struct tool *t)
{
	struct cpudist *c = t->ctx;

	/* with [interval count] the last interval was already printed */
	if (!(c->o.iv.secs && c->o.iv.count && t->count == 0))
		print_summary(t);
	session_report_lost(c->s);
}

static int setup(struct tool *t, struct loop *l)
{
	struct cpudist *c = t->ctx;
	struct schedev_opts so = {
		.pid = t->opt.pid, .tree = t->opt.tree,
		.buffer_kb = (unsigned long)c->o.buffer_kb,
	};
	struct lathist_opts lo = {
		.section = c->o.pids ? "pid" : c->o.tids ? "tid" : NULL,
		.comm = true, .msecs = c->o.msecs,
	};
	char err[512];

	c->lh = lathist_new(&lo);
	c->since = hmap_new(sizeof(uint64_t));
	c->se = schedev_new(&so, &ops, c);
	if (schedev_start(c->se, l, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	c->s = schedev_session(c->se);
	pr_info("sched:sched_switch in the ring of instance %s, read in time order; %s",
		session_name(c->s), schedev_describe(c->se));
	if (!t->opt.json)
		fprintf(stderr, "Tracing %s-CPU time... Hit Ctrl-C to end.\n",
			c->o.offcpu ? "off" : "on");
	return 0;
}

static int drain(struct tool *t)
{
	struct cpudist *c = t->ctx;
	long n = c->s ? session_drain(c->s) : 0;

	return n < 0 ? (int)n : 0;
}

static void teardown(struct tool *t)
{
	struct cpudist *c = t->ctx;

	schedev_free(c->se);
	c->se = NULL;
	c->s = NULL;
	lathist_free(c->lh);
	c->lh = NULL;
	hmap_free(c->since);
	c->since = NULL;
}

int main(int argc, char **argv)
{
	struct cpudist c = { 0 };
	struct tool t = {
		.ctx = &c,
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
