#!/bin/bash
# bench/runqlat.sh: what runqlat and cpudist add to each context switch of
# the traced workload, against the peers that can run here.
#
# The workload is tests/helpers/schedpp with no busy time and no sleep: two
# real-time threads pinned to one CPU bouncing a byte over two pipes, two
# context switches (and two wakeups) per round, timed by itself per batch.
# Each pair runs a batch untraced, then a batch with the tracer ready, in
# the same process; added = (traced - untraced) / switches, and the figure
# is the median over the pairs.  Tracers:
#
#   tk      runqlat                 every switch and wakeup of the system
#   tkp     runqlat -p PID          the kernel records only the workload's
#   cd      cpudist                 every switch
#   bpf     bpftrace, the same pairing in the kernel (runqlat.bt without
#           kernel headers: tracepoint args only)
#   bcc     runqlat-bpfcc (bpfcc-tools), when it can compile its program
#           (it needs the kernel's headers)
#   perf    perf stat -e sched:sched_switch,sched:sched_wakeup -a: the
#           kernel only counting the same tracepoints, the floor any
#           tracer of them pays
#
# Progress goes to stderr, the table to stdout.  Run as root after 'make
# all tests-build'.

set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/build/bin
PP=$ROOT/build/tests/helpers/schedpp
N=100000
R=5
ONLY=""

usage() {
	cat <<-EOF2
	Measure what runqlat and cpudist add per context switch, against
	bpftrace, runqlat-bpfcc and perf's counting of the same tracepoints.

	USAGE: bench/runqlat.sh [-n ROUNDS] [-r PAIRS] [-t IDS]

	  -n ROUNDS  ping-pong rounds per batch, 2 switches each (default $N)
	  -r PAIRS   untraced/traced pairs per tracer (default $R)
	  -t IDS     only these (comma list of: tk,tkp,cd,bpf,bcc,perf)
	  -h         this help
	EOF2
}

while getopts "n:r:t:h" o; do
	case $o in
	n) N=$OPTARG ;;
	r) R=$OPTARG ;;
	t) ONLY=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
[ -x "$PP" ] && [ -x "$BIN/runqlat" ] || { echo "bench: run 'make all tests-build' first" >&2; exit 1; }

TMP=$(mktemp -d)
WL_PID="" TR_PID=""
cleanup() {
	[ -n "$TR_PID" ] && kill -INT "$TR_PID" 2>/dev/null && wait "$TR_PID" 2>/dev/null
	[ -n "$WL_PID" ] && { exec 7>&-; wait "$WL_PID" 2>/dev/null; }
	rm -rf "$TMP"
}
trap cleanup EXIT
log() { printf '%s\n' "$*" >&2; }
wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

# wl_start: a schedpp process, its threads parked; wl_batch: one batch's ns
wl_start() {
	rm -f "$TMP/fifo" "$TMP/info"
	mkfifo "$TMP/fifo"
	"$PP" "$N" 0 0 "$TMP/info" rt <"$TMP/fifo" &
	WL_PID=$!
	exec 7>"$TMP/fifo"
	while ! grep -q '^tids' "$TMP/info" 2>/dev/null; do sleep 0.05; done
}
wl_batch() {
	local n
	n=$(grep -c '^done' "$TMP/info" || true)
	echo go >&7
	while [ "$(grep -c '^done' "$TMP/info" || true)" -le "$n" ]; do sleep 0.02; done
	grep '^done' "$TMP/info" | tail -1 | awk '{ print $2 }'
}
wl_stop() {
	exec 7>&-
	wait "$WL_PID" 2>/dev/null
	WL_PID=""
}

# tr_start ID: start tracer ID and wait until it traces; 1 when it cannot
tr_start() {
	local ready=$TMP/ready i
	rm -f "$ready" "$TMP/tr.out"
	case $1 in
	tk)  TAPKIT_READY_FILE=$ready "$BIN/runqlat" >"$TMP/tr.out" 2>&1 7>&- & ;;
	tkp) TAPKIT_READY_FILE=$ready "$BIN/runqlat" -p "$WL_PID" >"$TMP/tr.out" 2>&1 7>&- & ;;
	cd)  TAPKIT_READY_FILE=$ready "$BIN/cpudist" >"$TMP/tr.out" 2>&1 7>&- & ;;
	bpf) bpftrace -e 'tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @q[args->pid] = nsecs; }
tracepoint:sched:sched_switch { if (args->prev_state == 0) { @q[args->prev_pid] = nsecs; }
$t = @q[args->next_pid]; if ($t) { @usecs = hist((nsecs - $t) / 1000); } delete(@q[args->next_pid]); }' \
		>"$TMP/tr.out" 2>&1 7>&- & ;;
	bcc) runqlat-bpfcc >"$TMP/tr.out" 2>&1 7>&- & ;;
	perf) perf stat -e sched:sched_switch,sched:sched_wakeup -a >"$TMP/tr.out" 2>&1 7>&- & ;;
	esac
	TR_PID=$!
	for i in $(seq 1 600); do
		kill -0 "$TR_PID" 2>/dev/null || { wait "$TR_PID"; TR_PID=""; return 1; }
		case $1 in
		tk|tkp|cd) [ -e "$ready" ] && break ;;
		bpf) grep -q '^Attaching' "$TMP/tr.out" && break ;;
		bcc) grep -q '^Tracing' "$TMP/tr.out" && break ;;
		perf) [ "$i" -ge 20 ] && break ;;
		esac
		sleep 0.05
	done
	sleep 0.3
}
tr_stop() {
	kill -INT "$TR_PID" 2>/dev/null
	wait "$TR_PID" 2>/dev/null
	TR_PID=""
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "-" }'; }

label() {
	case $1 in
	tk) echo "runqlat" ;;
	tkp) echo "runqlat -p PID" ;;
	cd) echo "cpudist" ;;
	bpf) echo "bpftrace (runqlat's pairing in BPF)" ;;
	bcc) echo "runqlat-bpfcc" ;;
	perf) echo "perf stat -e sched_switch,sched_wakeup -a" ;;
	esac
}

printf '%-44s %12s %12s %14s\n' "tracer" "untraced ns" "traced ns" "added ns/switch"
printf '%-44s %12s %12s %14s\n' "(per switch, median of $R pairs)" "" "" ""
for id in tk tkp cd bpf bcc perf; do
	wanted "$id" || continue
	case $id in
	bpf) command -v bpftrace >/dev/null || { printf '%-44s %s\n' "$(label $id)" "skipped: bpftrace not installed"; continue; } ;;
	bcc) command -v runqlat-bpfcc >/dev/null || { printf '%-44s %s\n' "$(label $id)" "skipped: bpfcc-tools not installed"; continue; } ;;
	perf) command -v perf >/dev/null || { printf '%-44s %s\n' "$(label $id)" "skipped: perf not installed"; continue; } ;;
	esac
	log "bench: $(label $id)"
	wl_start
	wl_batch >/dev/null	# warm up
	: >"$TMP/u" ; : >"$TMP/t"; : >"$TMP/a"
	failed=""
	for _ in $(seq 1 "$R"); do
		u=$(wl_batch)
		if ! tr_start "$id"; then
			failed=$(grep -m1 -iE 'error|exception|fail' "$TMP/tr.out" || tail -1 "$TMP/tr.out")
			break
		fi
		t=$(wl_batch)
		tr_stop
		echo $((u / (2 * N))) >>"$TMP/u"
		echo $((t / (2 * N))) >>"$TMP/t"
		echo $(((t - u) / (2 * N))) >>"$TMP/a"
	done
	wl_stop
	if [ -n "$failed" ]; then
		printf '%-44s %s\n' "$(label $id)" "cannot run here: ${failed:0:80}"
		[ "$id" = bcc ] && printf '%-44s %s\n' "" "(bcc compiles its program against the kernel's headers; perf's counting is the floor instead)"
		continue
	fi
	printf '%-44s %12s %12s %14s\n' "$(label $id)" "$(median <"$TMP/u")" "$(median <"$TMP/t")" "$(median <"$TMP/a")"
done
