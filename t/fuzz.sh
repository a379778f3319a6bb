#!/bin/sh
# fuzz.sh -- the fuzz targets of the line parser, the template miner, the
# fault rules, the iteration scanners, the model bytes, the canvas, the
# session-file reader, the report writer and the config file, run once
# over their corpus.
. "$TS_SRCDIR/t/lib/test-lib.sh"

for t in lineparse tmpl faults stage model canvas grep session report config; do
	test_expect_success "$t fuzz target over its corpus" '
		"$TS_BUILDDIR/t/fuzz/$t-fuzz" "$TS_SRCDIR"/t/fuzz/corpus/$t/* >out &&
		test "$(grep -c "^ok" out)" -ge 1 && ! grep "^not ok" out
	'
done
test_done
