// SPDX-License-Identifier: GPL-2.0
/*
 * Target variables of user code through DWARF types (dwtype.h).
 *
 * A variable is looked up as C sees it at the probe's address: the scopes
 * dwarf_getscopes() gives, innermost first, up to the function (an inline
 * instance is a function: a pc inside it sees the instance's parameters,
 * not the caller's locals), then the globals of the compile unit, then
 * those of any unit.  Its place comes from dwloc_var() (a register, a
 * stack slot) or, for a static (DW_OP_addr), from its address as an
 * uprobe file offset: `@+0x4040` reads the object's memory wherever it
 * is mapped, PIE or not, in .data or .bss (dwinfo_file_offset()).
 *
 * A path then walks the type graph on a `struct tplace`: ->member adds the
 * member's offset to an object in memory, and first follows a pointer
 * (tplace_deref(): the place becomes memory at the pointer's value);
 * [N] adds N strides to an array in memory, or follows a pointer first.
 * Typedefs and qualifiers are peeled at each step; members of anonymous
 * structs and unions are found through them.  What is left is fetched:
 * an integer, enum or pointer with its size and sign (a bitfield as the
 * kernel's b<width>@<bit>/<container bits>), a char array or char
 * pointer as a string, the address with &, or a pretty-printed aggregate
 * (dwtype_print.c).  A floating-point value or an aggregate without $ is
 * refused, naming it and its type.
 *
 * dwtype_scope.c finds the DIEs (scopes, globals, types, the variables in
 * scope); dwtype_print.c spells types and pretty-prints.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwloc.h"
#include "common/dwtype.h"
#include "common/dwtype_int.h"
#include "common/log.h"

#define MAX_DEPTH	16	/* anonymous members within each other */

/* The walk's failure: @ret with the message in the caller's buffer. */
#define fail(w, ret, ...) errmsg((w)->err, (w)->errlen, (ret), __VA_ARGS__)

static void what_add(struct dwwalk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void what_add(struct dwwalk *w, const char *fmt, ...)
{
	char *tail, *s;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&tail, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	s = xasprintf("%s%s", w->what, tail);
	free(tail);
	free(w->what);
	w->what = s;
}

void dwt_obj_copy(struct dwobj *to, const struct dwobj *from)
{
	*to = *from;
	to->pl.loc = xstrdup(from->pl.loc);
}

char *dwt_obj_name(struct dwobj *o)
{
	return dwt_name(o->is_void ? NULL : &o->type, o->dim);
}

static bool is_const_loc(const struct tplace *p)
{
	return !p->mem && p->loc[0] == '\\';
}

/* @o, a pointer, replaced by what it points to. */
static int deref(struct dwwalk *w, struct dwobj *o, Dwarf_Die *pointee,
		 bool is_void, int64_t off)
{
	if (is_const_loc(&o->pl))
		return fail(w, -EINVAL, "'%s' is a constant the compiler "
			    "folded: it points nowhere", w->what);
	tplace_deref(&o->pl, off);
	o->is_void = is_void;
	if (!is_void)
		o->type = *pointee;
	o->dim = 0;
	return 0;
}

static int need_mem(struct dwwalk *w, struct dwobj *o, const char *doing)
{
	if (o->pl.mem)
		return 0;
	return fail(w, -EINVAL, "'%s' is in a register here: %s", w->what,
		    doing);
}

/* The byte offset (and bit position, for a bitfield) of @m in its struct. */
static int member_offset(Dwarf_Die *m, int64_t *bitpos, int *bits)
{
	Dwarf_Attribute attr;
	Dwarf_Word v, bsize, boff;
	Dwarf_Op *ops;
	size_t n;
	int64_t byte = 0;

	*bits = 0;
	if (dwarf_attr(m, DW_AT_data_member_location, &attr)) {
		if (!dwarf_formudata(&attr, &v))
			byte = (int64_t)v;
		else if (!dwarf_getlocation(&attr, &ops, &n) && n == 1 &&
			 ops[0].atom == DW_OP_plus_uconst)
			byte = (int64_t)ops[0].number;
		else
			return -1;
	}
	*bitpos = byte * 8;
	if (!dwarf_attr(m, DW_AT_bit_size, &attr) || dwarf_formudata(&attr, &bsize))
		return 0;
	*bits = (int)bsize;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &attr) &&
	    !dwarf_formudata(&attr, &boff)) {
		*bitpos += (int64_t)boff;
	} else if (dwarf_attr(m, DW_AT_bit_offset, &attr) &&
		   !dwarf_formudata(&attr, &boff)) {
		/* DWARF 2/3: counted from the storage unit's high bit */
		int size = dwarf_bytesize(m);

		if (size <= 0) {
			Dwarf_Die t;

			size = dwt_type_of(m, &t) ? (int)dwt_size(&t) : -1;
		}
		if (size <= 0)
			return -1;
		*bitpos += (int64_t)size * 8 - (int64_t)boff - (int64_t)bsize;
	}
	return 0;
}

/* Member @name of struct/union @agg, searched through anonymous members:
 * its DIE and bit position. */
static bool find_member(Dwarf_Die *agg, const char *name, Dwarf_Die *out,
			int64_t *bitpos, int *bits, int depth)
{
	Dwarf_Die c, t;
	const char *cn;
	int64_t pos, sub;

	if (depth > MAX_DEPTH || dwarf_child(agg, &c))
		return false;
	do {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		if (member_offset(&c, &pos, bits))
			continue;
		cn = dwarf_diename(&c);
		if (cn && !strcmp(cn, name)) {
			*out = c;
			*bitpos = pos;
			return true;
		}
		if (!cn && dwt_type_of(&c, &t) && dwt_peel(&t, &t) &&
		    (dwarf_tag(&t) == DW_TAG_structure_type ||
		     dwarf_tag(&t) == DW_TAG_union_type) &&
		    find_member(&t, name, out, &sub, bits, depth + 1)) {
			*bitpos = pos + sub;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* @o becomes the member @m at bit position @pos (width @bits) in it. */
static int member_apply(struct dwwalk *w, struct dwobj *o, Dwarf_Die *m,
			int64_t pos, int bits)
{
	int64_t cont;
	Dwarf_Die t;

	if (!dwt_type_of(m, &t))
		return fail(w, -EINVAL, "'%s' has no type", w->what);
	o->type = t;
	o->is_void = false;
	o->dim = 0;
	o->bits = bits;
	if (!bits) {
		o->pl.off += pos / 8;
		return 0;
	}
	/* the kernel reads a container of the member type's size, aligned,
	 * else the 8 bytes around it */
	cont = dwt_size(&t);
	if (cont != 1 && cont != 2 && cont != 4 && cont != 8)
		cont = 4;
	if ((pos % (cont * 8)) + bits > cont * 8)
		cont = 8;
	if ((pos % (cont * 8)) + bits > cont * 8)
		return fail(w, -EINVAL, "'%s': bitfield straddles 8 bytes",
			    w->what);
	o->pl.off += (pos / (cont * 8)) * cont;
	o->bitoff = (int)(pos % (cont * 8));
	o->bitcont = (int)cont;
	return 0;
}

/*
 * @o (a struct or union in memory) becomes its direct member @m: offset
 * added, bitfield container chosen.  For the pretty printer.
 */
int dwt_member_at(struct dwwalk *w, struct dwobj *o, Dwarf_Die *m)
{
	int64_t pos;
	int bits;

	if (member_offset(m, &pos, &bits))
		return fail(w, -EINVAL, "'%s': member location too complex",
			    w->what);
	return member_apply(w, o, m, pos, bits);
}

static int step_member(struct dwwalk *w, struct dwobj *o, const char *name)
{
	Dwarf_Die p, pointee, m;
	int64_t pos;
	int bits, ret;
	char *tn;

	if (o->bits)
		return fail(w, -EINVAL, "'%s' is a bitfield: it has no member "
			    "'%s'", w->what, name);
	if (o->is_void)
		return fail(w, -EINVAL, "'%s' is a void pointer's target: "
			    "@cast it to read member '%s'", w->what, name);
	if (!dwt_peel(&o->type, &p))
		return fail(w, -EINVAL, "'%s' is void: it has no member '%s'",
			    w->what, name);
	if (!o->dim && (dwarf_tag(&p) == DW_TAG_pointer_type ||
			dwarf_tag(&p) == DW_TAG_reference_type ||
			dwarf_tag(&p) == DW_TAG_rvalue_reference_type)) {
		bool v = !dwt_type_of(&p, &pointee);
		Dwarf_Die pp;

		if (v || !dwt_peel(&pointee, &pp))
			return fail(w, -EINVAL, "'%s' is a void pointer: "
				    "@cast it to read member '%s'", w->what,
				    name);
		if (dwarf_tag(&pp) != DW_TAG_structure_type &&
		    dwarf_tag(&pp) != DW_TAG_union_type &&
		    dwarf_tag(&pp) != DW_TAG_class_type)
			goto not_agg;
		ret = deref(w, o, &pointee, false, 0);
		if (ret)
			return ret;
		p = pp;
	} else if (o->dim || (dwarf_tag(&p) != DW_TAG_structure_type &&
			      dwarf_tag(&p) != DW_TAG_union_type &&
			      dwarf_tag(&p) != DW_TAG_class_type)) {
		goto not_agg;
	} else if ((ret = need_mem(w, o, "its members cannot be read"))) {
		return ret;
	}
	if (dwarf_hasattr(&p, DW_AT_declaration))
	{
		tn = dwt_name(&p, 0);
		ret = fail(w, -EINVAL, "'%s': '%s' is declared but not "
			   "defined in this debug information", w->what, tn);
		free(tn);
		return ret;
	}
	if (!find_member(&p, name, &m, &pos, &bits, 0)) {
		tn = dwt_name(&p, 0);
		ret = fail(w, -EINVAL, "no member '%s' in '%s'", name, tn);
		free(tn);
		return ret;
	}
	what_add(w, "->%s", name);
	return member_apply(w, o, &m, pos, bits);
not_agg:
	tn = dwt_obj_name(o);
	ret = fail(w, -EINVAL, "'%s' is '%s', not a struct, union or pointer "
		   "to one: it has no member '%s'", w->what, tn, name);
	free(tn);
	return ret;
}

static int step_index(struct dwwalk *w, struct dwobj *o, int64_t idx)
{
	int64_t dims[16], stride, sz;
	Dwarf_Die p, elem;
	int nd, i, ret;
	char *tn;

	if (o->bits || o->is_void || !dwt_peel(&o->type, &p))
		goto not_indexable;
	if (dwarf_tag(&p) == DW_TAG_array_type) {
		nd = dwt_dims(&p, dims, 16);
		if (!dwt_type_of(&p, &elem) || (sz = dwt_size(&elem)) < 0 || !nd)
			return fail(w, -EINVAL, "'%s': array of unknown "
				    "element size", w->what);
		if ((ret = need_mem(w, o, "it cannot be indexed")))
			return ret;
		stride = sz;
		for (i = o->dim + 1; i < nd; i++)
			stride *= dims[i] > 0 ? dims[i] : 0;
		o->pl.off += idx * stride;
		if (++o->dim == nd) {
			o->type = elem;
			o->dim = 0;
		}
		what_add(w, "[%" PRId64 "]", idx);
		return 0;
	}
	if (dwarf_tag(&p) == DW_TAG_pointer_type) {
		if (!dwt_type_of(&p, &elem) || (sz = dwt_size(&elem)) <= 0)
			return fail(w, -EINVAL, "'%s' points to %s: it cannot "
				    "be indexed", w->what, dwt_type_of(&p, &elem) ?
				    "a type of unknown size" : "void");
		ret = deref(w, o, &elem, false, idx * sz);
		if (!ret)
			what_add(w, "[%" PRId64 "]", idx);
		return ret;
	}
not_indexable:
	tn = dwt_obj_name(o);
	ret = fail(w, -EINVAL, "'%s' is '%s', not an array or pointer: it "
		   "cannot be indexed", w->what, tn);
	free(tn);
	return ret;
}

static int walk(struct dwwalk *w, struct dwobj *o, const struct tpath *path)
{
	size_t i;
	int ret = 0;

	for (i = 0; path && i < path->nsteps && !ret; i++)
		ret = path->steps[i].kind == TSTEP_MEMBER ?
		      step_member(w, o, path->steps[i].name) :
		      step_index(w, o, path->steps[i].index);
	return ret;
}

/* The fetch type of scalar @peeled (int, enum, bool, char, pointer). */
void dwt_scalar_arg(Dwarf_Die *peeled, struct dwobj *o, struct fetcharg *a)
{
	int enc = dwt_encoding(peeled);
	int size = (int)dwt_size(peeled);

	a->is_ptr = dwarf_tag(peeled) == DW_TAG_pointer_type;
	a->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	if (a->is_ptr) {
		Dwarf_Die t;

		a->is_char_ptr = dwt_type_of(peeled, &t) && dwt_peel(&t, &t) &&
				 dwt_is_char(&t);
		size = 8;
	}
	if (o->bits) {
		a->size = o->bitcont;
		snprintf(a->type, sizeof(a->type), "b%d@%d/%d", o->bits,
			 o->bitoff, o->bitcont * 8);
		return;
	}
	a->size = size;
	snprintf(a->type, sizeof(a->type), "%s", a->is_ptr ? "x64" :
		 fetcharg_int_type(size, a->is_signed));
}

static void one_arg(struct dwwalk *w, struct tval *out, char *loc)
{
	out->args = xcalloc(1, sizeof(*out->args));
	out->nargs = 1;
	out->args[0].name = xstrdup(w->root);
	out->args[0].loc = loc;
}

/* &@o: the base address fetched, the offset added in user space. */
static int emit_address(struct dwwalk *w, struct dwobj *o, struct tval *out)
{
	uint64_t pcoff;

	if (o->bits)
		return fail(w, -EINVAL, "'%s' is a bitfield: it has no address",
			    w->what);
	if (is_const_loc(&o->pl))
		return fail(w, -EINVAL, "'%s' is a constant here: it has no "
			    "address", w->what);
	if (!o->pl.mem)
		return fail(w, -EINVAL, "'%s' is in a register here: it has no "
			    "address", w->what);
	if (!strcmp(o->pl.loc, "@+")) {
		/* at the probe, %ip is the probed address, whose file
		 * offset we know: the global is a constant distance away */
		if (!w->have_pc || dwinfo_file_offset(w->dw, w->pc, &pcoff))
			return fail(w, -EINVAL, "the address of '%s' is known "
				    "only at a probe's address", w->what);
		one_arg(w, out, xstrdup("%ip"));
		out->add = o->pl.off - (int64_t)pcoff;
	} else if (!strcmp(o->pl.loc, "@")) {
		/* a kernel global: its address is a constant */
		one_arg(w, out, xstrdup("\\0"));
		out->add = o->pl.off;
	} else {
		one_arg(w, out, xstrdup(o->pl.loc));
		out->add = o->pl.off;
	}
	out->kind = TVAL_LONG;
	out->args[0].size = 8;
	out->args[0].is_ptr = true;
	snprintf(out->args[0].type, sizeof(out->args[0].type), "x64");
	out->ctype = dwt_name_decl(o->is_void ? NULL : &o->type, "*", o->dim);
	return 0;
}

static int emit(struct dwwalk *w, struct dwobj *o, const struct tpath *path,
		struct tval *out)
{
	Dwarf_Die p, t;
	char *tn = NULL;
	uint64_t kaddr;
	int ret = 0, enc;

	memset(out, 0, sizeof(*out));
	if (path && path->addressof)
		return emit_address(w, o, out);
	if (path && path->pretty)
		return dwt_pretty(w, o, path->pretty, out);
	tn = dwt_obj_name(o);
	if (o->is_void || !dwt_peel(&o->type, &p)) {
		ret = fail(w, -EINVAL, "'%s' is void", w->what);
		goto out;
	}
	if (o->dim || dwarf_tag(&p) == DW_TAG_array_type) {
		int64_t dims[16];
		int nd = dwt_dims(&p, dims, 16);

		if (o->dim == nd - 1 && dwt_type_of(&p, &t) && dwt_peel(&t, &t) &&
		    dwt_is_char(&t) && o->pl.mem) {
			/* a char array: the string in place */
			one_arg(w, out, tplace_value(&o->pl));
			snprintf(out->args[0].type, sizeof(out->args[0].type),
				 "string");
			out->kind = TVAL_STRING;
			goto done;
		}
		ret = fail(w, -EINVAL, "'%s' is an array ('%s'): index it or "
			   "print it with $%s$", w->what, tn, w->what);
		goto out;
	}
	switch (dwarf_tag(&p)) {
	case DW_TAG_base_type:
		enc = dwt_encoding(&p);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float ||
		    enc == DW_ATE_decimal_float) {
			ret = fail(w, -EINVAL, "'%s' is a floating-point value "
				   "('%s'), which cannot be fetched", w->what, tn);
			goto out;
		}
		/* fall through */
	case DW_TAG_enumeration_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		ret = fail(w, -EINVAL, "'%s' is '%s': read a member, or print "
			   "it with $%s$", w->what, tn, w->what);
		goto out;
	default:
		ret = fail(w, -EINVAL, "'%s' has type '%s', which cannot be "
			   "fetched", w->what, tn);
		goto out;
	}
	one_arg(w, out, NULL);
	dwt_scalar_arg(&p, o, &out->args[0]);
	/* a kernel char pointer stays a number, as BTF gives it: whether it
	 * points to user or kernel memory is not in DWARF, so the script
	 * says which (user_string() or kernel_string()) */
	if (out->args[0].is_char_ptr && !dwinfo_kernel_addr(w->dw, 0, &kaddr)) {
		/* a char pointer: the string it points to */
		char *v = tplace_value(&o->pl);

		if (is_const_loc(&o->pl)) {
			free(v);
			ret = fail(w, -EINVAL, "'%s' is a constant the compiler "
				   "folded: it points nowhere", w->what);
			goto out;
		}
		out->args[0].loc = xasprintf("+0(%s)", v);
		free(v);
		snprintf(out->args[0].type, sizeof(out->args[0].type), "string");
		out->kind = TVAL_STRING;
		goto done;
	}
	if (!out->args[0].type[0]) {
		ret = fail(w, -EINVAL, "'%s' is a %" PRId64 "-byte value ('%s'), "
			   "which cannot be fetched", w->what, dwt_size(&p), tn);
		goto out;
	}
	out->args[0].loc = tplace_value(&o->pl);
	out->kind = TVAL_LONG;
done:
	out->ctype = tn;
	return 0;
out:
	free(tn);
	tval_release(out);
	return ret;
}

/*
 * The place of variable @die: a static's file offset, else its location
 * at the pc through dwloc (@ctx NULL: not in a function).
 */
static int place_of(struct dwwalk *w, Dwarf_Die *die,
		    const struct dwloc_ctx *ctx, struct dwobj *o)
{
	struct fetcharg a;
	uint64_t addr, off;
	const char *why;

	memset(o, 0, sizeof(*o));
	o->is_void = !dwt_type_of(die, &o->type);
	if (dwt_static_addr(w->dw, die, &addr)) {
		if (dwinfo_kernel_addr(w->dw, addr, &off)) {
			o->pl.loc = xstrdup("@");
			o->pl.off = (int64_t)off;
			o->pl.mem = true;
			return 0;
		}
		if (dwinfo_file_offset(w->dw, addr, &off))
			return fail(w, -EINVAL, "'%s' at 0x%" PRIx64 " is "
				    "outside the object's mapping", w->what,
				    addr);
		o->pl.loc = xstrdup("@+");
		o->pl.off = (int64_t)off;
		o->pl.mem = true;
		return 0;
	}
	if (dwt_is_tls(die))
		return fail(w, -EINVAL, "'%s' is thread-local, which uprobes "
			    "cannot fetch", w->what);
	if (!ctx) {
		Dwarf_Attribute attr;
		Dwarf_Sword v;

		/* a static the compiler folded into a constant */
		if (!dwarf_hasattr(die, DW_AT_location) &&
		    dwarf_attr(die, DW_AT_const_value, &attr)) {
			if (dwarf_formsdata(&attr, &v))
				return fail(w, -EINVAL, "'%s' is a constant the "
					    "compiler folded", w->what);
			o->pl.loc = v >= 0 ? xasprintf("\\%" PRId64, (int64_t)v) :
				    xasprintf("\\0x%" PRIx64, (uint64_t)v);
			return 0;
		}
		return fail(w, -EINVAL, "'%s' is optimized out", w->what);
	}
	dwloc_var(die, ctx, &a);
	if (a.refused) {
		why = a.refused;
		fail(w, -EINVAL, "%s", why);
		fetcharg_release(&a);
		return -EINVAL;
	}
	tplace_parse(a.loc, &o->pl);
	fetcharg_release(&a);
	return 0;
}

static void walk_init(struct dwwalk *w, struct dwinfo *dw, const char *name,
		      char *err, size_t errlen)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->dw = dw;
	w->what = xstrdup(name);
	w->root = xstrdup(name);
	for (i = 0; w->root[i]; i++)
		if (!(w->root[i] == '_' || (w->root[i] >= 'a' && w->root[i] <= 'z') ||
		      (w->root[i] >= 'A' && w->root[i] <= 'Z') ||
		      (i && w->root[i] >= '0' && w->root[i] <= '9')))
			w->root[i] = '_';
	w->err = err;
	w->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
}

static void walk_release(struct dwwalk *w)
{
	free(w->what);
	free(w->root);
}

/* @o from the variable @die, then the path, then the value. */
static int finish(struct dwwalk *w, Dwarf_Die *die, const struct dwloc_ctx *ctx,
		  const struct tpath *path, struct tval *out)
{
	struct dwobj o;
	int ret;

	ret = place_of(w, die, ctx, &o);
	if (ret && !o.is_void &&
	    (!path || (!path->nsteps && !path->pretty && !path->addressof))) {
		/* a floating-point value is refused for its type wherever it
		 * lives (an SSE register): say that first */
		Dwarf_Die p;
		int enc;

		if (dwt_peel(&o.type, &p) && dwarf_tag(&p) == DW_TAG_base_type &&
		    ((enc = dwt_encoding(&p)) == DW_ATE_float ||
		     enc == DW_ATE_complex_float || enc == DW_ATE_decimal_float)) {
			char *tn = dwt_name(&o.type, 0);

			ret = fail(w, -EINVAL, "'%s' is a floating-point value "
				   "('%s'), which cannot be fetched", w->what, tn);
			free(tn);
		}
	}
	if (!ret)
		ret = walk(w, &o, path);
	if (!ret)
		ret = emit(w, &o, path, out);
	tplace_release(&o.pl);
	return ret;
}

int dwtype_resolve(struct dwinfo *dw, uint64_t pc, const char *name,
		   const struct tpath *path, struct tval *out, char *err,
		   size_t errlen)
{
	struct dwinfo_cfa cfa;
	struct dwloc_ctx ctx;
	struct dwwalk w;
	struct dwt_scopes s;
	Dwarf_Die var;
	int i, ret;

	memset(out, 0, sizeof(*out));
	walk_init(&w, dw, name, err, errlen);
	w.have_pc = true;
	w.pc = pc;
	ret = dwt_scopes_at(dw, pc, &s);
	if (!ret) {
		dwinfo_loc_ctx(dw, pc, &s.v[s.frame >= 0 ? s.frame : s.func],
			       &cfa, &ctx);
		for (i = 0; i <= s.func; i++) {
			if (dwt_var_in(&s.v[i], name, &var)) {
				ret = finish(&w, &var, &ctx, path, out);
				goto out;
			}
		}
		if (dwt_dropped_param(&s.v[s.func], name)) {
			ret = fail(&w, -EINVAL, "'%s' is optimized out at 0x%"
				   PRIx64, name, pc);
			goto out;
		}
	}
	if ((s.n && dwt_find_global(dw, &s.cu, name, NULL, &var)) ||
	    dwt_find_global(dw, NULL, name, NULL, &var)) {
		ret = finish(&w, &var, NULL, path, out);
		goto out;
	}
	ret = -ENOENT;
out:
	free(s.v);
	walk_release(&w);
	return ret;
}

int dwtype_global_at(struct dwinfo *dw, uint64_t pc, const char *spec,
		     const struct tpath *path, struct tval *out, char *err,
		     size_t errlen)
{
	char *name = xstrdup(spec), *file = strchr(name, '@');
	struct dwwalk w;
	Dwarf_Die var, cu;
	int ret;

	memset(out, 0, sizeof(*out));
	if (file)
		*file++ = '\0';
	if (!*name || (file && !*file)) {
		free(name);
		return errmsg(err, errlen, -EINVAL, "'%s': expected NAME or "
			      "NAME@FILE", spec);
	}
	walk_init(&w, dw, name, err, errlen);
	w.have_pc = pc != 0;
	w.pc = pc;
	/* the probe's own unit first: its statics hide other units' */
	if ((pc && dwarf_addrdie(dwinfo_dwarf(dw), dwinfo_to_dwarf(dw, pc), &cu) &&
	     dwt_find_global(dw, &cu, name, file, &var)) ||
	    dwt_find_global(dw, NULL, name, file, &var))
		ret = finish(&w, &var, NULL, path, out);
	else
		ret = file ? fail(&w, -ENOENT, "no global '%s' in '%s'", name,
				  file) :
			     fail(&w, -ENOENT, "no global '%s'", name);
	walk_release(&w);
	free(name);
	return ret;
}

int dwtype_global(struct dwinfo *dw, const char *spec, const struct tpath *path,
		  struct tval *out, char *err, size_t errlen)
{
	return dwtype_global_at(dw, 0, spec, path, out, err, errlen);
}

int dwtype_return(struct dwinfo *dw, uint64_t entry, const struct tpath *path,
		  struct tval *out, char *err, size_t errlen)
{
	struct dwwalk w;
	struct dwt_scopes s;
	struct dwobj o = { 0 };
	Dwarf_Die p;
	int ret, tag;

	memset(out, 0, sizeof(*out));
	if (dwt_scopes_at(dw, entry, &s) || s.frame < 0) {
		free(s.v);
		return errmsg(err, errlen, -EINVAL, "no function at 0x%" PRIx64,
			      entry);
	}
	walk_init(&w, dw, "return", err, errlen);
	if (!dwt_type_of(&s.v[s.frame], &o.type)) {
		ret = -ENOENT;		/* void */
		goto out;
	}
	if (!dwt_peel(&o.type, &p)) {
		ret = -ENOENT;
		goto out;
	}
	tag = dwarf_tag(&p);
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	    tag == DW_TAG_class_type || tag == DW_TAG_array_type) {
		char *tn = dwt_name(&o.type, 0);

		ret = fail(&w, -EINVAL, "'return' is '%s', returned by value "
			   "in registers uprobes cannot read as one", tn);
		free(tn);
		goto out;
	}
	o.pl.loc = xstrdup("%ax");
	ret = walk(&w, &o, path);
	if (!ret)
		ret = emit(&w, &o, path, out);
out:
	tplace_release(&o.pl);
	walk_release(&w);
	free(s.v);
	return ret;
}

/* "struct foo" -> tag and name; "foo" -> 0 and name. */
int dwtype_cast(struct dwinfo *dw, const char *type, const struct tplace *ptr,
		const struct tpath *path, struct tval *out, char *err,
		size_t errlen)
{
	struct dwobj o = { 0 };
	struct dwwalk w;
	struct tpath rest;
	Dwarf_Die t;
	char *what;
	int64_t off;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!dwt_find_type(dw, type, &t))
		return errmsg(err, errlen, -ENOENT, "no type '%s' in '%s'", type,
			      dwinfo_debug_file(dw));
	what = xasprintf("@cast(%s)", type);
	walk_init(&w, dw, what, err, errlen);
	free(w.root);
	w.root = xstrdup("cast");
	free(what);
	o.pl.loc = xstrdup(ptr->loc);
	o.pl.off = ptr->off;
	o.pl.mem = ptr->mem;
	rest = *path;
	off = path->off;
	if (rest.nsteps && rest.steps[0].kind == TSTEP_INDEX) {
		/* p[i]: the pointer moved by i objects */
		int64_t size = dwt_size(&t);

		if (size <= 0) {
			free(o.pl.loc);
			walk_release(&w);
			return errmsg(err, errlen, -EINVAL, "'%s' has no size "
				      "to index by", type);
		}
		off += rest.steps[0].index * size;
		rest.steps++;
		rest.nsteps--;
	}
	ret = deref(&w, &o, &t, false, off);
	if (!ret)
		ret = walk(&w, &o, &rest);
	if (!ret)
		ret = emit(&w, &o, &rest, out);
	tplace_release(&o.pl);
	walk_release(&w);
	return ret;
}

