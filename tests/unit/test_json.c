// SPDX-License-Identifier: GPL-2.0
/* JSON Lines writer: exact output bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/json.h"
#include "tests/unit/unit.h"

/* A memory stream whose text is read back with mem_text(). */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
}

/* Closes the stream; the caller frees the returned text. */
static char *mem_text(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}

#define CHECK_OUT(m, expect) do {					\
	char *t_ = mem_text(m);						\
	CHECK_STR(t_, expect);						\
	free(t_);							\
} while (0)

UNIT_TEST(empty_object)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	json_end(&j);
	CHECK_OUT(&m, "{}\n");
}

UNIT_TEST(scalars_and_commas)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	json_int(&j, "pid", 42);
	json_int(&j, "neg", INT64_MIN);
	json_uint(&j, "big", UINT64_MAX);
	json_str(&j, "comm", "bash");
	json_str(&j, "none", NULL);
	json_strn(&j, "cut", "abcdef", 3);
	json_bool(&j, "t", true);
	json_bool(&j, "f", false);
	json_null(&j, "n");
	json_end(&j);
	CHECK_OUT(&m, "{\"pid\":42,\"neg\":-9223372036854775808,"
		  "\"big\":18446744073709551615,\"comm\":\"bash\",\"none\":null,"
		  "\"cut\":\"abc\",\"t\":true,\"f\":false,\"n\":null}\n");
}

UNIT_TEST(two_lines_reuse_state)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	json_int(&j, "a", 1);
	json_end(&j);
	json_begin(&j, m.f);
	json_int(&j, "b", 2);
	json_end(&j);
	CHECK_OUT(&m, "{\"a\":1}\n{\"b\":2}\n");
}

UNIT_TEST(doubles)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	json_double(&j, "a", 0.1);
	json_double(&j, "b", 3.0);
	json_double(&j, "c", -2.5e-7);
	json_double(&j, "d", 1e300);
	json_double(&j, "pi", 3.141592653589793);
	json_double(&j, "third", 1.0 / 3);
	json_double(&j, "nan", NAN);
	json_double(&j, "inf", INFINITY);
	json_double(&j, "ninf", -INFINITY);
	json_end(&j);
	CHECK_OUT(&m, "{\"a\":0.1,\"b\":3,\"c\":-2.5e-07,\"d\":1e+300,"
		  "\"pi\":3.141592653589793,\"third\":0.3333333333333333,"
		  "\"nan\":null,\"inf\":null,\"ninf\":null}\n");
}

UNIT_TEST(double_round_trips)
{
	double v[] = { 0.1 + 0.2, 1.0 / 7, 123456789.123456789, 5e-324,
		       1.7976931348623157e308, -0.0 };
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct mem m;
		struct json j;
		char *t;

		mem_open(&m);
		json_begin(&j, m.f);
		json_double(&j, "v", v[i]);
		json_end(&j);
		t = mem_text(&m);
		CHECK(strncmp(t, "{\"v\":", 5) == 0);
		CHECK(strtod(t + 5, NULL) == v[i]);
		free(t);
	}
}

UNIT_TEST(nesting_and_arrays)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	json_int(&j, "a", 1);
	json_obj_open(&j, "o");
	json_int(&j, "x", 2);
	json_arr_open(&j, "arr");
	json_elem_int(&j, -1);
	json_elem_uint(&j, 2);
	json_elem_str(&j, "s");
	json_elem_str(&j, NULL);
	json_obj_open(&j, NULL);
	json_int(&j, "k", 3);
	json_obj_close(&j);
	json_arr_open(&j, NULL);
	json_arr_close(&j);
	json_obj_open(&j, NULL);
	json_obj_close(&j);
	json_arr_close(&j);
	json_int(&j, "y", 4);
	json_obj_close(&j);
	json_arr_open(&j, "empty");
	json_arr_close(&j);
	json_int(&j, "z", 5);
	json_end(&j);
	CHECK_OUT(&m, "{\"a\":1,\"o\":{\"x\":2,\"arr\":[-1,2,\"s\",null,{\"k\":3},"
		  "[],{}],\"y\":4},\"empty\":[],\"z\":5}\n");
}

/* Deeper than JSON_MAX_DEPTH: commas must still be right. */
UNIT_TEST(nesting_past_max_depth)
{
	struct mem m;
	struct json j;
	int i, n = JSON_MAX_DEPTH + 3;

	mem_open(&m);
	json_begin(&j, m.f);
	for (i = 0; i < n; i++) {
		json_arr_open(&j, i ? NULL : "d");
		json_elem_int(&j, i);
	}
	for (i = 0; i < n; i++) {
		json_elem_int(&j, 100 + i);
		json_arr_close(&j);
	}
	json_int(&j, "after", 1);
	json_end(&j);
	CHECK_OUT(&m, "{\"d\":[0,[1,[2,[3,[4,[5,[6,[7,[8,[9,[10,100],101],102],"
		  "103],104],105],106],107],108],109],110],\"after\":1}\n");
}

UNIT_TEST(escapes)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	json_str(&j, "q\"k", "a\"b\\c/d\n\t\r\b\f\x01\x1f\x7f end");
	json_end(&j);
	CHECK_OUT(&m, "{\"q\\\"k\":\"a\\\"b\\\\c/d\\n\\t\\r\\b\\f\\u0001\\u001f\x7f end\"}\n");
}

UNIT_TEST(embedded_nul_with_strn)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	json_strn(&j, "s", "a\0b", 3);
	json_end(&j);
	CHECK_OUT(&m, "{\"s\":\"a\\u0000b\"}\n");
}

UNIT_TEST(valid_utf8_passes_through)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	/* é (2 bytes), € (3), U+10FFFF (4), 😀 (4), U+D7FF (last before surrogates) */
	json_str(&j, "u", "\xc3\xa9 \xe2\x82\xac \xf4\x8f\xbf\xbf \xf0\x9f\x98\x80 \xed\x9f\xbf");
	json_end(&j);
	CHECK_OUT(&m, "{\"u\":\"\xc3\xa9 \xe2\x82\xac \xf4\x8f\xbf\xbf \xf0\x9f\x98\x80 \xed\x9f\xbf\"}\n");
}

UNIT_TEST(invalid_utf8_escaped_per_byte)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin(&j, m.f);
	json_str(&j, "cont", "a\x80z");			/* stray continuation */
	json_str(&j, "overlong", "\xc0\xaf");		/* overlong '/' */
	json_str(&j, "overlong3", "\xe0\x80\xaf");
	json_str(&j, "surrogate", "\xed\xa0\x80");	/* U+D800 */
	json_str(&j, "toobig", "\xf4\x90\x80\x80");	/* U+110000 */
	json_str(&j, "f5", "\xf5\x80");
	json_str(&j, "trunc", "\xe2\x82");		/* truncated at end */
	json_str(&j, "trunc_mid", "\xe2\x82x");		/* truncated by ASCII */
	json_str(&j, "latin1", "caf\xe9!");
	json_end(&j);
	CHECK_OUT(&m, "{\"cont\":\"a\\udc80z\","
		  "\"overlong\":\"\\udcc0\\udcaf\","
		  "\"overlong3\":\"\\udce0\\udc80\\udcaf\","
		  "\"surrogate\":\"\\udced\\udca0\\udc80\","
		  "\"toobig\":\"\\udcf4\\udc90\\udc80\\udc80\","
		  "\"f5\":\"\\udcf5\\udc80\","
		  "\"trunc\":\"\\udce2\\udc82\","
		  "\"trunc_mid\":\"\\udce2\\udc82x\","
		  "\"latin1\":\"caf\\udce9!\"}\n");
}

/*
 * The bytes come back: decode the JSON string as RFC 8259 says (\uXXXX of
 * a code point, UTF-8 kept) and each lone \udcXX as the byte XX, as
 * Python's surrogateescape does.  Returns the length, -1 when the text is
 * not what json_quote() writes.
 */
static int unescape(const char *q, unsigned char *out)
{
	int n = 0;

	if (*q++ != '"')
		return -1;
	while (*q && *q != '"') {
		unsigned v;

		if (*q != '\\') {
			out[n++] = (unsigned char)*q++;
			continue;
		}
		q++;
		switch (*q) {
		case 'n': out[n++] = '\n'; q++; continue;
		case 't': out[n++] = '\t'; q++; continue;
		case 'r': out[n++] = '\r'; q++; continue;
		case 'b': out[n++] = '\b'; q++; continue;
		case 'f': out[n++] = '\f'; q++; continue;
		case '"': case '\\': case '/': out[n++] = (unsigned char)*q++; continue;
		case 'u': break;
		default: return -1;
		}
		if (sscanf(q + 1, "%4x", &v) != 1)
			return -1;
		q += 5;
		if (v >= 0xdc80 && v <= 0xdcff)
			out[n++] = (unsigned char)(v & 0xff);
		else if (v < 0x80)
			out[n++] = (unsigned char)v;
		else
			return -1;	/* json_quote() writes no other \u */
	}
	return *q == '"' ? n : -1;
}

UNIT_TEST(exact_bytes_recoverable)
{
	/* 0xff and U+00FF must not meet; nor \xe9 and U+00E9 */
	static const struct { const char *s; int len; } cases[] = {
		{ "\xff", 1 }, { "\xc3\xbf", 2 }, { "caf\xe9", 4 },
		{ "caf\xc3\xa9", 5 }, { "a\0\x1b[31m\n\x7f\x80\xc2\x85", 11 },
		{ "\xed\xb3\xbf", 3 },	/* the UTF-8 of U+DCFF itself */
		{ "\\udcff", 6 },		/* the text of the escape */
	};
	unsigned char all[256], back[256 * 6];
	struct mem m;
	char *t;
	int i, n;

	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		mem_open(&m);
		json_quote(m.f, cases[i].s, cases[i].len);
		t = mem_text(&m);
		n = unescape(t, back);
		CHECK_INT(n, cases[i].len);
		CHECK(n == cases[i].len && !memcmp(back, cases[i].s, n));
		free(t);
	}
	mem_open(&m);
	json_quote(m.f, "\xff", 1);
	json_quote(m.f, "\xc3\xbf", 2);
	CHECK_OUT(&m, "\"\\udcff\"\"\xc3\xbf\"");

	/* every byte value, and every pair of them */
	for (i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	mem_open(&m);
	json_quote(m.f, (const char *)all, 256);
	t = mem_text(&m);
	CHECK_INT(unescape(t, back), 256);
	CHECK(!memcmp(back, all, 256));
	free(t);
	for (i = 0; i < 256 * 256; i++) {
		unsigned char two[2] = { (unsigned char)(i >> 8), (unsigned char)i };

		mem_open(&m);
		json_quote(m.f, (const char *)two, 2);
		t = mem_text(&m);
		n = unescape(t, back);
		if (n != 2 || memcmp(back, two, 2)) {
			printf("#   bytes %02x %02x came back wrong: %s\n",
			       two[0], two[1], t);
			unit_failed = 1;
			free(t);
			break;
		}
		free(t);
	}
}

UNIT_TEST(quote_direct)
{
	struct mem m;

	mem_open(&m);
	json_quote(m.f, "x\"y", 3);
	json_quote(m.f, "", 0);
	CHECK_OUT(&m, "\"x\\\"y\"\"\"");
}

UNIT_MAIN()
