#!/bin/sh
# fuzz-flows.sh -- the flow readers' fuzz targets over their corpus, and
# over cut and corrupted copies of it: nothing may crash.
. "$TS_SRCDIR/t/lib/test-lib.sh"

corpus="$TS_SRCDIR/t/fuzz/corpus"
pcapfuzz="$TS_BUILDDIR/t/fuzz/pcap-fuzz"
csvfuzz="$TS_BUILDDIR/t/fuzz/flowcsv-fuzz"

test_expect_success 'pcap reader survives its corpus' '
	"$pcapfuzz" "$corpus"/pcap/* >out && grep -c "^ok" out >n &&
	test "$(cat n)" -eq "$(ls "$corpus"/pcap | wc -l)"
'
test_expect_success 'flow csv reader survives its corpus' '
	"$csvfuzz" "$corpus"/flowcsv/* >out && grep -c "^ok" out >n &&
	test "$(cat n)" -eq "$(ls "$corpus"/flowcsv | wc -l)"
'
# Every prefix of a capture is a truncated capture; every byte flipped
# is a damaged header somewhere.
test_expect_success 'pcap reader survives every truncation and byte flip' '
	f="$corpus/pcap/roce.pcap" && size=$(wc -c <"$f") && i=0 &&
	while [ $i -lt "$size" ]; do
		head -c $i "$f" >cut.$i &&
		cp "$f" flip.$i && printf "\377" |
		    dd of=flip.$i bs=1 seek=$i conv=notrunc 2>/dev/null ||
		return 1
		i=$((i + 7))
	done &&
	"$pcapfuzz" cut.* flip.* >out && ! grep -v "^ok\|^1\.\." out
'
test_expect_success 'csv reader survives every truncation' '
	for f in "$corpus"/flowcsv/*; do
		size=$(wc -c <"$f") && i=0 &&
		while [ $i -lt "$size" ]; do
			head -c $i "$f" >"c.$(basename "$f").$i" || return 1
			i=$((i + 5))
		done
	done &&
	"$csvfuzz" c.* >out && ! grep -v "^ok\|^1\.\." out
'
test_done
