// SPDX-License-Identifier: GPL-2.0
/*
 * Block I/O requests from start to completion (bioreq.h).
 *
 * One table of requests in flight, keyed by (device, sector, operation):
 * the start record creates the entry with the task that submitted the I/O
 * (common_pid and comm of block_io_start are the submitter's, whatever
 * context issues and completes it later: a loop device's worker, an
 * interrupt), the issue record adds its time and size, the completion
 * hands the request to the command and drops it.  A request issued with no
 * start record seen (started before tracing, or a kind the start event
 * does not cover, like a flush) is attributed to the task issuing it.
 * The table is bounded: a request never completed must not make it grow
 * for ever.
 */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/bioreq.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

#define MAX_INFLIGHT	65536

/* the kernel's dev_t in trace records: MAJOR << 20 | MINOR */
#define DEV_MAJOR(d)	((unsigned int)((d) >> 20))
#define DEV_MINOR(d)	((unsigned int)((d) & 0xfffff))

/* the fields of one block event (all have dev, sector, nr_sector, rwbs) */
struct bev {
	int id;
	struct tk_field dev, sector, bytes, comm, rwbs, error;
};

struct devname {
	char name[32];
};

struct bioreqs {
	bioreq_fn fn;
	void *arg;
	struct bev start, issue, done;
	const char *start_name;
	char events[320];
	struct hmap *inflight;	/* req_key() -> struct bioreq */
	struct hmap *names;	/* dev -> struct devname */
	/* bioreqs_tree(): the tasks of the process tree */
	struct hmap *tree;	/* tid -> bool */
	int fork_id;
	struct tk_field parent, child;
};

struct bioreqs *bioreqs_new(bioreq_fn fn, void *arg)
{
	struct bioreqs *b = xcalloc(1, sizeof(*b));

	b->fn = fn;
	b->arg = arg;
	b->start.id = b->issue.id = b->done.id = b->fork_id = -1;
	b->inflight = hmap_new(sizeof(struct bioreq));
	b->names = hmap_new(sizeof(struct devname));
	return b;
}

void bioreqs_free(struct bioreqs *b)
{
	if (!b)
		return;
	hmap_free(b->inflight);
	hmap_free(b->names);
	hmap_free(b->tree);
	free(b);
}

/* The operation letter of @rwbs (blk_fill_rwbs(): an optional 'F' for a
 * preflush, then W R D(E) F N, then F A S M U flags): 0 read, 1 write,
 * 2 discard, 3 flush, 4 other. */
static unsigned int op_of(const char *rwbs)
{
	const char *p = rwbs;

	if (p[0] == 'F' && p[1] && strchr("WRDFN", p[1]))
		p++;
	switch (*p) {
	case 'R': return 0;
	case 'W': return 1;
	case 'D': return 2;
	case 'F': return 3;
	default: return 4;
	}
}

static uint64_t req_key(uint32_t dev, uint64_t sector, unsigned int op)
{
	return (sector << 3 | op) ^ (uint64_t)dev << 40;
}

/* Ids and fields of @ev as event @e; @comm: it has comm and bytes (start,
 * issue), else error (complete). */
static int use_event(const struct tep_event *ev, struct bev *e, bool comm,
		     char *err, size_t errlen)
{
	int id = format_id(ev);

	if (id < 0 || format_field(ev, "dev", &e->dev) < 0 ||
	    format_field(ev, "sector", &e->sector) < 0 ||
	    format_field(ev, "rwbs", &e->rwbs) < 0 ||
	    (comm && (format_field(ev, "comm", &e->comm) < 0 ||
		      format_field(ev, "bytes", &e->bytes) < 0)) ||
	    (!comm && format_field(ev, "error", &e->error) < 0))
		return errmsg(err, errlen, -ENOENT,
			      "block event %d lacks the fields of this kernel's block events", id);
	e->id = id;
	return 0;
}

int bioreqs_use(struct bioreqs *b, const struct tep_event *start,
		const struct tep_event *issue, const struct tep_event *done,
		char *err, size_t errlen)
{
	return use_event(start, &b->start, true, err, errlen) ?:
	       use_event(issue, &b->issue, true, err, errlen) ?:
	       use_event(done, &b->done, false, err, errlen);
}

static bool have_event(const char *name)
{
	return format_event_id("block", name) >= 0;
}

int bioreqs_add(struct bioreqs *b, struct session *s, int64_t dev,
		char *err, size_t errlen)
{
	const char *names[3];
	struct tp *tp[3];
	char filter[48], *kf = NULL;
	int i;

	if (dev >= 0) {
		snprintf(filter, sizeof(filter), "dev == %lld", (long long)dev);
		kf = filter;
	}
	b->start_name = have_event("block_io_start") ? "block_io_start" : "block_rq_insert";
	names[0] = b->start_name;
	names[1] = "block_rq_issue";
	names[2] = "block_rq_complete";
	for (i = 0; i < 3; i++) {
		tp[i] = session_add(s, "block", names[i], TP_RECORD, kf);
		if (!tp[i])
			return errmsg(err, errlen, errno ? -errno : -ENOENT, "%s",
				      session_error(s));
	}
	snprintf(b->events, sizeof(b->events),
		 "block:%s (who, queued), block:block_rq_issue, block:block_rq_complete%s%s",
		 b->start_name, kf ? "; kernel filter " : "", kf ? kf : "");
	return bioreqs_use(b, tp[0]->event, tp[1]->event, tp[2]->event, err, errlen);
}

int bioreqs_tree(struct bioreqs *b, struct session *s, pid_t pid,
		 char *err, size_t errlen)
{
	struct tp *tp = session_add(s, "sched", "sched_process_fork", TP_RECORD, NULL);
	pid_t *tids = NULL;
	int i, n;

	if (!tp)
		return errmsg(err, errlen, errno ? -errno : -ENOENT, "%s",
			      session_error(s));
	if (format_field(tp->event, "parent_pid", &b->parent) < 0 ||
	    format_field(tp->event, "child_pid", &b->child) < 0)
		return errmsg(err, errlen, -ENOENT,
			      "sched:sched_process_fork lacks parent_pid or child_pid");
	b->fork_id = tp->id;
	b->tree = hmap_new(sizeof(bool));
	*(bool *)hmap_get(b->tree, (uint64_t)pid, true) = true;
	n = task_threads(pid, &tids);
	for (i = 0; i < n; i++)
		*(bool *)hmap_get(b->tree, (uint64_t)tids[i], true) = true;
	free(tids);
	snprintf(b->events + strlen(b->events), sizeof(b->events) - strlen(b->events),
		 "; only the I/O started by the process tree of %d (followed through sched:sched_process_fork)",
		 (int)pid);
	return 0;
}

const char *bioreqs_events(const struct bioreqs *b)
{
	return b->events;
}

const char *bioreqs_start_event(const struct bioreqs *b)
{
	return b->start_name;
}

/* Look up the request of record @ev of event @e; create it if @create. */
static struct bioreq *lookup(struct bioreqs *b, const struct bev *e,
			     const struct tk_event *ev, bool create, uint64_t *key)
{
	uint32_t dev = (uint32_t)field_int(ev, &e->dev);
	uint64_t sector = (uint64_t)field_int(ev, &e->sector);
	char rwbs[sizeof(((struct bioreq *)0)->rwbs)];
	struct bioreq *r;

	field_str(ev, &e->rwbs, rwbs, sizeof(rwbs));
	*key = req_key(dev, sector, op_of(rwbs));
	r = hmap_get(b->inflight, *key, false);
	if (r && (r->dev != dev || r->sector != sector)) {
		hmap_del(b->inflight, *key);	/* another request's: stale */
		r = NULL;
	}
	if (r || !create)
		return r;
	if (hmap_count(b->inflight) >= MAX_INFLIGHT)
		hmap_clear(b->inflight);
	r = hmap_get(b->inflight, *key, true);
	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->sector = sector;
	memcpy(r->rwbs, rwbs, sizeof(rwbs));
	return r;
}

static void who(struct bioreq *r, const struct bev *e, const struct tk_event *ev)
{
	r->tid = ev->pid;
	field_str(ev, &e->comm, r->comm, sizeof(r->comm));
}

/* Hand @r over if its task is one we report, and forget it. */
static void report(struct bioreqs *b, struct bioreq *r, uint64_t key)
{
	if (r->issue_ts <= r->done_ts &&
	    (!b->tree || hmap_get(b->tree, (uint64_t)r->tid, false)))
		b->fn(r, b->arg);
	hmap_del(b->inflight, key);
}

/* A record of time @ts that belongs to the request @r in the table: before
 * the completion read ahead of it, if there is one, else any. */
static bool current(const struct bioreq *r, uint64_t ts)
{
	return !r->done_ts || ts <= r->done_ts;
}

/*
 * The records come in timestamp order per drain, but a drain reads the
 * CPUs one after another: a completion on one CPU can come a drain before
 * the issue (or start) on another CPU that preceded it.  Such a completion
 * is kept in the request's entry (done_ts), and the late issue completes
 * it: the pairing does not depend on the order of reading.
 */
bool bioreqs_event(struct bioreqs *b, const struct tk_event *ev)
{
	struct bioreq *r;
	uint64_t key;

	if (ev->id == b->fork_id) {
		pid_t parent = (pid_t)field_int(ev, &b->parent);

		if (hmap_get(b->tree, (uint64_t)parent, false))
			*(bool *)hmap_get(b->tree, (uint64_t)field_int(ev, &b->child),
					  true) = true;
	} else if (ev->id == b->start.id) {
		r = lookup(b, &b->start, ev, true, &key);
		/* a new request at a sector in flight: the old one is gone;
		 * unless this is the start of the one issued (read first) */
		if (!current(r, ev->ts) || r->start_ts ||
		    (r->issue_ts && r->issue_ts < ev->ts))
			memset(&r->start_ts, 0,
			       sizeof(*r) - offsetof(struct bioreq, start_ts));
		r->start_ts = ev->ts;
		r->bytes = (uint32_t)field_int(ev, &b->start.bytes);
		who(r, &b->start, ev);
	} else if (ev->id == b->issue.id) {
		r = lookup(b, &b->issue, ev, true, &key);
		if (!current(r, ev->ts))
			memset(&r->start_ts, 0,
			       sizeof(*r) - offsetof(struct bioreq, start_ts));
		if (!r->start_ts)
			who(r, &b->issue, ev);
		r->issue_ts = ev->ts;	/* the last one, after a requeue */
		r->bytes = (uint32_t)field_int(ev, &b->issue.bytes);
		field_str(ev, &b->issue.rwbs, r->rwbs, sizeof(r->rwbs));
		if (r->done_ts)		/* its completion was read first */
			report(b, r, key);
	} else if (ev->id == b->done.id) {
		r = lookup(b, &b->done, ev, true, &key);
		if (r->done_ts)		/* an earlier one never issued */
			memset(&r->start_ts, 0,
			       sizeof(*r) - offsetof(struct bioreq, start_ts));
		r->done_ts = ev->ts;
		r->error = (int)field_int(ev, &b->done.error);
		if (r->issue_ts)
			report(b, r, key);
		/* else issued before tracing began, or its issue is late */
	} else {
		return false;
	}
	return true;
}

const char *bioreqs_dev_name(struct bioreqs *b, uint32_t dev)
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

/* MAJ:MIN of /sys/dev/block/... or /sys/class/block/NAME: a disk, not a
 * partition. */
static int64_t sys_dev(unsigned int ma, unsigned int mi)
{
	char path[96];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", ma, mi);
	if (stat(path, &st) < 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", ma, mi);
	if (stat(path, &st) == 0)
		return -EISDIR;
	return (int64_t)ma << 20 | mi;
}

static int64_t dev_parse(const char *text)
{
	unsigned int ma, mi;
	char path[96], line[64];
	struct stat st;
	FILE *fp;
	int n = 0;

	if (sscanf(text, "%u:%u%n", &ma, &mi, &n) == 2 && !text[n])
		return sys_dev(ma, mi);
	if (text[0] == '/') {
		if (stat(text, &st) < 0)
			return -ENOENT;
		if (!S_ISBLK(st.st_mode))
			return -ENOTBLK;
		return sys_dev(major(st.st_rdev), minor(st.st_rdev));
	}
	if (!*text || strchr(text, '/') || strlen(text) > 40)
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", text);
	fp = fopen(path, "re");
	if (!fp)
		return -ENOENT;
	n = fgets(line, sizeof(line), fp) && sscanf(line, "%u:%u", &ma, &mi) == 2;
	fclose(fp);
	return n ? sys_dev(ma, mi) : -ENOENT;
}

int64_t bio_dev_parse(const char *text, char *err, size_t errlen)
{
	int64_t dev = dev_parse(text);

	if (dev == -EISDIR)
		return errmsg(err, errlen, -EISDIR,
			      "'%s' is a partition: requests are traced by disk, name its disk",
			      text);
	if (dev == -ENOTBLK)
		return errmsg(err, errlen, -ENOTBLK, "'%s' is not a block device", text);
	if (dev < 0)
		return errmsg(err, errlen, -ENOENT, "no such disk '%s'", text);
	return dev;
}

char bio_rw(const char *rwbs)
{
	return strchr(rwbs, 'W') ? 'W' : 'R';
}

/*
 * bcc's flags_print() names the request's cmd_flags; the tracepoints give
 * blk_fill_rwbs()'s letters instead, which carry the operation and the
 * FUA, read-ahead, sync and metadata flags (not priority, no-merge, idle,
 * background or no-wait).  The names and their order are bcc's.
 */
const char *bio_flags_name(const char *rwbs, char *buf, size_t size)
{
	static const struct { char c; const char *name; } flags[] = {
		/* prepended in this order, so the last is first */
		{ 'S', "Sync-" }, { 'M', "Metadata-" }, { 'F', "ForcedUnitAccess-" },
		{ 'A', "ReadAhead-" },
	};
	const char *p = rwbs, *op;
	char out[128] = "";
	size_t i;

	if (p[0] == 'F' && p[1] && strchr("WRDFN", p[1]))
		p++;		/* preflush: no name in bcc */
	switch (*p) {
	case 'R': op = "Read"; break;
	case 'W': op = "Write"; break;
	case 'F': op = "Flush"; break;
	case 'D':
		op = p[1] == 'E' ? "SecureErase" : "Discard";
		p += p[1] == 'E';
		break;
	default: op = "Unknown"; break;
	}
	if (*p)
		p++;
	for (i = sizeof(flags) / sizeof(flags[0]); i-- > 0;)
		if (strchr(p, flags[i].c))
			strcat(out, flags[i].name);
	snprintf(buf, size, "%s%s", out, op);
	return buf;
}

struct hist_log2 *bio_hists_get(struct bio_hists *hs, const char *name)
{
	struct bio_hist *h;
	size_t i;

	for (i = 0; i < hs->n; i++)
		if (!strcmp(hs->v[i].name, name))
			return &hs->v[i].h;
	if (hs->n == hs->cap) {
		hs->cap = hs->cap ? 2 * hs->cap : 8;
		hs->v = xrealloc(hs->v, hs->cap * sizeof(*hs->v));
	}
	h = &hs->v[hs->n++];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	return &h->h;
}

static int cmp_hist(const void *a, const void *b)
{
	return strcmp(((const struct bio_hist *)a)->name,
		      ((const struct bio_hist *)b)->name);
}

void bio_hists_sort(struct bio_hists *hs)
{
	if (hs->n)
		qsort(hs->v, hs->n, sizeof(*hs->v), cmp_hist);
}

void bio_hists_clear(struct bio_hists *hs)
{
	hs->n = 0;
}

void bio_hists_release(struct bio_hists *hs)
{
	free(hs->v);
	memset(hs, 0, sizeof(*hs));
}
