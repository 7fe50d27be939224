/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TRACEFS_INTERNAL_H
#define TAPKIT_TRACEFS_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/event.h"

struct session;

/* Parse "tapkit_<pid>_<start>"; true when @name is one of ours. */
bool session_parse_name(const char *name, pid_t *pid, unsigned long long *start);
/* True while the session named by @pid/@start is alive. */
bool session_owner_alive(pid_t pid, unsigned long long start);
/* Remove every dynamic event of @group (ours), retrying on EBUSY. */
int dynevents_remove_group(const char *group);
/* Set session_error() to @msg. */
void session_set_error(struct session *s, const char *msg);
/* @s has defined dynamic events in its group (session_close() removes it). */
void session_note_dynevents(struct session *s);
/*
 * The kernel's reason for the last failed dynamic event write into @buf
 * ("" when none): what error_log gained since it read @before.
 */
void session_kernel_reason(const char *before, char *buf, size_t n);
/* session_add_probes() without the session_add(): define @v[0..@n) in our
 * group with one write; 0 or -errno with session_error() said. */
struct session_probe;
int session_define_probes(struct session *s, const struct session_probe *v,
			  size_t n);
/* Append @buf to tracefs file @file (dynamic_events, uprobe_events...)
 * with one write, never truncating it; 0 or -errno. */
int dynevents_write(const char *file, const char *buf, size_t len);
/* Check that tracefs is mounted (mount it if not) and writable; 0 or -errno. */
int tracefs_access(const char **dir);

/* comm.c: task names that follow exec and renames (see there) */
struct comm_track {
	int exec_id, rename_id;			/* -1: not recorded */
	bool deliver_exec, deliver_rename;	/* the command asked for them */
	struct tk_field exec_file, exec_pid, rename_comm, rename_pid;
};
/* Record the renaming events in @s too (before session_start()). */
void comm_track_init(struct session *s, struct comm_track *ct);
/* Note a rename in @ev; true when @ev is ours alone (not to deliver). */
bool comm_track_event(struct comm_track *ct, const struct tk_event *ev);

#endif
