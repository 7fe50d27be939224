// SPDX-License-Identifier: GPL-2.0
/*
 * One escaping function for every text column (common/escape.h): the
 * traced system's bytes shown so that no process can forge a line or drive
 * the terminal, as ps(1) and strace(1) show them.
 */
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/log.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;	/* range of the second byte */

	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;		/* overlong */
		else if (c == 0xed)
			hi = 0x9f;		/* UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;		/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;		/* above U+10FFFF */
	} else {
		return 0;			/* 80-c1 and f5-ff never start one */
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Bytes of @s[@i..] that pass unchanged (0: @s[@i] needs escaping). */
static size_t clean_run(const unsigned char *s, size_t i, size_t len)
{
	size_t start = i, n;

	while (i < len) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			i++;
		} else if (s[i] >= 0x80 && (n = utf8_seq_len(s + i, len - i)) &&
			   !(s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			i += n;		/* not a C1 control (U+0080..U+009F) */
		} else {
			break;
		}
	}
	return i - start;
}

bool esc_clean(const char *s, size_t len)
{
	return clean_run((const unsigned char *)s, 0, len) == len;
}

/* The escape of byte @c into @out (at most 5 bytes with the NUL). */
static void escape_byte(unsigned char c, char out[5])
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '\n': strcpy(out, "\\n"); return;
	case '\t': strcpy(out, "\\t"); return;
	case '\r': strcpy(out, "\\r"); return;
	case 0x1b: strcpy(out, "\\e"); return;
	case '\\': strcpy(out, "\\\\"); return;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	out[4] = '\0';
}

void esc_write(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	char e[5];

	while (i < len) {
		n = clean_run(p, i, len);
		fwrite(p + i, 1, n, f);
		i += n;
		if (i < len) {
			escape_byte(p[i++], e);
			fputs(e, f);
		}
	}
}

void esc_fputs(const char *s, FILE *f)
{
	esc_write(f, s, strlen(s));
}

#define ESC_BUFS 8
static __thread struct { char *p; size_t cap; } bufs[ESC_BUFS];
static __thread unsigned next_buf;

const char *esc_strn(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, n;
	char e[5], *out;
	unsigned b;

	if (!s)
		return NULL;
	b = next_buf++ % ESC_BUFS;
	if (bufs[b].cap < 4 * len + 1) {
		bufs[b].cap = 4 * len + 1;
		free(bufs[b].p);
		bufs[b].p = xmalloc(bufs[b].cap);
	}
	out = bufs[b].p;
	while (i < len) {
		n = clean_run(p, i, len);
		memcpy(out + o, p + i, n);
		i += n;
		o += n;
		if (i < len) {
			escape_byte(p[i++], e);
			n = strlen(e);
			memcpy(out + o, e, n);
			o += n;
		}
	}
	out[o] = '\0';
	return out;
}

const char *esc_str(const char *s)
{
	size_t len;

	if (!s)
		return NULL;
	len = strlen(s);
	return esc_clean(s, len) ? s : esc_strn(s, len);
}
