#!/usr/bin/env bats
# tapkit scripts on kernel source files and lines, from the kernel's DWARF
# (a debug vmlinux, as Debian's linux-image-<abi>-dbg installs it; tests/vm/run
# provides it in the guest).  The workloads are the tests' own: kopen opens
# a path of the test a known number of times; mkdir makes one directory.
# The lines probed are found through tapkit -L on the kernel at hand (the
# line of do_sys_openat2 where the local $tmp, the kernel's copy of the
# name, is live), not written in, so the tests hold across kernel builds.
# Without the debug vmlinux, every point by source is one located error
# naming the package to install.

load helpers

KOPEN=$TAPKIT_TOP/build/tests/helpers/kopen

setup() {
	require_root
	[ -x "$KOPEN" ] || { echo "# $KOPEN missing: run make tests-build" >&2; return 1; }
	P=$BATS_TEST_TMPDIR/tk_dwfile
	: >"$P"
}

teardown() {
	stop_leftover_tool
}

# The debug vmlinux tapkit would read, or nothing.
debug_vmlinux() {
	local r f
	r=$(uname -r)
	for f in /usr/lib/debug/boot/vmlinux-$r /usr/lib/debug/lib/modules/$r/vmlinux \
		/boot/vmlinux-$r /lib/modules/$r/build/vmlinux; do
		if [ -r "$f" ]; then
			echo "$f"
			return
		fi
	done
}

require_kdwarf() {
	require_kprobe_events || return 1
	if [ -z "$(debug_vmlinux)" ]; then
		if [ -n "${TAPKIT_VM:-}" ]; then
			echo "# TAPKIT_VM is set but the guest has no /usr/lib/debug/boot/vmlinux-$(uname -r)" >&2
			return 1
		fi
		skip "requires: the kernel's DWARF (linux-image-$(uname -r)-dbg)"
	fi
}

# The -L lines of do_sys_openat2's statements, from its declaration on.
openat2_lines() {
	local decl
	decl=$(tapkit -L 'kernel.function("do_sys_openat2@fs/open.c").call' |
		sed -n 's/^kernel.function("do_sys_openat2@fs\/open.c:\([0-9]*\)").*/\1/p')
	[ -n "$decl" ] || { echo "# no do_sys_openat2 in the kernel's DWARF" >&2; return 1; }
	tapkit -L "kernel.statement(\"do_sys_openat2@fs/open.c:$decl-$((decl + 40))\")"
}

# The first line of do_sys_openat2 where $tmp (struct filename *) is live.
tmp_line() {
	openat2_lines | grep -m1 ' \$tmp:struct filename \*' |
		sed -n 's/^kernel.statement("do_sys_openat2@fs\/open.c:\([0-9]*\)").*/\1/p'
}

@test "tapkit kdwarf: without the debug vmlinux, points by source are located errors naming the package" {
	[ -z "$(debug_vmlinux)" ] || skip "the kernel's DWARF is installed: this is the error without it"
	local want="install linux-image-$(uname -r)-dbg"
	run_pid tapkit -e 'probe kernel.function("do_sys_openat2@fs/open.c") { print($dfd) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == "<input>:1:7: error: kernel.function(\"do_sys_openat2@fs/open.c\"): the kernel's DWARF debug info is not installed (looked for /usr/lib/debug/boot/vmlinux-$(uname -r), "*"; $want or your distribution's kernel debug package)" ]] ||
		{ echo "$stderr" >&2; false; }
	[ -z "$output" ]
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kernel.statement("do_sys_openat2@fs/open.c:1320") { print(1) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == "<input>:1:7: error: kernel.statement(\"do_sys_openat2@fs/open.c:1320\"): the kernel's DWARF"*"$want"* ]] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kernel.function("getname@fs/namei.c").inline { print(1) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == "<input>:1:7: error: kernel.function(\"getname@fs/namei.c\"): the kernel's DWARF"*"$want"* ]] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit kdwarf: kernel.function(\"f@file\") with DWARF parameters, and -L with the declaring line" {
	require_kdwarf
	run_pid tapkit -L 'kernel.function("do_sys_openat2@fs/open.c")'
	[ "$status" -eq 0 ]
	[[ "$output" == 'kernel.function("do_sys_openat2@fs/open.c:'[0-9]*'") $dfd:int $filename:const char * $how:struct open_how *'* ]] ||
		{ echo "$output" >&2; false; }
	start_tool tapkit -e 'probe kernel.function("do_sys_openat2@fs/open.c") {
	if (user_string($filename) == @1)
		printf("entry %s dfd=%d %s\n", probefunc(), $dfd, user_string($filename))
}' "$P"
	"$KOPEN" "$P" 3
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -cx "entry do_sys_openat2 dfd=-100 $P" "$OUT")" -eq 3 ] || { show_output; false; }
	assert_clean
}

@test "tapkit kdwarf: a statement probe reads a local, a member through it and a stack struct's member, exact hits" {
	require_kdwarf
	local line
	line=$(tmp_line)
	[ -n "$line" ] || { openat2_lines >&2; false; }
	start_held "$KOPEN" wait-stdin "$P" 3
	start_tool tapkit -x "$WL_PID" -e 'global n
probe kernel.statement(@1) {
	if (pid() == target()) {
		n++
		printf("%s dfd=%d intent=%d\n", kernel_string($tmp->name), $dfd, $op->intent)
	}
}
probe end { printf("hits %d\n", n) }' "do_sys_openat2@fs/open.c:$line"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# LOOKUP_OPEN is 0x100
	[ "$(grep -cx "$P dfd=-100 intent=256" "$OUT")" -eq 3 ] || { show_output; false; }
	grep -qx "hits 3" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tapkit kdwarf: a line range and .nearest give the lines that have code" {
	require_kdwarf
	local lines a b
	lines=$(openat2_lines | sed -n 's/^kernel.statement("do_sys_openat2@fs\/open.c:\([0-9]*\)").*/\1/p' | sort -nu)
	# two lines with code with a line without between them
	read -r a b < <(echo "$lines" | awk 'NR > 1 && $1 > prev + 1 { print prev, $1; exit } { prev = $1 }')
	[ -n "$b" ] || { echo "$lines" >&2; false; }
	run_pid tapkit -L "kernel.statement(\"do_sys_openat2@fs/open.c:$((a + 1))\").nearest"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "kernel.statement(\"do_sys_openat2@fs/open.c:$b\")"* ]] || { echo "$output" >&2; false; }
	run_pid tapkit -L "kernel.statement(\"do_sys_openat2@fs/open.c:$((a + 1))-$b\")"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | sed 's/").*/")/' | sort -u)" = "kernel.statement(\"do_sys_openat2@fs/open.c:$b\")" ] ||
		{ echo "$output" >&2; false; }
}

@test "tapkit kdwarf: @var reads a kernel global at its running address" {
	require_kdwarf
	local want
	want=$(cat /proc/sys/kernel/pid_max)
	start_held "$KOPEN" wait-stdin "$P" 1
	start_tool tapkit -x "$WL_PID" -e 'probe kernel.function("do_sys_openat2") {
	if (pid() == target()) {
		printf("pid_max=%d\n", @var("pid_max@kernel/pid.c"))
		exit()
	}
}'
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -qx "pid_max=$want" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tapkit kdwarf: .inline probes the places a function was inlined, once per call" {
	require_kdwarf
	local d=$BATS_TEST_TMPDIR/tk_dwdir
	run_pid tapkit -L 'kernel.function("getname@fs/namei.c").inline'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == 'kernel.function("getname@fs/namei.c:'[0-9]*'").inline'* ]] || { echo "$output" >&2; false; }
	start_held sh -c 'read x; exec mkdir "$0"' "$d"
	start_tool tapkit -x "$WL_PID" -e 'global n
probe kernel.function("getname@fs/namei.c").inline { if (pid() == target()) n++ }
probe end { printf("hits %d\n", n) }'
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ -d "$d" ]
	grep -qx "hits 1" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tapkit kdwarf: .inline without a source file is a located error, DWARF or not" {
	run_pid tapkit -e 'probe kernel.function("vfs_read").inline { print(1) }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = '<input>:1:7: error: kernel.function("vfs_read").inline needs a source file: "vfs_read@FILE" (the file the instances are in), or "vfs_read@*" to read all of the kernel'"'"'s DWARF' ] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit kdwarf: a line without code and a local optimized away are located errors, nothing left" {
	require_kdwarf
	run_pid tapkit -e 'probe kernel.statement("do_sys_openat2@fs/open.c:1") { print(1) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == '<input>:1:7: error: kernel.statement("do_sys_openat2@fs/open.c:1"): no code at do_sys_openat2@fs/open.c:1 (nearest line'* ]] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kernel.function("do_sys_openat2@fs/open.c") { print($tmp) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == "<input>:1:59: error: 'tmp' is optimized out at 0x"* ]] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit kdwarf: a blacklisted or notrace function is refused with the reason, nothing left" {
	require_kdwarf
	run_pid tapkit -e 'probe kernel.function("notify_die@kernel/notifier.c").call { print(1) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == '<input>:1:7: error: kernel.function("notify_die@kernel/notifier.c"): notify_die@kernel/notifier.c:'[0-9]*": 'notify_die' is on the kernel's kprobe blacklist" ]] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kernel.function("sched_clock_cpu@kernel/sched/clock.c").call { print(1) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == '<input>:1:7: error: kernel.function("sched_clock_cpu@kernel/sched/clock.c"): sched_clock_cpu@kernel/sched/clock.c:'[0-9]*": 'sched_clock_cpu' is notrace (not in available_filter_functions): kprobe events cannot go there" ]] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
}
