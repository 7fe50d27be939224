// SPDX-License-Identifier: GPL-2.0
/*
 * bcc's probe patterns (funccount, funclatency) into the events of a
 * session.  The pattern is split at ':' as bcc splits it:
 *
 *	FUNC | p:FUNC | p::FUNC		kernel functions
 *	LIB:FUNC | p:LIB:FUNC		functions of LIB (a path, a program,
 *					a library name: `c`, `libc`)
 *	t:SYS:EVENT			tracepoints
 *	u:LIB:PROBE | u:LIB:PROV:PROBE	USDT probes (LIB may be empty with
 *					a pid: every object it maps)
 *
 * with globs in every name part.  Every match is resolved first (nothing
 * touched), counted against the limit, then all definitions go into the
 * session's group with one write (session_add_probes()).
 *
 * Sites: a user function can have several (same-named file-local
 * functions), a USDT probe one per call site; each site is one event,
 * and they share the name the tool sums by.  Aliases (two symbols at one
 * address, `malloc` and `__libc_malloc`) are one site, named by the
 * plainest name, as bcc keeps one uprobe per address.
 */
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracefs.h>

#include "common/hmap.h"
#include "common/kfunc.h"
#include "common/log.h"
#include "common/usite.h"
#include "tool/probeset.h"
#include "tracefs/perf_event.h"
#include "tracefs/tpoints.h"

#define DEFAULT_MAX 1000

struct pattern {
	enum probeset_kind kind;
	char *lib, *provider, *name;	/* pointers into buf */
	char buf[];
};

/* One probe site before it is defined. */
struct site {
	char *name;			/* shared by the sites of one function */
	const char *path;		/* uprobes: owned by the usite list */
	uint64_t offset, ref_ctr;
	const char *sys;		/* tracepoints */
};

struct sites {
	struct site *v;
	size_t n, cap;
	struct usite_list ul;
	struct kfunc_list kl;
	char **tps;			/* "sys\0event" strings */
};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/*
 * pattern := [('p'|'t'|'u') ':'] parts, split at ':' into 1 to 4 parts
 * as bcc's funccount does (see the top of the file).
 */
static int parse(const char *text, struct pattern **out, char *err, size_t errlen)
{
	struct pattern *p = xcalloc(1, sizeof(*p) + strlen(text) + 1);
	char *part[5], *c;
	int n = 0;

	strcpy(p->buf, text);
	for (c = p->buf, part[n++] = c; (c = strchr(c, ':')) && n < 5; part[n++] = c)
		*c++ = '\0';
	*out = p;
	if (n > 4 || (n == 4 && strcmp(part[0], "u")))
		return errmsg(err, errlen, -EINVAL,
			      "malformed pattern '%s': too many ':'-separated parts", text);
	if (n == 1 || (n == 2 && !strcmp(part[0], "p"))) {
		p->kind = PROBESET_KFUNC;
		p->name = part[n - 1];
	} else if (n == 2 && (!strcmp(part[0], "t") || !strcmp(part[0], "u"))) {
		return errmsg(err, errlen, -EINVAL,
			      "malformed pattern '%s': %s", text, part[0][0] == 't' ?
			      "a tracepoint is t:SYSTEM:EVENT" :
			      "a USDT probe is u:LIB:[PROVIDER:]PROBE");
	} else if (n == 2) {
		p->kind = PROBESET_UFUNC;
		p->lib = part[0];
		p->name = part[1];
	} else if (!strcmp(part[0], "p")) {
		p->kind = part[1][0] ? PROBESET_UFUNC : PROBESET_KFUNC;
		p->lib = part[1];
		p->name = part[2];
	} else if (!strcmp(part[0], "t")) {
		p->kind = PROBESET_TRACEPOINT;
		p->lib = part[1];
		p->name = part[2];
	} else if (!strcmp(part[0], "u")) {
		p->kind = PROBESET_USDT;
		p->lib = part[1];
		p->provider = n == 4 ? part[2] : NULL;
		p->name = part[n - 1];
	} else {
		return errmsg(err, errlen, -EINVAL,
			      "malformed pattern '%s': the type must be p, t or u, not '%s'",
			      text, part[0]);
	}
	if (!p->name[0] || (p->kind == PROBESET_TRACEPOINT && !p->lib[0]) ||
	    (p->provider && !p->provider[0]))
		return errmsg(err, errlen, -EINVAL, "malformed pattern '%s': an empty name",
			      text);
	return 0;
}

static struct site *add(struct sites *ss, char *name)
{
	struct site *s;

	if (ss->n == ss->cap) {
		ss->cap = ss->cap ? ss->cap * 2 : 64;
		ss->v = xrealloc(ss->v, ss->cap * sizeof(*ss->v));
	}
	s = &ss->v[ss->n++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	return s;
}

/* -r: @re compiled from @name, anchored at the name's start; 0 or -EINVAL. */
static int compile_name(regex_t *re, const char *name, char *err, size_t errlen)
{
	char *anchored = xasprintf("^(%s)", name), msg[128];
	int rc = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);

	free(anchored);
	if (!rc)
		return 0;
	regerror(rc, re, msg, sizeof(msg));
	return errmsg(err, errlen, -EINVAL, "invalid regular expression '%s': %s",
		      name, msg);
}

static int check_flags(const struct pattern *p, const char *pattern,
		       unsigned int flags, char *err, size_t errlen)
{
	regex_t re;
	int ret;

	if ((flags & PROBESET_REGEX) &&
	    (p->kind == PROBESET_TRACEPOINT || p->kind == PROBESET_USDT))
		return errmsg(err, errlen, -EINVAL,
			      "'%s': regular expressions are for functions, not %s",
			      pattern, p->kind == PROBESET_USDT ? "USDT probes" : "tracepoints");
	if (flags & PROBESET_REGEX) {
		ret = compile_name(&re, p->name, err, errlen);
		if (ret)
			return ret;
		regfree(&re);
	}
	if ((flags & PROBESET_RET) &&
	    (p->kind == PROBESET_TRACEPOINT || p->kind == PROBESET_USDT))
		return errmsg(err, errlen, -EINVAL,
			      "'%s': return probes are for functions, not %s", pattern,
			      p->kind == PROBESET_USDT ? "USDT probes" : "tracepoints");
	return 0;
}

int probeset_check(const char *pattern, unsigned int flags, char *err,
		   size_t errlen)
{
	struct pattern *p;
	int ret = parse(pattern, &p, err, errlen);

	if (!ret)
		ret = check_flags(p, pattern, flags, err, errlen);
	free(p);
	return ret;
}

static int user_functions(const struct pattern *p, const struct probeset_opts *o,
			  struct sites *ss, char *err, size_t errlen)
{
	struct usite_opts uo = { .pid = o->pid };
	size_t i;
	int ret;

	ret = usite_functions(p->lib, p->name, &uo, &ss->ul, err, errlen);
	if (ret)
		return ret;
	usite_dedupe(&ss->ul, NULL);
	for (i = 0; i < ss->ul.n; i++) {
		struct usite *u = &ss->ul.v[i];

		add(ss, u->name)->path = u->path;
		ss->v[ss->n - 1].offset = u->offset;
	}
	return 0;
}

static int usdt_probes(const struct pattern *p, const struct probeset_opts *o,
		       struct sites *ss, char *err, size_t errlen)
{
	struct usite_opts uo = { .pid = o->pid };
	struct site *s;
	size_t i;
	int ret;

	if (!p->lib[0] && !o->pid)
		return errmsg(err, errlen, -EINVAL,
			      "no library or program in 'u::%s' (and no process to look in)",
			      p->name);
	ret = usite_marks(p->lib, p->provider, p->name, &uo, &ss->ul, err, errlen);
	for (i = 0; !ret && i < ss->ul.n; i++) {
		s = add(ss, ss->ul.v[i].name);
		s->path = ss->ul.v[i].path;
		s->offset = ss->ul.v[i].offset;
		s->ref_ctr = ss->ul.v[i].ref_ctr_offset;
	}
	return ret;
}

static int kernel_functions(const struct pattern *p, struct sites *ss,
			    char *err, size_t errlen)
{
	size_t i;
	int ret;

	if (!session_has_kprobes())
		return errmsg(err, errlen, -ENOTSUP,
			      "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)");
	ret = kfunc_match(p->name, &ss->kl, err, errlen);
	for (i = 0; !ret && i < ss->kl.n; i++)
		add(ss, ss->kl.v[i]);
	return ret;
}

static int tracepoints(const struct pattern *p, struct sites *ss)
{
	/* dynamic event groups of tapkit sessions are not tracepoints */
	struct tpoint_query q = { .sys = p->lib, .name = p->name, .no_sessions = true };
	struct tpoint_list l = { 0 };
	size_t i;

	tpoints_find(&q, &l);
	for (i = 0; i < l.n; i++) {
		char name[512];

		snprintf(name, sizeof(name), "%s:%s", l.v[i].sys, l.v[i].name);
		ss->tps = tracefs_list_add(ss->tps, name);
	}
	tpoints_release(&l);
	for (i = 0; ss->tps && ss->tps[i]; i++)
		add(ss, ss->tps[i])->sys = ss->tps[i];
	return 0;
}

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/*
 * An event name for @name (+ @suffix) the kernel takes ([A-Za-z_][A-Za-z0-9_]*,
 * under 64 bytes) and no other event of the set has: `tk:compiled` gives
 * tk_compiled, a second site of `f` f_2.
 */
static char *event_name(struct hmap *used, const char *name, const char *suffix)
{
	char base[48], *ev;
	int i, k;

	for (i = 0; name[i] && i < (int)sizeof(base) - 1; i++)
		base[i] = (name[i] >= 'a' && name[i] <= 'z') ||
			  (name[i] >= 'A' && name[i] <= 'Z') ||
			  (name[i] >= '0' && name[i] <= '9') ? name[i] : '_';
	base[i] = '\0';
	for (k = 1;; k++) {
		ev = k == 1 ? xasprintf("%s%s%s", base[0] >= '0' && base[0] <= '9' ?
					"_" : "", base, suffix)
			    : xasprintf("%s%s_%d", base, suffix, k);
		if (!hmap_get(used, hash(ev), false)) {
			hmap_get(used, hash(ev), true);
			return ev;
		}
		free(ev);
	}
}

/* Distinct names among the sites (sites of one name are not always adjacent). */
static size_t count_names(const struct sites *ss)
{
	struct hmap *names = hmap_new(1);
	size_t i, n;

	for (i = 0; i < ss->n; i++)
		hmap_get(names, hash(ss->v[i].name), true);
	n = hmap_count(names);
	hmap_free(names);
	return n;
}

static void add_sema(struct probeset *ps, const struct site *st)
{
	size_t i;

	for (i = 0; i < ps->nsemas; i++)
		if (ps->semas[i].offset == st->ref_ctr &&
		    !strcmp(ps->semas[i].path, st->path))
			return;
	ps->semas = xrealloc(ps->semas, (ps->nsemas + 1) * sizeof(*ps->semas));
	ps->semas[ps->nsemas].path = xstrdup(st->path);
	ps->semas[ps->nsemas++].offset = st->ref_ctr;
}

/* Kernel and user functions, USDT probes: one write for every definition. */
static int define_probes(struct session *s, const struct sites *ss,
			 const struct probeset_opts *o, struct probeset *ps)
{
	bool ret = o->flags & PROBESET_RET;
	bool refs = session_has_ref_ctr();
	size_t per = ret ? 2 : 1, n = ss->n * per, i, k;
	struct session_probe *v = xcalloc(n, sizeof(*v));
	struct tp **tps = xcalloc(n, sizeof(*tps));
	struct hmap *used = hmap_new(1);
	int err;

	for (i = 0; i < ss->n; i++) {
		for (k = 0; k < per; k++) {
			struct session_probe *p = &v[i * per + k];

			p->event = event_name(used, ss->v[i].name, k ? "_ret" : "");
			p->path = ss->v[i].path;
			p->offset = ss->v[i].offset;
			p->ref_ctr = refs ? ss->v[i].ref_ctr : 0;
			p->addr = ss->v[i].path ? NULL : ss->v[i].name;
			p->ret = k;
		}
		if (ss->v[i].ref_ctr && !refs)
			add_sema(ps, &ss->v[i]);
	}
	err = session_add_probes(s, v, n, o->mode, tps);
	ps->defs = xcalloc(n, sizeof(*ps->defs));
	for (i = 0; i < n; i++) {
		ps->defs[i] = session_probe_definition(s, &v[i]);
		free((char *)v[i].event);
	}
	ps->ndefs = n;
	for (i = 0; !err && i < ss->n; i++) {
		ps->v[i].entry = tps[i * per];
		ps->v[i].ret = ret ? tps[i * per + 1] : NULL;
	}
	hmap_free(used);
	free(tps);
	free(v);
	return err;
}

static int define_tracepoints(struct session *s, const struct sites *ss,
			      const struct probeset_opts *o, struct probeset *ps)
{
	size_t i;

	for (i = 0; i < ss->n; i++) {
		char *sys = xstrdup(ss->v[i].sys), *name = strchr(sys, ':');

		*name++ = '\0';
		ps->v[i].entry = session_add(s, sys, name, o->mode, NULL);
		free(sys);
		if (!ps->v[i].entry)
			return errno ? -errno : -EIO;
	}
	return 0;
}

static const char *what(enum probeset_kind k)
{
	return k == PROBESET_TRACEPOINT ? "tracepoints" :
	       k == PROBESET_USDT ? "USDT probes" : "functions";
}

int probeset_add(struct session *s, const char *pattern,
		 const struct probeset_opts *o, struct probeset *ps,
		 char *err, size_t errlen)
{
	size_t max = o->max ? o->max : DEFAULT_MAX, i, k;
	static char every[] = "*";
	struct sites ss = { 0 };
	struct pattern *p;
	bool regex = false;
	regex_t re;
	double t0;
	int ret;

	memset(ps, 0, sizeof(*ps));
	ret = parse(pattern, &p, err, errlen);
	if (ret)
		goto out;
	ps->kind = p->kind;
	ret = check_flags(p, pattern, o->flags, err, errlen);
	if (ret)
		goto out;
	if (o->flags & PROBESET_REGEX) {
		ret = compile_name(&re, p->name, err, errlen);
		if (ret)
			goto out;
		regex = true;
		p->name = every;	/* every function, then the expression */
	}
	ret = p->kind == PROBESET_KFUNC ? kernel_functions(p, &ss, err, errlen) :
	      p->kind == PROBESET_UFUNC ? user_functions(p, o, &ss, err, errlen) :
	      p->kind == PROBESET_USDT ? usdt_probes(p, o, &ss, err, errlen) :
	      tracepoints(p, &ss);
	if (ret)
		goto out;
	for (i = 0, k = 0; regex && i < ss.n; i++)
		if (!regexec(&re, ss.v[i].name, 0, NULL, 0))
			ss.v[k++] = ss.v[i];
	if (regex)
		ss.n = k;
	ps->nnames = count_names(&ss);
	if (!ss.n) {
		ret = errmsg(err, errlen, -ENOENT, "no %s match '%s'", what(p->kind), pattern);
		goto out;
	}
	if (ps->nnames > max) {
		ret = errmsg(err, errlen, -E2BIG, "'%s' matches %zu %s, more than %zu",
			     pattern, ps->nnames, what(p->kind), max);
		goto out;
	}
	ps->n = ss.n;
	ps->v = xcalloc(ss.n, sizeof(*ps->v));
	for (i = 0; i < ss.n; i++)
		ps->v[i].name = xstrdup(ss.v[i].name);
	t0 = now_ms();
	ret = p->kind == PROBESET_TRACEPOINT ? define_tracepoints(s, &ss, o, ps)
					     : define_probes(s, &ss, o, ps);
	ps->attach_ms = now_ms() - t0;
	if (ret)
		errmsg(err, errlen, ret, "%s", session_error(s));
out:
	if (regex)
		regfree(&re);
	free(ss.v);
	usite_list_release(&ss.ul);
	kfunc_list_release(&ss.kl);
	tracefs_list_free(ss.tps);
	free(p);
	return ret;
}

void probeset_release(struct probeset *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		free(ps->v[i].name);
	for (i = 0; i < ps->ndefs; i++)
		free(ps->defs[i]);
	for (i = 0; i < ps->nsemas; i++)
		free(ps->semas[i].path);
	free(ps->v);
	free(ps->defs);
	free(ps->semas);
	memset(ps, 0, sizeof(*ps));
}

int probeset_session(const struct session_opts *so, const char *pattern,
		     const struct probeset_opts *o, struct session **s,
		     struct probeset *ps)
{
	char err[512];

	*s = session_new(so);
	if (session_open(*s) < 0) {
		pr_err("%s", session_error(*s));
		return -1;
	}
	perf_raise_fd_limit();
	if (probeset_add(*s, pattern, o, ps, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	return 0;
}
