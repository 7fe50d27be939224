/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROV_RECORD_H
#define TAPKIT_PROV_RECORD_H

/*
 * What every provider fed by tracefs or perf records (struct tk_event)
 * answers the same way: the context of the task that made the record,
 * and the callchain recorded with it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/event.h"
#include "lang/provider.h"

struct session;

/**
 * record_context() - pid(), tid(), ppid(), cpu(), execname() and the time
 * of record @ev (@s names the task, NULL: "")
 * Return: 0, or -ENOENT for what a record does not say (the provider
 * answers probefunc(), is_return()...).
 */
int record_context(const struct tk_event *ev, struct session *s,
		   enum prov_ctx what, struct lang_val *out);

/* The provider's stack(): the callchain of @ev, kernel then user; -ENOENT
 * when it has none. */
int record_stack(const struct tk_event *ev, const uint64_t **pcs, size_t *nk,
		 size_t *nu);

struct run;

/*
 * record_drain() - the drain phase of a provider's session @s: stop
 * recording, hand what is still buffered to the handlers (unless the run
 * is exiting), and report what was lost while the script ran (records
 * made after exit() would not have been handled anyway).
 */
void record_drain(struct run *run, struct session *s);

/* Stop and remove session @s (NULL: nothing), reporting its lost records
 * unless record_drain() did (@reported); frees it. */
void record_close(struct session *s, bool reported);

#endif
