// SPDX-License-Identifier: GPL-2.0
/*
 * fileslower: synchronous file reads and writes slower than a threshold
 * (bcc's fileslower), timed by kprobes on vfs_read() and vfs_write()
 * (tool/fsslower.c): every file system, regular files only unless -a.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/fsslower.h"
#include "tool/tool.h"
#include "tracefs/session.h"

static const char usage[] =
"Trace slow synchronous file reads and writes (bcc's fileslower).\n"
"\n"
"USAGE: fileslower [-hjva] [-p PID | -c CMD] [-d SECS] [min_ms]\n"
"\n"
"  -a, --all-files      include non-regular file types (sockets, FIFOs...)\n"
"  -p, --pid PID        trace this process only\n"
"  -c, --command CMD    run CMD and trace its process tree only\n"
"  -d, --duration SECS  trace for SECS seconds, then exit\n"
"  -j, --json           JSON Lines: one object per operation\n"
"  -v, --verbose        list the probes and their fetch arguments\n"
"  -h, --help           this help\n"
"  min_ms               minimum latency in milliseconds (default 10; 0:\n"
"                       every read and write)\n"
"\n"
"EXAMPLES:\n"
"  fileslower             # trace sync file I/O slower than 10 ms (default)\n"
"  fileslower 1           # trace sync file I/O slower than 1 ms\n"
"  fileslower -p 185      # trace PID 185 only\n"
"  fileslower -a 0        # every read and write, sockets and pipes too\n"
"  fileslower -j -c 'sort big.txt' 0  # one command's reads and writes\n";

enum { OPT_ALL = 'a' };

static const char *const file_name[] = { "f_path", "dentry", "d_name", "name", NULL };
static const char *const file_mode[] = { "f_inode", "i_mode", NULL };

static const struct fsslower_op ops[] = {
	{ 'R', "vfs_read", "file", file_name, NULL, file_mode, "count" },
	{ 'W', "vfs_write", "file", file_name, NULL, file_mode, "count" },
};

static const struct tool_option options[] = {
	{ 'a', "all-files", no_argument, NULL },
	{ 0 },
};

struct fileslower {
	struct fsslower_cmd c;	/* first: the ctx of fsslower's callbacks */
	bool all;
	struct timespec start;
};

static void option(struct tool *t, int key, const char *arg)
{
	struct fileslower *x = t->ctx;

	(void)arg;
	if (key == 'a')
		x->all = true;
}

static void on_op(const struct fsslower_event *e, void *arg)
{
	struct fileslower *x = arg;
	uint64_t t0 = (uint64_t)x->start.tv_sec * 1000000000ULL + (uint64_t)x->start.tv_nsec;
	double secs = e->ts > t0 ? (double)(e->ts - t0) / 1e9 : 0;
	char dir[2] = { e->type, 0 };
	struct json j;

	if (!x->all && !S_ISREG(e->mode))
		return;
	if (x->c.json) {
		json_begin(&j, stdout);
		json_double(&j, "time_s", secs);
		json_str(&j, "comm", task_cache_comm(e->tid));
		json_int(&j, "tid", e->tid);
		json_str(&j, "dir", dir);
		json_int(&j, "bytes", e->bytes);
		json_uint(&j, "lat_us", e->lat_ns / 1000);
		json_str(&j, "file", e->file);
		json_end(&j);
	} else {
		printf("%-8.3f %-14.14s %-6d %1s %-7lld %7.2f %s\n", secs,
		       esc_str(task_cache_comm(e->tid)), (int)e->tid, dir,
		       (long long)e->bytes, e->lat_ns / 1e6, esc_str(e->file));
	}
	tool_flush();
}

static int setup(struct tool *t, struct loop *l)
{
	struct fileslower *x = t->ctx;

	if (fsslower_setup(t, l, NULL, ops, sizeof(ops) / sizeof(ops[0]), on_op) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &x->start);
	if (!x->c.json) {
		printf("Tracing sync read/writes slower than %ld ms\n", x->c.min_ms);
		printf("%-8s %-14s %-6s %1s %-7s %7s %s\n", "TIME(s)", "COMM", "TID",
		       "D", "BYTES", "LAT(ms)", "FILENAME");
	}
	tool_flush();
	return 0;
}

int main(int argc, char **argv)
{
	struct fileslower x = { 0 };
	struct tool t = {
		.ctx = &x,
		.usage = usage,
		.shared = TOPT_PID | TOPT_JSON | TOPT_VERBOSE | TOPT_DURATION | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = fsslower_check,
		.setup = setup,
		.teardown = fsslower_teardown,
		.session = &x.c.s,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
