#!/bin/sh
# inert.sh -- bytes from logs, file and directory names never reach the
# terminal raw: every text and TSV printer shows C0 and C1 controls, DEL
# and invalid UTF-8 escaped (^[, <U+009B>, \x9B), JSON escapes them, and
# so do the warnings and messages on stderr.
. "$TS_SRCDIR/t/lib/test-lib.sh"

esc=$(printf '\033')
bel=$(printf '\007')
csi=$(printf '\302\233')	# U+009B, the one-character CSI
bad=$(printf '\233')		# the same byte alone: not UTF-8
del=$(printf '\177')
sq="'"
J="job${esc}]0;title${bel}${csi}7m"
F="rank-0${esc}[2J${bad}.log"

# raw FILE [tsv]: FILE holds a control byte (tabs allowed in TSV), a C1
# control or bytes that are not UTF-8
raw() {
	if [ "$2" = tsv ]; then c='[\001-\010\013-\037\177]'; else c='[\001-\011\013-\037\177]'; fi
	LC_ALL=C grep -q "$(printf "$c")" "$1" && { echo "$1: control byte"; return 0; }
	LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1" && { echo "$1: C1 control"; return 0; }
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || { echo "$1: not UTF-8"; return 0; }
	return 1
}
# inert FILE [tsv]: FILE is not empty and holds no raw byte
inert() { test -s "$1" && ! raw "$@"; }

test_expect_success 'setup: a job whose name, file names and lines carry escapes' '
	mkdir -p "$J/node01" "$J/node02" &&
	for n in 01 02; do
		for i in 1 2 3 4 5; do
			echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |"
		done >"$J/node$n/$F" || exit 1
	done &&
	echo "[2024-05-01 12:00:17,000] ERROR RuntimeError: owned ${esc}]0;pwned${bel} ${esc}[2J ${csi}31m ${bad}X ${del}" >>"$J/node02/$F" &&
	raw "$J/node02/$F" &&
	printf "x\n" >"$J/node02/gone${esc}[5m.log" &&
	ln -s nowhere "$J/node01/dangling${esc}[5m.log" &&
	trainscope index "$J" >idx.out 2>idx.err &&
	grep "warning: cannot read" idx.err
'
test_expect_success 'index: the summary and the warnings' '
	inert idx.err && grep -F "; job job^[]0;title^G<U+009B>7m" idx.err &&
	grep -F "dangling^[[5m.log" idx.err
'
test_expect_success 'jobs: text and tsv' '
	trainscope jobs >j.txt && inert j.txt &&
	trainscope jobs --format tsv >j.tsv && inert j.tsv tsv &&
	grep -F "job^[]0;title^G<U+009B>7m" j.tsv
'
test_expect_success 'templates: text and tsv (job names and templates)' '
	trainscope templates >t.txt && inert t.txt &&
	grep -F "job job^[]0;title^G<U+009B>7m" t.txt &&
	trainscope templates --format tsv >t.tsv && inert t.tsv tsv &&
	grep -F "owned ^[]" t.tsv
'
test_expect_success 'parse: text, tsv and its warnings' '
	trainscope parse "$J/node02/$F" >p.txt && inert p.txt &&
	grep -F "rank-0^[[2J\\x9B.log:6: [2] RuntimeError: owned ^[]" p.txt &&
	trainscope parse --format tsv "$J/node02/$F" >p.tsv && inert p.tsv tsv &&
	test_must_fail 1 trainscope parse "$J/node01/dangling${esc}[5m.log" 2>p.err &&
	inert p.err && grep -F "dangling^[[5m.log" p.err
'
test_expect_success 'diagnose: text, tsv and json' '
	trainscope diagnose "$J" >d.txt && inert d.txt &&
	grep -F "RuntimeError: owned ^[]" d.txt &&
	trainscope diagnose --format tsv "$J" >d.tsv && inert d.tsv tsv &&
	trainscope diagnose --format json "$J" >d.json && inert d.json &&
	grep -F "owned \\u001b]" d.json && grep -F "title\\u0007\\u009b7m" d.json &&
	jq -r .job d.json | grep -q "^job"
'
test_expect_success 'view: every pane as text' '
	for p in events heatmap timeline groups jobs; do
		trainscope view --width 200 $p "$J" >v.$p && inert v.$p || exit 1
	done &&
	trainscope view --width 200 events "$J" -c "search /owned/" -c drill \
	    -c "pane lines" >v.lines &&
	inert v.lines && grep -F "owned ^[]0;pwned^G ^[[2J <U+009B>31m \\x9BX ^?" v.lines &&
	trainscope view --width 200 events "$J" -c "search /owned/" -c drill >v.log &&
	inert v.log && grep -F "owned ^[]0;pwned^G ^[[2J <U+009B>31m \\x9BX ^?" v.log &&
	grep -F "rank-0^[[2J\\x9B.log:6 " v.log
'
test_expect_success 'view and export: the panes as tsv' '
	for p in events heatmap groups jobs log; do
		trainscope view --format tsv $p "$J" >v.$p.tsv &&
		inert v.$p.tsv tsv || exit 1
	done &&
	trainscope view --format json log "$J" >v.log.json && inert v.log.json &&
	grep -F "owned \\u001b]0;pwned" v.log.json &&
	trainscope -n -c "open $J" -c "pane log" -c "export lx.txt" && inert lx.txt &&
	grep -F "owned ^[]<*>;pwned^G <*> \\x9BX ^?" v.events.tsv &&
	trainscope -n -c "open $J" -c "export --format tsv e.tsv" -c "export e.txt" &&
	inert e.tsv tsv && inert e.txt
'
test_expect_success 'lines: PATH:LINE, --event and --node --iter' '
	trainscope lines "$J" "node02/$F:6" >l1 && inert l1 &&
	grep -F "node02/rank-0^[[2J\\x9B.log:6:>" l1 &&
	id=$(trainscope diagnose --format json "$J" | jq ".events[0].template_id") &&
	trainscope lines --event "$id" "$J" >l2 && inert l2 &&
	trainscope lines --node node02 --iter 3 "$J" >l3 && inert l3
'
test_expect_success 'report: text and markdown' '
	trainscope -n -c "open $J" -c "report r.txt" -c "report --format md --paths r.md" &&
	inert r.txt && inert r.md &&
	grep -F "Failure report: job^[]0;title^G<U+009B>7m" r.txt
'
test_expect_success 'report: a user rule'"'"'s category goes out inert, text and Markdown' '
	mkdir -p cfg/trainscope &&
	printf "[owned]\npattern  = RuntimeError: owned\ncategory = cat${esc}]0;t${bel}${esc}[2J\nexplain  = ex${esc}[5m\n" >cfg/trainscope/faults &&
	XDG_CONFIG_HOME=$PWD/cfg trainscope -n -c "open $J" -c "report rc.txt" \
	    -c "report --format md rc.md" 2>rc.err &&
	inert rc.txt && inert rc.md &&
	grep -F "[cat^[]0;t^G^[[2J] RuntimeError: owned" rc.txt &&
	grep -F "means: ex^[[5m" rc.txt &&
	grep -F "**[cat^\\[\\]0;t^G^\\[\\[2J] RuntimeError: owned" rc.md
'
# md_outside FILE: the lines of a Markdown file outside its fenced code
# blocks (a fence closes on a fence at least as long)
md_outside() {
	awk '
	{ line = $0; sub(/^ */, "", line) }
	fence == 0 && match(line, /^```+/) { fence = RLENGTH; next }
	fence > 0 && match(line, /^```+ *$/) && RLENGTH >= fence { fence = 0; next }
	fence == 0 { print }
	' "$1"
}
test_expect_success 'report --format md: log text cannot bring HTML, links or table cells' '
	M="md|job" &&
	mkdir -p "$M/node01" "$M/node02" &&
	for n in 01 02; do
		for i in 1 2 3 4 5; do
			echo "[2024-05-01 12:00:1$i,000] INFO  iteration $i/ 10 | elapsed time per iteration (ms): 100.$i |"
		done >"$M/node$n/rank-0.log" || exit 1
	done &&
	echo "[2024-05-01 12:00:17,000] ERROR RuntimeError: <img src=x onerror=alert(1)> [click](javascript:alert(1)) *bold* \`\`\`\` a|b" >>"$M/node02/rank-0.log" &&
	trainscope index "$M" >/dev/null 2>&1 &&
	trainscope -n -c "open $M" -c "report --format md h.md" &&
	md_outside h.md >out.md &&
	grep -F "RuntimeError: \\<img src=" out.md && grep -F "\\[click\\](javascript" out.md &&
	! grep "[^\\\\]<img" out.md && ! grep "[^\\\\]\\](javascript" out.md &&
	! grep "[^\\\\*]\\*bold" out.md &&
	grep -Fx "| job | md\\|job |" out.md &&
	test "$(grep -c "^| " out.md)" -ge 4 &&
	! grep "^| .*[^\\\\]|.*[^\\\\]|.*[^\\\\]|.*|" out.md &&
	grep -F "<img src=x onerror=alert(1)> [click](javascript:alert(1))" h.md &&
	grep -F "node02/rank-0.log:6: [" h.md &&
	grep -x "   \`\`\`\`\`" h.md
'
test_expect_success 'cache info, mark and forget' '
	trainscope cache info >c.txt && inert c.txt &&
	trainscope mark "$J" bad >m.txt && inert m.txt &&
	grep -F "job job^[]0;title^G<U+009B>7m marked bad" m.txt &&
	trainscope forget "$J" 2>f.err && inert f.err
'
test_expect_success 'error messages show the words they quote inert' '
	test_must_fail 1 trainscope diagnose "nosuch${esc}]0;x${bel}" 2>e1 &&
	inert e1 && grep -F "no job ${sq}nosuch^[]0;x^G${sq}" e1 &&
	test_must_fail 2 trainscope -c "jobs --x${esc}[2J" 2>e2 && inert e2 &&
	grep -F "unknown option ${sq}--x^[[2J${sq}" e2 && grep -Fx "  jobs --x^[[2J" e2 &&
	echo >plain &&
	test_must_fail 1 trainscope --cache "plain/c${esc}[2J.db" jobs 2>e3 &&
	inert e3 && grep -F "plain/c^[[2J.db" e3
'
test_done
