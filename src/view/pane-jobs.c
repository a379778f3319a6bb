/*
 * pane-jobs.c -- the jobs pane: the jobs in the cache.
 *
 * A row per job, by name: its outcome, the mark a user gave it, its
 * nodes, files and size, when it was indexed and its directory.  The
 * rows are copies of the cache's list, read again at every draw (another
 * process may have indexed a job since); a drill opens the job.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "view/canvas.h"
#include "base/json.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "db/viewdb.h"
#include "view/viewint.h"

/* A job of the list, with its own copies of the cache's strings. */
struct job {
	char *name, *root, *outcome, *marked;
	int64_t files, bytes, lines, nodes;
	double indexed;
};

struct jobs {
	struct job *j;
	size_t n, cap;
	int namew;		/* the widest name, as drawn */
};

/* The name column: 16 wide, wider for long names on a wide screen. */
#define JOBS_NAMEW	16
#define JOBS_ROOTMIN	(JOBS_ROOT - JOBS_NAMEW + 40)
#define JOBS_ROOT	73

static void
jobs_free(void *aux)
{
	struct jobs *js = aux;
	size_t i;

	if (js == NULL)
		return;
	for (i = 0; i < js->n; i++) {
		free(js->j[i].name);
		free(js->j[i].root);
		free(js->j[i].outcome);
		free(js->j[i].marked);
	}
	free(js->j);
	free(js);
}

static int
job_copy(void *arg, const struct viewdb_job *vj)
{
	struct rows *r = arg;
	struct jobs *js = r->aux;
	struct job *j;
	int w;

	js->j = xgrow(js->j, &js->cap, js->n + 1, sizeof *js->j);
	j = &js->j[js->n];
	j->name = xstrdup(vj->name);
	j->root = xstrdup(vj->root);
	j->outcome = xstrdup(vj->outcome);
	j->marked = xstrdup(vj->marked);
	j->files = vj->files;
	j->bytes = vj->bytes;
	j->lines = vj->lines;
	j->nodes = vj->nodes;
	j->indexed = vj->indexed;
	w = canvas_text_width(j->name, strlen(j->name));
	if (w > js->namew)
		js->namew = w;
	rows_add(r, js->n++, 0);
	return 0;
}

static void
jobs_build(struct view *v, struct rows *r)
{
	char *why = NULL;

	r->aux = xcalloc(1, sizeof (struct jobs));
	r->aux_free = jobs_free;
	if (v->cache == NULL)
		r->error = xstrdup("no cache");
	else if (viewdb_each_job(v->cache, job_copy, r, &why) != 0)
		r->error = why != NULL ? why : xstrdup("no cache");
}

static const struct job *
job_of(const struct rows *r, size_t i)
{
	return &((const struct jobs *)r->aux)->j[r->row[i].item];
}

static int
outcome_style(const char *o)
{
	if (strcmp(o, "failed") == 0 || strcmp(o, "diverged") == 0)
		return CS_ERROR;
	if (strcmp(o, "degraded") == 0)
		return CS_WARN;
	if (strcmp(o, "healthy") == 0 || strcmp(o, "completed") == 0)
		return CS_GOOD;
	return CS_DIM;
}

/*
 * The name column's width on a screen w wide: 16, or as wide as the
 * widest name while the root keeps 40 columns (a wide screen and output
 * to a file or pipe cut no name).
 */
static int
name_width(const struct jobs *js, int w)
{
	int most = w - JOBS_ROOTMIN;

	if (js->namew <= JOBS_NAMEW || most <= JOBS_NAMEW)
		return JOBS_NAMEW;
	return js->namew < most ? js->namew : most;
}

static void
job_row(const struct job *j, struct canvas *cv, int row, int namew)
{
	char size[24], when[32];
	int x = namew - JOBS_NAMEW;	/* the columns after the name move */
	struct tm tm;
	time_t t;

	canvas_put_clip(cv, row, 0, namew, CS_BOLD, j->name, strlen(j->name));
	canvas_put_clip(cv, row, x + 17, x + 26, outcome_style(j->outcome),
	    j->outcome[0] != '\0' ? j->outcome : "-", j->outcome[0] != '\0' ?
	    strlen(j->outcome) : 1);
	canvas_puts(cv, row, x + 27, CS_NORMAL, j->marked[0] != '\0' ?
	    j->marked : "-");
	canvas_printf(cv, row, x + 32, CS_NORMAL, "%5lld %6lld %9s",
	    (long long)j->nodes, (long long)j->files,
	    ts_human_size((uint64_t)j->bytes, size, sizeof size));
	if (isnan(j->indexed))
		snprintf(when, sizeof when, "flows only");
	else if (!(fabs(j->indexed) < 1e11))	/* no time a cache keeps */
		snprintf(when, sizeof when, "-");
	else {
		t = (time_t)j->indexed;
		gmtime_r(&t, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
	}
	canvas_puts(cv, row, x + 56, CS_DIM, when);
	/* a long root keeps its end, where jobs differ */
	draw_tail(cv, row, x + JOBS_ROOT, cv->width - x - JOBS_ROOT, CS_DIM,
	    j->root);
}

static void
jobs_draw(struct view *v, struct area *a, int *used)
{
	const struct rows *r = rows_get(v);
	int row = draw_row(a, used), namew;
	size_t i;

	namew = name_width(r->aux, a->w);
	canvas_puts(a->cv, row, 0, CS_BOLD, "job");
	canvas_puts(a->cv, row, namew + 1, CS_BOLD, "outcome   mark "
	    "nodes  files      size  indexed (UTC)    root");
	v->page = 0;
	for (i = (size_t)v->st.top[PANE_JOBS]; i < r->n; i++) {
		if ((row = draw_row(a, used)) < 0)
			break;
		v->page++;
		draw_map(a, row, (long)i);
		job_row(job_of(r, i), a->cv, row, namew);
		if ((int)i == v->st.cursor[PANE_JOBS])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
	}
	if (r->error != NULL) {
		if ((row = draw_row(a, used)) >= 0)
			canvas_put_clip(a->cv, row, 0, a->w, CS_ERROR, r->error,
			    strlen(r->error));
	} else if (r->n == 0 && (row = draw_row(a, used)) >= 0)
		canvas_puts(a->cv, row, 0, CS_DIM, "the cache holds no job: "
		    "index a job directory first");
}

static int
jobs_target(struct view *v, size_t r, struct view_target *t)
{
	t->kind = VT_JOB;
	t->name = t->owned = xstrdup(job_of(rows_get(v), r)->name);
	return 0;
}

static void
job_tsv(const struct job *j, FILE *out)
{
	canvas_fput(out, j->name);
	fputc('\t', out);
	canvas_fput(out, j->outcome);
	fputc('\t', out);
	canvas_fput(out, j->marked);
	fprintf(out, "\t%lld\t%lld\t%lld\t%lld\t", (long long)j->nodes,
	    (long long)j->files, (long long)j->bytes, (long long)j->lines);
	if (!isnan(j->indexed))
		fprintf(out, "%.0f", j->indexed);
	fputc('\t', out);
	canvas_fput(out, j->root);
	fputc('\n', out);
}

static void
job_json(const struct job *jb, struct json *j)
{
	json_obj_begin(j);
	json_key(j, "name"); json_str(j, jb->name);
	json_key(j, "root"); json_str(j, jb->root);
	json_key(j, "outcome");
	json_str(j, jb->outcome[0] ? jb->outcome : NULL);
	json_key(j, "marked");
	json_str(j, jb->marked[0] ? jb->marked : NULL);
	json_key(j, "nodes"); json_int(j, jb->nodes);
	json_key(j, "files"); json_int(j, jb->files);
	json_key(j, "bytes"); json_int(j, jb->bytes);
	json_key(j, "lines"); json_int(j, jb->lines);
	json_key(j, "indexed"); json_num(j, jb->indexed);
	json_obj_end(j);
}

static int
jobs_data(struct view *v, struct json *j, FILE *out, int tsv, char **cause)
{
	const struct rows *r;
	size_t i;

	/* what the cache holds now */
	rows_drop(v, (int)v->st.pane);
	r = rows_get(v);
	if (tsv)
		fputs("name\toutcome\tmarked\tnodes\tfiles\tbytes\tlines\t"
		    "indexed\troot\n", out);
	else
		json_arr_begin(j);
	for (i = 0; i < r->n; i++) {
		if (tsv)
			job_tsv(job_of(r, i), out);
		else
			job_json(job_of(r, i), j);
	}
	if (!tsv)
		json_arr_end(j);
	return r->error != NULL ? ts_fail(cause, "%s", r->error) : 0;
}

const struct pane_ops pane_jobs = {
	.name = "jobs",
	.flags = PF_REDRAW_ROWS,
	.build = jobs_build,
	.draw = jobs_draw,
	.target = jobs_target,
	.data = jobs_data
};
