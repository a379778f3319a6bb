#!/bin/sh
# parse.sh -- 'trainscope parse': formats, gzip, CRLF, NUL bytes, huge
# lines, unreadable files.
. "$TS_SRCDIR/t/lib/test-lib.sh"

test_expect_success 'tsv: a header, then path, line, id, template for every line' '
	printf "%s\n" "2024-05-01 12:00:00 INFO step 1 loss 2.5" \
	    "2024-05-01 12:00:01 INFO step 2 loss 2.4" \
	    "2024-05-01 12:00:02 ERROR CUDA out of memory" >a.log &&
	trainscope parse --format tsv a.log >out &&
	printf "file\tline\tid\ttemplate\na.log\t1\t1\tstep <*> loss <*>\na.log\t2\t1\tstep <*> loss <*>\na.log\t3\t2\tCUDA out of memory\n" >want &&
	test_cmp want out
'
test_expect_success 'text format is the default' '
	trainscope parse a.log >out &&
	grep -x "a.log:3: \[2\] CUDA out of memory" out
'
test_expect_success 'gzip and plain give the same templates; ids are shared' '
	gzip -c a.log >b.log.gz &&
	trainscope parse --format tsv a.log b.log.gz >out &&
	test_line_count = 7 out &&
	test "$(cut -f3 out | tr "\n" " ")" = "id 1 1 2 1 1 2 "
'
test_expect_success 'CRLF, NUL bytes and a missing final newline' '
	printf "x 1\r\ny\0z 2\r\nlast 3" >c.log &&
	trainscope parse --format tsv c.log >out &&
	test_line_count = 4 out && ! grep "$(printf "\r")" out &&
	grep -x "c.log	3	3	last <\*>" out
'
test_expect_success 'a huge line is cut to a bounded prefix' '
	awk "BEGIN { for (i = 0; i < 200000; i++) printf \"word%d \", i; print \"\"; print \"after 1\" }" >d.log &&
	trainscope parse --format tsv d.log >out &&
	test_line_count = 3 out && grep -x "d.log	2	2	after <\*>" out
'
test_expect_success 'unreadable file: one line naming it, others still parsed, status 1' '
	test_must_fail 1 trainscope parse --format tsv nosuch.log a.log >out 2>err &&
	grep "cannot open .nosuch.log." err && test_line_count = 4 out &&
	test_line_count = 2 err
'
test_expect_success 'a directory is an error, not a crash' '
	mkdir dir && test_must_fail 1 trainscope parse dir 2>err &&
	grep "dir" err
'
test_expect_success 'truncated gzip: warning naming the file' '
	awk "BEGIN { for (i = 0; i < 20000; i++) print \"line\", i, rand() }" | gzip -c >e.gz &&
	head -c 20000 e.gz >t.gz &&
	test_must_fail 1 trainscope parse t.gz >out 2>err &&
	grep "t.gz" err
'
test_expect_success "standard input, plain or gzip, through the same reader" '
	printf "x 1\r\ny 2\nx 3" >in.log && gzip -c in.log >in.gz &&
	trainscope parse --format tsv - <in.log >plain &&
	trainscope parse --format tsv - <in.gz >gz &&
	cat in.gz | trainscope parse --format tsv - >piped &&
	test_line_count = 4 plain && test_cmp plain gz && test_cmp plain piped &&
	grep -x -e "-	3	1	x <\*>" plain
'
test_expect_success 'bad --format is a usage error' '
	test_must_fail 2 trainscope parse --format xml a.log 2>err &&
	grep "unknown format" err
'
test_done
