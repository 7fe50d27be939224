/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_KBTF_FUNC_H
#define TAPKIT_KBTF_FUNC_H

/*
 * What a kprobe definition needs of a kernel function, from its BTF
 * (common/kbtf.h's handle, read by libbpf): its parameters' names and how
 * to fetch each at the entry (an integer of N bytes, a string, a __user
 * string, a pointer), and its return type.  The kprobe tool turns
 * parameter names into registers with it; the language's target
 * variables go through kbtf_resolve() instead.
 */
#include <stdbool.h>
#include <stddef.h>

struct kbtf;

enum kbtf_class {
	KBTF_CLASS_VOID,
	KBTF_CLASS_INT,		/* size bytes, is_signed */
	KBTF_CLASS_BOOL,
	KBTF_CLASS_ENUM,	/* size bytes, is_signed */
	KBTF_CLASS_STRING,	/* pointer to char */
	KBTF_CLASS_USTRING,	/* pointer to char tagged __user */
	KBTF_CLASS_UPTR,	/* other pointer tagged __user */
	KBTF_CLASS_PTR,		/* other pointer */
	KBTF_CLASS_FLOAT,
	KBTF_CLASS_OTHER,	/* struct, union, array by value; unknown */
};

struct kbtf_type_info {
	enum kbtf_class cls;
	int size;		/* bytes (8 for pointers) */
	bool is_signed;
};

struct kbtf_param {
	char *name;		/* "" when the parameter has none */
	struct kbtf_type_info t;
	int place;		/* kbtf_param_place(): its integer register
				 * or stack word, or < 0 */
};

struct kbtf_func {
	char *name;
	struct kbtf_param *params;
	size_t nparams;
	bool variadic;		/* a trailing "..." (not in nparams) */
	struct kbtf_type_info ret;
};

/**
 * kbtf_func_find() - function @name's parameters and return type, in
 * vmlinux's BTF (or what kbtf_parse() read)
 *
 * 0, or -ENOENT ("no function 'x' in the kernel's BTF") / -EINVAL (its
 * prototype is malformed) with the reason in @err.  Release @out with
 * kbtf_func_release().
 */
int kbtf_func_find(struct kbtf *k, const char *name, struct kbtf_func *out,
		   char *err, size_t errlen);
void kbtf_func_release(struct kbtf_func *f);

/*
 * The kprobe fetch type for a value of @t: "s32", "u64", "u8" (bool),
 * "x64" (pointers), "string", "ustring"; NULL when a probe cannot fetch it
 * (void, float, a struct by value).
 */
const char *kbtf_fetch_type(const struct kbtf_type_info *t);

/**
 * kbtf_param_fetch() - "LOC:TYPE" fetching parameter @i of @f at the
 * function's entry: its register (x86-64: %di %si %dx %cx %r8 %r9) or
 * stack slot (+8(%sp)...), "+0(LOC)" for strings; @type overrides the
 * type from BTF (NULL: kbtf_fetch_type()).  The caller frees it; NULL with
 * the reason in @err for what no register holds (a struct by value, a
 * float, what follows a struct by value; other machines).
 */
char *kbtf_param_fetch(const struct kbtf_func *f, size_t i, const char *type,
		       char *err, size_t errlen);

/* "int", "bool", "enum", "char *", "char __user *", "pointer", ... */
const char *kbtf_class_name(enum kbtf_class c);

#endif
