// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event sampling as probe points: timer.profile, perf.sw.NAME,
 * perf.hw.NAME and perf.type(T).config(C), each with .sample(N) (every N
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
#include <fnmatch.h>
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
#include "lang/diag.h"
#include "lang/run.h"
#include "prov/prov.h"
#include "prov/record.h"
#include "tracefs/perf_event.h"
#include "tracefs/perf_sampler.h"
#include "tracefs/perf_sideband.h"

#define PROFILE_NS	4000000ULL	/* timer.profile: CONFIG_HZ=250's tick */
#define DEFAULT_PERIOD	1000000ULL	/* stap's default .sample() */
#define DRAIN_MS	100
/* With stacks, samples are read this often: a process is named from its
 * maps while it still runs (common/symcache.c notes it at its first sample
 * handled), so a short-lived one needs its samples soon. */
#define STACK_DRAIN_MS	10
#define RING_PAGES	64
/* The sideband's data pages per CPU: a few records per exec. */
#define SIDEBAND_PAGES	16

struct evname {
	const char *name;
	uint64_t config;
};

static const struct evname sw_events[] = {
	{ "cpu_clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task_clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page_faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context_switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu_migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page_faults_min", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "page_faults_maj", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment_faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation_faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ NULL, 0 },
};

static const struct evname hw_events[] = {
	{ "cpu_cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache_references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache_misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branch_instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch_misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus_cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled_cycles_frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled_cycles_backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref_cpu_cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
	{ NULL, 0 },
};

/* perf.hw_cache.CACHE.OP.RESULT: PERF_TYPE_HW_CACHE, config
 * CACHE | OP << 8 | RESULT << 16 (perf_event_open(2)); stap's names. */
static const struct evname cache_ids[] = {
	{ "l1d", PERF_COUNT_HW_CACHE_L1D },
	{ "l1i", PERF_COUNT_HW_CACHE_L1I },
	{ "ll", PERF_COUNT_HW_CACHE_LL },
	{ "dtlb", PERF_COUNT_HW_CACHE_DTLB },
	{ "itlb", PERF_COUNT_HW_CACHE_ITLB },
	{ "bpu", PERF_COUNT_HW_CACHE_BPU },
	{ NULL, 0 },
};

static const struct evname cache_ops[] = {
	{ "read", PERF_COUNT_HW_CACHE_OP_READ },
	{ "write", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ NULL, 0 },
};

static const struct evname cache_results[] = {
	{ "access", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "miss", PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ NULL, 0 },
};

/* A process's match against .process("path"), cached. */
struct pmatch {
	pid_t pid;
	char comm[16];
	bool match;
};

struct pprobe {
	struct perf_sample_spec spec;
	char *event;		/* "software cpu_clock", for -p2 */
	bool profile;		/* timer.profile */
	bool target;		/* .process: target()'s process */
	char *path;		/* .process("path"), resolved; NULL: none */
	char *base;		/* its file name, 15 bytes: a gone process */
	struct pmatch *cache;	/* open addressing by pid */
	size_t ncache;		/* slots, a power of two */
	/* while attached */
	struct perf_sampler *smp;
	struct run *run;
	struct prov_probe *p;
	pid_t only_tid;		/* tid() == target(): the others dropped */
	bool stopped;		/* exit() or an error: no more samples */
	struct pstate *st;	/* the run's, for the sideband and symbols */
	char func[32];		/* probefunc() of an address nothing names */
};

struct pstate {
	struct run *run;
	struct pprobe **v;
	size_t n;
	int timer;		/* the drain timer's fd, -1: none */
	bool reported;
	/* the mappings of the sampled tasks, told to the run's symbols in
	 * time order with the samples (NULL: none, named from /proc) */
	struct perf_sideband *sb;
	struct symcache *syms;	/* symcache_shared()'s */
};

static const struct evname *find_name(const struct evname *v, const char *name)
{
	for (; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

static void list_names(char *buf, size_t n, const struct evname *v)
{
	size_t len = 0;

	buf[0] = '\0';
	for (; v->name && len < n; v++)
		len += snprintf(buf + len, n - len, "%s%s", len ? ", " : "", v->name);
}

/*
 * The suffixes after the event: .sample(N) or .hz(N), then .process or
 * .process("path"), in that order, each at most once.  0, or -1 after a
 * located error.
 */
static int parse_suffixes(const struct prov_env *env, const struct ast_pp *pp,
			  size_t i, struct pprobe *pr, char *text, size_t textsz)
{
	size_t len = strlen(text);
	int64_t n;

	pr->spec.period = DEFAULT_PERIOD;
	if (i < pp->ncomps && (prov_comp_is(pp, i, "sample") ||
			       prov_comp_is(pp, i, "hz"))) {
		const struct ast_ppcomp *c = &pp->comps[i];
		bool hz = !strcmp(c->name, "hz");

		if (!prov_comp_num(pp, i, &n) || n <= 0) {
			diag_error(env->diag, c->loc, ".%s needs a positive number: "
				   ".%s(N)", c->name, c->name);
			return -1;
		}
		if (hz) {
			pr->spec.freq = (uint64_t)n;
			pr->spec.period = 0;
		} else {
			pr->spec.period = (uint64_t)n;
		}
		len += snprintf(text + len, textsz - len, ".%s(%lld)", c->name,
				(long long)n);
		i++;
	} else {
		len += snprintf(text + len, textsz - len, ".sample(%llu)",
				(unsigned long long)DEFAULT_PERIOD);
	}
	if (i < pp->ncomps && prov_comp_is(pp, i, "process")) {
		const struct ast_ppcomp *c = &pp->comps[i];
		char real[PATH_MAX];

		if (!c->arg) {
			pr->target = true;
			len += snprintf(text + len, textsz - len, ".process");
		} else if (c->arg->kind != AST_E_STR || !c->arg->u.str.s[0]) {
			diag_error(env->diag, c->loc, ".process needs a program's "
				   "path: .process(\"/bin/ls\")");
			return -1;
		} else {
			const char *want = c->arg->u.str.s, *slash;

			if (!realpath(want, real)) {
				if (!env->listing) {
					diag_error(env->diag, c->loc, "cannot find "
						   "program '%s': %s", want,
						   strerror(errno));
					return -1;
				}
				snprintf(real, sizeof(real), "%s", want);
			}
			pr->path = xstrdup(real);
			slash = strrchr(real, '/');
			pr->base = xasprintf("%.15s", slash ? slash + 1 : real);
			len += snprintf(text + len, textsz - len, ".process(\"%s\")",
					real);
		}
		i++;
	}
	if (i < pp->ncomps) {
		const struct ast_ppcomp *c = &pp->comps[i];

		if (!strcmp(c->name, "counter"))
			diag_error(env->diag, c->loc, "perf counters read with "
				   "@perf are not supported: sample with .sample(N)");
		else
			diag_error(env->diag, c->loc, "unexpected '.%s' in a perf "
				   "probe point: expected .sample(N), .hz(N) or "
				   ".process(\"path\")", c->name);
		return -1;
	}
	return 0;
}

/* "hardware cache l1d.read.miss (type 3 config 0x10000)" */
static const char *encoding(const struct pprobe *pr, char *buf, size_t n)
{
	if (!strncmp(pr->event, "type ", 5))
		snprintf(buf, n, "%s", pr->event);
	else
		snprintf(buf, n, "%s (type %u config 0x%llx)", pr->event,
			 pr->spec.type, (unsigned long long)pr->spec.config);
	return buf;
}

/* Does this machine have the event?  A trial perf_event_open() on
 * ourselves; without the privilege to try, assume it does. */
static int check_event(const struct prov_env *env, const struct ast_pp *pp,
		       const struct pprobe *pr, bool quiet)
{
	char what[160];
	int err;

	if (env->listing)
		return 0;
	err = perf_sampler_check(&pr->spec);
	if (!err || err == -EACCES || err == -EPERM)
		return 0;
	if (quiet)
		return -1;
	if ((pr->spec.type == PERF_TYPE_HARDWARE ||
	     pr->spec.type == PERF_TYPE_HW_CACHE) &&
	    (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
		diag_error(env->diag, pp->loc, "this machine has no hardware "
			   "performance counters (no 'cpu' PMU in "
			   "/sys/bus/event_source/devices, as in most virtual "
			   "machines) for %s: requires: perf hardware events",
			   encoding(pr, what, sizeof(what)));
	else if (pr->spec.type == PERF_TYPE_HW_CACHE)
		diag_error(env->diag, pp->loc, "this machine's CPU cannot "
			   "count %s: %s", encoding(pr, what, sizeof(what)),
			   strerror(-err));
	else
		diag_error(env->diag, pp->loc, "the kernel has no perf event of "
			   "type %u config %llu: %s", pr->spec.type,
			   (unsigned long long)pr->spec.config, strerror(-err));
	return -1;
}

static void pprobe_free(struct pprobe *pr)
{
	if (!pr)
		return;
	free(pr->event);
	free(pr->path);
	free(pr->base);
	free(pr->cache);
	free(pr);
}

static int expand_profile(const struct prov_env *env, const struct ast_pp *pp,
			  struct prov_list *out)
{
	struct pprobe *pr;
	struct prov_probe *p;

	if (pp->comps[1].arg || pp->ncomps > 3 ||
	    (pp->ncomps == 3 && !prov_comp_is(pp, 2, "tick"))) {
		diag_error(env->diag, pp->comps[pp->comps[1].arg ? 1 : 2].loc,
			   "timer.profile takes no argument "
			   "(timer.profile or timer.profile.tick)");
		return -1;
	}
	pr = xcalloc(1, sizeof(*pr));
	pr->profile = true;
	pr->spec.type = PERF_TYPE_SOFTWARE;
	pr->spec.config = PERF_COUNT_SW_CPU_CLOCK;
	pr->spec.period = PROFILE_NS;
	pr->event = xstrdup("software cpu_clock");
	p = prov_probe_new(&prov_perf, pp->ncomps == 3 ? "timer.profile.tick" :
			   "timer.profile", PROV_RUNNING);
	p->data = pr;
	prov_list_push(out, p);
	return 1;
}

/*
 * perf.sw.NAME and perf.hw.NAME, NAME a wildcard too (perf.sw.*): one
 * probe per event; a wildcard leaves out the events this machine lacks.
 */
static int expand_named(const struct prov_env *env, const struct ast_pp *pp,
			struct prov_list *out)
{
	bool sw = prov_comp_is(pp, 1, "sw");
	const struct evname *names = sw ? sw_events : hw_events, *ev;
	const char *want = pp->ncomps >= 3 ? pp->comps[2].name : NULL;
	bool wild = want && strpbrk(want, "*?[");
	char text[PATH_MAX + 128], list[512];
	struct prov_probe *p;
	struct pprobe *pr;
	int n = 0;

	if (!want || pp->comps[2].arg ||
	    (!wild && !find_name(names, want))) {
		list_names(list, sizeof(list), names);
		diag_error(env->diag, want ? pp->comps[2].loc : pp->loc,
			   "unknown perf.%s event%s%s: one of %s", sw ? "sw" : "hw",
			   want ? " " : "", want ? want : "", list);
		return -1;
	}
	for (ev = names; ev->name; ev++) {
		if (wild ? fnmatch(want, ev->name, 0) : strcmp(want, ev->name))
			continue;
		pr = xcalloc(1, sizeof(*pr));
		pr->spec.type = sw ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;
		pr->spec.config = ev->config;
		snprintf(text, sizeof(text), "perf.%s.%s", sw ? "sw" : "hw", ev->name);
		pr->event = xasprintf("%s %s", sw ? "software" : "hardware", ev->name);
		if (parse_suffixes(env, pp, 3, pr, text, sizeof(text)) < 0) {
			pprobe_free(pr);
			return -1;
		}
		if (check_event(env, pp, pr, wild) < 0) {
			pprobe_free(pr);
			if (wild)
				continue;
			return -1;
		}
		p = prov_probe_new(&prov_perf, text, PROV_RUNNING);
		p->data = pr;
		prov_list_push(out, p);
		n++;
	}
	if (!n && !env->listing && !pp->optional) {
		diag_error(env->diag, pp->comps[2].loc, "no perf.%s event of this "
			   "machine matches '%s'", sw ? "sw" : "hw", want);
		return -1;
	}
	return n;
}

/* Does component @i of @pp name one of @v (or match, a wildcard)? */
static bool comp_names(const struct ast_pp *pp, size_t i, const struct evname *v)
{
	const char *want = pp->comps[i].name;

	for (; v->name; v++)
		if (strpbrk(want, "*?[") ? !fnmatch(want, v->name, 0) :
		    !strcmp(want, v->name))
			return true;
	return false;
}

/*
 * perf.hw_cache.CACHE.OP.RESULT (stap's names, each a wildcard too): one
 * probe per event; a wildcard leaves out the events this machine lacks.
 */
static int expand_cache(const struct prov_env *env, const struct ast_pp *pp,
			struct prov_list *out)
{
	static const struct evname *const parts[] = { cache_ids, cache_ops,
						      cache_results };
	static const char *const what[] = { "cache", "operation", "result" };
	const struct evname *id, *op, *res;
	char text[PATH_MAX + 128], list[256];
	bool wild = false;
	size_t i;
	int n = 0;

	for (i = 0; i < 3; i++) {
		const struct ast_ppcomp *c = i + 2 < pp->ncomps ? &pp->comps[i + 2] : NULL;

		if (!c || c->arg || !comp_names(pp, i + 2, parts[i])) {
			list_names(list, sizeof(list), parts[i]);
			diag_error(env->diag, c ? c->loc : pp->loc, "%s perf.hw_cache "
				   "%s%s%s: perf.hw_cache.CACHE.OP.RESULT, the %s one "
				   "of %s", c ? "unknown" : "incomplete", what[i],
				   c ? " " : "", c ? c->name : "", what[i], list);
			return -1;
		}
		wild |= strpbrk(c->name, "*?[") != NULL;
	}
	for (id = cache_ids; id->name; id++)
	for (op = cache_ops; op->name; op++)
	for (res = cache_results; res->name; res++) {
		const struct evname one[3][2] = { { *id }, { *op }, { *res } };
		struct prov_probe *p;
		struct pprobe *pr;

		if (!comp_names(pp, 2, one[0]) || !comp_names(pp, 3, one[1]) ||
		    !comp_names(pp, 4, one[2]))
			continue;
		pr = xcalloc(1, sizeof(*pr));
		pr->spec.type = PERF_TYPE_HW_CACHE;
		pr->spec.config = id->config | op->config << 8 | res->config << 16;
		snprintf(text, sizeof(text), "perf.hw_cache.%s.%s.%s", id->name,
			 op->name, res->name);
		pr->event = xasprintf("hardware cache %s.%s.%s", id->name,
				      op->name, res->name);
		if (parse_suffixes(env, pp, 5, pr, text, sizeof(text)) < 0) {
			pprobe_free(pr);
			return -1;
		}
		if (check_event(env, pp, pr, wild) < 0) {
			pprobe_free(pr);
			if (wild)
				continue;
			return -1;
		}
		p = prov_probe_new(&prov_perf, text, PROV_RUNNING);
		p->data = pr;
		prov_list_push(out, p);
		n++;
	}
	if (!n && !env->listing && !pp->optional) {
		diag_error(env->diag, pp->loc, "no perf.hw_cache event of this "
			   "machine matches (it has no hardware performance "
			   "counters, or none of these): requires: perf hardware "
			   "events");
		return -1;
	}
	return n;
}

static int perf_expand(const struct prov_env *env, const struct ast_pp *pp,
		       struct prov_list *out)
{
	struct pprobe *pr;
	struct prov_probe *p;
	char text[PATH_MAX + 128];
	size_t i;
	int64_t t, c;

	if (pp->ncomps >= 2 && prov_comp_is(pp, 0, "timer") &&
	    !pp->comps[0].arg && prov_comp_is(pp, 1, "profile"))
		return expand_profile(env, pp, out);
	if (!prov_comp_is(pp, 0, "perf") || pp->comps[0].arg)
		return 0;
	if (pp->ncomps < 2) {
		diag_error(env->diag, pp->loc, "incomplete perf probe point: "
			   "perf.sw.NAME, perf.hw.NAME or perf.type(T).config(C)");
		return -1;
	}
	if (prov_comp_is(pp, 1, "sw") || prov_comp_is(pp, 1, "hw"))
		return expand_named(env, pp, out);
	if (prov_comp_is(pp, 1, "hw_cache") && !pp->comps[1].arg)
		return expand_cache(env, pp, out);
	pr = xcalloc(1, sizeof(*pr));
	if (prov_comp_is(pp, 1, "type")) {
		if (!prov_comp_num(pp, 1, &t) || t < 0 || t > UINT32_MAX) {
			diag_error(env->diag, pp->comps[1].loc, "perf.type needs "
				   "a perf_event type number: perf.type(1)");
			goto fail;
		}
		if (pp->ncomps < 3 || !prov_comp_is(pp, 2, "config") ||
		    !prov_comp_num(pp, 2, &c) || c < 0) {
			diag_error(env->diag, pp->ncomps < 3 ? pp->comps[1].loc :
				   pp->comps[2].loc, "perf.type(%lld) needs "
				   ".config(C), a number", (long long)t);
			goto fail;
		}
		pr->spec.type = (uint32_t)t;
		pr->spec.config = (uint64_t)c;
		snprintf(text, sizeof(text), "perf.type(%lld).config(%lld)",
			 (long long)t, (long long)c);
		pr->event = xasprintf("type %lld config %lld", (long long)t,
				      (long long)c);
		i = 3;
	} else {
		diag_error(env->diag, pp->comps[1].loc, "unknown perf probe "
			   "point 'perf.%s': perf.sw.NAME, perf.hw.NAME or "
			   "perf.hw_cache.CACHE.OP.RESULT or "
			   "perf.type(T).config(C)", pp->comps[1].name);
		goto fail;
	}
	if (parse_suffixes(env, pp, i, pr, text, sizeof(text)) < 0 ||
	    check_event(env, pp, pr, false) < 0)
		goto fail;
	p = prov_probe_new(&prov_perf, text, PROV_RUNNING);
	p->data = pr;
	prov_list_push(out, p);
	return 1;

fail:
	pprobe_free(pr);
	return -1;
}

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
				  pr->event, strerror(-err));
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
