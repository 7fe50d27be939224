// SPDX-License-Identifier: GPL-2.0
/*
 * Memory reads in kernel.trace handlers, through an event probe.
 *
 * A tracepoint carries pointers (sys_enter_openat's $filename), and the
 * memory behind them is gone, or changed, by the time tapkit reads the
 * record.  The kernel's event probes (eprobes, 5.15) copy it as the event
 * happens: a dynamic event attached to the tracepoint,
 *
 *	e:GROUP/sys_enter_openat_0 syscalls.sys_enter_openat
 *		filename=$filename:u64 mem0=+0($filename):ustring
 *
 * whose fetch args copy the fields the handler uses (typed from the
 * tracepoint's format) and add each read: +0(..):ustring for user_string(),
 * :string for kernel_string(), +u0(..):s64/:s32 for user_long()/user_int(),
 * +0(..):s64/:s32 for the kernel's.  The probe is then fed by the event
 * probe's records instead of the tracepoint's; a variable keeps its index
 * (the field's in the tracepoint, nfields + i for read i), and efields[]
 * says where each is in the new records.
 *
 * The kernel does not record that a read of a number faulted; a string
 * read that faulted is stored with length 0 ("(fault)" in the trace), and
 * fetch() says so through out->l so that user_string() raises stap's
 * error.  (Older kernels, 6.1 among them, store an empty user string the
 * same way.)
 *
 * A kernel without eprobes still lists their syntax in the README; it is
 * the definition's write that fails, and tracefs/session.c tells that
 * apart from a definition the kernel disliked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/fmt_sb.h"
#include "lang/run.h"
#include "prov/trace.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

static bool is_string(enum prov_mem kind)
{
	return kind == PROV_MEM_USTRING || kind == PROV_MEM_KSTRING;
}

/* String variable @idx of the record, into its own buffer. */
static const char *read_str(struct tprobe *t, const struct tk_event *ev, int idx)
{
	char *b = trace_str_buf(t, idx);

	field_str(ev, &t->efields[idx], b, TRACE_STR_MAX);
	return b;
}

static bool field_named(const struct tprobe *t, const char *name)
{
	int i;

	for (i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i].name, name))
			return true;
	return false;
}

/* mem0, mem1...: an argument name no field of the tracepoint has. */
static void name_read(const struct tprobe *t, struct tmem *m, int i)
{
	int under = 0;

	do
		snprintf(m->name, sizeof(m->name), "%.*smem%d", under, "____", i);
	while (field_named(t, m->name) && ++under < 4);
}

int trace_deref(struct prov_probe *p, const struct prov_var *var, int64_t off,
		enum prov_mem kind, const char *fn, struct prov_var *out)
{
	struct tprobe *t = p->data;
	int i;

	if (trace_load_fields(t) || var->idx < 0 || var->idx >= t->nfields ||
	    t->fields[var->idx].flags & (TK_F_STRING | TK_F_ARRAY))
		return -EINVAL;
	/* the same read twice is one argument */
	for (i = 0; i < t->nmem; i++)
		if (t->mem[i].field == var->idx && t->mem[i].off == off &&
		    t->mem[i].kind == kind)
			break;
	if (i == t->nmem) {
		struct tmem *m;

		t->mem = xrealloc(t->mem, (size_t)(t->nmem + 1) * sizeof(*t->mem));
		m = &t->mem[t->nmem++];
		m->field = var->idx;
		m->off = off;
		m->kind = kind;
		name_read(t, m, i);
	}
	if (!t->mem_fn)
		t->mem_fn = fn;
	if (!t->ename)
		t->ename = xasprintf("%.48s_%d", t->name, p->id);
	t->used[var->idx] = true;
	memset(out, 0, sizeof(*out));
	out->name = t->mem[i].name;
	out->idx = t->nfields + i;
	out->type = is_string(kind) ? AST_T_STRING : AST_T_LONG;
	out->array = 0;
	return 0;
}

/* s8..s64, u8..u64 for an integer field; NULL for other sizes. */
static const char *int_type(const struct tk_field *f)
{
	static const char *const types[2][4] = {
		{ "u8", "u16", "u32", "u64" }, { "s8", "s16", "s32", "s64" },
	};
	int s = !!(f->flags & TK_F_SIGNED);

	switch (f->size) {
	case 1: return types[s][0];
	case 2: return types[s][1];
	case 4: return types[s][2];
	case 8: return types[s][3];
	default: return NULL;
	}
}

static void add_read(struct strbuf *sb, const struct tprobe *t,
		     const struct tmem *m)
{
	static const char *const type[] = {
		[PROV_MEM_USTRING] = "ustring", [PROV_MEM_KSTRING] = "string",
		[PROV_MEM_ULONG] = "s64", [PROV_MEM_UINT] = "s32",
		[PROV_MEM_KLONG] = "s64", [PROV_MEM_KINT] = "s32",
	};
	/* ustring reads user memory itself; the numbers need +u */
	bool user = m->kind == PROV_MEM_ULONG || m->kind == PROV_MEM_UINT;
	uint64_t mag = m->off < 0 ? 0 - (uint64_t)m->off : (uint64_t)m->off;

	fmt_sb_addf(sb, " %s=%c%s%llu($%s):%s", m->name, m->off < 0 ? '-' : '+',
		    user ? "u" : "", (unsigned long long)mag,
		    t->fields[m->field].name, type[m->kind]);
}

/*
 * The event probe's fetch args (the caller frees), or NULL with *@bad the
 * field that cannot be copied (an array of numbers).
 */
static char *fetch_args(const struct tprobe *t, const char **bad)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	int i;

	for (i = 0; i < t->nfields; i++) {
		const struct tk_field *f = &t->fields[i];

		if (!t->used[i])
			continue;
		if (f->flags & TK_F_STRING) {
			fmt_sb_addf(&sb, " %s=$%s:string", f->name, f->name);
		} else if (!(f->flags & TK_F_ARRAY) && int_type(f)) {
			fmt_sb_addf(&sb, " %s=$%s:%s", f->name, f->name,
				    int_type(f));
		} else {
			*bad = f->name;
			fmt_sb_release(&sb);
			return NULL;
		}
	}
	for (i = 0; i < t->nmem; i++)
		add_read(&sb, t, &t->mem[i]);
	s = xstrdup(sb.len ? fmt_sb_str(&sb) + 1 : "");
	fmt_sb_release(&sb);
	return s;
}

void tmem_describe(const struct prov_probe *p, bool plan, FILE *f)
{
	const struct tprobe *t = p->data;
	const char *bad = NULL;
	char *args;

	if (!plan) {
		fprintf(f, "records of an event probe (eprobe) on tracepoint %s:%s, "
			"which reads the memory %s() needs, from our tracefs "
			"instance%s%s", t->sys, t->name, t->mem_fn,
			p->filter ? ", kernel filter: " : "",
			p->filter ? p->filter : "");
		return;
	}
	args = fetch_args(t, &bad);
	if (!args) {
		fprintf(f, "# %s: $%s is an array, which an event probe cannot "
			"copy\n", p->pp, bad);
		return;
	}
	fprintf(f, "echo \"e:$G/%s\" '%s.%s%s%s' >> \"$T/../../dynamic_events\"\n",
		t->ename, t->sys, t->name, *args ? " " : "", args);
	if (p->filter)
		fprintf(f, "echo '%s' > \"$T/events/$G/%s/filter\"\n", p->filter,
			t->ename);
	fprintf(f, "echo 1 > \"$T/events/$G/%s/enable\"\n", t->ename);
	fprintf(f, "# to remove it after rmdir \"$T\": "
		"echo \"-:$G/%s\" >> \"${T%%/*/*}/dynamic_events\"\n", t->ename);
	free(args);
}

struct tp *tmem_attach(struct run *run, struct prov_probe *p, struct session *s)
{
	struct tprobe *t = p->data;
	const char *bad = NULL;
	char *args = fetch_args(t, &bad);
	struct tp *tp;
	int i, n = t->nfields + t->nmem;

	if (!args) {
		run_error(run, "%s: $%s is an array, which an event probe cannot copy",
			  p->pp, bad);
		errno = EINVAL;
		return NULL;
	}
	tp = session_add_eprobe(s, t->ename, t->sys, t->name, args, TP_RECORD,
				p->filter);
	free(args);
	if (!tp) {
		int err = errno ? errno : EINVAL;

		if (err == ENOTSUP)
			run_error(run, "%s: %s() needs event probes (eprobes), which "
				  "this kernel does not have", p->pp, t->mem_fn);
		else
			run_error(run, "%s: %s", p->pp, session_error(s));
		errno = err;
		return NULL;
	}
	t->efields = xcalloc((size_t)n, sizeof(*t->efields));
	for (i = 0; i < n; i++) {
		const char *name = i < t->nfields ? t->fields[i].name :
				   t->mem[i - t->nfields].name;

		if ((i >= t->nfields || t->used[i]) &&
		    format_field(tp->event, name, &t->efields[i]) < 0) {
			run_error(run, "%s: the event probe has no field '%s'",
				  p->pp, name);
			errno = ENOENT;
			return NULL;
		}
	}
	return tp;
}

/* Character @sub of a char array field, copied as a string. */
static int string_elem(struct tprobe *t, const struct tk_event *ev, int idx,
		       int64_t sub, struct lang_val *out)
{
	const struct tk_field *orig = &t->fields[idx];
	char s[TRACE_STR_MAX];
	int len = field_str(ev, &t->efields[idx], s, sizeof(s));

	if (sub >= orig->size)
		return -ERANGE;
	if (sub >= len)
		out->l = 0;
	else if (orig->flags & TK_F_SIGNED)
		out->l = (int8_t)s[sub];
	else
		out->l = (uint8_t)s[sub];
	return 0;
}

int tmem_fetch(struct tprobe *t, const struct tk_event *ev, int idx,
	       int64_t sub, struct lang_val *out)
{
	const struct tk_field *f;

	out->s = "";
	out->l = 0;
	if (idx < 0 || idx >= t->nfields + t->nmem)
		return -EINVAL;
	f = &t->efields[idx];
	if (!f->name)			/* a field the handler does not read */
		return -ENOENT;
	if (idx >= t->nfields && !is_string(t->mem[idx - t->nfields].kind)) {
		out->l = field_int(ev, f);
		return 0;
	}
	if (idx >= t->nfields) {
		/* a faulted read: an empty __data_loc */
		if (!((uint32_t)field_int(ev, f) >> 16)) {
			out->l = 1;
			return 0;
		}
		out->s = read_str(t, ev, idx);
		return 0;
	}
	if (!(t->fields[idx].flags & TK_F_STRING)) {
		out->l = field_int(ev, f);
		return 0;
	}
	if (sub >= 0)
		return string_elem(t, ev, idx, sub, out);
	out->s = read_str(t, ev, idx);
	return 0;
}
