// SPDX-License-Identifier: GPL-2.0
/*
 * cachestat: page cache hits, misses and dirties per interval (bcc's
 * cachestat), from four counts the kernel keeps in perf_event counting
 * mode (no records):
 *
 *	accessed  folio_mark_accessed() (mark_page_accessed() before 5.16)
 *	added     filemap_add_folio() (add_to_page_cache_lru() before 5.16)
 *	dirtied   writeback:writeback_dirty_folio (..._page before 5.18)
 *	buffers   mark_buffer_dirty()
 *
 * and bcc's arithmetic: accesses = accessed - buffers, misses = added -
 * dirtied, hits = accesses - misses (misses take all of accesses when
 * read-ahead made them larger).  Three of the four are kernel functions:
 * a kernel without kprobes gives only added (the filemap tracepoint) and
 * dirtied, so cachestat shows misses and leaves hits, dirties and the
 * ratio out, saying so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/json.h"
#include "common/kfunc.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/tool.h"
#include "tracefs/perf_event.h"
#include "tracefs/session.h"

static const char usage[] =
"Count page cache hits, misses and dirties (bcc's cachestat).\n"
"\n"
"USAGE: cachestat [-hjTv] [-p PID | -c CMD] [-d SECS] [interval [count]]\n"
"\n"
"  -T, --timestamp      include a timestamp on each line\n"
"  -p, --pid PID        count only this process's page cache use\n"
"  -d, --duration SECS  count for SECS seconds, then a last line and exit\n"
"  -c, --command CMD    run CMD and count only its process tree; a last\n"
"                       line when it exits (exit status 0)\n"
"  -j, --json           JSON Lines: one object per interval, with the\n"
"                       kernel's four counts\n"
"  -v, --verbose        say which functions and tracepoints are counted\n"
"  -h, --help           this help\n"
"  interval [count]     print every interval seconds (default 1), count\n"
"                       times (default: until Ctrl-C)\n"
"\n"
"EXAMPLES:\n"
"  cachestat             # a line every second until Ctrl-C\n"
"  cachestat -T 5        # every 5 seconds, with timestamps\n"
"  cachestat 1 10        # ten lines, one a second\n"
"  cachestat -c 'tar cf /dev/null /usr/share/doc'  # one command's hits\n"
"  cachestat -j 1 3 | jq .hit_ratio\n";

enum { ACCESSED, ADDED, DIRTIED, BUFFERS, NCOUNT };

static const char *const count_name[NCOUNT] = {
	"accessed", "added", "dirtied", "buffers_dirtied",
};

/* Where each count comes from: the first a kernel has. */
struct where {
	const char *func;	/* a kernel function (kprobe), or */
	const char *sys, *event; /* a tracepoint */
};

static const struct where sources[NCOUNT][3] = {
	[ACCESSED] = { { "folio_mark_accessed" }, { "mark_page_accessed" } },
	[ADDED] = { { "filemap_add_folio" }, { "add_to_page_cache_lru" } },
	[DIRTIED] = { { NULL, "writeback", "writeback_dirty_folio" },
		      { NULL, "writeback", "writeback_dirty_page" },
		      { "account_page_dirtied" } },
	[BUFFERS] = { { "mark_buffer_dirty" } },
};

/* Without kprobes: pages added to the cache, from its tracepoint. */
static const struct where added_tp = { NULL, "filemap", "mm_filemap_add_to_page_cache" };

struct cachestat {
	struct interval iv;
	bool json, timestamp;
	struct session *s;
	struct tp *tp[NCOUNT];		/* NULL: not counted here */
	char what[NCOUNT][64];		/* what each count counts */
	uint64_t last[NCOUNT];
	bool printed_any, dirty;	/* a line printed; counts since */
};

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct cachestat *cs = t->ctx;

	opt_interval(argc, argv, optind, &cs->iv);
	t->interval_secs = cs->iv.secs ? cs->iv.secs : 1;
	t->count = cs->iv.count;
	cs->json = t->opt.json;
	cs->timestamp = t->opt.timestamp;
	return 0;
}

/* Count @w in @cs->s: 0, -ENOENT when this kernel lacks it, or -1 after
 * saying why. */
static int add_one(struct cachestat *cs, int k, const struct where *w)
{
	char err[256];
	struct tp *tp;

	if (w->func) {
		if (!session_has_kprobes() || kfunc_check(w->func, err, sizeof(err)) < 0)
			return -ENOENT;
		tp = session_add_kprobe(cs->s, w->func, w->func, NULL, false,
					TP_COUNT, NULL);
		snprintf(cs->what[k], sizeof(cs->what[k]), "kprobe %s", w->func);
	} else {
		tp = session_add(cs->s, w->sys, w->event, TP_COUNT, NULL);
		if (!tp && errno == ENOENT)
			return -ENOENT;
		snprintf(cs->what[k], sizeof(cs->what[k]), "t:%s:%s", w->sys, w->event);
	}
	if (!tp) {
		pr_err("%s", session_error(cs->s));
		return -1;
	}
	cs->tp[k] = tp;
	return 0;
}

/* The first source of count @k this kernel has; -1 after saying why. */
static int add_count(struct cachestat *cs, int k)
{
	const struct where *w;
	char names[256] = "";
	size_t at = 0;
	int err;

	for (w = sources[k]; w < sources[k] + 3 && (w->func || w->sys); w++) {
		err = add_one(cs, k, w);
		if (err != -ENOENT)
			return err;
		at += snprintf(names + at, sizeof(names) - at, "%s%s%s%s",
			       at ? ", " : "", w->func ? w->func : w->sys,
			       w->func ? "" : ":", w->func ? "" : w->event);
	}
	pr_err("cannot count page cache %s: this kernel has none of %s",
	       count_name[k], names);
	return -1;
}

static int setup(struct tool *t, struct loop *l)
{
	struct cachestat *cs = t->ctx;
	struct session_opts so = { .pid = t->opt.pid, .tree = t->opt.tree };
	int k, err;

	cs->s = session_new(&so);
	if (session_open(cs->s) < 0) {
		pr_err("%s", session_error(cs->s));
		return -1;
	}
	perf_raise_fd_limit();
	if (session_has_kprobes()) {
		for (k = 0; k < NCOUNT; k++)
			if (add_count(cs, k) < 0)
				return -1;
	} else {
		err = add_one(cs, ADDED, &added_tp);
		if (err == -ENOENT)
			pr_err("cannot count page cache misses: this kernel has no kprobes and no tracepoint filemap:mm_filemap_add_to_page_cache");
		if (err < 0 || add_count(cs, DIRTIED) < 0)
			return -1;
		pr_warn("this kernel has no kprobes: HITS, DIRTIES and HITRATIO need kprobes on folio_mark_accessed and mark_buffer_dirty; MISSES are counted from tracepoints");
	}
	for (k = 0; k < NCOUNT; k++)
		if (cs->tp[k])
			pr_info("%s: %s (perf_event counting mode)", count_name[k], cs->what[k]);
	if (session_start(cs->s, l, NULL, cs) < 0) {
		pr_err("%s", session_error(cs->s));
		return -1;
	}
	if (!cs->json) {
		if (cs->timestamp)
			printf("%-8s ", "TIME");
		printf("%8s %8s %8s %8s %12s %10s\n", "HITS", "MISSES", "DIRTIES",
		       "HITRATIO", "BUFFERS_MB", "CACHED_MB");
	}
	tool_flush();
	return 0;
}

/* Buffers and Cached of /proc/meminfo, in MB (0 when unreadable). */
static void meminfo(double *buffers, double *cached)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb;

	*buffers = *cached = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Buffers: %llu kB", &kb) == 1)
			*buffers = kb / 1024.0;
		else if (sscanf(line, "Cached: %llu kB", &kb) == 1)
			*cached = kb / 1024.0;
	}
	fclose(f);
}

/* One interval's line from the counts' deltas. */
static void print_line(struct cachestat *cs)
{
	int64_t d[NCOUNT] = { 0 }, total, misses, hits;
	bool full = cs->tp[ACCESSED] != NULL;
	double buffers, cached, ratio;
	time_t now = time(NULL);
	char hms[16];
	struct json j;
	int k;

	for (k = 0; k < NCOUNT; k++) {
		uint64_t v;

		if (!cs->tp[k])
			continue;
		v = session_count(cs->tp[k]);
		d[k] = (int64_t)(v - cs->last[k]);
		cs->last[k] = v;
	}
	/* bcc's arithmetic */
	total = d[ACCESSED] - d[BUFFERS];
	misses = d[ADDED] - d[DIRTIED];
	if (total < 0)
		total = 0;
	if (misses < 0)
		misses = 0;
	hits = total - misses;
	if (full && hits < 0) {	/* read-ahead: more added than asked */
		misses = total;
		hits = 0;
	}
	ratio = total > 0 ? (double)hits / (double)total : 0;
	meminfo(&buffers, &cached);
	strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&now));
	if (cs->json) {
		json_begin(&j, stdout);
		json_str(&j, "time", hms);
		if (full) {
			json_int(&j, "hits", hits);
			json_int(&j, "misses", misses);
			json_int(&j, "dirties", d[BUFFERS]);
			json_double(&j, "hit_ratio", ratio);
		} else {
			json_null(&j, "hits");
			json_int(&j, "misses", misses);
			json_null(&j, "dirties");
			json_null(&j, "hit_ratio");
		}
		json_double(&j, "buffers_mb", buffers);
		json_double(&j, "cached_mb", cached);
		json_obj_open(&j, "counts");
		for (k = 0; k < NCOUNT; k++)
			if (cs->tp[k])
				json_int(&j, count_name[k], d[k]);
		json_obj_close(&j);
		json_end(&j);
	} else {
		if (cs->timestamp)
			printf("%-8s ", hms);
		if (full)
			printf("%8lld %8lld %8lld %7.2f%% %12.0f %10.0f\n",
			       (long long)hits, (long long)misses,
			       (long long)d[BUFFERS], 100 * ratio, buffers, cached);
		else
			printf("%8s %8lld %8s %8s %12.0f %10.0f\n", "-",
			       (long long)misses, "-", "-", buffers, cached);
	}
	cs->printed_any = true;
	tool_flush();
}

static void on_interval(struct tool *t)
{
	print_line(t->ctx);
}

/* At the end (Ctrl-C, -c's command done): the part of an interval left,
 * unless the count of intervals was the end. */
static void on_summary(struct tool *t)
{
	struct cachestat *cs = t->ctx;

	if (cs->iv.count && t->count == 0 && cs->printed_any)
		return;		/* as bcc: the last line was the end */
	print_line(cs);
	if (!cs->json)
		printf("Detaching...\n");
}

static void teardown(struct tool *t)
{
	struct cachestat *cs = t->ctx;

	session_free(cs->s);
	cs->s = NULL;
}

int main(int argc, char **argv)
{
	struct cachestat cs = { 0 };
	struct tool t = {
		.ctx = &cs,
		.usage = usage,
		.shared = TOPT_PID | TOPT_TIMESTAMP | TOPT_JSON | TOPT_VERBOSE | TOPT_DURATION |
			  TOPT_COMMAND,
		.check = check,
		.setup = setup,
		.interval = on_interval,
		.summary = on_summary,
		.teardown = teardown,
		.summarises = true,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
