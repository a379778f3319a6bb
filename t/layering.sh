#!/bin/sh
# layering.sh -- the core (src/, db/) never includes curses or readline,
# only db/ talks SQL, and db/ only stores: it parses nothing and reads no
# log or capture file, and one module of it owns the jobs table.
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
test_done
