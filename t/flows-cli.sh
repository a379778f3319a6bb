#!/bin/sh
# flows-cli.sh -- the flows command's argument and input errors.
. "$TS_SRCDIR/t/lib/test-lib.sh"

test_expect_success 'a bad --gap is a usage error naming the value' '
	test_must_fail 2 trainscope flows --gap x . 2>err &&
	grep "gap wants a positive number of seconds, not .x." err
'
test_expect_success 'an unknown format is a usage error' '
	test_must_fail 2 trainscope flows --format xml . 2>err &&
	grep "unknown format .xml." err
'
test_expect_success 'a missing input fails and is named' '
	test_must_fail 1 trainscope flows no-such.pcap 2>err &&
	grep "cannot open .no-such.pcap." err
'
test_expect_success 'a directory without captures fails clearly' '
	mkdir empty && echo "not a capture" >empty/notes.txt &&
	test_must_fail 1 trainscope flows empty 2>err &&
	grep "no capture or flow records found" err
'
# The cache: a job directory's flow set is kept and reused.
if ! command -v sqlite3 >/dev/null 2>&1; then
	say 'no sqlite3 program: the cache tests are skipped'
	test_expect_success 'flows on a job directory names the job, not only its hash' '
	trainscope simulate --nodes 4 --gpus-per-node 4 --tp 4 --dp 2 --pp 2 --iters 8 --seed 3 named >/dev/null 2>&1 &&
	trainscope flows named >out 2>/dev/null &&
	grep "^job named ([0-9a-f]*): 4 hosts" out &&
	trainscope flows --format json named 2>/dev/null | grep "\"name\": \"named\""
'
test_done
fi
printf '%s\n' 'ts,te,src,dst,sport,dport,proto,bytes,packets' \
    '100.0,100.1,10.0.0.1,10.0.0.2,1,4791,udp,1000000,100' \
    '100.5,100.6,10.0.0.2,10.0.0.1,1,4791,udp,500000,50' >rec.csv
db="$XDG_CACHE_HOME/trainscope/cache.db"
q() { sqlite3 "$db" "$1"; }
test_expect_success 'a job directory keeps its flow set in the cache' '
	mkdir -p jobA && cp rec.csv jobA/ &&
	trainscope flows jobA >first 2>err &&
	test ! -s err &&
	test "$(q "SELECT count(*) FROM flow_sets JOIN jobs ON id = job_id
	    WHERE name = \"jobA\"")" = 1
'
test_expect_success 'and reuses it while the captures are unchanged' '
	grep "1.50 MB of control" first &&
	q "UPDATE flow_msgs SET bytes = bytes * 2" &&
	trainscope flows jobA >second && grep "3.00 MB of control" second &&
	! cmp -s first second &&
	touch -d "2001-01-01" jobA/rec.csv &&
	trainscope flows jobA >third && cmp first third
'
test_expect_success 'diagnose on a job with flows but no logs says to index it' '
	test_must_fail 1 trainscope diagnose jobA 2>err &&
	grep "job .jobA. has flows but no indexed logs (index .*/jobA. first)" err
'
test_expect_success 'files given together are the job of their directory' '
	trainscope flows jobA/rec.csv >/dev/null &&
	test "$(q "SELECT count(*) FROM jobs")" = 1
'
test_expect_success 'a name taken by another directory is a warning' '
	mkdir -p other/jobA && cp rec.csv other/jobA/ &&
	trainscope flows other/jobA >out 2>err &&
	cmp first out &&
	grep "flows not kept in the cache: job .jobA. in the cache is rooted at" err &&
	trainscope flows --job jobA2 other/jobA >out 2>err &&
	test ! -s err &&
	test "$(q "SELECT count(*) FROM jobs")" = 2
'
test_expect_success '--job wants one job' '
	test_must_fail 1 trainscope flows --job x jobA other/jobA 2>err &&
	grep "job names one job" err &&
	trainscope flows jobA other/jobA >/dev/null
'
test_expect_success '--no-cache leaves the cache alone' '
	rm -f "$db" &&
	trainscope flows --no-cache jobA >/dev/null && test ! -f "$db"
'
test_expect_success 'a cache that cannot be opened is a warning' '
	mkdir -p nocache && echo garbage >nocache/c.db &&
	trainscope --cache nocache/c.db flows jobA >out 2>err &&
	cmp first out && grep "^trainscope: flows: not kept in the cache" err
'
test_expect_success 'flows on a job directory names the job, not only its hash' '
	trainscope simulate --nodes 4 --gpus-per-node 4 --tp 4 --dp 2 --pp 2 --iters 8 --seed 3 named >/dev/null 2>&1 &&
	trainscope flows named >out 2>/dev/null &&
	grep "^job named ([0-9a-f]*): 4 hosts" out &&
	trainscope flows --format json named 2>/dev/null | grep "\"name\": \"named\""
'
test_done
