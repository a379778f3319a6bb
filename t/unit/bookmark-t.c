/*
 * bookmark-t.c -- OSC 52 payloads decode back to the bytes copied (the
 * RFC 4648 vectors, every byte value, every length's padding), terminals
 * known not to take them are named, and bookmarks of events are keyed by
 * template id: marked from the cursor, unmarked again, refused when the
 * job has no such event, gone to by row whatever the sort.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "diag/model.h"
#include "view/bookmark.h"
#include "view/view.h"
#include "tap.h"

static const char *
osc(const char *s, size_t len)
{
	static struct buf b;

	buf_release(&b);
	buf_init(&b);
	bookmark_osc52(s, len, &b);
	return buf_str(&b);
}

static int
b64val(int c)
{
	const char *a =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c != '\0' ? strchr(a, c) : NULL;

	return p != NULL ? (int)(p - a) : -1;
}

/* Decode the payload of an OSC 52 sequence into out; its length, -1. */
static long
decode(const char *seq, unsigned char *out)
{
	const char *p = seq + 7;
	size_t n = strlen(seq);
	long len = 0;
	int i, v[4];

	if (n < 8 || memcmp(seq, "\033]52;c;", 7) != 0 || seq[n - 1] != '\a')
		return -1;
	for (; p < seq + n - 1; p += 4) {
		for (i = 0; i < 4; i++)
			v[i] = p[i] == '=' ? 0 : b64val(p[i]);
		if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0)
			return -1;
		out[len++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (p[2] != '=')
			out[len++] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
		if (p[3] != '=')
			out[len++] = (unsigned char)((v[2] & 3) << 6 | v[3]);
	}
	return len;
}

static void
osc52(void)
{
	unsigned char all[256], back[300];
	size_t n;
	int i, good = 1;

	is_str(osc("", 0), "\033]52;c;\a", "nothing: an empty payload");
	is_str(osc("f", 1), "\033]52;c;Zg==\a", "one byte: two pads");
	is_str(osc("fo", 2), "\033]52;c;Zm8=\a", "two bytes: one pad");
	is_str(osc("foo", 3), "\033]52;c;Zm9v\a", "three bytes: none");
	is_str(osc("foobar", 6), "\033]52;c;Zm9vYmFy\a", "RFC 4648 foobar");
	is_str(osc("a\nb\033", 4), "\033]52;c;YQpiGw==\a",
	    "a line break and ESC go in encoded");
	for (i = 0; i < 256; i++)
		all[i] = (unsigned char)(255 - i);
	for (n = 0; n <= 256; n++)
		if (decode(osc((const char *)all, n), back) != (long)n ||
		    memcmp(all, back, n) != 0)
			good = 0;
	ok(good, "every byte value and length 0..256 decodes back");
	ok(strchr(osc((const char *)all, 256) + 1, '\033') == NULL,
	    "no ESC inside the payload");
}

static void
terms(void)
{
	ok(bookmark_term_note("linux") != NULL, "the Linux console is named");
	ok(bookmark_term_note("dumb") != NULL, "dumb is named");
	ok(bookmark_term_note(NULL) != NULL, "no TERM is said");
	ok(bookmark_term_note("xterm-256color") == NULL, "xterm may take it");
	ok(bookmark_term_note("tmux-256color") == NULL, "tmux may take it");
}

static struct model *
three_events(void)
{
	static const uint32_t id[] = { 7, 9, 12 };
	static const double score[] = { 0.2, 0.9, 0.5 };
	struct model *m = xcalloc(1, sizeof *m);
	size_t i;

	m->name = xstrdup("j");
	m->root = xstrdup(".");
	m->nevents = 3;
	m->events = xcalloc(3, sizeof *m->events);
	for (i = 0; i < 3; i++) {
		m->events[i].id = id[i];
		m->events[i].text = xasprintf("event %u <*>", id[i]);
		m->events[i].score = score[i];
		m->events[i].count = 1;
		m->events[i].iteration = -1;
		m->events[i].ts = (double)i;
	}
	return m;
}

static void
events(void)
{
	struct view v;
	char *why = NULL, *key = NULL;

	view_init(&v, NULL);
	view_set_model(&v, "j", three_events());
	/* sorted by score: 9, 12, 7 */
	is_int(bookmark_toggle(&v, NULL, &key, &why), 1, "the cursor's event");
	is_str(key, "event:9", "keyed by template id, not row");
	free(key);
	is_int(view_move(&v, "2", &why), 0, "move to the second row");
	is_int(bookmark_toggle(&v, NULL, &key, &why), 1, "a second");
	is_str(key, "event:12", "the second row's event");
	free(key);
	ok(bookmark_toggle(&v, "event:8", &key, &why) < 0 && why != NULL &&
	    strstr(why, "no event '8'") != NULL, "an event the job lacks");
	free(why);
	why = NULL;
	ok(bookmark_toggle(&v, "event:9x", &key, &why) < 0, "a bad id");
	free(why);
	why = NULL;
	is_int(view_sort(&v, "time", &why), 0, "sort by time: 7, 9, 12");
	is_int(bookmark_jump(&v, 1, &why), 0, "go to the first bookmark");
	is_int(v.st.cursor[v.st.pane], 1, "event 9 on its row by time");
	is_int(bookmark_jump(&v, 1, &why), 0, "and the next");
	is_int(v.st.cursor[v.st.pane], 2, "event 12");
	is_int(bookmark_jump(&v, 1, &why), 0, "round to the first");
	is_int(v.st.cursor[v.st.pane], 1, "event 9 again");
	is_int(bookmark_toggle(&v, "event:9", &key, &why), 0, "unmarked");
	free(key);
	is_int((int)v.nmarks, 1, "one left");
	ok(bookmark_has(&v, "event:12") && !bookmark_has(&v, "event:9"),
	    "the one left is event 12");
	view_set_model(&v, "j", three_events());
	is_int((int)v.nmarks, 0, "a job opened starts with none");
	ok(bookmark_jump(&v, 1, &why) < 0, "no bookmark to go to");
	free(why);
	view_release(&v);
}

int
main(void)
{
	osc52();
	terms();
	events();
	return done_testing();
}
