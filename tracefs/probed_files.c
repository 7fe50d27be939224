// SPDX-License-Identifier: GPL-2.0
/*
 * The files a session's uprobes are in.  The kernel resolves a uprobe's
 * path to its inode once, when the probe is defined: a binary replaced on
 * disk afterwards (a package upgrade renames a new file over it) keeps the
 * probes on the old inode, which new processes do not run, and the session
 * would go on seeing nothing of them.  The session looks once a second.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "tracefs/internal.h"

struct probed_file {
	char *path;
	dev_t dev;
	ino_t ino;
};

void probed_files_note(struct session *s, const char *path)
{
	struct stat st;
	size_t i;

	/* a target's view (/proc/PID/root/...) goes with the target */
	if (!path || !strncmp(path, "/proc/", 6) || stat(path, &st) < 0)
		return;
	for (i = 0; i < s->nprobed; i++)
		if (!strcmp(s->probed[i].path, path))
			return;
	s->probed = xrealloc(s->probed, (s->nprobed + 1) * sizeof(*s->probed));
	s->probed[s->nprobed++] = (struct probed_file){
		xstrdup(path), st.st_dev, st.st_ino
	};
}

int probed_files_check(struct session *s)
{
	struct stat st;
	size_t i;

	for (i = 0; i < s->nprobed; i++) {
		const struct probed_file *f = &s->probed[i];

		if (stat(f->path, &st) == 0 && st.st_dev == f->dev &&
		    st.st_ino == f->ino)
			continue;
		session_errorf(s, "%s was %s on disk: the probes in it stay on "
			       "the old file, which new processes do not run",
			       f->path, errno == ENOENT ? "removed" : "replaced");
		return -ECANCELED;
	}
	return 0;
}

void probed_files_free(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nprobed; i++)
		free(s->probed[i].path);
	free(s->probed);
	s->probed = NULL;
	s->nprobed = 0;
}
