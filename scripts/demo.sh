#!/usr/bin/env bash
# make demo: a short live tour of tapkit on this machine.  Every step makes
# its own workload, shows the command and what it saw, and ends by itself.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/bin
loop=$top/build/tests/helpers/sysloop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bold=$(tput bold 2>/dev/null || true) off=$(tput sgr0 2>/dev/null || true)
step() { printf '\n%s==> %s%s\n' "$bold" "$1" "$off"; }
show() { printf '%s$ %s%s\n' "$bold" "$*" "$off"; }

if [ "$(id -u)" != 0 ]; then
	echo "demo: tracing needs root: run 'sudo make demo'" >&2
	exit 1
fi

# run_traced SECS CMD... -- WORKLOAD: start a tool, wait until it is live,
# run the workload, stop the tool with Ctrl-C (SIGINT) and print its output.
run_traced() {
	local ready=$tmp/ready.$RANDOM args=()
	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	shift
	show "${args[*]}"
	TAPKIT_READY_FILE=$ready "$bin/${args[0]}" "${args[@]:1}" >"$tmp/out" 2>"$tmp/err" &
	local pid=$!
	for _ in $(seq 1 100); do [ -e "$ready" ] && break; sleep 0.05; done
	"$@"
	sleep 0.3
	kill -INT "$pid"
	wait "$pid"
	cat "$tmp/out"
	grep -v '^Tracing' "$tmp/err" >&2 || true
}

step "tpoint -l: the tracepoints of this kernel (first five scheduler ones)"
show "tpoint -l 'sched:*' | head -5"
"$bin/tpoint" -l 'sched:*' | head -5

step "execsnoop: every exec, with its arguments; -x adds failed ones"
echo "    (the demo runs: ls /, date -u, and a command that does not exist)"
run_traced execsnoop -x -v -- sh -c 'ls / >/dev/null; date -u >/dev/null; /no/such/cmd 2>/dev/null; true'

step "killsnoop: signals sent with kill/tkill/tgkill, and their results"
(trap '' USR1; exec sleep 30) & target=$!
ln -s /bin/sh "$tmp/tk-demo-kill"	# a sender name to filter on (-n)
echo "    (tk-demo-kill signals PID $target twice, then a PID that does not exist)"
run_traced killsnoop -n tk-demo-kill -- "$tmp/tk-demo-kill" -c \
	"kill -USR1 $target; kill -TERM $target; kill -0 999999 2>/dev/null; true"
wait "$target" 2>/dev/null

step "exitsnoop: process exits with their age and status"
echo "    (the demo runs: exit 3, a sleep killed with SIGTERM, a 0.2 s sleep)"
cmd="sh -c 'exit 3'; sleep 5 & kill -TERM \$!; sleep 0.2"
show "exitsnoop -c \"$cmd\""
"$bin/exitsnoop" -c "$cmd" 2>/dev/null

step "softirqs -C: softirq runs by vector, while loopback UDP makes net_rx"
show "softirqs -C 1 1"
"$bin/softirqs" -C 1 1 2>/dev/null &
sirq=$!
python3 -c 'import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(200): s.sendto(b"x", r.getsockname()); r.recv(10)' 2>/dev/null
wait "$sirq"

step "hardirqs: time in hard interrupt handlers for a second, as histograms"
show "hardirqs -d 1 1"
"$bin/hardirqs" -d 1 1 2>/dev/null | head -40

step "syscount -p: exact counts from the kernel's counters (no records)"
echo "    (the workload makes exactly 123456 getppid() calls)"
mkfifo "$tmp/go"
"$loop" wait-stdin getppid 123456 <"$tmp/go" & wl=$!
show "syscount -p $wl"
TAPKIT_READY_FILE=$tmp/ready.sc "$bin/syscount" -p "$wl" >"$tmp/out" 2>/dev/null &
sc=$!
for _ in $(seq 1 100); do [ -e "$tmp/ready.sc" ] && break; sleep 0.05; done
echo x >"$tmp/go"
wait "$wl"; wait "$sc"	# syscount ends when its target does
cat "$tmp/out"

step "syscount -P -L: by process, with time spent in syscalls, for 1 second"
show "syscount -P -L -T 5 -d 1"
"$bin/syscount" -P -L -T 5 -d 1 2>/dev/null

step "runqlat and cpudist: scheduler latency and on-CPU time, from the sched tracepoints"
pp=$top/build/tests/helpers/schedpp
echo "    (schedpp: two real-time threads on one CPU, 5 rounds of pipe ping-pong, 20 ms"
echo "     of CPU and a 10 ms sleep each; its child spins on that CPU at SCHED_IDLE)"
show "runqlat -c 'schedpp 5 20 10'"
echo go | "$bin/runqlat" -c "$pp 5 20 10 /dev/null rt" 2>/dev/null
show "cpudist -m -P -c 'schedpp 5 20 10'    # the 20 ms spans are in 16 -> 31"
echo go | "$bin/cpudist" -m -P -c "$pp 5 20 10 /dev/null rt" 2>/dev/null

step "tracetop -b: the live view as text; a process's syscalls by name (its drill-down)"
echo "    (tracetop's screen does this live: Enter on a row drills, Backspace goes back)"
"$loop" wait-stdin getppid 200000 < "$tmp/go" & wl=$!
show "tracetop -b -n 2 -d 0.5 -N 5 syscalls"
"$bin/tracetop" -b -n 2 -d 0.5 -N 5 syscalls 2>/dev/null
show "tracetop -b -m cumulative syscalls-pid -F pid=$wl    # the workload: 200000 getppid() calls"
TAPKIT_READY_FILE=$tmp/ready.tt "$bin/tracetop" -b -m cumulative -d 0.5 syscalls-pid -F pid="$wl" \
	>"$tmp/out" 2>/dev/null & tt=$!
for _ in $(seq 1 100); do [ -e "$tmp/ready.tt" ] && break; sleep 0.05; done
echo x > "$tmp/go"; wait "$wl"; sleep 0.6
kill -INT "$tt"; wait "$tt"
# the last interval printed: the totals
awk '/^tracetop - /{ n = NR } { line[NR] = $0 } END { for (i = n; i <= NR; i++) print line[i] }' "$tmp/out"

step "tcplife: TCP sessions with their bytes each way (tcpconnect, tcpaccept, tcpretrans alike)"
echo "    (a client sends 300000 bytes to a server on ::1, which answers 70000)"
run_traced tcplife -w -- python3 "$top/tests/helpers/tcpwork.py" pair 6 300000 70000 client

step "tpoint -j: one tracepoint as JSON Lines, with a kernel filter"
run_traced tpoint -j sched:sched_process_exec 'filename ~ "*uname*"' -- uname -r

step "tapkit: a SystemTap script over tracepoints, no kernel module, no compiler"
work=$top/build/tests/helpers/demowork
script='global calls
probe syscall.* { if (pid() == target()) calls[name]++ }
probe end { foreach (n in calls- limit 5) printf("%6d %s\n", calls[n], n) }'
show "tapkit -e '$script' -c 'ls -R /usr/share/doc'"
"$bin/tapkit" -e "$script" -o "$tmp/out" -c 'ls -R /usr/share/doc' >/dev/null 2>"$tmp/err"
cat "$tmp/out"
grep -v '^Tracing' "$tmp/err" | head -3 >&2 || true

step "tapkit: syscalls with their arguments as stap prints them (argstr), strace-like"
echo "    (the paths are strings where the kernel has event probes, else addresses)"
script='probe syscall.openat, syscall.read, syscall.close { if (pid() == target()) printf("%s(%s)\n", name, argstr) }'
show "tapkit -e '$script' -c 'cat /etc/hostname'"
"$bin/tapkit" -e "$script" -o "$tmp/out" -c 'cat /etc/hostname' >/dev/null 2>"$tmp/err"
tail -6 "$tmp/out"
grep -v '^Tracing' "$tmp/err" | head -3 >&2 || true

step "tapkit: the time each call of a function takes, by name, with its arguments"
echo "    (demowork handles 5 requests in handle_request(), each sleeping 20 ms)"
show "tapkit scripts/examples/functime.stp $work handle_request -c '$work 5 20'"
"$bin/tapkit" "$top/scripts/examples/functime.stp" "$work" handle_request -o "$tmp/out" \
	-c "$work 5 20" >/dev/null 2>"$tmp/err"
cat "$tmp/out"
grep -v '^Tracing' "$tmp/err" | head -3 >&2 || true
script='probe process(@1).function("handle_request").return { printf("request %d took %d ms, returned %d\n", $r->id, $r->ms, $return) }'
show "tapkit -e '$script' $work -c '$work 3 10'"
"$bin/tapkit" -e "$script" "$work" -c "$work 3 10" 2>&1 | grep -v '^handled'

step "tapkit --prometheus: a script's counters scraped over HTTP, as Prometheus does"
echo "    (sysloop makes 2500 getppid() calls; curl asks /metrics as a scraper would)"
script='global c
probe syscall.getppid { if (execname() == "sysloop") c[execname()]++ }
probe prometheus { @prometheus_dump_array1(c, "getppid_calls", "comm") }'
show "tapkit --prometheus 127.0.0.1:19099 -e '$script'"
TAPKIT_READY_FILE=$tmp/ready.prom "$bin/tapkit" --prometheus 127.0.0.1:19099 -e "$script" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 100); do [ -e "$tmp/ready.prom" ] && break; sleep 0.05; done
"$loop" getppid 2500
sleep 0.3
show "curl -s http://127.0.0.1:19099/metrics"
curl -s http://127.0.0.1:19099/metrics
kill -INT "$pid"
wait "$pid"
grep -v '^Tracing' "$tmp/err" >&2 || true

step "profile: CPU stacks sampled at 999 Hz, counted; the hottest ones, folded"
echo "    (cpusplit spends 3 parts of its CPU time in busy_three() for 1 in busy_one())"
split=$top/build/tests/helpers/cpusplit
show "profile -F 999 -f --svg $tmp/cpu.svg --command '$split 40' | sort -k2 -n | tail -2"
"$bin/profile" -F 999 -f --svg "$tmp/cpu.svg" --command "$split 40" 2>/dev/null |
	sort -t' ' -k2 -n | tail -2
echo "    (and a flame graph: $(grep -c '<g class="func">' "$tmp/cpu.svg") frames in cpu.svg)"

step "offcputime: blocked time by stack (napper sleeps 30 ms 5 times in nap_here())"
nap=$top/build/tests/helpers/napper
show "offcputime -f -U -c '$nap 30 5' | sort -t' ' -k2 -n | tail -1"
"$bin/offcputime" -f -U -c "$nap 30 5" 2>/dev/null | sort -t' ' -k2 -n | tail -1

step "stackcount: the stacks that lead to an event, counted (sampled by perf_event at every hit)"
echo "    (stackprog calls main -> a -> b -> c, and c makes one getppid() system call)"
sp=$top/build/tests/helpers/stackprog
show "stackcount -U -c '$sp main 0' t:syscalls:sys_enter_getppid"
"$bin/stackcount" -U -c "$sp main 0" t:syscalls:sys_enter_getppid 2>/dev/null

step "cachestat: page cache misses and hits of one command"
echo "    (pcio evicts 64 pages of a file, then reads them twice: 64 misses, then 64 hits;"
echo "    its own start-up may add a few)"
pcio=$top/build/tests/helpers/pcio
show "cachestat -c '$pcio read $top/build/libtapkit.a 64'"
"$bin/cachestat" -c "$pcio read $top/build/libtapkit.a 64" 2>&1 | sed 's/^cachestat: warning: /    (/; s/tracepoints$/tracepoints)/'

step "ext4slower, fileslower: slow file operations (kprobes)"
if [ -e /sys/kernel/tracing/kprobe_events ]; then
	show "fileslower -c 'dd if=/dev/zero of=$tmp/f bs=1M count=4' 0"
	"$bin/fileslower" -c "dd if=/dev/zero of=$tmp/f bs=1M count=4 status=none" 0 2>/dev/null
else
	echo "    (skipped: this kernel has no kprobes; make check-vm runs them under one that has)"
fi

step "biosnoop, biolatency -D, bitesize: block I/O by the process that issued it, its latency and sizes"
truncate -s 4M "$tmp/disk.img"
if disk=$(losetup -f --show "$tmp/disk.img" 2>/dev/null); then
	echo "    (dd makes 4 O_DIRECT writes of 64 KiB to $disk, a loop device over a file)"
	run_traced biosnoop -d "$disk" -- dd if=/dev/zero of="$disk" bs=64K count=4 oflag=direct status=none
	run_traced biolatency -D -d "$disk" -- dd if=/dev/zero of="$disk" bs=64K count=4 oflag=direct status=none
	show "bitesize -d $disk -c 'dd if=/dev/zero of=$disk bs=16K count=3 oflag=direct'"
	"$bin/bitesize" -d "$disk" -c "dd if=/dev/zero of=$disk bs=16K count=3 oflag=direct status=none" 2>/dev/null
	losetup -d "$disk"
else
	echo "    (skipped: no free loop device to write to)"
fi

step "nothing left behind"
left=$(ls /sys/kernel/tracing/instances 2>/dev/null | grep '^tapkit_' || true)
left+=$(grep -s 'tapkit_' /sys/kernel/tracing/dynamic_events || true)
if [ -z "$left" ]; then
	echo "    no tapkit instance or event group remains in /sys/kernel/tracing"
else
	echo "    still present (a session is running elsewhere?): $left"
fi
printf '\nMore: man -l man/man8/<command>.8, and make check to run the tests.\n'
