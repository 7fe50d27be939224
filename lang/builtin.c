// SPDX-License-Identifier: GPL-2.0
/*
 * Built-in functions: stap's tapset functions that tapkit provides in C.
 * Behaviour follows the tapset sources (string.stp, tokenize.stp,
 * context.stp, timestamp.stp, logging.stp, regex.stp); where stap raises a
 * run-time error, so do these, with stap's text.
 *
 * Functions tapkit cannot offer yet are in the table with the reason, so
 * a script that calls one fails at compile time, located at the call.
 * Those that read memory take what the probe read as one more argument
 * (lang/elab_mem.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "common/json.h"
#include "common/log.h"
#include "common/task.h"
#include "lang/backend.h"
#include "lang/builtin.h"

#define L AST_T_LONG
#define S AST_T_STRING

static size_t cap(struct vm *vm)
{
	return vm->maxstr - 1;
}

static int ret_str(struct vm *vm, struct lang_val *ret, char *buf,
		   const char *s, size_t n)
{
	if (n > cap(vm))
		n = cap(vm);
	memmove(buf, s, n);
	buf[n] = '\0';
	ret->s = buf;
	return 0;
}

/* ---- context ---------------------------------------------------------- */

void vm_context(struct vm *vm, enum prov_ctx what, struct lang_val *out)
{
	const struct prov_probe *pp = vm->probe ? vm->probe->pp : NULL;

	out->l = 0;
	out->s = "";
	if (pp && pp->prov->context &&
	    pp->prov->context(pp, vm->ev, what, out) == 0)
		return;
	/* begin, end, timer: the tapkit process itself */
	switch (what) {
	case PROV_CTX_PID: out->l = getpid(); break;
	case PROV_CTX_TID: out->l = syscall(SYS_gettid); break;
	case PROV_CTX_PPID: out->l = getppid(); break;
	case PROV_CTX_UID: out->l = getuid(); break;
	case PROV_CTX_EUID: out->l = geteuid(); break;
	case PROV_CTX_GID: out->l = getgid(); break;
	case PROV_CTX_EGID: out->l = getegid(); break;
	case PROV_CTX_CPU: out->l = sched_getcpu(); break;
	case PROV_CTX_EXECNAME:
		if (!vm->execname[0] &&
		    task_comm(getpid(), vm->execname, sizeof(vm->execname)) < 0)
			strcpy(vm->execname, "tapkit");
		out->s = vm->execname;
		break;
	default:
		break;
	}
}

#define CTX_FN(fname, what)						\
static int fname(struct vm *vm, struct lang_val *a, int n,		\
		 struct lang_val *ret, char *buf)			\
{									\
	vm_context(vm, what, ret);					\
	return 0;							\
}

CTX_FN(b_pid, PROV_CTX_PID)
CTX_FN(b_tid, PROV_CTX_TID)
CTX_FN(b_ppid, PROV_CTX_PPID)
CTX_FN(b_uid, PROV_CTX_UID)
CTX_FN(b_euid, PROV_CTX_EUID)
CTX_FN(b_gid, PROV_CTX_GID)
CTX_FN(b_egid, PROV_CTX_EGID)
CTX_FN(b_execname, PROV_CTX_EXECNAME)
CTX_FN(b_cpu, PROV_CTX_CPU)
CTX_FN(b_probefunc, PROV_CTX_PROBEFUNC)
CTX_FN(b_is_return, PROV_CTX_IS_RETURN)
CTX_FN(b_user_mode, PROV_CTX_USER_MODE)

static int b_pp(struct vm *vm, struct lang_val *a, int n,
		struct lang_val *ret, char *buf)
{
	ret->s = vm->probe ? vm->probe->pp->pp : "";
	return 0;
}

static int b_target(struct vm *vm, struct lang_val *a, int n,
		    struct lang_val *ret, char *buf)
{
	ret->l = vm->target;
	return 0;
}

/* ---- time ------------------------------------------------------------- */

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The time of the event the handler runs for, ns on CLOCK_MONOTONIC: its
 * record's timestamp where the provider has one.  stap's handlers run as
 * the event happens; tapkit's run a little after it, from a batch of
 * records, so "now" would be late by up to a batch.  Begin, end and timer
 * probes have no event: now.
 */
static int64_t event_mono(struct vm *vm)
{
	const struct prov_probe *pp = vm->probe ? vm->probe->pp : NULL;
	struct lang_val v = { 0, "" };

	if (pp && pp->prov->context &&
	    pp->prov->context(pp, vm->ev, PROV_CTX_TIME, &v) == 0 && v.l > 0)
		return v.l;
	return clock_ns(CLOCK_MONOTONIC);
}

/* The same on CLOCK_REALTIME: the event's time plus the offset between
 * the clocks, taken again each second (NTP slews the real clock). */
static int64_t event_real(struct vm *vm)
{
	static int64_t offset, taken;
	int64_t mono = event_mono(vm);

	/* events come in time order: their own times say when a second
	 * has passed, with no clock read per call */
	if (!taken || mono - taken > 1000000000 || mono < taken - 1000000000) {
		int64_t before = clock_ns(CLOCK_MONOTONIC);
		int64_t real = clock_ns(CLOCK_REALTIME);
		int64_t after = clock_ns(CLOCK_MONOTONIC);

		offset = real - (before + (after - before) / 2);
		taken = mono;
	}
	return mono + offset;
}

#define TIME_FN(fname, clock, div)					\
static int fname(struct vm *vm, struct lang_val *a, int n,		\
		 struct lang_val *ret, char *buf)			\
{									\
	ret->l = clock(vm) / (div);					\
	return 0;							\
}

TIME_FN(b_tod_s, event_real, 1000000000)
TIME_FN(b_tod_ms, event_real, 1000000)
TIME_FN(b_tod_us, event_real, 1000)
TIME_FN(b_tod_ns, event_real, 1)
TIME_FN(b_clock_ns, event_mono, 1)
TIME_FN(b_clock_us, event_mono, 1000)
TIME_FN(b_clock_ms, event_mono, 1000000)
TIME_FN(b_clock_s, event_mono, 1000000000)

/* jiffies() at CONFIG_HZ 250, the value prov_basic assumes for timers */
static int b_jiffies(struct vm *vm, struct lang_val *a, int n,
		     struct lang_val *ret, char *buf)
{
	ret->l = event_mono(vm) / 4000000;
	return 0;
}

static int b_hz(struct vm *vm, struct lang_val *a, int n,
		struct lang_val *ret, char *buf)
{
	ret->l = 250;
	return 0;
}

/* ---- strings ----------------------------------------------------------- */

static int b_strlen(struct vm *vm, struct lang_val *a, int n,
		    struct lang_val *ret, char *buf)
{
	ret->l = (int64_t)strlen(a[0].s);
	return 0;
}

/* substr(str, start, length): start clamped to [0, MAXSTRINGLEN], length+1
 * to [0, MAXSTRINGLEN] and used as strlcpy's size (string.stp) */
static int b_substr(struct vm *vm, struct lang_val *a, int n,
		    struct lang_val *ret, char *buf)
{
	int64_t len = a[2].l, start = a[1].l, max = (int64_t)vm->maxstr;
	size_t slen = strlen(a[0].s);

	len = len >= max ? max : len + 1 < 0 ? 0 : len + 1;
	start = start < 0 ? 0 : start > max ? max : start;
	if ((size_t)start >= slen || len == 0)
		return ret_str(vm, ret, buf, "", 0);
	slen -= (size_t)start;
	return ret_str(vm, ret, buf, a[0].s + start,
		       slen < (size_t)len - 1 ? slen : (size_t)len - 1);
}

static int b_stringat(struct vm *vm, struct lang_val *a, int n,
		      struct lang_val *ret, char *buf)
{
	int64_t pos = a[1].l;

	if (pos < 0 || (size_t)pos >= strlen(a[0].s)) {
		vm_raise(vm, "Position out of range");
		return -1;
	}
	ret->l = (unsigned char)a[0].s[pos];
	return 0;
}

static int b_isinstr(struct vm *vm, struct lang_val *a, int n,
		     struct lang_val *ret, char *buf)
{
	ret->l = strstr(a[0].s, a[1].s) != NULL;
	return 0;
}

static int b_strpos(struct vm *vm, struct lang_val *a, int n,
		    struct lang_val *ret, char *buf)
{
	const char *p = strstr(a[0].s, a[1].s);

	ret->l = p ? p - a[0].s : -1;
	return 0;
}

static int b_isdigit(struct vm *vm, struct lang_val *a, int n,
		     struct lang_val *ret, char *buf)
{
	ret->l = a[0].s[0] >= '0' && a[0].s[0] <= '9';
	return 0;
}

static int b_str_replace(struct vm *vm, struct lang_val *a, int n,
			 struct lang_val *ret, char *buf)
{
	const char *s = a[0].s, *srch = a[1].s, *rep = a[2].s, *p;
	size_t sl = strlen(srch), rl = strlen(rep), o = 0, c = cap(vm), k;

	if (!sl)
		return ret_str(vm, ret, buf, s, strlen(s));
	/* build in the scratch area: @buf may alias nothing we read */
	while ((p = strstr(s, srch)) && o < c) {
		k = (size_t)(p - s);
		k = k > c - o ? c - o : k;
		memcpy(vm->sbuf_tmp + o, s, k);
		o += k;
		k = rl > c - o ? c - o : rl;
		memcpy(vm->sbuf_tmp + o, rep, k);
		o += k;
		s = p + sl;
	}
	k = strlen(s);
	k = k > c - o ? c - o : k;
	memcpy(vm->sbuf_tmp + o, s, k);
	o += k;
	return ret_str(vm, ret, buf, vm->sbuf_tmp, o);
}

/* tokenize(input, delim): the next non-empty token; "" input goes on with
 * the previous one (tokenize.stp) */
static int b_tokenize(struct vm *vm, struct lang_val *a, int n,
		      struct lang_val *ret, char *buf)
{
	char *tok;

	if (a[0].s[0]) {
		snprintf(vm->tok_buf, vm->maxstr, "%s", a[0].s);
		vm->tok_pos = vm->tok_buf;
	}
	do {
		tok = vm->tok_pos ? strsep(&vm->tok_pos, a[1].s) : NULL;
	} while (tok && !*tok);
	return ret_str(vm, ret, buf, tok ? tok : "", tok ? strlen(tok) : 0);
}

static int b_strtol(struct vm *vm, struct lang_val *a, int n,
		    struct lang_val *ret, char *buf)
{
	if (a[1].l < 0 || a[1].l == 1 || a[1].l > 36) {
		vm_raise(vm, "invalid base %lld", (long long)a[1].l);
		return -1;
	}
	/* simple_strtol() wraps: a kernel address in hex is negative */
	ret->l = (int64_t)strtoull(a[0].s, NULL, (int)a[1].l);
	return 0;
}

/* _stp_text_str(): escape the non-printables, optionally quote */
static int text_str(struct vm *vm, const char *s, size_t len, bool quoted,
		    struct lang_val *ret, char *buf)
{
	static const char esc[] = "\a\b\f\n\r\t\v\"'\\";
	static const char rep[] = "abfnrtv\"'\\";
	size_t o = 0, c = cap(vm), i;
	char tmp[5];

	if (quoted)
		vm->sbuf_tmp[o++] = '"';
	for (i = 0; i < len && s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];
		const char *e = ch ? strchr(esc, ch) : NULL;
		size_t k;

		if (e)
			k = (size_t)snprintf(tmp, sizeof(tmp), "\\%c",
					     rep[e - esc]);
		else if (ch < 32 || ch >= 127)
			k = (size_t)snprintf(tmp, sizeof(tmp), "\\%03o", ch);
		else
			k = (size_t)snprintf(tmp, sizeof(tmp), "%c", ch);
		if (o + k + quoted > c) {
			if (quoted && o + 3 <= c) {
				memcpy(vm->sbuf_tmp + o, "...", 3);
				o += 3;
			}
			break;
		}
		memcpy(vm->sbuf_tmp + o, tmp, k);
		o += k;
	}
	if (quoted && o < c)
		vm->sbuf_tmp[o++] = '"';
	return ret_str(vm, ret, buf, vm->sbuf_tmp, o);
}

static int b_text_str(struct vm *vm, struct lang_val *a, int n,
		      struct lang_val *ret, char *buf)
{
	return text_str(vm, a[0].s, strlen(a[0].s), false, ret, buf);
}

static int b_text_strn(struct vm *vm, struct lang_val *a, int n,
		       struct lang_val *ret, char *buf)
{
	size_t len = a[1].l > 0 ? (size_t)a[1].l : strlen(a[0].s);

	return text_str(vm, a[0].s, len, a[2].l != 0, ret, buf);
}

static int b_string_quoted(struct vm *vm, struct lang_val *a, int n,
			   struct lang_val *ret, char *buf)
{
	return text_str(vm, a[0].s, strlen(a[0].s), true, ret, buf);
}

/*
 * __json_quote(s): @s as a JSON string literal, quotes included
 * (common/json.c's escaping, as the tools' -j output has it), for the
 * JSON tapset.  A literal longer than MAXSTRINGLEN quotes a shorter
 * prefix of @s: it is cut before an escape, never inside one.
 */
static int b_json_quote(struct vm *vm, struct lang_val *a, int n,
			struct lang_val *ret, char *buf)
{
	size_t len = strlen(a[0].s), qlen;
	char *q = NULL;

	for (;;) {
		FILE *f = open_memstream(&q, &qlen);

		if (!f)
			die("out of memory");
		json_quote(f, a[0].s, len);
		fclose(f);
		if (qlen <= cap(vm) || !len)
			break;
		len = len * cap(vm) / qlen;	/* < len: qlen > cap */
		free(q);
	}
	ret_str(vm, ret, buf, q, qlen);
	free(q);
	return 0;
}

/* matched(n): group n of the last =~ (regex.stp) */
static int b_matched(struct vm *vm, struct lang_val *a, int n,
		     struct lang_val *ret, char *buf)
{
	int64_t i = a[0].l;
	regmatch_t *m;

	if (!vm->matched || i < 0 || i >= 10 || vm->match[i].rm_so < 0) {
		vm_raise(vm, "There is no match or the index %lld is out of "
			 "range", (long long)i);
		return -1;
	}
	m = &vm->match[i];
	return ret_str(vm, ret, buf, vm->match_str + m->rm_so,
		       (size_t)(m->rm_eo - m->rm_so));
}

static int b_ngroups(struct vm *vm, struct lang_val *a, int n,
		     struct lang_val *ret, char *buf)
{
	int i;

	ret->l = 0;
	for (i = 0; vm->matched && i < 10 && vm->match[i].rm_so >= 0; i++)
		ret->l++;
	return 0;
}

/* ---- control ----------------------------------------------------------- */

static int b_exit(struct vm *vm, struct lang_val *a, int n,
		  struct lang_val *ret, char *buf)
{
	vm->exit_req = true;
	ret->l = 0;
	return 0;
}

static int b_error(struct vm *vm, struct lang_val *a, int n,
		   struct lang_val *ret, char *buf)
{
	vm_raise(vm, "%s", a[0].s);
	return -1;
}

static int b_warn(struct vm *vm, struct lang_val *a, int n,
		  struct lang_val *ret, char *buf)
{
	fprintf(stderr, "WARNING: %s\n", a[0].s);
	ret->l = 0;
	return 0;
}

static int b_log(struct vm *vm, struct lang_val *a, int n,
		 struct lang_val *ret, char *buf)
{
	fmt_sb_addstr(&vm->out, a[0].s);
	fmt_sb_addc(&vm->out, '\n');
	ret->l = 0;
	return 0;
}

static int b_randint(struct vm *vm, struct lang_val *a, int n,
		     struct lang_val *ret, char *buf)
{
	if (a[0].l <= 0 || a[0].l > 0xffffffffLL) {
		vm_raise(vm, "randint: n must be between 1 and 2**32-1");
		return -1;
	}
	ret->l = (int64_t)(random() % a[0].l);
	return 0;
}

/* ---- memory ------------------------------------------------------------ */

/*
 * The probe read the memory when the event happened (lang/elab_mem.c
 * appended what it read as the last argument; the first is the address,
 * for stap's message when the read faulted).
 */
static int mem_str(struct vm *vm, const char *space, const struct lang_val *a,
		   int n, int64_t max, struct lang_val *ret, char *buf)
{
	const struct lang_val *v = &a[n - 1];
	size_t len;

	if (v->l) {
		vm_raise(vm, "%s string copy fault at 0x%llx", space,
			 (unsigned long long)a[0].l);
		return -1;
	}
	len = strlen(v->s);
	if (max >= 0 && (uint64_t)max < len)
		len = (size_t)max;
	return ret_str(vm, ret, buf, v->s, len);
}

static int b_user_string(struct vm *vm, struct lang_val *a, int n,
			 struct lang_val *ret, char *buf)
{
	return mem_str(vm, "user", a, n, -1, ret, buf);
}

/* _n: at most n characters (n < 0 as 0, uconversions.stp) */
static int b_user_string_n(struct vm *vm, struct lang_val *a, int n,
			   struct lang_val *ret, char *buf)
{
	return mem_str(vm, "user", a, n, a[1].l < 0 ? 0 : a[1].l, ret, buf);
}

static int b_kernel_string(struct vm *vm, struct lang_val *a, int n,
			   struct lang_val *ret, char *buf)
{
	return mem_str(vm, "kernel", a, n, -1, ret, buf);
}

static int b_kernel_string_n(struct vm *vm, struct lang_val *a, int n,
			     struct lang_val *ret, char *buf)
{
	return mem_str(vm, "kernel", a, n, a[1].l < 0 ? 0 : a[1].l, ret, buf);
}

#define MEM_LONG_FN(fname)						\
static int fname(struct vm *vm, struct lang_val *a, int n,		\
		 struct lang_val *ret, char *buf)			\
{									\
	ret->l = a[n - 1].l;						\
	return 0;							\
}

MEM_LONG_FN(b_user_long)
MEM_LONG_FN(b_user_int)
MEM_LONG_FN(b_kernel_long)
MEM_LONG_FN(b_kernel_int)

/*
 * The width variants (user_int8(), user_ushort(), kernel_char()...): the
 * probe reads 8 bytes at the address (a long), and the low @bits of them
 * are the value, little-endian, sign-extended unless unsigned.  Reading
 * 8 bytes, such a read faults where fewer than 8 bytes are mapped after
 * the address (the last bytes of a mapping), where stap's would not.
 */
#define MEM_WIDTH_FN(fname, type)					\
static int fname(struct vm *vm, struct lang_val *a, int n,		\
		 struct lang_val *ret, char *buf)			\
{									\
	ret->l = (int64_t)(type)(uint64_t)a[n - 1].l;			\
	return 0;							\
}

MEM_WIDTH_FN(b_user_s8, int8_t)
MEM_WIDTH_FN(b_user_u8, uint8_t)
MEM_WIDTH_FN(b_user_s16, int16_t)
MEM_WIDTH_FN(b_user_u16, uint16_t)
MEM_WIDTH_FN(b_user_s32, int32_t)
MEM_WIDTH_FN(b_user_u32, uint32_t)
MEM_WIDTH_FN(b_user_s64, int64_t)
MEM_WIDTH_FN(b_kernel_s8, int8_t)
MEM_WIDTH_FN(b_kernel_s16, int16_t)
MEM_WIDTH_FN(b_kernel_s64, int64_t)

const struct builtin builtin_table[] = {
	/* context */
	{ "pid", L, 0, { 0 }, b_pid, NULL },
	{ "tid", L, 0, { 0 }, b_tid, NULL },
	{ "ppid", L, 0, { 0 }, b_ppid, NULL },
	{ "uid", L, 0, { 0 }, b_uid, NULL },
	{ "euid", L, 0, { 0 }, b_euid, NULL },
	{ "gid", L, 0, { 0 }, b_gid, NULL },
	{ "egid", L, 0, { 0 }, b_egid, NULL },
	{ "execname", S, 0, { 0 }, b_execname, NULL },
	{ "cpu", L, 0, { 0 }, b_cpu, NULL },
	{ "pp", S, 0, { 0 }, b_pp, NULL },
	{ "probefunc", S, 0, { 0 }, b_probefunc, NULL },
	{ "target", L, 0, { 0 }, b_target, NULL },
	{ "is_return", L, 0, { 0 }, b_is_return, NULL },
	{ "user_mode", L, 0, { 0 }, b_user_mode, NULL },
	/* time */
	{ "gettimeofday_s", L, 0, { 0 }, b_tod_s, NULL },
	{ "gettimeofday_ms", L, 0, { 0 }, b_tod_ms, NULL },
	{ "gettimeofday_us", L, 0, { 0 }, b_tod_us, NULL },
	{ "gettimeofday_ns", L, 0, { 0 }, b_tod_ns, NULL },
	{ "local_clock_ns", L, 0, { 0 }, b_clock_ns, NULL },
	{ "local_clock_us", L, 0, { 0 }, b_clock_us, NULL },
	{ "local_clock_ms", L, 0, { 0 }, b_clock_ms, NULL },
	{ "local_clock_s", L, 0, { 0 }, b_clock_s, NULL },
	{ "cpu_clock_ns", L, 1, { L }, b_clock_ns, NULL },
	{ "cpu_clock_us", L, 1, { L }, b_clock_us, NULL },
	{ "cpu_clock_ms", L, 1, { L }, b_clock_ms, NULL },
	{ "cpu_clock_s", L, 1, { L }, b_clock_s, NULL },
	{ "jiffies", L, 0, { 0 }, b_jiffies, NULL },
	{ "HZ", L, 0, { 0 }, b_hz, NULL },
	/* strings */
	{ "strlen", L, 1, { S }, b_strlen, NULL },
	{ "substr", S, 3, { S, L, L }, b_substr, NULL },
	{ "stringat", L, 2, { S, L }, b_stringat, NULL },
	{ "isinstr", L, 2, { S, S }, b_isinstr, NULL },
	{ "strpos", L, 2, { S, S }, b_strpos, NULL },
	{ "isdigit", L, 1, { S }, b_isdigit, NULL },
	{ "str_replace", S, 3, { S, S, S }, b_str_replace, NULL },
	{ "tokenize", S, 2, { S, S }, b_tokenize, NULL },
	{ "strtol", L, 2, { S, L }, b_strtol, NULL },
	{ "text_str", S, 1, { S }, b_text_str, NULL },
	{ "text_strn", S, 3, { S, L, L }, b_text_strn, NULL },
	{ "string_quoted", S, 1, { S }, b_string_quoted, NULL },
	{ "__json_quote", S, 1, { S }, b_json_quote, NULL },
	{ "matched", S, 1, { L }, b_matched, NULL },
	{ "ngroups", L, 0, { 0 }, b_ngroups, NULL },
	/* control and output */
	{ "exit", L, 0, { 0 }, b_exit, NULL },
	{ "error", L, 1, { S }, b_error, NULL },
	{ "warn", L, 1, { S }, b_warn, NULL },
	{ "log", L, 1, { S }, b_log, NULL },
	{ "randint", L, 1, { L }, b_randint, NULL },
	/* memory, read by the probe (lang/elab_mem.c) */
	{ "user_string", S, 1, { L }, b_user_string, NULL },
	{ "user_string_n", S, 2, { L, L }, b_user_string_n, NULL },
	{ "kernel_string", S, 1, { L }, b_kernel_string, NULL },
	{ "kernel_string_n", S, 2, { L, L }, b_kernel_string_n, NULL },
	{ "user_long", L, 1, { L }, b_user_long, NULL },
	{ "user_int", L, 1, { L }, b_user_int, NULL },
	{ "kernel_long", L, 1, { L }, b_kernel_long, NULL },
	{ "kernel_int", L, 1, { L }, b_kernel_int, NULL },
	{ "user_char", L, 1, { L }, b_user_s8, NULL },
	{ "user_short", L, 1, { L }, b_user_s16, NULL },
	{ "user_ushort", L, 1, { L }, b_user_u16, NULL },
	{ "user_int8", L, 1, { L }, b_user_s8, NULL },
	{ "user_uint8", L, 1, { L }, b_user_u8, NULL },
	{ "user_int16", L, 1, { L }, b_user_s16, NULL },
	{ "user_uint16", L, 1, { L }, b_user_u16, NULL },
	{ "user_int32", L, 1, { L }, b_user_s32, NULL },
	{ "user_uint32", L, 1, { L }, b_user_u32, NULL },
	{ "user_int64", L, 1, { L }, b_user_s64, NULL },
	{ "user_uint64", L, 1, { L }, b_user_s64, NULL },
	{ "kernel_char", L, 1, { L }, b_kernel_s8, NULL },
	{ "kernel_short", L, 1, { L }, b_kernel_s16, NULL },
	{ "kernel_pointer", L, 1, { L }, b_kernel_s64, NULL },
	/* stacks and symbols (lang/builtin_stack.c) */
	BUILTIN_STACK_ROWS,
	/* calendar and process (lang/builtin_sys.c) */
	BUILTIN_SYS_ROWS,
	/* tasks (lang/builtin_task.c) */
	BUILTIN_TASK_ROWS,
	/* floating point (lang/builtin_fp.c) */
	BUILTIN_FP_ROWS,
	/* what needs more than tapkit has */
	{ "bdevname", S, 1, { L }, NULL, "it reads the kernel's struct "
	  "block_device; the block tracepoints' dev field with MAJOR() and "
	  "MINOR() names the device" },
};

const size_t builtin_count = sizeof(builtin_table) / sizeof(builtin_table[0]);

int builtin_mem(const struct builtin *b)
{
	static const struct { builtin_fn fn; enum prov_mem kind; } mem[] = {
		{ b_user_string, PROV_MEM_USTRING },
		{ b_user_string_n, PROV_MEM_USTRING },
		{ b_kernel_string, PROV_MEM_KSTRING },
		{ b_kernel_string_n, PROV_MEM_KSTRING },
		{ b_user_long, PROV_MEM_ULONG },
		{ b_user_int, PROV_MEM_UINT },
		{ b_kernel_long, PROV_MEM_KLONG },
		{ b_kernel_int, PROV_MEM_KINT },
		{ b_user_s8, PROV_MEM_ULONG }, { b_user_u8, PROV_MEM_ULONG },
		{ b_user_s16, PROV_MEM_ULONG }, { b_user_u16, PROV_MEM_ULONG },
		{ b_user_s32, PROV_MEM_ULONG }, { b_user_u32, PROV_MEM_ULONG },
		{ b_user_s64, PROV_MEM_ULONG },
		{ b_kernel_s8, PROV_MEM_KLONG }, { b_kernel_s16, PROV_MEM_KLONG },
		{ b_kernel_s64, PROV_MEM_KLONG },
	};
	size_t i;

	for (i = 0; i < sizeof(mem) / sizeof(mem[0]); i++)
		if (b->fn == mem[i].fn)
			return (int)mem[i].kind;
	return -1;
}

bool builtin_uses_stack(const struct builtin *b)
{
	static const char *const names[] = {
		"backtrace", "ubacktrace", "print_backtrace",
		"print_ubacktrace", "sprint_backtrace", "sprint_ubacktrace",
		"print_ubacktrace_fileline", "sprint_ubacktrace_fileline",
		"print_ubacktrace_brief",
		"callers", "ucallers",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(b->name, names[i]))
			return true;
	return false;
}

const struct builtin *builtin_find(const char *name, int nargs, int *id)
{
	const struct builtin *any = NULL;
	size_t i;

	for (i = 0; i < builtin_count; i++) {
		if (strcmp(builtin_table[i].name, name))
			continue;
		if (builtin_table[i].nargs == nargs) {
			*id = (int)i;
			return &builtin_table[i];
		}
		if (!any) {
			*id = (int)i;
			any = &builtin_table[i];
		}
	}
	return any;
}
