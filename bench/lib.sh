# shellcheck shell=bash
# bench/lib.sh: shared by the scripts of bench/.
#
# The method (PERF.md): one workload, a tight loop of N getppid() calls that
# times itself (bench/getppid_loop.c); every traced run is paired with an
# untraced run just before it, rounds go through every configuration in
# turn, and the figures are medians over the R pairs of each configuration
# (added = traced - untraced and ratio = traced / untraced are taken per
# pair, then the median).
#
# One traced run:
#   1. the workload is started blocked on a FIFO (its exec and libc start-up
#      happen before any tracer exists),
#   2. the tracer starts under bench/tkrun (own process group, SIGINT at its
#      default, rusage and peak RSS of the whole tree, launch-to-ready through
#      inotify on $TAPKIT_READY_FILE),
#   3. once the tracer is ready, a byte on the FIFO releases the loop,
#   4. when the loop has ended the tracer gets SIGINT (forwarded to its group,
#      as a terminal's Ctrl-C) and we wait for it to exit.
# Nothing is pinned to a CPU: the machine has 2 vCPUs, the tracers' readers
# need the second one, and pinning the workload would only hide the noise of
# a shared VM that the pairing is there to cancel.
#
# Processes are only ever signalled by the PID we started (or the process
# group that tkrun created for a tracer).

set -u

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
BIN=$ROOT/build/bin
BB=$ROOT/build/bench
TRACEFS=/sys/kernel/tracing

N=3000000
R=5
SETTLE=0.3		# after a peer looks ready, before releasing the workload
READY_TIMEOUT=120	# seconds for a tracer to become ready
STOP_TIMEOUT=300	# seconds for a tracer to exit after SIGINT
ONLY=""			# -t: only these configuration ids
VERBOSE=0

TMP=""
RESULTS=""
WL_PID=""
WL_LAST=""
TR_PID=""
TR_CHILD=""
SPIN_PID=""
TRACING_ON0=""
TRACING_ON_RESTORED=0
TK_PIDS=()		# PIDs of the tapkit commands we ran (their sessions' names)

log() { printf '%s\n' "$*" >&2; }
vlog() { [ "$VERBOSE" -gt 0 ] && printf '%s\n' "$*" >&2; return 0; }
now_us() { local t=${EPOCHREALTIME/./}; printf '%s' "$t"; }

have() { command -v "$1" >/dev/null 2>&1; }
# wanted ID: true when -t did not leave ID out
wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
# bpf_lost: the events bpftrace said it lost, in the traced run's output
bpf_lost() {
	grep -oiE 'lost [0-9]+ events' "$TR_OUT" "$TR_ERR" | awk '{ s += $2 } END { print s + 0 }'
}
# bpftrace's maps need locked memory beyond a shell's default
BPF_MEMLOCK="ulimit -l unlimited 2>/dev/null;"

# ---- set-up and teardown ---------------------------------------------------

bench_build() {
	local src out flags
	mkdir -p "$BB"
	for src in "$BENCH_DIR"/*.c; do
		out=$BB/$(basename "$src" .c)
		[ -x "$out" ] && [ "$out" -nt "$src" ] && continue
		flags=""
		case $src in
		*/ftring.c) flags=$(pkg-config --cflags --libs libtraceevent 2>/dev/null) ;;
		*/uprobe_loop.c)
			sh "$BENCH_DIR/gen-many.sh" > "$BB/many_funcs.c" || return 1
			flags=$BB/many_funcs.c ;;
		esac
		# shellcheck disable=SC2086
		if ! cc -O2 -g -Wall -Wextra -o "$out" "$src" $flags; then
			log "bench: cannot build $(basename "$src") (skipping what needs it)"
			rm -f "$out"
		fi
	done
	[ -x "$BB/getppid_loop" ] && [ -x "$BB/tkrun" ] ||
		{ log "bench: cannot build the workload or the runner"; exit 1; }
}

bench_init() {
	if [ "$(id -u)" != 0 ]; then
		log "bench: run as root (tracing needs it)"
		exit 1
	fi
	if [ ! -x "$BIN/syscount" ] || [ ! -x "$BIN/tpoint" ]; then
		log "bench: tapkit is not built: building it (make)"
		make -C "$ROOT" --no-print-directory -s all >&2 || exit 1
	fi
	bench_build
	TMP=$(mktemp -d /tmp/tapkit-bench.XXXXXX)
	RESULTS=$TMP/results.tsv
	: > "$RESULTS"
	TRACING_ON0=$(cat "$TRACEFS/tracing_on" 2>/dev/null || echo "")
	trap bench_cleanup EXIT
	trap 'log "bench: interrupted"; exit 130' INT TERM
	# A peer wrapper (perf-tools) raises the fd limit itself when it can.
	ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

restore_tracing_on() {
	local cur
	[ -n "$TRACING_ON0" ] || return 0
	cur=$(cat "$TRACEFS/tracing_on" 2>/dev/null || echo "")
	if [ -n "$cur" ] && [ "$cur" != "$TRACING_ON0" ]; then
		echo "$TRACING_ON0" > "$TRACEFS/tracing_on"
		TRACING_ON_RESTORED=$((TRACING_ON_RESTORED + 1))
		vlog "  tracing_on was $cur after the run: restored to $TRACING_ON0"
	fi
}

bench_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$TR_PID" ] && kill -0 "$TR_PID" 2>/dev/null; then
		kill -TERM "$TR_PID" 2>/dev/null
		wait_pid "$TR_PID" 20 || { [ -n "$TR_CHILD" ] && kill -KILL -- "-$TR_CHILD" 2>/dev/null; kill -KILL "$TR_PID" 2>/dev/null; }
	fi
	[ -n "$WL_PID" ] && kill "$WL_PID" 2>/dev/null
	[ -n "$SPIN_PID" ] && kill "$SPIN_PID" 2>/dev/null
	wait 2>/dev/null
	restore_tracing_on
	[ -n "$TMP" ] && rm -rf "$TMP"
	exit "$rc"
}

# wait_pid PID SECS: wait for our child PID to exit, at most SECS.
wait_pid() {
	local pid=$1 limit=$2 t0
	t0=$(now_us)
	while kill -0 "$pid" 2>/dev/null; do
		if [ $(( ($(now_us) - t0) / 1000000 )) -ge "$limit" ]; then
			return 1
		fi
		sleep 0.02
	done
	wait "$pid" 2>/dev/null
	return 0
}

# ---- the workload ----------------------------------------------------------

WL_SEQ=0
# The workload: getppid_loop, or what a bench sets (WL_BIN and the
# arguments before N in WL_ARGS, e.g. uprobe_loop "func").
WL_BIN=""
WL_ARGS=()
# wl_start N: start the workload blocked; WL_PID.
wl_start() {
	local bin=${WL_BIN:-$BB/getppid_loop}
	WL_SEQ=$((WL_SEQ + 1))
	WL_FIFO=$TMP/go.$WL_SEQ
	WL_OUT=$TMP/wl.$WL_SEQ
	mkfifo "$WL_FIFO"
	"$bin" -w "${WL_ARGS[@]}" "$1" 0<>"$WL_FIFO" > "$WL_OUT" &
	WL_PID=$!
	WL_LAST=$WL_PID
	# the tracer starts once the loop waits in read(2) on the fifo, so the
	# syscalls of its exec and loader are never counted: N + 2 exactly
	local i sc
	for i in $(seq 1 400); do
		read -r sc _ < "/proc/$WL_PID/syscall" 2>/dev/null
		[ "$sc" = 0 ] && [ "$(cat "/proc/$WL_PID/comm" 2>/dev/null)" = "$(basename "$bin" | cut -c1-15)" ] && return 0
		sleep 0.005
	done
	log "bench: the workload did not reach its read(2) in 2 s"
}

# wl_go: release the loop.  wl_finish: wait for it; WL_NS = loop time.
wl_go() { printf x > "$WL_FIFO"; }
wl_finish() {
	wait "$WL_PID"
	WL_NS=""
	read -r WL_NS 2>/dev/null < "$WL_OUT"
	rm -f "$WL_FIFO" "$WL_OUT"
	WL_PID=""
	[ -n "$WL_NS" ]
}

# run_untraced N: one untraced run; WL_NS.
run_untraced() {
	wl_start "$1"
	wl_go
	wl_finish
}

# ---- tracers ---------------------------------------------------------------

# tr_start ID READY CMD...: start a tracer under tkrun; READY is
#   file         tapkit's $TAPKIT_READY_FILE
#   exec:COMM    a process named COMM runs in the tracer's group (the command
#                perf stat starts once its counters are open and enabled)
#   out:REGEX    REGEX appears on the tracer's stdout
#   enable:EVENT the top-level EVENT (sys/name) is enabled and tracing_on is 1
# The tracer's stdout goes to TR_OUT, or to $TR_STDOUT when set (/dev/null).
# Sets TR_PID, TR_CHILD, TR_OUT, TR_ERR, TR_READY_MS ("~" when polled).
# Returns 1 (tracer stopped) if it never became ready.
tr_start() {
	local id=$1 ready=$2 t0 t1 ok=0 cur
	shift 2
	TR_OUT=$TMP/$id.out
	TR_ERR=$TMP/$id.err
	TR_STATS=$TMP/$id.stats
	TR_READYF=$TMP/$id.ready
	TR_READY_MS=""
	rm -f "$TR_STATS" "$TR_STATS.pid" "$TR_READYF"
	t0=$(now_us)
	TAPKIT_READY_FILE=$TR_READYF "$BB/tkrun" -s "$TR_STATS" -r "$TR_READYF" -- "$@" \
		> "${TR_STDOUT:-$TR_OUT}" 2> "$TR_ERR" &
	TR_PID=$!
	TR_CHILD=""
	while :; do
		if ! kill -0 "$TR_PID" 2>/dev/null; then
			break
		fi
		[ -z "$TR_CHILD" ] && [ -s "$TR_STATS.pid" ] && TR_CHILD=$(cat "$TR_STATS.pid")
		case $ready in
		file)
			[ -e "$TR_READYF" ] && ok=1 ;;
		exec:*)
			[ -n "$TR_CHILD" ] && pgrep -g "$TR_CHILD" -x "${ready#exec:}" >/dev/null && ok=1 ;;
		out:*)
			grep -qE "${ready#out:}" "$TR_OUT" 2>/dev/null && ok=1 ;;
		enable:*)
			cur=$(cat "$TRACEFS/events/${ready#enable:}/enable" 2>/dev/null)
			[ "$cur" = 1 ] && [ "$(cat "$TRACEFS/tracing_on")" = 1 ] && ok=1 ;;
		esac
		[ $ok = 1 ] && break
		if [ $(( ($(now_us) - t0) / 1000000 )) -ge "$READY_TIMEOUT" ]; then
			break
		fi
		sleep 0.005
	done
	t1=$(now_us)
	if [ $ok != 1 ]; then
		log "  $id: not ready (exited or ${READY_TIMEOUT}s): $(head -c 300 "$TR_ERR" | tr '\n' ' ')"
		tr_stop >/dev/null
		return 1
	fi
	TR_READY_MS="~$(( (t1 - t0) / 1000 ))"
	[ "$ready" = file ] || sleep "$SETTLE"
	return 0
}

# tr_stop: SIGINT (through tkrun, to the tracer's group), wait, read stats:
# S_pid S_ready_ns S_first_ns S_stop_ns S_wall_ns S_user_us S_sys_us
# S_maxrss_kb S_status.  Returns 1 when it had to be killed.
tr_stop() {
	local k v rc=0
	kill -INT "$TR_PID" 2>/dev/null
	if ! wait_pid "$TR_PID" "$STOP_TIMEOUT"; then
		log "  tracer did not exit ${STOP_TIMEOUT}s after SIGINT: SIGTERM"
		kill -TERM "$TR_PID" 2>/dev/null
		if ! wait_pid "$TR_PID" 30; then
			[ -n "$TR_CHILD" ] && kill -KILL -- "-$TR_CHILD" 2>/dev/null
			kill -KILL "$TR_PID" 2>/dev/null
			wait "$TR_PID" 2>/dev/null
		fi
		rc=1
	fi
	TR_PID=""
	S_pid="" S_ready_ns=-1 S_first_ns=-1 S_stop_ns=-1 S_wall_ns=-1
	S_user_us=0 S_sys_us=0 S_maxrss_kb=0 S_status=-1
	if [ -f "$TR_STATS" ]; then
		while IFS='=' read -r k v; do
			case $k in
			pid|ready_ns|first_ns|stop_ns|wall_ns|user_us|sys_us|maxrss_kb|status)
				printf -v "S_$k" '%s' "$v" ;;
			esac
		done < "$TR_STATS"
	fi
	return $rc
}

# wait_released " PID PID ": wait (at most STOP_TIMEOUT) for the tapkit-release
# helpers that were not in the list to exit.  We only watch them: they are
# detached (setsid, reparented), and they must finish their work.
wait_released() {
	local before=$1 p t0 left
	t0=$(now_us)
	while :; do
		left=0
		for p in $(pgrep -x tapkit-release); do
			[[ $before == *" $p "* ]] || left=1
		done
		[ $left = 0 ] && return 0
		[ $(( ($(now_us) - t0) / 1000000 )) -ge "$STOP_TIMEOUT" ] && return 1
		sleep 0.02
	done
}

# ---- cross-checks ------------------------------------------------------------

# Tracers running on this machine that are not ours (other sessions' tests):
# they share the CPUs and the kernel's tracing locks, so pairs run beside them
# are counted as noisy.
foreign_tracers() {
	local pid pgid comm n=0
	while read -r pid pgid comm; do
		case $comm in
		syscount|tpoint|execsnoop|killsnoop|opensnoop|funccount|tapkit|tracetop|perf|bpftrace|trace-cmd|syscount-perf) ;;
		*) continue ;;
		esac
		[ -n "$TR_CHILD" ] && [ "$pgid" = "$TR_CHILD" ] && continue
		n=$((n + 1))
	done < <(ps -eo pid=,pgid=,comm=)
	echo "$n"
}

# tapkit_lost FILE: the "N events lost" tapkit reports on stderr, else 0.
tapkit_lost() {
	local n
	n=$(grep -oE '[0-9]+ events lost' "$1" 2>/dev/null | head -1 | cut -d' ' -f1)
	echo "${n:-0}"
}

# leftovers: instances and dynamic events of the tapkit sessions we ran
# (tapkit_<pid>_*), and of ours (tkbench_*).
leftovers() {
	local pid found=""
	for pid in "${TK_PIDS[@]}"; do
		for d in "$TRACEFS"/instances/tapkit_"${pid}"_*; do
			[ -e "$d" ] && found="$found instance:$(basename "$d")"
		done
		if grep -q "tapkit_${pid}_" "$TRACEFS/dynamic_events" 2>/dev/null; then
			found="$found dynamic_events:tapkit_${pid}_*"
		fi
	done
	for d in "$TRACEFS"/instances/tkbench_*; do
		[ -e "$d" ] && found="$found instance:$(basename "$d")"
	done
	echo "${found# }"
}

# Other tapkit sessions' instances whose owner is dead (not ours: reported,
# never touched).
foreign_stale() {
	local d name pid out=""
	for d in "$TRACEFS"/instances/tapkit_*; do
		[ -e "$d" ] || continue
		name=$(basename "$d")
		pid=${name#tapkit_}
		pid=${pid%%_*}
		kill -0 "$pid" 2>/dev/null || out="$out $name"
	done
	echo "${out# }"
}

# ---- the pair loop -------------------------------------------------------------

# Each configuration ID provides:
#   cfg_ID_label            one line
#   cfg_ID_check            return 0 when it can run, else print why not
#   cfg_ID_start            tr_start ... (WL_PID and N are set)
#   cfg_ID_parse            after tr_stop: set P_COUNT P_EXPECT P_LOST
#                           ("-" where the tool has no such figure)
#   cfg_ID_tapkit (opt.)    present for tapkit commands
#   cfg_ID_wl (opt.)        sets WL_BIN/WL_ARGS before both runs of a pair
# run_pairs "ID ID ...": R rounds of (untraced, traced) per ID; one line per
# traced run in $RESULTS:
#   id round untraced_ns traced_ns cpu_us maxrss_kb ready_ms stop_ms lost count
#   expect noisy status gone_ms
# gone: SIGINT to the exit of the tracer and of any "tapkit-release" helper
# it left to release its perf counters in the background (syscount detaches
# one: the kernel takes a grace period per tracepoint); the next run starts
# only then, since the helper keeps the syscall tracepoints registered.
RUNNABLE=()
run_pairs() {
	local ids="$1" id r why u t fa fb ready stop rel0 t_int gone
	RUNNABLE=()
	for id in $ids; do
		if [ -n "$ONLY" ] && ! [[ ",$ONLY," == *",$id,"* ]]; then
			continue
		fi
		if why=$("cfg_${id}_check"); then
			RUNNABLE+=("$id")
		else
			log "skip: $("cfg_${id}_label"): $why"
			echo "$id	skip	$why" >> "$TMP/skipped"
		fi
	done
	for r in $(seq 1 "$R"); do
		for id in "${RUNNABLE[@]}"; do
			declare -F "cfg_${id}_wl" >/dev/null && "cfg_${id}_wl"
			fa=$(foreign_tracers)
			if ! run_untraced "$N"; then
				log "  $id round $r: untraced run failed"
				continue
			fi
			u=$WL_NS
			rel0=" $(pgrep -x tapkit-release | tr '\n' ' ') "
			wl_start "$N"
			if ! "cfg_${id}_start"; then
				kill "$WL_PID" 2>/dev/null
				wait "$WL_PID" 2>/dev/null
				WL_PID=""
				continue
			fi
			declare -F "cfg_${id}_tapkit" >/dev/null && TK_PIDS+=("$TR_CHILD")
			fb=$(foreign_tracers)
			wl_go
			wl_finish || { log "  $id round $r: workload failed"; tr_stop; continue; }
			t=$WL_NS
			t_int=$(now_us)
			tr_stop
			wait_released "$rel0"
			gone=$(( ($(now_us) - t_int) / 1000 ))
			P_COUNT="-" P_EXPECT="-" P_LOST="-"
			"cfg_${id}_parse"
			restore_tracing_on
			if [ "$S_ready_ns" -gt 0 ] 2>/dev/null; then
				ready=$(awk -v v="$S_ready_ns" 'BEGIN { printf "%.1f", v / 1e6 }')
			else
				ready=$TR_READY_MS
			fi
			stop=$(awk -v v="$S_stop_ns" 'BEGIN { if (v < 0) print "-"; else printf "%.0f", v / 1e6 }')
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
				"$id" "$r" "$u" "$t" $((S_user_us + S_sys_us)) "$S_maxrss_kb" \
				"$ready" "$stop" "$P_LOST" "$P_COUNT" "$P_EXPECT" \
				$(( fa + fb > 0 ? 1 : 0 )) "$S_status" "$gone" >> "$RESULTS"
			log "$(printf '  round %d/%d %-8s untraced %6.1f  traced %7.1f ns/call  cpu %5.2fs  ready %s ms  stop %s ms  gone %s ms  lost %s  count %s%s' \
				"$r" "$R" "$id" "$(awk -v v="$u" -v n="$N" 'BEGIN{print v/n}')" \
				"$(awk -v v="$t" -v n="$N" 'BEGIN{print v/n}')" \
				"$(awk -v v=$((S_user_us + S_sys_us)) 'BEGIN{print v/1e6}')" \
				"$ready" "$stop" "$gone" "$P_LOST" "$P_COUNT" \
				"$([ $((fa + fb)) -gt 0 ] && echo "  (other tracers running: $((fa + fb)))")")"
		done
	done
}

# summary ID: medians over the pairs of ID, as shell assignments:
# M_u M_t M_added M_ratio M_cpu M_cpuev M_rss M_ready M_stop M_lost M_lostruns
# M_check M_noisy M_pairs, M_cpuh (tracer CPU per event handled, not lost;
# summed over the runs)
summary() {
	awk -F'\t' -v id="$1" -v n="$N" '
	function med(a, k,   i, j, t) {
		for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
		return k % 2 ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
	}
	$1 == id {
		k++
		u[k] = $3 / n; t[k] = $4 / n; ad[k] = ($4 - $3) / n; ra[k] = $4 / $3
		cpu[k] = $5 / 1e6; cpuev[k] = $5 * 1000 / n
		cpusum += $5; handled += n - ($9 == "-" ? 0 : $9)
		if ($6 > rss) rss = $6
		rd = $7; sub(/^~/, "", rd); if (rd != "") { kr++; ready[kr] = rd + 0 }; if ($7 ~ /^~/) approx = 1
		if ($8 != "-") { ks++; st[ks] = $8 }
		gn[k] = $14
		if ($9 != "-") { haslost = 1; lost += $9; if ($9 > 0) lostruns++ }
		if ($10 != "-" && $11 != "-") {
			hascheck = 1; d = $10 - $11
			if (d == 0) okc++; else bad = bad (bad == "" ? "" : ",") (d > 0 ? "+" d : d)
		}
		noisy += $12
	}
	END {
		if (!k) { print "M_pairs=0"; exit }
		printf "M_pairs=%d\n", k
		printf "M_u=%.1f\nM_t=%.1f\nM_added=%.1f\nM_ratio=%.2f\n", med(u, k), med(t, k), med(ad, k), med(ra, k)
		printf "M_cpu=%.2f\nM_cpuev=%.0f\nM_rss=%.1f\nM_stop=%.0f\n", med(cpu, k), med(cpuev, k), rss / 1024, (ks ? med(st, ks) : -1)
		if (!ks) printf "M_stop=-\n"
		printf "M_gone=%.0f\n", med(gn, k)
		printf "M_cpuh=%.0f\n", (handled > 0 ? cpusum * 1000 / handled : 0)
		printf "M_ready=%s\n", kr ? (approx ? "~" : "") sprintf("%.1f", med(ready, kr)) : "-"
		printf "M_lost=%s\nM_lostruns=%d\n", haslost ? lost : "-", lostruns
		if (!hascheck) printf "M_check=-\n"
		else if (okc == k) printf "M_check=ok\n"
		else printf "M_check=\"%d/%d ok; off by %s\"\n", okc, k, bad
		printf "M_noisy=%d\n", noisy
	}' "$RESULTS"
}

# load_summary ID: evaluate summary ID into M_* variables.
load_summary() {
	M_pairs=0 M_u=- M_t=- M_added=- M_ratio=- M_cpu=- M_cpuev=- M_rss=- M_stop=-
	M_ready=- M_lost=- M_lostruns=0 M_check=- M_noisy=0 M_cpuh=- M_gone=-
	eval "$(summary "$1")"
}

# print_table "ID ...": the results table for those IDs (run ones only).
print_table() {
	local id
	printf '%-48s %8s %8s %8s %6s %6s %6s %7s %9s %8s %8s %8s %s\n' \
		"tracer (same workload)" "untraced" "traced" "added" "ratio" "CPU s" "CPU/ev" \
		"RSS MiB" "ready ms" "stop ms" "gone ms" "lost" "count check"
	printf '%-48s %8s %8s %8s %6s %6s %6s %7s %9s %8s %8s %8s %s\n' \
		"" "ns/call" "ns/call" "ns/call" "x" "tracer" "ns" "peak" "median" "median" "median" "total" ""
	for id in $1; do
		load_summary "$id"
		[ "$M_pairs" -gt 0 ] || continue
		printf '%-48s %8s %8s %8s %6s %6s %6s %7s %9s %8s %8s %8s %s\n' \
			"$("cfg_${id}_label")" "$M_u" "$M_t" "+$M_added" "$M_ratio" "$M_cpu" \
			"$M_cpuev" "$M_rss" "$M_ready" "$M_stop" "$M_gone" "$M_lost" "$M_check"
	done
}

# noisy_note "ID ...": how many pairs ran beside other sessions' tracers.
noisy_note() {
	local id total=0 noisy=0
	for id in $1; do
		load_summary "$id"
		total=$((total + M_pairs))
		noisy=$((noisy + M_noisy))
	done
	echo "$noisy of $total traced runs overlapped tracers of other sessions on this machine (shared CPUs and tracing locks)."
}

# f_le A B: true when A <= B (floats).
f_le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
f_lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
f_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }
f_mul() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a * b }'; }

# target "what" PASS|MISS|SKIP "numbers"
target() { printf '%-4s  %s: %s\n' "$2" "$1" "$3"; }

# target_added "what" OURS OURS_PAIRS OURS_ADDED PEER PEER_PAIRS PEER_ADDED [FACTOR]:
# our added cost at most FACTOR x the peer's, or (no FACTOR) below it.
target_added() {
	local what=$1 ours=$2 op=$3 oa=$4 peer=$5 pp=$6 pa=$7 k=${8:-} lim v
	if [ "$op" -le 0 ] || [ "$pp" -le 0 ]; then
		target "$what" SKIP "needs $ours and $peer runs"
	elif [ -n "$k" ]; then
		lim=$(f_mul "$pa" "$k")
		f_le "$oa" "$lim" && v=PASS || v=MISS
		target "$what" "$v" "+$oa ns vs limit $lim ns ($peer +$pa ns)"
	else
		f_lt "$oa" "$pa" && v=PASS || v=MISS
		target "$what" "$v" "+$oa ns vs $peer +$pa ns"
	fi
}

# target_under "what" VALUE LIMIT "details": VALUE (or "-": not measured)
# under LIMIT.
target_under() {
	local v
	if [ "$2" = - ]; then
		target "$1" SKIP "not measured"
		return
	fi
	f_lt "$2" "$3" && v=PASS || v=MISS
	target "$1" "$v" "$4"
}

bench_header() {
	echo "# $1"
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -r), $(nproc) CPUs; N=$N getppid() calls, R=$R pairs, medians"
	echo "# tapkit $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'), build/bin/syscount built $(date -u -r "$BIN/syscount" '+%H:%M UTC' 2>/dev/null || echo '?')"
}

print_skipped() {
	[ -s "$TMP/skipped" ] || return 0
	echo
	echo "Skipped:"
	while IFS=$'\t' read -r id _ why; do
		printf '  %s: %s\n' "$("cfg_${id}_label")" "$why"
	done < "$TMP/skipped"
}

print_leftovers() {
	local l f
	echo
	l=$(leftovers)
	if [ -z "$l" ]; then
		echo "Leftovers in tracefs from our runs: none (instances, dynamic_events checked for ${#TK_PIDS[@]} tapkit sessions)"
	else
		echo "Leftovers in tracefs from our runs: $l"
	fi
	f=$(foreign_stale)
	[ -n "$f" ] && echo "Instances of other, dead tapkit sessions (not ours, left alone): $f"
	if [ "$TRACING_ON_RESTORED" -gt 0 ]; then
		echo "tracing_on was changed by a peer $TRACING_ON_RESTORED time(s) and restored to $TRACING_ON0"
	fi
	return 0
}

# parse_common_opts [-x LETTERS] ARGS...: -n N -r R -t IDS -s SECS -v -h, and
# those of LETTERS a bench adds (any of "k:a:b:"): -k K, -a A, -b TAPKIT_SRC.
parse_common_opts() {
	local opt extra=""
	if [ "${1:-}" = -x ]; then
		extra=$2
		shift 2
	fi
	OPTIND=1
	while getopts "n:r:t:s:vh$extra" opt; do
		case $opt in
		n) N=$OPTARG ;;
		r) R=$OPTARG ;;
		t) ONLY=$OPTARG ;;
		s) SETTLE=$OPTARG ;;
		k) K=$OPTARG ;;
		a) A=$OPTARG ;;
		b) TAPKIT_SRC=$OPTARG ;;
		v) VERBOSE=1 ;;
		h) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	case $N in ''|*[!0-9]*) log "bench: -n needs a number"; exit 2 ;; esac
	case $R in ''|*[!0-9]*|0) log "bench: -r needs a number > 0"; exit 2 ;; esac
	if [[ $extra == *k* ]]; then
		case $K in ''|*[!0-9]*|0) log "bench: -k needs a number > 0"; exit 2 ;; esac
	fi
	if [[ $extra == *a* ]]; then
		case $A in ''|*[!0-9]*|0) log "bench: -a needs a number > 0"; exit 2 ;; esac
	fi
}

# ---- peers both syscount.sh and tapkit.sh run on raw_syscalls:sys_enter ----

BPF_PROG='BEGIN { printf("READY\n"); } tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }'
cfg_bpf_label() { echo "bpftrace raw_syscalls @[comm] = count()"; }
cfg_bpf_check() { have bpftrace || { echo "bpftrace not installed (apt-get install bpftrace)"; return 1; }; }
cfg_bpf_start() { tr_start bpf out:READY bpftrace -e "$BPF_PROG"; }
cfg_bpf_parse() {
	P_COUNT=$(awk '$1 == "@[getppid_loop]:" { print $2; exit }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$((N + 2))
	P_LOST=$(grep -oiE 'lost [0-9]+ events' "$TR_OUT" "$TR_ERR" | awk '{ s += $2 } END { print s + 0 }')
}

# trace-cmd 3.1.6 needs -d (no function tracer) and --no-filter on this
# kernel (PERF.md), exits 1 at the end (cannot reset set_ftrace_filter) and
# leaves tracing_on at 0, which lib.sh restores after every run.
cfg_tcmd_label() { echo "trace-cmd record -e raw_syscalls:sys_enter"; }
cfg_tcmd_check() { have trace-cmd || { echo "trace-cmd not installed (apt-get install trace-cmd)"; return 1; }; }
cfg_tcmd_start() {
	rm -f "$TMP/tc.dat"*
	tr_start tcmd enable:raw_syscalls/sys_enter \
		trace-cmd record -d --no-filter -e raw_syscalls:sys_enter -o "$TMP/tc.dat"
}
cfg_tcmd_parse() {
	local st
	# its own "CPU n: N events lost" lines, and what it left unread
	st=$(trace-cmd report --stat -i "$TMP/tc.dat" 2>/dev/null)
	P_LOST=$(awk '/^overrun:/ { s += $2 } /^dropped events:/ { s += $3 } END { print s + 0 }' <<< "$st")
	TC_UNREAD=$(awk '/^entries:/ { s += $2 } END { print s + 0 }' <<< "$st")
	echo "$TC_UNREAD" >> "$TMP/tc.unread"
	rm -f "$TMP/tc.dat"*
}

# ---- start-up measures ------------------------------------------------------

# su_run ID MODE RUNS CMD...: RUNS runs of CMD under tkrun; one line per run
# in $TMP/su.ID: wall_ms first_ms ready_ms stop_ms rss_kb status noisy gone_ms
# (gone: SIGINT or exit until any tapkit-release helper it left has exited).
#   exit   the command ends by itself (whole-run wall time)
#   first  ... and we also time its first byte on stdout (tkrun -f)
#   ready  launch to $TAPKIT_READY_FILE, then SIGINT (stop = SIGINT to exit)
#   out:RE as ready, for a peer: until RE appears on its stdout (polled, so
#          its ready_ms is the launch to when we saw it; the peer prints
#          RE from a BEGIN probe that runs once everything is attached)
# A run that does not end within 30 s gets SIGINT (tr_stop), and one that
# has not exited SU_STOP_TIMEOUT seconds after SIGINT gets SIGTERM.
SU_TAPKIT=0
SU_STOP_TIMEOUT=30
su_run() {
	local id=$1 mode=$2 runs=$3 i t0 t_int fl noisy rel0 gone READY_TIMEOUT=30 STOP_TIMEOUT=$SU_STOP_TIMEOUT
	shift 3
	: > "$TMP/su.$id"
	for i in $(seq 1 "$runs"); do
		TR_STATS=$TMP/su.stats
		TR_READYF=$TMP/su.ready
		rm -f "$TR_STATS" "$TR_STATS.pid" "$TR_READYF"
		fl=(-s "$TR_STATS")
		case $mode in
		first) fl+=(-f) ;;
		ready) fl+=(-r "$TR_READYF") ;;
		esac
		noisy=$(foreign_tracers)
		rel0=" $(pgrep -x tapkit-release | tr '\n' ' ') "
		TAPKIT_READY_FILE=$TR_READYF "$BB/tkrun" "${fl[@]}" -- "$@" \
			> "$TMP/su.out" 2> "$TMP/su.err" &
		TR_PID=$!
		TR_CHILD=""
		t0=$(now_us)
		S_out_ready_ms=""
		while kill -0 "$TR_PID" 2>/dev/null; do
			[ -z "$TR_CHILD" ] && [ -s "$TR_STATS.pid" ] && TR_CHILD=$(cat "$TR_STATS.pid")
			[ "$mode" = ready ] && [ -e "$TR_READYF" ] && break
			if [[ $mode == out:* ]] && grep -qE "${mode#out:}" "$TMP/su.out" 2>/dev/null; then
				S_out_ready_ms=$(( ($(now_us) - t0) / 1000 ))
				break
			fi
			[ $(( ($(now_us) - t0) / 1000000 )) -ge "$READY_TIMEOUT" ] && break
			sleep 0.005
		done
		[ -z "$TR_CHILD" ] && [ -s "$TR_STATS.pid" ] && TR_CHILD=$(cat "$TR_STATS.pid")
		[ "$SU_TAPKIT" = 1 ] && [ -n "$TR_CHILD" ] && TK_PIDS+=("$TR_CHILD")
		# ready: SIGINT now; the others have exited (or get SIGINT after 30 s)
		t_int=$(now_us)
		tr_stop
		# a tapkit-release helper left to close perf counters: the next
		# run starts once it has exited (it holds the kernel's event_mutex)
		wait_released "$rel0"
		gone=$(( ($(now_us) - t_int) / 1000 ))
		noisy=$((noisy + $(foreign_tracers)))
		if [ "$S_wall_ns" -le 0 ] 2>/dev/null; then
			log "  $id run $i: no stats: $(head -c 200 "$TMP/su.err" | tr '\n' ' ')"
			continue
		fi
		case $mode in
		first) [ "$S_first_ns" -gt 0 ] 2>/dev/null ||
			log "  $id run $i: no output: $(head -c 200 "$TMP/su.err" | tr '\n' ' ')" ;;
		ready) [ "$S_ready_ns" -gt 0 ] 2>/dev/null ||
			log "  $id run $i: not ready: $(head -c 200 "$TMP/su.err" | tr '\n' ' ')" ;;
		out:*)	S_ready_ns=$(( ${S_out_ready_ms:--1} * 1000000 )) ;;
		esac
		[ "$S_status" = 0 ] || echo "$id run $i: exit status $S_status: $(head -c 200 "$TMP/su.err" | tr '\n' ' ')" >> "$TMP/stderr.notes"
		awk -v w="$S_wall_ns" -v f="$S_first_ns" -v r="$S_ready_ns" -v s="$S_stop_ns" \
			-v m="$S_maxrss_kb" -v st="$S_status" -v n="$noisy" \
			-v g="$gone" \
			'function ms(v) { return v < 0 ? "-" : sprintf("%.2f", v / 1e6) }
			BEGIN { printf "%s %s %s %s %s %s %d %s\n", ms(w), ms(f), ms(r), ms(s), m, st, (n > 0), g }' \
			>> "$TMP/su.$id"
		vlog "  $id run $i/$runs: $(tail -1 "$TMP/su.$id")"
	done
	log "  $id: $(wc -l < "$TMP/su.$id") runs"
}

# su_stat ID COL: "median min max" of column COL (1 wall, 2 first, 3 ready,
# 4 stop, 5 rss_kb, 8 gone) over the runs of ID, "- - -" when none.
su_stat() {
	[ -f "$TMP/su.$1" ] || { echo "- - -"; return; }
	awk -v c="$2" '$c != "-" { print $c }' "$TMP/su.$1" | sort -g |
		awk '{ a[NR] = $1 } END { if (!NR) print "- - -"; else printf "%s %s %s\n", (NR % 2 ? a[(NR+1)/2] : sprintf("%.2f", (a[NR/2] + a[NR/2+1]) / 2)), a[1], a[NR] }'
}
su_noisy() { [ -f "$TMP/su.$1" ] && awk '{ n += $7 } END { print n + 0 }' "$TMP/su.$1" || echo 0; }
su_runs() { [ -f "$TMP/su.$1" ] && wc -l < "$TMP/su.$1" || echo 0; }
