/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TRACEFS_INTERNAL_H
#define TAPKIT_TRACEFS_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#define SESSION_PREFIX "tapkit_"

/* Parse "tapkit_<pid>_<start>"; true when @name is one of ours. */
bool session_parse_name(const char *name, pid_t *pid, unsigned long long *start);
/* True while the session named by @pid/@start is alive. */
bool session_owner_alive(pid_t pid, unsigned long long start);
/* Remove every dynamic event of @group (ours), retrying on EBUSY. */
int dynevents_remove_group(const char *group);
/* Check that tracefs is mounted (mount it if not) and writable; 0 or -errno. */
int tracefs_access(const char **dir);

#endif
