// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the kernel function prototypes read from BTF (common/kbtf_func.c
 * over libbpf): the input is a raw BTF blob (/sys/kernel/btf/vmlinux).
 */
#include <stdlib.h>
#include <string.h>

#include "common/kbtf.h"
#include "common/kbtf_func.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET(btf)
{
	/* the functions the seeds define */
	static const char *const names[] = {
		"f", "g", "h", "k", "do_sys_openat2", "vfs_read", "do_nanosleep",
		"_printk", "kfree", "",
	};
	struct kbtf_func f;
	char err[256];
	struct kbtf *b;
	size_t i, k;

	b = kbtf_parse(data, size, err, sizeof(err));
	if (!b) {
		if (strncmp(err, "bad BTF: ", 9))
			abort();
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (kbtf_func_find(b, names[i], &f, err, sizeof(err)))
			continue;
		for (k = 0; k < f.nparams; k++) {
			const char *t = kbtf_fetch_type(&f.params[k].t);

			if (strlen(f.params[k].name) >= size || (t && !*t) ||
			    !kbtf_class_name(f.params[k].t.cls))
				abort();
			free(kbtf_param_fetch(&f, k, NULL, err, sizeof(err)));
		}
		kbtf_fetch_type(&f.ret);
		kbtf_func_release(&f);
	}
	kbtf_free(b);
	return 0;
}
