// SPDX-License-Identifier: GPL-2.0
/* The ftrace-style event line and JSON fields of tpoint and uprobe. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool/evout.h"
#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/probe_tool.h"
#include "tool/tool.h"

/*
 * The comm and the text are the traced system's (a string argument, a
 * tracepoint's filename or comm field): both are escaped, so that one event
 * is one line whatever they hold.
 */
void evout_line(const char *comm, int pid, int cpu, uint64_t ts,
		const char *name, const char *fmt, ...)
{
	static __thread char *text;
	static __thread size_t cap;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, cap, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= cap) {
		free(text);
		cap = (size_t)n + 256;
		text = xmalloc(cap);
		va_start(ap, fmt);
		n = vsnprintf(text, cap, fmt, ap);
		va_end(ap);
	}
	printf("%16s-%-7d [%03d] %5llu.%06llu: %s: ", esc_str(comm), pid, cpu,
	       (unsigned long long)(ts / 1000000000ULL),
	       (unsigned long long)(ts % 1000000000ULL / 1000), name);
	if (n > 0)
		esc_write(stdout, text, (size_t)n);
	putchar('\n');
}

void evout_json_fields(struct json *j, const char *key, const struct tk_field *f,
		       int n, const struct tk_event *ev, bool faults)
{
	char buf[4096];
	int i, k, len;

	json_obj_open(j, key);
	for (i = 0; i < n; i++, f++) {
		if (f->flags & TK_F_STRING) {
			/* null: the kernel could not read it (text: "(fault)") */
			if (faults && field_str_fault(ev, f)) {
				json_null(j, f->name);
				continue;
			}
			len = field_str(ev, f, buf, sizeof(buf));
			json_strn(j, f->name, buf, (size_t)len);
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
