/*
 * cmd-bookmark.c -- the commands `bookmark`, `bookmarks` and `copy`.
 *
 * `bookmark` marks the cursor's line or event (or unmarks it) and is
 * logged for the session with the key it acted on, so a replay marks
 * the same line wherever the cursor stands.  `copy` hands the screen an
 * OSC 52 sequence to write (view.clip) and says on the status line what
 * was sent; without a screen there is no terminal to send it to, and
 * `export --marked FILE` writes the lines instead.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/commands.h"
#include "view/bookmark.h"
#include "view/canvas.h"
#include "view/view.h"

/* The open job's view, or NULL with *cause. */
static struct view *
job_view(struct cmd_ctx *ctx, const char *cmd, char **cause)
{
	if (ctx->view == NULL || ctx->view->m == NULL) {
		ts_fail(cause, "%s: no job is open (open JOB first)", cmd);
		return NULL;
	}
	return ctx->view;
}

static void
log_add(struct view *v, char *line)
{
	v->log = xreallocarray(v->log, v->nlog + 1, sizeof *v->log);
	v->log[v->nlog++] = line;
}

int
cmd_bookmark(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct view *v = job_view(ctx, "bookmark", cause);
	int next = cmd_has_opt(a, "next"), prev = cmd_has_opt(a, "prev"), rc;
	struct buf b;
	char *key;

	if (v == NULL)
		return CMD_FAIL;
	if (next + prev + (a->argc > 0) > 1) {
		ts_fail(cause, "bookmark: give one of --next, --prev or KEY");
		return CMD_USAGE;
	}
	if (next || prev) {
		if (bookmark_jump(v, next ? 1 : -1, cause) != 0)
			return CMD_FAIL;
		log_add(v, xstrdup(next ? "bookmark --next" : "bookmark --prev"));
		return CMD_OK;
	}
	if ((rc = bookmark_toggle(v, a->argc > 0 ? a->argv[0] : NULL, &key,
	    cause)) < 0)
		return CMD_FAIL;
	buf_init(&b);
	buf_adds(&b, "bookmark ");
	if (key[0] == '-')
		buf_adds(&b, "-- ");
	cmd_quote(&b, key);
	log_add(v, buf_detach(&b));
	free(v->message);
	v->message = xasprintf("%s %s (%zu bookmark%s; ' goes to the next)",
	    rc ? "bookmarked" : "unmarked", key, v->nmarks,
	    v->nmarks == 1 ? "" : "s");
	free(key);
	return CMD_OK;
}

int
cmd_bookmarks(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct view *v = job_view(ctx, "bookmarks", cause);

	(void)a;
	if (v == NULL)
		return CMD_FAIL;
	if (v->nmarks == 0) {
		fputs("no bookmarks (m marks the cursor's line or event)\n",
		    ctx->out);
		return CMD_OK;
	}
	if (bookmark_write(v, ctx->out) != 0) {
		ts_fail(cause, "bookmarks: cannot write the list");
		return CMD_FAIL;
	}
	return CMD_OK;
}

/* Hand the screen the sequence for text, and say what was sent. */
static void
clip_set(struct view *v, const struct buf *text, long lines)
{
	const char *note = bookmark_term_note(getenv("TERM"));
	/* no line break after the last line: a paste into a shell runs
	   nothing by itself */
	size_t len = text->len - (text->len > 0 &&
	    text->s[text->len - 1] == '\n');
	struct buf b;

	buf_init(&b);
	bookmark_osc52(buf_str(text), len, &b);
	free(v->message);
	free(v->clip);
	v->clip = NULL;
	v->nclip = 0;
	if (b.len > BOOKMARK_CLIP_MAX) {
		v->message = xasprintf("not copied: %zu KB of OSC 52 is too "
		    "much for terminals; export --marked FILE", b.len / 1024);
		buf_release(&b);
		return;
	}
	v->nclip = b.len;
	v->clip = buf_detach(&b);
	if (note != NULL)
		v->message = xasprintf("%ld line%s sent by OSC 52, but %s: "
		    "export --marked FILE", lines, lines == 1 ? "" : "s", note);
	else
		v->message = xasprintf("copied %ld line%s, %zu bytes (OSC 52, "
		    "%zu sent); no paste? export --marked FILE", lines,
		    lines == 1 ? "" : "s", len, v->nclip);
}

int
cmd_copy(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct view *v = job_view(ctx, "copy", cause);
	struct buf text;
	long n;

	(void)a;
	if (v == NULL)
		return CMD_FAIL;
	if (!v->async) {
		ts_fail(cause, "copy: no terminal to copy to here (export "
		    "--marked FILE writes the bookmarked lines)");
		return CMD_FAIL;
	}
	buf_init(&text);
	if ((n = bookmark_copy_text(v, &text, cause)) < 0) {
		buf_release(&text);
		return CMD_FAIL;
	}
	clip_set(v, &text, n);
	buf_release(&text);
	return CMD_OK;
}
