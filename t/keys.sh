#!/bin/sh
# keys.sh -- the screen's keys and mouse under tmux at 80x24: quitting
# at once, the paging keys of less and vi, a key bound to nothing, Home
# and End under a TERM that is not the terminal's, the mouse (SGR
# reports) and turning it off, Ctrl-Z and fg.
. "$TS_SRCDIR/t/lib/test-lib.sh"
. "$TS_SRCDIR/t/lib/tmux-lib.sh"

# row: the cursor's row of the events pane, from its status line
row() { sed -n 's/^events \([0-9]*\)\/.*/\1/p' screen | tail -1; }

test_expect_success 'the demo job is made' 'demo_made'

test_expect_success 'Q quits at once from a drill' '
	start xterm-256color C.UTF-8 && keys Enter &&
	wait_for "lines of 24 files in time order" &&
	keys Q && wait_for "EXITED 0"
'
test_expect_success ':q quits at once' '
	start xterm-256color C.UTF-8 && keys Enter &&
	wait_for "lines of 24 files in time order" &&
	keys : q Enter && wait_for "EXITED 0" && ! grep "unknown command" screen
'
test_expect_success 'Ctrl-F and Ctrl-B, b, Ctrl-D and Ctrl-U page as in less' '
	start xterm-256color C.UTF-8 &&
	keys C-f && wait_gone "events 1/83" && page=$(($(row) - 1)) &&
	test "$page" -gt 5 &&
	keys C-b && wait_for "events 1/83" &&
	keys C-f && wait_for "events $((page + 1))/83" &&
	keys b && wait_for "events 1/83" &&
	keys C-d && wait_for "events $(((page + 1) / 2 + 1))/83" &&
	keys C-d && wait_for "events $((2 * ((page + 1) / 2) + 1))/83" &&
	keys C-u C-u && wait_for "events 1/83"
'
test_expect_success 'a key bound to nothing says so on the status line' '
	keys z && wait_for "key '"'"'z'"'"' is not bound (? lists the keys)" &&
	keys j && wait_for "events 2/83" && ! grep "not bound" screen &&
	keys C-e && wait_for "key '"'"'C-e'"'"' is not bound" && keys k &&
	wait_for "events 1/83"
'
test_expect_success 'Home and End under TERM=xterm-256color in tmux' '
	keys End && wait_for "events 83/83" &&
	keys Home && wait_for "events 1/83" &&
	for s in "[F:83" "[H:1" "OF:83" "OH:1" "[4~:83" "[1~:1"; do
		tm send-keys -l "$(printf "\033")${s%:*}" &&
		wait_for "events ${s#*:}/83" || exit 1
	done
'
test_expect_success 'Home and End at the prompt move its cursor' '
	keys : && keys -l "pane heatmap" && keys Home && keys -l "x" &&
	wait_for ":xpane heatmap" && keys End && keys -l "y" &&
	wait_for ":xpane heatmapy" && keys C-c && wait_gone ":xpane"
'
test_expect_success 'the mouse: a click selects a row, the wheel moves, a click on a tab' '
	start xterm-256color C.UTF-8 && wait_mouse 1 &&
	click 10 5 && wait_for "events 2/83" &&
	wheel down 10 5 && wait_for "events 5/83" &&
	wheel down 10 5 && wait_for "events 8/83" &&
	wheel up 10 5 && wait_for "events 5/83" &&
	click 13 2 && wait_for "heatmap 1/" &&
	click 3 2 && wait_for "events 5/83" &&
	click 30 2 && wait_for "timeline 1/"
'
test_expect_success 'mouse off and M give the mouse back to the terminal; M takes it again' '
	keys 1 && wait_for "events 5/83" &&
	keys : && keys "mouse off" Enter && wait_mouse 0 &&
	click 10 4 && keys j && wait_for "events 6/83" &&
	keys M && wait_mouse 1 && click 10 4 && wait_for "events 1/83" &&
	keys M && wait_mouse 0 && keys Q && wait_for "EXITED 0"
'
test_expect_success 'the wheel scrolls a command'"'"'s output' '
	start xterm-256color C.UTF-8 && keys ? && wait_for "output 1-" &&
	wheel down 10 5 && wait_for "output 4-" && wheel up 10 5 &&
	wait_for "output 1-" && keys Q && wait_for "EXITED 0"
'
# conf TEXT: the default config file holds TEXT (printf format), the
# user's own
conf() {
	mkdir -p "$TRASH/config/trainscope" &&
	printf "$1" >"$TRASH/config/trainscope/config" &&
	chmod 600 "$TRASH/config/trainscope/config"
}
demo=$XDG_CACHE_HOME/trainscope/demo/gpt-run4

test_expect_success 'the config file: a bind, set mouse off, a bad line said as FILE:LINE and the screen opens' '
	conf "# mine\nbind z pane heatmap\nbind C-o :filter node=\nset mouse off\nfrobnicate now\n" &&
	START_WAIT="config:5: unknown directive" start xterm-256color C.UTF-8 &&
	grep -F "trainscope/config:5: unknown directive '"'"'frobnicate'"'"'" screen &&
	grep "score  category" screen && wait_mouse 0 &&
	keys z && wait_for "suspicion" &&
	keys C-o && wait_for ":filter node=" && keys C-c &&
	keys ? && wait_for "(bound in the config file)" && keys q &&
	keys Q && wait_for "EXITED 0" &&
	grep -Fx "trainscope: $TRASH/config/trainscope/config:5: unknown directive '"'"'frobnicate'"'"' (bind, set, color): frobnicate now" "$TRASH/stderr"
'
test_expect_success '--no-config reads none; --config FILE reads FILE' '
	start_args="--no-config $demo" start_on xterm-256color C.UTF-8 &&
	wait_mouse 1 && keys z && wait_for "key '"'"'z'"'"' is not bound" &&
	keys Q && wait_for "EXITED 0" &&
	printf "bind z pane timeline\n" >"$TRASH/other.conf" &&
	start_args="--config $TRASH/other.conf $demo" start_on xterm-256color C.UTF-8 &&
	wait_mouse 1 && keys z && wait_for "time (UTC)" &&
	keys Q && wait_for "EXITED 0"
'
test_expect_success 'binds in a config file others may write are not taken' '
	conf "bind z quit\n" && chmod 666 "$TRASH/config/trainscope/config" &&
	START_WAIT="bind ignored" start xterm-256color C.UTF-8 &&
	keys z && wait_for "key '"'"'z'"'"' is not bound" && ! grep EXITED screen &&
	keys Q && wait_for "EXITED 0" &&
	grep "config:1: bind ignored: the file is not the user.s own: bind z quit\$" "$TRASH/stderr"
'
test_expect_success 'color selected and set colors none' '
	conf "color selected black yellow\n" && start xterm-256color C.UTF-8 &&
	tm capture-pane -p -e >esc && sed -n 4p esc >row &&
	grep -q "43m" row && ! grep -q "\[7m" row && keys Q &&
	wait_for "EXITED 0" &&
	conf "set colors none\n" && start xterm-256color C.UTF-8 &&
	tm capture-pane -p -e >esc && ! grep -q "38;5;" esc &&
	grep -q "\[7m" esc && keys Q && wait_for "EXITED 0"
'
if command -v bash >/dev/null 2>&1; then
test_expect_success 'Ctrl-Z in an interactive shell: fg brings the screen back' '
	tm_new "env -i PATH=\"$PATH\" TERM=xterm-256color LANG=C.UTF-8 \
	    HOME=\"$HOME\" XDG_CACHE_HOME=\"$XDG_CACHE_HOME\" \
	    XDG_STATE_HOME=\"$TRASH/state\" XDG_CONFIG_HOME=\"$TRASH/config\" \
	    PS1=\"shell> \" \
	    bash --norc --noprofile -i" &&
	wait_for "shell>" &&
	keys -l "$TS_BIN $XDG_CACHE_HOME/trainscope/demo/gpt-run4" && keys Enter &&
	wait_for "1 events  2 heatmap" && keys j && wait_for "events 2/83" &&
	keys C-z && wait_for "Stopped" && ! grep "events 2/83" screen &&
	keys -l "fg" && keys Enter && wait_for "events 2/83" &&
	keys j && wait_for "events 3/83" &&
	keys Q && wait_gone "? help  : command"
'
fi
tm kill-server 2>/dev/null
test_done
