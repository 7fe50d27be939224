// SPDX-License-Identifier: GPL-2.0
/*
 * Opening perf events over trace events: what counters (perf_counter.c) and
 * samplers (perf_sampler.c) share.
 *
 * A trace event (tracepoint, or a dynamic event of ours) is
 * PERF_TYPE_TRACEPOINT with config = the id from its tracefs "id" file.
 * System-wide scope opens one event per online CPU (pid -1); thread scope
 * differs by mode, see the top of each of the two files.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "tracefs/internal.h"
#include "tracefs/perf_event.h"

void fdset_add(struct fdset *s, int fd)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->fd = xrealloc(s->fd, s->cap * sizeof(*s->fd));
	}
	s->fd[s->n++] = fd;
}

void fdset_close(struct fdset *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		close(s->fd[i]);
	free(s->fd);
	memset(s, 0, sizeof(*s));
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			      int group_fd)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
		       PERF_FLAG_FD_CLOEXEC);
}

/*
 * Open one event, dropping the optional features old kernels reject with
 * EINVAL, newest first: PERF_FORMAT_LOST (6.0), then inherit_thread (5.13).
 * What had to be dropped stays dropped in @attr for the following opens.
 */
int perf_open_event(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd)
{
	for (;;) {
		int fd = sys_perf_event_open(attr, pid, cpu, group_fd);

		if (fd >= 0)
			return fd;
		if (errno != EINVAL)
			return -errno;
		if (attr->read_format & PERF_FORMAT_LOST_BIT)
			attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST_BIT;
		else if (attr->inherit_thread)
			attr->inherit_thread = 0;
		else
			return -EINVAL;
	}
}

int fdset_set_filter(const struct fdset *s, const char *filter)
{
	int i;

	for (i = 0; filter && i < s->n; i++)
		if (ioctl(s->fd[i], PERF_EVENT_IOC_SET_FILTER, filter) < 0)
			return -errno;
	return 0;
}

int fdset_ioctl(const struct fdset *s, unsigned long req)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (ioctl(s->fd[i], req, 0) < 0)
			return -errno;
	return 0;
}

bool perf_scope_valid(const struct perf_scope *scope)
{
	return !scope || !scope->tids || scope->ntids > 0;
}

/**
 * perf_raise_fd_limit() - raise the RLIMIT_NOFILE soft limit to the hard one
 *
 * Counters take one fd per CPU or thread, samplers one per (thread, CPU).
 * Failure is harmless (the opens report EMFILE later) and ignored.
 */
void perf_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

const char *perf_strerror(int err)
{
	static char buf[256];
	char level[16] = "?";
	FILE *f;

	if (err != EACCES && err != EPERM)
		return strerror(err);
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (!fgets(level, sizeof(level), f))
			snprintf(level, sizeof(level), "?");
		level[strcspn(level, "\n")] = '\0';
		fclose(f);
	}
	if (geteuid())
		snprintf(buf, sizeof(buf), "%s (perf_event needs root, CAP_PERFMON "
			 "or CAP_SYS_ADMIN at kernel.perf_event_paranoid %s)",
			 strerror(err), level);
	else
		snprintf(buf, sizeof(buf), "%s (perf_event needs CAP_PERFMON or "
			 "CAP_SYS_ADMIN at kernel.perf_event_paranoid %s, and this "
			 "process has neither)", strerror(err), level);
	return buf;
}
