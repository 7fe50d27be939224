// SPDX-License-Identifier: GPL-2.0
/*
 * Driving a list of event sources (source.h) phase by phase.  Each call is
 * one indirect call per source and phase or drained batch; the records of a
 * batch go from the source's reader to the callback directly.
 */
#include <errno.h>
#include <string.h>

#include "tracefs/source.h"

int sources_open(struct source *list, struct loop *l)
{
	struct source *src;
	int err;

	for (src = list; src; src = src->next)
		if (src->ops->open && (err = src->ops->open(src, l)) < 0)
			return err;
	return 0;
}

int sources_start(struct source *list)
{
	struct source *src;
	int err;

	for (src = list; src; src = src->next)
		if (src->ops->start && (err = src->ops->start(src)) < 0)
			return err;
	return 0;
}

long sources_drain(struct source *list, tk_event_fn fn, void *arg)
{
	struct source *src;
	long n = 0, m;

	for (src = list; src; src = src->next) {
		if (!src->ops->drain)
			continue;
		m = src->ops->drain(src, fn, arg);
		if (m < 0)
			return m;
		n += m;
	}
	return n;
}

int sources_check(struct source *list)
{
	struct source *src;
	int err;

	for (src = list; src; src = src->next)
		if (src->ops->check && (err = src->ops->check(src)) < 0)
			return err;
	return 0;
}

void sources_drain_stop(struct source *list)
{
	struct source *src;

	for (src = list; src; src = src->next)
		if (src->ops->drain_stop)
			src->ops->drain_stop(src);
}

uint64_t sources_lost(struct source *list, uint64_t *per_cpu, int max_cpu)
{
	struct source *src;
	uint64_t total = 0;

	if (per_cpu && max_cpu > 0)
		memset(per_cpu, 0, (size_t)max_cpu * sizeof(*per_cpu));
	for (src = list; src; src = src->next)
		if (src->ops->lost)
			total += src->ops->lost(src, per_cpu, max_cpu);
	return total;
}

unsigned int sources_drain_ms(const struct source *list)
{
	const struct source *src;
	unsigned int ms = 0;

	for (src = list; src; src = src->next)
		if (src->drain_ms && (!ms || src->drain_ms < ms))
			ms = src->drain_ms;
	return ms;
}

void sources_stop(struct source *list)
{
	struct source *src;

	for (src = list; src; src = src->next)
		if (src->ops->stop)
			src->ops->stop(src);
}

void sources_close(struct source *list)
{
	struct source *src;

	for (src = list; src; src = src->next)
		if (src->ops->close)
			src->ops->close(src);
}

void sources_free(struct source *list)
{
	struct source *next;

	for (; list; list = next) {
		next = list->next;
		if (list->ops->close)
			list->ops->close(list);
		list->ops->free(list);
	}
}
