// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event counting mode over trace events.
 *
 * Thread scope: one event per thread on any CPU (cpu -1) with inherit, so
 * threads the target creates later are counted too; inherit_thread (Linux
 * 5.13) keeps forked children out, and is dropped on older kernels, which
 * then count children as well.  read() of an inherited counter already sums
 * its live and exited children.  System-wide: one event per online CPU.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/log.h"
#include "tracefs/internal.h"
#include "tracefs/perf_counter.h"

struct perf_counter {
	struct fdset fds;
};

/*
 * Where the events of a scope go: one (pid, cpu) slot per online CPU
 * (system-wide) or per thread (cpu -1, inherited).
 */
struct slots {
	int n;
	pid_t *pid;
	int *cpu;
};

static int slots_init(struct slots *sl, const struct perf_scope *scope)
{
	int *cpus = NULL, n, i;

	memset(sl, 0, sizeof(*sl));
	if (scope && scope->tids) {
		sl->n = scope->ntids;
		sl->pid = xcalloc(sl->n, sizeof(pid_t));
		sl->cpu = xcalloc(sl->n, sizeof(int));
		for (i = 0; i < sl->n; i++) {
			sl->pid[i] = scope->tids[i];
			sl->cpu[i] = -1;
		}
		return 0;
	}
	n = online_cpus(&cpus);
	if (n < 0)
		return n;
	sl->n = n;
	sl->pid = xcalloc(n, sizeof(pid_t));
	sl->cpu = cpus;
	for (i = 0; i < n; i++)
		sl->pid[i] = -1;
	return 0;
}

static void slots_release(struct slots *sl)
{
	free(sl->pid);
	free(sl->cpu);
	memset(sl, 0, sizeof(*sl));
}

/*
 * Groups.  Enabling, disabling and closing a perf event that is active on a
 * CPU each cost a cross-CPU call; for syscount's ~360 tracepoints on every
 * CPU that made start-up and exit take seconds.  Counters that join a group
 * (a dummy software leader per slot) are switched on and off with one call
 * per slot, and closing a member of a disabled group costs nothing remote.
 */
struct perf_group {
	struct slots sl;
	int *leader;		/* per slot; < 0 when its thread was gone */
	bool inherit;
	bool tree;		/* inherited by children too */
};

struct perf_group *perf_group_open(const struct perf_scope *scope)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
	};
	struct perf_group *g;
	int i, err, live = 0;

	if (!perf_scope_valid(scope)) {
		errno = EINVAL;
		return NULL;
	}
	g = xcalloc(1, sizeof(*g));
	err = slots_init(&g->sl, scope);
	if (err) {
		free(g);
		errno = -err;
		return NULL;
	}
	g->inherit = scope && scope->tids;
	g->tree = g->inherit && scope->tree;
	attr.inherit = g->inherit;
	attr.inherit_thread = g->inherit && !g->tree;
	g->leader = xcalloc(g->sl.n, sizeof(int));
	for (i = 0; i < g->sl.n; i++)
		g->leader[i] = -1;	/* not opened: nothing to close */
	for (i = 0; i < g->sl.n; i++) {
		g->leader[i] = perf_open_event(&attr, g->sl.pid[i], g->sl.cpu[i], -1);
		if (g->leader[i] >= 0) {
			live++;
		} else if (g->leader[i] != -ESRCH) {
			err = g->leader[i];
			g->leader[i] = -1;
			perf_group_free(g);
			errno = -err;
			return NULL;
		}
	}
	if (!live) {
		perf_group_free(g);
		errno = ESRCH;
		return NULL;
	}
	return g;
}

static int group_ioctl(struct perf_group *g, unsigned long req)
{
	int i;

	for (i = 0; i < g->sl.n; i++)
		if (g->leader[i] >= 0 &&
		    ioctl(g->leader[i], req, PERF_IOC_FLAG_GROUP) < 0)
			return -errno;
	return 0;
}

int perf_group_enable(struct perf_group *g)
{
	return group_ioctl(g, PERF_EVENT_IOC_ENABLE);
}

int perf_group_disable(struct perf_group *g)
{
	return group_ioctl(g, PERF_EVENT_IOC_DISABLE);
}

void perf_group_free(struct perf_group *g)
{
	int i;

	if (!g)
		return;
	for (i = 0; g->leader && i < g->sl.n; i++)
		if (g->leader[i] >= 0)
			close(g->leader[i]);
	free(g->leader);
	slots_release(&g->sl);
	free(g);
}

/**
 * perf_counter_open() - count trace event @id in @scope, disabled
 * @scope: NULL or tids NULL for system-wide, else the threads to count
 * @filter: ftrace filter expression or NULL (PERF_EVENT_IOC_SET_FILTER)
 * @group: NULL, or the group to join (then @scope is the group's and the
 *	counter runs when the group is enabled)
 *
 * Returns a counter the caller frees with perf_counter_free(), or NULL with
 * errno set: EINVAL for a filter the kernel rejects (or a bad @scope),
 * ESRCH when every thread of @scope is gone (threads that exit while being
 * attached are skipped), EACCES/EPERM without privileges, ENOENT for an
 * unknown id.
 */
struct perf_counter *perf_counter_open(int id, const struct perf_scope *scope,
				       const char *filter, struct perf_group *group)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.disabled = !group,
	};
	struct perf_counter *c;
	struct slots own, *sl = group ? &group->sl : &own;
	int i, err;

	if (!group) {
		if (!perf_scope_valid(scope)) {
			errno = EINVAL;
			return NULL;
		}
		err = slots_init(&own, scope);
		if (err) {
			errno = -err;
			return NULL;
		}
	}
	c = xcalloc(1, sizeof(*c));
	attr.inherit = group ? group->inherit : scope && scope->tids;
	attr.inherit_thread = attr.inherit &&
		!(group ? group->tree : scope && scope->tree);
	for (i = 0; i < sl->n; i++) {
		int lead = group ? group->leader[i] : -1;
		int fd;

		if (group && lead < 0)
			continue;
		fd = perf_open_event(&attr, sl->pid[i], sl->cpu[i], lead);
		if (fd == -ESRCH && sl->cpu[i] < 0)
			continue;	/* exited meanwhile: nothing to count */
		if (fd < 0) {
			err = fd;
			goto fail;
		}
		fdset_add(&c->fds, fd);
	}
	if (!c->fds.n) {
		err = -ESRCH;
		goto fail;
	}
	err = fdset_set_filter(&c->fds, filter);
	if (err)
		goto fail;
	if (!group)
		slots_release(&own);
	return c;

fail:
	if (!group)
		slots_release(&own);
	perf_counter_free(c);
	errno = -err;
	return NULL;
}

/** perf_counter_enable() - start counting; 0 or -errno */
int perf_counter_enable(struct perf_counter *c)
{
	return fdset_ioctl(&c->fds, PERF_EVENT_IOC_ENABLE);
}

/** perf_counter_disable() - stop counting (the value is kept); 0 or -errno */
int perf_counter_disable(struct perf_counter *c)
{
	return fdset_ioctl(&c->fds, PERF_EVENT_IOC_DISABLE);
}

/* The counter's fds, *@n of them; owned by @c. */
const int *perf_counter_fds(const struct perf_counter *c, int *n)
{
	*n = c->fds.n;
	return c->fds.fd;
}

/* The leaders' fds into @out (room for one per slot); returns how many. */
int perf_group_fds(const struct perf_group *g, int *out)
{
	int i, n = 0;

	for (i = 0; i < g->sl.n; i++)
		if (g->leader[i] >= 0)
			out[n++] = g->leader[i];
	return n;
}

int perf_group_size(const struct perf_group *g)
{
	return g->sl.n;
}

/**
 * perf_counter_read() - the exact number of hits so far, summed over every
 * CPU or thread, inherited children included (live and exited)
 *
 * Trace events are software events and never multiplexed, so the value is
 * a true count, not an estimate.  An fd that cannot be read counts 0.
 */
uint64_t perf_counter_read(struct perf_counter *c)
{
	uint64_t sum = 0, v;
	int i;

	for (i = 0; i < c->fds.n; i++)
		if (read(c->fds.fd[i], &v, sizeof(v)) == sizeof(v))
			sum += v;
	return sum;
}

/** perf_counter_free() - close every fd of @c and free it (NULL is a no-op) */
void perf_counter_free(struct perf_counter *c)
{
	if (!c)
		return;
	fdset_close(&c->fds);
	free(c);
}
