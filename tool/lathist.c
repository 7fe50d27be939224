// SPDX-License-Identifier: GPL-2.0
/*
 * Keyed power-of-two histograms of times for runqlat and cpudist.  Times
 * are counted in the unit (ns / 1000 or / 1000000, as bcc divides before
 * taking the log), so the text rows and the JSON buckets are the same
 * numbers.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/escape.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/log.h"
#include "tool/lathist.h"
#include "tracefs/session.h"

struct entry {
	struct lathist_agg a;
	pid_t pid;
	char comm[16];
};

struct lathist {
	struct lathist_opts o;
	uint64_t div;
	struct lathist_agg all;
	struct hmap *keys;	/* key -> struct entry */
};

struct lathist *lathist_new(const struct lathist_opts *o)
{
	struct lathist *lh = xcalloc(1, sizeof(*lh));

	lh->o = *o;
	lh->div = o->msecs ? 1000000 : 1000;
	lh->keys = hmap_new(sizeof(struct entry));
	return lh;
}

void lathist_free(struct lathist *lh)
{
	if (!lh)
		return;
	hmap_free(lh->keys);
	free(lh);
}

const char *lathist_unit(const struct lathist *lh)
{
	return lh->o.msecs ? "msecs" : "usecs";
}

const struct lathist_agg *lathist_all(const struct lathist *lh)
{
	return &lh->all;
}

static void agg_add(struct lathist_agg *a, uint64_t v, uint64_t ns)
{
	hist_log2_add(&a->h, v);
	a->total_ns += ns;
}

void lathist_add(struct lathist *lh, uint64_t key, pid_t pid, const char *comm,
		 bool named, uint64_t ns)
{
	uint64_t v = ns / lh->div;
	struct entry *e;

	agg_add(&lh->all, v, ns);
	if (!lh->o.section)
		return;
	e = hmap_get(lh->keys, key, true);
	agg_add(&e->a, v, ns);
	e->pid = pid;
	if (comm && (named || !e->comm[0]))
		snprintf(e->comm, sizeof(e->comm), "%s", comm);
}

struct sorted {
	uint64_t key;
	const struct entry *e;
};

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const struct sorted *)a)->key, y = ((const struct sorted *)b)->key;

	return x < y ? -1 : x > y;
}

/* The entries by key, in a malloc'ed array the caller frees; *@n of them. */
static struct sorted *sorted(const struct lathist *lh, size_t *n)
{
	struct sorted *v = xcalloc(hmap_count(lh->keys) + 1, sizeof(*v));
	size_t pos = 0, k = 0;
	const struct entry *e;
	uint64_t key;

	while ((e = hmap_next(lh->keys, &pos, &key))) {
		v[k].key = key;
		v[k++].e = e;
	}
	qsort(v, k, sizeof(*v), cmp_key);
	*n = k;
	return v;
}

void lathist_print(struct lathist *lh, FILE *f)
{
	struct sorted *v;
	size_t i, n;

	if (!lh->o.section) {
		hist_log2_print(f, &lh->all.h, lathist_unit(lh));
		return;
	}
	v = sorted(lh, &n);
	for (i = 0; i < n; i++) {
		fprintf(f, "\n%s = %llu", lh->o.section, (unsigned long long)v[i].key);
		if (lh->o.comm && v[i].e->comm[0])
			fprintf(f, " %s", esc_str(v[i].e->comm));
		fputc('\n', f);
		hist_log2_print(f, &v[i].e->a.h, lathist_unit(lh));
	}
	free(v);
}

void lathist_print_totals(struct lathist *lh, FILE *f)
{
	const struct lathist_agg *a = &lh->all;

	if (!a->h.count)
		return;
	fprintf(f, "\navg = %llu %s, total: %llu %s, count: %llu\n",
		(unsigned long long)(a->total_ns / lh->div / a->h.count), lathist_unit(lh),
		(unsigned long long)(a->total_ns / lh->div), lathist_unit(lh),
		(unsigned long long)a->h.count);
}

static void json_agg(struct json *j, const struct lathist_agg *a)
{
	json_uint(j, "count", a->h.count);
	json_uint(j, "total_ns", a->total_ns);
	hist_log2_json(j, "hist", &a->h);
}

void lathist_json(struct lathist *lh, struct json *j)
{
	struct sorted *v;
	char name[16];
	size_t i, n;

	json_str(j, "unit", lathist_unit(lh));
	json_agg(j, &lh->all);
	if (!lh->o.section)
		return;
	snprintf(name, sizeof(name), "%ss", lh->o.section);
	json_arr_open(j, name);
	v = sorted(lh, &n);
	for (i = 0; i < n; i++) {
		json_obj_open(j, NULL);
		json_uint(j, lh->o.section, v[i].key);
		if (!strcmp(lh->o.section, "tid"))
			json_int(j, "pid", v[i].e->pid);
		if (v[i].e->comm[0])
			json_str(j, "comm", v[i].e->comm);
		json_agg(j, &v[i].e->a);
		json_obj_close(j);
	}
	free(v);
	json_arr_close(j);
}

void lathist_reset(struct lathist *lh)
{
	memset(&lh->all, 0, sizeof(lh->all));
	hmap_clear(lh->keys);
}

void lathist_summary(struct lathist *lh, struct session *s, bool json,
		     bool timestamp, bool totals)
{
	time_t tt = time(NULL);
	struct json j;
	char now[16];

	strftime(now, sizeof(now), "%H:%M:%S", localtime(&tt));
	if (json) {
		json_begin(&j, stdout);
		json_str(&j, "time", now);
		lathist_json(lh, &j);
		session_json_lost(s, &j);
		json_end(&j);
	} else {
		putchar('\n');
		if (timestamp)
			printf("%-8s\n", now);
		lathist_print(lh, stdout);
		if (totals)
			lathist_print_totals(lh, stdout);
	}
	lathist_reset(lh);
}
