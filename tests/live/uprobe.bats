#!/usr/bin/env bats
# uprobe against tests/helpers/ucall, which calls tk_ucall(i, STR) for
# i = 0..N-1 (returning i + 1000), held until a byte arrives on stdin.

load helpers

UCALL=$TAPKIT_TOP/build/tests/helpers/ucall

setup() {
	require_root
	require_tracefs_file uprobe_events
	[ -x "$UCALL" ] || { echo "# $UCALL missing: run make tests-build" >&2; return 1; }
	DEF="p:$UCALL:tk_ucall n=%di:s32 s=+0(%si):string"
}

teardown() {
	stop_leftover_tool
	[ -z "${OTHER_PID:-}" ] || { kill -KILL "$OTHER_PID" 2>/dev/null; wait "$OTHER_PID" 2>/dev/null; } || true
}

# first_insn_len: the length of tk_ucall's first instruction, from objdump
first_insn_len() {
	local a b
	read -r a b < <(objdump -d --no-show-raw-insn "$UCALL" --disassemble=tk_ucall |
		awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }' | head -2 | paste -sd' ')
	echo $(( 0x$b - 0x$a ))
}

@test "uprobe: every call with its int and string args, and the group is gone" {
	start_held "$UCALL" wait-stdin 5 hello
	start_tool uprobe -p "$WL_PID" "$DEF"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 'tk_ucall:' "$OUT")" -eq 5 ] || { show_output; false; }
	for i in 0 1 2 3 4; do
		grep -Eq "^ *ucall-$WL_PID +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: tk_ucall: \(0x[0-9a-f]+\) n=$i s=\"hello\"\$" "$OUT" ||
			{ show_output; false; }
	done
	grep -q "^Tracing uprobe tk_ucall. Ctrl-C to end.\$" "$ERR"
	assert_clean
}

@test "uprobe: a return probe fetches \$retval" {
	start_held "$UCALL" wait-stdin 3 x
	start_tool uprobe -p "$WL_PID" "r:$UCALL:tk_ucall ret=\$retval:s32"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 'tk_ucall:' "$OUT")" -eq 3 ] || { show_output; false; }
	for v in 1000 1001 1002; do
		grep -Eq "tk_ucall: \(0x[0-9a-f]+ <- 0x[0-9a-f]+\) ret=$v\$" "$OUT" || { show_output; false; }
	done
	assert_clean
}

@test "uprobe: -p leaves another process of the same binary out" {
	start_held "$UCALL" wait-stdin 4 mine
	start_tool uprobe -p "$WL_PID" "$DEF"
	"$UCALL" 7 other &
	OTHER_PID=$!
	wait "$OTHER_PID"
	OTHER_PID=
	release_workload
	wait_tool	# ends with the process
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c "ucall-$WL_PID .*tk_ucall: .* s=\"mine\"\$" "$OUT")" -eq 4 ] || { show_output; false; }
	[ "$(grep -c 'other' "$OUT")" -eq 0 ]
}

@test "uprobe: without -p every process of the binary is traced, and a filter applies" {
	start_tool uprobe "$DEF" 'n >= 3'
	"$UCALL" 5 aa
	"$UCALL" 6 bb
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 's="aa"' "$OUT")" -eq 2 ] || { show_output; false; }
	[ "$(grep -c 's="bb"' "$OUT")" -eq 3 ]
	[ "$(grep -c ' n=[012] ' "$OUT")" -eq 0 ]
	assert_clean
}

@test "uprobe: -j prints typed args" {
	start_held "$UCALL" wait-stdin 2 json
	start_tool uprobe -j -p "$WL_PID" "$DEF"
	release_workload
	wait_tool
	python3 - "$OUT" "$WL_PID" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pid = int(sys.argv[2])
assert len(rows) == 2, rows
for i, r in enumerate(rows):
    assert r["comm"] == "ucall" and r["pid"] == pid and r["tid"] == pid, r
    assert r["event"] == "tk_ucall" and isinstance(r["addr"], int) and r["addr"] > 0, r
    assert isinstance(r["cpu"], int) and isinstance(r["ts_ns"], int), r
    assert r["args"] == {"n": i, "s": "json"}, r
PY
}

@test "uprobe: an address and an offset on an instruction boundary" {
	local addr len
	addr=$(printf '0x%x' "0x$(nm "$UCALL" | awk '$3 == "tk_ucall" { print $1 }')")
	len=$(first_insn_len)
	start_held "$UCALL" wait-stdin 3 a
	start_tool uprobe -p "$WL_PID" "p:$UCALL:$addr"
	release_workload
	wait_tool
	[ "$(grep -c "ucall_$addr: (0x" "$OUT")" -eq 3 ] || { show_output; false; }
	start_held "$UCALL" wait-stdin 4 a
	start_tool uprobe -p "$WL_PID" "p:myev $UCALL:tk_ucall+$len"
	release_workload
	wait_tool
	[ "$(grep -c ' myev: (0x' "$OUT")" -eq 4 ] || { show_output; false; }
}

@test "uprobe: with -p a bare function is in the process's executable" {
	start_held "$UCALL" wait-stdin 3 bare
	start_tool uprobe -p "$WL_PID" 'p:tk_ucall s=+0(%si):string'
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 'tk_ucall: (0x[0-9a-f]*) s="bare"$' "$OUT")" -eq 3 ] || { show_output; false; }
	assert_clean
}

@test "uprobe: an offset inside an instruction is refused, nothing defined" {
	[ "$(first_insn_len)" -gt 1 ]
	run_pid uprobe "p:$UCALL:tk_ucall+1"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "uprobe: tk_ucall+0x1 is inside an instruction (the one at tk_ucall+0x0 is "*" bytes)" ]]
	[ -z "$output" ]
	assert_clean "$RUN_PID"
	run_pid uprobe "p:$UCALL:tk_ucall+0x10000"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "uprobe: offset 0x10000 is beyond the end of 'tk_ucall' ("*")" ]]
}

@test "uprobe: unknown function and target, bad fetch arg, bad filter: one line, exit 1" {
	run_pid uprobe "p:$UCALL:tk_nope"
	[ "$status" -eq 1 ]
	[ "$stderr" = "uprobe: no function 'tk_nope' in '$UCALL'" ]
	run_pid uprobe "p:/no/such/file:f"
	[ "$status" -eq 1 ]
	[ "$stderr" = "uprobe: cannot find '/no/such/file': No such file or directory" ]
	run_pid uprobe "p:$UCALL:tk_ucall %zz"
	[ "$status" -eq 1 ]
	[ "$stderr" = "uprobe: the kernel rejected uprobe tk_ucall: Invalid register name" ]
	assert_clean "$RUN_PID"
	run_pid uprobe "$DEF" 'nope == 1'
	[ "$status" -eq 1 ]
	[ "$stderr" = "uprobe: filter 'nope == 1' rejected by the kernel: Field not found" ]
	assert_clean "$RUN_PID"
}

@test "uprobe: -v prints the event's format and removes it" {
	run_pid uprobe -v "$DEF"
	[ "$status" -eq 0 ]
	[[ "$output" == *"name: tk_ucall"* ]]
	[[ "$output" == *"field:s32 n;"* ]]
	[[ "$output" == *"field:__data_loc char[] s;"* ]]
	assert_clean "$RUN_PID"
}

@test "uprobe: -d ends tracing by itself" {
	start_tool uprobe -d 1 "$DEF"
	"$UCALL" 2 dd
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 's="dd"' "$OUT")" -eq 2 ] || { show_output; false; }
	assert_clean
}

@test "uprobe: -s prints the user stack, the probed address first" {
	start_held "$UCALL" wait-stdin 2 st
	start_tool uprobe -s -p "$WL_PID" "p:$UCALL:tk_ucall"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 'tk_ucall:' "$OUT")" -eq 2 ] || { show_output; false; }
	# the line after each hit is its first frame: the probed address
	awk '/tk_ucall:/ { match($0, /\(0x[0-9a-f]+\)/); a = substr($0, RSTART + 1, RLENGTH - 2); getline
		if ($0 != " => " a) { print "# " $0 " != " a; exit 1 } }' "$OUT" || { show_output; false; }
}

@test "uprobe: after SIGKILL with its watchdog killed too the group stays, and the next run removes it" {
	local pid w
	start_tool uprobe "$DEF"
	pid=$TOOL_PID
	grep -q "tapkit_${pid}_" "$TRACEFS/uprobe_events"
	w=$(watchdog_of "$pid")
	[ -n "$w" ] || { echo "# no watchdog"; false; }
	kill -KILL "$w"
	kill -KILL "$pid"
	wait "$pid" || true
	TOOL_PID=
	grep -q "tapkit_${pid}_" "$TRACEFS/uprobe_events"
	run_pid uprobe -v "$DEF"
	[ "$status" -eq 0 ]
	assert_clean "$pid"
	assert_clean "$RUN_PID"
}

@test "uprobe: two runs on one function each see every hit, and one ending leaves the other whole" {
	local pid1 out1
	start_tool uprobe "$DEF"
	pid1=$TOOL_PID out1=$OUT.first
	mv "$OUT" "$out1"
	start_tool uprobe "$DEF"
	"$UCALL" 40 both
	settle
	kill -INT "$pid1"
	wait "$pid1"
	assert_clean "$pid1"
	# the first one's definitions are gone; the second still sees each hit
	"$UCALL" 3 after
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	for f in "$out1" "$OUT"; do
		[ "$(grep -c 's="both"$' "$f")" -eq 40 ] || { cat "$f" >&2; false; }
		[ "$(grep -o ' n=[0-9]* s="both"$' "$f" | sort -u | wc -l)" -eq 40 ]
	done
	[ "$(grep -c 's="after"$' "$out1")" -eq 0 ]
	[ "$(grep -c 's="after"$' "$OUT")" -eq 3 ] || { show_output; false; }
	assert_clean
}

@test "uprobe: -c traces its command's process tree only, and exits with its status" {
	start_cmd_tool uprobe -c "sh -c 'read x; $UCALL 4 mine; $UCALL 2 mine; exit 4'" "$DEF"
	"$UCALL" 7 other		# traced, but not the command's
	release_cmd
	wait_tool || true		# ends with the command, with its status
	[ "$TOOL_RC" -eq 4 ] || { show_output; false; }
	[ "$(grep -c 'tk_ucall: .* s="mine"$' "$OUT")" -eq 6 ] || { show_output; false; }
	[ "$(grep -c 'tk_ucall:' "$OUT")" -eq 6 ] || { show_output; false; }
	assert_clean
}

@test "uprobe: -c needs TARGET in the definition" {
	run --separate-stderr uprobe -c true p:tk_ucall
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"no target for 'tk_ucall'"* ]]
}
