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
	{ "files", "opens, reads and writes by file path",
	  "files", "path",
	  "open:sum=OPENS,read:sum=READS,write:sum=WRITES,"
	  "rbytes:sum=RBYTES,wbytes:sum=WBYTES,rbytes:rate=R/S,wbytes:rate=W/S",
	  "WBYTES", "files-path:path", .hidden = false },
	{ "files-path", "the processes doing I/O on one file",
	  "files", "pid,comm",
	  "open:sum=OPENS,read:sum=READS,write:sum=WRITES,"
	  "rbytes:sum=RBYTES,wbytes:sum=WBYTES,rbytes:rate=R/S,wbytes:rate=W/S",
	  "WBYTES", NULL, .hidden = true },
	{ "bio", "block I/O by device: requests, bytes, latency issue to completion",
	  "bio", "dev",
	  "count,rate,bytes:sum=BYTES,lat:avg=AVG,lat:p99=P99,lat:max=MAX",
	  "COUNT", "bio-dev:dev", .hidden = false },
	{ "bio-dev", "one device's block I/O by process",
	  "bio", "pid,comm",
	  "count,rate,bytes:sum=BYTES,lat:avg=AVG,lat:p99=P99,lat:max=MAX",
	  "COUNT", NULL, .hidden = true },
	{ "bio-procs", "block I/O by the process that issued it",
	  "bio", "pid,comm",
	  "count,rate,bytes:sum=BYTES,lat:avg=AVG,lat:p99=P99,lat:max=MAX",
	  "COUNT", "bio-pid:pid", .hidden = false },
	{ "bio-pid", "one process's block I/O by device",
	  "bio", "dev",
	  "count,rate,bytes:sum=BYTES,lat:avg=AVG,lat:p99=P99,lat:max=MAX",
	  "COUNT", NULL, .hidden = true },
	{ "sched", "run-queue latency and context switches by thread",
	  "sched", "tid,pid,comm",
	  "wakeup:sum=WAKEUPS,lat:sum=WAIT,lat:avg=AVG,lat:p99=P99,lat:max=MAX,"
	  "switch:sum=SWITCHES",
	  "WAIT", "sched-tid:tid", .hidden = false },
	{ "sched-tid", "one thread's run-queue latency by CPU",
	  "sched", "cpu",
	  "wakeup:sum=WAKEUPS,lat:sum=WAIT,lat:avg=AVG,lat:p99=P99,lat:max=MAX,"
	  "switch:sum=SWITCHES",
	  "WAIT", NULL, .hidden = true },
	{ "sched-cpu", "run-queue latency and context switches by CPU",
	  "sched", "cpu",
	  "wakeup:sum=WAKEUPS,lat:sum=WAIT,lat:avg=AVG,lat:p99=P99,lat:max=MAX,"
	  "switch:sum=SWITCHES",
	  "WAIT", "sched-cpu-tids:cpu", .hidden = false },
	{ "sched-cpu-tids", "the threads waiting on one CPU",
	  "sched", "tid,pid,comm",
	  "wakeup:sum=WAKEUPS,lat:sum=WAIT,lat:avg=AVG,lat:p99=P99,lat:max=MAX,"
	  "switch:sum=SWITCHES",
	  "WAIT", NULL, .hidden = true },
	{ "signals", "signals by signal, sender and target, with the result",
	  "signals", "sig,spid,scomm,tpid,tcomm", "count,result:last=RESULT",
	  "COUNT", NULL, .hidden = false },
	{ "exec", "programs started, with the last PID and its parent",
	  "exec", "comm,filename",
	  "count,rate,pid:last=PID,ppid:last=PPID,pcomm:last=PCOMM",
	  "COUNT", NULL, .hidden = false },
	{ "net", "TCP by connection: bytes, retransmits, state changes",
	  "net", "laddr,raddr",
	  "pid:last=PID,comm:last=COMM,tx:sum=TX,rx:sum=RX,retrans:sum=RETRANS,"
	  "state:sum=STATES,newstate:last=STATE",
	  "TX", "net-conn:laddr,raddr", .hidden = false },
	{ "net-conn", "one TCP connection by process",
	  "net", "pid,comm",
	  "tx:sum=TX,rx:sum=RX,retrans:sum=RETRANS,state:sum=STATES",
	  "TX", NULL, .hidden = true },
	{ "funcs", "a bcc pattern (c:malloc, t:sched:*, vfs_*): calls and latency",
	  "funcs", "func",
	  "call:sum=CALLS,call:rate=RATE,lat:avg=AVG,lat:p99=P99",
	  "CALLS", "funcs-procs:func", .needs_arg = true },
	{ "funcs-procs", "the processes calling one function",
	  "funcs", "pid,comm",
	  "call:sum=CALLS,call:rate=RATE,lat:avg=AVG,lat:p99=P99",
	  "CALLS", NULL, .hidden = true, .needs_arg = true },
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
