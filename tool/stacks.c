// SPDX-License-Identifier: GPL-2.0
/*
 * The stack tools' sampler, callchain split and loss report (stacks.h).
 *
 * The sampler is prov/perf.c's arrangement for timer.profile with stacks,
 * for a command: one perf sampler with callchains, one sideband, drained
 * every STACK_DRAIN_MS so that a process is noted in the symbol cache
 * while it still runs, the sideband told up to each sample first so that
 * a process that came and went between two drains is still named.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/flamegraph.h"
#include "common/log.h"
#include "common/outfile.h"
#include "common/loop.h"
#include "common/symcache.h"
#include "common/task.h"
#include "tool/stacks.h"
#include "tracefs/format.h"
#include "tracefs/perf_event.h"
#include "tracefs/perf_sideband.h"

#define STACK_DRAIN_MS	10
#define RING_PAGES	64
/* A sample per context switch of the machine, with callchains: tens of
 * thousands a second on a busy one, 1 MiB per CPU between two reads. */
#define SWITCH_RING_PAGES 256
#define SIDEBAND_PAGES	16

struct stacks_sampler {
	struct perf_sampler *smp;
	struct perf_sideband *sb;
	struct symcache *syms;
	tk_event_fn fn;
	void *arg;
	bool heads;			/* samples are struct perf_sample_head */
};

static void on_sample(const struct tk_event *ev, void *arg)
{
	struct stacks_sampler *s = arg;
	const struct perf_sample_head *h = ev->data;

	if (s->sb)
		perf_sideband_tell(s->sb, ev->ts, s->syms);
	if (s->heads && ev->size >= sizeof(*h) && h->pid)
		symcache_note(s->syms, (pid_t)h->pid);
	s->fn(ev, s->arg);
}

static void drain(struct stacks_sampler *s)
{
	perf_sampler_drain(s->smp, on_sample, s);
	if (s->sb) {
		perf_sideband_tell(s->sb, UINT64_MAX, s->syms);
		symcache_sweep(s->syms);
	}
}

static int on_ready(struct loop *l, int fd, void *arg)
{
	(void)l;
	(void)fd;
	drain(arg);
	return 0;
}

/*
 * The names of the tasks running now, as perf record takes them from
 * /proc at its start: a task that existed before the sampler and exits
 * before its samples are read is named all the same.
 */
void stacks_note_tasks(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		pid_t *tids = NULL, pid = (pid_t)atoi(de->d_name);
		int i, n;

		if (pid <= 0)
			continue;
		n = task_threads(pid, &tids);
		for (i = 0; i < n; i++)
			task_cache_comm(tids[i]);
		free(tids);
	}
	closedir(d);
}

/* The sideband, the loop's fds and the drain timer of sampler @s. */
static int attach(struct stacks_sampler *s, const struct perf_scope *scope,
		  struct loop *l, char *err, size_t errlen)
{
	const int *fds;
	int i, n, e;

	s->sb = perf_sideband_open(scope, SIDEBAND_PAGES);	/* else /proc */
	fds = perf_sampler_fds(s->smp, &n);
	for (i = 0; i < n; i++)
		if ((e = loop_add(l, fds[i], on_ready, s)) < 0)
			return errmsg(err, errlen, e, "cannot poll the perf rings: %s",
				      strerror(-e));
	if ((e = loop_timer(l, STACK_DRAIN_MS, STACK_DRAIN_MS, on_ready, s)) < 0)
		return errmsg(err, errlen, e, "cannot create the drain timer: %s",
			      strerror(-e));
	return 0;
}

struct stacks_sampler *stacks_sampler_open(const struct perf_sample_spec *spec,
					   const struct perf_scope *scope,
					   struct loop *l, tk_event_fn fn,
					   void *arg, char *err, size_t errlen)
{
	struct stacks_sampler *s = xcalloc(1, sizeof(*s));
	int e;

	s->fn = fn;
	s->arg = arg;
	s->heads = true;
	s->syms = symcache_shared();
	if (!scope)
		stacks_note_tasks();
	s->smp = perf_sampler_open_spec(spec, scope, true, RING_PAGES);
	if (!s->smp) {
		e = errno;
		if (e == ENOENT || e == ENODEV || e == EOPNOTSUPP)
			errmsg(err, errlen, -e, "cannot sample the cpu-clock event: "
			       "the kernel has no perf software events: %s", strerror(e));
		else
			errmsg(err, errlen, -e, "cannot sample the cpu-clock event "
			       "with perf_event: %s", perf_strerror(e));
		goto fail;
	}
	if (attach(s, scope, l, err, errlen) < 0)
		goto fail;
	return s;
fail:
	stacks_sampler_free(s);
	return NULL;
}

struct stacks_sampler *stacks_switch_sampler_open(const char *sys, const char *name,
						  struct loop *l, tk_event_fn fn,
						  void *arg, char *err, size_t errlen)
{
	struct stacks_sampler *s = xcalloc(1, sizeof(*s));
	int id, e;

	s->fn = fn;
	s->arg = arg;
	s->syms = symcache_shared();
	id = format_event_id(sys, name);
	if (id < 0) {
		errmsg(err, errlen, id, "cannot use tracepoint %s:%s: %s", sys, name,
		       id == -ENOENT ? "no such event in tracefs" : strerror(-id));
		goto fail;
	}
	stacks_note_tasks();
	s->smp = perf_sampler_open_switches(id, SWITCH_RING_PAGES);
	if (!s->smp) {
		e = errno;
		errmsg(err, errlen, -e, "cannot sample %s:%s with perf_event: %s",
		       sys, name, perf_strerror(e));
		goto fail;
	}
	if (attach(s, NULL, l, err, errlen) < 0)
		goto fail;
	return s;
fail:
	stacks_sampler_free(s);
	return NULL;
}

int stacks_sampler_enable(struct stacks_sampler *s, char *err, size_t errlen)
{
	int e;

	if (s->sb && perf_sideband_enable(s->sb) < 0) {
		perf_sideband_free(s->sb);	/* processes named from /proc */
		s->sb = NULL;
	}
	e = perf_sampler_enable(s->smp);
	if (e < 0)
		return errmsg(err, errlen, e, "cannot start sampling: %s", strerror(-e));
	return 0;
}

void stacks_sampler_finish(struct stacks_sampler *s)
{
	if (!s || !s->smp)
		return;
	perf_sampler_disable(s->smp);
	if (s->sb)
		perf_sideband_disable(s->sb);
	drain(s);
}

uint64_t stacks_sampler_lost(struct stacks_sampler *s)
{
	return s && s->smp ? perf_sampler_lost(s->smp) : 0;
}

uint64_t stacks_sampler_sideband_lost(struct stacks_sampler *s)
{
	return s && s->sb ? perf_sideband_lost(s->sb) : 0;
}

void stacks_sampler_free(struct stacks_sampler *s)
{
	if (!s)
		return;
	perf_sampler_free(s->smp);
	perf_sideband_free(s->sb);
	symcache_free(s->syms);
	free(s);
}

void stacks_split(const struct tk_event *ev, pid_t pid, const char *comm,
		  bool user_mode, const struct stacks_keep *keep,
		  struct stackagg_sample *out)
{
	size_t nk = ev->stack ? ev->nkstack : 0;
	size_t nu = ev->stack ? ev->nstack - ev->nkstack : 0;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->comm = comm && *comm ? comm : SYMCACHE_UNKNOWN;
	if (keep->kernel) {
		out->kpcs = ev->stack;
		out->nk = nk;
		out->kmissed = !user_mode && !nk;
	}
	if (keep->user) {
		out->upcs = ev->stack ? ev->stack + nk : NULL;
		out->nu = nu;
		out->umissed = user_mode && !nu;
	}
}

const char *stacks_warnings(const struct stackagg *a, uint64_t lost,
			    uint64_t sideband_lost, char *buf, size_t len)
{
	const struct stackagg_stats *st = stackagg_stats(a);
	size_t at = 0;

	buf[0] = '\0';
#define ADD(...) do { if (at < len) at += snprintf(buf + at, len - at, __VA_ARGS__); } while (0)
	if (lost)
		ADD("%llu samples lost: the perf rings were full\n",
		    (unsigned long long)lost);
	if (sideband_lost)
		ADD("%llu mapping records lost: stacks of processes that "
		    "exited early may show [unknown] frames\n",
		    (unsigned long long)sideband_lost);
	if (st->missed)
		ADD("%llu of %llu stacks could not be walked (shown as [Missed ... Stack])\n",
		    (unsigned long long)st->missed, (unsigned long long)st->samples);
	if (st->unknown)
		ADD("%llu of %llu frames could not be named (shown as [unknown])\n",
		    (unsigned long long)st->unknown, (unsigned long long)st->frames);
#undef ADD
	if (at && buf[at < len ? at - 1 : len - 2] == '\n')
		buf[at < len ? at - 1 : len - 2] = '\0';
	return buf;
}

int stacks_write_file(const struct stackagg *a, const char *path,
		      const struct stackagg_print_opts *po,
		      const struct flamegraph_opts *svg, char *err, size_t errlen)
{
	FILE *f = outfile_open(path, err, errlen);
	int e = 0;

	if (!f)
		return -errno;
	if (svg)
		e = flamegraph_write(a, po, svg, f);
	else
		stackagg_print(a, f, po);
	if (ferror(f) && !e)
		e = -EIO;
	if (fclose(f) == EOF && !e)
		e = -errno;
	if (e)
		return errmsg(err, errlen, e, "cannot write '%s': %s", path,
			      strerror(-e));
	return 0;
}

int stacks_report(const struct stackagg *a, const struct stacks_report *r,
		  char *err, size_t errlen)
{
	struct stackagg_print_opts po = {
		.format = r->json ? STACKAGG_JSON :
			  r->folded ? STACKAGG_FOLDED :
			  r->counts_text ? STACKAGG_COUNTS : STACKAGG_TEXT,
		.kernel = r->keep.kernel, .user = r->keep.user,
		.delimit = r->delimit, .annotate = r->annotate,
		.value_name = r->value_name, .comm_line = r->comm_line,
	};
	struct flamegraph_opts fo = { .title = r->svg_title, .unit = r->svg_unit };
	int e;

	if (!r->files_only) {
		if (po.format == STACKAGG_TEXT || po.format == STACKAGG_COUNTS)
			printf("\n%s%s", r->heading ? r->heading : "",
			       r->heading ? "\n" : "");
		stackagg_print(a, stdout, &po);
		fflush(stdout);
	}
	po.format = STACKAGG_FOLDED;
	if (r->folded_file &&
	    (e = stacks_write_file(a, r->folded_file, &po, NULL, err, errlen)) < 0)
		return e;
	if (r->svg && (e = stacks_write_file(a, r->svg, &po, &fo, err, errlen)) < 0)
		return e;
	return 0;
}
