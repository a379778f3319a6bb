/*
 * linetag.c -- stage and iteration tags of raw lines by replay (see
 * linetag.h).
 *
 * A file is read once from its start; every line's message goes through
 * its stream's stage tracker, and each stream keeps the lines where its
 * tag changes (change points).  A line's tag is then the last change
 * point of its stream at or before it: a binary search.  The change
 * points of the last few files are kept.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "diag/linetag.h"
#include "diag/stage.h"
#include "logs/lineparse.h"
#include "logs/logmerge.h"
#include "logs/reader.h"

#define KEEP_FILES	64

struct cpoint {
	uint64_t line;
	enum stage stage;
	long iter;
};

struct stream {
	int rank;		/* -1: lines without a rank prefix */
	struct stage_tracker tr;
	struct cpoint *pts;
	size_t n, cap;
};

struct ftags {
	long file;		/* -1: free */
	struct stream *streams;
	size_t n, cap;
	uint64_t tick;
};

struct linetag {
	struct logmerge *m;
	struct ftags files[KEEP_FILES];
	uint64_t tick;
};

struct linetag *
linetag_new(struct logmerge *m)
{
	struct linetag *t = xcalloc(1, sizeof *t);
	size_t i;

	t->m = m;
	for (i = 0; i < KEEP_FILES; i++)
		t->files[i].file = -1;
	return t;
}

static void
ftags_clear(struct ftags *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->streams[i].pts);
	free(f->streams);
	memset(f, 0, sizeof *f);
	f->file = -1;
}

void
linetag_free(struct linetag *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < KEEP_FILES; i++)
		ftags_clear(&t->files[i]);
	free(t);
}

static struct stream *
stream_of(struct ftags *f, int rank, int create)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->streams[i].rank == rank)
			return &f->streams[i];
	if (!create)
		return NULL;
	f->streams = xgrow(f->streams, &f->cap, f->n + 1, sizeof *f->streams);
	memset(&f->streams[f->n], 0, sizeof *f->streams);
	f->streams[f->n].rank = rank;
	stage_tracker_init(&f->streams[f->n].tr);
	return &f->streams[f->n++];
}

/* The stream a line belongs to: its rank prefix in a combined log. */
static int
line_rank(const struct lm_file *lf, const struct lp_line *lp)
{
	return lf->rank < 0 && lp->rank >= 0 ? lp->rank : -1;
}

static void
feed(struct ftags *f, const struct lm_file *lf, const struct reader_line *l)
{
	struct lp_line lp;
	struct stage_tag tag;
	struct stream *s;
	struct cpoint *last;
	long iter;

	lp_parse(l->s, l->len, &lp);
	s = stream_of(f, line_rank(lf, &lp), 1);
	stage_feed(&s->tr, lp.msg, lp.msg_len, &tag);
	iter = tag.is_iter || s->tr.iteration >= 0 || s->tr.counted > 0 ?
	    tag.iteration : -1;
	last = s->n > 0 ? &s->pts[s->n - 1] : NULL;
	if (last != NULL && last->stage == tag.stage && last->iter == iter)
		return;
	s->pts = xgrow(s->pts, &s->cap, s->n + 1, sizeof *s->pts);
	s->pts[s->n].line = l->lineno;
	s->pts[s->n].stage = tag.stage;
	s->pts[s->n++].iter = iter;
}

/* Replay file `file` into a slot.  Returns the slot, or NULL with *cause. */
static struct ftags *
replay(struct linetag *t, size_t file, char **cause)
{
	const struct lm_file *lf = lm_file(t->m, file);
	struct ftags *f = &t->files[0];
	struct reader *r;
	struct reader_line l;
	char *path;
	size_t i;
	int rc;

	for (i = 1; i < KEEP_FILES; i++)
		if (t->files[i].tick < f->tick)
			f = &t->files[i];
	ftags_clear(f);
	path = xasprintf("%s/%s", lm_root(t->m), lf->path);
	rc = reader_open(path, 0, 0, &r, cause);
	free(path);
	if (rc != 0)
		return NULL;
	while ((rc = reader_next(r, &l, cause)) == 1 && l.lineno <= lf->lines)
		feed(f, lf, &l);
	reader_close(r);
	if (rc < 0) {
		ftags_clear(f);
		return NULL;
	}
	f->file = (long)file;
	return f;
}

int
linetag_get(struct linetag *t, const struct lm_row *row, enum stage *stage,
    long *iter, char **cause)
{
	const struct lm_file *lf = lm_file(t->m, row->file);
	struct ftags *f = NULL;
	struct stream *s;
	size_t i, lo, hi;

	*stage = STAGE_NONE;
	*iter = -1;
	for (i = 0; i < KEEP_FILES && f == NULL; i++)
		if (t->files[i].file == (long)row->file)
			f = &t->files[i];
	if (f == NULL && (f = replay(t, row->file, cause)) == NULL)
		return -1;
	f->tick = ++t->tick;
	s = stream_of(f, lf->rank < 0 && row->rank >= 0 ? row->rank : -1, 0);
	if (s == NULL || s->n == 0 || s->pts[0].line > row->line)
		return 0;
	lo = 0;
	hi = s->n;
	while (hi - lo > 1) {	/* the last point at or before the line */
		i = (lo + hi) / 2;
		if (s->pts[i].line <= row->line)
			lo = i;
		else
			hi = i;
	}
	*stage = s->pts[lo].stage;
	*iter = s->pts[lo].iter;
	return 0;
}
