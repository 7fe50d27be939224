// SPDX-License-Identifier: GPL-2.0
/*
 * bitesize: block I/O sizes as power-of-two histograms in Kbytes, one per
 * process name (bcc's bitesize), printed at Ctrl-C or each interval.
 *
 * The requests are followed through the block tracepoints by
 * tool/bioreq.c: a request counts for the task that started it (its size
 * as issued to the driver), once it completes.  -d puts a filter on the
 * device into the kernel; -n keeps the requests of one task name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/escape.h"
#include "common/hist.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/bioreq.h"
#include "tool/tool.h"
#include "tracefs/session.h"

struct opts {
	bool json, timestamp;
	const char *disk, *comm;
	int64_t dev;		/* -d's, -1: every disk */
	long buffer_kb;
	struct interval iv;
};

static const char usage[] =
"Summarize block device I/O sizes as histograms, by process name.\n"
"\n"
"USAGE: bitesize [-hjTv] [-n NAME] [-d DISK] [-c CMD] [--duration SECS]\n"
"                [-b KB] [interval [count]]\n"
"\n"
"  -T, --timestamp        include a timestamp on each output\n"
"  -n, --name NAME        only the I/O of processes named NAME\n"
"  -d, --disk DISK        trace this disk only (sda, /dev/sda or 8:0;\n"
"                         a kernel filter)\n"
"      --duration SECS    trace for SECS seconds, then print and exit\n"
"  -c, --command CMD      run CMD, trace only the I/O its process tree\n"
"                         starts, print the histograms when it exits\n"
"  -b, --buffer-kb KB     per-CPU ring size\n"
"  -j, --json             JSON Lines: one object per output\n"
"  -v, --verbose          say which block events are used\n"
"  -h, --help             this help\n"
"  interval [count]       print every interval seconds, count times\n"
"\n"
"EXAMPLES:\n"
"  bitesize               # block I/O size histograms until Ctrl-C\n"
"  bitesize -T 1 3        # print 1 second summaries with timestamps, 3 times\n"
"  bitesize -n fio        # only the I/O of processes named fio\n"
"  bitesize -d sdc        # trace sdc only\n"
"  bitesize -j --duration 5  # one JSON summary after 5 seconds\n"
"  bitesize -c 'tar xf src.tar'  # the I/O sizes of one command\n";

enum { OPT_DURATION = 256 };	/* -d is the disk: the duration is long only */

static const struct tool_option options[] = {
	{ 'd', "disk", required_argument, NULL },
	{ OPT_DURATION, "duration", required_argument, NULL },
	{ 'b', "buffer-kb", required_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct bitesize */

	switch (key) {
	case 'd': o->disk = arg; break;
	case OPT_DURATION:
		t->opt.duration = opt_num("--duration", arg, 1, 86400L * 365);
		break;
	case 'b': o->buffer_kb = opt_num("-b", arg, 4, 1 << 22); break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	opt_interval(argc, argv, optind, &o->iv);
	o->dev = -1;
	if (o->disk) {
		char err[256];

		o->dev = bio_dev_parse(o->disk, err, sizeof(err));
		if (o->dev < 0)
			usage_error("%s", err);
	}
	tool_check_comm(t->opt.name);
	o->comm = t->opt.name;
	o->json = t->opt.json;
	o->timestamp = t->opt.timestamp;
	t->interval_secs = o->iv.secs;
	t->count = o->iv.count;
	return 0;
}

struct bitesize {
	struct opts o;
	struct session *s;
	struct bioreqs *reqs;
	struct bio_hists procs;		/* by the starting task's comm */
	bool printed;			/* an interval was printed */
};

static void on_req(const struct bioreq *r, void *arg)
{
	struct bitesize *bz = arg;

	if (bz->o.comm && strcmp(r->comm, bz->o.comm))
		return;
	hist_log2_add(bio_hists_get(&bz->procs, r->comm), r->bytes / 1024);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct bitesize *bz = arg;

	bioreqs_event(bz->reqs, ev);
}

static void print_json(struct bitesize *bz, const char *now)
{
	struct json j;
	size_t i;

	json_begin(&j, stdout);
	json_str(&j, "time", now);
	json_str(&j, "unit", "Kbytes");
	json_arr_open(&j, "processes");
	for (i = 0; i < bz->procs.n; i++) {
		const struct hist_log2 *h = &bz->procs.v[i].h;

		json_obj_open(&j, NULL);
		json_str(&j, "comm", bz->procs.v[i].name);
		json_uint(&j, "count", h->count);
		json_uint(&j, "total_kbytes", h->sum);
		hist_log2_json(&j, "hist", h);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	session_json_lost(bz->s, &j);
	json_end(&j);
}

static void print_interval(struct tool *t)
{
	struct bitesize *bz = t->ctx;
	time_t tt = time(NULL);
	char now[16];
	size_t i;

	strftime(now, sizeof(now), "%H:%M:%S", localtime(&tt));
	bio_hists_sort(&bz->procs);
	if (bz->o.json) {
		print_json(bz, now);
	} else {
		if (bz->o.timestamp)
			printf("\n%-8s\n", now);
		for (i = 0; i < bz->procs.n; i++) {
			printf("\nProcess Name = %s\n", esc_str(bz->procs.v[i].name));
			hist_log2_print(stdout, &bz->procs.v[i].h, "Kbytes");
		}
	}
	tool_flush();
	bio_hists_clear(&bz->procs);
	bz->printed = true;
}

static void print_final(struct tool *t)
{
	struct bitesize *bz = t->ctx;

	/* after intervals, a last one only when it has I/O */
	if (!bz->printed || bz->procs.n)
		print_interval(t);
	session_report_lost(bz->s);
}

static int setup(struct tool *t, struct loop *l)
{
	struct bitesize *bz = t->ctx;
	struct session_opts so = {
		.ordered = true, .keep_self = true,
		.buffer_kb = (unsigned long)bz->o.buffer_kb,
	};
	char err[512];

	bz->s = session_new(&so);
	bz->reqs = bioreqs_new(on_req, bz);
	if (session_open(bz->s) < 0) {
		pr_err("%s", session_error(bz->s));
		return -1;
	}
	if (bioreqs_add(bz->reqs, bz->s, bz->o.dev, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (t->opt.command &&
	    bioreqs_tree(bz->reqs, bz->s, t->opt.pid, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (session_start(bz->s, l, on_event, bz) < 0) {
		pr_err("%s", session_error(bz->s));
		return -1;
	}
	pr_info("%s; sizes at block:block_rq_issue, counted at completion for the task of block:%s, in instance %s",
		bioreqs_events(bz->reqs), bioreqs_start_event(bz->reqs),
		session_name(bz->s));
	if (!bz->o.json)
		fprintf(stderr, "Tracing block I/O... Hit Ctrl-C to end.\n");
	return 0;
}

static void teardown(struct tool *t)
{
	struct bitesize *bz = t->ctx;

	session_tool_teardown(t);
	bioreqs_free(bz->reqs);
	bz->reqs = NULL;
	bio_hists_release(&bz->procs);
}

int main(int argc, char **argv)
{
	struct bitesize bz = { 0 };
	struct tool t = {
		.ctx = &bz,
		.usage = usage,
		.shared = TOPT_TIMESTAMP | TOPT_NAME | TOPT_JSON | TOPT_VERBOSE |
			  TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.interval = print_interval,
		.summary = print_final,
		.teardown = teardown,
		.summarises = true,
		.session = &bz.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
