#!/usr/bin/env bats
# tpoint on tracepoints the tests trigger themselves.

load helpers

setup() {
	require_root
	PROBE=$BATS_TEST_TMPDIR/tk-tp-probe
	ln -sf /bin/true "$PROBE"
}

teardown() {
	stop_leftover_tool
}

@test "tpoint: prints each event with its decoded fields" {
	start_tool tpoint sched:sched_process_exec
	"$PROBE" &
	pid=$!
	wait "$pid"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Eq "^ *tk-tp-probe-$pid +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: sched_process_exec: filename=$PROBE pid=$pid old_pid=$pid\$" "$OUT" ||
		{ show_output; false; }
	assert_clean
}

@test "tpoint: a kernel filter keeps only matching events" {
	start_tool tpoint sched:sched_process_exec "filename ~ \"*tk-tp-probe\""
	/bin/true
	"$PROBE"
	/bin/true
	settle
	stop_tool
	[ "$(grep -c 'sched_process_exec:' "$OUT")" -eq 1 ] || { show_output; false; }
	grep -q "filename=$PROBE " "$OUT"
}

@test "tpoint: -p counts a process's events exactly" {
	start_held "$SYSLOOP" wait-stdin getppid 777
	start_tool tpoint -p "$WL_PID" syscalls:sys_enter_getppid
	release_workload
	wait_tool	# ends when the process does
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c "sysloop-$WL_PID .*sys_enter_getppid:" "$OUT")" -eq 777 ] || { show_output; false; }
	[ "$(grep -c 'sys_enter_getppid:' "$OUT")" -eq 777 ]
	assert_clean
}

@test "tpoint: -b sizes the ring, and every event still arrives" {
	local b256
	b256=$(kernel_ring_kb 256)
	start_held "$SYSLOOP" wait-stdin getppid 300
	start_tool tpoint -b 256 -p "$WL_PID" syscalls:sys_enter_getppid
	[ "$(ring_kb)" = "$b256" ]
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 'sys_enter_getppid:' "$OUT")" -eq 300 ] || { show_output; false; }
	assert_clean
}

@test "tpoint: -t keeps one thread" {
	start_held "$SYSLOOP" wait-stdin getppid 50
	start_tool tpoint -t "$WL_PID" syscalls:sys_enter_getppid
	release_workload
	wait_tool
	[ "$(grep -c 'sys_enter_getppid:' "$OUT")" -eq 50 ] || { show_output; false; }
}

@test "tpoint: -j prints typed fields" {
	start_tool tpoint -j sched:sched_process_exec
	"$PROBE" &
	pid=$!
	wait "$pid"
	settle
	stop_tool
	python3 - "$OUT" "$pid" "$PROBE" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
r = [o for o in rows if o["pid"] == int(sys.argv[2])]
assert len(r) == 1, rows
r = r[0]
assert r["system"] == "sched" and r["event"] == "sched_process_exec", r
assert r["fields"] == {"filename": sys.argv[3], "pid": int(sys.argv[2]),
                       "old_pid": int(sys.argv[2])}, r
assert r["comm"] == "tk-tp-probe" and isinstance(r["cpu"], int)
PY
}

@test "tpoint: -s prints the kernel stack of each event" {
	start_tool tpoint -s sched:sched_process_exec "filename ~ \"*tk-tp-probe\""
	"$PROBE"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -q 'sched_process_exec: filename=' "$OUT" || { show_output; false; }
	# exec runs through the kernel's exec path: named frames, not addresses
	grep -Eq '^ => [a-z_0-9.]*exec[a-z_0-9.]*\+0x[0-9a-f]+$' "$OUT" || { show_output; false; }
	assert_clean
}

@test "tpoint: -H prints column headers" {
	start_tool tpoint -H sched:sched_process_exec
	stop_tool
	head -1 "$OUT" | grep -qx '# tracer: nop'
	grep -q 'TASK-PID' "$OUT"
}

@test "tpoint: -v prints the format and -l lists tracepoints" {
	run tpoint -v sched:sched_process_exec
	[ "$status" -eq 0 ]
	[[ "$output" == *"field:__data_loc char[] filename;"* ]]
	run tpoint -l 'sched:sched_process_e*'
	[ "$status" -eq 0 ]
	[ "$output" = $'sched:sched_process_exec\nsched:sched_process_exit' ]
}

@test "tpoint: a filter the kernel rejects is an error quoting its reason" {
	run_pid tpoint sched:sched_process_exec 'nosuchfield == 1'
	[ "$status" -eq 1 ]
	[ "$stderr" = "tpoint: filter 'nosuchfield == 1' rejected by the kernel: Field not found" ]
	assert_clean "$RUN_PID"
}

@test "tpoint: a missing tracepoint is an error" {
	run_pid tpoint sched:no_such_event
	[ "$status" -eq 1 ]
	[ "$stderr" = "tpoint: tracepoint sched:no_such_event does not exist" ]
	assert_clean "$RUN_PID"
	run --separate-stderr tpoint -v sched:no_such_event
	[ "$status" -eq 1 ]
}

@test "tpoint: -d ends after the duration" {
	start_tool tpoint -d 1 sched:sched_process_exec
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	assert_clean
}

@test "tpoint: lost events are counted exactly and reported" {
	# a 4 KiB ring and a text line per event cannot keep up with a million
	# (with 200000 the reader, which reads every CPU to its writer in each
	# round, sometimes did)
	start_held "$SYSLOOP" wait-stdin getppid 1000000
	start_tool tpoint -b 4 -p "$WL_PID" syscalls:sys_enter_getppid
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	seen=$(grep -c 'sys_enter_getppid:' "$OUT")
	lost=$(sed -n 's/^tpoint: warning: \([0-9]*\) events lost .*/\1/p' "$ERR")
	[ -n "$lost" ] && [ "$lost" -gt 0 ] || { show_output; false; }
	[ $((seen + lost)) -eq 1000000 ] || { echo "# seen $seen + lost $lost"; false; }
}

@test "tpoint: -j ends with a summary object when events were lost" {
	start_held "$SYSLOOP" wait-stdin getppid 1000000
	start_tool tpoint -j -b 4 -p "$WL_PID" syscalls:sys_enter_getppid
	release_workload
	wait_tool
	python3 - "$OUT" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
last = rows[-1]
assert last["type"] == "summary", last
events = [r for r in rows if r.get("event") == "sys_enter_getppid"]
assert last["lost"] > 0 and len(events) + last["lost"] == 1000000, (len(events), last)
assert sum(last["lost_per_cpu"]) == last["lost"]
PY
}

@test "tpoint: output to a closed pipe ends it cleanly" {
	start_piped 1 tpoint sched:sched_process_exec
	for i in 1 2 3 4; do "$PROBE"; sleep 0.2; done
	wait "$HEAD_PID"
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 1 ]
	assert_clean
}

@test "tpoint: -c prints exactly its command's events, and exits with its status" {
	start_cmd_tool tpoint -c "$SYSLOOP wait-stdin getppid 300" syscalls:sys_enter_getppid
	"$SYSLOOP" getppid 1000		# traced, but not the command
	release_cmd
	wait_tool			# ends with the command
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -c 'sys_enter_getppid:' "$OUT")" -eq 300 ] || { show_output; false; }
	# all from one process, the command (argv[0] is wait-stdin's)
	[ "$(grep -Eo '^ *[^ ]+-[0-9]+ ' "$OUT" | sort -u | wc -l)" -eq 1 ] || { show_output; false; }
	assert_clean
	run --separate-stderr tpoint -c "sh -c 'exit 5'" syscalls:sys_enter_getppid
	[ "$status" -eq 5 ] || { echo "# $stderr"; false; }
}
