/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TOP_H
#define TAPKIT_TOP_H

/*
 * tracetop's engine: views as data over the tracing core.
 *
 * A view (struct top_view) is a few strings: the feeder that makes its
 * samples, its key columns, its value columns with their aggregation, its
 * default sort, and the view a row drills into.  A feeder (struct
 * top_feeder, one file each: tool/top_feed_<name>.c) owns the events:
 * it adds them to the session (pushing the view's filters into the kernel
 * where a filter string or set_event_pid can say them), and turns each
 * record into a struct agt_sample whose slots are its fields.  The engine
 * (tool/top.c) opens a view's session, resolves the columns and filters to
 * the feeder's fields, applies every filter again in userspace (so a filter
 * the kernel could not take is still exact), feeds the table
 * (common/agtable.h), and keeps the stack of drilled views.
 *
 * Column specs (views and -k/-v on the command line):
 *	keys	"pid,comm"			fields of the feeder, comma-separated
 *	values	"count,rate,err:sum=ERRORS,lat:p99"
 *		count | rate | FIELD:AGG[=TITLE], AGG one of
 *		sum min max avg rate p50 p99 last
 *
 * The screen (tool/top_ui.c) and the batch printers (tool/top_print.c)
 * see a view through struct top_model, which a script's arrays
 * (tapkit --top) also implement.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/agtable.h"
#include "common/event.h"

struct loop;
struct top;
struct session;
struct tp;

/* A view: data only. */
struct top_view {
	const char *name;	/* "syscalls" */
	const char *help;	/* one line, for the view menu and --list */
	const char *feed;	/* its feeder's name */
	const char *keys;	/* key columns (spec above) */
	const char *values;	/* value columns */
	const char *sort;	/* default sort column (title) */
	/* "VIEW:FIELD[,FIELD]": Enter on a row opens VIEW with these key
	 * fields of the row as its filters; NULL: no drill-down */
	const char *drill;
	bool hidden;		/* a drill-down target, not in the menu */
	bool needs_arg;		/* takes an argument (funcs PATTERN) */
};

/* A field of a feeder's samples: slot i of its agt_sample. */
struct top_field {
	const char *name;	/* "pid", "lat" */
	const char *title;	/* default column title: "PID", "LAT" */
	enum agt_type type;
	enum agt_unit unit;
	int width;		/* 0: from title and type */
};

/* A filter on a field: the value as the user or the drilled row gave it. */
struct top_filter {
	int slot;		/* the feeder's field */
	const char *field;	/* its name */
	const char *text;	/* the value as text */
	int64_t num;		/* ... as a number (integer fields) */
	bool kernel;		/* the feeder pushed it into the kernel */
};

struct top_feed;

/* A source of samples.  Every hook but event() is optional. */
struct top_feeder {
	const char *name;
	/*
	 * Fill f->fields/f->nfields (a static table, or built from f->arg,
	 * e.g. a tracepoint's format).  0, or -errno with f->err set.
	 */
	int (*init)(struct top_feed *f);
	/*
	 * Add the events to f->s (not started yet); set .kernel on the
	 * filters (f->filters) it pushed into the kernel.  0 or -errno with
	 * f->err (e.g. the session's error).
	 */
	int (*setup)(struct top_feed *f);
	/* One record of f->s: make a sample, then top_emit(f, ev, &s). */
	void (*event)(struct top_feed *f, const struct tk_event *ev);
	/* At each tick, before the interval closes (counters are read and
	 * emitted here, with their deltas as weights). */
	void (*tick)(struct top_feed *f);
	/* Free f->priv. */
	void (*release)(struct top_feed *f);
	/* session_opts it needs */
	bool ordered;		/* records in timestamp order (pairing) */
	/* the field that is the process (tgid) a record comes from: the
	 * engine turns a filter on it into the session's PID
	 * (set_event_pid); NULL: none */
	const char *pid_field;
	/*
	 * Its records are made in whatever context runs, about other tasks
	 * (a wakeup by the waker, a switch, a completion in an interrupt):
	 * the session keeps tracetop's own records (session_opts.keep_self).
	 */
	bool keep_self;
	/*
	 * ... and a scope by the running task would drop some of a
	 * process's records (a completion in an interrupt, a wakeup made
	 * while another task runs) and keep others' (a wakeup the process
	 * makes): -p/-c become a filter on pid_field instead.
	 */
	bool scope_by_field;
	/*
	 * ... while the kernel's PID filter may still narrow what is
	 * recorded: ftrace checks a switch or a wakeup against the task
	 * switched or woken, whoever runs, so set_event_pid (with its
	 * children, the filter on pid_field deciding) loses none of the
	 * process's scheduler events.
	 */
	bool scope_kernel;
};

/* A feeder at work for one view. */
struct top_feed {
	const struct top_feeder *ops;
	const char *arg;		/* the view's argument (pattern, event) */
	const struct top_field *fields;
	int nfields;
	struct top_filter *filters;
	int nfilters;
	struct session *s;
	pid_t pid;			/* -p (the session scopes to it) */
	int verbose;			/* -v: feeders say what they use */
	/* bit i: field i is read by a column or a filter of the view, so a
	 * feeder can leave out the events only other fields need (the
	 * syscalls feeder records entries only to time calls) */
	uint64_t used;
	void *priv;			/* the feeder's own */
	struct top *top;		/* its engine */
	char err[256];
};

/* The field named @name of @f, or -1. */
int top_field_find(const struct top_feed *f, const char *name);
/* The filter on field @name, or NULL. */
struct top_filter *top_filter_find(struct top_feed *f, const char *name);
/*
 * top_emit() - one sample from record @ev (NULL when it comes from a
 * counter): filtered in userspace by every filter, added to the table,
 * and, if the row it lands in is watched (top_watch()), @ev described as
 * a line of the raw-events pane.
 */
void top_emit(struct top_feed *f, const struct tk_event *ev,
	      const struct agt_sample *s);

/* The feeders, by name (tool/top_feeds.c lists them). */
const struct top_feeder *top_feeder_find(const char *name);

/* The built-in views (tool/top_views.c). */
const struct top_view *top_views(size_t *n);
const struct top_view *top_view_find(const char *name);

/* ---- the engine ---- */

struct top_opts {
	pid_t pid;		/* -p: every view scoped to this process */
	bool tree;		/* with pid: its process tree (-c) */
	unsigned long buffer_kb;
	int verbose;
};

struct top;

/* An engine on loop @l; nothing opened yet.  Free with top_free(). */
struct top *top_new(const struct top_opts *o, struct loop *l);
void top_free(struct top *t);

/**
 * top_open() - open view @v (with @arg for views that take one) filtered
 * by @filters ("FIELD=VALUE" strings, @n of them), on top of the stack.
 * The view before it is closed (its session removed) but kept for
 * top_back().  0, or -errno with top_error() saying why; on failure the
 * view before stays open.
 */
int top_open(struct top *t, const struct top_view *v, const char *arg,
	     const char *const *filters, int n);
/* Enter: open the drill-down of the current view for row @r.  -ENOENT
 * when the view has none. */
int top_drill(struct top *t, const struct agt_row *r);
/* Backspace: reopen the view below.  -ENOENT at the bottom. */
int top_back(struct top *t);
/* Drain the session, let the feeder read its counters, close the
 * interval (@elapsed_ns since the last tick). */
void top_tick(struct top *t, uint64_t elapsed_ns);
const char *top_error(const struct top *t);

/* The running session (lost events, name), or NULL. */
struct session *top_session(struct top *t);
struct top_model;
/* The engine as a model for the screen and the printers. */
const struct top_model *top_engine_model(struct top *t);

/* ---- what the screen and the printers show ---- */

/* Counters for the header. */
struct top_stats {
	uint64_t events;		/* records (or counted hits) in the
					 * last interval */
	double events_per_sec;
	uint64_t lost;			/* all lost so far */
	int ncpus;
	const uint64_t *lost_per_cpu;	/* [ncpus], NULL: none kept */
	uint64_t interval_ns;		/* the last interval's length */
};

/* A view as the screen sees it: the engine's, or a script's arrays. */
struct top_model {
	void *ctx;
	struct agtable *(*table)(void *ctx);
	/* the current view's name and filters: "syscalls > pid=1234" */
	const char *(*path)(void *ctx, char *buf, size_t len);
	/* the default sort column of the current view */
	int (*sort_col)(void *ctx);
	void (*stats)(void *ctx, struct top_stats *st);
	/* the views the menu offers: name and help of the i-th; false past
	 * the last */
	bool (*view_at)(void *ctx, size_t i, const char **name, const char **help);
	/* open the named view (the menu); 0 or -errno, msg in err */
	int (*open)(void *ctx, const char *name, char *err, size_t errlen);
	/* Enter on @r / Backspace; -ENOENT: nothing to drill or go back to */
	int (*drill)(void *ctx, const struct agt_row *r, char *err, size_t errlen);
	int (*back)(void *ctx, char *err, size_t errlen);
	/* the raw-events pane: watch the events of @r (NULL: stop); the
	 * latest lines, oldest first, at most @max; NULL hook: no pane */
	void (*watch)(void *ctx, const struct agt_row *r);
	size_t (*watch_lines)(void *ctx, const char **lines, size_t max);
	/* close the interval now (the UI's timer): @elapsed_ns since the
	 * last */
	void (*tick)(void *ctx, uint64_t elapsed_ns);
};

/* ---- the screen and the printers ---- */

struct top_display {
	enum agt_mode mode;		/* z */
	uint64_t interval_ms;		/* -d/--delay, d */
	long count;			/* -n: intervals, 0: until q/Ctrl-C */
	bool json;			/* -j */
	int rows;			/* batch: print at most this many; 0: all */
	int sort_col;			/* -s COLUMN, -1: the view's */
	bool ascending;
	const char *filter;		/* text filter of rows */
};

/*
 * top_print_text()/top_print_json() - one interval of @m as top -b does:
 * a header line (time, path, events/s, lost), the column titles and rows;
 * or one JSON Lines object {"time","view","mode","interval_ms","events",
 * "events_per_sec","lost","rows":[{...}]}.  (tool/top_print.c)
 */
void top_print_text(const struct top_model *m, const struct top_display *d,
		    FILE *f);
void top_print_json(const struct top_model *m, const struct top_display *d,
		    FILE *f);

/*
 * top_batch_start() - top -b: on loop @l, every interval tick @m and print
 * it (text, or JSON Lines with d->json) on stdout; after d->count
 * intervals stop the loop (tool_stop()).  0 or -errno.  (tool/top_print.c)
 */
int top_batch_start(const struct top_model *m, struct top_display *d,
		    struct loop *l);
/* At the end of a batch that did not run its -n intervals (Ctrl-C, the end
 * of -p's process or -c's command): print the interval cut short, so the
 * last totals are never lost.  (tool/top_print.c) */
void top_batch_end(void);

/*
 * top_ui_start() - the interactive screen: takes the terminal (ncurses),
 * puts the keyboard, SIGWINCH and the interval timer into loop @l, and
 * redraws on each tick and key; q or d->count intervals stop the loop
 * (tool_stop()).  0, or -errno with @err saying why (stdin or stdout not a
 * terminal, an unknown $TERM).  (tool/top_ui.c)
 */
int top_ui_start(const struct top_model *m, struct top_display *d,
		 struct loop *l, char *err, size_t errlen);
/* Give the terminal back as it was; idempotent, also from atexit and on
 * every exit path of the command. */
void top_ui_end(void);

#endif
