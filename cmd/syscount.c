// SPDX-License-Identifier: GPL-2.0
/*
 * syscount: count system calls by name or by process, with optional latency.
 *
 * Plain counts use perf_event counting mode on every syscalls:sys_enter_*
 * tracepoint (sys_exit_* with a "ret" filter for -x/-e): the kernel counts
 * and no record is ever written.  -P and -L need a record per call, read
 * from our instance's ring and aggregated here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#include "common/escape.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/syscalls.h"
#include "common/task.h"
#include "tool/tool.h"
#include "tracefs/format.h"
#include "tracefs/perf_event.h"
#include "tracefs/session.h"

struct opts {
	bool json, process, failures, latency, millis, list;
	pid_t pid;
	long top, duration, buffer_kb;
	int err;		/* -e: only this errno */
	const char *syscall;	/* --syscall: only this one */
	long nr;		/* its number */
	struct interval iv;
};

static const char usage[] =
"Count system calls, by syscall or by process, optionally with latency.\n"
"\n"
"USAGE: syscount [-hjPxLmlv] [-p PID | -t TID] [-T TOP] [-d SECS] [-e ERRNO]\n"
"                [--syscall NAME] [-c CMD] [-b KB] [interval [count]]\n"
"\n"
"  -p, --pid PID        only this process (all its threads)\n"
"  -t, --tid TID        only this thread\n"
"  -T, --top TOP        print only the top TOP rows (default 10)\n"
"      --syscall NAME   count only this syscall (-l lists them)\n"
"  -P, --process        count by process instead of by syscall\n"
"  -x, --failed         count only failed calls\n"
"  -e, --errno ERRNO    count only calls failing with ERRNO (EPERM or 1)\n"
"  -L, --latency        add total and average time spent in each\n"
"  -m, --milliseconds   latency in milliseconds (default microseconds)\n"
"  -d, --duration SECS  trace for SECS seconds, then print and exit\n"
"  -c, --command CMD    run CMD, count only its process tree's calls, print\n"
"                       the summary when it exits (exit status 0)\n"
"  -i, --interval SECS  print every SECS seconds (as the interval operand)\n"
"  -b, --buffer-kb KB   per-CPU ring size for -P/-L (default: the kernel's)\n"
"  -l, --list           list the syscalls this kernel can count, and exit\n"
"  -j, --json           JSON Lines: one object per summary\n"
"  -v, --verbose        say which mechanism is used, report loss live\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  syscount              # count syscalls system-wide until Ctrl-C\n"
"  syscount -P           # count by process\n"
"  syscount -L -d 5      # counts and latency for 5 seconds\n"
"  syscount -x -p 1234   # failed syscalls of PID 1234\n"
"  syscount -e ENOENT    # calls that failed with ENOENT\n"
"  syscount -T 5 -t 123  # the top 5 syscalls of thread 123\n"
"  syscount --syscall openat -P  # openat() calls by process\n"
"  syscount -c 'ls /'    # the calls of one command\n"
"  syscount 1 10         # print every second, ten times\n"
"  syscount -j -d 1      # one JSON summary after a second\n";

enum { OPT_SYSCALL = 256 };

static const struct tool_option options[] = {
	{ 'T', "top", required_argument, NULL },
	{ OPT_SYSCALL, "syscall", required_argument, NULL },
	{ 'P', "process", no_argument, NULL },
	{ 'e', "errno", required_argument, NULL },
	{ 'L', "latency", no_argument, NULL },
	{ 'm', "milliseconds", no_argument, NULL },
	{ 'i', "interval", required_argument, NULL },
	{ 'b', "buffer-kb", required_argument, NULL },
	{ 'l', "list", no_argument, NULL },
	{ 0 },
};

static int list_syscalls(struct tool *t);

/* -i SECS, kept apart from the interval operand until check() */
static long interval_opt;

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct syscount */

	switch (key) {
	case 'T': o->top = opt_num("-T", arg, 1, 1 << 30); break;
	case OPT_SYSCALL:
		o->nr = syscall_nr(arg);
		if (o->nr < 0)
			usage_error("unknown syscall '%s' (syscount -l lists them)", arg);
		o->syscall = arg;
		break;
	case 'P': o->process = true; break;
	case 'e':
		o->err = opt_errno(arg);
		if (o->err < 0)
			usage_error("unknown errno '%s'", arg);
		break;
	case 'L': o->latency = true; break;
	case 'm': o->millis = true; break;
	case 'i': interval_opt = opt_num("-i", arg, 1, 86400L * 365); break;
	case 'b': o->buffer_kb = opt_num("-b", arg, 4, 1 << 22); break;
	case 'l': o->list = true; t->list = list_syscalls; break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	opt_interval(argc, argv, optind, &o->iv);
	if (interval_opt && o->iv.secs)
		usage_error("give the interval either with -i or as an operand");
	if (interval_opt)
		o->iv.secs = interval_opt;
	o->failures = t->opt.failed;
	o->json = t->opt.json;
	o->duration = t->opt.duration;
	o->pid = t->opt.pid;
	t->interval_secs = o->iv.secs;
	t->count = o->iv.count;
	return 0;
}

/* A syscall counted by the kernel (counting mode). */
struct counter {
	struct tp *tp;
	const char *name;
	uint64_t last;
};

/* Aggregate per syscall number or per process (record mode). */
struct agg {
	uint64_t count;
	uint64_t total_ns;
};

struct inflight {
	uint64_t ts;
	long nr;
};

struct syscount {
	struct opts o;
	struct session *s;
	struct counter *ctrs;
	int nctrs;
	struct tp *enter, *exit;
	struct tk_field enter_id, exit_id, exit_ret;
	struct hmap *agg;		/* nr or pid -> struct agg */
	struct hmap *inflight;		/* tid -> struct inflight (-L) */
};

struct row {
	char name[40];
	uint64_t key;
	uint64_t count, total_ns;
};

/* Tracepoint names are the kernel's SYSCALL_DEFINE names ("newuname"). */
static const char *display_name(const char *tp_name)
{
	if (syscall_nr(tp_name) < 0 && !strncmp(tp_name, "new", 3) &&
	    syscall_nr(tp_name + 3) >= 0)
		return tp_name + 3;
	return tp_name;
}

static uint64_t proc_key(pid_t tid)
{
	pid_t tgid = task_cache_tgid(tid);

	return (uint64_t)(tgid > 0 ? tgid : tid);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct syscount *sc = arg;
	struct agg *a;
	long nr;

	if (sc->enter && ev->id == sc->enter->id) {
		nr = (long)field_int(ev, &sc->enter_id);
		if (sc->exit) {		/* -L: time it at exit */
			struct inflight *in = hmap_get(sc->inflight, ev->pid, true);

			in->ts = ev->ts;
			in->nr = nr;
			return;
		}
		a = hmap_get(sc->agg, sc->o.process ? proc_key(ev->pid) : (uint64_t)nr, true);
		a->count++;
		return;
	}
	if (sc->exit && ev->id == sc->exit->id) {
		struct inflight *in = hmap_get(sc->inflight, ev->pid, false);
		int64_t ret = field_int(ev, &sc->exit_ret);

		nr = (long)field_int(ev, &sc->exit_id);
		if (sc->o.err ? ret != -sc->o.err : sc->o.failures && ret >= 0) {
			if (in)
				hmap_del(sc->inflight, ev->pid);
			return;
		}
		a = hmap_get(sc->agg, sc->o.process ? proc_key(ev->pid) : (uint64_t)nr, true);
		a->count++;
		if (in && in->nr == nr && ev->ts >= in->ts)
			a->total_ns += ev->ts - in->ts;
		if (in)
			hmap_del(sc->inflight, ev->pid);
	}
}

static int by_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_time(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return by_count(a, b);
}

/* This interval's rows, sorted, in a malloc'ed array; count in *n. */
static struct row *collect(struct syscount *sc, int *n)
{
	struct row *rows;
	struct agg *a;
	uint64_t key;
	size_t pos = 0;
	int i, k = 0;

	if (sc->ctrs) {
		rows = xcalloc(sc->nctrs, sizeof(*rows));
		for (i = 0; i < sc->nctrs; i++) {
			uint64_t v = session_count(sc->ctrs[i].tp);

			if (v == sc->ctrs[i].last)
				continue;
			snprintf(rows[k].name, sizeof(rows[k].name), "%s", sc->ctrs[i].name);
			rows[k++].count = v - sc->ctrs[i].last;
			sc->ctrs[i].last = v;
		}
	} else {
		rows = xcalloc(hmap_count(sc->agg), sizeof(*rows));
		while ((a = hmap_next(sc->agg, &pos, &key))) {
			struct row *r = &rows[k++];
			const char *name = syscall_name((long)key);

			r->key = key;
			r->count = a->count;
			r->total_ns = a->total_ns;
			if (sc->o.process)
				snprintf(r->name, sizeof(r->name), "%s",
					 session_comm(sc->s, (pid_t)key));
			else if (name)
				snprintf(r->name, sizeof(r->name), "%s", name);
			else
				snprintf(r->name, sizeof(r->name), "syscall_%llu",
					 (unsigned long long)key);
		}
		hmap_clear(sc->agg);
	}
	qsort(rows, k, sizeof(*rows), sc->o.latency ? by_time : by_count);
	*n = k < sc->o.top ? k : (int)sc->o.top;
	return rows;
}

static void print_json(struct syscount *sc, const struct row *rows, int n,
		       const char *now)
{
	struct json j;
	int i;

	json_begin(&j, stdout);
	json_str(&j, "time", now);
	json_arr_open(&j, sc->o.process ? "processes" : "syscalls");
	for (i = 0; i < n; i++) {
		json_obj_open(&j, NULL);
		if (sc->o.process) {
			json_int(&j, "pid", (int64_t)rows[i].key);
			json_str(&j, "comm", rows[i].name);
		} else {
			json_str(&j, "syscall", rows[i].name);
		}
		json_uint(&j, "count", rows[i].count);
		if (sc->o.latency) {	/* ns whatever -m says: a stable schema */
			json_uint(&j, "total_ns", rows[i].total_ns);
			json_uint(&j, "avg_ns", rows[i].total_ns / rows[i].count);
		}
		json_obj_close(&j);
	}
	json_arr_close(&j);
	session_json_lost(sc->s, &j);
	json_end(&j);
}

static void print_summary(struct tool *t)
{
	struct syscount *sc = t->ctx;
	const char *tcol = sc->o.millis ? "(ms)" : "(us)";
	double unit = sc->o.millis ? 1e6 : 1e3;
	char now[16], key[96];
	time_t tt = time(NULL);
	struct row *rows;
	int i, n;

	strftime(now, sizeof(now), "%H:%M:%S", localtime(&tt));
	rows = collect(sc, &n);
	if (sc->o.json) {
		print_json(sc, rows, n, now);
		free(rows);
		return;
	}
	printf("[%s]\n", now);
	if (sc->o.latency)
		printf("%-22s %8s %11s %-4s %11s %-4s\n",
		       sc->o.process ? "PID    COMM" : "SYSCALL", "COUNT",
		       "TIME", tcol, "AVG", tcol);
	else
		printf("%-22s %8s\n", sc->o.process ? "PID    COMM" : "SYSCALL", "COUNT");
	for (i = 0; i < n; i++) {
		if (sc->o.process)
			snprintf(key, sizeof(key), "%-6llu %-15s",
				 (unsigned long long)rows[i].key, esc_str(rows[i].name));
		else
			snprintf(key, sizeof(key), "%s", rows[i].name);
		if (sc->o.latency)
			printf("%-22s %8llu %16.3f %16.3f\n", key,
			       (unsigned long long)rows[i].count,
			       rows[i].total_ns / unit,
			       rows[i].total_ns / unit / rows[i].count);
		else
			printf("%-22s %8llu\n", key, (unsigned long long)rows[i].count);
	}
	printf("\n");
	free(rows);
}

static void print_final(struct tool *t)
{
	struct syscount *sc = t->ctx;

	/* with [interval count] the last interval was already printed */
	if (!(sc->o.iv.secs && t->count == 0 && sc->o.iv.count))
		print_summary(t);
	session_report_lost(sc->s);
}

/* Does tracepoint @tp_name (without its prefix) count --syscall's? */
static bool wanted(const struct syscount *sc, const char *tp_name)
{
	return !sc->o.syscall || syscall_nr(display_name(tp_name)) == sc->o.nr ||
	       syscall_nr(tp_name) == sc->o.nr;
}

/* Counting mode: one counter per syscall tracepoint. */
static int setup_counters(struct syscount *sc)
{
	const char *prefix = sc->o.failures || sc->o.err ? "sys_exit_" : "sys_enter_";
	char **events;
	char filter[32] = "";
	int i, n, err = 0;

	n = format_system_events("syscalls", prefix, &events);
	if (n < 0 && n != -ENOENT) {
		pr_err("cannot list the syscalls tracepoints: %s", strerror(-n));
		return -1;
	}
	if (n <= 0) {
		pr_err("no syscalls tracepoints in this kernel (CONFIG_FTRACE_SYSCALLS)");
		return -1;
	}
	if (sc->o.err)
		snprintf(filter, sizeof(filter), "ret == %d", -sc->o.err);
	else if (sc->o.failures)
		snprintf(filter, sizeof(filter), "ret < 0");
	sc->ctrs = xcalloc(n, sizeof(*sc->ctrs));
	for (i = 0; events[i] && !err; i++) {
		struct counter *c = &sc->ctrs[sc->nctrs];

		if (!wanted(sc, events[i] + strlen(prefix)))
			continue;
		c->tp = session_add(sc->s, "syscalls", events[i], TP_COUNT,
				    filter[0] ? filter : NULL);
		if (!c->tp) {
			pr_err("%s", session_error(sc->s));
			err = -1;
			break;
		}
		c->name = display_name(c->tp->name + strlen(prefix));
		sc->nctrs++;
	}
	format_names_free(events);
	if (!err && !sc->nctrs) {
		pr_err("no tracepoint syscalls:%s%s in this kernel", prefix, sc->o.syscall);
		return -1;
	}
	pr_info("counting %d syscalls with perf_event counting mode (no records)",
		sc->nctrs);
	return err;
}

/* Record mode (-P, -L): raw_syscalls records aggregated here. */
static int setup_records(struct syscount *sc)
{
	bool need_exit = sc->o.latency || sc->o.failures || sc->o.err;
	bool need_enter = sc->o.latency || !need_exit;
	char filter[64] = "", id[32] = "";
	int len = 0;

	if (sc->o.syscall)
		len = snprintf(id, sizeof(id), "id == %ld", sc->o.nr);
	snprintf(filter, sizeof(filter), "%s", id);
	if (sc->o.err)
		snprintf(filter + len, sizeof(filter) - len, "%sret == %d",
			 len ? " && " : "", -sc->o.err);
	else if (sc->o.failures)
		snprintf(filter + len, sizeof(filter) - len, "%sret < 0",
			 len ? " && " : "");
	if (need_enter) {
		sc->enter = session_add(sc->s, "raw_syscalls", "sys_enter", TP_RECORD,
					id[0] ? id : NULL);
		if (!sc->enter ||
		    format_field(sc->enter->event, "id", &sc->enter_id) < 0)
			goto out_err;
	}
	if (need_exit) {
		sc->exit = session_add(sc->s, "raw_syscalls", "sys_exit", TP_RECORD,
				       filter[0] ? filter : NULL);
		if (!sc->exit || format_field(sc->exit->event, "id", &sc->exit_id) < 0 ||
		    format_field(sc->exit->event, "ret", &sc->exit_ret) < 0)
			goto out_err;
	}
	sc->agg = hmap_new(sizeof(struct agg));
	sc->inflight = hmap_new(sizeof(struct inflight));
	pr_info("recording raw_syscalls in instance %s, aggregating in userspace",
		session_name(sc->s));
	return 0;

out_err:
	pr_err("%s", session_error(sc->s));
	return -1;
}

static int setup(struct tool *t, struct loop *l)
{
	struct syscount *sc = t->ctx;
	bool records = sc->o.process || sc->o.latency;
	struct session_opts so = {
		.pid = t->opt.pid, .tid = t->opt.tid, .tree = t->opt.tree,
		.buffer_kb = records ? (unsigned long)sc->o.buffer_kb : 0,
		.wakeup_percent = 25,
		.drain_ms = 200,
	};
	int err;

	sc->s = session_new(&so);
	if (session_open(sc->s) < 0) {
		pr_err("%s", session_error(sc->s));
		return -1;
	}
	perf_raise_fd_limit();
	err = records ? setup_records(sc) : setup_counters(sc);
	if (err)
		return err;
	if (session_start(sc->s, l, on_event, sc) < 0) {
		pr_err("%s", session_error(sc->s));
		return -1;
	}
	/* on stdout, as bcc's */
	if (sc->o.json)
		return 0;
	if (sc->o.syscall)
		printf("Tracing %ssyscall '%s'... Ctrl+C to quit.\n",
		       sc->o.failures || sc->o.err ? "failed " : "", sc->o.syscall);
	else
		printf("Tracing %ssyscalls, printing top %ld... Ctrl+C to quit.\n",
		       sc->o.failures || sc->o.err ? "failed " : "", sc->o.top);
	tool_flush();
	return 0;
}

static int list_syscalls(struct tool *t)
{
	char **events;
	int i, n = format_system_events("syscalls", "sys_enter_", &events);

	if (n <= 0) {
		pr_err("cannot list syscalls tracepoints: %s",
		       n == -EACCES || geteuid() ? "tracing needs root" :
		       n < 0 && n != -ENOENT ? strerror(-n) :
		       "no syscalls tracepoints");
		return TK_EXIT_RUNTIME;
	}
	for (i = 0; events[i]; i++)
		printf("%s\n", display_name(events[i] + 10));
	format_names_free(events);
	return TK_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct syscount sc = { .o.top = 10 };
	struct tool t = {
		.ctx = &sc,
		.usage = usage,
		.shared = TOPT_PID | TOPT_TID | TOPT_FAILED | TOPT_DURATION | TOPT_JSON |
			  TOPT_VERBOSE | TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.interval = print_summary,
		.summary = print_final,
		.teardown = session_tool_teardown,
		.summarises = true,
		.session = &sc.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
