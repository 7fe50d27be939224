// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel function's prototype for kprobe definitions (kbtf_func.h),
 * through libbpf's BTF API.
 *
 * Each parameter is put in a class that says how a kprobe fetches it:
 * modifiers, typedefs and type tags are skipped (at most MAX_CHAIN, so a
 * cycle in a hostile blob ends), a pointer is a string when it points to
 * a one-byte char and __user when a "user" type tag is on the way (only
 * kernels built with clang have them).  libbpf has checked every type id
 * a record names when it read the blob.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "common/kbtf_func.h"
#include "common/kbtf_int.h"
#include "common/log.h"

#define MAX_CHAIN	32

static bool is_modifier(const struct btf_type *t)
{
	return btf_is_mod(t) || btf_is_typedef(t);
}

static const char *name_of(const struct btf *b, __u32 off)
{
	const char *s = btf__name_by_offset(b, off);

	return s ? s : "";
}

/* What a pointer to @id is: a char (string candidate) or not, __user? */
static void classify_ptr(const struct btf *b, __u32 id, struct kbtf_type_info *t)
{
	bool user = false, is_char = false;
	const struct btf_type *r;
	int i;

	for (i = 0; i < MAX_CHAIN && id && (r = btf__type_by_id(b, id)); i++) {
		if (btf_is_type_tag(r) && !strcmp(name_of(b, r->name_off), "user"))
			user = true;
		if (!is_modifier(r)) {
			if (btf_is_int(r) && r->size == 1)
				is_char = (btf_int_encoding(r) & BTF_INT_CHAR) ||
					  !strcmp(name_of(b, r->name_off), "char");
			break;
		}
		id = r->type;
	}
	t->size = 8;
	t->is_signed = false;
	if (is_char)
		t->cls = user ? KBTF_CLASS_USTRING : KBTF_CLASS_STRING;
	else
		t->cls = user ? KBTF_CLASS_UPTR : KBTF_CLASS_PTR;
}

static bool int_size(__u32 size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static void classify(const struct btf *b, __u32 id, struct kbtf_type_info *t)
{
	const struct btf_type *r = NULL;
	int i;

	memset(t, 0, sizeof(*t));
	t->cls = KBTF_CLASS_OTHER;
	for (i = 0; i < MAX_CHAIN; i++) {
		if (id == 0) {
			t->cls = KBTF_CLASS_VOID;
			return;
		}
		if (!(r = btf__type_by_id(b, id)))
			return;
		if (!is_modifier(r))
			break;
		id = r->type;
	}
	if (i == MAX_CHAIN)
		return;
	switch (btf_kind(r)) {
	case BTF_KIND_INT:
		if (btf_int_encoding(r) & BTF_INT_BOOL) {
			t->cls = KBTF_CLASS_BOOL;
			t->size = 1;
		} else if (int_size(r->size)) {
			t->cls = KBTF_CLASS_INT;
			t->size = (int)r->size;
			t->is_signed = btf_int_encoding(r) & BTF_INT_SIGNED;
		}
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (int_size(r->size)) {
			t->cls = KBTF_CLASS_ENUM;
			t->size = (int)r->size;
			t->is_signed = btf_kflag(r);
		}
		break;
	case BTF_KIND_PTR:
		classify_ptr(b, r->type, t);
		break;
	case BTF_KIND_FLOAT:
		t->cls = KBTF_CLASS_FLOAT;
		t->size = (int)r->size;
		break;
	default:
		break;
	}
}

int kbtf_func_find(struct kbtf *k, const char *name, struct kbtf_func *out,
		   char *err, size_t errlen)
{
	const struct btf *b = kbtf_btf(k, NULL, err, errlen);
	const struct btf_type *fn, *proto;
	const struct btf_param *p;
	__u16 i, vlen;
	int id;

	memset(out, 0, sizeof(*out));
	if (!b)
		return -EINVAL;
	id = btf__find_by_name_kind(b, name, BTF_KIND_FUNC);
	if (id <= 0)
		return errmsg(err, errlen, -ENOENT, "no function '%s' in the "
			      "kernel's BTF", name);
	fn = btf__type_by_id(b, (__u32)id);
	proto = fn ? btf__type_by_id(b, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return errmsg(err, errlen, -EINVAL, "bad BTF: function '%s' "
			      "has no prototype", name);
	out->name = xstrdup(name);
	classify(b, proto->type, &out->ret);
	vlen = btf_vlen(proto);
	p = btf_params(proto);
	out->params = xcalloc(vlen ? vlen : 1, sizeof(*out->params));
	for (i = 0; i < vlen; i++) {
		if (i == vlen - 1 && !p[i].name_off && !p[i].type) {
			out->variadic = true;
			break;
		}
		out->params[i].name = xstrdup(name_of(b, p[i].name_off));
		classify(b, p[i].type, &out->params[i].t);
		out->params[i].place = kbtf_param_place(b, proto, i);
		out->nparams++;
	}
	return 0;
}

void kbtf_func_release(struct kbtf_func *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nparams; i++)
		free(f->params[i].name);
	free(f->params);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

const char *kbtf_fetch_type(const struct kbtf_type_info *t)
{
	static const char *const s[] = { "s8", "s16", "", "s32", "", "", "", "s64" };
	static const char *const u[] = { "u8", "u16", "", "u32", "", "", "", "u64" };

	switch (t->cls) {
	case KBTF_CLASS_INT:
	case KBTF_CLASS_ENUM:
		if (t->size < 1 || t->size > 8 || !*u[t->size - 1])
			return NULL;
		return t->is_signed ? s[t->size - 1] : u[t->size - 1];
	case KBTF_CLASS_BOOL:
		return "u8";
	case KBTF_CLASS_STRING:
		return "string";
	case KBTF_CLASS_USTRING:
		return "ustring";
	case KBTF_CLASS_UPTR:
	case KBTF_CLASS_PTR:
		return "x64";
	default:
		return NULL;
	}
}

const char *kbtf_class_name(enum kbtf_class c)
{
	switch (c) {
	case KBTF_CLASS_VOID: return "void";
	case KBTF_CLASS_INT: return "int";
	case KBTF_CLASS_BOOL: return "bool";
	case KBTF_CLASS_ENUM: return "enum";
	case KBTF_CLASS_STRING: return "char *";
	case KBTF_CLASS_USTRING: return "char __user *";
	case KBTF_CLASS_UPTR: return "__user pointer";
	case KBTF_CLASS_PTR: return "pointer";
	case KBTF_CLASS_FLOAT: return "float";
	default: return "struct or union";
	}
}

char *kbtf_param_fetch(const struct kbtf_func *f, size_t i, const char *type,
		       char *err, size_t errlen)
{
#if defined(__x86_64__)
	static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
	const struct kbtf_param *p = &f->params[i];
	char loc[32];

	if (p->place == KBTF_PLACE_UNKNOWN) {
		errmsg(err, errlen, -EINVAL, "'%s' of %s follows a struct "
		       "passed by value: its place is unknown", p->name,
		       f->name);
		return NULL;
	}
	if (!type)
		type = kbtf_fetch_type(&p->t);
	if (!type || p->t.cls == KBTF_CLASS_FLOAT || p->t.cls == KBTF_CLASS_OTHER ||
	    p->t.cls == KBTF_CLASS_VOID || p->place < 0) {
		errmsg(err, errlen, -EINVAL, "'%s' of %s is a %s: no register "
		       "holds it", p->name, f->name, kbtf_class_name(p->t.cls));
		return NULL;
	}
	if (p->place < 6)
		snprintf(loc, sizeof(loc), "%s", regs[p->place]);
	else		/* above the return address */
		snprintf(loc, sizeof(loc), "+%d(%%sp)", 8 * (p->place - 5));
	if (!strcmp(type, "string") || !strcmp(type, "ustring"))
		return xasprintf("+0(%s):%s", loc, type);
	return xasprintf("%s:%s", loc, type);
#else
	errmsg(err, errlen, -EOPNOTSUPP, "argument names need the x86-64 "
	       "calling convention");
	return NULL;
#endif
}
