#!/bin/sh
# layering.sh -- the core (src/, db/) never includes curses or readline,
# and only db/ talks SQL.
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
test_done
