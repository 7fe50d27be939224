// SPDX-License-Identifier: GPL-2.0
/*
 * One frame of tracetop's screen:
 *
 *	header		tracetop - 12:01:02  syscalls > pid=42  ev/s 1200  lost 0
 *			cpu 0.3%  every 1.0s  [interval]
 *	(L)		lost per CPU
 *	titles		the columns, reverse video, the sorted one with an arrow
 *	rows		with the selection bar
 *	(pane)		e: the watched row's raw events, H: a histogram
 *	status		a prompt, a message, or the main keys
 *
 * or, over the rows, the help, the view menu or the sort chooser.  A
 * frame is drawn whole into curses' buffer after erase(); doupdate() then
 * sends only the cells that differ from what the terminal shows.
 *
 * Columns keep their order with the key columns first; those that do not
 * fit are cut from the right (a text column at the edge is shortened).
 * Every text from the traced system reaches this file escaped already
 * (agt_cell()); control characters are still shown as '?' here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include <curses.h>

#include "tool/top_ui_int.h"

#define CP_TITLE	1
#define CP_BAR		2
#define CP_FIG		3
#define CP_WARN		4
#define CP_KEY		5

static attr_t title_attr(struct top_ui *u)
{
	return u->colors ? COLOR_PAIR(CP_TITLE) : A_REVERSE;
}

static attr_t bar_attr(struct top_ui *u)
{
	return u->colors ? COLOR_PAIR(CP_BAR) : A_REVERSE;
}

/*
 * Put @s at (@y, @x) in a field of @w cells (padded with spaces, cut when
 * longer), left or right aligned.  Returns the cells written (@w).
 */
static int put(int y, int x, int w, const char *s, bool right)
{
	wchar_t wbuf[UI_LINE_MAX];
	mbstate_t st;
	size_t n = 0, len = strlen(s);
	int used = 0, cw, pad;

	if (w <= 0)
		return 0;
	memset(&st, 0, sizeof(st));
	while (len && n < UI_LINE_MAX - 1) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &st);

		if (k == (size_t)-1 || k == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			wc = L'?';
			k = 1;
		} else if (k == 0) {
			break;
		}
		cw = wcwidth(wc);
		if (cw < 0) {
			wc = L'?';
			cw = 1;
		}
		if (used + cw > w)
			break;
		wbuf[n++] = wc;
		used += cw;
		s += k;
		len -= k;
	}
	wbuf[n] = L'\0';
	pad = w - used;
	move(y, x);
	if (right)
		printw("%*s", pad, "");
	addnwstr(wbuf, (int)n);
	if (!right)
		printw("%*s", pad, "");
	return w;
}

/**
 * top_ui_sort_col() - the column sorted on: the display's, else the view's
 * default, else the first value column.
 */
int top_ui_sort_col(struct top_ui *u, struct agtable *t)
{
	int n = agt_ncols(t), c = u->d->sort_col;

	if (c >= 0 && c < n)
		return c;
	c = u->m->sort_col ? u->m->sort_col(u->m->ctx) : -1;
	if (c >= 0 && c < n)
		return c;
	for (c = 0; c < n; c++)
		if (agt_col(t, c)->fn != AGT_KEY)
			return c;
	return 0;
}

/**
 * top_ui_view_opts() - the listing options of the display (mode, sort,
 * text filter) for agt_rows().
 */
void top_ui_view_opts(struct top_ui *u, struct agtable *t, struct agt_view_opts *vo)
{
	memset(vo, 0, sizeof(*vo));
	vo->mode = u->d->mode;
	vo->sort_col = top_ui_sort_col(u, t);
	vo->ascending = u->d->ascending;
	vo->filter = u->d->filter;
}

/**
 * top_ui_cur_row() - the row under the selection bar, or NULL.
 */
struct agt_row *top_ui_cur_row(struct top_ui *u, struct agtable *t)
{
	return u->have_cur ? agt_row_find(t, u->cur_id) : NULL;
}

/**
 * top_ui_hist_col() - the column whose histogram the H pane shows for @r:
 * the sort column if it keeps one, else a percentile column, else any
 * column with one; -1 when none does.
 */
int top_ui_hist_col(struct top_ui *u, struct agtable *t, const struct agt_row *r)
{
	int c, n = agt_ncols(t), s = top_ui_sort_col(u, t);

	if (!r)
		return -1;
	if (agt_col(t, s)->fn != AGT_KEY && agt_hist(t, r, s, u->d->mode))
		return s;
	/* a percentile column names the histogram best (P99 of getppid) */
	for (c = 0; c < n; c++)
		if ((agt_col(t, c)->fn == AGT_P99 || agt_col(t, c)->fn == AGT_P50) &&
		    agt_hist(t, r, c, u->d->mode))
			return c;
	for (c = 0; c < n; c++)
		if (agt_col(t, c)->fn != AGT_KEY && agt_hist(t, r, c, u->d->mode))
			return c;
	return -1;
}

static bool is_text(const struct agt_col *c)
{
	return c->type == AGT_STR && (c->fn == AGT_KEY || c->fn == AGT_LAST);
}

/* The keys of @r as one text: "1234 sysloop". */
static char *row_keys(struct agtable *t, const struct agt_row *r,
		      enum agt_mode mode, char *buf, size_t len)
{
	char cell[AGT_STR_MAX * 4 + 8];
	size_t at = 0;
	int c;

	buf[0] = '\0';
	for (c = 0; c < agt_ncols(t) && at + 1 < len; c++) {
		if (agt_col(t, c)->fn != AGT_KEY)
			continue;
		agt_cell(t, r, c, mode, cell, sizeof(cell));
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "", cell);
	}
	return buf;
}

static const char *mode_name(enum agt_mode m)
{
	return m == AGT_CUMULATIVE ? "cumulative" : m == AGT_DECAY ? "decay" : "interval";
}

static void draw_header(struct top_ui *u, int *y)
{
	struct top_stats st = { 0 };
	char path[UI_LINE_MAX], crumbs[UI_LINE_MAX], left[64], tail[UI_LINE_MAX];
	const char *p;
	time_t now = time(NULL);
	struct tm tm;
	int room = 0, pass;
	size_t plen;

	if (u->m->stats)
		u->m->stats(u->m->ctx, &st);
	localtime_r(&now, &tm);
	snprintf(left, sizeof(left), "tracetop - %02d:%02d:%02d  ", tm.tm_hour,
		 tm.tm_min, tm.tm_sec);
	p = u->m->path ? u->m->path(u->m->ctx, path, sizeof(path)) : NULL;
	snprintf(crumbs, sizeof(crumbs), "%s%s%s", p ? p : "",
		 u->d->filter ? " /" : "", u->d->filter ? u->d->filter : "");
	plen = strlen(crumbs);
	/* narrow: the name goes first, then the wide spacing; then the path
	 * gives way, keeping its end (the deepest crumb) */
	for (pass = 0; pass < 3; pass++) {
		const char *sp = pass < 2 ? "  " : " ";

		if (pass)
			snprintf(left, sizeof(left), "%02d:%02d:%02d%s", tm.tm_hour,
				 tm.tm_min, tm.tm_sec, sp);
		snprintf(tail, sizeof(tail), "%sev/s %.0f%slost %llu%scpu %.1f%%%severy %.1fs%s[%s]%s",
			 sp, st.events_per_sec, sp, (unsigned long long)st.lost, sp,
			 u->cpu_pct, sp, (double)u->d->interval_ms / 1000.0, sp,
			 mode_name(u->d->mode), u->paused ? " PAUSED" : "");
		room = COLS - (int)strlen(left) - (int)strlen(tail);
		if (room >= (int)plen)
			break;
	}
	attron(A_BOLD);
	put(*y, 0, COLS, left, false);
	if (room >= 4 && (int)plen > room) {
		char cut[UI_LINE_MAX];

		snprintf(cut, sizeof(cut), "..%s", crumbs + plen - (size_t)(room - 2));
		put(*y, (int)strlen(left), room, cut, false);
	} else if (room > 0) {
		put(*y, (int)strlen(left), room, crumbs, false);
	}
	if (room < 0)
		room = 0;
	attroff(A_BOLD);
	if (u->colors)
		attron(COLOR_PAIR(st.lost ? CP_WARN : CP_FIG));
	put(*y, (int)strlen(left) + room, COLS - (int)strlen(left) - room, tail, false);
	if (u->colors)
		attroff(COLOR_PAIR(st.lost ? CP_WARN : CP_FIG));
	(*y)++;
	if (u->show_lost) {
		char line[UI_LINE_MAX];
		size_t at;
		int c;

		at = (size_t)snprintf(line, sizeof(line), "lost per CPU:");
		if (!st.lost_per_cpu)
			snprintf(line + at, sizeof(line) - at, "%s",
				 st.lost ? " not counted per CPU" : " none");
		for (c = 0; st.lost_per_cpu && c < st.ncpus && at + 1 < sizeof(line); c++)
			at += (size_t)snprintf(line + at, sizeof(line) - at, " %d:%llu", c,
					       (unsigned long long)st.lost_per_cpu[c]);
		put(*y, 0, COLS, line, false);
		(*y)++;
	}
}

/* Which columns fit, where: u->col_of[], col_x0[], col_x1[]. */
static void layout(struct top_ui *u, struct agtable *t)
{
	int pass, c, x = 0, n = agt_ncols(t);

	u->ncols_shown = 0;
	for (pass = 0; pass < 2; pass++) {
		for (c = 0; c < n; c++) {
			const struct agt_col *col = agt_col(t, c);
			int w = agt_width(t, c), tw = (int)strlen(col->title) + 1;
			int sep = u->ncols_shown ? 1 : 0;

			if ((col->fn == AGT_KEY) != (pass == 0))
				continue;
			if (w < tw)
				w = tw;
			if (w < u->colw[c])
				w = u->colw[c];
			if (x + sep + w > COLS) {
				if (!is_text(col) || COLS - x - sep < 4)
					return;
				w = COLS - x - sep;
			}
			x += sep;
			u->col_of[u->ncols_shown] = c;
			u->col_x0[u->ncols_shown] = x;
			u->col_x1[u->ncols_shown] = x + w;
			u->ncols_shown++;
			x += w;
		}
	}
}

/* The cells @s takes on the screen. */
static int text_width(const char *s)
{
	mbstate_t st;
	size_t len = strlen(s);
	int w = 0, cw;

	memset(&st, 0, sizeof(st));
	while (len) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &st);

		if (k == (size_t)-1 || k == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			k = 1;
			cw = 1;
		} else if (k == 0) {
			break;
		} else {
			cw = wcwidth(wc);
			if (cw < 0)
				cw = 1;
		}
		w += cw;
		s += k;
		len -= k;
	}
	return w;
}

/*
 * A number wider than its column (a rate of millions a second) widens the
 * column for the rest of the view rather than being cut; text columns keep
 * their width.  True when a column grew.
 */
static bool grow_widths(struct top_ui *u, struct agtable *t,
			struct agt_row *const *rows, size_t n)
{
	char cell[AGT_STR_MAX * 4 + 8];
	bool grew = false;
	size_t i;
	int c, w;

	for (c = 0; c < agt_ncols(t); c++) {
		const struct agt_col *col = agt_col(t, c);
		int have = agt_width(t, c);

		if (is_text(col))
			continue;
		if (have < (int)strlen(col->title) + 1)
			have = (int)strlen(col->title) + 1;
		if (have < u->colw[c])
			have = u->colw[c];
		for (i = 0; i < n; i++) {
			agt_cell(t, rows[i], c, u->d->mode, cell, sizeof(cell));
			w = text_width(cell);
			if (w > have) {
				have = u->colw[c] = w;
				grew = true;
			}
		}
	}
	return grew;
}

static void draw_titles(struct top_ui *u, struct agtable *t, int y)
{
	int i, sort = top_ui_sort_col(u, t);
	const char *arrow = u->utf8 ? (u->d->ascending ? "\u25b2" : "\u25bc") :
			    (u->d->ascending ? "^" : "v");

	u->title_y = y;
	attron(title_attr(u));
	put(y, 0, COLS, "", false);
	for (i = 0; i < u->ncols_shown; i++) {
		const struct agt_col *col = agt_col(t, u->col_of[i]);
		char title[128];

		snprintf(title, sizeof(title), "%s%s", col->title,
			 u->col_of[i] == sort ? arrow : "");
		put(y, u->col_x0[i], u->col_x1[i] - u->col_x0[i], title, !is_text(col));
	}
	attroff(title_attr(u));
}

static void draw_row(struct top_ui *u, struct agtable *t, const struct agt_row *r,
		     int y, bool bar)
{
	char cell[AGT_STR_MAX * 4 + 8];
	int i;

	if (bar)
		attron(bar_attr(u));
	put(y, 0, COLS, "", false);
	for (i = 0; i < u->ncols_shown; i++) {
		int c = u->col_of[i];

		agt_cell(t, r, c, u->d->mode, cell, sizeof(cell));
		put(y, u->col_x0[i], u->col_x1[i] - u->col_x0[i], cell,
		    !is_text(agt_col(t, c)));
	}
	if (bar)
		attroff(bar_attr(u));
}

/* The rows in lines [y0, y1); the selection kept on its key. */
static void draw_rows(struct top_ui *u, struct agtable *t, int y0, int y1)
{
	struct agt_view_opts vo;
	struct agt_row **rows;
	size_t n, i;
	int page = y1 - y0;

	top_ui_view_opts(u, t, &vo);
	n = agt_rows(t, &vo, &rows);
	if (u->have_sel)
		for (i = 0; i < n; i++)
			if (agt_row_id(rows[i]) == u->sel_id) {
				u->sel = i;
				break;
			}
	if (u->sel >= n)
		u->sel = n ? n - 1 : 0;
	u->have_cur = n > 0;
	if (n)
		u->cur_id = agt_row_id(rows[u->sel]);
	u->nrows = n;
	u->page = page > 0 ? page : 1;
	if (u->sel < u->top)
		u->top = u->sel;
	if (u->sel >= u->top + (size_t)u->page)
		u->top = u->sel - (size_t)u->page + 1;
	if (u->top + (size_t)u->page > n)
		u->top = n > (size_t)u->page ? n - (size_t)u->page : 0;
	u->table_y0 = y0;
	if (n && grow_widths(u, t, rows + u->top,
			     n - u->top < (size_t)page ? n - u->top : (size_t)page)) {
		layout(u, t);
		draw_titles(u, t, y0 - 1);
	}
	for (i = u->top; i < n && (int)(i - u->top) < page; i++)
		draw_row(u, t, rows[i], y0 + (int)(i - u->top), i == u->sel);
	if (!n && page > 0)
		put(y0, 0, COLS, u->d->filter ? "  (no rows match the filter)" :
			"  (no rows yet)", false);
}

static void pane_title(struct top_ui *u, int y, const char *s)
{
	attron(title_attr(u));
	put(y, 0, COLS, s, false);
	attroff(title_attr(u));
}

static void draw_events(struct top_ui *u, struct agtable *t, int y0, int y1)
{
	static const char *lines[UI_WATCH_MAX];
	size_t n = 0, end, i;
	int h = y1 - y0 - 1, y;

	pane_title(u, y0, "raw events (newest last)   Up/Down PgUp/PgDn scroll   e/Esc close");
	if (u->m->watch_lines)
		n = u->m->watch_lines(u->m->ctx, lines, UI_WATCH_MAX);
	if (h <= 0)
		return;
	if (u->ev_scroll > n)
		u->ev_scroll = n;
	end = n - u->ev_scroll;
	i = end > (size_t)h ? end - (size_t)h : 0;
	for (y = y0 + 1; i < end; i++, y++)
		put(y, 0, COLS, lines[i] ? lines[i] : "", false);
	if (!n)
		put(y0 + 1, 0, COLS, "  (no events of this row yet)", false);
}

static void draw_hist(struct top_ui *u, struct agtable *t, int y0, int y1)
{
	struct agt_row *r = top_ui_cur_row(u, t);
	const struct hist_log2 *h = NULL;
	const struct agt_col *col;
	char title[2 * UI_LINE_MAX], keys[UI_LINE_MAX], lo[32], hi[32], line[UI_LINE_MAX];
	uint64_t max = 0;
	int c = u->hist_col, first = -1, last = -1, s, y, bw;

	if (r && (c < 0 || c >= agt_ncols(t) || !agt_hist(t, r, c, u->d->mode)))
		c = u->hist_col = top_ui_hist_col(u, t, r);
	if (r && c >= 0)
		h = agt_hist(t, r, c, u->d->mode);
	if (!h) {
		pane_title(u, y0, "histogram   H/Esc close");
		put(y0 + 1, 0, COLS, "  (no histogram for this row)", false);
		return;
	}
	col = agt_col(t, c);
	snprintf(title, sizeof(title), "%s of %s [%s]   H/Esc close", col->title,
		 row_keys(t, r, u->d->mode, keys, sizeof(keys)), mode_name(u->d->mode));
	pane_title(u, y0, title);
	for (s = 0; s < HIST_LOG2_SLOTS; s++) {
		if (!h->slot[s])
			continue;
		if (first < 0)
			first = s;
		last = s;
		if (h->slot[s] > max)
			max = h->slot[s];
	}
	if (first < 0) {
		put(y0 + 1, 0, COLS, "  (empty)", false);
		return;
	}
	bw = COLS - 50;
	if (bw > 40)
		bw = 40;
	if (bw < 10)
		bw = 10;
	for (s = first, y = y0 + 1; s <= last && y < y1; s++, y++) {
		double low = s ? (double)(1ull << (s - 1)) : 0;
		double high = s ? (double)((s < 64 ? (1ull << s) : 0) - 1) : 0;
		int stars = (int)(h->slot[s] * (uint64_t)bw / max);
		char bar[64];

		if (s == 64)
			high = 18446744073709551615.0;
		agt_format(low, col->unit, lo, sizeof(lo));
		agt_format(high, col->unit, hi, sizeof(hi));
		memset(bar, '*', (size_t)stars);
		bar[stars] = '\0';
		snprintf(line, sizeof(line), "%10s -> %-10s : %-10llu |%-*s|", lo, hi,
			 (unsigned long long)h->slot[s], bw, bar);
		put(y, 0, COLS, line, false);
	}
}

static const char *const help_lines[] = {
	"tracetop keys",
	"",
	"  Up Down PgUp PgDn Home End   move the selection",
	"  < >          sort by the column left / right",
	"  F6           choose the sort column",
	"  I            invert the sort order",
	"  click        sort by a column title (again: invert)",
	"  Enter        drill into the selected row",
	"  Backspace    back to the view before",
	"  e            raw events of the selected row (Esc closes)",
	"  H            histogram of the selected row",
	"  /            filter rows by text (Enter applies, Esc clears)",
	"  v F2         choose a view",
	"  z            interval / cumulative / decaying totals",
	"  d            change the interval (seconds)",
	"  p            pause the display (counting goes on)",
	"  L            lost events per CPU",
	"  h F1         this help",
	"  q            quit (also Ctrl-C)",
	"",
	"any key closes this help",
};

static void draw_help(struct top_ui *u, int y0, int y1)
{
	size_t i;

	for (i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]) &&
		    y0 + (int)i < y1; i++)
		put(y0 + (int)i, 0, COLS, help_lines[i], false);
}

static void draw_menu_line(struct top_ui *u, int y, size_t i, const char *s)
{
	bool bar = i == u->menu_sel;

	if (bar)
		attron(bar_attr(u));
	put(y, 0, COLS, s, false);
	if (bar)
		attroff(bar_attr(u));
}

static void menu_scroll(struct top_ui *u, int h, size_t *first)
{
	*first = 0;
	if (h > 0 && u->menu_sel >= (size_t)h)
		*first = u->menu_sel - (size_t)h + 1;
}

static void draw_views(struct top_ui *u, int y0, int y1)
{
	const char *name, *help;
	char line[UI_LINE_MAX];
	size_t i, first;
	int y = y0 + 1;

	pane_title(u, y0, "views   Enter open   Esc close");
	menu_scroll(u, y1 - y, &first);
	for (i = 0; u->m->view_at && u->m->view_at(u->m->ctx, i, &name, &help); i++) {
		if (i < first || y >= y1)
			continue;
		snprintf(line, sizeof(line), "  %-16s %s", name, help ? help : "");
		draw_menu_line(u, y++, i, line);
	}
	u->menu_len = i;
}

static void draw_sort(struct top_ui *u, struct agtable *t, int y0, int y1)
{
	char line[UI_LINE_MAX];
	size_t i, first;
	int y = y0 + 1, sort = top_ui_sort_col(u, t);

	pane_title(u, y0, "sort by   Enter choose   Esc close");
	u->menu_len = (size_t)agt_ncols(t);
	menu_scroll(u, y1 - y, &first);
	for (i = first; i < u->menu_len && y < y1; i++) {
		snprintf(line, sizeof(line), "  %s %s", (int)i == sort ? "*" : " ",
			 agt_col(t, (int)i)->title);
		draw_menu_line(u, y++, i, line);
	}
}

static void draw_status(struct top_ui *u, int y)
{
	static const char *const keys[][2] = {
		{ "F1", "Help" }, { "F2", "Views" }, { "F6", "Sort" },
		{ "/", "Filter" }, { "Enter", "Drill" }, { "Bksp", "Back" },
		{ "e", "Events" }, { "q", "Quit" },
	};
	char line[UI_LINE_MAX * 2];
	size_t i;
	int x = 0;

	if (u->input != UI_IN_NONE) {
		const char *prompt = u->input == UI_IN_FILTER ? "filter: " :
				     u->input == UI_IN_DELAY ? "interval (seconds): " : "";

		if (u->input == UI_IN_ARG)
			snprintf(line, sizeof(line), "%s %s: %.*s_", u->arg_view,
				 u->arg_name, (int)u->inlen, u->in);
		else
			snprintf(line, sizeof(line), "%s%.*s_", prompt, (int)u->inlen, u->in);
		put(y, 0, COLS, line, false);
		return;
	}
	if (u->status[0]) {
		if (u->colors)
			attron(COLOR_PAIR(CP_WARN));
		attron(A_BOLD);
		put(y, 0, COLS, u->status, false);
		attroff(A_BOLD);
		if (u->colors)
			attroff(COLOR_PAIR(CP_WARN));
		return;
	}
	put(y, 0, COLS, "", false);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int kw = (int)strlen(keys[i][0]) + 1, lw = (int)strlen(keys[i][1]);

		if (x + kw + lw > COLS)
			break;
		put(y, x, kw, keys[i][0], false);
		x += kw;
		attron(u->colors ? COLOR_PAIR(CP_KEY) : A_REVERSE);
		put(y, x, lw, keys[i][1], false);
		attroff(u->colors ? COLOR_PAIR(CP_KEY) : A_REVERSE);
		x += lw + 2;
	}
}

/**
 * top_ui_draw() - one frame: drawn whole into curses' buffer, of which
 * doupdate() sends only the cells that changed.
 */
void top_ui_draw(struct top_ui *u)
{
	struct agtable *t;
	int y = 0, bottom, split;

	if (!u->active)
		return;
	erase();
	if (COLS < 20 || LINES < 6) {
		put(0, 0, COLS, "tracetop: terminal too small", false);
		goto out;
	}
	t = u->m->table(u->m->ctx);
	draw_header(u, &y);
	bottom = LINES - 1;
	draw_status(u, bottom);
	if (u->overlay == UI_OV_HELP) {
		draw_help(u, y, bottom);
		goto out;
	}
	if (u->overlay == UI_OV_VIEWS) {
		draw_views(u, y, bottom);
		goto out;
	}
	if (!t) {
		put(y, 0, COLS, "  (no view open)", false);
		goto out;
	}
	if (u->overlay == UI_OV_SORT) {
		draw_sort(u, t, y, bottom);
		goto out;
	}
	layout(u, t);
	draw_titles(u, t, y++);
	split = bottom;
	if (u->pane != UI_PANE_NONE)
		split = y + (bottom - y) / 2;
	draw_rows(u, t, y, split);
	if (u->pane == UI_PANE_EVENTS)
		draw_events(u, t, split, bottom);
	else if (u->pane == UI_PANE_HIST)
		draw_hist(u, t, split, bottom);
out:
	wnoutrefresh(stdscr);
	doupdate();
}
