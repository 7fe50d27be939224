/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TASK_H
#define TAPKIT_TASK_H

/* What /proc says about tasks, and a small cache of it by thread id. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Start time (clock ticks since boot, /proc/PID/stat field 22); 0 or -errno. */
int task_start_time(pid_t pid, unsigned long long *start);
/* Thread ids of process @pid in a malloc'ed array the caller frees; count or -errno. */
int task_threads(pid_t pid, pid_t **tids);
/* Tgid and PPid of @tid from /proc/TID/status; -1 when gone. */
pid_t task_tgid(pid_t tid);
pid_t task_ppid(pid_t pid);
/* Real UID of @tid from /proc/TID/status; -1 when gone. */
long task_uid(pid_t tid);
/* The @col-th number (from 1) after "@key:" in /proc/TID/status ("Uid",
 * 2: the effective UID); -1 when gone. */
long task_status_num(pid_t tid, const char *key, int col);
/* Field @field (from 1, as proc(5) counts, 4 or more) of /proc/PID/stat
 * as a number into *@v; 0 or -ENOENT. */
int task_stat_num(pid_t pid, int field, long long *v);
/* The state letter of /proc/PID/stat ('R', 'S'...), '\0' when gone. */
char task_state(pid_t pid);
/* Open descriptors of @pid, or -errno. */
int task_fd_count(pid_t pid);
/* Its RLIMIT_NOFILE soft limit from /proc/PID/limits, or -1. */
long long task_nofile_limit(pid_t pid);
/* /proc/PID/comm into @buf; 0 or -errno. */
int task_comm(pid_t pid, char *buf, size_t n);
bool task_exists(pid_t pid);

/*
 * Cache: what the kernel told us (exec/exit/fork records) or /proc said at
 * first sight.  Entries are replaced, never freed individually.
 */
void task_cache_set(pid_t tid, const char *comm, pid_t tgid);
/* Cached comm, else /proc (then cached); NULL when unknown. */
const char *task_cache_comm(pid_t tid);
/* Cached tgid, else /proc (then cached); -1 when unknown. */
pid_t task_cache_tgid(pid_t tid);
void task_cache_forget(pid_t tid);
/*
 * A rename of @tid (exec, prctl) to @comm by an event at @ts, in the
 * records' clock.  Records of different CPUs are not always read in time
 * order: a rename older than the one that gave the name only says what the
 * name was before it, and the cache keeps that one earlier name, for the
 * records between the two.
 */
void task_cache_rename(pid_t tid, const char *comm, uint64_t ts);
/* The name @tid had at @ts (0: now), as far as the renames tell. */
const char *task_cache_comm_at(pid_t tid, uint64_t ts);
/*
 * What a fork record said of a new task: its parent's name then, and its
 * process.  The name is for a task gone before /proc could name it
 * (task_cache_hint_comm()): exec and rename records, and /proc while it
 * lives, know its own name.
 */
void task_cache_hint(pid_t tid, const char *comm, pid_t tgid);
const char *task_cache_hint_comm(pid_t tid);

#endif
