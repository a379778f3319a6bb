#!/bin/sh
# output.sh -- what trainscope writes for people and scripts: `jobs` and
# the panes uncut when piped, -q, ASCII under a locale that is not UTF-8,
# messages that name their command once; the JSON of every pane and its
# documented fields; the short report; opening a job by name on the
# screen; completion.
. "$TS_SRCDIR/t/lib/test-lib.sh"

# Only ASCII bytes in FILE.
ascii_only() {
	! LC_ALL=C grep -q "$(printf '[\200-\377]')" "$1"
}

test_expect_success 'the demo job is made' '
	trainscope demo >demo.out 2>&1 &&
	grep "^job gpt-run4" demo.out
'

LONG=fl01-ddp-nccl-imbalance-at-iteration-900
test_expect_success 'a job of a long name is indexed' '
	mkdir -p "$LONG/node-1" &&
	printf "[2024-05-01 12:00:01,000] INFO [rank 0] iteration 1/ 10 | lm loss: 7.0 |\n" \
	    >"$LONG/node-1/rank-0.log" &&
	trainscope index "$LONG" 2>err &&
	grep "^indexed 1 job" err
'

test_expect_success 'jobs piped cuts no name; the screen at 80 columns still does' '
	trainscope jobs >out &&
	grep "^$LONG  *- " out &&
	grep "^gpt-run4  *failed " out &&
	trainscope view jobs --width 80 >narrow &&
	! grep "$LONG" narrow && grep "^fl01-ddp-nccl-i" narrow
'

test_expect_success '-q silences the summary line, not the warnings' '
	rm -rf again && cp -r "$LONG" again &&
	printf "{}\n" >again/truth.json &&
	trainscope -q index again 2>err &&
	! grep "indexed" err &&
	grep "skipping" err
'

test_expect_success 'the events table names the nodes at 120 columns, counts them below' '
	trainscope view --width 120 events gpt-run4 >wide &&
	sed -n 3p wide | grep " on  *event$" &&
	grep "^86 .* 41  node-003  *NVRM: Xid" wide &&
	grep " 41  node-00[0-9],node-00[0-9] +1  " wide &&
	trainscope view --width 119 events gpt-run4 >narrow &&
	! grep "node-003  *NVRM" narrow
'

test_expect_success 'headless view draws ASCII under LANG=C, as the screen does' '
	LC_ALL= LC_CTYPE= LANG=C trainscope view events gpt-run4 >c.txt &&
	ascii_only c.txt &&
	grep "^86 ##" c.txt &&
	LC_ALL=C trainscope view heatmap gpt-run4 >h.txt && ascii_only h.txt &&
	LC_ALL=C.UTF-8 trainscope view events gpt-run4 >u.txt &&
	! ascii_only u.txt &&
	env -u LC_ALL -u LC_CTYPE -u LANG "$TS_BIN" view events gpt-run4 >n.txt &&
	cmp u.txt n.txt
'

test_expect_success 'a failed command in view names itself once' '
	test_expect_code 1 trainscope view events gpt-run4 -c "search zzzz" \
	    -c next 2>err &&
	test "$(cat err)" = "trainscope: view: -c '"'next'"': no match for /zzzz/"
'

# The screen under tmux, at 80x24; every check waits for a condition.
if command -v tmux >/dev/null 2>&1; then
	# the server of the last screen_on; every body is a subshell, so the
	# socket's name is kept in a file, not in a function
	echo "$TRASH/tmux.0.sock" >"$TRASH/sock"
	tm() { tmux -S "$(cat "$TRASH/sock")" "$@"; }
	WAIT=${WAIT:-90}
	wait_for() {
		end=$(($(date +%s) + WAIT))
		until tm capture-pane -p >screen 2>/dev/null &&
		    grep -qF -- "$1" screen; do
			[ "$(date +%s)" -lt "$end" ] || { cat screen >&2; return 1; }
			sleep 0.1
		done
	}
	# screen ARGS...: trainscope ARGS on a fresh 80x24 tmux
	screen_on() {
		tm kill-server 2>/dev/null
		n=$(($(cat "$TRASH/nscreen" 2>/dev/null || echo 0) + 1))
		echo $n >"$TRASH/nscreen"
		echo "$TRASH/tmux.$n.sock" >"$TRASH/sock"
		tm -f /dev/null new-session -d -x 80 -y 24 \
		    "env TERM=xterm LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME='$HOME' \
		    XDG_CACHE_HOME='$XDG_CACHE_HOME' $TS_BIN $* \
		    2>'$TRASH/stderr'; echo EXITED \$?; sleep 600"
	}
	test_expect_success 'the status line names a failed command once' '
		screen_on open gpt-run4 &&
		wait_for "? help  : command  q quit" &&
		tm send-keys "/zzzz" Enter && wait_for "no match for /zzzz/" &&
		tm send-keys n && wait_for "next: no match for /zzzz/" &&
		! grep -F "next: next:" screen &&
		tm send-keys q && wait_for EXITED
	'
	test_expect_success 'open JOB opens the screen on the job' '
		screen_on open gpt-run4 &&
		wait_for "? help  : command  q quit" &&
		grep "^gpt-run4  failed in training" screen &&
		grep "^events 1/" screen &&
		tm send-keys q && wait_for "EXITED 0"
	'
	test_expect_success 'trainscope JOB (a name of the cache) opens it too' '
		screen_on gpt-run4 &&
		wait_for "? help  : command  q quit" &&
		grep "^gpt-run4  failed in training" screen &&
		tm send-keys q && wait_for "EXITED 0"
	'
	test_expect_success 'the prompt completes paths for index, save, export, report, source' '
		mkdir -p reports-dir-one && : >session-file-one.ts &&
		screen_on open gpt-run4 &&
		wait_for "? help  : command  q quit" &&
		tm send-keys ":report reports-d" Tab &&
		wait_for ":report reports-dir-one/" &&
		tm send-keys C-u "source session-f" Tab &&
		wait_for ":source session-file-one.ts" &&
		tm send-keys C-u "pane he" Tab && wait_for ":pane heatmap" &&
		tm send-keys C-u Escape && tm send-keys q && wait_for EXITED
	'
	tm kill-server 2>/dev/null
else
	test_skip 'the prompt completes paths for index, save, export, report, source' 'no tmux'
	test_skip 'the status line names a failed command once' 'no tmux'
	test_skip 'open JOB opens the screen on the job' 'no tmux'
	test_skip 'trainscope JOB (a name of the cache) opens it too' 'no tmux'
fi

test_expect_success 'open JOB and JOB with no terminal say so, and fail' '
	test_expect_code 1 trainscope open gpt-run4 </dev/null >out 2>err &&
	test ! -s out &&
	grep "^trainscope: open: no terminal to open the screen on" err &&
	test_expect_code 1 trainscope gpt-run4 </dev/null >out 2>err &&
	grep "as text: trainscope view events gpt-run4$" err &&
	test_expect_code 2 trainscope gpt-run9 2>err &&
	grep "unknown command .gpt-run9." err &&
	trainscope -n -c "open gpt-run4" >out 2>err &&
	test ! -s out && test ! -s err
'

MAN="$TS_SRCDIR/help/trainscope.1"

# The fields the man page documents for diagnose: one path a line.
man_diagnose() {
	sed -n '/^\.SS "diagnose/,/^\.SS/p' "$MAN" | sed -n 's/^\.B //p' | sort -u
}
# The names in bold in the man page's entry of a pane under data.
man_pane() {
	sed -n '/^\.SS "view/,/^\.SH/p' "$MAN" |
	    sed -n "/^\.B $1\$/,/^\.TP/p" | grep -o '\\fB[a-z_]*' |
	    sed 's/\\fB//' | sort -u
}
# Every path of a JSON document, array indices as [].
json_paths() {
	jq -r '[paths | map(if type == "number" then "[]" else . end) |
	    join(".") | gsub("\\.\\[\\]"; "[]")] | unique | .[]' "$1"
}

test_expect_success 'diagnose JSON: schema 2, positions, real nulls, the fault rule' '
	trainscope diagnose --format json gpt-run4 >d.json &&
	jq -e ".schema == 2" d.json &&
	jq -e "[.events[].position] == [range(1; (.events | length) + 1)]" d.json &&
	jq -e "(.events[0] | has(\"rank\")) | not" d.json &&
	jq -e ".events[0].fault_rule == \"xid-79-fell-off-bus\"" d.json &&
	jq -e "[.events[] | select(.fault_rule == null)] | length > 0" d.json &&
	jq -e "[.. | objects | select(.stage == \"none\")] | length == 0" d.json &&
	trainscope view --format json timeline gpt-run4 >t.json &&
	jq -e ".data.stages[0].stage == null" t.json &&
	jq -e "[.. | objects | select(.stage == \"none\")] | length == 0" t.json
'

test_expect_success 'diagnose JSON: every field is in the man page, every documented one in the output' '
	trainscope diagnose --format json gpt-run4 >d.json &&
	man_diagnose >doc && test "$(wc -l <doc)" -gt 30 &&
	json_paths d.json >got &&
	# a path is documented, inside a documented field, or holds one
	awk "NR == FNR { doc[\$0] = 1; next }
	    { ok = 0
	      for (d in doc)
		if (\$0 == d || index(\$0, d \".\") == 1 ||
		    index(\$0, d \"[\") == 1 || index(d, \$0 \".\") == 1 ||
		    index(d, \$0 \"[\") == 1)
			ok = 1
	      if (!ok) { print \"undocumented: \" \$0; bad = 1 } }
	    END { exit bad }" doc got &&
	while read -r d; do
		grep -qxF "$d" got || { echo "not in the output: $d"; exit 1; }
	done <doc
'

test_expect_success 'every pane as JSON: schema, pane, job, data; its fields documented' '
	for p in events heatmap timeline groups lines log jobs; do
		trainscope view --format json events gpt-run4 -c drill \
		    -c "pane $p" >$p.json &&
		jq -e ".schema == 2 and .pane == \"$p\" and has(\"data\")" \
		    $p.json >/dev/null &&
		test "$(jq -r "keys | join(\",\")" $p.json)" = data,job,pane,schema &&
		if [ $p = events ]; then
			man_diagnose | sed -n "s/^events\[\]\.//p" |
			    tr ".[]" "\n\n\n" | grep . | sort -u >doc.$p
		else
			man_pane $p >doc.$p
		fi &&
		jq -r "[.data | .. | objects | keys[]] | unique | .[]" $p.json >keys.$p &&
		while read -r k; do
			grep -qxF "$k" doc.$p ||
			{ echo "$p: undocumented $k"; exit 1; }
		done <keys.$p || exit 1
	done &&
	jq -e ".job == null" jobs.json &&
	jq -e ".data.lines[0].kind and .data.source == \"event\"" lines.json &&
	trainscope view --format tsv events gpt-run4 -c drill -c "pane lines" >l.tsv &&
	head -1 l.tsv | grep "^path	line	kind	text$" && grep "	hit	" l.tsv
'

# The top-level fields the man page documents for one JSON output, in order.
man_top() {
	sed -n "/^\.SS \"$1 /,/^\.S[SH]/p" "$MAN" | sed -n "s/^\.B //p" |
	    paste -sd, -
}

test_expect_success 'templates and flows JSON: schema 2 first, then the fields the man page names' '
	trainscope templates --format json gpt-run4 >tm.json &&
	jq -e ".schema == 2 and (.templates | length) > 0" tm.json &&
	test "$(jq -r "keys_unsorted | join(\",\")" tm.json)" = \
	    "$(man_top templates)" &&
	root=$(trainscope jobs --format json | jq -r ".data[] |
	    select(.name == \"gpt-run4\") | .root") &&
	trainscope flows --format json "$root" >fl.json 2>/dev/null &&
	jq -e ".schema == 2 and (.jobs | length) > 0" fl.json &&
	test "$(jq -r "keys_unsorted | join(\",\")" fl.json)" = \
	    "$(man_top flows)" &&
	test "$(man_top flows)" = schema,hosts,messages,control_bytes,jobs
'

test_expect_success 'lines --event N is the Nth event of diagnose; --template ID a template' '
	trainscope diagnose --format json gpt-run4 >d.json &&
	first=$(jq -r ".events[0] | \"\(.first.path):\(.first.line):\"" d.json) &&
	trainscope lines -C0 --event 1 gpt-run4 >e1 &&
	grep -F ">" e1 | head -1 | grep -F "$first" &&
	tid=$(jq -r ".events[2].template_id" d.json) &&
	trainscope lines -C0 --event 3 gpt-run4 >e3 &&
	trainscope lines -C0 --template "$tid" gpt-run4 >t3 &&
	test_cmp e3 t3 &&
	test_expect_code 1 trainscope lines --event 999 gpt-run4 2>err &&
	grep "has [0-9]* events, not 999" err &&
	test_expect_code 2 trainscope lines --event 1 --template 2 gpt-run4 2>err &&
	grep "not both" err
'

test_expect_success 'the report opens with a verdict: what, where, when, what to do' '
	trainscope -n -c "open gpt-run4" -c "report r.txt" &&
	sed -n 2p r.txt >v &&
	grep "^Verdict: failed in training in iteration 41 on node-003: \[xid\] NVRM: Xid" v &&
	grep "(xid-79-fell-off-bus) at 2026-03-14 17:09:06 UTC; do: drain the node" v
'

test_expect_success 'the short report: consequences under their cause, no noise node, --full has all' '
	trainscope -n -c "open gpt-run4" -c "report r.txt" -c "report --full f.txt" &&
	sed -n "/^1\. \[xid\]/,/^2\. /p" r.txt >first &&
	grep "^   followed by (its consequences):" first &&
	grep "^     - \[timeout\] Watchdog caught collective operation timeout" first &&
	! grep "^[0-9]*\. \[timeout\]" r.txt &&
	sed -n "/^Suspect nodes/,/^Suspect events/p" r.txt >n && ! grep "node-00[24]" n &&
	sed -n "/^Suspect nodes/,/^Suspect events/p" f.txt >nf && grep "node-002  0.04" nf &&
	grep "left out: --full lists them" r.txt &&
	grep "^ *40  17:09:05  *796  last healthy$" r.txt &&
	! grep "^ *12  17:08:41" r.txt && grep "^ *12  17:08:41" f.txt &&
	test $(wc -l <f.txt) -gt $(wc -l <r.txt)
'

test_expect_success 'report x.md writes Markdown without --format; --format text keeps it plain' '
	trainscope -n -c "open gpt-run4" -c "report x.md" -c "report --format text y.md" \
	    -c "report z.MARKDOWN" &&
	head -1 x.md | grep "^# Failure report: gpt-run4$" &&
	sed -n 3p x.md | grep "^\*\*Verdict:\*\* failed" &&
	head -1 y.md | grep "^Failure report: gpt-run4$" &&
	head -1 z.MARKDOWN | grep "^# Failure report"
'

test_expect_success 'the short report of a long job of many nodes fits 120 lines' '
	trainscope simulate --nodes 48 --gpus-per-node 1 --tp 1 --pp 4 --dp 12 \
	    --iters 1500 --no-flows --fault ib-link-down@7:1490 long >/dev/null &&
	trainscope index long >/dev/null 2>&1 &&
	trainscope -n -c "open long" -c "report l.txt" -c "report l.md" \
	    -c "report --full lf.md" &&
	test $(wc -l <l.txt) -le 120 && test $(wc -l <l.md) -le 120 &&
	test $(wc -l <lf.md) -gt 1500 &&
	sed -n 2p l.txt | grep "^Verdict: failed in training in iteration 1490 on node-007" &&
	grep "^   followed by (its consequences):" l.txt
'

# comp WORDS...: what the bash completion script offers for the last
# word, trainscope on the PATH
comp() {
	mkdir -p bin && ln -sf "$TS_BIN" bin/trainscope &&
	PATH="$PWD/bin:$PATH" bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_trainscope; printf "%s\n" "${COMPREPLY[@]}"' \
	    _ "$TS_SRCDIR/help/completion/trainscope" "$@"
}
if command -v bash >/dev/null 2>&1; then
	test_expect_success 'bash completion: commands, options, panes, jobs, paths' '
		trainscope jobs --names >names &&
		grep -x gpt-run4 names &&
		env XDG_CACHE_HOME=$PWD/nowhere "$TS_BIN" jobs --names >none &&
		test ! -s none && test ! -e nowhere &&
		comp trainscope pa >c && grep -x pane c && grep -x parse c &&
		comp trainscope gpt-run >c && grep -x gpt-run4 c &&
		comp trainscope pane he >c && test "$(cat c)" = heatmap &&
		comp trainscope open gpt-run >c && test $(grep -c "^gpt-run[1-4]$" c) = 4 &&
		comp trainscope report --fu >c && grep -x -- --full c &&
		comp trainscope --cache x.db view --fo >c && grep -x -- --format c &&
		comp trainscope view --format j >c && test "$(cat c)" = json &&
		mkdir -p reports-here && comp trainscope export report >c &&
		grep -x reports-here c
	'
else
	test_skip 'bash completion: commands, options, panes, jobs, paths' 'no bash'
fi

# zcomp WORDS...: what the zsh completion function adds for the last
# word (compadd and _files stand in for zsh's own).  In the sanitizer
# build LeakSanitizer's tracer never stops a trainscope that zsh started
# (the process spins in StopTheWorld at exit, for ever): its leaks are
# checked everywhere else, so not under zsh.
zcomp() {
	mkdir -p bin && ln -sf "$TS_BIN" bin/trainscope &&
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	PATH="$PWD/bin:$PATH" zsh -fc '
		compadd() { if [[ $1 == -a ]]; then shift
			for a; do print -l -- ${(P)a}; done
			else print -l -- "$@"; fi }
		_files() { print FILES; }
		f=$1; shift; words=("$@"); CURRENT=$#; PREFIX=$words[CURRENT]
		source $f' _ "$TS_SRCDIR/help/completion/_trainscope" "$@"
}
if command -v zsh >/dev/null 2>&1; then
	test_expect_success 'zsh completion: panes, jobs, options, paths' '
		zcomp trainscope pane he >c && grep -x heatmap c && grep -x next c &&
		zcomp trainscope open g >c && grep -x gpt-run4 c &&
		zcomp trainscope report --f >c && grep -x -- --full c &&
		zcomp trainscope save x >c && grep -x FILES c &&
		zcomp trainscope --format j >c && grep -x json c
	'
else
	test_skip 'zsh completion: panes, jobs, options, paths' 'no zsh'
fi

test_expect_success 'make install puts the completion scripts where the shells look' '
	grep -q "^dist_bashcomp_DATA = help/completion/trainscope" "$TS_SRCDIR/Makefile.am" &&
	grep -q "^dist_zshcomp_DATA = help/completion/_trainscope" "$TS_SRCDIR/Makefile.am" &&
	grep -q "PKG_CHECK_VAR(\[bashcompdir\], \[bash-completion\], \[completionsdir\]" \
	    "$TS_SRCDIR/configure.ac" &&
	grep -q "^bashcompdir = " "$TS_BUILDDIR/Makefile" &&
	grep -q "^zshcompdir = .*zsh/site-functions" "$TS_BUILDDIR/Makefile" &&
	head -1 "$TS_SRCDIR/help/completion/_trainscope" | grep -x "#compdef trainscope"
'

test_done
