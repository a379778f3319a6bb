# watch.sh -- no test waits for ever.
#
# Sourced by test-lib.sh, which runs every test body under watch_run; run
# as a program it is the LOG_COMPILER of the C unit tests:
#
#	sh t/lib/watch.sh PROGRAM ARGS...
#
# A body (or program) still running after TS_TEST_LIMIT seconds (600
# unless set) is stopped: first what it was doing is written down -- the
# tree of its processes, their state and wait channel, and the threads'
# stacks of each trainscope or unit-test process when gdb is there --
# then the whole tree is sent TERM, and KILL two seconds later.  Standard
# input is /dev/null, so nothing can wait on a terminal or a pipe that a
# harness left open.

: "${TS_TEST_LIMIT:=600}"

# watch_pids ROOT: ROOT and every process below it, parents first
watch_pids() {
	for f in /proc/[0-9]*/stat; do
		# "pid (comm) state ppid ...": comm may hold spaces and ")"
		sed -n 's/^\([0-9]*\) (.*) . \([0-9]*\) .*/\1 \2/p' "$f" 2>/dev/null
	done | awk -v root="$1" '
	    { kids[$2] = kids[$2] " " $1 }
	    END {
		q[1] = root; n = 1
		for (i = 1; i <= n; i++) {
			print q[i]
			m = split(kids[q[i]], k, " ")
			for (j = 1; j <= m; j++)
				q[++n] = k[j]
		}
	    }'
}

# watch_report ROOT: what the tree below ROOT is doing, for the log
watch_report() {
	for p in $(watch_pids "$1"); do
		[ -r "/proc/$p/cmdline" ] || continue
		printf 'pid %s %s wchan=%s: %s\n' "$p" \
		    "$(sed -n 's/^State:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)" \
		    "$(cat "/proc/$p/wchan" 2>/dev/null)" \
		    "$(tr '\000' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-300)"
		case $(readlink "/proc/$p/exe" 2>/dev/null) in
		*/trainscope|*-t|*-fuzz)
			command -v gdb >/dev/null 2>&1 &&
			    timeout 60 gdb -nx -batch -p "$p" \
			    -ex 'thread apply all bt 30' </dev/null 2>&1 |
			    grep '^\(Thread\|#\)' | grep -v ' in ?? ()$' | head -200
			;;
		esac
	done
}

# watch_kill ROOT: TERM to the tree below ROOT, KILL to what is left
watch_kill() {
	pids=$(watch_pids "$1")
	kill -TERM $pids 2>/dev/null
	sleep 2
	kill -KILL $pids 2>/dev/null
}

# watch_dog ROOT FILE: after the limit, FILE says what ROOT was doing and
# ROOT's tree is stopped; nothing if ROOT ends first
watch_dog() {
	w=0
	while [ "$w" -lt "$TS_TEST_LIMIT" ]; do
		sleep 1
		kill -0 "$1" 2>/dev/null || exit 0
		w=$((w + 1))
	done
	{
		echo "timed out after $TS_TEST_LIMIT s; what was running:"
		watch_report "$1"
	} >"$2.tmp" 2>&1
	mv "$2.tmp" "$2"
	watch_kill "$1"
}

# watch_run FILE CMD...: CMD under the dog, its standard input /dev/null;
# its exit status, and FILE written when it was stopped
watch_run() {
	watch_file=$1
	shift
	rm -f "$watch_file"
	"$@" </dev/null &
	watch_body=$!
	watch_dog "$watch_body" "$watch_file" </dev/null >/dev/null 2>&1 &
	watch_pid=$!
	wait "$watch_body"
	watch_rc=$?
	kill "$watch_pid" 2>/dev/null
	wait "$watch_pid" 2>/dev/null
	return $watch_rc
}

# As a program: run a unit test under the dog, and say in its TAP why it
# was stopped.
case $0 in
*watch.sh)
	watch_out=$(mktemp "${TMPDIR:-/tmp}/ts-watch.XXXXXX") || exit 99
	watch_run "$watch_out.dog" "$@"
	rc=$?
	if [ -s "$watch_out.dog" ]; then
		echo "Bail out! $1: timed out after $TS_TEST_LIMIT s"
		sed 's/^/# /' "$watch_out.dog"
	fi
	rm -f "$watch_out" "$watch_out.dog"
	exit $rc
	;;
esac
