#!/bin/sh
# The dependency direction of tapkit's folders (docs/architecture.md):
#   cmd -> {tool, prov, lang, tracefs, common}
#   tool -> {tracefs, common}    prov -> {lang, tracefs, common}
#   lang -> common               tracefs -> common        common -> nothing
# Prints every #include that goes another way as FILE:LINE: and fails.
# Usage: scripts/check-deps.sh [TOP]   (TAP on stdout: one test)
top=${1:-$(dirname "$0")/..}
cd "$top" || exit 2

allowed() {
	case $1 in
	cmd)     echo "cmd tool prov lang tracefs common" ;;
	tool)    echo "tool tracefs common" ;;
	prov)    echo "prov lang tracefs common" ;;
	lang)    echo "lang common" ;;
	tracefs) echo "tracefs common" ;;
	common)  echo "common" ;;
	esac
}

bad=$(for dir in cmd tool prov lang tracefs common; do
	ok=" $(allowed $dir) "
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -f "$f" ] || continue
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/' "$f" |
		while IFS= read -r line; do
			n=${line%%:*}
			to=$(printf '%s\n' "$line" | sed 's/.*include[[:space:]]*"\([a-z_]*\)\/.*/\1/')
			case "$ok" in
			*" $to "*) ;;
			*) echo "$f:$n: $dir/ may not include $to/: ${line#*:}" ;;
			esac
		done
	done
done)

echo "1..1"
if [ -n "$bad" ]; then
	printf '%s\n' "$bad" | sed 's/^/# /'
	echo "not ok 1 - include direction (docs/architecture.md)"
	exit 1
fi
echo "ok 1 - include direction: cmd -> tool, prov -> lang, tracefs -> common"
