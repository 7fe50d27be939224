/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_DETACH_H
#define TAPKIT_DETACH_H

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

#endif
