// SPDX-License-Identifier: GPL-2.0
/*
 * hardirqs: time spent in hard interrupt handlers, by handler name, as
 * totals, counts or log2 histograms, in bcc's format.
 *
 * irq:irq_handler_entry and irq_handler_exit are recorded in our instance
 * and paired per CPU in userspace (tool/irqtime.c); with -C only the
 * entries are recorded.
 */
#include "tool/irqtool.h"

static const char usage[] =
"Summarize hard irq event time (or counts) by handler, as bcc's hardirqs.\n"
"\n"
"USAGE: hardirqs [-hjTNCdv] [-c CPU] [interval [count]]\n"
"\n"
"  -T, --timestamp      include a timestamp on each output\n"
"  -N, --nanoseconds    output in nanoseconds (default microseconds)\n"
"  -C, --count          count handler runs instead of timing them\n"
"  -d, --dist           show distributions as log2 histograms\n"
"  -c, --cpu CPU        only this CPU\n"
"  -j, --json           JSON Lines: one object per output\n"
"  -v, --verbose        say which events are used, report loss live\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  hardirqs              # sum hard irq event time until Ctrl-C\n"
"  hardirqs -d           # hard irq event time as histograms\n"
"  hardirqs -C 1 5       # counts per second, five times\n"
"  hardirqs -NT 1        # 1 s summaries, nanoseconds, and timestamps\n"
"  hardirqs -c 1         # only CPU 1\n";

int main(int argc, char **argv)
{
	return irqtool_main(argc, argv, false, usage);
}
