#!/bin/sh
# flows-eval.sh -- how well `flows` reconstructs recorded and simulated
# training jobs from their captures alone.  Prints one table row per run:
# job recognition, pair typing, iteration count and duration error,
# straggler found.  Real runs come from $TS_SHARED/data/realjobs; simulated
# ones from `trainscope simulate` when this build has it: 4 to 1024 nodes,
# RoCE and TCP, healthy, straggler and slow link, scored by
# flows-sim-score.awk against the job's truth.json.
ts=${TS_BIN:-./trainscope}
srcdir=${TS_SRCDIR:-.}
runs="${TS_SHARED:-$srcdir/../shared}/data/realjobs"
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

printf '%-28s %4s %4s %4s %7s %9s %8s %8s %-12s %-12s %4s\n' run jobs dp pp \
    pairs iters mean%err med%err straggler found from
if [ -d "$runs" ]; then
	for run in a_normal_dp2_pp2 c_straggler_compute \
	    g_same_job/run1_normal g_same_job/run2_failed; do
		[ -f "$runs/$run/job.pcap" ] || continue
		r=$(sh "$srcdir/t/eval/flows-compare.sh" "$ts" "$runs/$run")
		printf '%-28s %4s %4s %4s %7s %9s %8s %8s %-12s %-12s %4s\n' \
		    "$run" "$(field "$r" jobs)" "$(field "$r" dp_ok)" \
		    "$(field "$r" pp_ok)" \
		    "$(field "$r" pairs_ok)/$(field "$r" pairs_n)" \
		    "$(field "$r" iters_found)/$(field "$r" iters_truth)" \
		    "$(field "$r" mean_err_pct)" "$(field "$r" med_err_pct)" \
		    "$(field "$r" straggler_truth)" \
		    "$(field "$r" straggler_found)" \
		    "$(field "$r" straggler_from)"
	done
else
	echo "# no recorded runs under $runs"
fi

if ! "$ts" help simulate >/dev/null 2>&1; then
	echo "# simulate is not in this build: no simulated jobs"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Shapes NODES:DP:PP:ITERS:ITER_MS:MICRO_BATCHES, one GPU (rank) a node,
# so every node is one (DP index, stage) and the logs stay small.  The DP ring stays short
# and the pipelines not too deep: per node and iteration a capture holds
# about 80 dp + 20 micro-batches frames (2 (dp - 1) ring steps of 4
# buckets, both ways per micro-batch; 2 channels, 4 samples and an ack a
# message), 2.5 GB at 1024 nodes (a run there takes 20-30 s: about 15 s
# to simulate, 4-5 s and 0.2 GB of memory for flows on RoCE and on
# TCP; check the free space of TMPDIR).  TS_FLOWS_SHAPES picks others.
shapes=${TS_FLOWS_SHAPES:-"4:2:2:30:300:8 16:4:4:24:400:8 64:8:8:16:600:8
    256:16:16:12:800:16 1024:16:64:8:1000:64"}
echo
echo "# simulated: pairs typed right over expected and found pairs; found:"
echo "# a finding of the fault's kind names the injected node or node pair;"
echo "# false: straggler or slow-link findings naming anything else"
row='%5s %4s %4s %-4s %-9s %4s %3s %11s %3s %3s %-23s %5s %5s %4s\n'
# shellcheck disable=SC2059
printf "$row" nodes dp pp net fault jobs rec pairs dp pp want found false sec
sim_row() { # NODES DP PP ITERS MS MICRO TRANSPORT FAULT-OPTION...
	n=$1 dp=$2 pp=$3 it=$4 ms=$5 mb=$6 tr=$7
	shift 7
	case $1 in
	--healthy) fault=healthy ;;
	*) fault=${2%%@*} ;;
	esac
	rm -rf "$tmp/job"
	t0=$(date +%s)
	if ! "$ts" simulate --nodes "$n" --gpus-per-node 1 --dp "$dp" \
	    --pp "$pp" --tp 1 --iters "$it" --iter-ms "$ms" \
	    --micro-batches "$mb" --seed 3 --transport "$tr" "$@" \
	    "$tmp/job" >/dev/null 2>"$tmp/err"; then
		echo "$n $dp $pp $tr $fault: simulate failed: $(head -n 1 "$tmp/err")"
		return
	fi
	"$ts" flows --no-cache --format json "$tmp/job" >"$tmp/out.json" 2>/dev/null ||
	    echo '{}' >"$tmp/out.json"
	t1=$(date +%s)
	r=$(awk -f "$srcdir/t/eval/flows-sim-score.awk" "$tmp/job/truth.json" \
	    "$tmp/out.json")
	# shellcheck disable=SC2059
	printf "$row" "$n" "$dp" "$pp" "$tr" "$fault" "$(field "$r" jobs)" \
	    "$(field "$r" recog)" "$(field "$r" pairs_ok)/$(field "$r" pairs_n)" \
	    "$(field "$r" dp_ok)" "$(field "$r" pp_ok)" "$(field "$r" want)" \
	    "$(field "$r" found)" "$(field "$r" false)" "$((t1 - t0))"
}
for shape in $shapes; do
	# shellcheck disable=SC2046
	set -- $(echo "$shape" | tr : ' ')
	half=$(($4 / 2))
	for tr in roce tcp; do
		sim_row "$@" "$tr" --healthy
		sim_row "$@" "$tr" --fault "straggler@3:$half"
		sim_row "$@" "$tr" --fault "slow-link@2:$half"
	done
done
rm -rf "$tmp/job"
