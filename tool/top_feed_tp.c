// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's feeder for any tracepoint (-e SYS:EVENT): the record's task
 * (pid, tid, comm, cpu) and every integer and string field of its format
 * are the sample's fields, so a view can key and aggregate by any of them.
 * Filters on the event's own fields go into the kernel as "FIELD == VALUE".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/task.h"
#include "tool/top_int.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

enum { T_PID, T_TID, T_COMM, T_CPU, T_NFIXED };

struct tp_feed {
	char sys[64], name[128];
	struct top_field fields[AGT_MAX_SLOTS];
	char titles[AGT_MAX_SLOTS][32];
	struct tk_field tf[AGT_MAX_SLOTS];	/* slots T_NFIXED.. */
	char (*strbuf)[AGT_STR_MAX];		/* a buffer per string slot */
	struct tp *tp;
};

static const struct top_field fixed[T_NFIXED] = {
	[T_PID] = { "pid", "PID", AGT_INT, AGT_PLAIN, 7 },
	[T_TID] = { "tid", "TID", AGT_INT, AGT_PLAIN, 7 },
	[T_COMM] = { "comm", "COMM", AGT_STR, AGT_PLAIN, 16 },
	[T_CPU] = { "cpu", "CPU", AGT_INT, AGT_PLAIN, 3 },
};

static int tp_init(struct top_feed *f)
{
	struct tp_feed *tf = xcalloc(1, sizeof(*tf));
	const char *colon = f->arg ? strchr(f->arg, ':') : NULL;
	struct tep_event *ev;
	struct tk_field *all;
	int i, n, k;

	f->priv = tf;
	if (!colon || colon == f->arg || !colon[1] ||
	    (size_t)(colon - f->arg) >= sizeof(tf->sys) ||
	    strlen(colon + 1) >= sizeof(tf->name) || strchr(colon + 1, '/'))
		return errmsg(f->err, sizeof(f->err), -EINVAL,
			      "event '%s' is not SYSTEM:EVENT", f->arg ? f->arg : "");
	snprintf(tf->sys, sizeof(tf->sys), "%.*s", (int)(colon - f->arg), f->arg);
	snprintf(tf->name, sizeof(tf->name), "%s", colon + 1);
	ev = format_load(tf->sys, tf->name);
	if (!ev)
		return errmsg(f->err, sizeof(f->err), -errno,
			      errno == ENOENT ? "no tracepoint '%s:%s'" :
			      errno == EACCES ? "cannot read tracepoint '%s:%s': tracing needs root" :
			      "cannot read the format of '%s:%s'", tf->sys, tf->name);
	memcpy(tf->fields, fixed, sizeof(fixed));
	all = format_fields(ev, &n);
	k = T_NFIXED;
	for (i = 0; i < n && k < AGT_MAX_SLOTS; i++) {
		struct top_field *fl = &tf->fields[k];
		bool str = all[i].flags & TK_F_STRING;
		size_t j;

		if (!str && ((all[i].flags & TK_F_ARRAY) ||
			     !(all[i].size == 1 || all[i].size == 2 ||
			       all[i].size == 4 || all[i].size == 8)))
			continue;	/* arrays of numbers: not a value */
		if (top_field_find(&(struct top_feed){ .fields = tf->fields,
						       .nfields = k }, all[i].name) >= 0)
			continue;	/* a field named like pid/comm/cpu */
		tf->tf[k] = all[i];
		fl->name = all[i].name;
		for (j = 0; all[i].name[j] && j + 1 < sizeof(tf->titles[k]); j++)
			tf->titles[k][j] = all[i].name[j] >= 'a' && all[i].name[j] <= 'z' ?
					   all[i].name[j] - 32 : all[i].name[j];
		fl->title = tf->titles[k];
		fl->type = str ? AGT_STR : AGT_INT;
		fl->unit = all[i].flags & TK_F_POINTER ? AGT_HEX : AGT_PLAIN;
		k++;
	}
	free(all);
	tf->strbuf = xcalloc(k, sizeof(*tf->strbuf));
	f->fields = tf->fields;
	f->nfields = k;
	return 0;
}

/* "A == 1 && B == \"x\"" for the filters on the event's own fields. */
static void kernel_filter(struct top_feed *f, char *buf, size_t len)
{
	size_t pos = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < f->nfilters; i++) {
		struct top_filter *flt = &f->filters[i];
		int n;

		if (flt->slot < T_NFIXED)
			continue;	/* pid: the session's; the others here */
		if (f->fields[flt->slot].type == AGT_STR) {
			if (strpbrk(flt->text, "\"\\") || strlen(flt->text) > 200)
				continue;
			n = snprintf(buf + pos, len - pos, "%s%s == \"%s\"",
				     pos ? " && " : "", flt->field, flt->text);
		} else {
			n = snprintf(buf + pos, len - pos, "%s%s == %lld",
				     pos ? " && " : "", flt->field, (long long)flt->num);
		}
		if (n < 0 || (size_t)n >= len - pos) {
			buf[pos] = '\0';
			break;
		}
		pos += n;
		flt->kernel = true;
	}
}

static int tp_setup(struct top_feed *f)
{
	struct tp_feed *tf = f->priv;
	char filter[1024];

	kernel_filter(f, filter, sizeof(filter));
	tf->tp = session_add(f->s, tf->sys, tf->name, TP_RECORD,
			     filter[0] ? filter : NULL);
	if (!tf->tp)
		return errmsg(f->err, sizeof(f->err), -errno ?: -EIO, "%s",
			      session_error(f->s));
	if (f->verbose)
		fprintf(stderr, "tracetop: %s:%s records in instance %s%s%s\n",
			tf->sys, tf->name, session_name(f->s),
			filter[0] ? ", kernel filter " : "", filter);
	return 0;
}

static void tp_event(struct top_feed *f, const struct tk_event *ev)
{
	struct tp_feed *tf = f->priv;
	struct agt_sample s;
	pid_t tgid = task_cache_tgid(ev->pid);
	int i;

	s.weight = 1;
	s.have = (1ULL << f->nfields) - 1;
	s.num[T_PID] = tgid > 0 ? tgid : ev->pid;
	s.num[T_TID] = ev->pid;
	s.str[T_COMM] = session_comm(f->s, ev->pid);
	s.num[T_CPU] = ev->cpu;
	for (i = T_NFIXED; i < f->nfields; i++) {
		if (f->fields[i].type == AGT_STR) {
			field_str(ev, &tf->tf[i], tf->strbuf[i], AGT_STR_MAX);
			s.str[i] = tf->strbuf[i];
		} else {
			s.num[i] = field_int(ev, &tf->tf[i]);
		}
	}
	top_emit(f, ev, &s);
}

static void tp_release(struct top_feed *f)
{
	struct tp_feed *tf = f->priv;

	if (!tf)
		return;
	free(tf->strbuf);
	free(tf);
	f->priv = NULL;
}

const struct top_feeder top_feed_tp = {
	.name = "tp",
	.init = tp_init,
	.setup = tp_setup,
	.event = tp_event,
	.release = tp_release,
	.pid_field = "pid",
};
