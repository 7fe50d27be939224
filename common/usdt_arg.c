// SPDX-License-Identifier: GPL-2.0
/*
 * USDT argument specs to uprobe fetch arguments (x86-64).
 *
 * <sys/sdt.h> asks the compiler for each argument with an "nor" asm
 * constraint and writes the operand as the assembler would print it,
 * prefixed with its size (negative when signed):
 *
 *	-4@%ebx  8@-24(%rbp)  8@counter(%rip)  -4@$5  8@(%rax,%rdx,8)
 *
 * The uprobe tracer can fetch a register (%REG, by its pt_regs name), the
 * memory at a register plus a constant (+|-OFFS(%REG)) and an immediate
 * (\IMM), each read with a type that truncates to the spec's size (a
 * register is an unsigned long, and x86 is little-endian, so `%ax:u8` is
 * %al).  What it cannot do is add two registers, so indexed operands are
 * refused; vector and x87 registers are not in pt_regs.
 *
 * Symbols name link-time addresses.  A symbol's run-time address is the
 * call site's run-time address (%ip when the uprobe fires) plus the
 * link-time distance between them, so `counter(%rip)` and a bare `counter`
 * both become `+DELTA(%ip)` in any kind of object, fixed-address or not.
 * As the displacement of another register, or as an immediate, a symbol
 * is only usable in a fixed-address executable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/usdt_arg.h"

/* x86-64 register names and their pt_regs name, width (0: AH-style) */
static const struct reg {
	const char *as;
	const char *pt;
	int width;
} regs[] = {
	{ "rax", "ax", 8 }, { "eax", "ax", 4 }, { "ax", "ax", 2 },
	{ "al", "ax", 1 }, { "ah", "ax", 0 },
	{ "rbx", "bx", 8 }, { "ebx", "bx", 4 }, { "bx", "bx", 2 },
	{ "bl", "bx", 1 }, { "bh", "bx", 0 },
	{ "rcx", "cx", 8 }, { "ecx", "cx", 4 }, { "cx", "cx", 2 },
	{ "cl", "cx", 1 }, { "ch", "cx", 0 },
	{ "rdx", "dx", 8 }, { "edx", "dx", 4 }, { "dx", "dx", 2 },
	{ "dl", "dx", 1 }, { "dh", "dx", 0 },
	{ "rsi", "si", 8 }, { "esi", "si", 4 }, { "si", "si", 2 },
	{ "sil", "si", 1 },
	{ "rdi", "di", 8 }, { "edi", "di", 4 }, { "di", "di", 2 },
	{ "dil", "di", 1 },
	{ "rbp", "bp", 8 }, { "ebp", "bp", 4 }, { "bp", "bp", 2 },
	{ "bpl", "bp", 1 },
	{ "rsp", "sp", 8 }, { "esp", "sp", 4 }, { "sp", "sp", 2 },
	{ "spl", "sp", 1 },
	{ "rip", "ip", 8 }, { "eip", "ip", 4 },
};

/* %r8..%r15 and their d/w/b forms */
static const struct reg *find_reg(const char *name, size_t len,
				  struct reg *tmp, char *buf)
{
	unsigned int i, n = 0;
	char c = 0;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (strlen(regs[i].as) == len && !memcmp(regs[i].as, name, len))
			return &regs[i];
	if (len < 2 || len > 4 || name[0] != 'r')
		return NULL;
	for (i = 1; i < len && name[i] >= '0' && name[i] <= '9'; i++)
		n = n * 10 + (name[i] - '0');
	if (i == 1 || n < 8 || n > 15 || (i == 3 && name[1] != '1'))
		return NULL;
	if (i < len)
		c = name[i++];
	if (i != len)
		return NULL;
	tmp->width = !c ? 8 : c == 'd' ? 4 : c == 'w' ? 2 : c == 'b' ? 1 : -1;
	if (tmp->width < 0)
		return NULL;
	snprintf(buf, 4, "r%u", n);
	tmp->as = NULL;
	tmp->pt = buf;
	return tmp;
}

/*
 * number := ['-'] ('0x' hex | '0b' binary | '0' octal | decimal)
 * As gas reads it.  Advances @s; -EINVAL (with @err) if none or too big.
 */
static int parse_num(const char **s, int64_t *v, char *err, size_t errlen)
{
	const char *p = *s;
	uint64_t x = 0, lim;
	unsigned int base = 10, d, nd = 0;
	bool neg = false;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
		base = 2;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	for (;; p++, nd++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (d >= base)
			break;
		lim = (neg ? (uint64_t)INT64_MAX + 1 : UINT64_MAX);
		if (x > (lim - d) / base)
			return errmsg(err, errlen, -EINVAL, "number too large");
		x = x * base + d;
	}
	if (!nd)
		return errmsg(err, errlen, -EINVAL, "expected a number at '%.16s'",
			      *s);
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*s = p;
	return 0;
}

static bool sym_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == '.';
}

static bool sym_char(char c)
{
	return sym_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/* A symbol or number displacement: the parts of `sym+8`, `-24`, `sym`. */
struct disp {
	char sym[128];		/* "" when none */
	int64_t num;
};

/* disp := number | symbol [('+'|'-') number] | (nothing) */
static int parse_disp(const char **s, struct disp *d, char *err, size_t errlen)
{
	const char *p = *s;
	size_t n = 0;
	int ret;

	d->sym[0] = '\0';
	d->num = 0;
	if (sym_start(*p)) {
		while (sym_char(p[n]))
			n++;
		if (n >= sizeof(d->sym))
			return errmsg(err, errlen, -EINVAL, "symbol name too long");
		memcpy(d->sym, p, n);
		d->sym[n] = '\0';
		p += n;
		if (*p == '+' || *p == '-') {
			bool neg = *p++ == '-';

			if (*p == '-')
				return errmsg(err, errlen, -EINVAL,
					      "expected a number after '%s%c'",
					      d->sym, neg ? '-' : '+');
			ret = parse_num(&p, &d->num, err, errlen);
			if (ret)
				return ret;
			if (neg)
				d->num = (int64_t)(0 - (uint64_t)d->num);
		}
	} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
		ret = parse_num(&p, &d->num, err, errlen);
		if (ret)
			return ret;
	}
	*s = p;
	return 0;
}

/* The link-time address @d names (symbol + number). */
static int disp_addr(const struct disp *d, const struct usdt_arg_ctx *ctx,
		     uint64_t *addr, char *err, size_t errlen)
{
	uint64_t v = 0;
	int ret;

	if (d->sym[0]) {
		ret = ctx->sym_addr ? ctx->sym_addr(ctx->priv, d->sym, &v) :
				      -ENOENT;
		if (ret == -ENOTUNIQ)
			return errmsg(err, errlen, -EINVAL,
				      "symbol '%s' is ambiguous", d->sym);
		if (ret)
			return errmsg(err, errlen, -EINVAL,
				      "symbol '%s' not found", d->sym);
	}
	*addr = v + (uint64_t)d->num;
	return 0;
}

/* "+0x10(%ip)" for the memory at link-time address @addr. */
static char *ip_relative(uint64_t addr, uint64_t pc)
{
	int64_t delta = (int64_t)(addr - pc);

	if (delta < 0)
		return xasprintf("-0x%" PRIx64 "(%%ip)", (uint64_t)0 - (uint64_t)delta);
	return xasprintf("+0x%" PRIx64 "(%%ip)", (uint64_t)delta);
}

/* "%" reg: a register's name up to the next delimiter. */
static const struct reg *parse_reg(const char **s, struct reg *tmp, char *buf,
				   char *err, size_t errlen)
{
	const char *p = *s + 1, *end = p;
	const struct reg *r;

	while ((*end >= 'a' && *end <= 'z') || (*end >= '0' && *end <= '9'))
		end++;
	r = find_reg(p, end - p, tmp, buf);
	if (!r) {
		errmsg(err, errlen, 0, "register '%%%.*s' cannot be fetched "
		       "(not a general-purpose register)", (int)(end - p), p);
		return NULL;
	}
	*s = end;
	return r;
}

/* '(' [%base] [',' %index [',' scale]] ')', then nothing. */
static int parse_mem(const char *p, const struct disp *d,
		     const struct usdt_arg_ctx *ctx, struct fetcharg *arg,
		     char *err, size_t errlen)
{
	const struct reg *base = NULL;
	char buf[4];
	struct reg tmp;
	uint64_t addr;
	int ret;

	if (*p == '(') {
		p++;
		if (*p == '%') {
			base = parse_reg(&p, &tmp, buf, err, errlen);
			if (!base)
				return -EINVAL;
		}
		if (*p == ',')
			return errmsg(err, errlen, -EINVAL, "indexed memory operand "
				      "(base,index,scale): uprobes cannot add "
				      "registers");
		if (*p != ')' || !base)
			return errmsg(err, errlen, -EINVAL,
				      "bad memory operand");
		p++;
		if (base->width != 8)
			return errmsg(err, errlen, -EINVAL, "%d-bit address "
				      "register in memory operand",
				      8 * base->width);
	}
	if (*p)
		return errmsg(err, errlen, -EINVAL, "unexpected '%.16s'", p);

	if (!base || !strcmp(base->pt, "ip")) {
		/* link-time address: a symbol, or a bare number */
		if (base && !d->sym[0])
			return errmsg(err, errlen, -EINVAL, "%%rip-relative "
				      "operand without a symbol");
		ret = disp_addr(d, ctx, &addr, err, errlen);
		if (ret)
			return ret;
		arg->loc = ip_relative(addr, ctx->pc);
		return 0;
	}
	if (d->sym[0]) {
		if (!ctx->absolute)
			return errmsg(err, errlen, -EINVAL, "symbol '%s' as the "
				      "displacement of %%%s: its address is only "
				      "known at run time", d->sym, base->pt);
		ret = disp_addr(d, ctx, &addr, err, errlen);
		if (ret)
			return ret;
		arg->loc = xasprintf("%+" PRId64 "(%%%s)", (int64_t)addr,
				     base->pt);
		return 0;
	}
	arg->loc = xasprintf("%+" PRId64 "(%%%s)", d->num, base->pt);
	return 0;
}

/* '$' disp: an immediate value; negative ones as two's complement. */
static int parse_imm(const char *p, int size, const struct usdt_arg_ctx *ctx,
		     struct fetcharg *arg, char *err, size_t errlen)
{
	const char *start = p;
	struct disp d;
	uint64_t v;
	int ret;

	ret = parse_disp(&p, &d, err, errlen);
	if (ret)
		return ret;
	if (*p || p == start)
		return errmsg(err, errlen, -EINVAL, "bad immediate");
	if (d.sym[0] && !ctx->absolute)
		return errmsg(err, errlen, -EINVAL, "immediate address of "
			      "symbol '%s' is only known at run time", d.sym);
	ret = disp_addr(&d, ctx, &v, err, errlen);
	if (ret)
		return ret;
	if ((int64_t)v >= 0)
		arg->loc = xasprintf("\\%" PRIu64, v);
	else
		arg->loc = xasprintf("\\0x%" PRIx64, size == 8 ? v :
				     v & ((UINT64_C(1) << (8 * size)) - 1));
	return 0;
}

/* size := ['-'] ('1' | '2' | '4' | '8') '@'; 0 when absent */
static int parse_size(const char **s, int *size, bool *sign, char *err,
		      size_t errlen)
{
	const char *p = *s, *at = strchr(p, '@'), *d = p;
	int v = 0;

	*size = 0;
	*sign = false;
	if (!at)
		return 0;
	if (*d == '-')
		d++;
	if (d == at)
		return errmsg(err, errlen, -EINVAL, "bad size in '%s'", p);
	for (; d < at; d++) {
		if (*d < '0' || *d > '9')
			return errmsg(err, errlen, -EINVAL, "bad size in '%s'",
				      p);
		if (v < 100)		/* no overflow: big is bad anyway */
			v = v * 10 + (*d - '0');
	}
	if (v != 1 && v != 2 && v != 4 && v != 8)
		return errmsg(err, errlen, -EINVAL,
			      "unsupported argument size %.*s", (int)(at - p), p);
	*sign = *p == '-';
	*size = v;
	*s = at + 1;
	return 0;
}

/* spec := [size '@'] ('%' reg | '$' imm | disp ['(' ... ')']) */
int usdt_arg_parse(const char *spec, const struct usdt_arg_ctx *ctx,
		   struct fetcharg *arg, char *err, size_t errlen)
{
	struct fetcharg a = { 0 };
	const struct reg *r;
	const char *p = spec;
	struct reg tmp;
	struct disp d;
	char buf[4];
	int ret;

	ret = parse_size(&p, &a.size, &a.is_signed, err, errlen);
	if (ret)
		return ret;
	if (!*p)
		return errmsg(err, errlen, -EINVAL, "empty argument");
	if (*p == '%') {
		r = parse_reg(&p, &tmp, buf, err, errlen);
		if (!r)
			return -EINVAL;
		if (*p)
			return errmsg(err, errlen, -EINVAL, "unexpected '%.16s'", p);
		if (!a.size) {		/* old specs: a signed register-wide value */
			a.size = r->width ? r->width : 1;
			a.is_signed = r->width != 0;
		}
		if (!r->width && a.is_signed)
			return errmsg(err, errlen, -EINVAL, "a signed value in "
				      "high-byte register '%s'", spec);
		if (!r->width && a.size != 1)
			return errmsg(err, errlen, -EINVAL, "a %d-byte value in "
				      "high-byte register '%s'", a.size, spec);
		a.loc = xasprintf("%%%s", r->pt);
		/* AH..DH: bits 8-15 of the register, as a bitfield */
		snprintf(a.type, sizeof(a.type), "%s", !r->width ? "b8@8/64" :
			 fetcharg_int_type(a.size, a.is_signed));
		goto out;
	}
	if (!a.size) {
		a.size = 8;
		a.is_signed = true;
	}
	if (*p == '$')
		ret = parse_imm(p + 1, a.size, ctx, &a, err, errlen);
	else
		ret = parse_disp(&p, &d, err, errlen) ?:
		      parse_mem(p, &d, ctx, &a, err, errlen);
	if (ret)
		return ret;
	snprintf(a.type, sizeof(a.type), "%s",
		 fetcharg_int_type(a.size, a.is_signed));
out:
	arg->loc = a.loc;
	arg->size = a.size;
	arg->is_signed = a.is_signed;
	memcpy(arg->type, a.type, sizeof(arg->type));
	return 0;
}

int usdt_args_parse(const char *args, const struct usdt_arg_ctx *ctx,
		    struct fetcharg **out, size_t *n, char *err, size_t errlen)
{
	struct fetcharg *v = NULL;
	const char *p = args;
	char why[256], *spec;
	size_t k = 0, len;

	*out = NULL;
	*n = 0;
	for (;;) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		if (k == USDT_MAX_ARGS) {
			fetchargs_free(v, k);
			return errmsg(err, errlen, -EINVAL,
				      "more than %d arguments", USDT_MAX_ARGS);
		}
		len = strcspn(p, " \t");
		spec = xasprintf("%.*s", (int)len, p);
		v = xrealloc(v, (k + 1) * sizeof(*v));
		memset(&v[k], 0, sizeof(v[k]));
		v[k].name = xasprintf("arg%zu", k + 1);
		if (usdt_arg_parse(spec, ctx, &v[k], why, sizeof(why)))
			fetcharg_refuse(&v[k], "%s: %s", spec, why);
		free(spec);
		k++;
		p += len;
	}
	*out = v;
	*n = k;
	return 0;
}
