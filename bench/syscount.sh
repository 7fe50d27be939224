#!/bin/bash
# bench/syscount.sh: what syscount costs the traced program, against its peers
# on the same workload, and whether it meets the targets (bench/README.md).
#
# Method in bench/lib.sh.  Tracers: syscount (perf counting mode),
# syscount -P (a record per syscall from our instance's ring, aggregated in
# userspace), perf stat, perf-tools' syscount-perf -c, bpftrace, trace-cmd
# record.  Peers that are not installed are skipped with a note.
# The targets are printed as PASS/MISS lines; they never fail the script.

usage() {
	cat <<-EOF
	Measure syscount and syscount -P against their peers on a getppid() loop.

	USAGE: bench/syscount.sh [-n N] [-r R] [-t IDS] [-s SECS] [-v]

	  -n N     getppid() calls per run (default 3000000)
	  -r R     traced/untraced pairs per tracer (default 5)
	  -t IDS   only these tracers (comma list of: sc,scp,scP,scPL,tt,ttp,ttc,ftraw,perf,scperf,bpf,tcmd)
	  -s SECS  settle time after a peer looks ready (default 0.3)
	  -v       more detail on stderr
	  -h       this help

	Run as root after 'make && make tests-build'.  Progress goes to stderr,
	the tables to stdout.
	EOF
}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

parse_common_opts "$@"
bench_init

# ---- the tracers -----------------------------------------------------------

cfg_sc_label() { echo "syscount (perf counting mode)"; }
cfg_sc_check() { [ -x "$BIN/syscount" ] || { echo "build/bin/syscount missing"; return 1; }; }
cfg_sc_tapkit() { :; }
cfg_sc_start() { tr_start sc file "$BIN/syscount"; }
cfg_sc_parse() {
	P_COUNT=$(awk '$1 == "getppid" { print $2; exit }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
	P_LOST=$(tapkit_lost "$TR_ERR")
}

# The same counting mode scoped to the workload (per-task counters): its
# count is exact whatever else runs on the machine, where the system-wide
# getppid count also sees other processes' calls (every new bash makes 3).
cfg_scp_label() { echo "syscount -p PID (counting, this process)"; }
cfg_scp_check() { cfg_sc_check; }
cfg_scp_tapkit() { :; }
cfg_scp_start() { tr_start scp file "$BIN/syscount" -p "$WL_PID"; }
cfg_scp_parse() { cfg_sc_parse; }

cfg_scP_label() { echo "syscount -P (ring records, userspace agg.)"; }
cfg_scP_check() { cfg_sc_check; }
cfg_scP_tapkit() { :; }
cfg_scP_start() { tr_start scP file "$BIN/syscount" -P; }
cfg_scP_parse() {
	# the workload's row: N getppid + write + exit_group after the release
	P_COUNT=$(awk -v p="$WL_LAST" '$1 == p { print $NF; exit }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$((N + 2))
	P_LOST=$(tapkit_lost "$TR_ERR")
}

# tracetop's views over the same workload, printed as text each second
# (-b), totals since the start (-m cumulative): the syscalls view takes a
# record per call like syscount -P; the syscount view counts in the kernel
# like syscount.  Their rows are read from the last interval printed, which
# tracetop prints on SIGINT.
cfg_tt_label() { echo "tracetop syscalls (ring records, by process)"; }
cfg_tt_check() { [ -x "$BIN/tracetop" ] || { echo "build/bin/tracetop missing"; return 1; }; }
cfg_tt_tapkit() { :; }
cfg_tt_start() { tr_start tt file "$BIN/tracetop" -b -m cumulative syscalls; }
cfg_tt_parse() {
	# counted at each call's exit: the read(2) that released the loop, N
	# getppid and the write (exit_group never returns)
	P_COUNT=$(awk -v p="$WL_LAST" '$1 == p { c = $3 } END { print c }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$((N + 2))
	P_LOST=$(tapkit_lost "$TR_ERR")
}

# the drilled view: one process's calls by name with their latency (Enter
# on its row): entry and exit recorded, of that process only
# (set_event_pid); syscount -P -L -p PID records the same two events of
# the same process
cfg_scPL_label() { echo "syscount -P -L -p PID (enter+exit, timed)"; }
cfg_scPL_check() { cfg_sc_check; }
cfg_scPL_tapkit() { :; }
cfg_scPL_start() { tr_start scPL file "$BIN/syscount" -P -L -p "$WL_PID"; }
cfg_scPL_parse() {
	# counted at exit: the release's read, N getppid, the write
	P_COUNT=$(awk -v p="$WL_LAST" '$1 == p { c = $(NF - 2) } END { print c }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$((N + 2))
	P_LOST=$(tapkit_lost "$TR_ERR")
}

cfg_ttp_label() { echo "tracetop syscalls-pid (drilled, one process)"; }
cfg_ttp_check() { cfg_tt_check; }
cfg_ttp_tapkit() { :; }
cfg_ttp_start() { tr_start ttp file "$BIN/tracetop" -b -m cumulative syscalls-pid -F pid="$WL_PID"; }
cfg_ttp_parse() {
	P_COUNT=$(awk '$1 == "getppid" { c = $2 } END { print c }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
	P_LOST=$(tapkit_lost "$TR_ERR")
}

cfg_ttc_label() { echo "tracetop syscount (perf counting mode)"; }
cfg_ttc_check() { cfg_tt_check; }
cfg_ttc_tapkit() { :; }
cfg_ttc_start() { tr_start ttc file "$BIN/tracetop" -b -m cumulative syscount; }
cfg_ttc_parse() {
	P_COUNT=$(awk '$1 == "getppid" { c = $2 } END { print c }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
	P_LOST=$(tapkit_lost "$TR_ERR")
}

# The floor under syscount -P: the same event into the same kind of ring
# (private instance, 4 MiB per CPU, reader woken at 25%), with a reader that
# only counts records (bench/ftring.c).  What -P costs above it is its own.
cfg_ftraw_label() { echo "ring floor: ftring raw_syscalls:sys_enter"; }
cfg_ftraw_check() { [ -x "$BB/ftring" ] || { echo "build/bench/ftring not built (libtraceevent-dev?)"; return 1; }; }
cfg_ftraw_start() { tr_start ftraw file "$BB/ftring" -b 4096 -w 25 -p "$WL_PID" raw_syscalls:sys_enter; }
cfg_ftraw_parse() {
	P_COUNT=$(grep -oE 'pid_records=[0-9]+' "$TR_OUT" | cut -d= -f2)
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$((N + 2))
	P_LOST=$(grep -oE 'lost=[0-9]+' "$TR_OUT" | cut -d= -f2)
	P_LOST=${P_LOST:--}
}

cfg_perf_label() { echo "perf stat -e sys_enter_getppid -a"; }
cfg_perf_check() { have perf || { echo "perf not installed (apt-get install linux-perf)"; return 1; }; }
cfg_perf_start() {
	tr_start perf exec:sleep perf stat -x, -e syscalls:sys_enter_getppid -a -- sleep 1000000
}
cfg_perf_parse() {
	P_COUNT=$(awk -F, '$3 ~ /sys_enter_getppid/ { print $1; exit }' "$TR_ERR")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
}

cfg_scperf_label() { echo "perf-tools syscount-perf -c (perf stat)"; }
cfg_scperf_check() {
	have syscount-perf || { echo "perf-tools' syscount-perf not installed (apt-get install perf-tools-unstable)"; return 1; }
	have perf || { echo "perf not installed"; return 1; }
}
cfg_scperf_start() { tr_start scperf exec:sleep syscount-perf -c; }
cfg_scperf_parse() {
	P_COUNT=$(awk '$1 == "getppid" { print $2; exit }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
}

# bpftrace and trace-cmd: cfg_bpf_* and cfg_tcmd_* in bench/lib.sh

IDS="sc scp scP scPL tt ttp ttc ftraw perf scperf bpf tcmd"

log "bench/syscount.sh: N=$N, R=$R pairs per tracer; results in $TMP until the end"
run_pairs "$IDS"

# ---- start-up: launch to the first event handled ----------------------------

# tpoint -j on the getppid tracepoint with a workload already spinning: time
# from the launch to the first line on tpoint's stdout (tkrun -f), i.e. set-up,
# the first record, its decoding and output.  bpftrace for comparison.
first_event() {
	local id=$1 i v out READY_TIMEOUT=30 STOP_TIMEOUT=30
	shift
	: > "$TMP/first.$id"
	for i in $(seq 1 "$R"); do
		rm -f "$TMP/first.stats"
		"$BB/tkrun" -f -s "$TMP/first.stats" -- "$@" > "$TMP/first.out" 2> "$TMP/first.err" &
		TR_PID=$!
		TR_CHILD=""
		# stop at the first line (or after READY_TIMEOUT)
		local t0
		t0=$(now_us)
		while kill -0 "$TR_PID" 2>/dev/null && [ ! -s "$TMP/first.out" ]; do
			[ $(( ($(now_us) - t0) / 1000000 )) -ge "$READY_TIMEOUT" ] && break
			sleep 0.005
		done
		[ -s "$TMP/first.stats.pid" ] && TR_CHILD=$(cat "$TMP/first.stats.pid")
		[ "$id" = tpj ] && TK_PIDS+=("$TR_CHILD")
		TR_STATS=$TMP/first.stats
		tr_stop
		if [ "$S_first_ns" -gt 0 ] 2>/dev/null; then
			v=$(awk -v v="$S_first_ns" 'BEGIN { printf "%.1f", v / 1e6 }')
			echo "$v" >> "$TMP/first.$id"
		else
			log "  first event ($id) run $i: no output: $(head -c 200 "$TMP/first.err")"
		fi
	done
	out=$(sort -g "$TMP/first.$id" | awk '{ a[NR] = $1 } END { if (!NR) print "- -"; else printf "%s %s\n", (NR % 2 ? a[(NR+1)/2] : sprintf("%.1f", (a[NR/2] + a[NR/2+1]) / 2)), a[1] }')
	echo "$out"
}

log "start-up: launch to first event, $R runs each, workload spinning"
"$BB/getppid_loop" spin > /dev/null &
SPIN_PID=$!
FIRST_TPJ=$(first_event tpj "$BIN/tpoint" -j syscalls:sys_enter_getppid)
FIRST_BPF="- -"
if have bpftrace; then
	FIRST_BPF=$(first_event bpf bpftrace -q -e 'tracepoint:syscalls:sys_enter_getppid { printf("%d\n", pid); exit(); }')
fi
kill "$SPIN_PID" 2>/dev/null
wait "$SPIN_PID" 2>/dev/null
SPIN_PID=""

# The kernel's floor under syscount's start-up: opening one counter per
# syscall tracepoint on every CPU, by the smallest possible program
# (bench/ctropen.c, one thread as syscount; and 32 threads, to show why
# syscount does not spread the opens).  Each run waits for the previous
# run's counters to be released first.
ctr_floor() {
	local i v child
	: > "$TMP/ctr.$1"
	for i in $(seq 1 "$R"); do
		v=$("$BB/ctropen" "$@" 2> "$TMP/ctr.err") || { log "ctropen: $(cat "$TMP/ctr.err")"; continue; }
		echo "$v" >> "$TMP/ctr.$1"
		child=$(sed -n 's/^ctropen: releasing in //p' "$TMP/ctr.err")
		while [ -n "$child" ] && kill -0 "$child" 2>/dev/null; do sleep 0.5; done
	done
	sort -g "$TMP/ctr.$1" | awk '{ a[NR] = $1 } END { if (!NR) print "- -"; else printf "%s %s\n", (NR % 2 ? a[(NR+1)/2] : sprintf("%.1f", (a[NR/2] + a[NR/2+1]) / 2)), a[1] }'
}
CTR_FLOOR="- -"
CTR_THREADS="- -"
if [ -x "$BB/ctropen" ]; then
	log "start-up floor: opening every syscall counter, $R runs each"
	CTR_FLOOR=$(ctr_floor -t 1)
	CTR_THREADS=$(ctr_floor -t 32)
fi

# ---- report ---------------------------------------------------------------------

echo
bench_header "bench/syscount.sh: syscount vs peers"
echo
print_table "$IDS"
echo
echo "untraced/traced: the workload's own loop time per call; added and ratio are"
echo "medians of the per-pair differences and quotients.  CPU: user+sys of the"
echo "tracer process tree over its whole run (start-up and teardown included);"
echo "CPU/ev = that over N.  ready: launch to TAPKIT_READY_FILE for tapkit (inotify);"
echo "~ = peers, polled (perf: its command started; bpftrace: BEGIN printed;"
echo "trace-cmd: event and tracing_on enabled).  stop: SIGINT to exit.  gone: SIGINT
until the tracer and the tapkit-release helper syscount detaches to release
its perf counters in the background have both exited (the next run waits)."
echo "count check: syscount's getppid row = N; syscount -P's and bpftrace's row for"
echo "the workload = N+2 (its write and exit_group after the release); perf = N."
if [ -s "$TMP/tc.unread" ]; then
	echo "trace-cmd left $(sort -g "$TMP/tc.unread" | tr '\n' ' ')records unread in the kernel ring at its end (per run; its own stats)."
fi
noisy_note "$IDS"
print_skipped

echo
echo "Start-up (median of $R; min), launch = fork of the tool:"
load_summary sc;  SC_READY=$M_ready SC_STOP=$M_stop SC_GONE=$M_gone SC_RSS=$M_rss SC_LOST=$M_lost SC_CHECK=$M_check SC_ADDED=$M_added SC_PAIRS=$M_pairs
load_summary scP; SCP_READY=$M_ready SCP_STOP=$M_stop SCP_RSS=$M_rss SCP_LOST=$M_lost SCP_CHECK=$M_check SCP_ADDED=$M_added SCP_PAIRS=$M_pairs
min_ready() { awk -F'\t' -v id="$1" '$1 == id && $7 != "" { v = $7; sub(/^~/, "", v); if (m == "" || v + 0 < m) m = v + 0 } END { print (m == "" ? "-" : m) }' "$RESULTS"; }
printf '  %-52s %8s ms (min %s)\n' "syscount: launch to ready" "$SC_READY" "$(min_ready sc)"
read -r CF_MED CF_MIN <<< "$CTR_FLOOR"
printf '  %-52s %8s ms (min %s)\n' "  floor: open its counters alone (ctropen -t 1)" "$CF_MED" "$CF_MIN"
read -r CT_MED CT_MIN <<< "$CTR_THREADS"
printf '  %-52s %8s ms (min %s)\n' "  the same from 32 threads (ctropen -t 32)" "$CT_MED" "$CT_MIN"
printf '  %-52s %8s ms (min %s)\n' "syscount -P: launch to ready" "$SCP_READY" "$(min_ready scP)"
read -r FT_MED FT_MIN <<< "$FIRST_TPJ"
printf '  %-52s %8s ms (min %s)\n' "tpoint -j sys_enter_getppid: launch to first event" "$FT_MED" "$FT_MIN"
read -r FB_MED FB_MIN <<< "$FIRST_BPF"
have bpftrace && printf '  %-52s %8s ms (min %s)\n' "bpftrace printf on sys_enter_getppid: to first event" "$FB_MED" "$FB_MIN"
printf '  %-52s %8s ms\n' "syscount: SIGINT to exit" "$SC_STOP"
printf '  %-52s %8s ms\n' "syscount: SIGINT to its release helper's exit" "$SC_GONE"
printf '  %-52s %8s ms\n' "syscount -P: SIGINT to exit" "$SCP_STOP"

# ---- targets -------------------------------------------------------------------

echo
echo "Targets (from the medians above):"
load_summary perf; PERF_ADDED=$M_added PERF_PAIRS=$M_pairs
load_summary tcmd; TC_ADDED=$M_added TC_PAIRS=$M_pairs
load_summary bpf;  BPF_ADDED=$M_added BPF_PAIRS=$M_pairs

target_added "syscount added cost <= 1.05 x perf stat's" syscount "$SC_PAIRS" "$SC_ADDED" "perf stat" "$PERF_PAIRS" "$PERF_ADDED" 1.05
target_added "syscount -P added cost <= 1.1 x trace-cmd record's" "syscount -P" "$SCP_PAIRS" "$SCP_ADDED" trace-cmd "$TC_PAIRS" "$TC_ADDED" 1.1
target_added "syscount -P added cost below bpftrace's" "syscount -P" "$SCP_PAIRS" "$SCP_ADDED" bpftrace "$BPF_PAIRS" "$BPF_ADDED"
load_summary tt;  TT_ADDED=$M_added TT_PAIRS=$M_pairs TT_CHECK=$M_check
load_summary ttp; TTP_ADDED=$M_added TTP_PAIRS=$M_pairs TTP_CHECK=$M_check
load_summary scPL; SCPL_ADDED=$M_added SCPL_PAIRS=$M_pairs
load_summary ttc; TTC_ADDED=$M_added TTC_PAIRS=$M_pairs TTC_CHECK=$M_check
# "no more than": the medians of two runs of one mechanism differ by a few
# percent on this shared VM, hence the 1.05 margin
target_added "tracetop syscount view added cost <= 1.05 x syscount's" "tracetop syscount" "$TTC_PAIRS" "$TTC_ADDED" syscount "$SC_PAIRS" "$SC_ADDED" 1.05
target_added "tracetop syscalls view added cost <= 1.05 x syscount -P's" "tracetop syscalls" "$TT_PAIRS" "$TT_ADDED" "syscount -P" "$SCP_PAIRS" "$SCP_ADDED" 1.05
target_added "tracetop drilled view added cost <= 1.05 x syscount -P -L -p's (both time each call of one process)" "tracetop syscalls-pid" "$TTP_PAIRS" "$TTP_ADDED" "syscount -P -L -p" "$SCPL_PAIRS" "$SCPL_ADDED" 1.05
[ "$TT_PAIRS" -gt 0 ] && target "tracetop exact counts" "$([ "$TT_CHECK" = ok ] && [ "$TTC_CHECK" = ok ] && echo PASS || echo MISS)" \
	"syscalls view workload row = N+2: $TT_CHECK; drilled getppid = N: $TTP_CHECK; syscount view getppid = N: $TTC_CHECK"
if [ "$SC_PAIRS" -gt 0 ] || [ "$SCP_PAIRS" -gt 0 ]; then
	v=PASS
	case $SC_LOST in 0|-) ;; *) v=MISS ;; esac
	case $SCP_LOST in 0|-) ;; *) v=MISS ;; esac
	target "zero lost events" "$v" "syscount $SC_LOST, syscount -P $SCP_LOST (all runs)"
	load_summary scp; SCPID_CHECK=$M_check
	[ "$SCPID_CHECK" = ok ] && [ "$SCP_CHECK" = ok ] && v=PASS || v=MISS
	target "exact counts" "$v" "syscount -p: getppid = N: $SCPID_CHECK; syscount -P workload row = N+2: $SCP_CHECK; system-wide syscount: $SC_CHECK"
	f_lt "$SC_RSS" 10 && f_lt "$SCP_RSS" 10 && v=PASS || v=MISS
	target "peak RSS under 10 MiB" "$v" "syscount $SC_RSS MiB, syscount -P $SCP_RSS MiB"
	f_lt "${SC_READY#\~}" 15 && f_lt "${SCP_READY#\~}" 15 && v=PASS || v=MISS
	target "launch to ready under 15 ms" "$v" "syscount $SC_READY ms (kernel floor $CF_MED ms), syscount -P $SCP_READY ms (medians)"
	[ "$FT_MED" != - ] && f_lt "$FT_MED" 15 && v=PASS || v=MISS
	target "launch to first event under 15 ms" "$v" "tpoint -j $FT_MED ms (median)"
fi

print_leftovers
