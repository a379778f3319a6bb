#!/bin/sh
# help.sh -- every command has help text, written once.
. "$TS_SRCDIR/t/lib/test-lib.sh"

commands() { trainscope help | sed -n '/^Commands/,/^$/p' | awk 'NF && !/^Commands/ {print $1}'; }

test_expect_success 'help lists commands and topics' '
	trainscope help >out && grep "^Commands" out && grep "^Topics" out &&
	test "$(commands | wc -l)" -ge 4
'
test_expect_success 'every command has help/<name>.txt' '
	for c in $(commands); do
		test -f "$TS_SRCDIR/help/$c.txt" || { echo "no help/$c.txt"; exit 1; }
	done
'
test_expect_success 'every command summary is the first line of its help text' '
	trainscope help >list &&
	for c in $(commands); do
		want=$(head -1 "$TS_SRCDIR/help/$c.txt")
		grep -F "  $c" list | grep -qF "$want" || { echo "summary of $c differs from help/$c.txt"; exit 1; }
	done
'
test_expect_success 'help COMMAND prints usage and the body' '
	for c in $(commands); do
		trainscope help "$c" >out || exit 1
		head -1 out | grep -q "^usage: $c" || { echo "no usage for $c"; exit 1; }
	done
'
test_expect_success 'every command is in the man page' '
	for c in $(commands); do
		grep -q "^\\.B $c\$" "$TS_SRCDIR/help/trainscope.1" || { echo "$c missing from trainscope.1"; exit 1; }
	done
'
test_expect_success 'help for an unknown name fails with status 1' '
	test_must_fail 1 trainscope help nosuch 2>err && grep "no help for .nosuch." err
'
test_expect_success 'COMMAND --help and -h print its help and exit 0' '
	trainscope simulate -h >out &&
	head -1 out | grep "^usage: simulate " && ! test -e ./-h &&
	trainscope diagnose --help >out && head -1 out | grep "^usage: diagnose " &&
	trainscope -n -c "filter --help" >out && head -1 out | grep "^usage: filter "
'
test_expect_success 'every command takes --help and -h, anywhere before --, and writes nothing else' '
	for c in $(commands); do
		trainscope $c --help >a 2>err && trainscope $c -h >b 2>>err &&
		trainscope $c x --help y >c 2>>err &&
		head -1 a | grep -q "^usage: $c" && test_cmp a b && test_cmp a c &&
		test ! -s err || { echo "$c --help"; exit 1; }
	done &&
	ls -A >left && ! grep -v "^\(a\|b\|c\|err\|left\|home\|xdg-cache\|out\|list\|\.out\)$" left
'
test_expect_success 'help flows prints its usage once' '
	trainscope help flows >out &&
	test "$(grep -c "^usage: flows" out)" = 1
'
test_expect_success 'every option of every command is in the man page' '
	for c in $(commands); do
		trainscope help $c | head -1 | grep -o -- "--[a-z-]*" | sort -u |
		while read -r o; do
			esc=$(printf "%s" "$o" | sed "s/-/\\\\\\\\-/g") &&
			grep -q -- "$esc" "$TS_SRCDIR/help/trainscope.1" ||
				{ echo "$c $o missing from trainscope.1"; exit 1; }
		done || exit 1
	done
'
test_expect_success 'the man page has its sections' '
	for sec in SYNOPSIS OPTIONS COMMANDS SCREEN ENVIRONMENT FILES "EXIT STATUS" EXAMPLES; do
		grep -q "^\.SH $sec" "$TS_SRCDIR/help/trainscope.1" || { echo "no $sec"; exit 1; }
	done &&
	for e in XDG_CACHE_HOME XDG_STATE_HOME XDG_CONFIG_HOME NO_COLOR TERM; do
		grep -q "^\.B $e" "$TS_SRCDIR/help/trainscope.1" || { echo "no $e"; exit 1; }
	done
'
test_expect_success 'the commands a session file may hold are the ones the man page and help source name' '
	mkdir -p allow && cd allow &&
	for c in $(commands); do
		echo "$c" >one.ts
		trainscope --replay one.ts --export /dev/null >/dev/null 2>err
		grep -q "is not allowed in a session file" err || echo "$c"
	done >allowed &&
	test "$(wc -l <allowed)" -ge 10 && ! grep -x "report\|save\|export\|source" allowed &&
	sed -n "/^A session file may only change the view:/,/and none with/p" \
	    "$TS_SRCDIR/help/trainscope.1" | grep -o "\\\\fB[a-z]*\\\\fR" |
	    sed "s/^.fB//; s/.fR$//" | sort >man &&
	sed -n "/only the commands/,/none with/p" "$TS_SRCDIR/help/source.txt" |
	    sed -n "s/.*(\(.*\)).*/\1/p; s/.*(\(.*\)/\1/p; s/^\([a-z, ]*\)).*/\1/p; /^[a-z, ]*$/p" |
	    tr ", " "\n\n" | grep . | sort -u >src &&
	sort allowed >want && test_cmp want man && test_cmp want src
'
test_done
