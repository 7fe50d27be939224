// SPDX-License-Identifier: GPL-2.0
/*
 * The body of hardirqs and softirqs, which differ only in their events
 * (irq:irq_handler_entry/exit, irq:softirq_entry/exit) and their words:
 * options, the session, the per-interval and final summaries.  The
 * entries and exits are paired per CPU by tool/irqtime.c; with -C only
 * the entries are recorded.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/opt.h"
#include "tool/irqtime.h"
#include "tool/irqtool.h"
#include "tool/tool.h"
#include "tracefs/session.h"

struct opts {
	struct irqtime_opts q;
	bool json, timestamp;
	struct interval iv;
};

static const struct tool_option options[] = {
	{ 'N', "nanoseconds", no_argument, NULL },
	{ 'C', "count", no_argument, NULL },
	{ 'd', "dist", no_argument, NULL },
	{ 'c', "cpu", required_argument, NULL },
	{ 0 },
};

struct irqtool {
	struct opts o;
	struct session *s;
	struct irqtime *q;
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct irqtool */
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	switch (key) {
	case 'N': o->q.nsecs = true; break;
	case 'C': o->q.count = true; break;
	case 'd': o->q.dist = true; break;
	case 'c': o->q.cpu = (int)opt_num("-c", arg, 0, ncpus > 0 ? ncpus - 1 : 0); break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	opt_interval(argc, argv, optind, &o->iv);
	if (o->q.count && o->q.dist)
		usage_error("-C counts and -d times: use one of them");
	o->json = t->opt.json;
	o->timestamp = t->opt.timestamp;
	t->interval_secs = o->iv.secs;
	t->count = o->iv.count;
	return 0;
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct irqtool *it = arg;

	irqtime_record(it->q, ev);
}

static void print_summary(struct tool *t)
{
	struct irqtool *it = t->ctx;
	time_t now = time(NULL);
	char hms[16];

	strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&now));
	if (it->o.json)
		irqtime_json(it->q, stdout, hms, it->s);
	else
		irqtime_print(it->q, stdout, it->o.timestamp ? hms : NULL);
	tool_flush();
}

static void print_final(struct tool *t)
{
	struct irqtool *it = t->ctx;

	/* with [interval count] the last interval was already printed */
	if (it->q && !(it->o.iv.secs && t->count == 0 && it->o.iv.count))
		print_summary(t);
	if (it->s)
		session_report_lost(it->s);
}

static int setup(struct tool *t, struct loop *l)
{
	struct irqtool *it = t->ctx;
	/* handlers run in whatever task is on the CPU, ours too */
	struct session_opts so = { .keep_self = true, .drain_ms = 200,
				   .wakeup_percent = 25 };

	it->q = irqtime_new(&it->o.q);
	it->s = session_new(&so);
	if (session_open(it->s) < 0 || irqtime_add(it->q, it->s) < 0) {
		pr_err("%s", session_error(it->s));
		return -1;
	}
	pr_info("recording irq:%s_entry%s in instance %s", it->o.q.soft ? "softirq" : "irq_handler",
		it->o.q.count ? "" : it->o.q.soft ? " and softirq_exit" : " and irq_handler_exit",
		session_name(it->s));
	if (session_start(it->s, l, on_event, it) < 0) {
		pr_err("%s", session_error(it->s));
		return -1;
	}
	if (!it->o.json)
		fprintf(stderr, "Tracing %s irq event %s... Hit Ctrl-C to end.\n",
			it->o.q.soft ? "soft" : "hard", it->o.q.count ? "count" : "time");
	return 0;
}

static void teardown(struct tool *t)
{
	struct irqtool *it = t->ctx;

	session_tool_teardown(t);
	irqtime_free(it->q);
	it->q = NULL;
}

int irqtool_main(int argc, char **argv, bool soft, const char *usage)
{
	struct irqtool it = { .o.q = { .soft = soft, .cpu = -1 } };
	struct tool t = {
		.ctx = &it,
		.usage = usage,
		.shared = TOPT_TIMESTAMP | TOPT_JSON | TOPT_VERBOSE,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.interval = print_summary,
		.summary = print_final,
		.teardown = teardown,
		.summarises = true,
		.session = &it.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
