#!/bin/sh
# layering.sh -- the core (src/, db/) never includes curses or readline,
# only db/ talks SQL, db/ only stores (it parses nothing, reads no log
# or capture file, and one module of it owns the jobs table), and only
# the pane table tells the panes apart.
. "$TS_SRCDIR/t/lib/test-lib.sh"

test_expect_success 'src/ and db/ do not include curses or readline' '
	! grep -nE "#[[:space:]]*include[[:space:]]*[<\"](n?curses|ncursesw/|term\\.h|readline/|history\\.h)" \
		-r --include="*.[ch]" "$TS_SRCDIR"/src "$TS_SRCDIR"/db
'
test_expect_success 'only db/ includes sqlite3.h' '
	! grep -nE "#[[:space:]]*include[[:space:]]*[<\"]sqlite3\\.h" -r --include="*.[ch]" "$TS_SRCDIR"/src
'
test_expect_success 'the layering check itself catches a violation' '
	mkdir -p fake/src && echo "#include <ncurses.h>" >fake/src/x.c &&
	grep -lE "#[[:space:]]*include[[:space:]]*[<\"](n?curses|ncursesw/|readline/)" fake/src/*.c
'
test_expect_success 'libtrainscope.a does not reference curses or readline' '
	! nm -u "$TS_BUILDDIR/libtrainscope.a" 2>/dev/null | grep -E " (initscr|wgetch|newwin|readline|rl_[a-z_]+)$"
'

# db/ only stores.  Each check prints what breaks the rule (nothing when
# the rule holds) for the C files of the directory it is given.
#
# code DIR: the .c and .h files of DIR without their comments, each line
# prefixed with FILE:LINE:.
code() {
	for f in "$1"/*.[ch]; do
		awk -v f="$f" '
			{
				line = $0; out = ""
				while (line != "") {
					if (inc) {
						i = index(line, "*/")
						if (i == 0) { line = ""; break }
						line = substr(line, i + 2); inc = 0
					} else {
						i = index(line, "/*")
						if (i == 0) { out = out line; line = ""; break }
						out = out substr(line, 1, i - 1)
						line = substr(line, i + 2); inc = 1
					}
				}
				print f ":" NR ":" out
			}' "$f"
	done
}
# db/ includes only db/, base/ and the flow set's data model: no parser,
# reader or analysis header of logs/, flows/ or diag/.
db_includes() {
	code "$1" | grep -E "#[[:space:]]*include[[:space:]]*\"" |
	    grep -vE "\"(config\\.h|db/[a-z]+\\.h|base/[a-z]+\\.h|flows/flow\\.h|flows/flowset\\.h)\""
}
# db/ calls no parser, reader, scanner, miner or loader.
parsers="flow_set_load|flow_probe|flow_find_captures|flow_read_[a-z_]+|flow_asm_[a-z_]+|flowan_[a-z_]+|pcap_[a-z_]+|reader_[a-z_]+|lp_[a-z_]+|tmpl_[a-z_]+|scan_[a-z_]+|index_[a-z_]+|stage_[a-z_]+|faults_[a-z_]+|jobload[a-z_]*"
db_parses() {
	code "$1" | grep -E "(^|[^a-zA-Z0-9_])($parsers)[[:space:]]*\\("
}
# db/ opens, maps or stats no file but the cache (db/cache.c opens the
# cache file itself, and a trace file).
opens="fopen|freopen|fdopen|open|openat|creat|gzopen|gzdopen|opendir|mmap|stat|lstat|fstat|fstatat|access"
db_opens() {
	code "$1" | grep -v "/cache\\.c:" |
	    grep -E "(^|[^a-zA-Z0-9_])($opens)[[:space:]]*\\("
}
# Only db/jobdb.c writes a jobs row or finds a job by its name or root.
db_jobs() {
	code "$1" | grep -v "/jobdb\\.c:" |
	    grep -iE "(insert[[:space:]]+(or[[:space:]]+[a-z]+[[:space:]]+)?into|update|delete[[:space:]]+from)[[:space:]]+jobs([^a-z_]|$)|from[[:space:]]+jobs[[:space:]]+(where|[a-z]+[[:space:]]+where)[[:space:]]+([a-z]+\\.)?(name|root)"
}
# The symbols the db/ objects (but cache.o) need from elsewhere: none of
# a parser, a capture library, a compressed reader, or a file opened or
# stat()ed.
db_symbols() {
	for o; do
		nm -u "$o" | awk -v o="$o" '{ print o ": " $NF }'
	done | grep -E ": (flow_set_load|flow_probe|flow_find_captures|flow_read_.*|flow_asm_.*|pcap_.*|reader_.*|lp_.*|tmpl_.*|scan_.*|gz.*|fopen.*|fdopen|open|open64|openat.*|opendir|mmap.*|stat.*|lstat.*|fstat.*|__xstat.*|__lxstat.*|__fxstat.*)$"
}

test_expect_success 'db/ includes no parser, reader or analysis header' '
	! db_includes "$TS_SRCDIR/db"
'
test_expect_success 'db/ calls no parser, reader, scanner or loader' '
	! db_parses "$TS_SRCDIR/db"
'
test_expect_success 'db/ opens or stats no file but the cache' '
	! db_opens "$TS_SRCDIR/db"
'
test_expect_success 'only db/jobdb.c writes jobs rows or finds a job by name or root' '
	! db_jobs "$TS_SRCDIR/db"
'
test_expect_success 'the db/ objects link to no parser and open no file' '
	ls "$TS_BUILDDIR"/db/*.o >objs &&
	! db_symbols $(grep -v "/cache\\.o$" objs)
'
test_expect_success 'each db/ check catches a violation' '
	mkdir -p bad &&
	cat >bad/flowdb.c <<-\EOF &&
	/* a comment may say flow_set_load() or fopen() */
	#include "flows/flowasm.h"
	#include "logs/reader.h"
	static int f(const char *p, struct stat *sb) { return stat(p, sb); }
	static void g(void) { FILE *x = fopen("a.pcap", "r"); (void)x; }
	static int h(void) { return flow_set_load(0, 0, 0, 0, 0, 0, 0); }
	static int k(void) { return lp_parse(0); }
	static const char *q = "SELECT id FROM jobs WHERE name = ?1";
	static const char *u = "UPDATE jobs SET outcome = ?2 WHERE id = ?1";
	EOF
	db_includes bad >inc && test $(wc -l <inc) = 2 &&
	db_parses bad >par && test $(wc -l <par) = 2 &&
	! grep ":1:" par &&
	db_opens bad >opn && test $(wc -l <opn) = 2 &&
	db_jobs bad >job && test $(wc -l <job) = 2 &&
	cp bad/flowdb.c bad/cache.c && cp bad/flowdb.c bad/jobdb.c &&
	test $(db_opens bad | wc -l) = 4 && test $(db_jobs bad | wc -l) = 4
'
test_expect_success 'the symbol check catches a violation (flowjoin.o reads captures)' '
	db_symbols "$TS_BUILDDIR/src/flows/flowjoin.o" >sym &&
	grep ": flow_set_load$" sym && grep ": stat" sym
'

# A pane is a file behind the table of pane.c: nothing else tells the
# panes apart by kind (a case or comparison on PANE_*, a switch on a
# pane), each struct pane_ops lives in its own pane-NAME.c, and no pane
# opens a job.  pane_kind_checks DIR prints what breaks that.
pane_kind_checks() {
	grep -rnE "case[[:space:]]+PANE_|switch[[:space:]]*\(([^()]*[.>])?pane\)|[!=]=[[:space:]]*(\(enum view_pane\)[[:space:]]*)?PANE_[A-Z]|PANE_[A-Z]+[[:space:]]*[!=]=" \
		--include="*.[ch]" "$1"/src "$1"/ui 2>/dev/null |
		grep -v "^$1/src/view/pane\.c:"
	grep -rnE "^const struct pane_ops pane_[a-z]+ = " --include="*.c" "$1"/src |
		sed -nE "s|^$1/src/view/pane-([a-z]+)\.c:[0-9]+:const struct pane_ops pane_\1 = .*||; /./p"
	grep -nE "job_model\(" "$1"/src/view/pane*.c "$1"/src/view/draw.c \
		"$1"/src/view/rows.c 2>/dev/null
}
test_expect_success 'only the pane table tells the panes apart; a pane is a file' '
	pane_kind_checks "$TS_SRCDIR" >found || true
	cat found && ! test -s found
'
test_expect_success 'the pane check itself catches a switch, a comparison, a misplaced pane and a job opened by a pane' '
	mkdir -p fake/src/view fake/ui &&
	printf "switch (v->st.pane) {\ncase PANE_EVENTS:\n}\n" >fake/src/view/view.c &&
	printf "if (v->st.pane == PANE_LINES)\n" >fake/ui/screen.c &&
	printf "const struct pane_ops pane_events = {\n" >fake/src/view/draw.c &&
	printf "\tjob_model(c, name, NULL, 0, 0, NULL, NULL, &m, cause);\n" >fake/src/view/pane-jobs.c &&
	printf "switch (v->st.pane) {\ncase PANE_EVENTS:\n}\nconst struct pane_ops pane_jobs = {\n" >fake/src/view/pane.c &&
	printf "const struct pane_ops pane_lines = {\n" >fake/src/view/pane-lines.c &&
	pane_kind_checks fake >found || true
	cat found &&
	test $(grep -c "view/view.c:[12]:" found) = 2 &&
	grep -q "ui/screen.c:1:" found &&
	grep -q "view/draw.c:1:" found &&
	grep -q "view/pane-jobs.c:1:.*job_model" found &&
	grep -q "view/pane.c:4:.*pane_jobs" found &&
	! grep -q "view/pane.c:[12]:" found &&
	! grep -q "pane-lines.c" found
'
# The test harness itself: a body that hangs is stopped and said, with
# what it was doing; so is a unit test (t/lib/watch.sh).
test_expect_success 'a test body past its time limit is stopped, its processes with it' '
	cat >hang.sh <<-\EOF &&
	. "$TS_SRCDIR/t/lib/test-lib.sh"
	test_expect_success "waits for ever" "
		sleep 300 & echo \$! >$PWD/child; read line; wait
	"
	test_expect_success "the next test still runs" "true"
	test_done
	EOF
	start=$(date +%s) &&
	TS_TEST_LIMIT=2 TS_BUILDDIR="$PWD/hb" sh hang.sh >out 2>&1
	test $? = 1 &&
	test $(($(date +%s) - start)) -lt 30 &&
	grep "^not ok 1 - waits for ever" out &&
	grep "^#   timed out after 2 s; what was running:" out &&
	grep "^#   pid [0-9]* .*sleep 300" out &&
	grep "^ok 2 - the next test still runs" out &&
	! kill -0 "$(cat child)" 2>/dev/null &&
	{ TS_TEST_LIMIT=1 sh "$TS_SRCDIR/t/lib/watch.sh" sleep 60 >unit
	  test $? != 0; } &&
	grep "^Bail out! sleep: timed out after 1 s" unit
'
test_done
