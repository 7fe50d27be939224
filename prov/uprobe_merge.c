// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobes of one shape share one event.
 *
 * Stopping a uprobe event costs the kernel a grace period
 * (uprobe_unregister_sync(), ~70 ms measured here) per event, not per
 * probe: `process("libc").function("*")` as one event per function took
 * 70 s to stop for 1,000 functions, and would take 12 minutes for all of
 * libc.  The kernel appends a definition to an existing event of the same
 * name when its fetch arguments have the same names and types (values
 * may differ), and then registers and unregisters the whole list at once:
 * the same 1,000 functions as one event stopped in 29 ms.
 *
 * So the definitions of a provider's run are grouped by shape (entry or
 * return, entry twin or not, argument names and types), and every group
 * of two or more becomes one event "mN" whose probes each carry their own
 * immediate `tk_site=\I:u32`: a record's tk_site names the probe it came
 * from.  The kernel refuses the same site twice in one event, so a site a
 * script probes twice goes into a second event of the group.  USDT
 * probes with a semaphore keep an event each.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "prov/uprobe.h"
#include "tracefs/session.h"

/* The kernel takes 128 args per event (MAX_TRACE_ARGS): one is tk_site. */
#define UPROBE_MERGE_ARGS 127

struct item {
	size_t i;		/* index into the caller's arrays */
	char *sig;		/* the shape */
	size_t dup;		/* earlier items of the same shape and site */
};

/* The names and types of @args ("v0=%di:s32 v1=+0(%si):string" ->
 * "v0:s32 v1:string"): what the kernel compares when it appends.  NULL
 * when it has no room for one more. */
static char *shape(const char *args, bool ret, bool entry)
{
	size_t len = strlen(args), o = 0, nargs = 0;
	char *s = xmalloc(len + 8);
	const char *p = args;

	s[o++] = ret ? 'r' : 'p';
	s[o++] = entry ? 'e' : '-';
	while (*p) {
		const char *end, *eq, *colon = NULL, *q;

		if (++nargs >= UPROBE_MERGE_ARGS) {	/* no room for tk_site */
			free(s);
			return NULL;
		}

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		end = strchr(p, ' ');
		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		for (q = eq ? eq : p; q < end; q++)
			if (*q == ':')
				colon = q;
		s[o++] = ' ';
		memcpy(s + o, p, (size_t)((eq ? eq : end) - p));
		o += (size_t)((eq ? eq : end) - p);
		if (colon) {
			memcpy(s + o, colon, (size_t)(end - colon));
			o += (size_t)(end - colon);
		}
		p = end;
	}
	s[o] = '\0';
	return s;
}

static const struct session_probe *sort_v;

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	const struct session_probe *p = &sort_v[x->i], *q = &sort_v[y->i];
	int c = strcmp(x->sig, y->sig);

	if (c)
		return c;
	if ((c = strcmp(p->path, q->path)))
		return c;
	if (p->offset != q->offset)
		return p->offset < q->offset ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Items [from, to) share a shape: give each duplicate site its rank. */
static size_t rank_dups(struct item *it, const struct session_probe *v,
			size_t from, size_t to)
{
	size_t j, most = 0;

	for (j = from; j < to; j++) {
		const struct session_probe *p = &v[it[j].i];

		it[j].dup = 0;
		if (j > from && !strcmp(p->path, v[it[j - 1].i].path) &&
		    p->offset == v[it[j - 1].i].offset)
			it[j].dup = it[j - 1].dup + 1;
		if (it[j].dup > most)
			most = it[j].dup;
	}
	return most + 1;
}

/**
 * uprobe_merge() - put the uprobe definitions of one shape into shared events
 * @v: @n definitions; the merged ones get a new event name and args
 * @n: how many
 * @entry: per definition, whether it is an entry twin's (kept apart)
 * @seq: the run's count of merged events so far, for their names
 * @order: out, @n indexes: the order to define them in (an event's
 *	probes adjacent, as session_add_probes() wants them)
 * @site: out, per definition its tk_site in its event, -1 when alone
 *
 * Returns the strings now in @v, for uprobe_merge_free() once defined.
 */
struct umerge *uprobe_merge(struct session_probe *v, size_t n,
			    const bool *entry, unsigned *seq, size_t *order,
			    int *site)
{
	struct umerge *m = xcalloc(1, sizeof(*m));
	struct item *it = xcalloc(n + 1, sizeof(*it));
	size_t i, j, k, o = 0;

	m->strs = xcalloc(2 * n + 1, sizeof(*m->strs));
	for (i = 0; i < n; i++) {
		it[i].i = i;
		site[i] = -1;
		if (!v[i].ref_ctr)	/* a semaphore each: never shared */
			it[i].sig = shape(v[i].args ? v[i].args : "", v[i].ret,
					  entry[i]);
		if (!it[i].sig)
			it[i].sig = xasprintf("#%zu", i);
	}
	sort_v = v;
	qsort(it, n, sizeof(*it), cmp_item);
	for (i = 0; i < n; i = j) {
		size_t nev;

		for (j = i + 1; j < n && !strcmp(it[j].sig, it[i].sig); j++)
			;
		if (j - i < 2) {
			order[o++] = it[i].i;
			continue;
		}
		nev = rank_dups(it, v, i, j);
		for (k = 0; k < nev; k++) {
			char *name = xasprintf("m%u", (*seq)++);
			int next = 0;
			size_t x;

			m->strs[m->nstrs++] = name;
			for (x = i; x < j; x++) {
				struct session_probe *p = &v[it[x].i];
				char *args;

				if (it[x].dup != k)
					continue;
				args = xasprintf("%s%stk_site=\\%d:u32",
						 p->args ? p->args : "",
						 p->args && *p->args ? " " : "", next);
				m->strs[m->nstrs++] = args;
				p->event = name;
				p->args = args;
				site[it[x].i] = next++;
				order[o++] = it[x].i;
			}
		}
	}
	for (i = 0; i < n; i++)
		free(it[i].sig);
	free(it);
	return m;
}

/** uprobe_merge_free() - free what uprobe_merge() returned */
void uprobe_merge_free(struct umerge *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nstrs; i++)
		free(m->strs[i]);
	free(m->strs);
	free(m);
}
