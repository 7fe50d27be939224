// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the USDT argument spec parser: the input is an argument string as a
 * note carries it.  Symbols resolve to a fixed address or not at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/usdt_arg.h"
#include "tests/fuzz/fuzz.h"

static int fake_sym(void *priv, const char *name, uint64_t *vaddr)
{
	if (name[0] == 'x')
		return -ENOENT;
	*vaddr = 0x4010 + strlen(name);
	return 0;
}

FUZZ_TARGET(usdt_arg)
{
	struct usdt_arg_ctx ctx = { .pc = 0x1234, .sym_addr = fake_sym };
	struct fetcharg *args;
	char err[256], *s;
	size_t n, i;

	if (size < 1)
		return 0;
	ctx.absolute = data[0] & 1;
	s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (!usdt_args_parse(s, &ctx, &args, &n, err, sizeof(err))) {
		for (i = 0; i < n; i++) {
			char *f = fetcharg_format(&args[i]);

			/* exactly one of a location and a reason */
			if (!args[i].loc == !args[i].refused || (!f && !args[i].refused))
				abort();
			free(f);
		}
		fetchargs_free(args, n);
	}
	free(s);
	return 0;
}
