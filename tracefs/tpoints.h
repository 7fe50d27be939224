/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TPOINTS_H
#define TAPKIT_TPOINTS_H

/*
 * The kernel's trace events, listed from the events/ directory: the one
 * listing behind tpoint -l, tplist, bcc's t:SYS:EVENT patterns, the
 * language's kernel.trace() and syscount's syscalls.
 */
#include <stdbool.h>
#include <stddef.h>

struct tpoint_name {
	char *sys;
	char *name;
};

struct tpoint_list {
	struct tpoint_name *v;
	size_t n;
};

/* What tpoints_find() lists: every test given must hold (fnmatch(3) globs). */
struct tpoint_query {
	const char *sys;	/* glob on the system; NULL: every system */
	const char *name;	/* glob on the event's name; NULL: every event */
	const char *full;	/* glob on "SYS:NAME" as a whole; NULL: none */
	bool sorted;		/* by system, then name (byte order) */
	bool no_sessions;	/* leave out the dynamic event groups of
				 * tapkit sessions (tapkit_<pid>_<start>) */
};

/**
 * tpoints_find() - the trace events matching @q, appended to @out
 *
 * Systems are the directories of events/ that can be enabled as a whole (as
 * available_events lists them: not ftrace's own), unless @q->sys names one
 * without wildcards, which is then the only one looked at.  A @q->name
 * without wildcards is looked up directly (no directory listing).
 * Entries are not stat()ed one by one: syscalls/ alone has ~720.
 *
 * Returns how many were added, or -errno: -EACCES without the privilege to
 * read the tracing filesystem, -ENODEV when it is not mounted.  A system that
 * does not exist adds nothing.  Release @out with tpoints_release().
 */
int tpoints_find(const struct tpoint_query *q, struct tpoint_list *out);
void tpoints_release(struct tpoint_list *l);

#endif
