# tmux-lib.sh -- driving the screen through tmux at 80x24, for tests
# sourced after test-lib.sh.  Every check waits for a condition, never
# for a fixed time; WAIT is the most any condition is waited for.
#
#	tm_new COMMAND [SIZE]		a fresh server running COMMAND
#	start TERM LANG [ENV...]	the screen on the demo job
#	start_on TERM LANG [ENV...]	the screen with $start_args
#	keys KEY...			tmux send-keys
#	wait_for TEXT, wait_gone TEXT	until the pane shows (no longer) TEXT

if ! command -v tmux >/dev/null 2>&1; then
	test_skip 'the screen under tmux' 'tmux is not installed'
	test_done
fi

WAIT=${WAIT:-90}
echo "$TRASH/tmux.0.sock" >"$TRASH/sock"
tm() { tmux -S "$(cat "$TRASH/sock")" "$@"; }
keys() { tm send-keys "$@"; }

# tm_new COMMAND [COLSxROWS]: a fresh tmux server (the last one may
# still be going away) running COMMAND, at 80x24 unless told
tm_new() {
	size=${2:-80x24}
	tm kill-server 2>/dev/null
	n=$(($(cat "$TRASH/nstart" 2>/dev/null || echo 0) + 1))
	echo $n >"$TRASH/nstart"
	echo "$TRASH/tmux.$n.sock" >"$TRASH/sock"
	tm -f /dev/null new-session -d -x "${size%x*}" -y "${size#*x}" "$1"
}

start() {
	start_args="$XDG_CACHE_HOME/trainscope/demo/gpt-run4" start_on "$@"
}

start_on() {
	term=$1 lang=$2
	shift 2
	tm_new "env TERM=$term LANG=$lang LC_ALL=$lang $* HOME='$HOME' \
	    XDG_CACHE_HOME='$XDG_CACHE_HOME' XDG_STATE_HOME='$TRASH/state' \
	    XDG_CONFIG_HOME='$TRASH/config' \
	    sh -c 'echo \$\$ >$TRASH/pid; exec $TS_BIN $start_args' \
	    2>'$TRASH/stderr'; echo EXITED \$?; sleep 600"
	# the key hint, or the warnings the index left shown in its place
	wait_for "${START_WAIT:-? help  : command  q quit
:warnings lists}"
}

wait_for() {
	end=$(($(date +%s) + WAIT))
	until tm capture-pane -p >screen 2>/dev/null && grep -qF -- "$1" screen; do
		[ "$(date +%s)" -lt "$end" ] || { cat screen >&2; return 1; }
		sleep 0.1
	done
}

wait_gone() {
	end=$(($(date +%s) + WAIT))
	while tm capture-pane -p >screen 2>/dev/null && grep -qF -- "$1" screen; do
		[ "$(date +%s)" -lt "$end" ] || { cat screen >&2; return 1; }
		sleep 0.1
	done
}


# demo_made: the demo job, once
demo_made() {
	test -d "$XDG_CACHE_HOME/trainscope/demo/gpt-run4" ||
	    trainscope demo >/dev/null 2>&1
}

# wait_mouse 0|1: until the screen has turned the terminal's mouse
# reporting (SGR) off or on
wait_mouse() {
	end=$(($(date +%s) + WAIT))
	until [ "$(tm display -p "#{mouse_sgr_flag}")" = "$1" ]; do
		[ "$(date +%s)" -lt "$end" ] || { echo "mouse flag not $1" >&2; return 1; }
		sleep 0.1
	done
}

# click X Y: button 1 pressed and released at column X, row Y (from 1),
# as a terminal reports it in SGR mode; wheel up|down X Y: one notch
click() {
	tm send-keys -l "$(printf "\033[<0;%d;%dM\033[<0;%d;%dm" "$1" "$2" "$1" "$2")"
}
wheel() {
	b=64
	[ "$1" = up ] || b=65
	tm send-keys -l "$(printf "\033[<%d;%d;%dM" "$b" "$2" "$3")"
}
