// SPDX-License-Identifier: GPL-2.0
/*
 * Record field accessors: field_int(), field_elem(), field_str() on records
 * laid out as the kernel writes them (little endian; __data_loc is a u32
 * len << 16 | offset from the record start, __rel_loc the same with the
 * offset counted from the end of the 4-byte field).
 */
#include <stdint.h>
#include <string.h>

#include "common/event.h"
#include "tests/unit/unit.h"

static struct tk_event rec(const void *data, unsigned int size)
{
	return (struct tk_event){ .data = data, .size = size };
}

static struct tk_field fld(int offset, int size, unsigned int flags)
{
	return (struct tk_field){ .name = "f", .offset = offset, .size = size,
				  .flags = flags };
}

UNIT_TEST(int_sizes_unsigned)
{
	unsigned char d[32];
	struct tk_event ev = rec(d, sizeof(d));
	struct tk_field f;

	memset(d, 0xff, sizeof(d));
	d[0] = 0x80;
	memcpy(d + 2, &(uint16_t){ 0x8001 }, 2);
	memcpy(d + 4, &(uint32_t){ 0x80000001 }, 4);
	memcpy(d + 8, &(uint64_t){ 0x8000000000000001ULL }, 8);

	f = fld(0, 1, 0);
	CHECK_INT(field_int(&ev, &f), 0x80);
	f = fld(2, 2, 0);
	CHECK_INT(field_int(&ev, &f), 0x8001);
	f = fld(4, 4, 0);
	CHECK_INT(field_int(&ev, &f), 0x80000001LL);
	f = fld(8, 8, 0);
	CHECK(field_int(&ev, &f) == (int64_t)0x8000000000000001ULL);
	f = fld(16, 8, 0);
	CHECK(field_int(&ev, &f) == -1);	/* all ones as u64 */
	/* unaligned */
	f = fld(1, 4, 0);
	CHECK_INT(field_int(&ev, &f), 0x018001ffLL);
}

UNIT_TEST(int_sizes_signed)
{
	unsigned char d[16];
	struct tk_event ev = rec(d, sizeof(d));
	struct tk_field f;

	d[0] = 0xfe;
	memcpy(d + 2, &(int16_t){ -300 }, 2);
	memcpy(d + 4, &(int32_t){ -70000 }, 4);
	memcpy(d + 8, &(int64_t){ -5000000000LL }, 8);
	d[1] = 0x7f;

	f = fld(0, 1, TK_F_SIGNED);
	CHECK_INT(field_int(&ev, &f), -2);
	f = fld(1, 1, TK_F_SIGNED);
	CHECK_INT(field_int(&ev, &f), 127);
	f = fld(2, 2, TK_F_SIGNED);
	CHECK_INT(field_int(&ev, &f), -300);
	f = fld(4, 4, TK_F_SIGNED);
	CHECK_INT(field_int(&ev, &f), -70000);
	f = fld(8, 8, TK_F_SIGNED);
	CHECK_INT(field_int(&ev, &f), -5000000000LL);
	/* the same bytes unsigned are not sign-extended */
	f = fld(0, 1, 0);
	CHECK_INT(field_int(&ev, &f), 0xfe);
	f = fld(4, 4, 0);
	CHECK_INT(field_int(&ev, &f), (uint32_t)-70000);
}

UNIT_TEST(int_out_of_bounds_is_zero)
{
	unsigned char d[16];
	struct tk_event ev = rec(d, 12);	/* only 12 bytes are the record */
	struct tk_field f;

	memset(d, 0x11, sizeof(d));
	f = fld(8, 4, 0);
	CHECK_INT(field_int(&ev, &f), 0x11111111);	/* ends exactly at size */
	f = fld(8, 8, 0);
	CHECK_INT(field_int(&ev, &f), 0);
	f = fld(12, 1, 0);
	CHECK_INT(field_int(&ev, &f), 0);
	f = fld(11, 2, TK_F_SIGNED);
	CHECK_INT(field_int(&ev, &f), 0);
	f = fld(1000, 4, 0);
	CHECK_INT(field_int(&ev, &f), 0);
	ev.size = 0;
	f = fld(0, 1, 0);
	CHECK_INT(field_int(&ev, &f), 0);
}

UNIT_TEST(elem_of_int_array)
{
	unsigned char d[8 + 4 * 4 + 8 * 2];
	struct tk_event ev = rec(d, sizeof(d));
	struct tk_field f = fld(8, 16, TK_F_ARRAY | TK_F_SIGNED);
	struct tk_field g = fld(24, 16, TK_F_ARRAY);
	int i;

	memset(d, 0, sizeof(d));
	for (i = 0; i < 4; i++)
		memcpy(d + 8 + 4 * i, &(int32_t){ -1 - i }, 4);
	memcpy(d + 24, &(uint64_t){ 7 }, 8);
	memcpy(d + 32, &(uint64_t){ UINT64_MAX }, 8);
	f.elem = 4;
	g.elem = 8;

	for (i = 0; i < 4; i++)
		CHECK_INT(field_elem(&ev, &f, i), -1 - i);
	CHECK_INT(field_elem(&ev, &f, 4), 0);	/* past the array */
	CHECK_INT(field_elem(&ev, &f, 1000), 0);
	CHECK_INT(field_elem(&ev, &g, 0), 7);
	CHECK(field_elem(&ev, &g, 1) == (int64_t)UINT64_MAX);
	CHECK_INT(field_elem(&ev, &g, 2), 0);
	/* unsigned elements are not sign-extended */
	f.flags = TK_F_ARRAY;
	CHECK_INT(field_elem(&ev, &f, 0), 0xffffffffLL);
	/* no element size: not an array */
	f.elem = 0;
	CHECK_INT(field_elem(&ev, &f, 0), 0);
	/* an array that runs past the end of the record */
	f = fld(32, 16, TK_F_ARRAY);
	f.elem = 4;
	CHECK_INT(field_elem(&ev, &f, 1), 0xffffffffLL);
	CHECK_INT(field_elem(&ev, &f, 2), 0);
}

/* A negative index is outside the array like any other: 0, not the bytes
 * before it (here common_pid). */
UNIT_TEST(elem_negative_index_is_zero)
{
	unsigned char d[16];
	struct tk_event ev = rec(d, sizeof(d));
	struct tk_field f = fld(8, 8, TK_F_ARRAY);

	memset(d, 0, sizeof(d));
	memcpy(d + 4, &(int32_t){ 4242 }, 4);
	f.elem = 4;
	CHECK_INT(field_elem(&ev, &f, -1), 0);
	CHECK_INT(field_elem(&ev, &f, -2), 0);
}

UNIT_TEST(str_char_array)
{
	unsigned char d[8 + 16 + 8];
	struct tk_event ev = rec(d, sizeof(d));
	struct tk_field f = fld(8, 16, TK_F_STRING | TK_F_ARRAY);
	char buf[32];

	memset(d, 'Z', sizeof(d));
	memcpy(d + 8, "bash\0garbage", 12);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 4);
	CHECK_STR(buf, "bash");

	/* all 16 bytes used, no NUL: stops at the field's end */
	memcpy(d + 8, "0123456789abcdef", 16);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 16);
	CHECK_STR(buf, "0123456789abcdef");

	/* empty */
	d[8] = '\0';
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
}

UNIT_TEST(str_truncated_to_buffer)
{
	unsigned char d[8 + 16];
	struct tk_event ev = rec(d, sizeof(d));
	struct tk_field f = fld(8, 16, TK_F_STRING | TK_F_ARRAY);
	char buf[8];

	memcpy(d + 8, "0123456789abcdef", 16);
	memset(buf, 'X', sizeof(buf));
	CHECK_INT(field_str(&ev, &f, buf, 5), 4);
	CHECK_STR(buf, "0123");
	CHECK_INT(buf[5], 'X');			/* nothing written past bufsz */
	CHECK_INT(field_str(&ev, &f, buf, 1), 0);
	CHECK_STR(buf, "");
	memset(buf, 'X', sizeof(buf));
	CHECK_INT(field_str(&ev, &f, buf, 0), 0);
	CHECK_INT(buf[0], 'X');			/* bufsz 0: untouched */
	/* exactly fits: 16 chars need 17 bytes */
	{
		char b17[17], b16[16];

		CHECK_INT(field_str(&ev, &f, b17, sizeof(b17)), 16);
		CHECK_STR(b17, "0123456789abcdef");
		CHECK_INT(field_str(&ev, &f, b16, sizeof(b16)), 15);
		CHECK_STR(b16, "0123456789abcde");
	}
}

UNIT_TEST(str_char_array_out_of_bounds)
{
	unsigned char d[32];
	struct tk_event ev = rec(d, 20);	/* the field would end at 24 */
	struct tk_field f = fld(8, 16, TK_F_STRING | TK_F_ARRAY);
	char buf[32] = "stale";

	memcpy(d + 8, "abc", 4);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
}

/* Build a record: 8 common bytes, a u32 locator at 8, an int at 12, then
 * the dynamic data at 16. */
static void put_loc(unsigned char *d, int at, uint32_t len, uint32_t off)
{
	uint32_t loc = len << 16 | off;

	memcpy(d + at, &loc, 4);
}

/* A faulted fetch has length 0; "" has length 1, its NUL. */
UNIT_TEST(str_fault_told_from_empty)
{
	unsigned char d[32];
	struct tk_event ev = rec(d, 24);
	struct tk_field f = fld(8, 4, TK_F_DYNAMIC | TK_F_STRING);
	struct tk_field r = fld(8, 4, TK_F_RELATIVE | TK_F_STRING);
	struct tk_field a = fld(12, 8, TK_F_STRING);
	char buf[16];

	memset(d, 0, sizeof(d));
	put_loc(d, 8, 0, 16);
	CHECK(field_str_fault(&ev, &f));
	CHECK(field_str_fault(&ev, &r));
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	put_loc(d, 8, 1, 16);
	CHECK(!field_str_fault(&ev, &f));
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	/* a char[N] field never faults; a location past the record is no fault */
	CHECK(!field_str_fault(&ev, &a));
	f.offset = 22;
	CHECK(!field_str_fault(&ev, &f));
}

UNIT_TEST(str_data_loc)
{
	unsigned char d[64];
	struct tk_event ev = rec(d, 16 + 12);
	struct tk_field f = fld(8, 4, TK_F_DYNAMIC | TK_F_STRING);
	char buf[64];

	memset(d, 0, sizeof(d));
	memcpy(d + 16, "/bin/true", 10);	/* len includes the NUL */
	put_loc(d, 8, 10, 16);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 9);
	CHECK_STR(buf, "/bin/true");

	/* length without a NUL: exactly len bytes */
	put_loc(d, 8, 4, 16);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 4);
	CHECK_STR(buf, "/bin");

	/* empty string */
	put_loc(d, 8, 0, 16);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");

	/* truncated to the buffer */
	put_loc(d, 8, 10, 16);
	CHECK_INT(field_str(&ev, &f, buf, 4), 3);
	CHECK_STR(buf, "/bi");

	/* a string that ends exactly at the record's end */
	memcpy(d + 16, "0123456789ab", 12);
	put_loc(d, 8, 12, 16);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 12);
	CHECK_STR(buf, "0123456789ab");
}

UNIT_TEST(str_data_loc_out_of_bounds)
{
	unsigned char d[64];
	struct tk_event ev = rec(d, 28);
	struct tk_field f = fld(8, 4, TK_F_DYNAMIC | TK_F_STRING);
	char buf[64];

	memset(d, 'A', sizeof(d));
	/* one byte too long */
	put_loc(d, 8, 13, 16);
	strcpy(buf, "stale");
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	/* offset past the end */
	put_loc(d, 8, 1, 29);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	/* offset at the end, length 0: empty, not an overrun */
	put_loc(d, 8, 0, 28);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	/* huge length and offset: no wrap-around in the check */
	put_loc(d, 8, 0xffff, 0xffff);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	put_loc(d, 8, 0xffff, 16);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	/* the locator itself outside the record */
	ev.size = 10;
	put_loc(d, 8, 1, 0);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
}

UNIT_TEST(str_rel_loc)
{
	unsigned char d[64];
	struct tk_event ev = rec(d, 32);
	/* format_field() sets both for __rel_loc */
	struct tk_field f = fld(8, 4, TK_F_DYNAMIC | TK_F_RELATIVE | TK_F_STRING);
	struct tk_field g = fld(8, 4, TK_F_RELATIVE | TK_F_STRING);
	char buf[64];

	memset(d, 0, sizeof(d));
	/* data at 20: relative to the end of the field (12) that is 8 */
	memcpy(d + 20, "hello", 6);
	put_loc(d, 8, 6, 8);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 5);
	CHECK_STR(buf, "hello");
	CHECK_INT(field_str(&ev, &g, buf, sizeof(buf)), 5);
	CHECK_STR(buf, "hello");
	/* offset 0: the data right after the field */
	memcpy(d + 12, "xy", 3);
	put_loc(d, 8, 3, 0);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 2);
	CHECK_STR(buf, "xy");
	/* out of bounds once the field's end is added: 12 + 17 + 4 > 32 */
	put_loc(d, 8, 4, 17);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	/* at the very end */
	memcpy(d + 28, "end", 4);
	put_loc(d, 8, 4, 16);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 3);
	CHECK_STR(buf, "end");
	put_loc(d, 8, 5, 16);
	CHECK_INT(field_str(&ev, &f, buf, sizeof(buf)), 0);
}

UNIT_MAIN()
