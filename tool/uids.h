/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_UIDS_H
#define TAPKIT_UIDS_H

/*
 * The real UID of a process at its records (execsnoop -U/-u, opensnoop
 * -U/-u).  No tracepoint carries it, and /proc/PID/status, read when the
 * record is, is too late for a process that changed it since (setpriv, su)
 * or is gone (a command that ran for a millisecond).  So the records of
 * the setuid(2) family say when it changes, and a process gone without
 * changing it is taken to have its parent's (a fork copies it):
 *
 *	1. the last setuid/setreuid/setresuid that succeeded in the
 *	   process since tracing began, and changed the real UID
 *	2. /proc/PID/status, read for every process as tracing begins, or
 *	   when a process is first met
 *	3. the same for the parent
 *
 * each as it was at the record's time: a record read after a later change
 * still gets the UID it was made with.
 *
 *	u = uids_new(s);			no side effects
 *	uids_add(u, err, sizeof(err));		events defined in session @s
 *	uids_started(u);			after session_start(): /proc
 *	if (!uids_record(u, ev)) ...		first, in the session's callback
 *	uid = uids_get(u, pid, ppid, ev->ts);
 *	uids_free(u);
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct session;
struct tk_event;
struct uids;

/* Describe; touches nothing.  Free with uids_free(). */
struct uids *uids_new(struct session *s);
void uids_free(struct uids *u);

/* Add the setuid family's entry and exit tracepoints to the session (in
 * TP_RECORD mode).  0, or -errno with the reason in @err. */
int uids_add(struct uids *u, char *err, size_t errlen);

/* After session_start(): the real UID of every process there now. */
void uids_started(struct uids *u);

/* Take @ev if it is one of ours: true when it was (the caller stops). */
bool uids_record(struct uids *u, const struct tk_event *ev);

/* The real UID of process @pid (its parent @ppid, 0 when unknown) at @ts
 * (a record's CLOCK_MONOTONIC ns), as the records read so far say; -1 when
 * nothing says it. */
long uids_get(struct uids *u, pid_t pid, pid_t ppid, uint64_t ts);

/* @pid's real UID is @uid (a process we forked before tracing began). */
void uids_seed(struct uids *u, pid_t pid, long uid);

#endif
