/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_READY_H
#define TAPKIT_READY_H

/* Create $TAPKIT_READY_FILE, if set: tracing is live (systemd's READY=1,
 * as a file, for scripts that start their workload only then). */
void ready_announce(void);

#endif
