// SPDX-License-Identifier: GPL-2.0
/*
 * The probe points that need no tracing: begin, begin(N), end, end(N),
 * error, error(N), never, oneshot, and timer.s/ms/us/ns/hz/jiffies(N) with
 * .randomize(M).
 *
 * begin/end/error fire in their phase of the run, ordered by N and then
 * by their order in the script (stap sorts be probes by priority, and
 * keeps the script order among equals).  `oneshot` is stap's alias
 * `begin { ...; exit() }`: a begin probe that exits after its handler.
 * Timers are timerfds on the run's loop, first firing one period after
 * the start, as stap's hrtimers do; an overrun fires once (stap forwards
 * its hrtimer and runs the handler once).  timer.jiffies assumes
 * CONFIG_HZ=250, Debian's and Fedora's x86-64 setting (jiffies() and HZ()
 * report the same).  .randomize(M) draws each period from [N-M, N+M].
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/timerfd.h>

#include "common/log.h"
#include "common/loop.h"
#include "lang/diag.h"
#include "prov/prov.h"
#include "lang/run.h"

#define JIFFY_NS 4000000LL	/* CONFIG_HZ=250 */

enum kind { K_BEGIN, K_END, K_ERROR, K_NEVER, K_ONESHOT, K_TIMER };

struct basic {
	enum kind kind;
	int64_t period_ns;
	int64_t rand_ns;
	const char *unit;
	int64_t n;
};

static const struct {
	const char *name;
	int64_t ns;
} units[] = {
	{ "s", 1000000000LL }, { "sec", 1000000000LL },
	{ "ms", 1000000LL }, { "msec", 1000000LL },
	{ "us", 1000LL }, { "usec", 1000LL },
	{ "ns", 1LL }, { "nsec", 1LL },
	{ "jiffies", JIFFY_NS }, { "hz", 0 },
};

static struct prov_probe *make(const char *pp, enum kind kind,
			       enum prov_state state, int64_t order)
{
	struct prov_probe *p = prov_probe_new(&prov_basic, pp, state);
	struct basic *b = xcalloc(1, sizeof(*b));

	b->kind = kind;
	p->data = b;
	p->order = order;
	return p;
}

static int expand_be(const struct prov_env *env, const struct ast_pp *pp,
		     struct prov_list *out)
{
	static const struct {
		const char *name;
		enum kind kind;
		enum prov_state state;
	} be[] = {
		{ "begin", K_BEGIN, PROV_STARTING },
		{ "end", K_END, PROV_STOPPING },
		{ "error", K_ERROR, PROV_ERROR },
		{ "never", K_NEVER, PROV_RUNNING },
		{ "oneshot", K_ONESHOT, PROV_STARTING },
	};
	const struct ast_ppcomp *c = &pp->comps[0];
	int64_t order = 0;
	char text[64];
	size_t i;

	for (i = 0; i < sizeof(be) / sizeof(be[0]); i++) {
		if (strcmp(c->name, be[i].name))
			continue;
		if (c->arg && (be[i].kind == K_NEVER ||
			       be[i].kind == K_ONESHOT ||
			       c->arg->kind != AST_E_NUM)) {
			diag_error(env->diag, c->loc, "'%s' takes %s", c->name,
				   be[i].kind >= K_NEVER ? "no argument" :
				   "a number: begin(N)");
			return -1;
		}
		if (c->arg) {
			order = c->arg->u.num;
			snprintf(text, sizeof(text), "%s(%lld)", c->name,
				 (long long)order);
		} else {
			snprintf(text, sizeof(text), "%s", c->name);
		}
		prov_list_push(out, make(text, be[i].kind, be[i].state, order));
		return 1;
	}
	return 0;
}

static int expand_timer(const struct prov_env *env, const struct ast_pp *pp,
			struct prov_list *out)
{
	const struct ast_ppcomp *u;
	struct prov_probe *p;
	struct basic *b;
	int64_t n, m = 0, ns = -1;
	char text[128];
	size_t i;

	if (pp->ncomps < 2) {
		diag_error(env->diag, pp->loc, "incomplete timer probe point: "
			   "timer.s(N), timer.ms(N), timer.hz(N)...");
		return -1;
	}
	u = &pp->comps[1];
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u->name, units[i].name))
			ns = units[i].ns;
	if (ns < 0) {
		diag_error(env->diag, u->loc, "unknown timer unit '%s': use s, "
			   "ms, us, ns, hz or jiffies", u->name);
		return -1;
	}
	if (!prov_comp_num(pp, 1, &n) || n <= 0) {
		diag_error(env->diag, u->loc, "timer.%s needs a positive number",
			   u->name);
		return -1;
	}
	if (pp->ncomps > 3 || (pp->ncomps == 3 &&
	    (!prov_comp_is(pp, 2, "randomize") || !prov_comp_num(pp, 2, &m) ||
	     m < 0))) {
		diag_error(env->diag, pp->comps[pp->ncomps - 1].loc, "expected "
			   ".randomize(M) with M >= 0 after timer.%s(%lld)",
			   u->name, (long long)n);
		return -1;
	}
	if (ns == 0) {		/* hz */
		if (n > 1000000000) {
			diag_error(env->diag, u->loc, "timer.hz(%lld) is too "
				   "fast", (long long)n);
			return -1;
		}
		ns = 1000000000LL / n;
		n = 1;
	}
	if (n > INT64_MAX / ns) {
		diag_error(env->diag, u->loc, "timer period too long");
		return -1;
	}
	if (m)
		snprintf(text, sizeof(text), "timer.%s(%lld).randomize(%lld)",
			 u->name, (long long)pp->comps[1].arg->u.num,
			 (long long)m);
	else
		snprintf(text, sizeof(text), "timer.%s(%lld)", u->name,
			 (long long)pp->comps[1].arg->u.num);
	p = make(text, K_TIMER, PROV_RUNNING, 0);
	b = p->data;
	b->period_ns = n * ns;
	b->rand_ns = m * (ns ? ns : 1);
	b->unit = u->name;
	b->n = pp->comps[1].arg->u.num;
	if (b->period_ns - b->rand_ns <= 0)
		b->rand_ns = b->period_ns - 1;
	prov_list_push(out, p);
	return 1;
}

static int basic_expand(const struct prov_env *env, const struct ast_pp *pp,
			struct prov_list *out)
{
	if (!pp->ncomps)
		return 0;
	if (pp->ncomps == 1)
		return expand_be(env, pp, out);
	if (!strcmp(pp->comps[0].name, "timer") && !pp->comps[0].arg)
		return expand_timer(env, pp, out);
	return 0;
}

static void basic_describe(const struct prov_probe *p, bool plan, FILE *f)
{
	const struct basic *b = p->data;

	if (plan) {
		fprintf(f, "# %s: nothing to write to tracefs\n", p->pp);
		return;
	}
	switch (b->kind) {
	case K_BEGIN: fputs("at the start, before any other probe", f); break;
	case K_ONESHOT: fputs("at the start, then exit()", f); break;
	case K_END: fputs("at the end of the run", f); break;
	case K_ERROR: fputs("at the end of a run with errors", f); break;
	case K_NEVER: fputs("never fires", f); break;
	case K_TIMER:
		fprintf(f, "timerfd every %lld ns", (long long)b->period_ns);
		if (b->rand_ns)
			fprintf(f, " +/- %lld ns", (long long)b->rand_ns);
		break;
	}
}

/* ---- running ------------------------------------------------------------- */

struct timer {
	struct run *run;
	struct prov_probe *p;
	int fd;
};

struct state {
	struct prov_probe **probes;	/* begin/end/error, sorted */
	size_t n;
	struct timer *timers;
	size_t ntimers;
};

static int64_t next_period(const struct basic *b)
{
	if (!b->rand_ns)
		return b->period_ns;
	return b->period_ns - b->rand_ns +
	       (int64_t)((uint64_t)random() % (uint64_t)(2 * b->rand_ns + 1));
}

static int arm(struct timer *t)
{
	const struct basic *b = t->p->data;
	int64_t ns = next_period(b);
	struct itimerspec its = {
		.it_value = { ns / 1000000000, ns % 1000000000 },
	};

	if (!b->rand_ns)
		its.it_interval = its.it_value;
	return timerfd_settime(t->fd, 0, &its, NULL) < 0 ? -errno : 0;
}

static int on_timer(struct loop *l, int fd, void *arg)
{
	struct timer *t = arg;
	const struct basic *b = t->p->data;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	if (b->rand_ns)
		arm(t);
	run_fire(t->run, t->p, NULL);
	run_flush(t->run);
	return 0;
}

static int cmp_order(const void *a, const void *b)
{
	const struct prov_probe *x = *(struct prov_probe *const *)a;
	const struct prov_probe *y = *(struct prov_probe *const *)b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->id - y->id;
}

static void basic_detach(struct run *run, void *state);

static int basic_attach(struct run *run, struct prov_probe *const *probes,
			size_t n, void **state)
{
	struct state *s = xcalloc(1, sizeof(*s));
	size_t i;
	int err;

	*state = s;
	s->probes = xcalloc(n, sizeof(*s->probes));
	s->timers = xcalloc(n, sizeof(*s->timers));
	for (i = 0; i < n; i++) {
		struct basic *b = probes[i]->data;
		struct timer *t;

		if (b->kind != K_TIMER) {
			s->probes[s->n++] = probes[i];
			continue;
		}
		t = &s->timers[s->ntimers];
		t->run = run;
		t->p = probes[i];
		t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
				       TFD_CLOEXEC);
		err = t->fd < 0 ? -errno : loop_add(run_loop(run), t->fd,
						    on_timer, t);
		if (err < 0) {
			run_error(run, "cannot create a timer for %s: %s",
				  t->p->pp, strerror(-err));
			if (t->fd >= 0)
				close(t->fd);
			return err;
		}
		s->ntimers++;
	}
	qsort(s->probes, s->n, sizeof(*s->probes), cmp_order);
	return 0;
}

static void basic_phase(struct run *run, void *state, enum prov_phase ph)
{
	struct state *s = state;
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct prov_probe *p = s->probes[i];
		struct basic *b = p->data;

		if ((ph == PROV_PHASE_BEGIN && p->state == PROV_STARTING) ||
		    (ph == PROV_PHASE_END && p->state == PROV_STOPPING) ||
		    (ph == PROV_PHASE_ERROR && p->state == PROV_ERROR)) {
			run_fire(run, p, NULL);
			if (b->kind == K_ONESHOT)
				run_stop(run);
		}
	}
	if (ph != PROV_PHASE_BEGIN)
		return;
	/* the timers start with the run proper */
	for (i = 0; i < s->ntimers; i++)
		if (arm(&s->timers[i]) < 0)
			run_warn(run, "cannot start the timer of %s: %s",
				 s->timers[i].p->pp, strerror(errno));
}

static void basic_detach(struct run *run, void *state)
{
	struct state *s = state;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ntimers; i++)
		close(s->timers[i].fd);
	free(s->timers);
	free(s->probes);
	free(s);
}

static void basic_free(struct prov_probe *p)
{
	free(p->data);
}

const struct provider prov_basic = {
	.name = "basic",
	.expand = basic_expand,
	.describe = basic_describe,
	.attach = basic_attach,
	.phase = basic_phase,
	.detach = basic_detach,
	.free_probe = basic_free,
};
