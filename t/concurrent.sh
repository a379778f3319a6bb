#!/bin/sh
# concurrent.sh -- several trainscope processes on one cache: writers
# indexing different jobs at once (overlapping template sets) and a
# reader must store exactly what serial runs store, line for line.
. "$TS_SRCDIR/t/lib/test-lib.sh"

# make_job DIR J SEED: a job whose messages are shared by every job (short
# ones) or its own (lengths no other job uses, so no template of one job
# can absorb another's); lines in an order the seed shuffles.
make_job() {
	mkdir -p "$1/node0$2" &&
	awk -v j="$2" -v seed="$3" 'BEGIN {
		srand(seed)
		split("alpha beta gamma", name, " ")
		for (i = 1; i <= 3000; i++) {
			r = int(rand() * 12)
			if (r < 4) {		# shared: 2 to 5 words
				n = 2 + r; m = "shared"
			} else {		# this job: 6 + 8j + (r - 4) words
				n = 6 + 8 * j + (r - 4); m = name[j]
			}
			for (k = 1; k < n; k++)	# words of letters only
				m = m " w" substr("abcdefghijklmnopqrstuvwxyz", k, 1)
			printf "[2024-05-01 10:%02d:%02d,000] INFO %s\n",
			    int(i / 60) % 60, i % 60, m
		}
	}' >"$1/node0$2/rank-0.log"
}

# stored CACHE JOB: every file, template text and count the cache holds
stored() {
	sqlite3 "$1" "SELECT f.path, t.text, ft.count, ft.first_line
	    FROM file_templates ft JOIN files f ON f.id = ft.file_id
	    JOIN templates t ON t.id = ft.template_id
	    JOIN jobs j ON j.id = f.job_id WHERE j.name = '$2'
	    ORDER BY 1, 2"
}

test_expect_success 'three jobs, indexed one after another' '
	for j in 1 2 3; do make_job job$j $j $((j * 7)) || exit 1; done &&
	for j in 1 2 3; do
		trainscope --cache serial.db index job$j 2>/dev/null || exit 1
	done &&
	for j in 1 2 3; do stored serial.db job$j >serial.$j || exit 1; done &&
	test "$(wc -l <serial.1)" -ge 12
'

test_expect_success 'three writers and a reader at once store the same, every round' '
	for round in 1 2 3 4; do
		rm -f conc.db* &&
		trainscope --cache conc.db cache info >/dev/null &&
		for j in 1 2 3; do
			trainscope --cache conc.db index job$j >/dev/null 2>w$j.err &
		done &&
		for k in 1 2 3 4 5; do
			trainscope --cache conc.db jobs >/dev/null 2>>r.err
		done &&
		wait &&
		for j in 1 2 3; do
			stored conc.db job$j >conc.$j &&
			test_cmp serial.$j conc.$j || exit 1
		done
	done &&
	! grep -v "^$" r.err
'

test_expect_success 'three runs on one job at once: each file stored once, as a serial run stores it' '
	mkdir -p big &&
	for j in 1 2 3; do cp -r job$j/node0$j big/ || exit 1; done &&
	for k in 1 2 3 4 5 6; do
		cp big/node01/rank-0.log big/node01/copy-$k.log || exit 1
	done &&
	trainscope --cache one.db index big 2>/dev/null &&
	stored one.db big >one.txt &&
	for round in 1 2 3; do
		rm -f same.db* &&
		trainscope --cache same.db cache info >/dev/null &&
		for k in 1 2 3; do
			trainscope --cache same.db index --commit 0 big \
			    >/dev/null 2>s$k.err &
		done &&
		wait &&
		! grep -v "^indexed 1 job" s1.err s2.err s3.err &&
		stored same.db big >same.txt &&
		test_cmp one.txt same.txt || exit 1
	done
'

test_done
