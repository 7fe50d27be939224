// SPDX-License-Identifier: GPL-2.0
/*
 * The perf provider's probe points (prov/perf.h): timer.profile,
 * perf.sw.NAME, perf.hw.NAME, perf.hw_cache.CACHE.OP.RESULT and
 * perf.type(T).config(C), with .sample(N)/.hz(N) and .process[("path")];
 * each event is tried on this machine when the script is compiled.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/diag.h"
#include "prov/perf.h"
#include "prov/prov.h"

#define PROFILE_NS	4000000ULL	/* timer.profile: CONFIG_HZ=250's tick */
#define DEFAULT_PERIOD	1000000ULL	/* stap's default .sample() */

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

/*
 * @pr, named @text, with the suffixes from component @first on: pushed on
 * @out (1), left out as a wildcard's event this machine lacks (0), or -1
 * after a located error.  @pr is @out's or freed.
 */
static int push_point(const struct prov_env *env, const struct ast_pp *pp,
		      size_t first, struct pprobe *pr, char *text, size_t len,
		      bool wild, struct prov_list *out)
{
	struct prov_probe *p;

	if (parse_suffixes(env, pp, first, pr, text, len) < 0) {
		pprobe_free(pr);
		return -1;
	}
	if (check_event(env, pp, pr, wild) < 0) {
		pprobe_free(pr);
		return wild ? 0 : -1;
	}
	p = prov_probe_new(&prov_perf, text, PROV_RUNNING);
	p->data = pr;
	prov_list_push(out, p);
	return 1;
}

void pprobe_free(struct pprobe *pr)
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
	struct pprobe *pr;
	int n = 0, ret;

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
		ret = push_point(env, pp, 3, pr, text, sizeof(text), wild, out);
		if (ret < 0)
			return -1;
		n += ret;
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
		struct pprobe *pr;
		int ret;

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
		ret = push_point(env, pp, 5, pr, text, sizeof(text), wild, out);
		if (ret < 0)
			return -1;
		n += ret;
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

int perf_expand(const struct prov_env *env, const struct ast_pp *pp,
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
