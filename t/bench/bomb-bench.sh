#!/bin/sh
# bomb-bench.sh -- indexing gzip files that inflate a lot: peak RSS, time
# and cache size at two expansions, so that memory growing with the
# expansion shows as a ratio above 1.
#
#	t/bench/bomb-bench.sh [MB]	(default 3000: MB of text inflated)
#
# Two shapes, each at MB/10 and MB of text: one line repeated (a single
# template of tens of millions of lines in one file), and 300 templates
# interleaved line by line (each template's line list grows at once).
# Memory is bounded by design: segments waiting for the writer (32 MB),
# line lists before they are flushed to the cache (32 MB), a template's
# list per file kept to its first 4 MiB; the 300-template shape reaches
# the flush only past about 2 GB of text, so its RSS rises up to there.
set -e
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TS_BIN:-$srcdir/trainscope}
mb=${1:-3000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bomb-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

[ -x /usr/bin/time ] || { echo "bomb-bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

# one MB: a gzip of MB of one repeated line
one() {
	yes "[2024-05-01 12:00:00,000] INFO iteration 1 | lm loss 1.0 | all ranks fine" |
	    head -c $(($1 * 1000000)) | gzip -1
}
# many MB: a gzip of MB of 300 templates taking turns
many() {
	awk -v bytes=$(($1 * 1000000)) 'BEGIN {
		L = "abcdefghijklmnopqrstuvwxyz"
		for (t = 0; t < 300; t++) {
			w = substr(L, t % 26 + 1, 1) substr(L, int(t / 26) + 1, 1)
			s = ""
			for (k = 0; k < 3 + t % 13; k++)
				s = s " " w substr(L, k + 1, 1)
			tpl[t] = s
		}
		for (i = 0; n < bytes; i++) {
			line = sprintf("[2024-05-01 10:00:00,000] INFO%s %d\n",
			    tpl[i % 300], i % 7)
			printf "%s", line
			n += length(line)
		}
	}' | gzip -1
}

# run SHAPE MB: index it alone; prints one row
run() {
	d=$tmp/$1-$2
	mkdir -p "$d/job/n1"
	$1 "$2" >"$d/job/n1/r0.log.gz"
	/usr/bin/time -f '%e %M' -o "$d/time" "$bin" --cache "$d/c.db" index \
	    "$d/job" >/dev/null 2>"$d/err"
	set -- "$1" "$2" $(cat "$d/time") $(($(wc -c <"$d/job/n1/r0.log.gz") / 1000000)) \
	    $(($(cat "$d/c.db" "$d/c.db-wal" 2>/dev/null | wc -c) / 1000000))
	printf '%-6s %9s %8s %8s %10.0f %9s\n' "$1" "$2" "$5" "$3" "$(($4 / 1024))" "$6"
	echo "$4" >"$tmp/rss-$1-$2"
	grep -v '^indexed' "$d/err" | head -3 || true
	rm -rf "$d"
}

echo "bomb-bench: gzip files of one shape at two expansions, $(nproc) cores"
printf '%-6s %9s %8s %8s %10s %9s\n' shape "text MB" "gzip MB" "wall s" "peak RSS MB" "cache MB"
small=$((mb / 10))
for shape in one many; do
	run $shape $small
	run $shape $mb
	awk -v a="$(cat "$tmp/rss-$shape-$small")" -v b="$(cat "$tmp/rss-$shape-$mb")" \
	    -v s=$shape 'BEGIN { printf "%-6s peak RSS at 10x the text / at 1x: %.2f (bounded: under 100 MB at any size)\n", s, b / a }'
done
