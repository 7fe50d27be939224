#!/usr/bin/env bats
# tapkit's process(...) probes over many functions at once: the uprobes of
# one shape share one event (prov/uprobe_merge.c), each record naming its
# probe, so that hundreds of functions stop with one grace period.
#
#   fncount N: calls tk_fn_I (I = 000..599) (I % 4 + 1) * N times;
#   tk_fn_000_alias is a second name of tk_fn_000.

load helpers

FNC=$TAPKIT_TOP/build/tests/helpers/fncount

setup() {
	require_root
	require_tracefs_file uprobe_events
}

teardown() {
	stop_leftover_tool
}

# The event names and the probe lines of session $1's group.
group_events() {
	grep "tapkit_${1}_" "$TRACEFS/dynamic_events" | awk '{print $1}' | sort -u
}

group_probes() {
	grep -c "tapkit_${1}_" "$TRACEFS/dynamic_events"
}

@test "tapkit wide: 600 functions, entries and returns, in two events with exact counts" {
	start_cmd_tool tapkit -D MAXACTION=100000 -c "$FNC wait-stdin 3" -e 'global c, r
probe process(@1).function("tk_fn_*") { c[probefunc()] <<< 1 }
probe process(@1).function("tk_fn_*").return { r[probefunc()] <<< 1 }
probe end {
	foreach (k in c) { n++; s += @count(c[k]) }
	foreach (k in r) { m++; t += @count(r[k]) }
	printf("%d %d %d %d %d %d %d\n", n, s, m, t, @count(c["tk_fn_000"]),
	       @count(c["tk_fn_599"]), @count(r["tk_fn_002"]))
}' "$FNC"
	# one site per address (the alias is tk_fn_000), entries and
	# returns each one event
	[ "$(group_probes "$TOOL_PID")" -eq 1200 ] || { group_events "$TOOL_PID"; false; }
	[ "$(group_events "$TOOL_PID" | wc -l)" -eq 2 ] || { group_events "$TOOL_PID"; false; }
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# 3 * 150 * (1 + 2 + 3 + 4) calls; tk_fn_000 1 * 3, tk_fn_599 4 * 3
	[ "$(cat "$OUT")" = "600 4500 600 4500 3 12 9" ] || { show_output; false; }
	assert_clean "$TOOL_PID"
}

@test "tapkit wide: a site two probes name goes into a second event, each probe exact" {
	start_cmd_tool tapkit -c "$FNC wait-stdin 2" -e 'global a, b
probe process(@1).function("tk_fn_00*") { a[probefunc()] <<< 1 }
probe process(@1).function("tk_fn_00[0-3]") { b[probefunc()] <<< 1 }
probe end {
	foreach (k in a) s += @count(a[k])
	foreach (k in b) t += @count(b[k])
	printf("%d %d %d %d\n", s, t, @count(a["tk_fn_003"]), @count(b["tk_fn_003"]))
}' "$FNC"
	[ "$(group_probes "$TOOL_PID")" -eq 14 ] || { group_events "$TOOL_PID"; false; }
	[ "$(group_events "$TOOL_PID" | wc -l)" -eq 2 ] || { group_events "$TOOL_PID"; false; }
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# tk_fn_000..009: 2 * (1+2+3+4+1+2+3+4+1+2); 000..003: 2 * 10
	[ "$(cat "$OUT")" = "46 20 8 8" ] || { show_output; false; }
	assert_clean "$TOOL_PID"
}

@test "tapkit wide: a counting handler over 600 functions is recorded, with the same counts" {
	run_pid tapkit -v -D MAXACTION=100000 -c "$FNC 2" -e 'global c
probe process(@1).function("tk_fn_*") { c[pp()]++ }
probe end {
	foreach (k in c) { n++; s += c[k]; if (isinstr(k, "(\"tk_fn_001@")) one = c[k] }
	printf("%d %d %d\n", n, s, one)
}' "$FNC"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "600 3000 4" ] || { show_run; false; }
	assert_clean "$RUN_PID"
	# the plan says so: counters are for 32 functions at most
	run tapkit -p2 -e 'global c
probe process(@1).function("tk_fn_*") { c[pp()]++ }' "$FNC"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(grep -c 'counting mode' <<<"$output")" -eq 0 ] || { show_run; false; }
	[ "$(grep -c '^process(' <<<"$output")" -eq 600 ] || { show_run; false; }
}

@test "tapkit wide: a few counted functions stay counters, unless the fd limit cannot hold them" {
	local script='global c
probe process(@1).function("tk_fn_00*") { c[pp()]++ }
probe end {
	foreach (k in c) { s += c[k]; if (isinstr(k, "(\"tk_fn_007@")) one = c[k] }
	printf("%d %d\n", s, one)
}'
	run_pid tapkit -v -c "$FNC 2" -e "$script" "$FNC"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "46 8" ] || { show_run; false; }
	! grep -q "recording them instead" <<<"$stderr" || { show_run; false; }
	wait_clean "$RUN_PID" 30	# counters: handed to a detached process
	run tapkit -p2 -e "$script" "$FNC"
	[ "$(grep -c 'perf_event counting mode' <<<"$output")" -eq 10 ] || { show_run; false; }
	run_pid sh -c 'ulimit -n 200 && exec "$@"' sh tapkit -v -c "$FNC 2" -e "$script" "$FNC"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "46 8" ] || { show_run; false; }
	grep -q "10 counted uprobes on [0-9]* CPUs need more fds than the limit (200): recording them instead" <<<"$stderr" ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit wide: pid() == target() probes record only the target, in a session of their own" {
	start_held "$FNC" wait-stdin 2
	start_tool tapkit -x "$WL_PID" -e 'global a, b
probe process(@1).function("tk_fn_00[0-3]") { if (pid() != target()) next; a[probefunc()] <<< 1 }
probe process(@1).function("tk_fn_01[0-3]") { b[probefunc()] <<< 1 }
probe end {
	foreach (k in a) s += @count(a[k])
	foreach (k in b) t += @count(b[k])
	printf("%d %d\n", s, t)
}' "$FNC"
	# two groups: the target's session and the whole system's
	[ "$(grep "tapkit_${TOOL_PID}_" "$TRACEFS/dynamic_events" | awk '{print $1}' |
		cut -d/ -f1 | sort -u | wc -l)" -eq 2 ] || { cat "$TRACEFS/dynamic_events"; false; }
	grep -qx "$WL_PID" "$TRACEFS"/instances/tapkit_"${TOOL_PID}"_*/set_event_pid
	"$FNC" 3			# beside the target: only b sees it
	release_workload
	wait_tool			# ends with the target
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# a: 2 * (1+2+3+4); b: (3+4+1+2) * (2 + 3)
	[ "$(cat "$OUT")" = "20 50" ] || { show_output; false; }
	assert_clean "$TOOL_PID"
}

# The C library this machine's programs run on, as tapkit resolves "libc".
libc_path() {
	tapkit -l 'process("libc").function("syscall")' | sed -n 's/^process("\([^"]*\)").*/\1/p' | head -1
}

@test "tapkit wide: probes in the C library run on a private copy, so the reader never traps on itself" {
	local libc
	libc=$(libc_path)
	[ -n "$libc" ]
	LD_PRELOAD=/lib/x86_64-linux-gnu/libz.so.1 start_cmd_tool tapkit -v \
		-c "sh -c 'read x; env | grep -E \"^(LD_PRELOAD|TAPKIT_PRIV)\"; exec $SYSLOOP getppid 2000'" -e 'global n
probe process("libc").function("syscall") { if (pid() == target()) n++ }
probe end { printf("%d\n", n) }'
	# our code comes from the copy; the traced programs' from the file
	grep -q "memfd:tapkit-lib" "/proc/$TOOL_PID/maps"
	! grep " r-xp .* $libc\$" "/proc/$TOOL_PID/maps"
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -q "running again on a private copy of $libc" "$ERR" || { show_output; false; }
	# the command has the user's environment back, and exact counts
	[ "$(cat "$OUT")" = "LD_PRELOAD=/lib/x86_64-linux-gnu/libz.so.1
2000" ] || { show_output; false; }
	assert_clean "$TOOL_PID"
}

@test "tapkit wide: a script from stdin stays on the shared C library, with the same result" {
	start_cmd_tool sh -c 'exec tapkit -v -c "sh -c \"read x; exec $0 getppid 300\"" - <<EOF2
global n
probe process("libc").function("syscall") { if (pid() == target()) n++ }
probe end { printf("%d\n", n) }
EOF2' "$SYSLOOP"
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "300" ] || { show_output; false; }
	! grep -q "private copy" "$ERR" || { show_output; false; }
}
