// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's screen: the terminal, and its place in the command's loop.
 *
 * Everything happens in the one epoll loop (common/loop.h), never in a
 * signal handler:
 *
 *	stdin		every pending key is read (ncurses in nodelay mode)
 *			and acted on (tool/top_ui_keys.c), then one frame
 *	the interval	a one-shot timerfd, re-armed at each tick with
 *			d->interval_ms (so `d` takes effect at once): the
 *			model closes its interval (m->tick), and unless
 *			paused a frame is drawn
 *	SIGWINCH	blocked and read from a signalfd of ours: the size
 *			from TIOCGWINSZ, resizeterm(), a frame
 *
 * Ctrl-C stays a signal (cbreak, not raw): the loop's signalfd stops the
 * loop as for any tool.  A frame is erase() + drawing + doupdate(), so
 * curses sends only the cells that changed.  top_ui_end() gives the
 * terminal back; it runs from atexit too, so every exit path (q, Ctrl-C,
 * SIGTERM, SIGHUP, an error, die()) restores it.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "common/log.h"
#include "common/loop.h"
#include "tool/tool.h"
#include "tool/top_ui_int.h"

struct top_ui top_ui = { .timer_fd = -1, .winch_fd = -1 };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/**
 * top_ui_status() - a message on the status line, shown until the next key.
 */
void top_ui_status(struct top_ui *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->status, sizeof(u->status), fmt, ap);
	va_end(ap);
}

/**
 * top_ui_quit() - stop the command's loop (q, the -n count, a closed
 * terminal); the command then ends and top_ui_end() runs.
 */
void top_ui_quit(struct top_ui *u)
{
	/* tool_stop() reaches the loop tool_run() runs; ours is the same
	 * one, and stopping it directly also works without tool_run() */
	tool_stop();
	loop_stop(u->l);
}

/**
 * top_ui_rearm() - the next tick after d->interval_ms from now (at least
 * 100 ms): at every tick, and when d changes the interval.
 */
void top_ui_rearm(struct top_ui *u)
{
	if (u->d->interval_ms < 100)
		u->d->interval_ms = 100;
	if (u->timer_fd >= 0)
		loop_timer_arm(u->timer_fd, u->d->interval_ms);
}

/**
 * top_ui_view_changed() - after a drill-down, Backspace or the view menu:
 * the view's default sort, no selection, text filter or pane, and a fresh
 * interval from now.
 */
void top_ui_view_changed(struct top_ui *u)
{
	u->d->sort_col = -1;
	u->d->ascending = false;
	u->filter[0] = '\0';
	u->d->filter = NULL;
	u->have_sel = u->have_cur = false;
	u->sel = u->top = 0;
	memset(u->colw, 0, sizeof(u->colw));
	if (u->pane == UI_PANE_EVENTS && u->m->watch)
		u->m->watch(u->m->ctx, NULL);
	u->pane = UI_PANE_NONE;
	u->ev_scroll = 0;
	/* the new view's first interval starts now */
	u->last_ns = now_ns();
	u->last_cpu_us = cpu_us();
	top_ui_rearm(u);
}

/**
 * top_ui_resize() - take the terminal's size (TIOCGWINSZ) when it changed.
 */
void top_ui_resize(struct top_ui *u)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row &&
	    ws.ws_col && (ws.ws_row != LINES || ws.ws_col != COLS))
		resizeterm(ws.ws_row, ws.ws_col);
}

static void on_tick_work(struct top_ui *u)
{
	uint64_t now = now_ns(), cpu = cpu_us();
	uint64_t elapsed = now - u->last_ns;

	u->m->tick(u->m->ctx, elapsed);
	u->cpu_pct = elapsed ? (double)(cpu - u->last_cpu_us) * 1000.0 * 100.0 /
				       (double)elapsed : 0;
	u->last_ns = now;
	u->last_cpu_us = cpu;
	u->ticks++;
}

static int on_timer(struct loop *l, int fd, void *arg)
{
	struct top_ui *u = arg;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return 0;
	if (!u->active)
		return 0;
	top_ui_rearm(u);
	on_tick_work(u);
	/* a SIGWINCH another thread took still resizes at the next tick */
	top_ui_resize(u);
	if (!u->paused)
		top_ui_draw(u);
	if (u->d->count > 0 && u->ticks >= u->d->count)
		top_ui_quit(u);
	return 0;
}

static int on_winch(struct loop *l, int fd, void *arg)
{
	struct top_ui *u = arg;
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si))
		;
	if (!u->active)
		return 0;
	top_ui_resize(u);
	top_ui_draw(u);
	return 0;
}

#define HELD_MAX	(64 * 1024)

/*
 * What the program writes on stderr while the screen is up (a view's -v
 * note, a warning) would scribble over the frame: it comes through a pipe
 * instead, its last line shows on the status line, and all of it (the
 * last 64 KiB) goes to the real stderr when the screen closes.
 */
static int on_stderr(struct loop *l, int fd, void *arg)
{
	struct top_ui *u = arg;
	char buf[4096], *end, *start;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		if (u->nheld + (size_t)n > HELD_MAX) {	/* keep the newest */
			size_t drop = u->nheld + (size_t)n - HELD_MAX;

			drop = drop < u->nheld ? drop : u->nheld;
			memmove(u->held, u->held + drop, u->nheld - drop);
			u->nheld -= drop;
		}
		memcpy(u->held + u->nheld, buf, (size_t)n);	/* n < HELD_MAX */
		u->nheld += (size_t)n;
		/* the last complete line of this read */
		buf[n] = '\0';
		while (n > 0 && buf[n - 1] == '\n')
			buf[--n] = '\0';
		end = buf + n;
		for (start = end; start > buf && start[-1] != '\n'; start--)
			;
		if (u->active && start < end) {
			top_ui_status(u, "%s", start);
			top_ui_draw(u);
		}
	}
	return 0;
}

static int capture_stderr(struct top_ui *u, struct loop *l)
{
	int p[2], ret;

	fflush(stderr);
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
		return -errno;
	u->saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (u->saved_stderr < 0 || dup2(p[1], STDERR_FILENO) < 0) {
		ret = -errno;
		close(p[0]);
		close(p[1]);
		if (u->saved_stderr >= 0)
			close(u->saved_stderr);
		u->saved_stderr = -1;
		return ret;
	}
	close(p[1]);
	u->err_rfd = p[0];
	u->held = xmalloc(HELD_MAX);
	u->nheld = 0;
	return loop_add(l, u->err_rfd, on_stderr, u) < 0 ? -EIO : 0;
}

/* stderr back where it was, with what the screen held on it. */
static void release_stderr(struct top_ui *u)
{
	if (u->saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(u->saved_stderr, STDERR_FILENO);
	close(u->saved_stderr);
	u->saved_stderr = -1;
	if (u->err_rfd >= 0) {
		bool was = u->active;

		u->active = false;	/* read what is left, draw nothing */
		on_stderr(NULL, u->err_rfd, u);
		u->active = was;
		close(u->err_rfd);
		u->err_rfd = -1;
	}
	if (u->nheld) {
		ssize_t w = write(STDERR_FILENO, u->held, u->nheld);

		(void)w;	/* nowhere left to say it otherwise */
	}
	free(u->held);
	u->held = NULL;
	u->nheld = 0;
}

static int on_key(struct loop *l, int fd, void *arg)
{
	struct top_ui *u = arg;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ch, n = 0;

	if (!u->active)
		return 0;
	while ((ch = getch()) != ERR) {
		top_ui_key(u, ch);
		n++;
		if (!u->active)
			return 0;
	}
	if (!n && poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
		/* the terminal went away (its SIGHUP stops the loop too) */
		top_ui_quit(u);
		return 0;
	}
	if (n)
		top_ui_draw(u);
	return 0;
}

static bool locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static void setup_colors(struct top_ui *u)
{
	u->colors = has_colors();
	if (!u->colors)
		return;
	start_color();
	use_default_colors();
	init_pair(1, COLOR_BLACK, COLOR_GREEN);	/* column titles */
	init_pair(2, COLOR_BLACK, COLOR_CYAN);	/* selection bar */
	init_pair(3, COLOR_CYAN, -1);		/* header figures */
	init_pair(4, COLOR_RED, -1);		/* lost events, errors */
	init_pair(5, COLOR_BLACK, COLOR_CYAN);	/* status line keys */
}

/**
 * top_ui_start() - take the terminal and put the screen into loop @l.
 * @m:		what to show (the engine's model, or a script's)
 * @d:		how: mode, interval, sort, filter (the keys change it)
 * @l:		the command's loop
 * @err:	the reason on failure
 * @errlen:	its size
 *
 * Returns 0, -ENOTTY when stdin or stdout is not a terminal or $TERM is
 * unknown, or another -errno from the loop.
 */
int top_ui_start(const struct top_model *m, struct top_display *d,
		 struct loop *l, char *err, size_t errlen)
{
	struct top_ui *u = &top_ui;
	sigset_t mask;
	SCREEN *scr;
	int ret;

	if (u->active)
		return errmsg(err, errlen, -EBUSY, "the screen is already in use");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return errmsg(err, errlen, -ENOTTY,
			      "the screen needs a terminal on stdin and stdout (-b prints batches without one)");
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	setlocale(LC_CTYPE, "");
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return errmsg(err, errlen, -ENOTTY, "unknown terminal type '%s'",
			      getenv("TERM") ? getenv("TERM") : "");
	memset(u, 0, sizeof(*u));
	u->m = m;
	u->d = d;
	u->l = l;
	u->scr = scr;
	u->timer_fd = u->winch_fd = -1;
	u->err_rfd = u->saved_stderr = -1;
	u->utf8 = locale_utf8();
	u->active = true;
	atexit(top_ui_end);

	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	mouseinterval(0);
	setup_colors(u);

	sigemptyset(&mask);
	sigaddset(&mask, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) == 0)
		u->winch_blocked = true;
	u->winch_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (u->winch_fd < 0) {
		ret = errmsg(err, errlen, -errno, "cannot watch the terminal's size: %s",
			     strerror(errno));
		goto out_end;
	}
	ret = loop_add(l, u->winch_fd, on_winch, u);
	if (ret < 0) {
		errmsg(err, errlen, ret, "cannot watch the terminal's size: %s",
		       strerror(-ret));
		goto out_end;
	}
	ret = capture_stderr(u, l);
	if (ret < 0) {
		errmsg(err, errlen, ret, "cannot hold stderr under the screen: %s",
		       strerror(-ret));
		goto out_end;
	}
	ret = loop_add(l, STDIN_FILENO, on_key, u);
	if (ret < 0) {
		errmsg(err, errlen, ret, "cannot read the keyboard: %s", strerror(-ret));
		goto out_end;
	}
	if (d->interval_ms < 100)
		d->interval_ms = 100;
	ret = loop_timer(l, d->interval_ms, 0, on_timer, u);
	if (ret < 0) {
		errmsg(err, errlen, ret, "cannot make the interval timer: %s",
		       strerror(-ret));
		goto out_end;
	}
	u->timer_fd = ret;
	if (d->filter && *d->filter) {
		snprintf(u->filter, sizeof(u->filter), "%s", d->filter);
		d->filter = u->filter;
	}
	u->last_ns = now_ns();
	u->last_cpu_us = cpu_us();
	top_ui_draw(u);
	return 0;

out_end:
	top_ui_end();
	return ret;
}

/**
 * top_ui_end() - give the terminal back as it was: mouse reporting off,
 * the cursor and the modes restored, SIGWINCH unblocked.  Idempotent;
 * registered with atexit() by top_ui_start().
 */
void top_ui_end(void)
{
	struct top_ui *u = &top_ui;
	struct itimerspec off = { 0 };
	sigset_t mask;

	if (!u->active)
		return;
	u->active = false;
	if (u->pane == UI_PANE_EVENTS && u->m->watch)
		u->m->watch(u->m->ctx, NULL);
	mousemask(0, NULL);
	curs_set(1);
	endwin();
	delscreen(u->scr);
	u->scr = NULL;
	release_stderr(u);
	/* the timer belongs to the loop, which closes it; quiet until then */
	if (u->timer_fd >= 0)
		timerfd_settime(u->timer_fd, 0, &off, NULL);
	if (u->winch_fd >= 0)
		close(u->winch_fd);
	u->winch_fd = -1;
	if (u->winch_blocked) {
		sigemptyset(&mask);
		sigaddset(&mask, SIGWINCH);
		sigprocmask(SIG_UNBLOCK, &mask, NULL);
		u->winch_blocked = false;
	}
}
