#!/bin/sh
# screen.sh -- the interactive screen, driven through tmux as a person
# would: keys, the prompt, errors, resizing, terminals and quitting.
. "$TS_SRCDIR/t/lib/test-lib.sh"

# The tests run in subshells: the server's socket is kept in a file;
# start, start_on, keys, wait_for and wait_gone come from tmux-lib.sh.
. "$TS_SRCDIR/t/lib/tmux-lib.sh"

# wait_last PATTERN: until the pane's last line that is not blank matches
wait_last() {
	end=$(($(date +%s) + WAIT))
	until tm capture-pane -p >screen 2>/dev/null &&
	    grep . screen | tail -1 | grep -q -- "$1"; do
		[ "$(date +%s)" -lt "$end" ] || { cat screen >&2; return 1; }
		sleep 0.1
	done
}

# wait_screen FILE: until the pane, trailing blanks dropped, is FILE
wait_screen() {
	end=$(($(date +%s) + WAIT))
	until tm capture-pane -p >screen 2>/dev/null && sed "s/ *\$//" screen >got &&
	    cmp -s "$1" got; do
		[ "$(date +%s)" -lt "$end" ] || { test_cmp "$1" got; return 1; }
		sleep 0.1
	done
}

# wait_file FILE PATTERN: until FILE has a line matching PATTERN
wait_file() {
	end=$(($(date +%s) + WAIT))
	until grep -q -- "$2" "$1" 2>/dev/null; do
		[ "$(date +%s)" -lt "$end" ] || { echo "no '$2' in $1" >&2; return 1; }
		sleep 0.1
	done
}

# cpu_ticks: the clock ticks of CPU the screen has used
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$(cat "$TRASH/pid")/stat"; }


test_expect_success 'the demo job is made' '
	trainscope demo >/dev/null 2>&1 &&
	test -d "$XDG_CACHE_HOME/trainscope/demo/gpt-run4"
'
test_expect_success 'trainscope demo on a terminal opens the screen on the failed run' '
	start_args=demo start_on xterm-256color C.UTF-8 &&
	grep "^gpt-run4  failed in training at iteration 41" screen &&
	! grep "no job" screen
'
test_expect_success 'the screen opens on the demo job at 80x24' '
	start xterm-256color C.UTF-8 &&
	grep "^gpt-run4  failed in training at iteration 41" screen &&
	grep "^1 events  2 heatmap" screen &&
	grep "CUDA error: unspecified" screen &&
	grep "^index: 2 warnings (first: skipping .gpt-run4/truth.js" screen &&
	keys j k && wait_for "events 1/83" && tail -1 screen | grep "^events 1/"
'
test_expect_success 'what the screen shows is what view prints, pane by pane' '
	for p in 1:events 2:heatmap 3:timeline 4:groups; do
		trainscope view ${p#*:} gpt-run4 >printed &&
		sed "s/ *\$//" printed >want &&
		keys ${p%%:*} && wait_screen want || exit 1
	done &&
	keys 1 && wait_for "events 1/"
'
test_expect_success 'history is there in the next run' '
	keys : && keys "sort count" && wait_for ":sort count" && keys Enter &&
	wait_gone ":sort count" && keys : && keys "sort score" &&
	wait_for ":sort score" && keys Enter && wait_gone ":sort score"
'
test_expect_success 'j moves, Enter opens the log at the event, 5 its lines, q goes back' '
	keys j j && wait_for "events 3/" &&
	keys Enter && wait_for "lines of 24 files in time order" &&
	grep "^logs/node-003/rank-8.log:107 " screen &&
	keys 5 && wait_for "with context) of" && grep "→" screen &&
	keys q && wait_for "events 3/"
'
test_expect_success 'number keys and Tab switch panes' '
	keys 2 && wait_for "suspicion" && grep "node-003" screen &&
	keys Tab && wait_for "time (UTC)" &&
	keys BTab && wait_for "suspicion" &&
	keys 1 && wait_for "score  category"
'
test_expect_success 'the prompt runs a command; a bad one shows its error and the screen stays' '
	keys : && keys "filter node=node-001" Enter && wait_for "[1 filter]" &&
	keys : && keys "filter nod=x" Enter &&
	wait_for "cannot filter on" && grep "score  category" screen &&
	keys F && wait_for "events 1/83"
'
test_expect_success 'Esc and Ctrl-C cancel the prompt' '
	keys : && keys "pane heat" && wait_for ":pane heat" &&
	keys Escape && wait_gone "pane heat" &&
	keys : && keys "pane heat" && wait_for ":pane heat" &&
	keys C-c && wait_gone "pane heat" &&
	grep "score  category" screen
'
test_expect_success 'Tab completes at the prompt' '
	keys : && keys "pan" Tab && keys "heat" Tab Enter &&
	wait_for "suspicion" && keys 1 &&
	keys : && keys "open gpt-r" Tab && wait_for "gpt-run1  gpt-run2" &&
	keys C-c &&
	keys : && keys "sort c" Tab && wait_for ":sort count" && keys C-c &&
	keys : && keys "filter node=node-00" Tab Tab &&
	wait_for "node=node-001  node=node-002" &&
	! grep "  node-001" screen && keys C-c
'
test_expect_success 'history keeps the commands typed' '
	test -s "$TRASH/state/trainscope/history" &&
	grep "filter node=node-001" "$TRASH/state/trainscope/history"
'
test_expect_success '/ searches and n moves to the next match' '
	keys / && keys "fallen off" Enter && wait_for "/fallen off" &&
	keys n && wait_for "events 2/"
'
test_expect_success 'the heatmap shows its cursor row' '
	keys 2 && wait_for "suspicion" &&
	keys j && wait_for "heatmap 2/" &&
	tm capture-pane -p -e >esc &&
	sed -n 7p esc | grep -q "$(printf "\033")\[7m" &&
	keys 1 && wait_for "score  category"
'
test_expect_success '[ ] { } move the heatmap'"'"'s column cursor; Enter opens that cell'"'"'s lines, Backspace returns to both cursors' '
	keys 2 && wait_for "heatmap 2/4" &&
	keys "}" && wait_for "heatmap 2/4  node-004 iter 42" &&
	keys "[" && wait_for "heatmap 2/4  node-004 iter 41: Some NCCL" &&
	sed -n 5p screen | grep -q "^ *\[v\]$" &&
	tm capture-pane -p -e >esc &&
	sed -n 7p esc | sed "s/^.*node-004//" |
	    grep -q "$(printf "\033")\[[0-9;]*7m" &&
	keys "{" && wait_for "heatmap 2/4  node-004 iter 1 " &&
	keys "]" && wait_for "heatmap 2/4  node-004 iter 2 " &&
	keys : && keys "move column=41" Enter && wait_for "node-004 iter 41:" &&
	keys Enter && wait_for "[2 filters]" && wait_for "node-004 r12 41 " &&
	! grep " node-00[123] " screen &&
	keys BSpace && wait_for "heatmap 2/4  node-004 iter 41:" &&
	tm resize-window -x 120 -y 30 && wait_for "node-004 iter 41:" &&
	tm resize-window -x 80 -y 24 && wait_for "heatmap 2/4  node-004 iter 41:" &&
	keys : && keys "move column=off" Enter && wait_gone "node-004 iter" &&
	keys 1 && wait_for "score  category"
'
test_expect_success 'Right and Left scroll long lines sideways' '
	keys Right && wait_for "col +20" &&
	keys Left && wait_gone "col +"
'
test_expect_success '? shows the keys; any key closes them' '
	keys ? && wait_for "Keys of the screen" &&
	wait_for "q or Esc closes" &&
	keys q && wait_for "score  category"
'
test_expect_success 'a key that is not the output'"'"'s own closes it and does its work' '
	keys : && keys "filters" Enter && wait_for "q or Esc closes" &&
	keys : && keys "pane heatmap" Enter && wait_for "suspicion" &&
	keys 1 && wait_for "score  category"
'
test_expect_success 'an escape sequence the terminal description lacks is dropped' '
	tm send-keys -l "$(printf "\033[62~")" && keys : && keys "drop" &&
	wait_for ":drop" && keys C-c && wait_gone ":drop" &&
	grep "score  category" screen
'
test_expect_success 'the screen follows a resize' '
	tm resize-window -x 120 -y 30 &&
	wait_for "stage            iter" &&
	test "$(wc -l <screen)" -ge 30 &&
	tm resize-window -x 80 -y 24 &&
	wait_for "count nodes    first event" && wait_for "events 2/"
'
test_expect_success 'a paste the terminal brackets is text at the prompt: its lines run nothing' '
	printf "pane heatmap\nq\n" >p1 && tm load-buffer p1 &&
	keys : && wait_last "^:\$" &&
	tm paste-buffer -p && wait_for ":pane heatmap^Jq^J" &&
	keys Enter && wait_for "the line holds a line break" &&
	grep "score  category" screen && ! grep EXITED screen
'
test_expect_success 'pastes of 100 KB bracketed and 20 KB keyed in cost linear time' '
	{ printf "search /"; head -c 102400 /dev/zero | tr "\\0" x; printf "END/"; } >p2 &&
	tm load-buffer p2 && t0=$(cpu_ticks) &&
	keys : && wait_last "^:\$" &&
	tm paste-buffer -p && wait_for "xxxxEND/" &&
	t1=$(cpu_ticks) && keys C-c && wait_gone "xxxxEND/" &&
	keys : && wait_last "^:\$" && keys -l "search /" &&
	for k in 1 2 3 4 5; do
		keys -l "$(head -c 4000 /dev/zero | tr "\\0" y)" || exit 1
	done &&
	keys -l "END/" && wait_for "yyyyEND/" && t2=$(cpu_ticks) &&
	keys C-c && wait_gone "yyyyEND/" &&
	hz=$(getconf CLK_TCK) && say "cpu: $((t1 - t0)) and $((t2 - t1)) ticks of $hz a second" &&
	test $((t1 - t0)) -lt $((3 * hz)) && test $((t2 - t1)) -lt $((3 * hz))
'
test_expect_success '7 opens the log at the failure; / reads the raw lines, n and N go on' '
	keys 7 && wait_for "lines of 24 files in time order" &&
	# (a capture may fall inside a paint: wait for its last parts too)
	wait_for "log 1623/1808" && wait_for "host/node-003.log:8 " &&
	grep "^host/node-003.log:8 " screen && tail -1 screen | grep "^log 1623/1808" &&
	keys / && keys "SeqNum=810" Enter && wait_for "match 1 of 16" &&
	keys n && wait_for "match 2 of 16" && wait_for "SeqNum=810" &&
	sed -n "/^────/,\$p" screen | grep "SeqNum=810" &&
	keys N && wait_for "match 1 of 16" &&
	keys : && keys "search" Enter && sleep 0.3
'
test_expect_success 'a filter hides the lines of other nodes; the status line counts them' '
	keys : && keys "filter node=node-002" Enter && wait_for "1352 hidden" &&
	grep "\[1 filter\]" screen &&
	! sed -n "4,18p" screen | grep -v "^[ ~][0-9:]* node-002 " &&
	keys F && sleep 0.3 && tm capture-pane -p >screen && ! grep hidden screen
'
test_expect_success 'at 200x50 the log shows milliseconds and stage names; PgDn and back' '
	tm resize-window -x 200 -y 50 && sleep 0.5 &&
	keys : && keys "goto line host/node-003.log:8" Enter &&
	wait_for "log 1623/1808" && grep "training 41" screen &&
	grep "^ 17:09:06.981 node-003 " screen &&
	keys PgDn && wait_for "log 1664/1808" &&
	keys PgUp && wait_for "log 1623/1808" &&
	grep "^ 17:09:06.981 node-003 " screen &&
	tm resize-window -x 80 -y 24 && sleep 0.5 &&
	keys 1 && wait_for "events 1/"
'
test_expect_success 'a session saved on the screen replays to the same export' '
	keys 2 && wait_for "suspicion" && keys j Enter && wait_for "[1 filter]" &&
	keys : && keys "export $TRASH/live.txt" Enter &&
	keys : && keys "save $TRASH/live.ts" Enter &&
	wait_file "$TRASH/live.ts" "^drill" && test -s "$TRASH/live.txt" &&
	trainscope --replay "$TRASH/live.ts" --export "$TRASH/replayed.txt" \
	    --width 80 &&
	test_cmp "$TRASH/live.txt" "$TRASH/replayed.txt"
'
test_expect_success 'q quits and the terminal is given back' '
	keys q &&
	keys q && wait_for "EXITED 0" &&
	! grep -e "healthy runs compared" -e "q quit" screen
'
test_expect_success 'Ctrl-C quits too; the next run recalls the history' '
	start xterm-256color C.UTF-8 &&
	keys : && keys Up && wait_for ":save $TRASH/live.ts" &&
	keys C-c && keys C-c && wait_for "EXITED 0"
'
test_expect_success 'SIGTERM restores the terminal' '
	start xterm-256color C.UTF-8 &&
	kill -TERM "$(cat "$TRASH/pid")" && wait_for "EXITED 0"
'
test_expect_success 'vt100 and a C locale: ASCII glyphs, no colours needed' '
	start vt100 C && keys 2 && wait_for "suspicion" &&
	grep "node-003 \.\.\.\.\." screen && ! grep "█" screen &&
	grep "^0.95 node-003 \.*!$" screen && grep "  ! rank stops  X log ends" screen &&
	keys "}" "[" && wait_for "heatmap 1/4  node-003 iter 41: a rank stops" &&
	sed -n 5p screen | grep -q "^ *\[v\]$" &&
	tm capture-pane -p -e >esc &&
	sed -n 6p esc | grep -q "$(printf "\033")\[[0-9;]*7m!" &&
	keys q && wait_for "EXITED 0" &&
	test "$(grep -c . screen)" = 1
'
test_expect_success 'NO_COLOR and TERM=linux work' '
	start linux C.UTF-8 NO_COLOR=1 && keys 3 && wait_for "time (UTC)" &&
	keys 2 && keys "]" && wait_for "heatmap 1/4  node-003 iter 1 " &&
	grep "^ \{14\}| *v$" screen &&
	keys q && wait_for "EXITED 0"
'
test_expect_success 'screen-256color and tmux-256color work' '
	start screen-256color C.UTF-8 && keys q && wait_for "EXITED 0" &&
	start tmux-256color C.UTF-8 && keys q && wait_for "EXITED 0"
'
test_expect_success 'a node that logged nothing is the first event; a drill says it has no line' '
	mkdir -p "$TRASH/miss" &&
	printf "n1 slots=1\nn2 slots=1\nn3 slots=1\nn4 slots=1\n" >"$TRASH/miss/hostfile" &&
	for n in 1 2 3; do
		mkdir -p "$TRASH/miss/n$n" &&
		for i in 1 2 3 4 5; do
			echo "[2024-05-01 12:00:1$i,000] INFO [rank $((n - 1))] iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |"
		done >"$TRASH/miss/n$n/rank-$((n - 1)).log" &&
		echo "[2024-05-01 12:10:16,000] ERROR [rank $((n - 1))] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out." >>"$TRASH/miss/n$n/rank-$((n - 1)).log" || exit 1
	done &&
	start_args="$TRASH/miss" start_on xterm-256color C.UTF-8 &&
	wait_for "events 1/" &&
	sed -n 4p screen | grep " stop .*no log at all" &&
	keys Enter && wait_for "no line: this event is what was not logged" &&
	grep "score  category" screen &&
	keys 2 && wait_for "suspicion" && grep "^0.60 n4 *no log at all" screen &&
	keys q && wait_for "EXITED 0"
'
# sgr_before TEXT FILE: the colour 196 (errors) is set right before TEXT
sgr_before() {
	grep -q "196m\($(printf "\033")\[[0-9;]*m\)*$1" "$2"
}
test_expect_success 'a run that diverged says so in the error colour, in the header and the jobs pane' '
	for r in 0 1; do
		mkdir -p "$TRASH/div/n$r" &&
		for i in $(seq 1 30); do
			l=7.0E+00 g=0.2
			test "$i" -lt 13 || l=1.0E+08
			test "$i" -lt 16 || g=nan
			printf "[2024-05-01 12:00:%02d,000] INFO [rank $r]  iteration %8d/      30 | elapsed time per iteration (ms): 600.$i | lm loss: %s | grad norm: %s |\n" "$i" "$i" "$l" "$g"
		done >"$TRASH/div/n$r/rank-$r.log" || exit 1
	done &&
	start_args="$TRASH/div" start_on xterm-256color C.UTF-8 &&
	wait_for "events 1/" &&
	grep "^div  diverged in training at iteration 16" screen &&
	tm capture-pane -p -e >esc && head -1 esc >head &&
	sgr_before diverged head && ! sgr_before "div " head &&
	keys 6 && wait_for "jobs 1/" &&
	tm capture-pane -p -e >esc && grep "diverged" esc >row &&
	sgr_before diverged row &&
	keys q && wait_for "EXITED 0"
'
test_expect_success 'a C locale: the cursor line wraps as it is drawn, no text lost' '
	mkdir -p "$TRASH/kanji/node01" &&
	for i in 1 2 3 4; do
		echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |"
	done >"$TRASH/kanji/node01/rank-0.log" &&
	echo "[2024-05-01 12:00:17,000] ERROR RuntimeError: bad漢000漢001漢002漢003漢004漢005漢006漢007漢008漢009" \
	    >>"$TRASH/kanji/node01/rank-0.log" &&
	start_args="$TRASH/kanji" start_on vt100 C &&
	wait_for "events 1/" && keys Enter &&
	wait_for "log 5/5" &&
	grep -F "bad\xE6\xBC\xA2000\xE6\xBC\xA2001" screen &&
	grep -F "\xE6\xBC\xA2009" screen &&
	keys q && keys q && wait_for "EXITED 0"
'
test_expect_success 'an unknown TERM: the screen says why and falls back to plain text' '
	start_args="$XDG_CACHE_HOME/trainscope/demo/gpt-run4" start_on unknownterm C.UTF-8 &&
	grep "^trainscope: no screen: TERM=unknownterm is not a terminal type this system knows; plain text instead" "$TRASH/stderr" &&
	wait_last "^: *\$" && grep "^score  category" screen &&
	keys "pane heatmap" Enter && wait_for "suspicion" &&
	keys "quit" Enter && wait_for "EXITED 0"
'
test_expect_success 'TERM=dumb: no drawing over one line, plain text and why' '
	start dumb C.UTF-8 && wait_last "^: *\$" &&
	grep "^trainscope: no screen: TERM=dumb cannot move the cursor; plain text instead" "$TRASH/stderr" &&
	keys "filter nod=x" Enter &&
	wait_file "$TRASH/stderr" "^trainscope: filter: cannot filter on" &&
	keys C-d && wait_for "EXITED 0"
'
test_expect_success 'index and open warnings: on the status line at 80x24, listed by :warnings, not printed behind the screen' '
	mkdir -p "$TRASH/warned/node1" "$TRASH/config/trainscope" &&
	for i in 1 2 3; do
		echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |"
	done >"$TRASH/warned/node1/rank-0.log" &&
	printf "junk\000\000\001\002" >"$TRASH/warned/node1/garbage.log" &&
	trainscope index --job warnedjob "$TRASH/warned" 2>err &&
	grep "warning: skipping .*garbage.log" err &&
	echo "this is not a rule" >"$TRASH/config/trainscope/faults" &&
	tm_new "cd $TRASH && env TERM=xterm LANG=C.UTF-8 LC_ALL=C.UTF-8 \
	    HOME=$HOME XDG_CACHE_HOME=$XDG_CACHE_HOME XDG_CONFIG_HOME=$TRASH/config \
	    $TS_BIN $TRASH/warned; echo EXITED \$?; sleep 600" &&
	wait_for "index: 2 warnings (first: skipping '"'"'node1/garbage.log" &&
	grep -F "); :warnings lists them" screen &&
	! grep -F "trainscope: index: warning" screen &&
	keys :warnings Enter && wait_for "output 1-2 of 2" &&
	grep "^index: warning: skipping '"'"'/" screen &&
	grep "^open: /" screen &&
	keys q q && wait_for "EXITED 0" && ! grep -F "warning" screen &&
	start_args=warnedjob start_on xterm C.UTF-8 &&
	wait_for "open: 1 warning (first: trainscope/faults:1: text out" &&
	grep -F "); :warnings lists it" screen &&
	! grep "faults:1" "$TRASH/stderr" &&
	keys q q && wait_for "EXITED 0" &&
	grep "^trainscope: open: .*trainscope/faults:1: text outside a rule" "$TRASH/stderr"
'
tm kill-server 2>/dev/null
test_done
