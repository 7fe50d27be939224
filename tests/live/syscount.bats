#!/usr/bin/env bats
# syscount against workloads with exactly known syscalls (sysloop).

load helpers

setup() {
	require_root
}

# count_workload KIND N [SYSCOUNT ARGS...]: syscount -p on a held
# `sysloop KIND N`; syscount ends with it.
count_workload() {
	start_held "$SYSLOOP" wait-stdin "${@:1:2}"
	shift 2
	start_tool syscount -p "$WL_PID" "$@"
	release_workload
	wait_tool
}

teardown() {
	stop_leftover_tool
}

@test "syscount: counting mode counts a process's getppid() calls exactly" {
	count_workload getppid 4321
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -Eq '^getppid +4321$' "$OUT" || { show_output; false; }
	grep -q '^SYSCALL  *COUNT$' "$OUT"
	assert_clean
}

@test "syscount: -v says counting mode is used" {
	count_workload getppid 10 -v
	grep -q 'perf_event counting mode' "$ERR" || { show_output; false; }
}

@test "syscount: system-wide count includes the workload" {
	start_tool syscount -T 50
	"$SYSLOOP" getppid 30000
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	n=$(awk '$1 == "getppid" { print $2 }' "$OUT")
	[ -n "$n" ] && [ "$n" -ge 30000 ] || { show_output; false; }
	assert_clean
}

@test "syscount: -x counts only failed calls" {
	count_workload fail 77 -x
	grep -Eq '^openat +77$' "$OUT" || { show_output; false; }
	! grep -q '^getppid' "$OUT"
	grep -qx 'Tracing failed syscalls, printing top 10... Ctrl+C to quit.' "$OUT"
}

@test "syscount: -e ENOENT matches, -e EPERM does not" {
	count_workload fail 55 -e ENOENT
	grep -Eq '^openat +55$' "$OUT" || { show_output; false; }
	count_workload fail 55 -e EPERM
	! grep -q '^openat' "$OUT" || { show_output; false; }
}

@test "syscount: -P counts by process with PID and COMM" {
	count_workload getppid 1000 -P
	[ "$TOOL_RC" -eq 0 ]
	grep -q '^PID    COMM  *COUNT$' "$OUT"
	# 1000 getppid() and the final exit_group()
	grep -Eq "^$WL_PID +sysloop +1001$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "syscount: -b sizes the -P ring; the default is the kernel's" {
	local def b512
	def=$(kernel_ring_kb) b512=$(kernel_ring_kb 512)
	[ -n "$def" ] && [ -n "$b512" ] && [ "$def" != "$b512" ]
	start_tool syscount -P -b 512
	[ "$(ring_kb)" = "$b512" ]
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	assert_clean
	start_tool syscount -P
	[ "$(ring_kb)" = "$def" ]
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	assert_clean
}

@test "syscount: -P -x counts a process's failures" {
	count_workload fail 40 -P -x
	grep -Eq "^$WL_PID +sysloop +40$" "$OUT" || { show_output; false; }
}

@test "syscount: -L adds total and average latency" {
	count_workload getppid 500 -L
	grep -q 'TIME (us) *AVG (us)$' "$OUT" || { show_output; false; }
	line=$(grep -E '^getppid ' "$OUT")
	[ "$(awk '{print $2}' <<<"$line")" -eq 500 ]
	awk '{ exit !($3 > 0 && $4 > 0 && $4 < $3) }' <<<"$line"
}

@test "syscount: -L -m prints milliseconds" {
	count_workload getppid 100 -L -m
	grep -q 'TIME (ms) *AVG (ms)$' "$OUT" || { show_output; false; }
}

@test "syscount: -j prints one JSON summary with exact counts" {
	count_workload getppid 2222 -j
	[ "$(wc -l <"$OUT")" -eq 1 ]
	python3 - "$OUT" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
rows = {r["syscall"]: r["count"] for r in o["syscalls"]}
assert rows["getppid"] == 2222, rows
assert o["lost"] == 0 and "time" in o
PY
}

@test "syscount: -P -L -j has pid, comm, count and latencies" {
	count_workload getppid 300 -P -L -j
	python3 - "$OUT" "$WL_PID" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
r = [p for p in o["processes"] if p["pid"] == int(sys.argv[2])][0]
assert r["comm"] == "sysloop" and r["count"] == 301, r
assert r["total_ns"] > 0 and 0 < r["avg_ns"] < r["total_ns"]
PY
}

@test "syscount: -T limits the rows, and the banner says how many" {
	start_tool syscount -T 2
	"$SYSLOOP" getppid 100
	stop_tool
	# banner, time, header, two rows, blank
	[ "$(grep -cvE '^(\[|SYSCALL|$)' "$OUT")" -eq 3 ] || { show_output; false; }
	[ "$(head -1 "$OUT")" = "Tracing syscalls, printing top 2... Ctrl+C to quit." ] || { show_output; false; }
	[ ! -s "$ERR" ] || { show_output; false; }
}

@test "syscount: interval and count print that many summaries, then exit" {
	start_tool syscount 1 2
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c '^SYSCALL' "$OUT")" -eq 2 ] || { show_output; false; }
	assert_clean
}

@test "syscount: -d ends after the duration with a summary" {
	start_tool syscount -d 1 -P
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -q '^PID    COMM' "$OUT"
	assert_clean
}

@test "syscount: -p of a process that is gone fails" {
	run syscount -p 999999
	[ "$status" -eq 1 ]
	[[ "$output" == *"no such process: 999999"* ]]
}

@test "syscount: -l lists syscalls" {
	run syscount -l
	[ "$status" -eq 0 ]
	grep -qx getppid <<<"$output"
	grep -qx openat <<<"$output"
}

@test "syscount: SIGTERM and SIGHUP end it cleanly" {
	for sig in TERM HUP; do
		start_tool syscount -P
		stop_tool "$sig"
		[ "$TOOL_RC" -eq 0 ] || { echo "# $sig: status $TOOL_RC"; false; }
		assert_clean
	done
}

@test "syscount: a summary into a closed pipe ends it cleanly" {
	start_piped 1 syscount -d 1
	wait "$HEAD_PID"
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# head took the banner; the summary went into the closed pipe
	[ "$(cat "$OUT")" = "Tracing syscalls, printing top 10... Ctrl+C to quit." ] || { show_output; false; }
	[ ! -s "$ERR" ] || { show_output; false; }
	assert_clean
}

@test "syscount: -c counts exactly its command's calls, not those of a concurrent process of the same binary" {
	start_cmd_tool syscount -c "$SYSLOOP wait-stdin getppid 1000"
	"$SYSLOOP" getppid 5000		# traced, but not the command
	release_cmd
	wait_tool			# ends with the command
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -Eq '^getppid +1000$' "$OUT" || { show_output; false; }
	assert_clean
}

# getppid() calls of `syscount -c CMD`, 0 when it has no row
getppid_of() {
	run --separate-stderr syscount -T 1000 -c "$1"
	[ "$status" -eq 0 ] || { echo "# status $status: $stderr" >&2; return 1; }
	awk '$1 == "getppid" { n = $2 } END { print n + 0 }' <<<"$output"
}

@test "syscount: -c counts the command's whole process tree, and exits 0 whatever its status" {
	local shell all
	# what the shell itself calls, then the same shell running two children
	shell=$(getppid_of "sh -c 'exit 3'")
	all=$(getppid_of "sh -c '$SYSLOOP getppid 300; $SYSLOOP getppid 700; exit 3'")
	[ "$all" -eq $((shell + 1000)) ] || { echo "# shell $shell, all $all" >&2; false; }
}

@test "syscount: -c with -p is a usage error" {
	run --separate-stderr syscount -c true -p 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"-c and -p cannot be used together"* ]]
}

@test "syscount: out of file descriptors is said so, and leaves nothing behind" {
	run_pid sh -c 'ulimit -n 40 && exec "$@"' sh syscount 1 1
	[ "$status" -eq 1 ] || { show_run; false; }
	grep -q "^syscount: cannot count syscalls:[a-z_0-9]*: out of file descriptors ([0-9]* counters, one per CPU each; raise ulimit -n)$" <<<"$stderr" ||
		{ show_run; false; }
	! grep -q "does not exist" <<<"$stderr" || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "syscount: -t TID counts that thread's calls exactly, and ends with it" {
	start_held "$SYSLOOP" wait-stdin getppid 3210
	start_tool syscount -t "$WL_PID"
	"$SYSLOOP" getppid 500		# another thread: not counted
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -Eq '^getppid +3210$' "$OUT" || { show_output; false; }
	assert_clean
}

@test "syscount: --syscall counts only that syscall, in counting and in record mode" {
	count_workload fail 64 --syscall openat
	[ "$(head -1 "$OUT")" = "Tracing syscall 'openat'... Ctrl+C to quit." ] || { show_output; false; }
	[ "$(grep -vE '^(Tracing|\[|SYSCALL|$)' "$OUT")" = "$(printf '%-22s %8s' openat 64)" ] ||
		{ show_output; false; }
	count_workload fail 64 --syscall getppid -x
	[ "$(grep -cvE '^(Tracing|\[|SYSCALL|$)' "$OUT")" -eq 0 ] || { show_output; false; }
	count_workload getppid 300 --syscall getppid -P -j
	jq -e --argjson p "$WL_PID" '.processes == [{"pid": $p, "comm": "sysloop", "count": 300}]' "$OUT" >/dev/null ||
		{ show_output; false; }
	count_workload fail 40 --syscall openat -P -L -e ENOENT -j
	jq -e --argjson p "$WL_PID" '.processes | length == 1 and .[0].pid == $p and .[0].count == 40' "$OUT" >/dev/null ||
		{ show_output; false; }
	assert_clean
}
