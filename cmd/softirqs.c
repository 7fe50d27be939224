// SPDX-License-Identifier: GPL-2.0
/*
 * softirqs: time spent in softirq handlers, by vector (net_rx, timer, ...),
 * as totals, counts or log2 histograms, in bcc's format.
 *
 * irq:softirq_entry and softirq_exit are recorded in our instance
 * and paired per CPU in userspace (tool/irqtime.c); with -C only the
 * entries are recorded.
 */
#include "tool/irqtool.h"

static const char usage[] =
"Summarize soft irq event time (or counts) by vector, as bcc's softirqs.\n"
"\n"
"USAGE: softirqs [-hjTNCdv] [-c CPU] [interval [count]]\n"
"\n"
"  -T, --timestamp      include a timestamp on each output\n"
"  -N, --nanoseconds    output in nanoseconds (default microseconds)\n"
"  -C, --count          count softirq runs instead of timing them\n"
"  -d, --dist           show distributions as log2 histograms\n"
"  -c, --cpu CPU        only this CPU\n"
"  -j, --json           JSON Lines: one object per output\n"
"  -v, --verbose        say which events are used, report loss live\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  softirqs              # sum soft irq event time until Ctrl-C\n"
"  softirqs -d           # soft irq event time as histograms\n"
"  softirqs -C 1 5       # counts per second, five times\n"
"  softirqs -NT 1        # 1 s summaries, nanoseconds, and timestamps\n"
"  softirqs -c 1         # only CPU 1\n";

int main(int argc, char **argv)
{
	return irqtool_main(argc, argv, true, usage);
}
