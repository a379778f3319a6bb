#!/bin/sh
# lines-grep.sh -- 'lines --grep' and 'lines --merged': the raw text of a
# whole job searched and merged in time order; filters, formats, errors,
# inert bytes.
. "$TS_SRCDIR/t/lib/test-lib.sh"

test_expect_success 'setup: a small simulated job and a hand-written one' '
	trainscope simulate --nodes 2 --gpus-per-node 2 --iters 12 --no-flows \
	    sim >/dev/null &&
	trainscope index sim >/dev/null 2>&1 &&
	mkdir -p hand/node-001 hand/node-002 &&
	printf "%s\n" "2024-05-01T12:00:00.000Z INFO start pid 22801" \
	    "2024-05-01T12:00:02.000Z INFO ProcessGroupNCCL SeqNum=810 timeout" \
	    "  File \"train.py\", line 9, in step" \
	    "2024-05-01T12:00:04.000Z INFO done" >hand/node-001/rank-0.log &&
	printf "%s\n" "2024-05-01T12:00:01.000Z INFO hello" \
	    "2024-05-01T12:00:03.000Z ERROR SeqNum=8100 later" >hand/node-002/rank-1.log &&
	printf "2024-05-01T12:00:05.000Z WARN nul\000byte and \377\376 bad utf-8\n" \
	    >>hand/node-002/rank-1.log &&
	trainscope index hand >/dev/null 2>&1
'
test_expect_success 'a pid and a SeqNum only the raw text has are found' '
	trainscope lines --grep 22801 hand >out &&
	test_line_count = 1 out &&
	grep "2024-05-01 12:00:00.000 *node-001 r0 node-001/rank-0.log:1  .*start pid 22801" out &&
	trainscope lines --grep "SeqNum=810\\b" hand >out &&
	test_line_count = 1 out && grep "rank-0.log:2 " out
'
test_expect_success 'matches come in time order across files' '
	trainscope lines --grep "INFO|ERROR|WARN" hand >out &&
	awk "{print \$5}" out >got &&
	printf "%s\n" node-001/rank-0.log:1 node-002/rank-1.log:1 \
	    node-001/rank-0.log:2 node-002/rank-1.log:2 node-001/rank-0.log:4 \
	    node-002/rank-1.log:3 >want &&
	test_cmp want got
'
test_expect_success 'a line without a time sits after the timed line before it' '
	trainscope lines --grep "File|SeqNum" hand >out &&
	awk "{print NR, \$1, \$5}" out >got &&
	grep "^2 ~2024-05-01 node-001/rank-0.log:3" got &&
	grep "^3 2024-05-01 node-002/rank-1.log:2" got
'
test_expect_success 'NUL bytes and invalid UTF-8 stay inert' '
	trainscope lines --grep "nul" hand >out &&
	grep "nul^@byte and \\\\xFF\\\\xFE bad utf-8" out
'
test_expect_success '--count agrees with grep -c over the same files' '
	for re in "NCCL INFO" "iteration +[0-9]+/" "xyzzy"; do
		want=$(find sim -type f ! -name "*.json" | sort | xargs cat | grep -c -E "$re")
		got=$(trainscope lines --grep "$re" --count sim) &&
		test "$got" = "$want" || { echo "$re: $got, want $want"; exit 1; }
	done
'
test_expect_success '-v counts and prints the lines that do not match' '
	all=$(find sim/host sim/logs -type f | xargs cat | wc -l) &&
	n=$(trainscope lines --grep "NCCL" --count sim) &&
	v=$(trainscope lines --grep "NCCL" -v --count sim) &&
	test $((n + v)) = "$all" &&
	trainscope lines --grep "INFO" --invert hand >out &&
	test_line_count = 3 out && ! grep " INFO " out
'
test_expect_success '--node keeps one node'"'"'s files' '
	trainscope lines --grep SeqNum --node node-002 hand >out &&
	test_line_count = 1 out && grep "rank-1.log:2" out &&
	n1=$(trainscope lines --grep NCCL --count --node node-001 sim) &&
	n2=$(trainscope lines --grep NCCL --count --node node-002 sim) &&
	n=$(trainscope lines --grep NCCL --count sim) &&
	test $((n1 + n2)) -le "$n" && test "$n1" -gt 0
'
test_expect_success '--stage and --iter keep the lines tagged so' '
	trainscope lines --grep "iteration" --stage training --format tsv sim >out &&
	test "$(head -1 out | cut -f5)" = stage &&
	sed 1d out | cut -f5 | sort -u >stages && echo training >want &&
	test_cmp want stages &&
	trainscope lines --grep "elapsed time per iteration" --iter 3..4 \
	    --format tsv sim >out &&
	sed 1d out | cut -f6 | sort -u >iters && printf "3\n4\n" >want &&
	test_cmp want iters &&
	sed 1d out | cut -f9 | grep -c "iteration  *[34]/" >n &&
	test "$(cat n)" = "$(sed 1d out | wc -l)" &&
	trainscope lines --grep "." --stage init --count sim >n &&
	test "$(cat n)" -gt 0 &&
	trainscope lines --grep "." --iter 5 --count sim >m &&
	test "$(cat m)" -gt 0
'
test_expect_success 'json: schema, names, nulls' '
	trainscope lines --grep "File|22801" --format json hand >out &&
	grep "\"schema\": 2," out &&
	grep "\"node\": \"node-001\"" out && grep "\"rank\": 0" out &&
	grep "\"path\": \"node-001/rank-0.log\"" out &&
	grep "\"time\": null" out && grep "\"iteration\": null" out &&
	grep "\"count\": 2" out &&
	trainscope lines --grep 22801 --count --format json hand >out &&
	grep "\"count\": 1" out
'
test_expect_success 'errors: bad pattern with a caret, bad filters, wrong arguments' '
	test_must_fail 2 trainscope lines --grep "a(b" hand 2>err &&
	grep "lines: bad pattern: missing closing parenthesis" err &&
	grep "^  a(b$" err && grep "^     \^$" err &&
	test_must_fail 2 trainscope lines --grep x --iter 4..2 hand 2>err &&
	grep "iter wants N, A..B" err &&
	test_must_fail 2 trainscope lines --grep x --stage nap hand 2>err &&
	grep "no stage .nap." err &&
	test_must_fail 2 trainscope lines --grep x --format xml hand 2>err &&
	grep "unknown format .xml." err &&
	test_must_fail 2 trainscope lines --grep x hand a.log:3 2>err &&
	grep "takes only JOB" err &&
	test_must_fail 2 trainscope lines --grep x --at last hand 2>err &&
	grep "at does not go with --grep" err &&
	test_must_fail 1 trainscope lines --grep x --node node-9 hand 2>err &&
	grep "no node .node-9. in job hand" err &&
	test_must_fail 2 trainscope lines --stage init hand 2>err &&
	grep "lines: --stage wants --grep RE or --merged" err &&
	test_must_fail 2 trainscope lines -v hand 2>err &&
	grep "lines: --invert wants --grep RE or --merged" err &&
	test_must_fail 2 trainscope lines --merged --count hand 2>err &&
	grep "count does not go with --merged" err &&
	test_must_fail 1 trainscope lines --grep x nosuch 2>err &&
	grep "no job .nosuch." err
'
test_expect_success 'merged: first, last, a time, PATH:LINE' '
	trainscope lines --merged -n 3 hand >out &&
	test_line_count = 3 out && head -1 out | grep "rank-0.log:1 " &&
	trainscope lines --merged --at last -n 3 hand >out &&
	test_line_count = 1 out && grep "rank-1.log:3 " out &&
	trainscope lines --merged --at 12:00:02 -n 2 hand >out &&
	awk "{print \$5}" out >got &&
	printf "node-001/rank-0.log:2\nnode-001/rank-0.log:3\n" >want &&
	test_cmp want got &&
	trainscope lines --merged --at 12:00:02.5 -n 1 hand >out &&
	grep "rank-1.log:2 " out &&
	trainscope lines --merged --at "2024-05-01 12:00:03" -n 1 hand >out &&
	grep "rank-1.log:2 " out &&
	trainscope lines --merged --at node-002/rank-1.log:2 -n 2 hand >out &&
	head -1 out | grep "rank-1.log:2 " &&
	test_must_fail 2 trainscope lines --merged --at noon hand 2>err &&
	grep "at wants first, last" err &&
	test_must_fail 1 trainscope lines --merged --at x/y.log:3 hand 2>err &&
	grep "no file .x/y.log. in job hand" err
'
test_expect_success 'merged: --at failure is the top event'"'"'s first line' '
	trainscope diagnose --format json sim >d.json &&
	p=$(grep -m1 "\"path\":" d.json | sed "s/.*: \"\(.*\)\",/\1/") &&
	l=$(grep -m1 "\"line\":" d.json | sed "s/[^0-9]//g") &&
	trainscope lines --merged --at failure -n 1 sim >out &&
	awk "{print \$5}" out >got && echo "$p:$l" >want &&
	test_cmp want got
'
test_expect_success 'merged: a window back ends where the one forward starts' '
	trainscope lines --merged -n 230 sim >all &&
	test_line_count = 230 all && sed -n "201,230p" all >fwd &&
	last=$(tail -1 fwd | awk "{print \$5}") &&
	trainscope lines --merged --at "$last" --back -n 30 sim >back &&
	test_cmp fwd back &&
	first=$(head -1 fwd | awk "{print \$5}") &&
	trainscope lines --merged --at "$first" -n 30 sim >fwd2 &&
	test_cmp fwd fwd2
'
test_expect_success 'merged: filters hide lines' '
	trainscope lines --merged --node node-002 -n 50 sim >out &&
	test_line_count = 50 out && ! grep -v " node-002 " out &&
	trainscope lines --merged --grep NCCL -v -n 50 sim >out &&
	! grep NCCL out
'
test_done
