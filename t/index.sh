#!/bin/sh
# index.sh -- `index` and `templates` on small fixtures and on the real
# sample jobs: counts, nodes, incremental runs, determinism, offsets.
. "$TS_SRCDIR/t/lib/test-lib.sh"

mkjob() {
	mkdir -p "$1/node-01" "$1/node-02"
	i=1
	while [ $i -le 50 ]; do
		printf "[2024-05-01 12:00:%02d.100] INFO iteration %d/ 50 | lm loss: 2.%d | grad norm: 0.%d |\n" \
		    $((i % 60)) $i $i $i
		i=$((i + 1))
	done >"$1/node-01/rank-0.log"
	sed 's/INFO/INFO/' "$1/node-01/rank-0.log" | gzip >"$1/node-02/rank-1.log.gz"
	printf 'NCCL WARN Net : Connection closed by remote peer 10.0.0.%d<5432>\r\n' 1 2 3 >>"$1/node-01/rank-0.log"
	printf '\001\002\003\004\005\006\007\010\016\017' >"$1/capture.pcap"
}

count_of() {	# count_of PATTERN [JOB]: the count column of a template
	trainscope templates --format tsv $2 | awk -F '\t' -v p="$1" \
	    'index($6, p) { s += $3 } END { print s + 0 }'
}

test_expect_success 'index a job: summary line' '
	mkjob job1 &&
	trainscope index job1 >out 2>err &&
	grep "^indexed 1 job: 2 files (2 read, 0 unchanged, 0 failed), 103 lines" err &&
	grep "; job job1$" err &&
	! test -s out
'
test_expect_success 'templates: counts per job, plain and gzip alike' '
	test "$(count_of "iteration <*>" job1)" = 100 &&
	test "$(count_of "Connection closed" job1)" = 3 &&
	trainscope templates job1 >out && head -1 out | grep "^job job1$"
'
test_expect_success 'templates: tsv counts add up to the lines' '
	trainscope templates --format tsv job1 >out &&
	head -1 out | grep "^job	id	count	nodes	files	template$" &&
	test "$(awk -F "\t" "NR > 1 { s += \$3 } END { print s }" out)" = 103
'
test_expect_success 'templates: json' '
	trainscope templates --format json >out &&
	grep "\"job\":\"job1\"" out && grep "\"count\":100" out &&
	jq -e "keys_unsorted == [\"schema\", \"templates\"] and .schema == 2" out
'
test_expect_success 'templates: the JSON keys are the ones the help names, in order' '
	trainscope templates --format json >out &&
	jq -r ".templates[0] | keys_unsorted | join(\", \")" out >keys &&
	test "$(cat keys)" = "job, id, count, nodes, files, template" &&
	trainscope help templates | tr -s " \n" "  " >help &&
	grep "with those keys: $(cat keys)" help
'
test_expect_success 'templates of an unknown job fail' '
	test_must_fail 1 trainscope templates nosuch 2>err &&
	grep "no job .nosuch." err
'
test_expect_success 'a bad --format is a usage error' '
	test_must_fail 2 trainscope templates --format xml 2>err
'
test_expect_success 'an unchanged job is skipped' '
	trainscope index job1 2>out &&
	grep "2 files, all unchanged, [0-9]* templates" out &&
	test "$(count_of "iteration <*>" job1)" = 100
'
test_expect_success 'an unchanged job is not written: no write statement, the cache file as it was' '
	db="$XDG_CACHE_HOME/trainscope/cache.db" &&
	ls -l --time-style=+%s.%N "$db"* >before && cksum "$db" >>before &&
	TS_SQL_TRACE="$PWD/trace" "$TS_BIN" index job1 2>out &&
	grep "2 files, all unchanged, [1-9][0-9]* templates" out &&
	grep -q "FROM files" trace &&
	! grep -E "^(INSERT|UPDATE|DELETE|REPLACE|BEGIN IMMEDIATE)" trace &&
	ls -l --time-style=+%s.%N "$db"* >after && cksum "$db" >>after &&
	test_cmp before after
'
test_expect_success 'an appended file continues where it stopped' '
	tail -n 5 job1/node-01/rank-0.log >>job1/node-01/rank-0.log &&
	trainscope index job1 2>out &&
	grep "(1 read, 1 unchanged, 0 failed), 5 lines" out &&
	test "$(count_of "Connection closed" job1)" = 6 &&
	test "$(count_of "iteration <*>" job1)" = 102
'
test_expect_success 'a rewritten file is read again' '
	head -n 10 job1/node-01/rank-0.log >x && mv x job1/node-01/rank-0.log &&
	trainscope index job1 2>out &&
	grep "(1 read, 1 unchanged, 0 failed), 10 lines" out &&
	test "$(count_of "iteration <*>" job1)" = 60
'
test_expect_success 'a file rewritten in place at the same size, its mtime set back, is read again' '
	mkdir -p rp/n1 &&
	echo "[2024-05-01 10:00:00,000] INFO alpha one" >rp/n1/rank-0.log &&
	touch -d "2024-05-01 10:00" rp/n1/rank-0.log &&
	trainscope index rp 2>/dev/null &&
	echo "[2024-05-01 10:00:00,000] INFO gamma two" >x &&
	cat x >rp/n1/rank-0.log && touch -d "2024-05-01 10:00" rp/n1/rank-0.log &&
	trainscope index rp 2>out &&
	grep "(1 read, 0 unchanged, 0 failed)" out &&
	test "$(count_of "gamma two" rp)" = 1 && test "$(count_of "alpha one" rp)" = 0
'
test_expect_success 'trainscope JOBDIR indexes without a command' '
	mkjob job2 && trainscope job2 >out 2>&1 && grep "^indexed 1 job" out &&
	test "$(count_of "iteration <*>" job2)" = 100
'
test_expect_success 'several jobs at once; --job only with one' '
	mkjob a/x && mkjob b/y &&
	trainscope index a/x b/y 2>out && grep "^indexed 2 jobs: 4 files" out &&
	grep "; jobs x, y$" out &&
	test_must_fail 1 trainscope index --job z a/x b/y 2>err &&
	grep "job names one job" err
'
test_expect_success 'another directory with a job'"'"'s name is refused' '
	mkdir -p other && cp -r job1 other/ &&
	test_must_fail 1 trainscope index other/job1 2>err &&
	grep "job .job1. is indexed from .*/job1.; name this one with --job" err &&
	trainscope index --job job1b other/job1 2>out && grep "2 files (2 read" out
'
test_expect_success 'loose files form one job; --job names it' '
	trainscope index --job loose job2/node-01/rank-0.log \
	    job2/node-02/rank-1.log.gz >out &&
	test "$(count_of "iteration <*>" loose)" = 100
'
test_expect_success 'a file indexed on its own is a job named after its directory, and says so' '
	mkdir -p solo/run7 && cp job2/node-01/rank-0.log solo/run7/train.log &&
	trainscope index solo/run7/train.log 2>err &&
	grep "^indexed 1 job: 1 file (1 read.*; job run7$" err &&
	trainscope jobs >out && grep "^run7 .*/solo/run7$" out
'
test_expect_success 'a file named twice is read once' '
	trainscope index --job twice job2/node-01/rank-0.log \
	    job2/node-01/rank-0.log 2>out &&
	grep "1 file (1 read" out
'
test_expect_success 'same ids and texts whatever the thread count' '
	mkjob d && cp -r d d2 && i=0 &&
	while [ $i -lt 20 ]; do cp d/node-01/rank-0.log d/node-01/r$i.log; \
	    i=$((i + 1)); done &&
	trainscope --cache one.db index --threads 1 --job d d >/dev/null &&
	trainscope --cache two.db index --threads 2 --job d d >/dev/null &&
	trainscope --cache one.db templates --format tsv >t1 &&
	trainscope --cache two.db templates --format tsv >t2 &&
	test_cmp t1 t2
'
test_expect_success 'heads read on several threads: warnings and files in the order of the files' '
	mkdir -p sn && i=10 &&
	while [ $i -lt 60 ]; do \
	    case $i in \
	    *3|*7) printf "\000\001\002" >sn/f$i.log ;; \
	    *) cp job2/node-01/rank-0.log sn/f$i.log ;; \
	    esac; i=$((i + 1)); done &&
	trainscope --cache sn1.db index --threads 1 sn >/dev/null 2>e1 &&
	trainscope --cache sn4.db index --threads 4 sn >/dev/null 2>e4 &&
	grep skipping e1 >w1 && grep skipping e4 >w4 &&
	test "$(wc -l <w1)" = 10 && sort w1 | test_cmp - w1 &&
	test_cmp w1 w4 &&
	trainscope --cache sn1.db templates --format tsv sn >t1 &&
	trainscope --cache sn4.db templates --format tsv sn >t4 &&
	test_cmp t1 t4
'
test_expect_success '--map decides node and rank; a bad map line is FILE:LINE' '
	mkdir -p m && cp job2/node-01/rank-0.log m/a.log &&
	echo "*.log hostx 7" >map &&
	trainscope --cache map.db index --map map m >/dev/null &&
	trainscope --cache map.db templates --format tsv m >out &&
	awk -F "\t" "NR == 2 && \$4 == 1" out | grep . &&
	echo "onlyglob" >bad &&
	test_must_fail 1 trainscope --cache map.db index --map bad m 2>err &&
	grep "bad:1: expected" err
'

if command -v sqlite3 >/dev/null 2>&1; then
	test_expect_success 'stored offsets point at the raw lines' '
		db="$XDG_CACHE_HOME/trainscope/cache.db" &&
		sqlite3 "$db" "SELECT ft.last_off FROM file_templates ft JOIN files f
		    ON f.id = ft.file_id JOIN jobs j ON j.id = f.job_id JOIN
		    templates t ON t.id = ft.template_id WHERE j.name = '"'job2'"'
		    AND f.path = '"'node-01/rank-0.log'"' AND t.text LIKE
		    '"'%Connection%'"'" >off &&
		tail -c +$(($(cat off) + 1)) job2/node-01/rank-0.log | head -1 |
		    grep "10.0.0.3"
	'
	test_expect_success 'nodes and ranks come from the paths' '
		db="$XDG_CACHE_HOME/trainscope/cache.db" &&
		sqlite3 "$db" "SELECT r.rank, n.name FROM ranks r JOIN nodes n ON
		    n.id = r.node_id JOIN jobs j ON j.id = r.job_id WHERE j.name =
		    '"'job2'"' ORDER BY r.rank" >out &&
		printf "0|node-01\n1|node-02\n" >want && test_cmp want out
	'
	q() { sqlite3 "$XDG_CACHE_HOME/trainscope/cache.db" "$1"; }
	test_expect_success 'combined file: ranks from the line prefixes' '
		mkdir -p comb/node05 && for r in 0 1 2 3; do
		    echo "[default$r]:[2024-05-01 10:00:0$r,000] INFO rank up"; done \
		    >comb/node05/train.log &&
		trainscope index comb >/dev/null &&
		q "SELECT group_concat(r.rank || n.name, \",\") FROM ranks r JOIN
		    nodes n ON n.id = r.node_id JOIN jobs j ON j.id = r.job_id
		    WHERE j.name = '"'comb'"'" >out &&
		test "$(cat out)" = "0node05,1node05,2node05,3node05"
	'
	dump() {	# dump DB: what indexing stored, without checkpoints
		sqlite3 "$1" "SELECT path, lines, bytes, first_ts, last_ts, partial
		    FROM files ORDER BY path; SELECT f.path, template_id, count,
		    first_line, first_off, ft.first_ts, last_line, last_off,
		    ft.last_ts, hex(ft.lines) FROM file_templates ft JOIN files f
		    ON f.id = ft.file_id ORDER BY 1, 2; SELECT * FROM templates;
		    SELECT * FROM node_templates; SELECT * FROM ranks"
	}
	mkbig() {	# mkbig DIR: two files with untimed lines and a NUL
		mkdir -p "$1/n1" &&
		awk "BEGIN { print \"untimed start\"; for (i = 1; i <= 3000; i++) {
		    printf \"[2024-05-01 10:%02d:%02d,000] INFO step %d loss %.2f\\n\",
		    int(i / 60) % 60, i % 60, i, 1 / i;
		    if (i % 7 == 0) print \"  traceback line \" i } }" >"$1/n1/rank-0.log" &&
		{ cat "$1/n1/rank-0.log"; printf "nul\000here\n"; } >"$1/n1/rank-1.log"
	}
	test_expect_success 'ranges of big files store what whole files store' '
		mkbig big &&
		trainscope --cache w.db index --threads 1 big >/dev/null &&
		trainscope --cache r.db index --threads 2 --chunk 1024 big \
		    >/dev/null 2>err &&
		grep "rank-1.log.: line 3430: NUL" err &&
		dump w.db >w && dump r.db >r && test_cmp w r &&
		test "$(grep -c "step <\*>" w)" -ge 1
	'
	test_expect_success 'appending in ranges stores what one run stores' '
		mkdir -p app/n1 && head -n 1000 big/n1/rank-0.log >app/n1/rank-0.log &&
		cp big/n1/rank-1.log app/n1/rank-1.log &&
		trainscope --cache a.db index --chunk 1024 app >/dev/null &&
		tail -n +1001 big/n1/rank-0.log >>app/n1/rank-0.log &&
		trainscope --cache a.db index --chunk 1024 app 2>out &&
		grep "(1 read, 1 unchanged" out &&
		dump a.db >a.out && test_cmp w a.out
	'
	test_expect_success 'host logs are recognised and attached to their node' '
		mkdir -p hl/node07 hl/other && good=hl/node07/rank-0.log &&
		echo "[2024-05-01 10:00:00,000] INFO start" >$good &&
		echo "[   12.345678] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus" \
		    >hl/node07/dmesg.log &&
		echo "Nov 21 07:00:01 node08 kernel: mlx5_core: link down" >hl/other/messages &&
		trainscope index hl >/dev/null &&
		q "SELECT f.path || \" \" || f.kind || \" \" || coalesce(n.name, \"-\")
		    FROM files f LEFT JOIN nodes n ON n.id = f.node_id JOIN jobs j ON
		    j.id = f.job_id WHERE j.name = '"'hl'"' ORDER BY f.path" >out &&
		printf "%s\n" "node07/dmesg.log host node07" "node07/rank-0.log log node07" \
		    "other/messages host node08" >want && test_cmp want out
	'
	test_expect_success '--hostfile gives the node of ranked files' '
		mkdir -p hf/attempt_0/0 hf/attempt_0/1 &&
		echo "[2024-05-01 10:00:00,000] INFO a" >hf/attempt_0/0/stderr.log &&
		echo "[2024-05-01 10:00:00,000] INFO b" >hf/attempt_0/1/stderr.log &&
		printf "gpu-a slots=1\ngpu-b slots=1\n" >hosts &&
		trainscope index --hostfile hosts hf >/dev/null &&
		q "SELECT f.rank || n.name FROM files f JOIN nodes n ON n.id =
		    f.node_id JOIN jobs j ON j.id = f.job_id WHERE j.name = '"'hf'"'
		    ORDER BY f.rank" >out &&
		printf "0gpu-a\n1gpu-b\n" >want && test_cmp want out
	'
	# the job summary as two grouped queries define it: first and last
	# occurrence by printf('%020.6f') of the time (untimed as 0), file, line
	summary_want() {
		for m in "min first" "max last"; do set -- $m; q "SELECT f.job_id,
		    f.node_id, ft.template_id, sum(ft.count), ft.file_id,
		    ft.$2_line, ft.$2_off, ft.$2_ts, $1(printf('"'%020.6f%020d%020d'"',
		    coalesce(ft.$2_ts, 0), f.id, ft.$2_line)) FROM file_templates ft
		    JOIN files f ON f.id = ft.file_id GROUP BY f.job_id, f.node_id,
		    ft.template_id ORDER BY f.job_id, f.node_id, ft.template_id"; done
	}
	summary_have() {
		q "SELECT job_id, node_id, template_id, count, first_file,
		    first_line, first_off, first_ts FROM node_templates ORDER BY rowid"
		q "SELECT job_id, node_id, template_id, count, last_file,
		    last_line, last_off, last_ts FROM node_templates ORDER BY rowid"
	}
	test_expect_success 'a file read just after it was written keeps a hash of its head and tail; a settled one none' '
		mkdir -p rc/n1 &&
		echo "[2024-05-01 10:00:00,000] INFO alpha one" >rc/n1/new.log &&
		cp rc/n1/new.log rc/n1/old.log && touch -d "2024-05-01 10:00" rc/n1/old.log &&
		trainscope index rc >/dev/null 2>&1 &&
		q "SELECT path, head IS NOT NULL, ctime IS NOT NULL, found_kind
		    FROM files f JOIN jobs j ON j.id = f.job_id WHERE j.name =
		    '"'rc'"' ORDER BY path" >out &&
		printf "n1/new.log|1|1|0\nn1/old.log|0|1|0\n" >want && test_cmp want out
	'
	test_expect_success 'that hash finds a rewrite the times do not show' '
		# a rewrite in the tick that stamped the file keeps both its
		# times; a row without its ctime stands in for that here
		q "UPDATE files SET ctime = NULL WHERE path = '"'n1/new.log'"'" &&
		cp -p rc/n1/new.log ref &&
		echo "[2024-05-01 10:00:00,000] INFO gamma two" >x &&
		cat x >rc/n1/new.log && touch -r ref rc/n1/new.log &&
		trainscope index rc 2>out &&
		grep "(1 read, 1 unchanged, 0 failed)" out &&
		test "$(count_of "gamma two" rc)" = 1
	'
	test_expect_success 'an unchanged file takes what its head said from the cache, not from its head' '
		q "UPDATE files SET found_node = '"'elsewhere'"' WHERE path =
		    '"'n1/old.log'"'" &&
		trainscope index rc 2>out && grep "all unchanged" out &&
		q "SELECT n.name FROM files f JOIN nodes n ON n.id = f.node_id
		    WHERE f.path = '"'n1/old.log'"'" >out &&
		echo elsewhere >want && test_cmp want out
	'
	test_expect_success 'a row of an older cache learns what discovery found once, then nothing is written' '
		rc="(SELECT id FROM jobs WHERE name = '"'rc'"')" &&
		q "UPDATE files SET found_node = NULL, found_rank = NULL,
		    found_kind = NULL, ctime = NULL WHERE job_id = $rc" &&
		TS_SQL_TRACE="$PWD/t1" "$TS_BIN" index rc 2>out && grep "all unchanged" out &&
		grep -q "^UPDATE files SET" t1 &&
		test "$(q "SELECT count(*) FROM files WHERE job_id = $rc AND
		    (found_kind IS NULL OR ctime IS NULL)")" = 0 &&
		q "SELECT n.name FROM files f JOIN nodes n ON n.id = f.node_id
		    WHERE f.path = '"'n1/old.log'"'" >out &&
		echo n1 >want && test_cmp want out &&
		TS_SQL_TRACE="$PWD/t2" "$TS_BIN" index rc 2>out && grep "all unchanged" out &&
		! grep -E "^(INSERT|UPDATE|DELETE|BEGIN IMMEDIATE)" t2
	'
	test_expect_success 'an unchanged file is said again by a new --map' '
		echo "n1/old.log hostz 3" >rcmap &&
		trainscope index --map rcmap rc 2>out && grep "all unchanged" out &&
		q "SELECT n.name || f.rank FROM files f JOIN nodes n ON n.id =
		    f.node_id WHERE f.path = '"'n1/old.log'"'" >out &&
		echo hostz3 >want && test_cmp want out
	'
	test_expect_success 'the job summary is what its grouped queries define' '
		mkdir -p sum/n1 sum/n2 sum/loose &&
		for f in n1/a n1/b n2/a loose/x; do
		    { echo "untimed $f"; echo "[2024-05-01 10:00:01,000] INFO tie";
		      echo "2024-05-01T10:00:02.123456789Z INFO fine 1";
		      echo "2024-05-01T10:00:02.12345${#f}Z INFO fine 2";
		      echo "[2024-05-01 10:00:0${#f},500] INFO tie"; echo "untimed $f";
		    } >sum/$f.log; done &&
		echo "[2024-05-01 09:00:00,000] INFO tie" >>sum/n2/a.log &&
		trainscope index sum >/dev/null &&
		summary_want | sed "s/|[^|]*$//" >want && summary_have >have &&
		test_cmp want have && test $(wc -l <have) -ge 12
	'
else
	test_skip 'stored offsets point at the raw lines' 'no sqlite3 shell'
	test_skip 'nodes and ranks come from the paths' 'no sqlite3 shell'
	test_skip 'combined file: ranks from the line prefixes' 'no sqlite3 shell'
	test_skip 'ranges of big files store what whole files store' 'no sqlite3 shell'
	test_skip 'appending in ranges stores what one run stores' 'no sqlite3 shell'
	test_skip 'host logs are recognised and attached to their node' 'no sqlite3 shell'
	test_skip '--hostfile gives the node of ranked files' 'no sqlite3 shell'
	test_skip 'a file read just after it was written keeps a hash of its head and tail; a settled one none' 'no sqlite3 shell'
	test_skip 'that hash finds a rewrite the times do not show' 'no sqlite3 shell'
	test_skip 'an unchanged file takes what its head said from the cache, not from its head' 'no sqlite3 shell'
	test_skip 'a row of an older cache learns what discovery found once, then nothing is written' 'no sqlite3 shell'
	test_skip 'an unchanged file is said again by a new --map' 'no sqlite3 shell'
	test_skip 'the job summary is what its grouped queries define' 'no sqlite3 shell'
fi

REAL="$TS_SHARED/data/realjobs"
if [ -d "$REAL/a_normal_dp2_pp2/logs" ]; then
	test_expect_success 'real job: 4 ranks, 40 iterations each' '
		trainscope index --job real "$REAL/a_normal_dp2_pp2/logs" 2>out &&
		grep "4 files (4 read" out &&
		trainscope templates --format tsv real >t &&
		awk -F "\t" "\$6 ~ /^iteration .*lm loss/ && \$3 == 160 && \$4 == 4" t | grep .
	'
	test_expect_success 'real failed job: the traceback template is found' '
		trainscope index --job failed "$REAL/g_same_job/run2_failed/logs" &&
		trainscope templates --format tsv failed | grep -i "timeout\|timed out"
	'
else
	test_skip 'real job: 4 ranks, 40 iterations each' 'no realjobs data'
	test_skip 'real failed job: the traceback template is found' 'no realjobs data'
fi
test_expect_success 'values that make no sense are refused' '
	mkdir -p tiny && echo "a line" >tiny/x.log &&
	(XDG_CACHE_HOME=$PWD/fresh && export XDG_CACHE_HOME &&
	test_expect_code 2 trainscope --cache "" jobs 2>err &&
	grep "^trainscope: --cache wants a file name, not an empty one$" err &&
	test_expect_code 2 trainscope jobs --cache= 2>err &&
	grep "^trainscope: jobs: --cache wants a file name" err) &&
	test ! -e fresh &&
	test_expect_code 2 trainscope index --cache "" tiny 2>err &&
	test_expect_code 2 trainscope index --chunk 1 tiny 2>err &&
	grep "chunk wants at least 1024 bytes" err
'
test_expect_success 'a directory without a log file makes no job' '
	mkdir -p nolog/sub && : >nolog/sub/flows.pcap &&
	test_expect_code 1 trainscope index nolog 2>err &&
	grep "^trainscope: index: no log files in .*/nolog.$" err &&
	! grep "^indexed" err &&
	trainscope jobs --format tsv >jobs &&
	! grep "nolog" jobs &&
	test_expect_code 1 trainscope diagnose ./nolog 2>err &&
	grep "no log files in .*/nolog" err &&
	test_expect_code 1 trainscope index tiny nolog 2>err &&
	grep "^indexed 1 job: .*; job tiny$" err &&
	grep "^trainscope: index: no log files in .*/nolog.$" err &&
	trainscope jobs --format tsv | grep "^tiny" &&
	! trainscope jobs --format tsv | grep nolog
'
test_expect_success 'a job whose logs are gone keeps what was indexed' '
	mkdir -p gone && echo "[2024-01-01 00:00:00] step 1 loss 2.0" >gone/r0.log &&
	trainscope index gone 2>/dev/null &&
	rm gone/r0.log &&
	test_expect_code 1 trainscope index gone 2>err &&
	grep "no log files in" err &&
	trainscope templates --format tsv gone | grep "step <\*> loss"
'
# peak_kb OUT CMD...: run CMD, its peak resident set (KB) into OUT
peak_kb() {
	out=$1 && shift &&
	/usr/bin/time -f "%M" -o "$out.t" "$@" &&
	tail -1 "$out.t" >"$out"
}
if grep -qaE "__[atm]san_" "$TS_BIN"; then
	# (a sanitizer's own memory is what its peak would measure)
	test_skip 'a large gzip file on one thread is stored as it is read' 'a sanitizer build'
elif /usr/bin/time -f "%M" true 2>/dev/null; then
	test_expect_success 'a large gzip file on one thread is stored as it is read: its memory does not grow with it' '
		mkdir -p gzs/n1 gzb/n1 &&
		yes "[2024-05-01 10:00:00,000] INFO step 7 loss 0.5 fine" |
		    head -n 1000000 | gzip -1 >gzs/n1/r0.log.gz &&
		yes "[2024-05-01 10:00:00,000] INFO step 7 loss 0.5 fine" |
		    head -n 8000000 | gzip -1 >gzb/n1/r0.log.gz &&
		peak_kb rss1m "$TS_BIN" --threads 1 index gzs 2>/dev/null &&
		peak_kb rss8m "$TS_BIN" --threads 1 index gzb 2>/dev/null &&
		trainscope templates --format tsv gzb | grep "^gzb	[0-9]*	8000000	" &&
		echo "1M lines: $(cat rss1m) KB; 8M lines: $(cat rss8m) KB" &&
		test "$(cat rss8m)" -lt $(($(cat rss1m) + 16384))
	'
else
	test_skip 'a large gzip file on one thread is stored as it is read' 'no GNU time'
fi
test_done
