#!/bin/sh
# sim.sh -- how fast `simulate` writes logs, against the disk's own speed
# for the same number of bytes (the baseline, measured in the same run).
: "${TS_BIN:=./trainscope}"
SIZE=${SIM_BENCH_SIZE:-500M}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ts-bench.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

now() { date +%s.%N; }

t0=$(now)
"$TS_BIN" simulate --healthy --no-flows --size "$SIZE" "$dir/job" >/dev/null || exit 1
t1=$(now)
bytes=$(cat "$dir"/job/logs/*/* "$dir"/job/host/* | wc -c)
t2=$(now)
head -c "$bytes" /dev/zero >"$dir/zero" && sync
t3=$(now)
t4=$(now)
"$TS_BIN" simulate --healthy --size "$SIZE" "$dir/job2" >/dev/null || exit 1
t5=$(now)
awk -v b="$bytes" -v s="$t0" -v e="$t1" -v zs="$t2" -v ze="$t3" \
    -v fs="$t4" -v fe="$t5" 'BEGIN {
	mb = b / 1048576
	printf "simulate logs:        %8.1f MB in %6.2f s = %7.1f MB/s\n", mb, e - s, mb / (e - s)
	printf "simulate logs+flows:  %8.1f MB in %6.2f s = %7.1f MB/s\n", mb, fe - fs, mb / (fe - fs)
	printf "baseline (write zeros) %7.1f MB in %6.2f s = %7.1f MB/s\n", mb, ze - zs, mb / (ze - zs)
	printf "ratio simulate/baseline: %.3f\n", (ze - zs) / (e - s)
}'
