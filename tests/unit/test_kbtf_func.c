// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel function prototypes from BTF (common/kbtf_func.c over libbpf):
 * blobs built here (every class, type tags, cycles, malformed headers and
 * records), then the running kernel's /sys/kernel/btf/vmlinux.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/kbtf.h"
#include "common/kbtf_func.h"
#include "tests/unit/unit.h"

/* A blob under construction: type records and strings. */
struct blob {
	uint8_t types[4096];
	size_t tlen;
	char strs[1024];
	size_t slen;
	uint32_t nid;
};

static void blob_init(struct blob *b)
{
	memset(b, 0, sizeof(*b));
	b->slen = 1;		/* offset 0: "" */
}

static uint32_t str(struct blob *b, const char *s)
{
	uint32_t off = (uint32_t)b->slen;

	memcpy(b->strs + b->slen, s, strlen(s) + 1);
	b->slen += strlen(s) + 1;
	return off;
}

static void put32(struct blob *b, uint32_t v)
{
	memcpy(b->types + b->tlen, &v, 4);
	b->tlen += 4;
}

/* A record; returns its type id.  The kind's extra data follows by put32. */
static uint32_t type(struct blob *b, const char *name, int kind, int vlen,
		     uint32_t size_or_type, int kflag)
{
	put32(b, name ? str(b, name) : 0);
	put32(b, (uint32_t)vlen | (uint32_t)kind << 24 | (uint32_t)kflag << 31);
	put32(b, size_or_type);
	return ++b->nid;
}

/* header + types + strings in one malloc'd buffer of *@len bytes */
static uint8_t *blob_bytes(const struct blob *b, size_t *len)
{
	uint32_t hdr[6] = { 0 };
	uint8_t *out;

	*len = 24 + b->tlen + b->slen;
	out = calloc(1, *len);
	hdr[0] = 0xeB9F | 1u << 16;	/* magic, version 1, flags 0 */
	hdr[1] = 24;
	hdr[2] = 0;
	hdr[3] = (uint32_t)b->tlen;
	hdr[4] = (uint32_t)b->tlen;
	hdr[5] = (uint32_t)b->slen;
	memcpy(out, hdr, sizeof(hdr));
	memcpy(out + 24, b->types, b->tlen);
	memcpy(out + 24 + b->tlen, b->strs, b->slen);
	return out;
}

/*
 * long f(int a, const char __user *s, const char *k, unsigned short u,
 *        struct x *p, _Bool ok, enum e v, struct x byval, void __user *up,
 *        my_int_t t, ...)
 * plus h(), whose "prototype" is an int, a typedef cycle in k(), and with
 * @bad_ids, g() whose prototype id is out of range and a parameter of k()
 * of a type id out of range (libbpf may refuse such a blob as a whole).
 */
static struct kbtf *build(bool bad_ids, char *err, size_t errlen)
{
	uint32_t i_int, i_char, i_cchar, i_utag, i_uptr, i_kptr, i_ushort, i_sx,
		 i_px, i_bool, i_enum, i_long, i_void_utag, i_vptr, i_td, i_proto,
		 i_cyc1;
	struct blob b;
	struct kbtf *btf;
	uint8_t *bytes;
	size_t len;

	blob_init(&b);
	i_int = type(&b, "int", 1, 0, 4, 0);
	put32(&b, 1u << 24 | 32);		/* signed, 32 bits */
	i_char = type(&b, "char", 1, 0, 1, 0);
	put32(&b, 1u << 24 | 8);		/* signed char, as gcc's */
	i_cchar = type(&b, NULL, 10, 0, i_char, 0);	/* const char */
	i_utag = type(&b, "user", 18, 0, i_cchar, 0);	/* __user const char */
	i_uptr = type(&b, NULL, 2, 0, i_utag, 0);
	i_kptr = type(&b, NULL, 2, 0, i_cchar, 0);
	i_ushort = type(&b, "unsigned short", 1, 0, 2, 0);
	put32(&b, 16);
	i_sx = type(&b, "x", 4, 1, 8, 0);	/* struct x { int m; } */
	put32(&b, str(&b, "m"));
	put32(&b, i_int);
	put32(&b, 0);
	i_px = type(&b, NULL, 2, 0, i_sx, 0);
	i_bool = type(&b, "_Bool", 1, 0, 1, 0);
	put32(&b, 4u << 24 | 8);
	i_enum = type(&b, "e", 6, 1, 4, 0);
	put32(&b, str(&b, "E1"));
	put32(&b, 1);
	i_long = type(&b, "long", 1, 0, 8, 0);
	put32(&b, 1u << 24 | 64);
	i_void_utag = type(&b, "user", 18, 0, 0, 0);
	i_vptr = type(&b, NULL, 2, 0, i_void_utag, 0);
	i_td = type(&b, "my_int_t", 8, 0, i_int, 0);
	i_proto = type(&b, NULL, 13, 11, i_long, 0);
	{
		const char *names[] = { "a", "s", "k", "u", "p", "ok", "v", "byval",
					"up", "t" };
		uint32_t types[] = { i_int, i_uptr, i_kptr, i_ushort, i_px, i_bool,
				     i_enum, i_sx, i_vptr, i_td };
		int k;

		for (k = 0; k < 10; k++) {
			put32(&b, str(&b, names[k]));
			put32(&b, types[k]);
		}
		put32(&b, 0);		/* ... */
		put32(&b, 0);
	}
	type(&b, "f", 12, 1, i_proto, 0);
	if (bad_ids)
		type(&b, "g", 12, 1, 9999, 0);	/* prototype out of range */
	type(&b, "h", 12, 1, i_int, 0);		/* "prototype" not one */
	i_cyc1 = b.nid + 1;			/* typedef a -> b -> a */
	type(&b, "cyc_a", 8, 0, i_cyc1 + 1, 0);
	type(&b, "cyc_b", 8, 0, i_cyc1, 0);
	i_proto = type(&b, NULL, 13, 2, 0, 0);	/* void k(cyc_a c, <bad id>|int) */
	put32(&b, str(&b, "c"));
	put32(&b, i_cyc1);
	put32(&b, str(&b, "bad"));
	put32(&b, bad_ids ? 123456 : i_int);
	type(&b, "k", 12, 1, i_proto, 0);
	bytes = blob_bytes(&b, &len);
	btf = kbtf_parse(bytes, len, err, errlen);
	free(bytes);
	return btf;
}

UNIT_TEST(classes)
{
	struct kbtf_func f;
	char err[256];
	struct kbtf *b = build(false, err, sizeof(err));
	static const struct { const char *name, *cls, *fetch; int size, sgn; } want[] = {
		{ "a", "int", "s32", 4, 1 },
		{ "s", "char __user *", "ustring", 8, 0 },
		{ "k", "char *", "string", 8, 0 },
		{ "u", "int", "u16", 2, 0 },
		{ "p", "pointer", "x64", 8, 0 },
		{ "ok", "bool", "u8", 1, 0 },
		{ "v", "enum", "u32", 4, 0 },
		{ "byval", "struct or union", NULL, 0, 0 },
		{ "up", "__user pointer", "x64", 8, 0 },
		{ "t", "int", "s32", 4, 1 },
	};
	size_t i;

	CHECK(b != NULL);
	if (!b) {
		printf("# %s\n", err);
		return;
	}
	CHECK_INT(kbtf_func_find(b, "f", &f, err, sizeof(err)), 0);
	CHECK_INT(f.nparams, 10);
	CHECK(f.variadic);
	CHECK_INT(f.ret.cls, KBTF_CLASS_INT);
	CHECK_STR(kbtf_fetch_type(&f.ret), "s64");
	for (i = 0; i < f.nparams && i < 10; i++) {
		const char *fetch = kbtf_fetch_type(&f.params[i].t);

		CHECK_STR(f.params[i].name, want[i].name);
		CHECK_STR(kbtf_class_name(f.params[i].t.cls), want[i].cls);
		CHECK(want[i].fetch ? fetch && !strcmp(fetch, want[i].fetch) : !fetch);
		CHECK_INT(f.params[i].t.size, want[i].size);
		CHECK_INT(f.params[i].t.is_signed, want[i].sgn);
	}
	kbtf_func_release(&f);
	CHECK_INT(kbtf_func_find(b, "h", &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "bad BTF: function 'h' has no prototype");
	CHECK_INT(kbtf_func_find(b, "nope", &f, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "no function 'nope' in the kernel's BTF");
	/* a cycle: classified as unknown, no hang */
	CHECK_INT(kbtf_func_find(b, "k", &f, err, sizeof(err)), 0);
	CHECK_INT(f.nparams, 2);
	CHECK_INT(f.ret.cls, KBTF_CLASS_VOID);
	CHECK(kbtf_fetch_type(&f.ret) == NULL);
	CHECK_INT(f.params[0].t.cls, KBTF_CLASS_OTHER);
	CHECK_INT(f.params[1].t.cls, KBTF_CLASS_INT);
	/* what follows a struct by value has no known place */
	CHECK(kbtf_param_fetch(&f, 1, NULL, err, sizeof(err)) == NULL);
	CHECK_STR(err, "'bad' of k follows a struct passed by value: its place is unknown");
	kbtf_func_release(&f);
	kbtf_free(b);
}

/* Type ids out of range: libbpf refuses the blob, or reading past them
 * fails cleanly (an unknown class, a prototype that is not one). */
UNIT_TEST(ids_out_of_range)
{
	struct kbtf_func f;
	char err[256];
	struct kbtf *b = build(true, err, sizeof(err));

	if (!b) {
		CHECK(!strncmp(err, "bad BTF: ", 9));
		return;
	}
	CHECK_INT(kbtf_func_find(b, "g", &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "bad BTF: function 'g' has no prototype");
	CHECK_INT(kbtf_func_find(b, "k", &f, err, sizeof(err)), 0);
	CHECK_INT(f.nparams, 2);
	CHECK_INT(f.params[1].t.cls, KBTF_CLASS_OTHER);
	kbtf_func_release(&f);
	kbtf_free(b);
}

/* f's parameters as the kprobe tool fetches them at the entry: the
 * 8-byte struct byval takes the stack word after v's, and those after it
 * follow on the stack */
UNIT_TEST(param_fetch)
{
	static const char *const want[] = {
		"%di:s32", "+0(%si):ustring", "+0(%dx):string", "%cx:u16",
		"%r8:x64", "%r9:u8", "+8(%sp):u32", NULL, "+24(%sp):x64",
		"+32(%sp):s32",
	};
	struct kbtf_func f;
	char err[256];
	struct kbtf *b = build(false, err, sizeof(err));
	char *s;
	size_t i;

	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_INT(kbtf_func_find(b, "f", &f, err, sizeof(err)), 0);
	CHECK_INT(f.nparams, 10);
	for (i = 0; i < 10 && i < f.nparams; i++) {
		s = kbtf_param_fetch(&f, i, NULL, err, sizeof(err));
		if (want[i]) {
			CHECK(s && !strcmp(s, want[i]));
		} else {
			CHECK(!s);
			CHECK_STR(err, "'byval' of f is a struct or union: no register holds it");
		}
		free(s);
	}
	/* a type of the user's own */
	s = kbtf_param_fetch(&f, 0, "x32", err, sizeof(err));
	CHECK(s && !strcmp(s, "%di:x32"));
	free(s);
	kbtf_func_release(&f);
	kbtf_free(b);
}

/* Parse @len bytes of @data expecting failure with @msg (a prefix). */
static void refused(const void *data, size_t len, const char *msg)
{
	char err[256] = "";
	struct kbtf *b = kbtf_parse(data, len, err, sizeof(err));

	CHECK(b == NULL);
	if (strncmp(err, msg, strlen(msg))) {
		printf("#   got \"%s\", expected \"%s...\"\n", err, msg);
		unit_failed = 1;
	}
	kbtf_free(b);
}

UNIT_TEST(malformed)
{
	struct blob bl;
	uint8_t *good, *bad;
	uint32_t v;
	size_t len, cut;

	blob_init(&bl);
	type(&bl, "int", 1, 0, 4, 0);
	put32(&bl, 1u << 24 | 32);
	type(&bl, NULL, 13, 1, 1, 0);
	put32(&bl, str(&bl, "x"));
	put32(&bl, 1);
	type(&bl, "f", 12, 1, 2, 0);
	good = blob_bytes(&bl, &len);
	bad = malloc(len);

	refused(good, 0, "bad BTF: 0 bytes");
	refused(good, 23, "bad BTF: 23 bytes");
	/* every cut of the tail: a section ends past the end */
	for (cut = 24; cut < len; cut++)
		refused(good, cut, "bad BTF: ");
	memcpy(bad, good, len);
	bad[0] = 0xeb;			/* big-endian */
	bad[1] = 0x9f;
	refused(bad, len, "bad BTF: ");
	memcpy(bad, good, len);
	v = 0xfffffff0;			/* type_len wrapping past the end */
	memcpy(bad + 12, &v, 4);
	refused(bad, len, "bad BTF: ");
	memcpy(bad, good, len);
	v = 0xffffffff;			/* hdr_len */
	memcpy(bad + 4, &v, 4);
	refused(bad, len, "bad BTF: ");
	memcpy(bad, good, len);
	bad[len - 1] = 'x';		/* strings unterminated */
	refused(bad, len, "bad BTF: ");
	memcpy(bad, good, len);
	bad[24 + 7] = 31;		/* kind 31 */
	refused(bad, len, "bad BTF: ");
	memcpy(bad, good, len);
	v = 0xffff | 13u << 24;		/* the proto claims 65535 params */
	memcpy(bad + 24 + 16 + 4, &v, 4);
	refused(bad, len, "bad BTF: ");
	memcpy(bad, good, len);
	v = 20;				/* type section cut inside a record */
	memcpy(bad + 12, &v, 4);
	refused(bad, len, "bad BTF: ");
	free(bad);
	free(good);
}

UNIT_TEST(empty_sections)
{
	struct blob bl;
	struct kbtf_func f;
	uint8_t *bytes;
	char err[256];
	struct kbtf *b;
	size_t len;

	blob_init(&bl);
	bytes = blob_bytes(&bl, &len);
	b = kbtf_parse(bytes, len, err, sizeof(err));
	CHECK(b != NULL);
	if (b)
		CHECK_INT(kbtf_func_find(b, "f", &f, err, sizeof(err)), -ENOENT);
	kbtf_free(b);
	free(bytes);
}

UNIT_TEST(not_btf)
{
	static const char text[] = "Name:\tcat\nState:\tR (running)\n";
	char err[256];

	errno = 0;
	CHECK(kbtf_parse(text, sizeof(text), err, sizeof(err)) == NULL);
	CHECK_INT(errno, EINVAL);
	CHECK(!strncmp(err, "bad BTF: ", 9));
}

UNIT_TEST(running_kernel)
{
	struct kbtf_func f;
	char err[256];
	struct kbtf *b;

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP("requires: /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)");
	b = kbtf_open(err, sizeof(err));
	CHECK(b != NULL);
	if (!b)
		return;
	/* long do_sys_openat2(int dfd, const char __user *filename,
	 *                     struct open_how *how) */
	CHECK_INT(kbtf_func_find(b, "do_sys_openat2", &f, err, sizeof(err)), 0);
	CHECK_INT(f.nparams, 3);
	CHECK(!f.variadic);
	if (f.nparams == 3) {
		CHECK_STR(f.params[0].name, "dfd");
		CHECK_STR(kbtf_fetch_type(&f.params[0].t), "s32");
		CHECK_STR(f.params[1].name, "filename");
		/* ustring where the kernel's BTF has the __user tag */
		CHECK(f.params[1].t.cls == KBTF_CLASS_STRING ||
		      f.params[1].t.cls == KBTF_CLASS_USTRING);
		CHECK_STR(f.params[2].name, "how");
		CHECK_STR(kbtf_fetch_type(&f.params[2].t), "x64");
	}
	CHECK(f.ret.cls == KBTF_CLASS_INT && f.ret.is_signed);
	kbtf_func_release(&f);
	/* void kfree(const void *) */
	CHECK_INT(kbtf_func_find(b, "kfree", &f, err, sizeof(err)), 0);
	CHECK_INT(f.ret.cls, KBTF_CLASS_VOID);
	CHECK_INT(f.nparams, 1);
	kbtf_func_release(&f);
	/* int _printk(const char *fmt, ...) */
	CHECK_INT(kbtf_func_find(b, "_printk", &f, err, sizeof(err)), 0);
	CHECK(f.variadic);
	CHECK_INT(f.nparams, 1);
	kbtf_func_release(&f);
	kbtf_free(b);
}

UNIT_MAIN()
