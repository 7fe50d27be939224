// SPDX-License-Identifier: GPL-2.0
/*
 * Lost records (DESIGN.md "Events and loss"): counted per CPU by the
 * sources (instance overruns and drops, the pages' missed-events flags,
 * perf's LOST), reported at exit, in JSON, and live with -v.  Losing events
 * silently is a bug.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "common/json.h"
#include "common/log.h"
#include "tracefs/internal.h"
#include "tracefs/session.h"
#include "tracefs/source.h"

#define MAX_CPUS 256

/* "overrun: N" and "dropped events: N" of the instance's per-CPU stats */
static uint64_t cpu_stat_lost(struct session *s, int cpu)
{
	char file[64], *buf, *p;
	uint64_t lost = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	buf = tracefs_instance_file_read(s->inst, file, NULL);
	if (!buf)
		return 0;
	if ((p = strstr(buf, "\noverrun:")) || (p = strstr(buf, "overrun:")))
		lost += strtoull(strchr(p, ':') + 1, NULL, 10);
	if ((p = strstr(buf, "dropped events:")))
		lost += strtoull(p + strlen("dropped events:"), NULL, 10);
	free(buf);
	return lost;
}

uint64_t instance_lost(struct session *s, uint64_t *per_cpu, int max_cpu)
{
	uint64_t total = 0, v;
	int cpu;

	if (!s->inst)
		return 0;
	for (cpu = 0; cpu < max_cpu || (!per_cpu && cpu < 1024); cpu++) {
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%d", cpu);
		if (!tracefs_dir_exists(s->inst, file))
			break;
		v = cpu_stat_lost(s, cpu);
		if (per_cpu && cpu < max_cpu)
			per_cpu[cpu] += v;
		total += v;
	}
	return total;
}

uint64_t session_lost(struct session *s, uint64_t *per_cpu, int max_cpu)
{
	return sources_lost(s->sources, per_cpu, max_cpu);
}

void loss_report_new(struct session *s)
{
	uint64_t lost;

	if (!tk_verbose)
		return;
	lost = session_lost(s, NULL, 0);
	if (lost > s->lost_seen) {
		pr_info("%llu events lost so far", (unsigned long long)lost);
		s->lost_seen = lost;
	}
}

bool session_report_lost(struct session *s)
{
	uint64_t per_cpu[MAX_CPUS];
	uint64_t total = session_lost(s, per_cpu, MAX_CPUS);
	const char *opt = s->o.size_option ? s->o.size_option : "-b/--buffer-kb";
	char buf[512];
	int cpu, len = 0;

	if (!total)
		return false;
	for (cpu = 0; cpu < MAX_CPUS && len < (int)sizeof(buf) - 32; cpu++)
		if (per_cpu[cpu])
			len += snprintf(buf + len, sizeof(buf) - len, "%scpu%d %llu",
					len ? ", " : "", cpu,
					(unsigned long long)per_cpu[cpu]);
	if (len)
		pr_warn("%llu events lost (%s): try a larger %s",
			(unsigned long long)total, buf, opt);
	else
		pr_warn("%llu events lost: try a larger %s",
			(unsigned long long)total, opt);
	return true;
}

void session_json_lost(struct session *s, struct json *j)
{
	uint64_t per_cpu[MAX_CPUS];
	uint64_t total = session_lost(s, per_cpu, MAX_CPUS);
	int cpu, ncpu = 0;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (per_cpu[cpu])
			ncpu = cpu + 1;
	json_uint(j, "lost", total);
	json_arr_open(j, "lost_per_cpu");
	for (cpu = 0; cpu < ncpu; cpu++)
		json_elem_uint(j, per_cpu[cpu]);
	json_arr_close(j);
}

void session_json_summary(struct session *s, FILE *f)
{
	struct json j;

	if (!session_lost(s, NULL, 0))
		return;
	json_begin(&j, f);
	json_str(&j, "type", "summary");
	session_json_lost(s, &j);
	json_end(&j);
}
