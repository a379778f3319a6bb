#!/bin/sh
# search-bench.sh [N...] -- `search` and `next` against drawing the same
# pane, at several sizes (default 5000 and 50000 rows).
#
# For each N: t/bench/search-bench times the events, heatmap and groups
# panes of an N-event, N-node model, and the lines pane of a generated
# job whose one error has N lines (indexed here).  The ratio
# search/draw must stay about the same from one N to the next: a search
# that built the rows again for every row it asked about grew with N.
set -e
: "${TS_BIN:=./trainscope}"
: "${SEARCH_BENCH:=./t/bench/search-bench}"
dir=${TMPDIR:-/tmp}/ts-bench-search.$$
[ -n "$KEEP" ] && echo "keeping $dir" >&2 || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir"
for n in ${*:-5000 50000}; do
	mkdir -p "$dir/job$n/node01"
	awk -v n="$n" 'BEGIN {
		for (i = 1; i <= 3; i++)
			printf "[2026-01-01 00:00:0%d,000] INFO  iteration %d/ 10 | elapsed time per iteration (ms): 100.%d |\n", i, i, i
		for (i = 1; i <= n; i++)
			printf "[2026-01-01 00:00:%02d,%03d] ERROR RuntimeError: worker %d failed with code %d\n", 4 + int(i / 1000) % 50, i % 1000, i % 64, i == n ? 987654321 : i % 7
	}' >"$dir/job$n/node01/rank-0.log"
	"$TS_BIN" --cache "$dir/cache.db" index "$dir/job$n" >/dev/null 2>&1
	echo "== $n rows"
	"$SEARCH_BENCH" "$n" "$dir/cache.db" "job$n"
done
