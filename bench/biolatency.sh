#!/bin/bash
# bench/biolatency.sh: what biolatency adds to each block I/O of the traced
# workload, against bcc's biolatency (biolatency-bpfcc) and, where bcc
# cannot run, against the kernel merely counting the same tracepoints
# (perf stat -e block:...).
#
# Workload: N O_DIRECT writes of BS bytes by dd to a loop device over a
# file of this run (each write waits for its completion, so the time per
# write is the whole path: submit, issue, the loop worker, completion),
# timed by dd itself.  Every traced run is paired with an untraced run just
# before it; added = traced - untraced per write, median over R pairs.
#
#   base            no tracer
#   tk              biolatency                 (every disk)
#   tkd             biolatency -d LOOP         (a kernel filter on the device)
#   bcc             biolatency-bpfcc           (BPF; needs kernel headers)
#   perf            perf stat -a -e block:block_io_start,block_rq_issue,
#                   block_rq_complete        (the kernel counts, no record)
#
# Also the tracer's own CPU time per write (its threads' schedstat), which
# the workload's timing does not show: the reading and pairing happen on
# another CPU.
#
# tapkit's histogram must count exactly N writes for the loop device (-D);
# a run where it does not is reported as a MISS.  Peers that are missing or
# do not run here are skipped with the reason.

set -u

usage() {
	cat <<-EOF2
	Measure what biolatency adds per block I/O, against bcc's biolatency or
	perf stat counting the same block tracepoints.

	USAGE: bench/biolatency.sh [-n N] [-r R] [-b BS] [-t IDS] [-h]

	  -n N     O_DIRECT writes per run (default 20000)
	  -r R     traced/untraced pairs per tracer (default 5)
	  -b BS    bytes per write (default 4096)
	  -t IDS   only these tracers (comma list of: tk,tkd,bcc,perf)
	  -h       this help

	Run as root after 'make'.  Progress goes to stderr, the table to stdout.
	EOF2
}

N=20000
R=5
BS=4096
ONLY=""
while getopts "n:r:b:t:h" o; do
	case $o in
	n) N=$OPTARG ;;
	r) R=$OPTARG ;;
	b) BS=$OPTARG ;;
	t) ONLY=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/build/bin
log() { printf '%s\n' "$*" >&2; }
wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

[ "$(id -u)" = 0 ] || { log "bench: run as root (tracing needs it)"; exit 1; }
[ -x "$BIN/biolatency" ] || { log "bench: build/bin/biolatency is not built (make)"; exit 1; }
command -v losetup >/dev/null || { log "bench: needs losetup (util-linux)"; exit 1; }

TMP=$(mktemp -d /tmp/tapkit-bench.XXXXXX)
LOOP=""
TR_PID=""
cleanup() {
	[ -n "$TR_PID" ] && kill -INT "$TR_PID" 2>/dev/null && wait "$TR_PID" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log "bench: interrupted"; exit 130' INT TERM

truncate -s $((N * BS / 1048576 + 16))M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || { log "bench: no free loop device"; exit 1; }
NAME=${LOOP#/dev/}

# workload: seconds dd took for N writes
workload() {
	dd if=/dev/zero of="$LOOP" bs="$BS" count="$N" oflag=direct 2>&1 |
		sed -nE 's/.*copied, ([0-9.]+) s,.*/\1/p'
}

# start_tracer ID: in the background, ready when it returns; $TR_PID
start_tracer() {
	local ready=$TMP/ready.$RANDOM i
	case $1 in
	tk)   TAPKIT_READY_FILE=$ready "$BIN/biolatency" -D -j >"$TMP/out" 2>"$TMP/err" & ;;
	tkd)  TAPKIT_READY_FILE=$ready "$BIN/biolatency" -D -j -d "$NAME" >"$TMP/out" 2>"$TMP/err" & ;;
	bcc)  biolatency-bpfcc -D >"$TMP/out" 2>"$TMP/err" & ;;
	perf) perf stat -a -x, -e block:block_io_start,block:block_rq_issue,block:block_rq_complete \
		-o "$TMP/out" >/dev/null 2>"$TMP/err" & ;;
	esac
	TR_PID=$!
	case $1 in
	tk|tkd)
		for i in $(seq 1 400); do [ -e "$ready" ] && return 0; sleep 0.05; done
		return 1 ;;
	bcc)	# ready once it prints its banner
		for i in $(seq 1 1200); do
			grep -q 'Tracing' "$TMP/out" 2>/dev/null && { sleep 0.5; return 0; }
			kill -0 "$TR_PID" 2>/dev/null || return 1
			sleep 0.05
		done
		return 1 ;;
	perf)	sleep 1; kill -0 "$TR_PID" 2>/dev/null ;;
	esac
}

# tracer_cpu_ns: CPU time of the running tracer's threads so far (ns)
tracer_cpu_ns() {
	cat /proc/"$TR_PID"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}

stop_tracer() {
	kill -INT "$TR_PID" 2>/dev/null
	wait "$TR_PID" 2>/dev/null
	TR_PID=""
}

# check ID: the tracer saw the N writes; prints a reason when it did not
check() {
	local n
	case $1 in
	tk|tkd)
		n=$(jq --arg d "$NAME" '[.disks[] | select(.disk == $d) | .count] | add // 0' "$TMP/out" 2>/dev/null | tail -1)
		[ "$n" = "$N" ] || echo "counted ${n:-nothing} writes of $N" ;;
	perf)
		n=$(awk -F, '$3 == "block:block_rq_issue" { print $1 }' "$TMP/out")
		[ "${n:-0}" -ge "$N" ] 2>/dev/null || echo "counted ${n:-nothing} issues for $N writes" ;;
	esac
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

IDS=()
for id in tk tkd bcc perf; do
	wanted "$id" || continue
	case $id in
	bcc)
		if ! command -v biolatency-bpfcc >/dev/null; then
			log "bench: bcc's biolatency-bpfcc is not installed (apt-get install bpfcc-tools): skipped"
			continue
		fi
		if ! start_tracer bcc; then
			stop_tracer
			log "bench: bcc's biolatency-bpfcc does not run on this kernel: $(cat "$TMP/out" "$TMP/err" | grep -m1 -iE 'kernel headers|unable' || tail -1 "$TMP/err")"
			log "bench: skipped; perf stat counting the same tracepoints is the kernel-side floor instead"
			continue
		fi
		stop_tracer ;;
	perf)
		command -v perf >/dev/null || { log "bench: perf is not installed: skipped"; continue; } ;;
	esac
	IDS+=("$id")
done

log "bench: $N O_DIRECT writes of $BS bytes to $LOOP per run, $R pairs per tracer"
workload >/dev/null	# warm up
for ((r = 1; r <= R; r++)); do
	for id in "${IDS[@]}"; do
		base=$(workload)
		if ! start_tracer "$id"; then
			stop_tracer
			log "bench: $id did not start: $(tail -1 "$TMP/err")"
			continue
		fi
		c0=$(tracer_cpu_ns)
		traced=$(workload)
		sleep 0.2	# the tracer reads what the writes made
		c1=$(tracer_cpu_ns)
		stop_tracer
		why=$(check "$id")
		[ -z "$why" ] || log "bench: MISS $id round $r: $why"
		awk -v b="$base" -v t="$traced" -v n="$N" -v id="$id" -v c=$((c1 - c0)) \
			'BEGIN { printf "%s %.3f %.3f %.3f %.3f\n", id, b / n * 1e6, t / n * 1e6, (t - b) / n * 1e6, c / n / 1e3 }' \
			>>"$TMP/results"
		log "  round $r $id: untraced ${base}s traced ${traced}s"
	done
done

printf '%-6s %12s %12s %12s %12s  %s\n' tracer "untraced_us" "traced_us" "added_us/io" "tracer_us/io" "what"
for id in "${IDS[@]}"; do
	case $id in
	tk)   what="tapkit biolatency -D (records: block_io_start, rq_issue, rq_complete)" ;;
	tkd)  what="tapkit biolatency -D -d $NAME (the same, kernel filter on the device)" ;;
	bcc)  what="bcc biolatency-bpfcc -D (BPF, in-kernel histogram)" ;;
	perf) what="perf stat -a -e block:{io_start,rq_issue,rq_complete} (counting, no record)" ;;
	esac
	u=$(awk -v id="$id" '$1 == id { print $2 }' "$TMP/results" | median)
	t=$(awk -v id="$id" '$1 == id { print $3 }' "$TMP/results" | median)
	a=$(awk -v id="$id" '$1 == id { print $4 }' "$TMP/results" | median)
	c=$(awk -v id="$id" '$1 == id { print $5 }' "$TMP/results" | median)
	printf '%-6s %12s %12s %12s %12s  %s\n' "$id" "${u:--}" "${t:--}" "${a:--}" "${c:--}" "$what"
done
