#!/bin/sh
# cli.sh -- the program's command line: options, exit statuses, messages.
. "$TS_SRCDIR/t/lib/test-lib.sh"

test_expect_success '--version and version agree' '
	trainscope --version >a && trainscope version >b &&
	grep "^trainscope [0-9].*cache schema" b && test_cmp a b
'
test_expect_success '--help prints the usage text and exits 0' '
	trainscope --help >out && head -1 out | grep "^usage: trainscope " &&
	trainscope -h >h && test_cmp out h &&
	grep -- "--replay FILE" out
'
test_expect_success 'no arguments: usage on stderr, status 2' '
	test_must_fail 2 trainscope 2>err && grep "^usage:" err
'
test_expect_success 'unknown option: one-line error, status 2' '
	test_must_fail 2 trainscope --bogus 2>err && grep "bad option .--bogus." err
'
test_expect_success 'unknown subcommand: status 2 and a hint' '
	test_must_fail 2 trainscope frobnicate 2>err &&
	grep "unknown command .frobnicate. (try .trainscope help.)" err
'
test_expect_success 'wrong arity: usage line, status 2' '
	test_must_fail 2 trainscope source 2>err &&
	test "$(cat err)" = "trainscope: usage: source FILE"
'
test_expect_success 'batch -c runs commands in order' '
	trainscope -n -c version -c "help version" >out &&
	head -1 out | grep "^trainscope " && grep "usage: version" out
'
test_expect_success 'batch -c error shows the line and a caret under the bad word' '
	test_must_fail 2 trainscope -c "help --nope" 2>err &&
	grep "unknown option .--nope." err &&
	grep "^  help --nope$" err && grep "^       ^$" err
'
test_expect_success 'replay: errors come back as FILE:LINE: message' '
	printf "quit 1\n# comment\n\nquit too many\n" >session &&
	test_must_fail 2 trainscope --replay session 2>err >out &&
	grep "^trainscope: session:1: usage: quit$" err
'
test_expect_success 'replay of a missing file fails with status 1' '
	test_must_fail 1 trainscope --replay nosuch 2>err &&
	grep "cannot open .nosuch." err
'
test_expect_success 'a file of commands may not source another' '
	printf "quit x\n" >inner && printf "source inner\n" >outer &&
	test_must_fail 2 trainscope source outer 2>err &&
	grep "^trainscope: outer:1: .source. is not allowed in a session file$" err &&
	! grep "inner:" err
'
test_expect_success 'subcommand options may come after the command' '
	trainscope cache path --cache "$PWD/c.db" >out &&
	test "$(cat out)" = "$PWD/c.db"
'
test_expect_success 'a write error on stdout is a failure' '
	if [ -w /dev/full ]; then
		test_must_fail 1 trainscope version >/dev/full 2>err &&
		grep "cannot write output" err
	fi
'
test_expect_success 'trainscope JOBDIR indexes the job, then diagnoses it' '
	mkdir -p job7/node01 job7/node02 &&
	for n in 01 02; do
		for i in 1 2 3; do
			echo "[2024-05-01 12:00:0$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 10.0 |"
		done >job7/node$n/rank-0.log
	done &&
	echo "[2024-05-01 12:00:04,000] ERROR RuntimeError: CUDA error: an illegal memory access was encountered" >>job7/node02/rank-0.log &&
	echo "[2024-05-01 12:10:04,000] ERROR Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out." >>job7/node01/rank-0.log &&
	trainscope job7 >out 2>err &&
	grep "^indexed 1 job" err && grep "^job job7:" out &&
	sed -n "/^suspect nodes/{n;p;}" out | grep node02
'
test_expect_success '--threads N, global or of index and diagnose, gives the same answer; 0 to 64' '
	cp -r job7 job8 && cp -r job7 job9 &&
	trainscope --cache t1.db --threads 1 job7 >o1 2>/dev/null &&
	trainscope --cache t2.db diagnose --threads 2 ./job8 >o2 2>/dev/null &&
	trainscope --cache t3.db --threads 2 index --threads 1 job9 2>/dev/null &&
	trainscope --cache t3.db diagnose job9 >o3 &&
	for i in 1 2 3; do grep . o$i | sed "s/job[789]/JOB/g" >n$i; done &&
	test_cmp n1 n2 && test_cmp n1 n3 &&
	test_must_fail 2 trainscope --threads 65 jobs 2>e1 &&
	grep "^trainscope: --threads wants a number from 0 to 64, not .65.$" e1 &&
	test_must_fail 2 trainscope --threads 2>e2 &&
	grep "^trainscope: --threads requires a number$" e2 &&
	test_must_fail 2 trainscope diagnose --threads x job7 2>e3 &&
	grep "^trainscope: diagnose: --threads wants a whole number" e3
'
test_expect_success 'machine output stays clean: status lines go to stderr' '
	mkdir -p clean/node01 &&
	for i in 1 2 3; do
		echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |" >>clean/node01/rank-0.log
	done &&
	trainscope -n -c "diagnose --format json clean" clean >out 2>err &&
	head -c 1 out | grep -q "{" && tail -1 out | grep -q "^}$" &&
	! grep "indexed" out && grep "^indexed 1 job" err
'
test_expect_success 'messages name their command: trainscope: COMMAND: message' '
	test_must_fail 1 trainscope diagnose nosuch 2>e1 &&
	grep "^trainscope: diagnose: no job .nosuch. (index it first)$" e1 &&
	test_must_fail 2 trainscope index --chunk 1 . 2>e2 &&
	grep "^trainscope: index: --chunk wants at least 1024 bytes" e2 &&
	test_must_fail 2 trainscope diagnose --bogus x 2>e3 &&
	grep "^trainscope: diagnose: unknown option .--bogus." e3 &&
	test "$(cat e1 e2 e3 | wc -l)" = 3
'
test_expect_success 'a missing value names the option; advice fits the file given' '
	test_must_fail 2 trainscope --cache 2>e1 &&
	grep "^trainscope: --cache requires a file$" e1 &&
	test_must_fail 2 trainscope cache --cache 2>e3 &&
	grep "^trainscope: cache: --cache requires a file$" e3 &&
	test_must_fail 2 trainscope --replay 2>e4 &&
	grep "^trainscope: --replay requires a file of commands$" e4 &&
	test_must_fail 2 trainscope index --chunk 2>e5 &&
	grep "^trainscope: index: --chunk requires a number of bytes$" e5 &&
	test_must_fail 2 trainscope --help=yes 2>e6 &&
	grep "^trainscope: option .--help. takes no value$" e6 &&
	echo "not a cache" >mine.txt &&
	test_must_fail 1 trainscope --cache mine.txt jobs 2>e2 &&
	grep "mine.txt. is not a trainscope cache" e2 && ! grep "remove\|move it" e2 &&
	test "$(cat mine.txt)" = "not a cache"
'
test_expect_success 'lines JOB PATH:LINE -C N, as grep takes it; a line or event the job lacks is an error' '
	mkdir -p lj/node01 &&
	for i in 1 2 3 4 5 6 7 8 9; do
		echo "[2024-05-01 12:00:0$i,000] INFO step $i of 9"
	done >lj/node01/rank-0.log &&
	trainscope index lj 2>/dev/null &&
	trainscope lines lj node01/rank-0.log:5 -C 1 >c1 &&
	test "$(cut -d: -f2 c1 | tr "\n" " ")" = "4 5 6 " &&
	grep "^node01/rank-0.log:5:>.*step 5 of 9" c1 &&
	trainscope lines -C0 lj node01/rank-0.log:5 >c0 && test_line_count = 1 c0 &&
	trainscope lines --context 1 lj node01/rank-0.log:5 >long && test_cmp c1 long &&
	test_must_fail 1 trainscope lines lj node01/rank-0.log:12 >out 2>err &&
	test ! -s out &&
	grep "^trainscope: lines: .node01/rank-0.log. has 9 lines in the index, not 12$" err &&
	test_must_fail 1 trainscope lines --template 99999 lj 2>err &&
	grep "^trainscope: lines: job lj has no event of template 99999" err &&
	test_must_fail 2 trainscope lines lj node01/rank-0.log:5 -C 2>err &&
	grep "^trainscope: lines: --context requires a number$" err
'
test_expect_success 'lines warns when a file changed since it was indexed, size kept or not' '
	mkdir -p rw/node01 &&
	awk "BEGIN { for (i = 1; i <= 5000; i++)
	    printf \"[2024-05-01 12:00:00,000] INFO step %04d of 5000 ok\n\", i }" \
	    >rw/node01/rank-0.log &&
	trainscope index rw 2>/dev/null &&
	trainscope lines -C0 rw node01/rank-0.log:4500 >l0 2>e0 &&
	grep "step 4500 of" l0 && test ! -s e0 &&
	trainscope lines -C0 --template "$(trainscope templates --format tsv rw |
	    awk -F "\t" "NR == 2 { print \$2 }")" rw >/dev/null 2>e0 && test ! -s e0 &&
	cp -p rw/node01/rank-0.log keep.log &&
	{ echo "[2024-05-01 12:00:00,000] INFO step 0000 of 5000 okX" &&
	  sed "\$d" keep.log; } | head -c "$(wc -c <keep.log)" >rw/node01/rank-0.log &&
	test "$(wc -c <rw/node01/rank-0.log)" = "$(wc -c <keep.log)" &&
	trainscope lines -C0 rw node01/rank-0.log:96 >l1 2>e1 &&
	grep "^trainscope: lines: warning: .node01/rank-0.log. changed since it was indexed (index the job again)" e1 &&
	touch -r keep.log rw/node01/rank-0.log &&
	trainscope lines -C0 rw node01/rank-0.log:4500 >l2 2>e2 &&
	grep "^trainscope: lines: warning: .node01/rank-0.log. was rewritten since it was indexed" e2 &&
	cp -p keep.log rw/node01/rank-0.log && touch -r keep.log rw/node01/rank-0.log &&
	trainscope lines -C0 rw node01/rank-0.log:4500 >l3 2>e3 && test ! -s e3 ||
	{ cat e1 e2 e3; false; }
'
# tsv_table FILE: one header line, then rows of as many fields as it has
tsv_table() {
	test "$(wc -l <"$1")" -ge 2 &&
	head -1 "$1" | grep -q "^[a-z][a-z_]*	" &&
	awk -F "\t" "NR == 1 { n = NF } NF != n { print FILENAME \": line \" NR \" has \" NF \" fields, the header \" n; bad = 1 }
	    NR > 1 && \$1 == \"$(head -1 "$1" | cut -f1)\" { print FILENAME \": header again at \" NR; bad = 1 }
	    END { exit bad }" "$1"
}
test_expect_success 'every --format tsv is one header line and rows of its shape' '
	trainscope simulate --nodes 2 --gpus-per-node 2 --iters 20 --fault gpu-xid79@2:12 tj >/dev/null &&
	trainscope index tj 2>/dev/null &&
	trainscope jobs --format tsv >jobs.tsv && tsv_table jobs.tsv &&
	trainscope templates --format tsv >tmpl.tsv && tsv_table tmpl.tsv &&
	trainscope diagnose --format tsv tj >diag.tsv && tsv_table diag.tsv &&
	trainscope parse --format tsv tj/host/node-001.log tj/host/node-002.log >parse.tsv &&
	tsv_table parse.tsv &&
	for p in events heatmap groups jobs; do
		trainscope view --format tsv $p tj >$p.tsv && tsv_table $p.tsv || exit 1
	done &&
	trainscope -n -c "open tj" -c "export --format tsv export.tsv" &&
	tsv_table export.tsv &&
	trainscope flows --no-cache --format tsv tj >flows.tsv &&
	tsv_table flows.tsv && grep "^iteration	" flows.tsv && grep "^pair	" flows.tsv
'
test_expect_success 'every path diagnose prints opens from the root it prints, at the line lines shows' '
	trainscope diagnose tj >d.txt 2>/dev/null &&
	root=$(sed -n "s/^files under //p" d.txt) && test -d "$root" &&
	grep -o "first [^ ]*:[0-9]*" d.txt | cut -d" " -f2 >places &&
	test "$(wc -l <places)" -ge 3 &&
	while IFS=: read -r path line; do
		test -f "$root/$path" || { echo "no $root/$path"; exit 1; }
		sed -n "${line}p" "$root/$path" >want &&
		trainscope lines -C 0 tj "$path:$line" | sed "s/^[^>]*:>//" >got &&
		test_cmp want got || exit 1
	done <places
'
test_expect_success 'plurals: a one-node job reads 1 node, 1 file, 1 line' '
	mkdir -p one/n1 &&
	echo "[2024-05-01 10:00:02,000] ERROR RuntimeError: boom" >one/n1/r.log &&
	trainscope index one 2>err &&
	grep "^indexed 1 job: 1 file (1 read, 0 unchanged, 0 failed), 1 line, " err &&
	trainscope -n -c "open one" -c "report -" >r &&
	grep "^compared     1 node, [0-9]* healthy runs* compared, 0 anomalous iterations$" r &&
	trainscope view events one | head -1 | grep "  1 node  [0-9]* healthy runs* compared"
'
test_expect_success 'a file of commands with a line past 64 KiB is refused, not read whole' '
	{ echo "pane events"; head -c 100000 /dev/zero | tr "\\0" x; echo; } >long.ts &&
	test_must_fail 2 trainscope --replay long.ts >out 2>err &&
	test ! -s out &&
	grep "^trainscope: long.ts:2: a line of more than 65536 bytes (not a file of commands?)$" err &&
	test_must_fail 2 timeout 20 "$TS_BIN" --replay /dev/zero 2>err &&
	grep "^trainscope: /dev/zero:1: a line of more than 65536 bytes" err &&
	head -c 200000 /dev/zero | tr "\\0" y | test_must_fail 2 trainscope source /dev/stdin 2>err &&
	grep "^trainscope: /dev/stdin:1: a line of more than" err
'
test_expect_success 'closed standard streams: /dev/null stands in, no file takes their place' '
	mkdir -p cj/n1 &&
	printf "[2024-05-01 12:00:01,000] INFO [rank 0] iteration 1/ 10 | lm loss: 7.0 |\n" >cj/n1/r0.log &&
	"$TS_BIN" index cj <&- 2>&- >&- &&
	"$TS_BIN" -c "open cj" -c "report r.txt" <&- >&- 2>&- &&
	grep "^Verdict" r.txt &&
	"$TS_BIN" -c "source /dev/stdin" <&- >out 2>err &&
	test ! -s out && test ! -s err &&
	"$TS_BIN" diagnose --format json cj <&- 2>&- >d.json &&
	jq -e ".schema == 2" d.json >/dev/null
'
test_done
