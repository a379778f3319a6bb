#!/bin/sh
# view.sh -- the panes as text: goldens on the demo job, the view-state
# commands, folding of a large job, and outside bytes kept inert.
. "$TS_SRCDIR/t/lib/test-lib.sh"

GOLDEN="$TS_SRCDIR/t/golden/view"

# Nothing a pane prints may carry a control byte but the newline.
no_controls() {
	! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1"
}

test_expect_success 'the demo job is made' '
	trainscope demo >demo.out 2>&1 &&
	grep "^job gpt-run4" demo.out
'
for size in 80x24 200x50; do
	w=${size%x*} h=${size#*x}
	for pane in events heatmap timeline groups; do
		test_expect_success "view $pane at $size matches its golden" "
			trainscope view --width $w --height $h $pane gpt-run4 >got &&
			test \$(wc -l <got) = $h &&
			no_controls got &&
			test_cmp '$GOLDEN/$pane-$size.txt' got
		"
	done
	test_expect_success "view lines (an event drilled) at $size matches its golden" "
		trainscope view --width $w --height $h events gpt-run4 -c drill \
		    -c 'pane lines' >got &&
		test_cmp '$GOLDEN/lines-$size.txt' got
	"
	test_expect_success "view log (at the failure) at $size matches its golden" "
		trainscope view --width $w --height $h log gpt-run4 >got &&
		test \$(wc -l <got) = $h &&
		no_controls got &&
		test_cmp '$GOLDEN/log-$size.txt' got
	"
done
test_expect_success 'the jobs pane lists the cache' '
	trainscope view jobs --height 10 >got &&
	grep "^gpt-run4  *failed" got && grep "^gpt-run1  *-  *good" got &&
	trainscope view jobs -c "move 2" -c drill >opened &&
	head -1 opened | grep "^gpt-run2 " && tail -1 opened | grep "^events 1/" &&
	trainscope view jobs -c "move 2" -c drill -c back >back &&
	tail -1 back | grep "^jobs 2/"
'
test_expect_success 'no line of a pane is wider than the screen' '
	for p in events heatmap timeline groups jobs; do
		trainscope view --width 80 $p gpt-run4 >got &&
		test "$(LC_ALL=C.UTF-8 wc -L <got)" -le 80 || exit 1
	done
'
test_expect_success 'a short screen still lists events (the detail yields first)' '
	for w in 40 80 200; do
		for h in 5 6 7 8 9 10 24; do
			trainscope view --width $w --height $h events gpt-run4 >got &&
			sed 1,2d got | grep -q "^ *[0-9][0-9]* " ||
			{ echo "no event at ${w}x$h"; cat got; exit 1; }
		done
	done
'
test_expect_success 'a filter, a sort and a drill change what view shows' '
	trainscope view events gpt-run4 -c "filter node=node-001" -c "sort count" >f &&
	grep "\[1 filter\]" f && ! grep "CUDA error: unspecified" f &&
	trainscope view events gpt-run4 -c "filter -v category=timeout" >g &&
	! grep " timeout " g &&
	trainscope view heatmap gpt-run4 -c "goto node node-003" -c drill >d &&
	grep "^1 events" d && grep "\[1 filter\]" d
'
test_expect_success 'the table-like panes as JSON and TSV' '
	trainscope view --format json events gpt-run4 >e.json &&
	grep "\"template\": \"RuntimeError: CUDA error: unspecified launch failure\"" e.json &&
	trainscope view --format json events gpt-run4 -c "filter category=xid" >x.json &&
	test "$(grep -c "\"position\"" x.json)" = 2 &&
	trainscope view --format tsv heatmap gpt-run4 >h.tsv &&
	head -1 h.tsv | grep "^node	score	1	2" &&
	grep "^node-003	0.950	" h.tsv &&
	trainscope view --format json groups gpt-run4 | grep "\"dp_group\": 1" &&
	trainscope view --format tsv jobs | grep "^gpt-run1		good	4	" &&
	trainscope view --format json timeline gpt-run4 >t.json &&
	grep "\"log_iterations\": \[" t.json &&
	grep -A1 "\"join\": {" t.json | grep "\"by\": \"time\"" &&
	trainscope view --format tsv timeline gpt-run4 >t.tsv &&
	head -1 t.tsv | grep "^capture	log	start	end	wire_ms	log_ms	disagreement_ms$" &&
	trainscope view --format json events gpt-run4 -c drill -c "pane lines" >l.json &&
	grep "\"kind\": \"hit\"" l.json &&
	trainscope -n -c "open gpt-run4" -c "export --format tsv ev.tsv" &&
	test "$(wc -l <ev.tsv)" = 84 &&
	head -1 ev.tsv | grep "^position	score	category	count"
'
test_expect_success 'jobs lists the cache; forget removes a job and all its own' '
	trainscope jobs >j && grep "^gpt-run4  *failed" j && grep "^job " j &&
	trainscope jobs --format json | grep "\"name\": \"gpt-run2\"" &&
	mkdir -p gonejob/node01 &&
	echo "[2024-05-01 12:00:11,000] INFO  iteration 1/ 10 | elapsed time per iteration (ms): 100.1 |" >gonejob/node01/rank-0.log &&
	trainscope index gonejob >/dev/null 2>&1 && trainscope view events gonejob >/dev/null &&
	trainscope forget gonejob 2>err && grep "forgot job gonejob" err &&
	! trainscope jobs | grep "^gonejob " &&
	test "$(sqlite3 "$XDG_CACHE_HOME/trainscope/cache.db" "SELECT count(*) FROM files f LEFT JOIN jobs j ON j.id = f.job_id WHERE j.id IS NULL")" = 0 &&
	test_expect_code 1 trainscope forget gonejob 2>err && grep "no job .gonejob." err
'
test_expect_success 'lines prints raw lines around a line, or of an event' '
	trainscope lines --context 2 gpt-run4 logs/node-003/rank-8.log:107 >l &&
	test $(wc -l <l) = 5 &&
	sed -n 3p l | grep "^logs/node-003/rank-8.log:107:>RuntimeError: CUDA error" &&
	trainscope lines --context 0 --template 9 gpt-run4 >e &&
	grep "^host/node-003.log:8:>.*GPU has fallen off the bus" e &&
	test_expect_code 2 trainscope lines gpt-run4 nocolon 2>err &&
	grep "not PATH:LINE" err &&
	test_expect_code 1 trainscope lines gpt-run4 nofile.log:3 2>err &&
	grep "no file .nofile.log." err
'
test_expect_success 'iteration filters, and a drill from the timeline' '
	trainscope view events gpt-run4 -c "filter iter=41" >i41 &&
	grep "CUDA error: unspecified" i41 &&
	trainscope view events gpt-run4 -c "filter iter=1..5" >i15 &&
	! grep "CUDA error: unspecified" i15 &&
	trainscope view timeline gpt-run4 -c "goto iter 41" -c drill >td &&
	grep "^log " td && ! grep "filter\]" td &&
	sed -n "/^────/,\$p" td | grep "iteration *40/"
'
test_expect_success 'back returns to the view the drill left' '
	trainscope view events gpt-run4 -c "move 2" -c drill -c back >b &&
	grep "^events 2/" b &&
	trainscope view events gpt-run4 -c "filter /fallen/" >f1 &&
	trainscope view events gpt-run4 -c "filter /fallen/" -c drill -c back >f2 &&
	test_cmp f1 f2
'
test_expect_success 'bad view commands fail with one clear line' '
	test_expect_code 1 trainscope view events gpt-run4 -c "filter nod=x" 2>e &&
	grep "cannot filter on .nod=x." e &&
	test_expect_code 1 trainscope view events gpt-run4 -c "filter node=nope" 2>e &&
	grep "no node .nope." e &&
	test_expect_code 1 trainscope view events gpt-run4 -c "filter /(/" 2>e &&
	grep "bad pattern" e &&
	test_expect_code 2 trainscope view nopane gpt-run4 2>e &&
	grep "no pane .nopane." e &&
	test_expect_code 1 trainscope view events gpt-run4 -c back 2>e &&
	grep "nothing to go back to" e &&
	test_expect_code 1 trainscope view events nojob 2>e &&
	grep "nojob" e
'
test_expect_success 'export writes the pane whole, as view --height all does' '
	trainscope -n -c "open gpt-run4" -c "export --width 100 whole.txt" &&
	trainscope view --width 100 --height all events gpt-run4 >all.txt &&
	test_cmp all.txt whole.txt &&
	test $(wc -l <whole.txt) -gt 80
'
test_expect_success 'search moves to the first match and next wraps' '
	trainscope view events gpt-run4 -c "search /fallen off/" >s &&
	grep "^events 1/" s &&
	trainscope view events gpt-run4 -c "search /fallen off/" -c next >s &&
	grep "^events 2/" s &&
	trainscope view events gpt-run4 -c "search /fallen off/" -c next \
	    -c next >s &&
	grep "^events 1/" s
'
test_expect_success 'a 512-node job folds its heatmap into 80x24 and unfolds on drill' '
	trainscope simulate --nodes 512 --gpus-per-node 1 --tp 1 --pp 4 --dp 128 \
	    --iters 6 --no-flows --fault gpu-xid79@77:5 big >/dev/null &&
	trainscope index big >/dev/null 2>&1 &&
	trainscope view heatmap big >h &&
	test $(wc -l <h) = 24 &&
	grep "node-077" h && grep " 32+ " h &&
	trainscope view heatmap big -c "move 3" -c drill >u &&
	! grep "+ " u && grep "^heatmap 1/32 " u
'
test_expect_success 'lines --node --iter: the iteration a node died in, its traceback and kernel lines too' '
	trainscope lines --node node-003 --iter 41 gpt-run4 >it41 &&
	grep "^host/node-003.log:[0-9]*: .*NVRM: Xid" it41 &&
	grep "^logs/node-003/rank-8.log:[0-9]*: RuntimeError: CUDA error" it41 &&
	! grep "iteration  *40/" it41
'
test_expect_success 'ranks that print no iteration lines (HF) did not end early' '
	trainscope simulate --nodes 4 --gpus-per-node 2 --iters 20 --format hf \
	    --fault straggler@3:10 --no-flows hfjob >/dev/null &&
	trainscope index hfjob >/dev/null 2>&1 &&
	trainscope view timeline hfjob --height all >t &&
	! grep "ended early" t && ! grep "^ *-1 " t &&
	trainscope view heatmap hfjob >h &&
	! grep "X" h | grep -v "log ends"
'
test_expect_success 'the heatmap marks where a crashed node'"'"'s log ended, and keeps the rows by suspicion' '
	trainscope view --width 200 heatmap gpt-run4 >h &&
	grep "^0.95 node-003 .*XX *$" h &&
	awk "/^[0-9]\.[0-9][0-9] node/ { print \$1 }" h >s &&
	sort -r s >sorted && test_cmp sorted s
'
test_expect_success 'where a rank stopped, the heatmap says so over the cell, in its legend and its data' '
	trainscope view heatmap gpt-run4 >h &&
	grep "^0.95 node-003 ·*!$" h &&
	grep "^0.16 node-004 ·*▓$" h &&
	grep "  ! rank stops  X log ends  " h &&
	trainscope view --width 200 heatmap gpt-run4 >w &&
	grep "^0.95 node-003 ·*!XX$" w &&
	trainscope view --format tsv heatmap gpt-run4 >h.tsv &&
	test "$(awk -F"\t" "\$1 == \"node-003\" { print \$(NF - 1) }" h.tsv)" = -3 &&
	test "$(grep -c -- "	-3	" h.tsv)" = 1 &&
	trainscope view --format json heatmap gpt-run4 |
	    jq -e "[.data.rows[] | select(.node == \"node-003\") | .cells[] | select(. == -3)] | length == 1"
'
test_expect_success 'without captures the groups pane lists every node, and scrolls' '
	trainscope view groups big -c "move 300" >g &&
	test $(wc -l <g) = 24 &&
	grep "^node-300  *1  " g && ! grep "^node-001 " g &&
	grep "^groups 300/512 " g &&
	trainscope view groups big -c "move 300" -c drill >d &&
	grep "filter" d && grep "^log " d &&
	test $(grep -c "^[ ~][0-9:]* node-300 " d) -ge 5 && ! grep " node-299 " d
'
test_expect_success 'long lines scroll sideways; the cursor line shows whole below' '
	trainscope view --width 80 events gpt-run4 >e0 &&
	trainscope view --width 80 events gpt-run4 -c "scroll right" >e1 &&
	grep "^events 1/[0-9]*  col +20 " e1 &&
	! grep "col +" e0 &&
	sed -n 4p e0 | grep "NVRM: Xid (PCI" &&
	! sed -n 4p e1 | grep "NVRM: Xid (PCI" &&
	trainscope view --width 80 events gpt-run4 -c "scroll 1000" -c "scroll home" >e2 &&
	test_cmp e0 e2 &&
	test_must_fail 1 trainscope view heatmap gpt-run4 -c "scroll right" 2>err &&
	grep "only the events, lines and log panes scroll" err &&
	trainscope view --width 80 events gpt-run4 -c drill -c "pane lines" >l &&
	grep "^lines 4/6 " l &&
	grep "GPU has fallen off the bus" l &&
	! grep "^ *[0-9]* .*GPU has fallen off the bus" l
'
test_expect_success 'the selected event shows what to do, even at 80x24' '
	trainscope view --width 80 --height 24 events gpt-run4 >e &&
	grep "^do    drain the node" e &&
	trainscope view --width 80 --height 24 events gpt-run4 -c "move 5" >f &&
	grep "^- [0-9] more reasons" f && grep "^do    " f
'

test_expect_success 'the header names the healthy runs compared as far as they fit' '
	trainscope view --width 200 events gpt-run4 >w &&
	head -1 w | grep "  4 nodes  3 healthy runs compared (gpt-run1, gpt-run2, gpt-run3)$" &&
	trainscope view --width 100 events gpt-run4 >m &&
	head -1 m | grep "  3 healthy runs compared (gpt-run1 +2)$" &&
	trainscope view --width 80 events gpt-run4 >n &&
	head -1 n | grep "  3 healthy runs compared$"
'
test_expect_success 'an error'"'"'s lines show its trace above it, unless no context is asked for' '
	id=$(trainscope diagnose --format json gpt-run4 |
	    jq -r ".events[] | select(.template | test(\"unspecified launch\")) | .template_id") &&
	trainscope view events gpt-run4 -c "search /unspecified launch/" -c drill -c "pane lines" >l &&
	sed -n 3p l | grep "^1 line (15 with context) of RuntimeError" &&
	test "$(grep -c "^ *[0-9]* │ " l)" = 8 &&
	grep "^ 98       iteration, num_floating" l &&
	grep "^ 99 │   File " l && grep "^106 │     mlp_output_with_bias" l &&
	grep "^107 → RuntimeError: CUDA error: unspecified launch failure" l &&
	trainscope lines --context 0 --template "$id" gpt-run4 >c0 &&
	test "$(wc -l <c0)" = 1 && grep ":107:>RuntimeError: CUDA error" c0 &&
	trainscope lines --context 1 --template "$id" gpt-run4 >c1 &&
	test "$(wc -l <c1)" = 11 && head -1 c1 | grep "rank-8.log:98: "
'
test_expect_success 'the selected event shows the trace of its error' '
	trainscope view events gpt-run4 -c "search /unspecified launch/" >e &&
	grep "^trace (6 above) output_tensor, num_tokens = forward_step($" e &&
	grep "^      mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)$" e
'
test_expect_success 'the diagnosis'"'"'s own event (no template): lines --template prints its place' '
	id=$(trainscope diagnose --format json gpt-run4 |
	    jq -r "[.events[] | select(.category == \"stop\")][0].template_id") &&
	test "$id" -ge 4294901760 &&
	trainscope lines --context 1 --template "$id" gpt-run4 >o &&
	test "$(wc -l <o)" = 2 &&
	grep "^logs/node-003/torchrun.log:37:>" o
'
test_expect_success 'the diagnosis'"'"'s own event: its place in the detail, a drill opens its file there' '
	trainscope view events gpt-run4 -c "search /log ends 10 min/" >e &&
	grep "^at logs/node-003/torchrun.log:37  .*  training" e &&
	trainscope view events gpt-run4 -c "search /log ends 10 min/" -c drill >l &&
	sed -n 3p l | grep "^logs/node-003/torchrun.log around line 37$" &&
	grep "^37 → " l && tail -1 l | grep "^lines 37/37 "
'

# miss_job DIR: four nodes in the hostfile, the fourth logs nothing, the
# others time out.
miss_job() {
	mkdir -p "$1" &&
	printf "node01 slots=1\nnode02 slots=1\nnode03 slots=1\nnode04 slots=1\n" >"$1/hostfile" &&
	for n in 1 2 3; do
		mkdir -p "$1/node0$n" &&
		for i in 1 2 3 4 5; do
			echo "[2024-05-01 12:00:1$i,000] INFO [rank $((n - 1))] iteration $i/ 10 | elapsed time per iteration (ms): 100.$i | lm loss: 7.0E+00 |"
		done >"$1/node0$n/rank-$((n - 1)).log" &&
		echo "[2024-05-01 12:10:16,000] ERROR [rank $((n - 1))] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out." >>"$1/node0$n/rank-$((n - 1)).log" || return 1
	done
}
test_expect_success 'an own event of no line (a node that logged nothing): lines --template says so' '
	miss_job miss && trainscope index miss >/dev/null 2>&1 &&
	id=$(trainscope diagnose --format json miss | jq -r ".events[0].template_id") &&
	test "$(trainscope diagnose --format json miss | jq -r ".events[0].category")" = stop &&
	test_expect_code 1 trainscope lines --template "$id" miss 2>err &&
	grep "^trainscope: lines: no line: this event is what was not logged$" err
'
test_expect_success 'an own event of no line says so in its detail and on a drill' '
	trainscope view events miss >e &&
	sed -n 4p e | grep " stop .* no log at all" &&
	grep "^no line (what was not logged)  training" e &&
	test_expect_code 1 trainscope view events miss -c drill 2>err &&
	grep "view: -c .drill.: no line: this event is what was not logged$" err
'

# div_job DIR: two ranks, 30 iterations run to the end; the loss
# explodes in 13 and the grad norm is NaN from 16: a run that diverged.
div_job() {
	for r in 0 1; do
		mkdir -p "$1/node0$r" &&
		for i in $(seq 1 30); do
			l=7.0E+00 g=0.2
			test "$i" -lt 13 || l=1.0E+08
			test "$i" -lt 16 || g=nan
			printf "[2024-05-01 12:00:%02d,000] INFO [rank $r]  iteration %8d/      30 | elapsed time per iteration (ms): 600.$i | lm loss: %s | grad norm: %s |\n" "$i" "$i" "$l" "$g"
		done >"$1/node0$r/rank-$r.log" || return 1
	done
}
test_expect_success 'an event of one iteration: its lines are those of that iteration, one a rank' '
	div_job div && trainscope index div >/dev/null 2>&1 &&
	trainscope view events div -c drill -c "pane lines" >l &&
	head -1 l | grep "^div  diverged in training at iteration 16" &&
	sed -n 3p l | grep "^2 lines (14 with context) of iteration" &&
	test "$(grep -c " → " l)" = 2 && test "$(grep -c " 16 → " l)" = 2 &&
	grep "^node00/rank-0.log 13 " l && grep "^node01/rank-1.log 13 " l &&
	id=$(trainscope diagnose --format json div | jq -r ".events[0].template_id") &&
	trainscope lines --context 0 --template "$id" div >c0 &&
	printf "node00/rank-0.log:16\nnode01/rank-1.log:16\n" >want &&
	cut -d: -f1,2 c0 >got && test_cmp want got
'
test_expect_success 'its detail says where it is, in which iteration, on how many ranks' '
	trainscope view events div >e &&
	grep "^at node00/rank-0.log:16  .*  training, iteration 16  +1 rank$" e
'
test_expect_success 'the lines of an event: lines closer than the context are shown once' '
	mkdir -p twice/node01 &&
	for i in $(seq 1 20); do
		case $i in
		10|15) echo "[2024-05-01 12:00:$((10 + i)),000] ERROR RuntimeError: boom $i" ;;
		*) echo "[2024-05-01 12:00:$((10 + i)),000] INFO  iteration $i/ 20 | elapsed time per iteration (ms): 100.$i |" ;;
		esac
	done >twice/node01/rank-0.log &&
	trainscope index twice >/dev/null 2>&1 &&
	id=$(trainscope diagnose --format json twice |
	    jq -r ".events[] | select(.template | test(\"boom\")) | .template_id") &&
	trainscope lines --template "$id" twice >l &&
	cut -d: -f2 l >got && seq 7 18 >want && test_cmp want got &&
	! grep "no such line" l
'

# The model kept in the cache: read back when nothing changed, made
# again when anything it rests on did.
DB="$XDG_CACHE_HOME/trainscope/cache.db"
test_expect_success 'a kept model reads back the same as a computed one' '
	trainscope view --height all events gpt-run4 >kept1 &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.name = '"'gpt-run4'"'")" = 1 &&
	trainscope view --height all events gpt-run4 >kept2 &&
	sqlite3 "$DB" "DELETE FROM results" &&
	trainscope view --height all events gpt-run4 >fresh &&
	test_cmp kept1 fresh && test_cmp kept2 fresh
'
test_expect_success 'a changed file makes the kept model stale' '
	mkdir -p grow/node01 grow/node02 &&
	for n in 01 02; do
		for i in 1 2 3 4; do
			echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |" >>grow/node$n/rank-0.log
		done
	done &&
	trainscope index grow >/dev/null 2>&1 &&
	trainscope view events grow >before &&
	! grep "illegal mem" before &&
	echo "[2024-05-01 12:00:17,000] ERROR RuntimeError: CUDA error: an illegal memory access was encountered" >>grow/node02/rank-0.log &&
	trainscope index grow >/dev/null 2>&1 &&
	trainscope view events grow >after &&
	grep "an illegal mem" after
'
test_expect_success 'a mark and a changed rules file make it stale too' '
	k1=$(sqlite3 "$DB" "SELECT key FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.name = '"'grow'"'") &&
	trainscope mark grow bad &&
	trainscope view events grow >/dev/null &&
	k2=$(sqlite3 "$DB" "SELECT key FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.name = '"'grow'"'") &&
	test -n "$k1" && test "$k1" != "$k2" &&
	mkdir -p "$HOME/.config/trainscope" &&
	printf "[iter-line]\npattern = elapsed time per iteration\ncategory = config\nexplain = an iteration line\n" >"$HOME/.config/trainscope/faults" &&
	trainscope view events grow >ruled &&
	grep " config " ruled &&
	rm "$HOME/.config/trainscope/faults"
'
test_expect_success 'files gone or changed since indexing are said, not hidden' '
	mv grow/node01/rank-0.log away.log &&
	trainscope diagnose grow >gone &&
	grep "^note: 1 of 2 files are gone since they were indexed (node01/rank-0.log first)" gone &&
	trainscope view events grow >v &&
	tail -1 v | grep "1 of 2 files are gone" &&
	head -1 v | grep "  1 of 2 files gone  " &&
	mv away.log grow/node01/rank-0.log &&
	trainscope diagnose grow >back && ! grep "^note:" back &&
	echo "[2024-05-01 12:00:18,000] INFO one more" >>grow/node01/rank-0.log &&
	trainscope diagnose grow >changed &&
	grep "^note: 1 of 2 files changed since they were indexed" changed
'
test_expect_success 'logs moved away: the diagnosis made while they were there stands' '
	trainscope simulate --nodes 4 --iters 30 --no-flows --fault ecc@2:20 \
	    moved >/dev/null &&
	trainscope index moved >/dev/null 2>&1 &&
	trainscope diagnose moved >before &&
	grep "failed in iteration 20" before &&
	mv moved moved.away &&
	trainscope diagnose moved >after &&
	sed -n 1p before >want && sed -n 1p after >got && test_cmp want got &&
	grep "^note: .* files are gone since they were indexed .*: this is the diagnosis made while they were there" after &&
	mv moved.away moved &&
	trainscope diagnose moved >back && ! grep "^note:" back
'
test_expect_success 'a damaged kept model is made again, not trusted' '
	sqlite3 "$DB" "UPDATE results SET model = x'"'5453'"'" &&
	trainscope view events grow >again &&
	grep "an illegal mem" again
'
test_expect_success 'a kept model whose numbers changed, its layout intact, is made again' '
	trainscope view --height all events grow >n0 &&
	q="FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.name = '"'grow'"'" &&
	sqlite3 "$DB" "SELECT hex(model) $q" >hex0 &&
	root=$(sqlite3 "$DB" "SELECT root FROM jobs WHERE name = '"'grow'"'") &&
	# the stage, a one-byte varint after the magic, the name and the
	# root (each a varint of its length plus one, and its bytes)
	rl=1 && if test $((${#root} + 1)) -ge 128; then rl=2; fi &&
	off=$((8 + 1 + 4 + rl + ${#root})) &&
	b=$(sqlite3 "$DB" "SELECT hex(substr(model, $off + 1, 1)) $q") &&
	test $((0x$b)) -lt 126 &&
	nb=$(printf %02X $((0x$b ^ 2))) &&
	sqlite3 "$DB" "UPDATE results SET model = substr(model, 1, $off) || x'"'"'$nb'"'"' || substr(model, $off + 2) WHERE job_id = (SELECT id FROM jobs WHERE name = '"'grow'"')" &&
	sqlite3 "$DB" "SELECT hex(model) $q" >hex1 && ! cmp -s hex0 hex1 &&
	trainscope view --height all events grow >n1 && test_cmp n0 n1 &&
	sqlite3 "$DB" "SELECT hex(model) $q" >hex2 && test_cmp hex0 hex2
'

# The heatmap with every node of the demo job filtered out.
heatmap_of_none() {
	trainscope view heatmap gpt-run4 -c "filter -v node=node-001" \
	    -c "filter -v node=node-002" -c "filter -v node=node-003" \
	    -c "filter -v node=node-004" "$@"
}
test_expect_success 'search in an empty pane finds nothing, and fails no further' '
	trainscope view events gpt-run4 -c "filter /nosuchtext/" -c "search /x/" >s 2>err &&
	tail -1 s | grep "^no match for /x/ in events " && ! test -s err &&
	test_expect_code 1 trainscope view events gpt-run4 -c "filter /nosuchtext/" -c "search /x/" -c next 2>err &&
	grep "no match for /x/" err &&
	trainscope view lines gpt-run4 -c "search /nosuchtext/" >s 2>err &&
	tail -1 s | grep "^no match for /nosuchtext/" && ! test -s err &&
	heatmap_of_none -c "search /x/" >s 2>err &&
	tail -1 s | grep "^no match for /x/ in heatmap " && ! test -s err &&
	test_expect_code 1 heatmap_of_none -c "search /x/" -c prev 2>err &&
	grep "no match for /x/" err
'
test_expect_success 'a move to any row number stays in the pane' '
	trainscope view events gpt-run4 >m &&
	n=$(tail -1 m | sed -n "s|^events 1/\([0-9]*\) .*|\1|p") && test "$n" -gt 1 &&
	trainscope view events gpt-run4 -c "move -9223372036854775808" >m 2>err &&
	! test -s err && tail -1 m | grep "^events 1/$n " &&
	trainscope view events gpt-run4 -c "move 9223372036854775807" >m 2>err &&
	! test -s err && tail -1 m | grep "^events $n/$n " &&
	trainscope view events gpt-run4 -c "move 0" >m && tail -1 m | grep "^events 1/$n " &&
	test_expect_code 1 trainscope view events gpt-run4 -c "move 99999999999999999999" 2>err &&
	grep "cannot move" err
'

test_expect_success 'goto iter and goto time land on the row of the iteration the filters keep' '
	trainscope view timeline gpt-run4 -c "filter iter=30..45" -c "goto iter 35" >t &&
	tail -1 t | grep "^timeline 6/12 " &&
	trainscope view timeline gpt-run4 -c "filter iter=30..45" -c "goto iter 35" -c drill >d &&
	grep "^1 events .*\[1 filter\]" d &&
	test_expect_code 1 trainscope view timeline gpt-run4 -c "filter iter=30..45" -c "goto iter 3" 2>err &&
	grep "iteration 3 is filtered out" err &&
	t35=$(sed -n "/^ *35 /{s/^ *35  *\([0-9:]*\).*/\1/p;q;}" t) &&
	trainscope view timeline gpt-run4 -c "goto time $t35" >all &&
	k=$(tail -1 all | sed "s|^timeline \([0-9]*\)/.*|\1|") &&
	trainscope view timeline gpt-run4 -c "filter iter=30..45" -c "goto time $t35" >g &&
	tail -1 g | grep "^timeline $((k - 29))/12 "
'

test_expect_success 'a NUL byte in a line shows as ^@, and the rest of the line after it' '
	mkdir -p nuljob/node01 &&
	for i in 1 2 3 4; do
		echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |" >>nuljob/node01/rank-0.log
	done &&
	printf "[2024-05-01 12:00:17,000] ERROR RuntimeError: nul \000\000 byte end\n" >>nuljob/node01/rank-0.log &&
	trainscope index nuljob >/dev/null 2>&1 &&
	trainscope lines nuljob node01/rank-0.log:5 >l &&
	grep -F "rank-0.log:5:>[2024-05-01 12:00:17,000] ERROR RuntimeError: nul ^@^@ byte end" l &&
	trainscope lines --node node01 --iter 5 nuljob >i &&
	grep -F "rank-0.log:5: [2024-05-01 12:00:17,000] ERROR RuntimeError: nul ^@^@ byte end" i &&
	trainscope view --width 100 events nuljob -c drill -c "pane lines" >p &&
	test $(grep -c -F "RuntimeError: nul ^@^@ byte end" p) = 2 &&
	trainscope view --width 100 events nuljob -c drill -c "pane lines" -c "move 1" -c "search /byte end/" >s &&
	tail -1 s | grep "^lines 4/4 "
'

# kanji_job DIR N: a job whose error line ends in N groups of a wide
# character and three digits ("bad漢000漢001...").
kanji_job() {
	mkdir -p "$1/node01" &&
	for i in 1 2 3 4; do
		echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |"
	done >"$1/node01/rank-0.log" &&
	line="[2024-05-01 12:00:17,000] ERROR RuntimeError: bad" && i=0 &&
	while [ $i -lt "$2" ]; do
		line="$line漢$(printf %03d $i)" && i=$((i + 1))
	done &&
	echo "$line" >>"$1/node01/rank-0.log"
}
test_expect_success 'the cursor line wraps between characters, never inside one' '
	kanji_job kanji 31 && trainscope index kanji >/dev/null 2>&1 &&
	trainscope view events kanji -c drill >p &&
	! grep -F "\\x" p &&
	grep "^bad漢000漢001.*漢013漢014漢$" p && grep "^015漢016.*漢030$" p
'

# A log line and a file name carrying terminal control sequences.
test_expect_success 'escape sequences in lines and names stay visible text' '
	mkdir -p hostile/node01 &&
	esc=$(printf "\033") && bel=$(printf "\007") &&
	f="hostile/node01/rank-0${esc}[2J.log" &&
	for i in 1 2 3 4 5; do
		echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |" >>"$f"
	done &&
	echo "[2024-05-01 12:00:17,000] ERROR RuntimeError: owned ${esc}]0;pwned${bel} ${esc}[2J" >>"$f" &&
	trainscope index hostile >/dev/null 2>&1 &&
	for p in events heatmap timeline groups jobs; do
		trainscope view --width 200 $p hostile >p.$p || exit 1
		no_controls p.$p || exit 1
	done &&
	trainscope diagnose hostile >d.text && no_controls d.text &&
	trainscope templates hostile >t.text && no_controls t.text &&
	grep -F "owned ^[]" t.text &&
	trainscope templates --format tsv hostile | tr -d "\t" >t.tsv &&
	no_controls t.tsv &&
	trainscope parse hostile/node01/* >p.text && no_controls p.text &&
	grep -F "rank-0^[[2J.log:6:" p.text &&
	grep -F "RuntimeError: owned ^[]" d.text &&
	trainscope diagnose --format tsv hostile | tr -d "\t" >d.tsv && no_controls d.tsv &&
	trainscope view --width 200 events hostile -c "search /owned/" -c drill >p.lines &&
	no_controls p.lines &&
	grep -F "^[]0;pwned^G ^[[2J" p.lines &&
	grep -F "rank-0^[[2J.log" p.lines
'
# A run longer than the model keeps iteration by iteration (2048): its
# heatmap and timeline are buckets of 2^k iterations, and say so.
test_expect_success 'a run of 5000 iterations is made and diagnosed' '
	trainscope simulate --nodes 2 --gpus-per-node 2 --pp 1 --tp 2 --dp 2 \
	    --iters 5000 --no-flows --fault gpu-xid79@2:4500 long >/dev/null &&
	trainscope diagnose --format json long >long.json 2>/dev/null &&
	jq -e ".failure_iteration == 4500" long.json
'
for size in 80x24 200x50; do
	w=${size%x*} h=${size#*x}
	test_expect_success "view heatmap of a long run at $size: buckets, said so" "
		trainscope view --width $w --height $h heatmap long >got &&
		test \$(wc -l <got) = $h &&
		grep 'iteration (per column: *[0-9]*, kept in buckets of 4)' got &&
		test_cmp '$GOLDEN/heatmap-long-$size.txt' got
	"
done
test_expect_success 'the long run as data: a column a bucket, its width given' '
	trainscope view --format json heatmap long >h.json &&
	jq -e ".data.bucket == 4" h.json &&
	jq -e "[.data.columns[] % 4 == 0] | all" h.json &&
	jq -e "(.data.columns | length) == 4500 / 4 + 1" h.json &&
	jq -e "[.data.rows[].cells | length] | unique == [4500 / 4 + 1]" h.json &&
	trainscope view --format json timeline long >t.json &&
	jq -e ".data.bucket == 4" t.json &&
	jq -e "(.data.log_iterations | length) == 4500 / 4 + 1" t.json &&
	jq -e ".data.log_iterations[1] | .iteration == 4 and .ms > 900" t.json
'
test_expect_success 'the timeline of a long run: a row a bucket; a drill filters its lines' '
	trainscope view --width 80 --height 20 timeline long >got &&
	grep "a row is a bucket of 4 iterations" got &&
	trainscope view --width 200 --height 20 timeline long -c "move 500" \
	    -c drill -c filters >got 2>&1 &&
	grep "iter=1996\.\.1999" got &&
	grep " 1996 .* iteration  *1996/" got &&
	! grep " iteration  *2000/" got
'
test_expect_success 'the report of a long run says its rows are buckets' '
	trainscope -n -c "open long" -c "report r.txt" &&
	grep "^1126 buckets of 4 iterations in the logs" r.txt &&
	grep "^  *4496  .*last healthy" r.txt &&
	grep "^  *4500  .*failure" r.txt &&
	! grep "column cursor" r.txt &&
	trainscope -n -c "open long" -c "pane heatmap" -c "move column=4096" \
	    -c "pane events" -c "report r2.txt" &&
	grep "^The heatmap.s column cursor is on node-002 iter [0-9]*-[0-9]*\.$" r2.txt &&
	grep "^  move column=4096$" r2.txt
'
# The heatmap's column cursor on the long run: at 80 columns a column is
# 72 iterations (18 buckets of 4), 4096 in the one of 4032..4103; at 200
# columns 28 (7 buckets), 4096 in 4088..4115.
test_expect_success 'the column cursor names its cell on the status line, a | marks it' '
	trainscope view heatmap long >got &&
	! grep "iter [0-9]" got &&
	trainscope view heatmap long -c "move column=4096" >got &&
	tail -1 got | grep "^heatmap 1/2  node-002 iter 4032-4103  " &&
	test "$(sed -n 5p got | cut -c71)" = "|" &&
	trainscope view heatmap long -c "move last" -c "move down" >got &&
	tail -1 got | grep "^heatmap 2/2  node-001 iter 4464-4535: Some NCCL operations" &&
	trainscope view heatmap long -c "move right" -c "move right" \
	    -c "move left" -c "move left" >got &&
	tail -1 got | grep "node-002 iter 0-71  "
'
test_expect_success 'the column cursor as data: the selected cell, none without one' '
	trainscope view --format json heatmap long >h.json &&
	jq -e ".data | has(\"selected\") | not" h.json &&
	trainscope view --format json heatmap long -c "move column=4096" >h.json &&
	jq -e ".data.selected | .node == \"node-002\" and .first == 4032 and .last == 4103" h.json &&
	jq -e ".data.columns[.data.selected.columns[0]] == 4032" h.json &&
	jq -e ".data.columns[.data.selected.columns[1]] == 4100" h.json &&
	trainscope view --format json heatmap long -c "move last" >h.json &&
	jq -e ".data.selected | .level > 0 and (.event | test(\"CUDA error\"))" h.json
'
test_expect_success 'a drill on a cell of buckets filters the log to its node and iterations; back keeps both cursors' '
	trainscope view --width 200 --height 30 heatmap long -c "move column=4096" \
	    -c drill -c filters >got &&
	grep "^1. node=node-002$" got && grep "^2. iter=4088\.\.4115$" got &&
	trainscope view --width 200 --height 30 heatmap long \
	    -c "move column=4096" -c drill >got &&
	sed -n "4,20p" got >rows &&
	test $(wc -l <rows) = 17 &&
	awk "\$2 != \"node-002\" || \$5 < 4088 || \$5 > 4115 { bad = 1 } END { exit bad }" rows &&
	head -1 rows | awk "{ exit \$5 != 4088 }" &&
	trainscope view heatmap long -c "move 2" -c "move column=4096" -c drill \
	    -c back >got &&
	tail -1 got | grep "^heatmap 2/2  node-001 iter 4032-4103  "
'
test_expect_success 'the column cursor keeps its iterations across screen widths' '
	trainscope view --width 200 heatmap long -c "move column=4096" >got &&
	tail -1 got | grep "node-002 iter 4088-4115  " &&
	trainscope view --width 200 heatmap long -c "move column=4096" \
	    -c "move right" >got &&
	tail -1 got | grep "node-002 iter 4116-4143  "
'
test_expect_success 'no column: errors name the words; other panes have no columns' '
	test_expect_code 1 trainscope view heatmap long -c "move column=99999" 2>e &&
	grep "iteration .99999. is off the heatmap (0 to 4535)" e &&
	test_expect_code 1 trainscope view heatmap long -c "move column=x" 2>e &&
	grep "column=off, or column=an iteration" e &&
	test_expect_code 1 trainscope view events long -c "move left" 2>e &&
	grep "the events pane has no columns" e
'
test_expect_success 'a job under the cap has no bucket (the demo)' '
	trainscope view --format json heatmap gpt-run4 >h.json &&
	jq -e ".data | has(\"bucket\") | not" h.json &&
	trainscope view --format json timeline gpt-run4 >t.json &&
	jq -e ".data | has(\"bucket\") | not" t.json
'
test_done
