/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_FORMAT_H
#define TAPKIT_FORMAT_H

/*
 * Trace event formats through libtraceevent.  One process-wide tep handle
 * into which only the events a command uses are parsed (never the whole
 * events/ tree); field offsets are resolved once into struct tk_field.
 */
#include <stdbool.h>

#include "common/event.h"

struct tep_handle;
struct tep_event;

/* The shared handle; created on first use (header_page parsed).  NULL+errno. */
struct tep_handle *format_tep(void);

/**
 * format_load() - parse events/@sys/@name/format into the shared handle
 * Returns the event (owned by the handle), or NULL with errno: ENOENT when
 * the event does not exist, EACCES without privilege, EINVAL when its format
 * cannot be parsed.  Loading the same event twice returns the first.
 */
struct tep_event *format_load(const char *sys, const char *name);

/**
 * format_text() - the text of events/@sys/@name/format (the caller frees),
 * its length in *@size when @size is not NULL; NULL with errno: ENOENT when
 * the event does not exist, EACCES without privilege.
 */
char *format_text(const char *sys, const char *name, int *size);

/* Fill @f for field @name of @ev; -ENOENT when the event has no such field. */
int format_field(const struct tep_event *ev, const char *name, struct tk_field *f);
/* Every field of @ev that is not a common_ one, in format order, resolved
 * by format_field(); *@n receives how many.  Free the array. */
struct tk_field *format_fields(const struct tep_event *ev, int *n);

/* The id of @sys:@name from its id file (no format parsing), or -errno. */
int format_event_id(const char *sys, const char *name);

/**
 * format_system_events() - the events of @sys whose names start with
 * @prefix (NULL: all), without stat()ing each entry
 * Returns how many, with *@names a NULL-ended list the caller frees with
 * format_names_free(); -ENOENT when @sys does not exist, -EACCES.
 */
int format_system_events(const char *sys, const char *prefix, char ***names);
void format_names_free(char **names);

/* The event id, -1 on error. */
int format_id(const struct tep_event *ev);

/* Forget the shared handle (tests, and dynamic events redefined by name). */
void format_reset(void);

#endif
