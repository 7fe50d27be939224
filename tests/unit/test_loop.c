// SPDX-License-Identifier: GPL-2.0
/*
 * The event loop's loop_forget(): an object that goes away while the loop
 * runs is never called again, not even for an event already in the batch
 * being handled, and the loop's own fds of it are closed exactly once.
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "common/loop.h"
#include "tests/unit/unit.h"

struct obj {
	int calls;
	struct obj *victim;	/* forgotten by this one's callback */
	int rfd;		/* a pipe's read end, for fd watches */
};

static int on_fd(struct loop *l, int fd, void *arg)
{
	struct obj *o = arg;
	char c;

	o->calls++;
	if (read(fd, &c, 1) < 0)
		return -1;
	if (o->victim)
		loop_forget(l, o->victim);
	return 0;
}

static int on_stop(struct loop *l, int fd, void *arg)
{
	loop_stop(l);
	return 0;
}

/* Two ready pipes in one batch: the first one's callback forgets the
 * second, which must then not be called although its event is pending. */
UNIT_TEST(forgotten_in_the_same_batch_is_not_called)
{
	struct loop *l = loop_new();
	struct obj a = { 0 }, b = { 0 };
	int pa[2], pb[2];

	CHECK(l != NULL);
	CHECK_INT(pipe(pa), 0);
	CHECK_INT(pipe(pb), 0);
	a.victim = &b;
	b.victim = &a;
	CHECK(loop_add(l, pa[0], on_fd, &a) >= 0);
	CHECK(loop_add(l, pb[0], on_fd, &b) >= 0);
	CHECK_INT(write(pa[1], "x", 1), 1);
	CHECK_INT(write(pb[1], "x", 1), 1);
	CHECK(loop_timer(l, 50, 0, on_stop, NULL) >= 0);
	CHECK_INT(loop_run(l), 0);
	/* whichever ran first forgot the other */
	CHECK_INT(a.calls + b.calls, 1);
	loop_free(l);
	close(pa[0]); close(pa[1]); close(pb[0]); close(pb[1]);
}

static int on_tick(struct loop *l, int fd, void *arg)
{
	((struct obj *)arg)->calls++;
	return 0;
}

/* A forgotten periodic timer (the loop's own fd) stops firing and is
 * closed once: its fd number is free again at once. */
UNIT_TEST(forgotten_timer_stops_and_is_closed)
{
	struct loop *l = loop_new();
	struct obj t = { 0 }, other = { 0 };
	int fd, n;

	fd = loop_timer(l, 1, 1, on_tick, &t);
	CHECK(fd >= 0);
	CHECK(loop_timer(l, 1, 1, on_tick, &other) >= 0);
	n = loop_forget(l, &t);
	CHECK_INT(n, 1);
	CHECK_INT(fcntl(fd, F_GETFD), -1);	/* closed */
	CHECK_INT(loop_forget(l, &t), 0);	/* nothing left of it */
	CHECK(loop_timer(l, 30, 0, on_stop, NULL) >= 0);
	CHECK_INT(loop_run(l), 0);
	CHECK_INT(t.calls, 0);
	CHECK(other.calls > 0);
	loop_free(l);		/* no second close of the forgotten fd */
}

UNIT_MAIN()
