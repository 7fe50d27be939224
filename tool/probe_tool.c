// SPDX-License-Identifier: GPL-2.0
/*
 * What uprobe and kprobe share past their definitions: the session, the
 * probe in its group, the printing of each hit, and -v; tool_run() owns
 * the run and its exit paths (the session goes with them).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tool/evout.h"
#include "common/ksym.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/tool.h"
#include "tracefs/format.h"
#include "tool/probe_tool.h"
#include "tracefs/tracing.h"

bool trace_option(struct tool *t, struct trace_opts *o, int key, const char *arg)
{
	switch (key) {
	case 'H': o->headers = true; return true;
	case 's': o->stacks = true; return true;
	case 'v': o->view = true; return true;
	case 'b': o->buffer_kb = opt_num("-b", arg, 4, 1 << 22); return true;
	case 'L': t->opt.tid = (pid_t)opt_num("-L", arg, 1, 1 << 30); return true;
	default: return false;
	}
}

void trace_opts_sync(struct trace_opts *o, const struct tool *t)
{
	o->pid = t->opt.pid;
	o->tid = t->opt.tid;
	o->json = t->opt.json;
	o->duration = t->opt.duration;
	o->tree = t->opt.tree;
}

void trace_opts_def(int argc, char **argv, int optind, const struct trace_opts *o,
		    const char *none, char **def, const char **filter)
{
	if (optind >= argc)
		usage_error("%s", none);
	if (o->view && o->duration)
		usage_error("-v and -d cannot be used together");
	*def = argv[optind++];
	if (optind < argc)
		*filter = argv[optind++];
	if (optind < argc)
		usage_error("unexpected argument '%s' (quote the definition and the filter)",
			    argv[optind]);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct probe_tool *pt = arg;

	probe_out_hit(&pt->out, ev, session_comm(pt->s, ev->pid));
}

/* A session with the probe defined in @mode; -1 after saying why. */
static int define(struct probe_tool *pt, const struct tool *t, enum tp_mode mode)
{
	struct session_opts so = {
		.ordered = true, .pid = t->opt.pid, .tid = t->opt.tid,
		.tree = t->opt.tree,
		.buffer_kb = (unsigned long)pt->t->buffer_kb,
		.batch_end = tool_flush_batch,
	};
	bool have = pt->kernel ? session_has_kprobes() : session_has_uprobes();

	/* as root on a mounted tracefs: the kernel lacks them (otherwise the
	 * session says what is wrong with access first) */
	if (!have && geteuid() == 0 && tracing_access("events", F_OK) == 0) {
		pr_err("this kernel has no %s events (CONFIG_%s_EVENTS)",
		       pt->kernel ? "kprobe" : "uprobe", pt->kernel ? "KPROBE" : "UPROBE");
		return -1;
	}
	pt->s = session_new(&so);
	if (session_open(pt->s) < 0) {
		pr_err("%s", session_error(pt->s));
		return -1;
	}
	pt->tp = pt->define(pt, pt->s, mode);
	return pt->tp ? 0 : -1;
}

static int setup(struct tool *t, struct loop *l)
{
	struct probe_tool *pt = t->ctx;
	struct tk_field *fields;
	int n;

	trace_opts_sync(pt->t, t);
	if (define(pt, t, pt->t->stacks ? TP_STACK : TP_RECORD) < 0)
		return -1;
	if (pt->kernel) {
		pt->ks = ksyms_load(NULL);
		if (!pt->ks)
			pr_warn("kernel symbols unavailable (/proc/kallsyms): addresses in hex");
	}
	pt->out = (struct probe_out){
		.event = pt->tp->name, .ret = pt->ret, .json = pt->t->json,
		.stacks = pt->t->stacks, .kernel = pt->kernel, .ks = pt->ks,
		.pid = pt->t->tree ? 0 : pt->t->pid, .tep = session_tep(pt->s),
	};
	fields = format_fields(pt->tp->event, &n);
	probe_out_init(&pt->out, fields, n);
	if (session_start(pt->s, l, on_event, pt) < 0) {
		pr_err("%s", session_error(pt->s));
		return -1;
	}
	evout_start(pt->t, "%s %s", pt->tool, pt->tp->name);
	return 0;
}

static void teardown(struct tool *t)
{
	struct probe_tool *pt = t->ctx;

	session_tool_teardown(t);
	probe_out_release(&pt->out);
	ksyms_free(pt->ks);
	pt->ks = NULL;
}

/* -v: define the probe, print its format, remove it (as perf-tools). */
static int view(struct tool *t)
{
	struct probe_tool *pt = t->ctx;
	int rc = TK_EXIT_RUNTIME, err;

	if (define(pt, t, TP_RECORD) == 0) {
		err = session_print_format(pt->s, pt->tp->name, stdout);
		if (err)
			pr_err("cannot read the format of %s: %s", pt->tp->name,
			       strerror(-err));
		else
			rc = TK_EXIT_OK;
	}
	session_free(pt->s);
	pt->s = NULL;
	return rc;
}

void probe_tool_init(struct probe_tool *pt, struct tool *t)
{
	t->ctx = pt;
	t->shared = TRACE_SHARED;
	t->setup = setup;
	t->drain = session_tool_drain;
	t->summary = session_tool_summary;
	t->teardown = teardown;
	t->session = &pt->s;
}

void probe_tool_check(struct tool *t)
{
	struct probe_tool *pt = t->ctx;

	trace_opts_sync(pt->t, t);
	if (pt->t->view) {
		if (t->opt.command)
			usage_error("-v and -c cannot be used together");
		t->list = view;
	}
}
