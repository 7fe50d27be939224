// SPDX-License-Identifier: GPL-2.0
/*
 * The perf sideband of the samplers (perf_sideband.h).
 *
 * Why.  A sampled user stack is named through the maps of its process.
 * Read from /proc/PID/maps when its first sample is handled, they are
 * gone for a process that exited in between (samples are read every few
 * milliseconds, a short command lives less).  The kernel tells the maps as
 * they are made instead: PERF_RECORD_MMAP2 for each executable mapping
 * (with the file's device and inode), PERF_RECORD_COMM flagged as an exec
 * when a process starts a new program, PERF_RECORD_FORK and _EXIT.  perf
 * record keeps them in its data file for perf report; here they are told
 * to the run's symbol cache (common/symcache.h) as the samples are read.
 *
 * How.  A dummy software event (it never samples) per online CPU, or per
 * (thread, CPU) of a scope with inherit and one ring per CPU as the
 * samplers do (perf_sampler.c), with mmap, mmap2, comm, comm_exec and
 * task set, and sample_id_all so that every record ends with the task,
 * the time (CLOCK_MONOTONIC, the samplers' clock) and the CPU.  The
 * rings are never polled: the owner of the samples calls
 * perf_sideband_tell() with each sample's time before handling it, which
 * tells the records made up to then, oldest first across the rings; so
 * an exec, the new program's mappings and a sample taken after them
 * reach the cache in that order.
 *
 * Cost.  Only executable mappings are recorded (mmap_data is off): a few
 * records per exec.  A file is opened once, at its first mapping (the
 * cache keeps it by the kernel's device and inode); a process that exits
 * unsampled is dropped by symcache_sweep().
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/symcache.h"
#include "common/task.h"
#include "tracefs/internal.h"
#include "tracefs/perf_mmap.h"
#include "tracefs/perf_sideband.h"

#define ID_SIZE		24	/* sample_id: pid, tid, time, cpu, res */
#define MMAP2_NAME	72	/* the file name's offset in an MMAP2 record */

struct sb_ring {
	struct perf_mmap m;
	/* the next record, while it waits to be told */
	const unsigned char *next;
	unsigned int next_size;
	uint64_t next_ts;
};

struct perf_sideband {
	struct fdset fds;
	struct sb_ring *rings;
	int nrings;
	uint64_t lost;
};

struct perf_sideband *perf_sideband_open(const struct perf_scope *scope,
					 unsigned int pages)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.disabled = 1,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.sample_id_all = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.watermark = 1,
	};
	bool threads = scope && scope->tids;
	struct perf_sideband *sb;
	int *cpus = NULL, ncpus, c, t, err;

	if (!perf_scope_valid(scope) || !pages || (pages & (pages - 1))) {
		errno = EINVAL;
		return NULL;
	}
	attr.wakeup_watermark = pages * sysconf(_SC_PAGESIZE) / 2;
	if (threads) {
		attr.inherit = 1;
		attr.inherit_thread = !scope->tree;
	}
	ncpus = online_cpus(&cpus);
	if (ncpus < 0) {
		errno = -ncpus;
		return NULL;
	}
	sb = xcalloc(1, sizeof(*sb));
	sb->rings = xcalloc(ncpus, sizeof(*sb->rings));
	for (c = 0; c < ncpus; c++) {
		struct sb_ring *r = &sb->rings[sb->nrings];
		int nt = threads ? scope->ntids : 1;
		bool mapped = false;

		for (t = 0; t < nt; t++) {
			int fd = perf_open_event(&attr, threads ? scope->tids[t] : -1,
						 cpus[c], -1);

			if (fd == -ESRCH && threads)
				continue;	/* exited meanwhile */
			if (fd < 0) {
				err = fd;
				goto fail;
			}
			fdset_add(&sb->fds, fd);
			if (!mapped) {
				err = perf_mmap_map(&r->m, fd, pages);
				if (err)
					goto fail;
				sb->nrings++;
				mapped = true;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->m.fd) < 0) {
				err = -errno;
				goto fail;
			}
		}
	}
	free(cpus);
	if (!sb->nrings) {
		perf_sideband_free(sb);
		errno = ESRCH;
		return NULL;
	}
	return sb;

fail:
	free(cpus);
	perf_sideband_free(sb);
	errno = -err;
	return NULL;
}

int perf_sideband_enable(struct perf_sideband *sb)
{
	return fdset_ioctl(&sb->fds, PERF_EVENT_IOC_ENABLE);
}

int perf_sideband_disable(struct perf_sideband *sb)
{
	return fdset_ioctl(&sb->fds, PERF_EVENT_IOC_DISABLE);
}

/* Make r->next the ring's next record; false when it has none. */
static bool ring_peek(struct sb_ring *r)
{
	struct perf_event_header h;
	const unsigned char *rec;

	if (r->next)
		return true;
	rec = perf_mmap_record(&r->m, perf_mmap_head(&r->m), &h);
	if (!rec)
		return false;
	r->next = rec;
	r->next_size = h.size;
	r->next_ts = 0;
	if (h.size >= sizeof(h) + ID_SIZE)
		memcpy(&r->next_ts, rec + h.size - ID_SIZE + 8, 8);
	return true;
}

/*
 * A new task @tid (of process @pid) has its creator @ptid's name until it
 * execs or renames itself: kept in the task cache now, so the samples of
 * a task that is gone before they are read still name it.
 */
static void inherit_comm(pid_t tid, pid_t pid, pid_t ptid)
{
	const char *comm = task_cache_comm(ptid);
	char copy[16];

	if (!comm)
		return;
	snprintf(copy, sizeof(copy), "%s", comm);
	task_cache_set(tid, copy, pid);
}

/* Tell @c the record at @rec (@size bytes, made at @ts). */
static void tell(struct perf_sideband *sb, const unsigned char *rec,
		 unsigned int size, uint64_t ts, struct symcache *c)
{
	struct perf_event_header h;
	uint32_t u[4];

	memcpy(&h, rec, sizeof(h));
	if (size < sizeof(h) + 16 + ID_SIZE && h.type != PERF_RECORD_COMM)
		return;
	switch (h.type) {
	case PERF_RECORD_MMAP2: {
		struct symcache_mapping m = { 0 };
		uint64_t v[3];
		char path[4096];
		size_t n;

		if (size < MMAP2_NAME + ID_SIZE + 1)
			return;
		memcpy(u, rec + 8, 8);			/* pid, tid */
		memcpy(v, rec + 16, 24);		/* addr, len, pgoff */
		m.start = v[0];
		m.len = v[1];
		m.pgoff = v[2];
		if (!(h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			memcpy(&u[2], rec + 40, 8);	/* maj, min */
			memcpy(&m.ino, rec + 48, 8);
			m.dev = makedev(u[2], u[3]);
		}
		n = size - MMAP2_NAME - ID_SIZE;
		if (n >= sizeof(path))
			n = sizeof(path) - 1;
		memcpy(path, rec + MMAP2_NAME, n);
		path[n] = '\0';
		m.path = path;
		symcache_mmap(c, ts, (pid_t)u[0], &m);
		return;
	}
	case PERF_RECORD_COMM:
		if (size < sizeof(h) + 8)
			return;
		memcpy(u, rec + 8, 8);			/* pid, tid, comm */
		if (size > sizeof(h) + 8) {
			char comm[16];

			snprintf(comm, sizeof(comm), "%.*s",
				 (int)(size - sizeof(h) - 8), rec + sizeof(h) + 8);
			task_cache_set((pid_t)u[1], comm, (pid_t)u[0]);
		}
		if (h.misc & PERF_RECORD_MISC_COMM_EXEC)
			symcache_task(c, ts, SYMCACHE_EXEC, (pid_t)u[0], 0);
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		memcpy(u, rec + 8, 16);			/* pid, ppid, tid, ptid */
		if (h.type == PERF_RECORD_FORK)
			inherit_comm((pid_t)u[2], (pid_t)u[0], (pid_t)u[3]);
		if (h.type == PERF_RECORD_FORK && u[0] != u[1])
			symcache_task(c, ts, SYMCACHE_FORK, (pid_t)u[0], (pid_t)u[1]);
		else if (h.type == PERF_RECORD_EXIT && u[0] == u[2])
			symcache_task(c, ts, SYMCACHE_EXIT, (pid_t)u[0], 0);
		return;
	case PERF_RECORD_LOST: {
		uint64_t lost;

		memcpy(&lost, rec + 16, 8);		/* id, lost */
		sb->lost += lost;
		return;
	}
	default:
		return;
	}
}

int perf_sideband_tell(struct perf_sideband *sb, uint64_t ts,
		       struct symcache *c)
{
	int i, told = 0;

	for (;;) {
		struct sb_ring *best = NULL;

		for (i = 0; i < sb->nrings; i++) {
			struct sb_ring *r = &sb->rings[i];

			if (ring_peek(r) && r->next_ts <= ts &&
			    (!best || r->next_ts < best->next_ts))
				best = r;
		}
		if (!best)
			return told;
		tell(sb, best->next, best->next_size, best->next_ts, c);
		best->m.tail += best->next_size;
		best->next = NULL;
		perf_mmap_release(&best->m);
		told++;
	}
}

uint64_t perf_sideband_lost(const struct perf_sideband *sb)
{
	return sb->lost;
}

void perf_sideband_free(struct perf_sideband *sb)
{
	int i;

	if (!sb)
		return;
	for (i = 0; i < sb->nrings; i++) {
		perf_mmap_unmap(&sb->rings[i].m);
	}
	fdset_close(&sb->fds);
	free(sb->rings);
	free(sb);
}
