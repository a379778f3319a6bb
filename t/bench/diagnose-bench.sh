#!/bin/sh
# diagnose-bench.sh [NODES [ITERS]] -- time `diagnose` on a generated job.
#
# Writes the logs of NODES ranks of ITERS Megatron-style iterations each
# (default 1000 x 3600: about 1 GB), with an Xid on one rank followed by
# watchdog timeouts everywhere; indexes them and times `diagnose`.
# LAYOUT=per-rank (the default) writes one file per rank, one directory
# per node; LAYOUT=combined writes one file of all ranks interleaved
# line by line, each line behind a "[defaultN]:" prefix, with a hostfile
# of 8 ranks per node.  The baseline, timed in the same run, is reading
# the logs once (cat); the ratio says how diagnose compares with
# touching the data at all.
set -e
: "${TS_BIN:=./trainscope}"
: "${LAYOUT:=per-rank}"
nodes=${1:-1000}
iters=${2:-3600}
case $LAYOUT in
per-rank|combined) ;;
*) echo "diagnose-bench.sh: unknown LAYOUT '$LAYOUT'" >&2; exit 1 ;;
esac
dir=${TMPDIR:-/tmp}/ts-bench-diag.$$
[ -n "$KEEP" ] && echo "keeping $dir" >&2 || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/job"
awk -v nodes="$nodes" -v iters="$iters" -v dir="$dir/job" \
    -v layout="$LAYOUT" '
function out(n) {
	if (layout == "combined")
		return dir "/job.log"
	return sprintf("%s/node%04d/rank-%d.log", dir, n, n)
}
function pre(n) {
	return layout == "combined" ? sprintf("[default%d]:", n) : ""
}
function stamp(t) {
	return sprintf("[2026-01-01 %02d:%02d:%06.3f]", int(t / 3600),
	    int(t / 60) % 60, t % 60)
}
function head(n) {
	printf "%s[2026-01-01 00:00:00.000] [INFO] [rank %d] using world size: %d\n", pre(n), n, nodes > out(n)
	printf "%s[2026-01-01 00:00:01.000] [INFO] [rank %d] > initializing torch distributed with backend nccl\n", pre(n), n > out(n)
	printf "%s[2026-01-01 00:00:02.000] [INFO] [rank %d] training ...\n", pre(n), n > out(n)
}
function iter(n, i, t) {
	printf "%s%s [INFO] [rank %d]  iteration %8d/ %8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: 1.000000E-04 | global batch size: 1024 | lm loss: %.6E | loss scale: 1.0 | grad norm: 0.%03d |\n", pre(n), stamp(t), n, i, iters, i * 1024, 1500 + (i * 7 + n) % 90, 7 - i / iters, (i + n) % 1000 > out(n)
	if (i % 500 == 0)
		printf "%s%s [INFO] [rank %d] saving checkpoint at iteration %d to /ckpt\n", pre(n), stamp(t), n, i > out(n)
}
function tail(n, t) {
	if (n == bad)
		printf "%s%s [ERROR] [rank %d] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n", pre(n), stamp(t), n > out(n)
	else
		printf "%s%s [ERROR] [rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.\n", pre(n), stamp(t + 600), n, iters > out(n)
}
BEGIN {
	bad = int(nodes / 3)
	if (layout == "combined") {
		for (n = 0; n < nodes; n += 8)
			printf "node%04d slots=8\n", n / 8 > dir "/hostfile"
		for (n = 0; n < nodes; n++)
			head(n)
		for (i = 1; i <= iters; i++)
			for (n = 0; n < nodes; n++)
				if (n != bad || i < iters)
					iter(n, i, 1.5 * i)
		for (n = 0; n < nodes; n++)
			tail(n, 1.5 * (n == bad ? iters - 1 : iters))
		exit
	}
	for (n = 0; n < nodes; n++) {
		system("mkdir -p " dir sprintf("/node%04d", n))
		head(n)
		last = (n == bad) ? iters - 1 : iters
		for (i = 1; i <= last; i++)
			iter(n, i, 1.5 * i)
		tail(n, 1.5 * last)
		close(out(n))
	}
}'
size=$(du -sm "$dir/job" | cut -f1)
cache="$dir/cache.db"
t0=$(date +%s.%N)
"$TS_BIN" --cache "$cache" index "$dir/job" >/dev/null
t1=$(date +%s.%N)
find "$dir/job" -name '*.log' -exec cat {} + >/dev/null
t2=$(date +%s.%N)
"$TS_BIN" --cache "$cache" diagnose --top 3 job >"$dir/out"
t3=$(date +%s.%N)
"$TS_BIN" --cache "$cache" view events job >/dev/null
t4=$(date +%s.%N)
"$TS_BIN" --cache "$cache" view events job >/dev/null
t5=$(date +%s.%N)
awk -v s="$size" -v n="$nodes" -v l="$LAYOUT" -v a="$t0" -v b="$t1" \
    -v c="$t2" -v d="$t3" -v e="$t4" -v f="$t5" 'BEGIN {
	printf "job: %d ranks, %s, %d MB\n", n, l, s
	printf "index:    %7.2f s\n", b - a
	printf "cat:      %7.2f s (baseline)\n", c - b
	printf "diagnose: %7.2f s (%.2fx cat; target < 2 s)\n", d - c, (d - c) / (c - b)
	printf "view events, first:  %7.2f s (%.2fx cat; computes and keeps the model)\n", e - d, (e - d) / (c - b)
	printf "view events, again:  %7.2f s (%.2fx cat; target <= 0.3x)\n", f - e, (f - e) / (c - b)
}'
# each pane drawn from the kept model (the process, reading the model
# back and drawing 80x24; target: drawing <= 100 ms)
for p in events heatmap timeline groups jobs; do
	a=$(date +%s.%N)
	"$TS_BIN" --cache "$cache" view $p job >/dev/null
	b=$(date +%s.%N)
	awk -v p="$p" -v a="$a" -v b="$b" 'BEGIN { printf "view %-9s %5.0f ms\n", p, (b - a) * 1000 }'
done
a=$(date +%s.%N)
"$TS_BIN" --cache "$cache" view events job -c drill -c "move bottom" >/dev/null
b=$(date +%s.%N)
awk -v a="$a" -v b="$b" 'BEGIN { printf "view lines (drill, last row) %5.0f ms\n", (b - a) * 1000 }'
sed -n '/^suspect nodes/{n;p;}' "$dir/out"
sed -n '/^suspect events/{n;p;}' "$dir/out"
# the screen on the same job, through a pseudo-terminal
if [ -n "$SCREEN_BENCH" ] && [ -x "$SCREEN_BENCH" ]; then
	"$SCREEN_BENCH" "$TS_BIN" "$cache" "$dir/job"
fi
