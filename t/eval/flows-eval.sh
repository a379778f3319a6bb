#!/bin/sh
# flows-eval.sh -- how well `flows` reconstructs recorded and simulated
# training jobs from their captures alone.  Prints one table row per run:
# job recognition, pair typing, iteration count and duration error,
# straggler found.  Real runs come from $TS_SHARED/data/realjobs; simulated
# ones from `trainscope simulate` when this build has it.
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
echo
printf '%-40s %5s %9s %-40s\n' simulated jobs iters findings
for spec in "--healthy" "--fault straggler@3:10" "--fault slow-link@2:10"; do
	dir="$tmp/$(printf '%s' "$spec" | tr -c 'a-z0-9' _)"
	# shellcheck disable=SC2086
	"$ts" simulate --nodes 4 --gpus-per-node 1 --dp 2 --pp 2 --tp 1 \
	    --iters 30 --iter-ms 300 --seed 3 $spec "$dir" >/dev/null 2>&1 ||
	    { printf '%-40s simulate failed\n' "$spec"; continue; }
	"$ts" flows --format tsv "$dir" >"$tmp/out" 2>/dev/null
	printf '%-40s %5s %6s/30 %-40s\n' "$spec" \
	    "$(cut -f2 "$tmp/out" | sort -u | wc -l)" \
	    "$(grep -c '^iteration' "$tmp/out")" \
	    "$(awk -F'\t' '$1 == "finding" { printf "%s%s:%s@%s", s, $3, $4, $7; s = " " }' "$tmp/out")"
done
