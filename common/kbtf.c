// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel target variables through libbpf's BTF API (kbtf.h).
 *
 * A path is walked as a (type, place) pair: the place says where the
 * current object is as the fetch syntax can say it (common/tpath.h), the
 * type what it is.  A parameter starts as the register value $argN, the
 * return value as $retval.  Following a pointer makes the place "memory
 * at the pointer's value" (tplace_deref()), a member adds its byte offset,
 * an array element its index times the element size.  At the end the
 * place's value is fetched with the type the BTF says: s32 for an int, x64
 * for a pointer, b<w>@<o>/<bits> for a bitfield, :string for a char
 * array (the kernel reads the string at the address the last dereference
 * computes, so +OFF(BASE):string is the array itself).
 *
 * Type modifiers (const, volatile, restrict), typedefs and type tags are
 * skipped while walking, but named in the C types -L prints.  A pointer
 * tagged __user (BTF_KIND_TYPE_TAG "user", in kernels built with clang)
 * pretty-prints as :ustring; without tags there is no way to tell, and
 * the kernel's reading is used (user_string() is always right).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/kbtf.h"
#include "common/kbtf_int.h"
#include "common/log.h"

/* pretty printing: at most this many fetch args, this deep */
#define PRETTY_MAX_ARGS	48
#define PRETTY_MAX_DEPTH 3

struct kmod_btf {
	char *name;
	struct btf *btf;
};

struct kbtf {
	struct btf *vmlinux;
	struct kmod_btf *mods;
	size_t nmods;
};

/* libbpf's warnings are for its own users; ours come back in @err */
static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	return 0;
}

struct kbtf *kbtf_open(char *err, size_t errlen)
{
	struct kbtf *k;
	struct btf *b;

	libbpf_set_print(quiet_print);
	b = btf__load_vmlinux_btf();
	if (!b) {
		int e = errno ? errno : ENOENT;

		errmsg(err, errlen, -e, "cannot read the kernel's BTF "
		       "(/sys/kernel/btf/vmlinux): %s", strerror(e));
		errno = e;
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	k->vmlinux = b;
	return k;
}

struct kbtf *kbtf_parse(const void *data, size_t len, char *err,
			size_t errlen)
{
	struct kbtf *k;
	struct btf *b;

	libbpf_set_print(quiet_print);
	errno = 0;
	b = len <= UINT32_MAX ? btf__new(data, (__u32)len) : NULL;
	if (!b) {
		int e = errno && errno != ENOENT ? errno : EINVAL;

		errmsg(err, errlen, -e, "bad BTF: %zu bytes libbpf refuses: %s",
		       len, strerror(e));
		errno = e;
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	k->vmlinux = b;
	return k;
}

void kbtf_free(struct kbtf *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nmods; i++) {
		btf__free(k->mods[i].btf);
		free(k->mods[i].name);
	}
	free(k->mods);
	btf__free(k->vmlinux);
	free(k);
}

/* The BTF of @module (NULL or "kernel": vmlinux), loaded once. */
static struct btf *module_btf(struct kbtf *k, const char *module, char *err,
			      size_t errlen)
{
	struct btf *b;
	size_t i;

	if (!module || !strcmp(module, "kernel") || !strcmp(module, "vmlinux"))
		return k->vmlinux;
	for (i = 0; i < k->nmods; i++)
		if (!strcmp(k->mods[i].name, module))
			return k->mods[i].btf;
	b = btf__load_module_btf(module, k->vmlinux);
	if (!b) {
		int e = errno ? errno : ENOENT;

		errmsg(err, errlen, -e, "no BTF for module '%s' "
		       "(/sys/kernel/btf/%s): %s", module, module, strerror(e));
		errno = e;
		return NULL;
	}
	k->mods = xrealloc(k->mods, (k->nmods + 1) * sizeof(*k->mods));
	k->mods[k->nmods].name = xstrdup(module);
	k->mods[k->nmods++].btf = b;
	return b;
}

struct btf *kbtf_btf(struct kbtf *k, const char *module, char *err,
		     size_t errlen)
{
	return module_btf(k, module, err, errlen);
}

static bool is_mod(const struct btf_type *t)
{
	return btf_is_mod(t) || btf_is_typedef(t);
}

/* @id with modifiers, typedefs and tags skipped. */
static __u32 skip_mods(const struct btf *b, __u32 id)
{
	const struct btf_type *t;
	int guard = 0;

	while (id && (t = btf__type_by_id(b, id)) && is_mod(t) && guard++ < 64)
		id = t->type;
	return id;
}

/* Does the pointer type @ptr point to something tagged "user"? */
static bool is_user_ptr(const struct btf *b, const struct btf_type *ptr)
{
	__u32 id = ptr->type;
	const struct btf_type *t;
	int guard = 0;

	while (id && (t = btf__type_by_id(b, id)) && is_mod(t) && guard++ < 64) {
		if (btf_is_type_tag(t) &&
		    !strcmp(btf__name_by_offset(b, t->name_off), "user"))
			return true;
		id = t->type;
	}
	return false;
}

static const char *tname(const struct btf *b, const struct btf_type *t)
{
	const char *s = btf__name_by_offset(b, t->name_off);

	return s ? s : "";
}

static bool is_char(const struct btf *b, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(b, skip_mods(b, id));

	return t && btf_is_int(t) && t->size == 1 && strstr(tname(b, t), "char");
}

static bool int_signed(const struct btf_type *t)
{
	if (btf_is_int(t))
		return btf_int_encoding(t) & BTF_INT_SIGNED;
	if (btf_is_enum(t) || btf_is_enum64(t))
		return t->info >> 31;	/* kind_flag: a signed enum */
	return false;
}

/* The C type of @id as stap prints it: "const char*", "struct x*". */
static void ctype_add(const struct btf *b, __u32 id, char *buf, size_t len,
		      int depth)
{
	const struct btf_type *t = id ? btf__type_by_id(b, id) : NULL;
	size_t n = strlen(buf);
	const char *kw = "";

	if (n >= len - 1)
		return;
	if (!t || depth > 16) {
		snprintf(buf + n, len - n, "void");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		ctype_add(b, t->type, buf, len, depth + 1);
		n = strlen(buf);
		snprintf(buf + n, len - n, "*");
		return;
	case BTF_KIND_CONST:
		snprintf(buf + n, len - n, "const ");
		ctype_add(b, t->type, buf, len, depth + 1);
		return;
	case BTF_KIND_VOLATILE:
		snprintf(buf + n, len - n, "volatile ");
		ctype_add(b, t->type, buf, len, depth + 1);
		return;
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		ctype_add(b, t->type, buf, len, depth + 1);
		return;
	case BTF_KIND_ARRAY:
		ctype_add(b, btf_array(t)->type, buf, len, depth + 1);
		n = strlen(buf);
		snprintf(buf + n, len - n, "[%u]", btf_array(t)->nelems);
		return;
	case BTF_KIND_FUNC_PROTO:
		snprintf(buf + n, len - n, "func");
		return;
	case BTF_KIND_STRUCT:
		kw = "struct ";
		break;
	case BTF_KIND_UNION:
		kw = "union ";
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		kw = "enum ";
		break;
	case BTF_KIND_FWD:
		kw = t->info >> 31 ? "union " : "struct ";
		break;
	}
	snprintf(buf + n, len - n, "%s%s", kw, *tname(b, t) ? tname(b, t) :
		 "{...}");
}

static char *ctype_of(const struct btf *b, __u32 id)
{
	char buf[256] = "";

	ctype_add(b, id, buf, sizeof(buf), 0);
	return xstrdup(buf);
}

/* The FUNC_PROTO of function @func, or 0 with the reason in @err. */
static int find_proto(const struct btf *b, const char *func, char *err,
		      size_t errlen)
{
	const struct btf_type *t;
	int id = btf__find_by_name_kind(b, func, BTF_KIND_FUNC);

	if (id <= 0)
		return errmsg(err, errlen, -ENOENT, "no function '%s' in the "
			      "kernel's BTF", func);
	t = btf__type_by_id(b, (__u32)id);
	if (!t || !(t = btf__type_by_id(b, t->type)) || !btf_is_func_proto(t))
		return errmsg(err, errlen, -EINVAL, "function '%s' has a "
			      "malformed prototype in BTF", func);
	return (int)btf__type_by_id(b, (__u32)id)->type;
}

int kbtf_params(struct kbtf *k, const char *module, const char *func,
		struct kbtf_var **out, size_t *n, char **ret, char *err,
		size_t errlen)
{
	const struct btf *b = module_btf(k, module, err, errlen);
	const struct btf_type *proto;
	const struct btf_param *p;
	int id;
	__u16 i, vlen;

	*out = NULL;
	*n = 0;
	*ret = NULL;
	if (!b)
		return -errno;
	if ((id = find_proto(b, func, err, errlen)) < 0)
		return id;
	proto = btf__type_by_id(b, (__u32)id);
	p = btf_params(proto);
	vlen = btf_vlen(proto);
	*out = xcalloc(vlen ? vlen : 1, sizeof(**out));
	for (i = 0; i < vlen; i++) {
		const char *name = btf__name_by_offset(b, p[i].name_off);

		if (!p[i].type)		/* the "..." of a variadic function */
			break;
		(*out)[*n].name = xstrdup(name && *name ? name : "");
		(*out)[*n].ctype = ctype_of(b, p[i].type);
		(*n)++;
	}
	if (proto->type)
		*ret = ctype_of(b, proto->type);
	return 0;
}

void kbtf_vars_free(struct kbtf_var *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].ctype);
	}
	free(v);
}

/* A place and its type while walking a path. */
struct walk {
	const struct btf *b;
	__u32 id;		/* the object's type (modifiers kept) */
	struct tplace pl;
	int bitsize;		/* > 0: a bitfield of that many bits */
	int bitoff;		/* its bit offset from pl.off */
	char *err;
	size_t errlen;
};

/* Member @name of the struct/union @t (anonymous members searched too):
 * its type and bit offset from @t's start, bitfield size in *@bits. */
static bool find_member(const struct btf *b, const struct btf_type *t,
			const char *name, __u32 *id, __u32 *bitoff, int *bits,
			int depth)
{
	const struct btf_member *m = btf_members(t);
	__u16 i, vlen = btf_vlen(t);

	for (i = 0; i < vlen; i++) {
		const char *mn = btf__name_by_offset(b, m[i].name_off);
		__u32 off = btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			*id = m[i].type;
			*bitoff = off;
			*bits = (int)btf_member_bitfield_size(t, i);
			return true;
		} else if (depth < 8) {
			const struct btf_type *a =
				btf__type_by_id(b, skip_mods(b, m[i].type));

			if (a && btf_is_composite(a) &&
			    find_member(b, a, name, id, bitoff, bits, depth + 1)) {
				*bitoff += off;
				return true;
			}
		}
	}
	return false;
}

/* The walk's failure: @ret with the message in the caller's buffer. */
#define walk_err(w, ret, ...) errmsg((w)->err, (w)->errlen, (ret), __VA_ARGS__)

/* Make the current object a struct/union/array in memory: follow a
 * pointer to one first. */
static int walk_member(struct walk *w, const char *name)
{
	__u32 id = skip_mods(w->b, w->id), mid, bitoff;
	const struct btf_type *t = btf__type_by_id(w->b, id);
	char *ct;
	int bits, ret;

	if (t && btf_is_ptr(t)) {
		const struct btf_type *to =
			btf__type_by_id(w->b, skip_mods(w->b, t->type));

		if (to && btf_is_composite(to)) {
			tplace_deref(&w->pl, 0);
			id = skip_mods(w->b, t->type);
			t = to;
		}
	}
	if (!t || !btf_is_composite(t)) {
		ct = ctype_of(w->b, w->id);
		ret = walk_err(w, -EINVAL, "'%s' is not a struct or union, "
			       "it has no member '%s'", ct, name);
		free(ct);
		return ret;
	}
	if (!find_member(w->b, t, name, &mid, &bitoff, &bits, 0)) {
		ct = ctype_of(w->b, id);
		ret = walk_err(w, -EINVAL, "no member '%s' in '%s'", name, ct);
		free(ct);
		return ret;
	}
	if (!w->pl.mem)
		return walk_err(w, -EINVAL, "'%s' is passed by value in "
				"registers; its member '%s' cannot be fetched",
				tname(w->b, t), name);
	w->id = mid;
	w->bitsize = bits;
	if (bits) {
		w->pl.off += bitoff / 8;
		w->bitoff = bitoff % 8;
	} else {
		w->pl.off += bitoff / 8;
		w->bitoff = 0;
	}
	return 0;
}

static int walk_index(struct walk *w, int64_t idx)
{
	__u32 id = skip_mods(w->b, w->id);
	const struct btf_type *t = btf__type_by_id(w->b, id);
	__s64 esz;
	char *ct;
	int ret;

	if (t && btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);

		if (a->nelems && (idx < 0 || idx >= a->nelems))
			return walk_err(w, -ERANGE, "index %" PRId64 " is out "
					"of the bounds of an array of %u",
					idx, a->nelems);
		if (!w->pl.mem)
			return walk_err(w, -EINVAL, "an array in a register "
					"cannot be indexed");
		esz = btf__resolve_size(w->b, a->type);
		if (esz <= 0)
			return walk_err(w, -EINVAL, "array elements of unknown size");
		w->pl.off += idx * esz;
		w->id = a->type;
		return 0;
	}
	if (t && btf_is_ptr(t)) {
		esz = btf__resolve_size(w->b, t->type);
		if (esz <= 0)
			return walk_err(w, -EINVAL, "cannot index a pointer to "
					"void or to a type of unknown size");
		tplace_deref(&w->pl, idx * esz);
		w->id = t->type;
		return 0;
	}
	ct = ctype_of(w->b, w->id);
	ret = walk_err(w, -EINVAL, "'%s' is neither an array nor a pointer; "
		       "it cannot be indexed", ct);
	free(ct);
	return ret;
}

/* Append a fetch arg reading the place in @w with @type. */
static struct fetcharg *add_arg(struct tval *v, char *loc, const char *type)
{
	struct fetcharg *a;

	v->args = xrealloc(v->args, (v->nargs + 1) * sizeof(*v->args));
	a = &v->args[v->nargs];
	memset(a, 0, sizeof(*a));
	a->name = xasprintf("a%zu", v->nargs);
	a->loc = loc;
	snprintf(a->type, sizeof(a->type), "%s", type);
	v->nargs++;
	return a;
}

/*
 * The scalar at @w's place as one fetch arg: *@kind says how it prints
 * ('d' number, 'x' pointer, 's' string).  -EINVAL with the reason for
 * what is not a scalar.
 */
static int scalar_arg(struct walk *w, struct tval *v, bool strings, char *kind)
{
	__u32 id = skip_mods(w->b, w->id);
	const struct btf_type *t = btf__type_by_id(w->b, id);
	struct fetcharg *a;
	char type[16];
	char *ct;
	int ret;

	if (!t)
		return walk_err(w, -EINVAL, "a value of type void");
	if (w->bitsize) {
		if (!w->pl.mem)
			return walk_err(w, -EINVAL, "a bitfield in a register");
		snprintf(type, sizeof(type), "b%d@%d/%u", w->bitsize,
			 w->bitoff, t->size * 8);
		if (w->bitoff + w->bitsize > (int)t->size * 8) {
			/* spans the container: read from the bit's byte */
			snprintf(type, sizeof(type), "b%d@%d/%u", w->bitsize,
				 w->bitoff, 64u);
		}
		a = add_arg(v, tplace_value(&w->pl), type);
		a->size = (int)t->size;
		a->is_signed = int_signed(t);
		*kind = 'd';
		return 0;
	}
	if (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t)) {
		bool s = int_signed(t);

		if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
			return walk_err(w, -EINVAL, "an integer of %u bytes "
					"cannot be fetched", t->size);
		a = add_arg(v, tplace_value(&w->pl),
			    fetcharg_int_type((int)t->size, s));
		a->size = (int)t->size;
		a->is_signed = s;
		*kind = 'd';
		return 0;
	}
	if (btf_is_ptr(t)) {
		if (strings && is_char(w->b, t->type)) {
			char *val = tplace_value(&w->pl);

			a = add_arg(v, xasprintf("+0(%s)", val),
				    is_user_ptr(w->b, t) ? "ustring" : "string");
			free(val);
			*kind = 's';
			return 0;
		}
		a = add_arg(v, tplace_value(&w->pl), "x64");
		a->size = 8;
		a->is_ptr = true;
		a->is_char_ptr = is_char(w->b, t->type);
		*kind = 'x';
		return 0;
	}
	if (btf_is_array(t) && is_char(w->b, btf_array(t)->type)) {
		if (!w->pl.mem)
			return walk_err(w, -EINVAL, "a char array in a register");
		if (!strings) {
			/* as in stap, an array is its address, which
			 * kernel_string($p->comm) reads; $p->comm$ the text */
			a = add_arg(v, xstrdup(w->pl.loc), "x64");
			a->size = 8;
			a->is_ptr = true;
			v->add += w->pl.off;
			*kind = 'x';
			return 0;
		}
		add_arg(v, tplace_value(&w->pl), "string");
		*kind = 's';
		return 0;
	}
	if (btf_is_float(t))
		return walk_err(w, -EINVAL, "a floating-point value cannot "
				"be fetched by a kprobe");
	ct = ctype_of(w->b, w->id);
	ret = walk_err(w, -EINVAL, "'%s' is not a number, a pointer or a "
		       "string; use a member, an element or $%s", ct, "var$");
	free(ct);
	return ret;
}

struct pretty {
	struct tval *v;
	char *fmt;
	size_t len, cap;
	bool full;
};

static void pfmt(struct pretty *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void pfmt(struct pretty *p, const char *fmt, ...)
{
	va_list ap;
	char *s;
	size_t n;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	n = strlen(s);
	if (p->len + n + 1 > p->cap) {
		p->cap = (p->len + n + 1) * 2;
		p->fmt = xrealloc(p->fmt, p->cap);
	}
	memcpy(p->fmt + p->len, s, n + 1);
	p->len += n;
	free(s);
}

/* One value into the template: %N, quoted for strings. */
static void pretty_scalar(struct walk *w, struct pretty *p)
{
	char kind, save[256];
	size_t before = p->v->nargs;

	if (p->v->nargs >= PRETTY_MAX_ARGS) {
		p->full = true;
		pfmt(p, "...");
		return;
	}
	snprintf(save, sizeof(save), "%s", w->err ? w->err : "");
	if (scalar_arg(w, p->v, true, &kind) < 0 || p->v->nargs == before) {
		if (w->err)		/* a member we cannot print: skip it */
			snprintf(w->err, w->errlen, "%s", save);
		pfmt(p, "?");
		return;
	}
	pfmt(p, kind == 's' ? "\"%%%zu\"" : "%%%zu", p->v->nargs);
}

static void pretty_struct(struct walk *w, const struct btf_type *t,
			  struct pretty *p, int depth, int max_depth);

/* The object at @w, which is in memory: a struct, an array or a scalar. */
static void pretty_obj(struct walk *w, struct pretty *p, int depth,
		       int max_depth)
{
	const struct btf_type *t = btf__type_by_id(w->b, skip_mods(w->b, w->id));

	if (t && btf_is_composite(t) && !w->bitsize) {
		if (depth >= max_depth || !w->pl.mem) {
			pfmt(p, "{...}");
			return;
		}
		pretty_struct(w, t, p, depth, max_depth);
		return;
	}
	if (t && btf_is_array(t) && !is_char(w->b, btf_array(t)->type)) {
		pfmt(p, "[...]");
		return;
	}
	pretty_scalar(w, p);
}

static void pretty_struct(struct walk *w, const struct btf_type *t,
			  struct pretty *p, int depth, int max_depth)
{
	const struct btf_member *m = btf_members(t);
	__u16 i, vlen = btf_vlen(t);
	bool first = true;

	pfmt(p, "{");
	for (i = 0; i < vlen && !p->full; i++) {
		const char *mn = btf__name_by_offset(w->b, m[i].name_off);
		__u32 off = btf_member_bit_offset(t, i);
		struct walk mw = *w;

		mw.pl.loc = w->pl.loc;	/* shared; not released here */
		mw.pl.off = w->pl.off + off / 8;
		mw.id = m[i].type;
		mw.bitsize = (int)btf_member_bitfield_size(t, i);
		mw.bitoff = mw.bitsize ? (int)(off % 8) : 0;
		pfmt(p, "%s", first ? "" : ", ");
		first = false;
		if (mn && *mn)
			pfmt(p, ".%s=", mn);
		pretty_obj(&mw, p, depth + 1, max_depth);
	}
	pfmt(p, "}");
}

/* $x$ / $x$$: the template and its args. */
static int pretty_value(struct walk *w, int level, struct tval *out)
{
	__u32 id = skip_mods(w->b, w->id);
	const struct btf_type *t = btf__type_by_id(w->b, id);
	struct pretty p = { .v = out };
	int max_depth = level >= 2 ? PRETTY_MAX_DEPTH : 1;

	if (t && btf_is_ptr(t)) {
		const struct btf_type *to =
			btf__type_by_id(w->b, skip_mods(w->b, t->type));

		if (to && btf_is_composite(to)) {
			tplace_deref(&w->pl, 0);
			w->id = t->type;
		}
	}
	pretty_obj(w, &p, 0, max_depth);
	if (!out->nargs && !p.fmt) {
		free(p.fmt);
		return walk_err(w, -EINVAL, "nothing to print");
	}
	out->kind = TVAL_PRETTY;
	out->fmt = p.fmt ? p.fmt : xstrdup("");
	return 0;
}

/* Compile the rest of a path from @w into @out. */
static int walk_path(struct walk *w, const struct tpath *path,
		     struct tval *out)
{
	size_t i;
	int ret;
	char kind;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < path->nsteps; i++) {
		const struct tstep *s = &path->steps[i];

		if (w->bitsize)
			return walk_err(w, -EINVAL, "a bitfield has no members "
					"or elements");
		ret = s->kind == TSTEP_MEMBER ? walk_member(w, s->name) :
						walk_index(w, s->index);
		if (ret < 0)
			return ret;
	}
	if (path->addressof) {
		char *ct;

		if (w->bitsize)
			return walk_err(w, -EINVAL, "cannot take the address "
					"of a bitfield");
		if (!w->pl.mem)
			return walk_err(w, -EINVAL, "cannot take the address "
					"of a value in a register");
		/* the base address, plus the offset in user space */
		add_arg(out, xstrdup(w->pl.loc), "x64")->is_ptr = true;
		out->add = w->pl.off;
		out->kind = TVAL_LONG;
		ct = ctype_of(w->b, w->id);
		out->ctype = xasprintf("%s*", ct);
		free(ct);
		return 0;
	}
	out->ctype = ctype_of(w->b, w->id);
	if (path->pretty) {
		ret = pretty_value(w, path->pretty, out);
		if (ret < 0)
			tval_release(out);
		return ret;
	}
	ret = scalar_arg(w, out, false, &kind);
	if (ret < 0) {
		tval_release(out);
		return ret;
	}
	out->kind = kind == 's' ? TVAL_STRING : TVAL_LONG;
	return 0;
}

/*
 * How many of the x86-64 calling convention's integer registers a
 * parameter of type @t takes: 1 for a scalar or a struct of up to 8 bytes,
 * 2 for one of up to 16 bytes (two eightbytes), 0 for a float (an %xmm
 * register), -1 for a larger struct (passed in memory).
 */
static int int_regs(const struct btf_type *t)
{
	if (btf_is_float(t))
		return 0;
	if (!btf_is_composite(t) || t->size <= 8)
		return 1;
	return t->size <= 16 ? 2 : -1;
}

int kbtf_param_place(const struct btf *b, const struct btf_type *proto,
		     unsigned idx)
{
	const struct btf_param *p = btf_params(proto);
	unsigned i, slot = 0;	/* the next integer register, 6: the stack */
	bool spilled = false;	/* a struct went on the stack */

	if (idx >= btf_vlen(proto))
		return KBTF_PLACE_UNKNOWN;
	for (i = 0;; i++) {
		__u32 id = skip_mods(b, p[i].type);
		const struct btf_type *t = id ? btf__type_by_id(b, id) : NULL;
		int n;

		if (!t || is_mod(t))	/* a type not known: nor its size */
			return i == idx ? KBTF_PLACE_STRUCT : KBTF_PLACE_UNKNOWN;
		n = int_regs(t);
		if (i == idx) {
			if (n == 0)
				return KBTF_PLACE_FLOAT;
			if (n != 1)
				return KBTF_PLACE_STRUCT;
			return slot >= 6 && spilled ? KBTF_PLACE_UNKNOWN : (int)slot;
		}
		/* a struct in memory, or one that does not fit in the
		 * registers left, goes on the stack; the integers after it
		 * still take the registers */
		if (n < 0 || (n == 2 && slot + 2 > 6))
			spilled = true;
		else
			slot += (unsigned)n;
	}
}

int kbtf_resolve(struct kbtf *k, const char *module, const char *func,
		 const char *name, const struct tpath *path, struct tval *out,
		 char *err, size_t errlen)
{
	const struct btf *b = module_btf(k, module, err, errlen);
	struct walk w = { .b = b, .err = err, .errlen = errlen };
	const struct btf_type *proto;
	const struct btf_param *p;
	__u16 i, vlen;
	char loc[16];
	int id, ret;

	memset(out, 0, sizeof(*out));
	if (!b)
		return -errno;
	if ((id = find_proto(b, func, err, errlen)) < 0)
		return id;
	proto = btf__type_by_id(b, (__u32)id);
	if (!strcmp(name, "return")) {
		if (!proto->type)
			return -ENOENT;
		w.id = proto->type;
		tplace_parse("$retval", &w.pl);
		ret = walk_path(&w, path, out);
		tplace_release(&w.pl);
		return ret;
	}
	p = btf_params(proto);
	vlen = btf_vlen(proto);
	for (i = 0; i < vlen && p[i].type; i++) {
		const char *pn = btf__name_by_offset(b, p[i].name_off);

		if (pn && !strcmp(pn, name))
			break;
	}
	if (i == vlen || !p[i].type)
		return -ENOENT;
	switch ((ret = kbtf_param_place(b, proto, i))) {
	case KBTF_PLACE_FLOAT:
		return errmsg(err, errlen, -EINVAL, "$%s is a floating-point "
			      "value, which kprobes cannot fetch", name);
	case KBTF_PLACE_STRUCT:
		return errmsg(err, errlen, -EINVAL, "$%s is a struct passed by "
			      "value, which no register holds", name);
	case KBTF_PLACE_UNKNOWN:
		return errmsg(err, errlen, -EINVAL, "$%s is on the stack after a "
			      "struct passed by value: its place is unknown", name);
	default:
		break;
	}
	snprintf(loc, sizeof(loc), "$arg%d", ret + 1);
	w.id = p[i].type;
	tplace_parse(loc, &w.pl);
	ret = walk_path(&w, path, out);
	tplace_release(&w.pl);
	return ret;
}

/* A type by name: "struct x", "union x", "enum x", or any named type. */
static int find_type(const struct btf *b, const char *type)
{
	static const struct { const char *kw; int kind; } kws[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};
	static const int any[] = {
		BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF,
		BTF_KIND_INT, BTF_KIND_ENUM, BTF_KIND_ENUM64,
	};
	size_t i;
	int id;

	for (i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (!strncmp(type, kws[i].kw, strlen(kws[i].kw)))
			return btf__find_by_name_kind(b, type + strlen(kws[i].kw),
						      kws[i].kind);
	for (i = 0; i < sizeof(any) / sizeof(any[0]); i++)
		if ((id = btf__find_by_name_kind(b, type, any[i])) > 0)
			return id;
	return -ENOENT;
}

int kbtf_cast(struct kbtf *k, const char *module, const char *type,
	      const struct tplace *ptr, const struct tpath *path,
	      struct tval *out, char *err, size_t errlen)
{
	const struct btf *b = module_btf(k, module, err, errlen);
	struct walk w = { .b = b, .err = err, .errlen = errlen };
	struct tpath rest;
	int id, ret;

	memset(out, 0, sizeof(*out));
	if (!b)
		return -errno;
	id = find_type(b, type);
	if (id <= 0)
		return errmsg(err, errlen, -ENOENT, "no type '%s' in the BTF "
			      "of %s", type, module ? module : "the kernel");
	/* the object the pointer points to */
	w.pl.loc = tplace_value(ptr);
	w.pl.mem = true;
	w.pl.off = path->off;
	w.id = (__u32)id;
	rest = *path;
	if (rest.nsteps && rest.steps[0].kind == TSTEP_INDEX) {
		/* p[i]: the pointer moved by i objects */
		__s64 size = btf__resolve_size(b, (__u32)id);

		if (size <= 0) {
			tplace_release(&w.pl);
			return errmsg(err, errlen, -EINVAL, "'%s' has no size "
				      "to index by", type);
		}
		w.pl.off += rest.steps[0].index * size;
		rest.steps++;
		rest.nsteps--;
	}
	if (!path->nsteps && !path->addressof && !path->pretty) {
		/* @cast(p, "t") alone is the pointer itself */
		free(w.pl.loc);
		w.pl.loc = NULL;
		tplace_release(&w.pl);
		return errmsg(err, errlen, -EINVAL, "@cast(..., \"%s\") needs "
			      "a member, an element or $ to read", type);
	}
	ret = walk_path(&w, &rest, out);
	tplace_release(&w.pl);
	return ret;
}
