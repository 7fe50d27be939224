// SPDX-License-Identifier: GPL-2.0
/* The context and callchain of a tracefs or perf record (record.h). */
#include <errno.h>

#include "common/task.h"
#include "lang/run.h"
#include "prov/record.h"
#include "tracefs/session.h"

int record_context(const struct tk_event *ev, struct session *s,
		   enum prov_ctx what, struct lang_val *out)
{
	pid_t tgid;

	switch (what) {
	case PROV_CTX_TID:
		out->l = ev->pid;
		return 0;
	case PROV_CTX_PID:
		tgid = task_cache_tgid(ev->pid);
		out->l = tgid > 0 ? tgid : ev->pid;
		return 0;
	case PROV_CTX_PPID:
		tgid = task_cache_tgid(ev->pid);
		out->l = task_ppid(tgid > 0 ? tgid : ev->pid);
		return 0;
	case PROV_CTX_CPU:
		out->l = ev->cpu;
		return 0;
	case PROV_CTX_TIME:
		out->l = (int64_t)ev->ts;
		return 0;
	case PROV_CTX_EXECNAME:
		out->s = s ? session_comm(s, ev->pid) : "";
		return 0;
	default:
		return -ENOENT;
	}
}

int record_stack(const struct tk_event *ev, const uint64_t **pcs, size_t *nk,
		 size_t *nu)
{
	if (!ev->stack || !ev->nstack)
		return -ENOENT;
	*pcs = ev->stack;
	*nk = ev->nkstack;
	*nu = ev->nstack - ev->nkstack;
	return 0;
}

void record_drain(struct run *run, struct session *s)
{
	long n = 0;

	session_stop(s);
	while (!run_exiting(run) && (n = session_drain(s)) > 0)
		;
	if (n < 0)
		run_warn(run, "cannot read the last records: %s", session_error(s));
	session_report_lost(s);
}

void record_close(struct session *s, bool reported)
{
	if (!s)
		return;
	session_stop(s);
	if (!reported)
		session_report_lost(s);
	session_close(s);
	session_free(s);
}
