/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TOOL_H
#define TAPKIT_TOOL_H

/*
 * The shared skeleton of every command:
 *
 *   parse     the suite's options (tool/options.h) and the command's own
 *   checks    operands and combinations (usage errors exit 2)
 *   list      a command (or mode) with no loop: tplist, -l, -v; its status
 *   setup     -c CMD forked and held; sources created, fds in the loop
 *   begin     (tapkit's begin probes) then tracing is live: the ready file,
 *             the -c command released
 *   loop      until Ctrl-C, -d, [interval [count]], the -p process or the
 *             -c command exits, or the command stops it
 *   end       (tapkit's end probes) drain, summary
 *   teardown  on every exit path (also from atexit); the -c command ended
 *
 * A command fills a struct tool with its callbacks and hands it to
 * tool_run(), which owns the order and the exit status.
 */
#include <stdbool.h>
#include <sys/types.h>

#include "common/child.h"
#include "tool/options.h"

struct loop;
struct session;

struct tool {
	void *ctx;			/* the command's own state */

	/* parse and checks */
	const char *usage;		/* --help */
	unsigned shared;		/* the TOPT_* it takes */
	const struct tool_option *options; /* its own, {0}-ended */
	void (*option)(struct tool *t, int key, const char *arg);
	/* the operands argv[optind..] and cross-checks (optional): usage
	 * errors exit 2; <0 is a runtime error (exit 1) after saying why */
	int (*check)(struct tool *t, int argc, char **argv, int optind);
	/* set by option() or check(): run this instead of tracing (a
	 * listing); returns the exit status */
	int (*list)(struct tool *t);

	/* Create sources and register their fds with @l.  0 or -errno. */
	int (*setup)(struct tool *t, struct loop *l);
	/* Before tracing is announced live (optional): <0 error, >0 end now
	 * without looping (e.g. exit() in a begin probe). */
	int (*begin)(struct tool *t);
	/* After the loop, before drain and summary (optional). */
	void (*end)(struct tool *t);
	/* Deliver every buffered event (before intervals and the summary). */
	int (*drain)(struct tool *t);
	/* Print one interval's summary (optional). */
	void (*interval)(struct tool *t);
	/* Print the final summary (optional). */
	void (*summary)(struct tool *t);
	/* Undo setup; runs on every exit path (also from atexit). */
	void (*teardown)(struct tool *t);

	/* prints a summary of its own: after -c it exits 0, not with the
	 * command's status */
	bool summarises;
	struct tool_opts opt;		/* the shared options */
	long interval_secs;		/* [interval [count]] */
	long count;
	pid_t target;			/* end when it exits (default: -p/-t) */
	/* the exit status the command asks for when nothing failed (e.g.
	 * tapkit's 1 after script errors) */
	int status;
	struct child child;		/* -c CMD */
	/* for the session_tool_*() callbacks (below): where the
	 * command keeps its one session */
	struct session **session;
};

/* Parse @argv and run the tool; returns the process exit status. */
int tool_run(struct tool *t, int argc, char **argv);

/*
 * struct tool callbacks for a command whose one source is the session at
 * *t->session (tool/session_tool.c): drain it; report lost events (and the
 * JSON summary object with -j); free it.
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
