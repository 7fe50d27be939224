// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's batch output (-b, -j): every interval the view as top -b
 * prints it, or as one JSON Lines object.
 *
 *	tracetop - 10:41:07  syscalls > pid=1234  interval 1.0s  events/s 5321  lost 0
 *
 *	PID      COMM                COUNT     RATE   ERRORS     TIME      P99
 *	1234     bash                 5300   5300.0        3   2.10ms   13.5us
 *
 * Keys and strings are left-aligned, numbers right-aligned, columns
 * separated by one space and as wide as agt_width() says, or as their
 * widest cell in this interval; the last column is not padded.  A blank
 * line ends each interval.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/agtable.h"
#include "common/escape.h"
#include "common/json.h"
#include "common/loop.h"
#include "tool/tool.h"
#include "tool/top.h"

#define CELL_MAX (4 * AGT_STR_MAX + 32)

static const char *const mode_name[] = {
	[AGT_INTERVAL] = "interval",
	[AGT_CUMULATIVE] = "cumulative",
	[AGT_DECAY] = "decay",
};

/* One interval as the printers see it. */
struct shown {
	struct agtable *t;
	struct agt_row **rows;
	size_t n;
	struct top_stats st;
	const char *path;
	char pathbuf[512];
	char time[16];
};

static void collect(const struct top_model *m, const struct top_display *d,
		    struct shown *s)
{
	struct agt_view_opts vo = {
		.mode = d->mode,
		.sort_col = d->sort_col >= 0 ? d->sort_col :
			    m->sort_col ? m->sort_col(m->ctx) : -1,
		.ascending = d->ascending,
		.filter = d->filter,
	};
	time_t now = time(NULL);
	struct tm tm;

	memset(s, 0, sizeof(*s));
	s->t = m->table ? m->table(m->ctx) : NULL;
	if (s->t)
		s->n = agt_rows(s->t, &vo, &s->rows);
	if (d->rows > 0 && s->n > (size_t)d->rows)
		s->n = (size_t)d->rows;
	if (m->stats)
		m->stats(m->ctx, &s->st);
	s->path = m->path ? m->path(m->ctx, s->pathbuf, sizeof(s->pathbuf)) : NULL;
	if (!s->path)
		s->path = "";
	localtime_r(&now, &tm);
	strftime(s->time, sizeof(s->time), "%H:%M:%S", &tm);
}

/* The columns a terminal gives @s (valid UTF-8: escaped text). */
static int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static bool left_aligned(const struct agt_col *c)
{
	return c->fn == AGT_KEY || c->type == AGT_STR;
}

static void put_cell(FILE *f, const char *text, int width, bool left,
		     bool last)
{
	int pad = width - text_width(text);

	if (!left)
		for (; pad > 0; pad--)
			fputc(' ', f);
	fputs(text, f);
	if (left && !last)
		for (; pad > 0; pad--)
			fputc(' ', f);
}

/* "1.0s", "0.25s", "0.125s" */
static void put_interval(FILE *f, uint64_t ms)
{
	int prec = ms % 100 == 0 ? 1 : ms % 10 == 0 ? 2 : 3;

	fprintf(f, "%.*fs", prec, (double)ms / 1000);
}

/**
 * top_print_text() - one interval of @m as top -b prints it, into @f
 *
 * "tracetop - HH:MM:SS  PATH  interval 1.0s  events/s N  lost N" (the
 * mode before the interval when it is not per interval: "cumulative,
 * interval 1.0s", "decaying, interval 1.0s"), a blank line, the column
 * titles, a line per row (at most @d->rows when it is > 0) and a blank
 * line.  Rows are those of @d's mode, filter and sort (@d->sort_col, or
 * the view's when -1).
 */
void top_print_text(const struct top_model *m, const struct top_display *d,
		    FILE *f)
{
	int width[AGT_MAX_COLS], i, ncols;
	char cell[CELL_MAX];
	struct shown s;
	size_t r;

	collect(m, d, &s);
	fprintf(f, "tracetop - %s  %s  ", s.time, esc_str(s.path));
	if (d->mode == AGT_CUMULATIVE)
		fputs("cumulative, ", f);
	else if (d->mode == AGT_DECAY)
		fputs("decaying, ", f);
	fputs("interval ", f);
	put_interval(f, d->interval_ms);
	fprintf(f, "  events/s %.0f  lost %" PRIu64 "\n\n",
		s.st.events_per_sec, s.st.lost);
	if (!s.t) {
		fputc('\n', f);
		return;
	}
	ncols = agt_ncols(s.t);
	for (i = 0; i < ncols; i++) {
		width[i] = agt_width(s.t, i);
		for (r = 0; r < s.n; r++) {
			int w = text_width(agt_cell(s.t, s.rows[r], i, d->mode,
						    cell, sizeof(cell)));

			if (w > width[i])
				width[i] = w;
		}
	}
	for (i = 0; i < ncols; i++) {
		const struct agt_col *c = agt_col(s.t, i);

		if (i)
			fputc(' ', f);
		put_cell(f, esc_str(c->title), width[i], left_aligned(c),
			 i == ncols - 1);
	}
	fputc('\n', f);
	for (r = 0; r < s.n; r++) {
		for (i = 0; i < ncols; i++) {
			if (i)
				fputc(' ', f);
			put_cell(f, agt_cell(s.t, s.rows[r], i, d->mode, cell,
					     sizeof(cell)),
				 width[i], left_aligned(agt_col(s.t, i)),
				 i == ncols - 1);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

/**
 * top_print_json() - one interval of @m as one JSON Lines object, into @f
 *
 * {"time":"HH:MM:SS","view":PATH,"mode":"interval"|"cumulative"|"decay",
 * "interval_ms":N,"events":N,"events_per_sec":X,"lost":N,"rows":[{...}]},
 * each row as agt_json_row() writes it; the same rows as top_print_text().
 */
void top_print_json(const struct top_model *m, const struct top_display *d,
		    FILE *f)
{
	struct shown s;
	struct json j;
	size_t r;

	collect(m, d, &s);
	json_begin(&j, f);
	json_str(&j, "time", s.time);
	json_str(&j, "view", s.path);
	json_str(&j, "mode", (unsigned)d->mode <= AGT_DECAY ?
		 mode_name[d->mode] : "interval");
	json_uint(&j, "interval_ms", d->interval_ms);
	json_uint(&j, "events", s.st.events);
	json_double(&j, "events_per_sec",
		    (double)(int64_t)(s.st.events_per_sec * 1000 + 0.5) / 1000);
	json_uint(&j, "lost", s.st.lost);
	json_arr_open(&j, "rows");
	for (r = 0; r < s.n; r++) {
		json_obj_open(&j, NULL);
		agt_json_row(s.t, s.rows[r], d->mode, &j);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_end(&j);
}

/* The batch: one per process (tracetop runs one). */
static struct batch {
	const struct top_model *m;
	const struct top_display *d;
	uint64_t last_ns;
	long done;
} batch;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Tick @b's model and print the interval that ends now. */
static void print_interval(struct batch *b)
{
	uint64_t now = mono_ns();

	if (b->m->tick)
		b->m->tick(b->m->ctx, now - b->last_ns);
	b->last_ns = now;
	if (b->d->json)
		top_print_json(b->m, b->d, stdout);
	else
		top_print_text(b->m, b->d, stdout);
}

static int on_interval(struct loop *l, int fd, void *arg)
{
	struct batch *b = arg;

	print_interval(b);
	if (!tool_flush()) {	/* the reader is gone: end quietly */
		loop_set_broken_pipe(l);
		return 0;
	}
	if (b->d->count > 0 && ++b->done >= b->d->count) {
		tool_stop();
		loop_stop(l);
	}
	return 0;
}

/**
 * top_batch_start() - tracetop -b/-j on loop @l
 *
 * Every @d->interval_ms: tick @m with the time since the last tick
 * (CLOCK_MONOTONIC; the first since this call), print it on stdout (JSON
 * Lines with @d->json), flush; after @d->count intervals (> 0) stop the
 * loop.  When stdout's reader is gone (EPIPE) the loop stops as for a
 * broken pipe, quietly.  0, -EINVAL for an interval of 0, or the timer's
 * -errno.
 */
int top_batch_start(const struct top_model *m, struct top_display *d,
		    struct loop *l)
{
	int fd;

	if (!m || !d || !d->interval_ms)
		return -EINVAL;
	batch = (struct batch){ m, d, mono_ns(), 0 };
	fd = loop_timer(l, d->interval_ms, d->interval_ms, on_interval, &batch);
	return fd < 0 ? fd : 0;
}

/**
 * top_batch_end() - print the interval a stopped batch cut short
 *
 * When the loop ended before @d->count intervals (Ctrl-C, the end of -p's
 * process or -c's command), tick the model once more and print that last
 * interval, so its totals are not lost.  Once only; nothing after a batch
 * that ran its count, or without a batch.
 */
void top_batch_end(void)
{
	struct batch *b = &batch;

	if (!b->m || (b->d->count > 0 && b->done >= b->d->count))
		return;
	print_interval(b);
	tool_flush();
	b->m = NULL;
}
