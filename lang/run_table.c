// SPDX-License-Identifier: GPL-2.0
/*
 * A running script's global arrays as aggregate tables (tapkit --top).
 *
 * Each array of the user's script is a view: its index columns are the
 * table's keys, its value the table's values (VALUE for a long or string
 * array; COUNT SUM MIN MAX AVG, and P50 P99 when it keeps a histogram,
 * for a statistic).  The script aggregates already, so the table is not
 * fed samples: at each fill it forgets its rows and takes every element
 * with agt_set(), as the script keeps it now (deleted elements vanish,
 * `c[k] = 0` shows 0).
 *
 * Consistency: the VM runs in the event loop's thread (the providers drain
 * their rings there and call run_fire()), and a fill is one of that loop's
 * callbacks (the display's timer), so it always sees the arrays between
 * two handlers, never half-way through one.  Counting probes (kernel
 * counts, lang/elab_count.c) are synced into their globals first, as
 * before any handler that reads them.
 *
 * Key titles: the expression that indexes the array where the script
 * writes it, when it is the same at every write: `c[execname(), name]++`
 * gives EXECNAME and NAME (a call's name, a variable's, a target
 * variable's without its '$'); otherwise KEY1, KEY2...
 *
 * A drill-down fixes the leading keys: the view then holds the elements
 * whose first keys are those, the keys after them as its key columns.
 */
#include <errno.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/agtable.h"
#include "common/escape.h"
#include "common/log.h"
#include "lang/backend.h"
#include "lang/run.h"

/* ---- the arrays and their key titles ------------------------------------ */

struct title_scan {
	const struct elab_sym *sym;
	int nkeys;
	char names[MAP_MAX_KEYS][RUN_TITLE_MAX];
	bool seen[MAP_MAX_KEYS], mixed[MAP_MAX_KEYS];
};

/* The name an index expression goes by: execname(), name, $fd; NULL: none. */
static const char *key_expr_name(const struct ast_expr *k)
{
	switch (k->kind) {
	case AST_E_CALL:
		return k->u.call.name;
	case AST_E_VAR:
		return k->u.var.name;
	case AST_E_TARGET:
		if (!k->u.target.name || k->u.target.ncomps)
			return NULL;
		return k->u.target.name + strspn(k->u.target.name, "$");
	default:
		return NULL;
	}
}

static void note_write(struct title_scan *ts, const struct ast_expr *l)
{
	int i;

	if (!l || l->kind != AST_E_INDEX || l->u.index.base->kind != AST_E_VAR ||
	    elab_expr_sym(l) != ts->sym ||
	    l->u.index.args.n != (size_t)ts->nkeys)
		return;
	for (i = 0; i < ts->nkeys; i++) {
		const char *n = key_expr_name(l->u.index.args.v[i]);
		char up[RUN_TITLE_MAX];
		size_t j;

		if (!n || !*n || strlen(n) >= sizeof(up)) {
			ts->mixed[i] = true;
			continue;
		}
		for (j = 0; n[j]; j++)
			up[j] = (char)toupper((unsigned char)n[j]);
		up[j] = '\0';
		if (!ts->seen[i]) {
			ts->seen[i] = true;
			memcpy(ts->names[i], up, j + 1);
		} else if (strcmp(ts->names[i], up)) {
			ts->mixed[i] = true;
		}
	}
}

static int scan_expr(struct ast_expr *e, void *ctx)
{
	if (e->kind == AST_E_ASSIGN)
		note_write(ctx, e->u.bin.left);
	else if (e->kind == AST_E_CREMENT)
		note_write(ctx, e->u.unary.operand);
	return 0;
}

static const char *const value_titles[] = {
	"VALUE", "COUNT", "SUM", "MIN", "MAX", "AVG", "P50", "P99",
};

/* Titles of @a's keys: the written expressions' names, unique and not a
 * value column's, else KEYn. */
static void key_titles(const struct elab *e, struct run_array *a)
{
	struct title_scan ts = { .nkeys = a->nkeys };
	struct ast_visitor v = { .expr = scan_expr, .ctx = &ts };
	size_t i;
	int k, j;

	if (e && (size_t)a->global < e->globals.n) {
		ts.sym = e->globals.v[a->global];
		for (i = 0; i < e->probes.n; i++)
			if (!e->probes.v[i]->synthetic)
				ast_walk_stmt(e->probes.v[i]->body, &v);
		for (i = 0; i < e->funcs.n; i++)
			if (e->funcs.v[i]->used && e->funcs.v[i]->decl)
				ast_walk_stmt(e->funcs.v[i]->decl->body, &v);
	}
	for (k = 0; k < a->nkeys; k++) {
		bool ok = ts.seen[k] && !ts.mixed[k];

		for (i = 0; ok && i < sizeof(value_titles) / sizeof(*value_titles); i++)
			ok = strcmp(ts.names[k], value_titles[i]) != 0;
		for (j = 0; ok && j < a->nkeys; j++)
			ok = j == k || !ts.seen[j] || ts.mixed[j] ||
			     strcmp(ts.names[k], ts.names[j]);
		if (ok)
			snprintf(a->key_title[k], RUN_TITLE_MAX, "%s", ts.names[k]);
		else
			snprintf(a->key_title[k], RUN_TITLE_MAX, "KEY%d", k + 1);
	}
}

size_t run_arrays(const struct prog *prog, const struct elab *e,
		  struct run_array *out, size_t max)
{
	size_t i, n = 0;
	int k;

	for (i = 0; i < prog->nglobals; i++) {
		const struct prog_global *pg = &prog->globals[i];
		struct run_array *a;

		if (!pg->nkeys)
			continue;
		/* the tapsets' own arrays are no view of the script's */
		if (e && i < e->globals.n && e->globals.v[i]->decl &&
		    e->globals.v[i]->decl->library)
			continue;
		if (n++ >= max)
			continue;
		a = &out[n - 1];
		memset(a, 0, sizeof(*a));
		a->name = pg->name;
		a->global = (int)i;
		a->nkeys = pg->nkeys;
		for (k = 0; k < pg->nkeys; k++)
			a->key_str[k] = pg->mcfg.keys[k] == MAP_STRING;
		a->value = pg->type == AST_T_STATS ? RUN_ARRAY_STAT :
			   pg->type == AST_T_STRING ? RUN_ARRAY_STRING :
			   RUN_ARRAY_LONG;
		a->hist = a->value == RUN_ARRAY_STAT &&
			  pg->scfg.type != STAT_HIST_NONE;
		key_titles(e, a);
	}
	return n;
}

int run_array_cols(const struct run_array *a, int depth, struct agt_col *cols)
{
	static const char *const stat_titles[] = {
		"COUNT", "SUM", "MIN", "MAX", "AVG", "P50", "P99",
	};
	int k, n = 0, nval, i;

	if (depth < 0 || depth >= a->nkeys)
		return -EINVAL;
	for (k = depth; k < a->nkeys; k++, n++)
		cols[n] = (struct agt_col){
			.title = a->key_title[k], .fn = AGT_KEY,
			.type = a->key_str[k] ? AGT_STR : AGT_INT, .input = n,
		};
	/*
	 * The values are the script's, taken as they are (agt_set()): every
	 * value column is the last value of its input, whatever it means.
	 */
	if (a->value != RUN_ARRAY_STAT) {
		cols[n] = (struct agt_col){
			.title = "VALUE", .fn = AGT_LAST, .input = n,
			.type = a->value == RUN_ARRAY_STRING ? AGT_STR : AGT_INT,
		};
		return n + 1;
	}
	nval = a->hist ? 7 : 5;
	for (i = 0; i < nval; i++, n++)
		cols[n] = (struct agt_col){
			.title = stat_titles[i], .fn = AGT_LAST, .type = AGT_INT,
			.input = n,
		};
	return n;
}

char *run_array_desc(const struct run_array *a, char *buf, size_t len)
{
	static const char *const kinds[] = {
		[RUN_ARRAY_LONG] = "long", [RUN_ARRAY_STRING] = "string",
		[RUN_ARRAY_STAT] = "statistic",
	};
	size_t used;
	int k;

	if (!len)
		return buf;
	snprintf(buf, len, "%s[", a->name);
	for (k = 0; k < a->nkeys; k++) {
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", k ? ", " : "",
			 a->key_title[k]);
	}
	used = strlen(buf);
	snprintf(buf + used, len - used, "]: %s%s", kinds[a->value],
		 a->hist ? " with a histogram" : "");
	return buf;
}

int run_array_sort_col(const struct run_array *a, int depth)
{
	/* the value (the count of a statistic); a string array by its key */
	return a->value == RUN_ARRAY_STRING ? 0 : a->nkeys - depth;
}

/* ---- percentiles of a statistic's histogram ---------------------------- */

/* The values bucket @b of @cfg holds: [*lo, *hi]. */
static void bucket_range(const struct stat_cfg *cfg, int b, double *lo,
			 double *hi)
{
	if (cfg->type == STAT_HIST_LOG) {
		if (b == STAT_LOG_BUCKET0) {
			*lo = *hi = 0;
		} else if (b > STAT_LOG_BUCKET0) {	/* [2^(b-65), 2^(b-64)) */
			*lo = (double)stat_log_bucket_value(b);
			*hi = 2 * *lo - 1;
		} else {				/* mirrored below 0 */
			*hi = (double)stat_log_bucket_value(b);
			*lo = 2 * *hi + 1;
		}
		return;
	}
	/* linear: underflow, the range, overflow (clamped by the caller) */
	*lo = (double)cfg->start + (double)(b - 1) * cfg->interval;
	*hi = *lo + cfg->interval - 1;
	if (b == 0)
		*lo = *hi = (double)INT64_MIN;
	else if (b == cfg->buckets - 1)
		*lo = *hi = (double)INT64_MAX;
}

/*
 * The @pct percentile of @s: the bucket holding that rank, interpolated
 * in it, clamped to [min, max] (as the tables' own P50/P99 are).
 */
static int64_t stat_pct(const struct stat_cfg *cfg, const struct stat_agg *s,
			double pct)
{
	double rank = pct / 100.0 * (double)s->count, below = 0, lo, hi, v;
	int b;

	if (rank < 1)
		rank = 1;
	for (b = 0; b < cfg->buckets; b++) {
		double n = (double)s->hist[b];

		if (n <= 0 || below + n < rank) {
			below += n > 0 ? n : 0;
			continue;
		}
		bucket_range(cfg, b, &lo, &hi);
		v = lo + (hi - lo) * (rank - below) / n;
		if (v < (double)s->min)
			return s->min;
		if (v > (double)s->max)
			return s->max;
		return (int64_t)v;
	}
	return s->max;
}

/* ---- filling a table ----------------------------------------------------- */

/* Element @e's key @k equals @m (a drilled row's key). */
static bool key_match(const struct run_array *a, const struct map_entry *e,
		      int k, const struct run_key *m)
{
	const char *s;
	size_t n;

	if (!a->key_str[k])
		return map_entry_key_long(e, k) == m->l;
	s = map_entry_key_str(e, k);
	if (!s)
		s = "";
	/* the table keeps AGT_STR_MAX - 1 bytes of a key: a key cut there
	 * matches on what was kept */
	n = strlen(m->s);
	if (n >= AGT_STR_MAX - 1)
		return !strncmp(s, m->s, n);
	return !strcmp(s, m->s);
}

size_t run_array_fill(struct run *r, const struct run_array *a, int depth,
		      const struct run_key *match, struct agtable *t)
{
	struct vm *vm = run_vm(r);
	struct map *m = vm->g[a->global].map;
	const struct stat_cfg *cfg = a->value == RUN_ARRAY_STAT ?
				     map_stat_cfg(m) : NULL;
	struct map_iter it;
	struct map_entry *e;
	struct agt_sample s;
	size_t rows = 0;
	int k, n;

	run_sync(r);
	agt_reset(t);
	if (map_iter_start(&it, m, NULL) < 0)
		return 0;
	while ((e = map_iter_next(&it))) {
		for (k = 0; k < depth; k++)
			if (!key_match(a, e, k, &match[k]))
				break;
		if (k < depth)
			continue;
		memset(&s, 0, sizeof(s));
		s.weight = 1;
		for (n = 0; k < a->nkeys; k++, n++) {
			if (a->key_str[k])
				s.str[n] = map_entry_key_str(e, k);
			else
				s.num[n] = map_entry_key_long(e, k);
			s.have |= 1ull << n;
		}
		if (a->value == RUN_ARRAY_LONG) {
			s.num[n] = map_entry_long(e);
			s.have |= 1ull << n;
		} else if (a->value == RUN_ARRAY_STRING) {
			s.str[n] = map_entry_str(e);
			s.have |= 1ull << n;
		} else {
			static const enum stat_op ops[] = {
				STAT_COUNT, STAT_SUM, STAT_MIN, STAT_MAX, STAT_AVG,
			};
			const struct stat_agg *st = map_entry_stat(e);
			size_t i;

			/* min, max and avg of an empty statistic: no value */
			for (i = 0; i < 5; i++, n++)
				if (!stat_get(cfg, st, ops[i], &s.num[n]))
					s.have |= 1ull << n;
			if (a->hist && st->count) {
				s.num[n] = stat_pct(cfg, st, 50);
				s.num[n + 1] = stat_pct(cfg, st, 99);
				s.have |= 3ull << n;
			}
		}
		agt_set(t, &s);
		rows++;
	}
	map_iter_end(&it);
	return rows;
}

int run_view_check(const struct prog *prog, const struct elab *e,
		   const char *name, int ndrill, const char *sort,
		   int *sort_col, char *err, size_t errlen)
{
	size_t i, n = run_arrays(prog, e, NULL, 0);
	struct run_array *arrays, *a = NULL;
	struct agt_col cols[AGT_MAX_COLS];
	char list[AGT_MAX_COLS * (RUN_TITLE_MAX + 1)] = "";
	int ret = 0, ncols, c;

	if (!n)
		return errmsg(err, errlen, -ENOENT, "the script has no global "
			      "arrays to show");
	arrays = xcalloc(n, sizeof(*arrays));
	run_arrays(prog, e, arrays, n);
	for (i = 0; i < n && !a; i++)
		if (!name || !strcmp(arrays[i].name, name))
			a = &arrays[i];
	if (!a) {
		ret = errmsg(err, errlen, -ENOENT, "no global array '%s' in the "
			     "script", name);
		goto out;
	}
	if (ndrill >= a->nkeys) {
		ret = errmsg(err, errlen, -EINVAL, "'%s' has %d key%s: %d to "
			     "drill by at most", a->name, a->nkeys,
			     a->nkeys > 1 ? "s" : "", a->nkeys - 1);
		goto out;
	}
	*sort_col = -1;
	if (!sort)
		goto out;
	ncols = run_array_cols(a, ndrill, cols);
	for (c = 0; c < ncols; c++) {
		if (!strcasecmp(cols[c].title, sort))
			*sort_col = c;
		strcat(list, c ? " " : "");
		strcat(list, cols[c].title);
	}
	if (*sort_col < 0)
		ret = errmsg(err, errlen, -EINVAL, "no column '%s' in '%s' (%s)",
			     sort, a->name, list);
out:
	free(arrays);
	return ret;
}

/* ---- a view over the arrays: open, drill, back, tick ------------------- */

struct run_view {
	struct run *run;
	struct run_array *arrays;
	size_t narrays;
	size_t cur;
	int depth;			/* keys fixed by drill-downs */
	struct run_key match[MAP_MAX_KEYS];
	struct agt_col cols[AGT_MAX_COLS];
	struct agtable *t;
	uint64_t fired, events;		/* handlers: at the last tick, in it */
	uint64_t interval_ns;
};

static void clear_match(struct run_view *v, int from)
{
	int k;

	for (k = from; k < MAP_MAX_KEYS; k++) {
		free(v->match[k].s);
		v->match[k].s = NULL;
	}
}

/* A new table for the current array and depth, filled now. */
static int remake(struct run_view *v, char *err, size_t errlen)
{
	const struct run_array *a = &v->arrays[v->cur];
	int n = run_array_cols(a, v->depth, v->cols);
	struct agtable *t = n < 0 ? NULL : agt_new(v->cols, n);

	if (!t)
		return errmsg(err, errlen, -EINVAL, "cannot make a table of '%s'",
			      a->name);
	agt_free(v->t);
	v->t = t;
	run_array_fill(v->run, a, v->depth, v->match, v->t);
	agt_tick(v->t, v->interval_ns);
	return 0;
}

struct run_view *run_view_new(struct run *r, const struct elab *e,
			      const char *name, char *err, size_t errlen)
{
	struct run_view *v = xcalloc(1, sizeof(*v));
	const struct prog *prog = run_prog(r);
	size_t n = run_arrays(prog, e, NULL, 0);
	int ret;

	if (!n) {
		free(v);
		errno = ENOENT;
		errmsg(err, errlen, -ENOENT, "the script has no global arrays");
		return NULL;
	}
	v->run = r;
	v->arrays = xcalloc(n, sizeof(*v->arrays));
	v->narrays = run_arrays(prog, e, v->arrays, n);
	v->fired = run_fired(r);
	ret = run_view_open(v, name ? name : v->arrays[0].name, err, errlen);
	if (ret < 0) {
		run_view_free(v);
		errno = -ret;
		return NULL;
	}
	return v;
}

void run_view_free(struct run_view *v)
{
	if (!v)
		return;
	clear_match(v, 0);
	agt_free(v->t);
	free(v->arrays);
	free(v);
}

size_t run_view_count(const struct run_view *v)
{
	return v->narrays;
}

const struct run_array *run_view_array(const struct run_view *v, size_t i)
{
	return i < v->narrays ? &v->arrays[i] : NULL;
}

int run_view_open(struct run_view *v, const char *name, char *err,
		  size_t errlen)
{
	size_t i, old = v->cur;
	int old_depth = v->depth, ret;

	for (i = 0; i < v->narrays; i++)
		if (!strcmp(v->arrays[i].name, name))
			break;
	if (i == v->narrays)
		return errmsg(err, errlen, -ENOENT, "no global array '%s' in "
			      "the script", name);
	v->cur = i;
	v->depth = 0;
	ret = remake(v, err, errlen);
	if (ret < 0) {
		v->cur = old;
		v->depth = old_depth;
		return ret;
	}
	clear_match(v, 0);
	return 0;
}

/* Fix the next key to @m (taken), and show what is under it. */
static int drill(struct run_view *v, struct run_key m, char *err, size_t errlen)
{
	int ret;

	v->match[v->depth++] = m;
	ret = remake(v, err, errlen);
	if (ret < 0) {
		v->depth--;
		clear_match(v, v->depth);
	}
	return ret;
}

int run_view_drill(struct run_view *v, const struct agt_row *row, char *err,
		   size_t errlen)
{
	const struct run_array *a = &v->arrays[v->cur];
	struct run_key m = { 0 };

	if (!row || v->depth + 1 >= a->nkeys)
		return -ENOENT;
	if (a->key_str[v->depth]) {
		const char *s = agt_str(v->t, row, 0);

		m.s = xstrdup(s ? s : "");
	} else {
		m.l = agt_int(v->t, row, 0);
	}
	return drill(v, m, err, errlen);
}

int run_view_drill_key(struct run_view *v, const char *key, char *err,
		       size_t errlen)
{
	const struct run_array *a = &v->arrays[v->cur];
	struct run_key m = { 0 };
	char *end;

	if (v->depth + 1 >= a->nkeys)
		return errmsg(err, errlen, -ENOENT, "'%s' has no key left to "
			      "drill into by '%s'", a->name, key);
	if (a->key_str[v->depth]) {
		m.s = xstrdup(key);
	} else {
		errno = 0;
		m.l = strtoll(key, &end, 0);
		if (errno || end == key || *end)
			return errmsg(err, errlen, -EINVAL, "key %d of '%s' is a "
				      "number, not '%s'", v->depth + 1, a->name, key);
	}
	return drill(v, m, err, errlen);
}

int run_view_back(struct run_view *v, char *err, size_t errlen)
{
	int ret;

	if (!v->depth)
		return -ENOENT;
	v->depth--;
	ret = remake(v, err, errlen);
	if (ret < 0) {
		v->depth++;
		return ret;
	}
	clear_match(v, v->depth);
	return 0;
}

void run_view_tick(struct run_view *v, uint64_t elapsed_ns)
{
	uint64_t fired = run_fired(v->run);

	v->events = fired - v->fired;
	v->fired = fired;
	v->interval_ns = elapsed_ns;
	run_array_fill(v->run, &v->arrays[v->cur], v->depth, v->match, v->t);
	agt_tick(v->t, elapsed_ns);
}

struct agtable *run_view_table(const struct run_view *v)
{
	return v->t;
}

int run_view_sort_col(const struct run_view *v)
{
	return run_array_sort_col(&v->arrays[v->cur], v->depth);
}

uint64_t run_view_events(const struct run_view *v, uint64_t *interval_ns)
{
	if (interval_ns)
		*interval_ns = v->interval_ns;
	return v->events;
}

char *run_view_path(const struct run_view *v, char *buf, size_t len)
{
	const struct run_array *a = &v->arrays[v->cur];
	size_t used;
	int k;

	if (!len)
		return buf;
	snprintf(buf, len, "%s", a->name);
	for (k = 0; k < v->depth; k++) {
		char num[32];
		const char *text = num;

		used = strlen(buf);
		if (a->key_str[k])
			text = esc_str(v->match[k].s);
		else
			snprintf(num, sizeof(num), "%" PRId64, v->match[k].l);
		snprintf(buf + used, len - used, " > %s=%s", a->key_title[k],
			 text);
	}
	return buf;
}
