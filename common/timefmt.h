/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TIMEFMT_H
#define TAPKIT_TIMEFMT_H

/* Event timestamps (CLOCK_MONOTONIC ns) turned into wall-clock time. */
#include <stddef.h>
#include <stdint.h>

uint64_t time_mono_ns(void);
/* CLOCK_REALTIME ns of monotonic time @mono_ns. */
uint64_t time_to_real(uint64_t mono_ns);
/* "HH:MM:SS" local time of monotonic @mono_ns into @buf (>= 9 bytes). */
void time_hms(uint64_t mono_ns, char *buf, size_t n);

#endif
