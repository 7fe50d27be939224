// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-side filters (ftrace filter syntax), checked by the kernel when
 * they are given, so that a bad one fails with the kernel's reason before
 * anything runs.  A record event's filter lives in its filter file in our
 * instance; a counter's or sampler's is only checked there and applied
 * through perf (PERF_EVENT_IOC_SET_FILTER).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "common/log.h"
#include "tracefs/internal.h"
#include "tracefs/session.h"

int session_filter(struct session *s, struct tp *tp, const char *filter,
		   bool in_instance)
{
	char file[512], why[256];
	int err;

	/*
	 * Setting an ftrace filter waits for an RCU grace period: for
	 * counters and samplers (only checked here, applied through perf) a
	 * filter the kernel already accepted is not checked again for every
	 * event (syscount -x puts one filter on ~360 events).  perf still
	 * refuses it where it does not fit.
	 */
	if (!in_instance && s->checked_filter && !strcmp(s->checked_filter, filter))
		return 0;
	err = instance_get(s);
	if (err)
		return err;
	snprintf(file, sizeof(file), "events/%s/%s/filter", tp->system, tp->name);
	tracefs_error_clear(s->inst);
	errno = 0;
	if (tracefs_instance_file_write(s->inst, file, filter) >= 0) {
		if (!in_instance) {	/* only checked here */
			tracefs_instance_file_write(s->inst, file, "0");
			free(s->checked_filter);
			s->checked_filter = xstrdup(filter);
		}
		return 0;
	}
	err = errno ? errno : EINVAL;
	if (err != EINVAL) {	/* not the filter: the file itself */
		session_errorf(s, "cannot write the filter of %s:%s: %s",
			       tp->system, tp->name, strerror(err));
		return -err;
	}
	instance_kernel_reason(s, why, sizeof(why));
	session_errorf(s, "filter '%s' rejected by the kernel: %s", filter,
		       why[0] ? why : strerror(err));
	return -EINVAL;
}
