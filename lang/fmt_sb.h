/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_FMT_SB_H
#define TAPKIT_LANG_FMT_SB_H

/*
 * A growable byte string: what every printer of the language writes into
 * (the VM's output and sprintf() scratch, -p listings, the elaborator's
 * generated source, statistics and map dumps).  It may hold NUL bytes
 * (stap's %b and "%0s" emit them) and is NUL-terminated after the first
 * add.  Growth goes through xrealloc(): out of memory dies.
 *
 * stap's own printf over it is in lang/fmt.h.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct strbuf {
	char *buf;	/* NUL-terminated after the first add; may hold NULs */
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT { NULL, 0, 0 }

/* Free the bytes; the buffer is empty and reusable afterwards. */
void fmt_sb_release(struct strbuf *sb);
/* Empty the buffer but keep its memory. */
void fmt_sb_reset(struct strbuf *sb);
/* Make room for @extra more bytes (plus the terminating NUL). */
void fmt_sb_grow(struct strbuf *sb, size_t extra);
void fmt_sb_add(struct strbuf *sb, const void *data, size_t n);
void fmt_sb_addc(struct strbuf *sb, char c);
/* Append @n copies of @c. */
void fmt_sb_addnc(struct strbuf *sb, char c, size_t n);
void fmt_sb_addstr(struct strbuf *sb, const char *s);
/* Append C printf output (host printf, not stap's: for fixed layouts). */
void fmt_sb_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Shorten to @len bytes (no-op if already shorter). */
void fmt_sb_truncate(struct strbuf *sb, size_t len);
/* The contents as a C string; "" for a never-used buffer. */
const char *fmt_sb_str(const struct strbuf *sb);
/* fwrite() all bytes (NULs included); 0 or -EIO. */
int fmt_sb_write(const struct strbuf *sb, FILE *f);

/*
 * The same appends inline, for the loops that write byte by byte (stap's
 * printf, lang/fmt.c, per event): a call per byte would cost more than
 * the byte.  fmt_sb_add() and fmt_sb_addc() are these, out of line.
 */
static inline void fmt_sb_addc_inline(struct strbuf *sb, char c)
{
	if (sb->len + 1 >= sb->alloc)
		fmt_sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

static inline void fmt_sb_add_inline(struct strbuf *sb, const void *data,
				     size_t n)
{
	if (sb->len + n >= sb->alloc)
		fmt_sb_grow(sb, n);
	if (n)
		memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* fmt_sb_grow() when room is short. */
static inline void fmt_sb_grow_inline(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 > sb->alloc)
		fmt_sb_grow(sb, extra);
}

#endif
