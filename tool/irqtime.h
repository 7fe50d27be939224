/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_IRQTIME_H
#define TAPKIT_IRQTIME_H

/*
 * Time in interrupt handlers (hardirqs, softirqs): entry and exit records
 * of the irq tracepoints paired per CPU (handlers of one kind do not nest
 * on a CPU), summed per handler name, counted, or as log2 histograms, and
 * printed in bcc's hardirqs/softirqs formats:
 *
 *	hard	irq:irq_handler_entry/exit	keyed by the action's name
 *	soft	irq:softirq_entry/exit		keyed by the vector (net_rx...)
 */
#include <stdbool.h>
#include <stdio.h>

#include "common/event.h"

struct session;

struct irqtime_opts {
	bool soft;		/* softirqs, else hard irqs */
	bool count;		/* count handler runs (entries) only */
	bool dist;		/* log2 histograms of the time */
	bool nsecs;		/* in ns, else us */
	int cpu;		/* only this CPU, -1: all */
};

struct irqtime;

/* Describe; touches nothing.  Free with irqtime_free(). */
struct irqtime *irqtime_new(const struct irqtime_opts *o);
void irqtime_free(struct irqtime *q);

/* Add the events to @s (TP_RECORD; only the entries with count).  0, or
 * -errno with session_error(s) saying why. */
int irqtime_add(struct irqtime *q, struct session *s);

/* Every record of the session. */
void irqtime_record(struct irqtime *q, const struct tk_event *ev);

/* True when nothing was seen since the last print. */
bool irqtime_empty(const struct irqtime *q);

/*
 * Print what was seen since the last print and start again: bcc's table
 * (HARDIRQ/SOFTIRQ, TOTAL_usecs, TOTAL_nsecs or TOTAL_count, ascending) or
 * its histograms ("hardirq = NAME" sections), or with @s set one JSON
 * object (@s's lost events in it).  @hms: the time for -T or JSON, NULL
 * for none in text.
 */
void irqtime_print(struct irqtime *q, FILE *f, const char *hms);
void irqtime_json(struct irqtime *q, FILE *f, const char *hms,
		  struct session *s);

#endif
