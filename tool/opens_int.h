/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_OPENS_INT_H
#define TAPKIT_OPENS_INT_H

/* What opens.c (defining the events) and opens_record.c (pairing their
 * records) share; see opens.h. */
#include <stdbool.h>
#include <stdint.h>

#include "common/event.h"
#include "tool/opens.h"

struct hmap;
struct tp;

#define PATH_LEN 4096

/* The syscalls of the tracepoint mechanism. */
enum { SYS_OPEN, SYS_OPENAT, SYS_OPENAT2, SYS_CREAT, NSYS };

struct sysc {
	struct tp *enter, *exit;
	struct tk_field path, flags, ret;
};

struct uprobe_ev {
	struct tp *tp;
	struct tk_field path, ptr;
};

/* Per thread: the wrapper last entered, and the call in progress. */
struct thread {
	bool have_u, in_call;
	int sys;
	uint64_t u_ptr, ts, ptr, how;
	int64_t flags;
	enum opens_source src;
	char u_path[PATH_LEN];
	char path[PATH_LEN];
};

struct opens {
	struct session *s;
	struct opens_opts o;
	opens_fn fn;
	void *arg;
	char *mechanism;
	struct tp *kentry, *kret;
	struct tk_field k_path, k_ptr, k_flags, k_ret;
	struct sysc sys[NSYS];
	struct uprobe_ev *u;
	size_t nu;
	struct hmap *threads;		/* tid -> struct thread */
};

#endif
