#!/bin/sh
# reallogs-eval.sh -- the diagnosis on real failure logs: where the cause
# line ranks.
#
# For every case of $TS_SHARED/data/failure-logs (or the directories given
# as arguments) whose meta.json marks root-cause lines, indexes its
# log.txt as a job of its own, diagnoses it and finds the first ranked
# event whose lines include a root-cause line (an event is a template: it
# hits when any of its lines is one).  Beside it, the baseline a reader
# would use: the first line that looks like an error (error, fail,
# exception, fatal, abort, killed, ...).  Prints one row per case and the
# top-1 / top-3 rates of both.
#
#	TS_BIN     the program (./trainscope)
#	TS_SHARED  the shared data directory (../shared)
#	EVAL_TOP   how many events to look through (10)
set -e
: "${TS_BIN:=./trainscope}"
: "${TS_SHARED:=../shared}"
top=${EVAL_TOP:-10}
work=${TMPDIR:-/tmp}/ts-reallogs.$$
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state"

if [ $# -eq 0 ]; then
	set -- "$TS_SHARED"/data/failure-logs/*/
fi

errre='error|fail|exception|fatal|abort|killed|sigkill|sigsegv|segmentation|out of memory|timed out|timeout|unhandled|terminate'

n=0 hit1=0 hit3=0 base1=0 base3=0
printf '%-48s %5s %6s  %s\n' case rank first3 "top event"
for d in "$@"; do
	d=${d%/}
	meta="$d/meta.json"
	[ -f "$meta" ] && [ -f "$d/log.txt" ] || continue
	roots=$(jq -r '(.root_cause_lines // []) | map(tostring) | join(" ")' "$meta")
	[ -n "$roots" ] || continue
	id=$(basename "$d")
	job="$work/$id"
	mkdir -p "$job"
	cp "$d/log.txt" "$job/log.txt"
	"$TS_BIN" index "$job" >/dev/null 2>&1
	"$TS_BIN" diagnose --format json "$id" >"$work/d.json" 2>/dev/null || true
	rank=- first=
	i=0
	for tid in $(jq -r ".events[:$top][] | .template_id" "$work/d.json"); do
		i=$((i + 1))
		got=$("$TS_BIN" lines --context 0 --event "$tid" "$id" 2>/dev/null |
		    awk -F: -v roots="$roots" '
			BEGIN { n = split(roots, r, " "); for (k = 1; k <= n; k++) want[r[k]] = 1 }
			$2 in want { print "y"; exit }')
		if [ "$got" = y ]; then
			rank=$i
			break
		fi
	done
	first=$(jq -r '.events[0].template // "-"' "$work/d.json" | cut -c1-60)
	# The baseline: the first three error-looking lines, in file order.
	b=$(grep -n -i -E "$errre" "$d/log.txt" | head -3 | cut -d: -f1 |
	    awk -v roots="$roots" '
		BEGIN { n = split(roots, r, " "); for (k = 1; k <= n; k++) want[r[k]] = 1 }
		($1 in want) && !hit { hit = NR }
		END { print hit ? hit : "-" }')
	n=$((n + 1))
	case $rank in 1) hit1=$((hit1 + 1)); hit3=$((hit3 + 1)) ;; 2|3) hit3=$((hit3 + 1)) ;; esac
	case $b in 1) base1=$((base1 + 1)); base3=$((base3 + 1)) ;; 2|3) base3=$((base3 + 1)) ;; esac
	printf '%-48s %5s %6s  %s\n' "$id" "$rank" "$b" "$first"
done
[ "$n" -gt 0 ] || { echo "reallogs-eval: no cases with root-cause lines" >&2; exit 1; }
awk -v n="$n" -v a="$hit1" -v b="$hit3" -v c="$base1" -v d="$base3" 'BEGIN {
	printf "\n%d cases   trainscope: top-1 %d (%.0f%%), top-3 %d (%.0f%%)\n", n, a, 100*a/n, b, 100*b/n
	printf "%d cases   first error-looking line: top-1 %d (%.0f%%), top-3 %d (%.0f%%)\n", n, c, 100*c/n, d, 100*d/n
}'
