/*
 * rawfilt.c -- the view's filters as they act on raw lines (see
 * viewint.h): the log pane's rows, the lines pane's, a raw search and the
 * count of the lines they hide.
 *
 * A filter keeps a line or not: node=NAME by the node of the line's file,
 * stage=S and iter=A..B by the stage and iteration the stage tracker gives
 * the line (linetag.h), /RE/ by the line's raw text (case-insensitive, as
 * every pattern of the view); -v turns one round.  category= concerns
 * events and leaves lines alone.  The filters are copied out of the view
 * state (node names, patterns compiled again), so a set may go to another
 * thread with its own merge.  Tests run cheapest first: the file's node,
 * then the text, then the tags (a file's first tag replays it whole).
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "diag/linetag.h"
#include "diag/model.h"
#include "logs/grep.h"
#include "logs/logmerge.h"
#include "view/view.h"
#include "view/viewint.h"

struct ritem {
	enum view_fkind kind;
	int negate;
	char *node;		/* VF_NODE */
	long a, b;		/* VF_STAGE: a; VF_ITER: the range */
	struct grep *g;		/* VF_TEXT */
};

struct rawf {
	struct ritem *it;
	size_t n;
	int text, tags;		/* some item reads the text, the tags */
	struct grep *all;	/* a pattern of every line, for counting */
};

/* The pattern of a "/PATTERN/" argument, compiled for raw lines. */
static struct grep *
text_pattern(const char *arg, char **cause)
{
	size_t n = strlen(arg), off;
	char *pat = xstrndup(arg + 1, n >= 2 ? n - 2 : 0), *why = NULL;
	struct grep *g = NULL;

	if (grep_compile_flags(pat, GREP_CASELESS, &g, &off, &why) != 0) {
		ts_fail(cause, "filter '%s': %s", arg, why);
		free(why);
	}
	free(pat);
	return g;
}

/* Copy view filter f into item r; 0 when it says nothing of lines. */
static int
item_of(struct ritem *r, const struct view_filter *f, const struct model *m,
    char **cause)
{
	memset(r, 0, sizeof *r);
	r->kind = f->kind;
	r->negate = f->negate;
	r->a = f->a;
	r->b = f->b;
	switch (f->kind) {
	case VF_NODE:
		if (m == NULL || f->a < 0 || (size_t)f->a >= m->nnodes ||
		    m->nodes[f->a].name == NULL)
			return 0;
		r->node = xstrdup(m->nodes[f->a].name);
		return 1;
	case VF_STAGE:
	case VF_ITER:
		return 1;
	case VF_TEXT:
		return (r->g = text_pattern(f->arg, cause)) != NULL ? 1 : -1;
	default:
		return 0;
	}
}

struct rawf *
rawf_new(const struct view_filter *f, size_t n, const struct model *m,
    char **cause)
{
	struct rawf *rf = xcalloc(1, sizeof *rf);
	size_t i;
	int rc;

	rf->it = xcalloc(n + 1, sizeof *rf->it);
	for (i = 0; i < n; i++) {
		if ((rc = item_of(&rf->it[rf->n], &f[i], m, cause)) < 0) {
			rawf_free(rf);
			return NULL;
		}
		if (rc == 0)
			continue;
		rf->text |= f[i].kind == VF_TEXT;
		rf->tags |= f[i].kind == VF_STAGE || f[i].kind == VF_ITER;
		rf->n++;
	}
	return rf;
}

void
rawf_free(struct rawf *rf)
{
	size_t i;

	if (rf == NULL)
		return;
	for (i = 0; i < rf->n; i++) {
		free(rf->it[i].node);
		grep_free(rf->it[i].g);
	}
	grep_free(rf->all);
	free(rf->it);
	free(rf);
}

int
rawf_lines(const struct rawf *rf)
{
	return rf != NULL && (rf->text || rf->tags);
}

int
rawf_any(const struct rawf *rf)
{
	return rf != NULL && rf->n > 0;
}

int
rawf_file(const struct rawf *rf, const struct lm_file *lf)
{
	size_t i;

	for (i = 0; rf != NULL && i < rf->n; i++)
		if (rf->it[i].kind == VF_NODE &&
		    (strcmp(lf->node, rf->it[i].node) == 0) == rf->it[i].negate)
			return 0;
	return 1;
}

/* Does the text (read into *text when it is not yet) pass?  1, 0, -1. */
static int
text_passes(const struct rawf *rf, struct logmerge *m, const struct lm_row *row,
    struct buf *text, int *have, size_t skip, char **cause)
{
	size_t i;

	for (i = 0; i < rf->n; i++) {
		const struct ritem *r = &rf->it[i];

		if (r->kind != VF_TEXT || i == skip)
			continue;
		if (!*have) {
			if (lm_text(m, row, text, cause) != 0)
				return -1;
			*have = 1;
		}
		if (grep_match(r->g, text->s, text->len) == r->negate)
			return 0;
	}
	return 1;
}

/* Do the row's stage and iteration pass?  1, 0, -1. */
static int
tags_pass(const struct rawf *rf, struct linetag *t, const struct lm_row *row,
    char **cause)
{
	enum stage st;
	long it;
	size_t i;
	int in;

	if (!rf->tags)
		return 1;
	if (linetag_get(t, row, &st, &it, cause) != 0)
		return -1;
	for (i = 0; i < rf->n; i++) {
		const struct ritem *r = &rf->it[i];

		if (r->kind == VF_STAGE)
			in = (long)st == r->a;
		else if (r->kind == VF_ITER)
			in = it >= 0 && it >= r->a && it <= r->b;
		else
			continue;
		if (in == r->negate)
			return 0;
	}
	return 1;
}

/* rawf_pass() leaving item `skip` out (the pattern a search ran). */
static int
pass_but(const struct rawf *rf, struct logmerge *m, struct linetag *t,
    const struct lm_row *row, struct buf *text, int *have, size_t skip,
    char **cause)
{
	int rc;

	if (!rawf_file(rf, lm_file(m, row->file)))
		return 0;
	if ((rc = text_passes(rf, m, row, text, have, skip, cause)) != 1)
		return rc;
	return tags_pass(rf, t, row, cause);
}

int
rawf_pass(const struct rawf *rf, struct logmerge *m, struct linetag *t,
    const struct lm_row *row, struct buf *text, int *have, char **cause)
{
	if (rf == NULL)
		return 1;
	return pass_but(rf, m, t, row, text, have, SIZE_MAX, cause);
}

/* ---- the filters over the whole job, through the raw search ---- */

struct rctx {
	const struct rawf *rf;
	struct logmerge *m;
	struct linetag *t;
	size_t skip;		/* the item the search's pattern is */
	int tags;		/* give each line its stage and iteration */
	struct buf text;
};

static int
keep_file(void *arg, const struct lm_file *f)
{
	return rawf_file(((struct rctx *)arg)->rf, f);
}

static int
keep_line(void *arg, const struct lm_row *row, int *stage, long *iter,
    char **cause)
{
	struct rctx *c = arg;
	enum stage st;
	int have = 0, rc;

	*stage = -1;
	*iter = -1;
	rc = pass_but(c->rf, c->m, c->t, row, &c->text, &have, c->skip, cause);
	if (rc != 1 || !c->tags)
		return rc;
	if (linetag_get(c->t, row, &st, iter, cause) != 0)
		return -1;
	*stage = (int)st;
	return 1;
}

/* The items that read the text, but `skip`. */
static size_t
text_items(const struct rawf *rf, size_t skip)
{
	size_t i, n = 0;

	for (i = 0; i < rf->n; i++)
		n += rf->it[i].kind == VF_TEXT && i != skip;
	return n;
}

static void
ctx_init(struct rctx *c, const struct rawf *rf, struct logmerge *m,
    struct linetag *t, size_t skip, int tags, struct grep_opts *o,
    const int *cancel)
{
	memset(c, 0, sizeof *c);
	c->rf = rf;
	c->m = m;
	c->t = t;
	c->skip = skip;
	c->tags = tags;
	memset(o, 0, sizeof *o);
	o->file = keep_file;
	o->file_arg = c;
	o->cancel = cancel;
	/* lines are tested one by one only when a test is left for them */
	if (tags || rf->tags || text_items(rf, skip) > 0) {
		o->tag = keep_line;
		o->tag_arg = c;
	}
}

/* The text item to run as the search's pattern: its index, or n. */
static size_t
count_item(const struct rawf *rf, int negate)
{
	size_t i;

	for (i = 0; i < rf->n; i++)
		if (rf->it[i].kind == VF_TEXT && rf->it[i].negate == negate)
			return i;
	return rf->n;
}

int
rawf_count(struct rawf *rf, struct logmerge *m, struct linetag *t,
    const int *cancel, uint64_t *n, char **cause)
{
	struct grep_opts o;
	struct grep *g;
	struct rctx c;
	size_t i, k;
	int rc, invert = 0;

	*n = 0;
	if (!rawf_lines(rf)) {
		for (i = 0; i < lm_nfiles(m); i++)
			if (rawf_file(rf, lm_file(m, i)))
				*n += lm_file(m, i)->lines;
		return 0;
	}
	if ((k = count_item(rf, 0)) == rf->n &&
	    (k = count_item(rf, 1)) < rf->n)
		invert = 1;
	if (k < rf->n)
		g = rf->it[k].g;
	else {
		if (rf->all == NULL && grep_compile("^", &rf->all, &i,
		    cause) != 0)
			return -1;
		g = rf->all;
	}
	ctx_init(&c, rf, m, t, k, 0, &o, cancel);
	o.invert = invert;
	rc = grep_count(g, m, &o, n, cause);
	buf_release(&c.text);
	return rc;
}

int
rawf_each(const struct rawf *rf, struct grep *g, struct logmerge *m,
    struct linetag *t, int tags, const int *cancel,
    int (*fn)(void *arg, const struct grep_hit *hit, char **cause), void *arg,
    char **cause)
{
	struct grep_opts o;
	struct rctx c;
	int rc;

	ctx_init(&c, rf, m, t, SIZE_MAX, tags, &o, cancel);
	rc = grep_each(g, m, &o, fn, arg, cause);
	buf_release(&c.text);
	return rc;
}
