#!/bin/bash
# bench/tapkit_profile.sh: what a 99 Hz CPU profile of the whole machine
# with stacks costs the profiler itself: tapkit's profile tool and the
# language against perf, bpftrace and bcc's profile.
#
#   workload  two copies of tests/helpers/spin, one per CPU, burning CPU
#             for the whole run
#   profile   tapkit's `profile -F 99 -j D`: kernel and user callchains
#             counted by stack, printed symbolized at the end
#   tapkit    perf.sw.cpu_clock.hz(99) on every CPU (timer.profile's
#             mechanism at 99 Hz: timer.profile itself runs at the tick
#             rate), counting samples by a stack key (the kernel and user
#             backtraces when the language has them, else the process and
#             the sampled address), printing the table symbolized at the
#             end; -T D seconds
#   perf      `perf record -F 99 -g -a -e cpu-clock -- sleep D` followed by
#             `perf script` (the two CPU times added, the larger peak RSS)
#   bpftrace  `profile:hz:99 { @[kstack, ustack, comm] = count() }` for D
#             seconds (BPF: stacks counted in the kernel, symbolized at exit)
#   bcc       `profile-bpfcc -F 99 -f D`, when it can compile its program
#             (it needs the running kernel's headers)
#
# Each tool runs under bench/tkrun, which gives the user+sys CPU time and
# the peak RSS of it and its children; R rounds, medians.  Ratios are
# tapkit's profile / each peer.  A peer that is missing or cannot run here
# gets a line saying so.

usage() {
	cat <<-EOF2
	Measure a 99 Hz whole-machine profile with stacks: the CPU time and
	peak RSS of tapkit's profile and language against perf record -g +
	perf script, bpftrace and profile-bpfcc.

	USAGE: bench/tapkit_profile.sh [-d SECS] [-r R] [-v]

	  -d SECS  profile length (default 10)
	  -r R     rounds (default 3)
	  -v       more detail on stderr
	  -h       this help

	Run as root after 'make && make tests-build'.
	EOF2
}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

D=10
R=3
OPTIND=1
while getopts "d:r:vh" opt; do
	case $opt in
	d) D=$OPTARG ;;
	r) R=$OPTARG ;;
	v) VERBOSE=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $D in ''|*[!0-9]*|0) log "bench: -d needs a number > 0"; exit 2 ;; esac
case $R in ''|*[!0-9]*|0) log "bench: -r needs a number > 0"; exit 2 ;; esac

bench_init
SPIN=$ROOT/build/tests/helpers/spin
[ -x "$SPIN" ] || { log "bench: build/tests/helpers/spin is not built (make tests-build)"; exit 1; }
SPINS=()

stop_spins() {
	local p
	for p in "${SPINS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	SPINS=()
}
trap 'stop_spins; bench_cleanup' EXIT

# The stack key: backtraces where the language has them.
if "$BIN/tapkit" -p2 -e 'global s
probe perf.sw.cpu_clock.hz(99) { s[backtrace(), ubacktrace()] <<< 1 }' >/dev/null 2>&1; then
	KEY=stacks
	TK_PROG='global s, n
probe perf.sw.cpu_clock.hz(99) { s[execname(), backtrace(), ubacktrace()] <<< 1; n++ }
probe end {
	printf("samples %d\n", n)
	foreach ([c, k, u] in s-) {
		printf("%s %d\n", c, @count(s[c, k, u]))
		print_stack(k)
		print_ustack(u)
	}
}'
else
	KEY=address
	log "bench: this tapkit has no backtrace(): keyed by process and sampled address"
	TK_PROG='global s, n
probe perf.sw.cpu_clock.hz(99) { s[execname(), pid(), uaddr()] <<< 1; n++ }
probe end { printf("samples %d\n", n); foreach ([c, p, a] in s-) printf("%s %d %#x %d\n", c, p, a, @count(s[c, p, a])) }'
fi

# stat FILE KEY: a value of tkrun's stats
stat() { sed -n "s/^$2=//p" "$1"; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

run_tapkit() {
	local st=$TMP/tk.$1
	"$BB/tkrun" -s "$st" -- "$BIN/tapkit" -D MAXACTION=10000000 -T "$D" -o "$TMP/tk.out.$1" -e "$TK_PROG" \
		2>"$TMP/tk.err.$1"
	[ "$(stat "$st" status)" = 0 ] || { log "bench: tapkit failed:"; cat "$TMP/tk.err.$1" >&2; return 1; }
	echo "$(( ($(stat "$st" user_us) + $(stat "$st" sys_us)) / 1000 )) $(stat "$st" maxrss_kb)" \
		"$(sed -n 's/^samples //p' "$TMP/tk.out.$1")" >> "$TMP/tk.res"
	vlog "  tapkit round $1: $(tail -1 "$TMP/tk.res") (cpu ms, rss kB, samples)"
}

run_perf() {
	local st1=$TMP/pr.$1 st2=$TMP/ps.$1 cpu rss1 rss2
	"$BB/tkrun" -s "$st1" -- perf record -q -F 99 -g -a -e cpu-clock \
		-o "$TMP/perf.data" -- sleep "$D" 2>"$TMP/perf.err.$1" >/dev/null
	[ "$(stat "$st1" status)" = 0 ] || { log "bench: perf record failed:"; cat "$TMP/perf.err.$1" >&2; return 1; }
	"$BB/tkrun" -s "$st2" -- perf script -i "$TMP/perf.data" \
		>"$TMP/perf.out.$1" 2>>"$TMP/perf.err.$1"
	[ "$(stat "$st2" status)" = 0 ] || { log "bench: perf script failed:"; cat "$TMP/perf.err.$1" >&2; return 1; }
	cpu=$(( ($(stat "$st1" user_us) + $(stat "$st1" sys_us) +
		 $(stat "$st2" user_us) + $(stat "$st2" sys_us)) / 1000 ))
	rss1=$(stat "$st1" maxrss_kb) rss2=$(stat "$st2" maxrss_kb)
	echo "$cpu $(( rss1 > rss2 ? rss1 : rss2 )) $(grep -c 'cpu-clock' "$TMP/perf.out.$1")" \
		>> "$TMP/perf.res"
	vlog "  perf round $1: $(tail -1 "$TMP/perf.res") (cpu ms, rss kB, samples)"
	rm -f "$TMP/perf.data"
}

# run_cmd ID ROUND SAMPLES_FN CMD...: one run of CMD under tkrun; the
# samples counted from its output by SAMPLES_FN FILE
run_cmd() {
	local id=$1 r=$2 fn=$3 st=$TMP/$1.st.$2
	shift 3
	"$BB/tkrun" -s "$st" -- "$@" >"$TMP/$id.out.$r" 2>"$TMP/$id.err.$r"
	[ "$(stat "$st" status)" = 0 ] || { log "bench: $id failed:"; tail -5 "$TMP/$id.err.$r" >&2; return 1; }
	echo "$(( ($(stat "$st" user_us) + $(stat "$st" sys_us)) / 1000 )) $(stat "$st" maxrss_kb)" \
		"$("$fn" "$TMP/$id.out.$r")" >> "$TMP/$id.res"
	vlog "  $id round $r: $(tail -1 "$TMP/$id.res") (cpu ms, rss kB, samples)"
}
samples_json() { jq -s '[.[].count] | add // 0' "$1"; }
samples_folded() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
samples_bpftrace() { sed -n 's/.*\]: \([0-9]*\)$/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }

BPF_PROG="profile:hz:99 { @[kstack, ustack, comm] = count(); } interval:s:$D { exit(); }"
HAVE_BPF=1
if ! have bpftrace || ! timeout 60 bpftrace -e 'profile:hz:99 { @n = count(); } interval:s:1 { exit(); }' >/dev/null 2>&1; then
	HAVE_BPF=0
	log "bench: bpftrace is missing or cannot run here: skipping it"
fi
HAVE_BCC=1
if ! have profile-bpfcc || ! timeout 120 profile-bpfcc -F 99 -f 1 >/dev/null 2>"$TMP/bcc.try"; then
	HAVE_BCC=0
	BCC_WHY=$(grep -m1 -E 'Exception|error' "$TMP/bcc.try" 2>/dev/null || echo "not installed")
	log "bench: profile-bpfcc cannot run here ($BCC_WHY): skipping it"
fi

HAVE_PERF=1
if ! have perf || ! perf version >/dev/null 2>&1; then
	HAVE_PERF=0
	log "bench: perf is not installed (apt-get install linux-perf): skipping it"
fi

# the workload: a spinning process per CPU for every round
for _ in $(seq 1 "$(nproc)"); do
	"$SPIN" $(( (D + 5) * R * 2 * 1000 )) >/dev/null &
	SPINS+=("$!")
done

: > "$TMP/tk.res"
: > "$TMP/perf.res"
: > "$TMP/prof.res"
: > "$TMP/bpf.res"
: > "$TMP/bcc.res"
for r in $(seq 1 "$R"); do
	log "round $r/$R"
	run_cmd prof "$r" samples_json "$BIN/profile" -F 99 -j "$D" || exit 1
	run_tapkit "$r" || exit 1
	[ "$HAVE_PERF" = 0 ] || run_perf "$r" || exit 1
	[ "$HAVE_BPF" = 0 ] || run_cmd bpf "$r" samples_bpftrace \
		sh -c "ulimit -l unlimited 2>/dev/null; exec bpftrace -e '$BPF_PROG'" || exit 1
	[ "$HAVE_BCC" = 0 ] || run_cmd bcc "$r" samples_folded profile-bpfcc -F 99 -f "$D" || exit 1
done
stop_spins

# line LABEL RESFILE: the medians of a configuration
line() {
	printf '%-44s %10s %12s %8s\n' "$1" "$(awk '{ print $1 }' "$2" | median)" \
		"$(awk '{ print $2 }' "$2" | median)" "$(awk '{ print $3 }' "$2" | median)"
}
# ratio LABEL RESFILE: profile's cpu and rss over that configuration's
ratio() {
	local c r
	c=$(awk '{ print $1 }' "$2" | median) r=$(awk '{ print $2 }' "$2" | median)
	printf '%-44s %10s %12s\n' "ratio profile / $1" \
		"$(f_ratio "$(awk '{ print $1 }' "$TMP/prof.res" | median)" "$c")" \
		"$(f_ratio "$(awk '{ print $2 }' "$TMP/prof.res" | median)" "$r")"
}
printf '# 99 Hz profile of %d CPUs for %d s, %d rounds, tapkit stack key: %s (medians)\n' \
	"$(nproc)" "$D" "$R" "$KEY"
printf '%-44s %10s %12s %8s\n' "profiler" "cpu_ms" "peak_rss_kB" "samples"
line "tapkit profile -F 99 -j" "$TMP/prof.res"
line "tapkit perf.sw.cpu_clock.hz(99)" "$TMP/tk.res"
if [ "$HAVE_PERF" = 1 ]; then
	line "perf record -F 99 -g -a + perf script" "$TMP/perf.res"
else
	echo "perf: not installed, skipped"
fi
if [ "$HAVE_BPF" = 1 ]; then
	line "bpftrace profile:hz:99 kstack,ustack,comm" "$TMP/bpf.res"
else
	echo "bpftrace: missing or cannot run here, skipped"
fi
if [ "$HAVE_BCC" = 1 ]; then
	line "profile-bpfcc -F 99 -f" "$TMP/bcc.res"
else
	echo "profile-bpfcc: cannot run here ($BCC_WHY), skipped"
fi
ratio "tapkit language" "$TMP/tk.res"
[ "$HAVE_PERF" = 0 ] || ratio perf "$TMP/perf.res"
[ "$HAVE_BPF" = 0 ] || ratio bpftrace "$TMP/bpf.res"
[ "$HAVE_BCC" = 0 ] || ratio bcc "$TMP/bcc.res"
