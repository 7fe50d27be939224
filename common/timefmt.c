// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <time.h>

#include "common/timefmt.h"

static uint64_t ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t time_mono_ns(void)
{
	return ns(CLOCK_MONOTONIC);
}

uint64_t time_to_real(uint64_t mono_ns)
{
	static int64_t offset;
	static int have;

	if (!have) {	/* taken once: both clocks tick at the same rate */
		offset = (int64_t)(ns(CLOCK_REALTIME) - ns(CLOCK_MONOTONIC));
		have = 1;
	}
	return (uint64_t)((int64_t)mono_ns + offset);
}

void time_hms(uint64_t mono_ns, char *buf, size_t n)
{
	time_t t = (time_t)(time_to_real(mono_ns) / 1000000000ULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, n, "%H:%M:%S", &tm);
}
