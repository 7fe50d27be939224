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
 *       locals from the innermost scope out; free with dwvars_free()
 *
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
 * of that name is visible (no message); -errno with the reason in @err:
 * optimized out at @pc, no such member, an index into a non-array, a
 * floating-point value, a location too complex for uprobes.
 */
int dwtype_resolve(struct dwinfo *dw, uint64_t pc, const char *name,
		   const struct tpath *path, struct tval *out, char *err,
		   size_t errlen);

/**
 * dwtype_global() - @var("name") or @var("name@file.c"), then @path
 * Return: as dwtype_resolve().
 */
int dwtype_global(struct dwinfo *dw, const char *spec, const struct tpath *path,
		  struct tval *out, char *err, size_t errlen);

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
 * Return: as dwtype_resolve(); -ENOENT when no type has that name.
 */
int dwtype_cast(struct dwinfo *dw, const char *type, const struct tplace *ptr,
		const struct tpath *path, struct tval *out, char *err,
		size_t errlen);

#endif
