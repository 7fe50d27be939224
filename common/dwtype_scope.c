// SPDX-License-Identifier: GPL-2.0
/*
 * Finding things in the DIE tree for dwtype.c: the scopes around a pc (up
 * to the function, an inline instance being one; the out-of-line function
 * whose frame it is), a variable of a scope, a global by name and file, a
 * type by name, and the variables in scope at a pc for -L and $$vars.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwloc.h"
#include "common/dwtype.h"
#include "common/dwtype_int.h"
#include "common/log.h"

#define MAX_DEPTH	16

/* A static's link-time address when @die's location is DW_OP_addr. */
bool dwt_static_addr(struct dwinfo *dw, Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Attribute attr;
	Dwarf_Op *e;
	size_t n;

	if (!dwarf_attr(die, DW_AT_location, &attr) ||
	    dwarf_getlocation(&attr, &e, &n) || n != 1 ||
	    (e[0].atom != DW_OP_addr && e[0].atom != DW_OP_addrx))
		return false;
	if (e[0].atom == DW_OP_addrx) {
		Dwarf_Attribute a2;
		Dwarf_Addr v;

		if (dwarf_getlocation_attr(&attr, &e[0], &a2) ||
		    dwarf_formaddr(&a2, &v))
			return false;
		*addr = dwinfo_to_link(dw, v);
		return true;
	}
	*addr = dwinfo_to_link(dw, e[0].number);
	return true;
}

bool dwt_is_tls(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Op *e;
	size_t n, i;

	if (!dwarf_attr(die, DW_AT_location, &attr) ||
	    dwarf_getlocation(&attr, &e, &n))
		return false;
	for (i = 0; i < n; i++)
		if (e[i].atom == DW_OP_form_tls_address ||
		    e[i].atom == DW_OP_GNU_push_tls_address)
			return true;
	return false;
}

static bool is_var(Dwarf_Die *d)
{
	return (dwarf_tag(d) == DW_TAG_variable ||
		dwarf_tag(d) == DW_TAG_formal_parameter) &&
	       !dwarf_hasattr(d, DW_AT_declaration);
}

static bool is_func_scope(Dwarf_Die *d)
{
	return dwarf_tag(d) == DW_TAG_subprogram ||
	       dwarf_tag(d) == DW_TAG_inlined_subroutine;
}

/* The variable @name among @scope's children. */
bool dwt_var_in(Dwarf_Die *scope, const char *name, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	const char *n;

	if (dwarf_child(scope, out))
		return false;
	do {
		if (!is_var(out))
			continue;
		n = dwarf_formstring(dwarf_attr_integrate(out, DW_AT_name, &attr));
		if (n && !strcmp(n, name))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

/* A parameter the compiler dropped from an inline instance (its abstract
 * origin has it, the instance not). */
bool dwt_dropped_param(Dwarf_Die *scope, const char *name)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin, d;

	return dwarf_attr(scope, DW_AT_abstract_origin, &attr) &&
	       dwarf_formref_die(&attr, &origin) && dwt_var_in(&origin, name, &d);
}


/* The subprogram with a frame base whose code covers @pc, below @die. */
static bool outer_func(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *out,
		       int depth)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(die, &c))
		return false;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_subprogram && dwarf_haspc(&c, pc) > 0 &&
		    dwarf_hasattr(&c, DW_AT_frame_base)) {
			*out = c;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type) &&
		    outer_func(&c, pc, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

int dwt_scopes_at(struct dwinfo *dw, uint64_t pc, struct dwt_scopes *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->func = s->frame = -1;
	if (!dwarf_addrdie(dwinfo_dwarf(dw), dwinfo_to_dwarf(dw, pc), &s->cu))
		return -ENOENT;
	s->n = dwarf_getscopes(&s->cu, dwinfo_to_dwarf(dw, pc), &s->v);
	if (s->n < 0)
		s->n = 0;
	for (i = 0; i < s->n; i++) {
		if (s->func < 0 && is_func_scope(&s->v[i]))
			s->func = i;
		if (dwarf_tag(&s->v[i]) == DW_TAG_subprogram &&
		    dwarf_hasattr(&s->v[i], DW_AT_frame_base))
			s->frame = i;
	}
	/* inside an inline instance the chain goes on through the inlined
	 * function's abstract definition: the function whose frame it is
	 * is the out-of-line one around the pc */
	if (s->func >= 0 && s->frame < 0 && s->n < 64 &&
	    outer_func(&s->cu, dwinfo_to_dwarf(dw, pc), &s->outer, 0)) {
		s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
		s->v[s->n] = s->outer;
		s->frame = s->n++;
	}
	return s->func < 0 ? -ENOENT : 0;
}

/* A global named @name among the top-level DIEs of @cu, or of any unit
 * when @cu is NULL; @file (NULL: any) must match its unit or decl file. */
bool dwt_find_global(struct dwinfo *dw, Dwarf_Die *cu, const char *name,
			const char *file, Dwarf_Die *out)
{
	Dwarf_CU *u = NULL;
	Dwarf_Die cudie;
	const char *cuname, *decl;
	uint8_t type;

	if (cu) {
		if (!dwt_var_in(cu, name, out))
			return false;
		if (!file)
			return true;
		cuname = dwarf_diename(cu);
		decl = dwarf_decl_file(out);
		return (cuname && dwinfo_file_matches(cuname, file)) ||
		       (decl && dwinfo_file_matches(decl, file));
	}
	while (dwarf_get_units(dwinfo_dwarf(dw), u, &u, NULL, &type, &cudie,
			       NULL) == 0)
		if ((type == DW_UT_compile || type == DW_UT_partial) &&
		    dwinfo_unit_wanted(dw, &cudie) &&
		    dwt_find_global(dw, &cudie, name, file, out))
			return true;
	return false;
}

static int split_type(const char *type, const char **name)
{
	static const struct { const char *kw; int tag; } kw[] = {
		{ "struct ", DW_TAG_structure_type },
		{ "union ", DW_TAG_union_type },
		{ "enum ", DW_TAG_enumeration_type },
		{ "class ", DW_TAG_class_type },
	};
	size_t i;

	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (!strncmp(type, kw[i].kw, strlen(kw[i].kw))) {
			*name = type + strlen(kw[i].kw);
			while (**name == ' ')
				(*name)++;
			return kw[i].tag;
		}
	*name = type;
	return 0;
}

static bool type_matches(Dwarf_Die *d, int tag, const char *name, int pass)
{
	const char *n = dwarf_diename(d);
	int t = dwarf_tag(d);

	if (!n || strcmp(n, name) || dwarf_hasattr(d, DW_AT_declaration))
		return false;
	if (tag)
		return t == tag;
	/* a bare name: a typedef or base type first, then a tag (stap's
	 * @cast(p, "task_struct")) */
	if (pass == 0)
		return t == DW_TAG_typedef || t == DW_TAG_base_type;
	return t == DW_TAG_structure_type || t == DW_TAG_union_type ||
	       t == DW_TAG_enumeration_type || t == DW_TAG_class_type;
}

bool dwt_find_type(struct dwinfo *dw, const char *type, Dwarf_Die *out)
{
	const char *name;
	int tag = split_type(type, &name), pass;
	Dwarf_CU *u;
	Dwarf_Die cudie;
	uint8_t ut;

	for (pass = 0; pass < 2; pass++) {
		u = NULL;
		while (dwarf_get_units(dwinfo_dwarf(dw), u, &u, NULL, &ut, &cudie,
				       NULL) == 0) {
			if ((ut != DW_UT_compile && ut != DW_UT_partial &&
			     ut != DW_UT_type) || !dwinfo_unit_wanted(dw, &cudie) ||
			    dwarf_child(&cudie, out))
				continue;
			do {
				if (type_matches(out, tag, name, pass))
					return true;
			} while (dwarf_siblingof(out, out) == 0);
		}
		if (tag)
			break;
	}
	return false;
}

struct vlist {
	struct dwvar *v;
	size_t n;
};

static bool listed(struct vlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return true;
	return false;
}

/* dwloc's "'x' is optimized out at 0x..." without the "'x' is " */
static char *reason(const char *name, const char *why)
{
	size_t n = strlen(name);

	if (why[0] == '\'' && !strncmp(why + 1, name, n) && why[n + 1] == '\'') {
		why += n + 2;
		while (*why == ':' || *why == ' ')
			why++;
		if (!strncmp(why, "is ", 3))
			why += 3;
	}
	return xstrdup(why);
}

static void add_var(struct dwinfo *dw, struct vlist *l, Dwarf_Die *die,
		    const struct dwloc_ctx *ctx, bool param, bool dropped)
{
	Dwarf_Attribute attr;
	struct fetcharg a;
	struct dwvar *v;
	Dwarf_Die t;
	uint64_t addr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	if (!name || listed(l, name))	/* an inner one hides it */
		return;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	v = &l->v[l->n++];
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(name);
	v->ctype = dwt_name(dwt_type_of(die, &t) ? &t : NULL, 0);
	v->param = param;
	if (dropped) {
		v->unavailable = xasprintf("optimized out at 0x%" PRIx64,
					   dwinfo_to_link(dw, ctx->pc));
	} else if (dwt_is_tls(die)) {
		v->unavailable = xstrdup("thread-local");
	} else if (!dwt_static_addr(dw, die, &addr)) {
		dwloc_var(die, ctx, &a);
		if (a.refused)
			v->unavailable = reason(name, a.refused);
		fetcharg_release(&a);
	}
}

/* The variables of one scope: its parameters or its locals. */
static void scope_vars(struct dwinfo *dw, struct vlist *l, Dwarf_Die *scope,
		       const struct dwloc_ctx *ctx, bool params)
{
	int want = params ? DW_TAG_formal_parameter : DW_TAG_variable;
	Dwarf_Attribute attr;
	Dwarf_Die c, origin, conc;
	bool has_origin;

	has_origin = params && dwarf_attr(scope, DW_AT_abstract_origin, &attr) &&
		     dwarf_formref_die(&attr, &origin);
	if (has_origin) {
		/* in declaration order, those the compiler dropped too */
		if (dwarf_child(&origin, &c))
			return;
		do {
			if (dwarf_tag(&c) != want)
				continue;
			if (dwarf_child(scope, &conc))
				goto dropped;
			do {
				Dwarf_Die o;

				if (dwarf_attr(&conc, DW_AT_abstract_origin, &attr) &&
				    dwarf_formref_die(&attr, &o) &&
				    dwarf_dieoffset(&o) == dwarf_dieoffset(&c)) {
					add_var(dw, l, &conc, ctx, true, false);
					goto next;
				}
			} while (dwarf_siblingof(&conc, &conc) == 0);
dropped:
			add_var(dw, l, &c, ctx, true, true);
next:;
		} while (dwarf_siblingof(&c, &c) == 0);
		return;
	}
	if (dwarf_child(scope, &c))
		return;
	do {
		if (dwarf_tag(&c) == want && is_var(&c))
			add_var(dw, l, &c, ctx, params, false);
	} while (dwarf_siblingof(&c, &c) == 0);
}

int dwtype_vars(struct dwinfo *dw, uint64_t pc, unsigned int flags,
		struct dwvar **out, size_t *n, char *err, size_t errlen)
{
	struct vlist l = { 0 };
	struct dwinfo_cfa cfa;
	struct dwloc_ctx ctx;
	struct dwt_scopes s;
	int i;

	*out = NULL;
	*n = 0;
	if (dwt_scopes_at(dw, pc, &s)) {
		free(s.v);
		return -ENOENT;
	}
	dwinfo_loc_ctx(dw, pc, &s.v[s.frame >= 0 ? s.frame : s.func], &cfa,
		       &ctx);
	if (flags & DWTYPE_PARAMS)
		scope_vars(dw, &l, &s.v[s.func], &ctx, true);
	if (flags & DWTYPE_LOCALS) {
		/* parameters hide same-named locals of outer scopes only;
		 * list them apart */
		struct vlist p = l;

		l.v = NULL;
		l.n = 0;
		for (i = 0; i <= s.func; i++)
			scope_vars(dw, &l, &s.v[i], &ctx, false);
		p.v = xrealloc(p.v, (p.n + l.n + 1) * sizeof(*p.v));
		if (l.n)
			memcpy(p.v + p.n, l.v, l.n * sizeof(*l.v));
		p.n += l.n;
		free(l.v);
		l = p;
	}
	free(s.v);
	*out = l.v;
	*n = l.n;
	return 0;
}

void dwvars_free(struct dwvar *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].ctype);
		free(v[i].unavailable);
	}
	free(v);
}

