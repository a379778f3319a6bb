/*
 * diag-score.c -- score one diagnosis against a simulated job's truth.
 *
 *	diag-score CACHE JOB TRUTH [BASELINE...]
 *
 * Loads JOB from CACHE (with the baselines as healthy runs), runs the
 * diagnosis, and compares it with log_truth in TRUTH (truth.json written
 * by `simulate`): root-cause lines become the failure-indicating events
 * (the templates of those lines), faulty_nodes the faulty nodes.  Prints
 * one line of whitespace-separated fields, NA where a case has no truth:
 *
 *	events truth_events detected hits  (L4: score >= REL x top score)
 *	L4 node top-1 3 5 8 fractions, Error_time top-1 3 5 8, Error_count
 *	top-1 3 5 8, error-level events detected and hits, failure iteration
 *	right (1/0/NA), seconds spent in diagnosis
 *
 * REL comes from $EVAL_REL (default 0.9).  The node rankings of the two
 * baselines are the ones of the L4 paper: Error_time by the time of each
 * node's first error-level line, Error_count by its number of
 * error-level lines.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cache.h"
#include "diag/diag.h"
#include "db/diagdb.h"
#include "db/jobdb.h"
#include "diag/jobload.h"
#include "diag/faults.h"
#include "flows/flowjoin.h"
#include "base/util.h"

struct truth {
	char **nodes;
	size_t nnodes;
	char **where;		/* "path:line" */
	size_t nwhere;
	long fail_iter;		/* -1 unknown */
};

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t n;

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_detach(&b);
}

/* The JSON strings of the array after `key` in s (no escapes expected). */
static size_t
strings_after(const char *s, const char *key, const char *field, char ***out)
{
	const char *p = strstr(s, key), *end, *q;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (p == NULL || (end = strchr(p, ']')) == NULL)
		return 0;
	if (field != NULL) {	/* array of objects: the closing "]" is later */
		const char *depth = p;
		int d = 0;

		for (depth = strchr(p, '['); depth != NULL && *depth; depth++) {
			d += *depth == '[' ? 1 : *depth == ']' ? -1 : 0;
			if (d == 0)
				break;
		}
		end = depth;
	}
	for (q = p + strlen(key); q != NULL && q < end;) {
		const char *a, *b;

		if (field != NULL) {
			if ((q = strstr(q, field)) == NULL || q >= end)
				break;
			q += strlen(field);
		}
		if ((a = strchr(q, '"')) == NULL || a >= end)
			break;
		if ((b = strchr(a + 1, '"')) == NULL)
			break;
		*out = xgrow(*out, &cap, n + 1, sizeof **out);
		(*out)[n++] = xstrndup(a + 1, (size_t)(b - a - 1));
		q = b + 1;
	}
	return n;
}

static int
read_truth(const char *path, struct truth *t)
{
	char *s = slurp(path), *lt, *fi;

	memset(t, 0, sizeof *t);
	t->fail_iter = -1;
	if (s == NULL || (lt = strstr(s, "\"log_truth\"")) == NULL) {
		free(s);
		return -1;
	}
	t->nnodes = strings_after(lt, "\"faulty_nodes\":", NULL, &t->nodes);
	t->nwhere = strings_after(lt, "\"root_cause\":", "\"where\":",
	    &t->where);
	if ((fi = strstr(lt, "\"failure_iteration\":")) != NULL)
		t->fail_iter = strtol(fi + 20, NULL, 10);
	if (fi != NULL && strncmp(fi + 20, " null", 5) == 0)
		t->fail_iter = -1;
	free(s);
	return 0;
}

/* Template indices (into job->tmpls) of the truth's root-cause lines. */
static size_t
truth_events(struct cache *c, const char *jobname, struct diag_job *job,
    const struct truth *tr, size_t *out)
{
	size_t i, t, m, n = 0;
	char *path, *colon, *cause = NULL;
	uint32_t id;

	for (i = 0; i < tr->nwhere; i++) {
		path = xstrdup(tr->where[i]);
		if ((colon = strrchr(path, ':')) != NULL) {
			*colon = '\0';
			if (diagdb_line_template(c, jobname, path,
			    strtoull(colon + 1, NULL, 10), &id, &cause) == 1)
				for (t = 0; t < job->ntmpls; t++) {
					if (job->tmpls[t].id != id)
						continue;
					for (m = 0; m < n && out[m] != t; m++)
						;
					if (m == n)
						out[n++] = t;
				}
		}
		free(path);
	}
	free(cause);
	return n;
}

static int
is_faulty(const struct truth *tr, const char *name)
{
	size_t i;

	for (i = 0; i < tr->nnodes; i++)
		if (strcmp(tr->nodes[i], name) == 0)
			return 1;
	return 0;
}

/*
 * Fraction of faulty nodes within the first k of order[]: out of all the
 * labelled ones (L4's definition), or, normalised, out of min(k, labelled)
 * (a case with 32 labelled nodes can put only one of them first).
 */
static double
topk(const struct diag_job *job, const size_t *order, size_t n,
    const struct truth *tr, size_t k, int norm)
{
	size_t i, hit = 0;

	for (i = 0; i < n && i < k; i++)
		hit += is_faulty(tr, job->nodes[order[i]].name);
	return (double)hit / (double)(norm && k < tr->nnodes ? k : tr->nnodes);
}

static const struct diag_job *sort_job;
static double *sort_key;

static int
cmp_key(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_key[x] != sort_key[y])
		return sort_key[x] < sort_key[y] ? -1 : 1;
	return strcmp(sort_job->nodes[x].name, sort_job->nodes[y].name);
}

/* Nodes ordered by key ascending (ties by name). */
static void
order_by(const struct diag_job *job, double *key, size_t *order)
{
	size_t i;

	for (i = 0; i < job->nnodes; i++)
		order[i] = i;
	sort_job = job;
	sort_key = key;
	qsort(order, job->nnodes, sizeof *order, cmp_key);
}

static void
print_topk(const struct diag_job *job, const size_t *order,
    const struct truth *tr, int norm)
{
	static const size_t ks[] = { 1, 3, 5, 8 };
	size_t i;

	for (i = 0; i < 4; i++)
		if (tr->nnodes == 0)
			printf(" NA");
		else
			printf(" %.4f", topk(job, order, job->nnodes, tr, ks[i],
			    norm));
}

/* The job `name`: 0 and *ref, or -1 with *cause. */
static int
find_job(struct cache *c, const char *name, struct job_ref *ref,
    char **cause)
{
	int rc = jobdb_find(c, name, ref, cause);

	if (rc == 0)
		ts_fail(cause, "no job '%s'", name);
	return rc > 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct cache *c;
	struct diag_job *job;
	struct diag_result *r;
	struct diag_opts o = { 1, NULL, 0 };
	struct job_ref ref;
	struct truth tr;
	char *cause = NULL;
	const char *rel_s = getenv("EVAL_REL");
	double rel = rel_s != NULL ? atof(rel_s) : 0.9, t0, *key;
	size_t *te, nte, i, k, det = 0, hits = 0, edet = 0, ehits = 0, *order;

	if (argc < 4) {
		fprintf(stderr, "usage: diag-score CACHE JOB TRUTH [BASELINE...]\n");
		return 2;
	}
	if (read_truth(argv[3], &tr) != 0) {
		fprintf(stderr, "diag-score: no log_truth in '%s'\n", argv[3]);
		return 1;
	}
	if (cache_open(argv[1], 0, &c, &cause) != 0 ||
	    find_job(c, argv[2], &ref, &cause) != 0 ||
	    jobload(c, &ref, (const char *const *)argv + 4,
	    (size_t)argc - 4, &job, &cause) != 0) {
		fprintf(stderr, "diag-score: %s\n", cause);
		return 1;
	}
	o.faults = faults_default();
	t0 = ts_now();
	if (flowjoin_evidence(job, c, &ref, stderr, NULL, &cause) < 0)
		fprintf(stderr, "diag-score: captures left out: %s\n", cause);
	r = diag_run(job, &o);
	t0 = ts_now() - t0;
	te = xcalloc(tr.nwhere + 1, sizeof *te);
	nte = truth_events(c, argv[2], job, &tr, te);
	for (i = 0; i < r->nevents; i++) {
		int in = 0;

		for (k = 0; k < nte; k++)
			in |= te[k] == r->events[i].tmpl;
		if (r->events[i].score >= rel * r->events[0].score &&
		    r->events[i].score > 0) {
			det++;
			hits += in;
		}
		if (r->events[i].tmpl != DIAG_SYNTH &&
		    job->tmpls[r->events[i].tmpl].level >= DIAG_LEVEL_ERROR) {
			edet++;
			ehits += in;
		}
	}
	printf("%zu %zu %zu", nte, det, hits);
	order = xcalloc(job->nnodes + 1, sizeof *order);
	for (i = 0; i < r->nnodes; i++)
		order[i] = r->nodes[i].node;
	print_topk(job, order, &tr, 0);
	key = xcalloc(job->nnodes + 1, sizeof *key);
	for (i = 0; i < job->nnodes; i++)
		key[i] = isnan(job->nodes[i].first_error_ts) ? INFINITY :
		    job->nodes[i].first_error_ts;
	order_by(job, key, order);
	print_topk(job, order, &tr, 0);
	for (i = 0; i < job->nnodes; i++) {
		key[i] = 0;
		for (k = 0; k < job->ntmpls; k++)
			if (job->tmpls[k].level >= DIAG_LEVEL_ERROR)
				key[i] -= job->counts[i * job->ntmpls + k];
	}
	order_by(job, key, order);
	print_topk(job, order, &tr, 0);
	printf(" %zu %zu", edet, ehits);
	if (tr.fail_iter < 0)
		printf(" NA");
	else
		printf(" %d", r->failure_iter == tr.fail_iter);
	printf(" %.3f", t0);
	for (i = 0; i < r->nnodes; i++)
		order[i] = r->nodes[i].node;
	print_topk(job, order, &tr, 1);
	printf("\n");
	return 0;
}
