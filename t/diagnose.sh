#!/bin/sh
# diagnose.sh -- `diagnose` and `mark` on small jobs and on the real samples.
. "$TS_SRCDIR/t/lib/test-lib.sh"

# A two-node job: node02 hits an illegal memory access, node01 times out.
make_job() {
	mkdir -p "$1/node01" "$1/node02"
	for n in 01 02; do
		f="$1/node$n/rank-0.log"
		: >"$f"
		echo "[2024-05-01 12:00:00,000] INFO using world size: 2" >>"$f"
		echo "[2024-05-01 12:00:01,000] INFO > initializing torch distributed" >>"$f"
		echo "[2024-05-01 12:00:02,000] INFO training ..." >>"$f"
		for i in 1 2 3 4 5 6; do
			echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i | lm loss: 7.0E+00 |" >>"$f"
		done
	done
	echo "[2024-05-01 12:00:17,000] ERROR RuntimeError: CUDA error: an illegal memory access was encountered" >>"$1/node02/rank-0.log"
	echo "[2024-05-01 12:10:17,000] ERROR Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out." >>"$1/node01/rank-0.log"
}

# Scores and times change with tuning; the shape must not.
normalise() {
	sed -e 's/"score": [0-9.]*/"score": N/' -e 's/"ts": [0-9.]*/"ts": T/' \
	    -e 's/(spatial anomaly [0-9.]*)/(spatial anomaly N)/' \
	    -e 's/(event score [0-9.]*)/(event score N)/' \
	    -e 's|"root": ".*/small"|"root": "DIR/small"|'
}

test_expect_success 'diagnose ranks the faulty node and the root-cause event' '
	make_job small && trainscope index small >/dev/null &&
	trainscope diagnose small >out &&
	sed -n "/^suspect nodes/{n;p;}" out | grep "node02" &&
	sed -n "/^suspect events/{n;p;}" out | grep "illegal memory access" &&
	grep "before the first timeout" out
'
test_expect_success 'diagnose --format json matches the golden shape' '
	trainscope diagnose --format json small >out.json &&
	normalise <out.json >got.json &&
	test_cmp "$TS_SRCDIR/t/golden/diagnose-small.json" got.json
'
test_expect_success 'diagnose --format tsv: a header and one row per node and event' '
	trainscope diagnose --format tsv --top 2 small >out.tsv &&
	head -1 out.tsv | grep "^kind	position	score	name" &&
	test "$(grep -c "^node	" out.tsv)" = 2 &&
	test "$(grep -c "^event	" out.tsv)" = 2
'
test_expect_success 'a single combined log of ten lines works' '
	mkdir one &&
	head -10 small/node02/rank-0.log >one/train.log &&
	trainscope index one >/dev/null &&
	trainscope diagnose --format json one >one.json &&
	grep "\"job\": \"one\"" one.json && grep "\"path\": \"train.log\"" one.json
'
test_expect_success 'captures of a job that never trained say so, not 0 hosts of 0.0 ms' '
	trainscope simulate --nodes 4 --fault config-error cfgjob >/dev/null &&
	trainscope diagnose cfgjob >cfg.txt 2>/dev/null &&
	grep "^captures: no training traffic in them" cfg.txt &&
	! grep "0 hosts" cfg.txt
'
test_expect_success 'a paste with no iteration or stage line failed, with no invented iteration 0' '
	mkdir paste &&
	printf "%s\n" "[rank3]: Traceback (most recent call last):" \
	    "[rank3]:   File \"train.py\", line 9, in <module>" \
	    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" \
	    >paste/log.txt &&
	trainscope index paste >/dev/null 2>&1 &&
	trainscope diagnose paste >p.txt &&
	head -1 p.txt | grep "^job paste: failed$" &&
	trainscope view events paste | head -1 | grep "^paste  failed  1 node" &&
	trainscope -n -c "open paste" -c "report -" >r.txt &&
	grep "^outcome  *failed" r.txt && ! grep "iteration 0\|healthy -1" r.txt &&
	! grep "iteration 0" p.txt
'
test_expect_success 'a combined log is split by rank prefix, ranks placed by the hostfile' '
	mkdir comb &&
	printf "nodeA slots=2\nnodeB slots=2\n" >comb/hostfile &&
	for i in 1 2 3 4 5; do
		for r in 0 1 2 3; do
			echo "$r: [2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i | lm loss: 7.0E+00 |"
		done
	done >comb/train.log &&
	echo "3: [2024-05-01 12:00:16,000] ERROR RuntimeError: CUDA error: an illegal memory access was encountered" >>comb/train.log &&
	for r in 0 1 2; do
		echo "$r: [2024-05-01 12:10:16,000] ERROR Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out."
	done >>comb/train.log &&
	trainscope index comb >/dev/null &&
	trainscope diagnose --format tsv comb >out &&
	grep "^node	1	[0-9.]*	nodeB	" out &&
	grep "^event	1	.*illegal memory access.*	nodeB	train.log:21	" out
'
test_expect_success 'unknown job, bad format, bad verdict' '
	test_must_fail 1 trainscope diagnose nosuch 2>err &&
	grep "no job .nosuch." err &&
	test_must_fail 2 trainscope diagnose --format xml small 2>err &&
	grep "unknown format .xml." err &&
	test_must_fail 2 trainscope mark small maybe 2>err &&
	grep "want good, bad or none" err &&
	test_must_fail 1 trainscope mark nosuch good 2>err
'
test_expect_success 'a bad rule in the user fault file is reported, diagnose still runs' '
	mkdir -p "$HOME/.config/trainscope" &&
	printf "[oops]\npattern = (\ncategory = x\nexplain = y\n" \
	    >"$HOME/.config/trainscope/faults" &&
	trainscope diagnose small >out 2>err &&
	grep "faults:2: rule .oops.: bad pattern at offset 1" err &&
	grep "illegal memory access" out &&
	rm "$HOME/.config/trainscope/faults"
'

G="$TS_SHARED/data/realjobs/g_same_job"
if [ -d "$G/run2_failed/logs" ]; then
	test_expect_success 'real sample: index the healthy and the failed run' '
		trainscope index "$G/run1_normal" "$G/run2_failed" 2>out &&
		grep "indexed 2 jobs" out
	'
	test_expect_success 'real sample: a capture tool'"'"'s table is no log, a launcher'"'"'s log is' '
		trainscope diagnose --top 0 --format json run1_normal >r1.json &&
		! jq -r ".events[].first.path" r1.json | grep "^flows/" &&
		! jq -r ".events[].template" r1.json | grep -e "^TCP Conversations" -e "^Filter:" &&
		jq -r ".events[].first.path" r1.json | grep "^truth/launcher.log$"
	'
	test_expect_success 'real sample: text no process wrote is skipped with the reason, --log takes it' '
		trainscope index "$G/run2_failed" 2>err &&
		grep "skipping .*run2_failed/check.txt.: no log, text no process wrote" err &&
		grep "skipping .*run2_failed/truth.json.: no log, a JSON document" err &&
		! grep "truth/launcher.log" err &&
		trainscope diagnose --top 0 --format json run2_failed >all.json &&
		! jq -r ".events[].first.path" all.json | grep "check.txt" &&
		cp -R "$G/run2_failed" withcheck &&
		trainscope index --log withcheck/check.txt withcheck 2>err &&
		! grep "check.txt" err &&
		trainscope diagnose --top 0 --format json withcheck >wc.json &&
		jq -r ".events[].first.path" wc.json | grep "^check.txt$" &&
		test_expect_code 1 trainscope index --log "$G/run1_normal/check.txt" withcheck 2>err &&
		grep "is in none of the paths given" err
	'
	test_expect_success 'real sample: the faulty node of log_truth ranks first' '
		trainscope diagnose --baseline run1_normal --format json \
		    run2_failed >real.json &&
		want=$(sed -n "s/.*\"faulty_node\": *\"\([^\"]*\)\".*/\1/p" \
		    "$G/run2_failed/truth.json" | head -1) &&
		test -n "$want" &&
		got=$(grep -m1 "\"node\": " real.json | sed "s/.*\"node\": \"\([^\"]*\)\".*/\1/") &&
		echo "want $want got $got" && test "$got" = "$want"
	'
	test_expect_success 'real sample: the rank that stops silently is an event, above the timeouts it causes' '
		want=$(jq -r .log_truth.faulty_node "$G/run2_failed/truth.json") &&
		jq -r ".events[0] | [.category, .nodes[0], .template_id] | @tsv" real.json >top &&
		grep "^stop	$want	" top &&
		test "$(cut -f3 top)" -ge 4294901760 &&
		jq -r ".events[0].template" real.json | grep "stops silently after iteration 12" &&
		test "$(jq -r ".events[0].first.path" real.json)" = "logs/$want/rank-1.log" &&
		t=$(jq -r "[.events[].category] | index(\"timeout\")" real.json) &&
		test "$t" -gt 0 &&
		trainscope diagnose --baseline run1_normal run2_failed >real.txt &&
		sed -n "/^suspect events/{n;p;}" real.txt | grep "\[stop\].*stops silently"
	'
	test_expect_success 'real sample: failure iteration and stage of log_truth' '
		it=$(tr -d "\n " <"$G/run2_failed/truth.json" |
		    sed -n "s/.*\"log_truth\":{[^}]*\"failure_iteration\":\([0-9]*\).*/\1/p") &&
		test -n "$it" &&
		grep "\"failure_iteration\": $it," real.json &&
		grep "\"last_healthy_iteration\": $((it - 1))," real.json &&
		grep "\"stage\": \"training\"," real.json
	'
	test_expect_success 'real sample: root-cause lines of log_truth are in the top 3' '
		tr -d "\n" <"$G/run2_failed/truth.json" |
		    sed -n "s/.*\"root_cause\": *\[\([^]]*\)\].*/\1/p" |
		    tr "," "\n" | tr -d "\" " | grep . >want || true
		trainscope diagnose --baseline run1_normal --format tsv --top 3 \
		    run2_failed | awk -F"\t" "\$1 == \"event\" { print \$8 }" >top3 &&
		test "$(wc -l <top3)" = 3 &&
		while read -r pl; do grep -F -x "$pl" top3 || exit 1; done <want
	'
	test_expect_success 'real sample: a run'"'"'s first checkpoint save is no anomaly' '
		trainscope diagnose --top 0 --format json run2_failed >ck.json &&
		test "$(jq .anomalous_iterations ck.json)" = 1 &&
		! jq -r ".events[].reasons[]" ck.json | grep "new in anomalous iteration 11" &&
		jq -r ".events[:3][].template" ck.json >top3 &&
		! grep -i checkpoint top3
	'
	S="$TS_SHARED/data/realjobs/c_straggler_compute"
	test_expect_success 'real sample: the straggler shows as a slowdown from its iteration' '
		trainscope index "$S" >/dev/null &&
		trainscope diagnose --format json c_straggler_compute >slow.json &&
		it=$(tr -d "\n " <"$S/truth.json" |
		    sed -n "s/.*\"from_iteration\":\([0-9]*\).*/\1/p") &&
		test -n "$it" &&
		grep -A1 "\"slowdown\": {" slow.json | grep "\"iteration\": $it," &&
		grep "\"outcome\": \"degraded\"," slow.json &&
		trainscope diagnose c_straggler_compute >slow.txt &&
		head -1 slow.txt | grep "stage training, ran to the end but slowed down from iteration $it" &&
		! grep "failed in" slow.txt
	'
	test_expect_success 'real sample: diagnose says what the captures show, named or not' '
		grep "^captures: 4 hosts, 2 data-parallel groups, 2 pipelines" slow.txt &&
		grep "^  straggler 10.77.0.14 from capture iteration 16" slow.txt &&
		grep "a file named .hosts. of .ADDRESS NAME. lines" slow.txt &&
		trainscope diagnose --format json c_straggler_compute >c.json &&
		test "$(jq -r ".captures.findings[] | select(.kind == \"straggler\") | .subject" c.json)" = 10.77.0.14 &&
		cp -R "$S" named &&
		printf "10.77.0.13 node03\n10.77.0.14 node04\n" >named/hosts &&
		trainscope index named >/dev/null 2>&1 &&
		trainscope diagnose named >named.txt &&
		grep "^  straggler 10.77.0.14 (node04) from capture iteration 16" named.txt &&
		! grep "ADDRESS NAME" named.txt &&
		sed -n "/^suspect nodes/{n;p;}" named.txt | grep "node04" &&
		rm named/hosts &&
		trainscope diagnose named >unnamed.txt &&
		grep "^  straggler 10.77.0.14 from" unnamed.txt
	'
	if command -v sqlite3 >/dev/null 2>&1; then
		test_expect_success 'real sample: diagnose keeps the job'"'"'s flow set in the cache' '
			test "$(sqlite3 "$XDG_CACHE_HOME/trainscope/cache.db" \
			    "SELECT count(*) FROM flow_sets JOIN jobs ON id = job_id
			    WHERE name = '"'"'c_straggler_compute'"'"'")" = 1 &&
			trainscope flows --format tsv "$S" >flows.tsv &&
			grep "^finding.*straggler" flows.tsv
		'
	fi
	O="$TS_SHARED/data/realjobs/o_nan_divergence_dp4"
	test_expect_success 'real sample: a run that diverged and exited 0 diverged, in the iteration and on the lines of log_truth' '
		trainscope index "$O" >/dev/null 2>&1 &&
		trainscope diagnose --format json o_nan_divergence_dp4 >o.json &&
		test "$(jq -r .outcome o.json)" = diverged &&
		test "$(jq -r .failure_iteration o.json)" = "$(jq -r .log_truth.failure_iteration "$O/truth.json")" &&
		test "$(jq -r .stage o.json)" = "$(jq -r .log_truth.stage "$O/truth.json")" &&
		test "$(jq -r ".nodes | length" o.json)" = 0 &&
		jq -r ".events[0].lines[] | \"\(.path):\(.line)\"" o.json | sort >got &&
		jq -r ".log_truth.root_cause[] | \"\(.path):\(.line)\"" "$O/truth.json" | sort >want &&
		test_cmp want got &&
		lr=$(jq -r .log_truth.lr_change_iteration "$O/truth.json") &&
		ev=$(jq -r ".log_truth.earlier_evidence[0] | \"\(.path):\(.line)\"" "$O/truth.json") &&
		jq -r ".events[0].reasons[]" o.json |
		    grep "before it, the learning rate jumps .* in iteration $lr (.*$ev)" &&
		trainscope diagnose o_nan_divergence_dp4 >o.txt &&
		head -1 o.txt | grep "diverged in iteration" &&
		trainscope jobs --format tsv | grep "^o_nan_divergence_dp4	diverged	" &&
		trainscope -n -c "open o_nan_divergence_dp4" -c "report -" >rep &&
		grep "^outcome  *diverged in stage training" rep &&
		grep "^diverged at  *iteration $(jq -r .log_truth.failure_iteration "$O/truth.json") " rep
	'
	test_expect_success 'real sample: the healthy run is no failure and joins the pool' '
		trainscope diagnose --format json run1_normal >healthy.json &&
		grep "\"failure_iteration\": null," healthy.json &&
		grep "\"slowdown\": null," healthy.json &&
		trainscope diagnose --format json run2_failed >pool2.json &&
		grep "\"healthy_runs\": 1," pool2.json
	'
	test_expect_success 'real sample: only runs of the same job are compared, and named; mark --for adds one' '
		trainscope simulate --nodes 4 --gpus-per-node 2 --iters 12 \
		    --no-flows --healthy other >/dev/null &&
		trainscope index other >/dev/null 2>&1 &&
		trainscope diagnose --format json other >other.json &&
		test "$(jq -r .outcome other.json)" = completed &&
		trainscope diagnose --format json run2_failed >p.json &&
		test "$(jq -r .healthy_runs p.json)" = 1 &&
		test "$(jq -r ".healthy_run_names | join(\",\")" p.json)" = run1_normal &&
		trainscope diagnose run2_failed >p.txt &&
		sed -n 2p p.txt | grep "^1 healthy run compared (run1_normal)," &&
		trainscope mark --for run2_failed other good >out &&
		grep "marked good for run2_failed" out &&
		trainscope diagnose --format json run2_failed >p2.json &&
		test "$(jq -r ".healthy_run_names | sort | join(\",\")" p2.json)" = other,run1_normal &&
		test "$(jq -r .healthy_runs p2.json)" = 2 &&
		trainscope mark other none >/dev/null &&
		trainscope diagnose --format json run2_failed >p3.json &&
		test "$(jq -r .healthy_runs p3.json)" = 1
	'
	test_expect_success 'real sample: a job marked good joins the healthy pool' '
		trainscope mark run1_normal bad >out &&
		trainscope diagnose --format json run2_failed >nopool.json &&
		grep "\"healthy_runs\": 0," nopool.json &&
		trainscope mark run1_normal good >out &&
		grep "marked good" out &&
		trainscope diagnose --format json run2_failed >pool.json &&
		grep "\"healthy_runs\": 1," pool.json &&
		grep "seen in 0 of 1 healthy runs" pool.json &&
		trainscope mark run1_normal none >/dev/null
	'
else
	test_skip 'real samples' 'no $TS_SHARED/data/realjobs'
fi
test_expect_success 'progress bars are no events; the hang'"'"'s node is the rank that stopped first' '
	trainscope simulate --format hf --layout combined --fault hang \
	    --seed 3 hfhang >/dev/null &&
	trainscope --cache hf.db index hfhang >/dev/null 2>&1 &&
	trainscope --cache hf.db diagnose --top 0 --format json hfhang >hf.json &&
	want=$(jq -r .log_truth.faulty_node hfhang/truth.json) &&
	test "$(jq -r ".nodes[0].node" hf.json)" = "$want" &&
	test "$(jq -r ".events[0].nodes[0]" hf.json)" = "$want" &&
	test "$(jq -r ".events[0].category" hf.json)" = stop &&
	! jq -r ".events[].template" hf.json | grep -e "it/s\]" -e "s/it\]" -e "%|" &&
	jq -r ".events[] | select(.category == \"hang\") | .template" hf.json |
	    grep "training progress stops after iteration"
'
test_expect_success 'with no healthy run, host noise and retried reads rank below the errors and their consequences' '
	trainscope simulate --nodes 32 --gpus-per-node 4 --iters 40 --no-flows \
	    --fault ecc --seed 4 noise32 >/dev/null &&
	trainscope --cache n32.db index noise32 >/dev/null 2>&1 &&
	trainscope --cache n32.db diagnose --top 0 --format json noise32 >n.json &&
	test "$(jq -r .healthy_runs n.json)" = 0 &&
	jq -r ".events[] | .category // \"-\"" n.json >cats &&
	last=$(grep -n -x -e timeout -e collective cats | tail -1 | cut -d: -f1) &&
	quiet=$(grep -n -x -e benign -e retry cats | head -1 | cut -d: -f1) &&
	test -n "$quiet" && test "$quiet" -gt "$last" &&
	jq -r ".events[] | select(.category == \"benign\") | .template" n.json >ben &&
	grep "^EDAC" ben && grep "^Selected source" ben &&
	grep "^perf: interrupt took too long" ben
'
test_expect_success 'a straggler seen in the job captures ranks its node first' '
	trainscope simulate --nodes 8 --gpus-per-node 4 --iters 40 --seed 2 \
	    --fault straggler sg >/dev/null &&
	trainscope --cache sg.db index sg >/dev/null &&
	trainscope --cache sg.db diagnose --top 1 sg >out &&
	sed -n "/^suspect nodes/{n;p;}" out | grep node-007 &&
	grep "straggler.*10.42.0.7 in the network captures" out &&
	trainscope --cache sg.db diagnose --no-flows sg >out2 &&
	! grep "network captures" out2
'
test_expect_success 'a job that slowed down but ran to the end did not fail' '
	head -1 out | grep "^job sg: .*, ran to the end but" &&
	! grep "failed in iteration" out &&
	trainscope --cache sg.db diagnose --format json sg >sg.json &&
	grep "\"outcome\": \"degraded\"," sg.json &&
	grep "\"failure_iteration\": [0-9]*," sg.json
'
test_expect_success 'a job that crashed failed' '
	trainscope diagnose --format json small >small.json &&
	grep "\"outcome\": \"failed\"," small.json &&
	trainscope diagnose small | head -1 | grep "failed in iteration 7"
'
test_expect_success 'the cache keeps the outcome in diagnose'"'"'s words' '
	trainscope --cache sg.db jobs --format tsv >jobs &&
	grep "^sg	degraded	" jobs &&
	trainscope jobs --format tsv >jobs &&
	grep "^small	failed	" jobs &&
	trainscope simulate --healthy --no-flows --nodes 2 --gpus-per-node 2 \
	    --iters 20 ok >/dev/null &&
	trainscope --cache ok.db index ok >/dev/null &&
	trainscope --cache ok.db diagnose ok >out &&
	head -1 out | grep "^job ok: stage shutdown, ran to the end$" &&
	trainscope --cache ok.db jobs --format tsv | grep "^ok	completed	" &&
	trainscope --cache ok.db diagnose --format json ok | grep "\"stage\": \"shutdown\","
'
test_expect_success 'a failure of no known stage has no failure iteration' '
	mkdir -p win && cat >win/paste.log <<-\EOF &&
	gpu-a01:900:950 [0] NCCL INFO Channel 00 : 1[3b000] -> 0[1b000] via P2P/IPC
	gpu-a02:700:750 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[3b000] via P2P/IPC
	gpu-a02:700:752 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.5<51234> with status=12 opcode=0 len=0 vendor err 129 (Recv)
	EOF
	trainscope diagnose --format json ./win >w.json 2>/dev/null &&
	grep "\"failure_iteration\": null," w.json &&
	trainscope diagnose ./win 2>/dev/null | head -1 | grep "^job win: failed$"
'
# A combined log: ranks 1-3 time out in one collective, rank 0 never speaks.
timeouts() {
	mkdir -p "$1"
	for r in $2; do
		echo "[E ProcessGroupNCCL.cpp:737] [Rank $r] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 60012$r milliseconds before timing out."
	done >"$1/train.log"
}
test_expect_success 'the rank absent from its peers'"'"' timeouts is the suspect' '
	timeouts absent "2 3 1" && trainscope index absent >/dev/null &&
	trainscope diagnose absent >out &&
	sed -n "/^suspect nodes/{n;p;}" out | grep "rank-0" &&
	grep "rank 0 wrote no line while ranks of 3 other nodes report timeouts" out
'
test_expect_success 'a node with nothing against it is no suspect' '
	timeouts all "2 3 1 0" && trainscope index all >/dev/null &&
	trainscope diagnose all >out &&
	sed -n "/^suspect nodes/{n;p;}" out | grep "^  no suspect node$" &&
	! sed -n "/^suspect nodes/,/^suspect events/p" out | grep " 0\.00 " &&
	trainscope diagnose --format json all >all.json &&
	test "$(jq ".nodes | length" all.json)" = 0 &&
	trainscope diagnose --format tsv all >all.tsv &&
	! grep "^node" all.tsv
'
test_expect_success 'a slow NIC seen in the job captures ranks its node first' '
	trainscope simulate --transport tcp --fault slow-nic@3:20 --iters 40 \
	    nic >/dev/null &&
	trainscope --cache nic.db index nic >/dev/null &&
	trainscope --cache nic.db diagnose nic >out &&
	sed -n "/^suspect nodes/{n;p;}" out | grep node-003 &&
	grep "slow NIC.*10.42.0.3 in the network captures" out
'
test_expect_success 'ranks that print no iteration lines have not stopped early' '
	trainscope simulate --healthy --no-flows --format hf --nodes 2 \
	    --gpus-per-node 2 --iters 20 hf >/dev/null &&
	trainscope --cache hf.db index hf >/dev/null &&
	trainscope --cache hf.db diagnose hf >out &&
	head -1 out | grep "ran to the end$" &&
	! grep -e "stops at iteration" -e "log ends" out
'
# iteration, start (seconds of the day, UTC) of the timeline's table
starts() {
	sed -n "s/^ *\([0-9][0-9]*\)  \([0-9][0-9]\):\([0-9][0-9]\):\([0-9][0-9]\) .*/\1 \2 \3 \4/p" |
	    awk "{ print \$1, (\$2 * 60 + \$3) * 60 + \$4 }"
}
# (the truth's end of iteration k is when its line was logged)
test_expect_success 'iterations start when the line of the one before was logged' '
	trainscope simulate --no-flows --fault slow-link@4:20 --iters 40 \
	    sl >/dev/null &&
	trainscope --cache sl.db index sl >/dev/null &&
	trainscope --cache sl.db view timeline sl --height all >tl &&
	starts <tl >got && test "$(wc -l <got)" -ge 40 &&
	jq -r ".iterations[] | \"\(.iteration + 1) \(.end_ts | floor % 86400)\"" \
	    sl/truth.json >want &&
	awk "NR == FNR { at[\$1] = \$2; next } (\$1 in at) { n++; d = at[\$1] - \$2
	    if (d < -1 || d > 1) { print; bad = 1 } } END { exit bad || n < 39 }" \
	    got want
'
test_expect_success 'the kernel'"'"'s cable error and link down rank above the completion errors after them' '
	trainscope simulate --nodes 16 --no-flows --fault ib-link-down@5:20 \
	    --iters 30 ib >/dev/null &&
	trainscope --cache ib.db index ib >/dev/null &&
	trainscope --cache ib.db diagnose --format json ib >ib.json &&
	jq -r ".events[0:2][] | .first.path" ib.json >top2 &&
	printf "host/node-005.log\nhost/node-005.log\n" >want && test_cmp want top2 &&
	jq -r ".events[1].template" ib.json | grep -x "mlx5_core <\*> Link down" &&
	jq -r ".events[2].reasons[]" ib.json | grep "a network port of the job went down"
'
# the event texts node reasons quote that are not a template whole: each
# must be a template cut at a word, marked "..."
bad_quotes() {
	jq -r '[.events[].template] as $t | .nodes[].reasons[] |
	    (capture("^[0-9]+ x \u0027(?<q>.*)\u0027 here,") //
	    capture("^has \u0027(?<q>.*)\u0027 \\(event")) | .q as $q |
	    select(any($t[]; . == $q) | not) |
	    select(($q | endswith("...") | not) or
	    ([$t[] | select(startswith($q[:-3] + " "))] | length) == 0)' "$1"
}
test_expect_success 'node reasons name what sets a node apart, cut at a word' '
	trainscope simulate --healthy --no-flows --nodes 4 --iters 20 h4 >/dev/null &&
	trainscope --cache h4.db index h4 >/dev/null &&
	trainscope --cache h4.db diagnose --format json h4 >h4.json &&
	jq -r ".nodes[].reasons[]" h4.json >reasons &&
	! grep "^0 x .* here, 0 on a typical node" reasons &&
	grep "\.\.\.. here" reasons &&
	bad_quotes h4.json >bad && ! test -s bad
'
test_expect_success 'a launcher'"'"'s failure summary is tagged with the stage it was printed in' '
	trainscope simulate --nodes 4 --gpus-per-node 2 --iters 20 --no-flows \
	    --fault gpu-xid79@2:10 xid >/dev/null &&
	trainscope --cache xid.db index xid >/dev/null &&
	trainscope --cache xid.db diagnose --top 0 --format json xid >xid.json &&
	jq -r ".events[] | select(.first.path | endswith(\"torchrun.log\")) |
	    select(.template | test(\"^exitcode|^traceback|^Traceback\")) |
	    .stage" xid.json | sort -u >stages &&
	echo training >want && test_cmp want stages
'
test_expect_success 'a long run is compared with short healthy runs per node-hour' '
	mkdir -p pool &&
	for i in 1 2 3; do
		trainscope simulate --healthy --no-flows --nodes 4 --gpus-per-node 2 \
		    --iters 30 --seed $i pool/h$i >/dev/null || exit 1
	done &&
	trainscope simulate --no-flows --nodes 4 --gpus-per-node 2 --iters 900 \
	    --fault cuda-oom@2:880 pool/long >/dev/null &&
	trainscope --cache pool.db index pool/h1 pool/h2 pool/h3 pool/long >/dev/null &&
	for i in 1 2 3; do
		trainscope --cache pool.db diagnose h$i >/dev/null || exit 1
	done &&
	trainscope --cache pool.db diagnose --top 0 --format json long >long.json &&
	test "$(jq .healthy_runs long.json)" = 3 &&
	jq -r ".events[0].template" long.json | grep "CUDA out of memory" &&
	! jq -r ".events[].reasons[]" long.json | grep "its rate in healthy runs" &&
	jq -r ".events[] | select(.template | startswith(\"iteration\")) |
	    .reasons[]" long.json | grep "^seen in 3 of 3 healthy runs$"
'
test_expect_success 'healthy runs of another framework are compared only when named, and do not judge this one'"'"'s own lines' '
	trainscope simulate --no-flows --nodes 4 --gpus-per-node 2 --iters 30 \
	    --format hf --fault cuda-oom@2:20 pool/hf >/dev/null &&
	trainscope --cache pool.db index pool/hf >/dev/null 2>&1 &&
	trainscope --cache pool.db diagnose --format json hf >alone.json &&
	test "$(jq .healthy_runs alone.json)" = 0 &&
	trainscope --cache pool.db diagnose --top 0 --format json \
	    --baseline h1 --baseline h2 --baseline h3 hf >hf.json &&
	test "$(jq -r ".healthy_run_names | join(\" \")" hf.json)" = "h1 h2 h3" &&
	jq -r ".events[] | select(.template | startswith(\"{\u0027loss\u0027\")) |
	    .reasons[0]" hf.json >r &&
	grep "^no healthy run logs like this job (3 in the pool)$" r &&
	jq -r ".events[] | select(.template == \"NCCL version <*>\") |
	    .reasons[0]" hf.json | grep "^seen in 3 of 3 healthy runs$" &&
	! jq -r ".events[].reasons[]" hf.json | grep "seen in 0 of 3 healthy runs$"
'
# DeepSpeed and HF iteration lines say no duration: their times do,
# and a checkpoint pause now and then must not hide a change of pace.
for lay in per-rank combined; do
	test_expect_success "a slowdown in a log whose iteration lines give no durations ($lay)" '
		trainscope simulate --no-flows --nodes 8 --gpus-per-node 4 \
		    --iters 40 --format deepspeed --layout $lay --seed 2 \
		    --fault slow-link@7:19 ds-$lay >/dev/null &&
		trainscope index ds-$lay >/dev/null 2>&1 &&
		trainscope diagnose --format json ds-$lay >ds.json &&
		test "$(jq -r .outcome ds.json)" = degraded &&
		test "$(jq .slowdown.iteration ds.json)" = 19 &&
		test "$(jq .failure_iteration ds.json)" = 19
	'
done
test_expect_success 'a traceback out of argument checking failed in init, before the first iteration' '
	trainscope simulate --no-flows --nodes 4 --gpus-per-node 2 --iters 20 \
	    --format hf --fault config-error cfg >/dev/null &&
	trainscope index cfg >/dev/null 2>&1 &&
	trainscope diagnose --format json cfg >cfg.json &&
	test "$(jq -r .stage cfg.json)" = init &&
	test "$(jq .failure_iteration cfg.json)" = 0 &&
	trainscope diagnose cfg | head -1 | grep "^job cfg: stage init, failed before its first iteration$"
'
# A PyTorch C++ exception: where it was raised and its backtrace speak
# for the error line, and no source line follows its frames.
test_expect_success 'a C++ backtrace is no row of its own but its error'"'"'s trace; the line after it is its own' '
	mkdir -p cxx &&
	cat >cxx/log.txt <<-\EOF &&
	[rank3]:[E1009 15:38:23.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 3] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered
	Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):
	frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f1 in /opt/torch/lib/libc10.so)
	frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f2 in /opt/torch/lib/libc10.so)
	frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7f3 in /opt/torch/lib/libc10_cuda.so)
	node-7:1234:1290 [3] NCCL INFO comm 0x5581 rank 3 nranks 8 cudaDev 3 busId 4c000 - Abort COMPLETE
	EOF
	trainscope index cxx >/dev/null 2>&1 &&
	trainscope diagnose --top 0 --format json cxx >cxx.json &&
	jq -r ".events[0].template" cxx.json | grep "watchdog thread terminated" &&
	! jq -r ".events[].template" cxx.json | grep -e "^frame " -e "^Exception raised from" &&
	jq -r ".events[0].trace[]" cxx.json >trace &&
	grep "^Exception raised from" trace &&
	test "$(grep -c "^frame " trace)" -ge 1 &&
	jq -r ".events[].template" cxx.json | grep "Abort COMPLETE" &&
	! jq -r ".events[] | select(.template | contains(\"Abort COMPLETE\")) | .trace[]" cxx.json |
	    grep .
'
# One slow stage of sixteen: the job runs under 20 % slower, for good.
test_expect_success 'a lasting slowdown under 20 % is said' '
	trainscope simulate --no-flows --nodes 16 --gpus-per-node 1 --dp 1 \
	    --pp 16 --tp 1 --micro-batches 16 --iters 40 --seed 2 \
	    --fault straggler@5:20 st16 >/dev/null &&
	trainscope index st16 >/dev/null 2>&1 &&
	trainscope diagnose --format json st16 >st16.json &&
	test "$(jq -r .outcome st16.json)" = degraded &&
	test "$(jq .slowdown.iteration st16.json)" = 20 &&
	jq -e ".slowdown.after_ms < 1.2 * .slowdown.before_ms" st16.json
'
test_expect_success 'a long run on one thread and on two: the same diagnosis and panes' '
	# 5 000 lines a rank log: streams folded in parts, files made ahead,
	# the iteration lines of the reference file parsed in two batches
	for layout in per-rank per-node; do
		trainscope simulate --nodes 2 --gpus-per-node 4 --iters 9000 \
		    --no-flows --layout $layout long-$layout >/dev/null 2>&1 &&
		for t in 1 2; do
			trainscope --cache long-$layout-$t.db --threads $t \
			    diagnose --top 0 --format json long-$layout \
			    >long-$layout-$t.json 2>/dev/null &&
			trainscope --cache long-$layout-$t.db -n \
			    -c "open long-$layout" -c "view heatmap --format json" \
			    -c "view timeline --format json" >long-$layout-$t.panes ||
			exit 1
		done &&
		jq -e ".nodes | length > 0" long-$layout-1.json >/dev/null &&
		test_cmp long-$layout-1.json long-$layout-2.json &&
		test_cmp long-$layout-1.panes long-$layout-2.panes || exit 1
	done
'
test_expect_success 'many small files on one, two and three threads: the same diagnosis' '
	# 144 logs of a few hundred lines: the files are made ready
	# many ahead, by whichever thread is idle (three: one of its own)
	trainscope simulate --nodes 24 --gpus-per-node 4 --iters 60 \
	    --no-flows small24 >/dev/null 2>&1 &&
	for t in 1 2 3; do
		trainscope --cache small24-$t.db --threads $t \
		    diagnose --top 0 --format json small24 \
		    >small24-$t.json 2>/dev/null || exit 1
	done &&
	jq -e ".nodes | length > 0" small24-1.json >/dev/null &&
	test_cmp small24-1.json small24-2.json &&
	test_cmp small24-1.json small24-3.json
'
test_expect_success 'gzip logs are diagnosed as their plain text is, on one thread or two' '
	mkdir -p gzp gzg &&
	trainscope simulate --nodes 4 --gpus-per-node 2 --iters 60 --no-flows \
	    --fault straggler --seed 5 gzp/sj >/dev/null &&
	cp -r gzp/sj gzg/sj && find gzg/sj -name "*.log" | xargs gzip -1 &&
	test -n "$(find gzg/sj -name "*.log.gz")" &&
	for t in 1 2; do
		trainscope --cache gzp$t.db --threads $t diagnose --top 0 \
		    --format json gzp/sj 2>/dev/null | grep -v "\"root\":" >p$t.json &&
		trainscope --cache gzg$t.db --threads $t diagnose --top 0 \
		    --format json gzg/sj 2>/dev/null | grep -v "\"root\":" |
		    sed "s/\.log\.gz\"/.log\"/g" >g$t.json || return 1
	done &&
	jq -e ".events | length > 0" p1.json >/dev/null &&
	test_cmp p1.json g1.json && test_cmp p1.json p2.json &&
	test_cmp p1.json g2.json
'
test_done
