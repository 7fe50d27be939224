/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_SCHEDEV_H
#define TAPKIT_SCHEDEV_H

/*
 * The scheduler's tracepoints as runqlat and cpudist read them: each
 * sched_switch, sched_wakeup and sched_wakeup_new record becomes a call
 * about the task it concerns (never the idle task, pid 0), in timestamp
 * order, for tasks in scope only: every task, the threads of one process
 * (-p), or one command's process tree (-c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct loop;
struct session;

/* sched_switch's prev_state: the task states below the preempted bit */
#define SCHEDEV_STATE_MASK	0xff
/* exit states (X, Z): the task will not run again */
#define SCHEDEV_STATE_EXIT	0x30

struct schedev_opts {
	pid_t pid;		/* only this process; 0: every task */
	bool tree;		/* with pid: its process tree (-c CMD) */
	bool wakeups;		/* also sched_wakeup and sched_wakeup_new */
	unsigned long buffer_kb;	/* per-CPU ring size, 0: default */
};

/* What the records say about a task in scope (each optional). */
struct schedev_ops {
	/* @tid was woken (or is new) and waits on a run queue */
	void (*wakeup)(void *arg, pid_t tid, uint64_t ts);
	/* @tid leaves the CPU in @state (sched_switch's prev_state) */
	void (*switch_out)(void *arg, pid_t tid, const char *comm, long state,
			   uint64_t ts);
	/* @tid is switched in */
	void (*switch_in)(void *arg, pid_t tid, const char *comm, uint64_t ts);
};

struct schedev;

/* Describe; touches nothing.  Free with schedev_free(). */
struct schedev *schedev_new(const struct schedev_opts *o,
			    const struct schedev_ops *ops, void *arg);
/* Free it and its session (NULL: no-op). */
void schedev_free(struct schedev *se);

/**
 * schedev_start() - open the session, add the events, start reading in @l.
 * 0 or -errno with the reason in @err.
 */
int schedev_start(struct schedev *se, struct loop *l, char *err, size_t errlen);

/* The session (drain, losses, name); NULL before schedev_start(). */
struct session *schedev_session(struct schedev *se);
/* What -v says about the mechanism (static text). */
const char *schedev_describe(const struct schedev *se);

/* The process (thread group) of @tid: known from task_newtask records,
 * else /proc; @tid itself when gone unseen. */
pid_t schedev_tgid(struct schedev *se, pid_t tid);
/* The inode of @tid's PID namespace (/proc/TID/ns/pid, cached); 0 when
 * the task is gone unseen. */
uint64_t schedev_pidns(struct schedev *se, pid_t tid);

#endif
