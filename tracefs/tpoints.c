// SPDX-License-Identifier: GPL-2.0
/*
 * Listing trace events.  libtracefs' tracefs_system_events() stat()s every
 * entry to keep the directories (~720 calls for syscalls/, several ms of
 * start-up); here readdir's d_type tells the event directories from the
 * system's "enable" and "filter" files where the filesystem fills it in, and
 * their names exclude them where it does not.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "tracefs/session.h"
#include "tracefs/tpoints.h"
#include "tracefs/tracing.h"

static bool has_wild(const char *s)
{
	return s && strpbrk(s, "*?[\\") != NULL;
}

/* A name that could leave the events/ directory, or name nothing. */
static bool bad_name(const char *s)
{
	return !*s || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..");
}

static int open_dir(int dfd, const char *rel, DIR **d)
{
	int fd = openat(dfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*d = fdopendir(fd);
	if (!*d) {
		close(fd);
		return -errno;
	}
	return 0;
}

static void push(struct tpoint_list *l, const char *sys, const char *name)
{
	/* room for 16, then doubled each time it is full */
	if (!l->n || (l->n >= 16 && !(l->n & (l->n - 1))))
		l->v = xrealloc(l->v, (l->n ? 2 * l->n : 16) * sizeof(*l->v));
	l->v[l->n].sys = xstrdup(sys);
	l->v[l->n].name = xstrdup(name);
	l->n++;
}

static bool full_match(const char *glob, const char *sys, const char *name)
{
	char buf[512];

	if (!glob)
		return true;
	snprintf(buf, sizeof(buf), "%s:%s", sys, name);
	return fnmatch(glob, buf, 0) == 0;
}

/* The events of system @sys (a directory under @events) matching @q. */
static int list_system(int events, const char *sys, const struct tpoint_query *q,
		       struct tpoint_list *out)
{
	struct dirent *de;
	char rel[512];
	int n = 0, err;
	DIR *d;

	if (q->name && !has_wild(q->name)) {
		if (bad_name(q->name))
			return 0;
		snprintf(rel, sizeof(rel), "%s/%s/id", sys, q->name);
		if (faccessat(events, rel, F_OK, 0) != 0 ||
		    !full_match(q->full, sys, q->name))
			return 0;
		push(out, sys, q->name);
		return 1;
	}
	err = open_dir(events, sys, &d);
	if (err)
		return err == -ENOENT || err == -ENOTDIR ? 0 : err;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    !strcmp(de->d_name, "enable") || !strcmp(de->d_name, "filter") ||
		    (q->name && fnmatch(q->name, de->d_name, 0)) ||
		    !full_match(q->full, sys, de->d_name))
			continue;
		push(out, sys, de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static bool is_session_group(const char *sys)
{
	return !strncmp(sys, SESSION_PREFIX, strlen(SESSION_PREFIX));
}

/* A system as available_events knows it: a directory with an enable file. */
static bool is_system(int events, const struct dirent *de)
{
	char rel[512];

	if (de->d_name[0] == '.' ||
	    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
		return false;
	snprintf(rel, sizeof(rel), "%s/enable", de->d_name);
	return faccessat(events, rel, F_OK, 0) == 0;
}

static int cmp_tpoint(const void *a, const void *b)
{
	const struct tpoint_name *x = a, *y = b;
	int c = strcmp(x->sys, y->sys);

	return c ? c : strcmp(x->name, y->name);
}

/* -errno of a failed look at the events directory: no privilege, out of
 * descriptors or memory, else no tracing directory (-ENODEV) */
static int dir_error(int err)
{
	if (err == EACCES || err == EPERM)
		return -EACCES;
	if (err == EMFILE || err == ENFILE || err == ENOMEM)
		return -err;
	return -ENODEV;
}

/*
 * The events/ directory of the tracing root, opened once: the language
 * looks up each of stap's 360 syscall probes by name, and two directory
 * opens per lookup cost more than the lookup.  -errno on failure (not
 * kept: the next call tries again).
 */
static int events_dir(void)
{
	static int events = -1;
	const char *top;
	int fd, e;

	if (events >= 0)
		return events;
	top = tracing_dir();
	if (!top)
		return dir_error(errno);
	fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return dir_error(errno);
	e = openat(fd, "events", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e < 0)
		e = dir_error(errno);
	close(fd);
	if (e >= 0)
		events = e;
	return e;
}

int tpoints_find(const struct tpoint_query *q, struct tpoint_list *out)
{
	size_t first = out->n;
	int events = events_dir(), err = 0, n = 0;
	struct dirent *de;
	DIR *d;

	if (events < 0)
		return events;
	if (q->sys && !has_wild(q->sys)) {
		if (!bad_name(q->sys) && !(q->no_sessions && is_session_group(q->sys)))
			n = list_system(events, q->sys, q, out);
	} else if ((err = open_dir(events, ".", &d)) == 0) {
		while ((de = readdir(d)) && n >= 0) {
			int k;

			if ((q->sys && fnmatch(q->sys, de->d_name, 0)) ||
			    (q->no_sessions && is_session_group(de->d_name)) ||
			    !is_system(events, de))
				continue;
			k = list_system(events, de->d_name, q, out);
			n = k < 0 ? k : n + k;
		}
		closedir(d);
	} else {
		n = err;
	}
	if (n < 0) {
		while (out->n > first) {
			out->n--;
			free(out->v[out->n].sys);
			free(out->v[out->n].name);
		}
		return n == -EPERM ? -EACCES : n;
	}
	if (q->sorted)
		qsort(out->v + first, out->n - first, sizeof(*out->v), cmp_tpoint);
	return n;
}

void tpoints_release(struct tpoint_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].sys);
		free(l->v[i].name);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
