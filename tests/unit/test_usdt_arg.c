// SPDX-License-Identifier: GPL-2.0
/* USDT argument specs to uprobe fetch arguments, and the refusals. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/usdt_arg.h"
#include "tests/unit/unit.h"

#define PC	0x1000

static int fake_sym(void *priv, const char *name, uint64_t *vaddr)
{
	if (!strcmp(name, "counter")) {
		*vaddr = 0x4010;
		return 0;
	}
	if (!strcmp(name, "low")) {
		*vaddr = 0x800;
		return 0;
	}
	return strcmp(name, "dup") ? -ENOENT : -ENOTUNIQ;
}

/* "LOC:TYPE" for @spec, or "!" and the reason */
static char *xlate(const char *spec, bool absolute)
{
	struct usdt_arg_ctx ctx = { PC, absolute, fake_sym, NULL };
	struct fetcharg a = { .name = NULL };
	char err[256], *s;

	if (usdt_arg_parse(spec, &ctx, &a, err, sizeof(err))) {
		s = malloc(strlen(err) + 2);
		sprintf(s, "!%s", err);
		return s;
	}
	s = malloc(strlen(a.loc) + strlen(a.type) + 2);
	sprintf(s, "%s:%s", a.loc, a.type);
	fetcharg_release(&a);
	return s;
}

static void check(const char *spec, bool absolute, const char *want)
{
	char *got = xlate(spec, absolute);

	if (strcmp(got, want))
		printf("#   spec '%s'\n", spec);
	CHECK_STR(got, want);
	free(got);
}

/* the refusal for @spec contains @why */
static void refused(const char *spec, const char *why)
{
	char *got = xlate(spec, false);

	if (got[0] != '!' || !strstr(got, why))
		printf("#   spec '%s': got '%s', expected a refusal with '%s'\n",
		       spec, got, why);
	CHECK(got[0] == '!' && strstr(got, why));
	free(got);
}

UNIT_TEST(registers)
{
	check("-4@%ebx", false, "%bx:s32");
	check("8@%rax", false, "%ax:u64");
	check("4@%eax", false, "%ax:u32");
	check("-8@%rsp", false, "%sp:s64");
	check("2@%r9w", false, "%r9:u16");
	check("-4@%r10d", false, "%r10:s32");
	check("1@%r15b", false, "%r15:u8");
	check("8@%r8", false, "%r8:u64");
	check("-1@%dil", false, "%di:s8");
	check("1@%sil", false, "%si:u8");
	check("1@%al", false, "%ax:u8");
	check("2@%bp", false, "%bp:u16");
	check("1@%ah", false, "%ax:b8@8/64");
	check("1@%dh", false, "%dx:b8@8/64");
	/* old specs without a size: the register's width, signed */
	check("%ecx", false, "%cx:s32");
	check("%rdx", false, "%dx:s64");
}

UNIT_TEST(memory)
{
	check("8@-24(%rbp)", false, "-24(%bp):u64");
	check("-4@16(%rsp)", false, "+16(%sp):s32");
	check("8@(%rax)", false, "+0(%ax):u64");
	check("2@0x10(%r12)", false, "+16(%r12):u16");
	check("4@010(%rdi)", false, "+8(%di):u32");	/* gas octal */
	/* symbols: relative to the call site, whatever the load address */
	check("8@counter(%rip)", false, "+0x3010(%ip):u64");
	check("-8@counter+8(%rip)", false, "+0x3018(%ip):s64");
	check("-8@counter-16(%rip)", false, "+0x3000(%ip):s64");
	check("4@low(%rip)", false, "-0x800(%ip):u32");
	check("8@counter", false, "+0x3010(%ip):u64");
	check("8@0x4010", false, "+0x3010(%ip):u64");
	/* a symbol as another register's displacement: fixed addresses only */
	check("8@counter(%rbx)", true, "+16400(%bx):u64");
}

UNIT_TEST(immediates)
{
	check("-4@$5", false, "\\5:s32");
	check("-4@$-5", false, "\\0xfffffffb:s32");
	check("-8@$-1", false, "\\0xffffffffffffffff:s64");
	check("-2@$-1", false, "\\0xffff:s16");
	check("8@$0x10", false, "\\16:u64");
	check("-1@$-128", false, "\\0x80:s8");
	check("8@$counter", true, "\\16400:u64");
}

UNIT_TEST(refusals)
{
	refused("8@(%rax,%rdx,8)", "indexed memory operand");
	refused("8@8(,%rax,4)", "indexed memory operand");
	refused("8@%xmm1", "register '%xmm1' cannot be fetched");
	refused("8@%st", "not a general-purpose register");
	refused("8@%fs", "not a general-purpose register");
	refused("16@%rax", "unsupported argument size 16");
	refused("3@%rax", "unsupported argument size 3");
	refused("-4@%ah", "signed value in high-byte register");
	refused("8@nosuch(%rip)", "symbol 'nosuch' not found");
	refused("8@dup(%rip)", "symbol 'dup' is ambiguous");
	refused("8@8(%rip)", "%rip-relative operand without a symbol");
	refused("8@counter(%rbx)", "only known at run time");
	refused("8@$counter", "only known at run time");
	refused("4@(%eax)", "32-bit address register");
	refused("8@", "empty argument");
	refused("x@%rax", "bad size");
	refused("8@%rax)", "unexpected ')'");
	refused("8@(%rax", "bad memory operand");
	refused("8@-24(%rbp)junk", "unexpected 'junk'");
	refused("8@$", "bad immediate");
	refused("8@$5x", "bad immediate");
	refused("8@99999999999999999999(%rax)", "number too large");
	refused("8@counter+(%rip)", "expected a number");
	refused("8@counter+-1(%rip)", "expected a number after");
	refused("-@%rax", "bad size");
	refused("-99999999999999999999999@%rax", "unsupported argument size");
}

UNIT_TEST(argument_lists)
{
	struct usdt_arg_ctx ctx = { PC, false, fake_sym, NULL };
	struct fetcharg *args;
	char err[256], *f;
	size_t n;

	CHECK_INT(usdt_args_parse("  -4@%ebx\t8@(%rax,%rdx,8) 8@-24(%rbp)  ",
				  &ctx, &args, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 3);
	if (n != 3)
		return;
	CHECK_STR(args[0].name, "arg1");
	f = fetcharg_format(&args[0]);
	CHECK_STR(f, "arg1=%bx:s32");
	free(f);
	CHECK(args[1].loc == NULL && fetcharg_format(&args[1]) == NULL);
	CHECK_STR(args[1].refused, "8@(%rax,%rdx,8): indexed memory operand "
		  "(base,index,scale): uprobes cannot add registers");
	f = fetcharg_format(&args[2]);
	CHECK_STR(f, "arg3=-24(%bp):u64");
	CHECK_INT(args[2].size, 8);
	CHECK(!args[2].is_signed);
	free(f);
	fetchargs_free(args, n);

	CHECK_INT(usdt_args_parse("", &ctx, &args, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 0);
	fetchargs_free(args, n);
	CHECK_INT(usdt_args_parse("1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al "
				  "1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al "
				  "1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al "
				  "1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al "
				  "1@%al 1@%al 1@%al 1@%al 1@%al", &ctx, &args,
				  &n, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "more than 32 arguments");
}

UNIT_MAIN()
