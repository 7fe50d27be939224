// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/target.h"
#include "common/usema.h"

struct usema {
	pid_t watchdog;
	int pipe_w;		/* closed: the watchdog lowers them */
};

/* Add @delta to the semaphore at @addr (never below 0).  0 or -errno. */
static int bump(int mem, uint64_t addr, int delta)
{
	unsigned short v;

	if (pread(mem, &v, sizeof(v), (off_t)addr) != sizeof(v))
		return -EIO;
	if (delta < 0 && v == 0)
		return 0;
	v = (unsigned short)(v + delta);
	if (pwrite(mem, &v, sizeof(v), (off_t)addr) != sizeof(v))
		return -EIO;
	return 0;
}

/* The watchdog: keep only @keep, wait for EOF on @rd, lower, exit. */
static void watch(int rd, int mem, const uint64_t *addr, size_t n)
{
	sigset_t all;
	char c;
	DIR *d;
	size_t i;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);	/* Ctrl-C goes to the group */
	setsid();
	prctl(PR_SET_NAME, "tapkit-usema");
	d = opendir("/proc/self/fd");
	if (d) {
		struct dirent *de;

		while ((de = readdir(d))) {
			int fd = atoi(de->d_name);

			if (de->d_name[0] != '.' && fd > 2 && fd != dirfd(d) &&
			    fd != rd && fd != mem)
				close(fd);
		}
		closedir(d);
	}
	while (read(rd, &c, 1) > 0)
		;
	for (i = 0; i < n; i++)
		bump(mem, addr[i], -1);
	_exit(0);
}

struct usema *usema_hold(pid_t pid, char *const *paths, const uint64_t *offsets,
			 size_t n, char *err, size_t errlen)
{
	uint64_t *addr = xcalloc(n ? n : 1, sizeof(*addr));
	struct usema *u = NULL;
	int mem, p[2], ret = 0;
	char fn[64];
	size_t i, done = 0;

	snprintf(fn, sizeof(fn), "/proc/%d/mem", pid);
	mem = open(fn, O_RDWR | O_CLOEXEC);
	if (mem < 0) {
		ret = errmsg(err, errlen, -errno, "cannot open %s: %s", fn, strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++) {
		addr[i] = target_proc_addr(pid, paths[i], offsets[i]);
		if (!addr[i]) {
			ret = errmsg(err, errlen, -ENOENT,
				     "the semaphore at offset 0x%" PRIx64 " of '%s' is not mapped in process %d",
				     offsets[i], paths[i], pid);
			goto out;
		}
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		ret = errmsg(err, errlen, -errno, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	for (done = 0; done < n; done++) {
		if (bump(mem, addr[done], 1) < 0) {
			ret = errmsg(err, errlen, -EIO,
				     "cannot write the semaphore at 0x%" PRIx64 " of process %d",
				     addr[done], pid);
			break;
		}
	}
	u = xcalloc(1, sizeof(*u));
	u->pipe_w = p[1];
	u->watchdog = fork();
	if (u->watchdog == 0) {
		close(p[1]);
		watch(p[0], mem, addr, done);
	}
	close(p[0]);
	if (u->watchdog < 0) {
		ret = errmsg(err, errlen, -errno, "cannot fork: %s", strerror(errno));
		for (i = 0; i < done; i++)
			bump(mem, addr[i], -1);
		close(p[1]);
		free(u);
		u = NULL;
	} else if (ret) {
		usema_release(u);	/* takes back the ones raised */
		u = NULL;
	}
out:
	if (mem >= 0)
		close(mem);
	free(addr);
	if (ret)
		errno = -ret;
	return u;
}

void usema_release(struct usema *u)
{
	if (!u)
		return;
	close(u->pipe_w);
	while (waitpid(u->watchdog, NULL, 0) < 0 && errno == EINTR)
		;
	free(u);
}
