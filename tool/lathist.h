/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LATHIST_H
#define TAPKIT_LATHIST_H

/*
 * Power-of-two histograms of times, one in all or one per key (a PID, a
 * TID, a PID namespace), printed as bcc's print_log2_hist() prints them
 * ("pid = 1234" above each section, sections by key), or as JSON.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/hist.h"

struct json;

struct lathist_opts {
	const char *section;	/* "pid", "tid", "pidns"; NULL: one histogram */
	bool comm;		/* the task's name after the key (cpudist) */
	bool msecs;		/* milliseconds, else microseconds */
};

/* One histogram and its totals. */
struct lathist_agg {
	struct hist_log2 h;	/* in the unit */
	uint64_t total_ns;
};

struct lathist;

/* A table; free with lathist_free(). */
struct lathist *lathist_new(const struct lathist_opts *o);
void lathist_free(struct lathist *lh);

/* Count a time of @ns for @key (ignored without sections); @pid is the
 * key's process (for a TID's JSON); @comm a name for it (copied): the
 * key's own when @named, else kept only while it has none. */
void lathist_add(struct lathist *lh, uint64_t key, pid_t pid, const char *comm,
		 bool named, uint64_t ns);
/* "usecs" or "msecs". */
const char *lathist_unit(const struct lathist *lh);
/* All the times counted since the last reset. */
const struct lathist_agg *lathist_all(const struct lathist *lh);

/* bcc's text: the histogram, or each key's under "\nSECTION = KEY". */
void lathist_print(struct lathist *lh, FILE *f);
/* "avg = N unit, total: N unit, count: N" of everything (bcc's -e). */
void lathist_print_totals(struct lathist *lh, FILE *f);
/* Members of the open object @j: unit, count, total_ns, hist, and with
 * sections an array "<section>s" of {section: key, [pid,] [comm,] ...}. */
void lathist_json(struct lathist *lh, struct json *j);
/* Start over (each interval). */
void lathist_reset(struct lathist *lh);

struct session;
/*
 * One summary on stdout, then start over: bcc's (a blank line, with
 * @timestamp the time, the histograms, with @totals the -e line) or one
 * JSON object (time, the members of lathist_json(), lost events).
 */
void lathist_summary(struct lathist *lh, struct session *s, bool json,
		     bool timestamp, bool totals);

#endif
