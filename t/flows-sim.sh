#!/bin/sh
# flows-sim.sh -- `flows` on small simulated jobs against their truth.json:
# the job, its pairs, groups and pipelines, and the injected fault where
# the analysis finds it today (see `make eval-flows` for the full table).
. "$TS_SRCDIR/t/lib/test-lib.sh"

score() {	# score DIR: NAME=VALUE fields of the comparison
	trainscope flows --format json "$1" >"$1.json" &&
	awk -f "$TS_SRCDIR/t/eval/flows-sim-score.awk" "$1/truth.json" "$1.json"
}
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

sim() {		# sim DIR NODES DP PP ITERS MS TRANSPORT FAULT-OPTION...
	d=$1 n=$2 dp=$3 pp=$4 it=$5 ms=$6 tr=$7
	shift 7
	trainscope simulate --nodes "$n" --gpus-per-node 1 --dp "$dp" \
	    --pp "$pp" --tp 1 --iters "$it" --iter-ms "$ms" --micro-batches 8 \
	    --seed 3 --transport "$tr" "$@" "$d" >/dev/null
}

for tr in roce tcp; do
	test_expect_success "$tr: 16 nodes, every pair typed, groups and pipelines exact" '
		sim h16-$tr 16 4 4 24 400 $tr --healthy &&
		r=$(score h16-$tr) &&
		test "$(field "$r" jobs)" = 1 && test "$(field "$r" recog)" = 1 &&
		test "$(field "$r" pairs_ok)" = "$(field "$r" pairs_n)" &&
		test "$(field "$r" dp_ok)" = 1 && test "$(field "$r" pp_ok)" = 1 &&
		test "$(field "$r" false)" = 0
	'
	test_expect_success "$tr: a healthy job has no findings; its checkpoint saves are said" '
		! grep -q "\"kind\": *\"\(slow-iteration\|straggler\|slow-link\|slow-group\|congestion\|stall\)\"" h16-$tr.json &&
		test "$(jq -c "[.jobs[0].iterations[] | select(.checkpoint) | [.index, .checkpoint]]" h16-$tr.json)" = "[[10,\"writes\"],[20,\"writes\"]]" &&
		trainscope flows h16-$tr >out &&
		grep "^  checkpoint saves: iterations 10, 20 (slow while the job writes" out &&
		trainscope flows --format tsv h16-$tr >out &&
		test "$(awk -F "\t" "\$1 == \"iteration\" && \$13 == \"checkpoint\" { print \$8 }" out | tr "\n" " ")" = "10 20 "
	'
	test_expect_success "$tr: a stage-0 straggler of a 16-node job is named, not its next stage" '
		sim s16-$tr 16 4 4 24 400 $tr --fault straggler@3:12 &&
		r=$(score s16-$tr) && test "$(field "$r" found)" = 1 &&
		test "$(field "$r" false)" = 0
	'
	test_expect_success "$tr: the injected slow link of a 4-node job is named, every iteration kept" '
		sim l4-$tr 4 2 2 30 300 $tr --fault slow-link@2:15 &&
		r=$(score l4-$tr) && test "$(field "$r" found)" = 1 &&
		test "$(field "$r" false)" = 0 &&
		test "$(grep -c "\"index\":" l4-$tr.json)" -ge 29
	'
done
# Saves to local disk leave no writes on the wire: slow iterations at a
# fixed cadence, three or more and nothing else slow, read as saves; two
# do not make a cadence.
if command -v tcpdump >/dev/null 2>&1; then
	test_expect_success 'checkpoint saves without storage traffic: a cadence of three, not two' '
		sim ck8 8 4 2 40 300 tcp --healthy &&
		tcpdump -r ck8/flows.pcap -w ck8.pcap "not port 2049" 2>/dev/null &&
		trainscope flows ck8.pcap >out &&
		grep "^  checkpoint saves: iterations 10, 20, 30 (slow at a fixed cadence" out &&
		! grep "finding:" out &&
		tcpdump -r h16-tcp/flows.pcap -w h16.pcap "not port 2049" 2>/dev/null &&
		trainscope flows h16.pcap >out &&
		! grep "checkpoint saves" out &&
		grep "^  finding: slow-iteration job (iterations 10..20, 2 in all)" out
	'
else
	test_skip 'checkpoint saves without storage traffic' 'no tcpdump to drop the storage traffic'
fi
# A slowed DP group ends its steps long after the other: the other
# waits before its next step, and the iterations are as long as the
# truth says, not that plus the lag (they were 50 % too long).
test_expect_success 'iterations of a job with a slow link last what the truth says' '
	sim slw8 8 4 2 30 300 tcp --fault slow-link@2:12 &&
	trainscope flows --format json slw8 >slw8.json &&
	got=$(jq "[.jobs[0].iterations[] | select(.index >= 16 and .index <= 28) |
	    .duration] | sort | .[length / 2 | floor]" slw8.json) &&
	want=$(jq "[.iterations[] | select(.iteration >= 17 and .iteration <= 29) |
	    .end_ts - .start_ts] | sort | .[length / 2 | floor]" slw8/truth.json) &&
	echo "median $got s, truth $want s" &&
	awk -v g="$got" -v w="$want" "BEGIN { exit !(g > 0.9 * w && g < 1.1 * w) }"
'
# Two GPUs a node (tp 2), dp 2, pp 2: the slowed ring's waits between
# its steps make a valley of gaps as wide as the steps' own.  Split there,
# its step-end bursts were fragments of the collective, and the other
# group looked slow before the onset.  A step moves the same bytes each
# time: the split that keeps them is the steps'.  The group slowed by
# its link is said in the link's finding, not in one of its own.
for tr in roce tcp; do
	test_expect_success "$tr: a slow link slows its own group, from the onset, in one finding" '
		trainscope simulate --nodes 4 --gpus-per-node 2 --dp 2 --pp 2 \
		    --tp 2 --iters 30 --iter-ms 500 --seed 3 --transport $tr \
		    --fault slow-link@2:15 g42-$tr >/dev/null &&
		r=$(score g42-$tr) && echo "$r" &&
		test "$(field "$r" first)" = 1 && test "$(field "$r" onset)" = 0 &&
		test "$(field "$r" false)" = 0 &&
		! grep -q "\"slow-group\"" g42-$tr.json &&
		jq -e "[.jobs[0].findings[] | select(.kind == \"slow-link\") |
		    .reasons[] | test(\"dp group 1,\")] | any" g42-$tr.json &&
		trainscope simulate --nodes 4 --gpus-per-node 2 --dp 2 --pp 2 \
		    --tp 2 --iters 30 --iter-ms 500 --seed 3 --transport $tr \
		    --healthy h42-$tr >/dev/null &&
		trainscope flows --format json h42-$tr >h42-$tr.json &&
		test "$(jq "[.jobs[0].findings[] |
		    select(.kind != \"slow-iteration\")] | length" h42-$tr.json)" = 0
	'
done
# The simulator's capture opens at iteration 2's start: its first step
# boundary opens capture iteration 1, which is log iteration 2.
test_expect_success 'the capture iterations joined to the log iterations' '
	trainscope index g42-tcp >/dev/null &&
	trainscope diagnose --format json g42-tcp >d.json &&
	test "$(jq -r .captures.join.by d.json)" = time &&
	test "$(jq .captures.join.offset d.json)" = 1 &&
	test "$(jq "[.captures.findings[] | select(.kind == \"slow-link\") |
	    .from_log] | .[0]" d.json)" = 15 &&
	trainscope view --format tsv timeline g42-tcp >t.tsv &&
	awk -F "\t" "NR > 1 && \$2 != \$1 + 1 { bad++ } END { exit bad }" t.tsv
'
# The capture holds only iterations after the onset: nothing healthy to
# compare with, and the groups are those of the slowed traffic.
test_expect_success 'a link slow from the capture start: groups exact, link named' '
	sim fs8 8 4 2 20 400 roce --fault slow-link@2:3 --capture-iters 12 &&
	r=$(score fs8) && echo "$r" &&
	test "$(field "$r" dp_ok)" = 1 && test "$(field "$r" pp_ok)" = 1 &&
	test "$(field "$r" pairs_ok)" = "$(field "$r" pairs_n)" &&
	test "$(field "$r" first)" = 1 && test "$(field "$r" false)" = 0
'
# A middle stage keeps receiving the next micro-batch while it computes
# the last one: its compute runs from the input it works on.
test_expect_success 'a straggler in a middle stage is named' '
	sim m16 16 4 4 20 400 tcp --fault straggler@7:10 &&
	r=$(score m16) && test "$(field "$r" found)" = 1 &&
	test "$(field "$r" false)" = 0
'
# Seven iterations, the straggler from 4 and a checkpoint save after 5:
# the save idles every member of the group alike, which must not break
# the straggler's run of slow steps (three on each side at most).
test_expect_success 'a straggler is named across a checkpoint pause' '
	sim ck16 16 4 4 7 400 tcp --fault straggler@3:4 &&
	r=$(score ck16) && test "$(field "$r" found)" = 1 &&
	test "$(field "$r" false)" = 0
'
test_expect_success 'roce: the slow link is the congested pair' '
	grep -A1 "\"kind\": *\"congestion\"" l4-roce.json |
	    grep -q "\"subject\": *\"10.42.0.1-10.42.0.2\"" &&
	test "$(grep -c "\"kind\": *\"congestion\"" l4-roce.json)" = 1
'
# A pure data-parallel job: the ranks that are ready run the ring's first
# steps among themselves while the straggler computes; a rank computes
# until it enters the ring, and what it idles inside is waiting.
test_expect_success 'a straggler of a pure data-parallel job is named' '
	sim pd6 6 6 1 16 500 roce --fault straggler@3:8 &&
	r=$(score pd6) && test "$(field "$r" found)" = 1 &&
	test "$(field "$r" first)" = 1 && test "$(field "$r" false)" = 0
'
# A slow link holds its ring back; the ring's other links move their
# chunks at line rate and wait, so their hosts are no slow NICs, and the
# idle time inside the ring is no host's compute.
test_expect_success 'a slow link in a ring is named, not its hosts as slow NICs' '
	sim sl8 8 4 2 16 500 tcp --fault slow-link@4:8 &&
	r=$(score sl8) && test "$(field "$r" first)" = 1 &&
	test "$(field "$r" false)" = 0
'
test_expect_success 'a slow link of a pure data-parallel job makes no stragglers' '
	sim sl4 4 4 1 16 500 tcp --fault slow-link@1:8 &&
	r=$(score sl4) && test "$(field "$r" first)" = 1 &&
	test "$(field "$r" false)" = 0
'
# Stage 0 of a 16-stage pipeline shows only its forward: a third of its
# compute over 16 of 31 slots, under 5 % of the step even 30 % slower.
# The floor is its group's noise, not a share of the step.
test_expect_success 'a stage-0 straggler of a deep pipeline is named' '
	trainscope simulate --nodes 32 --gpus-per-node 1 --dp 2 --pp 16 \
	    --tp 1 --iters 12 --iter-ms 400 --micro-batches 16 --seed 3 \
	    --transport tcp --fault straggler@1:6 s0 >/dev/null &&
	r=$(score s0) && test "$(field "$r" found)" = 1 &&
	test "$(field "$r" onset)" = 0 && test "$(field "$r" false)" = 0
'
# A slow link between two stages of a deep pipeline merges its transfers
# into a few long messages: its rate before the slowdown is still read
# from messages like the other pairs', so the finding starts at the onset.
test_expect_success 'a slow pipeline link of a 64-stage pipeline is dated right' '
	trainscope simulate --nodes 64 --gpus-per-node 1 --dp 1 --pp 64 \
	    --tp 1 --iters 16 --iter-ms 500 --micro-batches 64 --seed 3 \
	    --transport roce --fault slow-link@43:8 sl64 >/dev/null &&
	r=$(score sl64) && test "$(field "$r" first)" = 1 &&
	test "$(field "$r" onset)" = 0 && test "$(field "$r" false)" = 0
'
# A deep pipeline of many micro-batches in a short iteration: a forward
# slot of under 2 ms a stage, as in the 1024-node shape of the eval.
for tr in roce tcp; do
	test_expect_success "$tr: 64 nodes, pp 32, 32 micro-batches, every pair typed" '
		trainscope simulate --nodes 64 --gpus-per-node 1 --dp 2 \
		    --pp 32 --tp 1 --iters 6 --iter-ms 400 --micro-batches 32 \
		    --seed 3 --transport $tr --healthy d64-$tr >/dev/null &&
		r=$(score d64-$tr) &&
		test "$(field "$r" recog)" = 1 &&
		test "$(field "$r" pairs_n)" = 94 &&
		test "$(field "$r" pairs_ok)" = 94 &&
		test "$(field "$r" dp_ok)" = 1 && test "$(field "$r" pp_ok)" = 1
	'
done
test_done
