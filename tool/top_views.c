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
	{ .name = "syscalls",
	  .help = "system calls by process: count, rate, errors, time",
	  .feed = "syscalls", .keys = "pid,comm",
	  .values = "count,rate,err:sum=ERRORS,lat:sum=TIME,lat:p99=P99",
	  .sort = "COUNT", .drill = "syscalls-pid:pid" },
	{ .name = "syscalls-pid",
	  .help = "one process's system calls by name, with latency",
	  .feed = "syscalls", .keys = "syscall",
	  .values = "count,rate,err:sum=ERRORS,lat:avg=AVG,lat:p99=P99,lat:max=MAX",
	  .sort = "COUNT", .drill = "syscalls-tid:syscall", .hidden = true },
	{ .name = "syscalls-tid",
	  .help = "one system call of one process, by thread",
	  .feed = "syscalls", .keys = "tid,tcomm",
	  .values = "count,rate,err:sum=ERRORS,lat:avg=AVG,lat:p99=P99,lat:max=MAX",
	  .sort = "COUNT", .hidden = true },
	{ .name = "syscount",
	  .help = "system calls by name, counted in the kernel (no records)",
	  .feed = "syscount", .keys = "syscall", .values = "count,rate",
	  .sort = "COUNT", .drill = "syscall-procs:syscall" },
	{ .name = "syscall-procs",
	  .help = "the processes making one system call",
	  .feed = "syscalls", .keys = "pid,comm",
	  .values = "count,rate,err:sum=ERRORS,lat:avg=AVG,lat:p99=P99",
	  .sort = "COUNT", .drill = "syscalls-pid:pid", .hidden = true },
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
