#!/usr/bin/env bats
# --prometheus: the script's prometheus probe served over HTTP, scraped by a
# real Prometheus server (Debian's /usr/bin/prometheus), compared with curl
# and with the probe's FIFO, and its errors.  The workload is a sysloop
# making an exact number of getppid() calls, held until tapkit is ready.

load helpers

N=4321

setup() {
	require_root
	require_tracefs_file events/syscalls/sys_enter_getppid
	PROM_PID= SRV_PID=
}

teardown() {
	local p
	for p in "${PROM_PID:-}" "${SRV_PID:-}"; do
		[ -n "$p" ] || continue
		kill -TERM "$p" 2>/dev/null || true
		for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	stop_leftover_tool
}

# The getppid() calls of the process whose PID is $1, by its name and PID.
SCRIPT='global c, byp
probe syscall.getppid {
	if (pid() == $1) {
		c[execname()]++
		byp[execname(), pid()]++
	}
}
probe prometheus {
	@prometheus_dump_array1(c, "getppid_calls", "comm")
	@prometheus_dump_array2(byp, "getppid_by_pid", "comm", "pid")
}'

# free_port: a TCP port nobody listens on at 127.0.0.1, in $PORT
free_port() {
	local i
	for i in $(seq 1 50); do
		PORT=$((20000 + RANDOM % 20000))
		ss -Htln "sport = :$PORT" 2>/dev/null | grep -q . && continue
		(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && continue
		return 0
	done
	echo "# no free port found" >&2
	return 1
}

# start_prom_tool ARGS...: start_tool tapkit --prometheus 127.0.0.1:$PORT
# ARGS on a free $PORT, another one if that was taken meanwhile
start_prom_tool() {
	local try
	for try in 1 2 3 4 5; do
		free_port || return 1
		start_tool tapkit --prometheus "127.0.0.1:$PORT" "$@" && return 0
		grep -q "cannot listen on" "$ERR" || return 1
	done
	return 1
}

# A sysloop making $N getppid() calls, held until release_workload; then
# tapkit counting them.  $WL_PID is the sysloop.
start_counted() {
	start_held "$SYSLOOP" wait-stdin getppid "$N"
	printf '%s\n' "$SCRIPT" >"$BATS_TEST_TMPDIR/prom.stp"
	start_prom_tool "$BATS_TEST_TMPDIR/prom.stp" "$WL_PID"
}

# counted_metrics: start_counted, run the workload, wait until /metrics
# shows its counts; $WL is the workload's PID, $WANT the metrics text
counted_metrics() {
	start_counted
	WL=$WL_PID
	release_workload
	WANT="getppid_calls{comm=\"sysloop\"} $N
getppid_by_pid{comm=\"sysloop\",pid=\"$WL\"} $N"
	wait_metrics "$WANT"
}

# wait_metrics TEXT: GET /metrics answers TEXT within 10 s (tapkit reads the
# workload's last events from the ring a little after it has exited)
wait_metrics() {
	local i body
	for i in $(seq 1 100); do
		body=$(curl -s "http://127.0.0.1:$PORT/metrics")
		[ "$body" = "$1" ] && return 0
		sleep 0.1
	done
	echo "# /metrics answered:" >&2
	printf '%s\n' "$body" | sed 's/^/# /' >&2
	return 1
}

# prom_query EXPR: the result array of an instant query to our Prometheus
prom_query() {
	curl -s -G "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1" | jq -c '.data.result'
}

show_prom() {
	echo "# --- prometheus log" >&2
	tail -30 "$BATS_TEST_TMPDIR/prometheus.log" | sed 's/^/# /' >&2
	echo "# --- targets" >&2
	curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets" | sed 's/^/# /' >&2
	show_output
}

@test "tapkit --prometheus: a real Prometheus scrapes the exact counts, with labels" {
	command -v prometheus >/dev/null || skip "requires: prometheus"
	command -v jq >/dev/null || skip "requires: jq"
	start_counted
	local wl=$WL_PID
	release_workload
	wait_metrics "getppid_calls{comm=\"sysloop\"} $N
getppid_by_pid{comm=\"sysloop\",pid=\"$wl\"} $N"

	local port=$PORT
	free_port
	PROM_PORT=$PORT PORT=$port
	cat >"$BATS_TEST_TMPDIR/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tapkit
    metrics_path: /metrics
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
	(cd "$BATS_TEST_TMPDIR" && exec prometheus \
		--config.file="$BATS_TEST_TMPDIR/prometheus.yml" \
		--storage.tsdb.path="$BATS_TEST_TMPDIR/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" \
		>"$BATS_TEST_TMPDIR/prometheus.log" 2>&1) &
	PROM_PID=$!

	local i res=
	for i in $(seq 1 300); do
		kill -0 "$PROM_PID" 2>/dev/null || { show_prom; false; }
		res=$(prom_query getppid_calls 2>/dev/null) || true
		[ -n "$res" ] && [ "$res" != "[]" ] && [ "$res" != null ] && break
		sleep 0.1
	done
	[ -n "$res" ] && [ "$res" != "[]" ] && [ "$res" != null ] || { show_prom; false; }

	# the value exactly N, the labels ours and the scrape's
	[ "$(jq -r length <<<"$res")" = 1 ] || { echo "# $res" >&2; false; }
	[ "$(jq -r '.[0].value[1]' <<<"$res")" = "$N" ] || { echo "# $res" >&2; false; }
	[ "$(jq -c '.[0].metric' <<<"$res")" = \
	  "{\"__name__\":\"getppid_calls\",\"comm\":\"sysloop\",\"instance\":\"127.0.0.1:$PORT\",\"job\":\"tapkit\"}" ] ||
		{ echo "# $res" >&2; false; }
	res=$(prom_query getppid_by_pid)
	[ "$(jq -c '[.[] | [.metric.comm, .metric.pid, .value[1]]]' <<<"$res")" = \
	  "[[\"sysloop\",\"$wl\",\"$N\"]]" ] || { echo "# $res" >&2; false; }
	res=$(prom_query 'up{job="tapkit"}')
	[ "$(jq -c '[.[] | .value[1]]' <<<"$res")" = '["1"]' ] || { echo "# $res" >&2; false; }
	# the scrape found our two samples, nothing else of ours
	res=$(prom_query 'scrape_samples_scraped{job="tapkit"}')
	[ "$(jq -c '[.[] | .value[1]]' <<<"$res")" = '["2"]' ] || { echo "# $res" >&2; false; }
	res=$(curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets")
	[ "$(jq -r '.data.activeTargets | map(.health) | join(",")' <<<"$res")" = up ] ||
		{ echo "# $res" >&2; false; }

	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ ! -s "$OUT" ] && [ ! -s "$ERR" ] || { show_output; false; }
	[ ! -e "/run/tapkit/$TOOL_PID" ]
	assert_clean
}

@test "tapkit --prometheus: curl and the FIFO agree; text 0.0.4, OpenMetrics on request, 404 elsewhere" {
	counted_metrics
	local wl=$WL want=$WANT
	local d=$BATS_TEST_TMPDIR url="http://127.0.0.1:$PORT"

	# the FIFO and GET /metrics (and GET /): the same bytes
	[ -p "/run/tapkit/$TOOL_PID/__prometheus" ]
	cat "/run/tapkit/$TOOL_PID/__prometheus" >"$d/fifo"
	[ "$(curl -s -o "$d/body" -w '%{http_code} %{content_type}' "$url/metrics")" = \
	  "200 text/plain; version=0.0.4; charset=utf-8" ]
	cmp "$d/fifo" "$d/body"
	printf '%s\n' "$want" | cmp - "$d/body"
	[ "$(curl -s -o "$d/root" -w '%{http_code}' "$url/")" = 200 ]
	cmp "$d/fifo" "$d/root"

	# OpenMetrics: the same lines, then "# EOF"
	[ "$(curl -s -o "$d/om" -w '%{http_code} %{content_type}' \
		-H 'Accept: application/openmetrics-text; version=1.0.0' "$url/metrics")" = \
	  "200 application/openmetrics-text; version=1.0.0; charset=utf-8" ]
	[ "$(tail -n 1 "$d/om")" = "# EOF" ]
	printf '%s\n# EOF\n' "$want" | cmp - "$d/om"

	# anything else is 404, and the endpoint still serves after it
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/nope")" = 404 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X GET "$url/metrics/x")" = 404 ]
	[ "$(curl -s "$url/metrics")" = "$want" ]

	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ ! -e "/run/tapkit/$TOOL_PID" ]
	assert_clean
}

@test "tapkit --prometheus: an address that is not [ADDR:]PORT is a usage error" {
	local a
	for a in notaport 127.0.0.1: 127.0.0.1:notaport 70000; do
		run_pid tapkit --prometheus "$a" -e 'probe prometheus { $value = "x 1\n" }'
		[ "$status" -eq 2 ] || { show_run; false; }
		[ -z "$output" ] || { show_run; false; }
		[[ "$stderr" == *"--prometheus"*"'$a'"* ]] || { show_run; false; }
		[ ! -e "/run/tapkit/$RUN_PID" ]
		assert_clean "$RUN_PID"
	done
}

@test "tapkit --prometheus: a script with no prometheus probe is an error, with or without procfs files" {
	local script
	for script in '
probe syscall.getppid { if (pid() == -1) println("never") }
probe procfs("x").read { $value = "x\n" }' '
probe syscall.getppid { if (pid() == -1) println("never") }
probe timer.s(3) { exit() }'; do
		free_port
		run_pid timeout 20 tapkit --prometheus "127.0.0.1:$PORT" -e "$script"
		[ "$status" -eq 1 ] || { show_run; false; }
		[ -z "$output" ] || { show_run; false; }
		[ "$stderr" = "tapkit: --prometheus: the script has no prometheus probe" ] ||
			{ show_run; false; }
		[ ! -e "/run/tapkit/$RUN_PID" ]
		assert_clean "$RUN_PID"
	done
}

@test "tapkit --prometheus: a port already in use is an error, the first tapkit unharmed" {
	counted_metrics
	local wl=$WL want=$WANT

	# a second tapkit on the first one's port
	run_pid timeout 20 tapkit --prometheus "127.0.0.1:$PORT" "$BATS_TEST_TMPDIR/prom.stp" "$wl"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ -z "$output" ] || { show_run; false; }
	[ "$(wc -l <<<"$stderr")" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == *"cannot listen on"*"$PORT"* ]] || { show_run; false; }
	[ ! -e "/run/tapkit/$RUN_PID" ]
	assert_clean "$RUN_PID"
	# the first one still serves, its FIFO still there
	[ "$(curl -s "http://127.0.0.1:$PORT/metrics")" = "$want" ]
	[ -p "/run/tapkit/$TOOL_PID/__prometheus" ]
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ ! -e "/run/tapkit/$TOOL_PID" ]
	assert_clean

	# a port some other program (python3 -m http.server) listens on
	command -v python3 >/dev/null || skip "requires: python3"
	free_port
	python3 -m http.server --bind 127.0.0.1 "$PORT" >"$BATS_TEST_TMPDIR/srv.log" 2>&1 &
	SRV_PID=$!
	local i
	for i in $(seq 1 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
		kill -0 "$SRV_PID" 2>/dev/null || { cat "$BATS_TEST_TMPDIR/srv.log" >&2; false; }
		sleep 0.1
	done
	run_pid timeout 20 tapkit --prometheus "127.0.0.1:$PORT" "$BATS_TEST_TMPDIR/prom.stp" 1
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(wc -l <<<"$stderr")" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == *"cannot listen on"*"$PORT"* ]] || { show_run; false; }
	[ ! -e "/run/tapkit/$RUN_PID" ]
	assert_clean "$RUN_PID"
}
