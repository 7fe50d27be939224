// SPDX-License-Identifier: GPL-2.0
/* The ftrace-style event line and JSON fields of tpoint and uprobe. */
#include <stdarg.h>
#include <stdio.h>

#include "tool/evout.h"
#include "common/json.h"
#include "common/opt.h"
#include "tool/probe_tool.h"
#include "tool/tool.h"

void evout_line(const char *comm, int pid, int cpu, uint64_t ts,
		const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%16s-%-7d [%03d] %5llu.%06llu: %s: ", comm, pid, cpu,
	       (unsigned long long)(ts / 1000000000ULL),
	       (unsigned long long)(ts % 1000000000ULL / 1000), name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void evout_json_fields(struct json *j, const char *key, const struct tk_field *f,
		       int n, const struct tk_event *ev)
{
	char buf[4096];
	int i, k;

	json_obj_open(j, key);
	for (i = 0; i < n; i++, f++) {
		if (f->flags & TK_F_STRING) {
			field_str(ev, f, buf, sizeof(buf));
			json_str(j, f->name, buf);
		} else if (f->flags & TK_F_ARRAY && f->elem) {
			json_arr_open(j, f->name);
			for (k = 0; k * f->elem < f->size; k++)
				json_elem_int(j, field_elem(ev, f, k));
			json_arr_close(j);
		} else if (f->flags & TK_F_SIGNED) {
			json_int(j, f->name, field_int(ev, f));
		} else {
			json_uint(j, f->name, (uint64_t)field_int(ev, f));
		}
	}
	json_obj_close(j);
}

void evout_start(const struct trace_opts *t, const char *fmt, ...)
{
	va_list ap;

	if (t->json)
		return;
	fputs("Tracing ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(". Ctrl-C to end.\n", stderr);
	if (t->headers)
		printf("# tracer: nop\n#\n"
		       "#           TASK-PID       CPU#     TIMESTAMP  FUNCTION\n"
		       "#              | |           |          |         |\n");
	tool_flush();
}
