#!/bin/sh
# diagnose-bench.sh [NODES [ITERS]] -- time `diagnose` on a generated job.
#
# Writes NODES per-node Megatron-style logs of ITERS iterations each
# (default 1000 x 3600: about 1 GB), with an Xid on one node followed by
# watchdog timeouts everywhere; indexes them and times `diagnose`.  The
# baseline, timed in the same run, is reading the logs once (cat); the
# ratio says how diagnose compares with touching the data at all.
set -e
: "${TS_BIN:=./trainscope}"
nodes=${1:-1000}
iters=${2:-3600}
dir=${TMPDIR:-/tmp}/ts-bench-diag.$$
[ -n "$KEEP" ] && echo "keeping $dir" >&2 || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/job"
awk -v nodes="$nodes" -v iters="$iters" -v dir="$dir/job" 'BEGIN {
	bad = int(nodes / 3)
	for (n = 0; n < nodes; n++) {
		d = sprintf("%s/node%04d", dir, n)
		system("mkdir -p " d)
		f = d "/rank-" n ".log"
		t = 0
		printf "[2026-01-01 00:00:00.000] [INFO] [rank %d] using world size: %d\n", n, nodes > f
		printf "[2026-01-01 00:00:01.000] [INFO] [rank %d] > initializing torch distributed with backend nccl\n", n > f
		printf "[2026-01-01 00:00:02.000] [INFO] [rank %d] training ...\n", n > f
		last = (n == bad) ? iters - 1 : iters
		for (i = 1; i <= last; i++) {
			t += 1.5
			printf "[2026-01-01 %02d:%02d:%06.3f] [INFO] [rank %d]  iteration %8d/ %8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: 1.000000E-04 | global batch size: 1024 | lm loss: %.6E | loss scale: 1.0 | grad norm: 0.%03d |\n", int(t / 3600), int(t / 60) % 60, t % 60, n, i, iters, i * 1024, 1500 + (i * 7 + n) % 90, 7 - i / iters, (i + n) % 1000 > f
			if (i % 500 == 0)
				printf "[2026-01-01 %02d:%02d:%06.3f] [INFO] [rank %d] saving checkpoint at iteration %d to /ckpt\n", int(t / 3600), int(t / 60) % 60, t % 60, n, i > f
		}
		if (n == bad)
			printf "[2026-01-01 %02d:%02d:%06.3f] [ERROR] [rank %d] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n", int(t / 3600), int(t / 60) % 60, t % 60, n > f
		else
			printf "[2026-01-01 %02d:%02d:%06.3f] [ERROR] [rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.\n", int((t + 600) / 3600), int((t + 600) / 60) % 60, (t + 600) % 60, n, iters > f
		close(f)
	}
}'
size=$(du -sm "$dir/job" | cut -f1)
cache="$dir/cache.db"
t0=$(date +%s.%N)
"$TS_BIN" --cache "$cache" index "$dir/job" >/dev/null
t1=$(date +%s.%N)
cat "$dir"/job/*/*.log >/dev/null
t2=$(date +%s.%N)
"$TS_BIN" --cache "$cache" diagnose --top 3 job >"$dir/out"
t3=$(date +%s.%N)
awk -v s="$size" -v n="$nodes" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
	printf "job: %d nodes, %d MB\n", n, s
	printf "index:    %7.2f s\n", b - a
	printf "cat:      %7.2f s (baseline)\n", c - b
	printf "diagnose: %7.2f s (%.1fx cat; target < 2 s)\n", d - c, (d - c) / (c - b)
}'
sed -n '/^suspect nodes/{n;p;}' "$dir/out"
sed -n '/^suspect events/{n;p;}' "$dir/out"
