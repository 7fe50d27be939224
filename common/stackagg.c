// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks aggregated to values (stackagg.h).
 *
 * Two tables.  The first is keyed by what the kernel gave: the process,
 * its name and the addresses of both callchains; a stack seen again is
 * found there without naming anything.  Its entries point into the second,
 * keyed by what prints: the process, its name and the frames' names.
 * Stacks that differ only in offsets inside the same functions print the
 * same and are summed there, as a flame graph would sum them.
 *
 * Return addresses (every frame but the innermost) are named at the
 * address before them, the call instruction: a call that ends its
 * function (a call of a noreturn function) is then named by its caller,
 * not by whatever follows it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/stackagg.h"
#include "common/symcache.h"

#define MISSED_KERNEL	"[Missed Kernel Stack]"
#define MISSED_USER	"[Missed User Stack]"

/* A stack of addresses seen, and the printed stack it names. */
struct addrstack {
	uint64_t hash;
	pid_t pid;
	char comm[16];
	size_t nk, nu;
	bool kmissed, umissed;
	uint64_t *pcs;			/* nk kernel, then nu user */
	unsigned int unknown;		/* of its frames, named by nothing */
	struct stackagg_entry *e;
	struct addrstack *next;
};

struct stackagg {
	struct symcache *syms;
	struct addrstack **abuck;	/* by addresses */
	size_t nabuck, naddr;
	struct stackagg_entry **ebuck;	/* by names */
	size_t nebuck, nent;
	struct stackagg_stats st;
	uint64_t total;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = mix(h, (unsigned char)*s);
	return mix(h, 0xff);
}

struct stackagg *stackagg_new(struct symcache *c)
{
	struct stackagg *a = xcalloc(1, sizeof(*a));

	a->syms = c;
	a->nabuck = a->nebuck = 256;
	a->abuck = xcalloc(a->nabuck, sizeof(*a->abuck));
	a->ebuck = xcalloc(a->nebuck, sizeof(*a->ebuck));
	return a;
}

void stackagg_free(struct stackagg *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nabuck; i++) {
		struct addrstack *s, *n;

		for (s = a->abuck[i]; s; s = n) {
			n = s->next;
			free(s->pcs);
			free(s);
		}
	}
	for (i = 0; i < a->nebuck; i++) {
		struct stackagg_entry *e, *n;

		for (e = a->ebuck[i]; e; e = n) {
			n = e->next;
			free(e->kname);
			free(e->uname);
			free(e);
		}
	}
	free(a->abuck);
	free(a->ebuck);
	symcache_free(a->syms);
	free(a);
}

static const char *comm_of(const struct stackagg_sample *s)
{
	return s->comm ? s->comm : "";
}

static uint64_t addr_hash(const struct stackagg_sample *s)
{
	uint64_t h = mix_str(mix(0xcbf29ce484222325ULL, (uint64_t)s->pid), comm_of(s));
	size_t i;

	h = mix(h, s->nk << 32 | s->nu);
	h = mix(h, (uint64_t)s->kmissed << 1 | s->umissed);
	for (i = 0; i < s->nk; i++)
		h = mix(h, s->kpcs[i]);
	for (i = 0; i < s->nu; i++)
		h = mix(h, s->upcs[i]);
	return h;
}

static bool addr_same(const struct addrstack *x, const struct stackagg_sample *s,
		      uint64_t h)
{
	return x->hash == h && x->pid == s->pid && x->nk == s->nk &&
	       x->nu == s->nu && x->kmissed == s->kmissed &&
	       x->umissed == s->umissed &&
	       !strncmp(x->comm, comm_of(s), sizeof(x->comm) - 1) &&
	       (!s->nk || !memcmp(x->pcs, s->kpcs, s->nk * sizeof(uint64_t))) &&
	       (!s->nu || !memcmp(x->pcs + s->nk, s->upcs, s->nu * sizeof(uint64_t)));
}

/* Double a table of chains when it holds as many entries as buckets. */
#define GROW(buck, nbuck, count, type)						\
	do {									\
		size_t nn = (nbuck) * 2, i_;					\
		type **nb;							\
		if ((count) < (nbuck))						\
			break;							\
		nb = xcalloc(nn, sizeof(*nb));					\
		for (i_ = 0; i_ < (nbuck); i_++) {				\
			type *x_, *n_;						\
			for (x_ = (buck)[i_]; x_; x_ = n_) {			\
				n_ = x_->next;					\
				x_->next = nb[x_->hash & (nn - 1)];		\
				nb[x_->hash & (nn - 1)] = x_;			\
			}							\
		}								\
		free(buck);							\
		(buck) = nb;							\
		(nbuck) = nn;							\
	} while (0)

static const char *name_of(struct stackagg *a, pid_t pid, uint64_t pc,
			   bool kernel, size_t depth, unsigned int *unknown)
{
	struct symcache_sym sym = { 0 };
	uint64_t at = depth ? pc - 1 : pc;
	int err;

	err = kernel ? symcache_kernel(a->syms, at, &sym) :
		       symcache_user(a->syms, pid, at, 0, &sym);
	if (err || !sym.name) {
		(*unknown)++;
		return SYMCACHE_UNKNOWN;
	}
	return sym.name;
}

static uint64_t entry_hash(const struct stackagg_entry *e)
{
	uint64_t h = mix_str(mix(0x84222325cbf29ce4ULL, (uint64_t)e->pid), e->comm);
	size_t i;

	h = mix(h, (uint64_t)e->kmissed << 1 | e->umissed);
	for (i = 0; i < e->nk; i++)
		h = mix_str(h, e->kname[i]);
	h = mix(h, 0x5eed);
	for (i = 0; i < e->nu; i++)
		h = mix_str(h, e->uname[i]);
	return h;
}

static bool names_same(const char **x, const char **y, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != y[i] && strcmp(x[i], y[i]))
			return false;
	return true;
}

/* The printed stack @e names, @e itself when new (else @e is freed). */
static struct stackagg_entry *intern(struct stackagg *a, struct stackagg_entry *e)
{
	struct stackagg_entry *x;

	e->hash = entry_hash(e);
	for (x = a->ebuck[e->hash & (a->nebuck - 1)]; x; x = x->next)
		if (x->hash == e->hash && x->pid == e->pid && x->nk == e->nk &&
		    x->nu == e->nu && x->kmissed == e->kmissed &&
		    x->umissed == e->umissed && !strcmp(x->comm, e->comm) &&
		    names_same(x->kname, e->kname, e->nk) &&
		    names_same(x->uname, e->uname, e->nu)) {
			free(e->kname);
			free(e->uname);
			free(e);
			return x;
		}
	GROW(a->ebuck, a->nebuck, a->nent, struct stackagg_entry);
	e->next = a->ebuck[e->hash & (a->nebuck - 1)];
	a->ebuck[e->hash & (a->nebuck - 1)] = e;
	a->nent++;
	return e;
}

/* A stack of addresses seen for the first time: name it. */
static struct addrstack *learn(struct stackagg *a, const struct stackagg_sample *s,
			       uint64_t h)
{
	struct addrstack *x = xcalloc(1, sizeof(*x));
	struct stackagg_entry *e = xcalloc(1, sizeof(*e));
	size_t i;

	x->hash = h;
	x->pid = e->pid = s->pid;
	snprintf(x->comm, sizeof(x->comm), "%s", comm_of(s));
	memcpy(e->comm, x->comm, sizeof(e->comm));
	x->nk = e->nk = s->nk;
	x->nu = e->nu = s->nu;
	x->kmissed = e->kmissed = s->kmissed;
	x->umissed = e->umissed = s->umissed;
	x->pcs = xmalloc((s->nk + s->nu + 1) * sizeof(uint64_t));
	if (s->nk)
		memcpy(x->pcs, s->kpcs, s->nk * sizeof(uint64_t));
	if (s->nu)
		memcpy(x->pcs + s->nk, s->upcs, s->nu * sizeof(uint64_t));
	e->kname = xcalloc(s->nk + 1, sizeof(*e->kname));
	e->uname = xcalloc(s->nu + 1, sizeof(*e->uname));
	for (i = 0; i < s->nk; i++)
		e->kname[i] = name_of(a, s->pid, s->kpcs[i], true, i, &x->unknown);
	for (i = 0; i < s->nu; i++)
		e->uname[i] = name_of(a, s->pid, s->upcs[i], false, i, &x->unknown);
	x->e = intern(a, e);

	GROW(a->abuck, a->nabuck, a->naddr, struct addrstack);
	x->next = a->abuck[h & (a->nabuck - 1)];
	a->abuck[h & (a->nabuck - 1)] = x;
	a->naddr++;
	return x;
}

void stackagg_add(struct stackagg *a, const struct stackagg_sample *s,
		  uint64_t value)
{
	uint64_t h = addr_hash(s);
	struct addrstack *x;

	for (x = a->abuck[h & (a->nabuck - 1)]; x; x = x->next)
		if (addr_same(x, s, h))
			break;
	if (!x)
		x = learn(a, s, h);
	x->e->value += value;
	a->total += value;
	a->st.samples++;
	a->st.frames += s->nk + s->nu;
	a->st.unknown += x->unknown;
	if (s->kmissed || s->umissed)
		a->st.missed++;
}

static int by_value(const void *pa, const void *pb)
{
	const struct stackagg_entry *x = *(struct stackagg_entry *const *)pa;
	const struct stackagg_entry *y = *(struct stackagg_entry *const *)pb;
	int c;
	size_t i;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if ((c = strcmp(x->comm, y->comm)))
		return c;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	for (i = 0; i < x->nu && i < y->nu; i++)
		if ((c = strcmp(x->uname[i], y->uname[i])))
			return c;
	if (x->nu != y->nu)
		return x->nu < y->nu ? -1 : 1;
	for (i = 0; i < x->nk && i < y->nk; i++)
		if ((c = strcmp(x->kname[i], y->kname[i])))
			return c;
	return x->nk < y->nk ? -1 : x->nk > y->nk;
}

struct stackagg_entry **stackagg_sorted(const struct stackagg *a, size_t *n)
{
	struct stackagg_entry **v = xcalloc(a->nent + 1, sizeof(*v));
	size_t i, k = 0;

	for (i = 0; i < a->nebuck; i++) {
		struct stackagg_entry *e;

		for (e = a->ebuck[i]; e; e = e->next)
			v[k++] = e;
	}
	qsort(v, k, sizeof(*v), by_value);
	*n = k;
	return v;
}

const struct stackagg_stats *stackagg_stats(const struct stackagg *a)
{
	return &a->st;
}

uint64_t stackagg_total(const struct stackagg *a)
{
	return a->total;
}

/*
 * The root-first frame list of the folded format: the user frames
 * outermost first (or the missed placeholder), the delimiter when both
 * sides have frames, then the kernel frames outermost first.
 */
bool stackagg_frame(const struct stackagg_entry *e,
		    const struct stackagg_print_opts *o, size_t i,
		    const char **name, bool *kernel)
{
	size_t nu = 0, nd = 0;

	if (o->user)
		nu = e->umissed ? 1 : e->nu;
	if (o->user && o->kernel && o->delimit && (e->nu || e->umissed) &&
	    (e->nk || e->kmissed))
		nd = 1;
	*kernel = false;
	if (i < nu) {
		*name = e->umissed ? MISSED_USER : e->uname[e->nu - 1 - i];
		return true;
	}
	i -= nu;
	if (i < nd) {
		*name = "-";
		return true;
	}
	i -= nd;
	*kernel = true;
	if (!o->kernel)
		return false;
	if (e->kmissed) {
		*name = MISSED_KERNEL;
		return i == 0;
	}
	if (i >= e->nk)
		return false;
	*name = e->kname[e->nk - 1 - i];
	return true;
}

static void print_folded(const struct stackagg_entry *e, FILE *f,
			 const struct stackagg_print_opts *o)
{
	const char *name;
	bool kernel;
	size_t i;

	esc_fputs(e->comm, f);
	for (i = 0; stackagg_frame(e, o, i, &name, &kernel); i++) {
		fputc(';', f);
		esc_fputs(name, f);
		if (kernel && o->annotate && name[0] != '[')
			fputs("_[k]", f);
	}
	fprintf(f, " %llu\n", (unsigned long long)e->value);
}

/* The frames of the multi-line formats, each line after @indent: kernel
 * then user, innermost first, "--" between them as @o asks (@always:
 * whenever both sides are printed, bcc's stackcount; else only when both
 * have frames, bcc's profile). */
static void print_frames(const struct stackagg_entry *e, FILE *f,
			 const struct stackagg_print_opts *o, const char *indent,
			 bool always)
{
	size_t i;

	if (o->kernel) {
		if (e->kmissed)
			fprintf(f, "%s%s\n", indent, MISSED_KERNEL);
		for (i = 0; i < e->nk; i++)
			fprintf(f, "%s%s%s\n", indent, esc_str(e->kname[i]),
				o->annotate ? "_[k]" : "");
	}
	if (o->kernel && o->user && o->delimit &&
	    (always || ((e->nu || e->umissed) && (e->nk || e->kmissed))))
		fprintf(f, "    --\n");
	if (o->user) {
		if (e->umissed)
			fprintf(f, "%s%s\n", indent, MISSED_USER);
		for (i = 0; i < e->nu; i++)
			fprintf(f, "%s%s\n", indent, esc_str(e->uname[i]));
	}
}

/* bcc's profile: frames by four, "- comm (pid)", the value by eight. */
static void print_text(const struct stackagg_entry *e, FILE *f,
		       const struct stackagg_print_opts *o)
{
	print_frames(e, f, o, "    ", false);
	fprintf(f, "    %-16s %s (%d)\n", "-", esc_str(e->comm), (int)e->pid);
	fprintf(f, "        %llu\n\n", (unsigned long long)e->value);
}

/* bcc's stackcount: frames by two, "comm [pid]" and the value by four. */
static void print_counts(const struct stackagg_entry *e, FILE *f,
			 const struct stackagg_print_opts *o)
{
	print_frames(e, f, o, "  ", true);
	if (e->pid >= 0 && o->comm_line)
		fprintf(f, "    %s [%d]\n", esc_str(e->comm), (int)e->pid);
	fprintf(f, "    %llu\n\n", (unsigned long long)e->value);
}

static void print_json(const struct stackagg_entry *e, FILE *f,
		       const struct stackagg_print_opts *o)
{
	struct json j;
	size_t i;

	json_begin(&j, f);
	if (e->pid >= 0) {
		json_int(&j, "pid", e->pid);
		json_str(&j, "comm", e->comm);
	}
	json_uint(&j, o->value_name ? o->value_name : "count", e->value);
	json_arr_open(&j, "kernel");
	for (i = 0; o->kernel && i < e->nk; i++)
		json_elem_str(&j, e->kname[i]);
	json_arr_close(&j);
	json_arr_open(&j, "user");
	for (i = 0; o->user && i < e->nu; i++)
		json_elem_str(&j, e->uname[i]);
	json_arr_close(&j);
	json_bool(&j, "kernel_missed", o->kernel && e->kmissed);
	json_bool(&j, "user_missed", o->user && e->umissed);
	json_end(&j);
}

void stackagg_print(const struct stackagg *a, FILE *f,
		    const struct stackagg_print_opts *o)
{
	struct stackagg_entry **v;
	size_t i, n;

	v = stackagg_sorted(a, &n);
	for (i = 0; i < n; i++) {
		if (o->format == STACKAGG_FOLDED)
			print_folded(v[i], f, o);
		else if (o->format == STACKAGG_JSON)
			print_json(v[i], f, o);
		else if (o->format == STACKAGG_COUNTS)
			print_counts(v[i], f, o);
		else
			print_text(v[i], f, o);
	}
	free(v);
}
