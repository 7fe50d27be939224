#!/usr/bin/env bats
# stackcount against workloads with known stacks and exact event counts:
# tests/helpers/stackprog (main -> a -> b -> c, and c makes one getppid
# system call, itself or through libtkstack.so's tkstack_lib; frame
# pointers; sleeps MS then exits), ucall (tk_ucall called N times),
# usdtloop (tkfc:tick N times) and forker (N forks), each run by the test.

load helpers

HELPERS=$TAPKIT_TOP/build/tests/helpers
SP=$HELPERS/stackprog
UCALL=$HELPERS/ucall
USDT=$HELPERS/usdtloop
FORKER=$HELPERS/forker
GETPPID=t:syscalls:sys_enter_getppid
BANNER="Tracing 1 functions for \"$GETPPID\"... Hit Ctrl-C to end."

setup() {
	require_root
	require_tracefs_file events/syscalls/sys_enter_getppid
	local f
	for f in "$SP" "$UCALL" "$USDT" "$FORKER" "$HELPERS/libtkstack.so"; do
		[ -x "$f" ] || { echo "# $f missing: run make tests-build" >&2; return 1; }
	done
}

teardown() {
	stop_leftover_tool
	if [ -n "${WL_PID:-}" ]; then
		kill -KILL "$WL_PID" 2>/dev/null
		wait "$WL_PID" 2>/dev/null || true
	fi
	local p
	for p in ${BG_PIDS:-}; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null || true
	done
}

# json [JQ_FILTER]: the JSON stacks of $output (the commands' own lines
# left out) as one array, optionally through a jq filter
json() {
	printf '%s\n' "$output" | grep '^{' | jq -cs "${1:-.}"
}

# each JQ_FILTER: the filter on each JSON stack of $output, raw strings
each() {
	printf '%s\n' "$output" | grep '^{' | jq -r "$1"
}

# sum JQ_FILTER: the counts of the JSON stacks in $output it selects
sum() {
	json "[.[] | select($1) | .count] | add // 0"
}

# gone PID: the process has exited
gone() {
	if kill -0 "$1" 2>/dev/null; then echo "# $1 still runs" >&2; return 1; fi
}

# hold_two CMD...: two copies of CMD (a wait-stdin workload) held on one
# fifo, their exec done: $HOLD1, $HOLD2; released together by EOF on
# $WL_FD (which start_tool keeps from the tool): exec {WL_FD}>&-
hold_two() {
	local fifo=$BATS_TEST_TMPDIR/hold.$RANDOM
	mkfifo "$fifo"
	"$@" <"$fifo" & HOLD1=$!
	"$@" <"$fifo" & HOLD2=$!
	BG_PIDS="$HOLD1 $HOLD2"
	exec {WL_FD}>"$fifo"
}

@test "stackcount -U -j -c: one getppid, in c <- b <- a <- main, named after the command exited" {
	run_pid stackcount -U -j -c "$SP main 0" "$GETPPID"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ -z "$stderr" ] || { show_run; false; }
	[ "$(json '[.[] | select(.comm == "stackprog")] | length')" -eq 1 ] || { show_run; false; }
	local pid
	pid=$(json '.[] | select(.comm == "stackprog") | .pid')
	[ "$pid" -gt 0 ]
	gone "$pid"
	[ "$(json '.[] | select(.comm == "stackprog") | [.count, .user[0:4], .kernel, .user_missed]')" = \
	  '[1,["c","b","a","main"],[],false]' ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "stackcount: the same full user stack whether its process lives or has exited when it is named" {
	# alive: held, then released to make its call and sleep 30 s while
	# stackcount names the stack and prints
	start_held "$SP" wait-stdin main 30000
	start_tool stackcount -U -j -p "$WL_PID" "$GETPPID"
	printf 'x' >&"$WL_FD"; exec {WL_FD}>&-; WL_FD=
	settle 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	kill -0 "$WL_PID" || { echo "# the workload exited early" >&2; false; }
	local alive exited
	alive=$(grep '^{' "$OUT" | jq -c 'select(.pid == '"$WL_PID"') | .user')
	[ "$(grep -c '^{' "$OUT")" -eq 1 ] || { show_output; false; }

	# exited: sleeps 0 ms, gone by the time its frames are named
	run_pid stackcount -U -j -c "$SP main 0" "$GETPPID"
	[ "$status" -eq 0 ] || { show_run; false; }
	gone "$(json '.[0].pid')"
	exited=$(json '.[] | select(.comm == "stackprog") | .user')
	echo "# alive:  $alive" >&3
	echo "# exited: $exited" >&3
	# frame by frame, the C library's frames below main included
	[ "$alive" = "$exited" ] || { echo "# alive $alive, exited $exited" >&2; false; }
	[ "$(jq -r '.[0:4] | join(" ")' <<<"$alive")" = "c b a main" ]
	[ "$(jq 'length' <<<"$alive")" -ge 5 ]
	jq -e 'index("[unknown]") == null' <<<"$alive" >/dev/null
	# with the C library's separate debug file (libc6-dbg), main's caller
	# is named from it, for the exited process too
	local libc id
	libc=$(ldd "$SP" | awk '$1 == "libc.so.6" { print $3 }')
	id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
	if [ -n "$id" ] && [ -e "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]; then
		[ "$(jq -r '.[4]' <<<"$exited")" = __libc_start_call_main ] ||
			{ echo "# main's caller: $(jq -r '.[4]' <<<"$exited")" >&2; false; }
	fi
}

@test "stackcount: a frame in a shared library, tkstack_lib, then c, b, a, main" {
	run_pid stackcount -U -j -c "$SP lib 0" "$GETPPID"
	[ "$status" -eq 0 ] || { show_run; false; }
	gone "$(json '.[0].pid')"
	[ "$(json '[.[] | select(.comm == "stackprog") | [.count, .user[0:5]]]')" = \
	  '[[1,["tkstack_lib","c","b","a","main"]]]' ] || { show_run; false; }
}

@test "stackcount LIB:FUNC: uprobes on a program's functions, exact counts, the function first" {
	# -r: a, b and c (anchored at the name's start), each called once
	run_pid stackcount -r -U -c "$SP main 0" "$SP:[abc]\$"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${lines[0]}" = "Tracing 3 functions for \"$SP:[abc]\$\"... Hit Ctrl-C to end." ] ||
		{ show_run; false; }
	run_pid stackcount -r -U -j -c "$SP main 0" "$SP:[abc]\$"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(json '[.[] | [.user[0], .count]] | sort')" = '[["a",1],["b",1],["c",1]]' ] ||
		{ show_run; false; }
	# at the entry of c (before its push of %rbp) the frame pointer is b's:
	# kernels since 6.12 add the return address on the stack (b); older
	# ones skip the immediate caller, as bcc's stackcount shows it
	json '.[] | select(.user[0] == "c") | .user' |
		jq -e '.[1:4] == ["b", "a", "main"] or .[1:3] == ["a", "main"]' >/dev/null ||
		{ show_run; false; }
	json '.[] | select(.user[0] == "b") | .user' |
		jq -e '.[1:3] == ["a", "main"] or .[1:2] == ["main"]' >/dev/null ||
		{ show_run; false; }

	# tk_ucall, called 50 times from main (built without frame pointers)
	run_pid stackcount -U -j -c "$UCALL 50 x" "$UCALL:tk_ucall"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(sum 'true')" -eq 50 ] || { show_run; false; }
	[ "$(sum '.user[0] == "tk_ucall" and .comm == "ucall"')" -eq 50 ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "stackcount u:LIB:PROBE: a USDT probe, fired 5 times from main" {
	run_pid stackcount -U -j -c "$USDT 5" "u:$USDT:tick"
	[ "$status" -eq 0 ] || { show_run; false; }
	printf '%s\n' "$output" | grep -qx 'tick 5 tock 0' || { show_run; false; }
	[ "$(sum 'true')" -eq 5 ] || { show_run; false; }
	[ "$(sum '.user[0] == "main" and .comm == "usdtloop"')" -eq 5 ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "stackcount: bcc's text, frames indented by two, the process's name and PID, its count" {
	# every process of the machine: the workload's stack is one of them
	# (it sleeps 300 ms after its call: see the -p naming test for one
	# that exits at once)
	start_held "$SP" wait-stdin main 3000
	local pid=$WL_PID
	start_tool stackcount -U "$GETPPID"
	release_workload
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(head -1 "$OUT")" = "$BANNER" ] || { show_output; false; }
	[ "$(sed -n 2p "$OUT")" = "" ] || { show_output; false; }
	[ "$(tail -1 "$OUT")" = "Detaching..." ] || { show_output; false; }
	awk -v pid="$pid" '
		/^$/ { k = 0; next }
		k == 0 && $0 == "  c" { k = 1; next }
		k == 1 && $0 == "  b" { k = 2; next }
		k == 2 && $0 == "  a" { k = 3; next }
		k == 3 && $0 == "  main" { k = 4; next }
		k == 4 && /^  [^ ]/ { next }
		k == 4 && $0 == "    stackprog [" pid "]" { k = 5; next }
		k == 5 && $0 == "    1" { n++ }
		{ k = 9 }
		END { exit n != 1 }' "$OUT" || { show_output; false; }
	# every stack ends with its process and count, then an empty line
	[ "$(grep -c '^    [^ ].* \[[0-9]*\]$' "$OUT")" = "$(grep -c '^    [0-9][0-9]*$' "$OUT")" ] ||
		{ show_output; false; }
	assert_clean
}

@test "stackcount -p: no process line; -d puts -- between the kernel and the user frames" {
	start_held "$SP" wait-stdin main 300
	start_tool stackcount -U -p "$WL_PID" "$GETPPID"
	release_workload
	wait_tool	# ends with its process
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(head -1 "$OUT")" = "$BANNER" ] || { show_output; false; }
	[ "$(sed -n 2,6p "$OUT" | tr '\n' '|')" = "|  c|  b|  a|  main|" ] || { show_output; false; }
	[ "$(tail -3 "$OUT" | tr '\n' '|')" = "    1||Detaching...|" ] || { show_output; false; }
	! grep -q '\[[0-9]*\]$' "$OUT" || { show_output; false; }
	! grep -q -- '--' "$OUT" || { show_output; false; }

	# raw_syscalls:sys_enter fires in the kernel (unlike the syscalls:
	# events, which carry the user registers): both stacks
	start_held "$SP" wait-stdin main 300
	start_tool stackcount -d -p "$WL_PID" t:raw_syscalls:sys_enter
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# getppid's stack: kernel frames, the delimiter, c b a main, count 1
	awk '
		/^$/ { k = 0; next }
		k == 0 && /^  [^ ]/ { k = 1; next }
		k == 1 && /^  [^ ]/ { next }
		k == 1 && $0 == "    --" { k = 2; next }
		k == 2 && $0 == "  c" { k = 3; next }
		k == 3 && $0 == "  b" { k = 4; next }
		k == 4 && $0 == "  a" { k = 5; next }
		k == 5 && $0 == "  main" { k = 6; next }
		k == 6 && /^  [^ ]/ { next }
		k == 6 && $0 == "    1" { n++ }
		{ k = 9 }
		END { exit n != 1 }' "$OUT" || { show_output; false; }
	# every stack is delimited
	[ "$(grep -c '^    --$' "$OUT")" = "$(grep -c '^    [0-9][0-9]*$' "$OUT")" ] ||
		{ show_output; false; }
	! grep -q '\[[0-9]*\]$' "$OUT" || { show_output; false; }
}

@test "stackcount -c: each process of the command's tree under its name and PID" {
	# two stackprogs run by a shell: two stacks that print alike, told
	# apart by their process lines (as without -p)
	run_pid stackcount -U -c "sh -c '$SP main 0; $SP main 0'" "$GETPPID"
	[ "$status" -eq 0 ] || { show_run; false; }
	# c b a main ..., "    stackprog [PID]", "    1": twice, two PIDs
	local pids
	pids=$(printf '%s\n' "$output" | awk '
		/^$/ { k = 0; next }
		k == 0 && $0 == "  c" { k = 1; next }
		k == 1 && /^  [^ ]/ { next }
		k == 1 && /^    stackprog \[[0-9]+\]$/ { p = $2; k = 2; next }
		k == 2 && $0 == "    1" { print p }
		{ k = 9 }' | sort -u)
	[ "$(printf '%s\n' "$pids" | grep -c .)" -eq 2 ] || { show_run; false; }
}

@test "stackcount -K: kernel stacks of two processes summed as one; -P counts each process apart" {
	local cmd="sh -c '$FORKER 3 >/dev/null; $FORKER 2 >/dev/null'"
	run_pid stackcount -K -P -j -c "$cmd" t:sched:sched_process_fork
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(json '[.[] | select(.comm == "forker") | .count] | sort')" = '[2,3]' ] || { show_run; false; }
	[ "$(json '[.[] | select(.comm == "forker") | .pid] | unique | length')" -eq 2 ] ||
		{ show_run; false; }
	[ "$(json '[.[] | select(.comm == "forker") | .kernel] | unique | length')" -eq 1 ] ||
		{ show_run; false; }
	[ "$(json '[.[] | .user | length] | add')" -eq 0 ] || { show_run; false; }
	local kstack total
	kstack=$(json '[.[] | select(.comm == "forker") | .kernel][0]')
	json '.[0].kernel' | jq -e 'index("kernel_clone")' >/dev/null || { show_run; false; }
	total=$(sum 'true')

	run_pid stackcount -K -j -c "$cmd" t:sched:sched_process_fork
	[ "$status" -eq 0 ] || { show_run; false; }
	# no process in the stacks
	[ "$(json '[.[] | select(has("pid") or has("comm"))] | length')" -eq 0 ] || { show_run; false; }
	[ "$(json "[.[] | select(.kernel == $kstack) | .count]")" = '[5]' ] || { show_run; false; }
	[ "$(sum 'true')" -eq "$total" ] || { show_run; false; }

	# the text: no process lines either
	run_pid stackcount -K -c "$cmd" t:sched:sched_process_fork
	[ "$status" -eq 0 ] || { show_run; false; }
	printf '%s\n' "$output" | grep -qx '    5' || { show_run; false; }
	! printf '%s\n' "$output" | grep -q '\[[0-9]*\]$' || { show_run; false; }
}

@test "stackcount -f: folded lines with the counts of -j; --folded-file and --svg" {
	local cmd="sh -c '$FORKER 3 >/dev/null; $FORKER 2 >/dev/null'"
	run_pid stackcount -j -c "$cmd" t:sched:sched_process_fork
	[ "$status" -eq 0 ] || { show_run; false; }
	local want
	# comm;user outermost first;kernel outermost first COUNT
	want=$(each '([.comm] + (.user | reverse) + (.kernel | reverse) | join(";")) + " " + (.count | tostring)' | sort)
	[ "$(printf '%s\n' "$want" | awk '$1 ~ /^forker;/ { n += $2 } END { print n }')" -eq 5 ] ||
		{ show_run; false; }
	run_pid stackcount -f -c "$cmd" t:sched:sched_process_fork
	[ "$status" -eq 0 ] || { show_run; false; }
	# no banner: every line is a stack
	! printf '%s\n' "$output" | grep -v '^[^ ;]*;.* [0-9][0-9]*$' || { show_run; false; }
	diff <(printf '%s\n' "$want") <(printf '%s\n' "$output" | sort) || { show_run; false; }

	# -d: "-" between the user and the kernel frames
	run_pid stackcount -f -d -c "$cmd" t:sched:sched_process_fork
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | grep -Ec '^forker;[^;]*;-;.*;kernel_clone(;| )')" -eq 2 ] ||
		{ show_run; false; }

	# the files, beside -j
	local fold=$BATS_TEST_TMPDIR/s.folded svg=$BATS_TEST_TMPDIR/s.svg
	run_pid stackcount -U -j --folded-file "$fold" --svg "$svg" -c "$SP main 0" "$GETPPID"
	[ "$status" -eq 0 ] || { show_run; false; }
	diff <(each '([.comm] + (.user | reverse) | join(";")) + " " + (.count | tostring)' | sort) \
		<(sort "$fold") || { show_run; false; }
	grep -q '^stackprog;.*;main;a;b;c 1$' "$fold" || { cat "$fold" >&2; false; }
	python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$svg"
	grep -q '<title>c (1 events, 100.00%)</title>' "$svg" || { grep -o '<title>[^<]*' "$svg" >&2; false; }
}

@test "stackcount -T -i 1 -D 3: three summaries, each under its time" {
	start_held "$SP" wait-stdin main 10000
	start_tool stackcount -U -T -i 1 -D 3 -p "$WL_PID" "$GETPPID"
	printf 'x' >&"$WL_FD"; exec {WL_FD}>&-; WL_FD=
	wait_tool	# ends by itself after 3 s
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -c '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$' "$OUT")" -eq 3 ] || { show_output; false; }
	# the call in the first second, nothing in the others
	[[ "$(sed -n 3p "$OUT")" =~ ^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$ ]] || { show_output; false; }
	[ "$(sed -n 4,6p "$OUT" | tr '\n' '|')" = "  c|  b|  a|" ] || { show_output; false; }
	[ "$(grep -c '^    [0-9]' "$OUT")" -eq 1 ] && grep -qx '    1' "$OUT" || { show_output; false; }
	[ "$(tail -5 "$OUT" | sed 's/^[0-9][0-9:]*$/T/' | tr '\n' '|')" = "|T||T|Detaching...|" ] ||
		{ show_output; false; }
}

@test "stackcount -j -i: the stacks of each interval, then its interval line" {
	start_held "$SP" wait-stdin main 10000
	start_tool stackcount -U -j -i 1 -D 3 -p "$WL_PID" "$GETPPID"
	printf 'x' >&"$WL_FD"; exec {WL_FD}>&-; WL_FD=
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 4 ] || { show_output; false; }
	[ "$(sed -n 1p "$OUT" | jq -c '[.pid, .count, .user[0:4]]')" = "[$WL_PID,1,[\"c\",\"b\",\"a\",\"main\"]]" ] ||
		{ show_output; false; }
	[ "$(sed -n '2,4p' "$OUT" | jq -c '[.type, .events, (.time | test("^[0-9]{2}:[0-9]{2}:[0-9]{2}$"))]' | tr '\n' ' ')" = \
	  '["interval",1,true] ["interval",0,true] ["interval",0,true] ' ] || { show_output; false; }
	kill -KILL "$WL_PID"; wait "$WL_PID" 2>/dev/null || true

	# Ctrl-C: what is left is the summary
	start_held "$SP" wait-stdin main 10000
	start_tool stackcount -U -j -i 5 -p "$WL_PID" "$GETPPID"
	printf 'x' >&"$WL_FD"; exec {WL_FD}>&-; WL_FD=
	settle 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 2 ] || { show_output; false; }
	[ "$(sed -n 1p "$OUT" | jq .count)" -eq 1 ] || { show_output; false; }
	[ "$(sed -n 2p "$OUT" | jq -c '[.type, .events]')" = '["summary",1]' ] || { show_output; false; }
}

@test "stackcount -i: --folded-file and --svg hold the whole run, at Ctrl-C and after -D" {
	local fold=$BATS_TEST_TMPDIR/i.folded svg=$BATS_TEST_TMPDIR/i.svg
	# one call in the first of two intervals, then Ctrl-C in the second
	start_held "$SP" wait-stdin main 10000
	start_tool stackcount -U -i 1 --folded-file "$fold" --svg "$svg" -p "$WL_PID" "$GETPPID"
	printf 'x' >&"$WL_FD"; exec {WL_FD}>&-; WL_FD=
	settle 1.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -cx '    1' "$OUT")" -eq 1 ] || { show_output; false; }
	grep -q '^stackprog;.*;main;a;b;c 1$' "$fold" && [ "$(wc -l <"$fold")" -eq 1 ] ||
		{ cat "$fold" >&2; false; }
	grep -q '<title>c (1 events, 100.00%)</title>' "$svg"
	kill -KILL "$WL_PID"; wait "$WL_PID" 2>/dev/null || true
	rm -f "$fold" "$svg"

	# -D ends the last interval: the files are written all the same
	start_held "$SP" wait-stdin main 10000
	start_tool stackcount -U -i 1 -D 2 --folded-file "$fold" --svg "$svg" -p "$WL_PID" "$GETPPID"
	printf 'x' >&"$WL_FD"; exec {WL_FD}>&-; WL_FD=
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ -e "$fold" ] || { echo "# -i 1 -D 2 wrote no $fold" >&2; show_output; false; }
	grep -q '^stackprog;.*;main;a;b;c 1$' "$fold" && [ "$(wc -l <"$fold")" -eq 1 ] ||
		{ cat "$fold" >&2; false; }
	grep -q '<title>c (1 events, 100.00%)</title>' "$svg"
}

@test "stackcount -p: a process that was running at the start and exits at once after its event is named" {
	# noted at its first event only, 10 ms later, it would be gone: its
	# name and frames must come from what was read of it at the start
	start_held "$SP" wait-stdin main 0
	start_tool stackcount -U -j -p "$WL_PID" "$GETPPID"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(jq -cs '[.[] | [.pid, .comm, .count, .user[0:4]]]' "$OUT")" = \
	  "[[$WL_PID,\"stackprog\",1,[\"c\",\"b\",\"a\",\"main\"]]]" ] || { show_output; false; }
	[ ! -s "$ERR" ] || { show_output; false; }
}

@test "stackcount -p: only that process's stacks" {
	hold_two "$SP" wait-stdin main 300
	start_tool stackcount -U -j -p "$HOLD1" "$GETPPID"
	exec {WL_FD}>&-; WL_FD=	# both make their call
	wait_tool	# ends when HOLD1 does
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	wait "$HOLD2"
	[ "$(jq -cs '[.[] | [.pid, .count, .user[0:4]]]' "$OUT")" = "[[$HOLD1,1,[\"c\",\"b\",\"a\",\"main\"]]]" ] ||
		{ show_output; false; }
	assert_clean
}

@test "stackcount -v: the mechanism and the probes on stderr" {
	run_pid stackcount -v -U -j -c "$SP main 0" "$SP:c"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${stderr_lines[0]}" = "stackcount: sampling 1 events with perf_event at every hit, with user callchains; defined and added in ${stderr_lines[0]##*added in }" ] ||
		{ show_run; false; }
	[[ "${stderr_lines[0]}" =~ \ [0-9]+\.[0-9]\ ms$ ]] || { show_run; false; }
	[[ "${stderr_lines[1]}" =~ ^stackcount:\ \ \ p:tapkit_${RUN_PID}_[0-9]+/c\ $SP:0x[0-9a-f]+$ ]] ||
		{ show_run; false; }
	[ "$(sum '.user[0] == "c"')" -eq 1 ] || { show_run; false; }
}

@test "stackcount FUNC: a kernel function's stacks (kprobes)" {
	require_kprobe_events
	# stackprog sleeps once, in nanosleep(), after its call; kernel stacks
	# of a kernel function are summed over processes (bcc), no pid
	run_pid stackcount -K -j -c "$SP main 50" do_nanosleep
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(sum '.kernel[0] == "do_nanosleep" and (has("pid") | not)')" -eq 1 ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "stackcount FUNC without kprobes: one line, exit 1" {
	[ ! -e "$TRACEFS/kprobe_events" ] || skip "this kernel has kprobe events"
	[ -z "${TAPKIT_VM:-}" ] || { echo "# TAPKIT_VM is set but this kernel has no kprobe_events" >&2; false; }
	run_pid stackcount -D 1 __x64_sys_getppid
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "stackcount: this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)" ] || { show_run; false; }
	[ -z "$output" ]
	assert_clean "$RUN_PID"
}

@test "stackcount: a pattern that matches nothing, an unknown library: one line, exit 1, nothing left" {
	run_pid stackcount -D 1 't:sched:tk_nomatch_zz*'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "stackcount: no tracepoints match 't:sched:tk_nomatch_zz*'" ] || { show_run; false; }
	[ -z "$output" ]
	assert_clean "$RUN_PID"

	run_pid stackcount -D 1 "$SP:tk_nomatch*"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "stackcount: no functions match '$SP:tk_nomatch*'" ] || { show_run; false; }
	assert_clean "$RUN_PID"

	run_pid stackcount -D 1 "u:$SP:tk_nomatch"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "stackcount: no USDT probes match 'u:$SP:tk_nomatch'" ] || { show_run; false; }
	assert_clean "$RUN_PID"

	run_pid stackcount -D 1 tk_no_such_lib:malloc
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "stackcount: cannot find 'tk_no_such_lib': no such program or library" ] ||
		{ show_run; false; }
	[ -z "$output" ]
	assert_clean "$RUN_PID"
}

@test "stackcount: usage errors (-U with -K, -f with -j, no pattern): the reason, exit 2" {
	local try="Try 'stackcount --help' for more information."
	run_pid stackcount -U -K "$GETPPID"
	[ "$status" -eq 2 ] || { show_run; false; }
	[ "$stderr" = "stackcount: -U and -K cannot be used together (both stacks are the default)"$'\n'"$try" ] ||
		{ show_run; false; }
	[ -z "$output" ]
	assert_clean "$RUN_PID"

	run_pid stackcount -f -j "$GETPPID"
	[ "$status" -eq 2 ] || { show_run; false; }
	[ "$stderr" = "stackcount: -f and -j cannot be used together"$'\n'"$try" ] || { show_run; false; }
	assert_clean "$RUN_PID"

	run_pid stackcount -U
	[ "$status" -eq 2 ] || { show_run; false; }
	[ "$stderr" = "stackcount: no pattern given (e.g. submit_bio, c:malloc, t:sched:sched_fork)"$'\n'"$try" ] ||
		{ show_run; false; }
	[ -z "$output" ]
	assert_clean "$RUN_PID"
}
