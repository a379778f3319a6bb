#!/bin/sh
# fuzz-index.sh -- replay the fuzz corpora of the reader and of discovery
# (t/fuzz/corpus/reader, t/fuzz/corpus/scan) and a few generated inputs.
. "$TS_SRCDIR/t/lib/test-lib.sh"

reader="$TS_BUILDDIR/t/fuzz/reader-fuzz"
scan="$TS_BUILDDIR/t/fuzz/scan-fuzz"
test_expect_success 'the reader corpus replays without a failed check' '
	"$reader" "$TS_SRCDIR"/t/fuzz/corpus/reader/* >out &&
	test "$(grep -c "^ok" out)" -eq 6 && ! grep "^not ok" out
'
test_expect_success 'long lines and a lone CR' '
	awk "BEGIN { for (i = 0; i < 150000; i++) printf \"y\"; print \"\"; printf \"z\\r\" }" >long &&
	printf "\r" >cr && "$reader" long cr >out && ! grep "^not ok" out
'
test_expect_success 'the discovery corpus replays' '
	"$scan" "$TS_SRCDIR"/t/fuzz/corpus/scan/* >out &&
	test "$(grep -c "^ok" out)" -eq 7 && ! grep "^not ok" out
'
test_done
