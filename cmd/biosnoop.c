// SPDX-License-Identifier: GPL-2.0
/*
 * biosnoop: a line per block I/O request as it completes, with the process
 * that asked for it, the disk, the sector, the size and the latency from
 * issue to completion (bcc's biosnoop).
 *
 * The requests are followed through the block tracepoints by
 * tool/bioreq.c, whose start event names the submitting task: the PID and
 * COMM of a line are that task's, not those of the worker or interrupt
 * that issued or completed the request.  -d puts a filter on the device
 * into the kernel, so other disks' I/O is not even recorded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "tool/bioreq.h"
#include "tool/tool.h"
#include "tracefs/session.h"

struct opts {
	bool json, queued;
	const char *disk;
	int64_t dev;		/* -d's, -1: every disk */
	long buffer_kb;
};

static const char usage[] =
"Trace block device I/O: a line per request, with the process that issued it.\n"
"\n"
"USAGE: biosnoop [-hjQv] [-d DISK] [-c CMD] [--duration SECS] [-b KB]\n"
"\n"
"  -Q, --queue            include the OS queued time (QUE(ms) column)\n"
"  -d, --disk DISK        trace this disk only (sda, /dev/sda or 8:0;\n"
"                         a kernel filter)\n"
"      --duration SECS    trace for SECS seconds, then exit\n"
"  -c, --command CMD      run CMD, trace only the I/O its process tree\n"
"                         starts, exit with its status\n"
"  -b, --buffer-kb KB     per-CPU ring size\n"
"  -j, --json             JSON Lines: one object per request\n"
"  -v, --verbose          say which block events are used\n"
"  -h, --help             this help\n"
"\n"
"EXAMPLES:\n"
"  biosnoop               # trace all block I/O\n"
"  biosnoop -Q            # include OS queued time\n"
"  biosnoop -d sdc        # trace sdc only\n"
"  biosnoop -j --duration 10  # JSON Lines for 10 seconds\n"
"  biosnoop -c 'dd if=f of=/dev/sdc oflag=direct'  # the I/O of one command\n";

enum { OPT_DURATION = 256 };	/* -d is bcc's disk: the duration is long only */

static const struct tool_option options[] = {
	{ 'Q', "queue", no_argument, NULL },
	{ 'd', "disk", required_argument, NULL },
	{ OPT_DURATION, "duration", required_argument, NULL },
	{ 'b', "buffer-kb", required_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct biosnoop */

	switch (key) {
	case 'Q': o->queued = true; break;
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

	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	o->dev = -1;
	if (o->disk) {
		char err[256];

		o->dev = bio_dev_parse(o->disk, err, sizeof(err));
		if (o->dev < 0)
			usage_error("%s", err);
	}
	o->json = t->opt.json;
	return 0;
}

struct biosnoop {
	struct opts o;
	struct session *s;
	struct bioreqs *reqs;
	uint64_t first_ts;
};

static void on_req(const struct bioreq *r, void *arg)
{
	struct biosnoop *bs = arg;
	pid_t tgid = r->tid ? task_cache_tgid(r->tid) : 0;
	pid_t pid = tgid > 0 ? tgid : r->tid;
	const char *disk = bioreqs_dev_name(bs->reqs, r->dev);
	uint64_t lat = r->done_ts - r->issue_ts;
	uint64_t que = r->start_ts && r->issue_ts > r->start_ts ? r->issue_ts - r->start_ts : 0;
	char rw[2] = { bio_rw(r->rwbs), 0 };

	double secs;

	if (!bs->first_ts)
		bs->first_ts = r->done_ts;
	/* signed: a completion read before its issue is reported late */
	secs = (double)(int64_t)(r->done_ts - bs->first_ts) / 1e9;
	if (bs->o.json) {
		struct json j;

		json_begin(&j, stdout);
		json_double(&j, "time_s", secs);
		json_uint(&j, "ts_ns", time_to_real(r->done_ts));
		json_str(&j, "comm", r->comm);
		json_int(&j, "pid", pid);
		json_int(&j, "tid", r->tid);
		json_str(&j, "disk", disk);
		json_uint(&j, "dev", r->dev);
		json_str(&j, "t", rw);
		json_str(&j, "rwbs", r->rwbs);
		json_uint(&j, "sector", r->sector);
		json_uint(&j, "bytes", r->bytes);
		if (bs->o.queued) {
			if (r->start_ts)
				json_uint(&j, "que_ns", que);
			else
				json_null(&j, "que_ns");
		}
		json_uint(&j, "lat_ns", lat);
		json_int(&j, "error", r->error);
		json_end(&j);
		return;
	}
	printf("%-11.6f %-14.14s %-7d %-9s %-1s %-10llu %-7u ",
	       secs, esc_str(r->comm), pid,
	       esc_str(disk), rw, (unsigned long long)r->sector, r->bytes);
	if (bs->o.queued)
		printf("%7.2f ", (double)que / 1e6);
	printf("%7.2f\n", (double)lat / 1e6);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct biosnoop *bs = arg;

	bioreqs_event(bs->reqs, ev);
}

static int setup(struct tool *t, struct loop *l)
{
	struct biosnoop *bs = t->ctx;
	struct session_opts so = {
		.ordered = true, .keep_self = true,
		.buffer_kb = (unsigned long)bs->o.buffer_kb,
		.batch_end = tool_flush_batch,
	};
	char err[512];

	bs->s = session_new(&so);
	bs->reqs = bioreqs_new(on_req, bs);
	if (session_open(bs->s) < 0) {
		pr_err("%s", session_error(bs->s));
		return -1;
	}
	if (bioreqs_add(bs->reqs, bs->s, bs->o.dev, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (t->opt.command &&
	    bioreqs_tree(bs->reqs, bs->s, t->opt.pid, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (session_start(bs->s, l, on_event, bs) < 0) {
		pr_err("%s", session_error(bs->s));
		return -1;
	}
	pr_info("%s; paired by device, sector and operation in instance %s",
		bioreqs_events(bs->reqs), session_name(bs->s));
	if (!bs->o.json) {
		printf("%-11s %-14s %-7s %-9s %-1s %-10s %-7s ", "TIME(s)", "COMM",
		       "PID", "DISK", "T", "SECTOR", "BYTES");
		if (bs->o.queued)
			printf("%7s ", "QUE(ms)");
		printf("%7s\n", "LAT(ms)");
		tool_flush();
	}
	return 0;
}

static void teardown(struct tool *t)
{
	struct biosnoop *bs = t->ctx;

	session_tool_teardown(t);
	bioreqs_free(bs->reqs);
	bs->reqs = NULL;
}

int main(int argc, char **argv)
{
	struct biosnoop bs = { 0 };
	struct tool t = {
		.ctx = &bs,
		.usage = usage,
		.shared = TOPT_JSON | TOPT_VERBOSE |
			  TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
		.teardown = teardown,
		.session = &bs.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
