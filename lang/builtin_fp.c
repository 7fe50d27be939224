// SPDX-License-Identifier: GPL-2.0
/*
 * stap's floating-point tapset: a double is carried in a long as its IEEE
 * 754 bits (what long_to_fp(), string_to_fp() and fp32_to_fp64() return),
 * and the fp_*() functions compute on those bits.  stap does this with a
 * software float library in the kernel; tapkit runs in user space and uses
 * the machine's doubles, which give the same IEEE results.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/backend.h"
#include "lang/builtin.h"

static double fp(int64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static int64_t bits(double d)
{
	int64_t b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

int bfp_to_string(struct vm *vm, struct lang_val *a, int n,
		  struct lang_val *ret, char *buf)
{
	if (a[1].l < 0 || a[1].l > 64) {
		vm_raise(vm, "fp_to_string: precision %lld is not 0 to 64",
			 (long long)a[1].l);
		return -1;
	}
	snprintf(buf, vm->maxstr, "%.*f", (int)a[1].l, fp(a[0].l));
	ret->s = buf;
	return 0;
}

/* A decimal number, as stap reads it: an optional sign, digits with an
 * optional point and fraction, an optional exponent; nothing else. */
int bfp_string_to(struct vm *vm, struct lang_val *a, int n,
		  struct lang_val *ret, char *buf)
{
	const char *s = a[0].s, *p = s;
	char *end;
	double d;

	p += *p == '+' || *p == '-';
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) ||
	    strpbrk(p, "xXnN")) {
		vm_raise(vm, "string_to_fp: invalid format: \"%s\"", s);
		return -1;
	}
	errno = 0;
	d = strtod(s, &end);
	if (*end || end == s) {
		vm_raise(vm, "string_to_fp: invalid format: \"%s\"", s);
		return -1;
	}
	ret->l = bits(d);
	return 0;
}

int bfp_long_to(struct vm *vm, struct lang_val *a, int n,
		struct lang_val *ret, char *buf)
{
	ret->l = bits((double)a[0].l);
	return 0;
}

/*
 * fp_to_long(fp, mode, exact): mode as stap's (softfloat's) rounding modes:
 * 0 to nearest, ties to even; 1 toward zero; 2 down; 3 up; 4 to nearest,
 * ties away from zero; 6 to odd.  Values above the range give the largest
 * long, values below it the smallest, and NaN 0, as stap's do.  exact asks softfloat to flag
 * an inexact result, which stap never reports: it changes nothing.
 */
int bfp_to_long(struct vm *vm, struct lang_val *a, int n,
		struct lang_val *ret, char *buf)
{
	double d = fp(a[0].l), r;

	switch (a[1].l) {
	case 0: r = nearbyint(d); break;	/* tapkit never changes the
						 * mode: to nearest, ties to even */
	case 1: r = trunc(d); break;
	case 2: r = floor(d); break;
	case 3: r = ceil(d); break;
	case 4: r = round(d); break;
	case 6:
		r = trunc(d);
		if (r != d && fmod(r, 2.0) == 0)
			r += d > 0 ? 1 : -1;
		break;
	default:
		vm_raise(vm, "fp_to_long: rounding mode %lld is not 0 to 4 or 6",
			 (long long)a[1].l);
		return -1;
	}
	if (isnan(r))
		ret->l = 0;
	else if (r >= 9223372036854775808.0)
		ret->l = INT64_MAX;
	else if (r < -9223372036854775808.0)
		ret->l = INT64_MIN;
	else
		ret->l = (int64_t)r;
	return 0;
}

#define FP2(name, expr)							\
int name(struct vm *vm, struct lang_val *a, int n,			\
	 struct lang_val *ret, char *buf)				\
{									\
	double x = fp(a[0].l), y = fp(a[1].l);				\
									\
	ret->l = bits(expr);						\
	return 0;							\
}
FP2(bfp_add, x + y)
FP2(bfp_sub, x - y)
FP2(bfp_mul, x * y)
FP2(bfp_div, x / y)
FP2(bfp_rem, remainder(x, y))
#undef FP2

#define FPCMP(name, expr)						\
int name(struct vm *vm, struct lang_val *a, int n,			\
	 struct lang_val *ret, char *buf)				\
{									\
	double x = fp(a[0].l), y = fp(a[1].l);				\
									\
	ret->l = (expr);						\
	return 0;							\
}
FPCMP(bfp_eq, x == y)
FPCMP(bfp_le, x <= y)
FPCMP(bfp_lt, x < y)
#undef FPCMP

int bfp_sqrt(struct vm *vm, struct lang_val *a, int n,
	     struct lang_val *ret, char *buf)
{
	ret->l = bits(sqrt(fp(a[0].l)));
	return 0;
}

int bfp_from32(struct vm *vm, struct lang_val *a, int n,
	       struct lang_val *ret, char *buf)
{
	uint32_t b = (uint32_t)a[0].l;
	float f;

	memcpy(&f, &b, sizeof(f));
	ret->l = bits((double)f);
	return 0;
}
