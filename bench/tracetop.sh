#!/bin/bash
# bench/tracetop.sh: what tracetop's screen costs, against top and htop
# refreshing at the same rate on the same terminal size.
#
#   1. idle: a view of 1,000 rows (lseek offsets keyed by -e), cumulative,
#      refreshed every second in a 200x60 tmux pane, no events coming: the
#      CPU time tracetop uses over SECS, beside top -d 1 and htop -d 10
#      (htop's delay is in tenths) in panes of the same size;
#   2. busy: the syscalls view (one record per call), syscalls-time (two:
#      the entry and the exit) and the syscount view (a count per call) at
#      RATE events per second from a paced getppid() loop, beside
#      syscount -P and syscount -P -L reading the same records: the CPU
#      each uses, and the events/s tracetop's header shows;
#   3. launch to the first frame: from the fork of tracetop to its
#      $TAPKIT_READY_FILE (bench/tkrun -t, through inotify), which it
#      creates once the first frame (header, titles, status line) is on the
#      screen and tracing is live; syscount -P and syscount beside it, the
#      same kernel work without a screen.
# CPU is utime+stime from /proc/PID/stat over the window, as a % of one CPU.
# The targets are printed as PASS/MISS lines; they never fail the script.

usage() {
	cat <<-EOF
	Measure tracetop's own CPU (idle with 1,000 rows, and under load) and its
	launch to the first frame, beside top and htop.

	USAGE: bench/tracetop.sh [-s SECS] [-r R] [-n RATE] [-v]

	  -s SECS  the length of each CPU window (default 20)
	  -r R     launches to time (default 5)
	  -n RATE  events per second in the busy windows (default 1000000)
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
: > "$TMP/pids"
busy() {
	local name=$1 calls=$2 pid cpu rate spin
	shift 2
	"$BB/getppid_loop" spin "$calls" > /dev/null &
	spin=$!
	SPIN_PID=$spin
	sleep 1
	ready=$TMP/ready.$name
	start_in_pane "$name" "env TAPKIT_READY_FILE=$ready $*"
	for _ in $(seq 1 400); do [ -e "$ready" ] && break; sleep 0.05; done
	pid=$(pane_pid "$name")
	echo "$pid" >> "$TMP/pids"	# (a subshell: TK_PIDS is the caller's)
	sleep 2
	cpu=$(cpu_window "$SECS" "$pid")
	rate=$(header_rate "$name")
	tm send-keys -t "$name" q
	kill -INT "$pid" 2>/dev/null	# a command that takes no q
	wait_gone "$pid"
	kill "$spin"
	wait "$spin" 2>/dev/null
	SPIN_PID=""
	echo "$cpu ${rate:--}"
}
log "busy: $RATE events/s, syscalls view then syscount view, ${SECS} s each"
read -r BUSY_TT BUSY_TT_RATE <<< "$(busy busy1 "$RATE" "$BIN/tracetop" -d 1 syscalls)"
read -r BUSY_SP _ <<< "$(busy busy2 "$RATE" "$BIN/syscount" -P)"
read -r BUSY_TL BUSY_TL_RATE <<< "$(busy busy3 $((RATE / 2)) "$BIN/tracetop" -d 1 syscalls-time)"
read -r BUSY_SPL _ <<< "$(busy busy4 $((RATE / 2)) "$BIN/syscount" -P -L)"
read -r BUSY_TC BUSY_TC_RATE <<< "$(busy busy5 "$RATE" "$BIN/tracetop" -d 1 syscount)"

# ---- 3. launch to the first frame -------------------------------------------
# launch ID CMD...: median and min over R runs of the fork of CMD (in a
# pane, the terminal's foreground job) to its ready file, as bench/tkrun
# sees them (inotify); CMD quits on q or SIGINT
launch() {
	local id=$1 i ready pid stats
	shift
	: > "$TMP/launch.$id"
	for i in $(seq 1 "$R"); do
		ready=$TMP/ready.$id.$i
		stats=$TMP/stats.$id.$i
		start_in_pane "l$id$i" "env TAPKIT_READY_FILE=$ready $BB/tkrun -t -s $stats -r $ready -- $*"
		for _ in $(seq 1 200); do [ -e "$ready" ] && break; sleep 0.02; done
		pid=$(pane_pid "l$id$i")
		tm send-keys -t "l$id$i" q
		kill -INT "$pid" 2>/dev/null	# a command that takes no q
		wait_gone "$pid"
		[ -s "$stats.pid" ] && cat "$stats.pid" >> "$TMP/pids"
		awk -F= '$1 == "ready_ns" && $2 > 0 { printf "%.1f\n", $2 / 1e6 }' "$stats" >> "$TMP/launch.$id"
		# the kernel frees the last run's instance after it exits:
		# each launch starts on a quiet tracing core
		sleep 1
	done
	sort -g "$TMP/launch.$id" | awk '{ a[NR] = $1 } END { if (!NR) print "- -"; else printf "%s %s\n", (NR % 2 ? a[(NR+1)/2] : sprintf("%.1f", (a[NR/2] + a[NR/2+1]) / 2)), a[1] }'
}
log "launch to the first frame: $R runs of each view"
read -r LAUNCH_MED LAUNCH_MIN <<< "$(launch syscalls "$BIN/tracetop" -d 1)"
read -r LAUNCH_C_MED LAUNCH_C_MIN <<< "$(launch syscount "$BIN/tracetop" -d 1 syscount)"
# the same kernel work without a screen: syscount -P records the same two
# events in the same kind of ring, plain syscount opens the same counters
read -r LAUNCH_SP_MED LAUNCH_SP_MIN <<< "$(launch scP "$BIN/syscount" -P)"
read -r LAUNCH_S_MED LAUNCH_S_MIN <<< "$(launch sc "$BIN/syscount")"

while read -r p; do TK_PIDS+=("$p"); done < "$TMP/pids"

# ---- report ---------------------------------------------------------------------
echo
bench_header "bench/tracetop.sh: tracetop's own cost, beside top and htop"
echo
printf '%-58s %8s\n' "idle, 1,000 rows ($ROWS on screen), refresh 1 s:" "% CPU"
printf '  %-56s %8s\n' "tracetop -d 1 -m cumulative -e ... -k offset" "$IDLE_TT"
printf '  %-56s %8s\n' "top -d 1" "$IDLE_TOP"
printf '  %-56s %8s\n' "htop -d 10" "$IDLE_HTOP"
echo
printf '%-58s %8s %12s\n' "busy, $RATE events/s from a paced getppid() loop:" "% CPU" "header ev/s"
printf '  %-56s %8s %12s\n' "tracetop syscalls ($RATE calls/s, a record each)" "$BUSY_TT" "$BUSY_TT_RATE"
printf '  %-56s %8s %12s\n' "  syscount -P (the same records)" "$BUSY_SP" "-"
printf '  %-56s %8s %12s\n' "tracetop syscalls-time ($((RATE / 2)) calls/s, 2 records each)" "$BUSY_TL" "$BUSY_TL_RATE"
printf '  %-56s %8s %12s\n' "  syscount -P -L (the same records, timed)" "$BUSY_SPL" "-"
printf '  %-56s %8s %12s\n' "tracetop syscount ($RATE calls/s, counted in the kernel)" "$BUSY_TC" "$BUSY_TC_RATE"
echo
echo "launch to the first frame (median of $R):"
printf '  %-56s %8s ms (min %s)\n' "tracetop (the syscalls view: 2 events in the ring)" "$LAUNCH_MED" "$LAUNCH_MIN"
printf '  %-56s %8s ms (min %s)\n' "syscount -P (the same events, no screen)" "$LAUNCH_SP_MED" "$LAUNCH_SP_MIN"
printf '  %-56s %8s ms (min %s)\n' "tracetop syscount (a counter per syscall and CPU)" "$LAUNCH_C_MED" "$LAUNCH_C_MIN"
printf '  %-56s %8s ms (min %s)\n' "syscount (the same counters, no screen)" "$LAUNCH_S_MED" "$LAUNCH_S_MIN"
echo
echo "Targets:"
target_under "idle with 1,000 rows under 1% of a CPU" "$IDLE_TT" 1 "tracetop $IDLE_TT%, top $IDLE_TOP%, htop $IDLE_HTOP%"
target_under "syscount view under 5% of a CPU at $RATE events/s" "$BUSY_TC" 5 "$BUSY_TC% at ${BUSY_TC_RATE} ev/s"
target_under "syscalls view under 5% of a CPU at $RATE events/s" "$BUSY_TT" 5 "$BUSY_TT% at ${BUSY_TT_RATE} ev/s (syscount -P $BUSY_SP%); syscalls-time $BUSY_TL% (syscount -P -L $BUSY_SPL%)"
target_under "launch to the first frame under 50 ms" "$LAUNCH_MED" 50 "tracetop $LAUNCH_MED ms (syscount -P $LAUNCH_SP_MED ms), tracetop syscount $LAUNCH_C_MED ms (syscount $LAUNCH_S_MED ms) (medians)"
print_leftovers
