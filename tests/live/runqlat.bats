#!/usr/bin/env bats
# runqlat against schedpp (tests/live/sched_tools.bash): exact counts of
# run-queue latencies per thread and process: one per switch-in of the
# workload's threads.

load helpers
load sched_tools

setup() {
	require_root
	require_tracefs_file events/sched/sched_switch
}

# want_in: $N_MAIN, $N_WORKER, the switch-ins of the batch tpoint saw;
# the threads' counters agree but for the events it missed
want_in() {
	N_MAIN=$(ref in "$MAIN") N_WORKER=$(ref in "$WORKER")
	[ "$N_MAIN" -eq $((D_MAIN - $(ref missed "$MAIN"))) ] &&
		[ "$N_WORKER" -eq $((D_WORKER - $(ref missed "$WORKER"))) ] ||
		{ echo "# tpoint: $N_MAIN, $N_WORKER; /proc: $D_MAIN, $D_WORKER"; false; }
}

teardown() {
	stop_leftover_tool
	end_pp
}

@test "runqlat: -L -p counts each thread's switch-ins exactly" {
	start_pp 10 5 10
	start_tool runqlat -L -p "$WL_PID"
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# each round wakes the worker twice (the pipe, the timer), the main
	# thread once, and the batch's line wakes it once more
	[ "$D_WORKER" -ge 20 ] && [ "$D_MAIN" -ge 11 ]
	want_in
	run hist "$OUT"
	counts_within "$output" "$MAIN" "$N_MAIN" "$D_MAIN" "$WORKER" "$N_WORKER" "$D_WORKER" ||
		{ show_output; false; }
	grep -q '^     usecs               : count     distribution$' "$OUT"
	grep -q 'Tracing run queue latency' "$ERR"
	assert_clean
}

@test "runqlat: -P -p is one histogram for the process; its child is left out" {
	start_pp 10 5 10
	start_tool runqlat -P -p "$WL_PID"
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	want_in
	run hist "$OUT"
	# the spinner (a child process on the same CPU) has no section
	counts_within "$output" "$WL_PID" $((N_MAIN + N_WORKER)) $((D_MAIN + D_WORKER)) ||
		{ show_output; false; }
	assert_clean
}

@test "runqlat: system-wide -P has the process and other processes too" {
	start_pp 5 5 10
	start_tool runqlat -P
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	want_in
	run hist "$OUT"
	counts_within -s "$output" "$WL_PID" $((N_MAIN + N_WORKER)) $((D_MAIN + D_WORKER)) ||
		{ show_output; false; }
	grep -q "^$SPINNER " <<<"$output"
	# sections by PID, in order
	[ "$(grep -c '^pid = ' "$OUT")" -ge 3 ]
	grep '^pid = ' "$OUT" | awk '{ print $3 }' | sort -nc
	assert_clean
}

@test "runqlat: -j has the text's exact counts in one object; -m counts in msecs" {
	start_pp 10 5 10
	start_tool runqlat -L -j -p "$WL_PID"
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 1 ]
	want_in
	python3 - "$OUT" "$MAIN" "$WORKER" "$N_MAIN" "$N_WORKER" "$D_MAIN" "$D_WORKER" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
main, worker, nm, nw, dm, dw = map(int, sys.argv[2:8])
assert o["unit"] == "usecs" and o["lost"] == 0, o
tids = {t["tid"]: t for t in o["tids"]}
assert sorted(tids) == sorted([main, worker]), tids.keys()
cm, cw = tids[main]["count"], tids[worker]["count"]
assert nm <= cm <= dm and nw <= cw <= dw, (cm, cw, nm, nw, dm, dw)
assert o["count"] == cm + cw and sum(b["count"] for b in o["hist"]) == o["count"]
for t in tids.values():
    assert t["pid"] == main and t["comm"] == "schedpp", t
    assert sum(b["count"] for b in t["hist"]) == t["count"]
    for b in t["hist"]:
        assert b["high"] == (0 if b["low"] == 0 else 2 * b["low"] - 1), b
PY
	assert_clean
	start_tool runqlat -m -p "$WL_PID"
	pp_batch
	stop_tool
	grep -q '^     msecs               : count     distribution$' "$OUT" || { show_output; false; }
	want_in
	run hist "$OUT"
	counts_within "$output" all $((N_MAIN + N_WORKER)) $((D_MAIN + D_WORKER))
}

@test "runqlat: --pidnss is one histogram for the process's PID namespace" {
	local ns
	start_pp 5 5 10
	ns=$(readlink "/proc/$WL_PID/ns/pid" | tr -dc 0-9)
	start_tool runqlat --pidnss -p "$WL_PID"
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	want_in
	run hist "$OUT"
	counts_within "$output" "$ns" $((N_MAIN + N_WORKER)) $((D_MAIN + D_WORKER)) ||
		{ echo "# ns $ns"; show_output; false; }
	grep -qx "pidns = $ns" "$OUT"
}

@test "runqlat: interval and count print exactly count summaries, then exit" {
	start_tool runqlat -T 1 2
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -c '^     usecs               : count     distribution$' "$OUT")" -eq 2 ]
	[ "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2} *$' "$OUT")" -eq 2 ]
	assert_clean
	start_tool runqlat -j 1 3
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(wc -l <"$OUT")" -eq 3 ]
	jq -e '.count > 0 and (.hist | length) > 0' "$OUT" >/dev/null
	assert_clean
}

@test "runqlat: -c measures the command's process tree" {
	local info=$BATS_TEST_TMPDIR/c.info
	start_cmd_tool runqlat -L -c "$SCHEDPP 10 5 10 $info rt"
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	read -r _ m w s < <(grep '^tids' "$info")
	run hist "$OUT"
	# its threads and its spinner child, and nothing else
	awk -v m="$m" -v w="$w" -v s="$s" '$1 != m && $1 != w && $1 != s { exit 1 }' <<<"$output" ||
		{ show_output; false; }
	awk -v w="$w" '$1 == w && $2 >= 20 { ok = 1 } END { exit !ok }' <<<"$output"
	assert_clean
}

@test "runqlat: bad operands and -P with -L are usage errors; a gone PID fails" {
	run --separate-stderr runqlat -P -L
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"-P, -L and --pidnss cannot be used together"* ]]
	run --separate-stderr runqlat 1 2 3
	[ "$status" -eq 2 ]
	run --separate-stderr runqlat -p 999999999
	[ "$status" -ne 0 ]
	[ -z "$output" ]
}
