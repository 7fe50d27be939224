// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the x86-64 length decoder: the input is code.  Lengths must be
 * 1..15 and within the input, and decoding a prefix of an instruction
 * must never claim a complete one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/x86_insn.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET(x86_insn)
{
	size_t pos = 0;
	uint8_t *copy;
	int len, cut;

	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	while (pos < size) {
		len = x86_insn_len(copy + pos, size - pos);
		if (len == -EINVAL || len == -ENODATA) {
			pos++;
			continue;
		}
		if (len < 1 || len > 15 || (size_t)len > size - pos)
			abort();
		/* the same bytes cut short are never a whole instruction */
		cut = x86_insn_len(copy + pos, len - 1);
		if (cut >= 0 && len > 1)
			abort();
		pos += len;
	}
	free(copy);
	return 0;
}
