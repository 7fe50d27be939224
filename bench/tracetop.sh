#!/bin/bash
# bench/tracetop.sh: what tracetop's screen costs, against top and htop
# refreshing at the same rate on the same terminal size.
#
#   1. idle: a view of 1,000 rows (lseek offsets keyed by -e), cumulative,
#      refreshed every second in a 200x60 tmux pane, no events coming: the
#      CPU time tracetop uses over SECS, beside top -d 1 and htop -d 10
#      (htop's delay is in tenths) in panes of the same size;
#   2. busy: the syscalls view (a record per call) and the syscount view
#      (counting in the kernel) on the same screen while a paced getppid()
#      loop makes RATE calls per second: tracetop's CPU, and the events/s its
#      header shows;
#   3. launch to the first frame: from the exec of tracetop to its
#      $TAPKIT_READY_FILE, which it creates once the first frame (header,
#      titles, status line) is on the screen and tracing is live.
# CPU is utime+stime from /proc/PID/stat over the window, as a % of one CPU.
# The targets are printed as PASS/MISS lines; they never fail the script.

usage() {
	cat <<-EOF
	Measure tracetop's own CPU (idle with 1,000 rows, and under load) and its
	launch to the first frame, beside top and htop.

	USAGE: bench/tracetop.sh [-s SECS] [-r R] [-n RATE] [-v]

	  -s SECS  the length of each CPU window (default 20)
	  -r R     launches to time (default 5)
	  -n RATE  getppid() calls per second in the busy window (default 1000000)
	  -v       more detail on stderr
	  -h       this help

	Run as root after 'make && make tests-build'; needs tmux (and top, htop).
	EOF
}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SECS=20
RATE=1000000
R=5
OPTIND=1
while getopts "s:r:n:vh" opt; do
	case $opt in
	s) SECS=$OPTARG ;;
	r) R=$OPTARG ;;
	n) RATE=$OPTARG ;;
	v) VERBOSE=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $SECS$R$RATE in *[!0-9]*|'') log "bench: -s, -r and -n need numbers"; exit 2 ;; esac
have tmux || { log "bench: tmux is needed (apt-get install tmux)"; exit 1; }
bench_init

SOCK=tapkit-bench-$$
tm() { tmux -L "$SOCK" "$@"; }
LOOP=$ROOT/build/tests/helpers/sysloop
[ -x "$LOOP" ] || { log "bench: build/tests/helpers/sysloop missing: make tests-build"; exit 1; }

# cpu_ticks PID: utime+stime in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
HZ=$(getconf CLK_TCK)

# pane_pid NAME: the PID of the program running in window NAME's pane
pane_pid() { tm display-message -p -t "$1" '#{pane_pid}'; }

# start_in_pane NAME CMD...: a window of 200x60 running CMD (exec'ed, so
# the pane's PID is the program's)
start_in_pane() {
	local name=$1
	shift
	tm new-window -d -n "$name" "exec $*"
}

# cpu_window SECS PID...: % of one CPU each PID used over SECS, in order
cpu_window() {
	local secs=$1 p before=() after=() i=0
	shift
	for p in "$@"; do before+=("$(cpu_ticks "$p")"); done
	sleep "$secs"
	for p in "$@"; do after+=("$(cpu_ticks "$p")"); done
	for p in "$@"; do
		awk -v a="${before[$i]}" -v b="${after[$i]}" -v hz="$HZ" -v s="$secs" \
			'BEGIN { printf "%.2f\n", (b - a) * 100 / hz / s }'
		i=$((i + 1))
	done
}

# header_rate NAME: the events/s tracetop's header shows in window NAME
header_rate() { tm capture-pane -p -t "$1" | awk 'NR == 1 { for (i = 1; i < NF; i++) if ($i == "ev/s") print $(i + 1) }'; }

cleanup_panes() { tm kill-server 2>/dev/null || true; }
trap 'cleanup_panes; bench_cleanup' EXIT

tm -f /dev/null new-session -d -x 200 -y 60 -n idle0 "sleep 100000"
tm set-option -g default-size 200x60 >/dev/null 2>&1 || true

# ---- 1. idle, 1,000 rows --------------------------------------------------
log "idle: 1,000 rows, refresh every second, ${SECS} s window"
ready=$TMP/ready.idle
start_in_pane tt "env TAPKIT_READY_FILE=$ready $BIN/tracetop -d 1 -m cumulative -e syscalls:sys_enter_lseek -k offset"
for _ in $(seq 1 200); do [ -e "$ready" ] && break; sleep 0.05; done
TT_PID=$(pane_pid tt)
TK_PIDS+=("$TT_PID")
"$LOOP" seq 1000 1000 0	# lseek offsets 1..1000: one row each
sleep 2
ROWS=$(tm capture-pane -p -t tt | awk '$1 ~ /^[0-9]+$/' | wc -l)
start_in_pane top "top -d 1"
start_in_pane htop "htop -d 10"
sleep 2
read -r IDLE_TT IDLE_TOP IDLE_HTOP <<< "$(cpu_window "$SECS" "$TT_PID" "$(pane_pid top)" "$(pane_pid htop)" | tr '\n' ' ')"
vlog "  rows on screen: $ROWS"
tm send-keys -t tt q
tm kill-window -t top; tm kill-window -t htop
wait_gone() { local i; for i in $(seq 1 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done; return 1; }
wait_gone "$TT_PID"

# ---- 2. busy ----------------------------------------------------------------
busy() {
	local name=$1 view=$2 pid cpu rate
	ready=$TMP/ready.$name
	start_in_pane "$name" "env TAPKIT_READY_FILE=$ready $BIN/tracetop -d 1 $view"
	for _ in $(seq 1 400); do [ -e "$ready" ] && break; sleep 0.05; done
	pid=$(pane_pid "$name")
	TK_PIDS+=("$pid")
	sleep 2
	cpu=$(cpu_window "$SECS" "$pid")
	rate=$(header_rate "$name")
	tm send-keys -t "$name" q
	wait_gone "$pid"
	echo "$cpu ${rate:--}"
}
log "busy: getppid() at $RATE/s, syscalls view then syscount view, ${SECS} s each"
"$BB/getppid_loop" spin "$RATE" > /dev/null &
SPIN_PID=$!
sleep 1
WL_CPU=$(cpu_window 3 "$SPIN_PID")
read -r BUSY_TT BUSY_TT_RATE <<< "$(busy busy1 syscalls)"
read -r BUSY_TC BUSY_TC_RATE <<< "$(busy busy2 syscount)"
kill "$SPIN_PID"; wait "$SPIN_PID" 2>/dev/null; SPIN_PID=""

# ---- 3. launch to the first frame -------------------------------------------
log "launch to the first frame: $R runs"
: > "$TMP/launch"
for i in $(seq 1 "$R"); do
	ready=$TMP/ready.l$i
	rm -f "$ready"
	# the start time is taken in the pane's shell just before exec
	start_in_pane "l$i" "sh -c 'date +%s.%N > $TMP/t0.$i; TAPKIT_READY_FILE=$ready exec $BIN/tracetop -d 1 syscount'"
	for _ in $(seq 1 200); do [ -e "$ready" ] && break; sleep 0.02; done
	pid=$(pane_pid "l$i")
	TK_PIDS+=("$pid")
	awk -v a="$(cat "$TMP/t0.$i")" -v b="$(stat -c %.9Y "$ready")" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >> "$TMP/launch"
	tm send-keys -t "l$i" q
	wait_gone "$pid"
done
read -r LAUNCH_MED LAUNCH_MIN <<< "$(sort -g "$TMP/launch" | awk '{ a[NR] = $1 } END { if (!NR) print "- -"; else printf "%s %s\n", (NR % 2 ? a[(NR+1)/2] : sprintf("%.1f", (a[NR/2] + a[NR/2+1]) / 2)), a[1] }')"

# ---- report ---------------------------------------------------------------------
echo
bench_header "bench/tracetop.sh: tracetop's own cost, beside top and htop"
echo
printf '%-58s %8s\n' "idle, 1,000 rows ($ROWS on screen), refresh 1 s:" "% CPU"
printf '  %-56s %8s\n' "tracetop -d 1 -m cumulative -e ... -k offset" "$IDLE_TT"
printf '  %-56s %8s\n' "top -d 1" "$IDLE_TOP"
printf '  %-56s %8s\n' "htop -d 10" "$IDLE_HTOP"
echo
printf '%-58s %8s %12s\n' "busy, getppid() paced at $RATE/s (the loop: $WL_CPU% CPU):" "% CPU" "header ev/s"
printf '  %-56s %8s %12s\n' "tracetop syscalls (a record per call)" "$BUSY_TT" "$BUSY_TT_RATE"
printf '  %-56s %8s %12s\n' "tracetop syscount (counted in the kernel)" "$BUSY_TC" "$BUSY_TC_RATE"
echo
printf '%-58s %8s ms (min %s)\n' "launch to the first frame (median of $R):" "$LAUNCH_MED" "$LAUNCH_MIN"
echo
echo "Targets:"
target_under "idle with 1,000 rows under 1% of a CPU" "$IDLE_TT" 1 "tracetop $IDLE_TT%, top $IDLE_TOP%, htop $IDLE_HTOP%"
target_under "syscount view under 5% of a CPU at $RATE events/s" "$BUSY_TC" 5 "$BUSY_TC% at ${BUSY_TC_RATE} ev/s"
target_under "syscalls view under 5% of a CPU at $RATE events/s" "$BUSY_TT" 5 "$BUSY_TT% at ${BUSY_TT_RATE} ev/s (a record read and aggregated per call)"
target_under "launch to the first frame under 50 ms" "$LAUNCH_MED" 50 "$LAUNCH_MED ms (median)"
print_leftovers
