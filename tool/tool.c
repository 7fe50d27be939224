// SPDX-License-Identifier: GPL-2.0
/*
 * tool_run(): the order every command follows (see tool.h).  Commands never
 * exit from the middle of tracing: errors unwind through teardown, and the
 * atexit hook covers die() and a second Ctrl-C.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/opt.h"
#include "common/ready.h"
#include "tool/tool.h"
#include "tracefs/session.h"

static struct tool *running;
static struct loop *running_loop;

/* The tool's teardown, then the -c command's end: once, whichever path. */
static void teardown_once(void)
{
	struct tool *t = running;

	running = NULL;
	if (!t)
		return;
	if (t->teardown)
		t->teardown(t);
	child_end(&t->child);
}

void tool_stop(void)
{
	if (running_loop)
		loop_stop(running_loop);
}

bool tool_flush(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	if (running_loop)
		loop_set_broken_pipe(running_loop);
	return false;
}

void tool_flush_batch(void *unused)
{
	tool_flush();
}

static void own_option(void *ctx, int key, const char *arg)
{
	struct tool *t = ctx;

	t->option(t, key, arg);
}

static int on_duration(struct loop *l, int fd, void *arg)
{
	loop_stop(l);
	return 0;
}

static int on_target_exit(struct loop *l, int fd, void *arg)
{
	pr_info("target process %d exited", ((struct tool *)arg)->target);
	loop_stop(l);
	return 0;
}

static int on_command_exit(struct loop *l, int fd, void *arg)
{
	struct tool *t = arg;

	child_reap(&t->child, false);
	pr_info("command %d exited", t->child.pid);
	loop_stop(l);
	return 0;
}

static int on_interval(struct loop *l, int fd, void *arg)
{
	struct tool *t = arg;

	if (t->drain && t->drain(t) < 0)
		return -EIO;
	t->interval(t);
	if (!tool_flush())
		return 0;
	if (t->count && --t->count == 0)
		loop_stop(l);
	return 0;
}

/*
 * -c CMD: forked before setup (its PID scopes the sources: its process
 * tree), watched through a pidfd, released once tracing is live.
 */
static int start_command(struct tool *t, struct loop *l)
{
	char msg[256];
	int err;

	err = child_spawn(&t->child, t->opt.command, msg, sizeof(msg));
	if (err) {
		pr_err("cannot run '%s': %s", t->opt.command, msg);
		return err;
	}
	t->opt.pid = t->child.pid;
	t->opt.tree = true;
	err = loop_watch_pid(l, t->child.pid, on_command_exit, t);
	if (err < 0) {
		pr_err("cannot watch the command: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* setup -> begin -> loop -> end -> drain -> summary; the status (the
 * command's own, t->status, is added after teardown). */
static int trace(struct tool *t, struct loop *l)
{
	pid_t target;
	int err;

	if (t->opt.command && start_command(t, l) < 0)
		return TK_EXIT_RUNTIME;
	if (t->setup(t, l) < 0)
		return TK_EXIT_RUNTIME;
	if (t->opt.duration > 0)
		loop_timer(l, t->opt.duration * 1000, 0, on_duration, t);
	if (t->interval_secs > 0 && t->interval)
		loop_timer(l, t->interval_secs * 1000, t->interval_secs * 1000,
			   on_interval, t);
	target = t->target;
	if (!target && !t->opt.command)
		target = t->opt.pid ? t->opt.pid : t->opt.tid;
	if (target > 0) {
		t->target = target;
		err = loop_watch_pid(l, target, on_target_exit, t);
		if (err == -ESRCH) {
			pr_err("process %d is gone", target);
			return TK_EXIT_RUNTIME;
		}
	}
	err = t->begin ? t->begin(t) : 0;
	if (err < 0)
		return TK_EXIT_RUNTIME;
	if (err == 0) {
		char why[512];

		/* only a warning: tracing is live all the same */
		if (ready_create(why, sizeof(why)) < 0)
			pr_warn("%s", why);
		if (t->opt.command && (err = child_release(&t->child)) < 0) {
			pr_err("cannot start the command: %s", strerror(-err));
			return TK_EXIT_RUNTIME;
		}
		err = loop_run(l);
		/* -ECANCELED: a session ended it and says why (its instance
		 * switched off by another tool...) */
		if (err == -ECANCELED && session_ended_why()) {
			pr_err("%s", session_ended_why());
			return TK_EXIT_RUNTIME;
		}
		if (err < 0 && err != -EPIPE) {
			pr_err("event loop failed: %s", strerror(-err));
			return TK_EXIT_RUNTIME;
		}
	}
	if (t->end)
		t->end(t);
	if (loop_broken_pipe(l))
		return TK_EXIT_OK;
	if (t->drain && t->drain(t) < 0)
		return TK_EXIT_RUNTIME;
	if (t->summary)
		t->summary(t);
	tool_flush();
	/* a tracing tool ends with its command, and says how that went */
	if (t->opt.command && t->child.reaped && !t->summarises)
		return child_exit_code(&t->child);
	return TK_EXIT_OK;
}

int tool_run(struct tool *t, int argc, char **argv)
{
	static bool hooked;
	struct tool_cli cli = {
		.usage = t->usage, .shared = t->shared, .own = t->options,
		.option = own_option, .ctx = t,
	};
	struct loop *l;
	int ind, status;

	ind = tool_options_parse(argc, argv, &cli, &t->opt);
	if (t->check) {
		if (t->check(t, argc, argv, ind) < 0)
			return TK_EXIT_RUNTIME;
	} else if (ind < argc)
		usage_error("unexpected argument '%s'", argv[ind]);
	if (t->list)
		return t->list(t);

	l = loop_new();
	if (!l) {
		pr_err("cannot set up the event loop: %s", strerror(errno));
		return TK_EXIT_RUNTIME;
	}
	running = t;
	running_loop = l;
	if (!hooked)
		atexit(teardown_once);
	hooked = true;

	status = trace(t, l);

	teardown_once();
	if (status == TK_EXIT_OK)
		status = t->status;
	running_loop = NULL;
	loop_free(l);
	return status;
}
