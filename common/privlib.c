// SPDX-License-Identifier: GPL-2.0
/*
 * Private copies of the libraries a run probes and runs on itself.
 *
 * A uprobe traps in every process that maps its file, the tracer
 * included.  With probes over the C library the reader trapped on its own
 * memcpy()s and strcmp()s: 88% of its time went to the traps, it read ten
 * times slower, lost events and took seconds to stop.  A copy of the file
 * is another inode, which no uprobe names, so the run starts again (exec,
 * same PID, same arguments) with its own copies of those libraries: each
 * in a memfd, preloaded (a preloaded object with the soname libc.so.6
 * stands for the libc.so.6 the program needs).  The new image takes its
 * environment back before anything else (privlib_restore()), so that a
 * -c command or a system() gets the one the user gave.
 *
 * The dynamic loader cannot be replaced this way; probes on it still trap
 * in the tracer.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/log.h"
#include "common/privlib.h"

#define ENV_FDS "TAPKIT_PRIVLIB_FDS"	/* "3,4": ours, set by the exec */
#define ENV_OLD "TAPKIT_PRIVLIB_PRELOAD"	/* the user's LD_PRELOAD, or unset */
#define MAX_LIBS 16

static bool restored;	/* this image is the one with the copies */

/* The path of our own code mapping of @st's file, or NULL; free it. */
static char *mapped_here(const struct stat *st)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096], *path = NULL;

	if (!f)
		return NULL;
	while (!path && fgets(line, sizeof(line), f)) {
		unsigned long long ino;
		unsigned maj, min;
		char perms[8];
		int pos = 0;

		/* code only: the ELF readers map the files they read, too */
		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %llu %n", perms, &maj, &min,
			   &ino, &pos) < 4 || !ino || !pos || !strchr(perms, 'x') ||
		    ino != (unsigned long long)st->st_ino ||
		    (dev_t)makedev(maj, min) != st->st_dev)
			continue;
		line[strcspn(line, "\n")] = '\0';
		path = xstrdup(line + pos);
	}
	fclose(f);
	return path;
}

/* A memfd holding a copy of @path, or -errno. */
static int copy_to_memfd(const char *path)
{
	struct stat st;
	int in = open(path, O_RDONLY | O_CLOEXEC), fd, err;
	off_t off = 0;

	if (in < 0)
		return -errno;
	fd = memfd_create("tapkit-lib", 0);	/* no CLOEXEC: the new image needs it */
	if (fd < 0 || fstat(in, &st) < 0) {
		err = -errno;
		goto fail;
	}
	while (off < st.st_size) {
		ssize_t n = sendfile(fd, in, &off, (size_t)(st.st_size - off));

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			goto fail;
		}
	}
	close(in);
	return fd;
fail:
	close(in);
	if (fd >= 0)
		close(fd);
	return err;
}

void privlib_restore(void)
{
	const char *fds = getenv(ENV_FDS), *old;
	char *end;

	if (!fds)
		return;
	for (; *fds; fds = *end ? end + 1 : end) {
		long fd = strtol(fds, &end, 10);

		if (end == fds)
			break;
		close((int)fd);		/* mapped: the copy stays while we run */
	}
	old = getenv(ENV_OLD);
	if (old)
		setenv("LD_PRELOAD", old, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(ENV_OLD);
	unsetenv(ENV_FDS);
	restored = true;
}

int privlib_reexec(const char *const *paths, size_t n, char *const *argv,
		   char *err, size_t errlen)
{
	char preload[MAX_LIBS * 32 + 1] = "", fdlist[MAX_LIBS * 12 + 1] = "";
	const char *old = getenv("LD_PRELOAD");
	size_t i, k = 0, j;
	char *seen[MAX_LIBS];
	int fds[MAX_LIBS];

	if (restored)
		return 0;
	for (i = 0; i < n && k < MAX_LIBS; i++) {
		struct stat st;
		char *mine;
		int fd;

		if (!paths[i] || stat(paths[i], &st) < 0 || !(mine = mapped_here(&st)))
			continue;
		for (j = 0; j < k && strcmp(seen[j], mine); j++)
			;
		if (j < k) {
			free(mine);
			continue;
		}
		fd = copy_to_memfd(mine);
		if (fd < 0) {
			errmsg(err, errlen, fd, "cannot copy %s: %s", mine, strerror(-fd));
			free(mine);
			goto out;
		}
		fds[k] = fd;
		seen[k++] = mine;
		snprintf(preload + strlen(preload), sizeof(preload) - strlen(preload),
			 "%s/proc/self/fd/%d", *preload ? ":" : "", fd);
		snprintf(fdlist + strlen(fdlist), sizeof(fdlist) - strlen(fdlist),
			 "%s%d", *fdlist ? "," : "", fd);
	}
	if (!k)
		return 0;
	if (old)
		setenv(ENV_OLD, old, 1);
	if (old && *old) {
		char *both = xasprintf("%s:%s", preload, old);

		setenv("LD_PRELOAD", both, 1);
		free(both);
	} else {
		setenv("LD_PRELOAD", preload, 1);
	}
	setenv(ENV_FDS, fdlist, 1);
	for (j = 0; j < k; j++)
		pr_info("running again on a private copy of %s: its uprobes "
			"would trap on our own calls", seen[j]);
	fflush(NULL);
	execv("/proc/self/exe", argv);
	errmsg(err, errlen, -errno, "cannot run again with private copies of "
	       "the probed libraries: %s", strerror(errno));
	privlib_restore();
	while (k--)
		free(seen[k]);
	return -EIO;
out:
	while (k--) {
		close(fds[k]);
		free(seen[k]);
	}
	return -EIO;
}
