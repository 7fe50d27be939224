// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/detach.h"

static bool wanted(int fd, const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

/*
 * In the grandchild: keep only @fds and the read end of the go-ahead pipe,
 * wait until the caller has dropped its references, then close them.
 */
static void release(const int *fds, int n, int go)
{
	int i, null = open("/dev/null", O_RDWR);
	sigset_t all;
	char c;
	DIR *d;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);	/* nothing may cut it short */
	setsid();
	prctl(PR_SET_NAME, "tapkit-release");	/* what ps shows for it */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	d = opendir("/proc/self/fd");
	if (d) {
		struct dirent *de;
		int dfd = dirfd(d);

		while ((de = readdir(d))) {
			int fd = atoi(de->d_name);

			if (de->d_name[0] != '.' && fd > 2 && fd != dfd &&
			    fd != go && !wanted(fd, fds, n))
				close(fd);
		}
		closedir(d);
	}
	/* EOF once the caller closed the write end (or exited) */
	while (read(go, &c, 1) > 0 || errno == EINTR)
		;
	for (i = 0; i < n; i++)
		close(fds[i]);
	_exit(0);
}

int detach_release(const int *fds, int n)
{
	int go[2], status, err;
	pid_t child;

	if (n <= 0 || pipe2(go, O_CLOEXEC) < 0)
		return n <= 0 ? -EINVAL : -errno;
	child = fork();
	if (child < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	if (child == 0) {
		close(go[1]);
		if (fork() == 0)
			release(fds, n, go[0]);
		_exit(0);
	}
	close(go[0]);
	waitpid(child, &status, 0);
	return go[1];
}

void detach_release_done(int token)
{
	if (token >= 0)
		close(token);
}
