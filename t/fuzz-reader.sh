#!/bin/sh
# fuzz-reader.sh -- replay the reader's fuzz corpus (t/fuzz/corpus/reader)
# and a few generated inputs through its fuzz target.
. "$TS_SRCDIR/t/lib/test-lib.sh"

fuzz="$TS_BUILDDIR/t/fuzz/reader-fuzz"
test_expect_success 'the corpus replays without a failed check' '
	"$fuzz" "$TS_SRCDIR"/t/fuzz/corpus/reader/* >out &&
	test "$(grep -c "^ok" out)" -eq 6 && ! grep "^not ok" out
'
test_expect_success 'long lines and a lone CR' '
	awk "BEGIN { for (i = 0; i < 150000; i++) printf \"y\"; print \"\"; printf \"z\\r\" }" >long &&
	printf "\r" >cr && "$fuzz" long cr >out && ! grep "^not ok" out
'
test_done
