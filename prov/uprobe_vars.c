// SPDX-License-Identifier: GPL-2.0
/*
 * Target variables of process(...) probes: each variable a handler reads
 * becomes one fetch arg of the probe's uprobe ("v3=%di:s32"), named after
 * its index, whose field is resolved once at attach and decoded per
 * record with no lookup by name.
 *
 *	$param, $argN	the site's DWARF parameters / USDT arguments
 *	$return		$retval of a .return probe
 *	$$name, $$provider	a mark's names (constants)
 *	register("rax")...	raw operands (target(), PROV_RAW_*)
 *	user_string($p)	deref(): "+0(LOC):string" read as the probe fires
 *
 * In a .return probe, $param is the value at the entry (stap's rule): the
 * fetch arg goes on the entry twin's uprobe (uvar.entry) and fetch()
 * reads it from the frame uprobe_attach.c paired with the return.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwtype.h"
#include "common/log.h"
#include "common/task.h"
#include "lang/fmt_sb.h"
#include "prov/uprobe.h"
#include "prov/record.h"
#include "tracefs/session.h"

/* A C type for -L from what the resolver knows of an argument. */
static const char *arg_ctype(const struct fetcharg *a)
{
	if (a->is_char_ptr)
		return "char *";
	if (a->is_ptr)
		return "void *";
	switch (a->size) {
	case 1: return a->is_signed ? "char" : "unsigned char";
	case 2: return a->is_signed ? "short" : "unsigned short";
	case 4: return a->is_signed ? "int" : "unsigned int";
	default: return a->is_signed ? "long" : "unsigned long";
	}
}

static const struct fetcharg *find_arg(const struct fetcharg *v, size_t n,
				       const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

size_t uprobe_vars(const struct prov_probe *p, struct prov_var *out, size_t max)
{
	const struct uprobe *d = p->data;
	const struct fetcharg *a = d->ret ? d->eargs : d->args;
	size_t na = d->ret ? d->neargs : d->nargs, i, n = 0;

	if (!uprobe_dw_vars(p, out, max, &n))
		na = 0;		/* DWARF's list, with types and locals */

	for (i = 0; i < na; i++) {
		if (n < max) {
			out[n].name = a[i].name;
			out[n].type = AST_T_LONG;
			out[n].array = 0;
			out[n].idx = -1;
			out[n].ctype = arg_ctype(&a[i]);
			out[n].flags = d->kind == UK_MARK ? PROV_VAR_PARAM :
				       PROV_VAR_PARAM | (a[i].is_ptr ? PROV_VAR_HEX : 0) |
				       (a[i].loc ? 0 : PROV_VAR_UNAVAILABLE);
		}
		n++;
	}
	if (d->ret) {
		if (n < max) {
			out[n].name = "return";
			out[n].type = AST_T_LONG;
			out[n].array = 0;
			out[n].idx = -1;
			out[n].ctype = "long";
			out[n].flags = PROV_VAR_RETURN;
		}
		n++;
	}
	return n;
}

int uprobe_find_var(const struct uprobe *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nv; i++)
		if (!strcmp(d->v[i].name, name))
			return (int)i;
	return -1;
}

struct uvar *uprobe_add_var(struct uprobe *d, const char *name)
{
	struct uvar *v;

	d->v = xrealloc(d->v, (d->nv + 1) * sizeof(*d->v));
	v = &d->v[d->nv++];
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(name);
	v->f.offset = -1;
	return v;
}

void uprobe_fill_var(const struct uprobe *d, int idx, struct prov_var *out)
{
	const struct uvar *v = &d->v[idx];

	out->name = v->name;
	out->type = v->kind == UV_LONG ? AST_T_LONG : AST_T_STRING;
	memset(out, 0, sizeof(*out));
	out->name = v->name;
	out->type = v->kind == UV_LONG ? AST_T_LONG : AST_T_STRING;
	out->array = 0;
	out->idx = idx;
	out->ctype = v->ctype;
	out->flags = 0;
}

int uprobe_var(const struct prov_probe *p, const char *name, struct prov_var *out)
{
	struct uprobe *d = p->data;
	const struct fetcharg *a;
	struct uvar *v;
	int idx = uprobe_find_var(d, name);
	bool entry = false;

	if (idx >= 0) {
		uprobe_fill_var(d, idx, out);
		return 0;
	}
	if (d->kind == UK_MARK && (!strcmp(name, "$name") || !strcmp(name, "$provider"))) {
		v = uprobe_add_var(d, name);
		v->kind = UV_CONST;
		v->cval = xstrdup(name[1] == 'n' ? d->mark : d->provider);
		uprobe_fill_var(d, (int)d->nv - 1, out);
		return 0;
	}
	if (d->ret && !strcmp(name, "return")) {
		v = uprobe_add_var(d, name);
		v->def = xstrdup("$retval:s64");
		v->ctype = xstrdup("long");
		uprobe_fill_var(d, (int)d->nv - 1, out);
		return 0;
	}
	a = find_arg(d->args, d->nargs, name);
	if (!a && d->ret) {
		a = find_arg(d->eargs, d->neargs, name);
		entry = true;
	}
	if (!a || !a->loc)
		return -ENOENT;
	v = uprobe_add_var(d, name);
	v->def = xasprintf("%s:%s", a->loc, a->type);
	v->entry = entry;
	v->ctype = xstrdup(arg_ctype(a));
	uprobe_fill_var(d, (int)d->nv - 1, out);
	return 0;
}

/* pt_regs fetch names of x86-64's registers, by any of their names. */
static const char *const regs[][5] = {
	{ "%ax", "rax", "eax", "ax", "al" }, { "%bx", "rbx", "ebx", "bx", "bl" },
	{ "%cx", "rcx", "ecx", "cx", "cl" }, { "%dx", "rdx", "edx", "dx", "dl" },
	{ "%si", "rsi", "esi", "si", "sil" }, { "%di", "rdi", "edi", "di", "dil" },
	{ "%bp", "rbp", "ebp", "bp", "bpl" }, { "%sp", "rsp", "esp", "sp", "spl" },
	{ "%ip", "rip", "eip", "ip", NULL }, { "%r8", "r8", "r8d", NULL, NULL },
	{ "%r9", "r9", "r9d", NULL, NULL }, { "%r10", "r10", "r10d", NULL, NULL },
	{ "%r11", "r11", "r11d", NULL, NULL }, { "%r12", "r12", "r12d", NULL, NULL },
	{ "%r13", "r13", "r13d", NULL, NULL }, { "%r14", "r14", "r14d", NULL, NULL },
	{ "%r15", "r15", "r15d", NULL, NULL }, { "%flags", "eflags", "rflags", "flags", NULL },
};

static const char *reg_loc(const char *name)
{
	size_t i, j;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (j = 1; j < 5 && regs[i][j]; j++)
			if (!strcmp(regs[i][j], name))
				return regs[i][0];
	return NULL;
}

static const char *const abi_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

/* A raw operand: register("rax"), int_arg(N), returnval(), uaddr(). */
static int raw_target(struct uprobe *d, const struct prov_target *t,
		      struct prov_var *out, char *err, size_t errlen)
{
	const char *type = t->raw_type ? t->raw_type : "s64";
	char name[64], loc[32];
	const char *r;
	struct uvar *v;
	int idx;

	switch (t->raw) {
	case PROV_RAW_REG:
		r = reg_loc(t->root);
		if (!r)
			return errmsg(err, errlen, -EINVAL, "unknown register '%s'",
				      t->root);
		snprintf(loc, sizeof(loc), "%s", r);
		break;
	case PROV_RAW_ARG:
		if (t->raw_arg < 1)
			return errmsg(err, errlen, -EINVAL, "argument %d does not "
				      "exist", t->raw_arg);
		if (t->raw_arg <= 6)
			snprintf(loc, sizeof(loc), "%s", abi_regs[t->raw_arg - 1]);
		else
			snprintf(loc, sizeof(loc), "+%d(%%sp)", 8 * (t->raw_arg - 6));
		break;
	case PROV_RAW_RETVAL:
		if (!d->ret)
			return errmsg(err, errlen, -EINVAL, "the return value is "
				      "only available in .return probes");
		snprintf(loc, sizeof(loc), "$retval");
		break;
	case PROV_RAW_IP:
	case PROV_RAW_UIP:	/* the probed address is user code */
		snprintf(loc, sizeof(loc), "%%ip");
		type = "u64";
		break;
	default:
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "$raw:%s:%s", loc, type);
	idx = uprobe_find_var(d, name);
	if (idx < 0) {
		v = uprobe_add_var(d, name);
		v->def = xasprintf("%s:%s", loc, type);
		idx = (int)d->nv - 1;
	}
	uprobe_fill_var(d, idx, out);
	return 0;
}

/* True when @d's object has no DWARF (asked only on the error path). */
static bool no_dwarf(const struct uprobe *d)
{
	struct dwinfo *dw = dwinfo_open(d->path, NULL, NULL, 0);

	dwinfo_free(dw);
	return !dw;
}

int uprobe_target(struct prov_probe *p, const struct prov_target *t,
		  struct prov_var *out, char *err, size_t errlen)
{
	struct uprobe *d = p->data;
	int ret;

	if (t->deref) {
		struct prov_target base = *t;
		struct prov_var bv;

		base.deref = false;
		ret = uprobe_target(p, &base, &bv, err, errlen);
		if (ret < 0)
			return ret;
		if (t->deref_kind != PROV_MEM_USTRING && t->deref_kind != PROV_MEM_ULONG &&
		    t->deref_kind != PROV_MEM_UINT)
			return errmsg(err, errlen, -EINVAL, "a process probe reads "
				      "user memory only");
		ret = uprobe_deref(p, &bv, t->deref_off, t->deref_kind,
				   t->deref_fn, out);
		if (ret < 0)
			return errmsg(err, errlen, ret, "the value holds no address");
		return 0;
	}
	if (t->raw != PROV_RAW_NONE && !t->cast_type)
		return raw_target(d, t, out, err, errlen);
	ret = uprobe_dw_target(p, t, out, err, errlen);
	if (ret != -ENOSYS && (ret != -ENOENT || err[0] || d->kind != UK_FUNC))
		return ret;
	err[0] = '\0';
	if (t->base || t->is_global || t->cast_type || t->path.nsteps ||
	    t->path.addressof || t->path.pretty)
		return errmsg(err, errlen, -EOPNOTSUPP, "$%s: member chains, "
			      "casts, globals and pretty printing of process "
			      "probes need typed DWARF (not available yet)",
			      t->root ? t->root : "value");
	ret = uprobe_var(p, t->root, out);
	if (ret == -ENOENT) {
		const struct fetcharg *a = find_arg(d->ret ? d->eargs : d->args,
						    d->ret ? d->neargs : d->nargs,
						    t->root);

		if (a && a->refused)
			return errmsg(err, errlen, -EINVAL, "$%s cannot be read "
				      "at %s: %s", t->root, d->site, a->refused);
		if (!a && d->kind != UK_MARK && no_dwarf(d))
			return errmsg(err, errlen, -ENOENT, "$%s needs debug info, "
				      "which %s does not have", t->root, d->path);
	}
	return ret;
}

int uprobe_deref(struct prov_probe *p, const struct prov_var *var, int64_t off,
		 enum prov_mem kind, const char *fn, struct prov_var *out)
{
	struct uprobe *d = p->data;
	const struct uvar *b;
	const char *type, *colon;
	char name[64];
	struct uvar *v;
	int idx;

	(void)fn;
	if (var->idx < 0 || (size_t)var->idx >= d->nv)
		return -EINVAL;
	b = &d->v[var->idx];
	/* user_string($s->name) of a char array: the string read in place */
	if (b->kind == UV_STRING && kind == PROV_MEM_USTRING && !off) {
		uprobe_fill_var(d, var->idx, out);
		return 0;
	}
	if (b->kind != UV_LONG || !b->def)
		return -EINVAL;
	switch (kind) {
	case PROV_MEM_USTRING: type = "string"; break;
	case PROV_MEM_ULONG: type = "s64"; break;
	case PROV_MEM_UINT: type = "s32"; break;
	default: return -EINVAL;	/* a uprobe reads user memory only */
	}
	off += b->add;
	snprintf(name, sizeof(name), "$mem%d:%lld:%s", var->idx, (long long)off, type);
	idx = uprobe_find_var(d, name);
	if (idx < 0) {
		colon = strrchr(b->def, ':');
		v = uprobe_add_var(d, name);
		b = &d->v[var->idx];		/* d->v moved */
		v->def = xasprintf("%+lld(%.*s):%s", (long long)off,
				   (int)(colon - b->def), b->def, type);
		v->kind = kind == PROV_MEM_USTRING ? UV_STRING : UV_LONG;
		v->entry = b->entry;
		idx = (int)d->nv - 1;
	}
	uprobe_fill_var(d, idx, out);
	return 0;
}

char *uprobe_fetch_args(const struct uprobe *u, bool entry)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	size_t i;

	fmt_sb_addf(&sb, "%s", "");
	for (i = 0; i < u->nv; i++) {
		const struct uvar *v = &u->v[i];
		size_t k;

		if (v->entry != entry)
			continue;
		if (v->def)
			fmt_sb_addf(&sb, " v%zu=%s", i, v->def);
		for (k = 0; k < v->nparts; k++)
			fmt_sb_addf(&sb, " v%zu_%zu=%s", i, k, v->parts[k].def);
	}
	s = xstrdup(fmt_sb_str(&sb));
	fmt_sb_release(&sb);
	return s;
}

int uprobe_fetch(const struct prov_probe *p, void *evp, int idx, int64_t sub,
		 struct lang_val *out)
{
	struct uprobe *d = p->data;
	const struct tk_event *ev = evp;
	struct uvar *v;

	(void)sub;
	if (idx < 0 || (size_t)idx >= d->nv)
		return -EINVAL;
	v = &d->v[idx];
	out->s = "";
	out->l = 0;
	if (v->kind == UV_CONST) {
		out->s = v->cval;
		return 0;
	}
	if (v->entry) {
		if (!d->cur)
			return -ENOENT;	/* the entry was not seen */
		if (v->kind == UV_STRING || v->kind == UV_PRETTY) {
			out->s = d->cur->vals[idx] ? d->cur->vals[idx] : "";
			out->l = d->cur->nums[idx];	/* faulted */
		} else {
			out->l = d->cur->nums[idx];
		}
		return 0;
	}
	if (v->kind == UV_PRETTY) {
		out->s = uprobe_pretty(v, ev);
		return 0;
	}
	if (v->kind == UV_STRING) {
		if (!v->buf)
			v->buf = xmalloc(UPROBE_STR_MAX);
		field_str(ev, &v->f, v->buf, UPROBE_STR_MAX);
		out->s = v->buf;
		out->l = field_str_fault(ev, &v->f);
		return 0;
	}
	out->l = uprobe_var_long(v, ev);
	return 0;
}

int64_t uprobe_var_long(const struct uvar *v, const struct tk_event *ev)
{
	int64_t x = field_int(ev, &v->f);

	if (v->sbits > 0 && v->sbits < 64)
		x = (int64_t)((uint64_t)x << (64 - v->sbits)) >> (64 - v->sbits);
	return x + v->add;
}

int uprobe_context(const struct prov_probe *p, void *evp, enum prov_ctx what,
		   struct lang_val *out)
{
	struct uprobe *d = p->data;

	switch (what) {
	case PROV_CTX_PROBEFUNC:
		out->s = d->func ? d->func : "";
		return 0;
	case PROV_CTX_IS_RETURN:
		out->l = d->ret;
		return 0;
	case PROV_CTX_USER_MODE:
		out->l = 1;
		return 0;
	default:
		return record_context(evp, d->s, what, out);
	}
}

void uprobe_vars_free(struct uprobe *u)
{
	size_t i;

	for (i = 0; i < u->nv; i++) {
		size_t k;

		for (k = 0; k < u->v[i].nparts; k++)
			free(u->v[i].parts[k].def);
		free(u->v[i].parts);
		free(u->v[i].fmt);
		free(u->v[i].name);
		free(u->v[i].def);
		free(u->v[i].cval);
		free(u->v[i].ctype);
		free(u->v[i].buf);
		fmt_sb_release(&u->v[i].text);
	}
	free(u->v);
	u->v = NULL;
	u->nv = 0;
	dwvars_free(u->dwvars, u->ndwvars);
	u->dwvars = NULL;
	u->ndwvars = 0;
}
