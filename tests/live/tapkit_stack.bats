#!/usr/bin/env bats
# Stacks in tapkit scripts: perf callchains of tracepoint probes, named
# through the symbols of tests/helpers/stackprog (main -> a -> b -> c, c
# makes the getppid system call; -O0 with frame pointers), as a PIE, as a
# fixed-address executable, through its own shared library and through
# code it writes at run time; printed while it runs and after it exited.
# Expected names, sizes and lines come from binutils and the source.

load helpers

HELPERS=$TAPKIT_TOP/build/tests/helpers
PROG=$HELPERS/stackprog
GETPPID='kernel.trace("syscalls:sys_enter_getppid")'

setup() {
	require_root
	require_tracefs_file events/syscalls/sys_enter_getppid
	[ -x "$PROG" ] || skip "requires: $PROG (make tests-build)"
	JITMAP=
}

teardown() {
	[ -z "$JITMAP" ] || rm -f "$JITMAP"
}

# nm's size of function $2 in $1, as the 0x... a stack line shows
nm_size() {
	printf '0x%x' "0x$(nm -S --defined-only "$1" | awk -v s="$2" '$4 == s { print $2 }')"
}

# the first frames of a user stack: "NAME MODULE" per line
frames() {
	printf '%s\n' "$output" | sed -n 's/^ 0x[0-9a-f]* : \([^+]*\)+0x[0-9a-f]*\/0x[0-9a-f]* \[\(.*\)\]$/\1 \2/p'
}

@test "print_ubacktrace names c, b, a, main of a PIE with sizes from its symbol table" {
	run_pid tapkit -c "$PROG main" -e "probe $GETPPID { if (pid() == target()) { print_ubacktrace(); exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	printf '%s\n' "$output" | head -4 >"$BATS_TEST_TMPDIR/top"
	frames | head -4 | diff - <(printf '%s %s\n' c "$PROG" b "$PROG" a "$PROG" main "$PROG")
	# c+OFF/SIZE: SIZE is c's st_size and OFF lies inside it
	local line size off
	line=$(head -1 "$BATS_TEST_TMPDIR/top")
	size=$(nm_size "$PROG" c)
	[[ "$line" =~ ^\ 0x[0-9a-f]+\ :\ c\+(0x[0-9a-f]+)/$size\ \[ ]] || { show_run; false; }
	off=${BASH_REMATCH[1]}
	(( off > 0 && off < size ))
	[[ "$(sed -n 2p "$BATS_TEST_TMPDIR/top")" =~ " : b+0x"[0-9a-f]+"/$(nm_size "$PROG" b) [" ]]
	# a PIE is loaded high, not at its link-time addresses
	[[ "$line" =~ ^\ 0x(5|7)[0-9a-f]{11}\  ]]
	assert_clean "$RUN_PID"
}

@test "a fixed-address executable's frames at its link-time addresses" {
	local prog=$HELPERS/stackprog-nopie c_addr
	run_pid tapkit -c "$prog main" -e "probe $GETPPID { if (pid() == target()) { print_ubacktrace(); exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	frames | head -4 | diff - <(printf '%s %s\n' c "$prog" b "$prog" a "$prog" main "$prog")
	# the first address is c's st_value plus the printed offset
	c_addr=$(nm "$prog" | awk '$3 == "c" { print $1 }')
	[[ "$output" =~ ^\ (0x[0-9a-f]+)\ :\ c\+(0x[0-9a-f]+)/ ]]
	(( BASH_REMATCH[1] == 0x$c_addr + BASH_REMATCH[2] ))
}

@test "a frame in the program's own shared library" {
	local lib=$HELPERS/libtkstack.so
	run_pid tapkit -c "$PROG lib" -e "probe $GETPPID { if (pid() == target()) { print_ubacktrace(); exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	frames | head -5 | diff - <(printf '%s %s\n' tkstack_lib "$lib" c "$PROG" b "$PROG" a "$PROG" main "$PROG")
	[[ "$output" =~ " : tkstack_lib+0x"[0-9a-f]+"/$(nm_size "$lib" tkstack_lib) [" ]]
}

@test "a stack kept as ubacktrace() is named in end, after the program exited" {
	run_pid tapkit -c "$PROG main 200" -e "
global s, p
probe $GETPPID { if (pid() == target()) { s[ubacktrace()] = 1; p = pid() } }
probe end { printf(\"pid %d\\n\", p); foreach (k in s) { printf(\"%s\\n\", k); print_ustack(k) } }"
	[ "$status" = 0 ] || { show_run; false; }
	local pid hexes
	pid=$(sed -n 's/^pid //p' <<<"$output")
	[ -n "$pid" ] && [ ! -e "/proc/$pid" ]
	# the key: hex addresses, one space apart, no space at either end
	hexes=$(sed -n 2p <<<"$output")
	[[ "$hexes" =~ ^0x[0-9a-f]+(\ 0x[0-9a-f]+){4,}$ ]] || { show_run; false; }
	# print_ustack(): " TOKEN : usymdata\n" per address
	frames | head -4 | diff - <(printf '%s %s\n' c "$PROG" b "$PROG" a "$PROG" main "$PROG")
	[ "$(sed -n 3p <<<"$output" | cut -d' ' -f2)" = "${hexes%% *}" ]
}

@test "sprint_ubacktrace, usymname, usymdata and ubacktrace of one event agree" {
	run_pid tapkit -c "$PROG main" -e "probe $GETPPID { if (pid() == target()) {
	bt = ubacktrace(); top = strtol(tokenize(bt, \" \"), 16)
	printf(\"%s|%s|%s\\n\", usymname(top), usymdata(top), tokenize(\"\", \" \"))
	printf(\"[%s]\\n\", sprint_ubacktrace())
	exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	local base=${PROG##*/}
	[[ "${lines[0]}" =~ ^c\|c\+0x[0-9a-f]+/$(nm_size "$PROG" c)\ \[$PROG\]\|0x[0-9a-f]+$ ]] || { show_run; false; }
	[[ "${lines[1]}" =~ ^\[c\+0x[0-9a-f]+\ \[$base\]$ ]]
	[[ "${lines[2]}" =~ ^b\+0x[0-9a-f]+\ \[$base\]$ ]]
	[[ "${lines[3]}" =~ ^a\+0x[0-9a-f]+\ \[$base\]$ ]]
	[[ "${lines[4]}" =~ ^main\+0x[0-9a-f]+\ \[$base\]$ ]]
	# the string has no newline after its last line
	[[ "${lines[-1]}" =~ \]\]$ ]]
}

@test "print_ubacktrace_fileline gives the lines of the calls" {
	local src=$TAPKIT_TOP/tests/helpers/stackprog.c lb la
	lb=$(grep -n 'return c() + 1;' "$src" | cut -d: -f1)
	la=$(grep -n 'return b() + 1;' "$src" | cut -d: -f1)
	run_pid tapkit -c "$PROG main" -e "probe $GETPPID { if (pid() == target()) { print_ubacktrace_fileline(); exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	[[ "${lines[1]}" =~ " : b+0x"[0-9a-f]+/0x[0-9a-f]+" at "(.*/)?"tests/helpers/stackprog.c:$lb [$PROG]"$ ]] || { show_run; false; }
	[[ "${lines[2]}" =~ " : a+0x"[0-9a-f]+/0x[0-9a-f]+" at "(.*/)?"tests/helpers/stackprog.c:$la [$PROG]"$ ]]
}

@test "code named only by /tmp/perf-PID.map, and code nothing names" {
	run_pid tapkit -c "$PROG jit" -e "probe $GETPPID { if (pid() == target()) { printf(\"pid %d\\n\", pid()); print_ubacktrace(); exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	JITMAP=/tmp/perf-${lines[0]#pid }.map
	[[ "${lines[1]}" =~ ^\ 0x[0-9a-f]+\ :\ tk_jit\+0xb/0xd\ \[$JITMAP\]$ ]] || { show_run; false; }
	[[ "${lines[2]}" =~ " : jit_call+0x" ]]
	[[ "${lines[3]}" =~ " : c+0x" ]]

	run_pid tapkit -c "$PROG anon" -e "probe $GETPPID { if (pid() == target()) { print_ubacktrace(); exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	[[ "${lines[0]}" =~ ^\ 0x[0-9a-f]+$ ]] || { show_run; false; }
	[[ "${lines[1]}" =~ " : jit_call+0x" ]]
}

@test "print_backtrace names the kernel's clone path" {
	# the first text symbol (per-cpu symbols are at 0 on their own)
	[ "$(awk '$2 == "T" { print $1; exit }' /proc/kallsyms)" != 0000000000000000 ] ||
		skip "requires: kernel addresses in /proc/kallsyms (kptr_restrict)"
	run_pid tapkit -c "sh -c '/bin/true; /bin/true'" -e 'probe kernel.trace("sched:sched_process_fork") {
	if (pid() == target()) { print_backtrace(); printf("%s\n", backtrace()); exit() } }'
	[ "$status" = 0 ] || { show_run; false; }
	# kernel_clone may be the innermost frame (the first line)
	[[ $'\n'"$output" =~ $'\n'" 0xffffffff"[0-9a-f]+" : kernel_clone+0x"[0-9a-f]+"/0x"[0-9a-f]+" [kernel]"$'\n' ]] || { show_run; false; }
	[[ "$output" =~ " : do_syscall_64+0x" ]]
	[[ "${lines[-1]}" =~ ^0xffffffff[0-9a-f]+(\ 0xffffffff[0-9a-f]+)+$ ]]
	# a syscall tracepoint has no kernel part (its registers are the
	# user's): stap's message
	run_pid tapkit -c "$PROG main" -e "probe $GETPPID { if (pid() == target()) { print_backtrace(); exit() } }"
	[ "$output" = "<no kernel backtrace at $GETPPID>" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "-p2 and -p3 say the probe is fed by perf samples with callchains" {
	run --separate-stderr tapkit -p2 -e "probe $GETPPID { print_ubacktrace() } probe $GETPPID { n++ }"
	[ "$status" = 0 ] || { show_run; false; }
	[[ "$output" =~ "mechanism: perf_event samples of tracepoint syscalls:sys_enter_getppid with callchains" ]]
	[[ "$output" =~ "mechanism: records of tracepoint syscalls:sys_enter_getppid from our tracefs instance" ]]
	run --separate-stderr tapkit -p3 -e "probe $GETPPID { print_ubacktrace() }"
	[ "$status" = 0 ] || { show_run; false; }
	[[ "$output" =~ "# syscalls:sys_enter_getppid: perf_event samples with callchains (perf_event_open(2)), nothing written to tracefs" ]]
	[[ ! "$output" =~ "sys_enter_getppid/enable" ]]
}

@test "a probe with stacks beside one without on the same tracepoint: each fires once" {
	run_pid tapkit -c "$PROG main" -e "
global n, m
probe $GETPPID { if (pid() == target()) { n++; s = ubacktrace() } }
probe $GETPPID { if (pid() == target()) m++ }
probe end { printf(\"%d %d\\n\", n, m) }"
	[ "$status" = 0 ] || { show_run; false; }
	[ "$output" = "1 1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "print_ubacktrace names the functions of processes that exit at once" {
	# each stackprog makes its one system call as it starts and exits at
	# once, before the samples are read (every 10 ms): its maps come from
	# the perf sideband, not from /proc
	run_pid tapkit -c "sh -c '$PROG main 0; $PROG main 0; $PROG main 0'" -e "
global n
probe $GETPPID { if (execname() == \"stackprog\") { n++; printf(\"pid %d\\n\", pid()); print_ubacktrace() } }
probe end { printf(\"n=%d\\n\", n) }"
	[ "$status" = 0 ] || { show_run; false; }
	[ "${lines[-1]}" = "n=3" ] || { show_run; false; }
	# three processes, each gone, each stack named c b a main
	local pids pid
	pids=$(sed -n 's/^pid //p' <<<"$output" | sort -u)
	[ "$(wc -l <<<"$pids")" = 3 ] || { show_run; false; }
	for pid in $pids; do
		[ ! -e "/proc/$pid" ]
		sed -n "/^pid $pid\$/,/^pid /p" <<<"$output" |
			sed -n 's/^ 0x[0-9a-f]* : \([^+]*\)+0x[0-9a-f]*\/0x[0-9a-f]* \[\(.*\)\]$/\1 \2/p' |
			head -4 | diff - <(printf '%s %s\n' c "$PROG" b "$PROG" a "$PROG" main "$PROG") ||
			{ show_run; false; }
	done
	assert_clean "$RUN_PID"
}

@test "callers(n) and ucallers(n) are the first n+1 addresses of backtrace() and ubacktrace()" {
	run_pid tapkit -c "$PROG main" -e "probe $GETPPID { if (pid() == target()) {
	printf(\"%s|%s|%s\\n\", ucallers(0), ucallers(2), ucallers(-1))
	printf(\"%s\\n\", ubacktrace())
	printf(\"%s|%s\\n\", callers(-1), ucallers(-7))
	exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	local bt=${lines[1]} w
	read -r -a w <<<"$bt"
	(( ${#w[@]} >= 5 )) || { show_run; false; }
	[ "${lines[0]}" = "${w[0]}|${w[0]} ${w[1]} ${w[2]}|$bt" ] || { show_run; false; }
	# the syscall tracepoint's stack has no kernel part; n < -1 asks for none
	[ "${lines[2]}" = "|" ] || { show_run; false; }
}

@test "ucallers(n) deeper than the stack is a located run-time error; a long one stops at a whole address" {
	run_pid tapkit -c "$PROG main" -e "probe $GETPPID { if (pid() == target()) { println(ucallers(40)) } }"
	[ "$status" = 1 ] || { show_run; false; }
	[[ "$stderr" == *"ERROR: cannot unwind the user stack to depth 40 ("*" frames at $GETPPID) near identifier 'ucallers' at <input>:1:"* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
	# 32 bytes: two 14-character addresses and the space between them fit
	run_pid tapkit -D MAXSTRINGLEN=32 -c "$PROG main" -e "probe $GETPPID { if (pid() == target()) { println(ucallers(-1)); exit() } }"
	[ "$status" = 0 ] || { show_run; false; }
	[[ "$output" =~ ^0x[0-9a-f]{12}\ 0x[0-9a-f]{12}$ ]] || { show_run; false; }
}

@test "a .return probe that prints stacks also reads \$param and @entry() of its own call" {
	local pt=$HELPERS/ptarget-O0
	[ -x "$pt" ] || skip "requires: $pt (make tests-build)"
	# four calls in a row, faster than the samples are read: each return
	# pairs with its own entry (calc(x) returns x * 100 + 11 or + 7)
	run_pid tapkit -c "$pt 4 0" -e 'probe process(@1).function("calc").return {
	printf("%d %d %d %s\n", $x, @entry($x + 1), $return, usymname(strtol(tokenize(ubacktrace(), " "), 16))) }' "$pt"
	[ "$status" = 0 ] || { show_run; false; }
	[ "$(grep -v '^sum ' <<<"$output")" = "0 1 11 main
1 2 107 main
2 3 211 main
3 4 307 main" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "a .return probe's user stack under recursion has one frame per outer call" {
	local pt=$HELPERS/ptarget-O0 v
	[ -x "$pt" ] || skip "requires: $pt (make tests-build)"
	# before 6.11 the kernel's user callchain stops at the first return
	# address a pending uretprobe replaced with its trampoline
	v=$(uname -r | awk -F'[.-]' '{ print $1 * 1000 + $2 }')
	[ "$v" -ge 6011 ] || skip "requires: Linux 6.11 (user callchains through pending uretprobes)"
	# recursion: each return's stack has one fact frame per outer call
	run_pid tapkit -c "$pt 1 0" -e 'probe process(@1).function("fact").return {
	n = 0; s = ubacktrace(); while ((t = tokenize(s, " ")) != "") { s = ""; if (usymname(strtol(t, 16)) == "fact") n++ }
	printf("%d %d %d\n", $k, $return, n) }' "$pt"
	[ "$status" = 0 ] || { show_run; false; }
	[ "$(grep -v '^sum ' <<<"$output")" = "1 1 3
2 2 2
3 6 1
4 24 0" ] || { show_run; false; }
}
