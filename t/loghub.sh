#!/bin/sh
# loghub.sh -- template grouping accuracy on the 16 loghub-2k datasets.
#
# Each raw *_2k.log goes through 'trainscope parse' (its own header
# detection, no per-dataset settings); t/ga-eval compares the groups with
# the corrected ground truth (EventId per LineId).  The average grouping
# accuracy (GA) must reach the floor; the table is printed as diagnostics.
. "$TS_SRCDIR/t/lib/test-lib.sh"

FLOOR=0.90
DATA="$TS_SHARED/data/loghub-2k"
SETS="Android Apache BGL HDFS HPC Hadoop HealthApp Linux Mac OpenSSH
OpenStack Proxifier Spark Thunderbird Windows Zookeeper"

if [ ! -f "$DATA/HDFS/HDFS_2k.log" ]; then
	test_skip 'loghub grouping accuracy' 'no loghub-2k data in $TS_SHARED'
	test_done
fi

: >table
for d in $SETS; do
	if trainscope parse --format tsv "$DATA/$d/${d}_2k.log" >"$d.tsv" &&
	    "$TS_BUILDDIR/t/ga-eval" \
	    "$DATA/$d/${d}_2k.log_structured_corrected.csv" "$d.tsv" >"$d.ga"
	then
		printf '%s %s\n' "$d" "$(cat "$d.ga")" >>table
	else
		printf '%s failed\n' "$d" >>table
	fi
done
say "dataset        GA     FGA    groups  true"
awk '{ printf "# %-12s %s %s %6s %6s\n", $1, $2, $3, $4, $5 }' table
awk '{ ga += $2; fga += $3 } END { printf "# %-12s %.4f %.4f\n", "average", ga / NR, fga / NR }' table

test_expect_success 'every dataset parses and is scored' '
	test "$(grep -c " failed" table)" -eq 0 && test_line_count = 16 table
'
test_expect_success "average grouping accuracy is at least $FLOOR" '
	awk -v floor=$FLOOR "{ s += \$2 } END { print s / NR; exit !(s / NR >= floor) }" table
'
test_expect_success 'parsing is deterministic' '
	trainscope parse --format tsv "$DATA/Mac/Mac_2k.log" >again.tsv &&
	test_cmp Mac.tsv again.tsv
'
test_done
