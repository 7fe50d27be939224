/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROV_LAYOUT_H
#define TAPKIT_PROV_LAYOUT_H

#include <stdint.h>

#include "common/tpath.h"

/**
 * prov_layout() - @cast(N, "@type", "@module")@path answered while
 * compiling (elab_opts.layout)
 * @module: "kernel" (NULL: the same), a kernel module, a program or
 *          library (a path or a name as process("...") takes it), or a
 *          list of them joined by ':', searched in order
 * @path: the steps from the object; path->off is N
 * @value: with path->addressof, the address the path reaches: N plus
 *         offsets (offsetof; sizeof with a first [1] step)
 *
 * Return: 0 when @module has @type and @path resolves in it (a member
 * exists); -ENOENT when no module has the type, -EFAULT when the address
 * goes through a pointer, another -errno; the reason in @err.
 */
int prov_layout(const char *module, const char *type, const struct tpath *path,
		int64_t *value, char *err, size_t errlen);

#endif
