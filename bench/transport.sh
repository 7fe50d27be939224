#!/bin/bash
# bench/transport.sh: the per-event cost of each event source tapkit can use,
# on one tracepoint (syscalls:sys_enter_getppid) and one workload, so the
# choice of mechanism in DESIGN.md ("Event transport") stays measured.
#
#   perf counting mode    the kernel counts, nothing is recorded
#   ftrace instance ring  a record per event in our instance's ring, read
#                         from trace_pipe_raw (tpoint, syscount -P)
#   perf sampling ring    sample_period 1 into a perf mmap ring (tpoint -s)
#
# Each ring is measured twice: with the smallest reader that only counts
# records (bench/ftring.c, bench/perfring.c) and with tapkit's tpoint, which
# decodes, formats and writes every event; the difference is what tapkit's
# per-event work costs.  Method in bench/lib.sh.

usage() {
	cat <<-EOF
	Measure the per-event cost of each event transport on one tracepoint.

	USAGE: bench/transport.sh [-n N] [-r R] [-t IDS] [-v]

	  -n N     getppid() calls per run (default 3000000)
	  -r R     traced/untraced pairs per configuration (default 5)
	  -t IDS   only these (comma list of: cnt_perf,cnt_sc,ft_raw,ft_raw0,
	           ft_tp,ft_tpb,ft_tpj,ft_tpf,pf_raw,pf_rawg,pf_tps)
	  -v       more detail on stderr
	  -h       this help

	Run as root after 'make && make tests-build'.
	EOF
}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

parse_common_opts "$@"
bench_init

TP=syscalls:sys_enter_getppid

# tpoint's text line: "<comm>-<pid> [cpu] ts: event: fields"
tpoint_rows() { awk -v tag="getppid_loop-$WL_LAST " 'index($0, tag) { n++ } END { print n + 0 }' "$1"; }

cfg_cnt_perf_label() { echo "perf counting: perf stat -a (this event)"; }
cfg_cnt_perf_check() { have perf || { echo "perf not installed (apt-get install linux-perf)"; return 1; }; }
cfg_cnt_perf_start() { tr_start cnt_perf exec:sleep perf stat -x, -e "$TP" -a -- sleep 1000000; }
cfg_cnt_perf_parse() {
	P_COUNT=$(awk -F, '$3 ~ /sys_enter_getppid/ { print $1; exit }' "$TR_ERR")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
}

cfg_cnt_sc_label() { echo "perf counting: syscount (all sys_enter_*)"; }
cfg_cnt_sc_check() { [ -x "$BIN/syscount" ] || { echo "build/bin/syscount missing"; return 1; }; }
cfg_cnt_sc_tapkit() { :; }
cfg_cnt_sc_start() { tr_start cnt_sc file "$BIN/syscount"; }
cfg_cnt_sc_parse() {
	P_COUNT=$(awk '$1 == "getppid" { print $2; exit }' "$TR_OUT")
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
	P_LOST=$(tapkit_lost "$TR_ERR")
}

# The raw reader twice: woken at 25% fill (syscount -P's setting), and at
# every event (buffer_percent 0, tpoint's setting) to show what waking the
# reader costs the traced program.
cfg_ft_raw_label() { echo "ftrace ring: raw reader, wake at 25% (ftring)"; }
cfg_ft_raw_check() { [ -x "$BB/ftring" ] || { echo "build/bench/ftring not built (libtraceevent-dev?)"; return 1; }; }
cfg_ft_raw_start() { tr_start ft_raw file "$BB/ftring" -w 25 -p "$WL_PID" "$TP"; }
cfg_ft_raw_parse() {
	P_COUNT=$(grep -oE 'pid_records=[0-9]+' "$TR_OUT" | cut -d= -f2)
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
	P_LOST=$(grep -oE 'lost=[0-9]+' "$TR_OUT" | cut -d= -f2)
	P_LOST=${P_LOST:--}
}

cfg_ft_raw0_label() { echo "ftrace ring: raw reader, wake per event"; }
cfg_ft_raw0_check() { cfg_ft_raw_check; }
cfg_ft_raw0_start() { tr_start ft_raw0 file "$BB/ftring" -w 0 -p "$WL_PID" "$TP"; }
cfg_ft_raw0_parse() { cfg_ft_raw_parse; }

cfg_ft_tp_label() { echo "ftrace ring: tpoint > /dev/null (text)"; }
cfg_ft_tp_check() { [ -x "$BIN/tpoint" ] || { echo "build/bin/tpoint missing"; return 1; }; }
cfg_ft_tp_tapkit() { :; }
cfg_ft_tp_start() { TR_STDOUT=/dev/null tr_start ft_tp file "$BIN/tpoint" "$TP"; }
cfg_ft_tp_parse() { P_LOST=$(tapkit_lost "$TR_ERR"); }

# tpoint with a ring large enough to hold the whole run (64 MiB per CPU), so
# its cost is measured without loss (dropped events are cheaper).
cfg_ft_tpb_label() { echo "ftrace ring: tpoint -b 65536 > /dev/null"; }
cfg_ft_tpb_check() { cfg_ft_tp_check; }
cfg_ft_tpb_tapkit() { :; }
cfg_ft_tpb_start() { TR_STDOUT=/dev/null tr_start ft_tpb file "$BIN/tpoint" -b 65536 "$TP"; }
cfg_ft_tpb_parse() { P_LOST=$(tapkit_lost "$TR_ERR"); }

cfg_ft_tpj_label() { echo "ftrace ring: tpoint -j > /dev/null (JSON)"; }
cfg_ft_tpj_check() { cfg_ft_tp_check; }
cfg_ft_tpj_tapkit() { :; }
cfg_ft_tpj_start() { TR_STDOUT=/dev/null tr_start ft_tpj file "$BIN/tpoint" -j "$TP"; }
cfg_ft_tpj_parse() { P_LOST=$(tapkit_lost "$TR_ERR"); }

cfg_ft_tpf_label() { echo "ftrace ring: tpoint > file (text)"; }
cfg_ft_tpf_check() { cfg_ft_tp_check; }
cfg_ft_tpf_tapkit() { :; }
cfg_ft_tpf_start() { tr_start ft_tpf file "$BIN/tpoint" "$TP"; }
cfg_ft_tpf_parse() {
	P_COUNT=$(tpoint_rows "$TR_OUT")
	P_EXPECT=$N
	P_LOST=$(tapkit_lost "$TR_ERR")
	# every event is either printed or reported lost
	echo "$((P_COUNT + P_LOST - N))" >> "$TMP/tpf.acct"
	: > "$TR_OUT"
}

cfg_pf_raw_label() { echo "perf ring: raw reader (bench/perfring)"; }
cfg_pf_raw_check() { [ -x "$BB/perfring" ] || { echo "build/bench/perfring not built"; return 1; }; }
cfg_pf_raw_start() { tr_start pf_raw file "$BB/perfring" -p "$WL_PID" "$TP"; }
cfg_pf_raw_parse() {
	P_COUNT=$(grep -oE 'pid_samples=[0-9]+' "$TR_OUT" | cut -d= -f2)
	P_COUNT=${P_COUNT:--1}
	P_EXPECT=$N
	P_LOST=$(grep -oE 'lost=[0-9]+' "$TR_OUT" | cut -d= -f2)
	P_LOST=${P_LOST:--}
}

cfg_pf_rawg_label() { echo "perf ring + callchains: raw reader (perfring -g)"; }
cfg_pf_rawg_check() { cfg_pf_raw_check; }
cfg_pf_rawg_start() { tr_start pf_rawg file "$BB/perfring" -g -p "$WL_PID" "$TP"; }
cfg_pf_rawg_parse() { cfg_pf_raw_parse; }

cfg_pf_tps_label() { echo "perf ring + callchains: tpoint -s > /dev/null"; }
cfg_pf_tps_check() { cfg_ft_tp_check; }
cfg_pf_tps_tapkit() { :; }
cfg_pf_tps_start() { TR_STDOUT=/dev/null tr_start pf_tps file "$BIN/tpoint" -s "$TP"; }
cfg_pf_tps_parse() { P_LOST=$(tapkit_lost "$TR_ERR"); }

IDS="cnt_perf cnt_sc ft_raw ft_raw0 ft_tp ft_tpb ft_tpj ft_tpf pf_raw pf_rawg pf_tps"

log "bench/transport.sh: N=$N, R=$R pairs per configuration"
run_pairs "$IDS"

echo
bench_header "bench/transport.sh: per-event cost of each transport, $TP"
echo
print_table "$IDS"
echo
echo "added = what one event costs the traced program (median of per-pair"
echo "differences); CPU = the reader's own user+sys over its whole run, CPU/ev = over N."
echo "stop: SIGINT to exit; gone: until any tapkit-release helper it left has exited."
echo "ftring/perfring only count records: the floor of each ring with a reader."
echo "tpoint text/JSON decode, format and write every event (output to /dev/null,"
echo "or to a file whose workload lines are counted: must be N).  lost: tapkit's"
echo "\"N events lost\", the rings' own drop counters for the raw readers; all of the"
echo "tracepoint's events (other processes' too), not only the workload's."
noisy_note "$IDS"
print_skipped

# ---- what tapkit's per-event work costs --------------------------------------

echo
if [ -s "$TMP/tpf.acct" ]; then
	echo "tpoint > file: printed workload rows + reported lost - N = $(tr '\n' ' ' < "$TMP/tpf.acct")(per run;"
	echo "0 = every event accounted for; lost counts the whole tracepoint, so a few"
	echo "more are other processes' getppid() calls that were dropped too)"
fi
echo
echo "tpoint's own per-event work (decode, format, write): its CPU per event it"
echo "handled (lost ones excluded) against the raw reader of the same ring"
echo "(ftrace: woken at 25%, so not paying a wake-up per event; perf: callchains):"
share() {
	# share LABEL TOOL_ADDED TOOL_CPUH RAW_ADDED RAW_CPUH
	awk -v l="$1" -v ta="$2" -v tc="$3" -v ra="$4" -v rc="$5" 'BEGIN {
		printf "  %-28s CPU %5.0f vs %4.0f ns/event: %3.0f%% is tapkit'\''s work; traced program +%.0f vs +%.0f ns/event\n",
			l, tc, rc, (tc > 0 ? 100 * (tc - rc) / tc : 0), ta, ra }'
}
load_summary ft_raw; RAW_ADDED=$M_added RAW_CPUH=$M_cpuh RAW_PAIRS=$M_pairs
for id in ft_tp ft_tpb ft_tpj ft_tpf; do
	load_summary "$id"
	[ "$M_pairs" -gt 0 ] && [ "$RAW_PAIRS" -gt 0 ] &&
		share "$("cfg_${id}_label" | sed 's/^ftrace ring: //')" "$M_added" "$M_cpuh" "$RAW_ADDED" "$RAW_CPUH"
done
load_summary pf_rawg; RAW_ADDED=$M_added RAW_CPUH=$M_cpuh RAW_PAIRS=$M_pairs
load_summary pf_tps
[ "$M_pairs" -gt 0 ] && [ "$RAW_PAIRS" -gt 0 ] &&
	share "tpoint -s > /dev/null" "$M_added" "$M_cpuh" "$RAW_ADDED" "$RAW_CPUH"
echo "(CPU of the whole run, start-up and teardown included, over the events handled."
echo "A reader that drops events costs the traced program less per event of N.)"

print_leftovers
