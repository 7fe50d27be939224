// SPDX-License-Identifier: GPL-2.0
/*
 * biolatency: block I/O latency as a power-of-two histogram (bcc's
 * biolatency): from issue to the driver to completion, or with -Q from the
 * request's start (queued in the OS) to completion; one histogram per disk
 * (-D) or per set of request flags (-F).
 *
 * The requests are followed through the block tracepoints by
 * tool/bioreq.c and aggregated here; -d puts a filter on the device into
 * the kernel.
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
	bool json, timestamp, queued, msecs, disks, flags, extension;
	const char *disk;
	int64_t dev;		/* -d's, -1: every disk */
	long buffer_kb;
	struct interval iv;
};

static const char usage[] =
"Summarize block device I/O latency as a histogram.\n"
"\n"
"USAGE: biolatency [-hjTQmDFev] [-d DISK] [-c CMD] [--duration SECS] [-b KB]\n"
"                  [interval [count]]\n"
"\n"
"  -T, --timestamp        include a timestamp on each output\n"
"  -Q, --queued           include OS queued time in I/O time\n"
"  -m, --milliseconds     millisecond histogram (default microseconds)\n"
"  -D, --disks            print a histogram per disk device\n"
"  -F, --flags            print a histogram per set of I/O flags\n"
"  -e, --extension        summarize average/total value\n"
"  -d, --disk DISK        trace this disk only (sda, /dev/sda or 8:0;\n"
"                         a kernel filter)\n"
"      --duration SECS    trace for SECS seconds, then print and exit\n"
"  -c, --command CMD      run CMD, trace only the I/O its process tree\n"
"                         starts, print the histogram when it exits\n"
"  -b, --buffer-kb KB     per-CPU ring size\n"
"  -j, --json             JSON Lines: one object per output\n"
"  -v, --verbose          say which block events are used\n"
"  -h, --help             this help\n"
"  interval [count]       print every interval seconds, count times\n"
"\n"
"EXAMPLES:\n"
"  biolatency             # summarize block I/O latency as a histogram\n"
"  biolatency 1 10        # print 1 second summaries, 10 times\n"
"  biolatency -mT 1       # 1s summaries, milliseconds, and timestamps\n"
"  biolatency -Q          # include OS queued time in I/O time\n"
"  biolatency -D          # show each disk device separately\n"
"  biolatency -F          # show I/O flags separately\n"
"  biolatency -j          # JSON Lines\n"
"  biolatency -e          # show extension summary (total, average)\n"
"  biolatency -d sdc      # trace sdc only\n"
"  biolatency -c 'fio job.fio'  # the latency of one command's I/O\n";

enum { OPT_DURATION = 256 };	/* -d is bcc's disk: the duration is long only */

static const struct tool_option options[] = {
	{ 'Q', "queued", no_argument, NULL },
	{ 'm', "milliseconds", no_argument, NULL },
	{ 'D', "disks", no_argument, NULL },
	{ 'F', "flags", no_argument, NULL },
	{ 'e', "extension", no_argument, NULL },
	{ 'd', "disk", required_argument, NULL },
	{ OPT_DURATION, "duration", required_argument, NULL },
	{ 'b', "buffer-kb", required_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct biolat */

	switch (key) {
	case 'Q': o->queued = true; break;
	case 'm': o->msecs = true; break;
	case 'D': o->disks = true; break;
	case 'F': o->flags = true; break;
	case 'e': o->extension = true; break;
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

	if (o->disks && o->flags)
		usage_error("-D and -F cannot be used together");
	opt_interval(argc, argv, optind, &o->iv);
	o->dev = -1;
	if (o->disk) {
		char err[256];

		o->dev = bio_dev_parse(o->disk, err, sizeof(err));
		if (o->dev < 0)
			usage_error("%s", err);
	}
	o->json = t->opt.json;
	o->timestamp = t->opt.timestamp;
	t->interval_secs = o->iv.secs;
	t->count = o->iv.count;
	return 0;
}

struct biolat {
	struct opts o;
	struct session *s;
	struct bioreqs *reqs;
	struct hist_log2 all;		/* every request */
	struct bio_hists groups;	/* -D, -F */
	uint64_t div;			/* ns per unit */
	const char *unit;
	bool printed;			/* an interval was printed */
};

static void on_req(const struct bioreq *r, void *arg)
{
	struct biolat *bl = arg;
	uint64_t from = bl->o.queued ? r->start_ts : r->issue_ts;
	uint64_t v;
	char name[128];

	if (!from || r->done_ts < from)
		return;		/* -Q: its start was not seen */
	v = (r->done_ts - from) / bl->div;
	hist_log2_add(&bl->all, v);
	if (bl->o.disks)
		hist_log2_add(bio_hists_get(&bl->groups, bioreqs_dev_name(bl->reqs, r->dev)), v);
	else if (bl->o.flags)
		hist_log2_add(bio_hists_get(&bl->groups,
					    bio_flags_name(r->rwbs, name, sizeof(name))), v);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct biolat *bl = arg;

	bioreqs_event(bl->reqs, ev);
}

static void print_text(struct biolat *bl, const char *now)
{
	const char *section = bl->o.disks ? "disk" : "flags";
	size_t i;

	putchar('\n');
	if (bl->o.timestamp)
		printf("%-8s\n", now);
	if (bl->o.disks || bl->o.flags) {
		for (i = 0; i < bl->groups.n; i++) {
			printf("\n%s = %s\n", section, esc_str(bl->groups.v[i].name));
			hist_log2_print(stdout, &bl->groups.v[i].h, bl->unit);
		}
	} else {
		hist_log2_print(stdout, &bl->all, bl->unit);
	}
	if (bl->o.extension && bl->all.count)
		printf("\navg = %llu %s, total: %llu %s, count: %llu\n\n",
		       (unsigned long long)(bl->all.sum / bl->all.count), bl->unit,
		       (unsigned long long)bl->all.sum, bl->unit,
		       (unsigned long long)bl->all.count);
}

static void json_hist(struct json *j, const struct hist_log2 *h)
{
	json_uint(j, "count", h->count);
	json_uint(j, "total", h->sum);
	hist_log2_json(j, "hist", h);
}

static void print_json(struct biolat *bl, const char *now)
{
	struct json j;
	size_t i;

	json_begin(&j, stdout);
	json_str(&j, "time", now);
	json_str(&j, "unit", bl->unit);
	json_bool(&j, "queued", bl->o.queued);
	json_hist(&j, &bl->all);
	if (bl->o.disks || bl->o.flags) {
		json_arr_open(&j, bl->o.disks ? "disks" : "flags");
		for (i = 0; i < bl->groups.n; i++) {
			json_obj_open(&j, NULL);
			json_str(&j, bl->o.disks ? "disk" : "flags", bl->groups.v[i].name);
			json_hist(&j, &bl->groups.v[i].h);
			json_obj_close(&j);
		}
		json_arr_close(&j);
	}
	session_json_lost(bl->s, &j);
	json_end(&j);
}

static void print_interval(struct tool *t)
{
	struct biolat *bl = t->ctx;
	time_t tt = time(NULL);
	char now[16];

	strftime(now, sizeof(now), "%H:%M:%S", localtime(&tt));
	bio_hists_sort(&bl->groups);
	if (bl->o.json)
		print_json(bl, now);
	else
		print_text(bl, now);
	tool_flush();
	memset(&bl->all, 0, sizeof(bl->all));
	bio_hists_clear(&bl->groups);
	bl->printed = true;
}

static void print_final(struct tool *t)
{
	struct biolat *bl = t->ctx;

	/* after intervals, a last one only when it has I/O */
	if (!bl->printed || bl->all.count)
		print_interval(t);
	session_report_lost(bl->s);
}

static int setup(struct tool *t, struct loop *l)
{
	struct biolat *bl = t->ctx;
	struct session_opts so = {
		.ordered = true, .keep_self = true,
		.buffer_kb = (unsigned long)bl->o.buffer_kb,
	};
	char err[512];

	bl->div = bl->o.msecs ? 1000000 : 1000;
	bl->unit = bl->o.msecs ? "msecs" : "usecs";
	bl->s = session_new(&so);
	bl->reqs = bioreqs_new(on_req, bl);
	if (session_open(bl->s) < 0) {
		pr_err("%s", session_error(bl->s));
		return -1;
	}
	if (bioreqs_add(bl->reqs, bl->s, bl->o.dev, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (t->opt.command &&
	    bioreqs_tree(bl->reqs, bl->s, t->opt.pid, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (session_start(bl->s, l, on_event, bl) < 0) {
		pr_err("%s", session_error(bl->s));
		return -1;
	}
	pr_info("%s; time from %s to block:block_rq_complete, paired by device, sector and operation in instance %s",
		bioreqs_events(bl->reqs),
		bl->o.queued ? bioreqs_start_event(bl->reqs) : "block_rq_issue",
		session_name(bl->s));
	if (!bl->o.json)
		fprintf(stderr, "Tracing block device I/O... Hit Ctrl-C to end.\n");
	return 0;
}

static void teardown(struct tool *t)
{
	struct biolat *bl = t->ctx;

	session_tool_teardown(t);
	bioreqs_free(bl->reqs);
	bl->reqs = NULL;
	bio_hists_release(&bl->groups);
}

int main(int argc, char **argv)
{
	struct biolat bl = { 0 };
	struct tool t = {
		.ctx = &bl,
		.usage = usage,
		.shared = TOPT_TIMESTAMP | TOPT_JSON | TOPT_VERBOSE |
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
		.session = &bl.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
