#!/bin/sh
# lines-bench.sh -- the raw-line engines on a simulated 1000-rank job.
#
# Simulates 125 nodes x 8 ranks ending in a GPU Xid, at about 1 GB of logs
# (SIZE, default 1300M of simulated text: 1 GB of files) and at a tenth,
# indexes both, and prints, each beside its baseline timed in the same
# run (best of three, page cache warm):
#   - `lines --grep RE --count` against `grep -c -E RE` over the same files,
#     for a literal, a selective alternation and a pattern of most lines;
#   - opening the merged log at the failure and reading a page (50 rows)
#     against `view events` (the screen's first pane);
#   - a page forward and a page back, from the cost of 1 000 pages;
#   - the log pane: `view log` (at the failure, 200x50) against `view
#     events`, and t/bench/log-bench (LOG_BENCH): its first frame on the
#     screen, a page down and up, a search of the whole job;
#   - peak RSS of the merged window, the search and the log pane at both
#     sizes.
set -e
: "${TS_BIN:=./trainscope}"
: "${LOG_BENCH:=./t/bench/log-bench}"
: "${SIZE:=1300M}"
: "${SMALL:=130M}"
dir=${TMPDIR:-/tmp}/ts-bench-lines.$$
[ -n "$KEEP" ] && echo "keeping $dir" >&2 || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir"
ts() { "$TS_BIN" --cache "$dir/cache.db" "$@"; }

# best of three wall-clock seconds of a command, its output kept in a
# file (GNU grep stops at the first match when it writes to /dev/null)
best() {
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >"$dir/out" 2>&1 || :	# grep -c: 1 when a file has none
		e=$(date +%s.%N)
		b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN {
			d = e - s; if (b == "" || d < b) b = d; printf "%.4f", b }')
	done
	echo "$b"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
files() { find "$1" -type f ! -name truth.json ! -name '*.pcap' | sort; }

for s in "$SMALL" "$SIZE"; do
	"$TS_BIN" simulate --nodes 125 --gpus-per-node 8 --size "$s" \
	    --no-flows --fault gpu-xid79@17 --seed 3 "$dir/job-$s" >/dev/null
	ts index "$dir/job-$s" >/dev/null 2>&1
	files "$dir/job-$s" | xargs cat >/dev/null
done
job=$dir/job-$SIZE
bytes=$(files "$job" | xargs cat | wc -c)
nf=$(files "$job" | wc -l)
echo "job: $nf files, $bytes bytes, $(files "$job" | xargs cat | wc -l) lines"

# a literal, a selective alternation (no literal to look for first), and
# a pattern of every third line
sel='Xid|Watchdog caught'
com='lm loss: [0-9.]+E[+]00'
for re in 'SeqNum=60363' "$sel" "$com"; do
	n=$(ts lines --grep "$re" --count "$job")
	want=$({ files "$job" | xargs grep -h -c -E "$re" || :; } |
	    awk '{s += $1} END {print s}')
	test "$n" = "$want" || { echo "count $n != grep's $want" >&2; exit 1; }
	a=$(best ts lines --grep "$re" --count "$job")
	b=$(best sh -c "find '$job' -type f ! -name truth.json | xargs grep -c -E '$re'")
	echo "grep --count /$re/ ($n lines): ${a}s, grep -c -E ${b}s: ratio $(ratio "$a" "$b")"
done
a=$(best ts lines --grep "$sel" "$job")
echo "grep /$sel/ printing its lines in time order: ${a}s"

# the failure: the top event's line, as the screen opens it
ts view events "$job" >/dev/null 2>&1
at=$(ts lines --merged --at failure -n 1 "$job" | awk '{print $5}')
ev=$(best ts view events "$job")
op=$(best ts lines --merged --at "$at" -n 50 "$job")
of=$(best ts lines --merged --at failure -n 50 "$job")
echo "merged at the failure ($at), one page: ${op}s; with the model (--at failure): ${of}s; view events ${ev}s: ratio $(ratio "$op" "$ev")"
echo "  (the 200 ms target: $(awk -v a="$op" 'BEGIN { print (a < 0.2 ? "met" : "missed") }'))"
# forward from the start (the failure is near the end), back from it
n1=$(best ts lines --merged --at first -n 50 "$job")
n2=$(best ts lines --merged --at first -n 50050 "$job")
b1=$(best ts lines --merged --at "$at" -n 50 --back "$job")
b2=$(best ts lines --merged --at "$at" -n 50050 --back "$job")
pf=$(awk -v a="$n1" -v b="$n2" 'BEGIN { printf "%.3f", (b - a) / 1000 * 1000 }')
pb=$(awk -v a="$b1" -v b="$b2" 'BEGIN { printf "%.3f", (b - a) / 1000 * 1000 }')
echo "a page of 50 rows: forward ${pf} ms, back ${pb} ms (the 20 ms target: $(awk -v a="$pf" -v b="$pb" 'BEGIN { print (a < 20 && b < 20 ? "met" : "missed") }'))"

# the log pane: headless, and as the screen draws it
ts view --width 200 --height 50 log "$job" >/dev/null 2>&1
ve=$(best ts view --width 200 --height 50 events "$job")
vl=$(best ts view --width 200 --height 50 log "$job")
echo "view log (at the failure, 200x50, tags read at once) ${vl}s, view events ${ve}s: ratio $(ratio "$vl" "$ve") (the 200 ms target: $(awk -v a="$vl" 'BEGIN { print (a < 0.2 ? "met" : "missed") }'))"
"$LOG_BENCH" "$dir/cache.db" "$job" 500

# the two jobs are one shape, each in the other's healthy pool: their
# models are kept once both have an outcome
for s in "$SMALL" "$SIZE" "$SMALL" "$SIZE"; do
	ts view events "$dir/job-$s" >/dev/null 2>&1
done
for s in "$SMALL" "$SIZE"; do
	j=$dir/job-$s
	at=$(ts lines --merged --at failure -n 1 "$j" | awk '{print $5}')
	m=$(rss "$TS_BIN" --cache "$dir/cache.db" lines --merged --at "$at" -n 2000 "$j")
	g=$(rss "$TS_BIN" --cache "$dir/cache.db" lines --grep "$sel" --count "$j")
	l=$(rss "$TS_BIN" --cache "$dir/cache.db" lines --grep "$sel" "$j")
	# (the model kept again: the runs above may have changed its pool)
	ts view events "$j" >/dev/null 2>&1
	e=$(rss "$TS_BIN" --cache "$dir/cache.db" view --width 200 --height 50 events "$j")
	p=$(rss "$TS_BIN" --cache "$dir/cache.db" view --width 200 --height 50 log "$j" -c "move pgdn" -c "move pgdn")
	echo "peak RSS at $s: merged window ${m} KB, grep --count ${g} KB, grep printing ${l} KB, view log ${p} KB (view events ${e} KB)"
done
