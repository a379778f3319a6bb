#!/bin/sh
# flows-fuzz.sh -- the flow analysis fuzz targets replay their corpus.
. "$TS_SRCDIR/t/lib/test-lib.sh"

corpus="$TS_SRCDIR/t/fuzz/corpus"
for t in flowan flownames; do
	test_expect_success "$t fuzz target replays its corpus" '
		"$TS_BUILDDIR/t/fuzz/$t-fuzz" "$corpus"/$t/* >out &&
		test "$(grep -c "^ok" out)" -eq "$(ls "$corpus"/$t | wc -l)"
	'
done
test_expect_success 'an empty input is fine too' '
	: >empty && "$TS_BUILDDIR/t/fuzz/flowan-fuzz" empty &&
	"$TS_BUILDDIR/t/fuzz/flownames-fuzz" empty
'
test_done
