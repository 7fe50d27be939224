/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TRACEFS_INTERNAL_H
#define TAPKIT_TRACEFS_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/event.h"

struct session;

#define SESSION_PREFIX "tapkit_"

/* Parse "tapkit_<pid>_<start>"; true when @name is one of ours. */
bool session_parse_name(const char *name, pid_t *pid, unsigned long long *start);
/* True while the session named by @pid/@start is alive. */
bool session_owner_alive(pid_t pid, unsigned long long start);
/* Remove every dynamic event of @group (ours), retrying on EBUSY. */
int dynevents_remove_group(const char *group);
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
