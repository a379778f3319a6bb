#!/bin/sh
# healthy-eval.sh -- healthy runs must be called healthy.
#
# Simulates healthy jobs of many shapes (node counts, GPUs per node,
# dp x pp x tp layouts that fit, the three log formats and layouts, rank
# prefixes, several seeds), each indexed alone into a cache of its own (no
# healthy runs to compare with), and checks that the diagnosis says
# "completed" and that its top event is no hard fault (a fault-library
# category of weight 0.85 or more: GPU, memory, network, CUDA, NaN,
# checkpoint, configuration).  Prints one row per job that fails and the
# totals.
#
#	TS_BIN      the program (./trainscope)
#	EVAL_SEEDS  seeds (default 1 2 3)
#	EVAL_NODES  node counts (default 4 8 16 64 512)
set -e
: "${TS_BIN:=./trainscope}"
seeds=${EVAL_SEEDS:-"1 2 3"}
nodes=${EVAL_NODES:-"4 8 16 64 512"}
work=${TMPDIR:-/tmp}/ts-healthy.$$
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"

hard='^(xid|ecc|network|cuda|oom|nan|checkpoint|config|hardware)$'
pick() { shift $(($1 % ($# - 1) + 1)); echo "$1"; }

n=0 ok=0 hardtop=0 i=0
for nn in $nodes; do
	for seed in $seeds; do
		i=$((i + 1))
		g=$(pick $i 8 4 2 1 8)
		fmt=$(pick $i megatron deepspeed hf)
		lay=$(pick $((i / 3)) per-rank per-node combined)
		pre=$(pick $((i / 2)) srun default rank)
		ranks=$((nn * g))
		# a layout that fits: tp a divisor of G, pp a divisor of the rest
		tp=$(pick $((seed + i)) 1 2 "$g" "$g")
		[ $((g % tp)) -eq 0 ] || tp=1
		rest=$((ranks / tp))
		pp=$(pick $((seed + 2 * i)) 1 2 4 8 2)
		while [ $((rest % pp)) -ne 0 ]; do pp=$((pp / 2)); done
		dp=$((rest / pp))
		iters=40
		[ "$nn" -ge 256 ] && iters=12
		id="n$nn-g$g-dp$dp-pp$pp-tp$tp-$fmt-$lay-$pre-s$seed"
		d="$work/$id"
		export XDG_CACHE_HOME="$work/cache-$i"
		"$TS_BIN" simulate --healthy --no-flows --nodes "$nn" \
		    --gpus-per-node "$g" --dp "$dp" --pp "$pp" --tp "$tp" \
		    --iters "$iters" --format "$fmt" --layout "$lay" \
		    --prefix "$pre" --seed "$seed" "$d" >/dev/null
		"$TS_BIN" index "$d" >/dev/null 2>&1
		"$TS_BIN" diagnose --format json "$id" >"$work/d.json"
		out=$(jq -r '.outcome' "$work/d.json")
		cat=$(jq -r '.events[0].category // "-"' "$work/d.json")
		anom=$(jq -r '.anomalous_iterations' "$work/d.json")
		n=$((n + 1))
		bad=
		[ "$out" = completed ] && ok=$((ok + 1)) || bad="outcome $out"
		if echo "$cat" | grep -Eq "$hard"; then
			hardtop=$((hardtop + 1))
			bad="$bad top event $cat"
		fi
		[ "$anom" -le "$iters" ] || bad="$bad $anom anomalous iterations"
		[ -z "$bad" ] || printf '%-60s %s\n' "$id" "$bad"
		rm -rf "$d" "$work/cache-$i"
	done
done
printf '\n%d healthy jobs: %d completed (%.0f%%), %d with a hard fault ranked first\n' \
    "$n" "$ok" "$(awk -v a="$ok" -v b="$n" 'BEGIN { print 100 * a / b }')" "$hardtop"
