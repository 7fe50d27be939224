#!/usr/bin/env bats
# tapkit's process(...) probes (prov/uprobe.c) on test programs of their
# own: ptarget (-O2 PIE, -O0 PIE, -O0 fixed-address), ptarget-lib with
# libptarget.so, ptarget-usdt with a semaphore-guarded USDT probe.
#
#   ptarget N MS: N times snooze(MS), calc(i, &nodes[i % 2]), region(MS);
#   calc(x, n) = x * 100 + n->next->val (nodes: val 7 and 11, each the
#   other's next); prints "sum S".

load helpers

H=$TAPKIT_TOP/build/tests/helpers
PT_SRC=$TAPKIT_TOP/tests/helpers/ptarget.c

setup() {
	require_root
	require_tracefs_file uprobe_events
	DRY_INST= DRY_UPROBES=()
}

teardown() {
	stop_leftover_tool
	[ -z "$DRY_INST" ] || rmdir "$DRY_INST" 2>/dev/null || true
	local e
	for e in "${DRY_UPROBES[@]}"; do
		echo "-:$e" 2>/dev/null >>"$TRACEFS/dynamic_events" || true
	done
}

# The script's lines of $output (the target's "sum"/"sem" lines left out).
script_out() {
	printf '%s\n' "$output" | grep -v '^sum \|^sem '
}

# line MARKER: the line of ptarget.c holding MARKER
line() {
	grep -n "$1" "$PT_SRC" | cut -d: -f1
}

FT='global s, t
probe process(@1).function(@2).call { t[tid()] = gettimeofday_ns() }
probe process(@1).function(@2).return { s <<< gettimeofday_ns() - t[tid()]; delete t[tid()] }
probe end { printf("%d %d\n", @count(s), @avg(s)) }'

# avg_ok AVG MS: within [MS, MS + 10) ms.  The time built-ins read the
# records' own timestamps, so no call of a MS ms sleep measures less; the
# 10 ms above are for a loaded machine's late wake-ups.
avg_ok() {
	[ "$1" -ge $(($2 * 1000000)) ] && [ "$1" -lt $((($2 + 10) * 1000000)) ]
}

@test "tapkit process: the function-time script times snooze() at -O0 and -O2, PIE and not" {
	local v
	for v in ptarget-O0 ptarget ptarget-nopie; do
		run_pid tapkit -c "$H/$v 10 20" -e "$FT" "$H/$v" snooze
		[ "$status" -eq 0 ] || { show_run; false; }
		read -r count avg <<<"$(script_out)"
		[ "$count" = 10 ] || { show_run; false; }
		avg_ok "$avg" 20 || { show_run; false; }
		assert_clean "$RUN_PID"
	done
}

@test "tapkit process: the function-time script with timer.s(1) prints while the target runs" {
	run_pid tapkit -c "$H/ptarget-O0 60 20" -e 'global s, t
probe process(@1).function(@2).call { t[tid()] = gettimeofday_ns() }
probe process(@1).function(@2).return { s <<< gettimeofday_ns() - t[tid()]; delete t[tid()] }
probe timer.s(1) { printf("%d %d\n", @count(s), @avg(s)); exit() }' "$H/ptarget-O0" snooze
	[ "$status" -eq 0 ] || { show_run; false; }
	read -r count avg <<<"$(script_out | head -1)"
	# 60 x (20 ms snooze + 20 ms region) take 2.4 s: one second sees some
	[ "$count" -ge 10 ] && [ "$count" -le 30 ] || { show_run; false; }
	avg_ok "$avg" 20 || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: two .statement probes time the code between two source lines" {
	local a b v
	a=$(line PT_REGION_START) b=$(line PT_REGION_END)
	for v in ptarget-O0 ptarget; do
		run_pid tapkit -c "$H/$v 10 20" -e 'global s, t
probe process(@1).statement(@2) { t[tid()] = gettimeofday_ns() }
probe process(@1).statement(@3) { s <<< gettimeofday_ns() - t[tid()] }
probe end { printf("%d %d\n", @count(s), @avg(s)) }' "$H/$v" "region@ptarget.c:$a" "region@ptarget.c:$b"
		[ "$status" -eq 0 ] || { show_run; false; }
		read -r count avg <<<"$(script_out)"
		[ "$count" = 10 ] || { show_run; false; }
		avg_ok "$avg" 20 || { show_run; false; }
		assert_clean "$RUN_PID"
	done
}

@test "tapkit process: a line range and .nearest place statement probes" {
	local a
	a=$(line PT_REGION_START)
	run_pid tapkit -c "$H/ptarget-O0 3 1" -e 'global n
probe process(@1).statement(@2) { n++ }
probe end { println(n) }' "$H/ptarget-O0" "region@ptarget.c:$a-$((a + 2))"
	[ "$status" -eq 0 ] || { show_run; false; }
	# three lines with code, each once per call
	[ "$(script_out)" = 9 ] || { show_run; false; }
	# the blank-free comment line before the function has no code: the
	# next line that has does
	run_pid tapkit -c "$H/ptarget-O0 3 1" -e 'global n
probe process(@1).statement(@2).nearest { n++ }
probe end { println(n) }' "$H/ptarget-O0" "*@ptarget.c:$((a - 2))"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = 3 ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: DWARF parameters and \$return of calc() at -O0 and -O2" {
	local v
	for v in ptarget-O0 ptarget ptarget-nopie; do
		run_pid tapkit -c "$H/$v 3 0" -e 'probe process(@1).function("calc") { printf("in %d %d\n", $x, $n != 0) }
probe process(@1).function("calc").return { printf("out %d %d\n", $x, $return) }' "$H/$v"
		[ "$status" -eq 0 ] || { show_run; false; }
		[ "$(script_out)" = "in 0 1
out 0 11
in 1 1
out 1 107
in 2 1
out 2 211" ] || { show_run; false; }
		[[ "$output" == *"sum 329"* ]] || { show_run; false; }
		assert_clean "$RUN_PID"
	done
}

@test "tapkit process: a member chain, an array element, a global by name, &\$x and \$x\$ from DWARF" {
	local v
	for v in ptarget-O0 ptarget ptarget-nopie; do
		run_pid tapkit -c "$H/$v 2 0" -e 'probe process(@1).function("calc") {
	printf("%d %d %s %s %d %d %d|%s\n", $x, $n->next->val, user_string($n->name), $n->next->name$,
		@var("table@ptarget.c")[2], @var("counter"), &$n->next - $n, $n$)
}' "$H/$v"
		[ "$status" -eq 0 ] || { show_run; false; }
		[ "$(script_out | sed 's/0x[0-9a-f]*/ADDR/')" = '0 11 first "second" 300 42 8|{.val=7, .next=ADDR, .name="first"}
1 7 second "first" 300 43 8|{.val=11, .next=ADDR, .name="second"}' ] || { show_run; false; }
		assert_clean "$RUN_PID"
	done
}

@test "tapkit process: a typed \$return and @entry(\$n->val) of a return probe" {
	run_pid tapkit -c "$H/ptarget 3 0" -e 'probe process(@1).function("calc").return {
	printf("%d %d %d\n", $return, @entry($n->val), $n->next->val)
}' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "11 7 11
107 11 7
211 7 11" ] || { show_run; false; }
}

@test "tapkit process: a local at a statement, and a member that does not exist" {
	local b
	b=$(line PT_REGION_END)
	run_pid tapkit -c "$H/ptarget-O0 2 3" -e 'probe process(@1).statement(@2) { printf("%d %d\n", $ms, $before) }' \
		"$H/ptarget-O0" "region@ptarget.c:$b"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "3 3
3 3" ] || { show_run; false; }
	run_pid tapkit -e 'probe process(@1).function("calc") { println($n->nosuch) }' "$H/ptarget-O0"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$(head -1 <<<"$stderr")" == "<input>:1:46: error: "*"nosuch"* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: .return's \$param is its value at the entry, paired per thread" {
	# snooze's ms at entry, while snooze itself may reuse the register
	run_pid tapkit -c "$H/ptarget 2 3" -e 'probe process(@1).function("snooze").return { printf("%s %d\n", ppfunc(), $ms) }' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "snooze 3
snooze 3" ] || { show_run; false; }
}

@test "tapkit process: @entry(\$x) in a return probe, \$\$parms, \$\$return" {
	run_pid tapkit -c "$H/ptarget 3 0" -e 'probe process(@1).function("calc").return { printf("%d %d %s\n", @entry($x), $return, $$return) }
probe process(@1).function("calc") { if ($x == 1) println($$parms) }' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	nodes=$(nm "$H/ptarget" | awk '$3 == "nodes" { print $1 }')
	[ "$(script_out | sed 's/n=0x[0-9a-f]*/n=ADDR/')" = "0 11 return=11
x=1 n=ADDR
1 107 return=107
2 211 return=211" ] || { show_run; false; }
	# n is nodes[1], 0x20 past nodes, wherever the PIE was loaded
	want=$(printf '%x' $((0x$nodes + 0x20)))
	[[ "$(script_out | sed -n 2p)" == *"${want: -3}" ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: register(), int_arg(), uaddr() and returnval() read the raw operands" {
	local calc
	calc=$(nm "$H/ptarget-nopie" | awk '$3 == "calc" { print $1 }')
	run_pid tapkit -c "$H/ptarget-nopie 2 0" -e 'probe process(@1).function("calc").call { printf("%d %d %x\n", register("rdi"), int_arg(1), uaddr()) }
probe process(@1).function("calc").return { printf("r %d\n", returnval()) }' "$H/ptarget-nopie"
	[ "$status" -eq 0 ] || { show_run; false; }
	# -O0: the site is after the prologue, which keeps %rdi
	[ "$(script_out | sed 's/^\([0-9]* [0-9]*\) [0-9a-f]*$/\1 ADDR/')" = "0 0 ADDR
r 11
1 1 ADDR
r 107" ] || { show_run; false; }
	local a
	a=$(script_out | head -1 | awk '{ print $3 }')
	[ $((0x$a)) -ge $((0x$calc)) ] && [ $((0x$a)) -lt $((0x$calc + 32)) ] || { show_run; false; }
	run_pid tapkit -e 'probe process(@1).function("calc") { println(returnval()) }' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:46: error: the return value is only available in .return probes" ] ||
		{ show_run; false; }
}

@test "tapkit process: a bare process.function() with -c probes the command's program" {
	run_pid tapkit -c "$H/ptarget 3 0" -e 'global n
probe process.function("calc") { n++ }
probe end { println(n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = 3 ] || { show_run; false; }
	run_pid tapkit -e 'probe process.function("calc") { }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:7: error: process.function without -c or -x needs the target's path: process(\"path\").function" ] ||
		{ show_run; false; }
}

@test "tapkit process: an inlined function is probed at each inline instance" {
	# -O2 inlines sleep_ms() into snooze() and region(); -O0 does not
	run_pid tapkit -c "$H/ptarget 3 1" -e 'global n
probe process(@1).function("sleep_ms").inline { n++ }
probe end { println(n) }' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = 6 ] || { show_run; false; }
	run_pid tapkit -c "$H/ptarget-O0 3 1" -e 'global n
probe process(@1).function("sleep_ms") { n++ }
probe end { println(n) }' "$H/ptarget-O0"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = 6 ] || { show_run; false; }
}

@test "tapkit process: name@file and name@file:line patterns" {
	local l
	l=$(grep -n '^__attribute__((noinline)) int calc' "$PT_SRC" | cut -d: -f1)
	run_pid tapkit -c "$H/ptarget-O0 2 0" -e 'global n
probe process(@1).function("ca*@ptarget.c") { n[ppfunc()]++ }
probe process(@1).function(@2) { n["line"]++ }
probe end { foreach (k+ in n) printf("%s %d\n", k, n[k]) }' "$H/ptarget-O0" "calc@ptarget.c:$l"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "calc 2
line 2" ] || { show_run; false; }
	run_pid tapkit -e 'probe process(@1).function("calc@other.c") { }' "$H/ptarget-O0"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == "<input>:1:7: error: no function matches \"calc@other.c\" in $H/ptarget-O0"* ]] ||
		{ show_run; false; }
}

@test "tapkit process: a function of a shared library, by .library() and by path" {
	run_pid tapkit -c "$H/ptarget-lib 3" -e 'probe process(@1).library("libptarget.so").function("pt_lib_add") { printf("add %d %d\n", $a, $b) }
probe process(@2).function("pt_lib_add").return { printf("ret %d\n", $return) }' \
		"$H/ptarget-lib" "$H/libptarget.so"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "add 0 1000
ret 1000
add 1 1000
ret 1001
add 2 1000
ret 1002" ] || { show_run; false; }
	[[ "$output" == *"sum 3003"* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
	# a bare library name: the one the -c program loads, beside it
	run_pid tapkit -c "$H/ptarget-lib 2" -e 'probe process("libptarget.so").function("pt_lib_add") { printf("%d %d\n", $a, $b) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "0 1000
1 1000" ] || { show_run; false; }
}

@test "tapkit process: .plt(\"name\") probes the PLT entries the program calls through" {
	run_pid tapkit -c "$H/ptarget-lib 4" -e 'global n
probe process(@1).plt("pt_lib_add") { n[ppfunc()]++ }
probe process(@1).plt("pt_*").return { n["ret"]++ }
probe end { foreach (k+ in n) printf("%s %d\n", k, n[k]) }' "$H/ptarget-lib"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "pt_lib_add 4
ret 4" ] || { show_run; false; }
	# ptarget: nanosleep() in snooze() and region(), printf() once
	run_pid tapkit -c "$H/ptarget-nopie 3 0" -e 'global n
probe process(@1).plt("nanosleep"), process(@1).plt("printf") { n[probefunc()]++ }
probe end { foreach (k+ in n) printf("%s %d\n", k, n[k]) }' "$H/ptarget-nopie"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "nanosleep 6
printf 1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: a USDT mark gives \$arg1 and user_string(\$arg2); its semaphore is set only while traced" {
	run "$H/ptarget-usdt" 2
	[ "$output" = "sem 0
sem 0" ] || { show_run; false; }
	run_pid tapkit -c "$H/ptarget-usdt 3" -e 'probe process(@1).mark("hello") { printf("%d %s %s %s\n", $arg1, user_string($arg2), $$provider, $$name) }' "$H/ptarget-usdt"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "0 msg-0 ptk hello
1 msg-1 ptk hello
2 msg-2 ptk hello" ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | grep -c '^sem 1$')" = 3 ] || { show_run; false; }
	assert_clean "$RUN_PID"
	# after the run, nothing holds it up
	run "$H/ptarget-usdt" 1
	[ "$output" = "sem 0" ] || { show_run; false; }
	run_pid tapkit -c "$H/ptarget-usdt 2" -e 'probe process(@1).provider("ptk").mark("hel*") { printf("%d\n", $arg1) }' "$H/ptarget-usdt"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "0
1" ] || { show_run; false; }
}

@test "tapkit process: without reference counters the semaphore is raised in the -x process by hand" {
	start_held sh -c 'exec "$0" wait-stdin 2 >"$1"' "$H/ptarget-usdt" "$BATS_TEST_TMPDIR/wl.out"
	local wl=$WL_PID
	TAPKIT_NO_REF_CTR=1 start_tool tapkit -x "$WL_PID" -e 'probe process(@1).mark("hello") { printf("%d %s\n", $arg1, user_string($arg2)) }' "$H/ptarget-usdt"
	printf 'x\n' >&"$WL_FD"
	exec {WL_FD}>&-
	WL_FD=
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "0 msg-0
1 msg-1" ] || { show_output; false; }
	[ "$(cat "$ERR")" = "tapkit: warning: no uprobe reference counters: 1 USDT semaphore raised in process $wl through /proc/$wl/mem" ] ||
		{ show_output; false; }
	[ "$(cat "$BATS_TEST_TMPDIR/wl.out")" = "sem 1
sem 1" ] || { cat "$BATS_TEST_TMPDIR/wl.out"; false; }
	assert_clean "$TOOL_PID"
	# with -c, the program is not running yet when the probes are set
	TAPKIT_NO_REF_CTR=1 run_pid tapkit -c "$H/ptarget-usdt 1" -e 'probe process(@1).mark("hello") { }' "$H/ptarget-usdt"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == "tapkit: cannot raise the USDT semaphores (this kernel's uprobes have no reference counters: only in a process that runs, -x PID): "* ]] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: -L lists a function's parameters" {
	run --separate-stderr tapkit -L "process(\"$H/ptarget-O0\").function(\"calc\")"
	[ "$status" -eq 0 ] || { show_run; false; }
	l=$(grep -n '^__attribute__((noinline)) int calc' "$PT_SRC" | cut -d: -f1)
	[ "$output" = "process(\"$H/ptarget-O0\").function(\"calc@tests/helpers/ptarget.c:$l\") \$x:int \$n:struct node *" ] ||
		{ show_run; false; }
	run --separate-stderr tapkit -L "process(\"$H/ptarget-O0\").function(\"calc\").return"
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" == *" \$return:"* ]] || { show_run; false; }
}

@test "tapkit process: -p2 names the uprobe; --dry-run's definitions are the ones the kernel takes" {
	run --separate-stderr tapkit -p2 -e 'probe process(@1).function("calc").return { printf("%d %d\n", $x, $return) }' "$H/ptarget-O0"
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" == *"# mechanism: uretprobe at $H/ptarget-O0:0x"*" (calc) in our group, records from our tracefs instance; the entry values from a uprobe at 0x"*", paired per thread"* ]] ||
		{ show_run; false; }
	run --separate-stderr tapkit --dry-run -e 'probe process(@1).function("calc").return { printf("%d %d\n", $x, $return) }' "$H/ptarget-O0"
	[ "$status" -eq 0 ] || { show_run; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/dry.sh"
	sh "$BATS_TEST_TMPDIR/dry.sh" &
	dpid=$!
	DRY_INST=$TRACEFS/instances/tapkit_dryrun_$dpid
	DRY_UPROBES=("tapkit_dryrun_$dpid/u0" "tapkit_dryrun_$dpid/u0_entry")
	wait "$dpid"
	grep -q "^r:tapkit_dryrun_$dpid/u0 $H/ptarget-O0:0x[0-9a-f]* v1=%ax:s32$" "$TRACEFS/dynamic_events" ||
		{ cat "$TRACEFS/dynamic_events"; false; }
	grep -q "^p:tapkit_dryrun_$dpid/u0_entry $H/ptarget-O0:0x[0-9a-f]* v0=-4(%bp):s32$" "$TRACEFS/dynamic_events" ||
		{ cat "$TRACEFS/dynamic_events"; false; }
	"$H/ptarget-O0" 2 0
	[ "$(grep -c 'u0_entry: .* v0=1$' "$DRY_INST/trace")" -eq 1 ] || { cat "$DRY_INST/trace" >&2; false; }
	[ "$(grep -c 'u0: .* v1=107$' "$DRY_INST/trace")" -eq 1 ] || { cat "$DRY_INST/trace" >&2; false; }
	rmdir "$DRY_INST"
	DRY_INST=
	echo "-:${DRY_UPROBES[0]}" >>"$TRACEFS/dynamic_events"
	echo "-:${DRY_UPROBES[1]}" >>"$TRACEFS/dynamic_events"
	DRY_UPROBES=()
}

@test "tapkit process: .statement(ADDRESS).absolute probes a link-time address" {
	local addr
	addr=$(nm "$H/ptarget-nopie" | awk '$3 == "calc" { print "0x" $1 }')
	run_pid tapkit -c "$H/ptarget-nopie 4 0" -e 'global n
probe process(@1).statement(@2).absolute { n++ }
probe end { println(n) }' "$H/ptarget-nopie" "$addr"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = 4 ] || { show_run; false; }
}

# ---- errors ------------------------------------------------------------

@test "tapkit process: a function pattern that matches nothing is a located error" {
	run_pid tapkit -e 'probe process(@1).function("nosuch") { }' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "<input>:1:7: error: no function matches \"nosuch\" in $H/ptarget
probe process(@1).function(\"nosuch\") { }
      ^" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: a missing file, mark and source line are located errors" {
	run_pid tapkit -e 'probe process("/nonexistent/tk_prog").function("f") { }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "<input>:1:7: error: cannot find '/nonexistent/tk_prog': No such file or directory
probe process(\"/nonexistent/tk_prog\").function(\"f\") { }
      ^" ] || { show_run; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe process(@1).mark("nomark") { }' "$H/ptarget-usdt"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:7: error: no mark matches \"nomark\" in $H/ptarget-usdt" ] ||
		{ show_run; false; }
	run_pid tapkit -e 'probe process(@1).statement("region@ptarget.c:1") { }' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$(head -1 <<<"$stderr")" == "<input>:1:7: error: no code at region@ptarget.c:1 (nearest line with code: "*")" ]] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: a variable the function does not have is a located error, nothing left" {
	run_pid tapkit -e 'probe process(@1).function("calc") {
	println($nosuch)
}' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$(head -1 <<<"$stderr")" == "<input>:2:10: error: "*"'\$nosuch'"* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: \$x of a program without debug info is a located error" {
	cp "$H/ptarget" "$BATS_TEST_TMPDIR/stripped"
	strip -g "$BATS_TEST_TMPDIR/stripped"
	run_pid tapkit -e 'probe process(@1).function("calc") { println($x) }' "$BATS_TEST_TMPDIR/stripped"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:46: error: \$x needs debug info, which $BATS_TEST_TMPDIR/stripped does not have" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: a malformed process point is a located error" {
	run_pid tapkit -e 'probe process(@1).function("calc").junk { }' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$(head -1 <<<"$stderr")" == "<input>:1:7: error: malformed process probe point: "* ]] ||
		{ show_run; false; }
}

@test "tapkit process: a function whose first instruction uprobes refuse is an error; a wildcard leaves it out" {
	run_pid tapkit -e 'probe process(@1).function("locked_inc") { }' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$(head -1 <<<"$stderr")" == "<input>:1:7: error: cannot probe locked_inc at $H/ptarget:0x"*": an instruction uprobes refuse" ]] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -c "$H/ptarget 2 0" -e 'global n
probe process(@1).function("*c") { n[ppfunc()]++ }
probe end { foreach (k in n) printf("%s %d\n", k, n[k]) }' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "calc 2" ] || { show_run; false; }
}

@test "tapkit process: a handler that only counts is counted by the kernel, entry and return" {
	run_pid tapkit -c "$H/ptarget 5 0" -e 'global n
probe process(@1).function("calc") { n++ }
probe process(@1).function("snooze").return { n++ }
probe end { println(n) }' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = 10 ] || { show_run; false; }
	assert_clean "$RUN_PID"
	run --separate-stderr tapkit -p2 -e 'global n; probe process(@1).function("calc") { n++ }' "$H/ptarget"
	[[ "$output" == *"# mechanism: uprobe at $H/ptarget:0x"*" (calc) in our group, perf_event counting mode, no records (the handler only counts)"* ]] ||
		{ show_run; false; }
}

@test "tapkit process: a variable optimized out at the probe is a located error; \$\$vars shows it as ?" {
	run_pid tapkit -e 'probe process(@1).function("main") {
	println($i)
}' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$(head -1 <<<"$stderr")" == "<input>:2:10: error: 'i' is optimized out at 0x"* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -c "$H/ptarget 1 0" -e 'probe process(@1).function("main") { println($$vars) }' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$(script_out)" == "argc=3 argv=0x"*" sum=0 i=? n=? ms=?" ]] || { show_run; false; }
}

@test "tapkit process: process(PID) probes the running process's program" {
	start_held sh -c 'exec "$0" wait-stdin 2 >"$1"' "$H/ptarget-usdt" "$BATS_TEST_TMPDIR/wl.out"
	start_tool tapkit -x "$WL_PID" -e "probe process($WL_PID).mark(\"hello\") { printf(\"%d %s %d\\n\", \$arg1, user_string(\$arg2), pid() == target()) }"
	printf 'x\n' >&"$WL_FD"
	exec {WL_FD}>&-
	WL_FD=
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "0 msg-0 1
1 msg-1 1" ] || { show_output; false; }
	assert_clean "$TOOL_PID"
}

@test "tapkit process: @cast of a variable and of pointer_arg() to a DWARF type" {
	run_pid tapkit -c "$H/ptarget 2 0" -e 'probe process(@1).function("calc") {
	printf("%d %d %s\n", @cast($n, "struct node")->next->val,
		@cast(pointer_arg(2), "struct node")->val, user_string(@cast($n, "struct node")->name))
}' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "11 7 first
7 11 second" ] || { show_run; false; }
	run_pid tapkit -e 'probe process(@1).function("calc") { println(@cast($n, "struct nosuch")->val) }' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:46: error: no type 'struct nosuch' in '$H/ptarget'" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: .exported takes only the functions of the dynamic symbol table" {
	run --separate-stderr tapkit -l "process(\"$H/libptarget.so\").function(\"*\").exported"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "process(\"$H/libptarget.so\").function(\"pt_lib_add@tests/helpers/ptlib/ptlib.c:2\").exported" ] ||
		{ show_run; false; }
	# a program not linked with -rdynamic exports none of its own
	run_pid tapkit -e 'probe process(@1).function("calc").exported { }' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:7: error: no function matches \"calc\" in $H/ptarget" ] ||
		{ show_run; false; }
}

@test "tapkit process: a recursive function's returns pair with their own entries, @entry too" {
	run_pid tapkit -c "$H/ptarget-O0 1 0" -e 'probe process(@1).function("fact").return { printf("%d %d %d\n", $k, @entry($k * 10), $return) }' "$H/ptarget-O0"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "1 10 1
2 20 2
3 30 6
4 40 24" ] || { show_run; false; }
}

@test "tapkit process: @cast and @var name the object whose DWARF they use" {
	run_pid tapkit -c "$H/ptarget 1 0" -e 'probe process(@1).function("calc") {
	printf("%d %d\n", @cast($n, "struct node", @2)->next->val, @var("counter", @1))
}' "$H/ptarget" "$H/ptarget-O0"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "11 42" ] || { show_run; false; }
	run_pid tapkit -e 'probe process(@1).function("calc") { println(@var("counter", @2)) }' "$H/ptarget" "$H/ptarget-O0"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:46: error: @var(\"counter\", \"$H/ptarget-O0\"): a process probe reads the globals of its own object only ($H/ptarget)" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: @container_of, @cast of an offset pointer, nested casts and the layout macros over DWARF" {
	# struct node { int val; struct node *next; char name[16]; }: next at
	# 8, name at 16, 32 bytes; calc() gets &nodes[0] (val 7), whose next
	# is nodes[1] (val 11), which follows it in memory
	run_pid tapkit -c "$H/ptarget 1 0" -e 'probe process(@1).function("calc") {
	printf("%d %d %d %d %d %d\n", @container_of(&$n->name, "struct node", name) == $n,
	       @cast(@container_of(&$n->name, "struct node", name), "struct node")->val,
	       @cast(&$n->name - 16, "struct node")->next->val, @cast($n + 32, "struct node")->val,
	       @container_of(&$n->name, "struct node", name)->val,
	       @container_of(&$n->name, "struct node", name)->next->val)
	printf("%d %d %d %d %d\n", &@cast(0, "struct node")->next, &@cast(0, "struct node")->name[3],
	       @cast_module_sizeof(@1, "struct node"), @type_member_defined("struct node", name),
	       @type_member_defined("struct node", nosuch))
}
probe begin { printf("%d %d\n", &@cast(0, "struct node", @1)[2], @module_container_of(1016, @1, "struct node", name)) }' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "64 1000
1 7 11 11 7 11
8 19 32 1 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
	# a cast of a pointer, or of an address, reached through another cast
	run_pid tapkit -c "$H/ptarget 1 0" -e 'probe process(@1).function("calc") {
	printf("%d %d %d %d\n", @cast(@cast($n, "struct node")->next, "struct node")->val,
	       @cast(&@cast($n, "struct node")->next->name - 16, "struct node")->val,
	       @container_of(&@cast($n, "struct node")->next->name, "struct node", name)->val,
	       @cast(@cast(@cast($n, "struct node")->next, "struct node")->next, "struct node")->next->val)
	println(user_string_n(&@cast(&@cast($n, "struct node")->next->name, "struct node")->val, 6))
}' "$H/ptarget"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out)" = "11 11 11 11
second" ] || { show_run; false; }
	assert_clean "$RUN_PID"
	# what only the traced memory can answer, and what the type lacks
	run_fails '<input>:1:23: error: @cast(0, "struct node"): the address goes through a pointer: only the traced memory holds it' \
		tapkit -e 'probe begin { println(&@cast(0, "struct node", @1)->next->val) }' "$H/ptarget"
	run_fails "<input>:1:23: error: @cast of a constant address reads memory no probe fetches: cast a pointer the probe has (\$var, register(), pointer_arg()), or take the address with '&'" \
		tapkit -e 'probe begin { println(@cast(8, "struct node", @1)->val) }' "$H/ptarget"
	# an error in a tapset macro's body also names the script's invocation
	run_pid tapkit -e 'probe begin { println(@cast_module_sizeof(@1, "struct nosuch")) }' "$H/ptarget"
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$(head -1 <<<"$stderr")" == *"/macros.stpm:"*": error: @cast(0, \"struct nosuch\"): no type 'struct nosuch' in '$H/ptarget'" ]] ||
		{ show_run; false; }
	[ "$(sed -n 4p <<<"$stderr")" = "<input>:1:23: note: in expansion of the macro invoked here" ] ||
		{ show_run; false; }
}

@test "tapkit process: print_ubacktrace() in a process probe names the program's functions" {
	run_pid tapkit -c "$H/ptarget-O0 2 50" -e 'probe process(@1).function("calc") { print_ubacktrace(); println("--") }' "$H/ptarget-O0"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out | grep -c '^--$')" = 2 ] || { show_run; false; }
	[ "$(script_out | head -1 | sed 's/^ 0x[0-9a-f]* : \([a-z_]*\)+0x.* \[\(.*\)\]$/\1 \2/')" = "calc $H/ptarget-O0" ] ||
		{ show_run; false; }
	[ "$(script_out | sed -n 2p | sed 's/^ 0x[0-9a-f]* : \([a-z_]*\)+0x.* \[\(.*\)\]$/\1 \2/')" = "main $H/ptarget-O0" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit process: a char pointer is an address, as in stap: user_string() reads it, \$p\$ prints it" {
	local w=$H/demowork
	run_pid tapkit -c "$w 2 0" -e 'probe process(@1).function("handle_request") {
	printf("%s|%s|%d|%d\n", user_string($r->name), $r->name$, $r->name != 0, $r->id)
}' "$w"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(script_out | grep -v '^handled')" = 'demo|"demo"|1|1
demo|"demo"|1|2' ] || { show_run; false; }
	# a string where a number is wanted is a located type error
	run_pid tapkit -e 'probe process(@1).function("handle_request") { printf("%s\n", $r->name) }' "$w"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:63: error: type mismatch: expected string but found long" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}
