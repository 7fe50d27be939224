// SPDX-License-Identifier: GPL-2.0
/*
 * The probe families tapkit's language knows, in the order the elaborator
 * asks them to expand a probe point.  A new family is one file in prov/
 * and one line here; cmd/tapkit.c hands the list to the language.
 */
#include <stddef.h>

#include "prov/prov.h"

const struct provider *const prov_all[] = {
	&prov_perf,		/* before basic: timer.profile is perf's */
	&prov_basic,
	&prov_trace,
	&prov_kprobe,
	&prov_procs,
	&prov_procfs,
	&prov_uprobe,
	NULL,
};
