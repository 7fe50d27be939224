/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_RUN_H
#define TAPKIT_LANG_RUN_H

/*
 * The run-time state of a compiled script: the VM, the providers'
 * attach/detach, the session states of stap (starting, running, stopping,
 * error) that decide which probes may fire, and the buffered output.  The
 * command's skeleton (tool_run()) owns the event loop, signals, the -c
 * command, -T and the order; it calls, as stap's module init/exit:
 *
 *   run_attach()  every provider (setup)
 *   run_begin()   begin probes (state starting), then state running; the
 *                 skeleton releases the -c command and loops until exit(),
 *                 a signal, -T, the target's exit or an error
 *   run_end()     buffered records, end probes (state stopping; skipped
 *                 after an error), error probes (state error)
 *   run_finish()  detach; "WARNING: Number of errors: N, skipped probes:
 *                 M" when there were errors: exit status 1 if so
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lang/map.h"
#include "lang/vm.h"

struct agtable;
struct agt_col;
struct agt_row;
struct elab;
struct prog;
struct loop;
struct prov_probe;

struct run_opts {
	FILE *out;		/* script output: stdout or -o FILE */
	pid_t target;		/* target(): -x PID or the -c command's, 0: none */
	struct vm_limits lim;	/* -D MAXACTION=... */
	long maxerrors;		/* -D MAXERRORS (0: the first error ends) */
	unsigned long buffer_kb; /* -s: per-CPU ring size, 0: the kernel's */
	const char *prometheus;	/* --prometheus [ADDR:]PORT, or NULL */
	/* the probe families, attached in order; NULL-ended (prov/prov.h) */
	const struct provider *const *providers;
};

struct run;

/* The run of @prog (its VM; nothing attached yet), or NULL with errno
 * when the VM refuses the program's limits.  Free with run_free(). */
struct run *run_new(const struct prog *prog, const struct run_opts *o);
/* Attach every provider, their fds in @l.  0, or -errno after saying why. */
int run_attach(struct run *r, struct loop *l);
/* The begin probes.  0: go on to the loop; 1: the run already ends
 * (exit() or an error). */
int run_begin(struct run *r);
/* After the loop: the records still buffered (run_drain(), unless it ran
 * already), the end and error probes. */
void run_end(struct run *r);
/* After the loop: handle the records still buffered, once, so that the
 * globals are complete before the end probes (a last table of them). */
void run_drain(struct run *r);
/* Detach, flush, report the errors: the exit status (0, or 1 after
 * errors).  Safe after a partial run_attach(), and more than once. */
int run_finish(struct run *r);
void run_free(struct run *r);

/* Add what the kernel counted for counting probes to their globals now
 * (as before a handler that reads them), so the globals are current. */
void run_sync(struct run *r);
/* Handlers run so far (begin, events, timers, end). */
uint64_t run_fired(const struct run *r);
/* The program and the VM of the run (the globals, for lang/run_table.c). */
const struct prog *run_prog(const struct run *r);
struct vm *run_vm(struct run *r);

/* ---- for providers ----------------------------------------------------- */

struct loop *run_loop(struct run *r);

/* The per-CPU ring size asked for (KiB), 0 for the kernel's default. */
unsigned long run_buffer_kb(const struct run *r);
/* --prometheus: where to serve the prometheus probe, or NULL. */
const char *run_prometheus(const struct run *r);
/* target(): the -c command's PID or -x PID, known before attach; 0: none. */
pid_t run_target(const struct run *r);

/**
 * run_fire() - run the handler of @p for event @ev
 *
 * Does nothing unless the session is in @p's state (begin probes only
 * while starting...) and no exit() is pending.  A run-time error is
 * printed ("ERROR: ... near ..."), and past MAXERRORS ends the run.
 * Return: true while the run goes on.
 */
bool run_fire(struct run *r, struct prov_probe *p, void *ev);

/* Add @delta to a long global (@key NULL) or to its element @key:
 * kernel counts of counting probes (provider sync()).  0 or -errno. */
int run_global_add(struct run *r, int global, const char *key, int64_t delta);

/* $value of procfs and input probes, which the handler reads and writes:
 * the provider sets it before run_fire() and reads it after. */
struct strbuf *run_value(struct run *r);

/* Write the output buffered so far (end of a batch of events). */
void run_flush(struct run *r);

/* True after exit() or an error: running probes fire no more. */
bool run_exiting(const struct run *r);

/* End the loop: the end probes run next. */
void run_stop(struct run *r);

/*
 * run_error() - a provider's reason for failing (attach() returning
 * -errno): the run keeps the first one and reports it as the run's error.
 * run_warn() - a provider's warning, reported at once.
 */
void run_error(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void run_warn(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The reason run_error() kept (the first), or NULL: for the command to
 * print when run_attach() failed. */
const char *run_error_msg(const struct run *r);

/* ---- the script's global arrays as tables (lang/run_table.c) ------------ */

#define RUN_TITLE_MAX	32

enum run_array_value {
	RUN_ARRAY_LONG,
	RUN_ARRAY_STRING,
	RUN_ARRAY_STAT,		/* `a[k] <<< v` */
};

/* A global array of the script, as a table sees it. */
struct run_array {
	const char *name;		/* the program's */
	int global;			/* index in prog->globals */
	int nkeys;
	bool key_str[MAP_MAX_KEYS];	/* string index column, else long */
	enum run_array_value value;
	bool hist;			/* a statistic with @hist_log/_linear:
					 * P50 and P99 columns */
	/* "EXECNAME" for the writes' `c[execname()]`, else "KEY1".. */
	char key_title[MAP_MAX_KEYS][RUN_TITLE_MAX];
};

/* A drilled row's key: .s for a string column (owned by its holder), .l
 * for a long one. */
struct run_key {
	int64_t l;
	char *s;
};

/**
 * run_arrays() - the global arrays of the user's script (not the tapsets'),
 * in declaration order, into @out (at most @max of them)
 * @prog: the program
 * @e: its elaboration, for the key titles and which globals are the
 *	tapsets'; NULL: every array, its keys titled KEY1, KEY2...
 *
 * Return: the number of arrays, which may be more than @max (@out may be
 * NULL with @max 0 to count them).
 */
size_t run_arrays(const struct prog *prog, const struct elab *e,
		  struct run_array *out, size_t max);

/**
 * run_array_cols() - the columns of @a's table for agt_new(), into @cols
 * (AGT_MAX_COLS of them)
 * @depth: leading keys fixed by a drill-down (0..nkeys-1): not columns
 *
 * The keys from @depth on (strings or numbers), then VALUE for a long or
 * string array, or COUNT SUM MIN MAX AVG, and P50 P99 when the statistic
 * keeps a histogram; every value column shows its input as set.
 * Return: the number of columns, or -EINVAL for a bad @depth.
 */
int run_array_cols(const struct run_array *a, int depth, struct agt_col *cols);
/* "c[EXECNAME, NAME]: long" into @buf; returns @buf. */
char *run_array_desc(const struct run_array *a, char *buf, size_t len);
/* The column to sort @a's table by (made at @depth): the value, the count
 * of a statistic, the first key of a string array. */
int run_array_sort_col(const struct run_array *a, int depth);

/**
 * run_array_fill() - make table @t show array @a as the script keeps it now
 * @r: the run (its counting probes are synced first)
 * @depth: leading keys fixed, @t made by run_array_cols(@a, @depth)
 * @match: the values of those @depth keys
 *
 * @t forgets its rows, then every element whose leading keys match is
 * agt_set() into it.  Call it from the loop's thread, between handlers.
 * Return: the rows set.
 */
size_t run_array_fill(struct run *r, const struct run_array *a, int depth,
		      const struct run_key *match, struct agtable *t);

/**
 * run_view_check() - what a view of @prog's arrays would show, checked
 * before anything runs
 * @e: the elaboration, or NULL (as run_arrays())
 * @name: the array shown first, NULL: the first one
 * @ndrill: leading keys it will be drilled by
 * @sort: a column title to sort by (case-insensitive), or NULL
 * @sort_col: that column's index in the drilled table, or -1 without @sort
 *
 * Return: 0, -ENOENT with @err when the script has no arrays or none named
 * @name, -EINVAL when it has not more keys than @ndrill or no column @sort.
 */
int run_view_check(const struct prog *prog, const struct elab *e,
		   const char *name, int ndrill, const char *sort,
		   int *sort_col, char *err, size_t errlen);

/*
 * A view over the arrays of a running script: one array shown at a time,
 * switched by name, drilled by its leading keys (what tapkit --top shows).
 */
struct run_view;

/**
 * run_view_new() - a view of @r's arrays, showing @name (NULL: the first)
 * @e: the elaboration (run_arrays()), or NULL
 *
 * Return: the view, filled now (free with run_view_free()), or NULL with
 * errno and @err: ENOENT when the script has no global array or none
 * named @name.
 */
struct run_view *run_view_new(struct run *r, const struct elab *e,
			      const char *name, char *err, size_t errlen);
void run_view_free(struct run_view *v);
/* The arrays it offers. */
size_t run_view_count(const struct run_view *v);
const struct run_array *run_view_array(const struct run_view *v, size_t i);
/* Show array @name, undrilled.  0, or -ENOENT with @err. */
int run_view_open(struct run_view *v, const char *name, char *err,
		  size_t errlen);
/* Fix the first shown key to @row's: the next keys become the columns.
 * -ENOENT when one key column is left (nothing to drill into). */
int run_view_drill(struct run_view *v, const struct agt_row *row, char *err,
		   size_t errlen);
/* The same by the key's text (a number for a long key): -ENOENT with
 * @err when one key column is left, -EINVAL for a bad number. */
int run_view_drill_key(struct run_view *v, const char *key, char *err,
		       size_t errlen);
/* Undo the last drill-down; -ENOENT when there is none. */
int run_view_back(struct run_view *v, char *err, size_t errlen);
/* Refill the table and close its interval (@elapsed_ns long). */
void run_view_tick(struct run_view *v, uint64_t elapsed_ns);
/* The table shown, valid until the next open, drill or back. */
struct agtable *run_view_table(const struct run_view *v);
int run_view_sort_col(const struct run_view *v);
/* "c > EXECNAME=sshd": the array and its drilled keys, escaped. */
char *run_view_path(const struct run_view *v, char *buf, size_t len);
/* Handlers run in the last interval, and its length. */
uint64_t run_view_events(const struct run_view *v, uint64_t *interval_ns);

#endif
