#!/bin/sh
# cache.sh -- the cache from the command line: default path, --cache,
# refusals with clear one-line errors.
. "$TS_SRCDIR/t/lib/test-lib.sh"

test_expect_success 'default cache lives under XDG_CACHE_HOME' '
	trainscope cache path >out &&
	test "$(cat out)" = "$XDG_CACHE_HOME/trainscope/cache.db"
'
test_expect_success 'without XDG_CACHE_HOME it is under HOME/.cache' '
	(unset XDG_CACHE_HOME; trainscope cache path) >out &&
	test "$(cat out)" = "$HOME/.cache/trainscope/cache.db"
'
test_expect_success 'cache info creates the default cache' '
	trainscope cache info >out &&
	grep "^schema:  5" out && test -s "$XDG_CACHE_HOME/trainscope/cache.db"
'
test_expect_success '--cache chooses another file' '
	trainscope --cache mine.db cache >out && test -s mine.db &&
	grep "^path:    mine.db" out
'
test_expect_success 'a text file as cache: one-line error, status 1, file untouched' '
	echo "precious notes" >notes.txt &&
	test_must_fail 1 trainscope --cache notes.txt cache 2>err &&
	test "$(wc -l <err)" -eq 1 && grep "notes.txt. is not a trainscope cache" err &&
	test "$(cat notes.txt)" = "precious notes"
'
test_expect_success 'an unwritable cache directory is reported' '
	if [ "$(id -u)" -ne 0 ]; then
		mkdir ro && chmod 555 ro &&
		test_must_fail 1 trainscope --cache ro/sub/c.db cache 2>err &&
		grep "cannot create" err
	fi
'
# A user who cannot write the cache: nobody, when the tests run as root;
# else the files are made read-only.
if nobody_reaches; then
	test_expect_success 'a cache this user cannot write is read: diagnose works, nothing is kept' '
		mkdir -p rojob/node01 &&
		for i in 1 2 3 4 5; do
			echo "[2024-05-01 12:00:0$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |"
		done >rojob/node01/rank-0.log &&
		echo "[2024-05-01 12:00:07,000] ERROR RuntimeError: CUDA error: an illegal memory access was encountered" >>rojob/node01/rank-0.log &&
		trainscope index rojob >/dev/null 2>&1 &&
		mv rojob rojob.moved &&
		chmod -R a+rX . "$XDG_CACHE_HOME" &&
		if [ "$(id -u)" -ne 0 ]; then chmod -R a-w "$XDG_CACHE_HOME"; fi &&
		as_nobody diagnose rojob >out 2>err &&
		grep "^job rojob" out && grep "an illegal memory access" out &&
		test "$(grep -c "read-only here" err)" = 1 &&
		grep "^trainscope: diagnose: cache .* is read-only here: the outcome and the diagnosis are not kept" err &&
		! grep "attempt to write" err &&
		as_nobody jobs >out && grep "^rojob " out
		rc=$?
		chmod -R u+w "$XDG_CACHE_HOME"
		exit $rc
	'
	test_expect_success 'moved job with captures on a read-only cache: the captures and the store both fail, the diagnosis stands' '
		trainscope simulate --nodes 2 --gpus-per-node 2 --iters 20 \
		    --fault gpu-xid79@2:12 rosim >/dev/null &&
		test -s rosim/flows.pcap &&
		trainscope index rosim >/dev/null 2>&1 &&
		trainscope diagnose rosim >before 2>/dev/null &&
		mv rosim rosim.moved &&
		chmod -R a+rX . "$XDG_CACHE_HOME" &&
		# the file read-only to the reader, its directory not (as in
		# the report: the store was tried and failed after the captures)
		db="$XDG_CACHE_HOME/trainscope/cache.db" &&
		rm -f "$db-wal" "$db-shm" && chmod 777 "${db%/*}" &&
		if [ "$(id -u)" -ne 0 ]; then chmod a-w "$db"; fi &&
		{ as_nobody diagnose rosim >out 2>err; rc=$?; cat err; test $rc = 0; } &&
		grep "^job rosim" out && grep "NVRM: Xid" out &&
		grep "^trainscope: diagnose: captures left out: " err &&
		grep "read-only here" err &&
		! grep -i "double free\|AddressSanitizer\|attempt to write" err
		rc=$?
		chmod -R u+w "$XDG_CACHE_HOME" && chmod 755 "${db%/*}"
		exit $rc
	'
else
	test_skip 'a cache this user cannot write is read' 'nobody cannot reach the build'
	test_skip 'moved job with captures on a read-only cache' 'nobody cannot reach the build'
fi
test_expect_success 'cache info lists the jobs with their size and a readable cache size' '
	mkdir -p infojob/node01 &&
	echo "[2024-05-01 12:00:01,000] INFO  iteration 1/ 10" >infojob/node01/rank-0.log &&
	trainscope index infojob 2>/dev/null &&
	trainscope cache info >out &&
	grep "^size:    [0-9.]* [kM]B ([0-9]* bytes)$" out &&
	grep "^  infojob  1 file, [0-9.]* k*B, [a-z ]*, .*/infojob$" out
'
# rows DB: what the cache holds per table, of every job and of job b
rows() {
	for t in jobs nodes ranks files file_templates checkpoints node_templates \
	    captures flow_sets flow_hosts flow_msgs results meta; do
		printf "%s %s\n" $t "$(sqlite3 "$1" "SELECT count(*) FROM $t")"
	done
	sqlite3 "$1" "SELECT count(*) FROM files f JOIN jobs j ON j.id = f.job_id
	    WHERE j.name = '"'"'fb'"'"'; SELECT count(*) FROM flow_msgs"
}
if command -v sqlite3 >/dev/null 2>&1; then
	test_expect_success 'forget JOB removes its files, lines, results and flow sets, and nothing of another job' '
		trainscope simulate --nodes 2 --gpus-per-node 2 --iters 20 \
		    --fault gpu-xid79@2:12 fa >/dev/null &&
		trainscope simulate --nodes 2 --gpus-per-node 2 --iters 20 --healthy \
		    --seed 9 fb >/dev/null &&
		trainscope --cache b.db index fb 2>/dev/null &&
		trainscope --cache b.db diagnose fb >/dev/null 2>&1 &&
		trainscope --cache b.db flows fb >/dev/null 2>&1 && rows b.db >only-b &&
		trainscope --cache f.db index fb fa 2>/dev/null &&
		trainscope --cache f.db diagnose fb >/dev/null 2>&1 &&
		trainscope --cache f.db flows fb >/dev/null 2>&1 &&
		trainscope --cache f.db diagnose fa >/dev/null 2>&1 &&
		trainscope --cache f.db flows fa >/dev/null 2>&1 &&
		sqlite3 f.db "INSERT INTO meta VALUES ('"'"'index-pending:'"'"' ||
		    (SELECT id FROM jobs WHERE name = '"'"'fa'"'"'), 9)" &&
		test "$(sqlite3 f.db "SELECT count(*) FROM results")" = 2 &&
		test "$(sqlite3 f.db "SELECT count(*) FROM flow_sets")" = 2 &&
		trainscope --cache f.db forget fa 2>err &&
		grep "^trainscope: forgot job fa$" err &&
		rows f.db | grep -v "^meta " >after && grep -v "^meta " only-b >want &&
		test_cmp want after &&
		test "$(sqlite3 f.db "SELECT count(*) FROM meta WHERE key LIKE '"'"'index-pending:%'"'"'")" = 0
	'
else
	test_skip 'forget JOB removes what is its own' 'no sqlite3 shell'
fi
# A disk too full for the cache's -shm file: a small tmpfs in a mount
# namespace of our own (skipped where that is not allowed).
full_run() {
	unshare -rm sh -c "mount -t tmpfs -o size=${2}k tmpfs '$1' && $3"
}
mkdir -p full
if command -v unshare >/dev/null 2>&1 && full_run "$PWD/full" 64 true 2>/dev/null; then
	test_expect_success 'a full disk is said as such, naming the cache; nothing is lost' '
		mkdir -p dj/node01 &&
		for i in 1 2 3 4 5; do
			echo "[2024-05-01 12:00:0$i,000] INFO step $i"
		done >dj/node01/rank-0.log &&
		trainscope --cache d.db index dj 2>/dev/null &&
		sqlite3 d.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
		kb=$(( $(wc -c <d.db) / 1024 + 96 )) && F="$PWD/full" &&
		full_run "$F" "$kb" "cp d.db $F/d.db &&
		    dd if=/dev/zero of=$F/fill bs=4k 2>/dev/null;
		    \"$TS_BIN\" --cache $F/d.db jobs >$PWD/o1 2>$PWD/e1; echo \$? >$PWD/s1;
		    rm $F/fill && \"$TS_BIN\" --cache $F/d.db jobs >$PWD/o2 2>$PWD/e2" &&
		test "$(cat s1)" = 1 && test ! -s o1 &&
		grep "^trainscope: jobs: cache .*/full/d.db.: the disk is full (cannot read); what it holds is kept: free some space, or choose another cache with --cache$" e1 &&
		test "$(wc -l <e1)" = 1 &&
		test ! -s e2 && grep "^dj " o2
	'
else
	test_skip 'a full disk is said as such' 'no tmpfs in a mount namespace here'
fi
test_expect_success 'bad --cache value: usage status 2' '
	test_must_fail 2 trainscope cache --cache 2>err && grep "requires a file" err
'
test_done
