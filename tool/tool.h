/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TOOL_H
#define TAPKIT_TOOL_H

/*
 * The shared skeleton of every command: parse -> checks -> setup -> loop ->
 * summary -> teardown.  A command fills a struct tool with its callbacks and
 * hands it to tool_run(), which owns the order and the exit paths.
 */
#include <stdbool.h>
#include <sys/types.h>

struct loop;
struct session;

struct tool {
	void *ctx;			/* the command's own state */
	/* Create sources and register their fds with @l.  0 or -errno. */
	int (*setup)(struct tool *t, struct loop *l);
	/* Deliver every buffered event (before intervals and the summary). */
	int (*drain)(struct tool *t);
	/* Print one interval's summary (optional). */
	void (*interval)(struct tool *t);
	/* Print the final summary (optional). */
	void (*summary)(struct tool *t);
	/* Undo setup; runs on every exit path (also from atexit). */
	void (*teardown)(struct tool *t);

	long duration;			/* -d SECS, 0: until Ctrl-C */
	long interval_secs;		/* [interval [count]] */
	long count;
	pid_t target;			/* -p PID: end when it exits */
	/* for the session_tool_*() callbacks (below): where the
	 * command keeps its one session, and whether it prints JSON */
	struct session **session;
	bool json;
};

/* Runs the tool and returns the process exit status. */
int tool_run(struct tool *t);

/*
 * struct tool callbacks for a command whose one source is the session at
 * *t->session (tool/session_tool.c): drain it; report lost events (and the
 * JSON summary object when t->json); free it.
 */
int session_tool_drain(struct tool *t);
void session_tool_summary(struct tool *t);
void session_tool_teardown(struct tool *t);

/* Stops the running tool's loop (e.g. on EPIPE from a handler). */
void tool_stop(void);
/* Flush stdout; on EPIPE stop quietly.  Returns false when output is gone. */
bool tool_flush(void);
/* tool_flush() as a per-batch callback (session_opts.batch_end). */
void tool_flush_batch(void *unused);


#endif
