// SPDX-License-Identifier: GPL-2.0
/*
 * Threads off-CPU (offcpu.h): one entry per thread, kept and reused (its
 * stack buffer grows to the deepest stack the thread blocked in), so a
 * busy system's switches allocate nothing once warm.
 */
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/offcpu.h"

/* A stack sampled this long before the switch is the switch's.  The two
 * are stamped microseconds apart in the same switch, but a vCPU the host
 * preempts between them (an emulated guest on a loaded host) stretches
 * that to milliseconds; a stack is used once, so a wide window never
 * gives a switch an older switch's stack. */
#define STACK_NS 20000000ULL

struct blocked {
	uint64_t stack_ts;		/* when the stack was sampled */
	uint64_t out;			/* off-CPU since (ns); 0: running */
	uint64_t last_in;		/* the latest switch-in seen */
	pid_t pid;
	char comm[16];
	bool kmissed, umissed;
	size_t nk, nu, cap;
	uint64_t *pcs;			/* kernel frames, then user */
};

struct offcpu_table {
	struct hmap *threads;		/* tid -> struct blocked */
	struct hmap *tree;		/* pid -> 1 descends, 2 does not */
	uint64_t unpaired;
};

struct offcpu_table *offcpu_new(void)
{
	struct offcpu_table *t = xcalloc(1, sizeof(*t));

	t->threads = hmap_new(sizeof(struct blocked));
	t->tree = hmap_new(sizeof(char));
	return t;
}

void offcpu_free(struct offcpu_table *t)
{
	struct blocked *b;
	size_t pos = 0;

	if (!t)
		return;
	while ((b = hmap_next(t->threads, &pos, NULL)))
		free(b->pcs);
	hmap_free(t->threads);
	hmap_free(t->tree);
	free(t);
}

void offcpu_stack(struct offcpu_table *t, pid_t tid, uint64_t ts,
		  const struct stackagg_sample *s)
{
	struct blocked *b = hmap_get(t->threads, (uint64_t)tid, true);
	size_t n = s->nk + s->nu;

	if (n > b->cap) {
		b->cap = n;
		b->pcs = xrealloc(b->pcs, n * sizeof(*b->pcs));
	}
	if (s->nk)
		memcpy(b->pcs, s->kpcs, s->nk * sizeof(*b->pcs));
	if (s->nu)
		memcpy(b->pcs + s->nk, s->upcs, s->nu * sizeof(*b->pcs));
	b->nk = s->nk;
	b->nu = s->nu;
	b->kmissed = s->kmissed;
	b->umissed = s->umissed;
	b->stack_ts = ts ? ts : 1;
}

void offcpu_out(struct offcpu_table *t, pid_t tid, pid_t pid, const char *comm,
		uint64_t ts)
{
	struct blocked *b = hmap_get(t->threads, (uint64_t)tid, true);

	if (ts < b->last_in) {		/* read after its own switch-in */
		t->unpaired++;
		return;
	}
	if (!b->stack_ts || b->stack_ts > ts || ts - b->stack_ts > STACK_NS) {
		b->nk = b->nu = 0;	/* no stack sampled for this switch */
		b->kmissed = true;
		b->umissed = false;
	}
	b->stack_ts = 0;
	b->pid = pid;
	snprintf(b->comm, sizeof(b->comm), "%s", comm ? comm : "");
	b->out = ts ? ts : 1;
}

bool offcpu_in(struct offcpu_table *t, pid_t tid, uint64_t ts,
	       struct stackagg_sample *s, uint64_t *us)
{
	struct blocked *b = hmap_get(t->threads, (uint64_t)tid, true);
	uint64_t out;

	if (ts > b->last_in)
		b->last_in = ts;
	out = b->out;
	if (!out)
		return false;
	b->out = 0;
	if (ts < out) {
		t->unpaired++;
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->pid = b->pid;
	s->comm = b->comm;
	s->kpcs = b->pcs;
	s->nk = b->nk;
	s->upcs = b->pcs ? b->pcs + b->nk : NULL;
	s->nu = b->nu;
	s->kmissed = b->kmissed;
	s->umissed = b->umissed;
	*us = (ts - out) / 1000;
	return true;
}

bool offcpu_descends(struct offcpu_table *t, pid_t pid, pid_t root)
{
	char *v = hmap_get(t->tree, (uint64_t)pid, true);
	pid_t p = pid;
	int i;

	if (*v)
		return *v == 1;
	*v = 2;
	for (i = 0; i < 64 && p > 1; i++) {
		if (p == root) {
			*v = 1;
			break;
		}
		p = task_ppid(p);
	}
	return *v == 1;
}

uint64_t offcpu_unpaired(const struct offcpu_table *t)
{
	return t->unpaired;
}
