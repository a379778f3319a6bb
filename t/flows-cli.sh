#!/bin/sh
# flows-cli.sh -- the flows command's argument and input errors.
. "$TS_SRCDIR/t/lib/test-lib.sh"

test_expect_success 'a bad --gap is a usage error naming the value' '
	test_must_fail 2 trainscope flows --gap x . 2>err &&
	grep "gap wants a positive number of seconds, not .x." err
'
test_expect_success 'an unknown format is a usage error' '
	test_must_fail 2 trainscope flows --format xml . 2>err &&
	grep "unknown format .xml." err
'
test_expect_success 'a missing input fails and is named' '
	test_must_fail 1 trainscope flows no-such.pcap 2>err &&
	grep "cannot open .no-such.pcap." err
'
test_expect_success 'a directory without captures fails clearly' '
	mkdir empty && echo "not a capture" >empty/notes.txt &&
	test_must_fail 1 trainscope flows empty 2>err &&
	grep "no capture or flow records found" err
'
test_done
