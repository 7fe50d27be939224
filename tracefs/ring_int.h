/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_RING_INT_H
#define TAPKIT_RING_INT_H

/* The ring's state, shared by the drain (ring.c) and its keeper (ring_keep.c). */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefs/rb_page.h"
#include "tracefs/ring.h"

/* Pipes per CPU at most: as many as it takes to hold a ring's worth. */
#define RING_MAX_PIPES 8

/* A pipe full pages are spliced into. */
struct ring_pipe {
	int fd[2];
	size_t size;		/* bytes it holds */
	size_t kept;		/* bytes in it the keeper set aside, unread */
};

/*
 * The records of a CPU an ordered drain's round read but did not deliver:
 * later than the time the round began, so another CPU may still have had
 * an earlier one to write.  They are @npages pages at the head of the
 * CPU's queue, the first read up to @rec_off (the next record, of @len
 * bytes), in the state @pg, whose data is at @data_off in the page.
 */
struct ring_hold {
	int npages;		/* 0: none */
	struct rb_page pg;
	size_t data_off, rec_off;
	unsigned int len;
};

struct ring_cpu {
	int cpu;
	int fd;
	/*
	 * Splice targets; none: pages are read with read(2).  The drain
	 * splices into pipes[head] and reads straight back.  The keeper sets
	 * pages aside in pipes[tail], moving on to the next pipe when that
	 * one is full; they are older than anything still in the kernel's
	 * ring, so a drain reads them first, from head to tail.  @lock
	 * covers @fd and the pipes: one reader at a time keeps the order.
	 */
	struct ring_pipe pipes[RING_MAX_PIPES];
	int npipes;
	int head, tail;
	pthread_mutex_t lock;
	char *buf;		/* @cap sub-buffers, contiguous */
	void **pages;		/* pointers into buf */
	int cap;
	bool empty;		/* nothing more to read in this drain */
	bool partial;		/* the partial page was read in this drain */
	uint64_t missed;
};

/* What walk() does to each record before delivering it. */
struct walk_opts {
	const int *cpu_ids;	/* queue -> CPU number; NULL: the queue index */
	int64_t ts_offset;	/* added to every timestamp */
	bool skip;		/* records of thread skip_pid are not delivered */
	int skip_pid;
	int skip_tid;		/* the keeper's thread, once it runs; else -1 */
};

struct ring_keeper;

struct ring {
	int ncpu;
	int subbuf_size;
	struct ring_cpu *cpus;
	int *fds;
	void ***scratch_pages;	/* walk() arguments, reused */
	int *scratch_n;
	uint64_t *scratch_missed;
	struct ring_hold *holds;	/* per CPU: ordered drains, between rounds */
	tk_event_fn prescan;	/* ring_set_prescan() */
	void *prescan_arg;
	struct walk_opts wo;	/* wo.cpu_ids: queue -> CPU number, owned */
	bool stop;		/* ring_stop(): end the drain in progress */
	bool flush;		/* ring_flush(): take partial pages to the end */
	int capacity;		/* sub-buffers per CPU ring */
	int busiest;		/* most pages one CPU gave the last drain */
	/* CLOCK_MONOTONIC ns (atomic: the keeper reads them) */
	uint64_t last_fill;	/* the drain's last read */
	uint64_t due;		/* when it means to read again (ring_expect()) */
	struct ring_keeper *keeper;
	unsigned long set_aside;	/* pages, over the session (atomic) */
};

/* One round of an ordered drain, the pure part (unit tests): the records
 * up to @until of the queues, which start where @hold[i] says (its pages
 * at the head of queue i); where each stops goes back to @hold. */
long ring_walk_held(void **const *pages, const int *npages, int ncpu,
		    int subbuf_size, uint64_t until, struct ring_hold *hold,
		    uint64_t *missed, tk_event_fn fn, void *arg);

/* ring_walk() with a drain's options @o (unit tests: the records of a
 * thread skipped, the timestamps offset). */
long ring_walk_opts(void **const *pages, const int *npages, int ncpu,
		    int subbuf_size, bool ordered, const struct walk_opts *o,
		    uint64_t *missed, tk_event_fn fn, void *arg);

/* Splice the full pages of @rc into its pipes, as many as they have room
 * for; @rc->lock held. */
void ring_set_aside(struct ring *r, struct ring_cpu *rc);

#endif
