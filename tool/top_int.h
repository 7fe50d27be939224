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

#endif
