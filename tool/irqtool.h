/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_IRQTOOL_H
#define TAPKIT_IRQTOOL_H

#include <stdbool.h>

/**
 * irqtool_main() - run hardirqs (@soft false) or softirqs (@soft true)
 * with @usage as its --help text: bcc's options (-T -N -C -d -c CPU -j
 * -v, interval and count), the summaries, the exit status
 */
int irqtool_main(int argc, char **argv, bool soft, const char *usage);

#endif
