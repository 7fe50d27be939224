#!/usr/bin/env bats
# funccount against workloads with exactly known hits: tests/helpers/fncount
# (tk_fn_000..tk_fn_599, function I called (I % 4 + 1) * N times; a
# library's functions), usdtloop (USDT probes from a dtrace provider, with
# semaphores), sysloop (syscalls), and the ELF fixtures run held before
# main() (libhold.so).

load helpers
load ../elf

FNC=$TAPKIT_TOP/build/tests/helpers/fncount
FNC_NOPIE=$TAPKIT_TOP/build/tests/helpers/fncount-nopie
USDT=$TAPKIT_TOP/build/tests/helpers/usdtloop

setup() {
	require_root
	require_tracefs_file uprobe_events
	require_fixtures
	for f in "$FNC" "$FNC_NOPIE" "$USDT"; do
		[ -x "$f" ] || { echo "# $f missing: run make tests-build" >&2; return 1; }
	done
}

teardown() {
	stop_leftover_tool
	[ -z "${OTHER_PID:-}" ] || { kill -INT "$OTHER_PID" 2>/dev/null; wait "$OTHER_PID" 2>/dev/null; } || true
}

# counts_ok FILE N FROM TO: the table in FILE has tk_fn_FROM..tk_fn_TO with
# (I % 4 + 1) * N each, and nothing else
counts_ok() {
	local i want got rows
	for ((i = 10#$3; i <= 10#$4; i++)); do
		want=$(( (i % 4 + 1) * $2 ))
		got=$(awk -v f="$(printf 'tk_fn_%03d' "$i")" '$1 == f { print $2 }' "$1")
		[ "$got" = "$want" ] || { echo "# tk_fn_$i: $got, wanted $want" >&2; return 1; }
	done
	rows=$(grep -c '^tk_fn_' "$1")
	[ "$rows" -eq $((10#$4 - 10#$3 + 1)) ] || { echo "# $rows rows" >&2; return 1; }
}

# sema PID PROBE: the semaphore value of USDT probe PROBE in process PID
sema() {
	tplist -j -v -p "$1" "$2" | python3 -c '
import json, sys
print(json.loads(sys.stdin.readline())["semaphore"]["value"])'
}

@test "funccount: 50 functions of a PIE, exact counts, table as bcc, -p exit ends it" {
	start_held "$FNC" wait-stdin 3
	start_tool funccount -p "$WL_PID" "$FNC:tk_fn_0[0-4]*"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	counts_ok "$OUT" 3 000 049 || { show_output; false; }
	[ "$(sed -n 2p "$OUT")" = "FUNC                                    COUNT" ]
	[ "$(sed -n 3p "$OUT")" = "tk_fn_000                                   3" ]
	[ "$(tail -1 "$OUT")" = "Detaching..." ]
	# bcc's order: by count, the largest last
	[ "$(grep '^tk_fn' "$OUT" | awk '{ print $2 }' | sort -n -c && echo sorted)" = sorted ]
	grep -qx "Tracing 50 functions for \"$FNC:tk_fn_0\[0-4\]\*\"... Hit Ctrl-C to end." "$ERR"
	wait_clean "$TOOL_PID" 20
}

@test "funccount: a fixed-address executable, and -v lists mechanism and definitions" {
	start_held "$FNC_NOPIE" wait-stdin 2
	start_tool funccount -v -p "$WL_PID" "$FNC_NOPIE:tk_fn_00[0-5]"
	release_workload
	wait_tool
	counts_ok "$OUT" 2 000 005 || { show_output; false; }
	grep -Eq "^funccount: counting 6 events \(6 functions\) with perf_event counting mode \(no records\); defined and added in [0-9.]+ ms\$" "$ERR"
	local addr
	addr=$(sym "$FNC_NOPIE" tk_fn_003)
	grep -q "^funccount:   p:tapkit_${TOOL_PID}_[0-9]*/tk_fn_003 $FNC_NOPIE:$(off "$FNC_NOPIE" .text "$addr")\$" "$ERR" ||
		{ show_output; false; }
	assert_clean
}

@test "funccount: a shared library's functions, by the name of its mapping (-p)" {
	start_held "$FNC" wait-stdin lib "$FIX/libtk.so" 4
	start_tool funccount -p "$WL_PID" 'libtk:tk_lib_*'
	release_workload
	wait_tool
	grep -A3 '^FUNC' "$OUT" | tail -3 | awk '{ print $1, $2 }' > "$BATS_TEST_TMPDIR/rows"
	[ "$(cat "$BATS_TEST_TMPDIR/rows")" = $'tk_lib_one 4\ntk_lib_two 8\ntk_lib_three 12' ] ||
		{ show_output; false; }
	assert_clean
}

@test "funccount: a stripped binary with a debuglink, its static functions from the debug file" {
	start_held env LD_PRELOAD="$HOLD" "$FIX/prog-stripped"
	start_tool funccount -p "$WL_PID" "$FIX/prog-stripped:tk_*"
	release_workload
	wait_tool
	[ "$(grep -c '^tk_' "$OUT")" -eq 6 ] || { show_output; false; }
	for f in tk_add tk_many tk_opt tk_caller1 tk_caller2; do
		grep -Eq "^$f +1\$" "$OUT" || { show_output; false; }
	done
	# the two file-local tk_dup (prog.c, opt.c), called once each, are
	# only in the debug file's .symtab
	grep -Eq '^tk_dup +2$' "$OUT" || { show_output; false; }
	wait_clean "$TOOL_PID" 60
}

@test "funccount: a tracepoint pattern, exact for -p" {
	start_held "$SYSLOOP" wait-stdin getppid 7
	start_tool funccount -p "$WL_PID" 't:syscalls:sys_enter_getppid*'
	release_workload
	wait_tool
	grep -Eq '^syscalls:sys_enter_getppid +7$' "$OUT" || { show_output; false; }
	grep -q '^Tracing 1 functions for "t:syscalls:sys_enter_getppid\*"' "$ERR"
	assert_clean
}

@test "funccount: USDT probes of a dtrace -G program, sites summed, semaphores by the kernel" {
	start_held "$USDT" wait-stdin 9
	start_tool funccount -v -p "$WL_PID" 'u::tkfc:*'
	# the kernel counts one per uprobe using it: tock has two call sites
	[ "$(sema "$WL_PID" tkfc:tick)" = 1 ]
	[ "$(sema "$WL_PID" tkfc:tock)" = 2 ]
	release_workload
	wait_tool
	grep -Eq '^tkfc:tick +9$' "$OUT" || { show_output; false; }
	grep -Eq '^tkfc:tock +9$' "$OUT" || { show_output; false; }
	grep -q 'counting 3 events (2 USDT probes)' "$ERR"
	grep -q 'USDT semaphores: counted by the kernel (uprobe reference counters)' "$ERR"
	grep -Eq "tkfc_tick $USDT:0x[0-9a-f]+\(0x[0-9a-f]+\)\$" "$ERR"
	assert_clean
}

@test "funccount: USDT without -p covers processes started later" {
	start_tool funccount "u:$USDT:tkfc:tick"
	run "$USDT" 5
	[ "$output" = "tick 5 tock 0" ]
	run "$USDT" 2
	[ "$output" = "tick 2 tock 0" ]
	stop_tool
	grep -Eq '^tkfc:tick +7$' "$OUT" || { show_output; false; }
	assert_clean
}

@test "funccount: hand-written sys/sdt.h probes of the fixtures, PIE and not" {
	for f in usdt-pie usdt-nopie; do
		start_held env LD_PRELOAD="$HOLD" "$FIX/$f"
		start_tool funccount -p "$WL_PID" "u:$FIX/$f:tk:compiled"
		[ "$(sema "$WL_PID" tk:compiled)" = 1 ]
		release_workload
		wait_tool
		grep -Eq '^tk:compiled +1$' "$OUT" || { show_output; false; }
		assert_clean
	done
}

# sema_cycle MODE HOW: funccount on a held usdtloop; the semaphore is 1 while
# it runs and 0 after it ends by HOW (d: -d 1, INT, TERM, KILL)
sema_cycle() {
	local env=() d=() killed
	[ "$1" = kernel ] || env=(env TAPKIT_NO_REF_CTR=1)
	[ "$2" = d ] && d=(-d 1)
	start_held "$USDT" wait-stdin 3
	start_tool "${env[@]}" funccount "${d[@]}" -p "$WL_PID" 'u::tkfc:tick'
	[ "$(sema "$WL_PID" tkfc:tick)" = 1 ] || { echo "# $*: not raised" >&2; return 1; }
	[ "$(sema "$WL_PID" tkfc:tock)" = 0 ]
	case $2 in
	d) wait_tool ;;
	KILL) kill -KILL "$TOOL_PID"; wait "$TOOL_PID" || true; killed=$TOOL_PID TOOL_PID= ;;
	*) stop_tool "$2"; [ "$TOOL_RC" -eq 0 ] ;;
	esac
	local i
	for i in $(seq 1 50); do
		[ "$(sema "$WL_PID" tkfc:tick)" = 0 ] && break
		sleep 0.1
	done
	[ "$(sema "$WL_PID" tkfc:tick)" = 0 ] || { echo "# $*: still raised" >&2; return 1; }
	if [ "$1" != kernel ]; then
		grep -qx "funccount: warning: no uprobe reference counters: 1 USDT semaphore raised in process $WL_PID through /proc/$WL_PID/mem" "$ERR" ||
			{ show_output; return 1; }
	fi
	release_workload
	# a killed session's watchdog removes its group within a second
	if [ "$2" = KILL ]; then
		wait_clean "$killed" 1
	else
		assert_clean
	fi
}

@test "funccount: the kernel's semaphore count is back to 0 after every exit path" {
	for how in d INT TERM KILL; do
		sema_cycle kernel "$how"
	done
}

@test "funccount: TAPKIT_NO_REF_CTR raises semaphores through /proc/PID/mem and lowers them on every exit" {
	for how in d INT TERM KILL; do
		sema_cycle mem "$how"
	done
	# the fallback counts too
	start_held "$USDT" wait-stdin 4
	start_tool env TAPKIT_NO_REF_CTR=1 funccount -p "$WL_PID" 'u::tkfc:*'
	release_workload
	wait_tool
	grep -Eq '^tkfc:tick +4$' "$OUT" && grep -Eq '^tkfc:tock +4$' "$OUT" || { show_output; false; }
}

@test "funccount: without reference counters and without -p, a semaphore probe is refused" {
	run_pid env TAPKIT_NO_REF_CTR=1 funccount "u:$USDT:tkfc:tick"
	[ "$status" -eq 1 ]
	[ "$stderr" = "funccount: cannot enable the semaphores of 'u:$USDT:tkfc:tick': this kernel's uprobes have no reference counters (use -p PID)" ]
	[ -z "$output" ]
	assert_clean "$RUN_PID"
}

@test "funccount: two runs at once on one function and one USDT probe each count every hit" {
	start_tool funccount "$FNC:tk_fn_002"
	OTHER_PID=$TOOL_PID OTHER_OUT=$OUT
	OUT2=$BATS_TEST_TMPDIR/out2
	TAPKIT_READY_FILE=$BATS_TEST_TMPDIR/r2 funccount "$FNC:tk_fn_002" >"$OUT2" 2>/dev/null &
	local p2=$!
	for _ in $(seq 1 200); do [ -e "$BATS_TEST_TMPDIR/r2" ] && break; sleep 0.05; done
	"$FNC" 5
	kill -INT "$p2"; wait "$p2"
	grep -Eq '^tk_fn_002 +15$' "$OUT2" || { cat "$OUT2"; false; }
	kill -INT "$OTHER_PID"; wait "$OTHER_PID"; OTHER_PID=
	grep -Eq '^tk_fn_002 +15$' "$OTHER_OUT"

	start_tool funccount "u:$USDT:tkfc:tock"
	OTHER_PID=$TOOL_PID OTHER_OUT=$OUT
	rm -f "$BATS_TEST_TMPDIR/r2"
	TAPKIT_READY_FILE=$BATS_TEST_TMPDIR/r2 funccount "u:$USDT:tkfc:tock" >"$OUT2" 2>/dev/null &
	p2=$!
	for _ in $(seq 1 200); do [ -e "$BATS_TEST_TMPDIR/r2" ] && break; sleep 0.05; done
	run "$USDT" 6
	[ "$output" = "tick 0 tock 6" ]
	kill -INT "$p2"; wait "$p2"
	kill -INT "$OTHER_PID"; wait "$OTHER_PID"; OTHER_PID=
	grep -Eq '^tkfc:tock +6$' "$OUT2" && grep -Eq '^tkfc:tock +6$' "$OTHER_OUT"
}

@test "funccount: -i intervals with -T sum to the total; -d ends them" {
	start_held "$FNC" wait-stdin paced 25 100000
	start_tool funccount -T -i 1 -p "$WL_PID" "$FNC:tk_fn_000"
	release_workload
	wait_tool
	[ "$(grep -c '^FUNC' "$OUT")" -ge 3 ] || { show_output; false; }
	[ "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$OUT")" -eq "$(grep -c '^FUNC' "$OUT")" ]
	[ "$(awk '$1 == "tk_fn_000" { s += $2 } END { print s }' "$OUT")" -eq 25 ] || { show_output; false; }
	[ "$(grep -c '^Detaching...$' "$OUT")" -eq 1 ]
	# -i 1 -d 2: two tables, then the end
	start_tool funccount -i 1 -d 2 "$FNC:tk_fn_000"
	wait_tool
	[ "$(grep -c '^FUNC' "$OUT")" -eq 2 ] && [ "$(tail -1 "$OUT")" = "Detaching..." ] || { show_output; false; }
}

@test "funccount: -j prints one object per interval and a summary" {
	start_held "$FNC" wait-stdin 2
	start_tool funccount -j -p "$WL_PID" "$FNC:tk_fn_00[1-3]"
	release_workload
	wait_tool
	[ ! -s "$ERR" ] || { show_output; false; }
	python3 - "$OUT" "$FNC:tk_fn_00[1-3]" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1, rows
r = rows[0]
assert r["type"] == "summary" and r["pattern"] == sys.argv[2], r
assert len(r["time"]) == 8, r
assert r["counts"] == [{"func": "tk_fn_001", "count": 4}, {"func": "tk_fn_002", "count": 6},
                       {"func": "tk_fn_003", "count": 8}], r
PY
}

@test "funccount: nothing matched, too many, no such library: one line, exit 1, nothing left" {
	run_pid funccount "$FNC:tk_nope*"
	[ "$status" -eq 1 ] && [ "$stderr" = "funccount: no functions match '$FNC:tk_nope*'" ]
	assert_clean "$RUN_PID"
	run_pid funccount 't:nosuchsys:*'
	[ "$status" -eq 1 ] && [ "$stderr" = "funccount: no tracepoints match 't:nosuchsys:*'" ]
	run_pid funccount "u:$FNC:nope"
	[ "$status" -eq 1 ] && [ "$stderr" = "funccount: no USDT probes match 'u:$FNC:nope'" ]
	run_pid funccount 'c:*'
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"funccount: 'c:*' matches "[0-9]+" functions, more than 1000"$ ]]
	assert_clean "$RUN_PID"
	run_pid funccount 'nosuchlibxyz:f'
	[ "$status" -eq 1 ] && [ "$stderr" = "funccount: cannot find 'nosuchlibxyz': no such program or library" ]
	run_pid funccount 'u::x'
	[ "$status" -eq 1 ] && [ "$stderr" = "funccount: no library or program in 'u::x' (and no process to look in)" ]
	run_pid funccount -p 999999999 c:malloc
	[ "$status" -eq 1 ] && [ "$stderr" = "funccount: no such process: 999999999" ]
}

@test "funccount: kernel functions, exact counts for -p (kprobes)" {
	local n
	require_tracefs_file kprobe_events
	start_held "$SYSLOOP" wait-stdin getppid 11
	start_tool funccount -p "$WL_PID" '__do_sys_getp*'
	release_workload
	wait_tool
	# several functions matched (getpid, getpgid, getppid, ...), and only
	# the one the workload calls counted
	n=$(sed -n 's/^Tracing \([0-9]*\) functions for .*/\1/p' "$ERR")
	[ "${n:-0}" -gt 1 ] || { show_output; false; }
	grep -Eq '^__do_sys_getppid +11$' "$OUT" || { show_output; false; }
	[ "$(grep -c '^__do_sys' "$OUT")" -eq 1 ] || { show_output; false; }
	wait_clean "$TOOL_PID" 60
}

@test "funccount: 600 functions attach in one write, exit at once, and the group goes" {
	local ms t0 t1
	start_held "$FNC" wait-stdin 1
	start_tool funccount -v -p "$WL_PID" "$FNC:tk_fn_*"
	ms=$(sed -n 's/.*counting 600 events (600 functions).* defined and added in \([0-9]*\)\.[0-9] ms$/\1/p' "$ERR")
	echo "# 600 uprobes defined and added in $ms ms" >&3
	[ -n "$ms" ] || { show_output; false; }
	t0=$(date +%s%N)
	release_workload
	wait_tool
	t1=$(date +%s%N)
	echo "# exit after the target: $(( (t1 - t0) / 1000000 )) ms" >&3
	# not a timing: the kernel takes ~40 s to release 600 events, and
	# the exit must not wait for that
	[ $(( (t1 - t0) / 1000000 )) -lt 10000 ]
	counts_ok "$OUT" 1 000 599 || { show_output; false; }
	wait_clean "$TOOL_PID" 150
}

@test "funccount: -c counts its command's process tree only, and exits 0 after the counts" {
	start_cmd_tool funccount -c "sh -c 'read x; $FNC 2; $FNC 3; exit 5'" "$FNC:tk_fn_00[0-3]"
	"$FNC" 7			# the same functions, beside the command
	release_cmd
	wait_tool			# ends with the command
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# tk_fn_I called (I % 4 + 1) * N times by each, N = 2 + 3
	counts_ok "$OUT" 5 000 003 || { show_output; false; }
	wait_clean "$TOOL_PID" 20
}
