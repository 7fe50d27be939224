// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel target variables from the running kernel's BTF.  Offsets are the
 * kernel's own: each expectation is computed here from libbpf directly
 * (a member's offset as pahole would print it), so the test holds on any
 * kernel with BTF and fails when kbtf.c walks a path wrongly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "common/kbtf.h"
#include "tests/unit/unit.h"

static struct btf *ref;		/* our own reading of the same BTF */
static struct kbtf *k;
static char err[256];

static bool setup(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		unit_skip = "requires: /sys/kernel/btf/vmlinux";
		return false;
	}
	if (!ref)
		ref = btf__load_vmlinux_btf();
	if (!k)
		k = kbtf_open(err, sizeof(err));
	CHECK(ref != NULL);
	CHECK(k != NULL);
	return ref && k;
}

/* Bit offset of @member in @t, looking into anonymous members; -1. */
static long bits_in(const struct btf_type *t, const char *member)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(ref, m[i].name_off);
		const struct btf_type *a;
		long o;

		if (*n) {
			if (!strcmp(n, member))
				return (long)btf_member_bit_offset(t, i);
			continue;
		}
		a = btf__type_by_id(ref, m[i].type);
		if (a && btf_is_composite(a) && (o = bits_in(a, member)) >= 0)
			return o + (long)btf_member_bit_offset(t, i);
	}
	return -1;
}

/* Byte offset of @member in struct @s (as pahole prints it); -1. */
static long off_of(const char *s, const char *member)
{
	int id = btf__find_by_name_kind(ref, s, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(ref, id) : NULL;
	long o = t ? bits_in(t, member) : -1;

	return o < 0 ? -1 : o / 8;
}

/* The size of the return type of function @f, 0 for void. */
static long ret_size(const char *f)
{
	int id = btf__find_by_name_kind(ref, f, BTF_KIND_FUNC);
	const struct btf_type *proto = btf__type_by_id(ref, btf__type_by_id(ref, id)->type);

	return proto->type ? (long)btf__resolve_size(ref, proto->type) : 0;
}

static struct tpath path_of(struct tstep *steps, size_t n)
{
	return (struct tpath){ .steps = steps, .nsteps = n };
}

static char *arg(const struct tval *v, size_t i)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s:%s", v->args[i].loc, v->args[i].type);
	return buf;
}

UNIT_TEST(params_of_do_sys_openat2)
{
	struct kbtf_var *v;
	size_t n;
	char *ret;

	if (!setup())
		return;
	CHECK_INT(kbtf_params(k, NULL, "do_sys_openat2", &v, &n, &ret, err,
			      sizeof(err)), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(v[0].name, "dfd");
		CHECK_STR(v[0].ctype, "int");
		CHECK_STR(v[1].name, "filename");
		CHECK_STR(v[1].ctype, "const char*");
		CHECK_STR(v[2].name, "how");
		CHECK_STR(v[2].ctype, "struct open_how*");
	}
	/* int in newer kernels, long in older ones */
	CHECK_STR(ret, ret_size("do_sys_openat2") == 4 ? "int" : "long int");
	kbtf_vars_free(v, n);
	free(ret);
	CHECK_INT(kbtf_params(k, NULL, "no_such_function_xyz", &v, &n, &ret,
			      err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "no function 'no_such_function_xyz' in the kernel's BTF");
}

UNIT_TEST(member_of_param)
{
	struct tstep s[] = { { TSTEP_MEMBER, "pid", 0 } };
	struct tpath p = path_of(s, 1);
	struct tval v;
	char want[64];

	if (!setup())
		return;
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p, &v, err,
			       sizeof(err)), 0);
	snprintf(want, sizeof(want), "+%ld($arg1):s32", off_of("task_struct", "pid"));
	CHECK_INT(v.nargs, 1);
	CHECK_INT(v.kind, TVAL_LONG);
	if (v.nargs == 1)
		CHECK_STR(arg(&v, 0), want);
	CHECK_STR(v.ctype, "pid_t");
	tval_release(&v);

	/* the parameter itself: a pointer */
	p.nsteps = 0;
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p, &v, err,
			       sizeof(err)), 0);
	CHECK_STR(arg(&v, 0), "$arg1:x64");
	CHECK_STR(v.ctype, "struct task_struct*");
	tval_release(&v);

	/* second parameter */
	CHECK_INT(kbtf_resolve(k, NULL, "do_sys_openat2", "filename", &p, &v,
			       err, sizeof(err)), 0);
	CHECK_STR(arg(&v, 0), "$arg2:x64");
	CHECK(v.args[0].is_char_ptr);
	tval_release(&v);
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "nosuch", &p, &v,
			       err, sizeof(err)), -ENOENT);
}

UNIT_TEST(chain_through_embedded_and_pointers)
{
	/* vfs_read(struct file *file, ...): file->f_path.dentry->d_name.name */
	struct tstep s[] = {
		{ TSTEP_MEMBER, "f_path", 0 }, { TSTEP_MEMBER, "dentry", 0 },
		{ TSTEP_MEMBER, "d_name", 0 }, { TSTEP_MEMBER, "name", 0 },
	};
	struct tpath p = path_of(s, 4);
	struct tval v;
	char want[128];
	long name_off;

	if (!setup())
		return;
	/* d_name.name: name is the first pointer after the hash/len union */
	name_off = off_of("dentry", "d_name") + off_of("qstr", "name");
	CHECK_INT(kbtf_resolve(k, NULL, "vfs_read", "file", &p, &v, err,
			       sizeof(err)), 0);
	snprintf(want, sizeof(want), "+%ld(+%ld($arg1)):x64", name_off,
		 off_of("file", "f_path") + off_of("path", "dentry"));
	if (v.nargs == 1)
		CHECK_STR(arg(&v, 0), want);
	CHECK_STR(v.ctype, "const unsigned char*");
	tval_release(&v);

	/* the same as a string: $file->...->name$ */
	p.pretty = 1;
	CHECK_INT(kbtf_resolve(k, NULL, "vfs_read", "file", &p, &v, err,
			       sizeof(err)), 0);
	CHECK_INT(v.kind, TVAL_PRETTY);
	CHECK_STR(v.fmt, "\"%1\"");
	snprintf(want, sizeof(want), "+0(+%ld(+%ld($arg1))):string", name_off,
		 off_of("file", "f_path") + off_of("path", "dentry"));
	if (v.nargs == 1)
		CHECK_STR(arg(&v, 0), want);
	tval_release(&v);
}

UNIT_TEST(char_array_index_address)
{
	struct tstep s[] = { { TSTEP_MEMBER, "comm", 0 }, { TSTEP_INDEX, NULL, 1 } };
	struct tpath p = path_of(s, 1);
	struct tval v;
	char want[64];
	long comm = off_of("task_struct", "comm");

	if (!setup())
		return;
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p, &v, err,
			       sizeof(err)), 0);
	/* as in stap, the array is its address (kernel_string() reads it) */
	CHECK_INT(v.kind, TVAL_LONG);
	CHECK_STR(arg(&v, 0), "$arg1:x64");
	CHECK_INT(v.add, comm);
	CHECK_STR(v.ctype, "char[16]");
	tval_release(&v);

	p.nsteps = 2;			/* $p->comm[1]: one char */
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p, &v, err,
			       sizeof(err)), 0);
	CHECK_INT(v.kind, TVAL_LONG);
	CHECK_INT(v.args[0].size, 1);
	snprintf(want, sizeof(want), "+%ld($arg1)", comm + 1);
	CHECK_STR(v.args[0].loc, want);
	tval_release(&v);

	p.nsteps = 1;			/* &$p->comm */
	p.addressof = true;
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p, &v, err,
			       sizeof(err)), 0);
	CHECK_STR(arg(&v, 0), "$arg1:x64");
	CHECK_INT(v.add, comm);
	CHECK_STR(v.ctype, "char[16]*");
	tval_release(&v);

	p.nsteps = 2;			/* out of bounds */
	p.addressof = false;
	s[1].index = 16;
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p, &v, err,
			       sizeof(err)), -ERANGE);
	CHECK_STR(err, "index 16 is out of the bounds of an array of 16");
}

UNIT_TEST(errors_name_the_type)
{
	struct tstep s[] = { { TSTEP_MEMBER, "nosuch", 0 } };
	struct tstep s2[] = { { TSTEP_MEMBER, "pid", 0 }, { TSTEP_MEMBER, "x", 0 } };
	struct tpath p = path_of(s, 1), p2 = path_of(s2, 2);
	struct tval v;

	if (!setup())
		return;
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p, &v, err,
			       sizeof(err)), -EINVAL);
	CHECK_STR(err, "no member 'nosuch' in 'struct task_struct'");
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p2, &v, err,
			       sizeof(err)), -EINVAL);
	CHECK_STR(err, "'pid_t' is not a struct or union, it has no member 'x'");
}

UNIT_TEST(return_value)
{
	struct tpath p = { 0 };
	struct tval v;

	if (!setup())
		return;
	CHECK_INT(kbtf_resolve(k, NULL, "do_sys_openat2", "return", &p, &v,
			       err, sizeof(err)), 0);
	CHECK_STR(arg(&v, 0), ret_size("do_sys_openat2") == 4 ?
		  "$retval:s32" : "$retval:s64");
	CHECK_STR(v.ctype, ret_size("do_sys_openat2") == 4 ? "int" : "long int");
	tval_release(&v);
}

UNIT_TEST(cast_to_task_struct)
{
	struct tstep s[] = { { TSTEP_MEMBER, "tgid", 0 } };
	struct tpath p = path_of(s, 1);
	struct tplace ptr;
	struct tval v;
	char want[64];

	if (!setup())
		return;
	tplace_parse("$arg1", &ptr);
	CHECK_INT(kbtf_cast(k, "kernel", "task_struct", &ptr, &p, &v, err,
			    sizeof(err)), 0);
	snprintf(want, sizeof(want), "+%ld($arg1):s32", off_of("task_struct", "tgid"));
	CHECK_STR(arg(&v, 0), want);
	tval_release(&v);
	CHECK_INT(kbtf_cast(k, NULL, "struct task_struct", &ptr, &p, &v, err,
			    sizeof(err)), 0);
	CHECK_STR(arg(&v, 0), want);
	tval_release(&v);
	CHECK_INT(kbtf_cast(k, NULL, "no_such_type_t", &ptr, &p, &v, err,
			    sizeof(err)), -ENOENT);
	CHECK_STR(err, "no type 'no_such_type_t' in the BTF of the kernel");
	tplace_release(&ptr);
}

UNIT_TEST(pretty_struct)
{
	struct tpath p = { .pretty = 1 };
	struct tval v;
	char want[64];

	if (!setup())
		return;
	/* struct open_how { __u64 flags; __u64 mode; __u64 resolve; } */
	CHECK_INT(kbtf_resolve(k, NULL, "do_sys_openat2", "how", &p, &v, err,
			       sizeof(err)), 0);
	CHECK_INT(v.kind, TVAL_PRETTY);
	CHECK_STR(v.fmt, "{.flags=%1, .mode=%2, .resolve=%3}");
	CHECK_INT(v.nargs, 3);
	snprintf(want, sizeof(want), "+%ld($arg3):u64", off_of("open_how", "mode"));
	if (v.nargs == 3)
		CHECK_STR(arg(&v, 1), want);
	tval_release(&v);
}

UNIT_TEST(bitfield)
{
	/* the first bitfield of task_struct, found here independently */
	int id = 0;
	const struct btf_type *t;
	const struct btf_member *m;
	struct tstep s[1];
	struct tpath p = path_of(s, 1);
	struct tval v;
	char want[64];
	int i, bits = 0;
	unsigned int off = 0;

	if (!setup())
		return;
	id = btf__find_by_name_kind(ref, "task_struct", BTF_KIND_STRUCT);
	t = btf__type_by_id(ref, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++)
		if ((bits = (int)btf_member_bitfield_size(t, i)) &&
		    *btf__name_by_offset(ref, m[i].name_off))
			break;
	if (i == btf_vlen(t)) {
		unit_skip = "requires: a bitfield in task_struct";
		return;
	}
	off = btf_member_bit_offset(t, i);
	s[0] = (struct tstep){ TSTEP_MEMBER, btf__name_by_offset(ref, m[i].name_off), 0 };
	CHECK_INT(kbtf_resolve(k, NULL, "wake_up_process", "p", &p, &v, err,
			       sizeof(err)), 0);
	snprintf(want, sizeof(want), "+%u($arg1):b%d@%u/", off / 8, bits, off % 8);
	CHECK(!strncmp(arg(&v, 0), want, strlen(want)));
	tval_release(&v);
}

UNIT_MAIN()

/* The parameter after a struct passed by value in two registers (a
 * sockptr_t) is the one after them. */
UNIT_TEST(param_after_struct_by_value)
{
	struct tpath p = path_of(NULL, 0);
	int id;
	const struct btf_type *proto;
	const struct btf_param *bp;
	struct tval v;

	if (!setup())
		return;
	id = btf__find_by_name_kind(ref, "tcp_setsockopt", BTF_KIND_FUNC);
	if (id <= 0) {
		unit_skip = "requires: tcp_setsockopt in the kernel's BTF";
		return;
	}
	proto = btf__type_by_id(ref, btf__type_by_id(ref, id)->type);
	bp = btf_params(proto);
	CHECK_INT(kbtf_resolve(k, NULL, "tcp_setsockopt", "optlen", &p, &v, err,
			       sizeof(err)), 0);
	/* sk, level, optname, then optval: 16 bytes since 5.9 (sockptr_t) */
	CHECK_STR(arg(&v, 0), btf__resolve_size(ref, bp[3].type) == 16 ?
		  "$arg6:u32" : "$arg5:u32");
	tval_release(&v);
	CHECK_INT(kbtf_resolve(k, NULL, "tcp_setsockopt", "optval", &p, &v, err,
			       sizeof(err)), btf__resolve_size(ref, bp[3].type) == 16 ?
		  -EINVAL : 0);
	tval_release(&v);
}

/* @cast(p - 8, "T")->m and @cast(p, "T")[1]->m: the offset and a first
 * index move the object. */
UNIT_TEST(cast_offset_and_first_index)
{
	struct tstep s[] = { { TSTEP_MEMBER, "prev", 0 } };
	struct tstep ix[] = { { TSTEP_INDEX, NULL, 2 }, { TSTEP_MEMBER, "prev", 0 } };
	struct tpath p = path_of(s, 1);
	struct tplace ptr;
	struct tval v;

	if (!setup())
		return;
	tplace_parse("$arg1", &ptr);
	p.off = -8;
	CHECK_INT(kbtf_cast(k, NULL, "struct list_head", &ptr, &p, &v, err,
			    sizeof(err)), 0);
	CHECK_STR(arg(&v, 0), "+0($arg1):x64");
	tval_release(&v);
	p = path_of(ix, 2);
	CHECK_INT(kbtf_cast(k, NULL, "struct list_head", &ptr, &p, &v, err,
			    sizeof(err)), 0);
	CHECK_STR(arg(&v, 0), "+40($arg1):x64");
	tval_release(&v);
	/* the address alone: the pointer plus the offset, added in user space */
	p = path_of(ix, 2);
	p.addressof = true;
	CHECK_INT(kbtf_cast(k, NULL, "struct list_head", &ptr, &p, &v, err,
			    sizeof(err)), 0);
	CHECK_STR(v.args[0].loc, "$arg1");
	CHECK_INT(v.add, 40);
	tval_release(&v);
	tplace_release(&ptr);
}
