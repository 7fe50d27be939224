#!/usr/bin/env bats
# tapkit scripts on tracepoints and tapsets, against workloads the tests
# make themselves (sysloop, signals to a process of ours, an exec, a fork,
# a datagram on lo, a direct write), with exact expected events.

load helpers

setup() {
	require_root
	require_tracefs_file events/syscalls/sys_enter_getppid
	TARGET= TOOL2_PID= DRY_INST= DRY_EPROBE= LO_WAS_DOWN=
	CLEANUP_DIRS=()
}

teardown() {
	stop_leftover_tool
	if [ -n "$TOOL2_PID" ]; then
		kill -INT "$TOOL2_PID" 2>/dev/null || true
		wait "$TOOL2_PID" 2>/dev/null || true
	fi
	if [ -n "$TARGET" ]; then
		kill -KILL "$TARGET" 2>/dev/null || true
		wait "$TARGET" 2>/dev/null || true
	fi
	[ -z "$DRY_INST" ] || rmdir "$DRY_INST" 2>/dev/null || true
	[ -z "$DRY_EPROBE" ] || echo "-:$DRY_EPROBE" 2>/dev/null >>"$TRACEFS/dynamic_events" || true
	local d
	for d in "${CLEANUP_DIRS[@]}"; do
		rmdir "$TRACEFS/instances/$d" 2>/dev/null || true
	done
	[ -z "$LO_WAS_DOWN" ] || ip link set lo down
}

# A process of ours that survives USR1 and USR2 (SIG_IGN outlives exec):
# $TARGET, named "sleep".
start_sigtarget() {
	(trap '' USR1 USR2; exec sleep 60) &
	TARGET=$!
	local i
	for i in $(seq 1 100); do
		[ "$(cat /proc/$TARGET/comm 2>/dev/null)" = sleep ] && return 0
		sleep 0.02
	done
	return 1
}

# Print a `run` result for a failing test.
# The tracefs instance of the running tool $1 (a PID).
instance_of() {
	ls -d "$TRACEFS/instances/tapkit_${1}_"* 2>/dev/null
}

# ---- kernel.trace: counts and context ---------------------------------

@test "tapkit: kernel.trace with -c counts the command's events exactly" {
	run_pid tapkit -c "$SYSLOOP getppid 1234" -e 'global n
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) n++ }
probe end { printf("n=%d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "n=1234" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: records set aside while a handler holds the reader all arrive, in order" {
	# A timer probe keeps the reader busy for 30 ms at a time; the ring's
	# keeper moves the full pages aside meanwhile.  Each CPU's records
	# must come in the order they were written (the offsets rise), none
	# missing, none lost.
	run_pid tapkit -v -D MAXACTION=100000000 -c "$SYSLOOP seq 60000 500 1000" -e '
global n, sum, bad, last
probe kernel.trace("syscalls:sys_enter_lseek") {
	if (pid() == target()) {
		n++; sum += $offset
		if ($offset <= last[cpu()]) bad++
		last[cpu()] = $offset
	}
}
probe timer.ms(50) { t = gettimeofday_ms(); while (gettimeofday_ms() - t < 30) {} }
probe end { printf("n=%d sum=%d out_of_order=%d\n", n, sum, bad) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "n=60000 sum=1800030000 out_of_order=0" ] || { show_run; false; }
	[[ "$stderr" =~ [1-9][0-9]*\ sub-buffers\ were\ set\ aside ]] || { show_run; false; }
	[[ "$stderr" != *lost* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: a leading pid() == target() has the kernel record only the target's threads" {
	local d
	start_held "$SYSLOOP" wait-stdin getppid 700
	start_tool tapkit -x "$WL_PID" -e 'global n, last
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) { n++; last = tid() } }
probe end { printf("n=%d last=%d\n", n, last) }'
	d=$(ls -d "$TRACEFS/instances/tapkit_${TOOL_PID}_"* | head -1)
	[ "$(cat "$d/set_event_pid")" = "$WL_PID" ]
	[ "$(cat "$d/options/event-fork")" = 1 ]
	"$SYSLOOP" getppid 300		# another process: not recorded
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "n=700 last=$WL_PID" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: pid() == target() in the kernel still leaves out the target's child processes" {
	# set_event_pid with event-fork admits children too; a child's records
	# are dropped by process, an exec'd command keeps the target's PID:
	# 7, and the getppid() sh makes for $PPID
	run_pid tapkit -c "sh -c '$SYSLOOP getppid 5; exec $SYSLOOP getppid 7'" -e 'global n
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) n++ }
probe end { printf("n=%d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "n=8" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: -s sizes the rings of the script's instance" {
	local want
	want=$(kernel_ring_kb 2048)
	start_held "$SYSLOOP" wait-stdin getppid 500
	start_tool tapkit -s 2 -x "$WL_PID" -e 'global n, last
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) { n++; last = tid() } }
probe end { printf("n=%d last=%d\n", n, last) }'
	[ "$(ring_kb)" = "$want" ]
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(cat "$OUT")" = "n=500 last=$WL_PID" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: kernel.trace with -x counts a running process's events and ends with it" {
	start_held "$SYSLOOP" wait-stdin getppid 777
	start_tool tapkit -x "$WL_PID" -e 'global n
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) n++ }
probe end { printf("%d %d\n", target(), n) }'
	release_workload
	wait_tool	# ends when the process does
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "$WL_PID 777" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: pid(), tid(), execname() and cpu() describe the traced task" {
	run_pid tapkit -c "$SYSLOOP getppid 50" -e '
probe kernel.trace("syscalls:sys_enter_getppid") {
	if (pid() == target())
		printf("%d %d %s %d\n", pid(), tid(), execname(), cpu())
}
probe end { printf("target %d\n", target()) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	t=$(printf '%s\n' "$output" | sed -n 's/^target //p')
	[ -n "$t" ] && [ "$t" -gt 0 ] || { show_run; false; }
	ncpu=$(getconf _NPROCESSORS_CONF)
	[ "$(printf '%s\n' "$output" | grep -c .)" -eq 51 ] || { show_run; false; }
	printf '%s\n' "$output" | grep -v '^target ' | awk -v t="$t" -v n="$ncpu" '
		!($1 == t && $2 == t && $3 == "sysloop" && $4 ~ /^[0-9]+$/ && $4 < n) { bad = 1; print "# bad: " $0 }
		END { exit bad }' >&2 || { show_run; false; }
	assert_clean "$RUN_PID"
}

# ---- kernel.trace: fields ---------------------------------------------

@test "tapkit: \$ret of sys_exit_openat is -2 for each failing openat()" {
	run_pid tapkit -c "$SYSLOOP fail 25" -e 'global c
probe kernel.trace("syscalls:sys_exit_openat") {
	if (pid() == target() && $ret < 0) c[$ret]++
}
probe end { foreach (r in c) printf("%d %d\n", r, c[r]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "-2 25" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: signal_generate gives \$sig, \$pid, \$comm and the sender's pid(), execname()" {
	start_sigtarget
	start_tool tapkit -e "probe kernel.trace(\"signal:signal_generate\") {
	if (\$pid == $TARGET)
		printf(\"%d %d %s %d %s\\n\", \$sig, \$pid, \$comm, pid(), execname())
}"
	kill -USR1 "$TARGET"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "10 $TARGET sleep $BASHPID bash" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: a char array field indexes by element and \$\$vars prints every field" {
	start_sigtarget
	start_tool tapkit -e "probe kernel.trace(\"signal:signal_generate\") {
	if (\$pid == $TARGET)
		printf(\"%d %d %d %d|%s\\n\", \$comm[0], \$comm[4], \$comm[5], \$comm[15], \$\$vars)
}"
	kill -USR1 "$TARGET"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# "sleep": 's' 115, 'p' 112, then NULs; the signal is ignored: result 1
	[ "$(cat "$OUT")" = "115 112 0 0|sig=10 errno=0 code=0 comm=\"sleep\" pid=$TARGET group=1 result=1" ] ||
		{ show_output; false; }
	assert_clean
}

# ---- kernel filters ---------------------------------------------------

@test "tapkit: a leading condition on fields becomes the kernel filter, shown by -p2" {
	start_sigtarget
	script="global n
probe kernel.trace(\"signal:signal_generate\") {
	if (\$sig == 10 && \$pid == $TARGET) { n++; printf(\"%d %d\\n\", \$sig, \$pid) }
}
probe end { printf(\"n=%d\\n\", n) }"
	run --separate-stderr tapkit -p2 -e "$script"
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" == *"kernel filter: (sig == 10 && pid == $TARGET)"* ]] || { show_run; false; }
	printf '%s\n' "$output" |
		grep -qxF "  # condition as a kernel filter: (sig == 10 && pid == $TARGET) (applied)" ||
		{ show_run; false; }

	start_tool tapkit -e "$script"
	inst=$(instance_of "$TOOL_PID")
	[ "$(cat "$inst/events/signal/signal_generate/filter")" = "(sig == 10 && pid == $TARGET)" ]
	kill -USR1 "$TARGET"
	kill -USR2 "$TARGET"
	kill -USR1 "$TARGET"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "10 $TARGET
10 $TARGET
n=2" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: a leading 'if (C) next' becomes the negated kernel filter" {
	start_sigtarget
	script="global n
probe kernel.trace(\"signal:signal_generate\") {
	if (\$sig != 12 || \$pid != $TARGET) next
	n++
}
probe end { printf(\"n=%d\\n\", n) }"
	run --separate-stderr tapkit -p2 -e "$script"
	[ "$status" -eq 0 ] || { show_run; false; }
	printf '%s\n' "$output" |
		grep -qxF "  # condition as a kernel filter: (sig == 12 && pid == $TARGET) (applied)" ||
		{ show_run; false; }

	start_tool tapkit -e "$script"
	kill -USR2 "$TARGET"
	kill -USR1 "$TARGET"
	kill -USR2 "$TARGET"
	kill -USR2 "$TARGET"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "n=3" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: an execname() condition filters on the sender, not the event's comm field" {
	start_sigtarget
	# signal_generate has a field "comm" of its own: the target's name
	script="probe kernel.trace(\"signal:signal_generate\") {
	if (execname() == \"bash\" && \$pid == $TARGET) printf(\"%s %s %d\\n\", execname(), \$comm, \$sig)
}"
	run --separate-stderr tapkit -p2 -e "$script"
	printf '%s\n' "$output" | grep -q '^  # condition as a kernel filter: .*== "bash".* (applied)$' ||
		{ show_run; false; }
	start_tool tapkit -e "$script"
	kill -USR1 "$TARGET"		# the shell's builtin: sent by bash
	/bin/kill -USR2 "$TARGET"	# sent by kill
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "bash sleep 10" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: a tid() condition is pushed down as common_pid" {
	start_held "$SYSLOOP" wait-stdin getppid 300
	script="probe kernel.trace(\"syscalls:sys_enter_getppid\") { if (tid() == $WL_PID) printf(\"%d\\n\", tid()) }"
	run --separate-stderr tapkit -p2 -e "$script"
	printf '%s\n' "$output" |
		grep -qxF "  # condition as a kernel filter: common_pid == $WL_PID (applied)" ||
		{ show_run; false; }
	start_tool tapkit -e "$script"
	[ "$(cat "$(instance_of "$TOOL_PID")/events/syscalls/sys_enter_getppid/filter")" = "common_pid == $WL_PID" ]
	"$SYSLOOP" getppid 40	# not ours
	release_workload
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "$(for i in $(seq 300); do echo "$WL_PID"; done)" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: a handler that only counts is counted by the kernel, filter included" {
	start_held "$SYSLOOP" wait-stdin getppid 4321
	script="global n
probe kernel.trace(\"syscalls:sys_enter_getppid\") { if (tid() == $WL_PID) n++ }
probe end { printf(\"n=%d\\n\", n) }"
	run --separate-stderr tapkit -p2 -e "$script"
	printf '%s\n' "$output" | grep -qxF "  # mechanism: perf_event counting mode on tracepoint syscalls:sys_enter_getppid, no records (the handler only counts), kernel filter: common_pid == $WL_PID" ||
		{ show_run; false; }
	start_tool tapkit -e "$script"
	"$SYSLOOP" getppid 40	# not ours
	release_workload
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "n=4321" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: --dry-run prints a shell script that sets up the same instance" {
	start_sigtarget
	run --separate-stderr tapkit --dry-run -e "probe kernel.trace(\"signal:signal_generate\") {
	if (\$sig == 10 && \$pid == $TARGET) println(\$sig)
}"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(head -1 <<<"$output")" = '#!/bin/sh' ]
	# every write goes into the instance, none to the top level
	! printf '%s\n' "$output" | grep -E '>' | grep -vqF '"$T/' || { show_run; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/dry.sh"
	sh "$BATS_TEST_TMPDIR/dry.sh" &
	dpid=$!
	DRY_INST=$TRACEFS/instances/tapkit_dryrun_$dpid
	wait "$dpid"
	[ -d "$DRY_INST" ]
	ev=$DRY_INST/events/signal/signal_generate
	[ "$(cat "$ev/filter")" = "(sig == 10 && pid == $TARGET)" ]
	[ "$(cat "$ev/enable")" = 1 ]
	kill -USR2 "$TARGET"
	kill -USR1 "$TARGET"
	grep 'signal_generate:' "$DRY_INST/trace" >"$BATS_TEST_TMPDIR/recs" || true
	[ "$(wc -l <"$BATS_TEST_TMPDIR/recs")" -eq 1 ] || { cat "$DRY_INST/trace" >&2; false; }
	grep -q "signal_generate: sig=10 .*comm=sleep pid=$TARGET " "$BATS_TEST_TMPDIR/recs"
	rmdir "$DRY_INST"
	DRY_INST=
}

# ---- tapsets ----------------------------------------------------------

@test "tapkit: syscall.getppid counts exactly, with name and argstr" {
	run_pid tapkit -c "$SYSLOOP getppid 321" -e 'global n, names
probe syscall.getppid { if (pid() == target()) { n++; names[name, argstr]++ } }
probe end { printf("n=%d\n", n); foreach ([a, b] in names) printf("%s|%s|%d\n", a, b, names[a, b]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# getppid has no arguments: argstr is "", as in stap
	[ "$output" = "n=321
getppid||321" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: syscall.openat.return gives retval and retstr \"-2 (ENOENT)\"" {
	run_pid tapkit -c "$SYSLOOP fail 7" -e '
probe syscall.openat.return {
	if (pid() == target() && retval < 0) printf("%s %d %s\n", name, retval, retstr)
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "$(for i in 1 2 3 4 5 6 7; do echo 'openat -2 -2 (ENOENT)'; done)" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: syscall.* keyed by name counts the target's getppid() calls exactly" {
	run_pid tapkit -c "$SYSLOOP getppid 222" -e 'global c
probe syscall.* { if (pid() == target()) c[name]++ }
probe end { foreach (k in c) printf("%s %d\n", k, c[k]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	printf '%s\n' "$output" | grep -qx 'getppid 222' || { show_run; false; }
	printf '%s\n' "$output" | grep -qx 'exit_group 1' || { show_run; false; }
	# entries only: no .return probe is matched by syscall.*
	[ "$(printf '%s\n' "$output" | grep -c '^getppid ')" -eq 1 ]
	assert_clean "$RUN_PID"
}

@test "tapkit: signal.send gives sig_name, sig_pid and pid_name" {
	start_sigtarget
	start_tool tapkit -e "probe signal.send {
	if (sig_pid == $TARGET)
		printf(\"%s %d %d %s %d %s\\n\", sig_name, sig, sig_pid, pid_name, pid(), execname())
}"
	kill -USR1 "$TARGET"
	kill -USR2 "$TARGET"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "SIGUSR1 10 $TARGET sleep $BASHPID bash
SIGUSR2 12 $TARGET sleep $BASHPID bash" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: kprocess.exec gives the filename and kprocess.exit the PID" {
	require_tracefs_file events/sched/sched_process_exec
	probe=$BATS_TEST_TMPDIR/tk-tap-probe
	ln -sf /bin/true "$probe"
	run_pid tapkit -c "$probe" -e '
probe begin { printf("target %d\n", target()) }
probe kprocess.exec { if (pid() == target()) printf("exec %s %d %d\n", filename, new_pid, old_pid) }
probe kprocess.exit { if (pid() == target()) printf("exit %d\n", task_pid) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	t=$(printf '%s\n' "$output" | sed -n 's/^target //p')
	printf '%s\n' "$output" | grep -qxF "exec $probe $t $t" || { show_run; false; }
	[ "$(printf '%s\n' "$output" | tail -1)" = "exit $t" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: scheduler.process_fork and process_exit follow a shell's child" {
	kid=$BATS_TEST_TMPDIR/kid
	run_pid tapkit -c "sh -c 'true & echo \$! >$kid; wait'" -e '
global kids
probe begin { printf("target %d\n", target()) }
probe scheduler.process_fork {
	if (parent_pid == target()) { kids[child_pid] = 1; printf("fork %d %d\n", parent_pid, child_pid) }
}
probe scheduler.process_exit { if (pid in kids || pid == target()) printf("exit %d\n", pid) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	t=$(printf '%s\n' "$output" | sed -n 's/^target //p')
	k=$(cat "$kid")
	[ "$output" = "target $t
fork $t $k
exit $k
exit $t" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: netdev.transmit, .hard_transmit, .rx and .receive see a datagram sent on lo" {
	require_tracefs_file events/net/net_dev_start_xmit
	if ! ip link show lo | grep -q '[<,]UP[,>]'; then
		ip link set lo up
		LO_WAS_DOWN=1
	fi
	ok=$BATS_TEST_TMPDIR/ok
	# 333 bytes of UDP payload: 333 + 8 + 20 + 14 (Ethernet header) = 375
	run_pid tapkit -c "python3 -c '
import socket, sys
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind((\"127.0.0.1\", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b\"x\" * 333, r.getsockname())
open(sys.argv[1], \"w\").write(str(len(r.recv(1000))))
' $ok" -e '
probe netdev.transmit {
	if (pid() == target() && dev_name == "lo") printf("tx %s %d %d\n", dev_name, length, protocol)
}
probe netdev.hard_transmit {
	if (pid() == target() && dev_name == "lo") printf("hard %s %d %d\n", dev_name, length, protocol)
}
probe netdev.hard_transmit.return {
	if (pid() == target() && dev_name == "lo") printf("hard return %d %d\n", length, returnval)
}
probe netdev.rx { if (dev_name == "lo" && length == 361) printf("netif_rx %s %d\n", dev_name, length) }
probe netdev.receive {
	if (dev_name == "lo" && length == 361) printf("rx %s %d %d\n", dev_name, length, protocol)
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(cat "$ok")" = 333 ]
	# protocol as stap reports it: skb->protocol as stored (ETH_P_IP in
	# network byte order, read on a little-endian machine); the receive
	# side sees the frame without its 14-byte Ethernet header; loopback's
	# driver hands it to netif_rx() (its entry, then its queueing) before
	# it returns
	[ "$output" = "tx lo 375 8
hard lo 375 8
rx lo 361 8
netif_rx lo 361
hard return 375 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: ioblock.request sees direct writes to the test's block device" {
	require_tracefs_file events/block/block_bio_queue
	major=$(stat -c %Hd "$BATS_TEST_TMPDIR") minor=$(stat -c %Ld "$BATS_TEST_TMPDIR")
	[ "$major" -ne 0 ] ||
		skip "requires: a block-backed filesystem for the test's files ($(stat -f -c %T "$BATS_TEST_TMPDIR") is not)"
	f=$BATS_TEST_TMPDIR/direct
	dd if=/dev/zero of="$f" bs=64k count=1 oflag=direct status=none 2>/dev/null ||
		skip "requires: O_DIRECT writes on $(stat -f -c %T "$BATS_TEST_TMPDIR")"
	rm -f "$f"
	run_pid tapkit -c "dd if=/dev/zero of=$f bs=64k count=4 oflag=direct status=none" -e "
global bytes
probe ioblock.request {
	if (pid() == target() && devname == \"$major,$minor\" && isinstr(rw, \"W\")) {
		bytes += size
		printf(\"%s %s\\n\", devname, rw)
	}
}
probe end { printf(\"bytes=%d\\n\", bytes) }"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | tail -1)" = "bytes=262144" ] || { show_run; false; }
	! printf '%s\n' "$output" | grep -v '^bytes=' | grep -vq "^$major,$minor " || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: ioscheduler.* follow each direct write's request from insert to completion" {
	require_tracefs_file events/block/block_rq_insert
	major=$(stat -c %Hd "$BATS_TEST_TMPDIR") minor=$(stat -c %Ld "$BATS_TEST_TMPDIR")
	[ "$major" -ne 0 ] ||
		skip "requires: a block-backed filesystem for the test's files ($(stat -f -c %T "$BATS_TEST_TMPDIR") is not)"
	sched=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/dev/block/$major:$minor/queue/scheduler" 2>/dev/null)
	[ -n "$sched" ] && [ "$sched" != none ] ||
		skip "requires: an I/O scheduler on $major:$minor (requests are inserted into one)"
	f=$BATS_TEST_TMPDIR/direct
	dd if=/dev/zero of="$f" bs=64k count=1 oflag=direct status=none 2>/dev/null ||
		skip "requires: O_DIRECT writes on $(stat -f -c %T "$BATS_TEST_TMPDIR")"
	rm -f "$f"
	# the data writes the command inserts (it may read or write the file
	# system's metadata too: "M"), then those sectors' issue and
	# completion, in whatever task the kernel runs them.  The command is
	# told by its name, not by pid() == target(): that would put the first
	# probe in a session of its own, whose records are not ordered with
	# the other probe's
	run_pid tapkit -c "dd if=/dev/zero of=$f bs=64k count=4 oflag=direct status=none" -e "
global mine, c, b
probe ioscheduler.elv_add_request {
	if (execname() == \"dd\" && disk_major == $major && disk_minor == $minor && isinstr(rq_flags, \"W\") && !isinstr(rq_flags, \"M\"))
		mine[sector] = 1
}
probe ioscheduler.elv_add_request, ioscheduler.elv_next_request, ioscheduler.elv_completed_request {
	if (disk_major == $major && disk_minor == $minor && sector in mine && isinstr(rq_flags, \"W\") && !isinstr(rq_flags, \"M\")) {
		c[name, rq_flags, elevator_name]++
		b[name] += size
	}
}
probe end { foreach ([n, f, e] in c) printf(\"%s %s [%s] %d %d\\n\", n, f, e, c[n, f, e], b[n]) }"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | sort)" = "elv_add_request WS [] 4 262144
elv_completed_request WS [] 4 262144
elv_next_request WS [] 4 262144" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

# ---- lifecycle --------------------------------------------------------

@test "tapkit: exit() in a tracepoint handler ends the run after the end probes" {
	run_pid tapkit -c "$SYSLOOP getppid 2000" -e 'global n
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) { n++; exit() } }
probe end { printf("end n=%d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "end n=1" ] || { show_run; false; }
	[ -z "$stderr" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: SIGINT, SIGTERM and SIGHUP end the run with the end probes" {
	for sig in INT TERM HUP; do
		start_held "$SYSLOOP" wait-stdin getppid 300
		start_tool tapkit -e "global n
probe kernel.trace(\"syscalls:sys_enter_getppid\") { if (tid() == $WL_PID) n++ }
probe end { printf(\"end n=%d\\n\", n) }"
		release_workload	# the run goes on: no -c, no -x
		settle
		kill -0 "$TOOL_PID"
		stop_tool "$sig"
		[ "$TOOL_RC" -eq 0 ] || { echo "# SIG$sig"; show_output; false; }
		[ "$(cat "$OUT")" = "end n=300" ] || { echo "# SIG$sig"; show_output; false; }
		assert_clean
	done
}

@test "tapkit: -T 1 ends the run after a second with the end probes" {
	t0=$(date +%s%N)
	run_pid tapkit -T 1 -e 'probe kernel.trace("syscalls:sys_enter_getppid") { next }
probe end { println("end") }'
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = end ] || { show_run; false; }
	[ "$ms" -ge 950 ] && [ "$ms" -lt 5000 ] || { echo "# took $ms ms" >&2; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: a run-time error in a tracepoint handler is located, runs error probes, exits 1" {
	f=$BATS_TEST_TMPDIR/div.stp
	cat >"$f" <<'EOF'
global z
probe kernel.trace("syscalls:sys_enter_getppid") {
    if (pid() == target()) printf("%d\n", 1 / z)
}
probe end { println("end") }
probe error { println("error probe") }
EOF
	run_pid tapkit -c "$SYSLOOP getppid 5" "$f"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$output" = "error probe" ] || { show_run; false; }
	[ "$stderr" = "ERROR: division by 0 near operator '/' at $f:3:45
WARNING: Number of errors: 1, skipped probes: 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: a missing tracepoint is a located compile error; with ? it is left out" {
	run_pid tapkit -e 'probe kernel.trace("sched:tk_no_such_event") { }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ -z "$output" ]
	[ "$stderr" = '<input>:1:7: error: no tracepoint matches "sched:tk_no_such_event"
probe kernel.trace("sched:tk_no_such_event") { }
      ^' ] || { show_run; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kernel.trace("tk_nosuch:*") { }'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'error: no tracepoint matches "tk_nosuch:*"'* ]] || { show_run; false; }
	# optional: left out, and the rest runs
	run_pid tapkit -c "$SYSLOOP getppid 10" -e 'global n
probe kernel.trace("tk_nosuch:event")? { println("never") }
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) n++ }
probe end { printf("n=%d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "n=10" ] || { show_run; false; }
	[ -z "$stderr" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: --cleanup removes instances of dead sessions and keeps live ones" {
	# start times as the owner's /proc/PID/stat field 22 gives them
	sleep 60 &
	dead=$!
	dead_start=$(awk '{ print $22 }' "/proc/$dead/stat")
	kill "$dead"
	wait "$dead" || true
	sleep 60 &
	TARGET=$!
	live_start=$(awk '{ print $22 }' "/proc/$TARGET/stat")
	gone=tapkit_${dead}_${dead_start}
	reused=tapkit_${TARGET}_$((live_start + 1))	# same PID, another process
	keep=tapkit_${TARGET}_${live_start}
	CLEANUP_DIRS=("$gone" "$reused" "$keep")
	mkdir "$TRACEFS/instances/$gone" "$TRACEFS/instances/$reused" "$TRACEFS/instances/$keep"
	run --separate-stderr tapkit --cleanup
	[ "$status" -eq 0 ] || { show_run; false; }
	[ ! -e "$TRACEFS/instances/$gone" ]
	[ ! -e "$TRACEFS/instances/$reused" ]
	[ -d "$TRACEFS/instances/$keep" ]
	rmdir "$TRACEFS/instances/$keep"
}

# ---- listing ----------------------------------------------------------

@test "tapkit: -l lists exactly the matching tracepoints, sorted; -L with their fields" {
	run --separate-stderr tapkit -l 'kernel.trace("sched:sched_*")'
	[ "$status" -eq 0 ] || { show_run; false; }
	expected=$(ls "$TRACEFS/events/sched" | grep '^sched_' | LC_ALL=C sort |
		sed 's/.*/kernel.trace("sched:&")/')
	[[ "$expected" == *'kernel.trace("sched:sched_switch")'* ]]
	[ "$output" = "$expected" ] || { show_run; false; }
	run --separate-stderr tapkit -L 'kernel.trace("sched:sched_switch")'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = 'kernel.trace("sched:sched_switch") $prev_comm:string $prev_pid:long $prev_prio:long $prev_state:long $next_comm:string $next_pid:long $next_prio:long' ] ||
		{ show_run; false; }
}

# ---- output and delivery ----------------------------------------------

@test "tapkit: -o writes the script's output to the file" {
	o=$BATS_TEST_TMPDIR/tk.out
	run_pid tapkit -o "$o" -c "$SYSLOOP getppid 20" -e '
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) printf("%d\n", tid()) }
probe end { printf("end %d\n", target()) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ -z "$output" ] || { show_run; false; }
	t=$(sed -n 's/^end //p' "$o")
	[ "$(cat "$o")" = "$(for i in $(seq 20); do echo "$t"; done; echo "end $t")" ] || { cat "$o" >&2; false; }
	assert_clean "$RUN_PID"
	# the command does not get the file open: its own opens start where
	# they would without tapkit
	run_pid tapkit -o "$o" -c "sh -c 'ls -l /proc/\$\$/fd'" -e 'probe begin { }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" == *" 0 -> "* ]] && [[ "$output" != *"$o"* ]] || { show_run; false; }
}

@test "tapkit: events of two tracepoints arrive in the order they happened" {
	run_pid tapkit -c "$SYSLOOP getppid 2000" -e 'global seq, bad, t
probe kernel.trace("syscalls:sys_enter_getppid") {
	if (pid() == target()) { if (seq % 2 != 0 || tid() != target()) bad++; seq++ }
}
probe kernel.trace("syscalls:sys_exit_getppid") {
	if (pid() == target()) { if (seq % 2 != 1 || tid() != target()) bad++; seq++ }
}
probe end { printf("events=%d out_of_order=%d\n", seq, bad) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "events=4000 out_of_order=0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: two runs at once on the same tracepoint each see every event" {
	start_held "$SYSLOOP" wait-stdin getppid 3000
	script='global n
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) n++ }
probe end { printf("n=%d\n", n) }'
	start_tool tapkit -x "$WL_PID" -o "$BATS_TEST_TMPDIR/a" -e "$script"
	TOOL2_PID=$TOOL_PID
	start_tool tapkit -x "$WL_PID" -o "$BATS_TEST_TMPDIR/b" -e "$script"
	[ -n "$(instance_of "$TOOL2_PID")" ] && [ -n "$(instance_of "$TOOL_PID")" ]
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	wait "$TOOL2_PID"
	rc2=$?
	first=$TOOL2_PID
	TOOL2_PID=
	[ "$rc2" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/a")" = "n=3000" ] || { cat "$BATS_TEST_TMPDIR/a" >&2; false; }
	[ "$(cat "$BATS_TEST_TMPDIR/b")" = "n=3000" ] || { cat "$BATS_TEST_TMPDIR/b" >&2; false; }
	assert_clean "$first"
	assert_clean
}

@test "tapkit: execname() follows the command's exec" {
	run_pid tapkit -c "$SYSLOOP getppid 3" -e '
probe kernel.trace("syscalls:sys_enter_getppid") { if (pid() == target()) println(execname()) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# the command is forked by tapkit: a name cached before its exec
	# must not stick
	[ "$output" = "sysloop
sysloop
sysloop" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: a negative index of a char array is an error, not 0" {
	run_pid tapkit -c "$SYSLOOP getppid 1" -e '
probe kernel.trace("sched:sched_switch") { printf("%d\n", $prev_comm[-1]) }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ -z "$output" ] || { show_run; false; }
	[[ "$stderr" == "ERROR: cannot fetch target variable \$prev_comm near identifier '\$prev_comm' at <input>:2:59"* ]] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: a count read by a per-event probe stays in records, exact" {
	# counting mode would have to read every counter on each sched_switch
	run --separate-stderr tapkit -p2 -e '
global c
probe syscall.getppid { c++ }
probe kernel.trace("sched:sched_switch") { if (c < 0) println(c) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" == *"records of tracepoint syscalls:sys_enter_getppid"* ]] || { show_run; false; }
	[[ "$output" != *"counting mode"* ]] || { show_run; false; }
	run_pid tapkit -c "$SYSLOOP getppid 345" -e '
global c
probe syscall.getppid { if (pid() == target()) c++ }
probe kernel.trace("sched:sched_switch") { if (c < 0) println(c) }
probe end { printf("c=%d\n", c) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "c=345" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

# ---- memory reads: user_string() and the others, through event probes --

@test "tapkit: user_string(\$filename) gives each openat() path, or names the missing eprobes" {
	# $flags == 0 leaves out the loader's opens (O_CLOEXEC)
	run_pid tapkit -c "$SYSLOOP fail 321" -e 'global c
probe kernel.trace("syscalls:sys_enter_openat") {
	if (pid() == target() && $flags == 0) c[user_string($filename)]++
}
probe end { foreach (k in c) printf("%s %d\n", k, c[k]) }'
	if ! has_eprobes; then
		[ -z "${TAPKIT_VM:-}" ] || { echo "# TAPKIT_VM is set but this kernel has no event probes"; false; }
		[ "$status" -eq 1 ] || { show_run; false; }
		[ -z "$output" ] || { show_run; false; }
		[ "$stderr" = 'tapkit: kernel.trace("syscalls:sys_enter_openat"): user_string() needs event probes (eprobes), which this kernel does not have' ] || { show_run; false; }
		assert_clean "$RUN_PID"
		return
	fi
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "/nonexistent/tapkit 321" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: user_long(), user_int() and user_string_n() of a field plus an offset (eprobes)" {
	require_eprobes
	# through an alias whose prologue reads the memory, as a tapset's
	# would (only the command's: a read of someone else's may fault)
	run_pid tapkit -c "$SYSLOOP fail 3" -e 'global n
probe my.open = kernel.trace("syscalls:sys_enter_openat") {
	if (pid() == target() && $flags == 0) {
		path = user_string($filename); head = user_string_n($filename + 1, 3)
		l = user_long($filename); i = user_int($filename + 4)
	}
}
probe my.open {
	if (path != "" && !n++)
		printf("%s %s %x %x %s\n", path, head, l, i, user_string_n($filename, -1))
}
probe end { printf("n=%d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "/nonexistent/tapkit non 736978656e6f6e2f 73697865 
n=3" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: the width variants, user_char() and user_int8() to user_uint64() (eprobes)" {
	require_eprobes
	# "/nonexistent/tapkit": 2f 6e 6f 6e 65 78 69 73 74 ...
	run_pid tapkit -c "$SYSLOOP fail 1" -e '
probe kernel.trace("syscalls:sys_enter_openat") {
	if (pid() == target() && $flags == 0)
		printf("%d %d %d %d %d %d %d %d %d %x %x\n", user_int8($filename),
		       user_uint8($filename + 1), user_char($filename + 2),
		       user_short($filename), user_ushort($filename + 4),
		       user_int16($filename + 4), user_uint16($filename + 6),
		       user_int32($filename + 4), user_uint32($filename + 4),
		       user_int64($filename), user_uint64($filename + 1))
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "47 110 111 28207 30821 30821 29545 1936291941 1936291941 736978656e6f6e2f 74736978656e6f6e" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: user_string() of an unmapped address raises stap's copy fault error (eprobes)" {
	require_eprobes
	f=$BATS_TEST_TMPDIR/fault.stp
	cat >"$f" <<'STP'
probe kernel.trace("syscalls:sys_enter_openat") {
    if (pid() == target() && $flags == 0) println(user_string($filename))
}
probe end { println("end") }
probe error { println("error probe") }
STP
	run_pid tapkit -c "$SYSLOOP badpath 5" "$f"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$output" = "error probe" ] || { show_run; false; }
	[ "$stderr" = "ERROR: user string copy fault at 0x10 near identifier 'user_string' at $f:2:51
WARNING: Number of errors: 1, skipped probes: 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: --dry-run's event probe definition is the one the kernel takes (eprobes)" {
	require_eprobes
	run --separate-stderr tapkit --dry-run -e 'probe kernel.trace("syscalls:sys_enter_openat") {
	if ($flags == 0) printf("%s %s %d %d %d\n", user_string($filename), kernel_string($filename),
		user_int($filename), kernel_long($filename - 8), kernel_int($filename + 8))
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	def=$(sed -n 's/^echo "e:$G\/\([^"]*\)" '\''\(.*\)'\'' >> .*/\1 \2/p' <<<"$output")
	[ -n "$def" ] || { show_run; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/dry.sh"
	sh "$BATS_TEST_TMPDIR/dry.sh" &
	dpid=$!
	DRY_INST=$TRACEFS/instances/tapkit_dryrun_$dpid
	DRY_EPROBE=tapkit_dryrun_$dpid/${def%% *}
	wait "$dpid"
	grep -qxF "e:tapkit_dryrun_$dpid/$def" "$TRACEFS/dynamic_events" ||
		{ echo "# $def"; cat "$TRACEFS/dynamic_events"; false; }
	[ "$(cat "$DRY_INST/events/$DRY_EPROBE/enable")" = 1 ]
	"$SYSLOOP" fail 2
	[ "$(grep -c 'mem0="/nonexistent/tapkit"' "$DRY_INST/trace")" -eq 2 ] ||
		{ cat "$DRY_INST/trace" >&2; false; }
	rmdir "$DRY_INST"
	DRY_INST=
	echo "-:$DRY_EPROBE" >>"$TRACEFS/dynamic_events"
	DRY_EPROBE=
}

@test "tapkit: two string fields of one record each keep their own value" {
	require_tracefs_file events/task/task_rename
	# the command's exec renames it tapkit -> sh, its write sh -> tk-newname
	run_pid tapkit -c "echo tk-newname > /proc/self/comm" -e '
probe kernel.trace("task:task_rename") {
	if (pid() == target()) printf("%s -> %s\n", $oldcomm, $newcomm)
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "tapkit -> sh
sh -> tk-newname" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}
