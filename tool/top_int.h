/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TOP_INT_H
#define TAPKIT_TOP_INT_H

/* Between tracetop's engine, its views and its feeders (tool/top*.c). */
#include "tool/top.h"

/* the feeders, one file each (tool/top_feed_<name>.c) */
extern const struct top_feeder top_feed_syscalls;	/* raw_syscalls records */
extern const struct top_feeder top_feed_syscount;	/* syscalls:* counted */
extern const struct top_feeder top_feed_tp;		/* -e SYS:EVENT */
/* further feeders: below */
extern const struct top_feeder top_feed_files;		/* opens, reads, writes */
extern const struct top_feeder top_feed_bio;		/* block requests */
extern const struct top_feeder top_feed_sched;		/* run-queue latency */
extern const struct top_feeder top_feed_signals;	/* signal_generate */
extern const struct top_feeder top_feed_exec;		/* sched_process_exec */
extern const struct top_feeder top_feed_net;		/* TCP connections */
extern const struct top_feeder top_feed_funcs;		/* bcc patterns */

#endif
