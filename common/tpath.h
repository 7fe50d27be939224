/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TPATH_H
#define TAPKIT_TPATH_H

/*
 * A target-variable access path and what it compiles to: the one shape
 * the DWARF (user code, common/dwtype.c) and BTF (kernel, common/kbtf.c)
 * resolvers take and give, so the providers of the language hand either
 * the same thing.
 *
 *	$p->next->val[3]      root "p", steps ->next ->val [3]
 *	&$s->field            addressof
 *	$p$  $p$$             pretty 1 / 2: the value printed as text
 *	@cast($x, "task_struct")->pid   root "x", then the cast, then ->pid
 *
 * Every path compiles into fetch arguments the kernel evaluates when the
 * probe fires (`+8(+16(%di)):u32`, `+0(%si):string`); nothing is read
 * later from the traced process.  An index must be a constant for that
 * reason.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/fetcharg.h"

enum tstep_kind {
	TSTEP_MEMBER,		/* ->name (stap uses -> for . too) */
	TSTEP_INDEX,		/* [index] */
};

struct tstep {
	enum tstep_kind kind;
	const char *name;	/* MEMBER */
	int64_t index;		/* INDEX */
};

struct tpath {
	const struct tstep *steps;
	size_t nsteps;
	bool addressof;		/* &$x...: the address, not the value */
	int pretty;		/* 0; 1: $x$ (one level); 2: $x$$ (nested) */
	/* @cast's path only: bytes added to the pointer before the steps
	 * (@cast(p - 8, "T")).  There a first [i] step moves by i whole
	 * objects, as C indexes a pointer: &@cast(0, "T")[1] is T's size. */
	int64_t off;
};

/*
 * What a path compiles to.  A scalar or a string is one fetch argument;
 * a pretty-printed aggregate is several (one per printed member) and a
 * template that puts them together:
 *
 *	"{.a=%1, .b={.c=%2}, .s=%3}"	%N: args[N-1] formatted by its kind
 *
 * @add is added to the fetched number in user space: the kernel's fetch
 * syntax has no "address of", so &$s->f fetches the base address and adds
 * f's offset.
 */
enum tval_kind {
	TVAL_LONG,		/* an integer: the arg's type says its size */
	TVAL_STRING,		/* args[0] is :string or :ustring */
	TVAL_PRETTY,		/* text from @fmt over @args */
};

struct tval {
	enum tval_kind kind;
	struct fetcharg *args;	/* owned; loc never NULL */
	size_t nargs;
	int64_t add;		/* TVAL_LONG: added after the fetch */
	char *fmt;		/* TVAL_PRETTY: the template, owned */
	char *ctype;		/* the C type of the result, "struct foo *";
				 * owned */
};

/* Frees what @v owns; a zeroed tval is fine. */
void tval_release(struct tval *v);

/*
 * An object's place as the fetch syntax can say it, for resolvers that
 * walk a path: its value is fetched by @loc when @mem is false (a
 * register, an immediate), or it lives in memory at @off(@loc) when
 * @mem is true (loc computes the base address: "%sp", "+8(%di)").
 */
struct tplace {
	char *loc;		/* owned */
	int64_t off;
	bool mem;
};

/* "%di" -> register, "-24(%bp)" -> memory at off -24 from %bp. */
void tplace_parse(const char *loc, struct tplace *out);
/* The fetch expression of the value a memory place holds: "-24(%bp)",
 * "+8(+16(%di))"; the register itself otherwise.  The caller frees. */
char *tplace_value(const struct tplace *p);
/* The place a pointer value @p points to, plus @off. */
void tplace_deref(struct tplace *p, int64_t off);
void tplace_release(struct tplace *p);

#endif
