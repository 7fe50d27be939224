/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_CHILD_H
#define TAPKIT_CHILD_H

/*
 * The command of -c CMD (stap, bpftrace and perf have it): forked before
 * tracing starts and held until tracing is live, so that its first
 * instruction is already traced and its PID can scope the trace.
 *
 *   child_spawn()    fork; the child waits on a pipe
 *   child_release()  tracing is live: the child execs the command
 *   child_reap()     it exited (its pidfd, see loop_watch_pid()): its status
 *   child_end()      on every exit path: a held child exits without running
 *                    the command, a running one gets SIGTERM (SIGKILL 2 s
 *                    later); then reaped
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct child {
	pid_t pid;		/* 0: none */
	int release_fd;		/* the hold pipe's write end, -1 once released */
	bool reaped;
	int status;		/* wait status, once reaped */
};

/**
 * child_spawn() - fork the process that will run @cmd, held
 *
 * As staprun does, the words of @cmd are expanded without a shell where
 * they can be (no command substitution, no operators) and executed
 * directly, so the traced process is the command itself, not a shell
 * around it; anything else runs under /bin/sh -c.  The child starts with
 * an empty signal mask.  0, or -errno with the reason in @err.
 */
int child_spawn(struct child *c, const char *cmd, char *err, size_t errlen);

/* Let the held child exec its command.  0 or -errno (it then exits). */
int child_release(struct child *c);

/**
 * child_reap() - collect the child's exit status
 * @wait: block until it exits
 * True once it has exited (c->status holds its wait status).
 */
bool child_reap(struct child *c, bool wait);

/* Never leave it behind: see above.  Safe to call more than once. */
void child_end(struct child *c);

/* Its exit as a shell reports it: the exit code, or 128 + the signal. */
int child_exit_code(const struct child *c);

/**
 * child_detached() - run @cmd under /bin/sh -c in the background
 * @outfd: its standard output (standard error stays tapkit's; standard
 * input is /dev/null)
 *
 * Not waited for: it runs in a grandchild that init (or the nearest
 * subreaper) reaps, with an empty signal mask and no descriptor but the
 * three standard ones.  0, or -errno with the reason in @err.
 */
int child_detached(const char *cmd, int outfd, char *err, size_t errlen);

#endif
