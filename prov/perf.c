// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event sampling as probe points: timer.profile, perf.sw.NAME,
 * perf.hw.NAME, perf.hw_cache.CACHE.OP.RESULT and perf.type(T).config(C)
 * (their names and expansion in perf_points.c), each with .sample(N) (every N
 * events; stap's default is 1000000) or .hz(N) (N samples a second), and
 * .process("path") (only processes running that program) or .process
 * (only target(), the -c/-x process).
 *
 * timer.profile fires, in stap, on every CPU at each scheduler tick, in
 * the context of whatever runs there.  Here it is the cpu-clock software
 * event sampled every 4 ms on every CPU (250 Hz, the tick of CONFIG_HZ=250
 * that basic.c's jiffies assume): a sample lands on the task running on
 * that CPU, the idle task included (pid 0, "swapper/N"), with its IP
 * (uaddr(), addr()) and, when the handler asks for a backtrace, its
 * kernel and user callchain.
 *
 * Each probe is one perf sampler (tracefs/perf_sampler.h): one ring per
 * CPU, system-wide, or on the threads of target() (inherited by the
 * threads it creates) when the handler starts with `pid() == target()`
 * or the point says .process.  The rings wake the loop only when a quarter
 * full, so they are also drained on a timer and at the end.
 *
 * .process("path") samples system-wide and keeps the samples of
 * processes whose executable is @path: each process is looked up once in
 * /proc/PID/exe (again after it renames itself, as exec does); a process
 * gone before its samples are read is matched by its name, which exec set
 * to the program's file name (15 bytes).
 */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/symcache.h"
#include "common/task.h"
#include "lang/run.h"
#include "prov/perf.h"
#include "prov/prov.h"
#include "prov/record.h"
#include "tracefs/perf_event.h"
#include "tracefs/perf_sampler.h"
#include "tracefs/perf_sideband.h"
#define DRAIN_MS	100
/* With stacks, samples are read this often: a process is named from its
 * maps while it still runs (common/symcache.c notes it at its first sample
 * handled), so a short-lived one needs its samples soon. */
#define STACK_DRAIN_MS	10
#define RING_PAGES	64
/* The sideband's data pages per CPU: a few records per exec. */
#define SIDEBAND_PAGES	16
/* The top of the user-space address range of x86-64 (47 bits). */
#define USER_TOP (1ULL << 47)

/* addr(): the sampled instruction, variable 0; uaddr(): the user-space
 * one, variable 1 (a kernel sample's first user frame when it has a
 * callchain, else 0). */
static int perf_target(struct prov_probe *p, const struct prov_target *t,
		       struct prov_var *out, char *err, size_t errlen)
{
	(void)p;
	if (t->raw != PROV_RAW_IP && t->raw != PROV_RAW_UIP)
		return -ENOENT;
	if (t->deref || t->path.nsteps) {
		snprintf(err, errlen, "a perf sample holds no memory to read");
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->name = t->raw == PROV_RAW_UIP ? "uip" : "ip";
	out->type = AST_T_LONG;
	out->idx = t->raw == PROV_RAW_UIP;
	out->ctype = "unsigned long";
	return 0;
}

static const struct perf_sample_head *head_of(const struct tk_event *ev)
{
	return ev->size >= sizeof(struct perf_sample_head) ? ev->data : NULL;
}

static int perf_fetch(const struct prov_probe *p, void *evp, int idx,
		      int64_t sub, struct lang_val *out)
{
	const struct perf_sample_head *h = head_of(evp);

	const struct tk_event *ev = evp;

	(void)p;
	(void)sub;
	if ((idx != 0 && idx != 1) || !h)
		return -EINVAL;
	out->s = "";
	out->l = (int64_t)h->ip;
	if (idx == 1 && h->ip >= USER_TOP)
		out->l = ev->nstack > ev->nkstack ?
			 (int64_t)ev->stack[ev->nkstack] : 0;
	return 0;
}

/*
 * probefunc(): stap's usymname(uaddr()) for a sample in user mode, else
 * symname(addr()): the function of the sampled instruction, through
 * kallsyms or the process's maps (its first sample notes it); the
 * address in hex when nothing names it.
 */
static const char *sampled_func(struct pprobe *pr, const struct perf_sample_head *h)
{
	struct symcache_sym s = { 0 };
	struct symcache *c = pr->st ? pr->st->syms : NULL;
	int err = -ENOENT;

	if (!c && pr->st)
		c = pr->st->syms = symcache_shared();
	if (c && h->ip >= USER_TOP) {
		err = symcache_kernel(c, h->ip, &s);
	} else if (c && h->pid) {
		symcache_note(c, (pid_t)h->pid);
		err = symcache_user(c, (pid_t)h->pid, h->ip, 0, &s);
	}
	if (!err && s.name)
		return s.name;
	snprintf(pr->func, sizeof(pr->func), "0x%llx", (unsigned long long)h->ip);
	return pr->func;
}

static int perf_context(const struct prov_probe *p, void *evp,
			enum prov_ctx what, struct lang_val *out)
{
	const struct tk_event *ev = evp;
	const struct perf_sample_head *h = head_of(ev);
	static char idle[32];
	const char *comm;

	(void)p;
	if (!h)
		return -ENOENT;
	switch (what) {
	case PROV_CTX_PID:
		out->l = h->pid;
		return 0;
	case PROV_CTX_TID:
		out->l = h->tid;
		return 0;
	case PROV_CTX_CPU:
		out->l = ev->cpu;
		return 0;
	case PROV_CTX_TIME:
		out->l = (int64_t)ev->ts;
		return 0;
	case PROV_CTX_PPID:
		out->l = h->pid ? task_ppid((pid_t)h->pid) : 0;
		if (out->l < 0)
			out->l = 0;
		return 0;
	case PROV_CTX_EXECNAME:
		if (!h->tid) {
			snprintf(idle, sizeof(idle), "swapper/%d", ev->cpu);
			out->s = idle;
			return 0;
		}
		comm = task_cache_comm((pid_t)h->tid);
		out->s = comm ? comm : "";
		return 0;
	case PROV_CTX_PROBEFUNC:
		out->s = sampled_func(p->data, h);
		return 0;
	case PROV_CTX_IS_RETURN:
		out->l = 0;
		return 0;
	case PROV_CTX_USER_MODE:
		out->l = h->ip < USER_TOP;
		return 0;
	default:
		return -ENOENT;
	}
}

static int perf_stack(const struct prov_probe *p, void *evp,
		      const uint64_t **pcs, size_t *nk, size_t *nu)
{
	(void)p;
	return record_stack(evp, pcs, nk, nu);
}

static void describe_rate(const struct pprobe *pr, FILE *f)
{
	if (pr->profile)
		fprintf(f, "every %llu ns of each CPU (250 Hz, the tick of "
			"CONFIG_HZ=250)", (unsigned long long)pr->spec.period);
	else if (pr->spec.freq)
		fprintf(f, "%llu times a second", (unsigned long long)pr->spec.freq);
	else
		fprintf(f, "every %llu events", (unsigned long long)pr->spec.period);
}

static void perf_describe(const struct prov_probe *p, bool plan, FILE *f)
{
	const struct pprobe *pr = p->data;
	const char *who = p->scope == PROV_SCOPE_TARGET_THREAD ? "target()'s thread" :
			  pr->target || p->scope == PROV_SCOPE_TARGET_PROCESS ?
			  "target()'s threads (inherited by new ones)" : "every CPU";

	if (plan) {
		fprintf(f, "# %s: perf_event_open(2) sampler, type %u config %llu "
			"%s %llu%s, on %s; nothing written to tracefs\n", p->pp,
			pr->spec.type, (unsigned long long)pr->spec.config,
			pr->spec.freq ? "sample_freq" : "sample_period",
			(unsigned long long)(pr->spec.freq ? pr->spec.freq :
					     pr->spec.period),
			p->stacks ? ", with callchains" : "", who);
		return;
	}
	fprintf(f, "perf_event sampling of %s ", pr->event);
	describe_rate(pr, f);
	fprintf(f, " on %s", who);
	if (pr->path)
		fprintf(f, ", samples of processes running %s", pr->path);
	if (p->stacks)
		fputs(", with kernel and user callchains", f);
}

static void perf_free_probe(struct prov_probe *p)
{
	pprobe_free(p->data);
	p->data = NULL;
}

/* ---- running ------------------------------------------------------------- */


/* Is process @pid (thread @tid) running pr->path?  Cached per process. */
static bool path_match(struct pprobe *pr, pid_t pid, pid_t tid)
{
	const char *comm = task_cache_comm(tid);
	char proc[64], exe[PATH_MAX];
	struct pmatch *m;
	size_t i, mask;
	ssize_t n;

	if (!pid)
		return false;
	if (!pr->ncache) {
		pr->ncache = 1024;
		pr->cache = xcalloc(pr->ncache, sizeof(*pr->cache));
	}
	mask = pr->ncache - 1;
	for (i = (size_t)pid & mask;; i = (i + 1) & mask) {
		m = &pr->cache[i];
		if (!m->pid || m->pid == pid)
			break;
		if (((i + 1) & mask) == ((size_t)pid & mask)) {
			/* full: start over */
			memset(pr->cache, 0, pr->ncache * sizeof(*pr->cache));
			m = &pr->cache[(size_t)pid & mask];
			break;
		}
	}
	if (m->pid == pid && comm && !strncmp(m->comm, comm, sizeof(m->comm)))
		return m->match;
	m->pid = pid;
	snprintf(m->comm, sizeof(m->comm), "%s", comm ? comm : "");
	snprintf(proc, sizeof(proc), "/proc/%d/exe", (int)pid);
	n = readlink(proc, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		m->match = !strcmp(exe, pr->path);
	} else {
		m->match = comm && !strcmp(comm, pr->base);
	}
	return m->match;
}

static void on_sample(const struct tk_event *ev, void *arg)
{
	struct pprobe *pr = arg;
	const struct perf_sample_head *h = head_of(ev);

	if (pr->stopped || !h)
		return;
	if (pr->only_tid && (pid_t)h->tid != pr->only_tid)
		return;
	if (pr->st->sb)
		perf_sideband_tell(pr->st->sb, ev->ts, pr->st->syms);
	if (pr->path && !path_match(pr, (pid_t)h->pid, (pid_t)h->tid))
		return;
	if (!run_fire(pr->run, pr->p, (void *)ev))
		pr->stopped = true;	/* exit() or an error */
}

static void drain_all(struct pstate *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (st->v[i]->smp)
			perf_sampler_drain(st->v[i]->smp, on_sample, st->v[i]);
	if (st->sb) {
		perf_sideband_tell(st->sb, UINT64_MAX, st->syms);
		symcache_sweep(st->syms);
	}
	run_flush(st->run);
}

static int on_ready(struct loop *l, int fd, void *arg)
{
	struct pstate *st = arg;

	(void)l;
	(void)fd;		/* a ring, or the timer (the loop reads it) */
	drain_all(st);
	return 0;
}

/* The threads of target() to sample, or a run_error(). */
static int target_scope(struct run *run, const struct prov_probe *p,
			struct perf_scope *scope, pid_t **tids)
{
	pid_t t = run_target(run);
	int n;

	if (!t) {
		run_error(run, "%s samples target()'s process: give -c CMD or -x PID",
			  p->pp);
		return -EINVAL;
	}
	n = task_threads(t, tids);
	if (n <= 0) {
		run_error(run, "cannot sample process %d: %s", (int)t,
			  strerror(n < 0 ? -n : ESRCH));
		return n < 0 ? n : -ESRCH;
	}
	scope->tids = *tids;
	scope->ntids = n;
	scope->tree = false;
	return 0;
}

static int attach_one(struct pstate *st, struct prov_probe *p)
{
	struct pprobe *pr = p->data;
	struct perf_scope scope = { 0 };
	pid_t *tids = NULL;
	const int *fds;
	int i, n, err;

	pr->run = st->run;
	pr->p = p;
	pr->st = st;
	pr->stopped = false;
	pr->only_tid = p->scope == PROV_SCOPE_TARGET_THREAD ? run_target(st->run) : 0;
	if (pr->target || p->scope != PROV_SCOPE_ALL) {
		err = target_scope(st->run, p, &scope, &tids);
		if (err < 0)
			return err;
	}
	pr->smp = perf_sampler_open_spec(&pr->spec, scope.tids ? &scope : NULL,
					 p->stacks, RING_PAGES);
	err = -errno;
	free(tids);
	if (!pr->smp) {
		if (err == -ENOENT || err == -ENODEV || err == -EOPNOTSUPP)
			run_error(st->run, "cannot sample %s: the kernel has no "
				  "such perf event: %s", pr->event, strerror(-err));
		else
			run_error(st->run, "cannot sample %s with perf_event: %s",
				  pr->event, perf_strerror(-err));
		return err;
	}
	fds = perf_sampler_fds(pr->smp, &n);
	for (i = 0; i < n; i++) {
		err = loop_add(run_loop(st->run), fds[i], on_ready, st);
		if (err < 0) {
			run_error(st->run, "cannot poll the perf rings: %s",
				  strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * The sideband of every probe's samples: system-wide, or target()'s
 * threads when each probe samples only those.  Without it (an old
 * kernel) processes are named from /proc at their first sample.
 */
static void open_sideband(struct pstate *st, struct prov_probe *const *probes,
			  size_t n)
{
	struct perf_scope scope = { 0 };
	pid_t *tids = NULL;
	size_t i;
	int nt;

	for (i = 0; i < n; i++) {
		struct pprobe *pr = probes[i]->data;

		if (!pr->target && probes[i]->scope == PROV_SCOPE_ALL)
			break;
	}
	if (n && i == n && run_target(st->run) &&
	    (nt = task_threads(run_target(st->run), &tids)) > 0) {
		scope.tids = tids;
		scope.ntids = nt;
	}
	st->sb = perf_sideband_open(scope.tids ? &scope : NULL, SIDEBAND_PAGES);
	free(tids);
	if (st->sb)
		st->syms = symcache_shared();
}

static int prov_perf_attach(struct run *run, struct prov_probe *const *probes,
			    size_t n, void **state)
{
	struct pstate *st = xcalloc(1, sizeof(*st));
	unsigned int drain_ms = DRAIN_MS;
	size_t i;
	int err;

	st->run = run;
	st->timer = -1;
	st->v = xcalloc(n ? n : 1, sizeof(*st->v));
	*state = st;
	for (i = 0; i < n; i++) {
		st->v[st->n++] = probes[i]->data;
		if (probes[i]->stacks)
			drain_ms = STACK_DRAIN_MS;
		if ((err = attach_one(st, probes[i])) < 0)
			return err;
	}
	open_sideband(st, probes, n);
	if (st->sb && perf_sideband_enable(st->sb) < 0) {
		perf_sideband_free(st->sb);
		st->sb = NULL;
	}
	st->timer = loop_timer(run_loop(run), drain_ms, drain_ms, on_ready, st);
	if (st->timer < 0) {
		err = st->timer;
		run_error(run, "cannot create the perf drain timer: %s",
			  strerror(-err));
		return err;
	}
	for (i = 0; i < st->n; i++)
		if ((err = perf_sampler_enable(st->v[i]->smp)) < 0) {
			run_error(run, "cannot start sampling %s: %s",
				  st->v[i]->event, strerror(-err));
			return err;
		}
	return 0;
}

static void report_lost(struct pstate *st)
{
	size_t i;

	if (st->reported)
		return;
	st->reported = true;
	for (i = 0; i < st->n; i++) {
		uint64_t lost = st->v[i]->smp ? perf_sampler_lost(st->v[i]->smp) : 0;

		if (lost)
			run_warn(st->run, "%llu samples of %s lost: the perf rings "
				 "were full", (unsigned long long)lost,
				 st->v[i]->p->pp);
	}
	if (st->sb && perf_sideband_lost(st->sb))
		run_warn(st->run, "%llu mapping records lost: stacks of processes "
			 "that exited early may show bare addresses",
			 (unsigned long long)perf_sideband_lost(st->sb));
}

static void prov_perf_phase(struct run *run, void *state, enum prov_phase ph)
{
	struct pstate *st = state;
	size_t i;

	if (ph != PROV_PHASE_DRAIN || !st)
		return;
	for (i = 0; i < st->n; i++)
		if (st->v[i]->smp)
			perf_sampler_disable(st->v[i]->smp);
	if (st->sb)
		perf_sideband_disable(st->sb);
	if (!run_exiting(run))
		drain_all(st);
	report_lost(st);
}

static void prov_perf_detach(struct run *run, void *state)
{
	struct pstate *st = state;
	size_t i;

	(void)run;
	if (!st)
		return;
	for (i = 0; i < st->n; i++)
		if (st->v[i]->smp)
			perf_sampler_disable(st->v[i]->smp);
	report_lost(st);
	for (i = 0; i < st->n; i++) {
		perf_sampler_free(st->v[i]->smp);
		st->v[i]->smp = NULL;
		st->v[i]->st = NULL;
	}
	perf_sideband_free(st->sb);
	symcache_free(st->syms);
	/* the timer's fd belongs to the loop, which closes it */
	free(st->v);
	free(st);
}

const struct provider prov_perf = {
	.name = "perf",
	.scopes = true,
	.expand = perf_expand,
	.target = perf_target,
	.stack = perf_stack,
	.fetch = perf_fetch,
	.context = perf_context,
	.describe = perf_describe,
	.attach = prov_perf_attach,
	.phase = prov_perf_phase,
	.detach = prov_perf_detach,
	.free_probe = perf_free_probe,
};
