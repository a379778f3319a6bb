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
