# Helpers for the tests of the tools that read ELF files (tplist, uprobe):
# the fixtures (make tests-build puts them in build/tests/elf/), where
# their symbols and sections are, found with binutils rather than with
# tapkit's own code, and the shape of an error.

FIX=$TAPKIT_TOP/build/tests/elf
HOLD=$TAPKIT_TOP/build/tests/helpers/libhold.so

# The fixtures come with make check (tests-build); missing ones are a
# broken build, not a kernel without a feature: fail.
require_fixtures() {
	[ -x "$FIX/usdt-pie" ] && [ -x "$FIX/usdt-nopie" ] && [ -f "$HOLD" ] && return 0
	echo "# the ELF fixtures are missing: run make tests-build" >&2
	return 1
}

# sym FILE SYMBOL: its address (0x...), from nm
sym() {
	printf '0x%x' "0x$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')"
}

# off FILE SECTION ADDR: the file offset of ADDR in SECTION, from objdump
off() {
	local vma fo
	read -r vma fo < <(objdump -h "$1" | awk -v s="$2" '$2 == s { print $4, $6 }')
	printf '0x%x' $(( $3 - 0x$vma + 0x$fo ))
}

# expect_error STATUS MESSAGE CMD...: STATUS, nothing on stdout, MESSAGE on stderr
expect_error() {
	local want=$1 msg=$2; shift 2
	run --separate-stderr "$@"
	if [ "$status" -ne "$want" ] || [ -n "$output" ] || [ "$stderr" != "$msg" ]; then
		echo "# $*: status $status"; echo "# stdout: $output"
		echo "# stderr: $stderr"; echo "# wanted: $msg"
		return 1
	fi
}
