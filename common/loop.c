// SPDX-License-Identifier: GPL-2.0
/*
 * One epoll loop per command (as ply and rtla do).  Signals arrive through a
 * signalfd, so the first Ctrl-C only ends the loop and the command prints its
 * summary and tears down; a second Ctrl-C while the loop is still draining
 * exits at once, and the atexit handlers of the tracefs session still remove
 * everything of ours.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/loop.h"

struct watch {
	int fd;
	bool owned;		/* close in loop_free() */
	bool oneshot;		/* remove after the first call (pidfd) */
	bool rearm;		/* EPOLLONESHOT: quiet until loop_rearm() */
	bool dead;		/* forgotten: freed before the next wait */
	loop_fn fn;
	void *arg;
	struct watch *next;
};

struct loop {
	int epfd;
	int sigfd;
	sigset_t oldmask;
	struct watch *watches;
	loop_fn child_fn;
	void *child_arg;
	bool stop;
	bool interrupted;
	bool broken_pipe;
	bool reap;		/* some watches are dead */
};

static struct watch *new_watch(int fd, bool owned, bool oneshot, loop_fn fn,
			       void *arg)
{
	struct watch *w = xcalloc(1, sizeof(*w));

	w->fd = fd;
	w->owned = owned;
	w->oneshot = oneshot;
	w->fn = fn;
	w->arg = arg;
	return w;
}

static int insert_watch(struct loop *l, struct watch *w)
{
	struct epoll_event ev = {
		.events = EPOLLIN | (w->rearm ? EPOLLONESHOT : 0), .data.ptr = w,
	};
	int fd = w->fd;

	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int err = -errno;

		free(w);
		return err;
	}
	w->next = l->watches;
	l->watches = w;
	return fd;
}

static int add_watch(struct loop *l, int fd, bool owned, bool oneshot,
		     loop_fn fn, void *arg)
{
	return insert_watch(l, new_watch(fd, owned, oneshot, fn, arg));
}

static int on_signal(struct loop *l, int fd, void *arg)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			if (l->child_fn)
				l->child_fn(l, fd, l->child_arg);
			break;
		case SIGPIPE:
			l->broken_pipe = true;
			l->stop = true;
			break;
		default:
			if (l->interrupted) /* second Ctrl-C: abort now */
				exit(TK_EXIT_RUNTIME);
			l->interrupted = true;
			l->stop = true;
			break;
		}
	}
	return 0;
}

struct loop *loop_new(void)
{
	struct loop *l = xcalloc(1, sizeof(*l));
	sigset_t mask;
	int err;

	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		err = -errno;
		goto out_free;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGPIPE);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &l->oldmask) < 0) {
		err = -errno;
		goto out_close;
	}
	l->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (l->sigfd < 0) {
		err = -errno;
		goto out_mask;
	}
	err = add_watch(l, l->sigfd, true, false, on_signal, NULL);
	if (err < 0)
		goto out_sigfd;
	return l;

out_sigfd:
	close(l->sigfd);
out_mask:
	sigprocmask(SIG_SETMASK, &l->oldmask, NULL);
out_close:
	close(l->epfd);
out_free:
	free(l);
	errno = -err;		/* what failed, not what the unwinding did */
	return NULL;
}

void loop_free(struct loop *l)
{
	struct watch *w, *next;

	if (!l)
		return;
	for (w = l->watches; w; w = next) {
		next = w->next;
		if (w->owned && !w->dead)
			close(w->fd);
		free(w);
	}
	close(l->epfd);
	free(l);
}

int loop_add(struct loop *l, int fd, loop_fn fn, void *arg)
{
	return add_watch(l, fd, false, false, fn, arg);
}

int loop_add_once(struct loop *l, int fd, loop_fn fn, void *arg)
{
	struct watch *w = new_watch(fd, false, false, fn, arg);

	w->rearm = true;
	return insert_watch(l, w);
}

int loop_rearm(struct loop *l, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };
	struct watch *w;

	for (w = l->watches; w && (w->fd != fd || w->dead); w = w->next)
		;
	if (!w || !w->rearm)
		return -ENOENT;
	ev.data.ptr = w;
	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
}

int loop_timer_arm(int fd, uint64_t ms)
{
	struct itimerspec its = {
		.it_value = { ms / 1000, (ms % 1000) * 1000000 + !ms },
	};

	return timerfd_settime(fd, 0, &its, NULL) < 0 ? -errno : 0;
}

int loop_timer(struct loop *l, uint64_t first_ms, uint64_t period_ms,
	       loop_fn fn, void *arg)
{
	struct itimerspec its = {
		.it_value = { first_ms / 1000, (first_ms % 1000) * 1000000 },
		.it_interval = { period_ms / 1000, (period_ms % 1000) * 1000000 },
	};
	int fd, err;

	if (!first_ms)
		its.it_value.tv_nsec = 1;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	err = add_watch(l, fd, true, false, fn, arg);
	if (err < 0)
		close(fd);
	return err;
}

int loop_watch_pid(struct loop *l, pid_t pid, loop_fn fn, void *arg)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);
	int err;

	if (fd < 0)
		return -errno;
	err = add_watch(l, fd, true, true, fn, arg);
	if (err < 0)
		close(fd);
	return err;
}

void loop_on_child(struct loop *l, loop_fn fn, void *arg)
{
	l->child_fn = fn;
	l->child_arg = arg;
}

void loop_stop(struct loop *l)
{
	l->stop = true;
}

bool loop_interrupted(const struct loop *l)
{
	return l->interrupted;
}

bool loop_broken_pipe(const struct loop *l)
{
	return l->broken_pipe;
}

void loop_set_broken_pipe(struct loop *l)
{
	l->broken_pipe = true;
	l->stop = true;
}

static void drain_timer(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
}

/* Free the dead watches: only between batches, when no epoll_event of a
 * batch can still point at one. */
static void reap(struct loop *l)
{
	struct watch **pw = &l->watches, *w;

	while ((w = *pw)) {
		if (w->dead) {
			*pw = w->next;
			free(w);
		} else {
			pw = &w->next;
		}
	}
	l->reap = false;
}

int loop_forget(struct loop *l, void *arg)
{
	struct watch *w;
	int n = 0;

	if (!l)
		return 0;
	for (w = l->watches; w; w = w->next) {
		if (w->dead || w->arg != arg || w->fd == l->sigfd)
			continue;
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, w->fd, NULL);
		if (w->owned)
			close(w->fd);
		w->dead = true;
		n++;
	}
	l->reap |= n > 0;
	return n;
}

int loop_run(struct loop *l)
{
	struct epoll_event evs[16];

	while (!l->stop) {
		int i, n;

		if (l->reap)
			reap(l);
		n = epoll_wait(l->epfd, evs, 16, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (i = 0; i < n && !l->stop; i++) {
			struct watch *w = evs[i].data.ptr;
			int err;

			if (w->dead)	/* forgotten by a callback of this batch */
				continue;
			if (w->owned && w->fd != l->sigfd && !w->oneshot)
				drain_timer(w->fd);
			if (w->oneshot)
				epoll_ctl(l->epfd, EPOLL_CTL_DEL, w->fd, NULL);
			err = w->fn(l, w->fd, w->arg);
			if (err < 0)
				return err;
		}
	}
	return 0;
}
