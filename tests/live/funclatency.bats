#!/usr/bin/env bats
# funclatency against tests/helpers/lat, whose functions sleep known times:
# tk_lat_short 70.4 ms, tk_lat_long 281.6 ms, tk_lat_rec a recursion whose
# calls take 70.4, 140.8, 281.6, 563.2, 1126.4 ms (innermost first),
# tk_lat_gone exits its thread inside.  Each duration is just above the low
# edge of its power-of-two bucket in ns, us and ms, and a sleep is never
# shorter, so the buckets are exact (oversleeping by 57 ms is still in, as
# happens in an emulated VM under load); the workload prints what it timed
# around its calls, an upper bound for the total.

load helpers
load ../elf

LAT=$TAPKIT_TOP/build/tests/helpers/lat

setup() {
	require_root
	require_tracefs_file uprobe_events
	[ -x "$LAT" ] || { echo "# $LAT missing: run make tests-build" >&2; return 1; }
	WLOUT=$BATS_TEST_TMPDIR/wl.out
}

teardown() {
	stop_leftover_tool
	[ -z "${OTHER_PID:-}" ] || { kill -KILL "$OTHER_PID" 2>/dev/null; wait "$OTHER_PID" 2>/dev/null; } || true
}

# time_workload 'LAT ARGS' FUNCLATENCY ARGS...: funclatency -p on a held
# `lat ARGS` (its own output in $WLOUT); funclatency ends with it.
time_workload() {
	local args=$1; shift
	# shellcheck disable=SC2086
	start_held sh -c 'exec "$0" "$@" >"'"$WLOUT"'"' "$LAT" wait-stdin $args
	start_tool funclatency -p "$WL_PID" "$@"
	release_workload
	wait_tool
}

# rows [FILE]: the histogram rows with a count, as "LOW HIGH COUNT"
rows() {
	awk '/^ *[0-9]+ -> [0-9]+ +: [0-9]+ / && $5 != 0 { print $1, $3, $5 }' "${1:-$OUT}"
}

# avg_line UNIT: "AVG TOTAL COUNT" from the avg line of $OUT
avg_line() {
	sed -nE "s/^avg = ([0-9]+) $1, total: ([0-9]+) $1, count: ([0-9]+)\$/\\1 \\2 \\3/p" "$OUT"
}

@test "funclatency: -m puts 5 short and 3 long calls in their buckets, and the group is gone" {
	time_workload '5 3' -m "$LAT:tk_lat_*"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(rows)" = $'64 127 5\n256 511 3' ] || { show_output; false; }
	grep -qx '     msecs               : count     distribution' "$OUT"
	grep -qx '        64 -> 127        : 5        |\*\{40\}|' "$OUT"
	grep -qx '       256 -> 511        : 3        |\*\{24\} \{16\}|' "$OUT"
	grep -qxF "Tracing 4 functions for \"$LAT:tk_lat_*\"... Hit Ctrl-C to end." "$ERR" || { show_output; false; }
	assert_clean
}

@test "funclatency: -u buckets, and the avg line agrees with the workload's own timing" {
	local avg total count wl
	time_workload '5 3' -u "$LAT:tk_lat_*"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(rows)" = $'65536 131071 5\n262144 524287 3' ] || { show_output; false; }
	read -r avg total count < <(avg_line usecs)
	[ "$count" -eq 8 ] || { show_output; false; }
	wl=$(awk '{ s += $2 } END { print int(s / 1000) }' "$WLOUT")
	# 5 * 70.4 + 3 * 281.6 ms slept; at most what the workload timed (+1 ms
	# for the two clocks' rates)
	[ "$total" -ge 1196700 ] && [ "$total" -le $((wl + 1000)) ] || { show_output; cat "$WLOUT"; false; }
	[ "$avg" -eq $((total / 8)) ]
	assert_clean
}

@test "funclatency: nanoseconds by default, with the exact total" {
	local avg total count wl
	time_workload '5 3' "$LAT:tk_lat_*"
	[ "$(rows)" = $'67108864 134217727 5\n268435456 536870911 3' ] || { show_output; false; }
	grep -qx '     nsecs               : count     distribution' "$OUT"
	read -r avg total count < <(avg_line nsecs)
	wl=$(awk '{ s += $2 } END { print s }' "$WLOUT")
	[ "$count" -eq 8 ] && [ "$total" -ge 1196700000 ] && [ "$total" -le $((wl + 1000000)) ] ||
		{ show_output; cat "$WLOUT"; false; }
	[ "$avg" -eq $((total / 8)) ]
}

@test "funclatency: recursion pairs each return with its own entry" {
	time_workload '0 0 5' -m "$LAT:tk_lat_rec"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# calls of 70.4, 140.8, 281.6, 563.2 and 1126.4 ms, one per bucket
	[ "$(rows)" = $'64 127 1\n128 255 1\n256 511 1\n512 1023 1\n1024 2047 1' ] || { show_output; false; }
	grep -qxF "Tracing 1 functions for \"$LAT:tk_lat_rec\"... Hit Ctrl-C to end." "$ERR"
	[ "$(avg_line msecs | cut -d' ' -f3)" = 5 ]
}

@test "funclatency: -F prints one histogram per function, by name" {
	time_workload '5 3 3' -F -m "$LAT:tk_lat_*"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep '^Function = ' "$OUT")" = $'Function = tk_lat_long\nFunction = tk_lat_rec\nFunction = tk_lat_short' ] ||
		{ show_output; false; }
	[ "$(awk '/^Function = tk_lat_long/,/^$/' "$OUT" | rows /dev/stdin)" = '256 511 3' ] || { show_output; false; }
	[ "$(awk '/^Function = tk_lat_rec/,/^$/' "$OUT" | rows /dev/stdin)" = $'64 127 1\n128 255 1\n256 511 1' ]
	[ "$(awk '/^Function = tk_lat_short/,/^$/' "$OUT" | rows /dev/stdin)" = '64 127 5' ]
	[ "$(avg_line msecs | cut -d' ' -f3)" = 11 ]
}

@test "funclatency: a thread that exits inside a call is forgotten" {
	time_workload '2 0 0 3' -v -m "$LAT:tk_lat_*"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(rows)" = '64 127 2' ] || { show_output; false; }
	grep -qx 'funclatency: threads inside a timed call at the end: 0' "$ERR" || { show_output; false; }
}

@test "funclatency: -v says uprobes and lists each probe pair" {
	time_workload '1 0' -v "$LAT:tk_lat_short"
	grep -q "^funclatency: uprobes and uretprobes at entry and return of 1 functions (1 probe pairs, defined in [0-9.]* ms); records in the ring of instance tapkit_[0-9]*_[0-9]*," "$ERR" ||
		{ show_output; false; }
	local g off
	g=$(sed -nE 's/.* instance (tapkit_[0-9]+_[0-9]+),.*/\1/p' "$ERR")
	off=$(off "$LAT" .text "$(sym "$LAT" tk_lat_short)")	# binutils' view
	[ "$(grep '^funclatency:   ' "$ERR")" = "funclatency:   p:$g/tk_lat_short $LAT:$off"$'\n'"funclatency:   r:$g/tk_lat_short_ret $LAT:$off" ] ||
		{ show_output; echo "# offset $off"; false; }
}

@test "funclatency: -p leaves another process of the same binary out" {
	start_held sh -c 'exec "$0" "$@" >"'"$WLOUT"'"' "$LAT" wait-stdin 5 3
	start_tool funclatency -m -p "$WL_PID" "$LAT:tk_lat_*"
	"$LAT" 4 1 >/dev/null &
	OTHER_PID=$!
	wait "$OTHER_PID"
	OTHER_PID=
	release_workload
	wait_tool	# ends with the process
	[ "$TOOL_RC" -eq 0 ]
	[ "$(rows)" = $'64 127 5\n256 511 3' ] || { show_output; false; }
	assert_clean
}

@test "funclatency: -i prints intervals with -T times, whose counts add up" {
	time_workload '30 0' -m -T -i 1 "$LAT:tk_lat_short"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# 30 calls of 70.4 ms: at least two intervals
	[ "$(grep -c '^avg = ' "$OUT")" -ge 2 ] || { show_output; false; }
	[ "$(avg_line msecs | awk '{ s += $3 } END { print s }')" -eq 30 ] || { show_output; false; }
	[ "$(rows | awk '{ print $1, $2 }' | sort -u)" = '64 127' ]
	[ "$(grep -c '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$' "$OUT")" -eq "$(grep -c 'msecs  *: count' "$OUT")" ]
}

@test "funclatency: -d ends tracing by itself" {
	local t0 t1
	"$LAT" 100 0 >/dev/null &
	OTHER_PID=$!
	t0=$(date +%s%N)
	start_tool funclatency -d 1 -m "$LAT:tk_lat_short"
	wait_tool
	t1=$(date +%s%N)
	kill -0 "$OTHER_PID"	# the workload is still running
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ $(( (t1 - t0) / 1000000 )) -ge 1000 ] && [ $(( (t1 - t0) / 1000000 )) -lt 5000 ]
	# each call sleeps 70.4 ms, so none is measured below 64; a call the
	# machine kept from running for 57 ms more (a loaded VM under TCG)
	# lands one bucket up, but not most of them
	[ "$(rows | head -1 | awk '{ print $1, $2 }')" = '64 127' ] || { show_output; false; }
	[ "$(rows | awk '$1 == 64 { n = $3 } { t += $3 } END { print (n * 5 >= t * 4) }')" = 1 ] ||
		{ show_output; false; }
	n=$(avg_line msecs | cut -d' ' -f3)
	[ "$n" -ge 5 ] && [ "$n" -le 16 ] || { show_output; false; }
	assert_clean
}

@test "funclatency: -j prints one summary with the histogram as buckets" {
	time_workload '5 3' -j -u -F "$LAT:tk_lat_*"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ ! -s "$ERR" ] || { show_output; false; }
	python3 - "$OUT" "$LAT:tk_lat_*" "$WLOUT" <<'PY'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
wl = sum(int(l.split()[1]) for l in open(sys.argv[3]))
assert len(rows) == 1, rows
r = rows[0]
assert list(r) == ["time", "pattern", "unit", "count", "total_ns", "avg_ns", "hist",
                   "functions", "lost", "lost_per_cpu"], list(r)
assert re.fullmatch(r"\d\d:\d\d:\d\d", r["time"]), r
assert r["pattern"] == sys.argv[2] and r["unit"] == "usecs", r
assert r["count"] == 8 and 1196700000 <= r["total_ns"] <= wl + 1000000, (r, wl)
assert r["avg_ns"] == r["total_ns"] // 8, r
b = lambda lo, hi, n: {"low": lo, "high": hi, "count": n}
assert r["hist"] == [b(65536, 131071, 5), b(131072, 262143, 0), b(262144, 524287, 3)], r["hist"]
f = r["functions"]
assert [x["function"] for x in f] == ["tk_lat_long", "tk_lat_short"], f
assert f[0]["count"] == 3 and f[0]["hist"] == [b(262144, 524287, 3)], f
assert f[1]["count"] == 5 and f[1]["hist"] == [b(65536, 131071, 5)], f
assert f[0]["total_ns"] + f[1]["total_ns"] == r["total_ns"], f
assert r["lost"] == 0 and r["lost_per_cpu"] == [], r
PY
	assert_clean
}

@test "funclatency: a pattern matching nothing, an unknown library: one line, exit 1, nothing left" {
	run_pid funclatency "$LAT:tk_no_such_*"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "funclatency: no functions match '$LAT:tk_no_such_*'" ] || { echo "# $stderr"; false; }
	assert_clean "$RUN_PID"
	run_pid funclatency -u 'tk-no-such-lib:f*'
	[ "$status" -eq 1 ]
	[ "$stderr" = "funclatency: cannot find 'tk-no-such-lib': no such program or library" ] || { echo "# $stderr"; false; }
	assert_clean "$RUN_PID"
}

@test "funclatency: without kprobes a kernel pattern names the missing feature" {
	[ ! -e "$TRACEFS/kprobe_events" ] || skip "the kernel has kprobe_events: this is the error without them"
	run_pid funclatency -m do_nanosleep
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "funclatency: this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)" ] || { echo "# $stderr"; false; }
	assert_clean "$RUN_PID"
}

@test "funclatency: kernel functions with kprobes: do_nanosleep of one process" {
	require_tracefs_file kprobe_events
	time_workload '5 3' -m do_nanosleep
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(rows)" = $'64 127 5\n256 511 3' ] || { show_output; false; }
	grep -qxF 'Tracing 1 functions for "do_nanosleep"... Hit Ctrl-C to end.' "$ERR"
	assert_clean
}

@test "funclatency: -v says kprobes, -F names kernel functions" {
	require_tracefs_file kprobe_events
	time_workload '5 3 3' -v -F -u 'do_nanoslee*'
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -q '^funclatency: kprobes and kretprobes at entry and return of 1 functions' "$ERR" || { show_output; false; }
	[ "$(grep '^Function = ' "$OUT")" = 'Function = do_nanosleep' ] || { show_output; false; }
	# nanosleeps: 5 short and 2 in the recursion of 70.4 ms, its outer one
	# of 140.8 ms, 3 long of 281.6 ms
	[ "$(rows)" = $'65536 131071 7\n131072 262143 1\n262144 524287 3' ] || { show_output; false; }
	assert_clean
}

@test "funclatency: -c times its command's calls only, and exits 0 after the histogram" {
	start_cmd_tool funclatency -m -c "sh -c 'read x; $LAT 2 0; exit 3'" "$LAT:tk_lat_short"
	"$LAT" 1 0		# traced, but not the command's
	release_cmd
	wait_tool		# ends with the command
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(rows)" = '64 127 2' ] || { show_output; false; }
	[ "$(avg_line msecs | cut -d' ' -f3)" = 2 ] || { show_output; false; }
	assert_clean
}

@test "funclatency: -l 2 times the two outermost calls of a recursion, not the deeper ones" {
	time_workload '0 0 5' -m -l 2 "$LAT:tk_lat_rec"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# of the calls of 70.4, 140.8, 281.6, 563.2 and 1126.4 ms, the last two
	[ "$(rows)" = $'512 1023 1\n1024 2047 1' ] || { show_output; false; }
	[ "$(avg_line msecs | cut -d' ' -f3)" = 2 ] || { show_output; false; }
	time_workload '0 0 5' -m -l 1 "$LAT:tk_lat_rec"
	[ "$(rows)" = $'1024 2047 1' ] || { show_output; false; }
	assert_clean
}

@test "funclatency: -r takes a regular expression, matched from the name's start" {
	time_workload '5 3 3' -r -F -m "$LAT:tk_lat_(short|long)\$"
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep '^Function = ' "$OUT")" = $'Function = tk_lat_long\nFunction = tk_lat_short' ] ||
		{ show_output; false; }
	[ "$(awk '/^Function = tk_lat_long/,/^$/' "$OUT" | rows /dev/stdin)" = '256 511 3' ] || { show_output; false; }
	[ "$(awk '/^Function = tk_lat_short/,/^$/' "$OUT" | rows /dev/stdin)" = '64 127 5' ] || { show_output; false; }
	[ "$(avg_line msecs | cut -d' ' -f3)" = 8 ] || { show_output; false; }
	grep -qxF "Tracing 2 functions for \"$LAT:tk_lat_(short|long)\$\"... Hit Ctrl-C to end." "$ERR" ||
		{ show_output; false; }
	# anchored at the start, as bcc's: a name's middle does not match
	run_pid funclatency -r "$LAT:lat_short"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "funclatency: no functions match '$LAT:lat_short'" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}
