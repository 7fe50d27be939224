// SPDX-License-Identifier: GPL-2.0
/*
 * What each key of tracetop's screen does (htop's and csysdig's habits):
 * a prompt on the status line (/, d, a view's argument) takes the keys
 * first, then an open overlay (help, views, sort), then the events pane
 * (it scrolls), then the table.  The help screen (h, F1) lists them all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "tool/top_ui_int.h"

#define KEY_ESC		27
#define CTRL(c)		((c) & 0x1f)

static bool is_backspace(int ch)
{
	return ch == KEY_BACKSPACE || ch == 127 || ch == 8;
}

static bool is_enter(int ch)
{
	return ch == '\n' || ch == '\r' || ch == KEY_ENTER;
}

/* Put the bar on row @i of the current listing. */
static void select_index(struct top_ui *u, long i)
{
	struct agtable *t = u->m->table(u->m->ctx);
	struct agt_view_opts vo;
	struct agt_row **rows;
	size_t n;

	if (!t)
		return;
	ui_view_opts(u, t, &vo);
	n = agt_rows(t, &vo, &rows);
	if (!n)
		return;
	if (i < 0)
		i = 0;
	if ((size_t)i >= n)
		i = (long)n - 1;
	u->sel = (size_t)i;
	u->sel_id = u->cur_id = agt_row_id(rows[i]);
	u->have_sel = u->have_cur = true;
}

static void set_sort(struct top_ui *u, int col, bool ascending)
{
	u->d->sort_col = col;
	u->d->ascending = ascending;
}

/* < and >: the sort column moves among the shown columns. */
static void sort_step(struct top_ui *u, int dir)
{
	struct agtable *t = u->m->table(u->m->ctx);
	int i, s, n;

	if (!t)
		return;
	s = ui_sort_col(u, t);
	n = u->ncols_shown;
	if (!n)
		return;
	for (i = 0; i < n && u->col_of[i] != s; i++)
		;
	i = i == n ? 0 : (i + dir + n) % n;
	set_sort(u, u->col_of[i], u->d->ascending);
}

static void after_view_change(struct top_ui *u, int ret, const char *err,
			      const char *none)
{
	if (!ret) {
		ui_view_changed(u);
		u->status[0] = '\0';
		return;
	}
	if (ret == -ENOENT && none)
		ui_status(u, "%s", none);
	else
		ui_status(u, "%s", err[0] ? err : strerror(-ret));
}

static void drill(struct top_ui *u)
{
	struct agtable *t = u->m->table(u->m->ctx);
	struct agt_row *r = t ? ui_cur_row(u, t) : NULL;
	char err[UI_LINE_MAX] = "";
	int ret;

	if (!r) {
		ui_status(u, "no row selected");
		return;
	}
	if (!u->m->drill) {
		ui_status(u, "no drill-down for this view");
		return;
	}
	ret = u->m->drill(u->m->ctx, r, err, sizeof(err));
	after_view_change(u, ret, err, "no drill-down for this view");
}

static void back(struct top_ui *u)
{
	char err[UI_LINE_MAX] = "";
	int ret;

	if (!u->m->back) {
		ui_status(u, "no view to go back to");
		return;
	}
	ret = u->m->back(u->m->ctx, err, sizeof(err));
	after_view_change(u, ret, err, "no view to go back to");
}

static void open_view(struct top_ui *u, const char *spec)
{
	char err[UI_LINE_MAX] = "";
	int ret;

	if (!u->m->open) {
		ui_status(u, "no other views");
		return;
	}
	ret = u->m->open(u->m->ctx, spec, err, sizeof(err));
	after_view_change(u, ret, err, NULL);
}

/*
 * Does the view named @name take an argument?  A model may list it as
 * "NAME ARG" (the placeholder after a space); the built-in views say so in
 * their table (needs_arg).
 */
static bool view_needs_arg(const char *name, char *base, size_t len)
{
	const char *sp = strchr(name, ' ');
	const struct top_view *v;

	snprintf(base, len, "%.*s", sp ? (int)(sp - name) : (int)strlen(name), name);
	if (sp)
		return true;
	v = top_view_find(base);
	return v && v->needs_arg;
}

static void choose_view(struct top_ui *u)
{
	const char *name, *help;
	char base[sizeof(u->arg_view)];

	if (!u->m->view_at || !u->m->view_at(u->m->ctx, u->menu_sel, &name, &help))
		return;
	u->overlay = UI_OV_NONE;
	if (view_needs_arg(name, base, sizeof(base))) {
		snprintf(u->arg_view, sizeof(u->arg_view), "%s", base);
		u->input = UI_IN_ARG;
		u->inlen = 0;
		return;
	}
	open_view(u, base);
}

static void toggle_events(struct top_ui *u)
{
	struct agtable *t = u->m->table(u->m->ctx);
	struct agt_row *r = t ? ui_cur_row(u, t) : NULL;

	if (u->pane == UI_PANE_EVENTS) {
		u->m->watch(u->m->ctx, NULL);
		u->pane = UI_PANE_NONE;
		return;
	}
	if (!u->m->watch || !u->m->watch_lines) {
		ui_status(u, "no raw events in this view");
		return;
	}
	if (!r) {
		ui_status(u, "no row selected");
		return;
	}
	u->m->watch(u->m->ctx, r);
	u->pane = UI_PANE_EVENTS;
	u->ev_scroll = 0;
}

static void toggle_hist(struct top_ui *u)
{
	struct agtable *t = u->m->table(u->m->ctx);
	struct agt_row *r = t ? ui_cur_row(u, t) : NULL;
	int c;

	if (u->pane == UI_PANE_HIST) {
		u->pane = UI_PANE_NONE;
		return;
	}
	c = t ? ui_hist_col(u, t, r) : -1;
	if (c < 0) {
		ui_status(u, r ? "no histogram in this view" : "no row selected");
		return;
	}
	if (u->pane == UI_PANE_EVENTS)
		u->m->watch(u->m->ctx, NULL);
	u->pane = UI_PANE_HIST;
	u->hist_col = c;
}

static void apply_input(struct top_ui *u)
{
	char *end;
	double secs;

	u->in[u->inlen] = '\0';
	switch (u->input) {
	case UI_IN_FILTER:
		snprintf(u->filter, sizeof(u->filter), "%s", u->in);
		u->d->filter = u->filter[0] ? u->filter : NULL;
		break;
	case UI_IN_DELAY:
		secs = strtod(u->in, &end);
		if (end == u->in || *end || !(secs >= 0.1) || secs > 86400) {
			ui_status(u, "interval '%s': give seconds from 0.1 to 86400", u->in);
			break;
		}
		u->d->interval_ms = (uint64_t)(secs * 1000.0 + 0.5);
		ui_rearm(u);
		break;
	case UI_IN_ARG: {
		char spec[sizeof(u->arg_view) + UI_LINE_MAX + 2];

		if (!u->inlen) {
			ui_status(u, "%s needs an argument", u->arg_view);
			break;
		}
		snprintf(spec, sizeof(spec), "%s %s", u->arg_view, u->in);
		u->input = UI_IN_NONE;
		open_view(u, spec);
		break;
	}
	case UI_IN_NONE:
		break;
	}
	u->input = UI_IN_NONE;
}

static void input_key(struct top_ui *u, int ch)
{
	if (is_enter(ch)) {
		apply_input(u);
	} else if (ch == KEY_ESC) {
		if (u->input == UI_IN_FILTER) {
			u->filter[0] = '\0';
			u->d->filter = NULL;
		}
		u->input = UI_IN_NONE;
	} else if (is_backspace(ch)) {
		if (u->inlen)
			u->inlen--;
	} else if (ch == CTRL('u')) {
		u->inlen = 0;
	} else if (ch >= 0x20 && ch < 0x7f && u->inlen + 1 < sizeof(u->in)) {
		/* printable ASCII: keys, paths, numbers */
		if (u->input == UI_IN_DELAY && !strchr("0123456789.", ch))
			return;
		u->in[u->inlen++] = (char)ch;
	}
}

static void menu_key(struct top_ui *u, int ch)
{
	switch (ch) {
	case KEY_UP:
		if (u->menu_sel)
			u->menu_sel--;
		return;
	case KEY_DOWN:
		if (u->menu_sel + 1 < u->menu_len)
			u->menu_sel++;
		return;
	case KEY_HOME:
		u->menu_sel = 0;
		return;
	case KEY_END:
		u->menu_sel = u->menu_len ? u->menu_len - 1 : 0;
		return;
	case KEY_ESC:
	case 'q':
		u->overlay = UI_OV_NONE;
		return;
	}
	if (!is_enter(ch))
		return;
	if (u->overlay == UI_OV_VIEWS) {
		choose_view(u);
	} else {
		set_sort(u, (int)u->menu_sel, false);
		u->overlay = UI_OV_NONE;
	}
}

static void events_key(struct top_ui *u, int ch)
{
	int page = u->page > 1 ? u->page : 1;

	switch (ch) {
	case KEY_UP:
		u->ev_scroll++;
		break;
	case KEY_DOWN:
		if (u->ev_scroll)
			u->ev_scroll--;
		break;
	case KEY_PPAGE:
		u->ev_scroll += (size_t)page;
		break;
	case KEY_NPAGE:
		u->ev_scroll = u->ev_scroll > (size_t)page ? u->ev_scroll - (size_t)page : 0;
		break;
	case KEY_END:
		u->ev_scroll = 0;
		break;
	}
}

static void mouse(struct top_ui *u)
{
	MEVENT ev;
	int i;

	if (getmouse(&ev) != OK || u->overlay != UI_OV_NONE ||
	    !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
		return;
	if (ev.y == u->title_y) {
		struct agtable *t = u->m->table(u->m->ctx);

		for (i = 0; t && i < u->ncols_shown; i++) {
			if (ev.x < u->col_x0[i] || ev.x >= u->col_x1[i] + 1)
				continue;
			if (u->col_of[i] == ui_sort_col(u, t))
				set_sort(u, u->col_of[i], !u->d->ascending);
			else
				set_sort(u, u->col_of[i], false);
			return;
		}
		return;
	}
	if (ev.y >= u->table_y0 && ev.y < u->table_y0 + u->page)
		select_index(u, (long)u->top + (ev.y - u->table_y0));
}

static void table_key(struct top_ui *u, int ch)
{
	long page = u->page > 1 ? u->page : 1;

	switch (ch) {
	case KEY_UP:	select_index(u, (long)u->sel - 1); break;
	case KEY_DOWN:	select_index(u, (long)u->sel + 1); break;
	case KEY_PPAGE:	select_index(u, (long)u->sel - page); break;
	case KEY_NPAGE:	select_index(u, (long)u->sel + page); break;
	case KEY_HOME:	select_index(u, 0); break;
	case KEY_END:	select_index(u, (long)u->nrows); break;
	case '<':	sort_step(u, -1); break;
	case '>':	sort_step(u, 1); break;
	case 'I':	u->d->ascending = !u->d->ascending; break;
	case KEY_F(6):
		u->overlay = UI_OV_SORT;
		u->menu_sel = (size_t)ui_sort_col(u, u->m->table(u->m->ctx));
		break;
	case 'e':	toggle_events(u); break;
	case 'H':	toggle_hist(u); break;
	case KEY_ESC:
		if (u->pane == UI_PANE_EVENTS)
			u->m->watch(u->m->ctx, NULL);
		u->pane = UI_PANE_NONE;
		if (u->d->filter) {
			u->filter[0] = '\0';
			u->d->filter = NULL;
		}
		break;
	case KEY_MOUSE:	mouse(u); break;
	default:
		if (is_enter(ch))
			drill(u);
		else if (is_backspace(ch))
			back(u);
		break;
	}
}

void ui_key(struct top_ui *u, int ch)
{
	if (ch == KEY_RESIZE)
		return;
	u->status[0] = '\0';
	if (u->input != UI_IN_NONE) {
		input_key(u, ch);
		return;
	}
	if (u->overlay == UI_OV_HELP) {
		u->overlay = UI_OV_NONE;
		return;
	}
	if (u->overlay != UI_OV_NONE) {
		menu_key(u, ch);
		return;
	}
	/* the keys that work everywhere else */
	switch (ch) {
	case 'q':
		ui_quit(u);
		return;
	case 'h':
	case '?':
	case KEY_F(1):
		u->overlay = UI_OV_HELP;
		return;
	case 'v':
	case KEY_F(2):
		u->overlay = UI_OV_VIEWS;
		u->menu_sel = 0;
		return;
	case '/':
		u->input = UI_IN_FILTER;
		u->inlen = strlen(u->filter);
		memcpy(u->in, u->filter, u->inlen);
		return;
	case 'd':
		u->input = UI_IN_DELAY;
		u->inlen = 0;
		return;
	case 'p':
		u->paused = !u->paused;
		return;
	case 'z':
		u->d->mode = u->d->mode == AGT_INTERVAL ? AGT_CUMULATIVE :
			     u->d->mode == AGT_CUMULATIVE ? AGT_DECAY : AGT_INTERVAL;
		return;
	case 'L':
		u->show_lost = !u->show_lost;
		return;
	case CTRL('l'):
		clearok(curscr, TRUE);
		return;
	}
	if (u->pane == UI_PANE_EVENTS && ch != 'e' && ch != KEY_ESC &&
	    ch != 'H' && !is_enter(ch) && !is_backspace(ch)) {
		events_key(u, ch);
		return;
	}
	table_key(u, ch);
}
