#!/bin/bash
# bench/functime.sh: what timing a function costs the traced program, and
# how long probing every function of the C library takes to attach.
#
#   1. per call: bench/uprobe_loop calls tk_bench_hit() N times; paired
#      untraced/traced runs as in bench/lib.sh, for
#        tapkit scripts/examples/functime.stp (an entry and a return uprobe,
#          gettimeofday_ns() stored per thread, the difference into a
#          statistic)
#        bpftrace uprobe + uretprobe, @start[tid] = nsecs, @ = hist(nsecs -
#          @start[tid])
#      Both must account for exactly N calls.
#   2. attach: `probe process("libc").function("*") { n[probefunc()]++ }`
#      launch to ready and SIGINT to gone, against bpftrace's
#      `uprobe:libc:* { @[probe] = count(); }` (launch to its BEGIN) where
#      bpftrace manages it.
#
# Peers that are not installed are skipped with a note.  The targets are
# printed as PASS/MISS lines; they never fail the script.

usage() {
	cat <<-EOF2
	Measure what tapkit's function-time script costs per call against
	bpftrace's uprobe/uretprobe pair, and the attach time of every function
	of the C library.

	USAGE: bench/functime.sh [-n N] [-r R] [-k K] [-t IDS] [-s SECS] [-v]

	  -n N     calls per run (default 300000)
	  -r R     traced/untraced pairs per tracer (default 5)
	  -k K     runs of the attach measure (default 3)
	  -t IDS   only these (comma list of: tkt,bpft, and libc)
	  -s SECS  settle time after a peer looks ready (default 0.3)
	  -v       more detail on stderr
	  -h       this help

	Run as root after 'make'.  Progress goes to stderr, the tables to stdout.
	EOF2
}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

N=300000
K=3
parse_common_opts -x "k:" "$@"
bench_init
[ -x "$BIN/tapkit" ] || { log "bench: build/bin/tapkit is not built"; exit 1; }
LOOP=$BB/uprobe_loop
[ -x "$LOOP" ] || { log "bench: build/bench/uprobe_loop is not built (sys/sdt.h from systemtap-sdt-dev?)"; exit 1; }
WL_BIN=$LOOP
SCRIPT=$ROOT/scripts/examples/functime.stp

# tk_calls FILE: the call count functime.stp printed last
tk_calls() {
	awk '$2 ~ /^[0-9]+$/ && $3 == "calls," { n = $2 } END { print (n == "" ? -1 : n) }' "$1"
}
# bpf_hist_total FILE: the sum of bpftrace's histogram buckets
bpf_hist_total() {
	awk '/^\[/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && $(i+1) ~ /^\|/) s += $i; f = 1 } END { print (f ? s : -1) }' "$1"
}

cfg_tkt_label() { echo "tapkit functime.stp (entry + return)"; }
cfg_tkt_check() { return 0; }
cfg_tkt_wl() { WL_ARGS=(func); }
cfg_tkt_start() { tr_start tkt file "$BIN/tapkit" "$SCRIPT" "$LOOP" tk_bench_hit; }
cfg_tkt_tapkit() { :; }
cfg_tkt_parse() { P_COUNT=$(tk_calls "$TR_OUT"); P_EXPECT=$N; P_LOST=-; }

cfg_bpft_label() { echo "bpftrace uprobe+uretprobe @ = hist(nsecs - start)"; }
cfg_bpft_check() { have bpftrace || { echo "bpftrace not installed (apt-get install bpftrace)"; return 1; }; }
cfg_bpft_wl() { WL_ARGS=(func); }
cfg_bpft_start() {
	tr_start bpft out:READY sh -c "$BPF_MEMLOCK exec bpftrace -e 'BEGIN { printf(\"READY\\n\"); } uprobe:$LOOP:tk_bench_hit { @start[tid] = nsecs; } uretprobe:$LOOP:tk_bench_hit /@start[tid]/ { @ = hist(nsecs - @start[tid]); delete(@start[tid]); } END { clear(@start); }'"
}
cfg_bpft_parse() { P_COUNT=$(bpf_hist_total "$TR_OUT"); P_EXPECT=$N; P_LOST=$(bpf_lost); }

IDS="tkt bpft"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
run_pairs "$IDS"

# ---- attach: every function of the C library ------------------------------------

LIBC=$(ldd "$LOOP" | awk '/libc\.so/ { print $3 }')
NFUNCS=$("$BIN/tapkit" -l 'process("libc").function("*")' 2>/dev/null | wc -l)
if wanted libc; then
	log "attach: process(\"libc\").function(\"*\") ($NFUNCS points), $K runs each"
	SU_STOP_TIMEOUT=600
	SU_TAPKIT=1 su_run tkl ready "$K" "$BIN/tapkit" -e 'global n; probe process("libc").function("*") { n[probefunc()]++ }'
	if have bpftrace; then
		# bpftrace refuses more than 512 probes unless told, as a user
		# would after reading its message
		SU_TAPKIT=0 su_run bpfl out:READY "$K" sh -c "$BPF_MEMLOCK BPFTRACE_MAX_PROBES=20000 BPFTRACE_MAX_BPF_PROGS=20000 exec bpftrace -e 'BEGIN { printf(\"READY\\n\"); } uprobe:$LIBC:* { @[probe] = count(); }'"
	fi
fi

# ---- report ---------------------------------------------------------------------

echo
echo "# bench/functime.sh: timing a function (entry + return) and libc-wide attach vs bpftrace"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -r), $(nproc) CPUs; N=$N calls per run, R=$R pairs, medians; K=$K attach runs"
echo "# tapkit $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'); bpftrace $(bpftrace --version 2>/dev/null | awk '{print $2}')"
echo "# load average $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
print_table "$IDS"
echo
echo "untraced/traced: bench/uprobe_loop's own time per call of tk_bench_hit;"
echo "added and ratio are medians of the per-pair differences and quotients.  Both"
echo "tracers pay the kernel's two traps (the entry breakpoint and the return"
echo "trampoline); tapkit then has the kernel write two records into its ring, which"
echo "the script reads in batches, where bpftrace runs a BPF program at each.  count"
echo "check: the calls the tracer timed = N."
noisy_note "$IDS"
print_skipped

load_summary tkt;  TKT_ADDED=$M_added TKT_PAIRS=$M_pairs
load_summary bpft; BPFT_ADDED=$M_added BPFT_PAIRS=$M_pairs
echo
printf 'Ratio of added cost: tapkit / bpftrace = %s\n' "$(f_ratio "$TKT_ADDED" "$BPFT_ADDED")"

if wanted libc; then
	echo
	echo "Attach, every function of $LIBC ($NFUNCS points; $K runs each: median, min-max):"
	for id in tkl bpfl; do
		[ "$(su_runs "$id")" -gt 0 ] || continue
		read -r rm rmin rmax <<< "$(su_stat "$id" 3)"
		read -r sm _ _ <<< "$(su_stat "$id" 4)"
		read -r gm gmin gmax <<< "$(su_stat "$id" 8)"
		case $id in tkl) l="tapkit process(\"libc\").function(\"*\")" ;; bpfl) l="bpftrace uprobe:libc:* (~: polled)" ;; esac
		printf '  %-44s launch to ready %s ms (%s-%s), SIGINT to exit %s ms, to gone %s ms (%s-%s)\n' \
			"$l" "$rm" "$rmin" "$rmax" "$sm" "$gm" "$gmin" "$gmax"
	done
fi

echo
echo "Targets:"
target_added "per-call cost of timing a function, tapkit within 10% of bpftrace" tapkit "$TKT_PAIRS" "$TKT_ADDED" bpftrace "$BPFT_PAIRS" "$BPFT_ADDED" 1.1
if wanted libc && [ "$(su_runs tkl)" -gt 0 ] && [ "$(su_runs bpfl)" -gt 0 ]; then
	read -r a _ <<< "$(su_stat tkl 3)"
	read -r b _ <<< "$(su_stat bpfl 3)"
	read -r bs _ <<< "$(su_stat bpfl 4)"
	if [ "$a" != - ] && [ "$b" = - ]; then
		# bpftrace never became ready: it gave up (its error is in the
		# run's stderr with -v) after this long
		target "libc-wide attach, tapkit under bpftrace" PASS \
			"tapkit ready in $a ms; bpftrace never ready (gave up after $bs ms)"
	else
		target_under "libc-wide attach, tapkit under bpftrace" "$a" "$b" "$a ms vs $b ms"
	fi
fi
print_leftovers
