// SPDX-License-Identifier: GPL-2.0
/*
 * Our instance: instances/tapkit_<pid>_<start>, with its own rings, events
 * enabled only there (never in the top-level files), scoped to -p/-t with
 * set_event_pid, and its error_log for the kernel's reasons.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "common/log.h"
#include "common/task.h"
#include "tracefs/internal.h"
#include "tracefs/perf_event.h"
#include "tracefs/session.h"

int instance_write(struct session *s, const char *file, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (tracefs_instance_file_write(s->inst, file, buf) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

int scope_load(struct session *s)
{
	int n;

	if (s->o.tid > 0) {
		if (!task_exists(s->o.tid)) {
			session_errorf(s, "no such thread: %d", s->o.tid);
			return -ESRCH;
		}
		s->tids = xmalloc(sizeof(pid_t));
		s->tids[0] = s->o.tid;
		s->ntids = 1;
	} else if (s->o.pid > 0) {
		n = task_threads(s->o.pid, &s->tids);
		if (n <= 0) {
			session_errorf(s, "no such process: %d", s->o.pid);
			return -ESRCH;
		}
		s->ntids = n;
	}
	return 0;
}

void scope_perf(const struct session *s, struct perf_scope *scope)
{
	scope->tids = s->ntids ? s->tids : NULL;
	scope->ntids = s->ntids;
	scope->tree = s->o.tree;
}

static int setup_instance(struct session *s)
{
	int err = 0, i;

	err = instance_write(s, "options/overwrite", "0");
	/* before any event is enabled: the kernel disables recording while
	 * it resizes a ring, and what it drops then is counted nowhere */
	if (!err && s->o.buffer_kb)
		err = instance_write(s, "buffer_size_kb", "%lu", s->o.buffer_kb);
	if (!err && s->o.wakeup_percent >= 0 &&
	    tracefs_file_exists(s->inst, "buffer_percent"))
		err = instance_write(s, "buffer_percent", "%d", s->o.wakeup_percent);
	if (err) {
		session_errorf(s, "cannot configure instance %s: %s", s->name,
			       strerror(-err));
		return err;
	}
	if (s->ntids) {
		/* set_event_pid matches the task's pid, i.e. the thread id;
		 * event-fork adds the threads (and children) created later. */
		/* one write for all threads: each write waits for the kernel */
		char *list = xcalloc(s->ntids, 12);
		size_t len = 0;

		for (i = 0; i < s->ntids; i++)
			len += sprintf(list + len, "%s%d", i ? " " : "", s->tids[i]);
		if (tracefs_instance_file_append(s->inst, "set_event_pid", list) < 0)
			err = errno ? -errno : -EIO;
		free(list);
		if (!err && s->o.pid > 0)
			err = instance_write(s, "options/event-fork", "1");
		if (err) {
			session_errorf(s, "cannot scope events to pid %d: %s",
				       s->o.pid ? s->o.pid : s->o.tid, strerror(-err));
			return err;
		}
	}
	return 0;
}

int instance_get(struct session *s)
{
	int err;

	if (s->inst)
		return 0;
	errno = 0;
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst) {
		err = errno ? -errno : -EIO;
		session_errorf(s, "cannot create instance %s: %s", s->name,
			       strerror(-err));
		return err;
	}
	s->instance_created = true;
	return setup_instance(s);
}

int instance_enable(struct session *s, const struct tp *tp, bool on)
{
	/* the event's own file: tracefs_event_enable() would match its
	 * arguments as regexes against every event of the system */
	if (tracefs_event_file_write(s->inst, tp->system, tp->name, "enable",
				     on ? "1" : "0") < 0)
		return errno ? -errno : -EIO;
	return 0;
}

int instance_enable_group(struct session *s, const char *group, bool on)
{
	char *file = xasprintf("events/%s/enable", group);
	int ret = tracefs_instance_file_write(s->inst, file, on ? "1" : "0");

	free(file);
	if (ret < 0)
		return errno ? -errno : -EIO;
	return 0;
}

int instance_remove(struct session *s)
{
	int err = 0;

	if (!s->inst)
		return 0;
	if (s->instance_created && tracefs_instance_destroy(s->inst) < 0) {
		err = errno ? -errno : -EIO;
		session_errorf(s, "cannot remove instance %s: %s", s->name,
			       strerror(-err));
	}
	tracefs_instance_free(s->inst);
	s->inst = NULL;
	return err;
}

/*
 * The kernel's reason for the last failed write, from error_log:
 *   [  409.380574] event filter parse error: error: Field not found
 *     Command: bogus ==
 *                    ^
 * gives "Field not found".
 */
static void reason_from(const char *log, char *buf, size_t n)
{
	const char *p, *q;

	buf[0] = '\0';
	if (!log)
		return;
	for (p = NULL, q = log; (q = strstr(q, "error: ")); q++)
		p = q;
	if (p) {
		p += strlen("error: ");
		snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
	}
}

void instance_kernel_reason(struct session *s, char *buf, size_t n)
{
	char *log = tracefs_error_all(s->inst);

	reason_from(log, buf, n);
	free(log);
}

/*
 * Dynamic events report into the top-level error_log, which is not ours to
 * clear: only what was added since @before counts.
 */
void session_kernel_reason(const char *before, char *buf, size_t n)
{
	char *log = tracefs_error_all(NULL);
	size_t skip = before ? strlen(before) : 0;

	buf[0] = '\0';
	if (log && strcmp(log, before ? before : "") != 0)
		reason_from(strlen(log) > skip && before && !strncmp(log, before, skip) ?
			    log + skip : log, buf, n);
	free(log);
}
