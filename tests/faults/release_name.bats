#!/usr/bin/env bats
# The name a release helper holds while it closes a dead session's perf
# events (an abstract socket, tapkit-release/GROUP) tells the stale cleanup
# to leave that group to it.  Any user can bind an abstract name: one that
# another user took, to keep a dead session's probes in the kernel, is not
# heeded; one that root holds is.

load faults

setup() {
	require_root
	[ -e "$TRACEFS/uprobe_events" ] || skip "requires: uprobe_events"
	id nobody >/dev/null 2>&1 || skip "requires: the user nobody"
	sleep 60 &
	local dead=$!
	local start
	start=$(awk '{ print $22 }' "/proc/$dead/stat")
	kill "$dead"
	wait "$dead" || true
	GROUP=tapkit_${dead}_${start}
	echo "p:$GROUP/left $SYSLOOP:0x0" >>"$TRACEFS/uprobe_events"
}

teardown() {
	[ -z "${HOLDER:-}" ] || { kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null; } || true
	grep -q "^p:$GROUP/" "$TRACEFS/uprobe_events" 2>/dev/null &&
		echo "-:$GROUP/left" >>"$TRACEFS/uprobe_events"
	true
}

# hold stream|dgram [SETPRIV...]: a process holding GROUP's helper name
# with a socket of that type (a stream one listens), as the user setpriv
# makes (none: root); $HOLDER
hold() {
	local type=$1
	shift
	"$@" /usr/bin/python3 -c '
import socket, sys, time
stream = sys.argv[2] == "stream"
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM if stream else socket.SOCK_DGRAM)
s.bind("\0tapkit-release/" + sys.argv[1])
if stream:
    s.listen(64)
time.sleep(60)' "$GROUP" "$type" &
	HOLDER=$!
	for _ in $(seq 1 100); do
		grep -q " @tapkit-release/$GROUP\$" /proc/net/unix && return 0
		sleep 0.05
	done
	echo "# the name was not taken"
	return 1
}

@test "release name: another user's socket at a dead session's helper name does not keep its group" {
	local type
	for type in dgram stream; do
		grep -q "^p:$GROUP/" "$TRACEFS/uprobe_events" ||
			echo "p:$GROUP/left $SYSLOOP:0x0" >>"$TRACEFS/uprobe_events"
		hold "$type" setpriv --reuid=65534 --regid=65534 --clear-groups
		run --separate-stderr tapkit --cleanup
		[ "$status" -eq 0 ] || { show_run; false; }
		! grep -q "^p:$GROUP/" "$TRACEFS/uprobe_events" || { echo "# $type: kept"; false; }
		kill "$HOLDER"
		wait "$HOLDER" || true
		HOLDER=
	done
}

@test "release name: root's socket at the name keeps the group for its helper" {
	hold stream
	run --separate-stderr tapkit --cleanup
	[ "$status" -eq 0 ] || { show_run; false; }
	grep -q "^p:$GROUP/left " "$TRACEFS/uprobe_events"
}
