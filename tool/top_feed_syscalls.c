// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's system-call feeders.
 *
 * syscalls: a record per call from raw_syscalls:sys_exit (as syscount -P
 * has one from sys_enter): each exit is one sample with its process,
 * thread, syscall and result.  A view that times calls (its columns read
 * "lat") records sys_enter too, as syscount -P -L does: twice the records,
 * and the latency of each exit whose entry was seen on the same thread.
 * A filter on the syscall goes into the kernel as "id == N", one on the
 * process becomes the session's PID (the engine does that).
 *
 * syscount: the kernel counts each syscalls:sys_enter_* tracepoint in
 * perf_event counting mode, as syscount does, and no record is written;
 * each tick reads the counters and emits the deltas as weights.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/syscalls.h"
#include "common/task.h"
#include "tool/top_int.h"
#include "tracefs/format.h"
#include "tracefs/perf_event.h"
#include "tracefs/session.h"

enum { F_PID, F_TID, F_COMM, F_TCOMM, F_SYSCALL, F_NR, F_LAT, F_ERR, F_RET };

static const struct top_field sys_fields[] = {
	[F_PID] = { "pid", "PID", AGT_INT, AGT_PLAIN, 7 },
	[F_TID] = { "tid", "TID", AGT_INT, AGT_PLAIN, 7 },
	[F_COMM] = { "comm", "COMM", AGT_STR, AGT_PLAIN, 16 },	/* the process's */
	[F_TCOMM] = { "tcomm", "COMM", AGT_STR, AGT_PLAIN, 16 },	/* the thread's */
	[F_SYSCALL] = { "syscall", "SYSCALL", AGT_STR, AGT_PLAIN, 18 },
	[F_NR] = { "nr", "NR", AGT_INT, AGT_PLAIN, 4 },
	[F_LAT] = { "lat", "LAT", AGT_INT, AGT_NS, 0 },
	[F_ERR] = { "err", "ERR", AGT_INT, AGT_PLAIN, 0 },
	[F_RET] = { "ret", "RET", AGT_INT, AGT_PLAIN, 0 },
};

struct sys_feed {
	struct tp *enter, *exit;
	struct tk_field enter_id, exit_id, exit_ret;
	struct hmap *inflight;		/* tid -> struct inflight */
	char nrname[24];
};

struct inflight {
	uint64_t ts;
	long nr;
};

static int sys_init(struct top_feed *f)
{
	f->fields = sys_fields;
	f->nfields = sizeof(sys_fields) / sizeof(sys_fields[0]);
	return 0;
}

/* The syscall filter (by name or number) as a number, or -1. */
static long filter_nr(struct top_feed *f, struct top_filter **which)
{
	struct top_filter *flt = top_filter_find(f, "syscall");

	*which = flt;
	if (flt)
		return syscall_nr(flt->text);
	flt = top_filter_find(f, "nr");
	*which = flt;
	return flt ? flt->num : -1;
}

static int sys_setup(struct top_feed *f)
{
	struct sys_feed *sf = xcalloc(1, sizeof(*sf));
	struct top_filter *flt;
	char filter[32] = "";
	long nr = filter_nr(f, &flt);

	f->priv = sf;
	if (flt && nr < 0)
		return errmsg(f->err, sizeof(f->err), -ENOENT,
			      "unknown system call '%s'", flt->text);
	if (flt) {
		snprintf(filter, sizeof(filter), "id == %ld", nr);
		flt->kernel = true;
	}
	if (f->used & (1ULL << F_LAT)) {
		sf->enter = session_add(f->s, "raw_syscalls", "sys_enter", TP_RECORD,
					filter[0] ? filter : NULL);
		if (!sf->enter || format_field(sf->enter->event, "id", &sf->enter_id) < 0)
			return errmsg(f->err, sizeof(f->err), -ENOENT, "%s",
				      session_error(f->s));
	}
	sf->exit = session_add(f->s, "raw_syscalls", "sys_exit", TP_RECORD,
			       filter[0] ? filter : NULL);
	if (!sf->exit || format_field(sf->exit->event, "id", &sf->exit_id) < 0 ||
	    format_field(sf->exit->event, "ret", &sf->exit_ret) < 0)
		return errmsg(f->err, sizeof(f->err), -ENOENT, "%s",
			      session_error(f->s));
	sf->inflight = hmap_new(sizeof(struct inflight));
	if (f->verbose)
		fprintf(stderr, "tracetop: syscalls: raw_syscalls %s records in instance %s%s%s\n",
			sf->enter ? "sys_enter and sys_exit" : "sys_exit",
			session_name(f->s), filter[0] ? ", kernel filter " : "", filter);
	return 0;
}

static void sys_event(struct top_feed *f, const struct tk_event *ev)
{
	struct sys_feed *sf = f->priv;
	struct agt_sample s;
	struct inflight *in;
	const char *name;
	pid_t tgid;
	long nr;

	if (sf->enter && ev->id == sf->enter->id) {
		in = hmap_get(sf->inflight, (uint64_t)ev->pid, true);
		in->ts = ev->ts;
		in->nr = (long)field_int(ev, &sf->enter_id);
		return;
	}
	nr = (long)field_int(ev, &sf->exit_id);
	s.weight = 1;
	s.have = (1ULL << F_PID) | (1ULL << F_TID) | (1ULL << F_COMM) |
		 (1ULL << F_TCOMM) | (1ULL << F_SYSCALL) | (1ULL << F_NR) | (1ULL << F_ERR) |
		 (1ULL << F_RET);
	tgid = task_cache_tgid(ev->pid);
	s.num[F_PID] = tgid > 0 ? tgid : ev->pid;
	s.num[F_TID] = ev->pid;
	s.str[F_COMM] = session_comm(f->s, (pid_t)s.num[F_PID]);
	s.str[F_TCOMM] = ev->pid == s.num[F_PID] ? s.str[F_COMM] :
			 session_comm(f->s, ev->pid);
	name = syscall_name(nr);
	if (!name) {
		snprintf(sf->nrname, sizeof(sf->nrname), "syscall_%ld", nr);
		name = sf->nrname;
	}
	s.str[F_SYSCALL] = name;
	s.num[F_NR] = nr;
	s.num[F_RET] = field_int(ev, &sf->exit_ret);
	s.num[F_ERR] = s.num[F_RET] < 0;
	in = sf->enter ? hmap_get(sf->inflight, (uint64_t)ev->pid, false) : NULL;
	if (in) {
		if (in->nr == nr && ev->ts >= in->ts) {
			s.num[F_LAT] = (int64_t)(ev->ts - in->ts);
			s.have |= 1ULL << F_LAT;
		}
		hmap_del(sf->inflight, (uint64_t)ev->pid);
	}
	top_emit(f, ev, &s);
}

static void sys_release(struct top_feed *f)
{
	struct sys_feed *sf = f->priv;

	if (!sf)
		return;
	hmap_free(sf->inflight);
	free(sf);
	f->priv = NULL;
}

const struct top_feeder top_feed_syscalls = {
	.name = "syscalls",
	.init = sys_init,
	.setup = sys_setup,
	.event = sys_event,
	.release = sys_release,
	.pid_field = "pid",
};

/* ---- syscount: counted in the kernel ---- */

enum { C_SYSCALL };

static const struct top_field count_fields[] = {
	[C_SYSCALL] = { "syscall", "SYSCALL", AGT_STR, AGT_PLAIN, 18 },
};

struct counter {
	struct tp *tp;
	const char *name;
	uint64_t last;
};

struct count_feed {
	struct counter *ctrs;
	int n;
};

static int count_init(struct top_feed *f)
{
	f->fields = count_fields;
	f->nfields = 1;
	return 0;
}

/* Tracepoint names are the kernel's SYSCALL_DEFINE names ("newuname"). */
static const char *display_name(const char *tp_name)
{
	if (syscall_nr(tp_name) < 0 && !strncmp(tp_name, "new", 3) &&
	    syscall_nr(tp_name + 3) >= 0)
		return tp_name + 3;
	return tp_name;
}

static int count_setup(struct top_feed *f)
{
	struct count_feed *cf = xcalloc(1, sizeof(*cf));
	struct top_filter *only = top_filter_find(f, "syscall");
	char **events;
	int i, n, err = 0;

	f->priv = cf;
	n = format_system_events("syscalls", "sys_enter_", &events);
	if (n < 0 && n != -ENOENT)
		return errmsg(f->err, sizeof(f->err), n,
			      "cannot list the syscalls tracepoints: %s", strerror(-n));
	if (n <= 0)
		return errmsg(f->err, sizeof(f->err), n < 0 ? n : -ENOENT,
			      "no syscalls tracepoints in this kernel (CONFIG_FTRACE_SYSCALLS)");
	perf_raise_fd_limit();
	cf->ctrs = xcalloc(n, sizeof(*cf->ctrs));
	for (i = 0; events[i]; i++) {
		const char *name = display_name(events[i] + strlen("sys_enter_"));
		struct counter *c = &cf->ctrs[cf->n];

		if (only && strcmp(only->text, name))
			continue;
		c->tp = session_add(f->s, "syscalls", events[i], TP_COUNT, NULL);
		if (!c->tp) {
			err = errmsg(f->err, sizeof(f->err), -errno ?: -EIO, "%s",
				     session_error(f->s));
			break;
		}
		c->name = display_name(c->tp->name + strlen("sys_enter_"));
		cf->n++;
	}
	format_names_free(events);
	if (!err && only && !cf->n)
		err = errmsg(f->err, sizeof(f->err), -ENOENT,
			     "no syscalls tracepoint for '%s'", only->text);
	if (only)
		only->kernel = true;
	if (!err && f->verbose)
		fprintf(stderr, "tracetop: syscount: %d syscalls counted in perf_event counting mode (no records)\n",
			cf->n);
	return err;
}

static void count_event(struct top_feed *f, const struct tk_event *ev)
{
}

static void count_tick(struct top_feed *f)
{
	struct count_feed *cf = f->priv;
	struct agt_sample s;
	int i;

	memset(&s, 0, sizeof(s));
	s.have = 1ULL << C_SYSCALL;
	for (i = 0; i < cf->n; i++) {
		uint64_t v = session_count(cf->ctrs[i].tp);

		if (v == cf->ctrs[i].last)
			continue;
		s.str[C_SYSCALL] = cf->ctrs[i].name;
		s.weight = v - cf->ctrs[i].last;
		cf->ctrs[i].last = v;
		top_emit(f, NULL, &s);
	}
}

static void count_release(struct top_feed *f)
{
	struct count_feed *cf = f->priv;

	if (!cf)
		return;
	free(cf->ctrs);
	free(cf);
	f->priv = NULL;
}

const struct top_feeder top_feed_syscount = {
	.name = "syscount",
	.init = count_init,
	.setup = count_setup,
	.event = count_event,
	.tick = count_tick,
	.release = count_release,
};
