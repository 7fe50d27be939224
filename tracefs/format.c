// SPDX-License-Identifier: GPL-2.0
/*
 * Formats are parsed lazily, event by event: a command that traces three
 * events reads three format files, not the thousands under events/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "common/log.h"
#include "tracefs/format.h"
#include "tracefs/tpoints.h"
#include "tracefs/tracing.h"

static struct tep_handle *tep;

static bool bad_name(const char *sys, const char *name);

struct tep_handle *format_tep(void)
{
	char *buf;
	int size;

	if (tep)
		return tep;
	tep = tep_alloc();
	if (!tep) {
		errno = ENOMEM;
		return NULL;
	}
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (buf) {
		tep_parse_header_page(tep, buf, size, sizeof(long));
		free(buf);
	}
	return tep;
}

void format_reset(void)
{
	if (tep)
		tep_free(tep);
	tep = NULL;
}

char *format_text(const char *sys, const char *name, int *size)
{
	char *rel, *buf;
	int saved;

	if (bad_name(sys, name)) {
		errno = ENOENT;
		return NULL;
	}
	rel = xasprintf("events/%s/%s/format", sys, name);
	errno = 0;
	buf = tracefs_instance_file_read(NULL, rel, size);
	saved = errno;
	free(rel);
	if (!buf)
		errno = saved == EACCES || saved == EPERM ? EACCES : ENOENT;
	return buf;
}

struct tep_event *format_load(const char *sys, const char *name)
{
	struct tep_handle *t = format_tep();
	struct tep_event *ev;
	char *buf;
	int size;

	if (!t)
		return NULL;
	ev = tep_find_event_by_name(t, sys, name);
	if (ev)
		return ev;
	buf = format_text(sys, name, &size);
	if (!buf)
		return NULL;
	if (tep_parse_event(t, buf, size, sys) != TEP_ERRNO__SUCCESS) {
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	free(buf);
	ev = tep_find_event_by_name(t, sys, name);
	if (!ev)
		errno = EINVAL;
	return ev;
}

static bool bad_name(const char *sys, const char *name)
{
	return strchr(sys, '/') || strchr(name, '/') || !*sys || !*name ||
	       strstr(sys, "..") || strstr(name, "..");
}

int format_event_id(const char *sys, const char *name)
{
	const char *top = tracing_dir();
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	if (!top || bad_name(sys, name))
		return -ENOENT;
	if (snprintf(path, sizeof(path), "%s/events/%s/%s/id", top, sys, name) >= (int)sizeof(path))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)	/* out of fds (EMFILE) is not a missing event */
		return errno == EACCES || errno == EPERM ? -EACCES :
		       errno == EMFILE || errno == ENFILE || errno == ENOMEM ? -errno :
		       -ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	return atoi(buf);
}

/*
 * A listing of tpoints.c for syscount's prefix: the prefix becomes a glob
 * with its own wildcards escaped.
 */
int format_system_events(const char *sys, const char *prefix, char ***names)
{
	struct tpoint_query q = { .sys = sys };
	struct tpoint_list l = { 0 };
	char *glob = NULL, *g;
	const char *p;
	size_t i;
	int n;

	*names = NULL;
	if (strpbrk(sys, "*?[\\") || bad_name(sys, "x"))
		return -ENOENT;
	if (prefix) {
		glob = g = xmalloc(2 * strlen(prefix) + 2);
		for (p = prefix; *p; p++) {
			if (strchr("*?[\\", *p))
				*g++ = '\\';
			*g++ = *p;
		}
		strcpy(g, "*");
		q.name = glob;
	}
	n = tpoints_find(&q, &l);
	free(glob);
	if (n < 0)
		return n;
	if (!n) {			/* none, or no such system? */
		char *rel = xasprintf("events/%s", sys);

		n = tracing_access(rel, F_OK);
		free(rel);
		if (n < 0)
			return n == -EPERM ? -EACCES : n == -EACCES ? n : -ENOENT;
	}
	*names = xcalloc(l.n + 1, sizeof(**names));
	for (i = 0; i < l.n; i++) {
		(*names)[i] = l.v[i].name;
		free(l.v[i].sys);
	}
	free(l.v);
	return n;
}

void format_names_free(char **names)
{
	char **p;

	for (p = names; p && *p; p++)
		free(*p);
	free(names);
}

int format_id(const struct tep_event *ev)
{
	return ev ? ev->id : -1;
}

int format_field(const struct tep_event *ev, const char *name, struct tk_field *f)
{
	struct tep_format_field *ff = tep_find_any_field((struct tep_event *)ev, name);

	if (!ff)
		return -ENOENT;
	memset(f, 0, sizeof(*f));
	f->name = ff->name;
	f->offset = ff->offset;
	f->size = ff->size;
	if (ff->flags & TEP_FIELD_IS_SIGNED)
		f->flags |= TK_F_SIGNED;
	if (ff->flags & TEP_FIELD_IS_DYNAMIC)
		f->flags |= TK_F_DYNAMIC;
	if (ff->flags & TEP_FIELD_IS_RELATIVE)
		f->flags |= TK_F_RELATIVE | TK_F_DYNAMIC;
	if (ff->flags & TEP_FIELD_IS_STRING)
		f->flags |= TK_F_STRING;
	if (ff->flags & TEP_FIELD_IS_POINTER)
		f->flags |= TK_F_POINTER;
	if (ff->flags & TEP_FIELD_IS_ARRAY) {
		f->flags |= TK_F_ARRAY;
		f->elem = ff->elementsize;
		if (strstr(ff->type, "char") && ff->elementsize == 1)
			f->flags |= TK_F_STRING;
	}
	return 0;
}

struct tk_field *format_fields(const struct tep_event *ev, int *n)
{
	struct tep_format_field **ff = tep_event_fields((struct tep_event *)ev);
	struct tk_field *f;
	int i, k = 0;

	for (i = 0; ff && ff[i]; i++)
		;
	f = xcalloc(i ? i : 1, sizeof(*f));
	for (i = 0; ff && ff[i]; i++)
		if (format_field(ev, ff[i]->name, &f[k]) == 0)
			k++;
	free(ff);
	*n = k;
	return f;
}
