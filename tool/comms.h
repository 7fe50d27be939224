/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_COMMS_H
#define TAPKIT_COMMS_H

/*
 * Task names as they were at each record, not when it is printed.
 *
 * A record names its task by TID only.  Looking the name up in /proc when
 * the record is printed gives the name the task has by then: an open made
 * by a shell just before it execs came out under the new program's name.
 * Here the names follow the records, in timestamp order:
 *
 *	sched_process_fork	the child's name (threads included)
 *	task_rename		prctl(PR_SET_NAME) and every exec: the name
 *				the kernel really gave (an fexecve of
 *				/bin/true is "true", though the exec record's
 *				file is /dev/fd/3)
 *	sched_process_exit	the task is forgotten
 *
 * and the tasks that were there before tracing began are read from /proc
 * once, just after the events are enabled.
 *
 *	c = comms_new();
 *	comms_add(c, s, err, n);		before session_start()
 *	comms_snapshot(c, pid);			after session_start()
 *	comms_record(c, ev) in the record handler, first; then
 *	comms_get(c, tid) is the name at that record.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct comms;
struct session;
struct tk_event;

struct comms *comms_new(void);
void comms_free(struct comms *c);

/* Record the three events in @s.  0, or -errno with @err said. */
int comms_add(struct comms *c, struct session *s, char *err, size_t errlen);

/* Names of the tasks there now that no record named yet (from /proc):
 * those of process @pid, or every task when @pid is 0. */
void comms_snapshot(struct comms *c, pid_t pid);

/* Follow @ev; true when it was one of ours (the caller may ignore it). */
bool comms_record(struct comms *c, const struct tk_event *ev);
/* The task @ev says has exited (its sched_process_exit), else 0: for the
 * caller's own per-task state. */
pid_t comms_exited(const struct comms *c, const struct tk_event *ev);

/* The name of @tid at the last record handled; @s's lookup (/proc, then
 * the kernel's saved names) for a task never seen. */
const char *comms_get(struct comms *c, struct session *s, pid_t tid);

#endif
