#!/bin/sh
# fuzz.sh -- replay the fuzz corpora through the fuzz targets.
. "$TS_SRCDIR/t/lib/test-lib.sh"

for target in faults stage; do
	test_expect_success "fuzz corpus: $target" "
		\"$TS_BUILDDIR/t/fuzz/$target-fuzz\" \"$TS_SRCDIR\"/t/fuzz/corpus/$target/* >out &&
		! grep '^not ok' out
	"
done
test_done
