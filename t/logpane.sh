#!/bin/sh
# logpane.sh -- the log pane: every raw line of the job in time order,
# its place (goto, moves, drills), the raw search, the filters on lines,
# export, and a session that goes back to where it was.
. "$TS_SRCDIR/t/lib/test-lib.sh"

# status FILE: the status line of a drawn screen
status() { tail -1 "$1"; }
# detail FILE: the PATH:LINE row under the list
detail() { sed -n '/^────/{n;p;q;}' "$1"; }

test_expect_success 'the demo job is made' '
	trainscope demo >demo.out 2>&1 &&
	grep "^job gpt-run4" demo.out
'
test_expect_success 'the log opens at the failure, the first line of the top event' '
	trainscope view log gpt-run4 >l &&
	test $(wc -l <l) = 24 &&
	sed -n 3p l | grep "^1808 lines of 24 files in time order, 17:07:37 to 17:19:08" &&
	detail l | grep "^host/node-003.log:8  2026-03-14 17:09:06.981  node-003  no stage" &&
	status l | grep "^log 1623/1808 " &&
	grep "^ 17:09:06 node-003 -  -  *2026-03-14T17:09:06.981327+00:00 node-003 kernel:" l
'
test_expect_success 'its rows are the merged log, in the order lines --merged has' '
	trainscope view --format tsv log gpt-run4 >all.tsv &&
	trainscope lines --merged --at first -n 100000 --format tsv gpt-run4 >m.tsv &&
	test_cmp m.tsv all.tsv &&
	test $(wc -l <all.tsv) = 1809
'
test_expect_success 'rows carry node, rank, stage and iteration; untimed ones a ~' '
	trainscope view log gpt-run4 -c "goto line logs/node-003/rank-8.log:110" >r &&
	grep "^~17:09:06 node-003 r8  *41  *Compile with" r &&
	trainscope view --width 120 log gpt-run4 -c "goto line logs/node-003/rank-8.log:110" >r &&
	detail r | grep "^logs/node-003/rank-8.log:110  ~2026-03-14 17:09:06.702  node-003 rank 8  training, iteration 41" &&
	trainscope view --width 200 --height 50 log gpt-run4 >w &&
	grep "^~17:09:06.702 node-003 r8  *training 41 " w &&
	grep "^ 17:09:07.641 node-003 -  *launch  *\[2026-03-14 17:09:07,641\]" w
'
test_expect_success 'the captures are marked at their times' '
	trainscope view log gpt-run4 -c "goto time 17:08:40" >c &&
	grep "^ 17:08:40 ── capture iteration 9 begins (log iteration 10)" c &&
	trainscope -n -c "open gpt-run4" -c "pane log" -c "export --width 120 x.txt" &&
	test $(grep -c "── capture iteration [0-9]* begins" x.txt) -ge 30
'
test_expect_success 'filtered, only the marks between the lines kept are shown' '
	trainscope view --height 60 log gpt-run4 -c "filter iter=41..41" \
	    -c "filter node=node-004" -c "move top" >f &&
	! grep "── capture iteration [0-9]* begins (log iteration \([0-9]\|[1-3][0-9]\))" f &&
	trainscope -n -c "open gpt-run4" -c "pane log" -c "filter iter=41..41" \
	    -c "filter node=node-004" -c "export --width 120 fx.txt" &&
	grep " node-004 " fx.txt &&
	! grep "── capture iteration [0-9]* begins (log iteration \([0-9]\|[1-3][0-9]\))" fx.txt &&
	trainscope -n -c "open gpt-run4" -c "pane log" -c "export --width 120 ux.txt" &&
	grep -q "── capture iteration 2 begins" ux.txt
'
test_expect_success 'a slow link found in the captures is marked where it begins' '
	trainscope simulate --nodes 4 --iters 30 --fault slow-link@2:10 sl >/dev/null 2>&1 &&
	trainscope index sl >/dev/null 2>&1 &&
	trainscope -n -c "open sl" -c "pane log" -c "export --width 120 sl.txt" &&
	grep "^ \(11:[0-9:.]*\) ── flows: slow-link 10.42.0.[0-9]-10.42.0.[0-9] from capture iteration [0-9]*" sl.txt &&
	t=$(sed -n "s/^ \([0-9:.]*\) ── flows: slow-link.*/\1/p" sl.txt) &&
	before=$(grep -B1 "── flows: slow-link" sl.txt | head -1 | sed "s/^[ ~]\([0-9:.]*\) .*/\1/") &&
	after=$(grep -A1 "── flows: slow-link" sl.txt | tail -1 | sed "s/^[ ~]\([0-9:.]*\) .*/\1/") &&
	test "$before" \< "$t" -o "$before" = "$t" && test "$t" \< "$after" -o "$t" = "$after"
'
test_expect_success 'goto time, iter and line put it there' '
	trainscope view log gpt-run4 -c "goto time 17:08:40.196" >t &&
	detail t | grep "17:08:40.196" &&
	trainscope view log gpt-run4 -c "goto time 2026-03-14T17:08:40.196" >t2 &&
	test_cmp t t2 &&
	trainscope view log gpt-run4 -c "goto iter 41" >i &&
	status i | grep "^log 1[0-9]*/1808" &&
	sed -n "/^────/,\$p" i | grep "iteration *40/" &&
	trainscope view events gpt-run4 -c "goto line logs/node-002/rank-5.log:60" >g &&
	status g | grep "^log " && detail g | grep "^logs/node-002/rank-5.log:60 " &&
	test_expect_code 1 trainscope view log gpt-run4 -c "goto line nope.log:3" 2>e &&
	grep "no file .nope.log. in job gpt-run4" e &&
	test_expect_code 1 trainscope view log gpt-run4 -c "goto line logs/node-002/rank-5.log:9999" 2>e &&
	grep "has 99 lines in the index, not 9999" e &&
	test_expect_code 1 trainscope view log gpt-run4 -c "goto time noon" 2>e &&
	grep "is no time" e
'
test_expect_success 'moves: a page down and up come back; top, bottom, a line number' '
	trainscope view log gpt-run4 >a &&
	trainscope view log gpt-run4 -c "move pgdn" -c "move pgdn" -c "move pgup" -c "move pgup" >b &&
	test_cmp a b &&
	trainscope view log gpt-run4 -c "move top" >t && status t | grep "^log 1/1808 " &&
	trainscope view log gpt-run4 -c "move bottom" >z && status z | grep "^log 1808/1808 " &&
	trainscope view log gpt-run4 -c "move 1000" >n && status n | grep "^log 1000/1808 " &&
	trainscope view log gpt-run4 -c "move top" -c "move down" -c "move down" -c "move down" >d &&
	trainscope view log gpt-run4 -c "move 4" >d4 && test_cmp d d4 &&
	test_expect_code 1 trainscope view log gpt-run4 -c "move sideways" 2>e &&
	grep "cannot move .sideways." e
'
test_expect_success 'Enter on an event, a node or an iteration opens the log there' '
	trainscope view events gpt-run4 -c "move 3" -c drill >e &&
	detail e | grep "^logs/node-003/rank-8.log:107 " &&
	trainscope view events gpt-run4 -c "move 3" -c drill -c back >eb &&
	status eb | grep "^events 3/" &&
	trainscope view heatmap gpt-run4 -c "goto node node-002" -c drill >h &&
	grep "\[1 filter\]" h && status h | grep "^log .* hidden" &&
	! sed -n "4,18p" h | grep -v "^[ ~][0-9:]* node-002 " &&
	trainscope view timeline gpt-run4 -c "goto iter 20" -c drill >ti &&
	sed -n "/^────/,\$p" ti | grep "iteration *19/" &&
	trainscope view log gpt-run4 -c drill >f &&
	status f | grep "^lines " && sed -n 3p f | grep "^host/node-003.log around line 8"
'
test_expect_success 'search reads the raw lines of the whole job: match 2 of N' '
	n=$(trainscope lines --grep "(?i)SeqNum=810" --count gpt-run4) &&
	test "$n" = 16 &&
	trainscope view log gpt-run4 -c "search /SeqNum=810/" >s1 &&
	status s1 | grep "^log [0-9]*/1808  match 1 of 16  /SeqNum=810/" &&
	trainscope view log gpt-run4 -c "search /SeqNum=810/" -c next >s2 &&
	status s2 | grep "match 2 of 16" && detail s2 | grep "SeqNum=810\|rank-" &&
	sed -n "/^────/,\$p" s2 | grep "SeqNum=810" &&
	trainscope view log gpt-run4 -c "search /SeqNum=810/" -c next -c prev >s3 &&
	status s3 | grep "match 1 of 16" &&
	trainscope view log gpt-run4 -c "search /SeqNum=810/" -c prev >s4 &&
	status s4 | grep "match 16 of 16" &&
	trainscope view log gpt-run4 -c "search /22801/" >p &&
	status p | grep "^log 1623/1808  match 13 of 15" &&
	trainscope view events gpt-run4 -c "search /22801/" >pe &&
	status pe | grep "^no match for /22801/ in events (7, the log pane, searches raw lines)" &&
	trainscope view log gpt-run4 -c "search /no such text/" >ns &&
	status ns | grep "^no match for /no such text/"
'
test_expect_success 'the lines pane searches the job too, and opens a match elsewhere' '
	trainscope view events gpt-run4 -c drill -c "pane lines" -c "search /SeqNum=810/" >ls &&
	status ls | grep "^lines [0-9]*/[0-9]*  match 1 of 16" &&
	grep "around line" ls &&
	trainscope view events gpt-run4 -c drill -c "pane lines" -c "search /SeqNum=810/" -c back >lb &&
	sed -n 3p lb | grep "with context) of"
'
test_expect_success 'filters hide lines and the status line says how many' '
	kept=$(trainscope lines --grep "^" --node node-002 --count gpt-run4) &&
	trainscope view log gpt-run4 -c "filter node=node-002" >f &&
	grep "\[1 filter\]" f &&
	status f | grep "^log [0-9]*/1808  $((1808 - kept)) hidden" &&
	! sed -n "4,18p" f | grep -v "^[ ~][0-9:]* node-002 " &&
	info=$(trainscope lines --grep "(?i)info" --count gpt-run4) &&
	trainscope view log gpt-run4 -c "filter -v /info/" >v &&
	status v | grep "  $info hidden" && ! sed -n "4,18p" v | grep -i "info" &&
	tr=$(trainscope lines --grep "^" --stage training --count gpt-run4) &&
	trainscope view log gpt-run4 -c "filter stage=training" >s &&
	status s | grep "  $((1808 - tr)) hidden" &&
	i41=$(trainscope lines --grep "^" --iter 41 --count gpt-run4) &&
	trainscope view log gpt-run4 -c "filter iter=41" >i &&
	status i | grep "  $((1808 - i41)) hidden" &&
	trainscope view log gpt-run4 -c "filter node=node-002" -c "search /SeqNum=810/" >fs &&
	status fs | grep "match [0-9] of [1-9] " && ! status fs | grep "of 16"
'
test_expect_success 'filters hide lines of the lines pane too' '
	trainscope view events gpt-run4 -c "move 6" -c drill -c "pane lines" >l0 &&
	trainscope view events gpt-run4 -c "move 6" -c drill -c "pane lines" -c "filter node=node-002" >l1 &&
	status l0 | grep "^lines 4/84 " && ! status l0 | grep hidden &&
	status l1 | grep "^lines 1/28  56 hidden" &&
	! sed -n "4,18p" l1 | grep "node-00[134]/"
'
test_expect_success 'export writes every line the filters keep' '
	trainscope -n -c "open gpt-run4" -c "pane log" -c "filter node=node-003" \
	    -c "filter /error/" -c "export --width 200 e.txt" \
	    -c "export --format tsv e.tsv" -c "export --format json e.json" &&
	n=$(trainscope lines --grep "(?i)error" --node node-003 --count gpt-run4) &&
	test $(wc -l <e.tsv) = $((n + 1)) &&
	grep "\"count\": $n" e.json && grep "\"mode\": \"log\"" e.json &&
	test $(grep -c "^[ ~][0-9:.]* node-003 " e.txt) = $n &&
	! grep "^[ ~][0-9:.]* node-00[124] " e.txt &&
	cut -f5,6 e.tsv | sort -u | grep "^training	41$"
'
test_expect_success 'a session keeps the log pane at its line and its filters' '
	trainscope -n -c "open gpt-run4" -c "pane log" -c "filter -v /info/" \
	    -c "move pgdn" -c "move down" -c "search /SeqNum=810/" -c next \
	    -c "move up" -c "export --width 100 live.txt" -c "save s.ts" &&
	sed -n "/^[^#]/p" s.ts >cmds &&
	grep "^goto line logs/" cmds && ! grep "^move" cmds &&
	grep "^filter -v /info/" cmds &&
	trainscope --replay s.ts --export replay.txt --width 100 &&
	test_cmp live.txt replay.txt
'
test_expect_success 'back returns to the line the log pane left' '
	trainscope view log gpt-run4 -c "goto line logs/node-002/rank-5.log:60" \
	    -c "move down" -c drill -c back >b &&
	detail b | grep "^logs/node-0" &&
	trainscope view log gpt-run4 -c "goto line logs/node-002/rank-5.log:60" -c "move down" >b0 &&
	test_cmp b0 b
'
test_done
