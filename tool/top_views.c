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
	&top_feed_files,
	&top_feed_bio,
	&top_feed_sched,
	&top_feed_signals,
	&top_feed_exec,
	&top_feed_net,
	&top_feed_funcs,
};

static const struct top_view views[] = {
	{ .name = "syscalls",
	  .help = "system calls by process: count, rate, errors (a record per call)",
	  .feed = "syscalls", .keys = "pid,comm",
	  .values = "count,rate,err:sum=ERRORS",
	  .sort = "COUNT", .drill = "syscalls-pid:pid" },
	{ .name = "syscalls-time",
	  .help = "system calls by process with the time in them (two records per call)",
	  .feed = "syscalls", .keys = "pid,comm",
	  .values = "count,rate,err:sum=ERRORS,lat:sum=TIME,lat:p99=P99",
	  .sort = "TIME", .drill = "syscalls-pid:pid" },
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
	{ .name = "files",
	  .help = "opens, reads and writes by file path",
	  .feed = "files", .keys = "path",
	  .values = "open:sum=OPENS,read:sum=READS,write:sum=WRITES,"
		  "rbytes:sum=RBYTES,wbytes:sum=WBYTES",
	  .sort = "WBYTES", .drill = "files-path:path" },
	{ .name = "files-path",
	  .help = "the processes doing I/O on one file",
	  .feed = "files", .keys = "pid,comm",
	  .values = "open:sum=OPENS,read:sum=READS,write:sum=WRITES,"
		  "rbytes:sum=RBYTES,wbytes:sum=WBYTES",
	  .sort = "WBYTES", .hidden = true },
	{ .name = "bio",
	  .help = "block I/O by device: requests, bytes, latency issue to completion",
	  .feed = "bio", .keys = "dev",
	  .values = "count,rate,bytes:sum=BYTES,lat:avg=AVG,lat:p99=P99,"
		  "lat:max=MAX",
	  .sort = "COUNT", .drill = "bio-dev:dev" },
	{ .name = "bio-dev",
	  .help = "one device's block I/O by process",
	  .feed = "bio", .keys = "pid,comm",
	  .values = "count,rate,bytes:sum=BYTES,lat:avg=AVG,lat:p99=P99,"
		  "lat:max=MAX",
	  .sort = "COUNT", .hidden = true },
	{ .name = "bio-procs",
	  .help = "block I/O by the process that issued it",
	  .feed = "bio", .keys = "pid,comm",
	  .values = "count,rate,bytes:sum=BYTES,lat:avg=AVG,lat:p99=P99,"
		  "lat:max=MAX",
	  .sort = "COUNT", .drill = "bio-pid:pid" },
	{ .name = "bio-pid",
	  .help = "one process's block I/O by device",
	  .feed = "bio", .keys = "dev",
	  .values = "count,rate,bytes:sum=BYTES,lat:avg=AVG,lat:p99=P99,"
		  "lat:max=MAX",
	  .sort = "COUNT", .hidden = true },
	{ .name = "sched",
	  .help = "run-queue latency and context switches by thread",
	  .feed = "sched", .keys = "tid,pid,comm",
	  .values = "wakeup:sum=WAKEUPS,lat:avg=AVG,lat:p99=P99,lat:max=MAX,"
		  "switch:sum=SWITCHES",
	  .sort = "P99", .drill = "sched-tid:tid" },
	{ .name = "sched-tid",
	  .help = "one thread's run-queue latency by CPU",
	  .feed = "sched", .keys = "cpu",
	  .values = "wakeup:sum=WAKEUPS,lat:avg=AVG,lat:p99=P99,lat:max=MAX,"
		  "switch:sum=SWITCHES",
	  .sort = "P99", .hidden = true },
	{ .name = "sched-cpu",
	  .help = "run-queue latency and context switches by CPU",
	  .feed = "sched", .keys = "cpu",
	  .values = "wakeup:sum=WAKEUPS,lat:avg=AVG,lat:p99=P99,lat:max=MAX,"
		  "switch:sum=SWITCHES",
	  .sort = "P99", .drill = "sched-cpu-tids:cpu" },
	{ .name = "sched-cpu-tids",
	  .help = "the threads waiting on one CPU",
	  .feed = "sched", .keys = "tid,pid,comm",
	  .values = "wakeup:sum=WAKEUPS,lat:avg=AVG,lat:p99=P99,lat:max=MAX,"
		  "switch:sum=SWITCHES",
	  .sort = "P99", .hidden = true },
	{ .name = "signals",
	  .help = "signals by signal, sender and target, with the result",
	  .feed = "signals", .keys = "sig,spid,scomm,tpid,tcomm",
	  .values = "count,result:last=RESULT",
	  .sort = "COUNT" },
	{ .name = "exec",
	  .help = "programs started, with the last PID and its parent",
	  .feed = "exec", .keys = "comm,filename",
	  .values = "count,rate,pid:last=PID,ppid:last=PPID",
	  .sort = "COUNT" },
	{ .name = "net",
	  .help = "TCP by connection: bytes, retransmits, state changes",
	  .feed = "net", .keys = "laddr,raddr",
	  .values = "pid:last=PID,tx:sum=TX,rx:sum=RX,retrans:sum=RETRANS,"
		  "state:sum=STATES",
	  .sort = "TX", .drill = "net-conn:laddr,raddr" },
	{ .name = "net-conn",
	  .help = "one TCP connection by process",
	  .feed = "net", .keys = "pid,comm",
	  .values = "tx:sum=TX,rx:sum=RX,retrans:sum=RETRANS,state:sum=STATES",
	  .sort = "TX", .hidden = true },
	{ .name = "funcs",
	  .help = "a bcc pattern (c:malloc, t:sched:*, vfs_*): calls and latency",
	  .feed = "funcs", .keys = "func",
	  .values = "call:sum=CALLS,call:rate=RATE,lat:avg=AVG,lat:p99=P99",
	  .sort = "CALLS", .drill = "funcs-procs:func", .needs_arg = true },
	{ .name = "funcs-procs",
	  .help = "the processes calling one function",
	  .feed = "funcs", .keys = "pid,comm",
	  .values = "call:sum=CALLS,call:rate=RATE,lat:avg=AVG,lat:p99=P99",
	  .sort = "CALLS", .hidden = true, .needs_arg = true },
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
