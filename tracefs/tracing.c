// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing filesystem's root.  libtracefs finds it (in /proc/mounts,
 * mounting it where it is missing); this file keeps what it found, so that
 * the fast paths (event ids, listings) build their paths without a lookup,
 * and so that no other file spells the mount point.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <tracefs.h>

#include "common/log.h"
#include "tracefs/tracing.h"

/* Where tracefs is mounted unless /proc/mounts says otherwise. */
#define TRACING_DEFAULT "/sys/kernel/tracing"

static char *root;

/*
 * Why libtracefs found no tracing directory: its errno (@err) when it set
 * one, else out of descriptors or memory if the mount table cannot be read
 * now either, else the kernel has none.
 */
static int not_found(int err)
{
	int fd;

	if (err)
		return err;
	fd = open("/proc/self/mounts", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? ENODEV : errno;
	close(fd);
	return ENODEV;
}

const char *tracing_dir(void)
{
	const char *d;

	if (root)
		return root;
	errno = 0;
	d = tracefs_tracing_dir();
	if (!d) {
		errno = not_found(errno);
		return NULL;
	}
	root = xstrdup(d);
	return root;
}

/* The root without mounting: the one found, the mounted one, else the default. */
static const char *root_no_mount(void)
{
	const char *d = NULL;

	if (root)
		return root;
	if (tracefs_tracing_dir_is_mounted(false, &d) > 0 && d)
		return d;
	return TRACING_DEFAULT;
}

int tracing_access(const char *rel, int mode)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s%s%s", root_no_mount(),
		     rel && *rel ? "/" : "", rel ? rel : "") >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return access(path, mode) ? -errno : 0;
}

int tracing_mount(const char **dir)
{
	const char *d = NULL;

	if (geteuid() != 0 && tracing_access("events", W_OK) != 0)
		return -EACCES;
	errno = 0;
	if (tracefs_tracing_dir_is_mounted(true, &d) < 0 || !d) {
		/* out of descriptors or memory, it could not look: say so,
		 * not that the kernel lacks tracefs */
		int err = not_found(errno);

		return err == EMFILE || err == ENFILE || err == ENOMEM ? -err : -ENODEV;
	}
	if (access(d, W_OK) != 0)
		return -errno;
	*dir = d;
	return 0;
}
