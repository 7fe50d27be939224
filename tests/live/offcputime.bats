#!/usr/bin/env bats
# offcputime against tests/helpers/napper, which sleeps MS milliseconds K
# times in nap_here() with one nanosleep system call each: that user stack
# is off-CPU at least MS * K ms, plus the short waits for a CPU after each
# wakeup on this shared machine.

load helpers

NAP=$TAPKIT_TOP/build/tests/helpers/napper

setup() {
	require_root
	[ -x "$NAP" ] || { echo "# $NAP missing: run make tests-build" >&2; return 1; }
}

teardown() {
	stop_leftover_tool
	if [ -n "${BG_PID:-}" ]; then
		kill -KILL "$BG_PID" 2>/dev/null
		wait "$BG_PID" 2>/dev/null || true
	fi
}

# usecs JQ_FILTER: the microseconds of the JSON stacks in $output it selects
usecs() {
	printf '%s\n' "$output" | jq -s "[.[] | select($1) | .usecs] | add // 0"
}

# between N LOW HIGH
between() {
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ] || { echo "# $1 not in [$2, $3]" >&2; return 1; }
}

@test "offcputime: 5 naps of 40 ms in nap_here() are 200 ms off-CPU in that stack" {
	run_pid offcputime -j -c "$NAP 40 5"
	[ "$status" -eq 0 ] || { show_run; false; }
	local us ns
	us=$(usecs '.user[0] == "nap_here" and .user[1] == "main"')
	echo "# nap_here: $us us" >&3
	# a nap's timer is armed before the task leaves the CPU, so each off-CPU
	# span can be shorter than 40 ms by the time between the two (under the
	# VM's emulation, most of a millisecond: 196867 us was seen)
	between "$us" 190000 300000 || { show_run; false; }
	# in the kernel, the nanosleep the naps made; the rest of nap_here's
	# time off-CPU, if any, is a preemption on the way back to user mode
	ns=$(usecs '(.user[0] == "nap_here") and (.kernel | index("do_nanosleep"))')
	between "$ns" 190000 "$us" || { show_run; false; }
	[ "$(printf '%s\n' "$output" | jq -r 'select(.user[0] == "nap_here") | .comm' | sort -u)" = napper ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "offcputime -m/-M: blocks shorter or longer than the bounds are left out" {
	run_pid offcputime -j -m 30000 -c "$NAP 40 4"
	[ "$status" -eq 0 ] || { show_run; false; }
	between "$(usecs '.user[0] == "nap_here"')" 160000 240000 || { show_run; false; }
	# every block counted is one nap (at least 30 ms): at most 4 of them
	[ "$(usecs 'true')" -le 240000 ] || { show_run; false; }

	run_pid offcputime -j -M 30000 -c "$NAP 40 4"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(usecs '.user[0] == "nap_here"')" -eq 0 ] || { show_run; false; }
}

@test "offcputime -U and -K keep one side of the stacks; -f folds them" {
	run_pid offcputime -j -U -c "$NAP 40 3"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | jq -s '[.[] | select(.kernel != [])] | length')" -eq 0 ] || { show_run; false; }
	# (libc's frame below main is named where its file can be read
	# back, not under every kernel: it is not part of the check; each
	# 40 ms nap is off the CPU from its switch-out, which comes up to a
	# few ms after the timer started under an emulated CPU)
	between "$(usecs '.user[0:2] == ["nap_here", "main"]')" 110000 180000 ||
		{ show_run; false; }

	run_pid offcputime -j -K -c "$NAP 40 3"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | jq -s '[.[] | select(.user != [])] | length')" -eq 0 ] || { show_run; false; }
	between "$(usecs '.kernel | index("do_nanosleep")')" 110000 180000 || { show_run; false; }

	run_pid offcputime -f -c "$NAP 40 3"
	[ "$status" -eq 0 ] || { show_run; false; }
	# comm;user frames outermost first;kernel frames outermost first usecs
	between "$(printf '%s\n' "$output" |
		awk '/^napper;[^;]*;main;nap_here;.*;do_nanosleep;.* [0-9]+$/ { n += $NF }
		     END { print n + 0 }')" 110000 180000 || { show_run; false; }
}

@test "offcputime: bcc's multi-line stacks with -d; -p traces only that process, for the duration" {
	"$NAP" 40 1000 & BG_PID=$!
	run_pid offcputime -d -p "$BG_PID" 1
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${lines[0]}" = "Tracing off-CPU time (us) of the process's threads by user + kernel stack for 1 secs." ] ||
		{ show_run; false; }
	# (summed: the sampled kernel stack may or may not start in the
	# tracepoint's own frame, which makes two stacks of one nap)
	printf '%s\n' "$output" | awk -v pid="$BG_PID" '
		/^    do_nanosleep$/ { k = 1; next }
		k == 1 && /^    --$/ { k = 2; next }
		k == 2 && /^    nap_here$/ { k = 3; next }
		k == 3 && $0 == "    -                napper (" pid ")" { k = 4; next }
		k == 4 && /^        [0-9]+$/ { us += $1 }
		/^$/ { k = 0 }
		END { exit !(us >= 800000 && us <= 1100000) }' || { show_run; false; }
	# nothing of any other process
	! printf '%s\n' "$output" | grep '^    -  ' | grep -v "napper ($BG_PID)\$"
}
