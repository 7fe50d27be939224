#!/usr/bin/env bats
# exitsnoop against processes the tests end in known ways: exit codes,
# signals, a core dump, a known lifetime, a multi-threaded program.

load helpers

THREADS=$TAPKIT_TOP/build/tests/helpers/threads

setup() {
	require_root
	require_tracefs_file events/sched/sched_process_exit
	require_tracefs_file events/signal/signal_deliver
	require_tracefs_file events/syscalls/sys_enter_exit_group
	require_tracefs_file events/task/task_newtask
	[ -x "$THREADS" ] || { echo "# $THREADS missing: run make tests-build" >&2; return 1; }
	ME=$BASHPID	# the parent of what the tests start ($BASHPID differs in a pipeline)
}

teardown() {
	stop_leftover_tool
}

# line PID: the text line of process PID (exactly one)
line() {
	[ "$(grep -Ec "^[^ ]+ +$1 " "$OUT")" -eq 1 ] || { show_output; return 1; }
	grep -E "^[^ ]+ +$1 " "$OUT"
}

@test "exitsnoop: exit code, PPID, TID and the header" {
	start_tool exitsnoop
	sh -c 'echo $$ >"$0"; exit 3' "$BATS_TEST_TMPDIR/pid" || true
	sh -c 'echo $$ >"$0"; exit 0' "$BATS_TEST_TMPDIR/pid0"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	local pid pid0
	pid=$(cat "$BATS_TEST_TMPDIR/pid") pid0=$(cat "$BATS_TEST_TMPDIR/pid0")
	head -1 "$OUT" | grep -Eq '^PCOMM +PID +PPID +TID +AGE\(s\) +EXIT_CODE$'
	line "$pid" | grep -Eq "^sh +$pid +$ME +$pid +[0-9]+\.[0-9]{2} +code 3\$" || { show_output; false; }
	line "$pid0" | grep -Eq "^sh +$pid0 +$ME +$pid0 +[0-9]+\.[0-9]{2} +0\$" || { show_output; false; }
	assert_clean
}

@test "exitsnoop: SIGKILL and SIGTERM (the kernel's fast path) name the signal" {
	start_tool exitsnoop
	sleep 30 & local k=$!
	sleep 30 & local t=$!
	sleep 0.1
	kill -KILL "$k"
	kill -TERM "$t"
	wait "$k" "$t" 2>/dev/null || true
	settle
	stop_tool
	line "$k" | grep -Eq "^sleep +$k +$ME +$k +[0-9.]+ +signal 9 \(KILL\)\$" || { show_output; false; }
	line "$t" | grep -Eq "^sleep +$t +$ME +$t +[0-9.]+ +signal 15 \(TERM\)\$" || { show_output; false; }
	assert_clean
}

@test "exitsnoop: SIGSEGV with a core dump, as the parent's wait status says" {
	start_tool exitsnoop
	# the core limit is raised in the child only; core_pattern is left
	# as it is, and a relative one writes into this test's directory
	cd "$BATS_TEST_TMPDIR"
	python3 -c 'import os, resource, signal
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_CORE,
                       (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    os.kill(os.getpid(), signal.SIGSEGV)
    os._exit(0)
_, st = os.waitpid(pid, 0)
print(pid, os.getpid(), os.WTERMSIG(st), int(os.WCOREDUMP(st)))' >status
	settle
	stop_tool
	local pid ppid sig core suffix=
	read -r pid ppid sig core <status
	[ "$sig" -eq 11 ]
	[ "$core" -eq 0 ] || suffix=', core dumped'
	line "$pid" | grep -Eq "^python3 +$pid +$ppid +$pid +[0-9.]+ +signal 11 \(SEGV\)$suffix\$" || { show_output; false; }
	assert_clean
}

@test "exitsnoop: AGE of a process that lived 1.2 s" {
	local pid t0 t1 age
	start_tool exitsnoop
	t0=$(date +%s%N)
	sh -c 'echo $$ >"$0"; exec sleep 1.2' "$BATS_TEST_TMPDIR/pid"
	t1=$(date +%s%N)
	settle
	stop_tool
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	line "$pid" | grep -Eq "^sleep +$pid +$ME +$pid +[0-9]+\.[0-9][0-9] +0\$" || { show_output; false; }
	# at least the sleep, at most the time the test saw it run (the
	# exec adds what it takes: 0.1 s under an emulated CPU)
	age=$(line "$pid" | awk '{ print $5 }')
	awk -v a="$age" -v t=$(( (t1 - t0) / 10000000 + 1 )) \
		'BEGIN { exit !(a >= 1.2 && a * 100 <= t) }' || { echo "# age $age, seen $(( (t1 - t0) / 1000000 )) ms" >&3; show_output; false; }
	assert_clean
}

@test "exitsnoop: -x hides exit 0; -t adds the time" {
	start_tool exitsnoop -x -t
	sh -c 'echo $$ >"$0"; exit 0' "$BATS_TEST_TMPDIR/pid0"
	sh -c 'echo $$ >"$0"; exit 4' "$BATS_TEST_TMPDIR/pid" || true
	settle
	stop_tool
	local pid pid0
	pid=$(cat "$BATS_TEST_TMPDIR/pid") pid0=$(cat "$BATS_TEST_TMPDIR/pid0")
	head -1 "$OUT" | grep -Eq '^TIME-[A-Z+0-9-]+ +PCOMM +PID '
	grep -Eq "^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} +sh +$pid +$ME +$pid +[0-9.]+ +code 4\$" "$OUT" || { show_output; false; }
	! grep -Eq " $pid0 " "$OUT" || { show_output; false; }
	! grep -Eq ' 0$' "$OUT" || { show_output; false; }
	assert_clean
}

@test "exitsnoop: -p shows only that process and ends when it exits" {
	start_held sh -c 'read x; sh -c "exit 7"; exit 6'
	start_tool exitsnoop -p "$WL_PID"
	local ppid
	ppid=$(ps -o ppid= -p "$WL_PID" | tr -d ' ')
	sh -c 'exit 5' || true
	release_workload || true
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -vc '^PCOMM' "$OUT")" -eq 1 ] || { show_output; false; }
	line "$WL_PID" | grep -Eq "^sh +$WL_PID +$ppid +$WL_PID +[0-9.]+ +code 6\$" || { show_output; false; }
	assert_clean
}

@test "exitsnoop: a 4-thread process is one line, four with --per-thread" {
	start_tool exitsnoop
	"$THREADS" 4 9 & local p=$!
	wait "$p" || true
	settle
	stop_tool
	line "$p" | grep -Eq "^threads +$p +$ME +$p +0\.[1-9][0-9] +code 9\$" || { show_output; false; }

	start_tool exitsnoop --per-thread
	"$THREADS" 4 9 & p=$!
	wait "$p" || true
	settle
	stop_tool
	[ "$(grep -Ec "^threads +$p +$ME " "$OUT")" -eq 4 ] || { show_output; false; }
	[ "$(grep -E "^threads +$p " "$OUT" | awk '{print $4}' | sort -u | wc -l)" -eq 4 ] || { show_output; false; }
	# the three threads end with pthread_exit (0), the process with 9
	[ "$(grep -Ec "^threads +$p +$ME +[0-9]+ +[0-9.]+ +0\$" "$OUT")" -eq 3 ] || { show_output; false; }
	grep -Eq "^threads +$p +$ME +[0-9]+ +[0-9.]+ +code 9\$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "exitsnoop: -j, one object per exit with exact members" {
	start_tool exitsnoop -j
	sh -c 'echo $$ >"$0"; exit 3' "$BATS_TEST_TMPDIR/pid" || true
	sleep 30 & local k=$!
	sleep 0.1
	kill -KILL "$k"
	wait "$k" 2>/dev/null || true
	settle
	stop_tool
	local pid
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	jq -e -s --argjson p "$pid" --argjson pp "$ME" '
		[.[] | select(.pid == $p)] | length == 1 and (.[0] |
		.comm == "sh" and .ppid == $pp and .tid == $p and
		.exit_code == 3 and .sig == 0 and .signame == null and
		.core_dumped == false and .status == "code 3" and
		(.age_s | type) == "number" and .age_s >= 0 and
		(.time | test("^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}$")) and
		(.ts_ns | type) == "number")' "$OUT" || { show_output; false; }
	jq -e -s --argjson p "$k" '
		[.[] | select(.pid == $p)] | length == 1 and (.[0] |
		.comm == "sleep" and .exit_code == 0 and .sig == 9 and
		.signame == "SIGKILL" and .status == "signal 9 (KILL)")' "$OUT" || { show_output; false; }
	assert_clean
}

@test "exitsnoop: -c traces the command's tree and returns its status" {
	start_cmd_tool exitsnoop -c "sh -c 'read x; sh -c \"exit 7\"; exit 5'"
	sh -c 'exit 8' || true		# traced, but not the command's
	release_cmd
	wait_tool || true		# ends with the command, with its status
	[ "$TOOL_RC" -eq 5 ] || { show_output; false; }
	grep -Eq '^sh +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +code 7$' "$OUT" || { show_output; false; }
	grep -Eq '^sh +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +code 5$' "$OUT" || { show_output; false; }
	[ "$(grep -vc '^PCOMM' "$OUT")" -eq 2 ] || { show_output; false; }
}
