// SPDX-License-Identifier: GPL-2.0
/*
 * tpoint: trace one tracepoint, printing each event with its decoded fields
 * (perf-tools' tpoint), or list tracepoints.  Events are records from our
 * instance's ring; with -s, perf_event samples carrying callchains.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "tool/evout.h"
#include "common/json.h"
#include "common/ksym.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/timefmt.h"
#include "tool/probe_tool.h"
#include "tool/tool.h"
#include "tracefs/format.h"
#include "tracefs/session.h"
#include "tracefs/tpoints.h"
#include "tracefs/tracing.h"

struct opts {
	struct trace_opts t;
	bool list;
	char *sys, *event;
	const char *filter, *glob;
};

static const char usage[] =
"Trace a tracepoint and print each event with its fields.\n"
"\n"
"USAGE: tpoint [-hHsvj] [-d SECS] [-p PID] [-t TID] [-c CMD] [-b KB]\n"
"              sys:event [filter]\n"
"       tpoint -l [glob]\n"
"\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -p, --pid PID        only events of this process (all its threads)\n"
"  -t, --tid TID        only events of this thread (-L too)\n"
"  -c, --command CMD    run CMD, trace only its process tree, end when it\n"
"                       exits, with its exit status\n"
"  -H, --headers        print column headers\n"
"  -s, --stacks         print the kernel stack of each event\n"
"  -v, --verbose        print the event's format (its fields) and exit\n"
"  -l, --list           list tracepoints, optionally matching a glob\n"
"  -b, --buffer-kb KB   per-CPU ring size\n"
"  -j, --json           JSON Lines: one object per event\n"
"  -h, --help           this help\n"
"  filter               kernel filter, e.g. 'prev_pid == 0' (ftrace syntax)\n"
"\n"
"EXAMPLES:\n"
"  tpoint -l                          # list all tracepoints\n"
"  tpoint -l 'sched:*'                # list the scheduler's\n"
"  tpoint -v block:block_rq_issue     # show its fields\n"
"  tpoint sched:sched_process_exec    # trace every exec\n"
"  tpoint -H -p 181 syscalls:sys_enter_openat\n"
"  tpoint -s kmem:mm_page_alloc       # with kernel stacks\n"
"  tpoint block:block_rq_issue 'bytes > 65536'\n"
"  tpoint -j -d 5 sched:sched_switch  # JSON Lines for 5 seconds\n";

static const struct tool_option options[] = {
	TRACE_OPTIONS,
	{ 'l', "list", no_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;

	if (key == 'l')
		o->list = true;
	else
		trace_option(t, &o->t, key, arg);
}

static int list_mode(struct tool *t);
static int view_mode(struct tool *t);

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;
	char *colon;

	trace_opts_sync(&o->t, t);
	if (o->list) {
		if (optind < argc)
			o->glob = argv[optind++];
		if (optind < argc)
			usage_error("unexpected argument '%s'", argv[optind]);
		t->list = list_mode;
		return 0;
	}
	if (optind >= argc)
		usage_error("no tracepoint given (sys:event, or -l to list them)");
	colon = strchr(argv[optind], ':');
	if (!colon || colon == argv[optind] || !colon[1] || strchr(colon + 1, ':'))
		usage_error("tracepoint must be sys:event, not '%s'", argv[optind]);
	o->sys = argv[optind];
	*colon = '\0';
	o->event = colon + 1;
	optind++;
	if (optind < argc)
		o->filter = argv[optind++];
	if (optind < argc)
		usage_error("unexpected argument '%s' (quote the filter)", argv[optind]);
	if (o->t.view) {
		if (t->opt.command)
			usage_error("-v and -c cannot be used together");
		t->list = view_mode;
	}
	return 0;
}

struct tpoint {
	struct opts o;
	struct session *s;
	struct tp *tp;
	struct ksyms *ksyms;
	struct tk_field *fields;	/* non-common fields, for JSON */
	int nfields;
	struct trace_seq seq;
};

static void print_stack(struct tpoint *tpt, const struct tk_event *ev)
{
	unsigned int i;

	for (i = 0; i < ev->nkstack; i++) {
		uint64_t off = 0;
		const char *mod = NULL;
		const char *sym = tpt->ksyms ?
			ksyms_lookup(tpt->ksyms, ev->stack[i], &off, &mod) : NULL;

		if (!sym)
			printf(" => 0x%llx\n", (unsigned long long)ev->stack[i]);
		else if (mod)
			printf(" => %s+0x%llx [%s]\n", sym, (unsigned long long)off, mod);
		else
			printf(" => %s+0x%llx\n", sym, (unsigned long long)off);
	}
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct tpoint *tpt = arg;
	const char *comm = session_comm(tpt->s, ev->pid);
	struct tep_record rec = {
		.ts = ev->ts, .size = (int)ev->size, .record_size = (int)ev->size,
		.data = (void *)ev->data, .cpu = ev->cpu,
	};

	if (tpt->o.t.json) {
		struct json j;

		json_begin(&j, stdout);
		json_uint(&j, "ts_ns", time_to_real(ev->ts));
		json_str(&j, "comm", comm);
		json_int(&j, "pid", ev->pid);
		json_int(&j, "cpu", ev->cpu);
		json_str(&j, "event", tpt->tp->name);
		json_str(&j, "system", tpt->tp->system);
		evout_json_fields(&j, "fields", tpt->fields, tpt->nfields, ev, false);
		if (tpt->o.t.stacks) {
			unsigned int i;

			json_arr_open(&j, "kstack");
			for (i = 0; i < ev->nkstack; i++) {
				uint64_t off;
				const char *sym = tpt->ksyms ? ksyms_lookup(tpt->ksyms,
						ev->stack[i], &off, NULL) : NULL;
				char buf[256];

				if (sym)
					snprintf(buf, sizeof(buf), "%s+0x%llx", sym,
						 (unsigned long long)off);
				else
					snprintf(buf, sizeof(buf), "0x%llx",
						 (unsigned long long)ev->stack[i]);
				json_elem_str(&j, buf);
			}
			json_arr_close(&j);
		}
		json_end(&j);
	} else {
		trace_seq_reset(&tpt->seq);
		tep_print_event(session_tep(tpt->s), &tpt->seq, &rec,
				"%s", TEP_PRINT_INFO);
		trace_seq_terminate(&tpt->seq);
		evout_line(comm, ev->pid, ev->cpu, ev->ts, tpt->tp->name, "%s",
			   tpt->seq.buffer);
		if (tpt->o.t.stacks)
			print_stack(tpt, ev);
	}
}

static int setup(struct tool *t, struct loop *l)
{
	struct tpoint *tpt = t->ctx;
	struct session_opts so = {
		.ordered = true, .pid = t->opt.pid, .tid = t->opt.tid,
		.tree = t->opt.tree,
		.buffer_kb = (unsigned long)tpt->o.t.buffer_kb,
		.wakeup_percent = 0,
		.batch_end = tool_flush_batch,
	};

	trace_opts_sync(&tpt->o.t, t);
	tpt->s = session_new(&so);
	if (session_open(tpt->s) < 0) {
		pr_err("%s", session_error(tpt->s));
		return -1;
	}
	tpt->tp = session_add(tpt->s, tpt->o.sys, tpt->o.event,
			      tpt->o.t.stacks ? TP_STACK : TP_RECORD, tpt->o.filter);
	if (!tpt->tp) {
		pr_err("%s", session_error(tpt->s));
		return -1;
	}
	tpt->fields = format_fields(tpt->tp->event, &tpt->nfields);
	if (tpt->o.t.stacks) {
		tpt->ksyms = ksyms_load(NULL);
		if (!tpt->ksyms)
			pr_warn("kernel symbols unavailable (/proc/kallsyms): stacks as addresses");
	}
	trace_seq_init(&tpt->seq);
	if (session_start(tpt->s, l, on_event, tpt) < 0) {
		pr_err("%s", session_error(tpt->s));
		return -1;
	}
	evout_start(&tpt->o.t, "%s:%s", tpt->o.sys, tpt->o.event);
	return 0;
}

static void teardown(struct tool *t)
{
	struct tpoint *tpt = t->ctx;

	session_tool_teardown(t);
	ksyms_free(tpt->ksyms);
	tpt->ksyms = NULL;
	if (tpt->seq.buffer)
		trace_seq_destroy(&tpt->seq);
	tpt->seq.buffer = NULL;
	free(tpt->fields);
	tpt->fields = NULL;
}

static int list(const char *glob)
{
	struct tpoint_query q = { .full = glob, .sorted = true };
	struct tpoint_list l = { 0 };
	size_t i;
	int n = tpoints_find(&q, &l);

	if (n < 0) {
		pr_err("cannot read the list of tracepoints: %s",
		       geteuid() ? "tracing needs root" : strerror(-n));
		return TK_EXIT_RUNTIME;
	}
	for (i = 0; i < l.n; i++)
		printf("%s:%s\n", l.v[i].sys, l.v[i].name);
	tpoints_release(&l);
	tool_flush();
	return TK_EXIT_OK;
}

static int view(const struct opts *o)
{
	char *rel = xasprintf("events/%s/%s/format", o->sys, o->event);
	char *buf = strstr(o->sys, "..") || strstr(o->event, "..") || strchr(o->sys, '/') ||
		    strchr(o->event, '/') ? NULL : tracefs_instance_file_read(NULL, rel, NULL);

	free(rel);
	if (!buf) {
		pr_err("tracepoint %s:%s does not exist", o->sys, o->event);
		return TK_EXIT_RUNTIME;
	}
	fputs(buf, stdout);
	free(buf);
	return TK_EXIT_OK;
}

/* -l and -v read the tracing filesystem: say so when we cannot */
static int need_tracefs(void)
{
	if (geteuid() != 0 && tracing_access("events", R_OK) != 0) {
		pr_err("cannot read the tracing filesystem: tracing needs root");
		return -1;
	}
	return 0;
}

static int list_mode(struct tool *t)
{
	struct tpoint *tpt = t->ctx;

	return need_tracefs() < 0 ? TK_EXIT_RUNTIME : list(tpt->o.glob);
}

static int view_mode(struct tool *t)
{
	struct tpoint *tpt = t->ctx;

	return need_tracefs() < 0 ? TK_EXIT_RUNTIME : view(&tpt->o);
}

int main(int argc, char **argv)
{
	struct tpoint tpt = { 0 };
	struct tool t = {
		.ctx = &tpt,
		.usage = usage,
		.shared = TRACE_SHARED,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
		.teardown = teardown,
		.session = &tpt.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
