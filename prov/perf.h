/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROV_PERF_H
#define TAPKIT_PROV_PERF_H

/*
 * The internals of the perf provider shared by prov/perf_points.c (the
 * points: event names, suffixes, expansion) and prov/perf.c (variables,
 * context, run time).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lang/provider.h"
#include "tracefs/perf_sampler.h"

struct perf_sideband;
struct symcache;
struct pstate;

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

/* expand(): timer.profile, perf.sw/hw/hw_cache.NAME, perf.type().config() */
int perf_expand(const struct prov_env *env, const struct ast_pp *pp,
		struct prov_list *out);
/* Free a probe's data (NULL is a no-op). */
void pprobe_free(struct pprobe *pr);

#endif
