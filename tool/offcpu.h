/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TOOL_OFFCPU_H
#define TAPKIT_TOOL_OFFCPU_H

/*
 * Threads off-CPU, for offcputime: each thread's block, from the switch
 * that takes it off a CPU, in the stack sampled just before, to the one
 * that puts it back.  Switches come in timestamp order per drain; one
 * that arrives after a later switch of the same thread has been seen (its
 * ring read late) is not paired, and counted.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/stackagg.h"

struct offcpu_table;

struct offcpu_table *offcpu_new(void);
void offcpu_free(struct offcpu_table *t);

/* Thread @tid is about to block at @ts (ns) in stack @s (its frames are
 * copied; its pid and comm are not used). */
void offcpu_stack(struct offcpu_table *t, pid_t tid, uint64_t ts,
		  const struct stackagg_sample *s);

/*
 * Thread @tid of process @pid, named @comm, goes off-CPU at @ts, in the
 * stack offcpu_stack() gave in the millisecond before (else its kernel
 * stack counts as missed).
 */
void offcpu_out(struct offcpu_table *t, pid_t tid, pid_t pid, const char *comm,
		uint64_t ts);

/**
 * offcpu_in() - thread @tid runs again at @ts
 * Return: true with its stack in *@s (valid until the next call for @tid)
 * and its time off-CPU in *@us; false when its block began before the
 * table saw it (or was not wanted).
 */
bool offcpu_in(struct offcpu_table *t, pid_t tid, uint64_t ts,
	       struct stackagg_sample *s, uint64_t *us);

/* Is process @pid @root or a descendant of it (looked up in /proc once)? */
bool offcpu_descends(struct offcpu_table *t, pid_t pid, pid_t root);

/* Switches that came too late to be paired. */
uint64_t offcpu_unpaired(const struct offcpu_table *t);

#endif
