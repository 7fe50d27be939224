// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics aggregates, reproducing SystemTap's runtime/stat-common.c,
 * stat.c and the stat parts of map.c.
 *
 * stap keeps one struct stat_data per CPU and aggregates on read.  We run
 * on one thread, which is stap with one CPU, so the per-CPU data and the
 * aggregate coincide except in @variance, where stap's two read paths
 * differ and both are reproduced:
 *
 *   add (__stp_stat_add): the first value sets avg_s = v << shift and
 *   M2 = 0; later ones do, in 64-bit wrapping arithmetic,
 *	delta = (int)((v << shift) - avg_s)	-- stap's delta is an int
 *	avg_s += delta / count
 *	M2 += delta * ((v << shift) - avg_s)
 *	variance_s = M2 / (count - 1)
 *   with C division (truncation toward zero, x / 0 == 0 as _stp_div64).
 *
 *   scalar read (_stp_stat_get): avg = (sum << shift) / count,
 *	S1 = count * (avg_s - avg)^2, S2 = (count - 1) * variance_s,
 *	variance = ((S1 + S2) / (count - 1)) >> (2 * shift).
 *   array element read (_new_map_copy_stat on the only CPU):
 *	variance = variance_s >> (2 * shift).
 *
 * The two disagree when the running mean has drifted from sum/count by
 * rounding: for 1, 2, 3, 4 (shift 0) the scalar reads 5 and the element 4.
 *
 * Histogram printing follows _stp_stat_print_histogram_buf() line by line;
 * for sprint() each piece is formatted as by _stp_snprintf() into the room
 * left (widths clamped to it), so a truncated histogram keeps the bytes
 * stap keeps.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/fmt_sb.h"
#include "lang/stat.h"

/* _stp_div64(): C division, 0 for a zero divisor, no trap on -1. */
static int64_t div64(int64_t x, int64_t y)
{
	if (y == 0)
		return 0;
	if (y == -1)
		return (int64_t)(0 - (uint64_t)x);
	return x / y;
}

static int64_t shl(int64_t v, int shift)
{
	return (int64_t)((uint64_t)v << shift);
}

static int64_t wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wsub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t wmul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

int stat_cfg_init(struct stat_cfg *cfg, enum stat_hist type, int64_t start,
		  int64_t stop, int64_t interval, char *err, size_t errlen)
{
	int64_t n;

	memset(cfg, 0, sizeof(*cfg));
	cfg->type = type;
	cfg->hist_width = STAT_HIST_WIDTH;
	cfg->hist_elision = STAT_HIST_ELISION;
	switch (type) {
	case STAT_HIST_NONE:
		return 0;
	case STAT_HIST_LOG:
		cfg->buckets = STAT_LOG_BUCKETS;
		return 0;
	case STAT_HIST_LINEAR:
		break;
	default:
		return -EINVAL;
	}
	if (interval == 0) {
		set_err(err, errlen, STAT_ERR_INTERVAL);
		return -EINVAL;
	}
	if (start < INT_MIN || start > INT_MAX || stop < INT_MIN ||
	    stop > INT_MAX || interval < 0 || interval > INT_MAX) {
		set_err(err, errlen, STAT_ERR_NBUCKETS);
		return -EINVAL;
	}
	/* _stp_stat_calc_buckets(), in int as stap computes it */
	n = (int)(stop - start) / (int)interval + 3;
	if (n > STAT_MAX_BUCKETS || n < 3) {
		set_err(err, errlen, STAT_ERR_NBUCKETS);
		return -EINVAL;
	}
	cfg->start = (int)start;
	cfg->stop = (int)stop;
	cfg->interval = (int)interval;
	cfg->buckets = (int)n;
	return 0;
}

size_t stat_size(const struct stat_cfg *cfg)
{
	return sizeof(struct stat_agg) + (size_t)cfg->buckets * sizeof(int64_t);
}

struct stat_agg *stat_new(const struct stat_cfg *cfg)
{
	return xcalloc(1, stat_size(cfg));
}

void stat_free(struct stat_agg *s)
{
	free(s);
}

void stat_clear(const struct stat_cfg *cfg, struct stat_agg *s)
{
	memset(s, 0, stat_size(cfg));
}

int stat_log_bucket(int64_t v)
{
	uint64_t u;
	int res;

	if (v == 0)
		return STAT_LOG_BUCKET0;
	u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	/* 65 + floor(log2 u): 1 -> 65, 2..3 -> 66, 2^62.. -> 127, 2^63 -> 128 */
	res = STAT_LOG_BUCKET0 + 1 + (63 - __builtin_clzll(u));
	if (v < 0)
		res = STAT_LOG_BUCKETS - res;	/* -1 -> 63, INT64_MIN -> 0 */
	return res;
}

int64_t stat_log_bucket_value(int b)
{
	if (b == STAT_LOG_BUCKET0)
		return 0;
	if (b < STAT_LOG_BUCKET0)	/* INT64_MIN >> b, arithmetically */
		return b == 0 ? INT64_MIN : -(int64_t)(UINT64_C(1) << (63 - b));
	return (int64_t)(UINT64_C(1) << (b - STAT_LOG_BUCKET0 - 1));
}

void stat_add(const struct stat_cfg *cfg, struct stat_agg *s, int64_t v)
{
	int shift = cfg->bit_shift;
	int64_t b;

	if (s->count == 0) {
		s->count = 1;
		s->sum = s->min = s->max = v;
		s->avg_s = shl(v, shift);
		s->m2 = 0;
	} else {
		s->count++;
		s->sum = wadd(s->sum, v);
		if (v > s->max)
			s->max = v;
		if (v < s->min)
			s->min = v;
		if (cfg->variance) {
			int delta = (int)wsub(shl(v, shift), s->avg_s);

			s->avg_s = wadd(s->avg_s, div64(delta, s->count));
			s->m2 = wadd(s->m2, wmul(delta, wsub(shl(v, shift), s->avg_s)));
			s->variance_s = s->count < 2 ? -1 : div64(s->m2, s->count - 1);
		}
	}

	switch (cfg->type) {
	case STAT_HIST_LOG:
		b = stat_log_bucket(v);
		if (b >= cfg->buckets)
			b = cfg->buckets - 1;
		s->hist[b]++;
		break;
	case STAT_HIST_LINEAR:
		b = wsub(v, cfg->start);
		if (b < 0)
			b = 0;			/* underflow */
		else
			b = (int64_t)((uint64_t)b / (uint32_t)cfg->interval) + 1;
		if (b >= cfg->buckets - 1)
			b = cfg->buckets - 1;	/* overflow */
		s->hist[b]++;
		break;
	case STAT_HIST_NONE:
		break;
	}
}

static int64_t variance(const struct stat_cfg *cfg, const struct stat_agg *s)
{
	int shift = cfg->bit_shift;
	int64_t avg, d, s1, s2, var_s;

	if (cfg->in_map)
		return s->variance_s >> (2 * shift);
	avg = div64(shl(s->sum, shift), s->count);
	d = wsub(s->avg_s, avg);
	s1 = wmul(wmul(s->count, d), d);
	s2 = wmul(s->count - 1, s->variance_s);
	var_s = div64(wadd(s1, s2), s->count - 1);
	return var_s >> (2 * shift);
}

int stat_get(const struct stat_cfg *cfg, const struct stat_agg *s,
	     enum stat_op op, int64_t *out)
{
	int64_t count = s ? s->count : 0;

	*out = 0;
	switch (op) {
	case STAT_COUNT:
		*out = count;
		return 0;
	case STAT_SUM:
		*out = count ? s->sum : 0;
		return 0;
	default:
		break;
	}
	if (count == 0)
		return -ENODATA;
	switch (op) {
	case STAT_MIN:
		*out = s->min;
		break;
	case STAT_MAX:
		*out = s->max;
		break;
	case STAT_AVG:
		*out = div64(s->sum, s->count);
		break;
	case STAT_VARIANCE:
		*out = variance(cfg, s);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int stat_bucket(const struct stat_cfg *cfg, const struct stat_agg *s,
		int64_t index, int64_t *out)
{
	*out = 0;
	if (cfg->type == STAT_HIST_NONE)
		return -EINVAL;
	if (!s || s->count == 0)
		return -ENODATA;
	if (index < 0 || index >= cfg->buckets)
		return -ERANGE;
	*out = s->hist[index];
	return 0;
}

/* ---- printing ---------------------------------------------------------- */

/* stat-common.c needed_space(): characters of %lld */
static int needed_space(int64_t v)
{
	uint64_t u;
	int space = 0;

	if (v == 0)
		return 1;
	if (v < 0) {
		space++;
		u = 0 - (uint64_t)v;
	} else {
		u = (uint64_t)v;
	}
	while (u) {
		u /= 10;
		space++;
	}
	return space;
}

/*
 * HIST_PRINTF: with a capacity, each piece is _stp_snprintf(cur, room, ...):
 * widths clamped to the room, room-1 bytes kept at most, the full length
 * added to the position; a negative room writes nothing and adds nothing.
 */
struct hp {
	struct strbuf *sb;
	size_t cap;		/* 0: print(), no limit */
	long long pos;		/* bytes stap's cursor has advanced */
};

static long long hp_room(const struct hp *h)
{
	return h->cap ? (long long)h->cap - h->pos : LLONG_MAX;
}

static int hp_width(const struct hp *h, int w)
{
	long long room = hp_room(h);

	if (w < 0)
		w = 0;
	return room < w ? (int)room : w;
}

static void hp_emit(struct hp *h, const char *text, size_t len)
{
	long long room = hp_room(h);
	size_t keep = len;

	if (room < 0)
		return;
	if (h->cap && (long long)len > room - 1)
		keep = room > 0 ? (size_t)(room - 1) : 0;
	fmt_sb_add(h->sb, text, keep);
	h->pos += (long long)len;
}

/* "%*s" followed by @tail */
static void hp_str(struct hp *h, int width, const char *s, const char *tail)
{
	char buf[64];
	int w = hp_width(h, width);
	int n;

	if (w > 48)	/* widths here are at most 20 + 1 */
		w = 48;
	n = snprintf(buf, sizeof(buf), "%*s%s", w, s, tail);
	hp_emit(h, buf, (size_t)n);
}

/* "%*s%lld |" */
static void hp_label(struct hp *h, int width, const char *prefix, int64_t v)
{
	char buf[80];
	int w = hp_width(h, width);
	int n;

	if (w > 48)
		w = 48;
	n = snprintf(buf, sizeof(buf), "%*s%" PRId64 " |", w, prefix, v);
	hp_emit(h, buf, (size_t)n);
}

/* "%*lld\n" */
static void hp_count(struct hp *h, int width, int64_t v)
{
	char buf[128];
	int w = hp_width(h, width);
	int n;

	if (w > 100)
		w = 100;
	n = snprintf(buf, sizeof(buf), "%*" PRId64 "\n", w, v);
	hp_emit(h, buf, (size_t)n);
}

static int64_t row_value(const struct stat_cfg *cfg, int i, const char **prefix)
{
	*prefix = "";
	if (cfg->type == STAT_HIST_LOG)
		return stat_log_bucket_value(i);
	if (i == 0) {
		*prefix = "<";
		return cfg->start;
	}
	if (i == cfg->buckets - 1) {
		*prefix = ">";
		return (int64_t)cfg->start + (int64_t)(i - 2) * cfg->interval;
	}
	return (int64_t)cfg->start + (int64_t)(i - 1) * cfg->interval;
}

int stat_print_hist(struct strbuf *out, const struct stat_cfg *cfg,
		    const struct stat_agg *s, size_t cap)
{
	struct hp h = { .sb = out, .cap = cap, .pos = 0 };
	const int64_t *hist;
	int width = cfg->hist_width > 0 ? cfg->hist_width : STAT_HIST_WIDTH;
	int low = -1, high = 0, i, j, k, under = 0, over = 0;
	int val_space, cnt_space, eliding = 0;
	int64_t valmax = 0, scale, v;

	if (cfg->type == STAT_HIST_NONE)
		return -EINVAL;
	if (!s || s->count == 0)
		return -ENODATA;
	hist = s->hist;

	for (i = 0; i < cfg->buckets; i++) {
		if (hist[i] > 0 && low == -1)
			low = i;
		if (hist[i] > 0)
			high = i;
		if (hist[i] > valmax)
			valmax = hist[i];
	}
	if (low < 0)		/* only possible after counter wrap-around */
		low = 0;

	/* up to two zero rows either side; a log histogram does not reach
	 * below the 0 row unless it holds negative values */
	for (i = 0; i < 2; i++) {
		if (cfg->type == STAT_HIST_LOG) {
			if (low != STAT_LOG_BUCKET0 && low > 0)
				low--;
		} else if (low > 0) {
			low--;
		}
		if (high < cfg->buckets - 1)
			high++;
	}
	if (cfg->type == STAT_HIST_LINEAR) {
		/* empty under/overflow rows are not shown */
		if (low == 0 && hist[0] == 0)
			low++;
		if (high == cfg->buckets - 1 && hist[high] == 0)
			high--;
		under = low == 0;
		over = high == cfg->buckets - 1;
	}

	if (valmax <= width)
		scale = 1;
	else
		scale = valmax / width + (valmax % width != 0);

	cnt_space = needed_space(valmax);
	if (cfg->type == STAT_HIST_LINEAR) {
		/* stap sizes the column on start + interval * high */
		int a = needed_space(cfg->start) + under;
		int b = needed_space((int64_t)cfg->start +
				     (int64_t)cfg->interval * high) + over;

		val_space = a > b ? a : b;
	} else {
		int a = needed_space(stat_log_bucket_value(high));
		int b = needed_space(stat_log_bucket_value(low));

		val_space = a > b ? a : b;
	}
	if (val_space < 5)	/* strlen("value") */
		val_space = 5;

	hp_str(&h, val_space, "value", " |");
	for (j = 0; j < width; j++)
		hp_emit(&h, "-", 1);
	hp_emit(&h, " count\n", 7);

	for (i = low; i <= high; i++) {
		const char *prefix;
		int64_t val;

		if (cfg->hist_elision >= 0) {
			int max_elide = cfg->hist_elision < cfg->buckets ?
					cfg->hist_elision : cfg->buckets;
			int minb = i - max_elide > low ? i - max_elide : low;
			int maxb = i + max_elide < high ? i + max_elide : high;
			int elide = 1;

			for (k = minb; k <= maxb; k++)
				if (hist[k] != 0)
					elide = 0;
			if (elide) {
				eliding = 1;
				continue;
			}
			if (eliding) {
				hp_str(&h, val_space, "", " ~\n");
				eliding = 0;
			}
		}

		val = row_value(cfg, i, &prefix);
		hp_label(&h, val_space - needed_space(val), prefix, val);
		v = hist[i] / scale;
		for (j = 0; j < v; j++)
			hp_emit(&h, "@", 1);
		hp_count(&h, (int)(width - v + 1 + cnt_space), hist[i]);
	}
	hp_emit(&h, "\n", 1);
	return 0;
}

int stat_print_hist_log(struct strbuf *out, const struct stat_cfg *cfg,
			const struct stat_agg *s, size_t cap)
{
	if (cfg->type != STAT_HIST_LOG)
		return -EINVAL;
	return stat_print_hist(out, cfg, s, cap);
}

int stat_print_hist_linear(struct strbuf *out, const struct stat_cfg *cfg,
			   const struct stat_agg *s, size_t cap)
{
	if (cfg->type != STAT_HIST_LINEAR)
		return -EINVAL;
	return stat_print_hist(out, cfg, s, cap);
}
