#!/bin/sh
# layering.sh -- the core (src/, db/) never includes curses or readline,
# only db/ talks SQL, and only the pane table tells the panes apart.
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
test_done
