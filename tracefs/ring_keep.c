// SPDX-License-Identifier: GPL-2.0
/*
 * The ring's keeper: a thread that moves full sub-buffers out of the
 * kernel's rings while the drain is late.
 *
 * The drain runs on the event loop's thread, between the script's handlers
 * and the tool's output.  A handler that runs for tens of milliseconds (a
 * timer probe printing a large array), output blocked on a slow terminal,
 * or a preemption in the middle of a batch leaves the rings unread, and at
 * 100 MB/s a CPU fills the kernel's default ring (1.4 MB) in about ten.
 *
 * The keeper decodes nothing.  It sleeps in poll(2) until some CPU's ring
 * has data.  The drain is late when a slack time has passed since the
 * latest of: its last read, the time it said it would read again
 * (ring_expect(), after its pause), and the arrival of data after a quiet
 * spell (which wakes the drain too).  Then the keeper splices the full pages
 * of each readable CPU into that CPU's pipes, and again every half slack
 * while the drain stays late.  The pages wait there, in order, and the
 * drain reads them before anything newer (and sets the ring's new full
 * pages aside behind them until it has caught up).  The kernel moves pages
 * without copying, and the pipes hold twice the ring, so a late drain can
 * miss three times as much before records are lost.  While the drain keeps
 * up, the keeper wakes about once per drain and makes three system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"	/* xcalloc */
#include "common/timefmt.h"
#include "tracefs/ring_int.h"

struct ring_keeper {
	pthread_t thread;
	int stop_fd;			/* eventfd: written to end the thread */
	uint64_t slack;			/* ns past its time that make a drain late */
	struct pollfd *pfd;		/* stop_fd, then each CPU's ring */
};

/* Sleep @ns unless told to stop; true when told. */
static bool pause_or_stop(struct ring_keeper *k, uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL),
		.tv_nsec = (long)(ns % 1000000000ULL),
	};

	/* the signals are blocked here: 0 is the timeout, > 0 the stop */
	return ppoll(k->pfd, 1, &ts, NULL) != 0;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

static void *keep(void *arg)
{
	struct ring *r = arg;
	struct ring_keeper *k = r->keeper;
	uint64_t t0, now, fresh = 0, late, wait;
	int i;

	/* its own reads are records too, on raw_syscalls */
	__atomic_store_n(&r->wo.skip_tid, (int)syscall(SYS_gettid), __ATOMIC_RELAXED);
	for (;;) {
		t0 = time_mono_ns();
		if (poll(k->pfd, r->ncpu + 1, -1) < 0 || k->pfd[0].revents)
			break;
		now = time_mono_ns();
		/* poll slept: the data is new, and woke the drain as well */
		if (now - t0 > k->slack / 2)
			fresh = now;
		/* late: a slack past the drain's last read, the time it meant
		 * to read again, and the arrival of new data */
		late = max3(__atomic_load_n(&r->last_fill, __ATOMIC_RELAXED),
			    __atomic_load_n(&r->due, __ATOMIC_RELAXED), fresh) + k->slack;
		if (now < late) {
			wait = late - now;
		} else {
			/* a CPU the drain is reading right now is left to it */
			for (i = 0; i < r->ncpu; i++)
				if (k->pfd[i + 1].revents & POLLIN &&
				    !pthread_mutex_trylock(&r->cpus[i].lock)) {
					ring_set_aside(r, &r->cpus[i]);
					pthread_mutex_unlock(&r->cpus[i].lock);
				}
			wait = k->slack / 2;
		}
		if (pause_or_stop(k, wait))
			break;
	}
	return NULL;
}

void ring_expect(struct ring *r, uint64_t when_ns)
{
	__atomic_store_n(&r->due, when_ns, __ATOMIC_RELAXED);
}

int ring_keep_start(struct ring *r, uint64_t slack_ns)
{
	struct ring_keeper *k;
	pthread_attr_t attr;
	sigset_t all, old;
	int i, err;

	for (i = 0; i < r->ncpu && !r->cpus[i].npipes; i++)
		;
	if (r->keeper || i == r->ncpu)
		return 0;	/* running, or no pipe to set pages aside in */
	k = xcalloc(1, sizeof(*k));
	k->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (k->stop_fd < 0) {
		err = -errno;
		free(k);
		return err;
	}
	k->slack = slack_ns;
	__atomic_store_n(&r->last_fill, time_mono_ns(), __ATOMIC_RELAXED);
	k->pfd = xcalloc(r->ncpu + 1, sizeof(*k->pfd));
	k->pfd[0] = (struct pollfd){ .fd = k->stop_fd, .events = POLLIN };
	for (i = 0; i < r->ncpu; i++)
		k->pfd[i + 1] = (struct pollfd){ .fd = r->cpus[i].fd, .events = POLLIN };
	r->keeper = k;

	/* signals stay with the event loop's signalfd */
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&k->thread, &attr, keep, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		r->keeper = NULL;
		close(k->stop_fd);
		free(k->pfd);
		free(k);
	}
	return err;
}

unsigned long ring_keep_stop(struct ring *r)
{
	struct ring_keeper *k = r->keeper;
	uint64_t one = 1;

	if (!k)
		return 0;
	/* an eventfd write of 1 fails only when the count would overflow */
	(void)!write(k->stop_fd, &one, sizeof(one));
	pthread_join(k->thread, NULL);
	r->keeper = NULL;
	close(k->stop_fd);
	free(k->pfd);
	free(k);
	return r->set_aside;
}
