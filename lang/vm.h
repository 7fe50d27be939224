/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_VM_H
#define TAPKIT_LANG_VM_H

/*
 * The bytecode interpreter (design notes at the top of vm.c).
 *
 *	vm = vm_new(prog, &limits);
 *	vm_fire(vm, probe, ev)		per event: runs one handler
 *	vm_output(vm)			what print() & co wrote, to flush
 *	vm_free(vm);
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct prog;
struct strbuf;

/* stap's -D limits; 0 takes the default noted. */
struct vm_limits {
	long maxaction;		/* MAXACTION: statements per handler (1000) */
	int maxnesting;		/* MAXNESTING: function call depth (10) */
	size_t maxstrlen;	/* MAXSTRINGLEN, with the NUL (512) */
	size_t maxmapentries;	/* MAXMAPENTRIES (2048) */
	size_t maxmemory;	/* STP_MAXMEMORY in bytes: all arrays (256 MiB) */
};

#define VM_MAXACTION	1000
#define VM_MAXNESTING	10
#define VM_MAXMEMORY	(256u << 20)

/* stap's run-time error texts (translate.cxx) */
#define VM_ERR_DIV0	 "division by 0"
#define VM_ERR_ACTION	 "MAXACTION exceeded"
#define VM_ERR_NESTING	 "MAXNESTING exceeded"

struct vm;
struct strbuf;

/**
 * vm_new() - an interpreter for @prog with its globals initialized
 * @prog: the program; must outlive the VM
 * @lim: limits (copied); NULL for the defaults
 *
 * All memory a handler needs (value slots and their string buffers, frames)
 * is allocated here: handlers allocate only when arrays grow or a foreach
 * takes its snapshot.  Free with vm_free().
 *
 * Return: the VM, or NULL with errno EINVAL when @prog describes an array
 * map_new() refuses (a program gen_program() did not make).
 */
struct vm *vm_new(const struct prog *prog, const struct vm_limits *lim);
void vm_free(struct vm *vm);

/* target(): the -x/-c process, 0 when none. */
void vm_set_target(struct vm *vm, pid_t pid);

/**
 * vm_fire() - run the handler of probe @probe for event @ev
 * @vm: the interpreter
 * @probe: index in prog->probes
 * @ev: the provider's event, handed to its fetch() and context()
 *
 * Return: 0, or -1 when the handler raised an uncaught error: vm_error()
 * has the message.
 */
int vm_fire(struct vm *vm, int probe, void *ev);

/**
 * vm_global_add() - add @delta to long global @global, or to its element
 * @key when it is an array of one string key (kernel counts synced into
 * the script's globals)
 * Return: 0, -E2BIG when the array is full, -EINVAL for a global of
 * another shape.
 */
int vm_global_add(struct vm *vm, int global, const char *key, int64_t delta);

/* $value of procfs and input probes: the provider sets it before
 * vm_fire() and reads it after (lang/builtin_sys.c reads and writes it). */
struct strbuf *vm_value(struct vm *vm);
/* The commands system() asked for in the handler, each ended by a NUL:
 * the caller runs them once the handler's output is out, and resets it. */
struct strbuf *vm_commands(struct vm *vm);

/* "division by 0 near operator '/' at t.stp:3:10" after vm_fire() failed. */
const char *vm_error(const struct vm *vm);
/* True once exit() ran. */
bool vm_exit_requested(const struct vm *vm);
/* The script's output so far; the caller writes it out and resets it. */
struct strbuf *vm_output(struct vm *vm);

#endif
