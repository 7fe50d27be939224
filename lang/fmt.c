// SPDX-License-Identifier: GPL-2.0
/*
 * SystemTap's printf, reproduced from its translator and runtime.
 *
 * Parsing follows staptree.cxx's print_format::string_to_components(): one
 * optional flag character (not a list: "%-+5d" is an error in stap), a
 * width ('*' or digits), a precision ('.' then '*' or digits), at most one
 * 'l', then one of b c s m M d i u o x X p.  stap checks the argument count
 * and types at compile time (elaborate.cxx), so the run-time path may assume
 * a checked format; fmt_run() still refuses mismatches with -EINVAL.
 *
 * Output follows the compiled printf that translate.cxx emits for every
 * format (the default since stap 1.x; -DSTP_LEGACY_PRINT is not modelled):
 * each conversion's width and precision are clamp_t(int, v, 0, end-str+1),
 * i.e. truncated to int and clamped to the room left, and the conversion
 * helpers write "while str <= end" but keep counting.  We model stap's
 * (str, end) pair with a virtual position: struct out writes a byte only
 * while pos <= end and always advances pos, so the bytes kept are exactly
 * those stap would have stored.  print() has room STP_BUFFER_SIZE (8192);
 * sprintf() has MAXSTRINGLEN and then puts the NUL on the last byte if the
 * output reached it, keeping MAXSTRINGLEN-1.
 *
 * Quirks kept on purpose, each visible in stap's runtime/vsprintf.c:
 * "%#x" of 0 is "0x0" and "%#o" of 0 is "00" (the prefix is unconditional);
 * a zero precision still prints "0"; '0' pads after the sign even with a
 * precision ("%05.3d" of 7 is "00007"); '0' with %s pads with spaces and
 * then appends a NUL byte; %b writes the value's raw bytes and pads with
 * NULs; %c with '#' escapes non-printables as C escapes or \ooo.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/fmt.h"

/* ---- values the VM prints -------------------------------------------- */

void fmt_int64(struct strbuf *sb, int64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%" PRId64, v);

	fmt_sb_add_inline(sb, tmp, (size_t)n);
}

/* ---- parsing ----------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits as stap accumulates them, saturated instead of overflowing. */
static int read_num(const char **pp)
{
	const char *p = *pp;
	long long v = 0;

	while (is_digit(*p)) {
		if (v < INT_MAX)
			v = v * 10 + (*p - '0');
		p++;
	}
	*pp = p;
	return v > INT_MAX ? INT_MAX : (int)v;
}

int fmt_next(const char **pos, struct fmt_spec *spec, char *err, size_t errlen)
{
	const char *p = *pos;

	if (!*p)
		return 0;
	memset(spec, 0, sizeof(*spec));
	spec->width = spec->prec = FMT_UNSPEC;
	spec->base = 10;

	if (*p != '%') {
		const char *q = strchr(p, '%');

		if (!q)
			q = p + strlen(p);
		spec->conv = FMT_LITERAL;
		spec->lit = p;
		spec->litlen = (size_t)(q - p);
		*pos = q;
		return 1;
	}
	/* "%%", and a '%' ending the string, are a literal '%' */
	if (p[1] == '\0' || p[1] == '%') {
		spec->conv = FMT_LITERAL;
		spec->lit = p;
		spec->litlen = 1;
		*pos = p[1] ? p + 2 : p + 1;
		return 1;
	}
	p++;

	switch (*p) {		/* one flag only, as stap parses */
	case '0': spec->flags |= FMT_ZEROPAD; p++; break;
	case '+': spec->flags |= FMT_PLUS; p++; break;
	case '-': spec->flags |= FMT_LEFT; p++; break;
	case ' ': spec->flags |= FMT_SPACE; p++; break;
	case '#': spec->flags |= FMT_SPECIAL; p++; break;
	default: break;
	}
	if (!*p)
		goto trailing;

	if (*p == '*') {
		spec->width = FMT_DYNAMIC;
		p++;
	} else if (is_digit(*p)) {
		spec->width = read_num(&p);
	}
	if (!*p)
		goto trailing;

	if (*p == '.') {
		p++;
		if (!*p)
			goto trailing;
		if (*p == '*') {
			spec->prec = FMT_DYNAMIC;
			p++;
		} else if (is_digit(*p)) {
			spec->prec = read_num(&p);
		}
	}
	if (!*p)
		goto trailing;

	if (*p == 'l')
		p++;
	if (!*p)
		goto trailing;

	switch (*p) {
	case 'b': spec->conv = FMT_BINARY; break;
	case 'c': spec->conv = FMT_CHAR; break;
	case 's': spec->conv = FMT_STR; break;
	case 'm': spec->conv = FMT_MEMORY; break;
	case 'M': spec->conv = FMT_MEMORY_HEX; break;
	case 'd':
	case 'i':
		spec->flags |= FMT_SIGN;
		/* fallthrough */
	case 'u':
		spec->conv = FMT_NUMBER;
		break;
	case 'o':
		spec->conv = FMT_NUMBER;
		spec->base = 8;
		break;
	case 'X':
		spec->flags |= FMT_LARGE;
		/* fallthrough */
	case 'x':
		spec->conv = FMT_NUMBER;
		spec->base = 16;
		break;
	case 'p':		/* since stap 1.3, %p is %#x */
		spec->conv = FMT_POINTER;
		spec->flags |= FMT_SPECIAL;
		spec->base = 16;
		break;
	default:
		set_err(err, errlen, FMT_ERR_CONV);
		return -EINVAL;
	}
	*pos = p + 1;
	return 1;

trailing:
	/* stap drops an empty partial conversion ("%l", "%.") silently */
	if (spec->flags || spec->width != FMT_UNSPEC || spec->prec != FMT_UNSPEC) {
		set_err(err, errlen, FMT_ERR_TRAILING);
		return -EINVAL;
	}
	*pos = p;
	return 0;
}

/* Argument slots of one component: '*' width, '*' precision, the value. */
static int spec_slots(const struct fmt_spec *s, enum fmt_type slot[3])
{
	int n = 0;

	if (s->conv == FMT_LITERAL)
		return 0;
	if (s->width == FMT_DYNAMIC)
		slot[n++] = FMT_LONG;
	if (s->prec == FMT_DYNAMIC)
		slot[n++] = FMT_LONG;
	slot[n++] = s->conv == FMT_STR ? FMT_STRING : FMT_LONG;
	return n;
}

int fmt_parse(const char *fmt, enum fmt_type *types, int max,
	      char *err, size_t errlen)
{
	struct fmt_spec s;
	enum fmt_type slot[3];
	int r, i, n, nargs = 0;

	while ((r = fmt_next(&fmt, &s, err, errlen)) > 0) {
		n = spec_slots(&s, slot);
		for (i = 0; i < n; i++, nargs++)
			if (types && nargs < max)
				types[nargs] = slot[i];
	}
	return r < 0 ? r : nargs;
}

int fmt_compile(const char *fmt, struct fmt_spec **specs,
		char *err, size_t errlen)
{
	struct fmt_spec s, *v = NULL;
	const char *p = fmt;
	int r, n = 0;

	while ((r = fmt_next(&p, &s, err, errlen)) > 0) {
		v = xrealloc(v, (size_t)(n + 1) * sizeof(*v));
		v[n++] = s;
	}
	if (r < 0) {
		free(v);
		*specs = NULL;
		return r;
	}
	*specs = v;
	return n;
}

/* ---- output ------------------------------------------------------------ */

/* stap's (str, end) over a buffer of @cap bytes, appended to @sb. */
struct out {
	struct strbuf *sb;
	long long pos;		/* str - buf */
	long long end;		/* end - buf */
};

static void put(struct out *o, char c)
{
	if (o->pos <= o->end)
		fmt_sb_addc_inline(o->sb, c);
	o->pos++;
}

/* clamp_t(int, v, 0, end - str + 1) */
static int clamp_room(const struct out *o, int64_t v)
{
	long long hi = o->end - o->pos + 1;
	int iv = (int)v;	/* clamp_t casts to int first */

	if (hi > INT_MAX)
		hi = INT_MAX;
	if (iv < 0)
		iv = 0;
	return iv > hi ? (int)hi : iv;
}

static const char small_digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
static const char large_digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* runtime/vsprintf.c number(): @size is the width, -1 when unspecified */
static void put_number(struct out *o, uint64_t num, int base, int size,
		       int precision, unsigned int type)
{
	const char *digits = (type & FMT_LARGE) ? large_digits : small_digits;
	char tmp[66], c, sign = 0;
	int i = 0;

	if (type & FMT_LEFT)
		type &= ~(unsigned int)FMT_ZEROPAD;
	c = (type & FMT_ZEROPAD) ? '0' : ' ';
	if (type & FMT_SIGN) {
		if ((int64_t)num < 0) {
			sign = '-';
			num = 0 - num;
			size--;
		} else if (type & FMT_PLUS) {
			sign = '+';
			size--;
		} else if (type & FMT_SPACE) {
			sign = ' ';
			size--;
		}
	}
	if (type & FMT_SPECIAL) {
		if (base == 16)
			size -= 2;
		else if (base == 8)
			size--;
	}
	if (num == 0)
		tmp[i++] = '0';
	else
		while (num != 0) {
			tmp[i++] = digits[num % (unsigned int)base];
			num /= (unsigned int)base;
		}
	if (i > precision)
		precision = i;
	size -= precision;
	if (!(type & (FMT_ZEROPAD | FMT_LEFT)))
		while (size-- > 0)
			put(o, ' ');
	if (sign)
		put(o, sign);
	if (type & FMT_SPECIAL) {
		if (base == 8) {
			put(o, '0');
		} else if (base == 16) {
			put(o, '0');
			put(o, digits[33]);	/* 'x' or 'X' */
		}
	}
	if (!(type & FMT_LEFT))
		while (size-- > 0)
			put(o, c);
	while (i < precision--)
		put(o, '0');
	while (i-- > 0)
		put(o, tmp[i]);
	while (size-- > 0)
		put(o, ' ');
}

static int char_escape(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '\v': return 'v';
	case '\'': return '\'';
	case '\\': return '\\';
	default: return 0;
	}
}

/* _stp_vsprint_char_size(c, 0, flags) */
static int char_size(unsigned char c, unsigned int flags)
{
	if ((flags & FMT_SPECIAL) &&
	    (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\'))
		return char_escape(c) ? 2 : 4;
	return 1;
}

static void put_escaped(struct out *o, unsigned char c, int size)
{
	int e;

	if (size == 1) {
		put(o, (char)c);
		return;
	}
	put(o, '\\');
	e = char_escape(c);
	if (e) {
		put(o, (char)e);
	} else {
		put(o, (char)('0' + ((c >> 6) & 3)));
		put(o, (char)('0' + ((c >> 3) & 7)));
		put(o, (char)('0' + (c & 7)));
	}
}

/* _stp_vsprint_char() */
static void put_char(struct out *o, unsigned char c, int width,
		     unsigned int flags)
{
	int size = char_size(c, flags);

	if (!(flags & FMT_LEFT))
		while (width-- > size)
			put(o, ' ');
	put_escaped(o, c, size);
	while (width-- > size)
		put(o, ' ');
}

/* _stp_vsprint_memory() for %s, %m and %M */
static int put_memory(struct out *o, const char *str, uint64_t addr,
		      int width, int precision, char format,
		      unsigned int flags, const struct fmt_opts *opts)
{
	unsigned char mem[FMT_MEMDUMP_MAX];
	long long room;
	int i, len, n = 0, r;

	if (format == 's') {
		size_t lim = precision < 0 ? FMT_PRINT_CAP :
			     (size_t)precision > FMT_PRINT_CAP ? FMT_PRINT_CAP :
			     (size_t)precision;

		if (!str)
			str = "<NULL>";
		len = (int)strnlen(str, lim);
	} else {
		len = precision > 0 ? precision : 1;
		if (len > FMT_MEMDUMP_MAX)	/* checked before the call */
			len = FMT_MEMDUMP_MAX;
	}

	if (!(flags & FMT_LEFT)) {
		int actlen = format == 'M' ? len * 2 : len;

		while (actlen < width-- && o->pos <= o->end)
			put(o, ' ');
	}

	if (format != 's') {
		/* read only the bytes stap would get to before the end */
		room = o->end - o->pos + 1;
		if (room < 0)
			room = 0;
		n = format == 'M' ? (int)(room / 2 < len ? room / 2 : len) :
				    (int)(room < len ? room : len);
		if (n > 0) {
			if (!opts || !opts->read)
				return -EFAULT;
			r = opts->read(opts->read_ctx, addr, mem, (size_t)n,
				       (flags & FMT_SPECIAL) != 0);
			if (r < 0)
				return r;
		}
	}

	if (format == 'M') {
		for (i = 0; i < n && o->pos < o->end; i++) {
			put(o, small_digits[mem[i] >> 4]);
			put(o, small_digits[mem[i] & 0xf]);
		}
		len *= 2;
	} else if (format == 'm') {
		for (i = 0; i < n && o->pos <= o->end; i++)
			put(o, (char)mem[i]);
	} else {
		for (i = 0; i < len && o->pos <= o->end; i++)
			put(o, str[i]);
	}

	while (len < width-- && o->pos <= o->end)
		put(o, ' ');
	if ((flags & FMT_ZEROPAD) && o->pos <= o->end)
		put(o, '\0');
	return 0;
}

static int binary_prec(int precision)
{
	return (precision == 1 || precision == 2 || precision == 4 ||
		precision == 8) ? precision : -1;
}

/* _stp_vsprint_binary(): the value's bytes in host order */
static void put_binary(struct out *o, int64_t num, int width, int precision,
		       unsigned int flags)
{
	unsigned char b[8];
	int i;

	precision = binary_prec(precision);
	if (width == -1) {
		if (precision == -1)
			width = precision = 8;
		else
			width = precision;
	} else if (precision == -1) {
		precision = binary_prec(width);
		if (precision == -1)
			precision = 8;
	}

	if (!(flags & FMT_LEFT))
		while (precision < width-- && o->pos <= o->end)
			put(o, '\0');

	if (o->pos + precision - 1 <= o->end) {
		switch (precision) {
		case 1: { int8_t v = (int8_t)num; memcpy(b, &v, 1); break; }
		case 2: { int16_t v = (int16_t)num; memcpy(b, &v, 2); break; }
		case 4: { int32_t v = (int32_t)num; memcpy(b, &v, 4); break; }
		default: memcpy(b, &num, 8); break;
		}
		for (i = 0; i < precision; i++)
			put(o, (char)b[i]);
	}

	while (precision >= 0 && width >= 0 && precision < width-- &&
	       o->pos <= o->end)
		put(o, '\0');
}

/* The value of a '*' slot or a %m size: a long argument. */
static int64_t arg_long(const struct fmt_arg *args, int i)
{
	return args[i].l;
}

/* Every argument present and of the expected type; %m sizes in range. */
static int check_args(const struct fmt_spec *specs, int nspecs,
		      const struct fmt_arg *args, int nargs,
		      const struct fmt_opts *opts)
{
	enum fmt_type slot[3];
	int i, j, n, a = 0;

	for (i = 0; i < nspecs; i++) {
		const struct fmt_spec *s = &specs[i];
		int first = a;

		n = spec_slots(s, slot);
		for (j = 0; j < n; j++, a++)
			if (a >= nargs || args[a].type != slot[j])
				return -EINVAL;
		if (s->conv == FMT_MEMORY || s->conv == FMT_MEMORY_HEX) {
			long long size = 1;

			if (s->prec == FMT_DYNAMIC)
				size = arg_long(args, first + (s->width == FMT_DYNAMIC));
			else if (s->prec > 0)
				size = s->prec;
			if (size > FMT_MEMDUMP_MAX) {
				if (opts && opts->err && opts->errlen)
					snprintf(opts->err, opts->errlen,
						 FMT_ERR_MEMDUMP, size);
				return -E2BIG;
			}
		}
	}
	return a == nargs ? 0 : -EINVAL;
}

int fmt_run(struct strbuf *out, const struct fmt_spec *specs, int nspecs,
	    const struct fmt_arg *args, int nargs, const struct fmt_opts *opts)
{
	size_t cap = opts && opts->cap ? opts->cap : FMT_PRINT_CAP;
	size_t start = out->len;
	struct out o = { .sb = out, .pos = 0 };
	int i, a = 0, r;

	r = check_args(specs, nspecs, args, nargs, opts);
	if (r)
		return r;
	if (cap > INT_MAX)
		cap = INT_MAX;
	o.end = (long long)cap - 1;
	fmt_sb_grow_inline(out, cap < 256 ? cap : 256);

	for (i = 0; i < nspecs; i++) {
		const struct fmt_spec *s = &specs[i];
		int width = -1, prec = -1;
		size_t k;

		if (s->conv == FMT_LITERAL) {
			for (k = 0; k < s->litlen && o.pos <= o.end; k++)
				put(&o, s->lit[k]);
			continue;
		}
		if (s->width == FMT_DYNAMIC)
			width = clamp_room(&o, arg_long(args, a++));
		else if (s->width != FMT_UNSPEC)
			width = clamp_room(&o, s->width);
		if (s->prec == FMT_DYNAMIC)
			prec = clamp_room(&o, arg_long(args, a++));
		else if (s->prec != FMT_UNSPEC)
			prec = clamp_room(&o, s->prec);

		switch (s->conv) {
		case FMT_NUMBER:
		case FMT_POINTER:
			put_number(&o, (uint64_t)args[a++].l, s->base, width,
				   prec, s->flags);
			break;
		case FMT_CHAR:
			put_char(&o, (unsigned char)args[a++].l, width, s->flags);
			break;
		case FMT_STR:
			r = put_memory(&o, args[a++].s, 0, width, prec, 's',
				       s->flags, opts);
			break;
		case FMT_MEMORY:
		case FMT_MEMORY_HEX:
			r = put_memory(&o, NULL, (uint64_t)args[a++].l, width,
				       prec, s->conv == FMT_MEMORY ? 'm' : 'M',
				       s->flags, opts);
			break;
		case FMT_BINARY:
			put_binary(&o, args[a++].l, width, prec, s->flags);
			break;
		case FMT_LITERAL:
			break;
		}
		if (r < 0)
			return r;
	}
	/* sprintf: "if (str <= end) *str = 0; else *end = 0;" */
	if (opts && opts->sprint && o.pos > o.end)
		fmt_sb_truncate(out, start + cap - 1);
	return (int)(out->len - start);
}

#define FMT_STACK_SPECS 32

int fmt_format(struct strbuf *out, const char *fmt, const struct fmt_arg *args,
	       int nargs, const struct fmt_opts *opts)
{
	struct fmt_spec stack[FMT_STACK_SPECS], *specs = stack;
	const char *p = fmt;
	int n = 0, r;

	while ((r = fmt_next(&p, &stack[n], NULL, 0)) > 0)
		if (++n == FMT_STACK_SPECS)
			break;
	if (r < 0)
		return r;
	if (n == FMT_STACK_SPECS && *p) {
		n = fmt_compile(fmt, &specs, NULL, 0);
		if (n < 0)
			return n;
	}
	r = fmt_run(out, specs, n, args, nargs, opts);
	if (specs != stack)
		free(specs);
	return r;
}

int fmt_printf(struct strbuf *out, const char *fmt, const struct fmt_arg *args,
	       int nargs)
{
	return fmt_format(out, fmt, args, nargs, NULL);
}

int fmt_sprintf(struct strbuf *out, size_t maxstrlen, const char *fmt,
		const struct fmt_arg *args, int nargs)
{
	struct fmt_opts o = { .cap = maxstrlen, .sprint = true };

	return fmt_format(out, fmt, args, nargs, &o);
}

void fmt_quote(struct strbuf *sb, const char *s)
{
	struct out o = { .sb = sb, .pos = 0, .end = LLONG_MAX - 8 };

	fmt_sb_addc(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"') {
			fmt_sb_addstr(sb, "\\\"");
			continue;
		}
		put_escaped(&o, c, char_size(c, FMT_SPECIAL));
	}
	fmt_sb_addc(sb, '"');
}
