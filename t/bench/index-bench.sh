#!/bin/sh
# index-bench.sh -- speed to the first answer on a generated multi-node
# job, against lnav, grep, cat and wc -l on the same files in the same
# run, as ratios.
#
#	t/bench/index-bench.sh [MB]	(default 1024)
#
# The job (genjob.awk: NODES nodes of RANKS Megatron-style rank logs and
# one kernel/syslog host log each; 32 x 8 + 32 = 288 files) is made once
# and kept in $BENCH_DIR.  Every tool reads from the page cache (one
# warm-up pass first).  Each measurement is taken BENCH_REPS times (3),
# the tools back to back in every round; the median and the best are
# shown, and the machine's load average before and after, since other
# work on the machine slows every tool, and trainscope's threads most.
# A host that gives its N cores less than N times one core's work bounds
# any 1 -> N speed-up: N 1-thread first answers run at once, and N times
# one's time over theirs is that ceiling, to read the speed-up against.
# A 1 -> N speed-up is also given as the median of each round's own
# ratio: its two runs come back to back, so a stretch of a slower
# machine (a shared host) falls on both, and which of them goes first
# changes from round to round.
#
# Rows: index on all cores and on one (the 1 -> N speed-up), the first
# answer (`diagnose PATH` on a job not indexed yet: index, load, score)
# on all cores and on one, a warm `diagnose` of the unchanged job, a
# re-index of it, and the screen on it (first paint, key p99: needs
# SCREEN_BENCH, t/bench/screen-bench).  lnav is optional (apt-get
# install lnav); without it its rows are left out.  With SCALE=K (say
# 10) the first answer is also taken on a job K times the size, made
# the same way (10 GB of disk for K=10), and its time and peak RSS shown
# as ratios to the first job's.
#
# Then the same index, on all cores and on one, of a job of many small
# files, where the single writer's per-file work dominates: `trainscope
# simulate --nodes SIM_NODES --size 1G --no-flows` (1024: 10 240 files;
# made once in $BENCH_DIR; SIM_NODES=0 leaves it out), against `cat` of
# its files.
set -e
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TS_BIN:-$srcdir/trainscope}
mb=${1:-1024}
reps=${BENCH_REPS:-3}
nodes=${NODES:-32}
ranks=${RANKS:-8}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/trainscope-bench}
job=$dir/mn-$mb-$nodes-$ranks
tmp=$(mktemp -d "${TMPDIR:-/tmp}/index-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

[ -x /usr/bin/time ] || { echo "index-bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
# genjob DIR MB: make the job once
genjob() {
	[ -f "$1/.done" ] && return 0
	echo "generating a $2 MB job of $nodes x $ranks ranks in $1 ..." >&2
	rm -rf "$1" && mkdir -p "$1"
	# about 230 bytes a rank line and 116 a host line, half as many
	lines=$(($2 * 1000000 / (nodes * ranks * 230 + nodes * 58)))
	awk -v NODES="$nodes" -v RANKS="$ranks" -v LINES="$lines" \
	    -v HOSTLINES=$((lines / 2)) -v DIR="$1" \
	    -f "$srcdir/t/bench/genjob.awk"
	touch "$1/.done"
}
genjob "$job" "$mb"
scale=${SCALE:-0}
if [ "$scale" -gt 1 ]; then
	bigjob=$dir/mn-$((mb * scale))-$nodes-$ranks
	genjob "$bigjob" $((mb * scale))
	cat $(find "$bigjob" -name '*.log') >/dev/null
fi
files=$(find "$job" -name '*.log' | sort)
nfiles=$(echo $files | wc -w)
bytes=$(cat $files | wc -c)
cores=$(nproc)
cat $files >/dev/null
mkdir -p "$tmp/home"

# timed NAME CMD...: wall, user+sys seconds and peak RSS KB appended to
# $tmp/NAME (one line a round); the output is kept in $tmp/NAME.out
timed() {
	name=$1; shift
	/usr/bin/time -f '%e %U %S %M' -a -o "$tmp/$name" "$@" \
	    >"$tmp/$name.out" 2>"$tmp/$name.err"
}
# med NAME FIELD: the median of a column (1 wall, 2 cpu, 3 rss KB)
med() {
	[ -s "$tmp/$1" ] || { echo 0; return; }
	awk -v f="$2" '{ print f == 2 ? $2 + $3 : f == 3 ? $4 : $1 }' "$tmp/$1" |
	    sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# best NAME: the shortest wall time of the rounds
best() { sort -g "$tmp/$1" 2>/dev/null | awk 'NR == 1 { print $1 + 0 }'; }
# paired A B: the median over the rounds of A's wall time / B's in the
# same round (the two run back to back, so a machine that is slower for
# a while slows both)
paired() {
	paste -d' ' "$tmp/$1" "$tmp/$2" 2>/dev/null |
	    awk '$5 > 0 { print $1 / $5 }' | sort -g |
	    awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
fresh() { rm -f "$tmp/$1" "$tmp/$1-wal" "$tmp/$1-shm"; }

lnav_ok=0
command -v lnav >/dev/null 2>&1 && lnav_ok=1
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
r=0
while [ $r -lt "$reps" ]; do
	timed wc wc -l $files
	timed cat cat $files
	timed grep grep -c -e ERROR -e WARNING $files
	if [ $lnav_ok = 1 ]; then
		HOME=$tmp/home timed lnav lnav -n -c \
		    ';SELECT count(*) FROM all_logs' $files || lnav_ok=0
	fi
	# each pair in turn first and second, so that neither always runs
	# right after lnav or right after the other
	for k in 1 2; do
		if [ $(( (r + k) % 2 )) = 0 ]; then
			fresh i.db
			timed index "$bin" -q --cache "$tmp/i.db" index \
			    --job bench "$job"
		else
			fresh i1.db
			timed index1 "$bin" -q --cache "$tmp/i1.db" index \
			    --threads 1 --job bench "$job"
		fi
	done
	for k in 1 2; do
		if [ $(( (r + k) % 2 )) = 0 ]; then
			fresh d.db
			timed first "$bin" -q --cache "$tmp/d.db" diagnose \
			    --top 3 "$job"
		else
			fresh d1.db
			timed first1 "$bin" -q --cache "$tmp/d1.db" diagnose \
			    --threads 1 --top 3 "$job"
		fi
	done
	# what the machine gives: as many 1-thread first answers as cores,
	# at once (the ceiling of a 1 -> N speed-up on this host)
	timed allone env BIN="$bin" TMPD="$tmp" JOB="$job" N="$cores" sh -c '
		i=0
		while [ $i -lt "$N" ]; do
			rm -f "$TMPD/p$i.db" "$TMPD/p$i.db-wal" "$TMPD/p$i.db-shm"
			"$BIN" -q --cache "$TMPD/p$i.db" diagnose --threads 1 \
			    --top 3 "$JOB" >/dev/null 2>&1 &
			i=$((i + 1))
		done
		wait'
	timed warm "$bin" -q --cache "$tmp/d.db" diagnose --top 3 "$job"
	if [ "$scale" -gt 1 ]; then
		fresh big.db
		timed big "$bin" -q --cache "$tmp/big.db" diagnose --top 3 \
		    "$bigjob"
	fi
	timed reindex "$bin" -q --cache "$tmp/i.db" index --job bench "$job"
	timed reopen "$bin" -q --cache "$tmp/i.db" templates bench
	r=$((r + 1))
done
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
csize=$(cat "$tmp/i.db" "$tmp/i.db-wal" 2>/dev/null | wc -c)

echo
echo "index-bench: $nfiles files, $((bytes / 1000000)) MB, $cores cores," \
    "median of $reps rounds; load average $load0 before, $load1 after"
grep '^indexed' "$tmp/index.err" | sed 's/^/  /'
printf '%-36s %8s %8s %8s %8s %8s\n' "what" "wall s" "best s" "MB/s" \
    "CPU s" "RSS MB"
row() {
	printf '%-36s %8.2f %8.2f %8.0f %8.2f %8.0f\n' "$1" "$(med "$2" 1)" \
	    "$(best "$2")" \
	    "$(awk -v b="$bytes" -v s="$(med "$2" 1)" 'BEGIN { print (s > 0 ? b / s / 1e6 : 0) }')" \
	    "$(med "$2" 2)" "$(awk -v k="$(med "$2" 3)" 'BEGIN { print k / 1024 }')"
}
row "wc -l" wc
row "cat" cat
row "grep -c -e ERROR -e WARNING" grep
[ $lnav_ok = 1 ] && row "lnav (all_logs count)" lnav
row "trainscope index ($cores threads)" index
row "trainscope index (1 thread)" index1
row "first answer: diagnose PATH" first
row "first answer, 1 thread" first1
row "$cores first answers of 1 thread at once" allone
row "warm diagnose (unchanged job)" warm
[ "$scale" -gt 1 ] && row "first answer, ${scale}x the data" big
row "re-index (unchanged job)" reindex
row "reopen: templates" reopen

echo
printf '%-44s %8s %14s\n' "ratio" "value" "target"
ratio() { printf '%-44s %8.2f %14s\n' "$1" "$2" "$3"; }
q() { awk "BEGIN { a = $2; b = $3; print ((b > 0) ? a / b : 0) }" </dev/null; }
if [ $lnav_ok = 1 ]; then
	ratio "index speed / lnav's (wall)" "$(q x "$(med lnav 1)" "$(med index 1)")" ">= 3"
	ratio "  the same, best of each" "$(q x "$(best lnav)" "$(best index)")" ">= 3"
	ratio "index CPU / lnav's (same bytes)" "$(q x "$(med index 2)" "$(med lnav 2)")" "<= 1"
	ratio "first answer / lnav's load (wall)" "$(q x "$(med first 1)" "$(med lnav 1)")" "<= 0.5"
fi
ratio "index speed / cat's" "$(q x "$(med cat 1)" "$(med index 1)")" ""
ratio "index speed / grep's" "$(q x "$(med grep 1)" "$(med index 1)")" ""
ratio "index, 1 -> $cores threads (wall)" "$(q x "$(med index1 1)" "$(med index 1)")" ">= 1.8 (2 cores)"
ratio "  the same, best of each" "$(q x "$(best index1)" "$(best index)")" ">= 1.8 (2 cores)"
ratio "  the same, median of each round's" "$(paired index1 index)" ">= 1.8 (2 cores)"
ratio "first answer, 1 -> $cores threads (wall)" "$(q x "$(med first1 1)" "$(med first 1)")" ">= 1.8 (2 cores)"
ratio "  the same, best of each" "$(q x "$(best first1)" "$(best first)")" ">= 1.8 (2 cores)"
ratio "  the same, median of each round's" "$(paired first1 first)" ">= 1.8 (2 cores)"
ratio "  ceiling: $cores runs of 1 thread, at once" "$(q x "$cores * $(med first1 1)" "$(med allone 1)")" ""
ratio "  1 -> $cores speed-up / that ceiling" "$(q x "$(med allone 1)" "$cores * $(med first 1)")" ""
ratio "warm diagnose / cat (wall)" "$(q x "$(med warm 1)" "$(med cat 1)")" "<= 0.3"
ratio "re-index unchanged / index (%)" "$(q x "100 * $(med reindex 1)" "$(med index 1)")" "<= 2"
ratio "cache size / raw bytes (%)" "$(q x "100 * $csize" "$bytes")" "<= 10"
printf '%-44s %8.0f %14s\n' "peak RSS of index (MB)" "$(q x "$(med index 3)" 1024)" "< 200"
printf '%-44s %8.0f %14s\n' "peak RSS of the first answer (MB)" "$(q x "$(med first 3)" 1024)" "<= 150"
if [ "$scale" -gt 1 ]; then
	ratio "first answer at ${scale}x: time / 1x" "$(q x "$(med big 1)" "$(med first 1)")" "<= $(q x "$scale * 1.05" 1)"
	ratio "  CPU / 1x" "$(q x "$(med big 2)" "$(med first 2)")" "<= $(q x "$scale * 1.05" 1)"
	ratio "  peak RSS / 1x" "$(q x "$(med big 3)" "$(med first 3)")" "<= 1.2"
fi
for f in index first; do
	if grep -q . "$tmp/$f.err" 2>/dev/null && grep -v '^indexed' "$tmp/$f.err" | grep -q .; then
		echo "$f warnings:"; grep -v '^indexed' "$tmp/$f.err" | head -5
	fi
done
# many small files: the writer's share
sim_nodes=${SIM_NODES:-1024}
if [ "$sim_nodes" -gt 0 ]; then
	sim=$dir/sim-$sim_nodes
	if [ ! -f "$sim/.done" ]; then
		echo "simulating a job of $sim_nodes nodes in $sim ..." >&2
		rm -rf "$sim"
		"$bin" simulate --nodes "$sim_nodes" --size 1G --no-flows \
		    "$sim" >/dev/null
		touch "$sim/.done"
	fi
	sfiles=$(find "$sim" -type f -name '*.log' | wc -l)
	sbytes=$(find "$sim" -type f -name '*.log' -exec cat {} + | wc -c)
	find "$sim" -type f -exec cat {} + >/dev/null
	r=0
	while [ $r -lt "$reps" ]; do
		timed scat sh -c 'find "$1" -type f -exec cat {} + >/dev/null' \
		    sh "$sim"
		fresh s.db
		timed sindex "$bin" -q --cache "$tmp/s.db" index "$sim"
		fresh s1.db
		timed sindex1 "$bin" -q --cache "$tmp/s1.db" index --threads 1 \
		    "$sim"
		r=$((r + 1))
	done
	bytes=$sbytes
	echo
	echo "simulate --nodes $sim_nodes: $sfiles log files, $((sbytes / 1000000))" \
	    "MB; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?") after"
	row "cat (find -exec cat)" scat
	row "trainscope index ($cores threads)" sindex
	row "trainscope index (1 thread)" sindex1
	ratio "index, 1 -> $cores threads (wall)" "$(q x "$(med sindex1 1)" "$(med sindex 1)")" ""
	ratio "  the same, best of each" "$(q x "$(best sindex1)" "$(best sindex)")" ""
	ratio "files a second, $cores threads" "$(q x "$sfiles" "$(med sindex 1)")" ""
fi
# the screen on the indexed job: first paint and keys, as a user feels them
if [ -n "$SCREEN_BENCH" ] && [ -x "$SCREEN_BENCH" ]; then
	echo
	"$SCREEN_BENCH" "$bin" "$tmp/d.db" "$job" 2>&1 | sed 's/^/  /'
fi
