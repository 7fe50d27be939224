/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LOOP_H
#define TAPKIT_LOOP_H

/*
 * The one event loop of a command: an epoll set holding a signalfd
 * (INT, TERM, HUP, QUIT, PIPE, CHLD), the sources' fds, timerfds and pidfds.
 * No work is done in signal handlers: signals are read from the signalfd.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct loop;

/* Called when @fd is ready; a negative return stops the loop with that error. */
typedef int (*loop_fn)(struct loop *l, int fd, void *arg);

/* Creates the epoll set and blocks the signals above.  NULL with errno. */
struct loop *loop_new(void);
/* Closes every fd the loop created (timers, pidfds, signalfd). */
void loop_free(struct loop *l);

int loop_add(struct loop *l, int fd, loop_fn fn, void *arg);
/*
 * Like loop_add(), but @fd fires once and then stays quiet until
 * loop_rearm(): a ring that wakes its reader per record is paced this way.
 */
int loop_add_once(struct loop *l, int fd, loop_fn fn, void *arg);
int loop_rearm(struct loop *l, int fd);
/* A timerfd firing first after @first_ms, then every @period_ms (0: once). */
int loop_timer(struct loop *l, uint64_t first_ms, uint64_t period_ms,
	       loop_fn fn, void *arg);
/* Sets a timer of loop_timer() to fire once after @ms (0: at once). */
int loop_timer_arm(int fd, uint64_t ms);
/* Calls @fn once when process @pid exits (pidfd). -ESRCH if it is gone. */
int loop_watch_pid(struct loop *l, pid_t pid, loop_fn fn, void *arg);
/* Called on SIGCHLD. */
void loop_on_child(struct loop *l, loop_fn fn, void *arg);

/*
 * loop_forget() - stop watching every fd (and timer, pidfd) whose callback
 * argument is @arg, as an object that goes away while the loop runs must
 * (a session closed to open another): out of the epoll set now, the
 * loop's own fds closed, and never called again, not even for an event of
 * the batch being handled.  Call it before closing the fds of one's own.
 * Returns how many were forgotten.
 */
int loop_forget(struct loop *l, void *arg);

/* Ends loop_run() after the current callback. */
void loop_stop(struct loop *l);
/* Runs until loop_stop(), a signal, or an error; 0 or -errno. */
int loop_run(struct loop *l);

/* Why the loop ended. */
bool loop_interrupted(const struct loop *l);	/* INT/TERM/HUP/QUIT */
bool loop_broken_pipe(const struct loop *l);	/* SIGPIPE, or EPIPE seen */
void loop_set_broken_pipe(struct loop *l);

#endif
