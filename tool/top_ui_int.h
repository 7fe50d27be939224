/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TOP_UI_INT_H
#define TAPKIT_TOP_UI_INT_H

/*
 * Between the parts of tracetop's screen: tool/top_ui.c (the terminal, the
 * loop's fds, the ticks), tool/top_ui_keys.c (what each key does) and
 * tool/top_ui_draw.c (what a frame shows).  One screen per process: the
 * state is the single struct top_ui below.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tool/top.h"

#define UI_LINE_MAX	512	/* a prompt's text, a status message */
#define UI_WATCH_MAX	4096	/* raw-event lines asked of the model */

enum top_ui_pane {
	UI_PANE_NONE,
	UI_PANE_EVENTS,		/* e: the watched row's raw events */
	UI_PANE_HIST,		/* H: the selected row's histogram */
};

enum top_ui_overlay {
	UI_OV_NONE,
	UI_OV_HELP,		/* h, F1 */
	UI_OV_VIEWS,		/* v, F2 */
	UI_OV_SORT,		/* F6 */
};

enum top_ui_input {
	UI_IN_NONE,
	UI_IN_FILTER,		/* / */
	UI_IN_DELAY,		/* d */
	UI_IN_ARG,		/* a view's argument (funcs PATTERN) */
};

struct top_ui {
	const struct top_model *m;
	struct top_display *d;
	struct loop *l;
	void *scr;			/* SCREEN * */
	bool active;			/* the terminal is ours */
	bool utf8;			/* arrows as U+25BC/U+25B2 */
	bool colors;
	int timer_fd;			/* the interval, one-shot, re-armed */
	int winch_fd;			/* SIGWINCH's signalfd */
	bool winch_blocked;		/* we blocked it (unblock at the end) */

	uint64_t last_ns;		/* CLOCK_MONOTONIC of the last tick */
	uint64_t last_cpu_us;		/* our utime+stime then */
	double cpu_pct;			/* tracetop's own CPU in the last tick */
	long ticks;
	bool paused;
	bool show_lost;			/* L: the per-CPU lost line */

	/* the selection: the row's identity, followed across refreshes;
	 * cur_id is the row the bar is on (sel_id's, or the one at its
	 * place when it is not listed in this frame) */
	uint64_t sel_id;
	bool have_sel;
	uint64_t cur_id;
	bool have_cur;
	size_t sel;			/* its index in the last frame's rows */
	size_t top;			/* first row shown */
	size_t nrows;			/* rows in the last frame */
	int page;			/* table lines in the last frame */

	enum top_ui_pane pane;
	int hist_col;			/* UI_PANE_HIST: the column */
	size_t ev_scroll;		/* UI_PANE_EVENTS: lines up from the
					 * newest */
	enum top_ui_overlay overlay;
	size_t menu_sel;		/* the overlay's selected line */
	size_t menu_len;

	enum top_ui_input input;
	char in[UI_LINE_MAX];		/* the text typed at the prompt */
	size_t inlen;
	char arg_view[128];		/* UI_IN_ARG: the view it is for */
	char arg_name[64];		/* ... and what it asks: "PATTERN" */
	char filter[UI_LINE_MAX];	/* the applied text filter */
	char status[UI_LINE_MAX];	/* a message until the next key */
	/* stderr while the screen is up: a pipe read into the status line
	 * and held, written to the real stderr when the screen closes */
	int err_rfd;
	int saved_stderr;
	char *held;
	size_t nheld;

	/* the title line: where each shown column starts and ends, for
	 * mouse clicks */
	int title_y;
	int ncols_shown;
	int col_of[AGT_MAX_COLS];
	int col_x0[AGT_MAX_COLS], col_x1[AGT_MAX_COLS];
	int table_y0;			/* first row's line */
	int colw[AGT_MAX_COLS];		/* number columns widened for their
					 * values (this view) */
};

extern struct top_ui top_ui;

/* tool/top_ui_draw.c */
/* Draw a whole frame (only changed cells reach the terminal). */
void top_ui_draw(struct top_ui *u);
/* The sort column in effect: the display's, else the view's default. */
int top_ui_sort_col(struct top_ui *u, struct agtable *t);
/* The listing options of the display for agt_rows(). */
void top_ui_view_opts(struct top_ui *u, struct agtable *t,
		  struct agt_view_opts *vo);
/* The row the bar is on, or NULL (none, or an empty table). */
struct agt_row *top_ui_cur_row(struct top_ui *u, struct agtable *t);
/* The first column of @t keeping a histogram for @r (the sort column
 * first), or -1. */
int top_ui_hist_col(struct top_ui *u, struct agtable *t, const struct agt_row *r);

/* tool/top_ui_keys.c */
/* One key (a getch() value). */
void top_ui_key(struct top_ui *u, int ch);

/* tool/top_ui.c */
/* After the view changed (drill, back, the menu): a fresh interval,
 * the view's default sort, no selection, filter or pane. */
void top_ui_view_changed(struct top_ui *u);
/* Re-arm the interval timer from now (d->interval_ms changed). */
void top_ui_rearm(struct top_ui *u);
/* A message on the status line until the next key. */
void top_ui_status(struct top_ui *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Stop the loop (q). */
void top_ui_quit(struct top_ui *u);
/* The terminal's size again (SIGWINCH, KEY_RESIZE). */
void top_ui_resize(struct top_ui *u);

#endif
