// SPDX-License-Identifier: GPL-2.0
/*
 * The struct tool callbacks every command built on one session shares.
 */
#include <stdio.h>

#include "tool/tool.h"
#include "tracefs/session.h"

int session_tool_drain(struct tool *t)
{
	long n = session_drain(*t->session);

	return n < 0 ? (int)n : 0;
}

void session_tool_summary(struct tool *t)
{
	session_report_lost(*t->session);
	if (t->opt.json)
		session_json_summary(*t->session, stdout);
}

void session_tool_teardown(struct tool *t)
{
	session_free(*t->session);
	*t->session = NULL;
}
