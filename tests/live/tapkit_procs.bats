#!/usr/bin/env bats
# tapkit's process.begin/end and process.thread.begin/end probes, against
# the forker workload, which says which children and threads it made.

load helpers

FORKER=$TAPKIT_TOP/build/tests/helpers/forker

setup() {
	require_root
	require_tracefs_file events/task/task_newtask
	require_tracefs_file events/sched/sched_process_exit
}

teardown() {
	stop_leftover_tool
}

@test "tapkit procs: process.begin and process.end of three children, in their own context, with exit codes" {
	run_pid tapkit -c "$FORKER 3" -e 'global b, e
probe process.begin { if (ppid() == target()) { b++; printf("begin %d %d %s\n", pid(), tid(), execname()) } }
probe process.end { if (ppid() == target()) { e++; printf("end %d %d %d\n", pid(), tid(), $code) } }
probe end { printf("begins=%d ends=%d\n", b, e) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local want c1 c2 c3
	c1=$(printf '%s\n' "$output" | sed -n 's/^child \([0-9]*\) 10$/\1/p')
	c2=$(printf '%s\n' "$output" | sed -n 's/^child \([0-9]*\) 11$/\1/p')
	c3=$(printf '%s\n' "$output" | sed -n 's/^child \([0-9]*\) 12$/\1/p')
	[ -n "$c1" ] && [ -n "$c2" ] && [ -n "$c3" ] || { show_run; false; }
	want="begin $c1 $c1 forker
end $c1 $c1 10
begin $c2 $c2 forker
end $c2 $c2 11
begin $c3 $c3 forker
end $c3 $c3 12
begins=3 ends=3"
	[ "$(printf '%s\n' "$output" | grep -v '^child ')" = "$want" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit procs: process.end of the target itself, pid and exit code" {
	run_pid tapkit -c "sh -c 'exit 7'" -e 'probe process.end { if (pid() == target()) printf("end %d %d %s\n", pid(), $code, execname()) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" =~ ^end\ ([0-9]+)\ 7\ sh$ ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit procs: process(path).begin fires at the exec into the path and for its forks" {
	# sh forks, the child execs forker (begin), which forks 2 (begin each);
	# a copy of forker that never runs fires nothing
	cp "$FORKER" "$BATS_TEST_TMPDIR/notrun"
	run_pid tapkit -c "sh -c '$FORKER 2; true'" -e 'probe process(@1).begin { printf("begin %d %s\n", pid(), execname()) }
probe process(@1).end { printf("end %d %d\n", pid(), $code) }
probe process(@2).begin { printf("notrun %d\n", pid()) }' "$FORKER" "$BATS_TEST_TMPDIR/notrun"
	[ "$status" -eq 0 ] || { show_run; false; }
	local c1 c2 main
	c1=$(printf '%s\n' "$output" | sed -n 's/^child \([0-9]*\) 10$/\1/p')
	c2=$(printf '%s\n' "$output" | sed -n 's/^child \([0-9]*\) 11$/\1/p')
	main=$(printf '%s\n' "$output" | sed -n 's/^begin \([0-9]*\) forker$/\1/p' | head -1)
	[ -n "$c1" ] && [ -n "$c2" ] && [ -n "$main" ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | grep -v '^child ')" = "begin $main forker
begin $c1 forker
end $c1 10
begin $c2 forker
end $c2 11
end $main 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit procs: process.thread.begin/end of two threads, not of the main one" {
	run_pid tapkit -c "$FORKER threads 2" -e 'global n
probe process.thread.begin { if (pid() == target()) printf("tbegin %d %d %s\n", pid(), tid(), execname()) }
probe process.thread.end { if (pid() == target()) printf("tend %d %d\n", pid(), tid()) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local t1 t2 p
	t1=$(printf '%s\n' "$output" | sed -n 's/^thread //p' | sed -n 1p)
	t2=$(printf '%s\n' "$output" | sed -n 's/^thread //p' | sed -n 2p)
	p=$(printf '%s\n' "$output" | sed -n 's/^tbegin \([0-9]*\) .*/\1/p' | head -1)
	[ -n "$t1" ] && [ -n "$t2" ] && [ -n "$p" ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | grep '^tbegin' | sort)" = "$(printf 'tbegin %s %s forker\ntbegin %s %s forker\n' "$p" "$t1" "$p" "$t2" | sort)" ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | grep '^tend' | sort)" = "$(printf 'tend %s %s\ntend %s %s\n' "$p" "$t1" "$p" "$t2" | sort)" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit procs: process(PID).begin fires at the start for a process already running, .end at its exit" {
	sleep 2 &
	local sp=$!
	run_pid tapkit -e "probe process($sp).begin { printf(\"begin %d %d %s\\n\", pid(), tid(), execname()) }
probe process($sp).end { printf(\"end %d %s\\n\", pid(), execname()); exit() }"
	wait "$sp" || true
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "begin $sp $sp sleep
end $sp sleep" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit procs: -p2 and --dry-run say which tracepoints" {
	run tapkit -p2 -e 'probe process.begin { next } probe process.thread.end { next }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" == *"mechanism: records of task:task_newtask without CLONE_THREAD from our tracefs instance"* ]] || { show_run; false; }
	[[ "$output" == *"mechanism: records of sched:sched_process_exit of a thread but the main one from our tracefs instance"* ]] || { show_run; false; }
}

@test "tapkit procs: a program that does not exist is a located error, nothing left" {
	run_pid tapkit -e 'probe process("/no/such/prog").begin { next }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == "<input>:1:7: error: cannot find program '/no/such/prog': No such file or directory"* ]] || { show_run; false; }
	run_pid tapkit -e 'probe process.end { print($nosuch) }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == "<input>:1:27: error: "*nosuch* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit procs: two providers in one script each see every record, in sessions of their own" {
	run_pid tapkit -c 'sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done"' -e 'global a, b
probe process.begin { if (ppid() == target()) a++ }
probe kernel.trace("sched:sched_process_exec") { if ($filename == "/bin/true") b++ }
probe end { printf("%d %d\n", a, b) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "10 10" ] || { show_run; false; }
	[ -z "${stderr:-}" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}
