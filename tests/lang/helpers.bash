# Golden tests of the script language: tests/lang/NAME.stp runs as
#   cd tests/lang && tapkit [OPTIONS] NAME.stp [ARGS]
# where a line "# tapkit: OPTIONS" in the script gives OPTIONS and a line
# "# args: ARGS" the script arguments; "# status: N" the exit status
# expected (default 0).  NAME.out is the exact stdout; NAME.err the exact
# stderr (absent: stderr must be empty).  Set UPDATE=1 to rewrite the
# expected files from what tapkit prints (then review them!).

setup() {
	TOP=${TAPKIT_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BIN=${TAPKIT_BIN:-$TOP/build/bin}
	LANGDIR=$TOP/tests/lang
}

directive() {
	sed -n "s/^# $1: //p" "$2" | head -1
}

golden() {
	local name=$1 stp=$LANGDIR/$1.stp opts args want rc=0 out err
	[ -f "$stp" ] || { echo "# no $stp"; return 1; }
	opts=$(directive tapkit "$stp")
	args=$(directive args "$stp")
	want=$(directive status "$stp")
	want=${want:-0}
	out=$BATS_TEST_TMPDIR/out
	err=$BATS_TEST_TMPDIR/err
	# shellcheck disable=SC2086
	(cd "$LANGDIR" && exec timeout 20 "$BIN/tapkit" $opts "$name.stp" $args) \
		>"$out" 2>"$err" </dev/null || rc=$?
	if [ -n "${UPDATE:-}" ]; then
		cp "$out" "$LANGDIR/$name.out"
		if [ -s "$err" ]; then cp "$err" "$LANGDIR/$name.err"; else rm -f "$LANGDIR/$name.err"; fi
	fi
	if [ "$rc" -ne "$want" ]; then
		echo "# $name: exit status $rc, expected $want"
		sed 's/^/# stderr: /' "$err"
		return 1
	fi
	if ! diff -u "$LANGDIR/$name.out" "$out" >"$BATS_TEST_TMPDIR/diff"; then
		echo "# $name: stdout differs:"
		sed 's/^/# /' "$BATS_TEST_TMPDIR/diff"
		return 1
	fi
	if [ -f "$LANGDIR/$name.err" ]; then
		if ! diff -u "$LANGDIR/$name.err" "$err" >"$BATS_TEST_TMPDIR/diff"; then
			echo "# $name: stderr differs:"
			sed 's/^/# /' "$BATS_TEST_TMPDIR/diff"
			return 1
		fi
	elif [ -s "$err" ]; then
		echo "# $name: unexpected stderr:"
		sed 's/^/# /' "$err"
		return 1
	fi
}
