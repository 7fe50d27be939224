// SPDX-License-Identifier: GPL-2.0
/* Text columns that cannot be forged: exact escaped bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "tests/unit/unit.h"

static char *written(const char *s, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	esc_write(f, s, len);
	fclose(f);
	return buf;
}

#define CHECK_ESC(in, expect) do {					\
	char *w_ = written(in, sizeof(in) - 1);				\
	CHECK_STR(w_, expect);						\
	free(w_);							\
	CHECK_STR(esc_strn(in, sizeof(in) - 1), expect);		\
} while (0)

UNIT_TEST(clean_text_is_returned_as_is)
{
	const char *s = "bash /usr/bin/ls -l";

	CHECK(esc_str(s) == s);
	CHECK(esc_clean("caf\xc3\xa9", 5));
	CHECK(esc_str(NULL) == NULL);
}

UNIT_TEST(control_bytes_are_named)
{
	CHECK_ESC("x\ny", "x\\ny");
	CHECK_ESC("a\tb\rc", "a\\tb\\rc");
	CHECK_ESC("\x1b[31mred", "\\e[31mred");
	CHECK_ESC("back\\slash", "back\\\\slash");
	CHECK_ESC("\x01\x7f", "\\x01\\x7f");
	CHECK_ESC("nul\0in", "nul\\x00in");
}

UNIT_TEST(utf8_passes_invalid_bytes_do_not)
{
	CHECK_ESC("\xe2\x82\xac", "\xe2\x82\xac");		/* euro sign */
	CHECK_ESC("\xf0\x9f\x90\xa7", "\xf0\x9f\x90\xa7");	/* penguin */
	CHECK_ESC("\xff\xfe", "\\xff\\xfe");
	CHECK_ESC("\xc0\xaf", "\\xc0\\xaf");			/* overlong '/' */
	CHECK_ESC("\xed\xa0\x80", "\\xed\\xa0\\x80");		/* surrogate */
	CHECK_ESC("\xe2\x82", "\\xe2\\x82");			/* cut short */
	CHECK_ESC("\xc2\x9b[31m", "\\xc2\\x9b[31m");		/* C1 CSI */
	CHECK_ESC("\xc2\xa0", "\xc2\xa0");			/* U+00A0 prints */
}

UNIT_TEST(per_thread_buffers_rotate)
{
	const char *a = esc_str("1\n"), *b = esc_str("2\n");

	CHECK_STR(a, "1\\n");
	CHECK_STR(b, "2\\n");
	CHECK(a != b);
}

UNIT_MAIN()
