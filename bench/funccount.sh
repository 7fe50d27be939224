#!/bin/bash
# bench/funccount.sh: what a uprobe and a USDT probe cost the traced program
# when funccount counts them, against bpftrace's `@ = count()` on the same
# probe, and how long a pattern matching 500 functions takes to attach and
# to go.
#
#   1. per hit: bench/uprobe_loop calls tk_bench_hit() N times ("func") or
#      passes the USDT probe tkbench:hit N times ("usdt", semaphore-gated);
#      paired untraced/traced runs as in bench/lib.sh, for
#        funccount PATH:tk_bench_hit        bpftrace uprobe:PATH:tk_bench_hit
#        funccount u:PATH:tkbench:hit       bpftrace usdt:PATH:tkbench:hit
#      Counts must be exactly N.
#   2. attach: `funccount 'PATH:tk_many_*'` (500 functions) launch to ready
#      and SIGINT to gone (its definitions and counters released), against
#      bpftrace's `uprobe:PATH:tk_many_* { @[probe] = count(); }` (launch
#      to its BEGIN, which runs once every probe is attached); then one run
#      of funccount over `uprobe_loop many M` checks 500 exact counts of M.
#
# Peers that are not installed are skipped with a note.  The targets are
# printed as PASS/MISS lines; they never fail the script.

usage() {
	cat <<-EOF2
	Measure funccount's per-hit cost on a uprobe and a USDT probe against
	bpftrace, and its attach time for 500 functions.

	USAGE: bench/funccount.sh [-n N] [-r R] [-k K] [-t IDS] [-s SECS] [-v]

	  -n N     probe hits per run (default 1000000)
	  -r R     traced/untraced pairs per tracer (default 5)
	  -k K     runs of the attach measure (default 5)
	  -t IDS   only these (comma list of: tkf,bpff,tku,bpfu, and su_many)
	  -s SECS  settle time after a peer looks ready (default 0.3)
	  -v       more detail on stderr
	  -h       this help

	Run as root after 'make'.  Progress goes to stderr, the tables to stdout.
	EOF2
}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

N=1000000
K=5
parse_common_opts -x "k:" "$@"
bench_init
[ -x "$BIN/funccount" ] || { log "bench: build/bin/funccount is not built"; exit 1; }
LOOP=$BB/uprobe_loop
[ -x "$LOOP" ] || { log "bench: build/bench/uprobe_loop is not built (sys/sdt.h from systemtap-sdt-dev?)"; exit 1; }
WL_BIN=$LOOP

# fc_count NAME FILE: the count funccount printed for NAME (a function, or
# a USDT probe as PROVIDER:NAME), -1 when absent
fc_count() {
	awk -v n="$1" '$1 == n && $2 ~ /^[0-9]+$/ { print $2; f = 1; exit } END { if (!f) print -1 }' "$2"
}
# bpf_count FILE: bpftrace's "@: N"
bpf_count() {
	awk '$1 == "@:" { print $2; f = 1; exit } END { if (!f) print -1 }' "$1"
}

cfg_tkf_label() { echo "funccount PATH:tk_bench_hit"; }
cfg_tkf_check() { return 0; }
cfg_tkf_wl() { WL_ARGS=(func); }
cfg_tkf_start() { tr_start tkf file "$BIN/funccount" "$LOOP:tk_bench_hit"; }
cfg_tkf_tapkit() { :; }
cfg_tkf_parse() { P_COUNT=$(fc_count tk_bench_hit "$TR_OUT"); P_EXPECT=$N; P_LOST=-; }

cfg_bpff_label() { echo "bpftrace uprobe:PATH:tk_bench_hit @ = count()"; }
cfg_bpff_check() { have bpftrace || { echo "bpftrace not installed (apt-get install bpftrace)"; return 1; }; }
cfg_bpff_wl() { WL_ARGS=(func); }
cfg_bpff_start() {
	tr_start bpff out:READY sh -c "$BPF_MEMLOCK exec bpftrace -e 'BEGIN { printf(\"READY\\n\"); } uprobe:$LOOP:tk_bench_hit { @ = count(); }'"
}
cfg_bpff_parse() { P_COUNT=$(bpf_count "$TR_OUT"); P_EXPECT=$N; P_LOST=$(bpf_lost); }

cfg_tku_label() { echo "funccount u:PATH:tkbench:hit"; }
cfg_tku_check() { return 0; }
cfg_tku_wl() { WL_ARGS=(usdt); }
cfg_tku_start() { tr_start tku file "$BIN/funccount" "u:$LOOP:tkbench:hit"; }
cfg_tku_tapkit() { :; }
cfg_tku_parse() {
	P_COUNT=$(fc_count tkbench:hit "$TR_OUT")
	[ "$P_COUNT" = -1 ] && P_COUNT=$(fc_count hit "$TR_OUT")
	P_EXPECT=$N; P_LOST=-
}

cfg_bpfu_label() { echo "bpftrace usdt:PATH:tkbench:hit @ = count()"; }
cfg_bpfu_check() { cfg_bpff_check; }
cfg_bpfu_wl() { WL_ARGS=(usdt); }
cfg_bpfu_start() {
	tr_start bpfu out:READY sh -c "$BPF_MEMLOCK exec bpftrace -e 'BEGIN { printf(\"READY\\n\"); } usdt:$LOOP:tkbench:hit { @ = count(); }'"
}
cfg_bpfu_parse() { P_COUNT=$(bpf_count "$TR_OUT"); P_EXPECT=$N; P_LOST=$(bpf_lost); }

IDS="tkf bpff tku bpfu"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
run_pairs "$IDS"

# ---- attach: 500 functions ----------------------------------------------------

MANY_M=100
MANY_OK=-
if wanted su_many; then
	log "attach: a pattern matching 500 functions, $K runs each"
	# the kernel releases 500 uprobe perf events one grace period after
	# the other: bpftrace's exit takes about as long as our release helper
	SU_STOP_TIMEOUT=300
	SU_TAPKIT=1 su_run fcm ready "$K" "$BIN/funccount" "$LOOP:tk_many_*"
	if have bpftrace; then
		SU_TAPKIT=0 su_run bpfm out:READY "$K" sh -c "$BPF_MEMLOCK exec bpftrace -e 'BEGIN { printf(\"READY\\n\"); } uprobe:$LOOP:tk_many_* { @[probe] = count(); }'"
	fi
	# exactness over the 500: each function called MANY_M times
	WL_ARGS=(many)
	wl_start "$MANY_M"
	rel0=" $(pgrep -x tapkit-release | tr '\n' ' ') "
	if tr_start fcmx file "$BIN/funccount" "$LOOP:tk_many_*"; then
		TK_PIDS+=("$TR_CHILD")
		wl_go; wl_finish
		tr_stop
		# its release helper removes the group once the kernel let go
		wait_released "$rel0"
		MANY_OK=$(awk -v m="$MANY_M" '$1 ~ /^tk_many_[0-9]+$/ { n++; if ($2 == m) ok++ } END { printf "%d of %d functions counted %d exactly (500 expected)", ok, n, m }' "$TR_OUT")
	fi
fi

# ---- report ---------------------------------------------------------------------

echo
echo "# bench/funccount.sh: funccount's per-hit cost and attach time vs bpftrace"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -r), $(nproc) CPUs; N=$N hits per run, R=$R pairs, medians; K=$K attach runs"
echo "# tapkit $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'); bpftrace $(bpftrace --version 2>/dev/null | awk '{print $2}')"
echo "# load average $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
print_table "$IDS"
echo
echo "untraced/traced: bench/uprobe_loop's own time per iteration (a call of"
echo "tk_bench_hit, or the USDT site with its semaphore test); added and ratio are"
echo "medians of the per-pair differences and quotients.  The kernel's trap on the"
echo "probed instruction is the same for both tracers; what differs is the handler"
echo "(a perf counter increment, or a BPF program and map update).  count check:"
echo "the tracer's count for the probe = N."
noisy_note "$IDS"
print_skipped

load_summary tkf;  TKF_ADDED=$M_added TKF_PAIRS=$M_pairs
load_summary bpff; BPFF_ADDED=$M_added BPFF_PAIRS=$M_pairs
load_summary tku;  TKU_ADDED=$M_added TKU_PAIRS=$M_pairs
load_summary bpfu; BPFU_ADDED=$M_added BPFU_PAIRS=$M_pairs
echo
printf 'Ratios of added cost: funccount / bpftrace = %s (uprobe), %s (USDT)\n' \
	"$(f_ratio "$TKF_ADDED" "$BPFF_ADDED")" "$(f_ratio "$TKU_ADDED" "$BPFU_ADDED")"

if wanted su_many; then
	echo
	echo "Attach, 500 functions ($K runs each: median, min-max):"
	for id in fcm bpfm; do
		[ "$(su_runs "$id")" -gt 0 ] || continue
		read -r rm rmin rmax <<< "$(su_stat "$id" 3)"
		read -r sm smin smax <<< "$(su_stat "$id" 4)"
		read -r gm gmin gmax <<< "$(su_stat "$id" 8)"
		case $id in fcm) l="funccount 'PATH:tk_many_*'" ;; bpfm) l="bpftrace uprobe:PATH:tk_many_* (~: polled)" ;; esac
		printf '  %-44s launch to ready %s ms (%s-%s), SIGINT to exit %s ms, to gone %s ms (%s-%s)\n' \
			"$l" "$rm" "$rmin" "$rmax" "$sm" "$gm" "$gmin" "$gmax"
	done
	echo "  exactness: $MANY_OK"
fi

echo
echo "Targets:"
# The kernel's trap is most of a hit, and the same for both; after it the
# kernel builds a perf record for our counter where a BPF program that
# returns 0 stops early: the targets allow that 10%.
target_added "per-hit cost of a uprobe, funccount within 10% of bpftrace" funccount "$TKF_PAIRS" "$TKF_ADDED" bpftrace "$BPFF_PAIRS" "$BPFF_ADDED" 1.1
target_added "per-hit cost of a USDT probe, funccount within 10% of bpftrace" funccount "$TKU_PAIRS" "$TKU_ADDED" bpftrace "$BPFU_PAIRS" "$BPFU_ADDED" 1.1
if wanted su_many && [ "$(su_runs fcm)" -gt 0 ] && [ "$(su_runs bpfm)" -gt 0 ]; then
	read -r a _ <<< "$(su_stat fcm 3)"
	read -r b _ <<< "$(su_stat bpfm 3)"
	target_under "500-function attach, funccount under bpftrace" "$a" "$b" "$a ms vs $b ms"
fi
print_leftovers
