/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_KBTF_INT_H
#define TAPKIT_KBTF_INT_H

/*
 * Private to common/kbtf*.c: the libbpf handle behind a struct kbtf, for
 * the readers that live beside kbtf.c (kbtf_func.c).
 */
#include <stddef.h>

struct btf;
struct btf_type;
struct kbtf;

/* The BTF of @module (NULL or "kernel": vmlinux, or what kbtf_parse()
 * read), loaded once and owned by @k; NULL with errno and the reason in
 * @err. */
struct btf *kbtf_btf(struct kbtf *k, const char *module, char *err,
		     size_t errlen);

/* What kbtf_param_place() says of a parameter no integer register or
 * known stack slot holds. */
enum {
	KBTF_PLACE_FLOAT = -1,		/* a float: an %xmm register */
	KBTF_PLACE_STRUCT = -2,		/* a struct passed by value */
	KBTF_PLACE_UNKNOWN = -3,	/* on the stack after a struct there,
					 * or after a type not known */
};

/*
 * Where the x86-64 calling convention puts parameter @idx of the function
 * prototype @proto: the number of integer registers the parameters before
 * it take (0 to 5: %di, %si, %dx, %cx, %r8, %r9; 6 and up: the stack's
 * words after the return address, in order), or a KBTF_PLACE_* value.  A
 * struct of up to 16 bytes passed by value takes one or two registers if
 * they are left, a larger one goes on the stack, a float an %xmm register.
 */
int kbtf_param_place(const struct btf *b, const struct btf_type *proto,
		     unsigned idx);

#endif
