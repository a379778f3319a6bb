#!/bin/sh
# flows-real.sh -- `flows` on the recorded training runs against their
# ground truth: groups, pipelines, pair types, iteration count and
# durations, the injected straggler and throttled links, named first and
# from the iteration they began, nothing else named; and the throttled
# runs cut to their throttled part, with no healthy part to compare.
# Skipped without the shared data.
. "$TS_SRCDIR/t/lib/test-lib.sh"

runs="$TS_SHARED/data/realjobs"
if [ ! -f "$runs/a_normal_dp2_pp2/job.pcap" ]; then
	test_skip 'no recorded runs under $TS_SHARED'
	test_done
fi

field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# le A B: A <= B for decimals
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

for run in a_normal_dp2_pp2 c_straggler_compute g_same_job/run1_normal \
    g_same_job/run2_failed m_slow_link_dp4 n_slow_link_dp2_pp3 \
    o_nan_divergence_dp4; do
	r=$(sh "$TS_SRCDIR/t/eval/flows-compare.sh" "$TS_BIN" "$runs/$run")
	say "$run: $r"
	# The truth's iteration runs from its first rank's start to its
	# last rank's end; o's ranks log each step ~30 ms after its last
	# collective (an optimizer step the wire does not see).
	mean=1.2
	case $run in o_*) mean=2.5 ;; esac
	test_expect_success "$run: one job, dp groups and pipelines exact" '
		test "$(field "$r" jobs)" = 1 && test "$(field "$r" dp_ok)" = 1 &&
		test "$(field "$r" pp_ok)" = 1
	'
	test_expect_success "$run: every pair typed right" '
		test "$(field "$r" pairs_ok)" = "$(field "$r" pairs_n)"
	'
	test_expect_success "$run: iteration count" '
		test "$(field "$r" iters_found)" = "$(field "$r" iters_truth)"
	'
	# The wire shows all-reduce ends; the truth's iteration ends also hold
	# the optimizer step, whose jitter no capture sees (see the report
	# in the eval script): mean within 1.2 %, median iteration within 3 %.
	test_expect_success "$run: iteration durations" '
		le "$(field "$r" mean_err_pct)" $mean &&
		le "$(field "$r" med_err_pct)" 3
	'
	test_expect_success "$run: straggler named iff injected" '
		test "$(field "$r" straggler_found)" = "$(field "$r" straggler_truth)"
	'
	test_expect_success "$run: no host, link or group named but the slowed one" '
		test "$(field "$r" slow_false)" = 0
	'
done
# A throttled link (tc tbf) lets a transfer through in pieces at its
# rate, each as fast as a healthy message: read as one transfer, the
# link is the slow one, from the iteration the throttle began in, and
# the slowdown's pieces change no group or pipeline.
for run in m_slow_link_dp4 n_slow_link_dp2_pp3; do
	r=$(sh "$TS_SRCDIR/t/eval/flows-compare.sh" "$TS_BIN" "$runs/$run")
	test_expect_success "$run: the throttled node's link named first, from its onset" '
		test "$(field "$r" slow_first)" = 1 &&
		test "$(field "$r" slow_kind)" = slow-link &&
		test "$(field "$r" slow_from)" = "$(field "$r" slow_at)"
	'
	# The capture from two seconds after the throttle on (the packet
	# rows of the same traffic): no healthy step to compare with.
	test_expect_success "$run: throttled from the capture's start" '
		t=$(sed -n "s/.*\"injected_ts\": \([0-9.]*\),*/\1/p" \
		    "$runs/$run/truth.json") &&
		gzip -dc "$runs/$run/flows/packets.csv.gz" |
		    awk -F, -v t="$t" "NR == 1 || \$1 >= t + 2" >cut.csv &&
		c=$(sh "$TS_SRCDIR/t/eval/flows-compare.sh" "$TS_BIN" \
		    "$runs/$run" cut.csv) && echo "$c" &&
		test "$(field "$c" dp_ok)" = 1 && test "$(field "$c" pp_ok)" = 1 &&
		test "$(field "$c" slow_first)" = 1 &&
		test "$(field "$c" slow_false)" = 0 &&
		trainscope flows cut.csv >out &&
		grep "a rate limiter lets them through" out
	'
done
test_expect_success 'n: the throttled iterations last what the truth says' '
	r=$(sh "$TS_SRCDIR/t/eval/flows-compare.sh" "$TS_BIN" \
	    "$runs/n_slow_link_dp2_pp3") &&
	le "$(field "$r" mean_err_pct)" 1.2 && le "$(field "$r" med_err_pct)" 1.5
'
r=$(sh "$TS_SRCDIR/t/eval/flows-compare.sh" "$TS_BIN" "$runs/c_straggler_compute")
# The logs' iterations and the wire's on one axis: n's iteration lines
# carry times on the capture's clock, and join by them; without their
# times, by the run of durations the lines give.
test_expect_success "n: the capture's iterations joined to the logs' by time" '
	mkdir nj && ln -s "$runs/n_slow_link_dp2_pp3/job.pcap" nj/job.pcap &&
	cp -r "$runs/n_slow_link_dp2_pp3/logs" nj/ &&
	trainscope diagnose --format json nj >nj.json &&
	test "$(jq -r .captures.join.by nj.json)" = time &&
	test "$(jq .captures.join.offset nj.json)" = 0 &&
	test "$(jq "[.captures.iteration_times[] |
	    select(.log == .capture and .log_ms != null)] | length" nj.json)" = 30 &&
	jq -e "[.captures.findings[] | select(.kind == \"slow-link\") |
	    .from_log] == [11]" nj.json &&
	d=$(jq .captures.join.disagreement_pct nj.json) &&
	le "${d#-}" 3 &&
	trainscope diagnose nj >out &&
	grep "^  iterations: capture iteration 1 is log iteration 1 (by the times" out &&
	grep "^  slow-link 10.77.0.15-10.77.0.16 from capture iteration 11 (log iteration 11)" out
'
test_expect_success "n: without times on the lines, joined by their durations" '
	mkdir nd && ln -s "$runs/n_slow_link_dp2_pp3/job.pcap" nd/job.pcap &&
	for f in "$runs"/n_slow_link_dp2_pp3/logs/*/*.log; do
		d=nd/logs/$(basename "$(dirname "$f")") &&
		mkdir -p "$d" && sed "s/^\[[0-9-]* [0-9:.]*\] //" "$f" \
		    >"$d/$(basename "$f")" || exit 1
	done &&
	! grep -q "^\[20" nd/logs/node01/rank-0.log &&
	trainscope diagnose --format json nd >nd.json &&
	test "$(jq -r .captures.join.by nd.json)" = durations &&
	test "$(jq .captures.join.offset nd.json)" = 0
'
test_expect_success 'the straggler is found from the iteration it began' '
	from=$(field "$r" straggler_from) &&
	test "$from" -ge 15 && test "$from" -le 17
'
test_expect_success 'the frozen run stalls at the iteration the fault hit' '
	trainscope flows --format tsv "$runs/g_same_job/run2_failed/job.pcap" \
	    >out &&
	awk -F"\t" "\$1 == \"finding\" && \$13 == \"stall\" { print \$17 }" \
	    out >stall && test "$(cat stall)" = 13 &&
	trainscope flows --format tsv "$runs/g_same_job/run1_normal/job.pcap" \
	    >out && ! grep "stall" out
'
# Two DP groups of two hosts on two shared cores: the groups' step-end
# bursts differ by up to 15 ms from step to step, which is noise.
test_expect_success 'the healthy runs have no slow group, link, NIC or straggler' '
	for run in a_normal_dp2_pp2 g_same_job/run1_normal; do
		trainscope flows --format tsv "$runs/$run/job.pcap" >out &&
		! grep -E "	(slow-group|slow-link|slow-nic|straggler)	" out ||
		exit 1
	done
'
test_expect_success 'a job directory finds its capture and skips flow CSVs' '
	trainscope flows --format tsv "$runs/a_normal_dp2_pp2" >out &&
	test "$(grep -c "^iteration" out)" = 40
'
test_expect_success 'node names come from NCCL init lines and hosts files' '
	mkdir -p jd/logs/n1 &&
	ln -s "$runs/a_normal_dp2_pp2/job.pcap" jd/job.pcap &&
	echo "alpha:9:9 [0] NCCL INFO Bootstrap : Using eth0:10.77.0.11<0>" \
	    >jd/logs/n1/rank-0.log &&
	echo "[default1]:beta:8:8 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.77.0.12<0>" \
	    >>jd/logs/n1/rank-0.log &&
	printf "10.77.0.13 gamma\n" >jd/hosts &&
	trainscope flows jd >out &&
	grep "dp group.*10.77.0.11 (alpha) 10.77.0.12 (beta)" out &&
	grep "pipeline.*10.77.0.11 (alpha) -> 10.77.0.13 (gamma)" out &&
	trainscope flows --format json jd >out.json &&
	grep "\"10.77.0.11\": \"alpha\"" out.json &&
	test "$(grep -c "\"10.77.0.14\": \"" out.json)" = 0
'
test_expect_success 'without names the analysis speaks addresses' '
	trainscope flows "$runs/a_normal_dp2_pp2/job.pcap" >out &&
	grep "dp group 1: 10.77.0.11 10.77.0.12$" out &&
	! grep "10\.77\.0\.1[1-4] (" out
'
test_done
