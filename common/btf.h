/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_BTF_H
#define TAPKIT_BTF_H

/*
 * The kernel's BTF (/sys/kernel/btf/vmlinux, raw: header, types, strings)
 * read without libbpf, for what a kprobe needs of a function: its
 * parameters' names and how to fetch each (an integer of N bytes, a string,
 * a __user string, a pointer), and its return type.  The blob is untrusted
 * input: every offset, count and type id is checked, and a malformed blob is
 * refused with the reason, never read out of bounds.
 */
#include <stdbool.h>
#include <stddef.h>

enum btf_class {
	BTF_CLASS_VOID,
	BTF_CLASS_INT,		/* size bytes, is_signed */
	BTF_CLASS_BOOL,
	BTF_CLASS_ENUM,		/* size bytes, is_signed */
	BTF_CLASS_STRING,	/* pointer to char */
	BTF_CLASS_USTRING,	/* pointer to char tagged __user */
	BTF_CLASS_UPTR,		/* other pointer tagged __user */
	BTF_CLASS_PTR,		/* other pointer */
	BTF_CLASS_FLOAT,
	BTF_CLASS_OTHER,	/* struct, union, array by value; unknown */
};

struct btf_type_info {
	enum btf_class cls;
	int size;		/* bytes (8 for pointers) */
	bool is_signed;
};

struct btf_param {
	char *name;		/* "" when the parameter has none */
	struct btf_type_info t;
};

struct btf_func {
	char *name;
	struct btf_param *params;
	size_t nparams;
	bool variadic;		/* a trailing "..." (not in nparams) */
	struct btf_type_info ret;
};

struct btf;

/**
 * btf_load() - read and check the BTF file @path (NULL: the running
 * kernel's, /sys/kernel/btf/vmlinux).  NULL with errno and the reason in
 * @err (ENOENT: the kernel has no BTF; EINVAL: malformed).  btf_free().
 */
struct btf *btf_load(const char *path, char *err, size_t errlen);

/* The same from @len bytes at @data (copied). */
struct btf *btf_parse(const void *data, size_t len, char *err, size_t errlen);

void btf_free(struct btf *b);

/**
 * btf_func_find() - function @name's parameters and return type.  0, or
 * -ENOENT ("no function 'x' in the kernel's BTF") / -EINVAL (its prototype
 * is malformed) with the reason in @err.  Release @out with
 * btf_func_release().
 */
int btf_func_find(const struct btf *b, const char *name, struct btf_func *out,
		  char *err, size_t errlen);
void btf_func_release(struct btf_func *f);

/*
 * The kprobe fetch type for a value of @t: "s32", "u64", "u8" (bool),
 * "x64" (pointers), "string", "ustring"; NULL when a probe cannot fetch it
 * (void, float, a struct by value).
 */
const char *btf_fetch_type(const struct btf_type_info *t);

/**
 * btf_param_fetch() - "LOC:TYPE" fetching parameter @i of @f at the
 * function's entry: its register (x86-64: %di %si %dx %cx %r8 %r9) or
 * stack slot (+8(%sp)...), "+0(LOC)" for strings; @type overrides the
 * type from BTF (NULL: btf_fetch_type()).  The caller frees it; NULL with
 * the reason in @err for what no register holds (a struct by value, a
 * float, what follows a struct by value; other machines).
 */
char *btf_param_fetch(const struct btf_func *f, size_t i, const char *type,
		      char *err, size_t errlen);

/* "int", "bool", "enum", "char *", "char __user *", "pointer", ... */
const char *btf_class_name(enum btf_class c);

#endif
