/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_OPENS_INT_H
#define TAPKIT_OPENS_INT_H

/* What opens.c (defining the events) and opens_record.c (pairing their
 * records) share; see opens.h. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "common/event.h"
#include "tool/opens.h"

struct comms;
struct hmap;
struct tp;

#define PATH_LEN 4096

/* syscall(3)'s numbers of the open family; -1 where there is none */
#ifdef __NR_open
#define SYS_NR_OPEN __NR_open
#else
#define SYS_NR_OPEN -1
#endif
#ifdef __NR_creat
#define SYS_NR_CREAT __NR_creat
#else
#define SYS_NR_CREAT -1
#endif
#ifdef __NR_openat2
#define SYS_NR_OPENAT2 __NR_openat2
#else
#define SYS_NR_OPENAT2 437
#endif
#define SYS_NR_OPENAT __NR_openat

/* The syscalls of the tracepoint mechanism. */
enum { SYS_OPEN, SYS_OPENAT, SYS_OPENAT2, SYS_CREAT, NSYS };

struct sysc {
	struct tp *enter, *exit;
	struct tk_field path, flags, ret, dfd, mode;	/* dfd, mode: size 0 when
							 * the call has none */
};

struct uprobe_ev {
	struct tp *tp;
	struct tk_field path, ptr;
	/* syscall(3): the number, and the path as its first or second
	 * argument (open, creat / openat, openat2) */
	bool syscall;
	struct tk_field nr, path2, ptr2;
};

/* Per thread: the wrapper last entered, and the call in progress. */
struct thread {
	bool have_u, in_call;
	int sys;
	uint64_t u_ptr, ts, ptr, how;
	int64_t flags, mode;
	int dfd;
	enum opens_source src;
	char u_path[PATH_LEN];
	char path[PATH_LEN];
};

struct opens {
	struct session *s;
	struct comms *comms;
	struct opens_opts o;
	opens_fn fn;
	void *arg;
	char *mechanism;
	char *static_exe;		/* a static -p program's own functions */
	struct tp *kentry, *kret;
	struct tk_field k_path, k_ptr, k_flags, k_ret, k_dfd, k_mode;
	struct sysc sys[NSYS];
	struct uprobe_ev *u;
	size_t nu;
	struct hmap *threads;		/* tid -> struct thread */
};

#endif
