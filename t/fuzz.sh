#!/bin/sh
# fuzz.sh -- the fuzz targets, run once over their small corpus.
. "$TS_SRCDIR/t/lib/test-lib.sh"

for t in lineparse tmpl; do
	test_expect_success "$t fuzz target over its corpus" '
		"$TS_BUILDDIR/t/fuzz/$t-fuzz" "$TS_SRCDIR"/t/fuzz/corpus/$t/* >out &&
		test "$(grep -c "^ok" out)" -ge 2 && ! grep "^not ok" out
	'
done
test_done
