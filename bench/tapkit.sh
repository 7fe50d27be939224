#!/bin/bash
# bench/tapkit.sh: what tapkit (the probe language) costs, against its peers,
# and whether it meets the targets (bench/README.md).
#
#   1. start-up: `tapkit -e 'probe begin { exit() }'`, whole run, against
#      `bpftrace -e 'BEGIN { exit(); }'` (and stap when installed);
#   2. launch to the first event handled: a script printing on the first
#      syscalls:sys_enter_getppid event while a getppid() loop spins,
#      against bpftrace's equivalent;
#   3. `probe syscall.*` (one tracepoint per system call): launch to ready
#      ($TAPKIT_READY_FILE), stop, and how many events it attached;
#   4. throughput on the getppid() workload of bench/syscount.sh: a comm-keyed
#      count on raw_syscalls:sys_enter against trace-cmd record and bpftrace
#      (and the ring's floor, bench/ftring.c);
#   5. a count-only handler on syscall.getppid against perf stat;
#   6. script 4 plus a timer probe that holds the reader 15 ms every 100 ms:
#      lost events (none, with the ring's keeper);
#   7. peak RSS of the scripts of 2-4.
#
# Method in bench/lib.sh (paired untraced/traced runs, medians); the start-up
# measures run each command K times under bench/tkrun.  Peers that are not
# installed are skipped with a note.  The targets are printed as PASS/MISS
# lines; they never fail the script.

usage() {
	cat <<-EOF
	Measure tapkit scripts against their peers: start-up, first event,
	syscall.* attach time, throughput on a getppid() loop, memory.

	USAGE: bench/tapkit.sh [-n N] [-r R] [-k K] [-a A] [-b TAPKIT] [-t IDS] [-s SECS] [-v]

	  -n N     getppid() calls per run (default 3000000)
	  -r R     traced/untraced pairs per tracer (default 5)
	  -k K     runs of each start-up measure (default 20)
	  -a A     runs of the syscall.* attach measure (default 10; each waits
	           for the release of its perf counters, ~18 s)
	  -b PATH  the tapkit binary to measure (default build/bin/tapkit); a
	           copy is taken at the start, with the tapsets beside it
	  -t IDS   only these (comma list of: tk4,ftraw,tcmd,bpf,tk5,perf,tk3,tk6,
	           and start-up measures: su_begin,su_first,su_attach)
	  -s SECS  settle time after a peer looks ready (default 0.3)
	  -v       more detail on stderr
	  -h       this help

	Run as root after 'make'.  Progress goes to stderr, the tables to stdout.
	EOF
}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

K=20
A=10
TAPKIT_SRC=""
parse_common_opts -x "k:a:b:" "$@"
bench_init
if [ -z "$TAPKIT_SRC" ] && [ ! -x "$BIN/tapkit" ]; then
	log "bench: build/bin/tapkit is not built: building it (make)"
	make -C "$ROOT" --no-print-directory -s all >&2 || exit 1
fi
TAPKIT_SRC=${TAPKIT_SRC:-$BIN/tapkit}
[ -x "$TAPKIT_SRC" ] || { log "bench: $TAPKIT_SRC: not an executable"; exit 1; }
# Measure a copy taken now: a rebuild during the run (the tree is shared)
# would otherwise change the binary between pairs.  tapkit looks for its
# tapsets at ../../scripts/tapset from its binary (a build tree), else at
# ../share/tapkit/tapset (an install): the copy keeps the same layout.
TAPKIT_DIR=$(cd "$(dirname "$TAPKIT_SRC")" && pwd)
TAPKIT_BUILT=$(date -u -r "$TAPKIT_SRC" '+%Y-%m-%d %H:%M UTC')
TAPKIT_SUM=$(sha256sum "$TAPKIT_SRC" | cut -c1-12)
mkdir -p "$TMP/tk/build/bin" "$TMP/tk/scripts"
cp "$TAPKIT_SRC" "$TMP/tk/build/bin/tapkit"
if [ -d "$TAPKIT_DIR/../../scripts/tapset" ]; then
	cp -r "$TAPKIT_DIR/../../scripts/tapset" "$TMP/tk/scripts/tapset"
	TAPKIT_TREE=$(cd "$TAPKIT_DIR/../.." && pwd)
elif [ -d "$TAPKIT_DIR/../share/tapkit/tapset" ]; then
	cp -r "$TAPKIT_DIR/../share/tapkit/tapset" "$TMP/tk/scripts/tapset"
	TAPKIT_TREE=""
else
	log "bench: no tapsets beside $TAPKIT_SRC"
	TAPKIT_TREE=""
fi
TAPKIT=$TMP/tk/build/bin/tapkit
TAPKIT_DESC=$( { [ -n "$TAPKIT_TREE" ] && git -C "$TAPKIT_TREE" describe --always --dirty 2>/dev/null; } || echo "not a git tree")
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)


# tapkit prints the globals a script never reads at the end, as stap does:
#   c=0x2dc6c2   c["getppid_loop"]=0x2dc6c2
# tk_value FILE KEY: the value of c (KEY "") or c["KEY"], in decimal, or -1.
tk_value() {
	local v
	if [ -z "$2" ]; then
		v=$(sed -n 's/^c=\(0x[0-9a-fA-F]*\|[0-9]*\)$/\1/p' "$1" | head -1)
	else
		v=$(awk -v k="c[\"$2\"]=" 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }' "$1")
	fi
	[ -n "$v" ] && printf '%d' "$v" 2>/dev/null || echo -1
}
# tk_total FILE: the sum of every c[...] value (the events the script handled).
tk_total() {
	local v s=0
	while read -r v; do
		s=$((s + v))
	done < <(sed -n 's/^c\[.*\]=\(0x[0-9a-fA-F]*\|[0-9]*\)$/\1/p' "$1")
	echo "$s"
}

# ---- throughput: the tracers of the pair loop ----------------------------------

# 4. the comm-keyed count of every syscall, from raw_syscalls:sys_enter records
TK4_SCRIPT='global c; probe kernel.trace("raw_syscalls:sys_enter") { c[execname()]++ }'
cfg_tk4_label() { echo "tapkit raw_syscalls c[execname()]++"; }
cfg_tk4_check() { [ -x "$TAPKIT" ] || { echo "build/bin/tapkit missing"; return 1; }; }
cfg_tk4_tapkit() { :; }
cfg_tk4_start() { tr_start tk4 file "$TAPKIT" -e "$TK4_SCRIPT"; }
cfg_tk4_parse() {
	local ev
	# the workload's row: N getppid + write + exit_group after the release
	P_COUNT=$(tk_value "$TR_OUT" getppid_loop)
	P_EXPECT=$((N + 2))
	P_LOST=$(tapkit_lost "$TR_ERR")
	ev=$(tk_total "$TR_OUT")
	# CPU of the tapkit process over the events its script handled
	echo "$((S_user_us + S_sys_us)) $ev" >> "$TMP/tk4.ev"
	head -3 "$TR_ERR" | sed 's/^/tk4: /' >> "$TMP/stderr.notes"
}

# Near the floor of the ring tapkit reads: the same event into an instance
# with the default ring size (as tapkit), read by a program that only counts
# records, woken at 25%.  Unlike tapkit (which drops its own records in
# userspace) it excludes its PID in the kernel (set_event_notrace_pid, ~40 ns
# per event, README.md): with -a, a reader that drains until EAGAIN keeps
# refilling its own CPU's ring and lost ~40% here.
cfg_ftraw_label() { echo "ring floor: ftring -w 25 raw_syscalls"; }
cfg_ftraw_check() { [ -x "$BB/ftring" ] || { echo "build/bench/ftring not built (libtraceevent-dev?)"; return 1; }; }
cfg_ftraw_start() { tr_start ftraw file "$BB/ftring" -w 25 -p "$WL_PID" raw_syscalls:sys_enter; }
cfg_ftraw_parse() {
	P_COUNT=$(grep -oE 'pid_records=[0-9]+' "$TR_OUT" | cut -d= -f2)
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$((N + 2))
	P_LOST=$(grep -oE 'lost=[0-9]+' "$TR_OUT" | cut -d= -f2)
	P_LOST=${P_LOST:--}
}

# bpftrace and trace-cmd: cfg_bpf_* and cfg_tcmd_* in bench/lib.sh

# 5. a count-only handler, against the kernel's counting floor
TK5_SCRIPT='global c; probe syscall.getppid { c++ }'
cfg_tk5_label() { echo "tapkit syscall.getppid { c++ }"; }
cfg_tk5_check() { cfg_tk4_check; }
cfg_tk5_tapkit() { :; }
cfg_tk5_start() { tr_start tk5 file "$TAPKIT" -e "$TK5_SCRIPT"; }
cfg_tk5_parse() {
	# system-wide, like perf stat -a: other processes' getppid() count too
	P_COUNT=$(tk_value "$TR_OUT" "")
	P_EXPECT=$N
	P_LOST=$(tapkit_lost "$TR_ERR")
	head -3 "$TR_ERR" | sed 's/^/tk5: /' >> "$TMP/stderr.notes"
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

# 3 under load: every syscall.* probe, its cost on the workload and its
# memory while it counts (the start-up measure below only attaches).
TK3_SCRIPT='global c; probe syscall.* { c[name]++ }'
cfg_tk3_label() { echo "tapkit syscall.* { c[name]++ }"; }
cfg_tk3_check() { cfg_tk4_check; }
cfg_tk3_tapkit() { :; }
cfg_tk3_start() { tr_start tk3 file "$TAPKIT" -e "$TK3_SCRIPT"; }
cfg_tk3_parse() {
	P_COUNT=$(tk_value "$TR_OUT" getppid)
	P_EXPECT=$N
	P_LOST=$(tapkit_lost "$TR_ERR")
	head -3 "$TR_ERR" | sed 's/^/tk3: /' >> "$TMP/stderr.notes"
}

# 6. script 4 with a timer probe that holds the reader for 15 ms every
# 100 ms (a handler printing a large array, a slow terminal): at this
# workload's rate a CPU writes about 2 MB in 15 ms, more than the kernel's
# default ring holds; the ring's keeper thread moves full pages into pipes
# while the handler runs (docs/design-notes.md).
TK6_SCRIPT='global c; probe kernel.trace("raw_syscalls:sys_enter") { c[execname()]++ }
probe timer.ms(100) { t = gettimeofday_ms(); while (gettimeofday_ms() - t < 15) {} }'
cfg_tk6_label() { echo "tapkit script 4 + 15 ms busy timer"; }
cfg_tk6_check() { cfg_tk4_check; }
cfg_tk6_tapkit() { :; }
cfg_tk6_start() { tr_start tk6 file "$TAPKIT" -D MAXACTION=1000000000 -e "$TK6_SCRIPT"; }
cfg_tk6_parse() {
	P_COUNT=$(tk_value "$TR_OUT" getppid_loop)
	P_EXPECT=$((N + 2))
	P_LOST=$(tapkit_lost "$TR_ERR")
	head -3 "$TR_ERR" | sed 's/^/tk6: /' >> "$TMP/stderr.notes"
}

IDS="tk4 ftraw tcmd bpf tk5 perf tk3 tk6"

log "bench/tapkit.sh: N=$N, R=$R pairs per tracer, K=$K start-up runs; results in $TMP until the end"
: > "$TMP/stderr.notes"
run_pairs "$IDS"

# ---- start-up ---------------------------------------------------------------------

SU_IDS=""
if wanted su_begin; then
	log "start-up: whole run of a script that exits in 'begin', $K runs each"
	SU_TAPKIT=1 su_run tk1 exit "$K" "$TAPKIT" -e 'probe begin { exit() }'
	SU_IDS="$SU_IDS tk1"
	if have bpftrace; then
		SU_TAPKIT=0 su_run bpf1 exit "$K" bpftrace -e 'BEGIN { exit(); }'
		SU_IDS="$SU_IDS bpf1"
	fi
	if have stap; then
		SU_TAPKIT=0 su_run stap1 exit "$K" stap -e 'probe begin { exit() }'
		SU_IDS="$SU_IDS stap1"
	fi
fi

TK2_SCRIPT='probe kernel.trace("syscalls:sys_enter_getppid") { printf("%d\n", pid()); exit() }'
if wanted su_first; then
	log "start-up: launch to the first event handled, $K runs each, workload spinning"
	"$BB/getppid_loop" spin > /dev/null &
	SPIN_PID=$!
	SU_TAPKIT=1 su_run tk2 first "$K" "$TAPKIT" -e "$TK2_SCRIPT"
	SU_IDS="$SU_IDS tk2"
	if have bpftrace; then
		SU_TAPKIT=0 su_run bpf2 first "$K" bpftrace -q -e 'tracepoint:syscalls:sys_enter_getppid { printf("%d\n", pid); exit(); }'
		SU_IDS="$SU_IDS bpf2"
	fi
	kill "$SPIN_PID" 2>/dev/null
	wait "$SPIN_PID" 2>/dev/null
	SPIN_PID=""
fi

# What syscall.* attaches: its probes (-p2), the tracefs events it enables
# (--dry-run), against the sys_enter_* tracepoints of this kernel.
TK3_PROBES=- TK3_EVENTS=- TK3_KERNEL=- TK3_MISSING=""
if wanted su_attach; then
	log "start-up: syscall.* launch to ready, $A runs (each waits for its counters' release)"
	SU_TAPKIT=1 su_run tk3r ready "$A" "$TAPKIT" -e "$TK3_SCRIPT"
	SU_IDS="$SU_IDS tk3r"
	TK3_PROBES=$("$TAPKIT" -p2 -e "$TK3_SCRIPT" 2>/dev/null | grep -c '^kernel\.trace(')
	# records: echo 1 > "$T/events/SYS/NAME/enable"; counters: "# SYS:NAME: a perf_event counter ..."
	"$TAPKIT" --dry-run -e "$TK3_SCRIPT" 2>/dev/null |
		sed -n -e 's|.*/events/\([^/]*\)/\([^/]*\)/enable.*|\1:\2|p' \
		       -e 's|^# \([a-z0-9_]*:[a-z0-9_]*\): .*|\1|p' | sort -u > "$TMP/tk3.events"
	TK3_MECH=$("$TAPKIT" -p2 -e "$TK3_SCRIPT" 2>/dev/null | sed -n 's/^ *# mechanism: \([^,]*\) on .*/\1/p; s/^ *# mechanism: \(records\) .*/\1/p' |
		sort | uniq -c | awk '{ c = $1; $1 = ""; printf "%s%d x%s", (NR > 1 ? ", " : ""), c, $0 }')
	TK3_EVENTS=$(wc -l < "$TMP/tk3.events")
	TK3_VPASS=$("$TAPKIT" -v -p2 -e "$TK3_SCRIPT" 2>&1 >/dev/null | sed -n 's/^Pass 2: analyzed script: \([0-9]*\) probe.*/\1/p')
	if [ -d "$TRACEFS/events/syscalls" ]; then
		(cd "$TRACEFS/events/syscalls" && ls -d sys_enter_* 2>/dev/null) | sed 's/^/syscalls:/' | sort > "$TMP/kernel.events"
		TK3_KERNEL=$(wc -l < "$TMP/kernel.events")
		TK3_MISSING=$(comm -23 "$TMP/kernel.events" "$TMP/tk3.events" | sed 's/^syscalls:sys_enter_//' | tr '\n' ' ')
	fi
fi

# ---- report -------------------------------------------------------------------------

echo
echo "# bench/tapkit.sh: tapkit scripts vs peers"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -r), $(nproc) CPUs; N=$N getppid() calls, R=$R pairs, medians; K=$K start-up runs"
echo "# tapkit: a copy of $TAPKIT_SRC taken at the start (built $TAPKIT_BUILT, sha256 $TAPKIT_SUM, tree $TAPKIT_DESC)"
echo "# load average $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "Throughput (paired runs; scripts: 4 = $TK4_SCRIPT"
echo "  5 = $TK5_SCRIPT;  3 = $TK3_SCRIPT)"
echo
print_table "$IDS"
echo
echo "untraced/traced: the workload's own loop time per call; added and ratio are"
echo "medians of the per-pair differences and quotients.  CPU: user+sys of the"
echo "tracer process tree over its whole run; CPU/ev = that over N.  ready: launch"
echo "to TAPKIT_READY_FILE for tapkit and ftring (inotify); ~ = peers, polled"
echo "(perf: its command started; bpftrace: BEGIN printed; trace-cmd: event and"
echo "tracing_on enabled).  stop: SIGINT to exit.  lost: tapkit's \"N events lost\","
echo "ftring's and trace-cmd's ring counters, bpftrace's \"Lost N events\"."
echo "count check: the workload's row = N+2 for comm-keyed counts (tapkit c[\"getppid_loop\"],"
echo "bpftrace, ftring's records of its PID: N getppid + its write + exit_group);"
echo "system-wide getppid counts (tapkit syscall.getppid's c, syscall.*'s"
echo "c[\"getppid\"], perf stat) = N, plus any other process's getppid() calls."
if [ -s "$TMP/tc.unread" ]; then
	echo "trace-cmd left $(sort -g "$TMP/tc.unread" | tr '\n' ' ')records unread in the kernel ring at its end (per run; its own stats)."
fi
noisy_note "$IDS"
print_skipped

load_summary tk4;  TK4_ADDED=$M_added TK4_PAIRS=$M_pairs TK4_LOST=$M_lost TK4_CHECK=$M_check TK4_RSS=$M_rss
load_summary tk5;  TK5_ADDED=$M_added TK5_PAIRS=$M_pairs TK5_LOST=$M_lost TK5_CHECK=$M_check TK5_RSS=$M_rss
load_summary tk6;  TK6_LOST=$M_lost TK6_CHECK=$M_check
load_summary tk3;  TK3_LOST=$M_lost TK3_CHECK=$M_check TK3_RSS=$M_rss TK3_READY=$M_ready
load_summary tcmd; TC_ADDED=$M_added TC_PAIRS=$M_pairs TC_CPU=$M_cpu
load_summary bpf;  BPF_ADDED=$M_added BPF_PAIRS=$M_pairs
load_summary perf; PERF_ADDED=$M_added PERF_PAIRS=$M_pairs
load_summary ftraw; FT_ADDED=$M_added

if [ -s "$TMP/tk4.ev" ]; then
	echo
	echo "tapkit's own work in script 4 (CPU of the tapkit process / events its script"
	echo "counted, i.e. the sum of c[], every process's syscalls; per run, then median):"
	awk '$2 > 0 { printf "%.0f\n", $1 * 1000 / $2 }' "$TMP/tk4.ev" | sort -g > "$TMP/tk4.nsev"
	TK4_NSEV=$(awk '{ a[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2) }' "$TMP/tk4.nsev")
	printf '  %s ns of CPU per event (runs: %s; events per run: %s)\n' "$TK4_NSEV" \
		"$(tr '\n' ' ' < "$TMP/tk4.nsev" | sed 's/ $//')" "$(cut -d' ' -f2 "$TMP/tk4.ev" | tr '\n' ' ' | sed 's/ $//')"
	if [ "$TC_PAIRS" -gt 0 ]; then
		echo "  (trace-cmd record's recorders: $TC_CPU s of CPU per run of N, i.e. the CPU/ev column)"
	fi
fi
if [ "$TK4_PAIRS" -gt 0 ] && [ "$TC_PAIRS" -gt 0 ]; then
	echo
	printf 'Ratios of added cost: tapkit script 4 / trace-cmd = %s, / bpftrace = %s, / ring floor = %s;\n' \
		"$(f_ratio "$TK4_ADDED" "$TC_ADDED")" \
		"$(f_ratio "$TK4_ADDED" "$BPF_ADDED")" \
		"$(f_ratio "$TK4_ADDED" "$FT_ADDED")"
	printf '  tapkit script 5 / perf stat = %s\n' \
		"$(f_ratio "$TK5_ADDED" "$PERF_ADDED")"
fi
echo
echo "Mechanisms (tapkit -p2, first probe of each script):"
for sc in 2 4 5 3; do
	case $sc in 2) src=$TK2_SCRIPT ;; 3) src=$TK3_SCRIPT ;; 4) src=$TK4_SCRIPT ;; 5) src=$TK5_SCRIPT ;; esac
	printf '  script %s: %s\n' "$sc" "$("$TAPKIT" -p2 -e "$src" 2>/dev/null | sed -n 's/^ *# mechanism: //p' | head -1)"
done

echo
echo "Start-up ($K runs each: median, min-max; launch = fork of the tool, by bench/tkrun):"
row() { printf '  %-58s %s\n' "$1" "$2"; }
fmt_stat() {	# "median min max" [unit]
	local m lo hi
	read -r m lo hi <<< "$1"
	[ "$m" = - ] && { echo "-"; return; }
	printf '%8s %s (%s-%s)' "$m" "${2:-ms}" "$lo" "$hi"
}
fmt_rss() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else printf "%.1f MiB", v / 1024 }'; }
for id in $SU_IDS; do
	case $id in
	tk1) row "tapkit -e 'probe begin { exit() }': whole run" "$(fmt_stat "$(su_stat tk1 1)")" ;;
	bpf1) row "bpftrace -e 'BEGIN { exit(); }': whole run" "$(fmt_stat "$(su_stat bpf1 1)")" ;;
	stap1) row "stap -e 'probe begin { exit() }': whole run" "$(fmt_stat "$(su_stat stap1 1)")" ;;
	tk2) row "tapkit, print + exit() on sys_enter_getppid: first event" "$(fmt_stat "$(su_stat tk2 2)")"
	     row "  its whole run (exit() in the handler)" "$(fmt_stat "$(su_stat tk2 1)")" ;;
	bpf2) row "bpftrace, printf + exit() on sys_enter_getppid: first event" "$(fmt_stat "$(su_stat bpf2 2)")"
	      row "  its whole run" "$(fmt_stat "$(su_stat bpf2 1)")" ;;
	tk3r) row "tapkit syscall.* { c[name]++ }: launch to ready" "$(fmt_stat "$(su_stat tk3r 3)")"
	      row "  SIGINT to exit (detach)" "$(fmt_stat "$(su_stat tk3r 4)")"
	      row "  SIGINT to its tapkit-release helper's exit" "$(fmt_stat "$(su_stat tk3r 8)")" ;;
	esac
done
wanted su_begin && ! have stap && row "stap" "not installed: not measured (it builds a kernel module per script)"
if [ "$TK3_PROBES" != - ]; then
	echo "  syscall.* attached $TK3_EVENTS events (-p2: $TK3_PROBES kernel.trace probes: ${TK3_MECH:-?}; -v pass 2: ${TK3_VPASS:-?} probes)"
	[ "$TK3_KERNEL" != - ] && echo "    of the $TK3_KERNEL syscalls:sys_enter_* tracepoints of this kernel; not attached ($(wc -w <<< "$TK3_MISSING")): $TK3_MISSING"
fi
SU_NOISY=0 SU_TOTAL=0
for id in $SU_IDS; do
	SU_NOISY=$((SU_NOISY + $(su_noisy "$id")))
	SU_TOTAL=$((SU_TOTAL + $(su_runs "$id")))
done
echo "  $SU_NOISY of $SU_TOTAL start-up runs overlapped tracers of other sessions on this machine."

echo
echo "Peak RSS (max over the runs):"
TK2_RSS=$(read -r _ _ hi <<< "$(su_stat tk2 5)"; echo "$hi")
TK3R_RSS=$(read -r _ _ hi <<< "$(su_stat tk3r 5)"; echo "$hi")
TK1_RSS=$(read -r _ _ hi <<< "$(su_stat tk1 5)"; echo "$hi")
BPF2_RSS=$(read -r _ _ hi <<< "$(su_stat bpf2 5)"; echo "$hi")
row "tapkit 'probe begin { exit() }'" "$(fmt_rss "$TK1_RSS")"
row "tapkit script 2 (first event)" "$(fmt_rss "$TK2_RSS")"
row "tapkit script 3 (syscall.*): attach only / under the workload" "$(fmt_rss "$TK3R_RSS") / $TK3_RSS MiB"
row "tapkit script 4 (raw_syscalls, comm-keyed)" "$TK4_RSS MiB"
row "tapkit script 5 (syscall.getppid c++)" "$TK5_RSS MiB"
[ "$BPF2_RSS" != - ] && row "bpftrace, first-event script" "$(fmt_rss "$BPF2_RSS")"
load_summary bpf; [ "$M_pairs" -gt 0 ] && row "bpftrace raw_syscalls @[comm] = count()" "$M_rss MiB"

if [ -s "$TMP/stderr.notes" ]; then
	echo
	echo "Other messages (tapkit's stderr, exit statuses; first lines):"
	sort "$TMP/stderr.notes" | uniq -c | sed 's/^ */  /' | head -20
fi

# ---- targets -------------------------------------------------------------------------

echo
echo "Targets (from the medians above):"
read -r V _ _ <<< "$(su_stat tk1 1)"
target_under "tapkit start-up (begin { exit() }, whole run) under 10 ms" "$V" 10 "$V ms (bpftrace $(su_stat bpf1 1 | cut -d' ' -f1) ms)"
read -r V _ _ <<< "$(su_stat tk2 2)"
target_under "launch to first event handled under 15 ms" "$V" 15 "$V ms (bpftrace $(su_stat bpf2 2 | cut -d' ' -f1) ms)"
read -r V _ _ <<< "$(su_stat tk3r 3)"
target_under "syscall.* launch to ready under 100 ms" "$V" 100 "$V ms for $TK3_EVENTS events (under the workload: $TK3_READY ms)"
target_added "script 4 added cost <= 1.1 x trace-cmd record's" tk4 "$TK4_PAIRS" "$TK4_ADDED" trace-cmd "$TC_PAIRS" "$TC_ADDED" 1.1
target_added "script 4 added cost below bpftrace's" tk4 "$TK4_PAIRS" "$TK4_ADDED" bpftrace "$BPF_PAIRS" "$BPF_ADDED"
if [ "$TK4_PAIRS" -gt 0 ]; then
	v=PASS
	for l in "$TK4_LOST" "$TK5_LOST" "$TK3_LOST"; do
		case $l in 0|-) ;; *) v=MISS ;; esac
	done
	target "zero lost events" "$v" "script 4: $TK4_LOST, script 5: $TK5_LOST, script 3: $TK3_LOST (all runs)"
	[ "$TK4_CHECK" = ok ] && v=PASS || v=MISS
	target "exact count (script 4's workload row = N+2)" "$v" "$TK4_CHECK; system-wide: script 5 $TK5_CHECK, script 3 $TK3_CHECK"
fi
if [ "$TK6_LOST" != - ] && [ -n "$TK6_LOST" ]; then
	case $TK6_LOST in 0) v=PASS ;; *) v=MISS ;; esac
	target "zero lost events with a handler holding the reader 15 ms" "$v" "script 6: $TK6_LOST (all runs), count $TK6_CHECK"
fi
target_added "script 5 added cost <= 1.05 x perf stat's" tk5 "$TK5_PAIRS" "$TK5_ADDED" "perf stat" "$PERF_PAIRS" "$PERF_ADDED" 1.05
RSS_MAX=$(for v in "$(fmt_rss "$TK2_RSS")" "$(fmt_rss "$TK3R_RSS")" "$TK3_RSS" "$TK4_RSS"; do
	v=${v% MiB}; [ "$v" != - ] && echo "$v"; done | sort -g | tail -1)
if [ -n "$RSS_MAX" ]; then
	f_lt "$RSS_MAX" 10 && v=PASS || v=MISS
	target "peak RSS of scripts 2-4 under 10 MiB" "$v" "script 2 $(fmt_rss "$TK2_RSS"), script 3 $(fmt_rss "$TK3R_RSS") attaching / $TK3_RSS MiB under load, script 4 $TK4_RSS MiB"
else
	target "peak RSS of scripts 2-4 under 10 MiB" SKIP "not measured"
fi

print_leftovers
