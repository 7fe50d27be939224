// SPDX-License-Identifier: GPL-2.0
/*
 * opensnoop: trace open(), openat(), openat2() and creat() with their
 * paths and results, in bcc's columns.  How the path is obtained depends
 * on the kernel (tool/opens.h): kprobes where there are any, else
 * uprobes on the C library with the syscall tracepoints; -v says which.
 * A path not captured at the call is marked (FIELDS in the usage), and
 * every text column is escaped (common/escape.h).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "tool/tool.h"
#include "tool/opens.h"
#include "tool/cwds.h"
#include "tool/uids.h"
#include "tracefs/session.h"

#define MAX_FLAGS 16

struct opts {
	bool json, seconds, uid, failed, extended, full_path;
	long only_uid;			/* -u; -1: any */
	int flags[MAX_FLAGS];		/* -f: open flags, any of them */
	int nflags;
	pid_t pid, tid;
	const char *name;
	long duration;
};

static const char usage[] =
"Trace open() family syscalls, with the path, file descriptor and error.\n"
"\n"
"USAGE: opensnoop [-hjTUxeFv] [-p PID] [-t TID] [-u UID] [-n NAME] [-f FLAG]\n"
"                 [-d SECS] [-c CMD]\n"
"\n"
"  -T, --timestamp      TIME(s) column: seconds since tracing began\n"
"  -U, --print-uid      UID column\n"
"  -u, --uid UID        only processes of this user (a UID or a name)\n"
"  -x, --failed         only failed opens\n"
"  -e, --extended_fields  FLAGS and MODE columns (octal)\n"
"  -f, --flag_filter FLAG  only opens with this flag (O_WRONLY, O_CREAT...;\n"
"                       may be repeated: any of them)\n"
"  -F, --full-path      relative paths made absolute (from the process's\n"
"                       working directory, or the directory fd)\n"
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
"  opensnoop -u 1000    # only UID 1000\n"
"  opensnoop -e         # show the flags and mode\n"
"  opensnoop -f O_WRONLY -f O_RDWR  # only opens for writing\n"
"  opensnoop -F         # full paths for relative ones\n"
"  opensnoop -p 181     # only PID 181\n"
"  opensnoop -t 123     # only thread 123\n"
"  opensnoop -n main    # only processes whose name contains \"main\"\n"
"  opensnoop -d 10      # trace for 10 seconds\n"
"  opensnoop -c 'ls /'  # the opens of one command\n"
"  opensnoop -j | jq .  # JSON Lines\n";

static const struct tool_option options[] = {
	{ 'U', "print-uid", no_argument, NULL },
	{ 'u', "uid", required_argument, NULL },
	{ 'e', "extended_fields", no_argument, "extended-fields" },
	{ 'f', "flag_filter", required_argument, "flag-filter" },
	{ 'F', "full-path", no_argument, NULL },
	{ 0 },
};

static int parse_flag(const char *arg)
{
	int f = opens_flag(arg);

	if (f < 0)
		usage_error("unknown open flag '%s' (O_RDONLY, O_WRONLY, O_CREAT...)", arg);
	return f;
}

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct opensnoop */

	switch (key) {
	case 'U': o->uid = true; break;
	case 'u': o->only_uid = opt_uid("-u", arg); break;
	case 'e': o->extended = true; break;
	case 'F': o->full_path = true; break;
	case 'f':
		if (o->nflags == MAX_FLAGS)
			usage_error("more than %d -f flags", MAX_FLAGS);
		o->flags[o->nflags++] = parse_flag(arg);
		break;
	}
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
	struct uids *uids;		/* -U, -u, -j */
	struct hmap *fds;		/* -F: pid, fd -> the path it opened */
	struct cwds *cwds;		/* -F: working directories */
};

static uint64_t fd_key(pid_t pid, long fd)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)fd;
}

/*
 * -F: a relative path from the directory it started from.  For a directory
 * fd, the path of the last open this process made that returned that fd
 * (records come in order, so a reused fd names its latest file); for the
 * working directory (AT_FDCWD), the process's at the record (cwds.h).
 * The path as given when neither is known.  The open's own result is
 * remembered for the opens after it.
 */
static const char *full_path(struct opensnoop *os, const struct opens_event *oe,
			     pid_t pid, char *buf, size_t n)
{
	const char *p = oe->path, *base = NULL;
	char **known;

	if (p && p[0] != '/' && oe->dfd != AT_FDCWD) {
		known = hmap_get(os->fds, fd_key(pid, oe->dfd), false);
		base = known ? *known : NULL;
	} else if (p && p[0] != '/') {
		base = cwds_get(os->cwds, pid);
	}
	if (base) {
		snprintf(buf, n, "%s/%s", strcmp(base, "/") ? base : "", p);
		p = buf;
	}
	if (p && oe->ret >= 0) {
		known = hmap_get(os->fds, fd_key(pid, oe->ret), true);
		free(*known);
		*known = xstrdup(p);
	}
	return p;
}

static void emit_json(struct opensnoop *os, const struct opens_event *oe,
		      pid_t pid, const char *comm, long uid, const char *path)
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
	if (os->o.full_path)
		json_str(&j, "full_path", path);
	json_uint(&j, "addr", oe->addr);
	if (oe->flags >= 0)
		json_int(&j, "flags", oe->flags);
	else
		json_null(&j, "flags");
	if (oe->mode >= 0)
		json_int(&j, "mode", oe->mode);
	else
		json_null(&j, "mode");
	json_str(&j, "source", opens_source_name(oe->source));
	json_end(&j);
}

/*
 * The PATH column, escaped: "?PATH" when it was read from the process's
 * memory after the call (it may have changed), "<0xADDR>" when it could
 * not be read at all; a real path's own leading '?' or '<' as \xNN.
 */
static void print_path(const struct opens_event *oe, const char *p)
{
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
	const char *comm = oe->comm, *path = oe->path;
	char full[PATH_MAX + 4096];
	long uid = -1;

	if (pid <= 0)
		pid = oe->tid;
	if (os->o.full_path)	/* before filters: every open's fd counts */
		path = full_path(os, oe, pid, full, sizeof(full));
	if (!opens_flags_any(oe->flags, os->o.flags, os->o.nflags))
		return;
	if (os->uids) {
		uid = uids_get(os->uids, pid, 0, oe->ts);
		if (os->o.only_uid >= 0 && uid != os->o.only_uid)
			return;
	}
	if (os->o.json) {
		emit_json(os, oe, pid, comm, uid, path);
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
	if (os->o.extended) {
		if (oe->flags < 0)
			printf("%-8s ", "?");
		else
			printf("%08llo ", (unsigned long long)oe->flags);
		/* mode means nothing without O_CREAT or O_TMPFILE (open(2)):
		 * the register holds whatever it held */
		if (oe->mode < 0 || oe->flags < 0 ||
		    (!(oe->flags & O_CREAT) && (oe->flags & O_TMPFILE) != O_TMPFILE))
			printf("%-4s ", "n/a");
		else
			printf("%04llo ", (unsigned long long)oe->mode);
	}
	print_path(oe, path);
}

/* The session's records: UID changes first, then the opens. */
static void on_record(const struct tk_event *ev, void *arg)
{
	struct opensnoop *os = arg;

	if (os->uids && uids_record(os->uids, ev))
		return;
	if (os->cwds && cwds_record(os->cwds, ev))
		return;
	opens_record(ev, os->op);
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

	os->fds = hmap_new(sizeof(char *));
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
	if (os->o.uid || os->o.only_uid >= 0 || os->o.json) {
		os->uids = uids_new(os->s);
		if (uids_add(os->uids, err, sizeof(err)) < 0) {
			pr_err("%s", err);
			return -1;
		}
		if (t->child.pid > 0)	/* -c: forked by us, held */
			uids_seed(os->uids, t->child.pid, (long)getuid());
	}
	if (os->o.full_path) {
		os->cwds = cwds_new(os->s);
		if (cwds_add(os->cwds, err, sizeof(err)) < 0) {
			pr_err("%s", err);
			return -1;
		}
	}
	pr_info("paths from %s", opens_mechanism(os->op));
	os->start_ns = time_mono_ns();
	if (session_start(os->s, l, on_record, os) < 0) {
		pr_err("%s", session_error(os->s));
		return -1;
	}
	opens_started(os->op);
	if (os->uids)
		uids_started(os->uids);
	if (os->cwds)
		cwds_started(os->cwds);
	if (!os->o.json) {
		if (os->o.seconds)
			printf("%-14s", "TIME(s)");
		if (os->o.uid)
			printf("%-6s", "UID");
		printf("%-6s %-16s %4s %3s ", os->o.tid ? "TID" : "PID", "COMM",
		       "FD", "ERR");
		if (os->o.extended)
			printf("%-8s %-4s ", "FLAGS", "MODE");
		printf("PATH\n");
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
	uids_free(os->uids);
	os->uids = NULL;
	cwds_free(os->cwds);
	os->cwds = NULL;
	if (os->fds) {
		size_t pos = 0;
		char **p;

		while ((p = hmap_next(os->fds, &pos, NULL)))
			free(*p);
		hmap_free(os->fds);
		os->fds = NULL;
	}
}

int main(int argc, char **argv)
{
	struct opensnoop os = { .o.only_uid = -1 };
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
