// SPDX-License-Identifier: GPL-2.0
/*
 * perf-tools' probe definitions and the printing of their hits, for uprobe
 * and kprobe.  A hit is printed as ftrace prints a dynamic event: the
 * probed address in parentheses ("(0x55d0c4a0)" for a uprobe,
 * "(do_sys_openat2+0x0)" for a kprobe, "(RET <- FUNC)" for a return probe),
 * then the args as libtraceevent formats them from the event's print fmt.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/evout.h"
#include "common/json.h"
#include "common/ksym.h"
#include "common/log.h"
#include "tool/probedef.h"
#include "common/task.h"
#include "common/timefmt.h"

static bool is_ident(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* The word at *@p, NUL-terminated in place; *@p moves past the blanks after. */
static char *word(char **p)
{
	char *w = *p, *e = w + strcspn(w, " \t");

	if (*e)
		*e++ = '\0';
	*p = e + strspn(e, " \t");
	return w;
}

/*
 * definition := ('p' | 'r') ':' [NAME ' '] PROBE [' ' ARGS]
 */
int probedef_parse(char *def,
		   bool (*second_is_probe)(const char *first, const char *second, void *ctx),
		   void *ctx, struct probedef *pd, char *err, size_t errlen)
{
	char *rest, *tok;

	memset(pd, 0, sizeof(*pd));
	if ((def[0] != 'p' && def[0] != 'r') || def[1] != ':') {
		snprintf(err, errlen, "definition must start with p: or r:, not '%s'", def);
		return -EINVAL;
	}
	pd->ret = def[0] == 'r';
	rest = def + 2 + strspn(def + 2, " \t");
	if (!*rest) {
		snprintf(err, errlen, "no function in '%s'", def);
		return -EINVAL;
	}
	tok = word(&rest);
	if (*rest && !strchr(tok, ':')) {
		char second[512];

		snprintf(second, sizeof(second), "%.*s", (int)strcspn(rest, " \t"), rest);
		if (second_is_probe(tok, second, ctx)) {
			pd->alias = tok;
			tok = word(&rest);
			if (strchr(pd->alias, '/')) {
				snprintf(err, errlen,
					 "the event group is %s's own: give only an event name, not '%s'",
					 tk_prog, pd->alias);
				return -EINVAL;
			}
			if (!is_ident(pd->alias)) {
				snprintf(err, errlen, "event name must be a C identifier, not '%s'",
					 pd->alias);
				return -EINVAL;
			}
		}
	}
	pd->probe = tok;
	pd->args = *rest ? rest : NULL;
	return 0;
}

char *probedef_event_name(const char *s)
{
	char *name = xstrdup(s), *p;

	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	if (isdigit((unsigned char)*name)) {
		p = xasprintf("_%s", name);
		free(name);
		name = p;
	}
	return name;
}

void probe_out_init(struct probe_out *po, struct tk_field *fields, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		const char *name = fields[i].name;

		if (!strcmp(name, "__probe_ip") || !strcmp(name, "__probe_func"))
			po->ip = fields[i];
		else if (!strcmp(name, "__probe_ret_ip"))
			po->ret_ip = fields[i];
		else
			fields[k++] = fields[i];
		if (fields[i].flags & TK_F_STRING)
			po->has_str = true;
	}
	po->fields = fields;
	po->nfields = k;
	trace_seq_init(&po->seq);
}

void probe_out_release(struct probe_out *po)
{
	if (po->seq.buffer)
		trace_seq_destroy(&po->seq);
	po->seq.buffer = NULL;
	free(po->fields);
	po->fields = NULL;
}

enum { OFF_ALWAYS, OFF_NONZERO, OFF_NEVER };

/* A kernel address as "sym+0xoff" (@offs: always, unless 0, never), with
 * " [mod]" for a module when @mod; hex when it has no symbol. */
static void ksym_str(const struct probe_out *po, uint64_t addr, int offs, bool mod,
		     char *buf, size_t n)
{
	const char *sym = NULL, *m = NULL;
	char off_s[32] = "";
	uint64_t off = 0;

	if (po->ks)
		sym = ksyms_lookup(po->ks, addr, &off, &m);
	if (!sym) {
		snprintf(buf, n, "0x%llx", (unsigned long long)addr);
		return;
	}
	if (offs == OFF_ALWAYS || (offs == OFF_NONZERO && off))
		snprintf(off_s, sizeof(off_s), "+0x%llx", (unsigned long long)off);
	if (mod && m)
		snprintf(buf, n, "%s%s [%s]", sym, off_s, m);
	else
		snprintf(buf, n, "%s%s", sym, off_s);
}

static void hit_json(struct probe_out *po, const struct tk_event *ev, const char *comm)
{
	pid_t tgid = po->pid ? po->pid : task_cache_tgid(ev->pid);
	unsigned int i;
	struct json j;
	char buf[512];

	if (tgid <= 0)
		tgid = task_tgid(ev->pid);
	json_begin(&j, stdout);
	json_uint(&j, "ts_ns", time_to_real(ev->ts));
	json_str(&j, "comm", comm);
	if (tgid > 0)
		json_int(&j, "pid", tgid);
	else
		json_null(&j, "pid");
	json_int(&j, "tid", ev->pid);
	json_int(&j, "cpu", ev->cpu);
	json_str(&j, "event", po->event);
	json_uint(&j, "addr", (uint64_t)field_int(ev, &po->ip));
	if (po->ret)
		json_uint(&j, "ret_addr", (uint64_t)field_int(ev, &po->ret_ip));
	evout_json_fields(&j, "args", po->fields, po->nfields, ev, true);
	if (po->stacks && po->kernel) {
		json_arr_open(&j, "kstack");
		for (i = 0; i < ev->nkstack; i++) {
			ksym_str(po, ev->stack[i], OFF_ALWAYS, false, buf, sizeof(buf));
			json_elem_str(&j, buf);
		}
		json_arr_close(&j);
	} else if (po->stacks) {
		json_arr_open(&j, "ustack");
		for (i = ev->nkstack; i < ev->nstack; i++)
			json_elem_uint(&j, ev->stack[i]);
		json_arr_close(&j);
	}
	json_end(&j);
}

/*
 * The args text of a hit where a string fetch faulted (a NULL pointer):
 * libtraceevent would print that string from the offset the kernel left
 * (nothing, or the next string's bytes), so the text is built here from
 * the fields, in the print fmt's notation (hex where it says 0x), with
 * "(fault)" as ftrace and perf print it.  Rare, so not made fast.
 */
static const char *fault_info(struct probe_out *po, const struct tk_event *ev)
{
	const struct tep_event *e = tep_find_event(po->tep, ev->id);
	const char *fmt = e && e->print_fmt.format ? e->print_fmt.format : "";
	static char str[4096];
	char key[128];
	int i, k;

	trace_seq_reset(&po->seq);
	for (i = 0; i < po->nfields; i++) {
		const struct tk_field *f = &po->fields[i];
		const char *at;
		bool hex;

		snprintf(key, sizeof(key), " %s=", f->name);
		at = strstr(fmt, key);
		hex = at && (!strncmp(at + strlen(key), "0x", 2) ||
			     !strncmp(at + strlen(key), "{0x", 3));
		trace_seq_puts(&po->seq, key);
		if (f->flags & TK_F_STRING) {
			if (field_str_fault(ev, f)) {
				trace_seq_puts(&po->seq, "(fault)");
			} else {
				field_str(ev, f, str, sizeof(str));
				trace_seq_printf(&po->seq, "\"%s\"", str);
			}
		} else if (f->flags & TK_F_ARRAY && f->elem) {
			for (k = 0; k * f->elem < f->size; k++)
				trace_seq_printf(&po->seq, hex ? "%s0x%llx" : "%s%lld",
						 k ? "," : "{",
						 (long long)field_elem(ev, f, k));
			trace_seq_puts(&po->seq, "}");
		} else if (f->flags & TK_F_SIGNED) {
			trace_seq_printf(&po->seq, "%lld", (long long)field_int(ev, f));
		} else {
			trace_seq_printf(&po->seq, hex ? "0x%llx" : "%llu",
					 (unsigned long long)field_int(ev, f));
		}
	}
	trace_seq_terminate(&po->seq);
	return po->seq.buffer;
}

static bool any_fault(const struct probe_out *po, const struct tk_event *ev)
{
	int i;

	for (i = 0; i < po->nfields; i++)
		if (po->fields[i].flags & TK_F_STRING &&
		    field_str_fault(ev, &po->fields[i]))
			return true;
	return false;
}

void probe_out_hit(struct probe_out *po, const struct tk_event *ev, const char *comm)
{
	struct tep_record rec = {
		.ts = ev->ts, .size = (int)ev->size, .record_size = (int)ev->size,
		.data = (void *)ev->data, .cpu = ev->cpu,
	};
	uint64_t ip, ret_ip;
	char addr[600], a[280], r[280];
	const char *info;
	unsigned int i;

	if (po->json) {
		hit_json(po, ev, comm);
		return;
	}
	/* the args as libtraceevent prints them, after the "(%lx)" of the
	 * format file's print fmt, which is replaced by our own address */
	if (po->has_str && any_fault(po, ev)) {
		info = fault_info(po, ev);
	} else {
		trace_seq_reset(&po->seq);
		tep_print_event(po->tep, &po->seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&po->seq);
		info = strchr(po->seq.buffer, ')');
		info = info ? info + 1 : "";
	}
	ip = (uint64_t)field_int(ev, &po->ip);
	ret_ip = (uint64_t)field_int(ev, &po->ret_ip);
	if (po->kernel) {
		/* as ftrace: "(do_sys_open+0x0)", "(ret_site+0x5e <- do_sys_open)" */
		ksym_str(po, ip, po->ret ? OFF_NONZERO : OFF_ALWAYS, false, a, sizeof(a));
		if (po->ret)
			ksym_str(po, ret_ip, OFF_ALWAYS, false, r, sizeof(r));
	} else {
		snprintf(a, sizeof(a), "0x%llx", (unsigned long long)ip);
		snprintf(r, sizeof(r), "0x%llx", (unsigned long long)ret_ip);
	}
	if (po->ret)
		snprintf(addr, sizeof(addr), "(%s <- %s)", r, a);
	else
		snprintf(addr, sizeof(addr), "(%s)", a);
	evout_line(comm, ev->pid, ev->cpu, ev->ts, po->event, "%s%s", addr, info);
	if (!po->stacks)
		return;
	if (po->kernel) {
		/* perf-tools' (ftrace's stacktrace option): function names */
		for (i = 0; i < ev->nkstack; i++) {
			ksym_str(po, ev->stack[i], OFF_NEVER, true, a, sizeof(a));
			printf(" => %s\n", a);
		}
	} else {
		for (i = ev->nkstack; i < ev->nstack; i++)
			printf(" => 0x%llx\n", (unsigned long long)ev->stack[i]);
	}
}
