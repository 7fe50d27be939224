// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregate table shown: numbers with their units, cells, widths, JSON
 * rows, and the rows to list (shown in the mode, filtered, sorted).  The
 * rows themselves are in agtable.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agtable.h"
#include "common/agtable_int.h"
#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"

/* ---- text ---- */

/* 3 significant digits of @v (>= 0) with @suffix, or false when it rounds
 * to 1000 or more. */
static bool sig3(double v, const char *suffix, const char *sign, char *buf,
		 size_t len)
{
	int prec = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;

	if (v >= 999.5)
		return false;
	snprintf(buf, len, "%s%.*f%s", sign, prec, v, suffix);
	return true;
}

/**
 * agt_format() - @v as agt_cell() shows a number of @unit, into @buf
 *
 * AGT_PLAIN: an integer as one, else one decimal ("12.5").  AGT_NS: three
 * significant digits in ns, us, ms or s ("812ns", "13.5us", "2.10ms",
 * "1.25s"; "1250s" past 999 s).  AGT_BYTES: 1024-based, plain below 1024
 * ("512"), else one decimal and K, M, G, T, P, E ("12.0K", "3.4M").
 * AGT_HEX: "0x1f".  Returns @buf.
 */
char *agt_format(double v, enum agt_unit unit, char *buf, size_t len)
{
	static const char *const ns_units[] = { "ns", "us", "ms" };
	static const char bytes_units[] = "KMGTPE";
	const char *sign = v < 0 ? "-" : "";
	double a = v < 0 ? -v : v;
	int i;

	switch (unit) {
	case AGT_NS:
		if (a < 999.5) {	/* no fractions of a ns */
			snprintf(buf, len, "%s%.0fns", sign, a);
			return buf;
		}
		for (i = 1, a /= 1000; i < 3; i++, a /= 1000)
			if (sig3(a, ns_units[i], sign, buf, len))
				return buf;
		if (!sig3(a, "s", sign, buf, len))
			snprintf(buf, len, "%s%.0fs", sign, a);
		return buf;
	case AGT_BYTES:
		if (agt_round(a) < 1024) {
			snprintf(buf, len, "%s%.0f", sign, a);
			return buf;
		}
		for (i = 0, a /= 1024; i < 5 && a >= 1023.95; i++)
			a /= 1024;
		snprintf(buf, len, "%s%.1f%c", sign, a, bytes_units[i]);
		return buf;
	case AGT_HEX:
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)(int64_t)v);
		return buf;
	default:
		if (agt_whole(v))
			snprintf(buf, len, "%.0f", v);
		else
			snprintf(buf, len, "%.1f", v);
		return buf;
	}
}

static char *format_int(int64_t v, enum agt_unit unit, char *buf, size_t len)
{
	if (unit == AGT_PLAIN)
		snprintf(buf, len, "%" PRId64, v);
	else if (unit == AGT_HEX)
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)v);
	else
		agt_format((double)v, unit, buf, len);
	return buf;
}

/**
 * agt_cell() - the text of column @col for row @r in @mode, into @buf
 *
 * Strings escaped (common/escape.h), numbers with their unit
 * (agt_format()), averages and rates of AGT_PLAIN columns always with one
 * decimal, "-" for no value.  Returns @buf.
 */
char *agt_cell(const struct agtable *t, const struct agt_row *r, int col,
	       enum agt_mode mode, char *buf, size_t len)
{
	const struct agt_col *c = agt_col(t, col);
	struct agt_val v;

	if (!c) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (c->type == AGT_STR) {
		if (c->fn == AGT_LAST && !agt_str_has(t, r, col, mode))
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%s", esc_str(agt_str(t, r, col)));
		return buf;
	}
	v = agt_value_of(t, r, col, mode);
	if (!v.has)
		snprintf(buf, len, "-");
	else if ((c->fn == AGT_AVG || c->fn == AGT_RATE) && c->unit == AGT_PLAIN)
		snprintf(buf, len, "%.1f", v.d);
	else if (v.isint)
		format_int(v.i, c->unit, buf, len);
	else
		agt_format(v.d, c->unit, buf, len);
	return buf;
}

/**
 * agt_width() - the shown width of @col: the larger of its title's length
 * and its width, or when it has none: 16 for strings, 18 for AGT_HEX
 * numbers, 8 for other numbers
 */
int agt_width(const struct agtable *t, int col)
{
	const struct agt_col *c = agt_col(t, col);
	int w, tl;

	if (!c)
		return 0;
	w = c->width > 0 ? c->width : c->type == AGT_STR ? 16 :
	    c->unit == AGT_HEX ? 18 : 8;
	tl = (int)strlen(c->title);
	return tl > w ? tl : w;
}

/* @v to 3 decimals: a rate or an average, not its last bits */
static double milli(double v)
{
	return v > -9e15 && v < 9e15 ? (double)agt_round(v * 1000) / 1000 : v;
}

/**
 * agt_json_row() - @r's columns as members of the open object @j
 *
 * Each under its name (the column's name, else its title in lower case
 * with every other character than a letter or digit as '_'): strings with
 * their exact bytes, averages and rates as numbers rounded to 3 decimals, other
 * numbers as integers (a decayed count or sum that is not whole with its
 * fraction), no units, null for no value.
 */
void agt_json_row(const struct agtable *t, const struct agt_row *r,
		  enum agt_mode mode, struct json *j)
{
	int i;

	for (i = 0; i < t->ncols; i++) {
		const struct agt_col *c = &t->col[i];
		struct agt_val v;

		if (c->type == AGT_STR) {
			if (c->fn == AGT_KEY)
				json_strn(j, t->name[i], r->key[t->col_key[i]].str,
					  r->key[t->col_key[i]].len);
			else if (agt_str_has(t, r, i, mode))
				json_str(j, t->name[i], agt_str(t, r, i));
			else
				json_null(j, t->name[i]);
			continue;
		}
		v = agt_value_of(t, r, i, mode);
		if (!v.has)
			json_null(j, t->name[i]);
		else if (v.isint && c->fn != AGT_AVG && c->fn != AGT_RATE)
			json_int(j, t->name[i], v.i);
		else
			json_double(j, t->name[i], milli(v.d));
	}
}

/* ---- listing ---- */

static bool visible(const struct agt_row *r, enum agt_mode mode)
{
	if (r->set)
		return true;
	switch (mode) {
	case AGT_INTERVAL:
		return r->hits[LAST] > 0;
	case AGT_CUMULATIVE:
		return r->hits[CUM] > 0;
	default:
		return r->dhits >= 0.5 || r->hits[LAST] > 0;
	}
}

/* The shown text of @r's keys joined by spaces, in t->ftext. */
static const char *key_text(struct agtable *t, const struct agt_row *r)
{
	size_t o = 0;
	int k;

	for (k = 0; k < t->nkeys; k++) {
		if (k)
			t->ftext[o++] = ' ';
		agt_cell(t, r, t->key_col[k], AGT_CUMULATIVE, t->ftext + o,
			 t->ftextlen - o);
		o += strlen(t->ftext + o);
	}
	t->ftext[o] = '\0';
	return t->ftext;
}

static bool matches(struct agtable *t, const struct agt_row *r,
		    const struct agt_view_opts *vo)
{
	char buf[4 * AGT_STR_MAX + 32];
	int k;

	if (vo->match)
		for (k = 0; k < t->nkeys; k++) {
			int col = t->key_col[k];

			if (vo->match[col] &&
			    strcmp(agt_cell(t, r, col, AGT_CUMULATIVE, buf,
					    sizeof(buf)), vo->match[col]))
				return false;
		}
	if (vo->filter && *vo->filter && !strcasestr(key_text(t, r), vo->filter))
		return false;
	return true;
}

static int cmp_keys(const struct agtable *t, const struct agt_row *a,
		    const struct agt_row *b)
{
	int k, d;

	for (k = 0; k < t->nkeys; k++) {
		if (t->col[t->key_col[k]].type == AGT_STR) {
			d = strcmp(a->key[k].str, b->key[k].str);
			if (d)
				return d < 0 ? -1 : 1;
		} else if (a->key[k].num != b->key[k].num) {
			return a->key[k].num < b->key[k].num ? -1 : 1;
		}
	}
	return 0;
}

struct sortctx {
	const struct agtable *t;
	bool ascending;
};

static int cmp_ent(const void *pa, const void *pb, void *arg)
{
	const struct sortent *a = pa, *b = pb;
	const struct sortctx *c = arg;
	int d = 0;

	if (a->has != b->has)
		return a->has ? -1 : 1;	/* no value: last either way */
	if (a->has) {
		if (a->s)
			d = strcmp(a->s, b->s);
		else
			d = a->v < b->v ? -1 : a->v > b->v;
		d = d < 0 ? -1 : d > 0;
		if (!c->ascending)
			d = -d;
	}
	return d ? d : cmp_keys(c->t, a->row, b->row);
}

/**
 * agt_rows() - the rows to show under @vo, sorted, into *@rows
 *
 * Shown: AGT_INTERVAL the rows with hits in the last closed interval,
 * AGT_CUMULATIVE those with hits in any closed interval, AGT_DECAY those
 * whose decayed hits are at least 0.5 or that had hits in the last
 * interval; agt_set() rows in every mode.  @vo->match is indexed by
 * column: a key column's shown text must equal it; @vo->filter is looked
 * for, ignoring case, in the keys' shown text joined by single spaces.
 * Sorted by @vo->sort_col (numbers, or strings by strcmp(); descending
 * unless @vo->ascending; rows without a value last), ties by the keys in
 * column order, ascending (numbers as numbers).  *@rows is the table's,
 * valid until the next agt_add(), agt_set(), agt_tick() or agt_rows().
 * Returns the number of rows.
 */
size_t agt_rows(struct agtable *t, const struct agt_view_opts *vo,
		struct agt_row ***rows)
{
	int col = vo->sort_col;
	struct sortctx sc = { t, vo->ascending };
	size_t i, n = 0;

	if (col < 0 || col >= t->ncols)
		col = -1;
	if (t->nrows > t->outcap) {
		t->outcap = t->allcap;
		free(t->out);
		free(t->sort);
		t->out = xmalloc(t->outcap * sizeof(*t->out));
		t->sort = xmalloc(t->outcap * sizeof(*t->sort));
	}
	for (i = 0; i < t->nrows; i++) {
		struct agt_row *r = t->all[i];
		struct sortent *e = &t->sort[n];
		struct agt_val v;

		if (!visible(r, vo->mode) || !matches(t, r, vo))
			continue;
		e->row = r;
		e->s = NULL;
		e->has = col >= 0;
		if (col < 0) {
			n++;
			continue;
		}
		if (t->col[col].type == AGT_STR) {
			e->s = agt_str(t, r, col);
			e->has = t->col[col].fn == AGT_KEY ||
				 agt_str_has(t, r, col, vo->mode);
		} else {
			v = agt_value_of(t, r, col, vo->mode);
			e->has = v.has;
			e->v = v.d;
		}
		n++;
	}
	if (n)
		qsort_r(t->sort, n, sizeof(*t->sort), cmp_ent, &sc);
	for (i = 0; i < n; i++)
		t->out[i] = t->sort[i].row;
	*rows = t->out;
	return n;
}
