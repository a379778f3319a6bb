#!/bin/sh
# pcap-bench.sh -- flow ingest speed against tcpdump, and memory on a
# large capture.
#
# Generates a synthetic RoCE capture (t/bench/pcapgen, BENCH_MB, default
# 300 MB), reads it with `tcpdump -nr FILE -w /dev/null` (the baseline:
# libpcap reading and writing every packet) and with t/bench/flowload
# (the whole ingest: decoding, flows, messages), and prints both packet
# rates and their ratio (target >= 0.9).  Then the max RSS of flowload on
# a BENCH_BIG_MB (default 2048) capture, next to the 300 MB one: ingest
# memory follows live flows and messages, not the file size.  Last, the
# whole `flows` analysis on a simulated job of BENCH_FLOWS_NODES (default
# 1024; 0 skips it) nodes, pp 64, 8 iterations, a straggler: wall time and
# max RSS (targets 5 s and 300 MB); the capture is about 2.6 GB.
set -e
builddir=${TS_BUILDDIR:-.}
tmp=${TMPDIR:-/tmp}/pcap-bench.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
gen="$builddir/t/bench/pcapgen"
load="$builddir/t/bench/flowload"
mb=${BENCH_MB:-300}
bigmb=${BENCH_BIG_MB:-2048}

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }

pkts=$("$gen" "$tmp/a.pcap" "$mb" | awk '{ print $1 }')
echo "capture: $mb MB, $pkts packets"
cat "$tmp/a.pcap" >/dev/null	# warm the page cache for both readers

if command -v tcpdump >/dev/null 2>&1; then
	best_td=0
	for i in 1 2 3; do
		a=$(now); tcpdump -nr "$tmp/a.pcap" -w /dev/null 2>/dev/null; b=$(now)
		r=$(rate "$pkts" "$a" "$b"); [ "$r" -gt "$best_td" ] && best_td=$r
	done
	echo "tcpdump -w /dev/null: $best_td packets/s (best of 3)"
fi
best=0
for i in 1 2 3; do
	a=$(now); "$load" "$tmp/a.pcap" >"$tmp/out"; b=$(now)
	r=$(rate "$pkts" "$a" "$b"); [ "$r" -gt "$best" ] && best=$r
done
echo "flow ingest:          $best packets/s (best of 3): $(cat "$tmp/out")"
if [ -n "$best_td" ]; then
	awk -v a="$best" -v b="$best_td" 'BEGIN {
		printf "ratio ingest/tcpdump: %.2f (target >= 0.90)\n", a / b }'
fi

rss=$(/usr/bin/time -f %M "$load" "$tmp/a.pcap" 2>&1 >/dev/null | tail -1)
echo "max RSS, $mb MB capture: $rss kB"
rm -f "$tmp/a.pcap"
"$gen" "$tmp/big.pcap" "$bigmb" >/dev/null
rss=$(/usr/bin/time -f %M "$load" "$tmp/big.pcap" 2>&1 >/dev/null | tail -1)
echo "max RSS, $bigmb MB capture: $rss kB"
rm -f "$tmp/big.pcap"

nodes=${BENCH_FLOWS_NODES:-1024}
ts="$builddir/trainscope"
if [ "$nodes" -gt 0 ] && "$ts" help simulate >/dev/null 2>&1; then
	"$ts" simulate --nodes "$nodes" --gpus-per-node 1 --dp $((nodes / 64)) \
	    --pp 64 --tp 1 --iters 8 --iter-ms 1000 --micro-batches 64 \
	    --seed 3 --transport roce --fault straggler@$((nodes / 12)):4 \
	    "$tmp/job" >/dev/null
	cat "$tmp/job/flows.pcap" >/dev/null	# warm the page cache
	best=
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M" "$ts" flows --no-cache --format json \
		    "$tmp/job" 2>"$tmp/time" >"$tmp/flows.json"
		r=$(tail -1 "$tmp/time")
		best=$(printf '%s\n%s\n' "$best" "$r" | awk 'NF' | sort -n | head -1)
	done
	set -- $best
	echo "flows on $nodes nodes ($(du -m "$tmp/job/flows.pcap" | cut -f1) MB capture): $1 s, max RSS $(($2 / 1024)) MB (best of 3; targets 5 s, 300 MB)"
fi
