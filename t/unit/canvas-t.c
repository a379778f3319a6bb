/*
 * canvas-t.c -- the canvas makes outside text inert and measures it right.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "tap.h"

/* Draw s on a fresh canvas of width w; return row 0 as text. */
static const char *
draw(int w, const char *s, size_t len, int ascii)
{
	static char out[1024];
	struct canvas c;
	int r;

	canvas_init(&c, w, ascii);
	r = canvas_add_row(&c);
	canvas_put(&c, r, 0, CS_NORMAL, s, len);
	canvas_row_text(&c, r, out, sizeof out);
	canvas_release(&c);
	return out;
}

static int
has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

int
main(void)
{
	const char esc[] = "a\033]0;owned\007b\033[2Jc";
	const char *got;
	struct canvas c;
	int r, x;

	got = draw(40, esc, sizeof esc - 1, 0);
	is_str(got, "a^[]0;owned^Gb^[[2Jc", "escape sequences show as ^X text");
	ok(!has_control(got), "no control byte survives");
	got = draw(40, "x\xff\xc3(y", 5, 0);
	is_str(got, "x\\xFF\\xC3(y", "invalid UTF-8 shows as \\xNN");
	got = draw(40, "\xed\xa0\x80", 3, 0);
	is_str(got, "\\xED\\xA0\\x80", "a UTF-16 surrogate is invalid");
	got = draw(40, "\xc0\xaf", 2, 0);
	is_str(got, "\\xC0\\xAF", "an overlong form is invalid");
	got = draw(40, "a\tb", 3, 0);
	is_str(got, "a       b", "a tab goes to the next multiple of 8");
	got = draw(40, "\xe2\x80\xae" "abc", 6, 0);
	is_str(got, "<U+202E>abc", "a bidi override is shown, not obeyed");
	got = draw(40, "\xc2\x9b" "2J", 4, 0);
	is_str(got, "<U+009B>2J", "a C1 control (CSI) is shown, not obeyed");
	is_int(canvas_text_width("\xe6\x97\xa5\xe6\x9c\xac", 6), 4,
	    "two CJK characters take four cells");
	is_int(canvas_text_width("e\xcc\x81", 3), 1,
	    "a combining accent takes no cell");
	is_int(canvas_text_width("\xf0\x9f\x98\x80", 4), 2, "an emoji takes two");
	is_int(canvas_text_width("\033", 1), 2, "ESC takes two cells (^[)");
	got = draw(40, "e\xcc\x81t\xc3\xa9", 6, 0);
	is_str(got, "e\xcc\x81t\xc3\xa9", "combining marks stay with their base");
	got = draw(40, "\xc3\xa9", 2, 1);
	is_str(got, "\\xC3\\xA9", "ASCII mode shows non-ASCII bytes as \\xNN");

	/* a wide character that does not fit is not split */
	canvas_init(&c, 3, 0);
	r = canvas_add_row(&c);
	x = canvas_put(&c, r, 0, CS_NORMAL, "a\xe6\x97\xa5\xe6\x97\xa5", 7);
	is_int(x, 5, "the pen counts the clipped text");
	is_str(canvas_cell(&c, r, 1)->s, "\xe6\x97\xa5", "the first wide fits");
	is_str(canvas_cell(&c, r, 2)->s, "", "its right half is a continuation");
	canvas_release(&c);

	/* clipping marks the cut with an ellipsis */
	canvas_init(&c, 10, 1);
	r = canvas_add_row(&c);
	x = canvas_put_clip(&c, r, 0, 5, CS_NORMAL, "abcdefgh", 8);
	is_int(x, 5, "put_clip stops at the end column");
	is_str(canvas_cell(&c, r, 4)->s, "~", "an ASCII ellipsis ends the cut");
	is_int(canvas_cell(&c, r, 5)->s[0], ' ', "nothing past the clip");
	canvas_release(&c);

	/* scrolled sideways: the first columns of the text left out */
	canvas_init(&c, 10, 0);
	r = canvas_add_row(&c);
	x = canvas_put_from(&c, r, 0, 10, CS_NORMAL, "abcdefgh", 8, 3);
	is_int(x, 5, "a scrolled text ends as many columns earlier");
	is_str(canvas_cell(&c, r, 0)->s, "d", "the text starts at the skip");
	r = canvas_add_row(&c);
	canvas_put_from(&c, r, 0, 10, CS_NORMAL, "\xe6\x97\xa5x", 4, 1);
	is_str(canvas_cell(&c, r, 0)->s, " ", "half a wide character is blank");
	is_str(canvas_cell(&c, r, 1)->s, "x", "and the text goes on after it");
	r = canvas_add_row(&c);
	canvas_put_from(&c, r, 0, 10, CS_NORMAL, "a\tb", 3, 2);
	is_str(canvas_cell(&c, r, 6)->s, "b", "tabs keep their stops");
	r = canvas_add_row(&c);
	canvas_put_from(&c, r, 0, 10, CS_NORMAL, "e\xcc\x81" "f", 4, 1);
	is_str(canvas_cell(&c, r, 0)->s, "f", "a left-out letter takes its accent");
	canvas_release(&c);

	is_int(canvas_category_style("xid"), CS_CAT_GPU, "xid is a GPU category");
	is_int(canvas_category_style("whatever"), CS_CAT_OTHER,
	    "an unknown category has its class");
	return done_testing();
}
