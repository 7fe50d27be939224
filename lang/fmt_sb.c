// SPDX-License-Identifier: GPL-2.0
/*
 * The growable byte string of lang/fmt_sb.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/fmt_sb.h"

void fmt_sb_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void fmt_sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void fmt_sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->alloc)
		return;
	if (need < 64)
		need = 64;
	if (need < sb->alloc * 2)
		need = sb->alloc * 2;
	sb->buf = xrealloc(sb->buf, need);
	sb->alloc = need;
	sb->buf[sb->len] = '\0';
}

void fmt_sb_add(struct strbuf *sb, const void *data, size_t n)
{
	fmt_sb_add_inline(sb, data, n);
}

void fmt_sb_addc(struct strbuf *sb, char c)
{
	fmt_sb_addc_inline(sb, c);
}

void fmt_sb_addnc(struct strbuf *sb, char c, size_t n)
{
	fmt_sb_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void fmt_sb_addstr(struct strbuf *sb, const char *s)
{
	fmt_sb_add(sb, s, strlen(s));
}

void fmt_sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	fmt_sb_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void fmt_sb_truncate(struct strbuf *sb, size_t len)
{
	if (len < sb->len) {
		sb->len = len;
		sb->buf[len] = '\0';
	}
}

const char *fmt_sb_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

int fmt_sb_write(const struct strbuf *sb, FILE *f)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, f) != sb->len)
		return -EIO;
	return 0;
}
