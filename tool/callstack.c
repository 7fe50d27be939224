// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread call stacks pairing function entries with their returns
 * (tool/callstack.h): a hash map from thread id to a growable array of the
 * open calls, innermost last.  Nothing is allocated per call once a
 * thread's array has grown to its depth.
 */
#include <stdlib.h>

#include "common/hmap.h"
#include "common/log.h"
#include "tool/callstack.h"

struct frame {
	uint64_t ts;
	unsigned int probe;
};

struct tstack {
	struct frame *v;
	unsigned int n, cap;
	unsigned int over;	/* entries past the depth kept */
};

struct callstacks {
	struct hmap *stacks;	/* tid -> struct tstack */
	unsigned int max_depth;
};

struct callstacks *callstacks_new(unsigned int max_depth)
{
	struct callstacks *cs = xcalloc(1, sizeof(*cs));

	cs->stacks = hmap_new(sizeof(struct tstack));
	cs->max_depth = max_depth ? max_depth : 1;
	return cs;
}

void callstacks_clear(struct callstacks *cs)
{
	struct tstack *st;
	uint64_t tid;
	size_t i;

	for (i = 0; (st = hmap_next(cs->stacks, &i, &tid));)
		free(st->v);
	hmap_clear(cs->stacks);
}

void callstacks_free(struct callstacks *cs)
{
	if (!cs)
		return;
	callstacks_clear(cs);
	hmap_free(cs->stacks);
	free(cs);
}

void callstacks_enter(struct callstacks *cs, pid_t tid, uint64_t ts,
		      unsigned int probe)
{
	struct tstack *st = hmap_get(cs->stacks, (uint64_t)tid, true);

	if (st->over || st->n == cs->max_depth) {
		st->over++;
		return;
	}
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 8;
		if (st->cap > cs->max_depth)
			st->cap = cs->max_depth;
		st->v = xrealloc(st->v, st->cap * sizeof(*st->v));
	}
	st->v[st->n].ts = ts;
	st->v[st->n++].probe = probe;
}

int64_t callstacks_return(struct callstacks *cs, pid_t tid, uint64_t ts,
			  unsigned int probe)
{
	struct tstack *st = hmap_get(cs->stacks, (uint64_t)tid, false);
	unsigned int i;

	if (!st)
		return -1;
	if (st->over) {
		st->over--;
		return -1;
	}
	for (i = st->n; i > 0 && st->v[i - 1].probe != probe; i--)
		;
	if (!i)
		return -1;
	st->n = i - 1;
	return ts >= st->v[i - 1].ts ? (int64_t)(ts - st->v[i - 1].ts) : -1;
}

void callstacks_forget(struct callstacks *cs, pid_t tid)
{
	struct tstack *st = hmap_get(cs->stacks, (uint64_t)tid, false);

	if (!st)
		return;
	free(st->v);
	hmap_del(cs->stacks, (uint64_t)tid);
}

size_t callstacks_busy(const struct callstacks *cs)
{
	const struct tstack *st;
	uint64_t tid;
	size_t i, busy = 0;

	for (i = 0; (st = hmap_next(cs->stacks, &i, &tid));)
		busy += st->n + st->over > 0;
	return busy;
}

size_t callstacks_threads(const struct callstacks *cs)
{
	return hmap_count(cs->stacks);
}
