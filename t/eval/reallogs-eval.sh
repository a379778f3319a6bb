#!/bin/sh
# reallogs-eval.sh -- the diagnosis on real failure logs: where the cause
# line ranks.
#
#	reallogs-eval.sh [CASE-DIR...]
#
# A case is a directory with a log.txt and a meta.json (the format of
# $TS_SHARED/data/failure-logs/README.md); the cases given are measured
# as one set.  Without arguments five sets are measured, each on its own:
# the development set $TS_SHARED/data/failure-logs, whose shapes the
# diagnosis was developed on, the held-out set t/data/reallogs of this
# tree, which it was not tuned on, and the second, third and fourth
# held-out sets t/data/reallogs2, t/data/reallogs3 and t/data/reallogs4,
# each collected once the diagnosis it measures was done.
#
# For every case whose meta.json marks root-cause lines, its log.txt is
# indexed as a job of its own and diagnosed, and the first ranked event
# whose lines include a root-cause line gives the case its rank (an event
# is a template: it hits when any of its lines is one).  Beside it, the
# baseline a reader would use: the first lines that look like an error
# (error, fail, exception, fatal, abort, killed, ...).  A case that names
# its faulty node also says whether that node ranks first.  A case of
# failure class "healthy" must come out completed, with no hard fault on
# top.  Prints one row per case and, per set, the top-1 / top-3 rates of
# both, the node and the healthy counts.
#
#	TS_BIN     the program (./trainscope)
#	TS_SHARED  the shared data directory (../shared)
#	TS_SRCDIR  the source tree (.)
#	EVAL_TOP   how many events to look through (10)
set -e
: "${TS_BIN:=./trainscope}"
: "${TS_SHARED:=../shared}"
: "${TS_SRCDIR:=.}"
top=${EVAL_TOP:-10}
work=${TMPDIR:-/tmp}/ts-reallogs.$$
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state"

errre='error|fail|exception|fatal|abort|killed|sigkill|sigsegv|segmentation|out of memory|timed out|timeout|unhandled|terminate'
hard='^(xid|ecc|hardware|gpu|link|network|cuda|oom|nan|checkpoint|config)$'

# rank_of ID ROOTS: the rank of the first of the top events holding a root line
rank_of() {
	i=0
	for tid in $(jq -r ".events[:$top][] | .template_id" "$work/d.json"); do
		i=$((i + 1))
		got=$("$TS_BIN" lines --context 0 --template "$tid" "$1" 2>/dev/null |
		    awk -F: -v roots="$2" '
			BEGIN { n = split(roots, r, " "); for (k = 1; k <= n; k++) want[r[k]] = 1 }
			$2 in want { print "y"; exit }')
		if [ "$got" = y ]; then
			echo "$i"
			return
		fi
	done
	echo -
}

# baseline LOG ROOTS: where the first three error-looking lines hit
baseline() {
	grep -n -i -E "$errre" "$1" | head -3 | cut -d: -f1 |
	    awk -v roots="$2" '
		BEGIN { n = split(roots, r, " "); for (k = 1; k <= n; k++) want[r[k]] = 1 }
		($1 in want) && !hit { hit = NR }
		END { print hit ? hit : "-" }'
}

# eval_set NAME DIR...: one table and its totals
eval_set() {
	name=$1
	shift
	n=0 hit1=0 hit3=0 base1=0 base3=0 nn=0 nok=0 nh=0 hok=0
	printf '\n%s\n%-48s %5s %6s %5s  %s\n' "$name" case rank first3 node "top event"
	for d in "$@"; do
		d=${d%/}
		meta="$d/meta.json"
		[ -f "$meta" ] && [ -f "$d/log.txt" ] || continue
		roots=$(jq -r '(.root_cause_lines // []) | map(tostring) | join(" ")' "$meta")
		class=$(jq -r '.failure_class // ""' "$meta")
		[ -n "$roots" ] || [ "$class" = healthy ] || continue
		id=$(basename "$d")
		mkdir -p "$work/$id"
		cp "$d/log.txt" "$work/$id/log.txt"
		"$TS_BIN" index "$work/$id" >/dev/null 2>&1
		"$TS_BIN" diagnose --format json "$id" >"$work/d.json" 2>/dev/null || true
		first=$(jq -r '.events[0].template // "-"' "$work/d.json" | cut -c1-60)
		if [ "$class" = healthy ]; then
			nh=$((nh + 1))
			out=$(jq -r '.outcome' "$work/d.json")
			cat=$(jq -r '.events[0].category // "-"' "$work/d.json")
			if [ "$out" = completed ] && ! echo "$cat" | grep -Eq "$hard"; then
				hok=$((hok + 1))
			fi
			printf '%-48s %5s %6s %5s  %s\n' "$id" "$out" - - "$first"
			continue
		fi
		rank=$(rank_of "$id" "$roots")
		b=$(baseline "$d/log.txt" "$roots")
		node=-
		want=$(jq -r '.faulty_node // ""' "$meta")
		if [ -n "$want" ]; then
			nn=$((nn + 1))
			node=no
			if [ "$(jq -r '.nodes[0].node // ""' "$work/d.json")" = "$want" ]; then
				node=yes
				nok=$((nok + 1))
			fi
		fi
		n=$((n + 1))
		case $rank in 1) hit1=$((hit1 + 1)); hit3=$((hit3 + 1)) ;; 2|3) hit3=$((hit3 + 1)) ;; esac
		case $b in 1) base1=$((base1 + 1)); base3=$((base3 + 1)) ;; 2|3) base3=$((base3 + 1)) ;; esac
		printf '%-48s %5s %6s %5s  %s\n' "$id" "$rank" "$b" "$node" "$first"
	done
	if [ "$n" -eq 0 ]; then
		echo "reallogs-eval: $name: no cases with root-cause lines" >&2
		return 1
	fi
	awk -v s="$name" -v n="$n" -v a="$hit1" -v b="$hit3" -v c="$base1" \
	    -v d="$base3" -v nn="$nn" -v nok="$nok" -v nh="$nh" -v hok="$hok" 'BEGIN {
		printf "%s: %d cases   trainscope: top-1 %d (%.0f%%), top-3 %d (%.0f%%)\n", s, n, a, 100*a/n, b, 100*b/n
		printf "%s: %d cases   first error-looking line: top-1 %d (%.0f%%), top-3 %d (%.0f%%)\n", s, n, c, 100*c/n, d, 100*d/n
		if (nn) printf "%s: faulty node first in %d of %d cases that name one\n", s, nok, nn
		if (nh) printf "%s: healthy windows completed, no hard fault on top: %d of %d\n", s, hok, nh
	}'
}

if [ $# -gt 0 ]; then
	eval_set "given" "$@"
	exit
fi
eval_set "development set ($TS_SHARED/data/failure-logs)" "$TS_SHARED"/data/failure-logs/*/
eval_set "held-out set (t/data/reallogs)" "$TS_SRCDIR"/t/data/reallogs/*/
eval_set "second held-out set (t/data/reallogs2)" "$TS_SRCDIR"/t/data/reallogs2/*/
eval_set "third held-out set (t/data/reallogs3)" "$TS_SRCDIR"/t/data/reallogs3/*/
eval_set "fourth held-out set (t/data/reallogs4)" "$TS_SRCDIR"/t/data/reallogs4/*/
