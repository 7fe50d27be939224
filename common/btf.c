// SPDX-License-Identifier: GPL-2.0
/*
 * A reader of raw BTF (the kernel's Documentation/bpf/btf.rst), only as far
 * as function prototypes need:
 *
 *	header	magic 0xeB9F, version 1, hdr_len, then the type and string
 *		sections as (offset, length) pairs after the header
 *	types	struct btf_type { name_off, info (vlen:16, kind:5 at 24,
 *		kind_flag at 31), size_or_type }, each followed by data whose
 *		length depends on the kind and vlen; type id N is the Nth (1-based)
 *	strings	NUL-terminated, name_off an offset into them
 *
 * btf_parse() walks the whole type section once, checking that every
 * record fits and its kind is known, and keeps each type's offset: after
 * that a type id is either in range (its record fits) or refused.  Type
 * chains (typedef, const, volatile, restrict, type tags) are followed at
 * most MAX_CHAIN links, so a cycle in a hostile blob ends.  Names are valid
 * because the string section must end with a NUL.  Values are read with
 * memcpy in the host's byte order; a blob of the other order is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/btf.h"
#include "common/log.h"

#define BTF_MAGIC	0xeB9F
#define HDR_LEN		24
#define TYPE_LEN	12
#define MAX_CHAIN	32

enum {
	KIND_INT = 1, KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION, KIND_ENUM,
	KIND_FWD, KIND_TYPEDEF, KIND_VOLATILE, KIND_CONST, KIND_RESTRICT,
	KIND_FUNC, KIND_FUNC_PROTO, KIND_VAR, KIND_DATASEC, KIND_FLOAT,
	KIND_DECL_TAG, KIND_TYPE_TAG, KIND_ENUM64, KIND_MAX = KIND_ENUM64,
};

#define INT_SIGNED	(1u << 0)
#define INT_CHAR	(1u << 1)
#define INT_BOOL	(1u << 2)

struct btf {
	uint8_t *data;
	size_t len;
	const uint8_t *types;	/* the type section */
	const char *strs;	/* the string section, NUL-terminated */
	uint32_t str_len;
	uint32_t *off;		/* off[id - 1]: type id's offset in types */
	uint32_t ntypes;
};

struct rec {
	uint32_t name_off, kind, vlen, size_or_type;
	bool kind_flag;
	const uint8_t *extra;	/* the data after the record */
};

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Bytes after a record of @kind with @vlen entries; -1 for unknown kinds. */
static long extra_len(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case KIND_INT: case KIND_VAR: case KIND_DECL_TAG:
		return 4;
	case KIND_ARRAY:
		return 12;
	case KIND_STRUCT: case KIND_UNION: case KIND_DATASEC: case KIND_ENUM64:
		return 12L * vlen;
	case KIND_ENUM: case KIND_FUNC_PROTO:
		return 8L * vlen;
	case KIND_PTR: case KIND_FWD: case KIND_TYPEDEF: case KIND_VOLATILE:
	case KIND_CONST: case KIND_RESTRICT: case KIND_FUNC: case KIND_FLOAT:
	case KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

/* Type @id (1..ntypes, checked by the caller) */
static void get(const struct btf *b, uint32_t id, struct rec *r)
{
	const uint8_t *p = b->types + b->off[id - 1];
	uint32_t info = rd32(p + 4);

	r->name_off = rd32(p);
	r->vlen = info & 0xffff;
	r->kind = (info >> 24) & 0x1f;
	r->kind_flag = info >> 31;
	r->size_or_type = rd32(p + 8);
	r->extra = p + TYPE_LEN;
}

static const char *str_at(const struct btf *b, uint32_t off)
{
	return off < b->str_len ? b->strs + off : "";
}

static struct btf *parse(uint8_t *data, size_t len, char *err, size_t errlen)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len, pos, cap = 0;
	struct btf *b;
	uint16_t magic;

	if (len < HDR_LEN) {
		snprintf(err, errlen, "bad BTF: %zu bytes, shorter than its header", len);
		goto bad;
	}
	memcpy(&magic, data, 2);
	if (magic != BTF_MAGIC) {
		snprintf(err, errlen, "bad BTF: magic 0x%04x%s", magic,
			 magic == 0x9FeB ? " (the other byte order)" : "");
		goto bad;
	}
	if (data[2] != 1) {
		snprintf(err, errlen, "bad BTF: version %u", data[2]);
		goto bad;
	}
	hdr_len = rd32(data + 4);
	type_off = rd32(data + 8);
	type_len = rd32(data + 12);
	str_off = rd32(data + 16);
	str_len = rd32(data + 20);
	if (hdr_len < HDR_LEN || hdr_len > len ||
	    (uint64_t)type_off + type_len > len - hdr_len ||
	    (uint64_t)str_off + str_len > len - hdr_len ||
	    (hdr_len + type_off) % 4 || !str_len ||
	    data[hdr_len + str_off + str_len - 1] != '\0') {
		snprintf(err, errlen, "bad BTF: sections outside the %zu bytes or unterminated strings",
			 len);
		goto bad;
	}
	b = xcalloc(1, sizeof(*b));
	b->data = data;
	b->len = len;
	b->types = data + hdr_len + type_off;
	b->strs = (const char *)data + hdr_len + str_off;
	b->str_len = str_len;
	for (pos = 0; pos < type_len;) {
		uint32_t info, kind;
		long extra;

		if (type_len - pos < TYPE_LEN) {
			snprintf(err, errlen, "bad BTF: type %u cut short", b->ntypes + 1);
			goto bad_free;
		}
		info = rd32(b->types + pos + 4);
		kind = (info >> 24) & 0x1f;
		extra = extra_len(kind, info & 0xffff);
		if (extra < 0) {
			snprintf(err, errlen, "bad BTF: type %u of unknown kind %u",
				 b->ntypes + 1, kind);
			goto bad_free;
		}
		if ((uint64_t)type_len - pos - TYPE_LEN < (uint64_t)extra) {
			snprintf(err, errlen, "bad BTF: type %u cut short", b->ntypes + 1);
			goto bad_free;
		}
		if (b->ntypes == cap) {
			cap = cap ? cap * 2 : 1024;
			b->off = xrealloc(b->off, cap * sizeof(*b->off));
		}
		b->off[b->ntypes++] = pos;
		pos += TYPE_LEN + (uint32_t)extra;
	}
	return b;

bad_free:
	free(b->off);
	free(b);
bad:
	free(data);
	errno = EINVAL;
	return NULL;
}

struct btf *btf_parse(const void *data, size_t len, char *err, size_t errlen)
{
	uint8_t *copy = xmalloc(len ? len : 1);

	memcpy(copy, data, len);
	return parse(copy, len, err, errlen);
}

struct btf *btf_load(const char *path, char *err, size_t errlen)
{
	size_t cap = 1 << 20, len = 0;
	uint8_t *buf;
	ssize_t r;
	int fd, e;

	if (!path)
		path = "/sys/kernel/btf/vmlinux";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	buf = xmalloc(cap);
	for (;;) {		/* sysfs reports no size worth trusting */
		if (cap - len < 65536) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			free(buf);
			close(fd);
			errno = e;
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	return parse(buf, len, err, errlen);
fail:
	e = errno;
	snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
	errno = e;
	return NULL;
}

void btf_free(struct btf *b)
{
	if (!b)
		return;
	free(b->off);
	free(b->data);
	free(b);
}

static bool valid(const struct btf *b, uint32_t id)
{
	return id >= 1 && id <= b->ntypes;
}

static bool is_modifier(uint32_t kind)
{
	return kind == KIND_TYPEDEF || kind == KIND_VOLATILE || kind == KIND_CONST ||
	       kind == KIND_RESTRICT || kind == KIND_TYPE_TAG;
}

/* What a pointer to @id is: a char (string candidate) or not, __user? */
static void classify_ptr(const struct btf *b, uint32_t id, struct btf_type_info *t)
{
	bool user = false, is_char = false;
	struct rec r;
	int i;

	for (i = 0; i < MAX_CHAIN && valid(b, id); i++) {
		get(b, id, &r);
		if (r.kind == KIND_TYPE_TAG && !strcmp(str_at(b, r.name_off), "user"))
			user = true;
		if (!is_modifier(r.kind)) {
			if (r.kind == KIND_INT && r.size_or_type == 1) {
				uint32_t enc = rd32(r.extra) >> 24;

				is_char = (enc & INT_CHAR) ||
					  !strcmp(str_at(b, r.name_off), "char");
			}
			break;
		}
		id = r.size_or_type;
	}
	t->size = 8;
	t->is_signed = false;
	if (is_char)
		t->cls = user ? BTF_CLASS_USTRING : BTF_CLASS_STRING;
	else
		t->cls = user ? BTF_CLASS_UPTR : BTF_CLASS_PTR;
}

static void classify(const struct btf *b, uint32_t id, struct btf_type_info *t)
{
	struct rec r;
	int i;

	memset(t, 0, sizeof(*t));
	t->cls = BTF_CLASS_OTHER;
	for (i = 0; i < MAX_CHAIN; i++) {
		if (id == 0) {
			t->cls = BTF_CLASS_VOID;
			return;
		}
		if (!valid(b, id))
			return;
		get(b, id, &r);
		if (!is_modifier(r.kind))
			break;
		id = r.size_or_type;
	}
	if (i == MAX_CHAIN)
		return;
	switch (r.kind) {
	case KIND_INT: {
		uint32_t enc = rd32(r.extra) >> 24;

		if (enc & INT_BOOL) {
			t->cls = BTF_CLASS_BOOL;
			t->size = 1;
		} else if (r.size_or_type == 1 || r.size_or_type == 2 ||
			   r.size_or_type == 4 || r.size_or_type == 8) {
			t->cls = BTF_CLASS_INT;
			t->size = (int)r.size_or_type;
			t->is_signed = enc & INT_SIGNED;
		}
		break;
	}
	case KIND_ENUM:
	case KIND_ENUM64:
		if (r.size_or_type == 1 || r.size_or_type == 2 ||
		    r.size_or_type == 4 || r.size_or_type == 8) {
			t->cls = BTF_CLASS_ENUM;
			t->size = (int)r.size_or_type;
			t->is_signed = r.kind_flag;
		}
		break;
	case KIND_PTR:
		classify_ptr(b, r.size_or_type, t);
		break;
	case KIND_FLOAT:
		t->cls = BTF_CLASS_FLOAT;
		t->size = (int)r.size_or_type;
		break;
	default:
		break;
	}
}

int btf_func_find(const struct btf *b, const char *name, struct btf_func *out,
		  char *err, size_t errlen)
{
	struct rec r, proto;
	uint32_t id, i;

	memset(out, 0, sizeof(*out));
	for (id = 1; id <= b->ntypes; id++) {
		get(b, id, &r);
		if (r.kind == KIND_FUNC && !strcmp(str_at(b, r.name_off), name))
			break;
	}
	if (id > b->ntypes) {
		snprintf(err, errlen, "no function '%s' in the kernel's BTF", name);
		return -ENOENT;
	}
	if (!valid(b, r.size_or_type)) {
		snprintf(err, errlen, "bad BTF: function '%s' has no prototype", name);
		return -EINVAL;
	}
	get(b, r.size_or_type, &proto);
	if (proto.kind != KIND_FUNC_PROTO) {
		snprintf(err, errlen, "bad BTF: function '%s' has no prototype", name);
		return -EINVAL;
	}
	out->name = xstrdup(name);
	classify(b, proto.size_or_type, &out->ret);
	out->params = xcalloc(proto.vlen ? proto.vlen : 1, sizeof(*out->params));
	for (i = 0; i < proto.vlen; i++) {
		uint32_t pname = rd32(proto.extra + 8 * i);
		uint32_t ptype = rd32(proto.extra + 8 * i + 4);

		if (i == proto.vlen - 1 && !pname && !ptype) {
			out->variadic = true;
			break;
		}
		out->params[i].name = xstrdup(str_at(b, pname));
		classify(b, ptype, &out->params[i].t);
		out->nparams++;
	}
	return 0;
}

void btf_func_release(struct btf_func *f)
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

const char *btf_fetch_type(const struct btf_type_info *t)
{
	static const char *const s[] = { "s8", "s16", "", "s32", "", "", "", "s64" };
	static const char *const u[] = { "u8", "u16", "", "u32", "", "", "", "u64" };

	switch (t->cls) {
	case BTF_CLASS_INT:
	case BTF_CLASS_ENUM:
		if (t->size < 1 || t->size > 8 || !*u[t->size - 1])
			return NULL;
		return t->is_signed ? s[t->size - 1] : u[t->size - 1];
	case BTF_CLASS_BOOL:
		return "u8";
	case BTF_CLASS_STRING:
		return "string";
	case BTF_CLASS_USTRING:
		return "ustring";
	case BTF_CLASS_UPTR:
	case BTF_CLASS_PTR:
		return "x64";
	default:
		return NULL;
	}
}

const char *btf_class_name(enum btf_class c)
{
	switch (c) {
	case BTF_CLASS_VOID: return "void";
	case BTF_CLASS_INT: return "int";
	case BTF_CLASS_BOOL: return "bool";
	case BTF_CLASS_ENUM: return "enum";
	case BTF_CLASS_STRING: return "char *";
	case BTF_CLASS_USTRING: return "char __user *";
	case BTF_CLASS_UPTR: return "__user pointer";
	case BTF_CLASS_PTR: return "pointer";
	case BTF_CLASS_FLOAT: return "float";
	default: return "struct or union";
	}
}

char *btf_param_fetch(const struct btf_func *f, size_t i, const char *type,
		      char *err, size_t errlen)
{
#if defined(__x86_64__)
	static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
	const struct btf_param *p = &f->params[i];
	char loc[32];
	size_t k, slot = 0;

	for (k = 0; k < i; k++) {
		enum btf_class c = f->params[k].t.cls;

		if (c == BTF_CLASS_OTHER) {
			snprintf(err, errlen, "'%s' of %s follows a struct passed by value: its place is unknown",
				 p->name, f->name);
			return NULL;
		}
		if (c != BTF_CLASS_FLOAT)	/* floats go in %xmm registers */
			slot++;
	}
	if (!type)
		type = btf_fetch_type(&p->t);
	if (!type || p->t.cls == BTF_CLASS_FLOAT || p->t.cls == BTF_CLASS_OTHER ||
	    p->t.cls == BTF_CLASS_VOID) {
		snprintf(err, errlen, "'%s' of %s is a %s: no register holds it",
			 p->name, f->name, btf_class_name(p->t.cls));
		return NULL;
	}
	if (slot < 6)
		snprintf(loc, sizeof(loc), "%s", regs[slot]);
	else		/* above the return address */
		snprintf(loc, sizeof(loc), "+%zu(%%sp)", 8 * (slot - 5));
	if (!strcmp(type, "string") || !strcmp(type, "ustring"))
		return xasprintf("+0(%s):%s", loc, type);
	return xasprintf("%s:%s", loc, type);
#else
	snprintf(err, errlen, "argument names need the x86-64 calling convention");
	return NULL;
#endif
}
