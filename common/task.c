// SPDX-License-Identifier: GPL-2.0
/*
 * Task facts from /proc.  Records carry only the thread id (common_pid), so
 * names and thread groups are looked up once per thread and cached in a
 * direct-mapped table: a collision just means one more /proc read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/task.h"

static int read_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	return (int)len;
}

/* Field @field (1-based, as proc(5) counts; 3 or more) of /proc/@pid/stat:
 * a pointer into @buf (@n bytes), or NULL. */
static const char *stat_field(pid_t pid, int field, char *buf, size_t n)
{
	char path[64], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, n) < 0)
		return NULL;
	/* comm may contain spaces and parentheses: skip to the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return NULL;
	p += 2;		/* field 3, state */
	for (i = 3; i < field && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p;
}

int task_start_time(pid_t pid, unsigned long long *start)
{
	char buf[1024];
	const char *p = stat_field(pid, 22, buf, sizeof(buf));

	if (!p)
		return task_exists(pid) ? -EINVAL : -ENOENT;
	*start = strtoull(p, NULL, 10);
	return 0;
}

int task_stat_num(pid_t pid, int field, long long *v)
{
	char buf[1024];
	const char *p = stat_field(pid, field, buf, sizeof(buf));

	if (!p)
		return -ENOENT;
	*v = strtoll(p, NULL, 10);
	return 0;
}

char task_state(pid_t pid)
{
	char buf[1024];
	const char *p = stat_field(pid, 3, buf, sizeof(buf));

	return p ? *p : '\0';
}

int task_fd_count(pid_t pid)
{
	char path[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	if (!(d = opendir(path)))
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

long long task_nofile_limit(pid_t pid)
{
	char path[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/proc/%d/limits", pid);
	if (read_file(path, buf, sizeof(buf)) < 0 ||
	    !(p = strstr(buf, "Max open files")))
		return -1;
	return strtoll(p + 14, NULL, 10);
}

int task_threads(pid_t pid, pid_t **tids)
{
	char path[64];
	struct dirent *de;
	pid_t *list = NULL;
	int n = 0, cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			list = xrealloc(list, cap * sizeof(*list));
		}
		list[n++] = atoi(de->d_name);
	}
	closedir(d);
	*tids = list;
	return n;
}

long task_status_num(pid_t tid, const char *key, int col)
{
	char path[64], buf[4096], *p;
	size_t klen = strlen(key);
	long v = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, key, klen) || p[klen] != ':')
			continue;
		for (p += klen + 1; col-- > 0 && p;)
			v = strtol(p, &p, 10);
		return v;
	}
	return -1;
}

static pid_t status_field(pid_t tid, const char *key)
{
	return (pid_t)task_status_num(tid, key, 1);
}

long task_uid(pid_t tid)
{
	return task_status_num(tid, "Uid", 1);
}

pid_t task_tgid(pid_t tid)
{
	return status_field(tid, "Tgid");
}

pid_t task_ppid(pid_t pid)
{
	return status_field(pid, "PPid");
}

int task_comm(pid_t pid, char *buf, size_t n)
{
	char path[64];
	int len;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	len = read_file(path, buf, n);
	if (len < 0)
		return len;
	if (len > 0 && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return 0;
}

bool task_exists(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) == 0;
}

#define CACHE_SIZE 4096	/* power of two */

struct task_entry {
	pid_t tid;		/* 0: free */
	pid_t tgid;		/* -1: not known (gone); 0: not looked up yet */
	char comm[16];		/* "": not known yet */
	char hint[16];		/* its parent's name when it forked */
	uint64_t named_at;	/* the rename that gave @comm; 0: none seen */
	char before[16];	/* the name it had before that rename */
};

static struct task_entry *cache;

static struct task_entry *slot(pid_t tid)
{
	if (!cache)
		cache = xcalloc(CACHE_SIZE, sizeof(*cache));
	return &cache[(unsigned int)tid & (CACHE_SIZE - 1)];
}

static struct task_entry *lookup(pid_t tid)
{
	struct task_entry *e = slot(tid);

	if (e->tid != tid) {
		e->tid = tid;
		e->tgid = 0;
		e->comm[0] = '\0';
		e->hint[0] = '\0';
		e->named_at = 0;
		e->before[0] = '\0';
	}
	return e;
}

void task_cache_set(pid_t tid, const char *comm, pid_t tgid)
{
	struct task_entry *e = lookup(tid);

	if (comm)
		snprintf(e->comm, sizeof(e->comm), "%s", comm);
	if (tgid > 0)
		e->tgid = tgid;
}

void task_cache_rename(pid_t tid, const char *comm, uint64_t ts)
{
	struct task_entry *e = lookup(tid);

	if (ts == e->named_at)
		return;			/* this rename, seen again */
	if (ts < e->named_at) {
		/* an older rename read after a newer one: the name before */
		snprintf(e->before, sizeof(e->before), "%s", comm);
		return;
	}
	snprintf(e->before, sizeof(e->before), "%s", e->comm[0] ? e->comm : e->hint);
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
	e->named_at = ts;
}

const char *task_cache_comm_at(pid_t tid, uint64_t ts)
{
	struct task_entry *e = slot(tid);

	if (ts && e->tid == tid && ts < e->named_at && e->before[0])
		return e->before;
	return task_cache_comm(tid);
}

void task_cache_hint(pid_t tid, const char *comm, pid_t tgid)
{
	struct task_entry *e = lookup(tid);

	snprintf(e->hint, sizeof(e->hint), "%s", comm);
	if (tgid > 0 && e->tgid <= 0)
		e->tgid = tgid;
}

const char *task_cache_hint_comm(pid_t tid)
{
	struct task_entry *e = slot(tid);

	return e->tid == tid && e->hint[0] ? e->hint : NULL;
}

const char *task_cache_comm(pid_t tid)
{
	struct task_entry *e = lookup(tid);

	if (!e->comm[0] && task_comm(tid, e->comm, sizeof(e->comm)) < 0) {
		e->comm[0] = '\0';
		return NULL;
	}
	return e->comm;
}

pid_t task_cache_tgid(pid_t tid)
{
	struct task_entry *e = lookup(tid);

	if (tid == 0)
		return 0;
	if (e->tgid == 0)	/* looked up once: a gone task stays unknown */
		e->tgid = task_tgid(tid);
	return e->tgid;
}

void task_cache_forget(pid_t tid)
{
	struct task_entry *e = slot(tid);

	if (e->tid == tid)
		e->tid = 0;
}
