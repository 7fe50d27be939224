# The schedpp workload for runqlat.bats and cpudist.bats (sourced after
# helpers.bash): two SCHED_FIFO threads pinned to one CPU playing ROUNDS
# rounds of pipe ping-pong per batch, the worker burning BUSY_MS of CPU and
# sleeping SLEEP_MS each round, and a SCHED_IDLE spinner child process on
# the same CPU (tests/helpers/schedpp.c says why).
#
# What is exact.  Between batches both threads are blocked in read(), so
# a batch is a closed piece of their lives: every switch-in in it follows
# an enqueue in it (a wakeup, or a switch away while runnable), and every
# switch-out a switch-in.  runqlat therefore counts one latency per
# switch-in of a thread, and cpudist one span per switch-in/switch-out
# pair, one per switch-out: the threads' context switch counters in /proc
# say how many.  Some guest kernels record no sched_switch event for a few
# switches, and not always in every tracing instance alike, so the events
# are also recorded beside the tool by tpoint (its own ring, no pairing):
# a count must lie between what tpoint's events imply and what /proc
# says, which are the same number unless an event went missing.  SCHED_FIFO keeps
# ordinary tasks from cutting the busy spans short; a real-time kernel
# thread still could, which the involuntary counter shows, so span
# buckets are checked within that bound too.

SCHEDPP=$TAPKIT_TOP/build/tests/helpers/schedpp

# start_pp ROUNDS BUSY_MS SLEEP_MS: $WL_PID, $MAIN, $WORKER, $SPINNER
start_pp() {
	local fifo=$BATS_TEST_TMPDIR/pp.fifo i
	PP_INFO=$BATS_TEST_TMPDIR/pp.info
	rm -f "$fifo" "$PP_INFO"
	mkfifo "$fifo"
	"$SCHEDPP" "$@" "$PP_INFO" rt <"$fifo" &
	WL_PID=$!
	exec {WL_FD}>"$fifo"
	for i in $(seq 1 200); do
		grep -q '^tids' "$PP_INFO" 2>/dev/null && break
		sleep 0.05
	done
	read -r _ MAIN WORKER SPINNER < <(grep '^tids' "$PP_INFO")
	[ -n "$SPINNER" ]
}

# csw TID: the thread's context switches so far (voluntary + not)
csw() {
	awk '/ctxt_switches/ { n += $2 } END { print n }' "/proc/$WL_PID/task/$1/status"
}

# nivcsw TID: its involuntary ones
nivcsw() {
	awk '/^nonvoluntary_ctxt_switches/ { print $2 }' "/proc/$WL_PID/task/$1/status"
}

# pp_parked: both threads blocked in read() (state S), and settled
pp_parked() {
	local t i
	for t in "$MAIN" "$WORKER"; do
		for i in $(seq 1 200); do
			[ "$(awk '{ print $3 }' "/proc/$WL_PID/task/$t/stat")" = S ] && break
			sleep 0.01
		done
	done
	sleep 0.2
}

# pp_batch: one batch of rounds, counting each thread's switches in it:
# $D_MAIN, $D_WORKER, and the worker's involuntary ones $IV_WORKER; their
# sched_switch events in $REF (tpoint's JSON Lines)
pp_batch() {
	local m0 w0 iv0 n i ready=$BATS_TEST_TMPDIR/ref.ready ref
	REF=$BATS_TEST_TMPDIR/ref.jsonl
	rm -f "$ready"
	TAPKIT_READY_FILE=$ready tpoint -j sched:sched_switch \
		"prev_pid == $MAIN || next_pid == $MAIN || prev_pid == $WORKER || next_pid == $WORKER" \
		>"$REF" 2>/dev/null {WL_FD}>&- &
	ref=$!
	for i in $(seq 1 200); do [ -e "$ready" ] && break; sleep 0.05; done
	pp_parked
	m0=$(csw "$MAIN") w0=$(csw "$WORKER") iv0=$(nivcsw "$WORKER")
	n=$(grep -c '^done' "$PP_INFO" || true)
	echo go >&"$WL_FD"
	for i in $(seq 1 600); do
		[ "$(grep -c '^done' "$PP_INFO")" -gt "$n" ] && break
		sleep 0.05
	done
	pp_parked
	D_MAIN=$(($(csw "$MAIN") - m0))
	D_WORKER=$(($(csw "$WORKER") - w0))
	IV_WORKER=$(($(nivcsw "$WORKER") - iv0))
	kill -INT "$ref"
	wait "$ref"
}

# ref KIND TID: from $REF, what tpoint's events imply for thread TID:
# "in" its switch-ins (runqlat's latencies), "on" its switch-ins followed
# by a switch-out (cpudist's spans), "off" its switch-outs followed by a
# switch-in (cpudist -O's), "missed" its switch-outs followed by another
# (a switch-in whose event went missing)
ref() {
	python3 - "$REF" "$@" <<'PY'
import json, sys
kind, tid = sys.argv[2], int(sys.argv[3])
seq = []
for line in open(sys.argv[1]):
    f = json.loads(line)["fields"]
    if f["next_pid"] == tid:
        seq.append("in")
    if f["prev_pid"] == tid:
        seq.append("out")
pairs = list(zip(seq, seq[1:]))
print({"in": seq.count("in"),
       "on": pairs.count(("in", "out")),
       "off": pairs.count(("out", "in")),
       "missed": pairs.count(("out", "out"))}[kind])
PY
}

# end_pp: EOF, the workload exits
end_pp() {
	[ -n "${WL_FD:-}" ] && exec {WL_FD}>&-
	WL_FD=
	wait "$WL_PID" 2>/dev/null || true
}

# hist FILE [SECTION]: "KEY COUNT" per section of bcc's text histograms
# ("all COUNT" without sections), and with SECTION=KEY only that one's
# rows as "LOW HIGH COUNT"
hist() {
	python3 - "$@" <<'PY'
import re, sys
sec, rows, cur = {}, {}, "all"
for line in open(sys.argv[1]):
    m = re.match(r"^(pid|tid|pidns) = (\d+)", line)
    if m:
        cur = m.group(2)
        continue
    m = re.match(r"^\s+(\d+) -> (\d+)\s+: (\d+)\s+\|", line)
    if m:
        sec[cur] = sec.get(cur, 0) + int(m.group(3))
        rows.setdefault(cur, []).append(m.groups())
if len(sys.argv) > 2:
    for r in rows.get(sys.argv[2], []):
        print(*r)
else:
    for k, v in sec.items():
        print(k, v)
PY
}

# bucket FILE SECTION LOW: the count of row "LOW -> ..." (0 when absent)
bucket() {
	hist "$1" "$2" | awk -v lo="$3" '$1 == lo { n = $3 } END { print n + 0 }'
}

# buckets_from FILE SECTION LOW: the counts of the rows from "LOW -> ..." up.
# A span the guest sees as on-CPU or asleep lasts longer, never shorter,
# when the host stops running the guest's vCPU for a while (a loaded host
# does, for 100 ms and more), so a known span is looked for in its bucket
# or above.
buckets_from() {
	hist "$1" "$2" | awk -v lo="$3" '$1 >= lo { n += $3 } END { print n + 0 }'
}

# counts_within [-s] OUTPUT KEY LO HI [KEY LO HI ...]: hist's "KEY COUNT"
# lines in OUTPUT are exactly these keys (with -s: include them), each
# count within [LO, HI]
counts_within() {
	local sub=0
	[ "$1" = -s ] && { sub=1; shift; }
	python3 - "$sub" "$@" <<'PY'
import sys
sub, out, a = sys.argv[1] == "1", sys.argv[2], sys.argv[3:]
got = dict(l.split() for l in out.splitlines() if l.strip())
want = {a[i]: (int(a[i + 1]), int(a[i + 2])) for i in range(0, len(a), 3)}
assert (set(want) <= set(got)) if sub else set(got) == set(want), (got, want)
for k, (lo, hi) in want.items():
    assert lo <= int(got[k]) <= hi, (k, got[k], lo, hi)
PY
}
