// SPDX-License-Identifier: GPL-2.0
/*
 * stapsdt notes, read as untrusted bytes.
 *
 * A note section is a sequence of
 *
 *	namesz (4) descsz (4) type (4) name (namesz, padded to 4)
 *	desc (descsz, padded to 4)
 *
 * and a stapsdt note (owner "stapsdt", type 3) has for desc
 *
 *	pc base semaphore (one address each, 8 or 4 bytes)
 *	provider\0 name\0 args\0
 *
 * Every size is checked against what is left before it is used, every
 * string must end inside its descriptor, and a bad note stops the walk
 * (the next one's start cannot be trusted).  Fuzzed by
 * tests/fuzz/fuzz_usdt_note.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "common/log.h"
#include "common/usdt_note.h"

#define NT_STAPSDT	3
#define STAPSDT_OWNER	"stapsdt"

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get_addr(const unsigned char *p, int size)
{
	uint64_t v;

	return size == 8 ? (memcpy(&v, p, 8), v) : get32(p);
}

/* n rounded up to 4, or SIZE_MAX on overflow */
static size_t align4(size_t n)
{
	return n > SIZE_MAX - 3 ? SIZE_MAX : (n + 3) & ~(size_t)3;
}

/*
 * desc := pc base sema provider '\0' name '\0' args '\0'
 * Each string must end inside the descriptor.
 */
static int parse_desc(const unsigned char *d, size_t n, int as,
		      struct usdt_note *note, char *err, size_t errlen)
{
	const char *s[3];
	size_t at = 3 * (size_t)as, i;
	const char *end;

	if (n < at)
		return errmsg(err, errlen, -EINVAL, "stapsdt note too short "
			      "(%zu bytes)", n);
	note->pc = get_addr(d, as);
	note->base = get_addr(d + as, as);
	note->sema = get_addr(d + 2 * as, as);
	for (i = 0; i < 3; i++) {
		end = memchr(d + at, '\0', n - at);
		if (!end)
			return errmsg(err, errlen, -EINVAL, "stapsdt note at "
				      "0x%" PRIx64 ": %s not NUL-terminated",
				      note->pc, i == 0 ? "provider" :
				      i == 1 ? "name" : "arguments");
		s[i] = (const char *)d + at;
		at = end - (const char *)d + 1;
	}
	if (!*s[0] || !*s[1])
		return errmsg(err, errlen, -EINVAL, "stapsdt note at 0x%"
			      PRIx64 ": empty provider or name", note->pc);
	note->provider = s[0];
	note->name = s[1];
	note->args = s[2];
	return 0;
}

int usdt_note_next(const void *data, size_t len, size_t *pos, int addr_size,
		   struct usdt_note *note, char *err, size_t errlen)
{
	const unsigned char *d = data;
	size_t at, namesz, descsz, name_end, desc_end;
	uint32_t type;

	if (addr_size != 4 && addr_size != 8)
		return errmsg(err, errlen, -EINVAL, "bad address size %d",
			      addr_size);
	for (at = *pos; at < len; at = desc_end) {
		if (len - at < 12)
			return errmsg(err, errlen, -EINVAL, "truncated note "
				      "header at offset %zu", at);
		namesz = get32(d + at);
		descsz = get32(d + at + 4);
		type = get32(d + at + 8);
		if (align4(namesz) > len - at - 12)
			return errmsg(err, errlen, -EINVAL, "note at offset %zu: "
				      "name size %zu past the end", at, namesz);
		name_end = at + 12 + align4(namesz);
		if (align4(descsz) > len - name_end) {
			/* the last note's padding may be cut */
			if (descsz > len - name_end)
				return errmsg(err, errlen, -EINVAL, "note at "
					      "offset %zu: descriptor size %zu "
					      "past the end", at, descsz);
			desc_end = len;
		} else {
			desc_end = name_end + align4(descsz);
		}
		if (type != NT_STAPSDT || namesz != sizeof(STAPSDT_OWNER) ||
		    memcmp(d + at + 12, STAPSDT_OWNER, sizeof(STAPSDT_OWNER)))
			continue;
		*pos = desc_end;
		return parse_desc(d + name_end, descsz, addr_size, note, err,
				  errlen) ?: 1;
	}
	*pos = len;
	return 0;
}
