#!/bin/sh
# flows-shapes.sh -- `flows` on simulated jobs of several parallel layouts,
# several ranks a host: the simulator's defaults (8 nodes of 8 GPUs, tp 8,
# dp 4, pp 2), pure data parallel, pure pipeline, two TP groups a host,
# one GPU a rank with four ranks a host, DP rings that never leave a host.  Scored against truth.json by
# flows-sim-score.awk (host pairs and groups derived from the ranks).
. "$TS_SRCDIR/t/lib/test-lib.sh"

score() {	# score DIR: NAME=VALUE fields of the comparison
	trainscope flows --format json "$1" >"$1.json" &&
	awk -f "$TS_SRCDIR/t/eval/flows-sim-score.awk" "$1/truth.json" "$1.json"
}
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# exact DIR: one job of the truth's hosts, every pair typed, the DP groups
# and the pipelines exact, and all but the first iteration found.
exact() {
	r=$(score "$1") && echo "$r" &&
	test "$(field "$r" jobs)" = 1 && test "$(field "$r" recog)" = 1 &&
	test "$(field "$r" pairs_ok)" = "$(field "$r" pairs_n)" &&
	test "$(field "$r" dp_ok)" = 1 && test "$(field "$r" pp_ok)" = 1 &&
	test "$(field "$r" iters)" -ge $(($(field "$r" iters_truth) - 1)) &&
	test "$(field "$r" false)" = 0
}

# iters_ok FIELDS: all the truth's iterations found, or all but one
iters_ok() {
	test "$(field "$1" iters)" -ge $(($(field "$1" iters_truth) - 1)) &&
	test "$(field "$1" iters)" -le "$(field "$1" iters_truth)"
}

sim() {		# sim DIR NODES GPUS DP PP TP OPTION...
	d=$1 n=$2 g=$3 dp=$4 pp=$5 tp=$6
	shift 6
	trainscope simulate --nodes "$n" --gpus-per-node "$g" --dp "$dp" \
	    --pp "$pp" --tp "$tp" --iters 12 --iter-ms 400 --seed 5 \
	    "$@" "$d" >/dev/null
}

test_expect_success 'simulate defaults: one job, its DP groups and pipelines' '
	trainscope simulate --healthy --iters 12 def >/dev/null &&
	exact def &&
	trainscope flows def >out &&
	grep "^job def .*: 8 hosts" out &&
	test "$(grep -c "^  dp group" out)" = 2 &&
	test "$(grep -c "^  pipeline" out)" = 4
'
test_expect_success 'every iteration says how late its step may have ended' '
	n=$(grep -c "\"end_max\": [0-9]" def.json) &&
	test "$n" -ge 10 &&
	! grep "\"end_uncertainty\": -" def.json &&
	grep "^  step ends: up to [0-9.]* ms after the last transfer" out
'
for tr in roce tcp; do
	test_expect_success "$tr: pure data parallel, a TP group a host" '
		sim dp-$tr 8 8 8 1 8 --transport $tr --healthy && exact dp-$tr
	'
	test_expect_success "$tr: two TP groups a host (tp 4 of 8 GPUs)" '
		sim tp4-$tr 4 8 4 2 4 --transport $tr --healthy && exact tp4-$tr
	'
	test_expect_success "$tr: four ranks a host, one GPU a rank" '
		sim r4-$tr 8 4 8 4 1 --transport $tr --healthy && exact r4-$tr
	'
	test_expect_success "$tr: pure pipeline (dp 1): iterations from its pauses" '
		sim pp-$tr 8 8 1 8 8 --transport $tr --healthy && exact pp-$tr &&
		trainscope flows pp-$tr >out &&
		grep "pipelines.*pause" out
	'
	test_expect_success "$tr: DP rings inside the hosts, pipelines across" '
		sim in-$tr 4 8 8 4 1 --transport $tr --healthy && exact in-$tr
	'
done
# Four ranks a host, each with its own pipeline connections: a TCP hop
# shows the four ports its receiving ranks listen on, a RoCE hop a QP a
# connection (four rank pairs, two channels each); what never leaves a
# host is said.
test_expect_success 'four ranks a host: their endpoints on each pipeline hop' '
	test "$(jq "[.jobs[0].pp_hops[][] | .endpoints | length] | unique" \
	    r4-tcp.json | tr -d " \n")" = "[4]" &&
	test "$(jq -r ".jobs[0].pp_hops[0][0].endpoint_kind" r4-tcp.json)" = port &&
	test "$(jq "[.jobs[0].pp_hops[][] | .endpoints | length] | unique" \
	    r4-roce.json | tr -d " \n")" = "[8]" &&
	trainscope flows r4-tcp >out &&
	grep "^    receiving endpoints a hop (ports.*: 4 4 4$" out &&
	grep "^  not on the wire: traffic between ranks of one host" out
'
test_expect_success 'DP rings inside the hosts: the wire shows no DP pair, and says so' '
	trainscope flows in-tcp >out &&
	grep "^  not on the wire: .*no pair carries data-parallel traffic" out &&
	jq -e ".jobs[0].not_on_wire | test(\"every DP ring stays inside\")" \
	    in-tcp.json
'
# A slow NIC from iteration 8: the groups and pipelines are still those of
# the healthy part, the node is named from the iteration it started, its
# slowdown within 25 % of the injected factor, and nothing else is blamed.
for tr in roce tcp; do
	test_expect_success "$tr: a slow NIC is named with its onset and magnitude" '
		sim nic-$tr 8 8 4 2 8 --transport $tr --fault slow-nic@3:8 &&
		exact nic-$tr &&
		r=$(score nic-$tr) &&
		test "$(field "$r" found)" = 1 && test "$(field "$r" onset)" = 0 &&
		awk -v m="$(field "$r" mag)" -v f="$(field "$r" factor)" \
		    "BEGIN { exit !(m > 0.75 * f && m < 1.25 * f) }"
	'
done
test_expect_success 'a slow NIC of a pure pipeline' '
	sim nicpp 8 8 1 8 8 --transport tcp --fault slow-nic@3:8 && exact nicpp &&
	r=$(score nicpp) && test "$(field "$r" found)" = 1 &&
	test "$(field "$r" onset)" = 0
'
# A straggler stage lengthens a pure pipeline's period part-way: its
# pauses are read against the period around them, not the whole run's.
test_expect_success 'a pure pipeline keeps its iterations through a slowdown' '
	sim ppst 6 1 1 6 1 --transport roce --fault straggler@2:6 &&
	r=$(score ppst) && echo "$r" &&
	test "$(field "$r" iters)" -ge $(($(field "$r" iters_truth) - 2))
'
test_expect_success 'a slow NIC with four ranks a host' '
	sim nicr4 8 4 8 4 1 --transport roce --fault slow-nic@3:8 &&
	exact nicr4 && r=$(score nicr4) && test "$(field "$r" found)" = 1 &&
	test "$(field "$r" onset)" = 0
'
# No DP peers on the wire (DP rings inside the hosts, or dp 1): a
# straggler is seen against its own steps before the onset.
test_expect_success 'a straggler whose DP peers share its host is named' '
	sim in8 8 8 4 8 2 --transport roce --fault straggler@8:6 &&
	r=$(score in8) && test "$(field "$r" detect)" = 1 &&
	test "$(field "$r" found)" = 1 && test "$(field "$r" onset)" = 0 &&
	test "$(field "$r" false)" = 0
'
test_expect_success 'a straggler of a pure pipeline is named, every iteration kept' '
	sim pp6 6 1 1 6 1 --transport roce --fault straggler@2:6 &&
	r=$(score pp6) && test "$(field "$r" found)" = 1 &&
	test "$(field "$r" false)" = 0 && iters_ok "$r"
'
# A pure pipeline turns round at its last stage: once that stage
# straggles, the turn outlasts the step-end pause at stage 0.  Forward
# is the shorter half of a step, which tells stage 0's end of the chain,
# and only its pauses end a step.
test_expect_success 'a pure pipeline whose last stage straggles keeps its steps' '
	sim pplast 6 4 1 6 4 --transport tcp --fault straggler@6:6 &&
	r=$(score pplast) && echo "$r" &&
	iters_ok "$r" &&
	test "$(field "$r" first)" = 1 && test "$(field "$r" onset)" = 0
'
# A host with one pair: its slow NIC and that link look the same on the
# wire; the link is named, and the finding says so.
test_expect_success 'the slow NIC of a host with one pair is its link' '
	sim nic1 4 8 1 4 8 --transport tcp --fault slow-nic@1:6 &&
	r=$(score nic1) && test "$(field "$r" first)" = 1 &&
	test "$(field "$r" false)" = 0 &&
	jq -e "[.jobs[0].findings[].reasons[] |
	    test(\"10.42.0.1 has no other pair on the wire\")] | any" nic1.json
'
# Stages of 3 ranks on hosts of 8: a stage straddles two hosts, so their
# pair carries its DP ring and the pipelines, on their own connections.
test_expect_success 'stages that straddle hosts: DP and pipeline pairs apart' '
	sim mx12 12 8 3 32 1 --transport tcp --micro-batches 32 --healthy &&
	exact mx12
'
# Stages of 12 ranks on hosts of 8: the DP ring of a straddling stage
# runs its steps back to back, one message a step on each of its
# connections, beside the pipeline connections' one a micro-batch; with
# few iterations or many, the pair is split all the same.
for it in 12 24; do
	test_expect_success "stages that straddle hosts, rings one message a step ($it iterations)" '
		trainscope simulate --nodes 6 --gpus-per-node 8 --dp 12 --pp 4 \
		    --tp 1 --iters $it --iter-ms 400 --seed 5 --transport tcp \
		    --healthy mx6-$it >/dev/null &&
		exact mx6-$it
	'
done
# Beside a ring, a pair's activations can be a small share of its bytes
# (16 micro-batches of 16 stages): what is significant is judged per
# connection, not from the ring's messages.  And with many micro-batches
# a train of activations runs back to back, one message a step like the
# ring, yet as many bytes come back as gradients in separate messages.
test_expect_success 'stages that straddle hosts: activations a small share of the pair' '
	sim mx24 24 8 12 16 1 --transport tcp --micro-batches 16 --healthy &&
	exact mx24
'
test_expect_success 'stages that straddle hosts: activation trains one message a step' '
	sim mxt 6 8 12 4 1 --transport tcp --micro-batches 128 --healthy &&
	exact mxt
'
# A slow link between hosts whose pair carries a ring and pipelines
# slows both: still one link, not the slow NIC of a host with two peers.
test_expect_success 'a slow link under a ring and pipelines is one link' '
	sim mxl 6 8 12 4 1 --transport tcp --fault slow-link@2:6 &&
	exact mxl && r=$(score mxl) && test "$(field "$r" first)" = 1 &&
	test "$(jq "[.jobs[0].findings[] | select(.kind == \"slow-link\")] |
	    length" mxl.json)" = 1
'
# Stages of 3 ranks on hosts of 2: a host holds ranks of two stages and
# three rank pipelines interleave over the hosts.  Over TCP a rank's
# activations and the gradients back to it reach its own port, which
# ties its hops through the host into one pipeline.
test_expect_success 'rank pipelines that interleave over hosts, told by their ports' '
	sim il 24 2 3 16 1 --transport tcp --micro-batches 16 --healthy &&
	exact il &&
	test "$(jq ".jobs[0].pp_pipelines | length" il.json)" = 3
'
# A host holding ranks of two pipelines mixes their computes: the input
# of one, arriving while the other computes, cuts the idle time of both,
# so its straggler hardly shows as a host.  Over TCP each rank's compute
# is read from the messages to its own port and its neighbours' (node 2
# holds ranks of stages 0 and 1, node 3 two ranks of stage 1); over RoCE
# the host's sends to one side pair with its inputs from the other in
# time order (node 3).
for st in tcp:2 tcp:3 roce:3; do
	tr=${st%:*} node=${st#*:}
	test_expect_success "$tr: a straggler on node $node, whose ranks are in two pipelines" '
		sim ils-$tr-$node 24 2 3 16 1 --transport $tr --micro-batches 16 \
		    --fault straggler@$node:6 &&
		r=$(score ils-$tr-$node) && echo "$r" &&
		test "$(field "$r" detect)" = 1 && test "$(field "$r" first)" = 1 &&
		test "$(field "$r" false)" = 0 && test "$(field "$r" onset)" = 0
	'
done
test_expect_success 'roce: interleaved rank pipelines the QPs do not tell apart are said' '
	jq -e ".jobs[0].not_on_wire | test(\"which rank pipeline a hop belongs to\")" \
	    ils-roce-3.json &&
	! jq -e ".jobs[0].not_on_wire | test(\"which rank pipeline\")" \
	    ils-tcp-3.json
'
test_expect_success 'tcp: the straggler is told by its rank port' '
	jq -e "[.jobs[0].findings[] | select(.kind == \"straggler\") |
	    .reasons[] | test(\"its rank at port [0-9]+ \\\\(stage\")] | any" \
	    ils-tcp-3.json
'
# Pure data parallel, two TP groups a host: each step's ring comes as a
# small fragment (the members that are ready run its first steps) and
# the rest; with a late member, two fragments.  Fragments are then as
# many as the main bursts, yet a step is one iteration.
test_expect_success 'a ring whose steps come in fragments: one iteration a step' '
	trainscope simulate --nodes 4 --gpus-per-node 4 --dp 8 --pp 1 --tp 2 \
	    --iters 12 --iter-ms 400 --seed 3 --transport tcp \
	    --fault straggler@4:6 frag >/dev/null &&
	r=$(score frag) && echo "$r" &&
	iters_ok "$r" &&
	test "$(field "$r" first)" = 1 && test "$(field "$r" false)" = 0
'
# DP rings inside the hosts: the last stage's node sends nothing to the
# node after it, so a slow link, or a dead IB link, goes to the stage
# before, the one node its traffic reaches; the logs name that peer.
test_expect_success 'a slow link goes to a node its traffic reaches' '
	sim lkin 4 8 8 4 1 --transport tcp --fault slow-link@4:6 &&
	grep "\"peer_node\": \"node-003\"" lkin/truth.json &&
	r=$(score lkin) && test "$(field "$r" detect)" = 1 &&
	test "$(field "$r" first)" = 1 && test "$(field "$r" false)" = 0
'
test_expect_success 'a dead IB link: both ends log a peer their traffic reaches' '
	sim ibin 4 8 8 4 1 --transport tcp --fault ib-link-down@4:6 &&
	grep -l "NET/IB : Got completion from peer 10.42.0.3<" \
	    ibin/logs/node-004/*.log &&
	grep -l "NET/IB : Got completion from peer 10.42.0.4<" \
	    ibin/logs/node-003/*.log &&
	! grep -l "NET/IB : Got completion from peer" ibin/logs/node-00[12]/*.log &&
	trainscope flows --format json ibin >ibin.json &&
	jq -e "[.jobs[0].pairs[] | select(.a == \"10.42.0.3\" and
	    .b == \"10.42.0.4\")] | length == 1" ibin.json
'
# The slow link is between two pipeline stages (the DP rings stay inside
# the hosts): its pipeline transfers slow down, nothing else does.
test_expect_success 'a slow link between pipeline stages is named' '
	sim plk 32 4 4 32 1 --transport tcp --micro-batches 32 \
	    --fault slow-link@27:6 &&
	r=$(score plk) && test "$(field "$r" detect)" = 1 &&
	test "$(field "$r" first)" = 1 && test "$(field "$r" false)" = 0 &&
	exact plk
'
test_expect_success 'a slow link is still a slow link, not a slow NIC' '
	sim lnk 8 8 4 2 8 --transport roce --fault slow-link@2:8 && exact lnk &&
	r=$(score lnk) && test "$(field "$r" found)" = 1 &&
	! grep -q "\"slow-nic\"" lnk.json
'
test_done
