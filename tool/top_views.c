// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's built-in views and the feeders behind them.  A view is data
 * (tool/top.h): a feeder, key and value columns, a sort, a drill-down.
 * Adding a view is a few lines here; adding a kind of event is a feeder
 * (tool/top_feed_<name>.c) and its line in feeders[].
 */
#include <string.h>

#include "tool/top.h"
#include "tool/top_int.h"

static const struct top_feeder *const feeders[] = {
	&top_feed_syscalls,
	&top_feed_syscount,
	&top_feed_tp,
	/* further feeders: one line each, below */
};

static const struct top_view views[] = {
	{ "syscalls", "system calls by process: count, rate, errors, time",
	  "syscalls", "pid,comm",
	  "count,rate,err:sum=ERRORS,lat:sum=TIME,lat:p99=P99", "COUNT",
	  "syscalls-pid:pid" },
	{ "syscalls-pid", "one process's system calls by name, with latency",
	  "syscalls", "syscall",
	  "count,rate,err:sum=ERRORS,lat:avg=AVG,lat:p99=P99,lat:max=MAX",
	  "COUNT", "syscalls-tid:syscall", .hidden = true },
	{ "syscalls-tid", "one system call of one process, by thread",
	  "syscalls", "tid,comm",
	  "count,rate,err:sum=ERRORS,lat:avg=AVG,lat:p99=P99,lat:max=MAX",
	  "COUNT", NULL, .hidden = true },
	{ "syscount", "system calls by name, counted in the kernel (no records)",
	  "syscount", "syscall", "count,rate", "COUNT", "syscall-procs:syscall" },
	{ "syscall-procs", "the processes making one system call",
	  "syscalls", "pid,comm",
	  "count,rate,err:sum=ERRORS,lat:avg=AVG,lat:p99=P99", "COUNT", NULL,
	  .hidden = true },
	/* further views: below */
};

const struct top_feeder *top_feeder_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(feeders) / sizeof(feeders[0]); i++)
		if (!strcmp(feeders[i]->name, name))
			return feeders[i];
	return NULL;
}

const struct top_view *top_views(size_t *n)
{
	*n = sizeof(views) / sizeof(views[0]);
	return views;
}

const struct top_view *top_view_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (!strcmp(views[i].name, name))
			return &views[i];
	return NULL;
}
