// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions that died without tearing down (SIGKILL, a crash) leave their
 * instance and dynamic event group behind.  Their names carry the owner's PID
 * and start time, so any later session can tell a dead owner from a live one
 * (or from a new process that reused the PID) and remove exactly those.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "common/detach.h"
#include "common/log.h"
#include "common/task.h"
#include "tracefs/internal.h"
#include "tracefs/session.h"
#include "tracefs/tracing.h"

bool session_parse_name(const char *name, pid_t *pid, unsigned long long *start)
{
	char *end;
	long p;

	if (strncmp(name, SESSION_PREFIX, strlen(SESSION_PREFIX)))
		return false;
	name += strlen(SESSION_PREFIX);
	if (*name < '0' || *name > '9')
		return false;
	p = strtol(name, &end, 10);
	if (*end != '_' || p <= 0 || end[1] < '0' || end[1] > '9')
		return false;
	*start = strtoull(end + 1, &end, 10);
	if (*end == '_' && end[1] >= '0' && end[1] <= '9')	/* a later session */
		strtoul(end + 1, &end, 10);
	if (*end)
		return false;
	*pid = (pid_t)p;
	return true;
}

bool session_owner_alive(pid_t pid, unsigned long long start)
{
	unsigned long long now;
	char state;

	if (task_start_time(pid, &now) || now != start)
		return false;
	/* a zombie has ended: its watchdog wakes before it is reaped */
	state = task_state(pid);
	return state && state != 'Z' && state != 'X';
}

static bool stale(const char *name)
{
	unsigned long long start;
	pid_t pid;

	return session_parse_name(name, &pid, &start) &&
	       !session_owner_alive(pid, start);
}

/*
 * "-:GROUP/" removes every event of GROUP with one write (an empty event
 * name matches them all), instead of a write and a re-read of the list per
 * event.  -EBUSY while one is in use, and then the kernel stops at it.
 */
static int remove_by_write(const char *group)
{
	const char *file = tracefs_file_exists(NULL, "dynamic_events") ?
			   "dynamic_events" : "uprobe_events";
	char cmd[128];
	int len = snprintf(cmd, sizeof(cmd), "-:%s/\n", group);

	return dynevents_write(file, cmd, (size_t)len);
}

int dynevents_remove_group(const char *group)
{
	struct tracefs_dynevent **evs;
	int i, tries, err = 0;

	for (tries = 0; tries < 100; tries++) {
		err = remove_by_write(group);
		if (err != -EBUSY)
			break;
		usleep(10000);	/* the last user is closing it */
	}
	/* whatever is left (a kernel without the empty-name match, or still
	 * busy), one by one */
	evs = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_ALL, group);
	if (!evs)
		return 0;
	err = 0;
	for (i = 0; evs[i]; i++) {
		/* EBUSY: a perf fd or an instance still uses it; give the
		 * kernel a moment after our fds were closed, then force. */
		for (tries = 0; tries < 20; tries++) {
			errno = 0;
			/* ENOENT: gone already (the list can name it twice,
			 * from dynamic_events and from uprobe_events) */
			if (tracefs_dynevent_destroy(evs[i], tries >= 10) == 0 ||
			    errno == ENOENT)
				break;
			usleep(10000);
		}
		if (tries == 20)
			err = -EBUSY;
	}
	tracefs_dynevent_list_free(evs);
	return err;
}

static int remove_stale_instances(void)
{
	/* every instance: stale() checks the name (the regex here is POSIX basic) */
	char **names = tracefs_instances(NULL);
	int i, n = 0;

	for (i = 0; names && names[i]; i++) {
		struct tracefs_instance *inst;

		if (!stale(names[i]))
			continue;
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (!inst)
			continue;
		if (tracefs_instance_destroy(inst) == 0) {
			pr_info("removed instance %s of a dead session", names[i]);
			n++;
		}
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
	return n;
}

static int remove_stale_groups(void)
{
	struct tracefs_dynevent **evs;
	char **groups = NULL;
	int i, j, n = 0;

	evs = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_ALL, NULL);
	for (i = 0; evs && evs[i]; i++) {
		char *sys = NULL;
		bool seen = false;

		tracefs_dynevent_info(evs[i], &sys, NULL, NULL, NULL, NULL);
		/* a dead session's release helper may still be closing the
		 * group's perf events (source_counter.c): it removes the group then */
		if (sys && stale(sys) && !detach_busy(sys)) {
			for (j = 0; groups && groups[j]; j++)
				seen |= strcmp(groups[j], sys) == 0;
			if (!seen)
				groups = tracefs_list_add(groups, sys);
		}
		free(sys);
	}
	tracefs_dynevent_list_free(evs);
	for (j = 0; groups && groups[j]; j++) {
		if (dynevents_remove_group(groups[j]) == 0) {
			pr_info("removed event group %s of a dead session", groups[j]);
			n++;
		}
	}
	tracefs_list_free(groups);
	return n;
}

int session_cleanup_stale(void)
{
	const char *dir;
	int err = tracing_mount(&dir);

	if (err)
		return err;
	/* instances first: they may hold the groups' events enabled */
	return remove_stale_instances() + remove_stale_groups();
}
