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
	grep "^schema:  3" out && test -s "$XDG_CACHE_HOME/trainscope/cache.db"
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
test_expect_success 'bad --cache value: usage status 2' '
	test_must_fail 2 trainscope cache --cache 2>err && grep "needs a value" err
'
test_done
