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
test_expect_success 'the heatmap'"'"'s column cursor is saved as the iteration it holds, and replays' '
	trainscope -n -c "open gpt-run4" -c "pane heatmap" -c "move down" \
	    -c "move column=30" -c "move right" -c "move left" -c "move down" \
	    -c "export --width 120 c0.txt" -c "save c.ts" >/dev/null &&
	sed -n "/^[^#]/p" c.ts >cmds &&
	printf "open gpt-run4\npane heatmap\nmove 2\nmove column=30\nmove 3\n" >want &&
	test_cmp want cmds &&
	grep "|" c0.txt &&
	trainscope --replay c.ts --export c1.txt --width 120 &&
	test_cmp c0.txt c1.txt &&
	trainscope --replay c.ts --export c.json --format json &&
	jq -e ".data.selected | .first <= 30 and .last >= 30" c.json &&
	printf "open gpt-run4\npane heatmap\nmove column=30\ndrill\nback\n" >d.ts &&
	trainscope --replay d.ts --export d.json --format json &&
	jq -e ".pane == \"heatmap\" and (.data.selected.first <= 30)" d.json
'
test_expect_success 'a replay exports the very view the session left' '
	trainscope --replay s.ts --export replay.txt --width 120 &&
	test_cmp live.txt replay.txt &&
	trainscope --replay s.ts --export - --width 120 >again.txt &&
	test_cmp live.txt again.txt
'
test_expect_success 'a report is the same on every replay, text and Markdown' '
	printf "unfilter all\n" >>s.ts &&
	trainscope --replay s.ts --report r0.txt &&
	trainscope --replay s.ts --report r0.md --format md &&
	trainscope --replay s.ts --report r1.txt --export e1.txt &&
	trainscope --replay s.ts --report r1.md --export e2.txt --format md &&
	test_cmp r0.txt r1.txt && test_cmp r0.md r1.md &&
	grep "lines of 24 files in time order" e1.txt && test_cmp e1.txt e2.txt &&
	grep "^Failure report: gpt-run4" r1.txt &&
	grep "^# Failure report: gpt-run4" r1.md &&
	grep "CUDA error: unspecified launch failure" r1.txt &&
	grep "host/node-003.log:8: .*NVRM: Xid" r1.txt &&
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
test_expect_success 'a session file may only change the view: the rest is refused, nothing written' '
	trainscope -n -c "open gpt-run4" -c "report keep.txt" &&
	cp keep.txt victim.txt && ln -s victim.txt link.txt &&
	trainscope jobs >jobs0 &&
	for cmd in "report link.txt" "export victim.txt" "save victim.txt" \
	    "forget gpt-run1" "mark gpt-run1 bad" "simulate --nodes 2 INJDIR" \
	    "source part.ts" "index INJDIR" "demo" "diagnose gpt-run4" \
	    "view -c \"export victim.txt\"" "help" "filters"; do
		printf "open gpt-run4\npane heatmap\n%s\npane events\n" "$cmd" >w.ts &&
		test_must_fail 2 trainscope --replay w.ts --export wout 2>e &&
		name=${cmd%% *} &&
		grep "^trainscope: w.ts:3: .$name. is not allowed in a session file$" e &&
		grep "^  ^$" e && test ! -e wout || { echo "$cmd"; cat e; exit 1; }
	done &&
	test_cmp keep.txt victim.txt && test -L link.txt && test ! -e INJDIR &&
	trainscope jobs >jobs1 && test_cmp jobs0 jobs1
'
test_expect_success 'source at the prompt reads its file as a session file too' '
	printf "pane timeline\nexport victim.txt\n" >w.ts &&
	test_must_fail 2 trainscope -n -c "open gpt-run4" -c "source w.ts" 2>e &&
	grep "w.ts:2: .export. is not allowed in a session file" e &&
	test_cmp keep.txt victim.txt
'
test_expect_success 'a session file cannot choose the cache' '
	printf "open gpt-run4 --cache=other.db\n" >c.ts &&
	test_must_fail 2 trainscope --replay c.ts --export cout 2>e &&
	grep "^trainscope: c.ts:1: --cache is not allowed in a session file$" e &&
	test ! -e other.db && test ! -e cout
'
test_expect_success 'what the user types still writes: --replay with --export and --report' '
	printf "open gpt-run4\npane heatmap\n" >v.ts &&
	trainscope --replay v.ts --export v.txt --report v.md --format md &&
	grep "^susp node" v.txt && grep "^# Failure report: gpt-run4" v.md &&
	trainscope --replay v.ts --export v.json --format json --report v2.txt &&
	jq -e . v.json >/dev/null && grep "^Failure report: gpt-run4" v2.txt &&
	trainscope --replay v.ts --report - | grep "^Failure report: gpt-run4"
'
test_expect_success '--export, --report and their options want --replay' '
	cp v.ts s1.ts &&
	for o in "--export -" "--report r.txt" "--format md" "--width 100" \
	    "--keep-going"; do
		test_must_fail 2 trainscope $o s1.ts >out 2>e &&
		grep "^trainscope: ${o%% *} is only for --replay FILE" e &&
		test ! -s out || { echo "$o"; exit 1; }
	done &&
	! trainscope jobs | grep s1
'
test_expect_success 'no command writes over the cache in use, under any name' '
	cache="$XDG_CACHE_HOME/trainscope/cache.db" &&
	ln -s "$cache" clink && ln "$cache" chard &&
	cp "$cache" before.db && trainscope jobs >jobs0 &&
	for out in clink chard "$cache" "$cache-wal" "$cache-shm"; do
		for cmd in "report $out" "export $out" "save $out" \
		    "report --format md $out" "export --format json $out"; do
			test_must_fail 1 trainscope -n -c "open gpt-run4" -c "$cmd" 2>e &&
			grep "will not write .*: it is .*the cache in use" e ||
				{ echo "$cmd"; cat e; exit 1; }
		done
	done &&
	test_must_fail 1 trainscope --cache chard --replay v.ts --report "$cache" 2>e &&
	grep "report: will not write" e &&
	trainscope jobs >jobs1 && test_cmp jobs0 jobs1 &&
	test ! -e "$cache-journal" &&
	sqlite3 "$cache" "PRAGMA integrity_check" | grep "^ok$"
'
test_expect_success 'a job named with a newline, a quote, # and | saves and replays as itself, running nothing else' '
	name=$(printf "y\nsimulate --nodes 2 INJDIR\n# \"q\" |x") &&
	cp -r "$XDG_CACHE_HOME/trainscope/demo/gpt-run4" "$name" &&
	trainscope index "$name" >/dev/null 2>&1 &&
	printf "open \"y\\\\nsimulate --nodes 2 INJDIR\\\\n# \\\\\"q\\\\\" |x\"\n" >line &&
	trainscope -n -c "$(cat line)" -c "pane heatmap" -c "save rt.ts" &&
	test "$(grep -c "^[^#]" rt.ts)" = 2 && grep -Fx "$(cat line)" rt.ts &&
	! grep "^simulate" rt.ts && grep "^# job \"y\\\\nsimulate" rt.ts &&
	trainscope --replay rt.ts --export rt.txt &&
	test ! -e INJDIR && head -1 rt.txt | grep "^y^Jsimulate" &&
	grep "^susp node" rt.txt
'
test_expect_success 'a job named like an option replays as a job' '
	cp -r "$XDG_CACHE_HOME/trainscope/demo/gpt-run4" ./--help &&
	trainscope index -- ./--help >/dev/null 2>&1 &&
	trainscope -n -c "open -- --help" -c "save o.ts" &&
	grep "^open -- --help$" o.ts &&
	trainscope --replay o.ts --export o.txt && head -1 o.txt | grep "^--help "
'
test_done
