// SPDX-License-Identifier: GPL-2.0
/*
 * What uprobe and kprobe share past their definitions: the session, the
 * probe in its group, the printing of each hit, -v, and the hand-over to
 * tool_run() (which owns the exit paths; the session goes with them).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tool/evout.h"
#include "common/ksym.h"
#include "common/log.h"
#include "tool/tool.h"
#include "tracefs/format.h"
#include "tool/probe_tool.h"
#include "tracefs/tracing.h"

static void on_event(const struct tk_event *ev, void *arg)
{
	struct probe_tool *pt = arg;

	probe_out_hit(&pt->out, ev, session_comm(pt->s, ev->pid));
}

/* A session with the probe defined in @mode; -1 after saying why. */
static int define(struct probe_tool *pt, enum tp_mode mode)
{
	struct session_opts so = {
		.ordered = true, .pid = pt->t->pid, .tid = pt->t->tid,
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

	if (define(pt, pt->t->stacks ? TP_STACK : TP_RECORD) < 0)
		return -1;
	if (pt->kernel) {
		pt->ks = ksyms_load(NULL);
		if (!pt->ks)
			pr_warn("kernel symbols unavailable (/proc/kallsyms): addresses in hex");
	}
	pt->out = (struct probe_out){
		.event = pt->tp->name, .ret = pt->ret, .json = pt->t->json,
		.stacks = pt->t->stacks, .kernel = pt->kernel, .ks = pt->ks,
		.pid = pt->t->pid, .tep = session_tep(pt->s),
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
static int view(struct probe_tool *pt)
{
	int rc = TK_EXIT_RUNTIME, err;

	if (define(pt, TP_RECORD) == 0) {
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

int probe_tool_run(struct probe_tool *pt)
{
	struct tool t = {
		.ctx = pt,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
		.teardown = teardown,
		.session = &pt->s,
		.json = pt->t->json,
		.duration = pt->t->duration,
		.target = pt->t->pid ? pt->t->pid : pt->t->tid,
	};

	if (pt->t->view)
		return view(pt);
	return tool_run(&t);
}
