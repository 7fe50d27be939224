#!/usr/bin/env bats
# killsnoop against signals the tests send, with known PIDs and results.

load helpers

setup() {
	require_root
	# a target that survives the signals sent to it (SIG_IGN outlives exec)
	(trap '' USR1 USR2 HUP TERM; exec sleep 60) &
	TARGET=$!
}

teardown() {
	stop_leftover_tool
	kill -KILL "$TARGET" 2>/dev/null || true
	wait "$TARGET" 2>/dev/null || true
}

@test "killsnoop: kill() with sender PID, COMM, SIG, TPID and RESULT" {
	start_tool killsnoop
	kill -USR1 "$TARGET"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^TIME +PID +COMM +SIG +TPID +RESULT +SYSCALL$'
	grep -Eq "^[0-9:]{8} +$BASHPID +bash +10 +$TARGET +0 +kill\$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "killsnoop: a failed kill() shows the error; -x shows only failures" {
	start_tool killsnoop -x
	kill -0 "$TARGET"
	kill -TERM 999999 2>/dev/null || true
	settle
	stop_tool
	grep -Eq "^[0-9:]{8} +$BASHPID +bash +15 +999999 +-3 +kill\$" "$OUT" || { show_output; false; }
	! grep -Eq " $TARGET +0 " "$OUT" || { show_output; false; }
}

@test "killsnoop: -s keeps one signal (by name or number)" {
	for sig in USR2 SIGUSR2 12; do
		start_tool killsnoop -s "$sig"
		kill -USR1 "$TARGET"
		kill -USR2 "$TARGET"
		settle
		stop_tool
		grep -Eq " 12 +$TARGET +0 +kill\$" "$OUT" || { show_output; false; }
		! grep -Eq " 10 +$TARGET " "$OUT" || { show_output; false; }
	done
}

@test "killsnoop: -n keeps one sender name" {
	start_tool killsnoop -n kill
	kill -USR1 "$TARGET"		# the shell's builtin: comm bash
	/bin/kill -USR2 "$TARGET"	# comm kill
	settle
	stop_tool
	grep -Eq " kill +12 +$TARGET +0 +kill\$" "$OUT" || { show_output; false; }
	! grep -q ' bash ' "$OUT" || { show_output; false; }
}

@test "killsnoop: -p keeps one sender process" {
	start_held /bin/sh -c "read x; kill -USR2 $TARGET; kill -HUP $TARGET"
	start_tool killsnoop -p "$WL_PID"
	kill -USR1 "$TARGET"		# from us: not shown
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Eq " $WL_PID +sh +12 +$TARGET +0 +kill\$" "$OUT" || { show_output; false; }
	grep -Eq " $WL_PID +sh +1 +$TARGET +0 +kill\$" "$OUT" || { show_output; false; }
	[ "$(grep -c " $TARGET " "$OUT")" -eq 2 ] || { show_output; false; }
}

@test "killsnoop: tgkill() from pthread_kill() is seen" {
	start_tool killsnoop
	python3 -c 'import os, signal, threading
signal.pthread_kill(threading.main_thread().ident, 0)
print(os.getpid())' >"$BATS_TEST_TMPDIR/pid"
	settle
	stop_tool
	py=$(cat "$BATS_TEST_TMPDIR/pid")
	grep -Eq " $py +python3 +0 +$py +0 +tgkill\$" "$OUT" || { show_output; false; }
}

@test "killsnoop: -t prints seconds since start" {
	start_tool killsnoop -t
	kill -USR1 "$TARGET"
	settle
	stop_tool
	head -1 "$OUT" | grep -q '^TIME(s) '
	grep -Eq "^[0-9]+\.[0-9]{6} +$BASHPID +bash +10 +$TARGET +0 +kill\$" "$OUT" || { show_output; false; }
}

@test "killsnoop: -j prints one object per signal" {
	start_tool killsnoop -j
	kill -USR1 "$TARGET"
	kill -0 "$TARGET"
	settle
	stop_tool
	python3 - "$OUT" "$BASHPID" "$TARGET" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
mine = [r for r in rows if r["pid"] == int(sys.argv[2]) and r["tpid"] == int(sys.argv[3])]
assert [r["sig"] for r in mine] == [10, 0], mine
assert mine[0]["signame"] == "SIGUSR1" and mine[1]["signame"] is None
assert all(r["result"] == 0 and r["comm"] == "bash" and r["syscall"] == "kill" for r in mine)
assert isinstance(mine[0]["ts_ns"], int) and mine[0]["elapsed_s"] >= 0
assert all(r["ttgid"] == int(sys.argv[3]) for r in mine), mine
PY
}

@test "killsnoop: a filter on an unknown signal name is a usage error" {
	run killsnoop -s NOPE
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown signal 'NOPE'"* ]]
}

@test "killsnoop: output to a closed pipe ends it cleanly" {
	start_piped 1 killsnoop
	for i in 1 2 3 4; do kill -USR1 "$TARGET"; sleep 0.2; done
	wait "$HEAD_PID"
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 1 ]
	[ ! -s "$ERR" ] || { show_output; false; }
	assert_clean
}

@test "killsnoop: -c shows exactly the signals its process tree sends, and exits with its status" {
	local sh_pid
	start_cmd_tool killsnoop -c "sh -c 'read x; kill -USR1 $TARGET; /bin/kill -USR2 $TARGET; exit 9'"
	kill -HUP "$TARGET"		# traced, but not the command's
	release_cmd
	wait_tool || true		# ends with the command, with its status
	[ "$TOOL_RC" -eq 9 ] || { show_output; false; }
	[ "$(awk 'NR > 1' "$OUT" | wc -l)" -eq 2 ] || { show_output; false; }
	grep -Eq "^[0-9:]{8} +[0-9]+ +sh +10 +$TARGET +0 +kill\$" "$OUT" || { show_output; false; }
	grep -Eq "^[0-9:]{8} +[0-9]+ +kill +12 +$TARGET +0 +kill\$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "killsnoop: -T keeps the signals sent to one process, by kill() and tgkill()" {
	local other
	(trap '' USR1; exec sleep 60) &
	other=$!
	start_held python3 -c 'import signal, sys, threading
sys.stdin.read(1)
signal.pthread_kill(threading.main_thread().ident, 0)'
	start_tool killsnoop -T "$WL_PID" -j
	kill -USR1 "$other"		# another target: not shown
	kill -0 "$WL_PID"		# kill() to it: shown
	release_workload		# its tgkill() to itself: shown
	settle
	stop_tool
	kill -KILL "$other"; wait "$other" 2>/dev/null || true
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	jq -e -s --argjson me "$BASHPID" --argjson t "$WL_PID" '
		map([.pid, .syscall, .sig, .tpid, .ttgid, .result]) ==
		[[$me, "kill", 0, $t, $t, 0], [$t, "tgkill", 0, $t, $t, 0]]' "$OUT" >/dev/null ||
		{ show_output; false; }
	assert_clean
}
