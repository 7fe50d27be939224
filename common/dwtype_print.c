// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF types: peeling, sizes and dimensions; their C spelling (for -L and messages) and the
 * templates of $x$ / $x$$ (dwtype.h describes the template).
 *
 * A pretty-printed value is stap's: a struct as {.a=1, .p=0x601010,
 * .s="abc", .in={...}}: integers in decimal, pointers in hex, char arrays
 * as strings, char pointers as strings with $$ (and at the top), nested
 * structs, unions and arrays as {...} / [...] with $ and in full with $$.
 * $p$ of a pointer to a struct prints the struct.  Each printed number or
 * string is one fetch arg; past DWT_PRETTY_MAX of them the text says
 * "...".
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwtype_int.h"
#include "common/log.h"

bool dwt_type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) &&
	       dwarf_formref_die(&attr, out);
}

bool dwt_peel(Dwarf_Die *t, Dwarf_Die *out)
{
	*out = *t;
	/* a qualifier of void (const void) has no DW_AT_type */
	while (dwarf_tag(out) == DW_TAG_typedef ||
	       dwarf_tag(out) == DW_TAG_const_type ||
	       dwarf_tag(out) == DW_TAG_volatile_type ||
	       dwarf_tag(out) == DW_TAG_restrict_type ||
	       dwarf_tag(out) == DW_TAG_atomic_type)
		if (!dwt_type_of(out, out))
			return false;
	return true;
}

int dwt_encoding(Dwarf_Die *t)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc;
	Dwarf_Die u;

	if (dwarf_tag(t) == DW_TAG_enumeration_type)
		return dwt_type_of(t, &u) && dwt_peel(&u, &u) ?
		       dwt_encoding(&u) : DW_ATE_unsigned;
	if (!dwarf_attr_integrate(t, DW_AT_encoding, &attr) ||
	    dwarf_formudata(&attr, &enc))
		return -1;
	return (int)enc;
}

bool dwt_is_char(Dwarf_Die *t)
{
	int enc = dwt_encoding(t);

	return dwarf_tag(t) == DW_TAG_base_type && dwarf_bytesize(t) == 1 &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

int64_t dwt_size(Dwarf_Die *t)
{
	Dwarf_Word size;
	Dwarf_Die p;

	if (!dwt_peel(t, &p))
		return -1;
	if (dwarf_tag(&p) == DW_TAG_pointer_type && dwarf_bytesize(&p) <= 0)
		return 8;
	if (dwarf_aggregate_size(&p, &size))
		return -1;
	return (int64_t)size;
}

int dwt_dims(Dwarf_Die *arr, int64_t *dims, int max)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Die c;
	int n = 0;

	if (dwarf_child(arr, &c))
		return 0;
	do {
		if (dwarf_tag(&c) != DW_TAG_subrange_type || n == max)
			continue;
		if (dwarf_attr(&c, DW_AT_count, &attr) && !dwarf_formudata(&attr, &v))
			dims[n++] = (int64_t)v;
		else if (dwarf_attr(&c, DW_AT_upper_bound, &attr) &&
			 !dwarf_formudata(&attr, &v))
			dims[n++] = (int64_t)v + 1;
		else
			dims[n++] = -1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

#define NAME_DEPTH	12
#define ARRAY_MAX	8	/* elements printed before ", ..." */

static char *cat3(const char *a, const char *b, const char *c)
{
	return xasprintf("%s%s%s", a, b, c);
}

/* @t declared with declarator @inner ("*", "[4]", "(*)(int)"). */
static char *decl(Dwarf_Die *t, const char *inner, int skip_dims, int depth);

static char *with_inner(const char *base, const char *inner)
{
	return xasprintf("%s%s%s", base, inner[0] ? " " : "", inner);
}

static char *decl_func(Dwarf_Die *t, const char *inner, int depth)
{
	char *params = xstrdup(""), *s, *p;
	Dwarf_Die c, pt, ret;
	bool any = false;

	if (!dwarf_child(t, &c)) {
		do {
			if (dwarf_tag(&c) == DW_TAG_unspecified_parameters) {
				s = cat3(params, any ? ", " : "", "...");
			} else if (dwarf_tag(&c) == DW_TAG_formal_parameter) {
				p = decl(dwt_type_of(&c, &pt) ? &pt : NULL, "", 0,
					 depth + 1);
				s = cat3(params, any ? ", " : "", p);
				free(p);
			} else {
				continue;
			}
			free(params);
			params = s;
			any = true;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	s = xasprintf("%s(%s)", inner, any ? params :
		      dwarf_hasattr(t, DW_AT_prototyped) ? "void" : "");
	free(params);
	p = decl(dwt_type_of(t, &ret) ? &ret : NULL, s, 0, depth + 1);
	free(s);
	return p;
}

static char *decl(Dwarf_Die *t, const char *inner, int skip_dims, int depth)
{
	const char *name, *kw = NULL;
	char *s, *in;
	Dwarf_Die sub, peeled;
	int64_t dims[16];
	int nd, i;

	if (depth > NAME_DEPTH)
		return with_inner("?", inner);
	if (!t)
		return with_inner("void", inner);
	name = dwarf_diename(t);
	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type: kw = "struct"; break;
	case DW_TAG_union_type: kw = "union"; break;
	case DW_TAG_enumeration_type: kw = "enum"; break;
	case DW_TAG_class_type: kw = "class"; break;
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		return with_inner(name ? name : "?", inner);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		bool has = dwt_type_of(t, &sub);
		const char *star = dwarf_tag(t) == DW_TAG_pointer_type ? "*" :
				   dwarf_tag(t) == DW_TAG_reference_type ? "&" : "&&";

		if (has && (dwarf_tag(&sub) == DW_TAG_array_type ||
			    dwarf_tag(&sub) == DW_TAG_subroutine_type))
			in = xasprintf("(%s%s)", star, inner);
		else
			in = xasprintf("%s%s", star, inner);
		s = decl(has ? &sub : NULL, in, 0, depth + 1);
		free(in);
		return s;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: {
		const char *q = dwarf_tag(t) == DW_TAG_const_type ? "const" :
				dwarf_tag(t) == DW_TAG_volatile_type ? "volatile" :
				dwarf_tag(t) == DW_TAG_restrict_type ? "restrict" :
				"_Atomic";
		bool has = dwt_type_of(t, &sub);

		if (has && dwarf_tag(&sub) == DW_TAG_pointer_type) {
			/* char *const p */
			in = xasprintf("%s%s%s", q, inner[0] ? " " : "", inner);
			s = decl(&sub, in, 0, depth + 1);
			free(in);
			return s;
		}
		in = decl(has ? &sub : NULL, inner, 0, depth + 1);
		s = xasprintf("%s %s", q, in);
		free(in);
		return s;
	}
	case DW_TAG_array_type:
		nd = dwt_dims(t, dims, 16);
		in = xstrdup(inner);
		for (i = skip_dims; i < nd; i++) {
			char n[32] = "";

			if (dims[i] >= 0)
				snprintf(n, sizeof(n), "%" PRId64, dims[i]);
			s = xasprintf("%s[%s]", in, n);
			free(in);
			in = s;
		}
		s = decl(dwt_type_of(t, &sub) ? &sub : NULL, in, 0, depth + 1);
		free(in);
		return s;
	case DW_TAG_subroutine_type:
		return decl_func(t, inner, depth);
	default:
		(void)peeled;
		return with_inner("?", inner);
	}
	s = xasprintf("%s %s", kw, name ? name : "{...}");
	in = with_inner(s, inner);
	free(s);
	return in;
}

char *dwt_name(Dwarf_Die *t, int skip_dims)
{
	return decl(t, "", skip_dims, 0);
}

char *dwt_name_decl(Dwarf_Die *t, const char *inner, int skip_dims)
{
	char *paren, *s;

	if (t && (dwarf_tag(t) == DW_TAG_array_type ||
		  dwarf_tag(t) == DW_TAG_subroutine_type)) {
		paren = xasprintf("(%s)", inner);
		s = decl(t, paren, skip_dims, 0);
		free(paren);
		return s;
	}
	return decl(t, inner, skip_dims, 0);
}

/* --- $x$ and $x$$ --- */

struct pp {
	struct dwwalk w;	/* a copy without messages */
	int level;
	char *fmt;
	size_t len;
	struct fetcharg *args;
	size_t n;
	bool full;
};

static void put(struct pp *p, const char *s)
{
	size_t n = strlen(s);

	p->fmt = xrealloc(p->fmt, p->len + n + 1);
	memcpy(p->fmt + p->len, s, n + 1);
	p->len += n;
}

/* One more %N for @o's value fetched at @loc (owned) as @type. */
static void put_arg(struct pp *p, char *loc, Dwarf_Die *peeled,
		    struct dwobj *o, const char *type)
{
	struct fetcharg *a;
	char ref[16];

	if (p->n == DWT_PRETTY_MAX) {
		free(loc);
		if (!p->full)
			put(p, "...");
		p->full = true;
		return;
	}
	p->args = xrealloc(p->args, (p->n + 1) * sizeof(*p->args));
	a = &p->args[p->n++];
	memset(a, 0, sizeof(*a));
	a->name = xasprintf("%s_%zu", p->w.root, p->n);
	a->loc = loc;
	if (peeled)
		dwt_scalar_arg(peeled, o, a);
	if (type) {
		snprintf(a->type, sizeof(a->type), "%s", type);
		a->is_ptr = false;
	}
	snprintf(ref, sizeof(ref), "%%%zu", p->n);
	put(p, ref);
}

static void pr(struct pp *p, struct dwobj *o, int depth);

static bool is_agg(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* The members of @agg (in memory at @o), anonymous ones flattened. */
static void pr_members(struct pp *p, struct dwobj *o, Dwarf_Die *agg,
		       int depth, bool *first)
{
	Dwarf_Die m, t;
	struct dwobj c;
	const char *name;
	char *s;

	if (dwarf_child(agg, &m))
		return;
	do {
		if (dwarf_tag(&m) != DW_TAG_member || p->full)
			continue;
		name = dwarf_diename(&m);
		dwt_obj_copy(&c, o);
		if (dwt_member_at(&p->w, &c, &m)) {
			tplace_release(&c.pl);
			continue;
		}
		if (!name) {
			if (dwt_peel(&c.type, &t) && is_agg(dwarf_tag(&t)) &&
			    depth < NAME_DEPTH)
				pr_members(p, &c, &t, depth, first);
		} else {
			s = xasprintf("%s.%s=", *first ? "" : ", ", name);
			put(p, s);
			free(s);
			*first = false;
			pr(p, &c, depth + 1);
		}
		tplace_release(&c.pl);
	} while (dwarf_siblingof(&m, &m) == 0);
}

static void pr_array(struct pp *p, struct dwobj *o, Dwarf_Die *arr, int depth)
{
	int64_t dims[16], count, stride, sz, i;
	Dwarf_Die elem, pe;
	struct dwobj c;
	int nd = dwt_dims(arr, dims, 16), k;

	if (!dwt_type_of(arr, &elem) || o->dim >= nd || !o->pl.mem) {
		put(p, "?");
		return;
	}
	if (o->dim == nd - 1 && dwt_peel(&elem, &pe) && dwt_is_char(&pe)) {
		put_arg(p, tplace_value(&o->pl), NULL, o, "string");
		return;
	}
	count = dims[o->dim];
	if ((depth && p->level < 2) || count < 0 || (sz = dwt_size(&elem)) < 0) {
		put(p, "[...]");
		return;
	}
	stride = sz;
	for (k = o->dim + 1; k < nd; k++)
		stride *= dims[k] > 0 ? dims[k] : 0;
	put(p, "[");
	for (i = 0; i < count && i < ARRAY_MAX && !p->full; i++) {
		if (i)
			put(p, ", ");
		dwt_obj_copy(&c, o);
		c.pl.off += i * stride;
		if (++c.dim == nd) {
			c.type = elem;
			c.dim = 0;
		}
		pr(p, &c, depth + 1);
		tplace_release(&c.pl);
	}
	if (count > ARRAY_MAX && !p->full)
		put(p, ", ...");
	put(p, "]");
}

static void pr(struct pp *p, struct dwobj *o, int depth)
{
	Dwarf_Die t, pointee, pp;
	bool first = true;
	int enc;

	if (p->full)
		return;
	if (o->is_void || !dwt_peel(&o->type, &t)) {
		put(p, "?");
		return;
	}
	if (o->dim || dwarf_tag(&t) == DW_TAG_array_type) {
		pr_array(p, o, &t, depth);
		return;
	}
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		enc = dwt_encoding(&t);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float ||
		    enc == DW_ATE_decimal_float) {
			put(p, "?");
			return;
		}
		/* fall through */
	case DW_TAG_enumeration_type:
		put_arg(p, tplace_value(&o->pl), &t, o, NULL);
		return;
	case DW_TAG_pointer_type:
		if (o->pl.loc[0] == '\\') {
			put_arg(p, tplace_value(&o->pl), &t, o, NULL);
			return;
		}
		if (dwt_type_of(&t, &pointee) && dwt_peel(&pointee, &pp)) {
			if (dwt_is_char(&pp) && (!depth || p->level == 2)) {
				char *v = tplace_value(&o->pl);

				put_arg(p, xasprintf("+0(%s)", v), NULL, o,
					"string");
				free(v);
				return;
			}
			if (!depth && is_agg(dwarf_tag(&pp)) &&
			    !dwarf_hasattr(&pp, DW_AT_declaration)) {
				/* $p$: the struct it points to */
				struct dwobj c;

				dwt_obj_copy(&c, o);
				tplace_deref(&c.pl, 0);
				c.type = pointee;
				pr(p, &c, depth);
				tplace_release(&c.pl);
				return;
			}
		}
		put_arg(p, tplace_value(&o->pl), &t, o, NULL);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		if ((depth && p->level < 2) || !o->pl.mem) {
			put(p, "{...}");
			return;
		}
		put(p, "{");
		pr_members(p, o, &t, depth, &first);
		put(p, "}");
		return;
	}
	put(p, "?");
}

int dwt_pretty(struct dwwalk *w, struct dwobj *o, int level, struct tval *out)
{
	struct pp p = { .w = *w, .level = level };

	p.w.err = NULL;
	p.w.errlen = 0;
	memset(out, 0, sizeof(*out));
	if (o->bits) {		/* a bitfield: just its value */
		Dwarf_Die t;

		if (dwt_peel(&o->type, &t))
			put_arg(&p, tplace_value(&o->pl), &t, o, NULL);
	} else {
		pr(&p, o, 0);
	}
	if (!p.fmt)
		p.fmt = xstrdup("");
	out->kind = TVAL_PRETTY;
	out->fmt = p.fmt;
	out->args = p.args;
	out->nargs = p.n;
	out->ctype = dwt_obj_name(o);
	return 0;
}
