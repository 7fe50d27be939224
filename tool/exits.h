/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_EXITS_H
#define TAPKIT_EXITS_H

/*
 * Process and thread exits with their exit status, from tracepoints alone.
 *
 * sched_process_exit says which thread exits (and, where the kernel has
 * group_dead, that it was the last of its thread group) but not how: the
 * status (task->exit_code) is not among its fields, and without BPF nothing
 * else reads it.  The status is put together from what leads to an exit:
 *
 *	syscalls:sys_enter_exit_group	exit_group(N): the process's code N
 *	syscalls:sys_enter_exit		exit(N) of one thread
 *	signal:signal_generate		the signal a kill() sends (result 0:
 *					queued), kept per process until it is
 *					delivered; a fatal signal with no
 *					handler kills at once by the kernel's
 *					fast path, delivered as SIGKILL
 *	signal:signal_deliver		a fatal signal delivered with no
 *					handler (sa_handler 0): death by it
 *	signal:signal_generate		SIGCHLD to the parent, sent from the
 *					exiting thread after its exit record:
 *					CLD_DUMPED says a core was dumped, and
 *					its target is the parent at exit
 *	task:task_newtask		a new task: its thread group (clone
 *					flags), parent and start time
 *	syscalls:sys_enter_execve(at), sched:sched_process_exec
 *					the other threads an exec ends exit
 *					with 0
 *
 * and the tasks already there are read from /proc once (their start time
 * to the clock tick).  A process's exit is held until its SIGCHLD record
 * (or exits_flush()) so the core flag and the parent are those at exit.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/event.h"

struct session;

struct exit_info {
	uint64_t ts;		/* the exit record's (CLOCK_MONOTONIC ns) */
	pid_t pid;		/* thread group */
	pid_t tid;		/* thread; the PID for a process's exit */
	pid_t ppid;		/* parent process, -1 when unknown */
	char comm[16];		/* the leader's name, a thread's own */
	int64_t age_ns;		/* since the task started, -1 when unknown */
	int code;		/* exit code (0-255) when sig == 0 */
	int sig;		/* the fatal signal, 0: exited */
	bool core;		/* a core was dumped */
	bool process;		/* the end of a process (else one thread) */
};

typedef void (*exits_fn)(const struct exit_info *e, void *arg);

struct exits_opts {
	bool per_thread;	/* every thread's exit, not only processes' */
	pid_t pid;		/* only this process, 0: all */
	bool tree;		/* with pid: its descendants too */
	exits_fn fn;
	void *arg;
};

struct exits;

/* Describe; touches nothing.  Free with exits_free(). */
struct exits *exits_new(const struct exits_opts *o);
void exits_free(struct exits *x);

/**
 * exits_add() - add the events above to session @s (TP_RECORD).  0, or
 * -errno with session_error(s) saying why.
 */
int exits_add(struct exits *x, struct session *s);

/* Read the tasks already running from /proc (after session_start()). */
void exits_snapshot(struct exits *x);

/* Every record of the session, in timestamp order. */
void exits_record(struct exits *x, const struct tk_event *ev);

/* Report the exits held for their SIGCHLD record that were recorded
 * before @before (CLOCK_MONOTONIC ns; UINT64_MAX: all). */
void exits_flush(struct exits *x, uint64_t before);

#endif
