/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_DETACH_H
#define TAPKIT_DETACH_H

#include <stdbool.h>

/**
 * detach_release() - let a detached process hold the last references to
 * @fds while the kernel releases them, so that the caller can close its own
 * copies at once and exit.
 *
 * For perf events on tracepoints: the kernel releases a tracepoint's last
 * perf event only after an RCU grace period, under a global mutex, one
 * tracepoint after the other.  The caller must have disabled the events.
 *
 *	token = detach_release(fds, n);
 *	close the caller's own copies of @fds (cheap: not the last references)
 *	detach_release_done(token);	the helper starts closing now
 *
 * The helper is a grandchild (never a zombie of ours) that keeps no other fd
 * (not our stdout, not our tracefs files), waits until
 * detach_release_done() so that its closes are the last ones, closes @fds
 * and exits.  Returns a token >= 0, or -errno when it could not fork (the
 * caller then simply closes, slowly).
 */
int detach_release(const int *fds, int n);
void detach_release_done(int token);

/**
 * detach_release_then() - detach_release(), and once the helper has closed
 * @fds, @after(@arg) runs in it (e.g. removing what the closes freed).
 * While the helper lives, detach_busy(@name) is true, so that others can
 * tell work in progress from what a dead process left behind.  Nothing of
 * it remains when the helper ends, however it ends (an abstract socket).
 */
int detach_release_then(const int *fds, int n, const char *name,
			void (*after)(void *arg), void *arg);
/* True while a helper of detach_release_then() for @name lives. */
bool detach_busy(const char *name);

/**
 * detach_watch() - @fn runs once the caller has ended, however it ended
 * (SIGKILL, a crash), in a detached process that waits for it: a
 * grandchild like detach_release()'s, that keeps no fd but a pidfd of the
 * caller (and holds nothing of its output open).  It runs @fn at a normal
 * exit too, when there should be nothing left for it to do.  0, or -errno
 * when it could not start (no pidfd before Linux 5.3, no fork).
 */
int detach_watch(void (*fn)(void));

#endif
