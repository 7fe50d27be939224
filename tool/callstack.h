/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_CALLSTACK_H
#define TAPKIT_CALLSTACK_H

/*
 * The calls each thread is in, to time a function from its entry to its
 * return (funclatency, tracetop's funcs view): entries are pushed per
 * thread; a return pairs with the innermost open entry of the same probe,
 * and the entries above it, whose returns were missed (longjmp, an
 * exception), go.  Past @max_depth entries are counted, not kept, and
 * their returns are not timed.
 *
 *	cs = callstacks_new(1024);
 *	callstacks_enter(cs, tid, ts, probe);		at each entry
 *	ns = callstacks_return(cs, tid, ts, probe);	at each return
 *	callstacks_forget(cs, tid);			when the thread exits
 *	callstacks_free(cs);
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct callstacks;

/* Stacks of at most @max_depth calls per thread.  Free with
 * callstacks_free(). */
struct callstacks *callstacks_new(unsigned int max_depth);
void callstacks_free(struct callstacks *cs);

/* Thread @tid entered the function of @probe at @ts (ns). */
void callstacks_enter(struct callstacks *cs, pid_t tid, uint64_t ts,
		      unsigned int probe);
/* Thread @tid returned from @probe's function at @ts: the call's length
 * in ns, or -1 when its entry is not known (it began before tracing did,
 * or past the depth kept) or came after @ts. */
int64_t callstacks_return(struct callstacks *cs, pid_t tid, uint64_t ts,
			  unsigned int probe);
/* Thread @tid is gone: its stack with it. */
void callstacks_forget(struct callstacks *cs, pid_t tid);
/* Threads inside at least one call now. */
size_t callstacks_busy(const struct callstacks *cs);
/* Threads with a stack (busy or not). */
size_t callstacks_threads(const struct callstacks *cs);
/* Forget every thread's stack. */
void callstacks_clear(struct callstacks *cs);

#endif
