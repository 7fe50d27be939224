// SPDX-License-Identifier: GPL-2.0
/*
 * Output files (tapkit -o, stack files) opened without following what
 * another user planted in a shared directory such as /tmp.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/outfile.h"

/* Is @st, found in directory @dir, something another user planted there? */
static bool planted(const struct stat *st, const struct stat *dir)
{
	return (dir->st_mode & S_ISVTX) && (dir->st_mode & S_IWOTH) &&
	       st->st_uid != geteuid() && st->st_uid != dir->st_uid;
}

FILE *outfile_open(const char *path, char *err, size_t errlen)
{
	char copy[PATH_MAX];
	const char *in;
	struct stat st, dir;
	int fd, flags = O_WRONLY | O_CLOEXEC, tries;
	FILE *f;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	in = dirname(copy);
	if (stat(in, &dir) < 0)
		goto fail;
	for (tries = 0; tries < 3; tries++) {
		if (lstat(path, &st) < 0) {
			if (errno != ENOENT)
				break;
			/* new: made here, not through a link made meanwhile */
			fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
		} else if (planted(&st, &dir)) {
			errmsg(err, errlen, -EPERM, "cannot open '%s': %s of user "
			       "%u in the shared directory %s, not ours: refused",
			       path, S_ISLNK(st.st_mode) ? "a symbolic link" :
			       "a file", (unsigned)st.st_uid, in);
			errno = EPERM;
			return NULL;
		} else if (S_ISLNK(st.st_mode)) {
			fd = open(path, flags | O_CREAT | O_TRUNC, 0644);
		} else {
			/* the file just checked, not a link put in its place */
			fd = open(path, flags | O_TRUNC | O_NOFOLLOW);
		}
		if (fd >= 0) {
			f = fdopen(fd, "w");
			if (f)
				return f;
			close(fd);
			break;
		}
		/* replaced between the look and the open: look again */
		if (errno != EEXIST && errno != ELOOP && errno != ENOENT)
			break;
	}
fail:
	errmsg(err, errlen, -errno, "cannot open '%s': %s", path, strerror(errno));
	return NULL;
}
