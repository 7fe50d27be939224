// SPDX-License-Identifier: GPL-2.0
/* Field accessors that are too large to inline. */
#include <limits.h>
#include <string.h>

#include "common/event.h"

int64_t field_elem(const struct tk_event *ev, const struct tk_field *f, int i)
{
	struct tk_field e = *f;
	int64_t off = (int64_t)f->offset + (int64_t)i * f->elem;

	/* (an array that runs past the record keeps the elements in it) */
	if (f->elem <= 0 || i < 0 || (int64_t)(i + 1) * f->elem > f->size ||
	    off < 0 || off > INT_MAX)
		return 0;
	e.offset = (int)off;
	e.size = f->elem;
	return field_int(ev, &e);
}

int field_str(const struct tk_event *ev, const struct tk_field *f,
	      char *buf, int bufsz)
{
	const char *p = ev->data;
	unsigned int off, len;

	if (bufsz <= 0)
		return 0;
	buf[0] = '\0';
	if (!field_fits(ev, f))
		return 0;
	if (f->flags & (TK_F_DYNAMIC | TK_F_RELATIVE)) {
		uint32_t loc;

		/* the location's 4 bytes, whatever size the format gave */
		if ((uint64_t)f->offset + 4 > ev->size)
			return 0;
		memcpy(&loc, p + f->offset, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if (f->flags & TK_F_RELATIVE)
			off += f->offset + 4;
	} else {
		off = f->offset;
		len = f->size;
	}
	if (off > ev->size || len > ev->size - off)
		return 0;
	p += off;
	len = strnlen(p, len);
	if (len >= (unsigned int)bufsz)
		len = bufsz - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return len;
}

bool field_str_fault(const struct tk_event *ev, const struct tk_field *f)
{
	uint32_t loc;

	if (!(f->flags & (TK_F_DYNAMIC | TK_F_RELATIVE)) || f->offset < 0 ||
	    (unsigned int)f->offset + 4 > ev->size)
		return false;
	memcpy(&loc, (const char *)ev->data + f->offset, 4);
	return (loc >> 16) == 0;
}
