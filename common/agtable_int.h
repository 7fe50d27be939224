/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_AGTABLE_INT_H
#define TAPKIT_AGTABLE_INT_H

/* Between the aggregate table's rows (agtable.c) and its listing and text
 * (agtable_show.c). */
#include <stdbool.h>
#include <stdint.h>

#include "common/agtable.h"

enum { CUR, LAST, CUM, NSETS };

struct acc_in {			/* one input in one set */
	uint64_t n;		/* samples that had it */
	int64_t sum, min, max, last;
};

struct dacc_in {		/* the same, decaying */
	double n, sum;
	int64_t min, max, last;
};

struct key {
	int64_t num;
	const char *str;	/* in the row's allocation */
	uint32_t len;
};

struct agt_row {
	uint64_t hash;		/* of the keys: the row's identity */
	uint64_t seen;		/* t->seq at its last sample */
	bool set;		/* an agt_set() row */
	bool busy;		/* samples in the current interval */
	bool decaying;		/* DEC not zero */
	uint64_t hits[NSETS];
	double dhits;
	struct acc_in *in;	/* [NSETS][nin] */
	struct dacc_in *din;	/* [nin] */
	struct hist_log2 *h;	/* [NSETS + 1][nhist]: CUR LAST CUM DEC */
	char *lstr;		/* [nlstr][AGT_STR_MAX + 1] */
	struct key key[];	/* [nkeys] */
};

struct ix {
	uint64_t hash;
	struct agt_row *row;	/* NULL: empty */
};

struct sortent {
	struct agt_row *row;
	double v;
	const char *s;		/* a string column's text */
	bool has;
};

struct agtable {
	struct agt_col col[AGT_MAX_COLS];
	char name[AGT_MAX_COLS][64];	/* JSON member names */
	int ncols;
	int col_key[AGT_MAX_COLS];	/* key index, or -1 */
	int col_in[AGT_MAX_COLS];	/* input index, or -1 */
	int nkeys, key_col[AGT_MAX_COLS];
	int nin;
	int in_slot[AGT_MAX_COLS];
	int in_hist[AGT_MAX_COLS];	/* histogram index, or -1 */
	int in_lstr[AGT_MAX_COLS];	/* string buffer index, or -1 */
	int nhist, nlstr;

	struct ix *ix;
	size_t cap;			/* of ix: a power of two */
	struct agt_row **all;
	size_t nrows, allcap;
	struct agt_row **out;		/* agt_rows()'s answer */
	struct sortent *sort;
	size_t outcap;
	char *ftext;			/* a row's key text, for filters */
	size_t ftextlen;

	struct agt_row *last;		/* the row of the last sample: the next
					 * is often the same task's */
	uint64_t seq;
	uint64_t hits[NSETS];
	double dhits;
	uint64_t ns_last, ns_cum;	/* interval lengths */
	double ns_dec;
};

/* A column's value in one mode. */
struct agt_val {
	bool has;
	bool isint;	/* i is exact (a JSON integer) */
	int64_t i;
	double d;
};

struct agt_val agt_value_of(const struct agtable *t, const struct agt_row *r,
			    int col, enum agt_mode mode);
/* Whether a string AGT_LAST column has a value in @mode. */
bool agt_str_has(const struct agtable *t, const struct agt_row *r, int col,
		 enum agt_mode mode);

/* Without libm: the nearest integer (halves away from zero); whether @d is
 * an integer a double holds exactly. */
static inline int64_t agt_round(double d)
{
	return d < 0 ? -(int64_t)(-d + 0.5) : (int64_t)(d + 0.5);
}

static inline bool agt_whole(double d)
{
	return d > -9007199254740992.0 && d < 9007199254740992.0 &&
	       (double)(int64_t)d == d;
}

#endif
