# test-lib.sh -- shell test helpers in the spirit of git's t/test-lib.sh.
#
#	. "$TS_SRCDIR/t/lib/test-lib.sh"
#	test_expect_success 'what it checks' '
#		trainscope version >out &&
#		grep trainscope out
#	'
#	test_done
#
# Each test runs in a fresh scratch directory's shell with `set -e` off;
# its body must succeed (exit 0) as a whole, with /dev/null for standard
# input, within TS_TEST_LIMIT seconds (t/lib/watch.sh).  TS_BIN,
# TS_SRCDIR, TS_BUILDDIR and TS_SHARED come from the makefile.

: "${TS_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TS_BUILDDIR:=$TS_SRCDIR}"
: "${TS_BIN:=$TS_BUILDDIR/trainscope}"
: "${TS_SHARED:=$TS_SRCDIR/../shared}"

# Nothing in a test reads a terminal or a pipe a harness left open (or,
# when standard input is closed, whatever file took its place).
exec </dev/null

test_count=0
test_failed=0
test_name=$(basename "$0" .sh)
TRASH="$TS_BUILDDIR/t/trash.$test_name"
rm -rf "$TRASH"
mkdir -p "$TRASH" || exit 1
cd "$TRASH" || exit 1

# Every test uses its own cache and never the user's.
XDG_CACHE_HOME="$TRASH/xdg-cache"
HOME="$TRASH/home"
mkdir -p "$HOME"
export XDG_CACHE_HOME HOME
unset TS_CACHE

trainscope() { "$TS_BIN" "$@"; }

# as_nobody ARGS...: trainscope ARGS as a user who is not root (nobody,
# when the tests run as root), for what permissions must refuse.
as_nobody() {
	if [ "$(id -u)" -eq 0 ]; then
		su nobody -s /bin/sh -c "XDG_CACHE_HOME='$XDG_CACHE_HOME' HOME=/tmp '$TS_BIN' $*"
	else
		"$TS_BIN" "$@"
	fi
}
# nobody_reaches: as_nobody can run here (not root, or nobody can reach
# the program and this directory).
nobody_reaches() {
	[ "$(id -u)" -ne 0 ] || su nobody -s /bin/sh -c "test -x '$TS_BIN' &&
	    cd '$PWD'" 2>/dev/null
}

say() { printf '# %s\n' "$*"; }

# Every test body is stopped, and what it was doing written down, if it
# runs past TS_TEST_LIMIT seconds (t/lib/watch.sh).
. "$TS_SRCDIR/t/lib/watch.sh"

# test_body BODY: a test's body in a subshell, its output kept
test_body() {
	(eval "$1") >"$TRASH/.out" 2>&1
}

test_expect_success() {
	test_count=$((test_count + 1))
	test_t0=$(date +%s)
	if watch_run "$TRASH/.dog" test_body "$2"; then
		printf 'ok %d - %s\n' "$test_count" "$1"
	else
		test_failed=$((test_failed + 1))
		printf 'not ok %d - %s\n' "$test_count" "$1"
		sed 's/^/#   /' "$TRASH/.out"
		[ ! -s "$TRASH/.dog" ] || sed 's/^/#   /' "$TRASH/.dog"
	fi
	test_t0=$(($(date +%s) - test_t0))
	[ "$test_t0" -lt 60 ] || say "that test took $test_t0 s"
}

test_skip() {
	test_count=$((test_count + 1))
	printf 'ok %d # skip %s (%s)\n' "$test_count" "$1" "$2"
}

# test_must_fail STATUS CMD...: CMD must exit with exactly STATUS.
test_must_fail() {
	want=$1; shift
	"$@"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "expected exit $want, got $got: $*" >&2
		return 1
	fi
	return 0
}

# test_expect_code CODE COMMAND...: the command exits with CODE.
test_expect_code() {
	want=$1
	shift
	"$@"
	test $? = "$want"
}

# test_cmp EXPECTED ACTUAL: files must be identical (shows a diff).
test_cmp() { diff -u "$1" "$2"; }

# test_line_count OP N FILE
test_line_count() {
	n=$(wc -l <"$3")
	if ! [ "$n" "$1" "$2" ]; then
		echo "line count of $3 is $n, want $1 $2" >&2
		return 1
	fi
}

test_done() {
	printf '1..%d\n' "$test_count"
	[ "$test_failed" -eq 0 ] || exit 1
	cd "$TS_BUILDDIR" && rm -rf "$TRASH"
	exit 0
}
