/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_DWTYPE_H
#define TAPKIT_DWTYPE_H

/*
 * Target variables of user code by name, through DWARF's whole type graph:
 * a parameter, a local in scope at the probe's address, or a global, then
 * a member chain, array elements, a cast, or the address of any of them,
 * compiled into uprobe fetch arguments (common/tpath.h).  The types
 * (typedefs, const/volatile, structs, unions, enums, bitfields, arrays,
 * pointers) are followed here; where a variable lives comes from
 * common/dwloc.c.
 *
 * Every address is a link-time address of the object (dwinfo.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What the resolvers give (struct tval, tpath.h):
 *
 *  - TVAL_LONG: args[0] an integer ("-24(%bp):s32", "+8(%di):x64" for a
 *    pointer, "+16(%di):b3@4/32" for a bitfield: the kernel extracts it
 *    unsigned; is_signed says the decoder should sign-extend it from its
 *    width), plus @add (&$x: the base address fetched, the offset added).
 *  - TVAL_STRING: args[0] ":string": "+0(%si):string" (a char pointer's
 *    string), "+16(%di):string" (a char array in place), "@+0x4050:string"
 *    (a global char array).
 *  - TVAL_PRETTY: $x$ / $x$$.  @fmt is literal text with %N for args[N-1]
 *    (N from 1; "%%" a literal '%', which DWARF names never produce).
 *    Each arg is formatted by what it is: type "string" as a quoted,
 *    C-escaped string ("abc"); is_ptr in hex (0x601010); a bitfield type
 *    as TVAL_LONG says; else decimal, signed as is_signed says.  Values
 *    that cannot be fetched (floating point) print as "?" in the text.
 *
 * A global is read at a file offset of the object, "@+0x4040", the
 * uprobe syntax for memory of the probed object wherever it is mapped.
 */
#include "common/dwinfo.h"
#include "common/tpath.h"

/* dwtype_vars() flags */
#define DWTYPE_PARAMS	(1 << 0)
#define DWTYPE_LOCALS	(1 << 1)

/* A variable visible at an address, for -L and $$vars/$$parms/$$locals. */
struct dwvar {
	char *name;
	char *ctype;		/* "struct node *", "int", "char [16]" */
	bool param;
	char *unavailable;	/* NULL, or why it cannot be read there
				 * ("optimized out at 0x401136") */
};

/**
 * dwtype_vars() - the parameters and/or locals in scope at @pc
 * @out: receives @n of them, parameters first in declaration order, then
 *       locals from the innermost scope out (an inner one hides an outer
 *       one of the same name); free with dwvars_free()
 *
 * Inside an inline instance they are the instance's own (with those the
 * compiler dropped, as "optimized out at ...").  Statics of the function
 * are listed as locals.
 * 0 (possibly none), -ENOENT when no function covers @pc, or -errno with
 * the reason in @err.
 */
int dwtype_vars(struct dwinfo *dw, uint64_t pc, unsigned int flags,
		struct dwvar **out, size_t *n, char *err, size_t errlen);
void dwvars_free(struct dwvar *v, size_t n);

/**
 * dwtype_resolve() - $@name@path at @pc
 * @name: a parameter or local in scope at @pc (the innermost wins), else
 *        a global of the program (its compile unit first)
 *
 * 0 with @out filled (release with tval_release()); -ENOENT when nothing
 * of that name is visible (no message); -EINVAL with the reason in @err
 * ("'n' is optimized out at 0x401136", "no member 'x' in 'struct node'",
 * "'k' is 'int', not an array or pointer: it cannot be indexed", "'buf'
 * is an array ('char [8]'): ...", a floating-point value, an aggregate
 * without $, a location too complex for uprobes, & of a register).
 */
int dwtype_resolve(struct dwinfo *dw, uint64_t pc, const char *name,
		   const struct tpath *path, struct tval *out, char *err,
		   size_t errlen);

/**
 * dwtype_global() - @var("name") or @var("name@file.c"), then @path
 * @spec: FILE is a base name or a path suffix of the compile unit's name
 *        or of the variable's declaring file
 * Return: as dwtype_resolve(), but -ENOENT comes with a message ("no
 * global 'x' in 'file.c'").  &@var(...) needs dwtype_global_at().
 */
int dwtype_global(struct dwinfo *dw, const char *spec, const struct tpath *path,
		  struct tval *out, char *err, size_t errlen);

/**
 * dwtype_global_at() - dwtype_global() in a probe at link-time @pc (0:
 * unknown): the probe's own compile unit is searched first (its statics
 * hide other units'), and &@var(...) can be taken (the address is %ip, the
 * probed address, plus a constant).  Not for return probes, whose %ip is
 * the caller's.
 */
int dwtype_global_at(struct dwinfo *dw, uint64_t pc, const char *spec,
		     const struct tpath *path, struct tval *out, char *err,
		     size_t errlen);

/**
 * dwtype_return() - $return of the function whose entry is @entry, in a
 * return probe (the value in the return register, typed by its return
 * type), then @path (e.g. ->field of a returned pointer).
 * Return: as dwtype_resolve(); -ENOENT for a void function.
 */
int dwtype_return(struct dwinfo *dw, uint64_t entry, const struct tpath *path,
		  struct tval *out, char *err, size_t errlen);

/**
 * dwtype_cast() - @cast(ptr, "type")@path: @ptr (a place holding the
 * pointer value, tpath.h) taken as a pointer to @type ("struct foo",
 * "foo_t", "int") of any compile unit of @dw.
 * @type: "struct x" / "union x" / "enum x", or a bare name: a typedef or
 *        base type, else a struct, union or enum tag (stap's
 *        @cast(p, "task_struct"))
 * Return: as dwtype_resolve(); -ENOENT with a message when no type has
 * that name.
 */
int dwtype_cast(struct dwinfo *dw, const char *type, const struct tplace *ptr,
		const struct tpath *path, struct tval *out, char *err,
		size_t errlen);

#endif
