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

/* In the grandchild: keep only @fds, then close them and exit. */
static void release(const int *fds, int n)
{
	int i, null = open("/dev/null", O_RDWR);
	sigset_t all;
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
			    !wanted(fd, fds, n))
				close(fd);
		}
		closedir(d);
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	_exit(0);
}

int detach_release(const int *fds, int n)
{
	pid_t child;
	int status;

	if (n <= 0)
		return 0;
	child = fork();
	if (child < 0)
		return -errno;
	if (child == 0) {
		if (fork() == 0)
			release(fds, n);
		_exit(0);
	}
	waitpid(child, &status, 0);
	return 0;
}
