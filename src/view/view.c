/*
 * view.c -- the view state and the commands that change it (see view.h).
 *
 * The commands only change state; drawing is draw.c's and the panes'.
 * `drill` saves the state on the history that `back` pops, so that a
 * user can always return to where they were.  Every change that changes
 * what rows a pane has moves the view's generation on, so that the rows
 * kept for the old state are built again (rows.c).
 */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <limits.h>
#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "view/bookmark.h"
#include "db/jobdb.h"
#include "diag/jobmodel.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"
#include "logs/logmerge.h"
#include "view/pane.h"
#include "view/view.h"
#include "db/viewdb.h"
#include "view/viewint.h"

#define HIST_MAX 64

static void history_push(struct view *v);

static void
filter_release(struct view_filter *f)
{
	free(f->arg);
	if (f->re != NULL)
		pcre2_code_free(f->re);
}

static void
state_release(struct view_state *s)
{
	size_t i;

	for (i = 0; i < s->nfilters; i++)
		filter_release(&s->filters[i]);
	free(s->filters);
	free(s->l_path);
	free(s->lg_pos);
	memset(s, 0, sizeof *s);
}

void *
view_regex(const char *pattern, char **cause)
{
	PCRE2_UCHAR msg[160];
	PCRE2_SIZE off;
	pcre2_code *re;
	int err;

	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_CASELESS, &err, &off,
	    NULL);
	if (re == NULL) {
		pcre2_get_error_message(err, msg, sizeof msg);
		ts_fail(cause, "bad pattern at offset %zu: %s", (size_t)off,
		    (const char *)msg);
	}
	return re;
}

int
view_regex_find(void *re, const char *s, size_t len, size_t *start,
    size_t *end)
{
	pcre2_match_data *md;
	PCRE2_SIZE *ov;
	int rc;

	if (re == NULL)
		return 0;
	md = pcre2_match_data_create_from_pattern(re, NULL);
	rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
	if (rc > 0) {
		ov = pcre2_get_ovector_pointer(md);
		if (start != NULL)
			*start = ov[0];
		if (end != NULL)
			*end = ov[1];
	}
	pcre2_match_data_free(md);
	return rc > 0;
}

/* A deep copy of a state (patterns compiled again). */
static void
state_copy(struct view_state *d, const struct view_state *s)
{
	size_t i;
	char *why = NULL;

	*d = *s;
	d->l_path = s->l_path ? xstrdup(s->l_path) : NULL;
	d->lg_pos = s->lg_pos ? xstrdup(s->lg_pos) : NULL;
	d->filters = xcalloc(s->nfilters + 1, sizeof *d->filters);
	for (i = 0; i < s->nfilters; i++) {
		d->filters[i] = s->filters[i];
		d->filters[i].arg = xstrdup(s->filters[i].arg);
		if (s->filters[i].re != NULL) {
			/* arg is "/PATTERN/" */
			const char *a = s->filters[i].arg;
			char *pat = xstrndup(a + 1, strlen(a) >= 2 ?
			    strlen(a) - 2 : 0);

			d->filters[i].re = view_regex(pat, &why);
			free(pat);
			free(why);
			why = NULL;
		}
	}
}

void
view_init(struct view *v, struct cache *c)
{
	memset(v, 0, sizeof *v);
	v->cache = c;
	v->st.context = 3;
	v->st.hm_group = -1;
	v->st.l_node = -1;
	v->st.pane = PANE_JOBS;
	v->page = 18;
	v->mark_at = -1;	/* no bookmark gone to */
	v->width = 80;
	v->height = 24;
}

static void
history_clear(struct view *v)
{
	size_t i;

	for (i = 0; i < v->nhist; i++)
		state_release(&v->hist[i]);
	free(v->hist);
	v->hist = NULL;
	v->nhist = 0;
}

void
view_release(struct view *v)
{
	size_t i;

	viewjob_free(v->live);	/* first: it is told to stop */
	state_release(&v->st);
	history_clear(v);
	model_free(v->m);
	free(v->job);
	free(v->search);
	if (v->search_re != NULL)
		pcre2_code_free(v->search_re);
	free(v->message);
	free(v->warned);
	view_lines_clear(v);
	rows_drop(v, -1);
	pane_release_all(v);
	viewlog_free(v->vlog);
	free(v->rowmap);
	for (i = 0; i < v->nlog; i++)
		free(v->log[i]);
	free(v->log);
	bookmark_clear(v);
	free(v->clip);
	memset(v, 0, sizeof *v);
}

void
view_set_model(struct view *v, const char *name, struct model *m)
{
	if (v->live != NULL && strcmp(viewjob_name(v->live), name) != 0) {
		viewjob_free(v->live);	/* another job: not followed */
		v->live = NULL;
	}
	model_free(v->m);
	free(v->job);
	v->m = m;
	v->job = xstrdup(name);
	v->job_id = 0;		/* the opener says it when it knows it */
	v->gen++;
	pane_release_all(v);
	viewlog_free(v->vlog);
	v->vlog = NULL;
	v->find_pending = 0;
	state_release(&v->st);
	history_clear(v);
	view_lines_clear(v);
	bookmark_clear(v);	/* another job's lines and events */
	v->st.context = 3;
	v->st.hm_group = -1;
	v->st.l_node = -1;
	v->st.pane = PANE_EVENTS;
	/* what the user must know about the data shows first */
	free(v->message);
	v->message = m != NULL && m->nnotes > 0 ? xstrdup(m->notes[0]) : NULL;
}

static int
need_job(const struct view *v, char **cause)
{
	if (v->m == NULL)
		return ts_fail(cause, "no job is open (open JOB, or drill on "
		    "the jobs pane)");
	return 0;
}

void
view_push(struct view *v)
{
	history_push(v);
}

static void
history_push(struct view *v)
{
	if (v->nhist == HIST_MAX) {
		state_release(&v->hist[0]);
		memmove(v->hist, v->hist + 1, (HIST_MAX - 1) * sizeof *v->hist);
		v->nhist--;
	}
	v->hist = xreallocarray(v->hist, v->nhist + 1, sizeof *v->hist);
	state_copy(&v->hist[v->nhist++], &v->st);
}

int
view_pane(struct view *v, const char *name, char **cause)
{
	int p = view_pane_parse(name);

	if (strcmp(name, "next") == 0 || strcmp(name, "prev") == 0) {
		int step = name[0] == 'n' ? 1 : PANE_COUNT - 1;

		/* without a job, only the panes that need none */
		p = (int)v->st.pane;
		do
			p = (p + step) % PANE_COUNT;
		while (v->m == NULL && (pane_get((enum view_pane)p)->flags &
		    PF_JOB));
	}
	if (p < 0)
		return ts_fail(cause, "no pane '%s' (events, heatmap, timeline, "
		    "groups, lines, jobs or log)", name);
	if ((pane_get((enum view_pane)p)->flags & PF_JOB) &&
	    need_job(v, cause) != 0)
		return -1;
	v->st.pane = (enum view_pane)p;
	return 0;
}

static int
parse_range(const char *s, long *a, long *b)
{
	const char *dots = strstr(s, "..");
	char *left;
	int rc;

	if (dots == NULL) {
		if (ts_parse_long(s, a) != 0)
			return -1;
		*b = *a;
		return 0;
	}
	left = xstrndup(s, (size_t)(dots - s));
	*a = LONG_MIN;
	*b = LONG_MAX;
	rc = (left[0] != '\0' && ts_parse_long(left, a) != 0) ||
	    (dots[2] != '\0' && ts_parse_long(dots + 2, b) != 0);
	free(left);
	return rc || *a > *b ? -1 : 0;
}

int
view_filter(struct view *v, const char *spec, int negate, char **cause)
{
	struct view_filter f;
	const char *eq = strchr(spec, '=');
	size_t klen = eq != NULL ? (size_t)(eq - spec) : 0;
	const char *val = eq != NULL ? eq + 1 : NULL;

	if (need_job(v, cause) != 0)
		return -1;
	memset(&f, 0, sizeof f);
	f.negate = negate;
	if (spec[0] == '/') {
		size_t n = strlen(spec);
		char *pat = xstrndup(spec + 1, n > 1 && spec[n - 1] == '/' ?
		    n - 2 : n - 1);

		f.kind = VF_TEXT;
		f.re = view_regex(pat, cause);
		f.arg = xasprintf("/%s/", pat);
		free(pat);
		if (f.re == NULL) {
			free(f.arg);
			return -1;
		}
	} else if (eq != NULL && klen == 4 && strncmp(spec, "node", 4) == 0) {
		if ((f.a = model_node_index(v->m, val)) < 0)
			return ts_fail(cause, "no node '%s' in job %s", val,
			    v->job);
		f.kind = VF_NODE;
	} else if (eq != NULL && klen == 5 && strncmp(spec, "stage", 5) == 0) {
		int st = stage_from_name(val);

		if (st < 0)
			return ts_fail(cause, "no stage '%s' (launch, init, "
			    "checkpoint-load, training, checkpoint-save, "
			    "evaluation, shutdown)", val);
		f.kind = VF_STAGE;
		f.a = st;
	} else if (eq != NULL && klen == 4 && strncmp(spec, "iter", 4) == 0) {
		if (parse_range(val, &f.a, &f.b) != 0)
			return ts_fail(cause, "iter wants N or A..B, not '%s'",
			    val);
		f.kind = VF_ITER;
	} else if (eq != NULL && klen == 8 &&
	    strncmp(spec, "category", 8) == 0) {
		f.kind = VF_CATEGORY;
	} else
		return ts_fail(cause, "cannot filter on '%s' (node=NAME, "
		    "stage=NAME, iter=A..B, category=NAME or /PATTERN/)", spec);
	if (f.arg == NULL)
		f.arg = xstrdup(spec);
	v->st.filters = xreallocarray(v->st.filters, v->st.nfilters + 1,
	    sizeof *v->st.filters);
	v->st.filters[v->st.nfilters++] = f;
	memset(v->st.cursor, 0, sizeof v->st.cursor);
	memset(v->st.top, 0, sizeof v->st.top);
	view_lines_clear(v);
	v->gen++;
	return 0;
}

int
view_unfilter(struct view *v, const char *which, char **cause)
{
	long n;

	if (which == NULL || strcmp(which, "all") == 0) {
		while (v->st.nfilters > 0)
			filter_release(&v->st.filters[--v->st.nfilters]);
	} else {
		if (ts_parse_long(which, &n) != 0 || n < 1 ||
		    (size_t)n > v->st.nfilters)
			return ts_fail(cause, "no filter '%s' (there %s %zu)",
			    which, v->st.nfilters == 1 ? "is" : "are",
			    v->st.nfilters);
		filter_release(&v->st.filters[n - 1]);
		memmove(&v->st.filters[n - 1], &v->st.filters[n],
		    (v->st.nfilters - (size_t)n) * sizeof *v->st.filters);
		v->st.nfilters--;
	}
	memset(v->st.cursor, 0, sizeof v->st.cursor);
	memset(v->st.top, 0, sizeof v->st.top);
	view_lines_clear(v);
	v->gen++;
	return 0;
}

char *
view_filters_text(const struct view *v)
{
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < v->st.nfilters; i++)
		buf_addf(&b, "%zu. %s%s\n", i + 1,
		    v->st.filters[i].negate ? "-v " : "", v->st.filters[i].arg);
	if (v->st.nfilters == 0)
		buf_adds(&b, "no filters\n");
	return buf_detach(&b);
}

/* The sort keys, in the order of enum view_sort. */
static const char *const sort_keys[] = { "score", "time", "count", "nodes" };

int
view_sort(struct view *v, const char *key, char **cause)
{
	size_t i;

	for (i = 0; i < TS_NELEM(sort_keys); i++)
		if (strcmp(sort_keys[i], key) == 0) {
			v->st.sort = (enum view_sort)i;
			v->gen++;
			v->st.cursor[PANE_EVENTS] = v->st.top[PANE_EVENTS] = 0;
			return 0;
		}
	return ts_fail(cause, "cannot sort by '%s' (score, time, count or "
	    "nodes)", key);
}

int
view_move_is_column(const char *how)
{
	return strcmp(how, "left") == 0 || strcmp(how, "right") == 0 ||
	    strcmp(how, "first") == 0 || strcmp(how, "last") == 0 ||
	    strncmp(how, "column=", 7) == 0;
}

int
view_move(struct view *v, const char *how, char **cause)
{
	const struct pane_ops *ops = pane_active(v);
	int *cur = &v->st.cursor[v->st.pane];
	int n, page = view_page(v);
	long to;

	if (view_move_is_column(how))
		return view_column(v, strncmp(how, "column=", 7) == 0 ?
		    how + 7 : how, cause);
	if (ops->move != NULL)
		return ops->move(v, how, cause);
	n = view_nrows(v);

	if (strcmp(how, "down") == 0)
		to = (long)*cur + 1;
	else if (strcmp(how, "up") == 0)
		to = (long)*cur - 1;
	else if (strcmp(how, "pgdn") == 0)
		to = (long)*cur + page;
	else if (strcmp(how, "pgup") == 0)
		to = (long)*cur - page;
	else if (strcmp(how, "halfdn") == 0)
		to = (long)*cur + (page + 1) / 2;
	else if (strcmp(how, "halfup") == 0)
		to = (long)*cur - (page + 1) / 2;
	else if (strcmp(how, "top") == 0)
		to = 0;
	else if (strcmp(how, "bottom") == 0)
		to = n - 1;
	else if ((how[0] == '+' || how[0] == '-') &&
	    ts_parse_long(how + 1, &to) == 0)
		to = (long)*cur + (how[0] == '+' ? to : -to);
	else if (ts_parse_long(how, &to) == 0)
		to = to < 1 ? 0 : to - 1;	/* rows count from 1 */
	else
		return ts_fail(cause, "cannot move '%s' (up, down, pgup, pgdn, "
		    "halfup, halfdn, top, bottom, +N, -N, a row number; left, "
		    "right, first, last or column=N in the heatmap)", how);
	if (to >= n)
		to = n - 1;
	if (to < 0)
		to = 0;
	*cur = (int)to;
	return 0;
}

int
view_column(struct view *v, const char *how, char **cause)
{
	const struct pane_ops *ops = pane_active(v);

	if (need_job(v, cause) != 0)
		return -1;
	if (ops->column == NULL)
		return ts_fail(cause, "the %s pane has no columns to move in "
		    "(the heatmap has)", ops->name);
	return ops->column(v, how, cause);
}

int
view_back(struct view *v, int or_quit, char **cause)
{
	if (v->nhist == 0 && or_quit)
		return 1;
	if (v->nhist == 0)
		return ts_fail(cause, "nothing to go back to");
	state_release(&v->st);
	v->st = v->hist[--v->nhist];
	view_lines_clear(v);
	v->gen++;
	return 0;
}

int
view_scroll(struct view *v, const char *how, char **cause)
{
	int *h = &v->st.hscroll[v->st.pane];
	int step = v->width >= 32 ? v->width / 4 : 8;
	long to;

	if (!(pane_get(v->st.pane)->flags & PF_HSCROLL))
		return ts_fail(cause, "only the events, lines and log panes "
		    "scroll sideways");
	if (strcmp(how, "left") == 0)
		to = *h - step;
	else if (strcmp(how, "right") == 0) {
		to = *h + step;
		/* not past the widest text the pane cut at its last draw */
		if (v->hwide_pane == (int)v->st.pane + 1 &&
		    to > *h + v->hwide)
			to = *h + v->hwide;
	} else if (strcmp(how, "home") == 0)
		to = 0;
	else if (ts_parse_long(how, &to) != 0 || to < 0 || to > 1000000)
		return ts_fail(cause, "cannot scroll '%s' (left, right, home "
		    "or a column)", how);
	*h = to < 0 ? 0 : (int)to;
	return 0;
}

int
view_context(struct view *v, long n, char **cause)
{
	if (n < 0 || n > 1000)
		return ts_fail(cause, "context wants 0 to 1000 lines, not %ld",
		    n);
	v->st.context = (int)n;
	view_lines_clear(v);
	return 0;
}

/*
 * Load the model of a job for a drill from the jobs pane; *id is its id
 * (the job is found once, here).
 */
static int
open_job(struct view *v, const char *name, struct model **out, int64_t *id,
    char **cause)
{
	struct job_ref ref;
	int rc;

	if (v->cache == NULL)
		return ts_fail(cause, "no cache");
	if ((rc = jobdb_find(v->cache, name, &ref, cause)) <= 0)
		return rc < 0 ? -1 : ts_fail(cause, "no job '%s' (index it "
		    "first)", name);
	rc = job_model_ref(v->cache, &ref, NULL, 0, 0, NULL, NULL, out, cause);
	*id = ref.id;
	jobdb_release(&ref);
	return rc;
}

/* Replace every filter of kind k by a new one (for drill). */
static void
set_filter(struct view *v, enum view_fkind k, const char *spec)
{
	size_t i, o = 0;
	char *why = NULL;

	for (i = 0; i < v->st.nfilters; i++) {
		if (v->st.filters[i].kind == k)
			filter_release(&v->st.filters[i]);
		else
			v->st.filters[o++] = v->st.filters[i];
	}
	v->st.nfilters = o;
	if (view_filter(v, spec, 0, &why) != 0)
		free(why);
}

static void
lines_of_event(struct view *v, uint32_t id, long node)
{
	v->st.lsrc = LS_EVENT;
	v->st.l_event = id;
	v->st.l_node = node;
	free(v->st.l_path);
	v->st.l_path = NULL;
	v->st.pane = PANE_LINES;
	v->st.cursor[PANE_LINES] = v->st.top[PANE_LINES] = 0;
	view_lines_clear(v);
	v->lines_seek = 1;
}

/* Open the job of the jobs pane's row; back returns to it. */
static int
drill_job(struct view *v, const char *name, char **cause)
{
	struct model *m;
	int64_t id = 0;
	int row;

	if (open_job(v, name, &m, &id, cause) != 0)
		return -1;
	/* back returns to the jobs, at the job left */
	row = v->st.cursor[PANE_JOBS];
	view_set_model(v, name, m);
	v->job_id = id;
	v->st.pane = PANE_JOBS;
	v->st.cursor[PANE_JOBS] = row;
	history_push(v);
	v->st.pane = PANE_EVENTS;
	return 0;
}

/* Filter the events by spec, replacing the filters of its kind. */
static void
drill_filter(struct view *v, enum view_fkind k, char *spec)
{
	set_filter(v, k, spec);
	free(spec);
	v->st.pane = PANE_EVENTS;
}

/* Show the log pane at pos (taken; NULL: at the failure). */
static void
log_at(struct view *v, char *pos)
{
	free(v->st.lg_pos);
	v->st.lg_pos = pos;
	v->st.pane = PANE_LOG;
	v->st.cursor[PANE_LOG] = v->st.top[PANE_LOG] = -1;	/* a new place */
	v->gen++;		/* its window is built again there */
}

/*
 * An event: the log at its first line, and its lines with their context
 * in the lines pane for 5.
 */
static void
drill_event(struct view *v, uint32_t id, long node)
{
	long e = model_event_index(v->m, id);
	const struct model_event *ev = e >= 0 ? &v->m->events[e] : NULL;

	lines_of_event(v, id, node);
	if (ev != NULL && ev->path != NULL && ev->line > 0)
		log_at(v, xasprintf("%s:%ld", ev->path, ev->line));
	else if (ev != NULL && isfinite(ev->ts))
		log_at(v, xasprintf("@%.6f", ev->ts));
	else
		log_at(v, NULL);
}

/*
 * An iteration: the log where it starts (else the events in it).  A
 * bucket of iterations (a long run's model): the same, with the lines
 * filtered to its iterations.
 */
static void
drill_iter(struct view *v, long it)
{
	long i = model_iter_index(v->m, it), w = v->m->iter_width;
	char *spec;

	if (w > 1 && it >= 0 && it <= LONG_MAX - w)
		spec = xasprintf("iter=%ld..%ld", it, it + w - 1);
	else
		spec = xasprintf("iter=%ld", it);
	if (i >= 0 && isfinite(v->m->iters[i].start)) {
		if (w > 1)
			set_filter(v, VF_ITER, spec);
		free(spec);
		log_at(v, xasprintf("@%.6f", v->m->iters[i].start));
	} else
		drill_filter(v, VF_ITER, spec);
}

/*
 * A node in a column of the heatmap: its lines in the log, filtered to
 * the column's iterations (a bucket's included) and opened where the
 * first of them starts; a column of seconds: the node's lines from the
 * column's first second.
 */
static void
drill_cell(struct view *v, const struct view_target *t)
{
	double at = t->by_time ? t->from : t->start;
	char *spec;

	drill_filter(v, VF_NODE, xasprintf("node=%s",
	    v->m->nodes[t->node].name));
	if (!t->by_time) {
		spec = xasprintf("iter=%.0f..%.0f", t->from, t->to);
		set_filter(v, VF_ITER, spec);
		free(spec);
	}
	log_at(v, isfinite(at) ? xasprintf("@%.6f", at) : xstrdup("first"));
}

int
view_drill(struct view *v, char **cause)
{
	struct view_target t;
	int rc;

	if (view_target(v, &t) != 0)
		return ts_fail(cause, "%s", t.why != NULL ? t.why :
		    "nothing to drill into here");
	if (t.kind == VT_JOB) {
		rc = drill_job(v, t.name, cause);
		free(t.owned);
		return rc;
	}
	history_push(v);
	switch (t.kind) {
	case VT_EVENT:
		drill_event(v, t.id, t.node);
		break;
	case VT_NODE:
		/* the node's lines in the log, where it was */
		drill_filter(v, VF_NODE, xasprintf("node=%s",
		    v->m->nodes[t.node].name));
		log_at(v, v->st.lg_pos != NULL ? xstrdup(v->st.lg_pos) : NULL);
		break;
	case VT_GROUP:
		v->st.hm_group = t.node;
		v->st.hm_count = t.iter;
		v->st.cursor[PANE_HEATMAP] = v->st.top[PANE_HEATMAP] = 0;
		v->gen++;
		break;
	case VT_ITER:
		drill_iter(v, t.iter);
		break;
	case VT_CELL:
		drill_cell(v, &t);
		break;
	case VT_LINE:
		v->st.pane = PANE_LINES;
		v->st.lsrc = LS_FILE;
		free(v->st.l_path);
		v->st.l_path = xstrdup(t.name);
		v->st.l_line = t.iter;
		v->st.cursor[PANE_LINES] = v->st.context;
		v->st.top[PANE_LINES] = 0;
		view_lines_clear(v);
		break;
	default:
		break;
	}
	free(t.owned);
	return 0;
}

/* Put the cursor on node n of the heatmap (the active pane). */
static int
select_node(struct view *v, long n, char **cause)
{
	const struct rows *shown = rows_get(v);
	struct rows all;
	size_t r;

	for (r = 0; r < shown->n; r++)
		if (shown->row[r].n == 0 && shown->row[r].item == (size_t)n) {
			v->st.cursor[PANE_HEATMAP] = (int)r;
			return 0;
		}
	/* folded away: unfold everything */
	memset(&all, 0, sizeof all);
	rows_heatmap_fold(v, &all, -1);
	for (r = 0; r < all.n; r++)
		if (all.row[r].item == (size_t)n)
			break;
	rows_release(&all);
	if (v->st.nfilters > 0)
		return ts_fail(cause, "node %s is filtered out",
		    v->m->nodes[n].name);
	v->st.cursor[PANE_HEATMAP] = (int)r;
	return 0;
}

/* Put the cursor on the timeline's row of iteration record i. */
static int
select_iter(struct view *v, size_t i, char **cause)
{
	enum view_pane was = v->st.pane;
	const struct rows *r;
	size_t k;

	v->st.pane = PANE_TIMELINE;
	r = rows_get(v);
	for (k = 0; k < r->n; k++)
		if (r->row[k].item == i) {
			v->st.cursor[PANE_TIMELINE] = (int)k;
			return 0;
		}
	v->st.pane = was;
	return ts_fail(cause, "iteration %ld is filtered out",
	    v->m->iters[i].iteration);
}

/* Put the cursor on the timeline's iteration nearest time HH:MM:SS. */
static int
select_time(struct view *v, const char *hms, char **cause)
{
	const struct rows *r;
	int h, m, s;
	char c;
	enum view_pane was = v->st.pane;
	size_t k, best = 0;
	double bestd = INFINITY;

	if (sscanf(hms, "%d:%d:%d%c", &h, &m, &s, &c) != 3 || h < 0 ||
	    h > 23 || m < 0 || m > 59 || s < 0 || s > 60)
		return ts_fail(cause, "time wants HH:MM:SS, not '%s'", hms);
	if (v->m->niters == 0)
		return ts_fail(cause, "job %s has no iterations to go to",
		    v->job);
	/* among the iterations the filters keep */
	v->st.pane = PANE_TIMELINE;
	r = rows_get(v);
	for (k = 0; k < r->n; k++) {
		double t = v->m->iters[r->row[k].item].start, d;

		if (isnan(t))
			continue;
		d = fabs(fmod(t, 86400.0) - (h * 3600 + m * 60 + s));
		if (d < bestd) {
			bestd = d;
			best = k;
		}
	}
	if (isinf(bestd)) {
		v->st.pane = was;
		return ts_fail(cause, "job %s's iterations carry no times",
		    v->job);
	}
	v->st.cursor[PANE_TIMELINE] = (int)best;
	return 0;
}

/* goto line PATH:LINE: the log pane at that line of the job's file. */
static int
goto_line(struct view *v, const char *arg, char **cause)
{
	struct viewlog *vl = viewlog_get(v, cause);
	struct logmerge *m;
	const struct lm_file *f;
	size_t file;
	uint64_t line;

	if (vl == NULL)
		return -1;
	m = viewlog_merge(vl);
	if (lm_parse_pos(m, arg, &file, &line, cause) != 0)
		return -1;
	f = lm_file(m, file);
	if (line > f->lines)
		return ts_fail(cause, "'%s' has %llu line%s in the index, not "
		    "%llu", f->path, (unsigned long long)f->lines, f->lines == 1 ?
		    "" : "s", (unsigned long long)line);
	log_at(v, xasprintf("%s:%llu", f->path, (unsigned long long)line));
	return 0;
}

/* goto time and goto iter in the log pane: the first line at the time. */
static int
goto_merged(struct view *v, const char *what, const char *arg, char **cause)
{
	struct viewlog *vl = viewlog_get(v, cause);
	double t;
	long n, i;

	if (vl == NULL)
		return -1;
	if (strcmp(what, "time") == 0) {
		if (lm_parse_time(viewlog_merge(vl), arg, &t, cause) != 0)
			return -1;
	} else {
		if (ts_parse_long(arg, &n) != 0 || (i = model_iter_index(v->m,
		    n)) < 0)
			return ts_fail(cause, "no iteration '%s' in job %s", arg,
			    v->job);
		if (!isfinite(t = v->m->iters[i].start))
			return ts_fail(cause, "iteration %ld of job %s has no "
			    "time to go to", n, v->job);
	}
	log_at(v, xasprintf("@%.6f", t));
	return 0;
}

int
view_goto(struct view *v, const char *what, const char *arg, char **cause)
{
	long n;

	if (need_job(v, cause) != 0)
		return -1;
	if (strcmp(what, "line") == 0)
		return goto_line(v, arg, cause);
	if ((strcmp(what, "time") == 0 || strcmp(what, "iter") == 0) &&
	    (pane_active(v)->flags & PF_MERGED))
		return goto_merged(v, what, arg, cause);
	if (strcmp(what, "node") == 0) {
		if ((n = model_node_index(v->m, arg)) < 0)
			return ts_fail(cause, "no node '%s' in job %s", arg,
			    v->job);
		v->st.pane = PANE_HEATMAP;
		v->st.hm_group = -1;
		v->gen++;
		return select_node(v, n, cause);
	}
	if (strcmp(what, "iter") == 0) {
		if (ts_parse_long(arg, &n) != 0 || model_iter_index(v->m,
		    n) < 0)
			return ts_fail(cause, "no iteration '%s' in job %s", arg,
			    v->job);
		return select_iter(v, (size_t)model_iter_index(v->m, n), cause);
	}
	if (strcmp(what, "time") == 0)
		return select_time(v, arg, cause);
	return ts_fail(cause, "cannot go to '%s' (node NAME, iter N, time "
	    "HH:MM:SS or line PATH:LINE)", what);
}

/* Say on the status line that the search found nothing. */
static void
no_match(struct view *v)
{
	free(v->message);
	if (pane_active(v)->flags & PF_RAW)
		v->message = xasprintf("no match for /%s/", v->search);
	else
		v->message = xasprintf("no match for /%s/ in %s (7, the log "
		    "pane, searches raw lines)", v->search,
		    pane_active(v)->name);
}

int
view_search(struct view *v, const char *pattern, char **cause)
{
	size_t n = strlen(pattern);
	char *pat;
	void *re;

	if (n > 0 && pattern[0] == '/') {
		pattern++;
		n--;
		if (n > 0 && pattern[n - 1] == '/')
			n--;
	}
	pat = xstrndup(pattern, n);
	if (pat[0] == '\0') {
		free(pat);
		free(v->search);
		v->search = NULL;
		if (v->search_re != NULL)
			pcre2_code_free(v->search_re);
		v->search_re = NULL;
		return 0;
	}
	if ((re = view_regex(pat, cause)) == NULL) {
		free(pat);
		return -1;
	}
	free(v->search);
	v->search = pat;
	if (v->search_re != NULL)
		pcre2_code_free(v->search_re);
	v->search_re = re;
	if (view_search_next(v, 0, cause) != 0) {
		free(*cause);
		*cause = NULL;
		no_match(v);
	}
	return 0;
}

int
view_search_next(struct view *v, int dir, char **cause)
{
	size_t row;

	if (v->search_re == NULL)
		return ts_fail(cause, "no search (/ PATTERN)");
	v->find_pending = 0;
	switch (pane_find(v, v->search_re, dir, &row)) {
	case FIND_FOUND:
		v->st.cursor[v->st.pane] = (int)row;
		return 0;
	case FIND_LATER:
		/* view_poll() goes on when the answer comes */
		v->find_pending = (int)v->st.pane + 1;
		v->find_dir = dir;
		return 0;
	default:
		return ts_fail(cause, "no match for /%s/", v->search);
	}
}

int
view_poll(struct view *v)
{
	int got = viewlog_poll(v->vlog);
	char *why = NULL;

	if (view_live_poll(v))
		return 1;	/* a newer model: what was asked is gone */
	if ((got & VL_SEARCH) && v->find_pending == (int)v->st.pane + 1) {
		if (view_search_next(v, v->find_dir, &why) != 0) {
			free(why);
			no_match(v);
		}
	} else if (got & VL_SEARCH)
		v->find_pending = 0;
	return got != 0;
}

int
view_busy(const struct view *v)
{
	/* (the background's job is not awaited: a draw every 250 ms shows
	   its progress and takes its model in) */
	return v->find_pending != 0 || viewlog_busy(v->vlog);
}

int
view_wake_fd(const struct view *v)
{
	return viewlog_fd(v->vlog);
}

static void
add_name(char ***out, size_t *n, const char *s, const char *word)
{
	size_t i;

	if (strncmp(s, word, strlen(word)) != 0)
		return;
	for (i = 0; i < *n; i++)
		if (strcmp((*out)[i], s) == 0)
			return;
	*out = xreallocarray(*out, *n + 2, sizeof **out);
	(*out)[(*n)++] = xstrdup(s);
	(*out)[*n] = NULL;
}

struct complete_jobs {
	char ***out;
	size_t *n;
	const char *word;
};

static int
complete_job(void *arg, const struct viewdb_job *j)
{
	struct complete_jobs *c = arg;

	add_name(c->out, c->n, j->name, c->word);
	return 0;
}

static void
add_names(char ***out, size_t *n, const char *const *names, size_t k,
    const char *word)
{
	size_t i;

	for (i = 0; i < k; i++)
		add_name(out, n, names[i], word);
}

static void
add_jobs(const struct view *v, char ***out, size_t *n, const char *word)
{
	struct complete_jobs cj = { out, n, word };
	char *why = NULL;

	if (v->cache != NULL && viewdb_each_job(v->cache, complete_job, &cj,
	    &why) != 0)
		free(why);
}

/* node=, stage=, category= and iter= words for a filter. */
static void
add_filters(const struct view *v, char ***out, size_t *n, const char *word)
{
	char buf[160];
	size_t i;

	add_name(out, n, "-v", word);
	add_name(out, n, "iter=", word);
	for (i = 1; i < STAGE_COUNT; i++) {
		snprintf(buf, sizeof buf, "stage=%s", stage_name((enum stage)i));
		add_name(out, n, buf, word);
	}
	for (i = 0; v->m != NULL && i < v->m->nreal; i++) {
		snprintf(buf, sizeof buf, "node=%s", v->m->nodes[i].name);
		add_name(out, n, buf, word);
	}
	for (i = 0; v->m != NULL && i < v->m->nevents; i++)
		if (v->m->events[i].category != NULL) {
			snprintf(buf, sizeof buf, "category=%s",
			    v->m->events[i].category);
			add_name(out, n, buf, word);
		}
}

size_t
view_complete(const struct view *v, const char *cmd, const char *word,
    char ***out)
{
	static const char *const moves[] = { "up", "down", "pgup", "pgdn",
	    "halfup", "halfdn", "top", "bottom" };
	static const char *const columns[] = { "left", "right", "first",
	    "last", "column=" };
	static const char *const scrolls[] = { "left", "right", "home" };
	static const char *const gotos[] = { "node", "iter", "time", "line" };
	static const char *const panes2[] = { "next", "prev" };
	size_t n = 0, i;

	*out = NULL;
	if (strcmp(cmd, "pane") == 0 || strcmp(cmd, "view") == 0) {
		for (i = 0; i < PANE_COUNT; i++)
			add_name(out, &n, view_pane_name((enum view_pane)i),
			    word);
		add_names(out, &n, panes2, TS_NELEM(panes2), word);
		if (strcmp(cmd, "view") == 0)
			add_jobs(v, out, &n, word);
	} else if (strcmp(cmd, "sort") == 0)
		add_names(out, &n, sort_keys, TS_NELEM(sort_keys), word);
	else if (strcmp(cmd, "move") == 0) {
		add_names(out, &n, moves, TS_NELEM(moves), word);
		if (pane_active(v)->column != NULL && v->m != NULL)
			add_names(out, &n, columns, TS_NELEM(columns), word);
	}
	else if (strcmp(cmd, "scroll") == 0)
		add_names(out, &n, scrolls, TS_NELEM(scrolls), word);
	else if (strcmp(cmd, "filter") == 0)
		add_filters(v, out, &n, word);
	else if (strcmp(cmd, "unfilter") == 0)
		add_name(out, &n, "all", word);
	else if (strcmp(cmd, "goto") == 0) {
		add_names(out, &n, gotos, TS_NELEM(gotos), word);
		for (i = 0; v->m != NULL && i < v->m->nreal; i++)
			add_name(out, &n, v->m->nodes[i].name, word);
	} else if (strcmp(cmd, "open") == 0 || strcmp(cmd, "diagnose") == 0 ||
	    strcmp(cmd, "mark") == 0 || strcmp(cmd, "forget") == 0 ||
	    strcmp(cmd, "templates") == 0 || strcmp(cmd, "lines") == 0 ||
	    strcmp(cmd, "flows") == 0)
		add_jobs(v, out, &n, word);
	return n;
}
