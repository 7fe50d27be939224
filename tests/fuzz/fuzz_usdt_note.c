// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the stapsdt note parser: the input is a .note.stapsdt section.  Its
 * first byte picks the address size; every note found must have its
 * strings inside the input.
 */
#include <stdlib.h>
#include <string.h>

#include "common/usdt_note.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET(usdt_note)
{
	struct usdt_note n;
	char err[256];
	size_t pos = 0, guard = 0;
	uint8_t *copy;
	int as, ret;

	if (size < 1)
		return 0;
	as = data[0] & 1 ? 4 : 8;
	/* a copy of exactly the section's size, so reads past it are caught */
	copy = malloc(size - 1 ? size - 1 : 1);
	memcpy(copy, data + 1, size - 1);
	while ((ret = usdt_note_next(copy, size - 1, &pos, as, &n, err,
				     sizeof(err))) > 0) {
		if (n.provider < (char *)copy ||
		    n.args + strlen(n.args) >= (char *)copy + size - 1)
			abort();
		if (++guard > size)
			abort();	/* no progress */
	}
	if (ret < 0 && !err[0])
		abort();		/* a refusal always says why */
	free(copy);
	return 0;
}
