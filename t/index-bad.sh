#!/bin/sh
# index-bad.sh -- bad input while indexing: each problem is a one-line
# warning naming the file (and line), the rest is indexed, and what the
# cache already held survives.
. "$TS_SRCDIR/t/lib/test-lib.sh"

good_log() {	# good_log FILE N: N timestamped lines
	awk -v n="$2" 'BEGIN { for (i = 1; i <= n; i++)
	    printf "[2024-05-01 10:00:%02d,000] INFO step %d loss %.3f\n",
	    i % 60, i, 1 / i }' >"$1"
}

# hold_lock DB: another writer holds DB's write lock until a file 'go'
# appears here (two minutes at most); returns once the lock is held
hold_lock() {
	# the last holder must have seen its `go` and let go: taking `go`
	# away first left it holding the lock for two minutes, and this
	# holder's BEGIN failed ("database is locked") on a loaded machine
	n=0
	while [ -f held ]; do
		n=$((n + 1)) && [ $n -lt 1200 ] || return 1
		sleep 0.05
	done
	rm -f go
	touch held
	(sqlite3 "$1" ".timeout 60000" "BEGIN IMMEDIATE;" ".shell n=0; while
	    [ ! -f go ] && [ \$n -lt 2400 ]; do sleep 0.05; n=\$((n + 1));
	    done" "COMMIT;"; rm -f held) &
	n=0
	until ! sqlite3 "$1" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null; do
		n=$((n + 1)) && [ $n -lt 1200 ] || return 1
		sleep 0.05
	done
}

# waits_for_lock PID: until trainscope PID sleeps in the cache's busy
# wait (it has listed its files and read none); where /proc does not
# tell, three seconds
waits_for_lock() {
	case "$(cat /proc/$1/wchan 2>/dev/null)" in
	""|0) sleep 3; return 0;;
	esac
	n=0
	until grep -q nanosleep /proc/$1/wchan 2>/dev/null; do
		n=$((n + 1)) && [ $n -lt 1200 ] || return 1
		sleep 0.05
	done
}

test_expect_success 'setup: job A is in the cache' '
	mkdir -p A/node1 && good_log A/node1/rank-0.log 30 &&
	trainscope index A 2>out && grep "30 lines" out &&
	trainscope templates --format tsv A >a.before
'
test_expect_success 'garbage, NUL bytes and truncated gzip: warnings, rest indexed' '
	mkdir -p B/node2 && good_log B/node2/rank-1.log 40 &&
	head -c 65536 /dev/urandom >B/node2/garbage.log &&
	printf "ok line\nbad\000line\nlast\n" >B/node2/nul.log &&
	good_log big 20000 && gzip -c big >full.gz &&
	head -c $(($(wc -c <full.gz) / 2)) full.gz >B/node2/cut.log.gz &&
	trainscope index B >out 2>err &&
	cat err &&
	grep "warning: skipping .*B/node2/garbage.log.: not a text log" err &&
	grep "warning: .*B/node2/nul.log.: line 2: NUL bytes" err &&
	grep "warning: .*B/node2/cut.log.gz.: line [0-9]*: truncated gzip" err &&
	test "$(grep -c "warning:" err)" -eq 3 &&
	grep "3 files (3 read, 0 unchanged, 0 failed, 1 partly read)" err
'
test_expect_success 'the lines before the damage are kept' '
	trainscope templates --format tsv B >t &&
	n=$(awk -F "\t" "\$6 ~ /^step/ { s += \$3 } END { print s }" t) &&
	test "$n" -gt 1040 && test "$n" -lt 20040
'
test_expect_success 'a gzip whose CRC trailer is damaged keeps every line, names the next' '
	mkdir -p G && good_log g.log 2000 && gzip -c g.log >G/r0.log.gz &&
	n=$(wc -c <G/r0.log.gz) &&
	printf "\377\377\377\377" | dd of=G/r0.log.gz bs=1 seek=$((n - 8)) conv=notrunc 2>/dev/null &&
	trainscope index G >out 2>err &&
	grep "^trainscope: index: warning: .*G/r0.log.gz.: line 2001: corrupt gzip data" err &&
	grep "1 file (1 read, 0 unchanged, 0 failed, 1 partly read), 2000 lines" err
'
test_expect_success 'an index that stopped before the end is said until a run completes' '
	mkdir -p K/n1 && good_log K/n1/r0.log 50 && good_log K/n1/r1.log 50 &&
	echo "[2024-05-01 10:01:00,000] ERROR RuntimeError: boom" >>K/n1/r1.log &&
	trainscope index K 2>/dev/null &&
	db="$XDG_CACHE_HOME/trainscope/cache.db" &&
	test "$(sqlite3 "$db" "SELECT count(*) FROM meta WHERE key LIKE '"'"'index-pending:%'"'"'")" = 0 &&
	id=$(sqlite3 "$db" "SELECT id FROM jobs WHERE name = '"'"'K'"'"'") &&
	sqlite3 "$db" "INSERT INTO meta VALUES ('"'"'index-pending:$id'"'"', 5)" &&
	trainscope diagnose K >out 2>/dev/null &&
	grep "^note: index incomplete: 2 of 5 files" out &&
	trainscope diagnose --format json K >d.json &&
	jq -r ".events[0].template" d.json | grep boom &&
	jq -r ".notes[0]" d.json | grep "^index incomplete: 2 of 5 files" &&
	trainscope index K 2>/dev/null &&
	trainscope diagnose K >out 2>/dev/null &&
	! grep "index incomplete" out
'
if command -v sqlite3 >/dev/null 2>&1; then
	test_expect_success 'a run killed part-way: diagnose and the header say so until a run completes' '
		mkdir -p KK/n1 KK/n2 && good_log KK/n1/a.log 50 && good_log KK/n2/c.log 50 &&
		echo "[2024-05-01 10:01:00,000] ERROR RuntimeError: boom" >>KK/n2/c.log &&
		yes "[2024-05-01 10:00:00,000] INFO step 7 loss 0.5 fine" |
		    head -n 4000000 | gzip -1 >KK/n1/b.log.gz &&
		db="$XDG_CACHE_HOME/trainscope/cache.db" &&
		{ "$TS_BIN" index --commit 0 KK 2>/dev/null & pid=$!; } &&
		n=0 && until [ "$(sqlite3 "$db" "SELECT count(*) FROM meta WHERE key LIKE '"'"'index-pending:%'"'"'" 2>/dev/null)" = 1 ]; do
			n=$((n + 1)) && test $n -lt 2400 && sleep 0.05 || break
		done &&
		kill -9 $pid && ! wait $pid &&
		trainscope diagnose KK >out 2>/dev/null &&
		grep "^note: index incomplete: [12] of 3 files" out &&
		trainscope view events KK >v &&
		head -1 v | grep "^KK  [a-z]*.*  index incomplete: [12] of 3 files  " &&
		trainscope index KK 2>/dev/null &&
		trainscope diagnose KK >out 2>/dev/null && ! grep "incomplete" out &&
		trainscope view events KK >v && ! grep "incomplete" v
	'
else
	test_skip 'a run killed part-way' 'no sqlite3 shell'
fi
test_expect_success 'an overlong line gets its warning; templates JSON keys match the help' '
	mkdir -p L && awk "BEGIN { while (n++ < 70000) printf \"x\"; print \"\" }" >L/r0.log &&
	echo "after it" >>L/r0.log &&
	trainscope index L >out 2>err &&
	grep "warning: .*L/r0.log.: line 1: a line of 70000 bytes; only its first 64 KiB are kept" err &&
	trainscope templates --format json L | jq -r ".templates[0] | keys | join(\",\")" >k &&
	echo "count,files,id,job,nodes,template" >want && test_cmp want k
'
test_expect_success 'a file of many overlong lines or NUL lines, read in ranges: one warning of each' '
	mkdir -p LL && awk "BEGIN { for (k = 0; k < 3; k++) {
		for (n = 0; n < 70000; n++) printf \"x\"; print \"\"
		for (i = 1; i <= 2000; i++) print \"step\", i, \"ok\" } }" >LL/r0.log &&
	for i in $(seq 1 3000); do printf "x%d\000y\n" $i; done >LL/r1.log &&
	test "$(tr -dc "\000" <LL/r1.log | wc -c)" = 3000 &&
	trainscope index --chunk 4096 LL >out 2>err &&
	test "$(grep -c "r0.log.: line [0-9]*: a line of 70000 bytes" err)" = 1 &&
	grep "r0.log.: line 1: a line of 70000 bytes" err &&
	test "$(grep -c "r1.log.: line [0-9]*: NUL bytes" err)" = 1 &&
	grep "r1.log.: line 1: NUL bytes" err
'
test_expect_success 'a gzip that inflates a lot: its text is what the summary counts' '
	mkdir -p Z && yes "2024-05-01 10:00:00 INFO step ok" | head -n 1000000 | gzip -1 >Z/r0.log.gz &&
	trainscope index Z >out 2>err &&
	grep "1000000 lines, 33.0 MB of text ([0-9.]* kB on disk)" err &&
	trainscope templates --format tsv Z | grep "	1000000	.*step ok"
'
if command -v script >/dev/null 2>&1; then
	test_expect_success 'progress on a terminal counts a gzip as its text too' '
		mkdir -p Z2 && cp Z/r0.log.gz Z2/ &&
		{ script -qec "\"$TS_BIN\" index Z2" /dev/null >tty ||
		  { cat -A tty; false; }; } &&
		{ tr "\r" "\n" <tty |
		  grep "^indexing: 1/1 files, 33 MB of text ([0-9]* MB/s)" ||
		  { cat -A tty; false; }; }
	'
else
	test_skip 'progress on a terminal counts a gzip as its text' 'no script(1)'
fi
if command -v sqlite3 >/dev/null 2>&1; then
	test_expect_success 'a template of millions of lines in one file keeps its count and the first 4 MiB of its line list' '
		mkdir -p ZZ && yes "x 1" | head -n 4300000 | gzip -1 >ZZ/r0.log.gz &&
		trainscope index ZZ 2>err && grep "4300000 lines" err &&
		sqlite3 "$XDG_CACHE_HOME/trainscope/cache.db" "SELECT ft.count,
		    length(ft.lines), ft.last_line FROM file_templates ft JOIN files f
		    ON f.id = ft.file_id JOIN jobs j ON j.id = f.job_id
		    WHERE j.name = '"'"'ZZ'"'"'" >got &&
		echo "4300000|4194304|4300000" >want && test_cmp want got &&
		trainscope lines -C 0 ZZ r0.log.gz:4300000 >last &&
		grep -x "r0.log.gz:4300000:>x 1" last
	'
else
	test_skip 'a template of millions of lines in one file' 'no sqlite3 shell'
fi
test_expect_success 'a gzip of zero bytes, or of nothing, is an empty file: no warning' '
	mkdir -p E/n1 && : >E/n1/a.log.gz && gzip -c </dev/null >E/n1/b.log.gz &&
	good_log E/n1/c.log 3 &&
	trainscope index E >out 2>err &&
	! grep "warning" err &&
	grep "3 files (3 read, 0 unchanged, 0 failed), 3 lines" err &&
	trainscope parse E/n1/a.log.gz E/n1/b.log.gz >out 2>err &&
	test ! -s out && test ! -s err
'
test_expect_success 'a dangling link is a warning and a failed file; the job is incomplete' '
	mkdir -p C && good_log C/r0.log 5 && ln -s nowhere C/r1.log &&
	ln -s nowhere C/r2.pcap &&
	trainscope index C >out 2>err &&
	grep "warning: cannot read .*C/r1.log.: No such file" err &&
	grep "2 files (1 read, 0 unchanged, 1 failed)" err &&
	trainscope diagnose C >out 2>/dev/null &&
	grep "^note: index incomplete: 1 of 2 files" out
'
if nobody_reaches; then
	test_expect_success 'an unreadable file is a warning and a failed file' '
		mkdir -p D && good_log D/r0.log 5 && good_log D/r1.log 5 &&
		chmod -R a+rwX . && chmod 000 D/r1.log &&
		as_nobody index D >out 2>err &&
		grep "warning: cannot open .*D/r1.log.: Permission denied" err &&
		grep "2 files (1 read, 0 unchanged, 1 failed)" err &&
		as_nobody diagnose D >out 2>/dev/null &&
		grep "^note: index incomplete: 1 of 2 files" out
	'
else
	test_skip 'an unreadable file is a warning' 'root reads anything, nobody cannot reach the build'
fi
if command -v sqlite3 >/dev/null 2>&1; then
	test_expect_success 'a file that vanishes before it is read' '
		mkdir -p V && good_log V/a.log 5 && good_log V/b.log 5 &&
		db="$XDG_CACHE_HOME/trainscope/cache.db" &&
		hold_lock "$db" &&
		{ "$TS_BIN" index V >out 2>err & pid=$!; } &&
		waits_for_lock $pid && rm V/b.log && touch go &&
		wait $pid &&
		grep "warning: cannot open .*V/b.log.: No such file" err &&
		grep "2 files (1 read, 0 unchanged, 1 failed)" err
	'
	test_expect_success 'a large file that vanishes: one warning, index incomplete until indexed again' '
		mkdir -p W/n1 && good_log W/n1/a.log 2000 && good_log W/n1/b.log 3000 &&
		db="$XDG_CACHE_HOME/trainscope/cache.db" &&
		hold_lock "$db" &&
		{ "$TS_BIN" index --chunk 4096 W >out 2>err & pid=$!; } &&
		waits_for_lock $pid && rm W/n1/b.log && touch go &&
		wait $pid &&
		test "$(grep -c "cannot open .*W/n1/b.log" err)" = 1 &&
		grep "2 files (1 read, 0 unchanged, 1 failed)" err &&
		trainscope diagnose W >out 2>/dev/null &&
		grep "^note: index incomplete: 1 of 2 files" out &&
		trainscope diagnose --format json W >d.json &&
		jq -r ".notes[]" d.json | grep "^index incomplete: 1 of 2 files" &&
		trainscope index W 2>/dev/null &&
		trainscope diagnose W >out 2>/dev/null &&
		! grep "index incomplete" out
	'
else
	test_skip 'a file that vanishes before it is read' 'no sqlite3 shell'
	test_skip 'a large file that vanishes' 'no sqlite3 shell'
fi
test_expect_success '20 000 small files' '
	mkdir -p many &&
	awk "BEGIN { for (i = 0; i < 20000; i++) {
	    f = sprintf(\"many/node%02d/rank-%d.log\", i % 50, i);
	    if (i < 50) system(\"mkdir -p many/node\" sprintf(\"%02d\", i));
	    printf \"[2024-05-01 10:00:00,000] INFO rank %d says hello %d\n\", i, i > f;
	    close(f) } }" &&
	trainscope index many >out 2>err &&
	grep "20000 files (20000 read, 0 unchanged, 0 failed), 20000 lines" err &&
	trainscope index many 2>out &&
	grep "20000 files, all unchanged" out
'
test_expect_success 'a --map or --hostfile that is no text file is refused, not read on and on' '
	mkdir -p M/n1 && good_log M/n1/r0.log 5 && mkdir -p hostdir &&
	test_must_fail 1 timeout 20 "$TS_BIN" index --map /dev/zero M 2>err &&
	grep "^trainscope: index: /dev/zero:1: NUL byte (not a text file?)$" err &&
	test_must_fail 1 timeout 20 "$TS_BIN" index --hostfile /dev/zero M 2>err &&
	grep "^trainscope: index: /dev/zero:1: NUL byte" err &&
	test_must_fail 1 trainscope index --hostfile hostdir M 2>err &&
	grep "^trainscope: index: cannot read .hostdir.: Is a directory$" err &&
	awk "BEGIN { printf \"n1/*\"; while (n++ < 5000) printf \" \"; print \"node9\" }" >long.map &&
	test_must_fail 1 trainscope index --map long.map M 2>err &&
	grep "^trainscope: index: long.map:1: a line of more than" err
'
test_expect_success 'failing runs leave job A as it was' '
	echo "bad" >badmap &&
	test_must_fail 1 trainscope index --map badmap A 2>err &&
	test_must_fail 1 trainscope index A no-such-dir 2>err &&
	grep "cannot open .no-such-dir." err &&
	trainscope templates --format tsv A >a.after &&
	test_cmp a.before a.after
'
test_done
