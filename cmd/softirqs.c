// SPDX-License-Identifier: GPL-2.0
/*
 * softirqs: time spent in softirq handlers, by vector (net_rx, timer, ...),
 * as totals, counts or log2 histograms, in bcc's format.
 *
 * irq:softirq_entry and softirq_exit are recorded in our instance
 * and paired per CPU in userspace (tool/irqtime.c); with -C only the
 * entries are recorded.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/opt.h"
#include "tool/irqtime.h"
#include "tool/tool.h"
#include "tracefs/session.h"

struct opts {
	struct irqtime_opts q;
	bool json, timestamp;
	struct interval iv;
};

static const char usage[] =
"Summarize soft irq event time (or counts) by vector, as bcc's softirqs.\n"
"\n"
"USAGE: softirqs [-hjTNCdv] [-c CPU] [interval [count]]\n"
"\n"
"  -T, --timestamp      include a timestamp on each output\n"
"  -N, --nanoseconds    output in nanoseconds (default microseconds)\n"
"  -C, --count          count softirq runs instead of timing them\n"
"  -d, --dist           show distributions as log2 histograms\n"
"  -c, --cpu CPU        only this CPU\n"
"  -j, --json           JSON Lines: one object per output\n"
"  -v, --verbose        say which events are used, report loss live\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  softirqs              # sum soft irq event time until Ctrl-C\n"
"  softirqs -d           # soft irq event time as histograms\n"
"  softirqs -C 1 5       # counts per second, five times\n"
"  softirqs -NT 1        # 1 s summaries, nanoseconds, and timestamps\n"
"  softirqs -c 1         # only CPU 1\n";

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
	pr_info("recording irq:softirq_entry%s in instance %s",
		it->o.q.count ? "" : " and softirq_exit", session_name(it->s));
	if (session_start(it->s, l, on_event, it) < 0) {
		pr_err("%s", session_error(it->s));
		return -1;
	}
	if (!it->o.json)
		fprintf(stderr, "Tracing soft irq event %s... Hit Ctrl-C to end.\n",
			it->o.q.count ? "count" : "time");
	return 0;
}

static void teardown(struct tool *t)
{
	struct irqtool *it = t->ctx;

	session_tool_teardown(t);
	irqtime_free(it->q);
	it->q = NULL;
}

int main(int argc, char **argv)
{
	struct irqtool it = { .o.q = { .soft = true, .cpu = -1 } };
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
