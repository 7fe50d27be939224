#!/usr/bin/env bats
# kprobe's options, definition errors and --help, and the checks made before
# anything is defined (kallsyms, BTF), which need no kprobe events; nothing
# here traces.

bats_require_minimum_version 1.5.0

load ../elf

hint="Try 'kprobe --help' for more information."
TRACEFS=/sys/kernel/tracing

require_btf() {
	[ -r /sys/kernel/btf/vmlinux ] || skip "requires: /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)"
}

@test "kprobe: -h and --help print usage with examples on stdout" {
	for h in -h --help; do
		run --separate-stderr kprobe "$h"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *"USAGE: kprobe [-FhHsvj] [-d SECS] [-p PID] [-t TID] [-b KB]"* ]]
		[[ "$output" == *"'p|r:[NAME ]FUNC[+OFF] [ARGS]' [filter]"* ]]
		[[ "$output" == *"EXAMPLES:"* ]]
		[[ "$output" == *"kprobe 'r:myopen do_sys_openat2 \$retval'"* ]]
	done
}

@test "kprobe: option errors exit 2 with one reason" {
	expect_error 2 "kprobe: invalid option '-Q'"$'\n'"$hint" kprobe -Q
	expect_error 2 "kprobe: invalid option '--nope'"$'\n'"$hint" kprobe --nope
	expect_error 2 "kprobe: option '-p' needs an argument"$'\n'"$hint" kprobe -p
	expect_error 2 "kprobe: invalid number for -d: 'x'"$'\n'"$hint" kprobe -d x p:vfs_read
	expect_error 2 "kprobe: -p must be between 1 and 1073741824: '0'"$'\n'"$hint" kprobe -p 0 p:vfs_read
	expect_error 2 "kprobe: -p and -t cannot be used together"$'\n'"$hint" kprobe -p 1 -L 1 p:vfs_read
	expect_error 2 "kprobe: no kprobe definition given (p:FUNC or r:FUNC)"$'\n'"$hint" kprobe
	expect_error 2 "kprobe: no kprobe definition given (p:FUNC or r:FUNC)"$'\n'"$hint" kprobe -F -s
	expect_error 2 "kprobe: -v and -d cannot be used together"$'\n'"$hint" kprobe -v -d 1 p:vfs_read
	expect_error 2 "kprobe: unexpected argument 'x' (quote the definition and the filter)"$'\n'"$hint" \
		kprobe p:vfs_read 'count > 1' x
}

@test "kprobe: definition errors exit 2 with one reason" {
	expect_error 2 "kprobe: definition must start with p: or r:, not 'x:vfs_read'"$'\n'"$hint" kprobe x:vfs_read
	expect_error 2 "kprobe: definition must start with p: or r:, not 'vfs_read'"$'\n'"$hint" kprobe vfs_read
	expect_error 2 "kprobe: no function in 'p:'"$'\n'"$hint" kprobe 'p:'
	expect_error 2 "kprobe: no function in 'r: '"$'\n'"$hint" kprobe 'r: '
	expect_error 2 "kprobe: one function, not a pattern: 'vfs_*'"$'\n'"$hint" kprobe 'p:vfs_*'
	expect_error 2 "kprobe: one function, not a pattern: 'vfs_rea[d]'"$'\n'"$hint" kprobe -F 'p:ev vfs_rea[d]'
	expect_error 2 "kprobe: the event group is kprobe's own: give only an event name, not 'g/e'"$'\n'"$hint" \
		kprobe 'p:g/e vfs_read'
	expect_error 2 "kprobe: event name must be a C identifier, not '1x'"$'\n'"$hint" kprobe 'p:1x vfs_read'
}

@test "kprobe: a function kallsyms lacks is refused before anything else" {
	expect_error 1 "kprobe: no kernel function 'tk_no_such_function'" kprobe p:tk_no_such_function
	expect_error 1 "kprobe: no kernel function 'tk_no_such_function'" \
		kprobe -v 'r:myev tk_no_such_function+0x10 $retval'
	expect_error 1 "kprobe: bad offset in 'vfs_read+x': a number, e.g. vfs_read+0x10" kprobe p:vfs_read+x
}

@test "kprobe: a compiler-renamed function is pointed out" {
	local sym base
	# a name kallsyms has only as NAME.isra.N or NAME.constprop.N
	sym=$(awk '$2 ~ /^[tT]$/ && $3 ~ /^[a-z_0-9]+\.(isra|constprop)\.[0-9]+$/ && $3 !~ /^__pfx_/ { print $3 }' /proc/kallsyms |
		while read -r s; do
			b=${s%%.*}
			grep -qE "^[0-9a-f]+ [tTwW] $b( |\$)" /proc/kallsyms || { echo "$s"; break; }
		done)
	[ -n "$sym" ] || { echo "# no NAME.isra.N or NAME.constprop.N without NAME in kallsyms"; false; }
	base=${sym%%.*}
	run --separate-stderr kprobe "p:$base"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kprobe: no kernel function '$base' (the compiler renamed it: $base."* ]]
}

@test "kprobe: parameter names are checked against BTF" {
	require_btf
	expect_error 2 "kprobe: 'bogus' is not a parameter of do_sys_openat2(dfd, filename, how)"$'\n'"$hint" \
		kprobe 'p:do_sys_openat2 dfd bogus'
	expect_error 2 "kprobe: 'x' is not a parameter of do_sys_openat2(dfd, filename, how)"$'\n'"$hint" \
		kprobe 'p:myev do_sys_openat2 f=x:u32' 'f == 1'
	expect_error 2 "kprobe: parameters are gone at the return of do_sys_openat2: use \$retval, or a p: probe for 'dfd'"$'\n'"$hint" \
		kprobe 'r:do_sys_openat2 dfd'
	expect_error 2 "kprobe: parameter names are known at the entry of do_sys_openat2 only, not at 'do_sys_openat2+4'"$'\n'"$hint" \
		kprobe 'p:do_sys_openat2+4 filename'
	expect_error 2 "kprobe: kfree returns void: no \$retval to fetch"$'\n'"$hint" kprobe 'r:kfree $retval'
}

@test "kprobe: a function not in BTF cannot have parameter names" {
	require_btf
	local f
	# a text symbol with no BTF FUNC: an assembly entry point (-F: it is
	# on the kprobes blacklist where debugfs shows one)
	f=entry_SYSCALL_64
	grep -qE "^[0-9a-f]+ [tT] $f\$" /proc/kallsyms || skip "no $f in kallsyms"
	expect_error 1 "kprobe: no function '$f' in the kernel's BTF" kprobe -F "p:$f regs"
}

@test "kprobe: without kprobe events in the kernel, one reason and exit 1" {
	[ ! -e "$TRACEFS/kprobe_events" ] || skip "this kernel has kprobe events (tests/live/kprobe.bats traces)"
	[ "$(id -u)" = 0 ] || skip "requires: root"
	local msg="kprobe: this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)"
	expect_error 1 "$msg" kprobe p:do_sys_openat2
	expect_error 1 "$msg" kprobe -v 'r:myopen do_sys_openat2 $retval'
	expect_error 1 "$msg" kprobe -s -p 1 'p:vfs_read count' 'count > 100'
	# -F: nothing checked, the kernel's lack is the reason
	expect_error 1 "$msg" kprobe -F p:tk_no_such_function
	if [ -r /sys/kernel/btf/vmlinux ]; then
		expect_error 1 "$msg" kprobe 'p:do_sys_openat2 dfd filename how'
		expect_error 1 "$msg" kprobe 'r:do_sys_openat2 $retval'
	fi
}
