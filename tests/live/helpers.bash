# Shared helpers of the live suites (bats).  They run as root against the
# real tracing filesystem, start the command under test in the background,
# wait until it says tracing is live (TAPKIT_READY_FILE), make a workload,
# stop it with a signal and look at the output.

bats_require_minimum_version 1.5.0

TRACEFS=/sys/kernel/tracing

# run_pid CMD...: bats' run --separate-stderr, also noting the PID in $RUN_PID
run_pid() {
	local pidfile=$BATS_TEST_TMPDIR/run.pid
	run --separate-stderr sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@"
	RUN_PID=$(cat "$pidfile")
}

require_root() {
	[ "$(id -u)" = 0 ] || skip "requires: root"
}

require_tracefs_file() {
	[ -e "$TRACEFS/$1" ] || skip "requires: $1"
}

# start_tool CMD ARGS...: run in the background; $TOOL_PID, $OUT, $ERR
start_tool() {
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	local ready=$BATS_TEST_TMPDIR/ready.$RANDOM
	# the tool must not hold a held workload's fifo open (no EOF then)
	if [ -n "${WL_FD:-}" ]; then
		TAPKIT_READY_FILE=$ready "$@" >"$OUT" 2>"$ERR" {WL_FD}>&- &
	else
		TAPKIT_READY_FILE=$ready "$@" >"$OUT" 2>"$ERR" &
	fi
	TOOL_PID=$!
	local i
	for i in $(seq 1 600); do
		[ -e "$ready" ] && return 0
		if ! kill -0 "$TOOL_PID" 2>/dev/null; then
			wait "$TOOL_PID"
			echo "# $1 exited with status $? before tracing started:" >&2
			sed 's/^/# /' "$ERR" >&2
			return 1
		fi
		sleep 0.05
	done
	echo "# $1 did not become ready in 10 s" >&2
	return 1
}

# start_piped N CMD ARGS...: like start_tool, with stdout into `head -N`
# ($OUT gets what head printed; $HEAD_PID)
start_piped() {
	local n=$1; shift
	local fifo=$BATS_TEST_TMPDIR/pipe.$RANDOM ready=$BATS_TEST_TMPDIR/ready.$RANDOM
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	mkfifo "$fifo"
	TAPKIT_READY_FILE=$ready "$@" >"$fifo" 2>"$ERR" &
	TOOL_PID=$!
	head -"$n" <"$fifo" >"$OUT" &
	HEAD_PID=$!
	local i
	for i in $(seq 1 600); do [ -e "$ready" ] && return 0; sleep 0.05; done
	echo "# $1 did not become ready in 30 s" >&2
	return 1
}

# stop_tool [SIG]: signal the tool (INT by default) and wait; $TOOL_RC
stop_tool() {
	kill -"${1:-INT}" "$TOOL_PID" 2>/dev/null
	wait_tool
}

# wait_tool: wait for the tool to end by itself (at most 60 s); $TOOL_RC
wait_tool() {
	local i
	for i in $(seq 1 1200); do
		kill -0 "$TOOL_PID" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$TOOL_PID" 2>/dev/null; then
		echo "# tool $TOOL_PID still running after 60 s: killing it" >&2
		kill -KILL "$TOOL_PID"
	fi
	wait "$TOOL_PID"
	TOOL_RC=$?
}

# For every file's teardown(): a test that failed half-way must not leave
# its tool running (SIGINT first, so it still removes its tracefs state).
stop_leftover_tool() {
	[ -n "${TOOL_PID:-}" ] || return 0
	if kill -0 "$TOOL_PID" 2>/dev/null; then
		kill -INT "$TOOL_PID" 2>/dev/null
		for _ in $(seq 1 100); do kill -0 "$TOOL_PID" 2>/dev/null || break; sleep 0.05; done
		kill -KILL "$TOOL_PID" 2>/dev/null
	fi
	wait "$TOOL_PID" 2>/dev/null || true
	TOOL_PID=
	if [ -n "${WL_PID:-}" ]; then
		kill -KILL "$WL_PID" 2>/dev/null || true
		wait "$WL_PID" 2>/dev/null || true
	fi
}

# Give the tool a moment to read what the workload produced.
settle() {
	sleep "${1:-0.3}"
}

# Nothing of session $1 (a PID) remains: instance or dynamic event group.
assert_clean() {
	local pid=${1:-$TOOL_PID}
	if ls "$TRACEFS/instances" | grep -q "^tapkit_${pid}_"; then
		echo "# instance of session $pid left behind" >&2
		return 1
	fi
	if grep -qs "tapkit_${pid}_" "$TRACEFS/dynamic_events" "$TRACEFS/uprobe_events" \
		"$TRACEFS/kprobe_events"; then
		echo "# event group of session $pid left behind" >&2
		return 1
	fi
}

# watchdog_of PID: the PID of session PID's watchdog (tapkit-watch, which
# holds a pidfd of it), or nothing
watchdog_of() {
	local w
	for w in $(pgrep -x tapkit-watch); do
		grep -qsx "Pid:[[:space:]]*$1" /proc/"$w"/fdinfo/* && echo "$w" && return 0
	done
	return 0
}

# wait_clean PID SECS: the group of session PID is removed within SECS
# (with more than 8 events a detached process closes them, then removes it)
wait_clean() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		assert_clean "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	assert_clean "$1"
}

# ring_kb [PID]: the per-CPU ring size (buffer_size_kb) of session PID's
# instance, while it runs.
ring_kb() {
	local d
	d=$(ls -d "$TRACEFS/instances/tapkit_${1:-$TOOL_PID}_"* 2>/dev/null | head -1)
	[ -n "$d" ] && cat "$d/buffer_size_kb"
}

# kernel_ring_kb [KB]: buffer_size_kb as the kernel shows it for a new
# instance, after writing KB to it if given (it rounds up to whole pages);
# the instance is made and removed here, named for this test process.
kernel_ring_kb() {
	local d=$TRACEFS/instances/tapkit_test_$$
	mkdir "$d" || return 1
	[ -z "${1:-}" ] || echo "$1" >"$d/buffer_size_kb"
	cat "$d/buffer_size_kb"
	rmdir "$d"
}

# has_eprobes: the kernel takes event probes.  Its README lists their
# syntax even where it has none, so one is defined on sys_enter_openat and
# removed again, in a group named for this test process.
has_eprobes() {
	local g=tapkit_test_$$
	echo "e:$g/check syscalls.sys_enter_openat" 2>/dev/null \
		>>"$TRACEFS/dynamic_events" || return 1
	echo "-:$g/check" >>"$TRACEFS/dynamic_events"
}

# Skip without event probes; under the VM's distribution kernel they must
# be there.
require_eprobes() {
	has_eprobes && return 0
	if [ -n "${TAPKIT_VM:-}" ]; then
		echo "# TAPKIT_VM is set but this kernel has no event probes" >&2
		return 1
	fi
	skip "requires: event probes (eprobes)"
}

# require_kprobe_events: kprobes in this kernel (under the VM they must be)
require_kprobe_events() {
	if [ ! -e "$TRACEFS/kprobe_events" ] && [ -n "${TAPKIT_VM:-}" ]; then
		echo "# TAPKIT_VM is set but this kernel has no kprobe_events" >&2
		return 1
	fi
	require_tracefs_file kprobe_events
}

# require_kprobes: kprobes and the kernel's BTF
require_kprobes() {
	require_kprobe_events || return 1
	[ -r /sys/kernel/btf/vmlinux ] || skip "requires: /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)"
}

# A workload held until a byte arrives on its fifo: $WL_PID, release_workload.
# It returns once the workload waits in read() of its standard input: the
# forked shell has exec'd the program, and the program has loaded and run
# what comes before its wait (on a loaded machine that takes a while, and a
# tool attached earlier would see the start-up too).
start_held() {
	local fifo=$BATS_TEST_TMPDIR/fifo.$RANDOM i sc
	mkfifo "$fifo"
	"$@" <"$fifo" &
	WL_PID=$!
	exec {WL_FD}>"$fifo"
	for i in $(seq 1 600); do
		read -r sc <"/proc/$WL_PID/syscall" 2>/dev/null || break
		[[ $sc == "0 0x0 "* ]] && return 0
		sleep 0.05
	done
	echo "# the held workload $WL_PID ($1) is not waiting in read(0): ${sc:-gone}" >&2
	return 1
}

release_workload() {
	printf 'x\n' >&"$WL_FD"
	exec {WL_FD}>&-
	WL_FD=
	wait "$WL_PID"
}

SYSLOOP=$TAPKIT_TOP/build/tests/helpers/sysloop

# Print the output for a failing test.
# show_run: what bats' run (--separate-stderr) captured, for a failure.
# run_fails WANT CMD...: CMD exits 1 and the first line of its errors is
# WANT
run_fails() {
	local want=$1

	shift
	run_pid "$@"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "$want" ] || { show_run; false; }
}

show_run() {
	echo "# status $status" >&2
	echo "# --- stdout" >&2; printf '%s\n' "$output" | sed 's/^/# /' >&2
	echo "# --- stderr" >&2; printf '%s\n' "${stderr:-}" | sed 's/^/# /' >&2
}

show_output() {
	echo "# --- stdout" >&2; sed 's/^/# /' "$OUT" >&2
	echo "# --- stderr" >&2; sed 's/^/# /' "$ERR" >&2
}

# start_cmd_tool TOOL ARGS...: like start_tool, for a TOOL run with -c CMD
# whose stdin is a fifo the test holds ($WL_FD): a command that waits for
# a byte there (a workload's wait-stdin, a shell's read) starts its work
# only on release_cmd, after the test has done what it wants beside it.
start_cmd_tool() {
	local fifo=$BATS_TEST_TMPDIR/cmdfifo.$RANDOM
	mkfifo "$fifo"
	exec {WL_FD}<>"$fifo"
	start_tool sh -c 'exec "$@" <"$0"' "$fifo" "$@"
}

# release_cmd: a line for the command of start_cmd_tool, then EOF
release_cmd() {
	printf 'x\n' >&"$WL_FD"
	exec {WL_FD}>&-
	WL_FD=
}
