// SPDX-License-Identifier: GPL-2.0
/*
 * stap printf.  Expected texts follow systemtap's runtime/vsprintf.c
 * (number(), _stp_vsprint_char/memory/binary()), the compiled printf in
 * translate.cxx (widths clamped to the room left) and the format parser in
 * staptree.cxx (one flag, one 'l').  Each quirk's origin is noted inline.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lang/fmt.h"
#include "tests/unit/unit.h"

#define L(v) fmt_arg_long(v)
#define S(s) fmt_arg_str(s)
#define ARGS(...) (struct fmt_arg[]){ __VA_ARGS__ }, \
	(int)(sizeof((struct fmt_arg[]){ __VA_ARGS__ }) / sizeof(struct fmt_arg))

static char result[16384];
static int last_rc;

/* printf() into a fresh buffer; the text, or "ERR" on failure */
static const char *run(const char *f, const struct fmt_arg *a, int n)
{
	struct strbuf sb = STRBUF_INIT;

	last_rc = fmt_printf(&sb, f, a, n);
	snprintf(result, sizeof(result), "%s", last_rc < 0 ? "ERR" : fmt_sb_str(&sb));
	fmt_sb_release(&sb);
	return result;
}

static const char *run0(const char *f)
{
	return run(f, NULL, 0);
}

static const char *srun(size_t maxlen, const char *f, const struct fmt_arg *a, int n)
{
	struct strbuf sb = STRBUF_INIT;

	last_rc = fmt_sprintf(&sb, maxlen, f, a, n);
	snprintf(result, sizeof(result), "%s", last_rc < 0 ? "ERR" : fmt_sb_str(&sb));
	fmt_sb_release(&sb);
	return result;
}

UNIT_TEST(strbuf_basics)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR(fmt_sb_str(&sb), "");
	fmt_sb_addstr(&sb, "ab");
	fmt_sb_addc(&sb, 'c');
	fmt_sb_addnc(&sb, '-', 3);
	fmt_sb_addf(&sb, "%d", 42);
	CHECK_STR(fmt_sb_str(&sb), "abc---42");
	fmt_sb_add(&sb, "\0x", 2);
	CHECK_INT(sb.len, 10);
	fmt_sb_truncate(&sb, 3);
	CHECK_STR(fmt_sb_str(&sb), "abc");
	fmt_int64(&sb, INT64_MIN);
	CHECK_STR(fmt_sb_str(&sb), "abc-9223372036854775808");
	fmt_sb_reset(&sb);
	CHECK_STR(fmt_sb_str(&sb), "");
	fmt_sb_release(&sb);
	CHECK(sb.buf == NULL);
}

UNIT_TEST(decimal)
{
	CHECK_STR(run("%d", ARGS(L(42))), "42");
	CHECK_STR(run("%i", ARGS(L(-42))), "-42");
	CHECK_STR(run("%d", ARGS(L(0))), "0");
	CHECK_STR(run("%d", ARGS(L(INT64_MIN))), "-9223372036854775808");
	CHECK_STR(run("%d", ARGS(L(INT64_MAX))), "9223372036854775807");
	CHECK_STR(run("%ld", ARGS(L(7))), "7");	/* one 'l' is skipped */
	CHECK_STR(run("x=%d y=%d\n", ARGS(L(1), L(2))), "x=1 y=2\n");
}

UNIT_TEST(unsigned_octal_hex_of_negatives)
{
	/* the value is a 64-bit unsigned number unless %d/%i */
	CHECK_STR(run("%u", ARGS(L(-1))), "18446744073709551615");
	CHECK_STR(run("%x", ARGS(L(-1))), "ffffffffffffffff");
	CHECK_STR(run("%X", ARGS(L(-1))), "FFFFFFFFFFFFFFFF");
	CHECK_STR(run("%o", ARGS(L(-1))), "1777777777777777777777");
	CHECK_STR(run("%u", ARGS(L(INT64_MIN))), "9223372036854775808");
	CHECK_STR(run("%x", ARGS(L(255))), "ff");
	CHECK_STR(run("%X", ARGS(L(0xabc))), "ABC");
	CHECK_STR(run("%o", ARGS(L(8))), "10");
}

UNIT_TEST(width_and_flags)
{
	CHECK_STR(run("[%5d]", ARGS(L(42))), "[   42]");
	CHECK_STR(run("[%-5d]", ARGS(L(42))), "[42   ]");
	CHECK_STR(run("[%05d]", ARGS(L(42))), "[00042]");
	CHECK_STR(run("[%05d]", ARGS(L(-42))), "[-0042]");	/* zeros after sign */
	CHECK_STR(run("[%+d]", ARGS(L(42))), "[+42]");
	CHECK_STR(run("[% d]", ARGS(L(42))), "[ 42]");
	CHECK_STR(run("[%+d]", ARGS(L(-42))), "[-42]");
	CHECK_STR(run("[%+u]", ARGS(L(42))), "[42]");	/* sign only for %d %i */
	CHECK_STR(run("[%2d]", ARGS(L(12345))), "[12345]");
	CHECK_STR(run("[%-6x]", ARGS(L(255))), "[ff    ]");
}

UNIT_TEST(precision)
{
	CHECK_STR(run("[%.5d]", ARGS(L(42))), "[00042]");
	CHECK_STR(run("[%8.5d]", ARGS(L(-42))), "[  -00042]");
	/* number(): a '0' flag still pads with zeros when a precision is set */
	CHECK_STR(run("[%05.3d]", ARGS(L(7))), "[00007]");
	/* number(): precision 0 still prints the digit of 0 */
	CHECK_STR(run("[%.0d]", ARGS(L(0))), "[0]");
	/* staptree.cxx: "%.d" leaves the precision unspecified */
	CHECK_STR(run("[%.d]", ARGS(L(3))), "[3]");
}

UNIT_TEST(special_prefix)
{
	CHECK_STR(run("%#x", ARGS(L(255))), "0xff");
	CHECK_STR(run("%#X", ARGS(L(255))), "0XFF");
	CHECK_STR(run("%#o", ARGS(L(8))), "010");
	/* number() writes the prefix even for 0, unlike glibc */
	CHECK_STR(run("%#x", ARGS(L(0))), "0x0");
	CHECK_STR(run("%#o", ARGS(L(0))), "00");
	CHECK_STR(run("[%#10x]", ARGS(L(255))), "[      0xff]");
	/* one flag only: "%#-10x" and "%-#10x" are parse errors in stap */
	CHECK_STR(run("[%#-10x]", ARGS(L(255))), "ERR");
	CHECK_STR(run("[%-#10x]", ARGS(L(255))), "ERR");
	/* one flag only: the '0' of "%#010x" is read as the width "010" */
	CHECK_STR(run("[%#010x]", ARGS(L(255))), "[      0xff]");
}

UNIT_TEST(pointer)
{
	/* staptree.cxx: since stap 1.3 %p is %#x on the 64-bit value */
	CHECK_STR(run("%p", ARGS(L(0x1234))), "0x1234");
	CHECK_STR(run("%p", ARGS(L(0))), "0x0");
	CHECK_STR(run("%p", ARGS(L(-1))), "0xffffffffffffffff");
	CHECK_STR(run("[%20p]", ARGS(L(0x1234))), "[              0x1234]");
	CHECK_STR(run("[%-8p]", ARGS(L(0xa))), "[0xa     ]");
}

UNIT_TEST(strings)
{
	CHECK_STR(run("%s", ARGS(S("hello"))), "hello");
	CHECK_STR(run("[%10s]", ARGS(S("hello"))), "[     hello]");
	CHECK_STR(run("[%-10s]", ARGS(S("hello"))), "[hello     ]");
	CHECK_STR(run("[%.3s]", ARGS(S("hello"))), "[hel]");
	CHECK_STR(run("[%10.3s]", ARGS(S("hello"))), "[       hel]");
	CHECK_STR(run("[%.0s]", ARGS(S("hello"))), "[]");
	CHECK_STR(run("[%s]", ARGS(S(""))), "[]");
	CHECK_STR(run("[%s]", ARGS(S(NULL))), "[<NULL>]");
}

UNIT_TEST(star_width_precision)
{
	CHECK_STR(run("[%*s]", ARGS(L(7), S("ab"))), "[     ab]");
	CHECK_STR(run("[%-*s]", ARGS(L(7), S("ab"))), "[ab     ]");
	/* compiled printf clamps a negative '*' width to 0 (no left-justify) */
	CHECK_STR(run("[%*s]", ARGS(L(-7), S("ab"))), "[ab]");
	CHECK_STR(run("[%.*s]", ARGS(L(1), S("abc"))), "[a]");
	CHECK_STR(run("[%.*s]", ARGS(L(-1), S("abc"))), "[]");
	CHECK_STR(run("[%*.*d]", ARGS(L(6), L(3), L(5))), "[   005]");
	/* clamp_t(int, ...) truncates the long to int first */
	CHECK_STR(run("[%*d]", ARGS(L(0x100000005LL), L(42))), "[   42]");
}

UNIT_TEST(chars)
{
	CHECK_STR(run("%c", ARGS(L('A'))), "A");
	CHECK_STR(run("[%3c]", ARGS(L('A'))), "[  A]");
	CHECK_STR(run("[%-3c]", ARGS(L('A'))), "[A  ]");
	CHECK_STR(run("%c", ARGS(L(0x141))), "A");	/* cut to a char */
	/* _stp_vsprint_char(): '#' escapes non-printables */
	CHECK_STR(run("%#c", ARGS(L('\n'))), "\\n");
	CHECK_STR(run("%#c", ARGS(L('\\'))), "\\\\");
	CHECK_STR(run("%#c", ARGS(L('\''))), "\\'");
	CHECK_STR(run("%#c", ARGS(L(1))), "\\001");
	CHECK_STR(run("%#c", ARGS(L(0xe9))), "\\351");
	CHECK_STR(run("[%#5c]", ARGS(L(1))), "[ \\001]");
	CHECK_STR(run("%#c", ARGS(L('x'))), "x");
}

UNIT_TEST(percent_and_literals)
{
	CHECK_STR(run0("100%%"), "100%");
	CHECK_STR(run0("100%"), "100%");	/* a lone trailing '%' is literal */
	CHECK_STR(run0("a%%b%%c"), "a%b%c");
	CHECK_STR(run0(""), "");
	CHECK_STR(run0("abc%l"), "abc");	/* empty partial "%l" dropped */
}

UNIT_TEST(binary)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char eight[8] = { 0x02, 0x01, 0, 0, 0, 0, 0, 0 };

	/* _stp_vsprint_binary(): 8 raw bytes by default, host order */
	CHECK_INT(fmt_printf(&sb, "%b", ARGS(L(0x0102))), 8);
	CHECK(memcmp(sb.buf, eight, 8) == 0);
	fmt_sb_reset(&sb);
	CHECK_INT(fmt_printf(&sb, "%1b", ARGS(L(0x4241))), 1);
	CHECK_STR(fmt_sb_str(&sb), "A");
	fmt_sb_reset(&sb);
	CHECK_INT(fmt_printf(&sb, "%.2b", ARGS(L(0x4241))), 2);
	CHECK_STR(fmt_sb_str(&sb), "AB");
	fmt_sb_reset(&sb);
	/* width 4, precision 1: padded with NULs before (after with '-') */
	CHECK_INT(fmt_printf(&sb, "%4.1b", ARGS(L('Z'))), 4);
	CHECK(memcmp(sb.buf, "\0\0\0Z", 4) == 0);
	fmt_sb_reset(&sb);
	CHECK_INT(fmt_printf(&sb, "%-4.1b", ARGS(L('Z'))), 4);
	CHECK(memcmp(sb.buf, "Z\0\0\0", 4) == 0);
	fmt_sb_release(&sb);
}

UNIT_TEST(zeropad_string_appends_nul)
{
	struct strbuf sb = STRBUF_INIT;

	/* _stp_vsprint_memory(): STP_ZEROPAD writes a '\0' after the text */
	CHECK_INT(fmt_printf(&sb, "%0s|", ARGS(S("ab"))), 4);
	CHECK(memcmp(sb.buf, "ab\0|", 4) == 0);
	fmt_sb_release(&sb);
}

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len, bool user)
{
	const char *mem = ctx;

	if (addr > 16 || addr + len > 16)
		return -EFAULT;
	memcpy(buf, mem + addr, len);
	if (user)
		((char *)buf)[0] = 'U';
	return 0;
}

UNIT_TEST(memory_dumps)
{
	char err[128] = "";
	char mem[17] = "abcdefghijklmnop";
	struct fmt_opts o = { .read = fake_read, .read_ctx = mem,
			      .err = err, .errlen = sizeof(err) };
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(fmt_format(&sb, "%.4m", ARGS(L(2)), &o), 4);
	CHECK_STR(fmt_sb_str(&sb), "cdef");
	fmt_sb_reset(&sb);
	CHECK_INT(fmt_format(&sb, "%m", ARGS(L(0)), &o), 1);	/* default 1 byte */
	CHECK_STR(fmt_sb_str(&sb), "a");
	fmt_sb_reset(&sb);
	CHECK_INT(fmt_format(&sb, "[%8.3M]", ARGS(L(0)), &o), 10);
	CHECK_STR(fmt_sb_str(&sb), "[  616263]");
	fmt_sb_reset(&sb);
	/* '#' asks for user memory (uread) */
	CHECK_INT(fmt_format(&sb, "%#.2m", ARGS(L(0)), &o), 2);
	CHECK_STR(fmt_sb_str(&sb), "Ub");
	fmt_sb_reset(&sb);
	/* translate.cxx: more than PAGE_SIZE is refused before printing */
	CHECK_INT(fmt_format(&sb, "x%.5000m", ARGS(L(0)), &o), -E2BIG);
	CHECK_STR(err, "5000 is too many bytes for a memory dump");
	CHECK_INT(sb.len, 0);
	CHECK_INT(fmt_format(&sb, "%.*M", ARGS(L(4097), L(0)), &o), -E2BIG);
	CHECK_INT(fmt_format(&sb, "%.4m", ARGS(L(15)), &o), -EFAULT);
	CHECK_INT(fmt_printf(&sb, "%m", ARGS(L(0))), -EFAULT);	/* no reader */
	fmt_sb_release(&sb);
}

UNIT_TEST(sprintf_truncation)
{
	/* MAXSTRINGLEN 8: at most 7 bytes */
	CHECK_STR(srun(8, "%s", ARGS(S("abcdefghij"))), "abcdefg");
	CHECK_INT(last_rc, 7);
	CHECK_STR(srun(8, "%s", ARGS(S("abcdefg"))), "abcdefg");
	CHECK_STR(srun(8, "%s", ARGS(S("abcdef"))), "abcdef");
	/* the width is clamped to the room (8) before the cut: "   12345"
	 * cut to 7, not 5 spaces of a 10-wide field */
	CHECK_STR(srun(8, "%10d", ARGS(L(12345))), "   1234");
	CHECK_STR(srun(8, "ab%d", ARGS(L(1234567))), "ab12345");
	CHECK_STR(srun(512, "%d-%s", ARGS(L(5), S("x"))), "5-x");
}

UNIT_TEST(print_cap)
{
	struct strbuf sb = STRBUF_INIT;

	/* STP_BUFFER_SIZE: a width of 9000 is clamped to 8192 */
	CHECK_INT(fmt_printf(&sb, "%9000d", ARGS(L(5))), 8192);
	CHECK(sb.buf[8190] == ' ' && sb.buf[8191] == '5');
	fmt_sb_release(&sb);
}

UNIT_TEST(parse_errors)
{
	char err[128];

	/* staptree.cxx messages */
	CHECK_INT(fmt_parse("%lld", NULL, 0, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, FMT_ERR_CONV);
	CHECK_STR(FMT_ERR_CONV, "invalid or missing conversion specifier");
	CHECK_INT(fmt_parse("%hd", NULL, 0, err, sizeof(err)), -EINVAL);
	CHECK_INT(fmt_parse("%q", NULL, 0, err, sizeof(err)), -EINVAL);
	CHECK_INT(fmt_parse("%-+5d", NULL, 0, err, sizeof(err)), -EINVAL);
	CHECK_INT(fmt_parse("%5%", NULL, 0, err, sizeof(err)), -EINVAL);
	CHECK_INT(fmt_parse("abc %5", NULL, 0, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "trailing incomplete print format conversion");
	CHECK_INT(fmt_parse("%-", NULL, 0, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, FMT_ERR_TRAILING);
	CHECK_STR(FMT_ERR_NARGS, "Wrong number of args to formatted print operator");
	CHECK_STR(run0("%q"), "ERR");
	CHECK_INT(last_rc, -EINVAL);
}

UNIT_TEST(parse_counts_and_types)
{
	enum fmt_type t[8];
	char err[64];

	CHECK_INT(fmt_parse("%d %s %*.*s %%", t, 8, err, sizeof(err)), 5);
	CHECK_INT(t[0], FMT_LONG);
	CHECK_INT(t[1], FMT_STRING);
	CHECK_INT(t[2], FMT_LONG);
	CHECK_INT(t[3], FMT_LONG);
	CHECK_INT(t[4], FMT_STRING);
	CHECK_INT(fmt_parse("no conversions", t, 8, err, sizeof(err)), 0);
	CHECK_INT(fmt_parse("%c%p%b%m%M%x", t, 2, err, sizeof(err)), 6);
	CHECK_INT(t[1], FMT_LONG);
}

UNIT_TEST(run_argument_errors)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(fmt_printf(&sb, "%d %d", ARGS(L(1))), -EINVAL);	/* too few */
	CHECK_INT(fmt_printf(&sb, "%d", ARGS(S("x"))), -EINVAL);	/* mistyped */
	CHECK_INT(fmt_printf(&sb, "%s", ARGS(L(1))), -EINVAL);
	CHECK_INT(fmt_printf(&sb, "%d", ARGS(L(1), L(2))), -EINVAL);	/* too many */
	CHECK_INT(sb.len, 0);
	fmt_sb_release(&sb);
}

UNIT_TEST(compiled_format_reuse)
{
	struct fmt_spec *specs;
	struct strbuf sb = STRBUF_INIT;
	char err[64];
	int n = fmt_compile("%s=%-4d|", &specs, err, sizeof(err));

	CHECK_INT(n, 4);
	CHECK_INT(specs[0].conv, FMT_STR);
	CHECK_INT(specs[2].flags, FMT_LEFT | FMT_SIGN);
	fmt_run(&sb, specs, n, ARGS(S("a"), L(1)), NULL);
	fmt_run(&sb, specs, n, ARGS(S("bb"), L(-22)), NULL);
	CHECK_STR(fmt_sb_str(&sb), "a=1   |bb=-22 |");
	free(specs);
	CHECK_INT(fmt_compile("%z", &specs, err, sizeof(err)), -EINVAL);
	CHECK(specs == NULL);
	fmt_sb_release(&sb);
}

UNIT_TEST(long_format_beyond_stack_specs)
{
	char f[200] = "";
	struct fmt_arg a[40];
	int i;

	for (i = 0; i < 40; i++) {
		strcat(f, "%d");
		a[i] = L(i % 10);
	}
	CHECK_STR(run(f, a, 40), "0123456789012345678901234567890123456789");
}

UNIT_TEST(quote)
{
	struct strbuf sb = STRBUF_INIT;

	fmt_quote(&sb, "a\"b\n\x01\\");
	CHECK_STR(fmt_sb_str(&sb), "\"a\\\"b\\n\\001\\\\\"");
	fmt_sb_release(&sb);
}

UNIT_MAIN()
