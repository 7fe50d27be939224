// SPDX-License-Identifier: GPL-2.0
/*
 * opensnoop: trace open(), openat(), openat2() and creat() with their
 * paths and results, in bcc's columns.  How the path is obtained depends
 * on the kernel (tool/opens.h): kprobes where there are any, else
 * uprobes on the C library with the syscall tracepoints; -v says which.
 * A path not captured at the call is marked (FIELDS in the usage), and
 * every text column is escaped (common/escape.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "tool/tool.h"
#include "tool/opens.h"
#include "tracefs/session.h"

struct opts {
	bool json, seconds, uid, failed;
	pid_t pid, tid;
	const char *name;
	long duration;
};

static const char usage[] =
"Trace open() family syscalls, with the path, file descriptor and error.\n"
"\n"
"USAGE: opensnoop [-hjTUxv] [-p PID] [-t TID] [-n NAME] [-d SECS] [-c CMD]\n"
"\n"
"  -T, --timestamp      TIME(s) column: seconds since tracing began\n"
"  -U, --print-uid      UID column\n"
"  -x, --failed         only failed opens\n"
"  -p, --pid PID        only this process (ends when it does)\n"
"  -t, --tid TID        only this thread (a TID column instead of PID)\n"
"  -n, --name NAME      only processes whose name contains NAME\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -c, --command CMD    run CMD, trace only its process tree, end when it\n"
"                       exits, with its exit status\n"
"  -j, --json           JSON Lines: one object per open\n"
"  -v, --verbose        say how paths are read (kprobes or uprobes)\n"
"  -h, --help           this help\n"
"\n"
"FIELDS:\n"
"  COMM   the task's name at the call (not at print time)\n"
"  PATH   the path as the call passed it, fetched at the call\n"
"  ?PATH  not captured at the call: read from the process's memory\n"
"         afterwards, so it may differ from what was opened (a static\n"
"         program, the dynamic loader's own opens, an inline syscall,\n"
"         where there are no kprobes)\n"
"  <0x..> the path's address: it could not be read at all (the process\n"
"         was gone)\n"
"  Control bytes and invalid UTF-8 in COMM and PATH print as \\n, \\t,\n"
"  \\e, \\xNN (a backslash as \\\\, a leading ? or < of a real path as\n"
"  \\x3f, \\x3c); -j keeps the exact bytes and says where the path came\n"
"  from (\"source\": kprobe, uprobe, memory, none)\n"
"\n"
"EXAMPLES:\n"
"  opensnoop            # trace all opens\n"
"  opensnoop -T         # include a timestamp column\n"
"  opensnoop -U         # include a UID column\n"
"  opensnoop -x         # only failed opens\n"
"  opensnoop -p 181     # only PID 181\n"
"  opensnoop -t 123     # only thread 123\n"
"  opensnoop -n main    # only processes whose name contains \"main\"\n"
"  opensnoop -d 10      # trace for 10 seconds\n"
"  opensnoop -c 'ls /'  # the opens of one command\n"
"  opensnoop -j | jq .  # JSON Lines\n";

static const struct tool_option options[] = {
	{ 'U', "print-uid", no_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct opensnoop */

	if (key == 'U')
		o->uid = true;
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;
	const char *name = t->opt.name;

	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	tool_check_comm(name);
	o->name = name;
	o->seconds = t->opt.timestamp;
	o->failed = t->opt.failed;
	o->json = t->opt.json;
	o->duration = t->opt.duration;
	o->pid = t->opt.pid;
	o->tid = t->opt.tid;
	return 0;
}

struct opensnoop {
	struct opts o;
	struct session *s;
	struct opens *op;
	uint64_t start_ns;
	struct hmap *uids;		/* tid -> struct uid */
};

struct uid {
	uint64_t ts;			/* of the record it was read for */
	long uid;
};

/*
 * The real UID of @tid from /proc (no probe records it), read again when
 * the last read is a second older than the record at @ts; -1 when the
 * task is gone.
 */
static long uid_of(struct opensnoop *os, pid_t tid, uint64_t ts)
{
	struct uid *u = hmap_get(os->uids, (uint64_t)tid, true);

	if (u->ts && ts - u->ts < 1000000000ULL && u->uid >= 0)
		return u->uid;
	u->ts = ts;
	u->uid = task_uid(tid);
	return u->uid;
}

static void emit_json(struct opensnoop *os, const struct opens_event *oe,
		      pid_t pid, const char *comm, long uid)
{
	struct json j;
	int err = oe->ret < 0 ? (int)-oe->ret : 0;

	json_begin(&j, stdout);
	json_uint(&j, "ts_ns", time_to_real(oe->ts));
	json_double(&j, "elapsed_s", (double)(int64_t)(oe->ts - os->start_ns) / 1e9);
	json_int(&j, "pid", pid);
	json_int(&j, "tid", oe->tid);
	if (uid >= 0)
		json_int(&j, "uid", uid);
	else
		json_null(&j, "uid");
	json_str(&j, "comm", comm);
	json_int(&j, "fd", oe->ret >= 0 ? oe->ret : -1);
	json_int(&j, "err", err);
	json_str(&j, "errname", err ? errno_name(err) : NULL);
	json_str(&j, "path", oe->path);
	json_uint(&j, "addr", oe->addr);
	if (oe->flags >= 0)
		json_int(&j, "flags", oe->flags);
	else
		json_null(&j, "flags");
	json_str(&j, "source", opens_source_name(oe->source));
	json_end(&j);
}

/*
 * The PATH column, escaped: "?PATH" when it was read from the process's
 * memory after the call (it may have changed), "<0xADDR>" when it could
 * not be read at all; a real path's own leading '?' or '<' as \xNN.
 */
static void print_path(const struct opens_event *oe)
{
	const char *p = oe->path;

	if (!p) {
		printf("<0x%" PRIx64 ">\n", oe->addr);
		return;
	}
	if (oe->source == OPENS_PROC)
		putchar('?');
	if (*p == '?' || *p == '<')
		printf("\\x%02x", (unsigned char)*p++);
	fputs(esc_str(p), stdout);
	putchar('\n');
}

static void on_open(const struct opens_event *oe, void *arg)
{
	struct opensnoop *os = arg;
	pid_t pid = os->o.pid ? os->o.pid : task_cache_tgid(oe->tid);
	const char *comm = oe->comm;
	long uid = os->o.uid || os->o.json ? uid_of(os, oe->tid, oe->ts) : -1;

	if (pid <= 0)
		pid = oe->tid;
	if (os->o.json) {
		emit_json(os, oe, pid, comm, uid);
		return;
	}
	if (os->o.seconds)
		printf("%-14.9f", (double)(int64_t)(oe->ts - os->start_ns) / 1e9);
	if (os->o.uid) {
		if (uid >= 0)
			printf("%-6ld", uid);
		else
			printf("%-6s", "-");
	}
	printf("%-6d %-16s %4ld %3ld ", os->o.tid ? oe->tid : pid, esc_str(comm),
	       oe->ret >= 0 ? oe->ret : -1L, oe->ret < 0 ? -oe->ret : 0L);
	print_path(oe);
}

static int setup(struct tool *t, struct loop *l)
{
	struct opensnoop *os = t->ctx;
	struct session_opts so = {
		.ordered = true, .pid = t->opt.pid, .tid = t->opt.tid,
		.tree = t->opt.tree, .batch_end = tool_flush_batch,
	};
	struct opens_opts oo = {
		/* -c's command is not running yet: the system's C library */
		.pid = t->opt.tree ? 0 : t->opt.pid ? t->opt.pid : t->opt.tid,
		.failed = os->o.failed,
		.comm = os->o.name,
	};
	char err[512];

	os->uids = hmap_new(sizeof(struct uid));
	os->s = session_new(&so);
	if (session_open(os->s) < 0) {
		pr_err("%s", session_error(os->s));
		return -1;
	}
	os->op = opens_new(os->s, &oo, on_open, os);
	if (opens_add(os->op, err, sizeof(err)) < 0) {
		pr_err("cannot trace opens: %s", err);
		return -1;
	}
	pr_info("paths from %s", opens_mechanism(os->op));
	os->start_ns = time_mono_ns();
	if (session_start(os->s, l, opens_record, os->op) < 0) {
		pr_err("%s", session_error(os->s));
		return -1;
	}
	opens_started(os->op);
	if (!os->o.json) {
		if (os->o.seconds)
			printf("%-14s", "TIME(s)");
		if (os->o.uid)
			printf("%-6s", "UID");
		printf("%-6s %-16s %4s %3s %s\n", os->o.tid ? "TID" : "PID", "COMM",
		       "FD", "ERR", "PATH");
		tool_flush();
	}
	return 0;
}

static void teardown(struct tool *t)
{
	struct opensnoop *os = t->ctx;

	session_tool_teardown(t);
	opens_free(os->op);
	os->op = NULL;
	hmap_free(os->uids);
	os->uids = NULL;
}

int main(int argc, char **argv)
{
	struct opensnoop os = { 0 };
	struct tool t = {
		.ctx = &os,
		.usage = usage,
		.shared = TOPT_TIMESTAMP | TOPT_FAILED | TOPT_PID | TOPT_TID |
			  TOPT_NAME | TOPT_DURATION | TOPT_JSON | TOPT_VERBOSE |
			  TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
		.teardown = teardown,
		.session = &os.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
