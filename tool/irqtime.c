// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt handler time (see irqtime.h).  Rows are few (one per handler
 * name or softirq vector), so they live in a small array searched by name;
 * each CPU keeps the entry it is in, and an exit without its entry (a
 * handler running when tracing began, a lost record) is not counted.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hist.h"
#include "common/json.h"
#include "common/log.h"
#include "tool/irqtime.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define NAME_MAX_LEN 32

struct row {
	char name[NAME_MAX_LEN];
	int vec;			/* softirq vector, -1 for hard irqs */
	uint64_t count, total_ns;
	struct hist_log2 h;
};

struct in_handler {
	uint64_t ts;
	int row;			/* -1: none */
	int irq;
};

struct irqtime {
	struct irqtime_opts o;
	struct tp *entry, *exit;
	struct tk_field e_irq, e_name, x_irq;
	struct row *rows;
	int nrows, cap;
	struct in_handler *cpus;
	int ncpus;
};

/* The kernel's softirq_to_name[], lowercase as bcc prints them. */
static const char *const vec_names[] = {
	"hi", "timer", "net_tx", "net_rx", "block", "irq_poll",
	"tasklet", "sched", "hrtimer", "rcu",
};

struct irqtime *irqtime_new(const struct irqtime_opts *o)
{
	struct irqtime *q = xcalloc(1, sizeof(*q));
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int i;

	q->o = *o;
	q->ncpus = n > 0 ? (int)n : 1;
	q->cpus = xcalloc(q->ncpus, sizeof(*q->cpus));
	for (i = 0; i < q->ncpus; i++)
		q->cpus[i].row = -1;
	return q;
}

void irqtime_free(struct irqtime *q)
{
	if (!q)
		return;
	free(q->rows);
	free(q->cpus);
	free(q);
}

int irqtime_add(struct irqtime *q, struct session *s)
{
	const char *sys = "irq";
	const char *en = q->o.soft ? "softirq_entry" : "irq_handler_entry";
	const char *ex = q->o.soft ? "softirq_exit" : "irq_handler_exit";
	const char *key = q->o.soft ? "vec" : "irq";

	q->entry = session_add(s, sys, en, TP_RECORD, NULL);
	if (!q->entry || format_field(q->entry->event, key, &q->e_irq) < 0)
		return -1;
	if (!q->o.soft && format_field(q->entry->event, "name", &q->e_name) < 0)
		return -1;
	if (q->o.count)
		return 0;
	q->exit = session_add(s, sys, ex, TP_RECORD, NULL);
	if (!q->exit || format_field(q->exit->event, key, &q->x_irq) < 0)
		return -1;
	return 0;
}

static int row_find(struct irqtime *q, const char *name, int vec)
{
	int i;

	for (i = 0; i < q->nrows; i++)
		if (q->rows[i].vec == vec && !strcmp(q->rows[i].name, name))
			return i;
	if (q->nrows == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 16;
		q->rows = xrealloc(q->rows, q->cap * sizeof(*q->rows));
	}
	memset(&q->rows[q->nrows], 0, sizeof(*q->rows));
	snprintf(q->rows[q->nrows].name, NAME_MAX_LEN, "%s", name);
	q->rows[q->nrows].vec = vec;
	return q->nrows++;
}

void irqtime_record(struct irqtime *q, const struct tk_event *ev)
{
	struct in_handler *in;
	int irq;

	if (q->o.cpu >= 0 && ev->cpu != q->o.cpu)
		return;
	if (ev->cpu < 0 || ev->cpu >= q->ncpus)
		return;
	in = &q->cpus[ev->cpu];
	irq = (int)field_int(ev, ev->id == q->entry->id ? &q->e_irq : &q->x_irq);
	if (ev->id == q->entry->id) {
		char name[NAME_MAX_LEN];
		int r;

		if (q->o.soft) {
			if (irq >= 0 && irq < (int)(sizeof(vec_names) / sizeof(*vec_names)))
				snprintf(name, sizeof(name), "%s", vec_names[irq]);
			else
				snprintf(name, sizeof(name), "vec%d", irq);
		} else {
			field_str(ev, &q->e_name, name, sizeof(name));
		}
		r = row_find(q, name, q->o.soft ? irq : -1);
		if (q->o.count) {
			q->rows[r].count++;
			return;
		}
		in->ts = ev->ts;
		in->row = r;
		in->irq = irq;
		return;
	}
	if (q->exit && ev->id == q->exit->id) {
		struct row *row;
		uint64_t d;

		if (in->row < 0 || in->irq != irq || ev->ts < in->ts) {
			in->row = -1;
			return;
		}
		row = &q->rows[in->row];
		d = ev->ts - in->ts;
		row->count++;
		row->total_ns += d;
		if (q->o.dist)
			hist_log2_add(&row->h, q->o.nsecs ? d : d / 1000);
		in->row = -1;
	}
}

bool irqtime_empty(const struct irqtime *q)
{
	int i;

	for (i = 0; i < q->nrows; i++)
		if (q->rows[i].count)
			return false;
	return true;
}

static uint64_t row_value(const struct irqtime *q, const struct row *r)
{
	if (q->o.count)
		return r->count;
	return q->o.nsecs ? r->total_ns : r->total_ns / 1000;
}

static const struct irqtime *sort_q;

static int by_value(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t vx = row_value(sort_q, x), vy = row_value(sort_q, y);

	if (vx != vy)
		return vx < vy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_key(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->vec != y->vec)
		return x->vec < y->vec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The rows seen (count > 0), sorted; the counts start again (the rows
 * stay: a CPU in a handler keeps its row's index). */
static int take(struct irqtime *q, struct row **out, int (*cmp)(const void *, const void *))
{
	struct row *rows = xcalloc(q->nrows ? q->nrows : 1, sizeof(*rows));
	int i, n = 0;

	for (i = 0; i < q->nrows; i++) {
		struct row *r = &q->rows[i];

		if (r->count)
			rows[n++] = *r;
		r->count = r->total_ns = 0;
		memset(&r->h, 0, sizeof(r->h));
	}
	sort_q = q;
	qsort(rows, n, sizeof(*rows), cmp);
	*out = rows;
	return n;
}

void irqtime_print(struct irqtime *q, FILE *f, const char *hms)
{
	const char *unit = q->o.nsecs ? "nsecs" : "usecs";
	const char *kind = q->o.soft ? "SOFTIRQ" : "HARDIRQ";
	int width = q->o.soft ? 16 : 26;
	char title[32];
	struct row *rows;
	int i, n;

	n = take(q, &rows, q->o.dist ? by_key : by_value);
	fprintf(f, "\n");
	if (hms)
		fprintf(f, "%-8s\n", hms);
	if (q->o.dist) {
		for (i = 0; i < n; i++) {
			fprintf(f, "\n%s = %s\n", q->o.soft ? "softirq" : "hardirq",
				rows[i].name);
			hist_log2_print(f, &rows[i].h, unit);
		}
	} else {
		snprintf(title, sizeof(title), "TOTAL_%s", q->o.count ? "count" : unit);
		fprintf(f, "%-*s %11s\n", width, kind, title);
		for (i = 0; i < n; i++)
			fprintf(f, "%-*s %11llu\n", width, rows[i].name,
				(unsigned long long)row_value(q, &rows[i]));
	}
	free(rows);
}

void irqtime_json(struct irqtime *q, FILE *f, const char *hms,
		  struct session *s)
{
	struct row *rows;
	struct json j;
	int i, n;

	n = take(q, &rows, by_key);
	json_begin(&j, f);
	json_str(&j, "time", hms);
	json_arr_open(&j, q->o.soft ? "softirqs" : "hardirqs");
	for (i = 0; i < n; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", rows[i].name);
		if (q->o.soft)
			json_int(&j, "vec", rows[i].vec);
		json_uint(&j, "count", rows[i].count);
		if (!q->o.count)
			json_uint(&j, "total_ns", rows[i].total_ns);
		if (q->o.dist)
			hist_log2_json(&j, q->o.nsecs ? "hist_ns" : "hist_us", &rows[i].h);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	session_json_lost(s, &j);
	json_end(&j);
	free(rows);
}
