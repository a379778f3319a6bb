#!/bin/sh
# soak.sh -- for SOAK_SECS seconds (5), rounds of three random jobs
# indexed at once by three writers that commit after every file, while a
# reader lists and diagnoses: every round must store, line for line, what
# serial runs of the same jobs store.  The jobs share templates that each
# job generalises at other positions, so a writer that kept an old text
# of a template another had generalised would undo the other's change.
. "$TS_SRCDIR/t/lib/test-lib.sh"

SOAK_SECS=${SOAK_SECS:-5}

# make_job DIR J SEED: files of lines from four kinds of messages --
# shared plain ones, ones of this job only (its own plain word), and eight
# families "sync FAMILY stage mod.X from dir.Y via host.Z ready now" that
# each file varies at X, Y, Z or not at all, as the seed decides.  Whatever the
# order the lines come in, each family is one template and its text the
# same, so serial and concurrent runs must agree.
make_job() {
	awk -v dir="$1" -v j="$2" -v seed="$3" 'BEGIN {
		srand(seed)
		split("kappa lambda mu nu xi omicron rho sigma", fam, " ")
		split("alpha beta gamma", own, " ")
		nfiles = 6 + int(rand() * 6)
		for (f = 0; f < nfiles; f++) {
			for (k = 1; k <= 8; k++)	# 0: X, 1: Y, 2: Z, else none
				mode[k] = int(rand() * 6)
			node = sprintf("%s/node%02d", dir, f % 3)
			system("mkdir -p " node)
			out = sprintf("%s/rank-%d.log", node, f)
			nl = 100 + int(rand() * 200)
			for (i = 1; i <= nl; i++) {
				r = rand()
				if (r < 0.3)
					m = sprintf("shared step %d loss %d.%d done",
					    i, int(rand() * 9), int(rand() * 99))
				else if (r < 0.5)
					m = "private " own[j] " task " \
					    substr("abcdef", 1 + int(rand() * 3), 1) \
					    " finished"
				else {
					k = 1 + int(rand() * 8)
					x = y = z = "a"
					v = substr("bcdefgh", 1 + int(rand() * 7), 1)
					if (rand() < 0.7 && mode[k] == 0) x = v
					if (rand() < 0.7 && mode[k] == 1) y = v
					if (rand() < 0.7 && mode[k] == 2) z = v
					m = "sync " fam[k] " stage mod." x " from dir." y \
					    " via host." z " ready now"
				}
				printf "[2024-05-01 10:%02d:%02d,000] INFO %s\n",
				    int(i / 60) % 60, i % 60, m >out
			}
			close(out)
		}
	}'
}

# stored CACHE JOB: every file, template text, count and first line
stored() {
	sqlite3 "$1" "SELECT f.path, t.text, ft.count, ft.first_line
	    FROM file_templates ft JOIN files f ON f.id = ft.file_id
	    JOIN templates t ON t.id = ft.template_id
	    JOIN jobs j ON j.id = f.job_id WHERE j.name = '$2'
	    ORDER BY 1, 2"
}

# round N: three jobs of seed N, serially and at once; 0 when they agree
round() {
	rm -rf r$1 && mkdir r$1 &&
	for j in 1 2 3; do make_job r$1/job$j $j $(($1 * 10 + j)) || return 1; done &&
	for j in 1 2 3; do
		trainscope --cache r$1/serial.db index r$1/job$j 2>/dev/null ||
		    return 1
	done &&
	trainscope --cache r$1/conc.db cache info >/dev/null &&
	for j in 1 2 3; do
		trainscope --cache r$1/conc.db index --commit 0 r$1/job$j \
		    >/dev/null 2>r$1/w$j.err &
	done &&
	for k in 1 2 3 4 5 6; do
		trainscope --cache r$1/conc.db jobs >/dev/null 2>>r$1/r.err
		trainscope --cache r$1/conc.db templates >/dev/null 2>>r$1/r.err
	done &&
	wait &&
	for j in 1 2 3; do
		stored r$1/serial.db job$j >r$1/serial.$j &&
		stored r$1/conc.db job$j >r$1/conc.$j &&
		test -s r$1/serial.$j &&
		test_cmp r$1/serial.$j r$1/conc.$j || return 1
	done &&
	! grep -v "^indexed" r$1/w1.err r$1/w2.err r$1/w3.err r$1/r.err
}

if ! command -v sqlite3 >/dev/null 2>&1; then
	test_skip 'three writers and a reader for a while' 'no sqlite3 shell'
	test_done
	exit 0
fi

test_expect_success "three writers and a reader, random jobs, ${SOAK_SECS} s" '
	start=$(date +%s) && n=0 &&
	while [ $n -lt 2 ] || [ $(($(date +%s) - start)) -lt $SOAK_SECS ]; do
		n=$((n + 1)) &&
		round $n || { echo "round $n differs" >&2; exit 1; }
		rm -rf r$n
	done &&
	echo $n >rounds
'
test -f rounds && say "$(cat rounds) rounds, each the same as serial runs"

test_done
