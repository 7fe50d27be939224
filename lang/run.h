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

#include "lang/vm.h"

struct prog;
struct loop;
struct prov_probe;

struct run_opts {
	FILE *out;		/* script output: stdout or -o FILE */
	pid_t target;		/* target(): -x PID or the -c command's, 0: none */
	struct vm_limits lim;	/* -D MAXACTION=... */
	long maxerrors;		/* -D MAXERRORS (0: the first error ends) */
	unsigned long buffer_kb; /* -s: per-CPU ring size, 0: the kernel's */
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
/* After the loop: the records still buffered, the end and error probes. */
void run_end(struct run *r);
/* Detach, flush, report the errors: the exit status (0, or 1 after
 * errors).  Safe after a partial run_attach(), and more than once. */
int run_finish(struct run *r);
void run_free(struct run *r);

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
/* The reason run_error() kept (the first), or NULL: for the command to
 * print when run_attach() failed. */
const char *run_error_msg(const struct run *r);

#endif
