#!/usr/bin/env bats
# tracetop in batch mode (-b text, -j JSON Lines) against workloads with
# exactly known system calls: the right rows with the right counts, the
# drill-down views opened from the command line (-F), the generic
# tracepoint view (-e), and nothing left in tracefs however it ends.

load helpers

setup() {
	require_root
}

teardown() {
	stop_leftover_tool
}

# traced_loop KIND N TRACETOP-ARGS...: tracetop over a held `sysloop KIND
# N` whose PID is $WL_PID (use it in the arguments as @PID), stopped with
# SIGINT once the loop has ended and an interval has passed.
traced_loop() {
	local kind=$1 n=$2 args=() a
	shift 2
	start_held "$SYSLOOP" wait-stdin "$kind" "$n"
	for a in "$@"; do args+=("${a//@PID/$WL_PID}"); done
	start_tool tracetop -b -d 0.2 "${args[@]}"
	release_workload
	settle 0.5
	stop_tool
}

# last_json: the last JSON Lines object of $OUT, as Python sees it
json_rows() {
	python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
obj = json.loads(lines[-1])
for r in obj["rows"]:
    print(" ".join(str(r[k]) for k in sys.argv[2:]))
' "$OUT" "$@"
}

@test "tracetop: syscalls-pid -F pid=P shows the process's getppid() calls exactly" {
	traced_loop getppid 4321 -m cumulative syscalls-pid -F pid=@PID
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	n=$(awk '$1 == "getppid" { c = $2 } END { print c }' "$OUT")
	[ "$n" = 4321 ] || { show_output; false; }
	grep -Eq '^SYSCALL +COUNT +RATE +ERRORS +AVG +P99 +MAX *$' "$OUT" || { show_output; false; }
	grep -q "syscalls-pid pid=$WL_PID" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tracetop: syscalls by process: the workload's row, its errors counted" {
	traced_loop fail 77 -m cumulative syscalls -F pid=@PID
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# 77 failed openat() and the read(2) that released the loop
	row=$(awk -v p="$WL_PID" '$1 == p { r = $0 } END { print r }' "$OUT")
	set -- $row
	[ "$3" = 78 ] && [ "$5" = 77 ] || { show_output; false; }
	[ "$2" = sysloop ] || { show_output; false; }
	assert_clean
}

@test "tracetop: -j gives the same numbers as JSON Lines" {
	traced_loop getppid 2500 -j -m cumulative syscalls-pid -F pid=@PID
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	run json_rows syscall count errors
	[[ "$output" == *"getppid 2500 0"* ]] || { show_output; echo "$output"; false; }
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    assert o["view"].startswith("syscalls-pid pid="), o["view"]
    assert o["mode"] == "cumulative" and o["interval_ms"] == 200, o
' "$OUT" || { show_output; false; }
	assert_clean
}

@test "tracetop: syscount counts in the kernel, scoped by -p" {
	start_held "$SYSLOOP" wait-stdin getppid 5555
	start_tool tracetop -b -d 0.2 -m cumulative -p "$WL_PID" syscount
	release_workload
	wait_tool	# it ends with its target
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	n=$(awk '$1 == "getppid" { c = $2 } END { print c }' "$OUT")
	[ "$n" = 5555 ] || { show_output; false; }
	assert_clean
}

@test "tracetop: the syscall drill-down by thread (syscalls-tid)" {
	traced_loop getppid 1234 -m cumulative syscalls-tid -F pid=@PID -F syscall=getppid
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	row=$(awk -v p="$WL_PID" '$1 == p { r = $1 " " $3 } END { print r }' "$OUT")
	[ "$row" = "$WL_PID 1234" ] || { show_output; false; }
	! awk 'NF && $1 ~ /^[0-9]+$/' "$OUT" | grep -vq "^$WL_PID " || { show_output; false; }
	assert_clean
}

@test "tracetop: -e keys any tracepoint by its fields, -V aggregates them" {
	traced_loop fail 64 -m cumulative -j -e syscalls:sys_exit_openat -k comm \
		-V count,ret:min,ret:max=WORST -F pid=@PID
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	run json_rows comm count min_ret worst
	[ "$output" = "sysloop 64 -2 -2" ] || { show_output; echo "$output"; false; }
	assert_clean
}

@test "tracetop: -e with a kernel filter on an event field" {
	traced_loop fail 40 -m cumulative -v -e syscalls:sys_exit_openat -k pid -F ret=-2 -F pid=@PID
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -q 'kernel filter ret == -2' "$ERR" || { show_output; false; }
	n=$(awk -v p="$WL_PID" '$1 == p { c = $2 } END { print c }' "$OUT")
	[ "$n" = 40 ] || { show_output; false; }
}

# A session that reads the CPUs one after the other meets the calls on
# CPU 0 before the rename on CPU 1 that came first: they are named by it,
# and the calls on CPU 1 before the rename by the name before it.
@test "tracetop: a rename on one CPU names the records after it on another, read first" {
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
	local a=tkA$$ b=tkB$$
	start_held "$TAPKIT_TOP/build/tests/helpers/rawname" wait-stdin "$a" getppid \
		sleep:400 cpu:1 getppid:3 "name:$b" cpu:0 getppid:2000 sleep:400
	start_tool tracetop -j -d 0.2 -m cumulative -e syscalls:sys_enter_getppid \
		-k pid,comm -F "pid=$WL_PID"
	release_workload
	settle 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	run json_rows pid comm count
	[ "$output" = "$WL_PID $b 2000
$WL_PID $a 4" ] || { show_output; echo "$output"; false; }
	assert_clean
}

@test "tracetop: -n N prints N intervals and exits 0" {
	run --separate-stderr tracetop -b -n 3 -d 0.1 syscount
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(grep -c '^tracetop - ' <<<"$output")" = 3 ] || { show_run; false; }
	run --separate-stderr tracetop -j -n 2 -d 0.1 syscalls
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(grep -c '"rows":' <<<"$output")" = 2 ] || { show_run; false; }
}

@test "tracetop: bad views, fields and events at run time: one line, exit 1, nothing left" {
	run_pid tracetop -b -n 1 -e no_such_sys:no_such_event
	[ "$status" -eq 1 ] && [ "$stderr" = "tracetop: no tracepoint 'no_such_sys:no_such_event'" ] || { show_run; false; }
	assert_clean "$RUN_PID"
	run_pid tracetop -b -n 1 syscalls -F nosuch=1
	[ "$status" -eq 1 ] && [ "$stderr" = "tracetop: no field 'nosuch' to filter on in this view" ] || { show_run; false; }
	run_pid tracetop -b -n 1 syscalls -F pid=abc
	[ "$status" -eq 1 ] && [ "$stderr" = "tracetop: filter 'pid=abc': 'abc' is not a number" ] || { show_run; false; }
	run_pid tracetop -b -n 1 -s NOSUCH syscalls
	[ "$status" -eq 1 ] && [ "$stderr" = "tracetop: no column 'NOSUCH' in view 'syscalls'" ] || { show_run; false; }
	assert_clean "$RUN_PID"
	run_pid tracetop -b -n 1 -e sched:sched_switch -k nosuch
	[ "$status" -eq 1 ] && [ "$stderr" = "tracetop: no field 'nosuch' in this view's events" ] || { show_run; false; }
	run_pid tracetop -b -n 1 -e sched:sched_switch -V prev_comm:sum
	[ "$status" -eq 1 ] && [ "$stderr" = "tracetop: field 'prev_comm' is text: only 'last' applies" ] || { show_run; false; }
	run_pid tracetop -b -n 1 -e sched:sched_switch -V prev_pid:median
	[ "$status" -eq 1 ] && [ "$stderr" = "tracetop: unknown aggregation 'median' (sum, min, max, avg, rate, p50, p99, last)" ] || { show_run; false; }
	run_pid tracetop -b -n 1 syscalls-pid -F syscall=no_such_call
	[ "$status" -eq 1 ] && [ "$stderr" = "tracetop: unknown system call 'no_such_call'" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tracetop: SIGTERM and SIGHUP end it cleanly; after SIGKILL (its watchdog too) the next run cleans up" {
	local sig
	for sig in TERM HUP; do
		start_tool tracetop -b -d 0.2 syscalls
		stop_tool "$sig"
		[ "$TOOL_RC" -eq 0 ] || { echo "# SIG$sig: $TOOL_RC"; show_output; false; }
		assert_clean
	done
	start_tool tracetop -b -d 0.2 syscalls
	local w
	w=$(watchdog_of "$TOOL_PID")
	[ -n "$w" ] || { echo "# no watchdog"; false; }
	kill -KILL "$w"
	kill -KILL "$TOOL_PID"
	wait "$TOOL_PID" || true
	ls "$TRACEFS/instances" | grep -q "^tapkit_${TOOL_PID}_"	# left by the kill
	local killed=$TOOL_PID
	run --separate-stderr tracetop -b -n 1 -d 0.1 syscount
	[ "$status" -eq 0 ] || { show_run; false; }
	assert_clean "$killed"
}

@test "tracetop -S: a script's arrays, through tapkit --top" {
	printf 'global c\nprobe syscall.getppid { c[execname()]++ }\n' > "$BATS_TEST_TMPDIR/c.stp"
	run --separate-stderr tracetop -j -d 0.2 -c "$SYSLOOP getppid 321" -S "$BATS_TEST_TMPDIR/c.stp"
	[ "$status" -eq 0 ] || { show_run; false; }
	python3 -c '
import json, sys
o = json.loads(sys.argv[1].splitlines()[-1])
assert o["view"] == "c", o
rows = {r["execname"]: r["value"] for r in o["rows"]}
assert rows.get("sysloop") == 321, rows
' "$output" || { show_run; false; }
	run --separate-stderr tracetop -S "$BATS_TEST_TMPDIR/c.stp" -e sched:sched_switch
	[ "$status" -eq 2 ] && [[ "$stderr" == "tracetop: -S takes the display options only"* ]] || { show_run; false; }
}
