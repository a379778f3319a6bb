#!/bin/sh
# flows-compare.sh TRAINSCOPE RUNDIR [INPUT] -- compare `flows` on
# RUNDIR/job.pcap (or INPUT, a cut of it) with RUNDIR/truth.json (read
# here, never by the analysis) and print one line of NAME=VALUE fields:
#   jobs dp_ok pp_ok pairs_ok pairs_n iters_truth iters_found mean_err_pct
#   med_err_pct straggler_truth straggler_found straggler_from
#   slow_truth slow_at slow_first slow_kind slow_from slow_false
# slow_*: a run that slows down (a straggler or a throttled link):
# slow_truth is its host, slow_at the first iteration it slows; of the
# findings that name a host, link or group (straggler, slow-link,
# slow-nic, slow-group), slow_first is 1 when the first names that host
# (a link either end), slow_kind and slow_from its kind and first
# iteration; slow_false counts such findings that name anything else
# (in a run without a slowdown, all of them).
# Needs only awk and sort: truth.json is pretty-printed, one value a line.
ts=$1 dir=$2 input=${3:-$2/job.pcap}
tmp=${TMPDIR:-/tmp}/flows-compare.$$
trap 'rm -f "$tmp".*' EXIT
"$ts" flows --no-cache --format tsv "$input" >"$tmp.out" 2>/dev/null || exit 1

# Truth: dp/pp ip lists, iterations, the straggler's ip and first iteration.
awk '
function ips(kind,   s) { s = ""; while ((getline line) > 0) {
	if (line ~ /\]/) break
	gsub(/[ ",]/, "", line); s = s " " line }
	print kind s }
/"dp_groups":/ { sect = "dp" }
/"pp_pipelines":/ { sect = "pp" }
/"pp_stages":|"iterations":/ { sect = "" }
/"ips": \[/ && sect != "" { ips(sect) }
/"iteration": [0-9]+/ { it = $2 + 0; getline c
	if (c ~ /false/) it = 0 }
/"start_ts":/ && it { gsub(/,/, "", $2); st = $2 }
/"end_ts":/ && it { gsub(/,/, "", $2); printf "iter %d %s %s\n", it, st, $2; it = 0 }
/"type": "compute_straggler"/ { strag = 1 }
strag && /"rank":/ { gsub(/,/, "", $2); srank = $2 + 0 }
strag && /"from_iteration":/ { gsub(/,/, "", $2); sfrom = $2 + 0; strag = 0 }
/"type": "slow_link"/ { link = 1 }
link && /"after_iteration":/ { gsub(/,/, "", $2); lat = $2 + 1 }
link && /"node_ip":/ { gsub(/[",]/, "", $2); lip = $2; link = 0 }
!strag && /"rank": [0-9]+,/ { r = $2 + 0; getline n; getline ip
	if (ip ~ /"ip":/) { sub(/"ip":/, "", ip); gsub(/[ ",]/, "", ip); rankip[r] = ip } }
END { if (sfrom) print "straggler", rankip[srank], sfrom
	if (sfrom) print "slow", rankip[srank], sfrom
	if (lip != "") print "slow", lip, lat }
' "$dir/truth.json" >"$tmp.truth"

norm() { # sort the ips of dp lines, keep pp order; one line each, sorted
	# (a pipeline of one stage, pure data parallel, has no hop: none)
	while read -r kind rest; do
		case $kind in
		dp) printf 'dp %s\n' "$(printf '%s\n' $rest | sort | tr '\n' ' ')" ;;
		pp) [ "$(echo $rest | wc -w)" -gt 1 ] &&
		    printf 'pp %s\n' "$(printf '%s ' $rest)" ;;
		esac
	done | sed 's/ *$//' | sort
}
grep -E '^(dp|pp) ' "$tmp.truth" | norm >"$tmp.t1"
awk -F'\t' '$1 == "dp" || $1 == "pp" { print $1, $3 }' "$tmp.out" | norm >"$tmp.o1"
dp_ok=0; cmp -s "$tmp.t1" "$tmp.o1" && dp_ok=1
pp_ok=1
grep '^pp ' "$tmp.t1" >"$tmp.t2"; grep '^pp ' "$tmp.o1" >"$tmp.o2"
cmp -s "$tmp.t2" "$tmp.o2" || pp_ok=0

# Pairs: every truth dp/pp edge typed so, every other pair "other".
awk -v truth="$tmp.t1" '
BEGIN { while ((getline l < truth) > 0) { n = split(l, f, " ")
	for (i = 2; i <= n; i++) for (j = i + 1; j <= n; j++) {
		if (f[1] == "pp" && j != i + 1) continue
		k = f[i] < f[j] ? f[i] " " f[j] : f[j] " " f[i]; want[k] = f[1] } } }
$1 == "pair" { k = $4 < $5 ? $4 " " $5 : $5 " " $4
	w = (k in want) ? want[k] : "other"; total++; good += (w == $6) }
END { printf "pairs_ok=%d pairs_n=%d ", good, total }
' FS='\t' "$tmp.out" >"$tmp.pairs"

# Iterations: match by index; relative error of the mean and the median
# relative error per iteration.
awk -v truth="$tmp.truth" '
BEGIN { while ((getline l < truth) > 0) { split(l, f, " ")
	if (f[1] == "iter") { td[f[2]] = f[4] - f[3]; nt++ } } }
$1 == "iteration" { od[$8] = $11; no++ }
END { n = 0; for (i in od) if (i in td) { n++; st += td[i]; so += od[i]
	e[n] = (od[i] - td[i]) / td[i]; if (e[n] < 0) e[n] = -e[n] }
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (e[j] < e[i]) { t = e[i]; e[i] = e[j]; e[j] = t }
	med = n ? (n % 2 ? e[(n + 1) / 2] : (e[n / 2] + e[n / 2 + 1]) / 2) : 1
	me = n ? (so - st) / st : 1; if (me < 0) me = -me
	printf "iters_truth=%d iters_found=%d mean_err_pct=%.3f med_err_pct=%.3f ",
	    nt, no, 100 * me, 100 * med }
' FS='\t' "$tmp.out" >"$tmp.iters"

st=$(awk '$1 == "straggler" { print $2; exit }' "$tmp.truth")
sf=$(awk -F'\t' '$1 == "finding" && $13 == "straggler" { printf "%s%s", s, $14; s = "," }' "$tmp.out")
sfrom=$(awk -F'\t' '$1 == "finding" && $13 == "straggler" { print $17; exit }' "$tmp.out")
jobs=$(sed 1d "$tmp.out" | cut -f2 | sort -u | wc -l)

# The slowdown: which finding about a host, link or group comes first.
slow=$(awk -v truth="$tmp.truth" '
BEGIN { while ((getline l < truth) > 0) { split(l, f, " ")
	if (f[1] == "slow") { ip = f[2]; at = f[3] } } }
function names(s,   n, p) { n = split(s, p, "-")
	return ip != "" && (p[1] == ip || (n == 2 && p[2] == ip)) }
$1 == "finding" && $13 ~ /^(straggler|slow-link|slow-nic|slow-group)$/ {
	hit = $13 != "slow-group" && names($14)
	if (!seen++) { first = hit; kind = $13; from = $17 }
	bad += !hit }
END { printf "slow_truth=%s slow_at=%s slow_first=%d slow_kind=%s slow_from=%s slow_false=%d",
	ip == "" ? "-" : ip, at == "" ? "-" : at, first, seen ? kind : "-",
	seen ? from : "-", bad + 0 }
' FS='\t' "$tmp.out")
printf 'jobs=%d dp_ok=%d pp_ok=%d %s%sstraggler_truth=%s straggler_found=%s straggler_from=%s %s\n' \
    "$jobs" "$dp_ok" "$pp_ok" "$(cat "$tmp.pairs")" "$(cat "$tmp.iters")" \
    "${st:--}" "${sf:--}" "${sfrom:--}" "$slow"
