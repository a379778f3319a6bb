#!/bin/sh
# bookmarks.sh -- bookmarks and copying out: m marks the cursor's line or
# event, ' goes to the next, 'bookmarks' lists them, a saved session
# keeps them and its report quotes them; y copies through OSC 52 into
# tmux's buffer (set-clipboard on), 'export --marked' writes them; at
# 80x24 and 200x50, every check waiting for a condition.
. "$TS_SRCDIR/t/lib/test-lib.sh"

J=gpt-run4
XID="NVRM: Xid (PCI:0000:18:00): 79"

test_expect_success 'the demo job is made' '
	trainscope demo >/dev/null 2>&1
'
test_expect_success 'bookmark marks the cursors line and event by key, bookmarks lists them' '
	trainscope -n -c "open $J" -c bookmark -c "pane log" -c bookmark \
	    -c "move down" -c bookmark -c bookmarks -c "save s.ts" >list &&
	grep "^event:[0-9]* host/node-003.log:8: .*$XID" list &&
	grep "^host/node-003.log:8: .*$XID" list &&
	grep "^host/node-003.log:9: .*GPU has fallen off the bus" list &&
	test_line_count = 3 list &&
	sed -n "/^bookmark/p" s.ts >saved &&
	grep "^bookmark event:[0-9]*\$" saved &&
	grep "^bookmark host/node-003.log:8\$" saved &&
	grep "^bookmark host/node-003.log:9\$" saved
'
test_expect_success 'a bookmarked event shows its mark beside its score, the score whole' '
	trainscope view --width 80 --height 12 events $J -c bookmark >ev &&
	sed -n 4p ev | grep "^[ 0-9][0-9]\*" &&
	sed -n 5p ev | grep "^[ 0-9][0-9] "
'
test_expect_success 'a replayed session marks the same lines; its report quotes them' '
	trainscope --replay s.ts --report r.txt &&
	sed -n "/^Lines marked during the investigation/,/^To reproduce/p" \
	    r.txt >sec &&
	grep "^  host/node-003.log:8: .*$XID" sec &&
	grep "^  host/node-003.log:9: " sec &&
	grep "^  event:[0-9]* host/node-003.log:8: " sec &&
	trainscope --replay s.ts --report r.md --format md &&
	sed -n "/^## Lines marked during the investigation/,/^## To/p" r.md >md &&
	grep "^\`\`\`" md && grep "^host/node-003.log:9: " md
'
test_expect_success 'a report without bookmarks has no such section' '
	trainscope -n -c "open $J" -c "report -" >r0.txt &&
	! grep "Lines marked" r0.txt
'
test_expect_success 'the same key again unmarks; a bad key names what is wrong' '
	trainscope -n -c "open $J" -c "bookmark host/node-003.log:8" \
	    -c "bookmark host/node-003.log:8" -c bookmarks >out &&
	grep "^no bookmarks" out &&
	test_must_fail 1 trainscope -n -c "open $J" \
	    -c "bookmark host/node-003.log:99999" 2>err &&
	grep "has .* lines\\|no line 99999" err &&
	test_must_fail 1 trainscope -n -c "open $J" -c "bookmark event:1234567" \
	    2>err && grep "no event .1234567. in job $J" err &&
	test_must_fail 1 trainscope -n -c "open $J" -c "pane heatmap" \
	    -c bookmark 2>err && grep "nothing to bookmark on this row" err
'
test_expect_success 'export --marked writes the lines; without bookmarks it says so' '
	trainscope -n -c "source s.ts" -c "export --marked m.txt" &&
	test_line_count = 3 m.txt && grep "^host/node-003.log:9: " m.txt &&
	test_must_fail 1 trainscope -n -c "open $J" -c "export --marked m2.txt" \
	    2>err && grep "export: no bookmarks" err && test ! -e m2.txt
'
test_expect_success 'a session file may bookmark but not export' '
	printf "open $J\nbookmark host/node-003.log:8\nexport --marked x\n" >bad.ts &&
	test_must_fail 2 trainscope --replay bad.ts 2>err &&
	grep "bad.ts:3: .export. is not allowed in a session file" err &&
	test ! -e x
'
test_expect_success 'bookmark --next goes to each in turn, lines in the log pane' '
	trainscope view --height 24 log $J -c "source s.ts" \
	    -c "bookmark --next" >v1 &&
	grep "^score  category" v1 && tail -1 v1 | grep "bookmark 1 of 3" &&
	trainscope view --height 24 log $J -c "source s.ts" \
	    -c "bookmark --next" -c "bookmark --next" >v2 &&
	tail -1 v2 | grep "bookmark 2 of 3: host/node-003.log:8" &&
	grep "^\\*17:09:06 node-003" v2
'
test_expect_success 'copy needs a terminal: it points at export --marked' '
	test_must_fail 1 trainscope -n -c "open $J" -c copy 2>err &&
	grep "export --marked FILE" err
'

. "$TS_SRCDIR/t/lib/tmux-lib.sh"

# start COLSxROWS TERM: the screen on the demo job, set-clipboard on.
start() {
	tm_new "env TERM=$2 LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME='$HOME' \
	    XDG_CACHE_HOME='$XDG_CACHE_HOME' XDG_STATE_HOME='$TRASH/state' \
	    $TS_BIN '$XDG_CACHE_HOME/trainscope/demo/$J' 2>'$TRASH/stderr'; \
	    echo EXITED \$?; sleep 600" "$1" &&
	tm set-option -g set-clipboard on &&
	wait_for "? help  : command  q quit
:warnings lists"
}

# wait_buffer FILE: until tmux's newest paste buffer is FILE's text
wait_buffer() {
	end=$(($(date +%s) + WAIT))
	until tm show-buffer >buf 2>/dev/null && cmp -s "$1" buf; do
		[ "$(date +%s)" -lt "$end" ] || { test_cmp "$1" buf; return 1; }
		sleep 0.1
	done
}

Q="'"
for size in 80x24 200x50; do
test_expect_success "$size: m marks an event and log lines, the rows show it" '
	start $size xterm-256color &&
	keys m && wait_for "bookmarked event:" &&
	keys 7 && wait_for "lines of 24 files in time order" &&
	keys m && wait_for "bookmarked host/node-003.log:8 (2 bookmarks" &&
	keys j && keys m &&
	wait_for "bookmarked host/node-003.log:9 (3 bookmarks" &&
	grep -c "^\*17:09:06[.0-9]* node-003" screen >n && test "$(cat n)" = 2 &&
	keys k && wait_for "*marked* 3 bookmarks"
'
test_expect_success "$size: $Q goes to each bookmark in turn" '
	keys "$Q" && wait_for "bookmark 1 of 3: event:" &&
	grep "^score  category" screen &&
	keys "$Q" && wait_for "bookmark 2 of 3: host/node-003.log:8" &&
	grep "lines of 24 files in time order" screen
'
test_expect_success "$size: :bookmarks lists them with their text" '
	keys : bookmarks Enter && wait_for "host/node-003.log:9: " &&
	grep "^event:[0-9]* host/node-003.log:8: " screen &&
	keys q && wait_for "? help"
'
test_expect_success "$size: y copies the bookmarked lines into tmux (OSC 52)" '
	trainscope -n -c "open $J" -c "bookmark host/node-003.log:8" \
	    -c "bookmark host/node-003.log:9" -c bookmarks |
	    sed "s/^host\/node-003.log:[0-9]*: //" >two &&
	test_line_count = 2 two &&
	printf "%s\n%s\n%s" "$(sed -n 1p two)" "$(sed -n 1p two)" \
	    "$(sed -n 2p two)" >want &&
	keys y && wait_for "copied 3 lines, " &&
	grep "(OSC 52, [0-9]* sent); no paste? export --marked FILE" screen &&
	wait_buffer want &&
	keys : "save $TRASH/s$size.ts" Enter && wait_for "? help" &&
	keys q q && wait_for "EXITED 0"
'
test_expect_success "$size: with no bookmarks, y copies the line under the cursor" '
	start $size xterm-256color && keys 7 &&
	wait_for "lines of 24 files in time order" &&
	printf "%s" "$(sed -n 1p two)" >want &&
	keys y && wait_for "copied 1 line" && wait_buffer want &&
	keys q q && wait_for "EXITED 0"
'
test_expect_success "$size: a session saved on the screen keeps its bookmarks" '
	grep -c "^bookmark [^-]" "$TRASH/s$size.ts" >n && test "$(cat n)" = 3 &&
	trainscope --replay "$TRASH/s$size.ts" --report rs.txt &&
	sed -n "/^Lines marked/,/^To reproduce/p" rs.txt >sec &&
	grep "^  host/node-003.log:9: " sec && grep "^  event:" sec
'
done
test_expect_success 'TERM=linux: the status line says the copy may not arrive' '
	start 80x24 linux &&
	keys 7 && wait_for "lines of 24 files in time order" &&
	keys y && wait_for "1 line sent by OSC 52, but this TERM does not take it" &&
	grep "export --marked FILE" screen &&
	keys q q && wait_for "EXITED 0"
'
test_expect_success 'past 100 KB nothing is sent and the status line says why' '
	trainscope lines --merged -n 1500 --format tsv $J |
	    awk -F "\t" "NR > 1 { print \"bookmark \" \$7 \":\" \$8 }" >many &&
	test_line_count = 1500 many &&
	{ echo "open $J"; cat many; } >many.ts &&
	start 80x24 xterm-256color &&
	keys : "source $TRASH/many.ts" Enter && wait_for "1500 bookmarks" &&
	keys y && wait_for "not copied: " && grep "KB of OSC 52 is too much" screen &&
	grep "export --marked FILE" screen &&
	! tm show-buffer >/dev/null 2>&1 &&
	keys q q && wait_for "EXITED 0"
'
tm kill-server 2>/dev/null
test_done
