#!/usr/bin/env bats
# The build's user-facing targets.

@test "make install honours DESTDIR and PREFIX" {
	dest=$BATS_TEST_TMPDIR/root
	run make -s -C "$TAPKIT_TOP" install DESTDIR="$dest" PREFIX=/opt/tk
	[ "$status" -eq 0 ] || { echo "# $output"; false; }
	for t in tpoint syscount execsnoop killsnoop tplist; do
		[ -x "$dest/opt/tk/sbin/$t" ] || { echo "# no $t"; false; }
		[ -f "$dest/opt/tk/share/man/man8/$t.8" ] || { echo "# no $t.8"; false; }
	done
	run "$dest/opt/tk/sbin/syscount" --help
	[ "$status" -eq 0 ]
	# the installed tapkit finds the installed tapsets
	[ -f "$dest/opt/tk/share/tapkit/tapset/signal.stp" ]
	run "$dest/opt/tk/sbin/tapkit" -p2 -e 'probe signal.send { print(sig_name) }'
	[ "$status" -eq 0 ] || { echo "# $output"; false; }
	[[ $output == *'signal:signal_generate'* ]] || { echo "# $output"; false; }
	# and its macro libraries
	[ -f "$dest/opt/tk/share/tapkit/tapset/json.stpm" ]
	run "$dest/opt/tk/sbin/tapkit" -p2 -e 'probe json_data { @json_output_data_start }'
	[ "$status" -eq 0 ] || { echo "# $output"; false; }
	[[ $output == *'__json_start:string ()'* ]] || { echo "# $output"; false; }
}

@test "every command in the Makefile's TOOLS list is built" {
	tools=$(sed -n 's/^TOOLS := //p' "$TAPKIT_TOP/Makefile")
	[ -n "$tools" ]
	for t in $tools; do
		[ -x "$TAPKIT_BIN/$t" ] || { echo "# $t not built"; false; }
		[ -f "$TAPKIT_TOP/cmd/$t.c" ]
	done
}

@test "includes follow the folders' dependency direction" {
	run "$TAPKIT_TOP/scripts/check-deps.sh" "$TAPKIT_TOP"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"ok 1 - include direction"* ]]
}

@test "the include check names the file and line of a wrong edge" {
	tree=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tree/lang" "$tree/common"
	printf '#include "common/log.h"\n#include "tracefs/session.h"\n' > "$tree/lang/x.c"
	printf '#include "lang/ast.h"\n' > "$tree/common/y.h"
	run "$TAPKIT_TOP/scripts/check-deps.sh" "$tree"
	[ "$status" -eq 1 ]
	[[ $output == *"# lang/x.c:2: lang/ may not include tracefs/"* ]] || { echo "$output"; false; }
	[[ $output == *"# common/y.h:1: common/ may not include lang/"* ]] || { echo "$output"; false; }
	[[ $output != *"common/log.h"* ]]
}
