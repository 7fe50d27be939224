/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_RUN_H
#define TAPKIT_LANG_RUN_H

/*
 * The run-time driver of a compiled script: the VM, the event loop, the
 * providers' attach/detach, the session states of stap (starting, running,
 * stopping, error) that decide which probes may fire, the target process
 * of -c/-x, the -T limit, and the buffered output.
 *
 * Order of a run (stap's module init/exit):
 *   attach every provider; begin probes (state starting); release the -c
 *   command; loop (state running) until exit(), a signal, -T, the target's
 *   exit or an error; end probes (state stopping; skipped after an error);
 *   error probes (state error); detach; "WARNING: Number of errors: N,
 *   skipped probes: M" when there were errors; exit status 1 if so.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lang/vm.h"

struct prog;
struct loop;
struct prov_probe;

struct run_opts {
	FILE *out;		/* script output: stdout or -o FILE */
	long time_limit;	/* -T SECS, 0: none */
	pid_t target;		/* -x PID, 0: none */
	const char *cmd;	/* -c CMD, NULL: none */
	struct vm_limits lim;	/* -D MAXACTION=... */
	long maxerrors;		/* -D MAXERRORS (0: the first error ends) */
	unsigned long buffer_kb; /* -s: per-CPU ring size, 0: the kernel's */
	/* the probe families, attached in order; NULL-ended (prov/prov.h) */
	const struct provider *const *providers;
};

struct run;

/* Run @prog to its end; returns the exit status (0, or 1 after errors). */
int run_main(const struct prog *prog, const struct run_opts *o);

/* ---- for providers ----------------------------------------------------- */

struct loop *run_loop(struct run *r);

/* The per-CPU ring size asked for (KiB), 0 for the kernel's default. */
unsigned long run_buffer_kb(const struct run *r);
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

#endif
