// SPDX-License-Identifier: GPL-2.0
/*
 * The run-time driver (see run.h for the order of a run).
 *
 * Output: handlers append to the VM's buffer; run_fire() hands it to the
 * output FILE after each handler (a copy into stdio's buffer, no system
 * call), and run_flush() pushes it out at the end of each batch of events
 * and at exit, so order between probes is kept and a busy script does not
 * pay a write per event.
 *
 * The -c command, the loop, -T and signals are the skeleton's (tool_run());
 * the command is held until the begin probes ran.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/child.h"
#include "common/log.h"
#include "common/loop.h"
#include "lang/backend.h"
#include "lang/builtin.h"
#include "lang/gen.h"
#include "lang/map.h"
#include "lang/run.h"

struct attached {
	const struct provider *prov;
	void *state;
	bool ok;
};

struct run {
	const struct prog *prog;
	const struct run_opts *o;
	struct vm *vm;
	struct loop *loop;
	enum prov_state state;
	bool exiting;
	bool out_broken;
	long errors, skipped;
	bool finished;
	struct attached att[16];
	int natt;
	bool overflow_seen;
	bool drained;		/* run_drain() ran */
	uint64_t fired;		/* handlers run (run_fired()) */
	char *error;		/* run_error()'s message, until reported */
};

void run_error(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->error)
		return;
	va_start(ap, fmt);
	if (vasprintf(&r->error, fmt, ap) < 0)
		r->error = NULL;
	va_end(ap);
}

void run_warn(struct run *r, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) >= 0)
		pr_warn("%s", msg);
	va_end(ap);
	free(msg);
}

struct loop *run_loop(struct run *r)
{
	return r->loop;
}

pid_t run_target(const struct run *r)
{
	return r->o->target;
}

unsigned long run_buffer_kb(const struct run *r)
{
	return r->o->buffer_kb;
}

bool run_exiting(const struct run *r)
{
	return r->exiting;
}

void run_stop(struct run *r)
{
	loop_stop(r->loop);
}

static void out_broken(struct run *r)
{
	r->out_broken = true;
	if (r->loop)
		loop_set_broken_pipe(r->loop);
}

static void write_out(struct run *r)
{
	struct strbuf *sb = vm_output(r->vm);

	if (!sb->len)
		return;
	if (!r->out_broken && fmt_sb_write(sb, r->o->out) < 0)
		out_broken(r);
	fmt_sb_reset(sb);
}

void run_flush(struct run *r)
{
	write_out(r);
	if (!r->out_broken && fflush(r->o->out) == EOF)
		out_broken(r);
}

/* Kernel counts into the globals a handler is about to read. */
static void sync_counts(struct run *r)
{
	int i;

	for (i = 0; i < r->natt; i++)
		if (r->att[i].ok && r->att[i].prov->sync)
			r->att[i].prov->sync(r, r->att[i].state);
}

void run_sync(struct run *r)
{
	sync_counts(r);
}

struct vm *run_vm(struct run *r)
{
	return r->vm;
}

const struct prog *run_prog(const struct run *r)
{
	return r->prog;
}

uint64_t run_fired(const struct run *r)
{
	return r->fired;
}

int run_global_add(struct run *r, int global, const char *key, int64_t delta)
{
	int err = vm_global_add(r->vm, global, key, delta);

	if (err == -E2BIG && !r->overflow_seen) {
		r->overflow_seen = true;
		fprintf(stderr, "ERROR: %s near %s\n", MAP_ERR_OVERFLOW,
			r->prog->globals[global].name);
		r->errors++;
	}
	return err;
}

const char *run_prometheus(const struct run *r)
{
	return r->o->prometheus;
}

struct strbuf *run_value(struct run *r)
{
	return vm_value(r->vm);
}

/* What system() asked for, once the handler's output is out. */
static void run_commands(struct run *r)
{
	struct strbuf *cmds = vm_commands(r->vm);
	const char *c;
	char err[128];

	run_flush(r);
	for (c = cmds->buf; c < cmds->buf + cmds->len; c += strlen(c) + 1)
		if (child_detached(c, fileno(r->o->out), err, sizeof(err)) < 0)
			fprintf(stderr, "WARNING: system(): %s\n", err);
	fmt_sb_reset(cmds);
}

bool run_fire(struct run *r, struct prov_probe *p, void *ev)
{
	if (r->state != p->state || (r->exiting && p->state == PROV_RUNNING))
		return !r->exiting;
	if (p->sync)
		sync_counts(r);
	r->fired++;
	if (vm_fire(r->vm, p->id, ev) < 0) {
		run_flush(r);
		fprintf(stderr, "ERROR: %s\n", vm_error(r->vm));
		if (++r->errors > r->o->maxerrors) {
			r->state = PROV_ERROR;
			r->exiting = true;
			loop_stop(r->loop);
		}
	} else {
		write_out(r);
	}
	if (vm_commands(r->vm)->len)
		run_commands(r);
	if (vm_exit_requested(r->vm) && !r->exiting) {
		r->exiting = true;
		loop_stop(r->loop);
	}
	return !r->exiting;
}

/* ---- providers ----------------------------------------------------------- */

static int attach_all(struct run *r)
{
	const struct prog *prog = r->prog;
	struct prov_probe **list = xcalloc(prog->nprobes + 1, sizeof(*list));
	int i, err = 0;

	for (i = 0; r->o->providers && r->o->providers[i] && i < 16; i++) {
		const struct provider *pv = r->o->providers[i];
		size_t j, n = 0;

		for (j = 0; j < prog->nprobes; j++)
			if (prog->probes[j].pp->prov == pv)
				list[n++] = prog->probes[j].pp;
		if (!n)
			continue;
		r->att[r->natt].prov = pv;
		if (pv->attach && (err = pv->attach(r, list, n,
						     &r->att[r->natt].state)) < 0) {
			r->natt++;
			if (!r->error)	/* said nothing: say at least this */
				run_error(r, "cannot attach %s probes: %s",
					  pv->name, strerror(-err));
			break;
		}
		r->att[r->natt++].ok = true;
	}
	free(list);
	return err;
}

static void phase_all(struct run *r, enum prov_phase ph)
{
	int i;

	for (i = 0; i < r->natt; i++)
		if (r->att[i].ok && r->att[i].prov->phase)
			r->att[i].prov->phase(r, r->att[i].state, ph);
	run_flush(r);
}

static void detach_all(struct run *r)
{
	int i;

	for (i = r->natt; i-- > 0;)
		if (r->att[i].prov->detach)
			r->att[i].prov->detach(r, r->att[i].state);
	r->natt = 0;
}

struct run *run_new(const struct prog *prog, const struct run_opts *o)
{
	struct run *r = xcalloc(1, sizeof(*r));

	r->prog = prog;
	r->o = o;
	r->vm = vm_new(prog, &o->lim);
	if (!r->vm) {
		free(r);
		return NULL;
	}
	r->state = PROV_STARTING;
	if (o->target)
		vm_set_target(r->vm, o->target);
	return r;
}

int run_attach(struct run *r, struct loop *l)
{
	r->loop = l;
	return attach_all(r);
}

int run_begin(struct run *r)
{
	phase_all(r, PROV_PHASE_BEGIN);
	if (r->state == PROV_STARTING)
		r->state = PROV_RUNNING;
	return r->exiting ? 1 : 0;
}

void run_drain(struct run *r)
{
	/* recording stops now; records still buffered when a signal, -T or
	 * the target's exit ended the loop happened before it, and are
	 * handled first (after exit() or an error, none is) */
	if (r->state == PROV_RUNNING && !r->drained)
		phase_all(r, PROV_PHASE_DRAIN);
	r->drained = true;
}

void run_end(struct run *r)
{
	run_drain(r);
	r->exiting = false;
	if (r->state == PROV_RUNNING || r->state == PROV_STARTING)
		r->state = PROV_STOPPING;
	phase_all(r, PROV_PHASE_END);
	phase_all(r, PROV_PHASE_ERROR);
}

int run_finish(struct run *r)
{
	if (!r->finished) {
		r->finished = true;
		detach_all(r);
		run_flush(r);
		if (r->errors)
			fprintf(stderr, "WARNING: Number of errors: %ld, skipped "
				"probes: %ld\n", r->errors, r->skipped);
	}
	return r->errors ? TK_EXIT_RUNTIME : TK_EXIT_OK;
}

void run_free(struct run *r)
{
	if (!r)
		return;
	builtin_stack_release(r->vm);
	vm_free(r->vm);
	free(r->error);
	free(r);
}

const char *run_error_msg(const struct run *r)
{
	return r->error;
}
