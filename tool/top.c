// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's engine: a stack of views, each opened on a session of its own.
 *
 * Opening a view reads its feeder's fields, turns the view's column specs
 * and filters into table columns and slot comparisons, and starts a
 * session with the feeder's events.  Only one session runs at a time (a
 * session's instance and group are named after the process): drilling
 * closes the view below and keeps its table, so Backspace reopens it with
 * the totals it had.  Every sample passes the filters again here, so a
 * filter the feeder could not push into the kernel is still exact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>

#include "common/escape.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/top.h"
#include "tool/top_int.h"
#include "tracefs/session.h"

#define TOP_DEPTH	8
#define WATCH_LINES	256
#define WATCH_LEN	256

/* Titles the columns keep: the table holds pointers to them. */
struct titles {
	char buf[AGT_MAX_COLS][32];
};

/* One opened view: what reopens it, and its table. */
struct level {
	const struct top_view *v;
	char *arg;
	char **filters;		/* "FIELD=VALUE" */
	int nfilters;
	struct agtable *tab;
	struct titles *titles;	/* its columns' */
	int nkeys;		/* key columns first in tab */
	int key_slot[AGT_MAX_COLS];
};

struct top {
	struct top_opts o;
	struct loop *l;
	struct level stack[TOP_DEPTH];
	int depth;		/* levels; the top one is open */
	struct session *s;
	struct top_feed feed;
	uint64_t events, events_last, interval_ns;
	uint64_t lost_base;	/* lost before the current session */
	uint64_t lost_cpu[256];	/* of the sessions closed */
	uint64_t lost_shown[256];
	char *scope_filter;	/* -p as a filter (scope_by_field feeders) */
	/* the raw-events pane: the watched row's keys, and its lines */
	bool watching;
	int64_t watch_num[AGT_MAX_COLS];
	char watch_str[AGT_MAX_COLS][AGT_STR_MAX];
	char (*lines)[WATCH_LEN];
	size_t nlines, line_head;
	struct top_model model;
	char err[512];
};

int top_field_find(const struct top_feed *f, const char *name)
{
	int i;

	for (i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, name))
			return i;
	return -1;
}

struct top_filter *top_filter_find(struct top_feed *f, const char *name)
{
	int i;

	for (i = 0; i < f->nfilters; i++)
		if (!strcmp(f->filters[i].field, name))
			return &f->filters[i];
	return NULL;
}

static bool filters_pass(const struct top_feed *f, const struct agt_sample *s)
{
	int i;

	for (i = 0; i < f->nfilters; i++) {
		const struct top_filter *flt = &f->filters[i];
		int slot = flt->slot;

		if (!(s->have & (1ULL << slot)))
			return false;
		if (f->fields[slot].type == AGT_STR) {
			if (strcmp(s->str[slot] ? s->str[slot] : "", flt->text))
				return false;
		} else if (s->num[slot] != flt->num) {
			return false;
		}
	}
	return true;
}

static bool watched(const struct top *t, const struct agt_sample *s)
{
	const struct level *lv = &t->stack[t->depth - 1];
	int i;

	for (i = 0; i < lv->nkeys; i++) {
		int slot = lv->key_slot[i];

		if (t->feed.fields[slot].type == AGT_STR) {
			const char *v = s->have & (1ULL << slot) && s->str[slot] ?
					s->str[slot] : "";

			if (strncmp(v, t->watch_str[i], AGT_STR_MAX - 1))
				return false;
		} else if ((s->have & (1ULL << slot) ? s->num[slot] : 0) !=
			   t->watch_num[i]) {
			return false;
		}
	}
	return true;
}

/* One line of the raw-events pane: time, CPU, task, the event as ftrace
 * prints it. */
static void watch_line(struct top *t, const struct tk_event *ev)
{
	char *line = t->lines[(t->line_head + t->nlines) % WATCH_LINES];
	struct tep_handle *tep = session_tep(t->s);
	struct tep_event *e = tep ? tep_find_event(tep, ev->id) : NULL;
	struct trace_seq seq;
	struct tep_record rec = {
		.ts = ev->ts, .cpu = ev->cpu, .size = (int)ev->size,
		.data = (void *)ev->data,
	};

	trace_seq_init(&seq);
	if (e)
		tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	snprintf(line, WATCH_LEN, "%5llu.%09llu %3d %7d %s: %s",
		 (unsigned long long)(ev->ts / 1000000000),
		 (unsigned long long)(ev->ts % 1000000000), ev->cpu,
		 ev->pid, e ? e->name : "?", esc_str(seq.buffer));
	trace_seq_destroy(&seq);
	if (t->nlines < WATCH_LINES)
		t->nlines++;
	else
		t->line_head = (t->line_head + 1) % WATCH_LINES;
}

void top_emit(struct top_feed *f, const struct tk_event *ev,
	      const struct agt_sample *s)
{
	struct top *t = f->top;

	if (!ev)	/* counted, not recorded: its hits are the events */
		t->events += s->weight ? s->weight : 1;
	if (!filters_pass(f, s))
		return;
	agt_add(t->stack[t->depth - 1].tab, s);
	if (t->watching && ev && watched(t, s))
		watch_line(t, ev);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct top *t = arg;

	t->events++;
	t->feed.ops->event(&t->feed, ev);
}

struct top *top_new(const struct top_opts *o, struct loop *l)
{
	struct top *t = xcalloc(1, sizeof(*t));

	t->o = *o;
	t->l = l;
	t->lines = xcalloc(WATCH_LINES, sizeof(*t->lines));
	return t;
}

const char *top_error(const struct top *t)
{
	return t->err;
}

struct session *top_session(struct top *t)
{
	return t->s;
}

/* Stop the feeder and the session of the open view (its table stays). */
static void close_view(struct top *t)
{
	if (t->s) {
		uint64_t per_cpu[256];

		memset(per_cpu, 0, sizeof(per_cpu));
		t->lost_base += session_lost(t->s, per_cpu, 256);
		for (int i = 0; i < 256; i++)
			t->lost_cpu[i] += per_cpu[i];
		session_close(t->s);
	}
	if (t->feed.ops && t->feed.ops->release)
		t->feed.ops->release(&t->feed);
	free(t->feed.filters);
	session_free(t->s);
	t->s = NULL;
	memset(&t->feed, 0, sizeof(t->feed));
	t->watching = false;
	t->nlines = t->line_head = 0;
}

static void level_release(struct level *lv)
{
	int i;

	free(lv->arg);
	for (i = 0; i < lv->nfilters; i++)
		free(lv->filters[i]);
	free(lv->filters);
	agt_free(lv->tab);
	free(lv->titles);
	memset(lv, 0, sizeof(*lv));
}

void top_free(struct top *t)
{
	if (!t)
		return;
	close_view(t);
	while (t->depth > 0)
		level_release(&t->stack[--t->depth]);
	free(t->lines);
	free(t->scope_filter);
	free(t);
}

static const struct {
	const char *name;
	enum agt_fn fn;
} aggs[] = {
	{ "sum", AGT_SUM }, { "min", AGT_MIN }, { "max", AGT_MAX },
	{ "avg", AGT_AVG }, { "rate", AGT_RATE }, { "p50", AGT_P50 },
	{ "p99", AGT_P99 }, { "last", AGT_LAST }, { "count", AGT_COUNT },
};

static void upper(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i];
	dst[i] = '\0';
}

/*
 * spec := item ("," item)*;  key item := FIELD;
 * value item := "count" | "rate" | FIELD ":" AGG ["=" TITLE]
 */
static int parse_cols(struct top *t, const char *spec, bool keys,
		      struct agt_col *cols, int *n, struct titles *tt)
{
	const struct top_feed *f = &t->feed;
	char *dup = xstrdup(spec), *save = NULL, *item;
	int err = 0;

	for (item = strtok_r(dup, ",", &save); item && !err;
	     item = strtok_r(NULL, ",", &save)) {
		struct agt_col *c = &cols[*n];
		char *agg = NULL, *title = NULL;
		int slot;
		size_t i;

		if (*n >= AGT_MAX_COLS) {
			err = errmsg(t->err, sizeof(t->err), -EINVAL,
				     "more than %d columns", AGT_MAX_COLS);
			break;
		}
		memset(c, 0, sizeof(*c));
		c->input = -1;
		if (!keys && (title = strchr(item, '=')))
			*title++ = '\0';
		if (!keys && (!strcmp(item, "count") || !strcmp(item, "rate"))) {
			c->fn = item[0] == 'c' ? AGT_COUNT : AGT_RATE;
			upper(tt->buf[*n], sizeof(tt->buf[*n]), title ? title : item);
			c->title = tt->buf[*n];
			(*n)++;
			continue;
		}
		if (!keys && !(agg = strchr(item, ':'))) {
			err = errmsg(t->err, sizeof(t->err), -EINVAL,
				     "value '%s' is not count, rate or FIELD:AGG", item);
			break;
		}
		if (agg)
			*agg++ = '\0';
		slot = top_field_find(f, item);
		if (slot < 0) {
			err = errmsg(t->err, sizeof(t->err), -ENOENT,
				     "no field '%s' in this view's events", item);
			break;
		}
		c->input = slot;
		c->type = f->fields[slot].type;
		c->unit = f->fields[slot].unit;
		c->width = f->fields[slot].width;
		c->fn = AGT_KEY;
		if (agg) {
			for (i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++)
				if (!strcmp(aggs[i].name, agg))
					break;
			if (i == sizeof(aggs) / sizeof(aggs[0])) {
				err = errmsg(t->err, sizeof(t->err), -EINVAL,
					     "unknown aggregation '%s' (sum, min, max, avg, rate, p50, p99, last)",
					     agg);
				break;
			}
			c->fn = aggs[i].fn;
			if (c->fn == AGT_COUNT)
				c->input = -1;
			if (c->type == AGT_STR && c->fn != AGT_LAST) {
				err = errmsg(t->err, sizeof(t->err), -EINVAL,
					     "field '%s' is text: only 'last' applies", item);
				break;
			}
			if (c->fn != AGT_LAST)
				c->width = 0;
			if (title)
				upper(tt->buf[*n], sizeof(tt->buf[*n]), title);
			else if (c->fn == AGT_LAST)
				snprintf(tt->buf[*n], sizeof(tt->buf[*n]), "%s",
					 f->fields[slot].title);
			else {
				char a[8], fl[24];

				upper(a, sizeof(a), agg);
				upper(fl, sizeof(fl), item);
				snprintf(tt->buf[*n], sizeof(tt->buf[*n]), "%s_%s", a, fl);
			}
		} else {
			snprintf(tt->buf[*n], sizeof(tt->buf[*n]), "%s",
				 f->fields[slot].title);
		}
		c->title = tt->buf[*n];
		(*n)++;
	}
	free(dup);
	return err;
}

/* "FIELD=VALUE" into f->filters[i]: the field's slot, the value checked. */
static int parse_filter(struct top *t, const char *s, struct top_filter *flt)
{
	const char *eq = strchr(s, '=');
	char name[64];
	int slot;

	if (!eq || eq == s || (size_t)(eq - s) >= sizeof(name))
		return errmsg(t->err, sizeof(t->err), -EINVAL,
			      "filter '%s' is not FIELD=VALUE", s);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - s), s);
	slot = top_field_find(&t->feed, name);
	if (slot < 0)
		return errmsg(t->err, sizeof(t->err), -ENOENT,
			      "no field '%s' to filter on in this view", name);
	flt->slot = slot;
	flt->field = t->feed.fields[slot].name;
	flt->text = eq + 1;
	if (t->feed.fields[slot].type == AGT_INT) {
		char *end;

		errno = 0;
		flt->num = strtoll(eq + 1, &end, 0);
		if (errno || end == eq + 1 || *end)
			return errmsg(t->err, sizeof(t->err), -EINVAL,
				      "filter '%s': '%s' is not a number", s, eq + 1);
	}
	return 0;
}

/* Open level @lv: its feeder, columns (when it has no table yet), filters
 * and session. */
static int open_level(struct top *t, struct level *lv)
{
	const struct top_feeder *ops = top_feeder_find(lv->v->feed);
	struct session_opts so = {
		.pid = t->o.pid, .tree = t->o.tree,
		.buffer_kb = t->o.buffer_kb,
		.wakeup_percent = 25, .drain_ms = 200,
	};
	struct top_feed *f = &t->feed;
	int i, err;

	t->err[0] = '\0';
	if (!ops)
		return errmsg(t->err, sizeof(t->err), -ENOENT,
			      "view '%s' has no feeder '%s'", lv->v->name, lv->v->feed);
	memset(f, 0, sizeof(*f));
	f->ops = ops;
	f->arg = lv->arg;
	f->pid = t->o.pid;
	f->verbose = t->o.verbose;
	f->top = t;
	if (ops->init && (err = ops->init(f)) < 0) {
		snprintf(t->err, sizeof(t->err), "%s", f->err);
		goto out_feed;
	}
	if (f->nfields > AGT_MAX_SLOTS) {
		err = errmsg(t->err, sizeof(t->err), -E2BIG,
			     "more than %d fields in this view's events", AGT_MAX_SLOTS);
		goto out_feed;
	}
	if (!lv->tab) {
		struct agt_col cols[AGT_MAX_COLS];
		int n = 0;

		if (!lv->titles)
			lv->titles = xcalloc(1, sizeof(*lv->titles));
		err = parse_cols(t, lv->v->keys, true, cols, &n, lv->titles);
		lv->nkeys = n;
		for (i = 0; i < n; i++)
			lv->key_slot[i] = cols[i].input;
		err = err ?: parse_cols(t, lv->v->values, false, cols, &n,
					lv->titles);
		if (err)
			goto out_feed;
		lv->tab = agt_new(cols, n);
		if (!lv->tab) {
			err = errmsg(t->err, sizeof(t->err), -EINVAL,
				     "view '%s': bad columns", lv->v->name);
			goto out_feed;
		}
	}
	f->filters = xcalloc(lv->nfilters + 2, sizeof(*f->filters));
	for (i = 0; i < lv->nfilters; i++) {
		err = parse_filter(t, lv->filters[i], &f->filters[f->nfilters]);
		if (err)
			goto out_feed;
		f->nfilters++;
	}
	/* events about other tasks than the running one: -p/-c is a filter
	 * on the feeder's process field, not the session's scope */
	so.keep_self = ops->keep_self;
	if (ops->scope_by_field) {
		so.pid = ops->scope_kernel ? t->o.pid : 0;
		so.tree = false;
		so.scope_kernel = ops->scope_kernel;
		if (t->o.pid && ops->pid_field && !top_filter_find(f, ops->pid_field)) {
			char pf[64];

			snprintf(pf, sizeof(pf), "%s=%d", ops->pid_field, (int)t->o.pid);
			free(t->scope_filter);
			t->scope_filter = xstrdup(pf);
			err = parse_filter(t, t->scope_filter, &f->filters[f->nfilters]);
			if (err)
				goto out_feed;
			f->nfilters++;
		}
	}
	/* a filter on the feeder's process field is the session's PID */
	else if (ops->pid_field) {
		struct top_filter *pf = top_filter_find(f, ops->pid_field);

		if (pf && (!so.pid || so.pid == pf->num) && pf->num > 0) {
			so.pid = (pid_t)pf->num;
			so.tree = false;
			pf->kernel = true;
		}
	}
	for (i = 0; i < agt_ncols(lv->tab); i++)
		if (agt_col(lv->tab, i)->input >= 0)
			f->used |= 1ULL << agt_col(lv->tab, i)->input;
	for (i = 0; i < f->nfilters; i++)
		f->used |= 1ULL << f->filters[i].slot;
	so.ordered = ops->ordered;
	t->s = session_new(&so);
	f->s = t->s;
	if (session_open(t->s) < 0) {
		err = errmsg(t->err, sizeof(t->err), -EIO, "%s", session_error(t->s));
		goto out_feed;
	}
	if (ops->setup && (err = ops->setup(f)) < 0) {
		snprintf(t->err, sizeof(t->err), "%s", f->err[0] ? f->err :
			 session_error(t->s));
		goto out_feed;
	}
	if (session_start(t->s, t->l, on_event, t) < 0) {
		err = errmsg(t->err, sizeof(t->err), -EIO, "%s", session_error(t->s));
		goto out_feed;
	}
	t->events = t->events_last = 0;
	t->interval_ns = 0;
	return 0;

out_feed:
	if (err >= 0)
		err = -EINVAL;
	close_view(t);
	return err;
}

int top_open(struct top *t, const struct top_view *v, const char *arg,
	     const char *const *filters, int n)
{
	struct level *lv;
	char saved[sizeof(t->err)];
	int i, err;

	if (v->needs_arg && (!arg || !*arg))
		return errmsg(t->err, sizeof(t->err), -EINVAL,
			      "view '%s' needs an argument", v->name);
	if (t->depth == TOP_DEPTH)
		return errmsg(t->err, sizeof(t->err), -E2BIG,
			      "views nested deeper than %d", TOP_DEPTH);
	close_view(t);
	lv = &t->stack[t->depth++];
	lv->v = v;
	lv->arg = arg ? xstrdup(arg) : NULL;
	lv->filters = xcalloc(n + 1, sizeof(*lv->filters));
	for (i = 0; i < n; i++)
		lv->filters[lv->nfilters++] = xstrdup(filters[i]);
	err = open_level(t, lv);
	if (!err)
		return 0;
	/* back to the view before, which was open */
	level_release(lv);
	t->depth--;
	if (t->depth > 0) {
		memcpy(saved, t->err, sizeof(saved));
		open_level(t, &t->stack[t->depth - 1]);
		memcpy(t->err, saved, sizeof(saved));
	}
	return err;
}

int top_drill(struct top *t, const struct agt_row *r)
{
	const struct level *lv;
	const struct top_view *dv;
	char view[64], *fields, *save = NULL, *name;
	char *filters[TOP_DEPTH * 4] = { 0 };
	int nf = 0, i, err = 0;

	if (!t->depth)
		return -ENOENT;
	lv = &t->stack[t->depth - 1];
	if (!lv->v->drill || !r)
		return errmsg(t->err, sizeof(t->err), -ENOENT,
			      "no drill-down from view '%s'", lv->v->name);
	snprintf(view, sizeof(view), "%.*s",
		 (int)strcspn(lv->v->drill, ":"), lv->v->drill);
	dv = top_view_find(view);
	if (!dv)
		return errmsg(t->err, sizeof(t->err), -ENOENT,
			      "no view '%s'", view);
	/* the row's keys named by the drill-down, then the filters so far */
	fields = xstrdup(lv->v->drill + strlen(view) + (lv->v->drill[strlen(view)] == ':'));
	for (name = strtok_r(fields, ",", &save); name && nf < TOP_DEPTH * 4;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < lv->nkeys; i++)
			if (!strcmp(t->feed.fields[lv->key_slot[i]].name, name))
				break;
		if (i == lv->nkeys)
			continue;
		if (t->feed.fields[lv->key_slot[i]].type == AGT_STR)
			filters[nf++] = xasprintf("%s=%s", name,
						  agt_str(lv->tab, r, i));
		else
			filters[nf++] = xasprintf("%s=%lld", name,
						  (long long)agt_int(lv->tab, r, i));
	}
	free(fields);
	for (i = 0; i < lv->nfilters && nf < TOP_DEPTH * 4; i++) {
		int j, len = (int)strcspn(lv->filters[i], "=");

		for (j = 0; j < nf; j++)
			if (!strncmp(filters[j], lv->filters[i], len + 1))
				break;
		if (j == nf)
			filters[nf++] = xstrdup(lv->filters[i]);
	}
	err = top_open(t, dv, lv->arg, (const char *const *)filters, nf);
	for (i = 0; i < nf; i++)
		free(filters[i]);
	return err;
}

int top_back(struct top *t)
{
	if (t->depth <= 1)
		return -ENOENT;
	close_view(t);
	level_release(&t->stack[--t->depth]);
	return open_level(t, &t->stack[t->depth - 1]);
}

void top_tick(struct top *t, uint64_t elapsed_ns)
{
	struct level *lv;

	if (!t->depth)
		return;
	lv = &t->stack[t->depth - 1];
	if (t->s)
		session_drain(t->s);
	if (t->feed.ops && t->feed.ops->tick)
		t->feed.ops->tick(&t->feed);
	agt_tick(lv->tab, elapsed_ns);
	t->events_last = t->events;
	t->events = 0;
	t->interval_ns = elapsed_ns;
}

/* ---- the engine as a struct top_model ---- */

static struct agtable *m_table(void *ctx)
{
	struct top *t = ctx;

	return t->depth ? t->stack[t->depth - 1].tab : NULL;
}

static const char *m_path(void *ctx, char *buf, size_t len)
{
	struct top *t = ctx;
	size_t pos = 0;
	int i, j, k;

	buf[0] = '\0';
	for (i = 0; i < t->depth; i++) {
		const struct level *lv = &t->stack[i];

		if (i == 0) {
			pos += snprintf(buf + pos, len > pos ? len - pos : 0, "%s%s%s",
					lv->v->name, lv->arg ? " " : "",
					lv->arg ? lv->arg : "");
			for (j = 0; j < lv->nfilters; j++)
				pos += snprintf(buf + pos, len > pos ? len - pos : 0,
						" %s", lv->filters[j]);
			continue;
		}
		/* what this level adds to the one below */
		pos += snprintf(buf + pos, len > pos ? len - pos : 0, " >");
		for (j = 0; j < lv->nfilters; j++) {
			const struct level *below = &t->stack[i - 1];

			for (k = 0; k < below->nfilters; k++)
				if (!strcmp(below->filters[k], lv->filters[j]))
					break;
			if (k == below->nfilters)
				pos += snprintf(buf + pos, len > pos ? len - pos : 0,
						" %s", lv->filters[j]);
		}
	}
	const char *e = esc_str(buf);

	if (e != buf)
		snprintf(buf, len, "%s", e);
	return buf;
}

static int m_sort_col(void *ctx)
{
	struct top *t = ctx;
	const struct level *lv = &t->stack[t->depth - 1];
	int c = lv->v->sort ? agt_col_find(lv->tab, lv->v->sort) : -1;

	return c >= 0 ? c : (lv->nkeys < agt_ncols(lv->tab) ? lv->nkeys : 0);
}

static void m_stats(void *ctx, struct top_stats *st)
{
	struct top *t = ctx;
	uint64_t per_cpu[256];
	int i;

	memset(st, 0, sizeof(*st));
	memset(per_cpu, 0, sizeof(per_cpu));
	st->events = t->events_last;
	st->interval_ns = t->interval_ns;
	st->events_per_sec = t->interval_ns ?
			     t->events_last * 1e9 / (double)t->interval_ns : 0;
	st->lost = t->lost_base + (t->s ? session_lost(t->s, per_cpu, 256) : 0);
	st->ncpus = 0;
	for (i = 0; i < 256; i++) {
		per_cpu[i] += t->lost_cpu[i];
		if (per_cpu[i])
			st->ncpus = i + 1;
	}
	memcpy(t->lost_shown, per_cpu, sizeof(t->lost_shown));
	st->lost_per_cpu = st->ncpus ? t->lost_shown : NULL;
}

static bool m_view_at(void *ctx, size_t i, const char **name, const char **help)
{
	const struct top_view *v;
	size_t n, k;

	v = top_views(&n);
	for (k = 0; k < n; k++) {
		if (v[k].hidden)
			continue;
		if (i-- == 0) {
			*name = v[k].name;
			*help = v[k].help;
			return true;
		}
	}
	return false;
}

/* "NAME [ARG]": a new bottom of the stack */
static int m_open(void *ctx, const char *spec, char *err, size_t errlen)
{
	struct top *t = ctx;
	const struct top_view *v;
	char name[64];
	const char *arg;
	int ret;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(spec, " "), spec);
	arg = spec[strlen(name)] ? spec + strlen(name) + 1 : NULL;
	v = top_view_find(name);
	if (!v)
		return errmsg(err, errlen, -ENOENT, "no view '%s'", name);
	if (v->needs_arg && !arg)
		return errmsg(err, errlen, -EINVAL, "view '%s' needs an argument", name);
	ret = top_open(t, v, arg, NULL, 0);
	if (ret < 0)
		return errmsg(err, errlen, ret, "%s", t->err);
	/* the new view is the bottom: drop the ones under it */
	if (t->depth > 1) {
		struct level keep = t->stack[t->depth - 1];
		int i;

		memset(&t->stack[t->depth - 1], 0, sizeof(keep));
		for (i = 0; i < t->depth - 1; i++)
			level_release(&t->stack[i]);
		t->stack[0] = keep;
		t->depth = 1;
	}
	return 0;
}

static int m_drill(void *ctx, const struct agt_row *r, char *err, size_t errlen)
{
	struct top *t = ctx;
	int ret = top_drill(t, r);

	return ret < 0 ? errmsg(err, errlen, ret, "%s", t->err) : 0;
}

static int m_back(void *ctx, char *err, size_t errlen)
{
	struct top *t = ctx;
	int ret = top_back(t);

	if (ret == -ENOENT)
		return errmsg(err, errlen, ret, "at the first view");
	return ret < 0 ? errmsg(err, errlen, ret, "%s", t->err) : 0;
}

static void m_watch(void *ctx, const struct agt_row *r)
{
	struct top *t = ctx;
	const struct level *lv = &t->stack[t->depth - 1];
	int i;

	t->watching = r != NULL;
	t->nlines = t->line_head = 0;
	if (!r)
		return;
	for (i = 0; i < lv->nkeys; i++) {
		if (t->feed.fields[lv->key_slot[i]].type == AGT_STR)
			snprintf(t->watch_str[i], AGT_STR_MAX, "%s",
				 agt_str(lv->tab, r, i));
		else
			t->watch_num[i] = agt_int(lv->tab, r, i);
	}
}

static size_t m_watch_lines(void *ctx, const char **lines, size_t max)
{
	struct top *t = ctx;
	size_t i, n = t->nlines < max ? t->nlines : max;
	size_t first = t->nlines - n;

	for (i = 0; i < n; i++)
		lines[i] = t->lines[(t->line_head + first + i) % WATCH_LINES];
	return n;
}

static void m_tick(void *ctx, uint64_t elapsed_ns)
{
	top_tick(ctx, elapsed_ns);
}

const struct top_model *top_engine_model(struct top *t)
{
	t->model = (struct top_model){
		.ctx = t,
		.table = m_table,
		.path = m_path,
		.sort_col = m_sort_col,
		.stats = m_stats,
		.view_at = m_view_at,
		.open = m_open,
		.drill = m_drill,
		.back = m_back,
		.watch = m_watch,
		.watch_lines = m_watch_lines,
		.tick = m_tick,
	};
	return &t->model;
}
