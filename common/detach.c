// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/detach.h"

struct after {
	void (*fn)(void *arg);
	void *arg;
	int keep;		/* the socket naming the helper, -1: none */
};

static bool wanted(int fd, const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

/*
 * Make this grandchild a helper of its own: every signal blocked (nothing
 * may cut it short), a session of its own (not the caller's process group,
 * which a terminal's Ctrl-C or a kill of the group reaches), named @comm
 * for ps, standard streams on /dev/null (never the caller's pipe or
 * terminal), and no fd but @fds (@n of them), @keep1 and @keep2.
 */
static void become_helper(const char *comm, const int *fds, int n,
			  int keep1, int keep2)
{
	int null = open("/dev/null", O_RDWR);
	sigset_t all;
	DIR *d;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	setsid();
	prctl(PR_SET_NAME, comm);
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
			    fd != keep1 && fd != keep2 && !wanted(fd, fds, n))
				close(fd);
		}
		closedir(d);
	}
}

/*
 * In the grandchild: keep only @fds and the read end of the go-ahead pipe,
 * wait until the caller has dropped its references, then close them.
 */
static void release(const int *fds, int n, int go, const struct after *after)
{
	int i;
	char c;

	become_helper("tapkit-release", fds, n, go, after->keep);
	/* EOF once the caller closed the write end (or exited) */
	while (read(go, &c, 1) > 0 || errno == EINTR)
		;
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (after->fn)
		after->fn(after->arg);
	_exit(0);
}

/* In the grandchild: wait for the caller's end (@pidfd), then @fn. */
static void watch(int pidfd, void (*fn)(void))
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	become_helper("tapkit-watch", NULL, 0, pidfd, -1);
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	fn();
	_exit(0);
}

int detach_watch(void (*fn)(void))
{
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0), status, err;
	pid_t child;

	if (pidfd < 0)
		return -errno;
	child = fork();
	if (child < 0) {
		err = -errno;
		close(pidfd);
		return err;
	}
	if (child == 0) {
		if (fork() == 0)
			watch(pidfd, fn);
		_exit(0);
	}
	close(pidfd);
	waitpid(child, &status, 0);
	return 0;
}

/* The abstract socket address naming the helper of @name. */
static socklen_t busy_addr(const char *name, struct sockaddr_un *a)
{
	int len;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
		       "tapkit-release/%s", name);
	if (len >= (int)sizeof(a->sun_path) - 1)
		len = sizeof(a->sun_path) - 2;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

/*
 * A socket listening at @name's address, or -errno (EADDRINUSE: taken).
 * It listens (and never accepts) so that detach_busy() can ask who holds
 * the name: an abstract address has no owner or mode, and any user can
 * bind one.
 */
static int bind_name(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = busy_addr(name, &a);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, len) < 0 || listen(fd, SOMAXCONN) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Busy when a process of root or of our user listens at the name: a name
 * another user took (to keep a dead session's probes from being removed)
 * does not count, nor one whose queue is full.
 */
bool detach_busy(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = busy_addr(name, &a), crlen = sizeof(struct ucred);
	struct ucred cr;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	bool busy;

	if (fd < 0)
		return false;
	busy = connect(fd, (struct sockaddr *)&a, len) == 0 &&
	       getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) == 0 &&
	       (cr.uid == 0 || cr.uid == geteuid());
	close(fd);
	return busy;
}

int detach_release(const int *fds, int n)
{
	return detach_release_then(fds, n, NULL, NULL, NULL);
}

int detach_release_then(const int *fds, int n, const char *name,
			void (*fn)(void *arg), void *arg)
{
	struct after after = { fn, arg, -1 };
	int go[2], status, err;
	pid_t child;

	if (n <= 0 || pipe2(go, O_CLOEXEC) < 0)
		return n <= 0 ? -EINVAL : -errno;
	/* bound before the fork, so that the name is taken before the caller
	 * can exit; the helper inherits it (a name already taken, by a
	 * helper of an earlier session of the same name, is left to it) */
	if (name)
		after.keep = bind_name(name);
	child = fork();
	if (child < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		if (after.keep >= 0)
			close(after.keep);
		return err;
	}
	if (child == 0) {
		close(go[1]);
		if (fork() == 0)
			release(fds, n, go[0], &after);
		_exit(0);
	}
	close(go[0]);
	if (after.keep >= 0)
		close(after.keep);
	waitpid(child, &status, 0);
	return go[1];
}

void detach_release_done(int token)
{
	if (token >= 0)
		close(token);
}
