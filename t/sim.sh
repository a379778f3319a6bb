#!/bin/sh
# sim.sh -- `simulate`: every fault kind leaves its ground truth, output is
# reproducible, the capture shows the job's traffic pattern.
. "$TS_SRCDIR/t/lib/test-lib.sh"

SMALL="--nodes 4 --gpus-per-node 2 --tp 2 --pp 2 --iters 24 --iter-ms 300 --micro-batches 4"

# The "where" (path:line) and "text" of every root cause in truth.json.
causes() {
	grep -E '^ +"(where|text)": ' "$1/truth.json" |
	sed -e 's/^ *"[a-z]*": "//' -e 's/",\{0,1\}$//' | paste - -
}

# Every root cause line exists and says what truth.json claims.
check_causes() {
	causes "$1" >causes.txt &&
	while IFS='	' read -r where text; do
		path=${where%:*} line=${where##*:}
		case $path in
		*.gz) got=$(gzip -dc "$1/$path" | sed -n "${line}p") ;;
		*) got=$(sed -n "${line}p" "$1/$path") ;;
		esac
		case $got in
		*"$text"*) ;;
		*) echo "$where: '$got' does not say '$text'"; return 1 ;;
		esac
	done <causes.txt
}

faulty() { grep '"faulty_node"' "$1/truth.json" | sed 's/.*: //; s/[",]//g'; }
ncauses() { causes "$1" | wc -l; }

# fault_case KIND PATTERN: the job's root causes include PATTERN.
fault_case() {
	test_expect_success "fault $1 leaves its ground truth" "
		trainscope simulate $SMALL --fault $1@2:14 j-$1 >out &&
		grep 'fault $1' out &&
		test \"\$(faulty j-$1)\" = node-002 &&
		check_causes j-$1 &&
		test \$(ncauses j-$1) -ge 1 &&
		causes j-$1 | grep -q '$2' &&
		causes j-$1 | cut -f1 | grep -q node-002
	"
}

fault_case ib-link-down 'Link down'
fault_case gpu-xid79 'Xid (PCI:0000:[0-9a-f]*:00): 79,'
fault_case ecc 'uncorrectable ECC error'
fault_case cuda-oom 'CUDA out of memory'
fault_case nan-loss 'Unexpected result nan'
fault_case ckpt-save-io 'Input/output error'
fault_case ckpt-load-missing 'No such file or directory'
fault_case dataloader-stall 'Out of memory: Killed process'

test_expect_success 'ckpt-save-io strikes during a save' '
	grep -q "\"stage\": \"checkpoint-save\"" j-ckpt-save-io/truth.json &&
	grep -q "\"failure_iteration\": 20" j-ckpt-save-io/truth.json
'
test_expect_success 'the peers of a crashed rank time out ten minutes later' '
	grep -l "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=[0-9]*, OpType=[A-Z]*, NumelIn=[0-9]*, NumelOut=[0-9]*, Timeout(ms)=600000) ran for 60[0-9][0-9][0-9][0-9] milliseconds" \
		j-gpu-xid79/logs/node-00[134]/rank-*.log >timedout &&
	test_line_count = 6 timedout &&
	! grep -l Watchdog j-gpu-xid79/logs/node-002/rank-*.log &&
	grep "ChildFailedError" j-gpu-xid79/logs/node-002/torchrun.log &&
	grep "exitcode  : 1 " j-gpu-xid79/logs/node-002/torchrun.log &&
	grep "Signal 6 (SIGABRT)" j-gpu-xid79/logs/node-003/torchrun.log
'
test_expect_success 'config-error: every rank fails the same way at launch' '
	trainscope simulate $SMALL --fault config-error j-cfg >out &&
	test "$(faulty j-cfg)" = null &&
	check_causes j-cfg && test $(ncauses j-cfg) -eq 8 &&
	test $(grep -l AssertionError j-cfg/logs/*/rank-*.log | wc -l) -eq 8 &&
	! grep -h " iteration " j-cfg/logs/*/rank-*.log
'
test_expect_success 'hang: one rank stops, every other one times out' '
	trainscope simulate $SMALL --fault hang@3:10 j-hang >out &&
	test "$(faulty j-hang)" = node-003 && test $(ncauses j-hang) -eq 0 &&
	rank=$(grep -A3 "\"kind\": \"hang\"" j-hang/truth.json | sed -n "s/.*\"rank\": \([0-9]*\).*/\1/p") &&
	! grep -q Watchdog j-hang/logs/node-003/rank-$rank.log &&
	test $(grep -l Watchdog j-hang/logs/*/rank-*.log | wc -l) -eq 7 &&
	tail -1 j-hang/logs/node-003/rank-$rank.log | grep "iteration        9/"
'
test_expect_success 'node-lost: the node logs just end' '
	trainscope simulate $SMALL --fault node-lost@4:10 j-lost >out &&
	test "$(faulty j-lost)" = node-004 && test $(ncauses j-lost) -eq 0 &&
	for f in j-lost/logs/node-004/rank-*.log; do
		tail -1 $f | grep "iteration        9/" || return 1
	done &&
	! grep -q ChildFailedError j-lost/logs/node-004/torchrun.log &&
	grep -q Watchdog j-lost/logs/node-001/rank-0.log
'

# Mean Megatron iteration time of rank 0 over iterations [from, to].
mean_iter_ms() {
	sed -n "s/.* iteration *\([0-9]*\)\/.*per iteration (ms): \([0-9.]*\).*/\1 \2/p" "$1" |
	awk -v a=$2 -v b=$3 '$1 >= a && $1 <= b { s += $2; n++ } END { printf "%d\n", s / n }'
}

test_expect_success 'straggler: the job slows down and does not crash' '
	trainscope simulate $SMALL --fault straggler@2:12 j-strag >out &&
	test "$(faulty j-strag)" = node-002 && test $(ncauses j-strag) -eq 0 &&
	grep -q "\"crashed\": false" j-strag/truth.json &&
	grep -q "iteration       24/" j-strag/logs/node-001/rank-0.log &&
	before=$(mean_iter_ms j-strag/logs/node-001/rank-0.log 2 11) &&
	after=$(mean_iter_ms j-strag/logs/node-001/rank-0.log 12 24) &&
	test $((after * 10)) -gt $((before * 12))
'
test_expect_success 'slow-link: slower all-reduce, no crash, a peer node named' '
	trainscope simulate $SMALL --fault slow-link@1:12 j-slow >out &&
	grep -q "\"crashed\": false" j-slow/truth.json &&
	grep -q "\"peer_node\": \"node-002\"" j-slow/truth.json &&
	before=$(mean_iter_ms j-slow/logs/node-003/rank-4.log 2 11) &&
	after=$(mean_iter_ms j-slow/logs/node-003/rank-4.log 12 24) &&
	test $((after * 10)) -gt $((before * 12))
'
test_expect_success 'slow-nic: slower all-reduce, no crash, its factor in the truth' '
	trainscope simulate $SMALL --fault slow-nic@3:12 j-nic >out &&
	grep -q "\"crashed\": false" j-nic/truth.json &&
	grep -A8 "\"kind\": \"slow-nic\"" j-nic/truth.json |
	    grep -q "\"factor\": [3-6]\." &&
	before=$(mean_iter_ms j-nic/logs/node-001/rank-0.log 2 11) &&
	after=$(mean_iter_ms j-nic/logs/node-001/rank-0.log 12 24) &&
	test $((after * 10)) -gt $((before * 12))
'
test_expect_success 'healthy: no fault, all iterations, no root cause' '
	trainscope simulate $SMALL --healthy j-ok >out && grep healthy out &&
	grep -q "\"healthy\": true" j-ok/truth.json && test $(ncauses j-ok) -eq 0 &&
	! grep -l -e Traceback -e Watchdog j-ok/logs/*/*.log &&
	grep -q "iteration       24/" j-ok/logs/node-004/rank-7.log &&
	test $(grep -c "\"iteration\": " j-ok/truth.json) -eq 24
'
test_expect_success 'same seed, same bytes; another seed, other bytes' '
	trainscope simulate $SMALL --seed 5 a >/dev/null &&
	trainscope simulate $SMALL --seed 5 b >/dev/null &&
	trainscope simulate $SMALL --seed 6 c >/dev/null &&
	diff -r a b && ! diff -r a c >/dev/null
'
test_expect_success 'gzip, per-node and combined layouts are reproducible too' '
	for l in per-node combined; do
		trainscope simulate $SMALL --gzip --layout $l --prefix default --fault ecc@3:8 g1-$l >/dev/null &&
		trainscope simulate $SMALL --gzip --layout $l --prefix default --fault ecc@3:8 g2-$l >/dev/null &&
		diff -r g1-$l g2-$l && check_causes g1-$l || return 1
	done &&
	gzip -dc g1-combined/logs/job.log.gz | grep -q "^\[default5\]:\[" &&
	gzip -dc g1-per-node/logs/node-003.log.gz | grep -q "^\[default4\]:"
'
test_expect_success 'deepspeed and hf formats' '
	trainscope simulate $SMALL --format deepspeed --fault cuda-oom@2:9 ds >/dev/null &&
	check_causes ds &&
	grep -q "\[Rank 3\] step=8, skipped=0" ds/logs/node-002/rank-3.log &&
	trainscope simulate $SMALL --format hf --layout combined --prefix rank --fault nan-loss@1:15 hf >/dev/null &&
	check_causes hf && grep -q "^\[rank0\]:{.loss.: " hf/logs/job.log
'
test_expect_success 'two faults: a straggler, then a crash elsewhere' '
	trainscope simulate $SMALL --fault straggler@2:5 --fault gpu-xid79@3:15 two >/dev/null &&
	test "$(faulty two)" = node-003 && check_causes two &&
	grep -A3 "\"faulty_nodes\"" two/truth.json | grep -q node-002 &&
	grep -A3 "\"faulty_nodes\"" two/truth.json | grep -q node-003
'
test_expect_success 'without --fault or --healthy the seed picks a fault' '
	trainscope simulate $SMALL --seed 3 picked >out &&
	grep -q "\"healthy\": false" picked/truth.json &&
	test $(grep -c "\"kind\": " picked/truth.json) -eq 2 && check_causes picked
'

# Seconds since midnight of the time stamp of "iteration N/" in a log.
iter_clock() {
	sed -n "s/^\[[0-9-]* \([0-9:.]*\)\] .* iteration *$2\/.*/\1/p" "$1" |
	awk -F: "{ printf \"%.3f\\n\", \$1 * 3600 + \$2 * 60 + \$3 }"
}

test_expect_success '--clock-skew-ms moves each node clock by what truth says' '
	trainscope simulate $SMALL --healthy --clock-skew-ms 3000 skew >/dev/null &&
	trainscope simulate $SMALL --healthy noskew >/dev/null &&
	skew=$(sed -n "/\"clock_skew_ms\"/,/]/p" skew/truth.json | sed -n 4p | tr -d " ,") &&
	a=$(iter_clock skew/logs/node-003/rank-4.log 5) &&
	b=$(iter_clock noskew/logs/node-003/rank-4.log 5) &&
	awk -v a=$a -v b=$b -v s=$skew "BEGIN { d = (a - b) * 1000 - s; exit !(d < 2 && d > -2 && (s > 50 || s < -50)) }"
'
# The shape of a Megatron line: prefix, names, numbers and paths blanked.
shape() {
	sed -e 's/^\[[^]]*\] \[INFO\] \[rank [0-9]*\] //' \
	    -e 's,/[^ ]*ckpt[^ ]*,PATH,g' -e 's/node-\{0,1\}[0-9][0-9]*/NODE/g' \
	    -e 's/[0-9][0-9.E+-]*/N/g' "$@" |
	grep -E '^( iteration|saving|  successfully|> rank|using world|\[after|\[before|exiting|done with|training \.|building GPT|  [a-z_]+ \.+ N$)' |
	sort -u
}
real=$TS_SHARED/data/realjobs/a_normal_dp2_pp2/logs/node01/rank-0.log
if [ -f "$real" ]; then
	test_expect_success 'Megatron lines have the shape of a recorded job' '
		shape "$real" >real.shape &&
		test $(wc -l <real.shape) -gt 10 &&
		trainscope simulate --nodes 4 --gpus-per-node 1 --tp 1 --pp 2 --iters 30 --healthy rj >/dev/null &&
		shape rj/logs/node-001/rank-0.log >sim.shape &&
		comm -23 real.shape sim.shape >missing &&
		sed -n "/\.\.\.\./!p" missing >missing.lines &&
		test_line_count = 0 missing.lines &&
		test $(wc -l <missing) -lt 12
	'
else
	test_skip 'Megatron lines have the shape of a recorded job' 'no shared data'
fi
test_expect_success 'inconsistent options are usage errors' '
	test_must_fail 2 trainscope simulate --nodes 2 --gpus-per-node 4 --dp 3 x 2>err &&
	grep "dp 3 x pp" err &&
	test_must_fail 2 trainscope simulate --tp 3 x 2>err && grep "must divide" err &&
	test_must_fail 2 trainscope simulate --fault bogus x 2>err &&
	grep "unknown fault kind .bogus." err &&
	test_must_fail 2 trainscope simulate --healthy --fault ecc x &&
	test_must_fail 2 trainscope simulate --nodes 2 --fault ecc@5 x 2>err &&
	grep "node 5 of 2" err &&
	test_must_fail 2 trainscope simulate --iters 10 --fault ecc:50 x &&
	test_must_fail 2 trainscope simulate --format xml x
'
test_expect_success 'a non-empty output directory is refused' '
	mkdir full && echo x >full/f &&
	test_must_fail 1 trainscope simulate $SMALL full 2>err && grep "not empty" err
'
test_expect_success '--size grows the logs to about that size' '
	trainscope simulate --nodes 2 --gpus-per-node 2 --no-flows --healthy --size 2M sz >/dev/null &&
	bytes=$(cat sz/logs/*/*.log sz/host/*.log | wc -c) &&
	test $bytes -gt 1800000 && test $bytes -lt 2600000 && ! test -e sz/flows.pcap &&
	trainscope simulate --nodes 2 --gpus-per-node 2 --size 1M --fault ecc@2 szf >/dev/null &&
	test "$(faulty szf)" = node-002 && check_causes szf && test $(ncauses szf) -eq 3
'

if command -v tcpdump >/dev/null 2>&1; then
	test_expect_success 'tcpdump reads the capture without complaint' '
		tcpdump -nn -r j-ok/flows.pcap >dump 2>err &&
		! grep -v "^reading from file" err &&
		grep -q "10.42.0.1.[0-9]* > 10.42.0.2.4791: UDP" dump &&
		grep -q "> 10.42.0.1.29500: Flags \[S\]" dump &&
		tcpdump -nn -r j-slow/flows.pcap >/dev/null 2>&1 &&
		trainscope simulate $SMALL --healthy --transport tcp tcpjob >/dev/null &&
		tcpdump -nn -r tcpjob/flows.pcap 2>/dev/null | grep -q "10.42.0.1.[0-9]* > 10.42.0.2.50000: Flags \[P.\]"
	'
	# DP (node-001 <-> node-002 here) comes in one burst per iteration,
	# spaced like the iterations; PP (node-001 -> node-003) repeats the
	# same messages every iteration.
	test_expect_success 'the capture shows DP bursts at the iteration period' '
		tcpdump -tt -nn -r j-ok/flows.pcap "src host 10.42.0.1 and dst host 10.42.0.2 and udp dst port 4791" 2>/dev/null |
		awk "{ print \$1 }" >dp.ts &&
		awk "NR > 1 && \$1 - p > 0.1 { print \$1 - s; s = \$1 } NR == 1 { s = \$1 } { p = \$1 }" dp.ts |
		sort -n >gaps &&
		test_line_count = 23 gaps &&
		med=$(sed -n 12p gaps) &&
		grep "\"start_ts\"" j-ok/truth.json | sed "s/.*: //; s/,//" >starts &&
		want=$(awk "NR > 1 { print \$1 - p } { p = \$1 }" starts | sort -n | sed -n 12p) &&
		awk -v a=$med -v b=$want "BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.05 * b) }"
	'
	test_expect_success 'the capture shows PP transfers every micro-batch' '
		tcpdump -tt -nn -v -r j-ok/flows.pcap "src host 10.42.0.1 and dst host 10.42.0.3 and udp dst port 4791" 2>/dev/null >pp &&
		grep "tos 0x6" pp | wc -l >n &&
		test $(cat n) -gt 0 &&
		test $(($(cat n) % 24)) -eq 0 &&
		tcpdump -tt -nn -r j-ok/flows.pcap "src host 10.42.0.3 and dst host 10.42.0.1 and udp dst port 4791" 2>/dev/null | grep -q UDP
	'
	test_expect_success '--capture-iters captures only the last iterations' '
		trainscope simulate $SMALL --healthy --capture-iters 5 last5 >/dev/null &&
		first=$(tcpdump -tt -nn -c 1 -r last5/flows.pcap "udp port 4791" 2>/dev/null | cut -d" " -f1) &&
		start20=$(grep "\"start_ts\"" last5/truth.json | sed -n 20p | sed "s/.*: //; s/,//") &&
		start19=$(grep "\"start_ts\"" last5/truth.json | sed -n 19p | sed "s/.*: //; s/,//") &&
		awk -v f=$first -v a=$start20 -v b=$start19 "BEGIN { exit !(f >= a && f > b) }" &&
		grep -q "\"from_iteration\": 20" last5/truth.json
	'
	test_expect_success 'a slow link is marked congested (ECN CE) and answered by CNPs' '
		tcpdump -nn -v -r j-slow/flows.pcap "src host 10.42.0.1 and dst host 10.42.0.2" 2>/dev/null | grep -c "CE," >ce &&
		tcpdump -nn -v -r j-ok/flows.pcap "src host 10.42.0.1 and dst host 10.42.0.2" 2>/dev/null | grep -c "CE," >ce0 ;
		test $(cat ce) -gt $((10 * $(cat ce0) + 10))
	'
else
	test_skip 'tcpdump reads the capture' 'tcpdump not installed'
	test_skip 'DP bursts at the iteration period' 'tcpdump not installed'
	test_skip 'PP transfers every micro-batch' 'tcpdump not installed'
	test_skip 'slow link ECN CE and CNPs' 'tcpdump not installed'
fi

if trainscope help index >/dev/null 2>&1; then
	test_expect_success 'demo simulates once under the cache directory' '
		trainscope demo >out 2>err;
		test -f xdg-cache/trainscope/demo/gpt-run4/truth.json &&
		test -f xdg-cache/trainscope/demo/gpt-run3/truth.json
	'
else
	test_expect_success 'demo without index says so' '
		test_must_fail 1 trainscope demo 2>err &&
		grep "this build has no .index. command" err &&
		test -f xdg-cache/trainscope/demo/gpt-run4/truth.json
	'
	test_skip 'demo runs index and diagnose' 'no index command in this build'
fi

test_done
