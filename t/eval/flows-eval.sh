#!/bin/sh
# flows-eval.sh -- how well `flows` reconstructs recorded and simulated
# training jobs from their captures alone.  Prints one table row per run:
# job recognition, pair typing, iteration count and duration error, the
# slowdown named first (a straggler, a throttled link) and false findings.  Real runs come from $TS_SHARED/data/realjobs; simulated
# ones from `trainscope simulate` when this build has it: seeded random
# shapes (see shapes below), scored by flows-sim-score.awk against the
# job's truth.json, one row each and a summary table at the end.
#
#	TS_FLOWS_SEED (1)    the seed of the shapes
#	TS_FLOWS_N (32)      how many shapes
#	TS_FLOWS_SHAPES      "NODES:GPUS:DP:PP:TP:NET:FAULT ..." instead of
#	                     random ones (FAULT: healthy straggler slow-link
#	                     slow-nic)
ts=${TS_BIN:-./trainscope}
srcdir=${TS_SRCDIR:-.}
runs="${TS_SHARED:-$srcdir/../shared}/data/realjobs"
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# Real runs: slow is the host the truth slows (a straggler, or the node
# whose link is throttled) and at the iteration it begins; 1st is 1 when
# the first finding about a host, link or group names it (a link either
# end), kind and from are that finding's; false counts those naming
# anything else.
real='%-28s %4s %4s %4s %7s %9s %8s %8s %-11s %3s %3s %-10s %4s %5s\n'
# shellcheck disable=SC2059
printf "$real" run jobs dp pp pairs iters mean%err med%err slow at 1st \
    kind from false
if [ -d "$runs" ]; then
	for run in a_normal_dp2_pp2 c_straggler_compute \
	    g_same_job/run1_normal g_same_job/run2_failed m_slow_link_dp4 \
	    n_slow_link_dp2_pp3 o_nan_divergence_dp4; do
		[ -f "$runs/$run/job.pcap" ] || continue
		r=$(sh "$srcdir/t/eval/flows-compare.sh" "$ts" "$runs/$run")
		# shellcheck disable=SC2059
		printf "$real" "$run" "$(field "$r" jobs)" "$(field "$r" dp_ok)" \
		    "$(field "$r" pp_ok)" \
		    "$(field "$r" pairs_ok)/$(field "$r" pairs_n)" \
		    "$(field "$r" iters_found)/$(field "$r" iters_truth)" \
		    "$(field "$r" mean_err_pct)" "$(field "$r" med_err_pct)" \
		    "$(field "$r" slow_truth)" "$(field "$r" slow_at)" \
		    "$(field "$r" slow_first)" "$(field "$r" slow_kind)" \
		    "$(field "$r" slow_from)" "$(field "$r" slow_false)"
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

# Random shapes: nodes log-uniform over 4..1024 (powers of two and 1.5
# times them; at most two of 256 or more, since a 1024-node run takes
# 20-30 s), GPUs a node 1, 2, 4 or 8 (at most 2048 ranks: every rank
# writes a log), tp a divisor of it (the whole node half the time), pp a
# divisor of what is left (<= 64) that leaves dp <= 32 (a ring's frames
# grow with dp), dp the rest; RoCE or TCP; faults in turn healthy,
# straggler, slow link, slow NIC, on a random node from the middle
# iteration.
shapes() {
	awk -v seed="${TS_FLOWS_SEED:-1}" -v n="${TS_FLOWS_N:-32}" '
	function pick(a, k) { return a[int(rand() * k) + 1] }
	BEGIN {
		srand(seed)
		split("healthy straggler slow-link slow-nic", fk, " ")
		nn = split("4 6 8 12 16 24 32 48 64 96 128 192 256 384 512 " \
		    "768 1024", nl, " ")
		big = 0
		for (i = 0; i < n; i++) {
			do {
				nodes = pick(nl, nn) + 0
				if (nodes >= 256 && big >= 2)
					continue
				do {
					g = 2 ^ int(rand() * 4)
				} while (nodes * g > 2048)
				nd = 0
				for (d = 1; d <= g; d++)
					if (g % d == 0)
						div[++nd] = d
				tp = rand() < 0.5 ? g : pick(div, nd)
				rest = nodes * g / tp
				np = 0
				for (d = 1; d <= rest && d <= 64; d++)
					if (rest % d == 0 && rest / d <= 32)
						pdiv[++np] = d
			} while (np == 0 || (nodes >= 256 && big >= 2))
			big += nodes >= 256
			pp = pick(pdiv, np)
			dp = rest / pp
			net = rand() < 0.5 ? "roce" : "tcp"
			printf "%d:%d:%d:%d:%d:%s:%s\n", nodes, g, dp, pp, tp,
			    net, fk[i % 4 + 1]
		}
	}'
}

echo
echo "# simulated: host pairs typed right over expected and found pairs"
echo "# (mixed: pairs that carry DP and PP rank pairs, either type right);"
echo "# it: iterations found/in the truth; med%: median duration error;"
echo "# det: the wire shows the fault; found: a finding of its kind names"
echo "# it; 1st: the first straggler/slow-link/slow-nic finding does; on:"
echo "# its onset minus the truth's, in iterations; mag/x: its magnitude and"
echo "# the injected factor; false: such findings naming anything else, and"
echo "# slow-group findings of a group without the fault's host"
row='%5s %2s %4s %3s %3s %-4s %-9s %3s %3s %9s %3s %2s %2s %7s %6s %-23s %3s %3s %3s %3s %5s %5s %4s %3s\n'
# shellcheck disable=SC2059
printf "$row" nodes g dp pp tp net fault job rec pairs mix dp pp it med% \
    want det fnd 1st on mag x false sec
sim_row() { # NODES GPUS DP PP TP NET FAULT
	n=$1 g=$2 dp=$3 pp=$4 tp=$5 net=$6 fault=$7
	if [ "$n" -ge 512 ]; then it=8 ms=1000
	elif [ "$n" -ge 128 ]; then it=12 ms=800
	else it=16 ms=500; fi
	mb=$((pp > 8 ? pp : 8))
	node=$(awk -v n="$n" -v s="$n$g$dp$pp" 'BEGIN { srand(s); print int(rand() * n) + 1 }')
	case $fault in
	healthy) fopt=--healthy ;;
	*) fopt="--fault $fault@$node:$((it / 2))" ;;
	esac
	rm -rf "$tmp/job"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	if ! "$ts" simulate --nodes "$n" --gpus-per-node "$g" --dp "$dp" \
	    --pp "$pp" --tp "$tp" --iters "$it" --iter-ms "$ms" \
	    --micro-batches "$mb" --seed 3 --transport "$net" $fopt \
	    "$tmp/job" >/dev/null 2>"$tmp/err"; then
		echo "$n $g $dp $pp $tp $net $fault: simulate failed: $(head -n 1 "$tmp/err")"
		return
	fi
	"$ts" flows --no-cache --format json "$tmp/job" >"$tmp/out.json" 2>/dev/null ||
	    echo '{}' >"$tmp/out.json"
	t1=$(date +%s)
	r=$(awk -f "$srcdir/t/eval/flows-sim-score.awk" "$tmp/job/truth.json" \
	    "$tmp/out.json")
	mag=$(field "$r" mag)
	[ "$mag" = - ] || mag=$(printf '%.2f' "$mag")
	# shellcheck disable=SC2059
	printf "$row" "$n" "$g" "$dp" "$pp" "$tp" "$net" "$fault" \
	    "$(field "$r" jobs)" "$(field "$r" recog)" \
	    "$(field "$r" pairs_ok)/$(field "$r" pairs_n)" "$(field "$r" mixed)" \
	    "$(field "$r" dp_ok)" "$(field "$r" pp_ok)" \
	    "$(field "$r" iters)/$(field "$r" iters_truth)" \
	    "$(field "$r" med_err)" "$(field "$r" want)" "$(field "$r" detect)" \
	    "$(field "$r" found)" "$(field "$r" first)" "$(field "$r" onset)" \
	    "$mag" "$(field "$r" factor)" "$(field "$r" false)" "$((t1 - t0))"
	echo "$fault $r" >>"$tmp/scores"
}
: >"$tmp/scores"
if [ -n "$TS_FLOWS_SHAPES" ]; then
	list=$TS_FLOWS_SHAPES
else
	list=$(shapes)
fi
for shape in $list; do
	# shellcheck disable=SC2046
	sim_row $(echo "$shape" | tr : ' ')
done

# The whole: per measure, how many shapes got it right.
echo
awk '
function f(name,   i, a) {
	for (i = 2; i <= NF; i++)
		if (split($i, a, "=") == 2 && a[1] == name)
			return a[2]
	return ""
}
{
	n++
	rec += f("recog")
	po += f("pairs_ok"); pn += f("pairs_n")
	allp += f("pairs_ok") == f("pairs_n")
	dp += f("dp_ok"); pp += f("pp_ok")
	io += f("iters") >= f("iters_truth") - 1 && f("iters") <= f("iters_truth")
	if ($1 == "healthy") {
		nh++
		fh += f("false") > 0
	} else {
		nf++
		det += f("detect")
		if (f("detect")) {
			fnd += f("found")
			fst += f("first")
			on = f("onset")
			ons += on != "-" && on != "?" && on >= -3 && on <= 3
		}
		ff += f("false") > 0
	}
}
END {
	printf "summary over %d simulated shapes\n", n
	printf "  job recognised                 %3d/%d\n", rec, n
	printf "  every pair typed               %3d/%d (%d/%d pairs)\n", allp, n, po, pn
	printf "  DP groups exact                %3d/%d\n", dp, n
	printf "  pipelines exact                %3d/%d\n", pp, n
	printf "  iterations all found (-1)      %3d/%d\n", io, n
	printf "  faults the wire shows          %3d/%d\n", det, nf
	printf "    named                        %3d/%d\n", fnd, det
	printf "    named first                  %3d/%d\n", fst, det
	printf "    onset within 3 iterations    %3d/%d\n", ons, det
	printf "  healthy runs with a false finding  %d/%d\n", fh, nh
	printf "  faulty runs with a false finding   %d/%d\n", ff, nf
}' "$tmp/scores"
