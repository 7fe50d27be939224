/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_KBTF_H
#define TAPKIT_KBTF_H

/*
 * Kernel target variables through BTF, read by libbpf: a function's
 * parameters by name, its return value, a member chain, array elements,
 * bitfields, unions, typedefs, @cast to a kernel type, the address of any
 * of them and stap's pretty printing, compiled into kprobe fetch
 * arguments (common/tpath.h) that the kernel evaluates when the probe
 * fires:
 *
 *	$p->pid			+PID_OFF($arg1):s32
 *	$file->f_path->dentry	+D_OFF(+F_OFF($arg1)):x64
 *	$filename$		+0($arg2):string
 *
 * Types come from /sys/kernel/btf/vmlinux, and a module's own from
 * /sys/kernel/btf/<module> (split BTF over vmlinux's).  BTF knows no
 * source files, lines, locals or inlined instances: those need DWARF.
 */
#include <stdbool.h>
#include <stddef.h>

#include "common/tpath.h"

struct kbtf;

/* A parameter of a function, for -L and $$parms. */
struct kbtf_var {
	char *name;
	char *ctype;		/* "const char*", "struct open_how*" */
};

/**
 * kbtf_open() - the running kernel's BTF (modules' loaded on demand)
 *
 * NULL with the reason in @err (ENOENT in errno: the kernel has no BTF).
 * Free with kbtf_free().
 */
struct kbtf *kbtf_open(char *err, size_t errlen);
void kbtf_free(struct kbtf *k);

/**
 * kbtf_parse() - BTF from the @len bytes at @data (raw, as in
 * /sys/kernel/btf/vmlinux; copied), for tests and tools reading a BTF
 * file: it stands for vmlinux
 *
 * NULL with errno and the reason in @err ("bad BTF: ...") when libbpf
 * refuses it.  Free with kbtf_free().
 */
struct kbtf *kbtf_parse(const void *data, size_t len, char *err,
			size_t errlen);

/**
 * kbtf_params() - the parameters of function @func (of @module, NULL:
 * vmlinux) in declaration order, and its return type (NULL: void)
 *
 * 0 with @out (free with kbtf_vars_free()) and *@ret (the caller frees);
 * -ENOENT when BTF has no such function ("no function 'x' in the kernel's
 * BTF" in @err), another -errno with the reason in @err.
 */
int kbtf_params(struct kbtf *k, const char *module, const char *func,
		struct kbtf_var **out, size_t *n, char **ret, char *err,
		size_t errlen);
void kbtf_vars_free(struct kbtf_var *v, size_t n);

/**
 * kbtf_resolve() - $@name@path at the entry of @func, or in a return
 * probe with @name "return" (the return value)
 *
 * A parameter is fetched as the kernel's $argN, the return value as
 * $retval.  0 with @out filled (release with tval_release(); its args are
 * named "a0", "a1"... for the caller to rename); -ENOENT when @func has
 * no parameter @name, or is void for "return" (no message); another
 * -errno with the reason in @err: no member 'x' in 'struct y', an index
 * into what is neither an array nor a pointer, a float, a parameter no
 * register holds.
 */
int kbtf_resolve(struct kbtf *k, const char *module, const char *func,
		 const char *name, const struct tpath *path, struct tval *out,
		 char *err, size_t errlen);

/**
 * kbtf_cast() - @cast(ptr, "@type"[, "@module"])@path: the pointer
 * value @ptr holds (tpath.h) taken as a pointer to @type ("task_struct",
 * "struct task_struct", "union x", a typedef, "int")
 *
 * @module: "kernel" or NULL for vmlinux, else a module's BTF.
 * Return: as kbtf_resolve(); -ENOENT with the reason in @err when no
 * type has that name.
 */
int kbtf_cast(struct kbtf *k, const char *module, const char *type,
	      const struct tplace *ptr, const struct tpath *path,
	      struct tval *out, char *err, size_t errlen);

#endif
