#!/usr/bin/env bats
# cpudist against schedpp (tests/live/sched_tools.bash): exact counts of
# on- and off-CPU spans per thread (one per switch-in/switch-out pair the
# kernel's events show), and the worker's known busy spans and sleeps in
# their power-of-two buckets.

load helpers
load sched_tools

setup() {
	require_root
	require_tracefs_file events/sched/sched_switch
}

teardown() {
	stop_leftover_tool
	end_pp
}

@test "cpudist: -L -p has one on-CPU span per switch-out, 20 ms busy spans in 16384 -> 32767" {
	start_pp 10 20 40
	start_tool cpudist -L -p "$WL_PID"
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -q 'Tracing on-CPU time' "$ERR"
	# a span per switch-out (/proc), but for events that went missing
	run hist "$OUT"
	counts_within "$output" "$MAIN" "$(ref on "$MAIN")" "$D_MAIN" \
		"$WORKER" "$(ref on "$WORKER")" "$D_WORKER" || { show_output; false; }
	w=$(awk -v t="$WORKER" '$1 == t { print $2 }' <<<"$output")
	# each round's 20 ms busy is one span of 20 ms and a little more
	# (16384 -> 32767, or above if the host paused the guest), unless a
	# real-time task preempted the worker (then it is split) or an event
	# of its switches went missing
	n=$(buckets_from "$OUT" "$WORKER" 16384)
	[ "$n" -le 10 ] && [ "$n" -ge $((10 - IV_WORKER - (D_WORKER - w))) ] ||
		{ echo "# 16384 bucket and above $n, involuntary $IV_WORKER"; show_output; false; }
	grep -qx "tid = $WORKER schedpp" "$OUT"
	assert_clean
}

@test "cpudist: -O -L -p has each thread's off-CPU spans, 40 ms sleeps in 32768 -> 65535" {
	start_pp 10 20 40
	start_tool cpudist -O -L -p "$WL_PID"
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -q 'Tracing off-CPU time' "$ERR"
	# a span per switch-in but the first (its span began before
	# tracing), but for events that went missing
	run hist "$OUT"
	counts_within "$output" "$MAIN" "$(ref off "$MAIN")" $((D_MAIN - 1)) \
		"$WORKER" "$(ref off "$WORKER")" $((D_WORKER - 1)) || { show_output; false; }
	w=$(awk -v t="$WORKER" '$1 == t { print $2 }' <<<"$output")
	# each round's 40 ms sleep is one span of 40 ms and a little more
	# (32768 -> 65535, or above if the host paused the guest)
	n=$(buckets_from "$OUT" "$WORKER" 32768)
	[ "$n" -ge $((10 - (D_WORKER - 1 - w))) ] && [ "$n" -le $((10 + IV_WORKER)) ] ||
		{ echo "# 32768 bucket and above $n, involuntary $IV_WORKER"; show_output; false; }
	assert_clean
}

@test "cpudist: -P -p is the process alone; -j has the same counts and buckets" {
	start_pp 10 20 40
	start_tool cpudist -P -j -p "$WL_PID"
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 1 ]
	python3 - "$OUT" "$WL_PID" "$(($(ref on "$MAIN") + $(ref on "$WORKER")))" \
		$((D_MAIN + D_WORKER)) "$IV_WORKER" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
pid, lo, hi, iv = map(int, sys.argv[2:6])
assert [p["pid"] for p in o["pids"]] == [pid], o["pids"]
p = o["pids"][0]
n = p["count"]
assert lo <= n <= hi and n == o["count"], (n, lo, hi)
assert p["comm"] == "schedpp"
busy = sum(b["count"] for b in p["hist"] if b["low"] == 16384)
assert 10 - iv - (hi - n) <= busy <= 10, (busy, iv, hi - n)
assert sum(b["count"] for b in p["hist"]) == n
PY
	assert_clean
}

@test "cpudist: -m -e prints msecs and the totals line; -P without -p has others" {
	start_pp 5 20 40
	start_tool cpudist -P -m -e
	pp_batch
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -q '^     msecs               : count     distribution$' "$OUT"
	grep -Eq '^avg = [0-9]+ msecs, total: [0-9]+ msecs, count: [0-9]+$' "$OUT" || { show_output; false; }
	run hist "$OUT"
	counts_within -s "$output" "$WL_PID" "$(($(ref on "$MAIN") + $(ref on "$WORKER")))" \
		$((D_MAIN + D_WORKER)) || { show_output; false; }
	grep -q "^$SPINNER " <<<"$output"
	# the busy spans: 20 ms is 16 -> 31 msecs
	n=$(bucket "$OUT" "$WL_PID" 16)
	[ "$n" -ge 1 ] && [ "$n" -le 5 ] || { show_output; false; }
	assert_clean
}

@test "cpudist: interval and count print exactly count summaries, then exit" {
	start_tool cpudist -O -j 1 2
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 2 ]
	jq -e '.unit == "usecs" and .count > 0' "$OUT" >/dev/null
	assert_clean
}

@test "cpudist: -c measures the command's process tree" {
	local info=$BATS_TEST_TMPDIR/c.info
	start_cmd_tool cpudist -P -c "$SCHEDPP 10 5 10 $info rt"
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	read -r _ m w s < <(grep '^tids' "$info")
	run hist "$OUT"
	awk -v m="$m" -v s="$s" '$1 != m && $1 != s { exit 1 }' <<<"$output" || { show_output; false; }
	awk -v m="$m" '$1 == m && $2 >= 30 { ok = 1 } END { exit !ok }' <<<"$output"
	assert_clean
}

@test "cpudist: -P with -L is a usage error" {
	run --separate-stderr cpudist -P -L
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"-P and -L cannot be used together"* ]]
}
