#!/bin/sh
# view-real.sh -- every pane on real data: the captured jobs of
# $TS_SHARED/data/realjobs and the pasted failure logs of
# $TS_SHARED/data/failure-logs, at 80x24 and 200x50.  The diagnosis of
# these is still being tuned, so what is checked is the shape: every
# pane draws at its size, names the job, keeps control bytes out, and
# drills.
. "$TS_SRCDIR/t/lib/test-lib.sh"

REAL="$TS_SHARED/data/realjobs"
FL="$TS_SHARED/data/failure-logs"

no_controls() {
	! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1"
}

# every_pane JOB: each pane at both sizes
every_pane() {
	for size in 80x24 200x50; do
		w=${size%x*} h=${size#*x}
		for p in events heatmap timeline groups jobs log; do
			trainscope view --width $w --height $h $p "$1" >got 2>err ||
				{ cat err >&2; return 1; }
			test "$(wc -l <got)" = $h || { echo "$p $size: $(wc -l <got) lines" >&2; return 1; }
			test "$(LC_ALL=C.UTF-8 wc -L <got)" -le $w || return 1
			no_controls got || return 1
		done
	done
	# a drill into the first event, when there is one
	if trainscope view --format tsv events "$1" | sed -n 2p | grep -q .; then
		trainscope view events "$1" -c drill >log && no_controls log &&
		sed -n 3p log | grep -q "in time order" &&
		trainscope view events "$1" -c drill -c "pane lines" >lines &&
		no_controls lines
	fi
}

if ! test -d "$REAL"; then
	test_skip 'real captured jobs' "no $REAL"
else
	for j in c_straggler_compute g_same_job; do
		test_expect_success "real job $j: every pane draws" "
			cp -r '$REAL/$j' . && chmod -R u+w $j &&
			trainscope index $j >/dev/null 2>&1 &&
			every_pane $j &&
			trainscope view events $j | head -1 | grep '^$j '
		"
	done
	test_expect_success 'real job with captures: the groups pane shows its hosts' '
		trainscope view groups c_straggler_compute >g &&
		grep "data-parallel group" g && grep "^10\\." g
	'
	test_expect_success 'real hang: the cause above its consequences, on every pane that shows it' '
		g=g_same_job/run2_failed &&
		want=$(jq -r .log_truth.faulty_node "$REAL/$g/truth.json") &&
		cp -r "$REAL/$g" run2_failed && chmod -R u+w run2_failed &&
		trainscope index run2_failed >/dev/null 2>&1 &&
		trainscope view events run2_failed >e &&
		sed -n 4p e | grep "^9[0-9] .* stop .*stops silently" &&
		grep "^at logs/$want/rank-1.log:52  .*  training, iteration 13$" e &&
		trainscope view events run2_failed -c drill >l &&
		sed -n 3p l | grep "^logs/$want/rank-1.log around line 52$" &&
		tail -1 l | grep "^lines 52/52 " &&
		trainscope view heatmap run2_failed >h &&
		grep "^0\\.[0-9]* $want  *·*!" h && grep "! rank stops" h &&
		trainscope view events run2_failed -c "move 2" >t &&
		grep "^trace .*File <\\*> line <\\*> in all_reduce$" t &&
		grep "^      work.wait()$" t
	'
	test_expect_success 'real runs: the captures'"'"' iterations beside the logs'"'"' in the timeline' '
		cp -r "$REAL/n_slow_link_dp2_pp3" slow && chmod -R u+w slow &&
		trainscope index slow >/dev/null 2>&1 &&
		for size in 80x24 200x50; do
			trainscope view --width ${size%x*} --height ${size#*x} \
			    timeline slow -c "goto iter 11" >t &&
			test "$(LC_ALL=C.UTF-8 wc -L <t)" -le ${size%x*} &&
			grep "^wire vs logs    capture 1-30 = log 1-30 (by time), median +[0-9.]* ms +[0-9.]* %$" t &&
			grep "^on the wire  " t && ! grep "^from flows" t &&
			grep "^ *11  [0-9:]*  *1396  *11  *[0-9]*  *[-+][0-9.]*  failure  *slow$" t || exit 1
		done &&
		trainscope view timeline c_straggler_compute >s &&
		grep "^wire vs logs    capture 1-40 = log 1-40 (by time)" s
	'
	test_expect_success 'real divergence: the diverged event'"'"'s lines are the failure iteration'"'"'s, one a rank' '
		cp -r "$REAL/o_nan_divergence_dp4" div && chmod -R u+w div &&
		trainscope index div >/dev/null 2>&1 &&
		trainscope view events div -c drill -c "pane lines" >l &&
		head -1 l | grep "^div  diverged in training at iteration 16" &&
		sed -n 3p l | grep "^4 lines (28 with context) of iteration" &&
		id=$(trainscope diagnose --format json div | jq -r ".events[0].template_id") &&
		trainscope lines --context 0 --event "$id" div | cut -d: -f1,2 | sort >got &&
		jq -r ".log_truth.root_cause[] | \"\\(.path):\\(.line)\"" \
		    "$REAL/o_nan_divergence_dp4/truth.json" | sort >want &&
		test_cmp want got
	'
fi
if ! test -d "$FL"; then
	test_skip 'real failure logs' "no $FL"
else
	for d in "$FL"/fl*; do
		n=$(basename "$d")
		test_expect_success "failure log $n: every pane draws" "
			mkdir -p $n && cp '$d/log.txt' $n/ &&
			trainscope index $n >/dev/null 2>&1 &&
			every_pane $n &&
			trainscope view --format json events $n >j &&
			head -c 1 j | grep -q '\['
		"
	done
fi
test_done
