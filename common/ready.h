/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_READY_H
#define TAPKIT_READY_H

#include <stddef.h>

/* Create $TAPKIT_READY_FILE, if set: tracing is live (systemd's READY=1,
 * as a file, for scripts that start their workload only then).  0, or
 * -errno with the reason in @err (@errlen bytes). */
int ready_create(char *err, size_t errlen);

#endif
