#!/bin/sh
# jobref.sh -- a job is found once per command: the statements that find
# a job by its name or directory, counted in a TS_SQL_TRACE trace.
. "$TS_SRCDIR/t/lib/test-lib.sh"

# lookups TRACE: how many statements of the trace find a job by name or
# root (a jobs row matched on name or root, or a name joined to jobs).
lookups() {
	grep -cE "jobs WHERE (name|root)|jobs [a-z]+ WHERE [a-z]+\.(name|root)|[a-z]\.name = \?" "$1"
}
# traced FILE CMD...: trainscope CMD with every statement in FILE.
traced() {
	f=$1
	shift
	rm -f "$f"
	TS_SQL_TRACE="$PWD/$f" "$TS_BIN" "$@"
}

test_expect_success 'TS_SQL_TRACE writes each statement the cache runs' '
	trainscope simulate --nodes 4 --fault straggler sj >/dev/null &&
	traced idx index sj >/dev/null 2>&1 &&
	grep -q "^INSERT INTO files " idx &&
	test $(lookups idx) -ge 1
'
test_expect_success 'diagnose finds the job once, captures read and stored' '
	traced d1 diagnose sj >out1 &&
	grep -q "^INSERT INTO flow_msgs" d1 &&
	test $(lookups d1) = 1
'
test_expect_success 'diagnose finds the job once, captures reused' '
	traced d2 diagnose sj >out2 &&
	! grep -q "^INSERT INTO flow_msgs" d2 && grep -q "FROM flow_msgs" d2 &&
	test $(lookups d2) = 1 && test_cmp out1 out2
'
test_expect_success 'diagnose finds the job once, the kept model read back' '
	traced d3 diagnose sj >out3 &&
	! grep -q "FROM file_templates" d3 &&
	test $(lookups d3) = 1 && test_cmp out1 out3
'
test_expect_success 'diagnose of a new directory: a miss, its index run, then once' '
	mkdir nj && cp -r sj/logs nj/ &&
	traced d4 diagnose nj >out4 2>err4 &&
	grep "^job nj: " out4 &&
	test $(grep -c "OR root = " d4) = 2
'
test_expect_success 'the view and flows find the job once' '
	traced v1 view events sj >/dev/null &&
	test $(lookups v1) = 1 &&
	traced f1 flows sj >/dev/null &&
	test $(lookups f1) = 1
'
test_expect_success 'the log pane, its search and its filters use the job the view found' '
	traced v2 view log sj -c "search /NCCL/" -c "filter -v /INFO/" \
	    -c "goto line logs/node-001/rank-0.log:3" >/dev/null &&
	test $(lookups v2) = 1 &&
	traced v3 view jobs -c "move 1" -c drill -c "pane log" >/dev/null &&
	test $(lookups v3) = 1
'
test_expect_success 'the count sees a lookup by name in a stage tag update' '
	echo "UPDATE node_templates SET stage = ?1 WHERE job_id = (SELECT id FROM jobs WHERE name = ?3)" >t &&
	echo "SELECT f.id FROM files f JOIN jobs j ON j.id = f.job_id WHERE j.name = ?3" >>t &&
	echo "SELECT name, root, marked FROM jobs WHERE id = ?1" >>t &&
	test $(lookups t) = 2
'
test_done
