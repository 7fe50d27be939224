// SPDX-License-Identifier: GPL-2.0
/* Fuzz the BTF reader: the input is a raw BTF blob (/sys/kernel/btf/vmlinux). */
#include <stdlib.h>
#include <string.h>

#include "common/btf.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET(btf)
{
	/* the functions the seeds define */
	static const char *const names[] = {
		"f", "g", "h", "k", "do_sys_openat2", "vfs_read", "do_nanosleep",
		"_printk", "kfree", "",
	};
	struct btf_func f;
	char err[256];
	struct btf *b;
	size_t i, k;

	b = btf_parse(data, size, err, sizeof(err));
	if (!b) {
		if (strncmp(err, "bad BTF: ", 9))
			abort();
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (btf_func_find(b, names[i], &f, err, sizeof(err)))
			continue;
		for (k = 0; k < f.nparams; k++) {
			const char *t = btf_fetch_type(&f.params[k].t);

			if (strlen(f.params[k].name) >= size || (t && !*t) ||
			    !btf_class_name(f.params[k].t.cls))
				abort();
		}
		btf_fetch_type(&f.ret);
		btf_func_release(&f);
	}
	btf_free(b);
	return 0;
}
