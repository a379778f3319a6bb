#!/bin/sh
# index-bench.sh -- end-to-end indexing speed, memory, cache size, reopen
# and re-index times on a generated job, with `wc -l` and lnav (when
# installed) on the same files in the same run.
#
#	t/bench/index-bench.sh [MB]	(default 1024; BENCH_DIR to keep the job)
#
# The job is generated once by genjob.awk (Megatron/NCCL-style lines in
# 16 nodes x 8 rank files) and kept in $BENCH_DIR between runs.  All runs
# read from the page cache: every tool gets one warm-up pass first.
set -e
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TS_BIN:-$srcdir/trainscope}
mb=${1:-1024}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/trainscope-bench}
job=$dir/job-$mb
tmp=$(mktemp -d "${TMPDIR:-/tmp}/index-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

[ -x /usr/bin/time ] || { echo "index-bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [ ! -f "$job/.done" ]; then
	echo "generating a $mb MB job in $job ..." >&2
	rm -rf "$job" && mkdir -p "$job"
	# about 225 bytes per line, 128 files
	awk -v NODES=16 -v RANKS=8 -v LINES=$((mb * 1000000 / 225 / 128)) \
	    -v DIR="$job" -f "$srcdir/t/bench/genjob.awk"
	touch "$job/.done"
fi
files=$(find "$job" -name '*.log' | sort)
bytes=$(cat $files | wc -c)
cat $files >/dev/null

# timed NAME CMD...: wall seconds, user+sys seconds, peak RSS KB in $tmp/NAME
timed() {
	name=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}
wall() { awk '{ print $1 }' "$tmp/$1"; }
cpu() { awk '{ print $2 + $3 }' "$tmp/$1"; }
rss() { awk '{ print $4 }' "$tmp/$1"; }
rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.0f", (s > 0) ? b / s / 1e6 : 0 }'; }

timed wc wc -l $files
lnav_ok=0
if command -v lnav >/dev/null 2>&1; then
	mkdir -p "$tmp/home"
	HOME=$tmp/home timed lnav lnav -n -c ';SELECT count(*) FROM all_logs' $files && lnav_ok=1
fi
cache=$tmp/cache.db
timed index "$bin" -q --cache "$cache" index --job bench "$job"
timed reopen "$bin" -q --cache "$cache" templates bench
timed reindex "$bin" -q --cache "$cache" index --job bench "$job"
csize=$(cat "$cache" "$cache-wal" 2>/dev/null | wc -c)

echo
echo "index-bench: $(echo $files | wc -w) files, $((bytes / 1000000)) MB, $(nproc) cores"
grep '^indexed' "$tmp/index.out" | sed 's/^/  /'
printf '%-34s %10s %10s %14s\n' "what" "wall s" "MB/s" "target"
printf '%-34s %10s %10s %14s\n' "wc -l" "$(wall wc)" "$(rate "$(wall wc)")" ""
if [ $lnav_ok = 1 ]; then
	printf '%-34s %10s %10s %14s\n' "lnav all_logs count" "$(wall lnav)" \
	    "$(rate "$(wall lnav)")" ""
fi
printf '%-34s %10s %10s %14s\n' "trainscope index" "$(wall index)" \
    "$(rate "$(wall index)")" ">= 300 MB/s"
printf '%-34s %10s %10s %14s\n' "  (per CPU second, user+sys)" "$(cpu index)" \
    "$(rate "$(cpu index)")" ""
awk -v i="$(wall index)" -v w="$(wall wc)" -v l="$( [ $lnav_ok = 1 ] && wall lnav || echo 0)" \
    -v r="$(wall reopen)" -v x="$(wall reindex)" -v c="$csize" -v b="$bytes" \
    -v m="$(rss index)" 'BEGIN {
	printf "%-34s %10.1f %25s\n", "index time / wc -l time", i / w, ""
	if (l > 0)
		printf "%-34s %10.2f %25s\n", "index speed / lnav speed", l / i, ""
	printf "%-34s %10.0f %25s\n", "peak RSS (MB)", m / 1024, "< 200 MB"
	printf "%-34s %10.2f %25s\n", "cache size / raw bytes (%)", 100 * c / b, "<= 10 %"
	printf "%-34s %10.2f %25s\n", "reopen: templates (s)", r, "<= 0.2 s"
	printf "%-34s %10.2f %25s\n", "re-index unchanged (% of first)", 100 * x / i, "<= 2 %"
}'
if [ -s "$tmp/index.err" ]; then
	echo "index warnings:"; head -5 "$tmp/index.err"
fi
