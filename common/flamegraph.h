/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_FLAMEGRAPH_H
#define TAPKIT_FLAMEGRAPH_H

/*
 * An SVG flame graph of aggregated stacks in the look of Brendan Gregg's
 * FlameGraph (flamegraph.pl): the root "all" at the bottom, each stack's
 * process name then its frames root first (the folded format's order)
 * stacked above it, boxes as wide as their share of the total, in warm
 * colours, siblings in alphabetical order, each with a <title> giving its
 * name, value and percentage; a small script zooms on a click and
 * searches (Ctrl-F).
 */
#include <stdio.h>

#include "common/stackagg.h"

struct flamegraph_opts {
	const char *title;	/* NULL: "Flame Graph" */
	const char *unit;	/* what the values count: "samples", "us" */
};

/**
 * flamegraph_write() - write the SVG of @a's stacks (the frames @po asks
 * for, kernel frames annotated "_[k]" with po->annotate) to @f
 * Returns 0, or -errno when writing failed.
 */
int flamegraph_write(const struct stackagg *a,
		     const struct stackagg_print_opts *po,
		     const struct flamegraph_opts *o, FILE *f);

#endif
