/*
 * bookmark.c -- the lines and events marked during an investigation.
 *
 * The view keeps its bookmarks as keys in the order they were marked:
 * "PATH:LINE" for a raw line, "event:ID" for an event by its template
 * id.  Neither depends on a row's place on the screen, the filters or
 * the sort, so `bookmark KEY` in a saved session marks the same line on
 * a replay.  A line's text is read back through the job's merged log
 * when it is asked for; an event's is its template, with the place of
 * its first line.
 *
 * Copying out builds the OSC 52 sequence (base64 of the text) here; the
 * screen writes it to the terminal.  Nothing can ask a terminal whether
 * it took it, so the caller says what was sent and how big it was.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "diag/model.h"
#include "logs/logmerge.h"
#include "view/bookmark.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

static const char EVENT_PREFIX[] = "event:";

char *
bookmark_cursor_key(struct view *v, char **cause)
{
	struct view_target t;
	char *key;

	if (v->m == NULL) {
		ts_fail(cause, "no job is open (open JOB first)");
		return NULL;
	}
	if ((key = view_row_key(v)) != NULL)
		return key;
	if (view_target(v, &t) == 0 && t.kind == VT_EVENT)
		key = xasprintf("%s%" PRIu32, EVENT_PREFIX, t.id);
	else if (t.kind == VT_LINE && t.name != NULL)
		key = xasprintf("%s:%ld", t.name, t.iter);
	free(t.owned);
	if (key == NULL)
		ts_fail(cause, "nothing to bookmark on this row (lines in the "
		    "log and lines panes, events in the events pane)");
	return key;
}

/* The event of key "event:ID", or NULL when key names none. */
static const struct model_event *
key_event(const struct view *v, const char *key)
{
	char *end;
	unsigned long id;
	long i;

	if (v->m == NULL || strncmp(key, EVENT_PREFIX,
	    sizeof EVENT_PREFIX - 1) != 0)
		return NULL;
	key += sizeof EVENT_PREFIX - 1;
	id = strtoul(key, &end, 10);
	if (*key < '0' || *key > '9' || *end != '\0' || id > UINT32_MAX ||
	    (i = model_event_index(v->m, (uint32_t)id)) < 0)
		return NULL;
	return &v->m->events[i];
}

int
bookmark_row_marked(struct view *v, size_t r)
{
	const struct pane_ops *ops = pane_active(v);
	struct view_target t;
	char *key = NULL;
	int rc;

	if (v->nmarks == 0)
		return 0;
	if (ops->key != NULL)
		key = ops->key(v, r);
	else if (ops->target != NULL) {
		memset(&t, 0, sizeof t);
		if (ops->target(v, r, &t) == 0 && t.kind == VT_EVENT)
			key = xasprintf("%s%" PRIu32, EVENT_PREFIX, t.id);
		free(t.owned);
	}
	rc = key != NULL && bookmark_has(v, key);
	free(key);
	return rc;
}

/* The row of the merged log at "PATH:LINE"; 0, or -1 with *cause. */
static int
key_row(struct view *v, const char *key, struct lm_row *row, char **cause)
{
	struct viewlog *vl = viewlog_get(v, cause);
	struct logmerge *m;
	size_t file;
	uint64_t line;
	int rc;

	if (vl == NULL)
		return -1;
	m = viewlog_merge(vl);
	if (lm_parse_pos(m, key, &file, &line, cause) != 0)
		return -1;
	if ((rc = lm_line(m, file, line, row, cause)) < 0)
		return -1;
	if (rc == 0)
		return ts_fail(cause, "no line %" PRIu64 " in '%s'", line,
		    lm_file(m, file)->path);
	return 0;
}

/* Is key a line or an event of the open job?  0, or -1 with *cause. */
static int
key_check(struct view *v, const char *key, char **cause)
{
	struct lm_row row;

	if (strncmp(key, EVENT_PREFIX, sizeof EVENT_PREFIX - 1) == 0) {
		if (key_event(v, key) == NULL)
			return ts_fail(cause, "no event '%s' in job %s", key +
			    sizeof EVENT_PREFIX - 1, v->job);
		return 0;
	}
	return key_row(v, key, &row, cause);
}

static long
find(const struct view *v, const char *key)
{
	size_t i;

	for (i = 0; i < v->nmarks; i++)
		if (strcmp(v->marks[i], key) == 0)
			return (long)i;
	return -1;
}

int
bookmark_has(const struct view *v, const char *key)
{
	return find(v, key) >= 0;
}

static void
drop(struct view *v, size_t i)
{
	free(v->marks[i]);
	memmove(v->marks + i, v->marks + i + 1, (v->nmarks - i - 1) *
	    sizeof *v->marks);
	v->nmarks--;
	if (v->mark_at >= (long)i)
		v->mark_at--;
}

int
bookmark_toggle(struct view *v, const char *key, char **done, char **cause)
{
	char *k;
	long i;

	*done = NULL;
	if (v->m == NULL)
		return ts_fail(cause, "no job is open (open JOB first)");
	if (key != NULL)
		k = xstrdup(key);
	else if ((k = bookmark_cursor_key(v, cause)) == NULL)
		return -1;
	if ((i = find(v, k)) >= 0) {
		drop(v, (size_t)i);
		*done = k;
		return 0;
	}
	if (key_check(v, k, cause) != 0) {
		free(k);
		return -1;
	}
	v->marks = xreallocarray(v->marks, v->nmarks + 1, sizeof *v->marks);
	v->marks[v->nmarks++] = xstrdup(k);
	*done = k;
	return 1;
}

void
bookmark_clear(struct view *v)
{
	size_t i;

	for (i = 0; i < v->nmarks; i++)
		free(v->marks[i]);
	free(v->marks);
	v->marks = NULL;
	v->nmarks = 0;
	v->mark_at = -1;
}

/* The events pane's cursor on event e; 0, or -1 when filtered out. */
static int
select_event(struct view *v, const struct model_event *e, char **cause)
{
	size_t n, r, *rows = view_event_rows(v, &n);

	for (r = 0; r < n; r++)
		if (&v->m->events[rows[r]] == e)
			break;
	free(rows);
	if (r == n)
		return ts_fail(cause, "event %" PRIu32 " is filtered out "
		    "(unfilter all)", e->id);
	v->st.pane = PANE_EVENTS;
	v->st.cursor[PANE_EVENTS] = (int)r;
	v->gen++;
	return 0;
}

int
bookmark_jump(struct view *v, int dir, char **cause)
{
	const struct model_event *e;
	long n = (long)v->nmarks, at;
	const char *key;

	if (v->m == NULL)
		return ts_fail(cause, "no job is open (open JOB first)");
	if (n == 0)
		return ts_fail(cause, "no bookmarks (m marks the cursor's "
		    "line or event)");
	at = v->mark_at < 0 ? (dir > 0 ? 0 : n - 1) :
	    ((v->mark_at + dir) % n + n) % n;
	key = v->marks[at];
	if ((e = key_event(v, key)) != NULL) {
		if (select_event(v, e, cause) != 0)
			return -1;
	} else if (view_goto(v, "line", key, cause) != 0)
		return -1;
	v->mark_at = at;
	free(v->message);
	v->message = xasprintf("bookmark %ld of %ld: %s", at + 1, n, key);
	return 0;
}

/* The raw line at "PATH:LINE" into out; 0, or -1 with *cause. */
static int
pos_text(struct view *v, const char *pos, struct buf *out, char **cause)
{
	struct lm_row row;

	if (key_row(v, pos, &row, cause) != 0)
		return -1;
	return lm_text(viewlog_merge(v->vlog), &row, out, cause);
}

/*
 * The text of key into out: its raw line, or its event's first line
 * (its template when that line cannot be read).
 */
static int
key_text(struct view *v, const char *key, struct buf *out,
    const char **where, char **cause)
{
	const struct model_event *e;
	char *pos, *why = NULL;
	int rc;

	buf_reset(out);
	*where = key;
	if ((e = key_event(v, key)) == NULL)
		return pos_text(v, key, out, cause);
	*where = e->path;
	rc = -1;
	if (e->path != NULL && e->line > 0) {
		pos = xasprintf("%s:%ld", e->path, e->line);
		rc = pos_text(v, pos, out, &why);
		free(pos);
		free(why);
	}
	if (rc != 0) {
		buf_reset(out);
		buf_adds(out, e->text != NULL ? e->text : "");
	}
	return 0;
}

int
bookmark_text(struct view *v, size_t i, struct buf *out, const char **where,
    char **cause)
{
	return key_text(v, v->marks[i], out, where, cause);
}

/* The text of the cursor's row into out; 0, or -1 with *cause. */
static int
cursor_text(struct view *v, struct buf *out, char **cause)
{
	const char *where;
	char *key = bookmark_cursor_key(v, cause);
	int rc;

	if (key == NULL)
		return -1;
	rc = key_text(v, key, out, &where, cause);
	free(key);
	return rc;
}

int
bookmark_write(struct view *v, FILE *f)
{
	const struct model_event *e;
	const char *where;
	struct buf b;
	char *why = NULL;
	size_t i;

	buf_init(&b);
	for (i = 0; i < v->nmarks; i++) {
		if ((e = key_event(v, v->marks[i])) != NULL)
			fprintf(f, "%s ", v->marks[i]);
		if (bookmark_text(v, i, &b, &where, &why) != 0) {
			fprintf(f, "%s: (%s)\n", v->marks[i], why);
			free(why);
			why = NULL;
			continue;
		}
		if (e != NULL && where != NULL)
			fprintf(f, "%s:%ld: ", where, e->line);
		else if (where != NULL)
			fprintf(f, "%s: ", where);
		fwrite(buf_str(&b), 1, b.len, f);
		fputc('\n', f);
	}
	buf_release(&b);
	return ferror(f) ? -1 : 0;
}

long
bookmark_copy_text(struct view *v, struct buf *out, char **cause)
{
	struct buf b;
	const char *where;
	size_t i;
	long n = 0;

	buf_init(&b);
	for (i = 0; i < v->nmarks; i++, n++) {
		if (bookmark_text(v, i, &b, &where, cause) != 0)
			goto fail;
		buf_add(out, buf_str(&b), b.len);
		buf_addc(out, '\n');
	}
	if (v->nmarks == 0) {
		if (cursor_text(v, &b, cause) != 0)
			goto fail;
		buf_add(out, buf_str(&b), b.len);
		buf_addc(out, '\n');
		n = 1;
	}
	buf_release(&b);
	return n;
fail:
	buf_release(&b);
	return -1;
}

void
bookmark_osc52(const char *text, size_t len, struct buf *out)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)text;
	unsigned long w;
	size_t i;

	buf_adds(out, "\033]52;c;");
	for (i = 0; i + 2 < len; i += 3) {
		w = (unsigned long)p[i] << 16 | (unsigned long)p[i + 1] << 8 |
		    p[i + 2];
		buf_addc(out, b64[w >> 18 & 63]);
		buf_addc(out, b64[w >> 12 & 63]);
		buf_addc(out, b64[w >> 6 & 63]);
		buf_addc(out, b64[w & 63]);
	}
	if (i < len) {
		w = (unsigned long)p[i] << 16;
		if (i + 1 < len)
			w |= (unsigned long)p[i + 1] << 8;
		buf_addc(out, b64[w >> 18 & 63]);
		buf_addc(out, b64[w >> 12 & 63]);
		buf_addc(out, i + 1 < len ? b64[w >> 6 & 63] : '=');
		buf_addc(out, '=');
	}
	buf_addc(out, '\a');
}

const char *
bookmark_term_note(const char *term)
{
	static const char *const no[] = { "linux", "dumb", "vt100", "vt102",
	    "vt220", "cons25", "ansi", "sun" };
	size_t i;

	if (term == NULL || *term == '\0')
		return "TERM is not set";
	for (i = 0; i < TS_NELEM(no); i++)
		if (strcmp(term, no[i]) == 0)
			return "this TERM does not take it";
	return NULL;
}
