// SPDX-License-Identifier: GPL-2.0
/*
 * Typed target variables of process(...) probes, through common/dwtype.c:
 * $param and $local at the probe's address (for a .return probe: at the
 * entry twin's, the value at the entry), member chains, array elements,
 * &$x, $x$ / $x$$, @var("name@file"), @cast(ptr, "type") and $return.
 * Each resolves to a struct tval whose fetch args join the probe's uprobe
 * definition (uprobe_vars.c's struct uvar); a pretty value is several
 * fetch args and a template, formatted here when the record is read.
 *
 * The DWARF of an object is opened once per compilation (a small cache:
 * elab resolves a whole program's targets before anything runs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwtype.h"
#include "common/log.h"
#include "common/target.h"
#include "lang/fmt_sb.h"
#include "prov/uprobe.h"

#define DW_CACHE 4

static struct {
	char *path;
	struct dwinfo *dw;
	bool none;		/* the object has no DWARF */
} cache[DW_CACHE];
static unsigned int cache_next;

struct dwinfo *uprobe_dwinfo(const char *path)
{
	unsigned int i;

	for (i = 0; i < DW_CACHE; i++)
		if (cache[i].path && !strcmp(cache[i].path, path))
			return cache[i].dw;
	i = cache_next++ % DW_CACHE;
	free(cache[i].path);
	dwinfo_free(cache[i].dw);
	cache[i].path = xstrdup(path);
	cache[i].dw = dwinfo_open(path, NULL, NULL, 0);
	return cache[i].dw;
}

/* A key naming the target, so that one expression read twice is one
 * fetch arg. */
static char *target_key(const struct prov_target *t, bool entry)
{
	struct strbuf sb = STRBUF_INIT;
	const struct tpath *paths[2] = { &t->pre, &t->path };
	size_t i, k;
	char *s;

	fmt_sb_addf(&sb, "$dw:%s:%d:%s:%s:%s:%d", t->root ? t->root : "", t->is_global,
		    t->cast_type ? t->cast_type : "",
		    t->cast_module ? t->cast_module : "", entry ? "e" : "", t->raw);
	for (k = 0; k < 2; k++) {
		fmt_sb_addf(&sb, "|%d%d%+" PRId64, paths[k]->addressof,
			    paths[k]->pretty, paths[k]->off);
		for (i = 0; i < paths[k]->nsteps; i++) {
			const struct tstep *st = &paths[k]->steps[i];

			if (st->kind == TSTEP_MEMBER)
				fmt_sb_addf(&sb, "->%s", st->name);
			else
				fmt_sb_addf(&sb, "[%" PRId64 "]", st->index);
		}
	}
	if (t->base) {
		s = target_key(t->base, entry);
		fmt_sb_addf(&sb, "|[%s]", s);
		free(s);
	}
	s = xstrdup(fmt_sb_str(&sb));
	fmt_sb_release(&sb);
	return s;
}

/* "b3@4/32" -> 3 (a bitfield's width), else 0. */
static int bit_width(const char *type)
{
	return type[0] == 'b' ? atoi(type + 1) : 0;
}

/* Fill @v from @tv (whose args it takes over). */
static void uvar_from_tval(struct uvar *v, struct tval *tv)
{
	size_t i;

	v->ctype = tv->ctype ? xstrdup(tv->ctype) : NULL;
	if (tv->kind == TVAL_PRETTY) {
		v->kind = UV_PRETTY;
		v->fmt = tv->fmt;
		tv->fmt = NULL;
		v->nparts = tv->nargs;
		v->parts = xcalloc(tv->nargs ? tv->nargs : 1, sizeof(*v->parts));
		for (i = 0; i < tv->nargs; i++) {
			struct upart *pt = &v->parts[i];
			const struct fetcharg *a = &tv->args[i];

			pt->def = xasprintf("%s:%s", a->loc, a->type);
			pt->str = !strcmp(a->type, "string");
			pt->ptr = a->is_ptr;
			pt->is_signed = a->is_signed;
			pt->sbits = a->is_signed ? bit_width(a->type) : 0;
			pt->f.offset = -1;
		}
		return;
	}
	v->def = xasprintf("%s:%s", tv->args[0].loc, tv->args[0].type);
	v->kind = tv->kind == TVAL_STRING ? UV_STRING : UV_LONG;
	v->add = tv->add;
	v->sbits = tv->args[0].is_signed ? bit_width(tv->args[0].type) : 0;
}

/*
 * As in stap, a char pointer or a char array reached without $/$$ is a
 * number, the address user_string() reads (only $x$ prints the text):
 * "+0(X):string" becomes X, "+16(%di):string" becomes %di plus 16.  A
 * global array (@+OFF, an address the fetch syntax cannot give) stays a
 * string.
 */
static void string_as_address(struct tval *tv)
{
	struct fetcharg *a = &tv->args[0];
	struct tplace pl;

	tplace_parse(a->loc, &pl);
	if (pl.mem && pl.loc[0] != '@') {
		free(a->loc);
		a->loc = pl.loc;
		pl.loc = NULL;
		tv->add += pl.off;
		snprintf(a->type, sizeof(a->type), "x64");
		a->size = 8;
		a->is_ptr = true;
		a->is_signed = false;
		tv->kind = TVAL_LONG;
	}
	tplace_release(&pl);
}

/* The pointer of @cast(ptr, ...): a place whose value is @t's root and
 * pre path, resolved as a target of its own; what user space adds to
 * that value (&$s->f: f's offset) is added to *@add. */
static int cast_place(struct prov_probe *p, const struct prov_target *t,
		      struct tplace *pl, int64_t *add, char *err, size_t errlen)
{
	struct uprobe *d = p->data;
	struct prov_target base = *t;
	struct prov_var bv;
	const struct uvar *b;
	int ret;

	if (t->base) {
		/* a cast's member: a target of its own */
		base = *t->base;
	} else {
		base.cast_type = NULL;
		base.cast_module = NULL;
		base.path = t->pre;
		memset(&base.pre, 0, sizeof(base.pre));
	}
	base.deref = false;
	ret = uprobe_target(p, &base, &bv, err, errlen);
	if (ret < 0)
		return ret;
	b = &d->v[bv.idx];
	if (b->kind != UV_LONG || !b->def)
		return errmsg(err, errlen, -EINVAL, "@cast needs a pointer value");
	*add += b->add;
	pl->loc = xasprintf("%.*s", (int)(strrchr(b->def, ':') - b->def), b->def);
	pl->off = 0;
	pl->mem = false;
	return 0;
}

int uprobe_dw_target(struct prov_probe *p, const struct prov_target *t,
		     struct prov_var *out, char *err, size_t errlen)
{
	struct uprobe *d = p->data;
	const struct prov_target *r = t;
	struct dwinfo *dw;
	struct tval tv = { 0 };
	struct tplace pl = { 0 };
	bool entry;
	uint64_t pc;
	char *key;
	struct uvar *v;
	int idx, ret;

	/* in a return probe, a variable (not $return, a global, or a raw
	 * register at the return) is its value at the entry */
	while (r->base)
		r = r->base;
	entry = d->ret && r->root && strcmp(r->root, "return") &&
		!r->is_global && r->raw == PROV_RAW_NONE;
	pc = entry ? d->evaddr : d->vaddr;

	if (t->cast_module && (t->cast_type || t->is_global)) {
		char *mpath = NULL;

		ret = target_resolve(t->cast_module, 0, &mpath, err, errlen);
		if (ret)
			return ret;
		if (t->is_global && strcmp(mpath, d->path)) {
			ret = errmsg(err, errlen, -EINVAL, "@var(\"%s\", \"%s\"): a "
				     "process probe reads the globals of its own "
				     "object only (%s)", t->root, t->cast_module,
				     d->path);
			free(mpath);
			return ret;
		}
		dw = uprobe_dwinfo(mpath);
		if (!dw)
			ret = errmsg(err, errlen, -ENOENT, "no debug info in %s", mpath);
		free(mpath);
		if (ret)
			return ret;
	} else if (d->kind == UK_MARK || !(dw = uprobe_dwinfo(d->path))) {
		return -ENOSYS;
	}
	key = target_key(t, entry);
	idx = uprobe_find_var(d, key);
	if (idx >= 0) {
		free(key);
		uprobe_fill_var(d, idx, out);
		return 0;
	}
	if (t->cast_type) {
		struct tpath path = t->path;

		ret = cast_place(p, t, &pl, &path.off, err, errlen);
		if (!ret)
			ret = dwtype_cast(dw, t->cast_type, &pl, &path, &tv,
					  err, errlen);
		if (ret == -ENOENT && !err[0])
			ret = errmsg(err, errlen, -EINVAL, "no type '%s' in %s",
				     t->cast_type, d->path);
		tplace_release(&pl);
	} else if (t->is_global) {
		ret = d->ret ? dwtype_global(dw, t->root, &t->path, &tv, err, errlen) :
		      dwtype_global_at(dw, d->vaddr, t->root, &t->path, &tv, err, errlen);
		if (ret == -ENOENT && !err[0])
			ret = errmsg(err, errlen, -ENOENT, "no global '%s' in %s",
				     t->root, d->path);
	} else if (d->ret && t->root && !strcmp(t->root, "return")) {
		ret = dwtype_return(dw, d->vaddr, &t->path, &tv, err, errlen);
		if (ret == -ENOENT && !err[0])
			ret = errmsg(err, errlen, -ENOENT, "%s returns nothing "
				     "($return)", d->func ? d->func : d->site);
	} else {
		ret = dwtype_resolve(dw, pc, t->root, &t->path, &tv, err, errlen);
	}
	if (ret < 0 || !tv.nargs) {
		tval_release(&tv);
		free(key);
		return ret < 0 ? ret : -ENOENT;
	}
	if (tv.kind == TVAL_STRING && !t->path.pretty)
		string_as_address(&tv);
	v = uprobe_add_var(d, key);
	free(key);
	v->entry = entry;
	uvar_from_tval(v, &tv);
	tval_release(&tv);
	uprobe_fill_var(d, (int)d->nv - 1, out);
	return 0;
}

/* -L and $$vars: the variables in scope with their C types; -ENOSYS
 * without DWARF. */
int uprobe_dw_vars(const struct prov_probe *p, struct prov_var *out, size_t max,
		   size_t *n)
{
	struct uprobe *d = p->data;
	struct dwinfo *dw;
	struct dwvar *dv = NULL;
	size_t nd = 0, i;

	*n = 0;
	if (d->kind == UK_MARK || !(dw = uprobe_dwinfo(d->path)))
		return -ENOSYS;
	if (dwtype_vars(dw, d->ret ? d->evaddr : d->vaddr, DWTYPE_PARAMS |
			(d->ret ? 0 : DWTYPE_LOCALS), &dv, &nd, NULL, 0))
		return -ENOSYS;
	/* the strings live as long as the probe: keep them in it */
	dwvars_free(d->dwvars, d->ndwvars);
	d->dwvars = dv;
	d->ndwvars = nd;
	for (i = 0; i < nd; i++) {
		if (*n < max) {
			struct prov_var *o = &out[*n];
			size_t l = strlen(dv[i].ctype);

			memset(o, 0, sizeof(*o));
			o->name = dv[i].name;
			o->type = AST_T_LONG;
			o->idx = -1;
			o->ctype = dv[i].ctype;
			o->flags = dv[i].param ? PROV_VAR_PARAM : PROV_VAR_LOCAL;
			if (l && dv[i].ctype[l - 1] == '*')
				o->flags |= PROV_VAR_HEX;
			if (dv[i].unavailable)
				o->flags |= PROV_VAR_UNAVAILABLE;
		}
		(*n)++;
	}
	return 0;
}

/* @s as a C string literal. */
static void add_quoted(struct strbuf *sb, const char *s)
{
	fmt_sb_addc(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fmt_sb_addf(sb, "\\%c", c);
		else if (c == '\n')
			fmt_sb_addstr(sb, "\\n");
		else if (c == '\t')
			fmt_sb_addstr(sb, "\\t");
		else if (c < 32 || c >= 127)
			fmt_sb_addf(sb, "\\%03o", c);
		else
			fmt_sb_addc(sb, (char)c);
	}
	fmt_sb_addc(sb, '"');
}

/* A pretty value's text from its parts' fields in @ev. */
const char *uprobe_pretty(struct uvar *v, const struct tk_event *ev)
{
	struct strbuf sb = v->text;
	char buf[UPROBE_STR_MAX];
	const char *f;

	fmt_sb_reset(&sb);

	for (f = v->fmt; *f; f++) {
		struct upart *pt;
		char *end;
		long k;

		if (*f != '%') {
			fmt_sb_addc(&sb, *f);
			continue;
		}
		if (f[1] == '%') {
			fmt_sb_addc(&sb, '%');
			f++;
			continue;
		}
		k = strtol(f + 1, &end, 10);
		f = end - 1;
		if (k < 1 || (size_t)k > v->nparts) {
			fmt_sb_addc(&sb, '?');
			continue;
		}
		pt = &v->parts[k - 1];
		if (pt->str) {
			if (field_str_fault(ev, &pt->f)) {
				fmt_sb_addstr(&sb, "?");
			} else {
				field_str(ev, &pt->f, buf, sizeof(buf));
				add_quoted(&sb, buf);
			}
		} else if (pt->ptr) {
			fmt_sb_addf(&sb, "0x%" PRIx64, (uint64_t)field_int(ev, &pt->f));
		} else {
			int64_t x = field_int(ev, &pt->f);

			if (pt->sbits > 0 && pt->sbits < 64)
				x = (int64_t)((uint64_t)x << (64 - pt->sbits)) >>
				    (64 - pt->sbits);
			fmt_sb_addf(&sb, "%" PRId64, x);
		}
	}
	if (sb.len >= UPROBE_STR_MAX)
		fmt_sb_truncate(&sb, UPROBE_STR_MAX - 1);
	v->text = sb;
	return fmt_sb_str(&v->text);
}
