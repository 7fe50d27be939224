/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_CWDS_H
#define TAPKIT_CWDS_H

/*
 * The working directory of each process at its records (opensnoop -F).
 * /proc/PID/cwd read when a record is read is too late for a process gone
 * by then (a command that ran for a millisecond), so it is followed: read
 * for every process as tracing begins, given to a child by its parent's
 * fork, and read again when the process's chdir(2) or fchdir(2) succeeds.
 * The records come in order, so what cwds_get() says is the directory at
 * the record being read.
 *
 *	c = cwds_new(s);			no side effects
 *	cwds_add(c, err, sizeof(err));		events defined in session @s
 *	cwds_started(c);			after session_start()
 *	if (!cwds_record(c, ev)) ...		first, in the session's callback
 *	dir = cwds_get(c, pid);
 *	cwds_free(c);
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct session;
struct tk_event;
struct cwds;

/* Describe; touches nothing.  Free with cwds_free(). */
struct cwds *cwds_new(struct session *s);
void cwds_free(struct cwds *c);

/* Add the fork and chdir/fchdir tracepoints to the session (TP_RECORD).
 * 0, or -errno with the reason in @err. */
int cwds_add(struct cwds *c, char *err, size_t errlen);

/* After session_start(): the working directory of every process now. */
void cwds_started(struct cwds *c);

/* Take @ev if it is only ours: true when it was (the caller stops). */
bool cwds_record(struct cwds *c, const struct tk_event *ev);

/* Process @pid's working directory as the records say; NULL when unknown.
 * Valid until the next cwds_*() call. */
const char *cwds_get(struct cwds *c, pid_t pid);

#endif
