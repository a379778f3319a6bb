#!/bin/sh
# tmpl.sh -- speed of header parsing, masking and template matching.
#
# Builds a test file from the real training logs and the loghub samples
# in $TS_SHARED (or from generated training-log lines when they are
# absent) and runs t/bench/tmpl-bench on it; `wc -l` on the same file is
# the outside baseline.
: "${TS_SHARED:=$(dirname "$0")/../../../shared}"
B=${TS_BUILDDIR:-.}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

if [ -d "$TS_SHARED/data/realjobs" ]; then
	find "$TS_SHARED/data/realjobs" -name '*.log' -path '*logs*' \
	    -exec cat {} + >"$work/train.log"
	cat "$TS_SHARED"/data/loghub-2k/*/*_2k.log >"$work/loghub.log"
else
	awk 'BEGIN { for (i = 1; i <= 20000; i++)
		printf "[2026-11-21 06:56:%02d.%03d] [INFO] [rank %d]  iteration %8d/ 30000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | lm loss: %.6E |\n",
		    i % 60, i % 1000, i % 8, i, i * 32, 120 + i % 50, 3.5 / i }' >"$work/train.log"
	cp "$work/train.log" "$work/loghub.log"
fi
for f in train loghub; do
	# repeat to about 50 MB so timings are stable
	size=$(wc -c <"$work/$f.log")
	rep=$(( 50000000 / (size + 1) + 1 ))
	echo "== $f.log x $rep"
	"$B/t/bench/tmpl-bench" "$work/$f.log" "$rep" || exit 1
	i=0; while [ $i -lt "$rep" ]; do cat "$work/$f.log"; i=$((i + 1)); done >"$work/big"
	t0=$(date +%s.%N); wc -l "$work/big" >/dev/null; t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v s="$(wc -c <"$work/big")" \
	    'BEGIN { printf "%-24s %12s %10.1f\n", "wc -l (outside)", "", s / 1e6 / (b - a) }'
done
