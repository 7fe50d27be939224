#!/usr/bin/env bats
# Man pages (STYLE.md rule 16): every command has a hand-written troff page
# in man/man8/ that renders without warnings, documents every option its
# --help prints, and has the required sections in order.
#
# Each check is its own named test per command, so a failure names both.
# A new command gets its five tests by copying a block below; the last test
# fails for any command in build/bin that has no page at all.

# STYLE.md rule 16's order, with ENVIRONMENT and FILES (which every command
# has: $TAPKIT_READY_FILE, tracefs) in their man-pages(7) place.
REQUIRED_SECTIONS=(NAME SYNOPSIS DESCRIPTION REQUIREMENTS OPTIONS EXAMPLES
	FIELDS OVERHEAD "EXIT STATUS" ENVIRONMENT FILES "SEE ALSO")

setup() {
	TOP=${TAPKIT_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BIN=${TAPKIT_BIN:-$TOP/build/bin}
	MANDIR=$TOP/man/man8
}

fail() {
	printf '%s\n' "$@" >&2
	return 1
}

# page_path CMD: the page's path in $PAGE; fails when there is none.
page_path() {
	PAGE=$MANDIR/$1.8
	[ -f "$PAGE" ] || fail "$1: no man page: expected man/man8/$1.8"
}

# help_text CMD: CMD --help in $HELP; fails unless it exits 0 with output.
help_text() {
	local rc=0

	[ -x "$BIN/$1" ] || fail "$1: no command $BIN/$1 (run make first)" || return 1
	HELP=$("$BIN/$1" --help 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: '$1 --help' exited with $rc:" "$HELP" || return 1
	[ -n "$HELP" ] || fail "$1: '$1 --help' printed nothing"
}

# rendered CMD: the page as plain text in $TEXT (wide, so that options are
# not broken across lines; ASCII, so that \- is a plain hyphen-minus).
rendered() {
	local rc=0

	page_path "$1" || return 1
	command -v man >/dev/null || fail "man (man-db) is not installed: run 'make deps'" || return 1
	TEXT=$(env -u MAN_KEEP_FORMATTING LC_ALL=C MANWIDTH=200 \
		man -P cat -l "$PAGE" 2>/dev/null) || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: man -l man/man8/$1.8 exited with $rc" || return 1
	[ -n "$TEXT" ] || fail "$1: man/man8/$1.8 renders to nothing"
}

check_has_page() {
	page_path "$1" || return 1
	[ -s "$PAGE" ] || fail "$1: man/man8/$1.8 is empty" || return 1
	grep -q '^\.TH[[:space:]]' "$PAGE" || fail "$1: man/man8/$1.8 has no .TH line"
}

check_renders() {
	local err rc=0

	page_path "$1" || return 1
	command -v man >/dev/null || fail "man (man-db) is not installed: run 'make deps'" || return 1
	err=$(MANWIDTH=80 man --warnings -l "$PAGE" 2>&1 >/dev/null) || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: 'man --warnings -l man/man8/$1.8' exited with $rc:" "$err" || return 1
	[ -z "$err" ] || fail "$1: man/man8/$1.8 renders with warnings:" "$err"
}

# Every --long-option printed by --help appears in the rendered page.
check_long_options() {
	local opt missing=()

	help_text "$1" || return 1
	rendered "$1" || return 1
	while read -r opt; do
		[ -n "$opt" ] || continue
		grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|$)" <<<"$TEXT" ||
			missing+=("$opt")
	done < <(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$HELP" | sort -u)
	[ ${#missing[@]} -eq 0 ] ||
		fail "$1: man/man8/$1.8 lacks these long options of '$1 --help': ${missing[*]}"
}

# The short option letters of --help: option lines ("  -d, --duration"),
# bundles in the synopsis ("[-hjTxv]") and single ones anywhere ("-L too").
short_letters() {
	{
		grep -oE -- '\[-[A-Za-z]+\]' <<<"$HELP" | tr -d '[]-' | fold -w1
		grep -oP -- '(?<![^\s(\[])-[A-Za-z](?![A-Za-z0-9-])' <<<"$HELP" | tr -d -- -
	} | sort -u
}

# Every short option letter of --help appears in the page as "-X".
check_short_options() {
	local l letters missing=()

	help_text "$1" || return 1
	rendered "$1" || return 1
	letters=$(short_letters)
	[ -n "$letters" ] || fail "$1: found no short options in '$1 --help'" || return 1
	for l in $letters; do
		grep -qE -- "(^|[^A-Za-z0-9-])-$l([^A-Za-z0-9-]|$)" <<<"$TEXT" ||
			missing+=("-$l")
	done
	[ ${#missing[@]} -eq 0 ] ||
		fail "$1: man/man8/$1.8 lacks these short options of '$1 --help': ${missing[*]}"
}

# The page's .SH headings include every required section, in order.
check_sections() {
	local s found missing=() order want

	page_path "$1" || return 1
	found=$(sed -n -E 's/^\.SH[[:space:]]+//p' "$PAGE" | tr -d '"' |
		sed -E 's/[[:space:]]+$//')
	for s in "${REQUIRED_SECTIONS[@]}"; do
		grep -qxF -- "$s" <<<"$found" || missing+=("$s")
	done
	[ ${#missing[@]} -eq 0 ] ||
		fail "$1: man/man8/$1.8 lacks sections: $(printf '"%s" ' "${missing[@]}")" ||
		return 1
	order=$(grep -xF -f <(printf '%s\n' "${REQUIRED_SECTIONS[@]}") <<<"$found" | paste -sd'|')
	want=$(printf '%s\n' "${REQUIRED_SECTIONS[@]}" | paste -sd'|')
	[ "$order" = "$want" ] ||
		fail "$1: man/man8/$1.8 sections out of order (or repeated):" \
			"  found:    $order" "  expected: $want"
}

# --- tpoint ---

@test "tpoint: has a man page" {
	check_has_page tpoint
}

@test "tpoint: man page renders without warnings" {
	check_renders tpoint
}

@test "tpoint: man page has every long option of --help" {
	check_long_options tpoint
}

@test "tpoint: man page has every short option of --help" {
	check_short_options tpoint
}

@test "tpoint: man page has the required sections in order" {
	check_sections tpoint
}

# --- syscount ---

@test "syscount: has a man page" {
	check_has_page syscount
}

@test "syscount: man page renders without warnings" {
	check_renders syscount
}

@test "syscount: man page has every long option of --help" {
	check_long_options syscount
}

@test "syscount: man page has every short option of --help" {
	check_short_options syscount
}

@test "syscount: man page has the required sections in order" {
	check_sections syscount
}

# --- execsnoop ---

@test "execsnoop: has a man page" {
	check_has_page execsnoop
}

@test "execsnoop: man page renders without warnings" {
	check_renders execsnoop
}

@test "execsnoop: man page has every long option of --help" {
	check_long_options execsnoop
}

@test "execsnoop: man page has every short option of --help" {
	check_short_options execsnoop
}

@test "execsnoop: man page has the required sections in order" {
	check_sections execsnoop
}

# --- killsnoop ---

@test "killsnoop: has a man page" {
	check_has_page killsnoop
}

@test "killsnoop: man page renders without warnings" {
	check_renders killsnoop
}

@test "killsnoop: man page has every long option of --help" {
	check_long_options killsnoop
}

@test "killsnoop: man page has every short option of --help" {
	check_short_options killsnoop
}

@test "killsnoop: man page has the required sections in order" {
	check_sections killsnoop
}

# --- tplist ---

@test "tplist: has a man page" {
	check_has_page tplist
}

@test "tplist: man page renders without warnings" {
	check_renders tplist
}

@test "tplist: man page has every long option of --help" {
	check_long_options tplist
}

@test "tplist: man page has every short option of --help" {
	check_short_options tplist
}

@test "tplist: man page has the required sections in order" {
	check_sections tplist
}

# --- tapkit ---

@test "tapkit: has a man page" {
	check_has_page tapkit
}

@test "tapkit: man page renders without warnings" {
	check_renders tapkit
}

@test "tapkit: man page has every long option of --help" {
	check_long_options tapkit
}

@test "tapkit: man page has every short option of --help" {
	check_short_options tapkit
}

@test "tapkit: man page has the required sections in order" {
	check_sections tapkit
}

# --- uprobe ---

@test "uprobe: has a man page" {
	check_has_page uprobe
}

@test "uprobe: man page renders without warnings" {
	check_renders uprobe
}

@test "uprobe: man page has every long option of --help" {
	check_long_options uprobe
}

@test "uprobe: man page has every short option of --help" {
	check_short_options uprobe
}

@test "uprobe: man page has the required sections in order" {
	check_sections uprobe
}

# --- kprobe ---

@test "kprobe: has a man page" {
	check_has_page kprobe
}

@test "kprobe: man page renders without warnings" {
	check_renders kprobe
}

@test "kprobe: man page has every long option of --help" {
	check_long_options kprobe
}

@test "kprobe: man page has every short option of --help" {
	check_short_options kprobe
}

@test "kprobe: man page has the required sections in order" {
	check_sections kprobe
}

# --- opensnoop ---

@test "opensnoop: has a man page" {
	check_has_page opensnoop
}

@test "opensnoop: man page renders without warnings" {
	check_renders opensnoop
}

@test "opensnoop: man page has every long option of --help" {
	check_long_options opensnoop
}

@test "opensnoop: man page has every short option of --help" {
	check_short_options opensnoop
}

@test "opensnoop: man page has the required sections in order" {
	check_sections opensnoop
}

# --- funccount ---

@test "funccount: has a man page" {
	check_has_page funccount
}

@test "funccount: man page renders without warnings" {
	check_renders funccount
}

@test "funccount: man page has every long option of --help" {
	check_long_options funccount
}

@test "funccount: man page has every short option of --help" {
	check_short_options funccount
}

@test "funccount: man page has the required sections in order" {
	check_sections funccount
}

# --- profile ---

@test "profile: has a man page" {
	check_has_page profile
}

@test "profile: man page renders without warnings" {
	check_renders profile
}

@test "profile: man page has every long option of --help" {
	check_long_options profile
}

@test "profile: man page has every short option of --help" {
	check_short_options profile
}

@test "profile: man page has the required sections in order" {
	check_sections profile
}

# --- offcputime ---

@test "offcputime: has a man page" {
	check_has_page offcputime
}

@test "offcputime: man page renders without warnings" {
	check_renders offcputime
}

@test "offcputime: man page has every long option of --help" {
	check_long_options offcputime
}

@test "offcputime: man page has every short option of --help" {
	check_short_options offcputime
}

@test "offcputime: man page has the required sections in order" {
	check_sections offcputime
}

# --- funclatency ---

@test "funclatency: has a man page" {
	check_has_page funclatency
}

@test "funclatency: man page renders without warnings" {
	check_renders funclatency
}

@test "funclatency: man page has every long option of --help" {
	check_long_options funclatency
}

@test "funclatency: man page has every short option of --help" {
	check_short_options funclatency
}

@test "funclatency: man page has the required sections in order" {
	check_sections funclatency
}

# --- runqlat ---

@test "runqlat: has a man page" {
	check_has_page runqlat
}

@test "runqlat: man page renders without warnings" {
	check_renders runqlat
}

@test "runqlat: man page has every long option of --help" {
	check_long_options runqlat
}

@test "runqlat: man page has every short option of --help" {
	check_short_options runqlat
}

@test "runqlat: man page has the required sections in order" {
	check_sections runqlat
}

# --- cpudist ---

@test "cpudist: has a man page" {
	check_has_page cpudist
}

@test "cpudist: man page renders without warnings" {
	check_renders cpudist
}

@test "cpudist: man page has every long option of --help" {
	check_long_options cpudist
}

@test "cpudist: man page has every short option of --help" {
	check_short_options cpudist
}

@test "cpudist: man page has the required sections in order" {
	check_sections cpudist
}

# --- tracetop ---

@test "tracetop: has a man page" {
	check_has_page tracetop
}

@test "tracetop: man page renders without warnings" {
	check_renders tracetop
}

@test "tracetop: man page has every long option of --help" {
	check_long_options tracetop
}

@test "tracetop: man page has every short option of --help" {
	check_short_options tracetop
}

@test "tracetop: man page has the required sections in order" {
	check_sections tracetop
}

# --- biosnoop ---

@test "biosnoop: has a man page" {
	check_has_page biosnoop
}

@test "biosnoop: man page renders without warnings" {
	check_renders biosnoop
}

@test "biosnoop: man page has every long option of --help" {
	check_long_options biosnoop
}

@test "biosnoop: man page has every short option of --help" {
	check_short_options biosnoop
}

@test "biosnoop: man page has the required sections in order" {
	check_sections biosnoop
}

# --- biolatency ---

@test "biolatency: has a man page" {
	check_has_page biolatency
}

@test "biolatency: man page renders without warnings" {
	check_renders biolatency
}

@test "biolatency: man page has every long option of --help" {
	check_long_options biolatency
}

@test "biolatency: man page has every short option of --help" {
	check_short_options biolatency
}

@test "biolatency: man page has the required sections in order" {
	check_sections biolatency
}

# --- bitesize ---

@test "bitesize: has a man page" {
	check_has_page bitesize
}

@test "bitesize: man page renders without warnings" {
	check_renders bitesize
}

@test "bitesize: man page has every long option of --help" {
	check_long_options bitesize
}

@test "bitesize: man page has every short option of --help" {
	check_short_options bitesize
}

@test "bitesize: man page has the required sections in order" {
	check_sections bitesize
}

# --- tcpconnect ---

@test "tcpconnect: has a man page" {
	check_has_page tcpconnect
}

@test "tcpconnect: man page renders without warnings" {
	check_renders tcpconnect
}

@test "tcpconnect: man page has every long option of --help" {
	check_long_options tcpconnect
}

@test "tcpconnect: man page has every short option of --help" {
	check_short_options tcpconnect
}

@test "tcpconnect: man page has the required sections in order" {
	check_sections tcpconnect
}

# --- tcpaccept ---

@test "tcpaccept: has a man page" {
	check_has_page tcpaccept
}

@test "tcpaccept: man page renders without warnings" {
	check_renders tcpaccept
}

@test "tcpaccept: man page has every long option of --help" {
	check_long_options tcpaccept
}

@test "tcpaccept: man page has every short option of --help" {
	check_short_options tcpaccept
}

@test "tcpaccept: man page has the required sections in order" {
	check_sections tcpaccept
}

# --- tcplife ---

@test "tcplife: has a man page" {
	check_has_page tcplife
}

@test "tcplife: man page renders without warnings" {
	check_renders tcplife
}

@test "tcplife: man page has every long option of --help" {
	check_long_options tcplife
}

@test "tcplife: man page has every short option of --help" {
	check_short_options tcplife
}

@test "tcplife: man page has the required sections in order" {
	check_sections tcplife
}

# --- tcpretrans ---

@test "tcpretrans: has a man page" {
	check_has_page tcpretrans
}

@test "tcpretrans: man page renders without warnings" {
	check_renders tcpretrans
}

@test "tcpretrans: man page has every long option of --help" {
	check_long_options tcpretrans
}

@test "tcpretrans: man page has every short option of --help" {
	check_short_options tcpretrans
}

@test "tcpretrans: man page has the required sections in order" {
	check_sections tcpretrans
}

# --- exitsnoop ---

@test "exitsnoop: has a man page" {
	check_has_page exitsnoop
}

@test "exitsnoop: man page renders without warnings" {
	check_renders exitsnoop
}

@test "exitsnoop: man page has every long option of --help" {
	check_long_options exitsnoop
}

@test "exitsnoop: man page has every short option of --help" {
	check_short_options exitsnoop
}

@test "exitsnoop: man page has the required sections in order" {
	check_sections exitsnoop
}

# --- hardirqs ---

@test "hardirqs: has a man page" {
	check_has_page hardirqs
}

@test "hardirqs: man page renders without warnings" {
	check_renders hardirqs
}

@test "hardirqs: man page has every long option of --help" {
	check_long_options hardirqs
}

@test "hardirqs: man page has every short option of --help" {
	check_short_options hardirqs
}

@test "hardirqs: man page has the required sections in order" {
	check_sections hardirqs
}

# --- softirqs ---

@test "softirqs: has a man page" {
	check_has_page softirqs
}

@test "softirqs: man page renders without warnings" {
	check_renders softirqs
}

@test "softirqs: man page has every long option of --help" {
	check_long_options softirqs
}

@test "softirqs: man page has every short option of --help" {
	check_short_options softirqs
}

@test "softirqs: man page has the required sections in order" {
	check_sections softirqs
}

# --- stackcount ---

@test "stackcount: has a man page" {
	check_has_page stackcount
}

@test "stackcount: man page renders without warnings" {
	check_renders stackcount
}

@test "stackcount: man page has every long option of --help" {
	check_long_options stackcount
}

@test "stackcount: man page has every short option of --help" {
	check_short_options stackcount
}

@test "stackcount: man page has the required sections in order" {
	check_sections stackcount
}

# --- cachestat ---

@test "cachestat: has a man page" {
	check_has_page cachestat
}

@test "cachestat: man page renders without warnings" {
	check_renders cachestat
}

@test "cachestat: man page has every long option of --help" {
	check_long_options cachestat
}

@test "cachestat: man page has every short option of --help" {
	check_short_options cachestat
}

@test "cachestat: man page has the required sections in order" {
	check_sections cachestat
}

# --- ext4slower ---

@test "ext4slower: has a man page" {
	check_has_page ext4slower
}

@test "ext4slower: man page renders without warnings" {
	check_renders ext4slower
}

@test "ext4slower: man page has every long option of --help" {
	check_long_options ext4slower
}

@test "ext4slower: man page has every short option of --help" {
	check_short_options ext4slower
}

@test "ext4slower: man page has the required sections in order" {
	check_sections ext4slower
}

# --- fileslower ---

@test "fileslower: has a man page" {
	check_has_page fileslower
}

@test "fileslower: man page renders without warnings" {
	check_renders fileslower
}

@test "fileslower: man page has every long option of --help" {
	check_long_options fileslower
}

@test "fileslower: man page has every short option of --help" {
	check_short_options fileslower
}

@test "fileslower: man page has the required sections in order" {
	check_sections fileslower
}

# --- every command ---

@test "every command in build/bin has a man page" {
	local f n=0 missing=()

	[ -d "$BIN" ] || fail "no $BIN (run make first)"
	for f in "$BIN"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		n=$((n + 1))
		[ -f "$MANDIR/${f##*/}.8" ] || missing+=("${f##*/}")
	done
	[ "$n" -gt 0 ] || fail "no commands in $BIN (run make first)"
	[ ${#missing[@]} -eq 0 ] ||
		fail "commands without a man page in man/man8/: ${missing[*]}"
}
