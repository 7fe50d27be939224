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
 * -c CMD: the command is forked at once but waits on a pipe until the
 * begin probes ran (probes attached), then execs /bin/sh -c CMD.  If the
 * script ends first the command gets SIGTERM (tapkit does not leave it
 * behind).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wordexp.h>
#include <sys/wait.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/ready.h"
#include "lang/backend.h"
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
	pid_t child;
	int release_fd;
	bool child_done;
	struct attached att[16];
	int natt;
	bool overflow_seen;
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
	return r->child ? r->child : r->o->target;
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

static void write_out(struct run *r)
{
	struct strbuf *sb = vm_output(r->vm);

	if (!sb->len)
		return;
	if (!r->out_broken && fmt_sb_write(sb, r->o->out) < 0) {
		r->out_broken = true;
		loop_set_broken_pipe(r->loop);
	}
	fmt_sb_reset(sb);
}

void run_flush(struct run *r)
{
	write_out(r);
	if (!r->out_broken && fflush(r->o->out) == EOF) {
		r->out_broken = true;
		loop_set_broken_pipe(r->loop);
	}
}

/* Kernel counts into the globals a handler is about to read. */
static void sync_counts(struct run *r)
{
	int i;

	for (i = 0; i < r->natt; i++)
		if (r->att[i].ok && r->att[i].prov->sync)
			r->att[i].prov->sync(r, r->att[i].state);
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

bool run_fire(struct run *r, struct prov_probe *p, void *ev)
{
	if (r->state != p->state || (r->exiting && p->state == PROV_RUNNING))
		return !r->exiting;
	if (p->sync)
		sync_counts(r);
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
	if (vm_exit_requested(r->vm) && !r->exiting) {
		r->exiting = true;
		loop_stop(r->loop);
	}
	return !r->exiting;
}

/* ---- the target process --------------------------------------------- */

static int on_target_exit(struct loop *l, int fd, void *arg)
{
	struct run *r = arg;

	if (r->child && waitpid(r->child, NULL, WNOHANG) == r->child)
		r->child_done = true;
	loop_stop(l);
	return 0;
}

static int start_cmd(struct run *r)
{
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		pr_err("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pr_err("cannot fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		wordexp_t words;
		char c;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(127);
		/* as staprun: words expanded without a shell when they can be,
		 * so that target() is the command itself, not a shell around it */
		if (wordexp(r->o->cmd, &words, WRDE_NOCMD) == 0 && words.we_wordc > 0) {
			execvp(words.we_wordv[0], words.we_wordv);
			fprintf(stderr, "%s: cannot run '%s': %s\n", tk_prog,
				words.we_wordv[0], strerror(errno));
			_exit(127);
		}
		execl("/bin/sh", "sh", "-c", r->o->cmd, (char *)NULL);
		fprintf(stderr, "%s: cannot run /bin/sh: %s\n", tk_prog,
			strerror(errno));
		_exit(127);
	}
	close(pfd[0]);
	r->child = pid;
	r->release_fd = pfd[1];
	return 0;
}

static void release_cmd(struct run *r)
{
	if (r->release_fd < 0)
		return;
	if (write(r->release_fd, "x", 1) != 1)
		pr_warn("cannot start the command: %s", strerror(errno));
	close(r->release_fd);
	r->release_fd = -1;
}

static void end_cmd(struct run *r)
{
	if (r->release_fd >= 0) {
		close(r->release_fd);	/* never released: it exits */
		r->release_fd = -1;
	}
	if (!r->child || r->child_done)
		return;
	if (waitpid(r->child, NULL, WNOHANG) == 0) {
		kill(r->child, SIGTERM);
		waitpid(r->child, NULL, 0);
	}
	r->child_done = true;
}

static int on_timeout(struct loop *l, int fd, void *arg)
{
	loop_stop(l);
	return 0;
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

int run_main(const struct prog *prog, const struct run_opts *o)
{
	struct run r = { .prog = prog, .o = o, .release_fd = -1 };
	int status = TK_EXIT_OK;

	r.vm = vm_new(prog, &o->lim);
	r.loop = loop_new();
	if (!r.loop) {
		pr_err("cannot create the event loop: %s", strerror(errno));
		vm_free(r.vm);
		return TK_EXIT_RUNTIME;
	}
	r.state = PROV_STARTING;
	if (o->cmd && start_cmd(&r) < 0) {
		status = TK_EXIT_RUNTIME;
		goto out_loop;
	}
	if (o->cmd)
		vm_set_target(r.vm, r.child);
	else if (o->target)
		vm_set_target(r.vm, o->target);
	if (o->target) {
		int err = loop_watch_pid(r.loop, o->target, on_target_exit, &r);

		if (err < 0) {
			pr_err("cannot watch process %d: %s", (int)o->target,
			       strerror(-err));
			status = TK_EXIT_RUNTIME;
			goto out_cmd;
		}
	}
	if (r.child && loop_watch_pid(r.loop, r.child, on_target_exit, &r) < 0) {
		pr_err("cannot watch the command: %s", strerror(errno));
		status = TK_EXIT_RUNTIME;
		goto out_cmd;
	}
	if (attach_all(&r) < 0) {
		if (r.error)
			pr_err("%s", r.error);
		status = TK_EXIT_RUNTIME;
		goto out_detach;
	}
	phase_all(&r, PROV_PHASE_BEGIN);
	if (r.state == PROV_STARTING)
		r.state = PROV_RUNNING;
	if (!r.exiting) {
		ready_announce();
		release_cmd(&r);
		if (o->time_limit > 0)
			loop_timer(r.loop, (uint64_t)o->time_limit * 1000, 0,
				   on_timeout, &r);
		loop_run(r.loop);
	}
	/* recording stops now; records still buffered when a signal, -T or
	 * the target's exit ended the loop happened before it, and are
	 * handled first (after exit() or an error, none is) */
	if (r.state == PROV_RUNNING)
		phase_all(&r, PROV_PHASE_DRAIN);
	r.exiting = false;
	if (r.state == PROV_RUNNING || r.state == PROV_STARTING)
		r.state = PROV_STOPPING;
	phase_all(&r, PROV_PHASE_END);
	phase_all(&r, PROV_PHASE_ERROR);
out_detach:
	detach_all(&r);
	run_flush(&r);
	if (r.errors) {
		fprintf(stderr, "WARNING: Number of errors: %ld, skipped "
			"probes: %ld\n", r.errors, r.skipped);
		status = TK_EXIT_RUNTIME;
	}
out_cmd:
	end_cmd(&r);
out_loop:
	loop_free(r.loop);
	vm_free(r.vm);
	free(r.error);
	return status;
}
