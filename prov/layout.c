// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of C types, for a @cast of a constant: offsetof and sizeof
 * (&@cast(0, "T")->m, &@cast(0, "T")[1]) and whether a member exists
 * (@defined(@cast(0, "T")->m)), from the kernel's BTF or a program's
 * DWARF.  No probe is involved: the cast is answered while compiling.
 *
 * The cast's resolver compiles a pointer that is a marker place; the
 * address a path reaches is a constant when the result still fetches
 * the marker itself (plus an offset), and is not when the path went
 * through a pointer, which only the traced memory can tell.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dwtype.h"
#include "common/kbtf.h"
#include "common/log.h"
#include "common/target.h"
#include "prov/kprobe.h"
#include "prov/layout.h"
#include "prov/uprobe.h"

#define MARKER "@layout"

/* Whether @mod names the kernel or one of its modules' BTF. */
static bool is_kernel(const char *mod)
{
	char path[300];

	if (!strcmp(mod, "kernel") || !strcmp(mod, "vmlinux"))
		return true;
	if (strchr(mod, '/') || snprintf(path, sizeof(path),
					 "/sys/kernel/btf/%s", mod) >= (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

/* @type@path of module @mod compiled over the marker into @out. */
static int cast_in(const char *mod, const char *type, const struct tpath *path,
		   struct tval *out, char *err, size_t errlen)
{
	struct tplace ptr = { .loc = (char *)MARKER };
	struct dwinfo *dw;
	char *file = NULL;
	int ret;

	if (is_kernel(mod)) {
		struct kbtf *b = kprobe_btf(err, errlen);

		if (!b)
			return -ENOENT;
		return kbtf_cast(b, strcmp(mod, "kernel") ? mod : NULL, type, &ptr,
				 path, out, err, errlen);
	}
	ret = target_resolve(mod, 0, &file, err, errlen);
	if (ret)
		return ret;
	dw = uprobe_dwinfo(file);
	if (!dw)
		ret = errmsg(err, errlen, -ENOENT, "no debug info in %s", file);
	else
		ret = dwtype_cast(dw, type, &ptr, path, out, err, errlen);
	free(file);
	return ret;
}

int prov_layout(const char *module, const char *type, const struct tpath *path,
		int64_t *value, char *err, size_t errlen)
{
	char *list = xstrdup(module ? module : "kernel"), *save = NULL, *mod;
	struct tval v = { 0 };
	int ret = -ENOENT;

	/* "kernel:nfs": the first module with the type */
	for (mod = strtok_r(list, ":", &save); mod; mod = strtok_r(NULL, ":", &save)) {
		err[0] = '\0';
		ret = cast_in(mod, type, path, &v, err, errlen);
		if (ret != -ENOENT)
			break;
	}
	free(list);
	if (ret < 0) {
		if (!err[0])
			errmsg(err, errlen, ret, "no type '%s' in %s", type,
			       module ? module : "the kernel");
		return ret;
	}
	if (path->addressof) {
		if (v.kind != TVAL_LONG || v.nargs != 1 ||
		    strcmp(v.args[0].loc, MARKER))
			ret = errmsg(err, errlen, -EFAULT, "the address goes "
				     "through a pointer: only the traced "
				     "memory holds it");
		else
			*value = v.add;
	}
	tval_release(&v);
	return ret;
}
