#!/bin/sh
# live.sh -- a job followed while it writes (`follow on`, `--follow`):
# appended lines and files, lines still being written, truncated and
# rotated files, the cursor kept on its row; and the screen that opens
# at once on a job not indexed yet, its keys working while it indexes.
. "$TS_SRCDIR/t/lib/test-lib.sh"

R3=logs/node-001/rank-3.log
OOM='[2026-03-14 17:19:06.700] [ERROR] [rank 3] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'

# rows FILE: the events pane's list rows of a drawn screen
rows() { sed -n '4,/^────/p' "$1"; }
# follow_view JOB CMD...: open JOB, run CMDs, follow one round, print events
follow_view() {
	j=$1
	shift
	trainscope -c "open $j" "$@" -c "follow on" -c "view --width 200 --height 40 events"
}

test_expect_success 'the demo job is made and copied as a job to follow' '
	trainscope demo >/dev/null 2>&1 &&
	cp -R "$XDG_CACHE_HOME/trainscope/demo/gpt-run4" job &&
	rm -f job/truth.json &&
	trainscope index job >/dev/null 2>&1 &&
	lines=$(wc -l <job/$R3) &&
	echo $lines >lines.0 &&
	trainscope lines job $R3:$lines >/dev/null
'
test_expect_success '--follow wants one job directory' '
	test_must_fail 2 trainscope --follow 2>err &&
	grep "^trainscope: --follow wants one job directory" err &&
	test_must_fail 2 trainscope --follow -c "jobs" 2>err &&
	grep "^trainscope: --follow wants one job directory" err
'
test_expect_success 'follow wants on or off, and a job' '
	test_must_fail 1 trainscope -c "open job" -c "follow maybe" 2>err &&
	grep "follow wants .on. or .off., not .maybe." err &&
	test_must_fail 1 trainscope -c "follow on" 2>err &&
	grep "no job is open" err
'
test_expect_success 'a last line without its newline is not indexed by follow' '
	printf "%s" "$OOM" >>job/$R3 &&
	follow_view job >v &&
	! grep " oom " v &&
	n=$(($(cat lines.0) + 1)) &&
	test_must_fail 1 trainscope lines job $R3:$n 2>err &&
	grep "has $(cat lines.0) lines in the index" err
'
test_expect_success 'once its newline is written, the line is indexed and its event shows' '
	echo >>job/$R3 &&
	follow_view job >v &&
	rows v | grep " oom .*torch.OutOfMemoryError: CUDA out of memory" &&
	n=$(($(cat lines.0) + 1)) &&
	trainscope lines job $R3:$n | grep "OutOfMemoryError"
'
test_expect_success 'a last line without its newline in a file left alone for a while is a line' '
	f=job/logs/node-002/rank-6.log &&
	n=$(($(wc -l <$f) + 1)) &&
	printf "%s" "$OOM" | sed "s/rank 3\]/rank 6]/" >>$f &&
	touch -d "-1 min" $f &&
	follow_view job >v &&
	trainscope lines job logs/node-002/rank-6.log:$n | grep "rank 6.*OutOfMemoryError"
'
test_expect_success 'a new event keeps the cursor on its row, not on its index' '
	trainscope -c "open job" -c "view --width 200 --height 40 events" >before &&
	row=$(rows before | grep -n " stop .*log ends" | cut -d: -f1) &&
	test -n "$row" &&
	echo "$OOM" | sed "s/rank 3\]/rank 2]/; s/OutOfMemory/Fatal/; s/CUDA out of memory/NCCL communicator aborted/" >>job/logs/node-001/rank-2.log &&
	follow_view job -c "move $row" >after &&
	tail -1 after >status &&
	now=$(rows after | grep -n " stop .*log ends" | cut -d: -f1) &&
	grep "communicator aborted" after &&
	grep "^events $now/" status &&
	test $now = $((row + 1))
'
test_expect_success 'the log pane stays on its line when lines come in before it' '
	trainscope -c "open job" -c "pane log" -c "goto line $R3:50" \
	    -c "view log" >before &&
	sed -n "/^────/{n;p;q;}" before | grep "^$R3:50 " &&
	echo "[2026-03-14 17:07:38.000] [INFO] [rank 1] a new file begins" \
	    >job/logs/node-001/rank-1b.log &&
	trainscope -c "open job" -c "pane log" -c "goto line $R3:50" \
	    -c "follow on" -c "view log" >after &&
	sed -n "/^────/{n;p;q;}" after | grep "^$R3:50 " &&
	b=$(tail -1 before | sed "s/^log \([0-9]*\)\/.*/\1/") &&
	a=$(tail -1 after | sed "s/^log \([0-9]*\)\/.*/\1/") &&
	test $a = $((b + 1))
'
test_expect_success 'a truncated file is read again from its start and the status line says so' '
	head -5 job/$R3 >short &&
	cat short >job/$R3 &&
	follow_view job >v &&
	tail -1 v | grep "^.logs/node-001/rank-3.log. was truncated or replaced: read again from the start" &&
	trainscope lines job $R3:5 >/dev/null &&
	test_must_fail 1 trainscope lines job $R3:6 2>/dev/null
'
test_expect_success 'a rotated file keeps its lines under its new name' '
	lines=$(wc -l <job/logs/node-002/rank-4.log) &&
	mv job/logs/node-002/rank-4.log job/logs/node-002/rank-4.log.1 &&
	echo "$OOM" | sed "s/rank 3\]/rank 4]/" >job/logs/node-002/rank-4.log &&
	follow_view job >v &&
	trainscope lines job logs/node-002/rank-4.log.1:$lines >/dev/null &&
	trainscope lines job logs/node-002/rank-4.log:1 | grep "rank 4.*OutOfMemoryError"
'
test_expect_success 'follow off in batch use changes nothing' '
	trainscope -c "open job" -c "follow off" -c "view events" >v &&
	tail -1 v | grep "^events 1/"
'

# iters RANK FROM TO: Megatron iteration lines of a rank, one a second
iters() {
	awk -v r=$1 -v a=$2 -v b=$3 'BEGIN { for (i = a; i <= b; i++)
	    printf "[2026-03-14 12:%02d:%02d.%03d] [INFO] [rank %d]  " \
	    "iteration %8d/     100 | consumed samples: %12d | elapsed " \
	    "time per iteration (ms): %.1f | learning rate: 1.0E-04 | " \
	    "global batch size:    64 | lm loss: %.6E | loss scale: 1.0 | " \
	    "grad norm: 1.0 | number of skipped iterations:   0 | number " \
	    "of nan iterations:   0 |\n", int(i / 60), i % 60, r * 7, r, i,
	    i * 64, 1000 + r, 5 - i / 100 }'
}
test_expect_success 'a healthy job of four ranks is indexed' '
	for r in 0 1 2 3; do
		mkdir -p run/node-$r &&
		iters $r 1 30 >run/node-$r/rank-$r.log || exit 1
	done &&
	trainscope index run >/dev/null 2>&1 &&
	trainscope view events run >v &&
	head -1 v | grep "^run  completed"
'
test_expect_success 'under follow a rank one iteration behind that just logged is no stop' '
	for r in 0 1 2; do iters $r 31 31 >>run/node-$r/rank-$r.log; done &&
	follow_view run >v &&
	head -1 v | grep "^run  completed" &&
	! grep " stop " v &&
	trainscope view --width 200 events run >v &&
	grep " stop .*log stops at iteration 30, its peers reach 31" v
'
test_expect_success 'once its peers go on past two periods, it stopped' '
	for r in 0 1 2; do iters $r 32 40 >>run/node-$r/rank-$r.log; done &&
	follow_view run >v &&
	grep " stop .*log stops at iteration 30, its peers reach 40" v &&
	! grep " hang " v
'
test_expect_success 'a job whose every rank is silent by the clock hangs under follow' '
	touch -d "-5 min" run/*/*.log &&
	follow_view run >v &&
	grep " hang .*training progress stops after iteration 40" v &&
	trainscope view --width 200 events run >v &&
	! grep " hang " v
'

if ! command -v tmux >/dev/null 2>&1; then
	test_skip 'the screen under tmux' 'tmux is not installed'
	test_done
fi

tm() { tmux -S "$TRASH/tmux.sock" "$@"; }

# start_on W H ARGS...: the screen at W x H, on trainscope ARGS
start_on() {
	w=$1 h=$2
	shift 2
	tm kill-server 2>/dev/null
	rm -f "$TRASH/tmux.sock"
	tm -f /dev/null new-session -d -x $w -y $h \
	    "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME='$HOME' \
	    XDG_CACHE_HOME='$XDG_CACHE_HOME' $TS_BIN $* 2>'$TRASH/stderr'; \
	    echo EXITED \$?; sleep 600"
}

WAIT=${WAIT:-90}
# wait_for TEXT [SECS]: until the pane shows TEXT
wait_for() {
	end=$(($(date +%s) + ${2:-$WAIT}))
	until tm capture-pane -p >screen 2>/dev/null && grep -qF -- "$1" screen; do
		[ "$(date +%s)" -lt "$end" ] || { cat screen >&2; return 1; }
		sleep 0.1
	done
}
keys() { tm send-keys "$@"; }

for size in 80x24 200x50; do
	w=${size%x*} h=${size#*x}
	test_expect_success "$size: --follow shows a line appended while the screen is open" '
		start_on $w $h --follow job &&
		wait_for "following · last line" &&
		wait_for "? help  : command  q quit" &&
		! grep "rank 5.*InfiniBand" screen &&
		echo "[2026-03-14 17:19:07.100] [ERROR] [rank 5] NCCL WARN NET/IB : Got completion from peer with error 12, opcode 0, len 0, vendor err 129 (Recv) localGid ::ffff:10.0.0.5 $size" >>job/logs/node-002/rank-5.log &&
		wait_for "NCCL WARN NET/IB : Got completion" &&
		keys q &&
		wait_for EXITED &&
		grep "EXITED 0" screen
	'
done

test_expect_success 'a job indexed behind the screen: its warnings on the status line, listed, and on stderr once' '
	mkdir -p wj/node1 &&
	iters 0 1 3 >wj/node1/rank-0.log &&
	printf "junk\000\000\001\002" >wj/node1/garbage.log &&
	start_on 80 24 --follow wj &&
	wait_for "follow: 1 warning (first: skipping '"'"'node1/garbage.log" &&
	echo "$OOM" >>wj/node1/rank-0.log &&
	wait_for "torch.OutOfMemoryError" &&
	keys :warnings Enter && wait_for "output 1-1 of 1" &&
	grep "^follow: warning: skipping '"'"'/" screen &&
	keys q q && wait_for EXITED &&
	test $(grep -c "garbage.log" "$TRASH/stderr") = 1
'
test_expect_success 'a job of 300 MB is generated' '
	awk -v NODES=2 -v RANKS=4 -v LINES=140000 -v HOSTLINES=70000 \
	    -v DIR=big -f "$TS_SRCDIR/t/bench/genjob.awk" &&
	test $(cat big/*/* | wc -c) -gt 250000000
'
test_expect_success 'the screen opens at once on a job not indexed, and its keys work' '
	start_on 80 24 --threads 1 big &&
	wait_for "indexing: " &&
	grep "^trainscope  opening big" screen &&
	keys : version Enter &&
	wait_for "trainscope 0" &&
	keys Escape &&
	wait_for "? help  : command  q quit" &&
	grep -v "^big  " screen &&
	keys q &&
	wait_for EXITED 5 &&
	grep "EXITED 0" screen
'
test_expect_success 'its events show when the diagnosis is done; nothing was lost' '
	start_on 80 24 big &&
	wait_for "events 1/" &&
	grep "^big  completed" screen &&
	keys q &&
	wait_for EXITED 5 &&
	trainscope index big >out 2>&1 &&
	grep "10 files, all unchanged" out &&
	for f in $(cd big && ls */*.log); do
		n=$(wc -l <big/$f) &&
		trainscope lines big $f:$n >/dev/null || exit 1
	done
'
if command -v sqlite3 >/dev/null 2>&1; then
	for how in dir name; do
		test_expect_success "an indexed job not diagnosed yet (by $how): the screen opens at once and diagnoses behind it" '
			sqlite3 "$XDG_CACHE_HOME/trainscope/cache.db" "DELETE FROM results" &&
			if [ $how = name ]; then mkdir -p elsewhere && cd elsewhere; fi &&
			start_on 80 24 --threads 1 big &&
			wait_for "diagnosing" &&
			grep "^trainscope  opening big" screen &&
			wait_for "events 1/" &&
			grep "^big  completed" screen &&
			keys q &&
			wait_for EXITED 5 &&
			grep "EXITED 0" screen &&
			test "$(sqlite3 "$XDG_CACHE_HOME/trainscope/cache.db" "SELECT count(*) FROM results")" = 1
		'
	done
fi
tm kill-server 2>/dev/null
rm -rf big

test_done
