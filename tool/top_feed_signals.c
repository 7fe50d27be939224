// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's "signals" feeder: every signal generated (signal:
 * signal_generate), by signal, sender and target, with the kernel's
 * result (delivered, ignored, already pending...).  The sender is the task
 * the record was made in; the target is the record's pid and comm.
 *
 * A filter on the signal (by name or number) or on the target goes into
 * the kernel (`sig == N`, `pid == T`).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/opt.h"
#include "common/task.h"
#include "tool/top_int.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

enum {
	F_SIG, F_SIGNUM, F_SPID, F_SCOMM, F_TPID, F_TCOMM, F_RESULT, F_CODE,
	F_N
};

static const struct top_field fields[F_N] = {
	[F_SIG]    = { "sig", "SIG", AGT_STR, AGT_PLAIN, 8 },
	[F_SIGNUM] = { "signum", "SIGNUM", AGT_INT, AGT_PLAIN, 0 },
	[F_SPID]   = { "spid", "SPID", AGT_INT, AGT_PLAIN, 0 },
	[F_SCOMM]  = { "scomm", "SCOMM", AGT_STR, AGT_PLAIN, 15 },
	[F_TPID]   = { "tpid", "TPID", AGT_INT, AGT_PLAIN, 0 },
	[F_TCOMM]  = { "tcomm", "TCOMM", AGT_STR, AGT_PLAIN, 15 },
	[F_RESULT] = { "result", "RESULT", AGT_STR, AGT_PLAIN, 9 },
	[F_CODE]   = { "code", "CODE", AGT_INT, AGT_PLAIN, 0 },
};

/* enum trace_signal_deliver_result (include/trace/events/signal.h) */
static const char *const results[] = {
	"delivered", "ignored", "pending", "overflow", "lostinfo",
};

struct signals {
	struct top_feed *f;
	int id;
	struct tk_field sig, comm, pid, result, code;
};

static int signals_init(struct top_feed *f)
{
	f->fields = fields;
	f->nfields = F_N;
	return 0;
}

static void signals_event(struct top_feed *f, const struct tk_event *ev)
{
	struct signals *sg = f->priv;
	int sig, res;
	pid_t spid;
	char tcomm[16], rbuf[16];
	struct agt_sample s;

	if (ev->id != sg->id)
		return;
	sig = (int)field_int(ev, &sg->sig);
	res = (int)field_int(ev, &sg->result);
	spid = task_cache_tgid(ev->pid);
	field_str(ev, &sg->comm, tcomm, sizeof(tcomm));
	memset(&s, 0, sizeof(s));
	s.str[F_SIG] = signal_name(sig);
	s.num[F_SIGNUM] = sig;
	s.num[F_SPID] = spid > 0 ? spid : ev->pid;
	s.str[F_SCOMM] = session_comm(f->s, ev->pid);
	s.num[F_TPID] = field_int(ev, &sg->pid);
	s.str[F_TCOMM] = tcomm;
	if (res >= 0 && res < (int)(sizeof(results) / sizeof(results[0]))) {
		s.str[F_RESULT] = results[res];
	} else {
		snprintf(rbuf, sizeof(rbuf), "%d", res);
		s.str[F_RESULT] = rbuf;
	}
	s.num[F_CODE] = field_int(ev, &sg->code);
	s.have = (1ull << F_N) - 1;
	top_emit(f, ev, &s);
}

/* A signal filter's number ("TERM", "SIGTERM", "15"), or -1. */
static int filter_sig(struct top_feed *f, const char *name)
{
	struct top_filter *flt = top_filter_find(f, name);
	int sig = flt ? opt_signal(flt->text) : -1;

	if (sig > 0)
		flt->kernel = true;
	return sig;
}

static int signals_setup(struct top_feed *f)
{
	struct signals *sg = xcalloc(1, sizeof(*sg));
	struct top_filter *tpid = top_filter_find(f, "tpid");
	char filter[96] = "", *end;
	long long t;
	struct tp *tp;
	int sig;

	f->priv = sg;
	sg->f = f;
	sig = filter_sig(f, "sig");
	if (sig < 0)
		sig = filter_sig(f, "signum");
	if (sig > 0)
		snprintf(filter, sizeof(filter), "sig == %d", sig);
	if (tpid && (t = strtoll(tpid->text, &end, 10)) > 0 && !*end) {
		snprintf(filter + strlen(filter), sizeof(filter) - strlen(filter),
			 "%spid == %lld", *filter ? " && " : "", t);
		tpid->kernel = true;
	}
	tp = session_add(f->s, "signal", "signal_generate", TP_RECORD,
			 *filter ? filter : NULL);
	if (!tp) {
		snprintf(f->err, sizeof(f->err), "signals: %s", session_error(f->s));
		return errno ? -errno : -ENOENT;
	}
	sg->id = tp->id;
	if (format_field(tp->event, "sig", &sg->sig) < 0 ||
	    format_field(tp->event, "comm", &sg->comm) < 0 ||
	    format_field(tp->event, "pid", &sg->pid) < 0 ||
	    format_field(tp->event, "result", &sg->result) < 0 ||
	    format_field(tp->event, "code", &sg->code) < 0) {
		snprintf(f->err, sizeof(f->err),
			 "signals: signal:signal_generate lacks sig, comm, pid, result or code");
		return -ENOENT;
	}
	if (f->verbose)
		pr_info("signals: signal:signal_generate records%s%s",
			*filter ? "; kernel filter " : "", filter);
	return 0;
}

static void signals_release(struct top_feed *f)
{
	free(f->priv);
	f->priv = NULL;
}

const struct top_feeder top_feed_signals = {
	.name = "signals",
	.init = signals_init,
	.setup = signals_setup,
	.event = signals_event,
	.release = signals_release,
	.pid_field = "spid",
};
