// SPDX-License-Identifier: GPL-2.0
/*
 * ext4slower: ext4 reads, writes, opens and fsyncs slower than a threshold
 * (bcc's ext4slower), timed by kprobes on ext4's file operations
 * (tool/fsslower.c).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/fsslower.h"
#include "tool/tool.h"
#include "tracefs/session.h"

static const char usage[] =
"Trace common ext4 file operations slower than a threshold (bcc's ext4slower).\n"
"\n"
"USAGE: ext4slower [-hjv] [-p PID | -c CMD] [-d SECS] [min_ms]\n"
"\n"
"  -p, --pid PID        trace this process only\n"
"  -c, --command CMD    run CMD and trace its process tree only\n"
"  -d, --duration SECS  trace for SECS seconds, then exit\n"
"  -j, --json           JSON Lines: one object per operation\n"
"  -v, --verbose        list the probes and their fetch arguments\n"
"  -h, --help           this help\n"
"  min_ms               minimum latency in milliseconds (default 10; 0:\n"
"                       every operation)\n"
"\n"
"EXAMPLES:\n"
"  ext4slower             # trace operations slower than 10 ms (default)\n"
"  ext4slower 1           # trace operations slower than 1 ms\n"
"  ext4slower -j 1        # ... as JSON Lines\n"
"  ext4slower 0           # trace all operations (warning: verbose)\n"
"  ext4slower -p 185      # trace PID 185 only\n"
"  ext4slower -c 'cp -r /src /dst' 0  # every operation of one command\n";

/* kiocb's file and position; a file's name and its inode's mode */
static const char *const iocb_name[] = { "ki_filp", "f_path", "dentry", "d_name", "name", NULL };
static const char *const iocb_pos[] = { "ki_pos", NULL };
static const char *const file_name[] = { "f_path", "dentry", "d_name", "name", NULL };

static const struct fsslower_op ops[] = {
	{ 'R', "ext4_file_read_iter", "iocb", iocb_name, iocb_pos, NULL, NULL },
	{ 'W', "ext4_file_write_iter", "iocb", iocb_name, iocb_pos, NULL, NULL },
	{ 'O', "ext4_file_open", "filp", file_name, NULL, NULL, NULL },
	{ 'S', "ext4_sync_file", "file", file_name, NULL, NULL, NULL },
};

struct ext4slower {
	struct fsslower_cmd c;	/* first: the ctx of fsslower's callbacks */
};

static void on_op(const struct fsslower_event *e, void *arg)
{
	struct ext4slower *x = arg;
	time_t now = time(NULL);
	pid_t pid = task_cache_tgid(e->tid);
	char hms[16], type[2] = { e->type, 0 };
	struct json j;

	if (pid <= 0)
		pid = e->tid;
	strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&now));
	if (x->c.json) {
		json_begin(&j, stdout);
		json_str(&j, "time", hms);
		json_str(&j, "comm", task_cache_comm(e->tid));
		json_int(&j, "pid", pid);
		json_int(&j, "tid", e->tid);
		json_str(&j, "type", type);
		json_int(&j, "bytes", e->bytes);
		json_int(&j, "offset", e->pos);
		json_uint(&j, "lat_us", e->lat_ns / 1000);
		json_str(&j, "file", e->file);
		json_end(&j);
	} else {
		printf("%-8s %-14.14s %-7d %1s %-7lld %-8lld %7.2f %s\n", hms,
		       esc_str(task_cache_comm(e->tid)), (int)pid, type,
		       (long long)e->bytes, (long long)(e->pos / 1024),
		       e->lat_ns / 1e6, esc_str(e->file));
	}
	tool_flush();
}

static int setup(struct tool *t, struct loop *l)
{
	struct ext4slower *x = t->ctx;
	/* ext4's own BTF when it is a module, else vmlinux's */
	const char *module = access("/sys/kernel/btf/ext4", R_OK) ? NULL : "ext4";

	if (fsslower_setup(t, l, module, ops, sizeof(ops) / sizeof(ops[0]), on_op) < 0)
		return -1;
	if (!x->c.json) {
		if (x->c.min_ms)
			printf("Tracing ext4 operations slower than %ld ms\n", x->c.min_ms);
		else
			printf("Tracing ext4 operations\n");
		printf("%-8s %-14s %-7s %1s %-7s %-8s %7s %s\n", "TIME", "COMM", "PID",
		       "T", "BYTES", "OFF_KB", "LAT(ms)", "FILENAME");
	}
	tool_flush();
	return 0;
}

int main(int argc, char **argv)
{
	struct ext4slower x = { 0 };
	struct tool t = {
		.ctx = &x,
		.usage = usage,
		.shared = TOPT_PID | TOPT_JSON | TOPT_VERBOSE | TOPT_DURATION | TOPT_COMMAND,
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
