/*
 * bookmark.h -- lines and events marked during an investigation, and
 * their text copied out (OSC 52) or written to a file.
 *
 * A bookmark is a key that a replay on the same cache reads the same:
 * "PATH:LINE" for a raw line (the log and lines panes), "event:ID" for
 * an event (its template id, not its row).  They are not the `mark`
 * command's marks, which say whether a whole job was good or bad.
 */
#ifndef TS_BOOKMARK_H
#define TS_BOOKMARK_H

#include <stddef.h>
#include <stdio.h>

struct buf;
struct view;

/* Above this many bytes of payload, `copy` sends nothing. */
#define BOOKMARK_CLIP_MAX (100 * 1024)

/*
 * The key of the cursor's row of the active pane, allocated: "PATH:LINE"
 * or "event:ID".  NULL with *cause when the row has none (a pane of
 * nodes, iterations or jobs; no row).
 */
char *bookmark_cursor_key(struct view *v, char **cause);
/*
 * Mark key (the cursor's row when NULL), or unmark it when it is marked
 * already.  A key is checked against the open job (a line it has, an
 * event of its diagnosis).  Returns 1 marked, 0 unmarked, -1 with *cause;
 * *done (allocated, may be NULL) is the key acted on.
 */
int bookmark_toggle(struct view *v, const char *key, char **done,
    char **cause);
/* Whether row r of the active pane is bookmarked (a line or an event). */
int bookmark_row_marked(struct view *v, size_t r);
/* Whether key is marked. */
int bookmark_has(const struct view *v, const char *key);
/* Forget every bookmark (a job opened). */
void bookmark_clear(struct view *v);
/*
 * Put the cursor on the next (dir 1) or previous (-1) bookmark after
 * the last one gone to: a line in the log pane, an event in the events
 * pane.  Returns 0, or -1 with *cause (none; an event filtered out).
 */
int bookmark_jump(struct view *v, int dir, char **cause);
/*
 * The text of bookmark i into out (replaced): the raw line, or the
 * event's template; *where (borrowed from v, may be NULL) is its
 * PATH:LINE.  Returns 0, or -1 with *cause (the file changed or went).
 */
int bookmark_text(struct view *v, size_t i, struct buf *out,
    const char **where, char **cause);
/*
 * Every bookmark as "PATH:LINE: TEXT" lines (an event: "event:ID
 * PATH:LINE: TEMPLATE"), raw bytes, to f.  A line that cannot be read
 * says why in its place.  Returns 0, or -1 when writing failed.
 */
int bookmark_write(struct view *v, FILE *f);
/*
 * What `copy` copies, into out: the bookmarked lines' text one a line
 * when there are bookmarks, else the cursor's row's.  Returns the lines
 * copied, or -1 with *cause.
 */
long bookmark_copy_text(struct view *v, struct buf *out, char **cause);
/*
 * The OSC 52 sequence that puts len bytes of text on the terminal's
 * clipboard, into out (appended): ESC ] 52 ; c ; BASE64 BEL.
 */
void bookmark_osc52(const char *text, size_t len, struct buf *out);
/*
 * Why a terminal of type term (NULL: unknown) is known not to take
 * OSC 52 (static text), or NULL when it may.
 */
const char *bookmark_term_note(const char *term);

#endif
