# Shared by the block I/O tools' live suites (biosnoop, biolatency,
# bitesize): loop devices over files of the test, and O_DIRECT writes of a
# known size to them.
#
# The writes are exact: O_DIRECT with a block size the loop device takes
# whole (64 KiB and 4 KiB are below its max_sectors_kb, so no split), each
# write waits for its completion before the next is made (so no merge),
# and the device's file is fresh (nothing else writes to it).  Reads of
# the device by udev's probing are not writes, and the tests count writes.

# loop_disk VAR: a loop device over an 8 MiB file; VAR=/dev/loopN and
# VAR_NAME=loopN
loop_disk() {
	local dev
	command -v losetup >/dev/null || skip "requires: losetup (a loop block device)"
	truncate -s 8M "$BATS_TEST_TMPDIR/$1.img"
	dev=$(losetup -f --show "$BATS_TEST_TMPDIR/$1.img" 2>/dev/null) ||
		skip "requires: a free loop block device"
	LOOPS+=("$dev")
	printf -v "$1" '%s' "$dev"
	printf -v "$1_NAME" '%s' "${dev#/dev/}"
	# udev's probe of the new device comes now, not during the test
	command -v udevadm >/dev/null && udevadm settle -t 5 2>/dev/null || true
}

# release_loops: for teardown
release_loops() {
	local d
	for d in "${LOOPS[@]}"; do
		losetup -d "$d" 2>/dev/null || true
	done
	LOOPS=()
}

# direct_writes DEV N BS [PROG]: N O_DIRECT writes of BS bytes by dd (or a
# copy of dd named PROG) from sector 0 on; the writer's PID in $DD_PID
direct_writes() {
	local prog=dd
	if [ -n "${4:-}" ]; then
		prog=$BATS_TEST_TMPDIR/$4
		cp "$(command -v dd)" "$prog"
	fi
	"$prog" --version >/dev/null	# its pages read now, not during the writes
	"$prog" if=/dev/zero of="$1" bs="$3" count="$2" oflag=direct 2>/dev/null &
	DD_PID=$!
	wait "$DD_PID"
}

# start_tool2 CMD ARGS...: a second tool beside start_tool's, on the same
# workload: $TOOL2_PID, $OUT2, $ERR2
start_tool2() {
	OUT2=$BATS_TEST_TMPDIR/out2 ERR2=$BATS_TEST_TMPDIR/err2
	local ready=$BATS_TEST_TMPDIR/ready2.$RANDOM i
	TAPKIT_READY_FILE=$ready "$@" >"$OUT2" 2>"$ERR2" &
	TOOL2_PID=$!
	for i in $(seq 1 600); do
		[ -e "$ready" ] && return 0
		kill -0 "$TOOL2_PID" 2>/dev/null || { cat "$ERR2" >&2; return 1; }
		sleep 0.05
	done
	return 1
}

# stop_tool2: SIGINT and wait; $TOOL2_RC
stop_tool2() {
	kill -INT "$TOOL2_PID" 2>/dev/null
	wait "$TOOL2_PID"
	TOOL2_RC=$?
}

stop_leftover_tool2() {
	[ -n "${TOOL2_PID:-}" ] || return 0
	kill -INT "$TOOL2_PID" 2>/dev/null || true
	wait "$TOOL2_PID" 2>/dev/null || true
	TOOL2_PID=
}
