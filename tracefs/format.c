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

struct tep_event *format_load(const char *sys, const char *name)
{
	struct tep_handle *t = format_tep();
	struct tep_event *ev;
	char *buf, *rel;
	int size, saved;

	if (!t)
		return NULL;
	ev = tep_find_event_by_name(t, sys, name);
	if (ev)
		return ev;
	if (bad_name(sys, name)) {
		errno = ENOENT;
		return NULL;
	}
	rel = xasprintf("events/%s/%s/format", sys, name);
	errno = 0;
	buf = tracefs_instance_file_read(NULL, rel, &size);
	saved = errno;
	free(rel);
	if (!buf) {
		errno = saved == EACCES || saved == EPERM ? EACCES : ENOENT;
		return NULL;
	}
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

/*
 * The tracing directory, looked up once: libtracefs checks that it is still
 * mounted on every file it opens (a stat each), and syscount reads ~360 ids.
 */
static const char *tracing_dir(void)
{
	static char *dir;

	if (!dir) {
		const char *d = tracefs_tracing_dir();

		if (d)
			dir = xstrdup(d);
	}
	return dir;
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
	if (fd < 0)
		return errno == EACCES || errno == EPERM ? -EACCES : -ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	return atoi(buf);
}

/*
 * tracefs_system_events() stat()s every entry to keep the directories:
 * ~720 calls for syscalls/, several ms of start-up.  The entries that are
 * not events are the files "enable" and "filter"; d_type tells them apart
 * where the filesystem fills it in, and @prefix usually excludes them.
 */
int format_system_events(const char *sys, const char *prefix, char ***names)
{
	const char *top = tracing_dir();
	char **v = NULL, *dir;
	size_t plen = prefix ? strlen(prefix) : 0;
	int n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*names = NULL;
	if (!top || bad_name(sys, "x"))
		return -ENOENT;
	dir = xasprintf("%s/events/%s", top, sys);
	d = opendir(dir);
	free(dir);
	if (!d)
		return errno == EACCES || errno == EPERM ? -EACCES : -ENOENT;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    (prefix && strncmp(de->d_name, prefix, plen)) ||
		    !strcmp(de->d_name, "enable") || !strcmp(de->d_name, "filter"))
			continue;
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 64;
			v = xrealloc(v, (size_t)cap * sizeof(*v));
		}
		v[n++] = xstrdup(de->d_name);
		v[n] = NULL;
	}
	closedir(d);
	*names = v;
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
