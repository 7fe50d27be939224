# Shared by the tcp* live suites: workloads of tests/helpers/tcpwork.py.

WORK=$TAPKIT_TOP/tests/helpers/tcpwork.py

# pair 4|6 TX RX client|server: one loopback connection; sets $L (the
# server's port), $C (the client's), $CL and $SV (their PIDs)
pair() {
	local out
	out=$(python3 "$WORK" pair "$@") || return 1
	parse_pair "$out"
}

parse_pair() {
	read -r L C CL SV <<<"$(sed 's/[a-z]*=//g' <<<"$1")"
	[ -n "$SV" ]
}

# held_pair FILE ARGS...: pair ARGS held (start_held) with its output in FILE
held_pair() {
	local file=$1; shift
	start_held sh -c 'f=$1; shift; exec python3 "$@" >"$f"' sh "$file" "$WORK" pair "$@"
}

# free_ports N: N loopback ports free now
free_ports() {
	python3 -c '
import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))' "$1"
}
