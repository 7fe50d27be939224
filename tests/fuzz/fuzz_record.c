// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the reading of records through their fields: what every tool does
 * with each record of the rings, with the offsets, sizes and kinds that an
 * event's format gave (format_field()).  The input is a field count N (the
 * first byte, at most 16), N fields of 16 bytes (offset, size, element
 * size as 32-bit little-endian integers, then the TK_F_* flags), and the
 * record: every field is read as an integer, as array elements, as a
 * string and as a string fetch that may have faulted.  Nothing may be read
 * outside the record, whatever the format says.
 *
 * The format files themselves are parsed by libtraceevent, from text only
 * the kernel writes; fed malformed text, its parser crashes (a NULL field
 * type, a broken __print_symbolic()), which is no code of ours to fix.
 */
#include <stdlib.h>
#include <string.h>

#include "common/event.h"
#include "tests/fuzz/fuzz.h"

static int32_t le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

FUZZ_TARGET(record)
{
	struct tk_field f[16];
	struct tk_event ev = { 0 };
	unsigned char *rec;
	char buf[64];
	size_t n, i, at;

	if (size < 1)
		return 0;
	n = data[0] % 17;
	if (size < 1 + 16 * n)
		return 0;
	for (i = 0, at = 1; i < n; i++, at += 16) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].offset = le32(data + at);
		f[i].size = le32(data + at + 4);
		f[i].elem = le32(data + at + 8);
		f[i].flags = (unsigned int)le32(data + at + 12);
	}
	/* the record on its own, so that reading past it is seen */
	ev.size = (unsigned int)(size - at);
	rec = malloc(ev.size ? ev.size : 1);
	memcpy(rec, data + at, ev.size);
	ev.data = rec;
	for (i = 0; i < n; i++) {
		(void)field_int(&ev, &f[i]);
		(void)field_elem(&ev, &f[i], 0);
		(void)field_elem(&ev, &f[i], 5);
		(void)field_str(&ev, &f[i], buf, sizeof(buf));
		(void)field_str(&ev, &f[i], buf, 1);
		(void)field_str_fault(&ev, &f[i]);
	}
	free(rec);
	return 0;
}
