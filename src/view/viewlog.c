/*
 * viewlog.c -- the open job's raw lines as the view sees them: its
 * merged log, the stage and iteration of a row, the view's filters on
 * lines, how many lines they hide, and the raw search of the whole job
 * (see viewint.h).
 *
 * The merge is opened on first use from the job the view has open (its
 * id: nothing is looked up again).  What is slow is asked of the
 * background (viewbg.c) on the screen and answered at once in batch use:
 * tags are kept in a small table by file and line, asked for the rows a
 * draw could not tag, and filled when the answer comes; the count of the
 * lines the filters keep and the search's matches are kept for the
 * filters (and pattern) they were made for, and asked again when those
 * change.  viewlog_poll() takes the answers in.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "db/cache.h"
#include "diag/linetag.h"
#include "diag/model.h"
#include "logs/logmerge.h"
#include "view/view.h"
#include "view/viewint.h"

#define TAGS_CAP	(1u << 15)	/* tags kept (a power of two) */
#define ASK_MAX		512		/* rows asked at once */

/* A tag kept: file + 1 (0: a free slot), line; stage -2: asked. */
struct tagent {
	uint32_t file1;
	int32_t stage;
	uint64_t line;
	long iter;		/* asked: the id of the task asked */
};

struct viewlog {
	struct logmerge *m;
	struct linetag *t;
	struct viewbg *bg;	/* NULL: answers at once */
	unsigned long next_id;
	/* tags */
	struct tagent *tc;
	size_t tn;
	unsigned long tags_done;	/* the last tags task answered */
	struct lm_row *ask;
	size_t nask, askcap;
	/* the filters, as the state had them */
	char *fsig;
	struct rawf *filt;
	char *ferror;
	/* the lines they keep */
	char *csig;
	int cstate;
	unsigned long cid;
	uint64_t kept;
	char *cerror;
	/* the search */
	char *spat, *ssig;
	int sstate;
	unsigned long sid;
	struct viewbg_hit *hits;
	size_t nhits;
	uint64_t nall;
	char *serror;
};

struct viewlog *
viewlog_get(struct view *v, char **cause)
{
	struct viewlog *vl;
	struct logmerge *m;
	const char *root;

	if (v->vlog != NULL)
		return v->vlog;
	if (v->m == NULL || v->cache == NULL) {
		ts_fail(cause, "no job is open");
		return NULL;
	}
	root = v->m->root != NULL ? v->m->root : ".";
	if (v->job_id > 0 ? lm_open_job(v->cache, v->job_id, v->job, root, &m,
	    cause) != 0 : lm_open(v->cache, v->job, &m, cause) != 0)
		return NULL;
	vl = xcalloc(1, sizeof *vl);
	vl->m = m;
	vl->t = linetag_new(m);
	vl->tc = xcalloc(TAGS_CAP, sizeof *vl->tc);
	if (v->async && v->job_id > 0)
		vl->bg = viewbg_new(cache_path(v->cache), v->job_id, v->job,
		    root);
	v->vlog = vl;
	return vl;
}

void
viewlog_free(struct viewlog *vl)
{
	if (vl == NULL)
		return;
	viewbg_free(vl->bg);	/* first: its threads may still run */
	linetag_free(vl->t);
	lm_free(vl->m);
	free(vl->tc);
	free(vl->ask);
	free(vl->fsig);
	rawf_free(vl->filt);
	free(vl->ferror);
	free(vl->csig);
	free(vl->cerror);
	free(vl->spat);
	free(vl->ssig);
	free(vl->hits);
	free(vl->serror);
	free(vl);
}

struct logmerge *
viewlog_merge(struct viewlog *vl)
{
	return vl->m;
}

struct linetag *
viewlog_tagger(struct viewlog *vl)
{
	return vl->t;
}

/* ---- tags ---- */

static struct tagent *
tag_slot(struct viewlog *vl, size_t file, uint64_t line, int add)
{
	uint64_t h = (line * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)file *
	    0xc2b2ae3d27d4eb4full);
	size_t i = (size_t)(h >> 17) & (TAGS_CAP - 1);
	struct tagent *e;

	for (;; i = (i + 1) & (TAGS_CAP - 1)) {
		e = &vl->tc[i];
		if (e->file1 == 0)
			break;
		if (e->file1 == file + 1 && e->line == line)
			return e;
	}
	if (!add)
		return NULL;
	if (vl->tn >= TAGS_CAP / 2) {	/* full enough: start again */
		memset(vl->tc, 0, TAGS_CAP * sizeof *vl->tc);
		vl->tn = 0;
		return tag_slot(vl, file, line, 1);
	}
	vl->tn++;
	e->file1 = (uint32_t)file + 1;
	e->line = line;
	e->stage = -2;
	e->iter = 0;
	return e;
}

int
viewlog_tag(struct viewlog *vl, const struct lm_row *row, int *stage,
    long *iter)
{
	struct tagent *e;
	enum stage st;
	char *why = NULL;

	*stage = -1;
	*iter = -1;
	if (vl->bg == NULL) {
		if (linetag_get(vl->t, row, &st, iter, &why) != 0) {
			free(why);
			return 1;
		}
		*stage = (int)st;
		return 1;
	}
	e = tag_slot(vl, row->file, row->line, 1);
	if (e->stage != -2) {
		*stage = e->stage;
		*iter = e->iter;
		return 1;
	}
	/* not asked yet, or asked of a task that has been answered since
	   (or dropped for a newer one): ask */
	if ((e->iter == 0 || (unsigned long)e->iter <= vl->tags_done) &&
	    vl->nask < ASK_MAX) {
		vl->ask = xgrow(vl->ask, &vl->askcap, vl->nask + 1,
		    sizeof *vl->ask);
		vl->ask[vl->nask++] = *row;
		e->iter = -1;	/* in this draw's question */
	}
	return 0;
}

void
viewlog_ask_tags(struct viewlog *vl)
{
	struct viewbg_task *t;
	struct tagent *e;
	char *why = NULL;
	size_t i;

	if (vl->nask == 0 || vl->bg == NULL)
		return;
	t = xcalloc(1, sizeof *t);
	t->kind = VBG_TAGS;
	t->id = ++vl->next_id;
	t->rows = vl->ask;
	t->nrows = vl->nask;
	for (i = 0; i < vl->nask; i++)
		if ((e = tag_slot(vl, vl->ask[i].file, vl->ask[i].line, 0)))
			e->iter = (long)t->id;
	vl->ask = NULL;
	vl->nask = vl->askcap = 0;
	if (viewbg_post(vl->bg, t, &why) != 0) {
		viewbg_task_free(t);
		free(why);
	}
}

static int
took_tags(struct viewlog *vl, struct viewbg_task *t)
{
	struct tagent *e;
	size_t i;

	if (t->id > vl->tags_done)
		vl->tags_done = t->id;
	for (i = 0; i < t->nrows && t->stage != NULL; i++) {
		e = tag_slot(vl, t->rows[i].file, t->rows[i].line, 1);
		e->stage = t->stage[i];
		e->iter = t->iter[i];
	}
	return VL_TAGS;
}

/* ---- the filters ---- */

/* The filters in force as one string, to know when they change. */
static char *
filters_sig(const struct view *v)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < v->st.nfilters; i++)
		buf_addf(&b, "%s%s\n", v->st.filters[i].negate ? "-v " : "",
		    v->st.filters[i].arg);
	buf_addc(&b, '.');
	return buf_detach(&b);
}

struct rawf *
viewlog_filter(struct viewlog *vl, const struct view *v)
{
	char *sig = filters_sig(v);

	if (vl->fsig != NULL && strcmp(sig, vl->fsig) == 0) {
		free(sig);
		return vl->filt;
	}
	free(vl->fsig);
	vl->fsig = sig;
	rawf_free(vl->filt);
	free(vl->ferror);
	vl->ferror = NULL;
	vl->filt = rawf_new(v->st.filters, v->st.nfilters, v->m, &vl->ferror);
	if (vl->filt == NULL)
		vl->filt = rawf_new(NULL, 0, v->m, NULL);
	return vl->filt;
}

const char *
viewlog_filter_error(const struct viewlog *vl)
{
	return vl->ferror;
}

int
viewlog_pass(struct viewlog *vl, const struct view *v,
    const struct lm_row *row, struct buf *text, int *have, char **cause)
{
	return rawf_pass(viewlog_filter(vl, v), vl->m, vl->t, row, text, have,
	    cause);
}

/* A task of kind k for the filters of v (a copy of them, for a thread). */
static struct viewbg_task *
task_new(struct viewlog *vl, const struct view *v, int k)
{
	struct viewbg_task *t = xcalloc(1, sizeof *t);

	t->kind = k;
	t->id = ++vl->next_id;
	t->filt = rawf_new(v->st.filters, v->st.nfilters, v->m, NULL);
	if (t->filt == NULL)
		t->filt = rawf_new(NULL, 0, v->m, NULL);
	return t;
}

/* Run t now (batch), or post it; 0 posted, 1 answered, -1 failed. */
static int
ask(struct viewlog *vl, struct viewbg_task *t)
{
	char *why = NULL;

	if (vl->bg != NULL && viewbg_post(vl->bg, t, &why) == 0)
		return 0;
	free(why);
	viewbg_run(t, vl->m, vl->t, NULL);
	return 1;
}

/* ---- the lines the filters keep ---- */

static int
took_count(struct viewlog *vl, struct viewbg_task *t)
{
	if (t->id != vl->cid)
		return 0;
	vl->cstate = t->error != NULL ? VLS_ERROR : VLS_READY;
	vl->kept = t->count;
	free(vl->cerror);
	vl->cerror = t->error;
	t->error = NULL;
	return VL_COUNT;
}

int
viewlog_kept(struct viewlog *vl, const struct view *v, uint64_t *kept)
{
	struct rawf *rf = viewlog_filter(vl, v);
	struct viewbg_task *t;

	*kept = 0;
	if (!rawf_lines(rf)) {
		/* the files of some nodes: their lines, known at once */
		rawf_count(rf, vl->m, vl->t, NULL, kept, NULL);
		return VLS_READY;
	}
	if (vl->csig == NULL || strcmp(vl->csig, vl->fsig) != 0) {
		free(vl->csig);
		vl->csig = xstrdup(vl->fsig);
		t = task_new(vl, v, VBG_COUNT);
		vl->cid = t->id;
		vl->cstate = VLS_RUNNING;
		if (ask(vl, t) == 1) {
			took_count(vl, t);
			viewbg_task_free(t);
		}
	}
	*kept = vl->kept;
	return vl->cstate;
}

/* ---- the search ---- */

static int
took_search(struct viewlog *vl, struct viewbg_task *t)
{
	if (t->id != vl->sid)
		return 0;
	vl->sstate = t->error != NULL ? VLS_ERROR : VLS_READY;
	free(vl->hits);
	vl->hits = t->hits;
	vl->nhits = t->nhits;
	vl->nall = t->count;
	t->hits = NULL;
	free(vl->serror);
	vl->serror = t->error;
	t->error = NULL;
	return VL_SEARCH;
}

int
viewlog_search(struct viewlog *vl, const struct view *v, const char *pattern)
{
	struct viewbg_task *t;

	viewlog_filter(vl, v);
	if (vl->spat != NULL && strcmp(vl->spat, pattern) == 0 &&
	    strcmp(vl->ssig, vl->fsig) == 0)
		return vl->sstate;
	free(vl->spat);
	free(vl->ssig);
	vl->spat = xstrdup(pattern);
	vl->ssig = xstrdup(vl->fsig);
	free(vl->hits);
	vl->hits = NULL;
	vl->nhits = 0;
	vl->nall = 0;
	t = task_new(vl, v, VBG_SEARCH);
	t->pattern = xstrdup(pattern);
	vl->sid = t->id;
	vl->sstate = VLS_RUNNING;
	if (ask(vl, t) == 1) {
		took_search(vl, t);
		viewbg_task_free(t);
	}
	return vl->sstate;
}

const struct viewbg_hit *
viewlog_hits(const struct viewlog *vl, size_t *n, uint64_t *all,
    const char **error)
{
	*n = vl->nhits;
	*all = vl->nall;
	if (error != NULL)
		*error = vl->serror;
	return vl->hits;
}

/* Order of hit h against the row (eff, file, line): <0, 0, >0. */
static int
hit_cmp(const struct viewbg_hit *h, const struct lm_row *r)
{
	if (h->eff != r->eff)
		return h->eff < r->eff ? -1 : 1;
	if (h->file != r->file)
		return h->file < r->file ? -1 : 1;
	return h->line < r->line ? -1 : h->line > r->line;
}

size_t
viewlog_hit_lower(const struct viewlog *vl, const struct lm_row *r)
{
	size_t lo = 0, hi = vl->nhits, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (hit_cmp(&vl->hits[mid], r) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long
viewlog_hit_next(const struct viewlog *vl, const struct lm_row *r, int dir)
{
	size_t i;

	if (vl->nhits == 0)
		return -1;
	i = viewlog_hit_lower(vl, r);
	if (dir > 0 && i < vl->nhits && hit_cmp(&vl->hits[i], r) == 0)
		i++;
	if (dir < 0)
		i = i == 0 ? vl->nhits - 1 : i - 1;
	return (long)(i % vl->nhits);
}

long
viewlog_hit_at(const struct viewlog *vl, const struct lm_row *r)
{
	size_t i = viewlog_hit_lower(vl, r);

	return i < vl->nhits && hit_cmp(&vl->hits[i], r) == 0 ? (long)i : -1;
}

/* ---- answers ---- */

int
viewlog_poll(struct viewlog *vl)
{
	struct viewbg_task *t;
	int k, changed = 0;

	if (vl == NULL || vl->bg == NULL)
		return 0;
	for (k = 0; k < VBG_KINDS; k++) {
		if ((t = viewbg_take(vl->bg, k)) == NULL)
			continue;
		if (k == VBG_TAGS)
			changed |= took_tags(vl, t);
		else if (k == VBG_SEARCH)
			changed |= took_search(vl, t);
		else
			changed |= took_count(vl, t);
		viewbg_task_free(t);
	}
	return changed;
}

int
viewlog_busy(const struct viewlog *vl)
{
	return vl != NULL && vl->bg != NULL && viewbg_busy(vl->bg);
}

int
viewlog_fd(const struct viewlog *vl)
{
	return vl != NULL && vl->bg != NULL ? viewbg_fd(vl->bg) : -1;
}

void
viewlog_search_status(struct viewlog *vl, const struct view *v,
    const struct lm_row *cur, char *buf, size_t len)
{
	size_t k = strlen(buf);
	long at;

	if (v->search == NULL || k >= len)
		return;
	buf += k;
	len -= k;
	switch (viewlog_search(vl, v, v->search)) {
	case VLS_RUNNING:
		snprintf(buf, len, "  searching /%.40s/", v->search);
		break;
	case VLS_ERROR:
		snprintf(buf, len, "  search: %.60s", vl->serror);
		break;
	default:
		if (vl->nall == 0)
			snprintf(buf, len, "  no match for /%.40s/", v->search);
		else if (cur != NULL && (at = viewlog_hit_at(vl, cur)) >= 0)
			snprintf(buf, len, "  match %ld of %llu  /%.30s/", at + 1,
			    (unsigned long long)vl->nall, v->search);
		else
			snprintf(buf, len, "  %llu match%s  /%.30s/",
			    (unsigned long long)vl->nall, vl->nall == 1 ? "" :
			    "es", v->search);
		break;
	}
}
