// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's "bio" feeder: block I/O requests, issue to completion.
 *
 * block:block_rq_issue is kept per (device, sector) with its time, size
 * and the task that issued it; block:block_rq_complete of the same device
 * and sector makes one sample: the device (its name from
 * /sys/dev/block/MAJ:MIN/uevent, else "MAJ:MIN"), the issuer, the bytes
 * and the latency.  A request issued before tracing began is not counted.
 *
 * A filter on the device (a drill-down from a device's row) goes into the
 * kernel as `dev == N` on both events, so other devices cost nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/top_int.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

enum {
	F_DEV, F_DEVNO, F_PID, F_TID, F_COMM, F_BYTES, F_LAT, F_RWBS, F_ERROR,
	F_N
};

static const struct top_field fields[F_N] = {
	[F_DEV]   = { "dev", "DEV", AGT_STR, AGT_PLAIN, 10 },
	[F_DEVNO] = { "devno", "DEVNO", AGT_INT, AGT_PLAIN, 0 },
	[F_PID]   = { "pid", "PID", AGT_INT, AGT_PLAIN, 0 },
	[F_TID]   = { "tid", "TID", AGT_INT, AGT_PLAIN, 0 },
	[F_COMM]  = { "comm", "COMM", AGT_STR, AGT_PLAIN, 15 },
	[F_BYTES] = { "bytes", "BYTES", AGT_INT, AGT_BYTES, 0 },
	[F_LAT]   = { "lat", "LAT", AGT_INT, AGT_NS, 0 },
	[F_RWBS]  = { "rwbs", "RWBS", AGT_STR, AGT_PLAIN, 5 },
	[F_ERROR] = { "error", "ERROR", AGT_INT, AGT_PLAIN, 0 },
};

/* the kernel's dev_t in trace records: MAJOR << 20 | MINOR */
#define DEV_MAJOR(d)	((unsigned int)((d) >> 20))
#define DEV_MINOR(d)	((unsigned int)((d) & 0xfffff))

struct inflight {
	uint64_t sector;
	uint64_t ts;
	uint32_t dev;
	uint32_t bytes;
	pid_t tid;
	char comm[16];
	char rwbs[10];
};

struct devname {
	char name[32];
};

#define MAX_INFLIGHT	65536

struct bio {
	struct top_feed *f;
	int issue_id, complete_id;
	struct tk_field i_dev, i_sector, i_nr, i_bytes, i_comm, i_rwbs;
	struct tk_field c_dev, c_sector, c_error;
	bool have_bytes;
	struct hmap *inflight;	/* dev << 44 ^ sector -> struct inflight */
	struct hmap *names;	/* dev -> struct devname */
};

static int bio_init(struct top_feed *f)
{
	f->fields = fields;
	f->nfields = F_N;
	return 0;
}

/* "loop0" for 7:0 (the kernel's DEVNAME), else "7:0". */
static const char *dev_name(struct bio *b, uint32_t dev)
{
	struct devname *d = hmap_get(b->names, dev, false);
	char path[96], line[128];
	FILE *fp;

	if (d)
		return d->name;
	d = hmap_get(b->names, dev, true);
	snprintf(d->name, sizeof(d->name), "%u:%u", DEV_MAJOR(dev), DEV_MINOR(dev));
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent",
		 DEV_MAJOR(dev), DEV_MINOR(dev));
	fp = fopen(path, "re");
	if (!fp)
		return d->name;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(d->name, sizeof(d->name), "%.31s", line + 8);
			break;
		}
	fclose(fp);
	return d->name;
}

/* A device as the user names it ("sda", "8:0") to the kernel's dev_t; -1. */
static int64_t dev_parse(const char *text)
{
	unsigned int ma, mi;
	char path[96], line[64];
	FILE *fp;
	int n = 0;

	if (sscanf(text, "%u:%u%n", &ma, &mi, &n) == 2 && !text[n])
		return (int64_t)ma << 20 | mi;
	if (!*text || strchr(text, '/') || strlen(text) > 40)
		return -1;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", text);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	n = fgets(line, sizeof(line), fp) && sscanf(line, "%u:%u", &ma, &mi) == 2;
	fclose(fp);
	return n ? (int64_t)ma << 20 | mi : -1;
}

static uint64_t req_key(uint32_t dev, uint64_t sector)
{
	return (uint64_t)dev << 44 ^ sector;
}

static void on_issue(struct bio *b, const struct tk_event *ev)
{
	uint32_t dev = (uint32_t)field_int(ev, &b->i_dev);
	uint64_t sector = (uint64_t)field_int(ev, &b->i_sector);
	struct inflight *r;

	if (hmap_count(b->inflight) >= MAX_INFLIGHT)
		hmap_clear(b->inflight);
	r = hmap_get(b->inflight, req_key(dev, sector), true);
	r->dev = dev;
	r->sector = sector;
	r->ts = ev->ts;
	r->tid = ev->pid;
	r->bytes = b->have_bytes ? (uint32_t)field_int(ev, &b->i_bytes)
				 : (uint32_t)field_int(ev, &b->i_nr) * 512;
	field_str(ev, &b->i_comm, r->comm, sizeof(r->comm));
	field_str(ev, &b->i_rwbs, r->rwbs, sizeof(r->rwbs));
}

static void on_complete(struct bio *b, const struct tk_event *ev)
{
	uint32_t dev = (uint32_t)field_int(ev, &b->c_dev);
	uint64_t sector = (uint64_t)field_int(ev, &b->c_sector);
	uint64_t key = req_key(dev, sector);
	struct inflight *r = hmap_get(b->inflight, key, false);
	struct agt_sample s;
	pid_t tgid;

	if (!r || r->dev != dev || r->sector != sector)	/* issued before us */
		return;
	tgid = r->tid ? task_cache_tgid(r->tid) : 0;
	memset(&s, 0, sizeof(s));
	s.str[F_DEV] = dev_name(b, dev);
	s.num[F_DEVNO] = dev;
	s.num[F_PID] = tgid > 0 ? tgid : r->tid;
	s.num[F_TID] = r->tid;
	s.str[F_COMM] = r->comm;
	s.num[F_BYTES] = r->bytes;
	s.num[F_LAT] = ev->ts > r->ts ? (int64_t)(ev->ts - r->ts) : 0;
	s.str[F_RWBS] = r->rwbs;
	s.num[F_ERROR] = field_int(ev, &b->c_error);
	s.have = (1ull << F_N) - 1;
	top_emit(b->f, ev, &s);
	/* the strings are read by now */
	hmap_del(b->inflight, key);
}

static void bio_event(struct top_feed *f, const struct tk_event *ev)
{
	struct bio *b = f->priv;

	if (ev->id == b->issue_id)
		on_issue(b, ev);
	else if (ev->id == b->complete_id)
		on_complete(b, ev);
}

static int field(struct top_feed *f, struct tp *tp, const char *name,
		 struct tk_field *fl)
{
	if (format_field(tp->event, name, fl) < 0) {
		snprintf(f->err, sizeof(f->err), "bio: no field '%s' in block:%s",
			 name, tp->name);
		return -ENOENT;
	}
	return 0;
}

static int bio_setup(struct top_feed *f)
{
	struct bio *b = xcalloc(1, sizeof(*b));
	struct top_filter *flt = top_filter_find(f, "dev");
	struct tp *issue, *complete;
	char filter[64], *kf = NULL;
	int64_t dev;

	f->priv = b;
	b->f = f;
	b->inflight = hmap_new(sizeof(struct inflight));
	b->names = hmap_new(sizeof(struct devname));
	if (flt && (dev = dev_parse(flt->text)) >= 0) {
		snprintf(filter, sizeof(filter), "dev == %lld", (long long)dev);
		kf = filter;
	}
	issue = session_add(f->s, "block", "block_rq_issue", TP_RECORD, kf);
	complete = issue ? session_add(f->s, "block", "block_rq_complete",
				       TP_RECORD, kf) : NULL;
	if (!complete) {
		snprintf(f->err, sizeof(f->err), "bio: %s", session_error(f->s));
		return errno ? -errno : -ENOENT;
	}
	if (kf)
		flt->kernel = true;
	b->issue_id = issue->id;
	b->complete_id = complete->id;
	b->have_bytes = format_field(issue->event, "bytes", &b->i_bytes) == 0;
	if (field(f, issue, "dev", &b->i_dev) || field(f, issue, "sector", &b->i_sector) ||
	    field(f, issue, "nr_sector", &b->i_nr) || field(f, issue, "comm", &b->i_comm) ||
	    field(f, issue, "rwbs", &b->i_rwbs) || field(f, complete, "dev", &b->c_dev) ||
	    field(f, complete, "sector", &b->c_sector) ||
	    field(f, complete, "error", &b->c_error))
		return -ENOENT;
	if (f->verbose)
		pr_info("bio: block:block_rq_issue paired with block:block_rq_complete by device and sector%s%s",
			kf ? "; kernel filter " : "", kf ? kf : "");
	return 0;
}

static void bio_release(struct top_feed *f)
{
	struct bio *b = f->priv;

	if (!b)
		return;
	hmap_free(b->inflight);
	hmap_free(b->names);
	free(b);
	f->priv = NULL;
}

const struct top_feeder top_feed_bio = {
	.name = "bio",
	.init = bio_init,
	.setup = bio_setup,
	.event = bio_event,
	.release = bio_release,
	.ordered = true,
	.keep_self = true,
	.scope_by_field = true,
	.pid_field = "pid",
};
