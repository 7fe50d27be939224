// SPDX-License-Identifier: GPL-2.0
/*
 * perfring: the smallest perf_event sampling-ring reader, as a floor for the
 * transport benchmark.  One tracepoint, sample_period 1, one ring per online
 * CPU, the same sample layout as tapkit's sampler (common/perf.c: RAW, TID,
 * TIME on CLOCK_MONOTONIC, CPU, and CALLCHAIN with -g; wake-up watermark at
 * a quarter of the ring), but records are only counted, never decoded or
 * printed.
 *
 *   perfring [-g] [-m PAGES] [-p PID] sys:event
 *
 *   -g        ask for callchains (kernel and user), as tpoint -s does
 *   -m PAGES  data pages per ring, a power of two (default 2048: 8 MiB)
 *   -p PID    also count the samples whose pid is PID
 *
 * Runs until SIGINT/SIGTERM, then disables, drains and prints one line:
 *   samples=N pid_samples=M lost=L
 * where lost is the kernel's own per-event drop count (PERF_FORMAT_LOST,
 * Linux 6.0) or, failing that, the sum of PERF_RECORD_LOST records.
 * Creates $TAPKIT_READY_FILE once the events are enabled, like tapkit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t size;
};

static uint64_t samples, pid_samples, lost_records;

static void drain(struct ring *r, int pid)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;

	while (tail < head) {
		struct perf_event_header *h = (void *)(r->data + (tail & (r->size - 1)));
		uint64_t off = (tail & (r->size - 1)) + sizeof(*h);

		if (h->type == PERF_RECORD_SAMPLE) {
			uint32_t spid;

			/* TID is the first field of our sample: u32 pid, u32 tid.
			 * The header is 8 bytes and records are 8-byte aligned,
			 * so it never wraps. */
			memcpy(&spid, r->data + (off & (r->size - 1)), sizeof(spid));
			samples++;
			if (pid > 0 && (int)spid == pid)
				pid_samples++;
		} else if (h->type == PERF_RECORD_LOST) {
			uint64_t v[2];
			uint64_t o = off & (r->size - 1);
			size_t first = sizeof(v) <= r->size - o ? sizeof(v) : r->size - o;

			memcpy(v, r->data + o, first);
			memcpy((char *)v + first, r->data, sizeof(v) - first);
			lost_records += v[1];
		}
		tail += h->size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int read_id(const char *spec)
{
	char path[512], buf[32], *colon, sys[256];
	int fd, n;

	snprintf(sys, sizeof(sys), "%s", spec);
	colon = strchr(sys, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id", sys, colon + 1);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.disabled = 1,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.read_format = PERF_FORMAT_LOST,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.watermark = 1,
	};
	long pages = 2048, psz = sysconf(_SC_PAGESIZE);
	int opt, id, ncpu, c, pid = 0, sfd, stop = 0;
	uint64_t lost_fmt = 0;
	int have_fmt = 1;
	struct ring *rings;
	struct pollfd *pfd;
	const char *ready;
	sigset_t mask;

	while ((opt = getopt(argc, argv, "gm:p:")) != -1) {
		switch (opt) {
		case 'g':
			attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
			break;
		case 'm': pages = atol(optarg); break;
		case 'p': pid = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: perfring [-g] [-m PAGES] [-p PID] sys:event\n");
			return 2;
		}
	}
	if (optind != argc - 1 || pages <= 0 || (pages & (pages - 1))) {
		fprintf(stderr, "usage: perfring [-g] [-m PAGES] [-p PID] sys:event\n");
		return 2;
	}
	id = read_id(argv[optind]);
	if (id < 0) {
		fprintf(stderr, "perfring: no tracepoint '%s'\n", argv[optind]);
		return 1;
	}
	attr.config = id;
	attr.wakeup_watermark = pages * psz / 4;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	rings = calloc(ncpu, sizeof(*rings));
	pfd = calloc(ncpu + 1, sizeof(*pfd));
	for (c = 0; c < ncpu; c++) {
		struct ring *r = &rings[c];
		void *p;

		r->fd = syscall(SYS_perf_event_open, &attr, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0) {
			fprintf(stderr, "perfring: perf_event_open cpu %d: %s\n", c, strerror(errno));
			return 1;
		}
		r->size = pages * psz;
		p = mmap(NULL, r->size + psz, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "perfring: mmap: %s\n", strerror(errno));
			return 1;
		}
		r->meta = p;
		r->data = (char *)p + psz;
		pfd[c].fd = r->fd;
		pfd[c].events = POLLIN;
	}
	pfd[ncpu].fd = sfd;
	pfd[ncpu].events = POLLIN;
	for (c = 0; c < ncpu; c++)
		ioctl(rings[c].fd, PERF_EVENT_IOC_ENABLE, 0);
	ready = getenv("TAPKIT_READY_FILE");
	if (ready && *ready)
		close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));

	while (!stop) {
		if (poll(pfd, ncpu + 1, -1) < 0 && errno != EINTR)
			break;
		for (c = 0; c < ncpu; c++)
			drain(&rings[c], pid);
		if (pfd[ncpu].revents)
			stop = 1;
	}
	for (c = 0; c < ncpu; c++) {
		uint64_t v[2];

		ioctl(rings[c].fd, PERF_EVENT_IOC_DISABLE, 0);
		drain(&rings[c], pid);
		if (read(rings[c].fd, v, sizeof(v)) == sizeof(v))
			lost_fmt += v[1];
		else
			have_fmt = 0;
		close(rings[c].fd);
	}
	printf("samples=%llu pid_samples=%llu lost=%llu\n", (unsigned long long)samples,
	       (unsigned long long)pid_samples,
	       (unsigned long long)(have_fmt ? lost_fmt : lost_records));
	return 0;
}
