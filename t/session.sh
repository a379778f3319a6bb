#!/bin/sh
# session.sh -- save, replay, export and report; bad session files.
. "$TS_SRCDIR/t/lib/test-lib.sh"

GOLDEN="$TS_SRCDIR/t/golden/view"

test_expect_success 'the demo job is made' '
	trainscope demo >/dev/null 2>&1
'
test_expect_success 'save writes the commands that changed the view' '
	trainscope -n -c "open gpt-run4" -c "pane heatmap" -c "move down" \
	    -c "move down" -c drill -c "search /fallen off/" -c "filters" \
	    -c "export --width 120 live.txt" -c "save s.ts" >/dev/null &&
	grep "^# trainscope session" s.ts && grep "^# job gpt-run4 " s.ts &&
	sed -n "/^[^#]/p" s.ts >cmds &&
	printf "open gpt-run4\npane heatmap\nmove 3\ndrill\nsearch /fallen off/\n" >want &&
	test_cmp want cmds
'
test_expect_success 'a sideways scroll is saved as the column it ends on, and replays' '
	trainscope -n -c "open gpt-run4" -c "scroll right" -c "scroll right" \
	    -c "scroll left" -c "export --width 80 h0.txt" -c "save h.ts" \
	    >/dev/null &&
	sed -n "/^[^#]/p" h.ts >cmds &&
	printf "open gpt-run4\nscroll 20\n" >want &&
	test_cmp want cmds &&
	trainscope --replay h.ts --export h1.txt --width 80 &&
	test_cmp h0.txt h1.txt
'
test_expect_success 'a replay exports the very view the session left' '
	trainscope --replay s.ts --export replay.txt --width 120 &&
	test_cmp live.txt replay.txt &&
	trainscope --replay s.ts --export - --width 120 >again.txt &&
	test_cmp live.txt again.txt
'
test_expect_success 'a report is the same on every replay, text and Markdown' '
	printf "unfilter all\nreport r1.txt\nreport --format md r1.md\n" >>s.ts &&
	trainscope --replay s.ts --export /dev/null &&
	mv r1.txt r0.txt && mv r1.md r0.md &&
	trainscope --replay s.ts --export /dev/null &&
	test_cmp r0.txt r1.txt && test_cmp r0.md r1.md &&
	grep "^Failure report: gpt-run4" r1.txt &&
	grep "^# Failure report: gpt-run4" r1.md &&
	grep "CUDA error: unspecified launch failure" r1.txt &&
	grep "rank-8.log:107: RuntimeError" r1.txt &&
	grep "^## Heatmap" r1.md && grep "^\`\`\`" r1.md &&
	! grep "$TRASH" r1.txt
'
test_expect_success 'a report lists the events the filters leave, and names the filters' '
	trainscope -n -c "open gpt-run4" -c "filter node=node-004" -c "report -" >rf.txt &&
	sed -n "/^Suspect events/,/^Heatmap/p" rf.txt >ev.txt &&
	grep "^A filter is in force (" ev.txt && grep "^   1. node=node-004" ev.txt &&
	! grep "NVRM: Xid" ev.txt &&
	trainscope -n -c "open gpt-run4" -c "report -" >r0.txt &&
	sed -n "/^Suspect events/,/^Heatmap/p" r0.txt | grep "NVRM: Xid" &&
	! grep "filter is in force" r0.txt
'
test_expect_success 'the report of the demo job matches its golden' '
	trainscope -n -c "open gpt-run4" -c "report -" >r.txt &&
	test_cmp "$GOLDEN/report.txt" r.txt &&
	trainscope -n -c "open gpt-run4" -c "report --format md -" >r.md &&
	test_cmp "$GOLDEN/report.md" r.md
'
test_expect_success 'a failing line stops the replay with FILE:LINE and a caret' '
	printf "open gpt-run4\nfilter nod=x\npane events\n" >bad.ts &&
	test_expect_code 1 trainscope --replay bad.ts --export out 2>e &&
	grep "^trainscope: bad.ts:2: filter: cannot filter on .nod=x." e &&
	grep "^  filter nod=x$" e && grep "^         ^$" e &&
	! test -e out
'
test_expect_success '--keep-going reports the line and goes on' '
	test_expect_code 1 trainscope --replay bad.ts --keep-going --export out 2>e &&
	grep "bad.ts:2:" e && grep "some commands failed" e
'
test_expect_success 'an unknown command, a missing job, a truncated file' '
	printf "open gpt-run4\nfrobnicate\n" >u.ts &&
	test_expect_code 2 trainscope --replay u.ts --export out 2>e &&
	grep "u.ts:2: unknown command .frobnicate." e &&
	printf "open nosuchjob\n" >m.ts &&
	test_expect_code 1 trainscope --replay m.ts --export out 2>e &&
	grep "m.ts:1: .*nosuchjob" e &&
	printf "open gpt-run4\npane heat" >t.ts &&
	trainscope --replay t.ts --export out &&
	grep "^2 heatmap" out >/dev/null || grep "suspicion" out
'
test_expect_success 'binary garbage is refused, not run' '
	head -c 4096 "$TS_BIN" >g.ts &&
	test_expect_code 2 trainscope --replay g.ts --export out 2>e &&
	grep "g.ts:1: NUL byte" e &&
	printf "\033[2J\377\376 open\n" >g2.ts &&
	test_expect_code 2 trainscope --replay g2.ts --export out 2>e &&
	grep "g2.ts:1:" e
'
test_expect_success 'a file with escape sequences or bad UTF-8 is refused whole, its bytes never shown' '
	printf "open gpt-run4\nview\n\033]0;pwned\007 open\n" >g3.ts &&
	test_expect_code 2 trainscope --replay g3.ts --export out3 2>e &&
	grep "^trainscope: g3.ts:3: byte 1 is not text" e &&
	test ! -e out3 &&
	printf "open gpt-run4\nsearch caf\303\251\n\302\233 2J\n" >g4.ts &&
	test_expect_code 2 trainscope --replay g4.ts --export out4 2>e4 &&
	grep "^trainscope: g4.ts:3: byte 1 is not text" e4 &&
	printf "pane events\nsearch \355\240\200\n" >g5.ts &&
	test_expect_code 2 trainscope --replay g5.ts --export out5 2>e5 &&
	grep "g5.ts:2: byte 8 is not text" e5 &&
	! od -c e e4 e5 | grep -q "033\|007\|302\|355" &&
	printf "open gpt-run4\nsearch caf\303\251\n" >g6.ts &&
	trainscope --replay g6.ts --export out6
'
test_expect_success 'source runs a file of commands at the prompt' '
	printf "pane timeline\nmove 5\n" >part.ts &&
	trainscope -n -c "open gpt-run4" -c "source part.ts" -c "view" >v &&
	grep "^timeline 5/" v
'
test_done
