/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PARALLEL_H
#define TAPKIT_PARALLEL_H

/**
 * parallel_for() - call fn(i, arg) for every i in [0, n) on up to @threads
 * threads, and return when all are done.
 *
 * For kernel calls that mostly wait rather than compute: attaching and
 * detaching hundreds of perf events each waits for an RCU grace period or a
 * cross-CPU call, and waits that overlap are shared.  Falls back to the
 * calling thread alone when threads cannot be created.
 */
void parallel_for(int n, int threads, void (*fn)(int i, void *arg), void *arg);

#endif
