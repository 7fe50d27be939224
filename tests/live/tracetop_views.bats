#!/usr/bin/env bats
# tracetop's built-in views beyond syscalls (files, bio, sched, signals,
# exec, net, funcs) against workloads the tests make, with exact counts
# in the right rows, and their drill-downs opened from the command line
# (-F FIELD=VALUE).  Totals are read from the last JSON Lines object of a
# cumulative run (-j -m cumulative), stopped with SIGINT.

load helpers

DEMOWORK=$TAPKIT_TOP/build/tests/helpers/demowork
SYSLOOP=$TAPKIT_TOP/build/tests/helpers/sysloop

setup() {
	require_root
	WORK=$BATS_TEST_TMPDIR/work
	mkdir -p "$WORK"
	LOOPDEV=
	TARGET=
}

teardown() {
	stop_leftover_tool
	[ -z "$TARGET" ] || { kill -KILL "$TARGET" 2>/dev/null; wait "$TARGET" 2>/dev/null; } || true
	[ -z "$LOOPDEV" ] || losetup -d "$LOOPDEV" 2>/dev/null || true
}

# top VIEW [ARGS...]: tracetop in JSON Lines with cumulative totals, in the
# background until stop_top
top() {
	start_tool tracetop -j -m cumulative -d 0.2 "$@"
}

# stop_top: SIGINT, exit status 0, nothing left in tracefs, a JSON object
stop_top() {
	settle 0.6
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { echo "# tracetop exited $TOOL_RC"; cat "$ERR"; return 1; }
	assert_clean
	tail -1 "$OUT" | python3 -c 'import json,sys; json.loads(sys.stdin.read())' ||
		{ echo "# last line is not JSON:"; tail -1 "$OUT"; return 1; }
}

# col COLUMN KEY=VALUE...: COLUMN of the one row of the last interval whose
# members equal the values ("null" when it has none, "NOROW"/"ROWS:N" when
# none or several match)
col() {
	python3 - "$OUT" "$@" <<'EOF'
import json, sys
out, want, conds = sys.argv[1], sys.argv[2], sys.argv[3:]
last = [l for l in open(out) if l.startswith("{")][-1]
rows = json.loads(last)["rows"]
def ok(r):
    for c in conds:
        k, v = c.split("=", 1)
        if str(r.get(k)) != v:
            return False
    return True
m = [r for r in rows if ok(r)]
if len(m) != 1:
    print("NOROW" if not m else "ROWS:%d" % len(m))
else:
    v = m[0].get(want)
    print("null" if v is None else (int(v) if isinstance(v, float) and v == int(v) else v))
EOF
}

# expect COLUMN VALUE KEY=VALUE...: col says VALUE, else show the output
expect() {
	local want=$2 got
	got=$(col "$1" "${@:3}")
	[ "$got" = "$want" ] && return 0
	echo "# $1 of the row ${*:3}: '$got', expected '$want'" >&2
	tail -1 "$OUT" | python3 -m json.tool >&2 || tail -1 "$OUT" >&2
	return 1
}

@test "tracetop files: opens, writes and bytes by path, after dup2 too" {
	top files
	# sh's >> FILE: an open, a dup2() onto stdout and a close, then write
	sh -c 'for i in 1 2 3 4 5; do echo x >>"$1"; done' _ "$WORK/five"
	dd if=/dev/zero of="$WORK/seven" bs=100 count=7 2>/dev/null
	cat "$WORK/five" >/dev/null
	stop_top
	expect opens 6 path="$WORK/five"
	expect writes 5 path="$WORK/five"
	expect wbytes 10 path="$WORK/five"
	expect rbytes 10 path="$WORK/five"
	expect opens 1 path="$WORK/seven"
	expect writes 7 path="$WORK/seven"
	expect wbytes 700 path="$WORK/seven"
	expect reads 0 path="$WORK/seven"
}

@test "tracetop files-path -F path=: the processes writing one file" {
	top files-path -F path="$WORK/seven"
	dd if=/dev/zero of="$WORK/seven" bs=100 count=7 2>/dev/null &
	local dd=$!
	wait "$dd"
	echo other >"$WORK/other"
	stop_top
	expect writes 7 pid="$dd" comm=dd
	expect wbytes 700 pid="$dd" comm=dd
	expect opens 1 pid="$dd" comm=dd
	# only that file's I/O: one row
	[ "$(tail -1 "$OUT" | jq '.rows | length')" -eq 1 ]
}

# a loop device over a file of this test: $LOOPDEV, $LOOPNAME
loop_device() {
	command -v losetup >/dev/null || skip "requires: losetup (a loop block device)"
	truncate -s 8M "$WORK/disk.img"
	LOOPDEV=$(losetup -f --show "$WORK/disk.img" 2>/dev/null) ||
		skip "requires: a free loop block device"
	LOOPNAME=${LOOPDEV#/dev/}
}

@test "tracetop bio: O_DIRECT writes to a loop device by device, process, latency" {
	loop_device
	top bio
	dd if=/dev/zero of="$LOOPDEV" bs=4096 count=8 oflag=direct 2>/dev/null
	stop_top
	expect count 8 dev="$LOOPNAME"
	expect bytes 32768 dev="$LOOPNAME"
	# a latency for each: the average is a positive number
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' \
		"$(col avg dev="$LOOPNAME")"
}

@test "tracetop bio-dev -F dev=: one device's I/O by process (kernel filter)" {
	loop_device
	top -v bio-dev -F dev="$LOOPNAME"
	dd if=/dev/zero of="$LOOPDEV" bs=4096 count=5 oflag=direct 2>/dev/null &
	local dd=$!
	wait "$dd"
	stop_top
	expect count 5 pid="$dd" comm=dd
	expect bytes 20480 pid="$dd" comm=dd
	[ "$(tail -1 "$OUT" | jq '.rows | length')" -eq 1 ]
	grep -q "kernel filter dev == " "$ERR"
}

@test "tracetop bio-procs: block I/O by the process that issued it" {
	loop_device
	# (on the loop device: dd may also read its own pages from the disk)
	top bio-procs -F dev="$LOOPNAME"
	dd if=/dev/zero of="$LOOPDEV" bs=4096 count=6 oflag=direct 2>/dev/null &
	local dd=$!
	wait "$dd"
	stop_top
	expect count 6 pid="$dd" comm=dd
	expect bytes 24576 pid="$dd" comm=dd
}

@test "tracetop bio-procs -c: the command's I/O with its completions, made by other tasks" {
	loop_device
	# the loop device completes each request in its worker, not in dd:
	# scoped by the running task (set_event_pid) the completions would be
	# dropped and no latency known; -c is a filter on the issuer instead
	# (on the loop device: dd may also read its own pages from the disk)
	start_tool tracetop -j -m cumulative -d 0.2 -F dev="$LOOPNAME" \
		-c "dd if=/dev/zero of=$LOOPDEV bs=4096 count=6 oflag=direct" bio-procs
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	assert_clean
	expect count 6 comm=dd
	expect bytes 24576 comm=dd
	[ "$(tail -1 "$OUT" | jq '.rows | length')" -eq 1 ]
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' \
		"$(col max comm=dd)" || { show_output; false; }
}

# wait_sleeping PID COMM: PID runs COMM and sleeps (blocked in its read of
# stdin: its exec and loader done)
wait_sleeping() {
	local _
	for _ in $(seq 1 200); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] &&
			[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = S ] && return 0
		sleep 0.05
	done
	echo "# $2 ($1) did not start" >&2
	return 1
}

# ctxsw PID: its voluntary and involuntary context switches so far
ctxsw() {
	awk '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 }
	     END { print v, n }' "/proc/$1/status"
}

@test "tracetop sched: a task's wakeups and switches as the kernel counts them" {
	# it sleeps 5 times for each line on stdin, then waits for the next:
	# what it does before tracing starts (exec, loader) is not counted.
	# A spinner shares its CPU, so each switch-in is made by a running
	# task: some kernels record no sched_switch when a CPU leaves idle
	# (6.18 on a Firecracker guest: none on CPU 1, perf sees none either),
	# and a task woken onto such a CPU has no measurable wait.
	taskset -c 0 sh -c 'while :; do :; done' &
	TARGET=$!
	start_held taskset -c 0 python3 -c 'import ctypes, sys, time
ctypes.CDLL(None).prctl(15, b"tksleeper", 0, 0, 0)
for line in sys.stdin:
    for i in range(5):
        time.sleep(0.02)'
	wait_sleeping "$WL_PID" tksleeper
	top sched
	local w=$WL_PID v0 n0 v1 n1
	read -r v0 n0 < <(ctxsw "$w")
	printf 'go\n' >&"$WL_FD"
	sleep 0.5
	read -r v1 n1 < <(ctxsw "$w")
	stop_top
	# each voluntary switch (5 sleeps, then the read) ended in one wakeup:
	# the line, then the 5 timers
	[ $((v1 - v0)) -ge 6 ]
	expect wakeups $((v1 - v0)) tid="$w" comm=tksleeper
	expect switches $((v1 - v0 + n1 - n0)) tid="$w" comm=tksleeper
	[ "$(col avg tid="$w" comm=tksleeper)" != null ] || { tail -1 "$OUT" >&2; false; }
}

@test "tracetop sched -p: the process's wakeups and switches, whoever makes them" {
	# a wakeup is recorded by whoever wakes the task (a timer interrupt
	# on the CPU that runs something else, the writer of the line):
	# ftrace's PID filter admits it for the woken task
	# pinned with its waker to one CPU, so the writer's wakeup of it is
	# made in the writer's context (not queued to another CPU's idle
	# task); it wakes a reader of its own (another process) each round
	start_held taskset -c 0 python3 -c 'import ctypes, subprocess, sys, time
r = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
ctypes.CDLL(None).prctl(15, b"tksleeper", 0, 0, 0)
for line in sys.stdin:
    for i in range(5):
        time.sleep(0.02)
        r.stdin.write(b"x\n"); r.stdin.flush()'
	wait_sleeping "$WL_PID" tksleeper
	top -p "$WL_PID" sched
	local w=$WL_PID v0 n0 v1 n1
	read -r v0 n0 < <(ctxsw "$w")
	taskset -c 0 bash -c 'printf "go\n" >&'"$WL_FD"
	sleep 0.5
	read -r v1 n1 < <(ctxsw "$w")
	stop_top
	[ $((v1 - v0)) -ge 6 ]
	expect wakeups $((v1 - v0)) tid="$w" comm=tksleeper
	expect switches $((v1 - v0 + n1 - n0)) tid="$w" comm=tksleeper
	# nothing but the process
	python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert {r["pid"] for r in o["rows"]} == {int(sys.argv[2])}, o["rows"]
' "$OUT" "$w" || { show_output; false; }
}

@test "tracetop sched-tid -F tid=: one thread by CPU; sched-cpu by CPU" {
	top -v sched-tid -F tid=999999999
	"$DEMOWORK" 3 5 >/dev/null
	stop_top
	# a kernel filter on a thread that does not exist: no rows
	[ "$(tail -1 "$OUT" | jq '.rows | length')" -eq 0 ]
	grep -q "kernel filter prev_pid == 999999999 || next_pid == 999999999" "$ERR"

	top sched-cpu
	"$DEMOWORK" 10 5 >/dev/null
	stop_top
	# every row a CPU of this machine, and wakeups seen
	tail -1 "$OUT" | jq -e --argjson n "$(nproc)" \
		'[.rows[] | select(.cpu < 0 or .cpu >= $n)] | length == 0' >/dev/null
	tail -1 "$OUT" | jq -e '[.rows[].wakeups] | add >= 10' >/dev/null
}

# a target that handles SIGUSR1 (delivered, it lives on): $TARGET
start_target() {
	python3 -c 'import signal, sys, time
signal.signal(signal.SIGUSR1, lambda *a: None)
open(sys.argv[1], "w").close()
time.sleep(60)' "$WORK/target.ready" &
	TARGET=$!
	for _ in $(seq 1 100); do [ -e "$WORK/target.ready" ] && return 0; sleep 0.05; done
	return 1
}

@test "tracetop signals: 5 SIGUSR1 from one sender to one target" {
	start_target
	top signals
	bash -c 'for i in 1 2 3 4 5; do kill -USR1 "$1"; sleep 0.05; done; echo $$ >"$2"' \
		_ "$TARGET" "$WORK/sender"
	stop_top
	local s
	s=$(cat "$WORK/sender")
	expect count 5 sig=SIGUSR1 spid="$s" scomm=bash tpid="$TARGET" tcomm=python3
	expect result delivered sig=SIGUSR1 spid="$s" tpid="$TARGET"
}

@test "tracetop signals -F sig= -F tpid=: only that signal to that target" {
	start_target
	top -v signals -F sig=SIGUSR1 -F tpid="$TARGET"
	kill -USR1 "$TARGET"
	sleep 0.05
	kill -USR1 "$TARGET"
	kill -0 "$TARGET"
	kill -CONT "$TARGET"
	stop_top
	expect count 2 sig=SIGUSR1 spid="$BASHPID" tpid="$TARGET"
	[ "$(tail -1 "$OUT" | jq '.rows | length')" -eq 1 ]
	grep -q "kernel filter sig == 10 && pid == $TARGET" "$ERR"
}

@test "tracetop exec: 7 execs of one program, the last PID and the parent" {
	cp /bin/true "$WORK/tk_exec_true"
	top exec
	sh -c 'for i in 1 2 3 4 5 6 7; do "$1" & wait $!; echo $! >"$2"; done; echo $$ >"$3"' \
		_ "$WORK/tk_exec_true" "$WORK/last" "$WORK/parent"
	stop_top
	local f=$WORK/tk_exec_true
	expect count 7 comm=tk_exec_true filename="$f"
	expect pid "$(cat "$WORK/last")" filename="$f"
	expect ppid "$(cat "$WORK/parent")" filename="$f"
}

@test "tracetop net: one TCP connection's bytes each way and its states" {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
socket.create_connection(s.getsockname()).close()' 2>/dev/null ||
		skip "requires: loopback networking (127.0.0.1)"
	cat >"$WORK/server.py" <<'EOF'
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
c, a = s.accept(); n = 0
while True:
    b = c.recv(65536)
    if not b: break
    n += len(b)
c.sendall(b"y" * 321); c.close()
print(n, a[1])
EOF
	top net
	python3 "$WORK/server.py" "$WORK/port" >"$WORK/server.out" &
	local srv=$!
	for _ in $(seq 1 100); do [ -e "$WORK/port" ] && break; sleep 0.05; done
	local port
	port=$(cat "$WORK/port")
	python3 -c 'import os, socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
c.sendall(b"x" * 12345); c.shutdown(socket.SHUT_WR)
n = 0
while True:
    b = c.recv(4096)
    if not b: break
    n += len(b)
print(n, os.getpid())' "$port" >"$WORK/client.out"
	wait "$srv"
	stop_top
	[ "$(cut -d' ' -f1 "$WORK/server.out")" = 12345 ]
	local cport cpid
	cport=$(cut -d' ' -f2 "$WORK/server.out")
	cpid=$(cut -d' ' -f2 "$WORK/client.out")
	local client=(laddr="127.0.0.1:$cport" raddr="127.0.0.1:$port")
	local server=(laddr="127.0.0.1:$port" raddr="127.0.0.1:$cport")
	# SYN_SENT, ESTABLISHED, FIN_WAIT1, FIN_WAIT2, CLOSE
	expect states 5 "${client[@]}"
	expect pid "$cpid" "${client[@]}"
	# SYN_RECV, ESTABLISHED, CLOSE_WAIT, LAST_ACK, CLOSE; Linux 6.1 records
	# the accepted socket's SYN_RECV before its remote end is set, so that
	# one lands in the listener's row (LISTEN, SYN_RECV, CLOSE)
	local ns ls
	ns=$(col states "${server[@]}")
	ls=$(col states laddr="127.0.0.1:$port" raddr="0.0.0.0:0")
	[ "$ns" = 5 ] || { [ "$ns" = 4 ] && [ "$ls" = 3 ]; } || expect states 5 "${server[@]}"
	if [ -e "$TRACEFS/events/sock/sock_send_length" ]; then
		expect tx 12345 "${client[@]}"
		expect rx 321 "${client[@]}"
		expect rx 12345 "${server[@]}"
		expect tx 321 "${server[@]}"
	else
		# this kernel cannot say: the byte columns are empty
		expect tx null "${client[@]}"
	fi
}

@test "tracetop funcs PATTERN: calls and latency of a program's function" {
	require_tracefs_file uprobe_events
	top funcs "$DEMOWORK:handle_*"
	"$DEMOWORK" 6 20 >/dev/null
	stop_top
	expect calls 6 func=handle_request
	# each call sleeps 20 ms: the average is at least that, and under 1 s
	python3 -c 'import sys; a = float(sys.argv[1]); sys.exit(0 if 20e6 <= a < 1e9 else 1)' \
		"$(col avg func=handle_request)"
}

@test "tracetop funcs-procs -F func=: the processes calling one function" {
	require_tracefs_file uprobe_events
	top -v funcs-procs "$DEMOWORK:*" -F func=handle_request
	"$DEMOWORK" 4 5 >/dev/null &
	local w=$!
	wait "$w"
	stop_top
	expect calls 4 pid="$w" comm=demowork
	# the pattern was narrowed to the one function before attaching
	grep -q "'$DEMOWORK:handle_request': 1 sites of 1 names" "$ERR"
}

@test "tracetop funcs-procs on a kernel function: one process's calls, timed" {
	require_kprobes
	start_held "$SYSLOOP" wait-stdin getppid 11
	top -v funcs-procs '__do_sys_getp*' -F func=__do_sys_getppid
	local w=$WL_PID
	release_workload
	stop_top
	expect calls 11 pid="$w" comm=sysloop
	[ "$(col avg pid="$w" comm=sysloop)" != null ]
	# only the drilled function was probed
	grep -q "'__do_sys_getppid': 1 sites of 1 names, entry and return probes" "$ERR"
}

@test "tracetop -b: the views print as text with their columns" {
	run --separate-stderr timeout 30 tracetop -b -n 1 -d 0.2 exec
	[ "$status" -eq 0 ]
	grep -Eq '^COMM +FILENAME +COUNT +RATE +PID +PPID *$' <<<"$output" ||
		{ echo "$output"; false; }
	run --separate-stderr timeout 30 tracetop -b -n 1 -d 0.2 funcs
	[ "$status" -eq 2 ]
	run --separate-stderr timeout 30 tracetop -b -n 1 -d 0.2 funcs 'bad:pattern:x:y'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *funcs* ]]
}
