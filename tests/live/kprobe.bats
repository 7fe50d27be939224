#!/usr/bin/env bats
# kprobe on do_sys_openat2 (every open, openat and openat2 goes through it)
# against tests/helpers/kopen, which opens a path N times, held until a
# byte arrives on stdin.  Paths are unique to the test and filtered on, so
# other processes' opens never count.

load helpers

KOPEN=$TAPKIT_TOP/build/tests/helpers/kopen

setup() {
	require_root
	require_tracefs_file kprobe_events
	[ -x "$KOPEN" ] || { echo "# $KOPEN missing: run make tests-build" >&2; return 1; }
	P=$BATS_TEST_TMPDIR/tk_kprobe_file
	MISSING=$BATS_TEST_TMPDIR/tk_kprobe_missing
	: >"$P"
}

teardown() {
	stop_leftover_tool
	[ -z "${OTHER_PID:-}" ] || { kill -KILL "$OTHER_PID" 2>/dev/null; wait "$OTHER_PID" 2>/dev/null; } || true
}

require_btf() {
	[ -r /sys/kernel/btf/vmlinux ] || skip "requires: /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)"
}

@test "kprobe: every call with BTF-named args, exact values, and the group is gone" {
	require_btf
	start_held "$KOPEN" wait-stdin "$P" 5
	start_tool kprobe -p "$WL_PID" 'p:do_sys_openat2 dfd filename' "filename == \"$P\""
	release_workload
	wait_tool	# ends with the process
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 'do_sys_openat2:' "$OUT")" -eq 5 ] || { show_output; false; }
	[ "$(grep -cF ": do_sys_openat2: (do_sys_openat2+0x0) dfd=-100 filename=\"$P\"" "$OUT")" -eq 5 ] ||
		{ show_output; false; }
	[ "$(grep -cE "^ *kopen-$WL_PID +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: do_sys_openat2: " "$OUT")" -eq 5 ] ||
		{ show_output; false; }
	grep -q "^Tracing kprobe do_sys_openat2. Ctrl-C to end.\$" "$ERR"
	assert_clean
}

@test "kprobe: without -p every process counts; the kernel's register syntax passes through" {
	start_tool kprobe 'p:myopen do_sys_openat2 f=+0(%si):string fd=%di:s32' "f == \"$P\""
	"$KOPEN" "$P" 3
	"$KOPEN" "$P" 4
	"$KOPEN" "$MISSING" 6
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -cF ": myopen: (do_sys_openat2+0x0) f=\"$P\" fd=-100" "$OUT")" -eq 7 ] || { show_output; false; }
	[ "$(grep -c 'myopen:' "$OUT")" -eq 7 ]
	assert_clean
}

@test "kprobe: a return probe fetches \$retval typed from BTF" {
	require_btf
	start_held "$KOPEN" wait-stdin "$P" 3
	start_tool kprobe -p "$WL_PID" 'r:do_sys_openat2 $retval'
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	# the fd of each open: 3, the lowest free one
	[ "$(grep -cE "^ *kopen-$WL_PID .*: do_sys_openat2: \([a-z_0-9]+\+0x[0-9a-f]+ <- do_sys_openat2\) arg1=3\$" "$OUT")" -eq 3 ] ||
		{ show_output; false; }
	[ "$(grep -c 'do_sys_openat2:' "$OUT")" -eq 3 ]
	start_held "$KOPEN" wait-stdin "$MISSING" 4
	start_tool kprobe -p "$WL_PID" 'r:myret do_sys_openat2 fd=$retval'
	release_workload
	wait_tool
	# -ENOENT, signed (s64 from BTF's long)
	[ "$(grep -cE ": myret: \(.* <- do_sys_openat2\) fd=-2\$" "$OUT")" -eq 4 ] || { show_output; false; }
	[ "$(grep -c 'myret:' "$OUT")" -eq 4 ]
	assert_clean
}

@test "kprobe: -p leaves another process out, -L takes a thread" {
	require_btf
	start_held "$KOPEN" wait-stdin "$P" 4
	start_tool kprobe -p "$WL_PID" 'p:do_sys_openat2 filename' "filename == \"$P\""
	"$KOPEN" "$P" 9 &
	OTHER_PID=$!
	wait "$OTHER_PID"
	OTHER_PID=
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c "kopen-$WL_PID .*do_sys_openat2: " "$OUT")" -eq 4 ] || { show_output; false; }
	[ "$(grep -c 'do_sys_openat2:' "$OUT")" -eq 4 ]
	start_held "$KOPEN" wait-stdin "$P" 2
	start_tool kprobe -L "$WL_PID" 'p:do_sys_openat2 filename' "filename == \"$P\""
	"$KOPEN" "$P" 5
	release_workload
	wait_tool
	[ "$(grep -c "kopen-$WL_PID .*do_sys_openat2: " "$OUT")" -eq 2 ] || { show_output; false; }
	[ "$(grep -c 'do_sys_openat2:' "$OUT")" -eq 2 ]
}

@test "kprobe: -s prints the kernel stack of each hit, the probed function first" {
	require_btf
	start_held "$KOPEN" wait-stdin "$P" 2
	start_tool kprobe -s -p "$WL_PID" 'p:do_sys_openat2 filename' "filename == \"$P\""
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 'do_sys_openat2:' "$OUT")" -eq 2 ] || { show_output; false; }
	# each event line followed by its frames: do_sys_openat2, the openat
	# syscall's entry, do_syscall_64, the entry code
	python3 - "$OUT" <<'PY' || { show_output; false; }
import re, sys
stacks, cur = [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith(" => "):
        cur.append(line[4:])
    else:
        cur = []
        stacks.append(cur)
assert len(stacks) == 2, stacks
for s in stacks:
    assert s[0] == "do_sys_openat2", s
    assert re.fullmatch(r"__(x64|do)_sys_openat", s[1]), s
    assert "do_syscall_64" in s, s
    assert s[-1].startswith("entry_SYSCALL_64"), s
    assert all("+0x" not in f for f in s), s
PY
	assert_clean
}

@test "kprobe: -j prints typed args, and -s the stack as kstack" {
	require_btf
	start_held "$KOPEN" wait-stdin "$P" 3
	start_tool kprobe -j -s -p "$WL_PID" 'p:do_sys_openat2 dfd filename' "filename == \"$P\""
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	python3 - "$OUT" "$WL_PID" "$P" <<'PY' || { show_output; false; }
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pid, path = int(sys.argv[2]), sys.argv[3]
assert len(rows) == 3, rows
for r in rows:
    assert r["comm"] == "kopen" and r["pid"] == pid and r["tid"] == pid, r
    assert r["event"] == "do_sys_openat2" and r["addr"] > 0, r
    assert r["args"] == {"dfd": -100, "filename": path}, r
    assert r["kstack"][0].startswith("do_sys_openat2+0x"), r
    assert any(f.startswith("do_syscall_64+0x") for f in r["kstack"]), r
PY
}

@test "kprobe: -v prints the format with BTF types and leaves nothing" {
	require_btf
	run_pid kprobe -v 'p:do_sys_openat2 dfd filename how'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ -z "$stderr" ]
	[[ "$output" == "name: do_sys_openat2"$'\n'* ]]
	grep -qE $'^\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;$' <<<"$output"
	grep -qE $'^\tfield:s32 dfd;\toffset:16;\tsize:4;\tsigned:1;$' <<<"$output"
	grep -qE $'^\tfield:__data_loc char\\[\\] filename;' <<<"$output"
	grep -qE $'^\tfield:u64 how;' <<<"$output"
	grep -qF 'print fmt: "(%lx) dfd=%d filename=\"%s\" how=0x%Lx"' <<<"$output"
	assert_clean "$RUN_PID"
	run_pid kprobe -v 'r:myret do_sys_openat2 $retval'
	[ "$status" -eq 0 ]
	grep -qE $'^\tfield:s64 arg1;' <<<"$output"	# long do_sys_openat2()
	grep -qF 'field:unsigned long __probe_ret_ip;' <<<"$output"
	assert_clean "$RUN_PID"
}

@test "kprobe: a parameter after a struct passed by value (tcp_setsockopt's optlen after its sockptr_t)" {
	require_btf
	run_pid kprobe -c "python3 -c 'import socket; s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b\"cubic\")'" 'p:tcp_setsockopt level optname optlen'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	# IPPROTO_TCP 6; TCP_NODELAY 1 of an int, TCP_CONGESTION 13 of 5 bytes
	[ "$(grep -c ' tcp_setsockopt: ' <<<"$output")" -eq 2 ] || { echo "$output"; false; }
	grep -qF ': tcp_setsockopt: (tcp_setsockopt+0x0) level=6 optname=1 optlen=4' <<<"$output"
	grep -qF ': tcp_setsockopt: (tcp_setsockopt+0x0) level=6 optname=13 optlen=5' <<<"$output"
	assert_clean "$RUN_PID"
}

@test "kprobe: blacklisted and unknown functions are refused, nothing defined" {
	local b
	b=$(cut -f2 /sys/kernel/debug/kprobes/blacklist 2>/dev/null | grep -E '^[a-z_0-9]+$' | head -1)
	[ -n "$b" ] || skip "requires: debugfs kprobes/blacklist"
	run_pid kprobe "p:$b"
	[ "$status" -eq 1 ]
	[ "$stderr" = "kprobe: '$b' is on the kernel's kprobe blacklist" ]
	[ -z "$output" ]
	assert_clean "$RUN_PID"
	# -F: the kernel refuses it, with its reason
	run_pid kprobe -F "p:$b"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kprobe: the kernel rejected kprobe $b: "* ]]
	assert_clean "$RUN_PID"
	run_pid kprobe p:tk_no_such_function
	[ "$status" -eq 1 ]
	[ "$stderr" = "kprobe: no kernel function 'tk_no_such_function'" ]
	assert_clean "$RUN_PID"
	run_pid kprobe -F p:tk_no_such_function
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kprobe: the kernel rejected kprobe tk_no_such_function: "* ]]
	assert_clean "$RUN_PID"
	run_pid kprobe 'p:do_sys_openat2 %zz'
	[ "$status" -eq 1 ]
	[ "$stderr" = "kprobe: the kernel rejected kprobe do_sys_openat2: Invalid register name" ]
	assert_clean "$RUN_PID"
}

@test "kprobe: SIGKILL with its watchdog killed too leaves the group, the next run of a tool removes it" {
	local dead w
	start_tool kprobe 'p:do_sys_openat2 f=+0(%si):string' "f == \"$P\""
	dead=$TOOL_PID
	w=$(watchdog_of "$TOOL_PID")
	[ -n "$w" ] || { echo "# no watchdog"; false; }
	kill -KILL "$w"
	kill -KILL "$TOOL_PID"
	wait "$TOOL_PID" || true
	TOOL_PID=
	grep -q "^p:tapkit_${dead}_[0-9]*/do_sys_openat2 " "$TRACEFS/kprobe_events"
	run tpoint -d 1 sched:sched_process_exec
	[ "$status" -eq 0 ]
	assert_clean "$dead"
}

@test "kprobe: -c traces only its command, and exits with its status" {
	require_btf
	start_cmd_tool kprobe -c "$KOPEN wait-stdin $P 3" 'p:do_sys_openat2 filename' "filename == \"$P\""
	"$KOPEN" "$P" 9			# traced, but not the command
	release_cmd
	wait_tool			# ends with the command
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -c 'do_sys_openat2:' "$OUT")" -eq 3 ] || { show_output; false; }
	assert_clean
	run --separate-stderr kprobe -c "sh -c 'exit 6'" 'p:do_sys_openat2 filename'
	[ "$status" -eq 6 ] || { echo "# $stderr"; false; }
}
