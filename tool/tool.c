// SPDX-License-Identifier: GPL-2.0
/*
 * tool_run(): the order every command follows.  Commands never exit from the
 * middle of tracing: errors unwind through teardown, and the atexit hook
 * covers die() and a second Ctrl-C.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/ready.h"
#include "tool/tool.h"

static struct tool *running;
static struct loop *running_loop;

static void teardown_once(void)
{
	struct tool *t = running;

	running = NULL;
	if (t && t->teardown)
		t->teardown(t);
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

/*
 * $TAPKIT_READY_FILE names a file created once tracing is live, so a script
 * can start its workload only then (systemd's READY=1, as a file).
 */

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

int tool_run(struct tool *t)
{
	struct loop *l;
	int err, status = TK_EXIT_OK;

	l = loop_new();
	if (!l) {
		pr_err("cannot set up the event loop: %s", strerror(errno));
		return TK_EXIT_RUNTIME;
	}
	running = t;
	running_loop = l;
	atexit(teardown_once);

	err = t->setup(t, l);
	if (err < 0) {
		status = TK_EXIT_RUNTIME;
		goto out_teardown;
	}
	if (t->duration > 0)
		loop_timer(l, t->duration * 1000, 0, on_duration, t);
	if (t->interval_secs > 0 && t->interval)
		loop_timer(l, t->interval_secs * 1000, t->interval_secs * 1000,
			   on_interval, t);
	if (t->target > 0) {
		err = loop_watch_pid(l, t->target, on_target_exit, t);
		if (err == -ESRCH) {
			pr_err("process %d is gone", t->target);
			status = TK_EXIT_RUNTIME;
			goto out_teardown;
		}
	}
	ready_announce();

	err = loop_run(l);
	if (err < 0 && err != -EPIPE) {
		pr_err("event loop failed: %s", strerror(-err));
		status = TK_EXIT_RUNTIME;
	}
	if (!loop_broken_pipe(l) && t->drain && t->drain(t) < 0)
		status = TK_EXIT_RUNTIME;
	if (!loop_broken_pipe(l)) {
		if (t->summary)
			t->summary(t);
		tool_flush();
	}

out_teardown:
	teardown_once();
	running_loop = NULL;
	loop_free(l);
	return status;
}
