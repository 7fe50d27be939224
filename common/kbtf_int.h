/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_KBTF_INT_H
#define TAPKIT_KBTF_INT_H

/*
 * Private to common/kbtf*.c: the libbpf handle behind a struct kbtf, for
 * the readers that live beside kbtf.c (kbtf_func.c).
 */
#include <stddef.h>

struct btf;
struct kbtf;

/* The BTF of @module (NULL or "kernel": vmlinux, or what kbtf_parse()
 * read), loaded once and owned by @k; NULL with errno and the reason in
 * @err. */
struct btf *kbtf_btf(struct kbtf *k, const char *module, char *err,
		     size_t errlen);

#endif
