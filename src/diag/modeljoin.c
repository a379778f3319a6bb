/*
 * modeljoin.c -- the captures' iterations and the logs' on one time axis.
 *
 * The flow analysis numbers its iterations from the first step boundary
 * of the capture; the logs number theirs from the job's start, and say
 * how long each took (Megatron's "elapsed time per iteration", or the
 * times of consecutive iteration lines).  The join finds which log
 * iteration each capture iteration is, two ways:
 *
 *  - by time, where the iteration lines carry times on the capture's
 *    clock: a log iteration ends with its line (the next iteration's
 *    start, or its start and its elapsed time); each capture iteration
 *    votes for the log iteration ending nearest its own end, within a
 *    third of its length, and the offset (log number less capture
 *    number) most of them vote for, at least half of them and three, is
 *    taken;
 *  - by durations, where the lines carry no times or another clock's:
 *    the offset whose log durations the capture's match best (the
 *    median relative difference), if that is under JOIN_DUR_TOL and
 *    clearly better than any other offset (steady iterations match
 *    every offset alike, and then nothing is joined); not tried where
 *    that would take more than JOIN_DUR_WORK comparisons.
 *
 * Each capture iteration then has its log number and, where the logs
 * give one, the logs' duration beside the wire's; their difference is
 * the disagreement (the wire sees a step from its first group's end to
 * its last group's, the logs from one line to the next, optimizer step
 * and a rank's own timing included).  Without logs that give iterations
 * nothing is joined and the captures' own figures stand.
 *
 * The join is printed here too: in `diagnose`'s JSON (its "captures"
 * object) and as the timeline's data (`view timeline --format json` or
 * tsv): the stages, the logs' iterations and the captures', joined.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/json.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/stats.h"
#include "base/util.h"

#define JOIN_NEAR	(1.0 / 3)	/* of the capture iteration's length */
#define JOIN_DUR_TOL	0.15
#define JOIN_DUR_GAIN	1.5
#define JOIN_DUR_MIN	5		/* iterations an offset must cover */
#define JOIN_DUR_WORK	1e8		/* offsets x iterations tried at most */

/*
 * When log iteration i (index into m->iters) ended, epoch seconds: the
 * next iteration's start when that is i's number plus one, else its
 * start plus its duration; NAN unknown.
 */
static double
log_end(const struct model *m, size_t i)
{
	const struct model_iter *it = &m->iters[i];

	if (i + 1 < m->niters && m->iters[i + 1].iteration ==
	    it->iteration + 1 && !isnan(m->iters[i + 1].start))
		return m->iters[i + 1].start;
	if (!isnan(it->start) && !isnan(it->ms))
		return it->start + it->ms / 1e3;
	return NAN;
}

/*
 * How long log iteration i took, ms: its line's figure, else the time
 * from its start to its end; NAN unknown.
 */
static double
log_ms(const struct model *m, size_t i)
{
	double end;

	if (!isnan(m->iters[i].ms))
		return m->iters[i].ms;
	end = log_end(m, i);
	return isnan(end) || isnan(m->iters[i].start) ? NAN :
	    (end - m->iters[i].start) * 1e3;
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* A log iteration's end and number, by time. */
struct lend {
	double t;
	long iteration;
};

static int
cmp_lend(const void *a, const void *b)
{
	const struct lend *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

/* The log iteration whose end in e[0..n) (by time) is nearest t, or -1. */
static long
nearest_end(const struct lend *e, size_t n, double t, double *dist)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (n == 0)
		return -1;
	if (lo == n || (lo > 0 && t - e[lo - 1].t < e[lo].t - t))
		lo--;
	*dist = fabs(e[lo].t - t);
	return (long)lo;
}

/*
 * The offset most capture iterations vote for by time (see above) into
 * *off; returns 0, or -1 when the times do not say.
 */
static int
join_by_time(const struct model *m, long *off)
{
	const struct model_flows *f = &m->flows;
	long *vote = xcalloc(f->niters + 1, sizeof *vote), best = 0, j;
	struct lend *e = xcalloc(m->niters + 1, sizeof *e);
	size_t k, i, n = 0, ne = 0, run, most = 0;
	double d;

	for (i = 0; i < m->niters; i++)
		if (!isnan(e[ne].t = log_end(m, i)))
			e[ne++].iteration = m->iters[i].iteration;
	ts_qsort(e, ne, sizeof *e, cmp_lend);
	for (k = 0; k < f->niters; k++)
		if ((j = nearest_end(e, ne, f->iters[k].end, &d)) >= 0 &&
		    d < JOIN_NEAR * (f->iters[k].end - f->iters[k].start))
			vote[n++] = e[j].iteration - (long)(k + 1);
	ts_qsort(vote, n, sizeof *vote, cmp_long);
	for (i = 0; i < n; i += run) {
		for (run = 1; i + run < n && vote[i + run] == vote[i]; run++)
			;
		if (run > most) {
			most = run;
			best = vote[i];
		}
	}
	free(vote);
	free(e);
	*off = best;
	return most >= 3 && 2 * most >= f->niters ? 0 : -1;
}

/*
 * The median relative difference between the capture's durations and
 * the logs' at offset off, over the iterations both have (*n of them);
 * INFINITY with none.
 */
static double
dur_mismatch(const struct model *m, long off, size_t *n)
{
	const struct model_flows *f = &m->flows;
	double *v = xcalloc(f->niters + 1, sizeof *v), r, lm, w;
	size_t k;
	long i;

	*n = 0;
	for (k = 0; k < f->niters; k++) {
		i = model_iter_index(m, (long)k + 1 + off);
		if (i < 0 || isnan(lm = log_ms(m, (size_t)i)) || !(lm > 0))
			continue;
		w = (f->iters[k].end - f->iters[k].start) * 1e3;
		v[(*n)++] = fabs(w - lm) / lm;
	}
	r = *n ? stats_median(v, *n) : INFINITY;
	free(v);
	return r;
}

/*
 * The offset whose log durations the capture's match best (see above)
 * into *off; returns 0, or -1 when none does, or not clearly.
 */
static int
join_by_durations(const struct model *m, long *off)
{
	const struct model_flows *f = &m->flows;
	long o, lo, hi;
	double r, best = INFINITY, second = INFINITY;
	size_t n, need = f->niters < JOIN_DUR_MIN ? f->niters : JOIN_DUR_MIN;

	if (m->niters == 0 || f->niters < 3 ||
	    (double)(m->niters + f->niters) * (double)f->niters > JOIN_DUR_WORK)
		return -1;
	lo = m->iters[0].iteration - (long)f->niters;
	hi = m->iters[m->niters - 1].iteration;
	for (o = lo; o <= hi; o++) {
		r = dur_mismatch(m, o, &n);
		if (n < need)
			continue;
		if (r < best) {
			second = best;
			best = r;
			*off = o;
		} else if (r < second)
			second = r;
	}
	return best <= JOIN_DUR_TOL && (second >= JOIN_DUR_GAIN * best ||
	    isinf(second)) ? 0 : -1;
}

void
model_join_iters(struct model *m)
{
	struct model_flows *f = &m->flows;
	double *d = xcalloc(f->niters + 1, sizeof *d), *p;
	size_t k, n = 0;
	long off = 0, i;

	f->join = MODEL_JOIN_NONE;
	f->join_offset = 0;
	f->join_ms = f->join_pct = NAN;
	for (k = 0; k < f->niters; k++) {
		f->iters[k].log_iter = -1;
		f->iters[k].log_ms = NAN;
	}
	/* (a log record per bucket of iterations matches no capture's) */
	if (m->iter_width > 1)
		;
	else if (join_by_time(m, &off) == 0)
		f->join = MODEL_JOIN_TIME;
	else if (join_by_durations(m, &off) == 0)
		f->join = MODEL_JOIN_DURATION;
	p = xcalloc(f->niters + 1, sizeof *p);
	for (k = 0; f->join != MODEL_JOIN_NONE && k < f->niters; k++) {
		f->iters[k].log_iter = (long)k + 1 + off;
		if ((i = model_iter_index(m, (long)k + 1 + off)) < 0 ||
		    isnan(f->iters[k].log_ms = log_ms(m, (size_t)i)))
			continue;
		d[n] = (f->iters[k].end - f->iters[k].start) * 1e3 -
		    f->iters[k].log_ms;
		p[n] = f->iters[k].log_ms > 0 ? 100 * d[n] /
		    f->iters[k].log_ms : NAN;
		n++;
	}
	f->join_offset = off;
	if (n > 0) {
		f->join_ms = stats_median(d, n);
		f->join_pct = stats_median(p, n);
	}
	free(d);
	free(p);
}

const char *
model_join_name(int join)
{
	return join == MODEL_JOIN_TIME ? "time" :
	    join == MODEL_JOIN_DURATION ? "durations" : NULL;
}

/* Capture iteration k (1-based) of f as a JSON object. */
static void
json_fiter(struct json *j, const struct model_flows *f, size_t k)
{
	const struct model_fiter *it = &f->iters[k - 1];
	double ms = (it->end - it->start) * 1e3;

	json_obj_begin(j);
	json_key(j, "capture"); json_int(j, (int64_t)k);
	json_key(j, "log");
	if (it->log_iter >= 0)
		json_int(j, it->log_iter);
	else
		json_null(j);
	json_key(j, "start"); json_numf(j, it->start, 6);
	json_key(j, "end"); json_numf(j, it->end, 6);
	json_key(j, "wire_ms"); json_numf(j, ms, 3);
	json_key(j, "log_ms"); json_numf(j, it->log_ms, 3);
	json_key(j, "disagreement_ms"); json_numf(j, ms - it->log_ms, 3);
	json_obj_end(j);
}

void
model_json_join(struct json *j, const struct model *m)
{
	const struct model_flows *f = &m->flows;
	size_t k;

	json_key(j, "join");
	if (f->join == MODEL_JOIN_NONE)
		json_null(j);
	else {
		json_obj_begin(j);
		json_key(j, "by"); json_str(j, model_join_name(f->join));
		json_key(j, "offset"); json_int(j, f->join_offset);
		json_key(j, "disagreement_ms"); json_numf(j, f->join_ms, 3);
		json_key(j, "disagreement_pct"); json_numf(j, f->join_pct, 2);
		json_obj_end(j);
	}
	json_key(j, "iteration_times");
	json_arr_begin(j);
	for (k = 1; k <= f->niters; k++)
		json_fiter(j, f, k);
	json_arr_end(j);
}

/* The timeline as one JSON object into j (see model_timeline_data()). */
static void
json_timeline(struct json *j, const struct model *m)
{
	size_t i;

	json_obj_begin(j);
	json_key(j, "stages");
	json_arr_begin(j);
	for (i = 0; i < m->nspans; i++) {
		const struct model_span *sp = &m->spans[i];

		json_obj_begin(j);
		json_key(j, "stage");	/* null: a span of no known stage */
		json_str(j, sp->stage == STAGE_NONE ? NULL :
		    stage_name((enum stage)sp->stage));
		json_key(j, "start"); json_numf(j, sp->start, 6);
		json_key(j, "end"); json_numf(j, sp->end, 6);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (m->iter_width > 1) {
		/* a record a bucket: its first iteration, mean ms */
		json_key(j, "bucket");
		json_int(j, m->iter_width);
	}
	json_key(j, "log_iterations");
	json_arr_begin(j);
	for (i = 0; i < m->niters; i++) {
		json_obj_begin(j);
		json_key(j, "iteration"); json_int(j, m->iters[i].iteration);
		json_key(j, "start"); json_numf(j, m->iters[i].start, 6);
		json_key(j, "ms"); json_numf(j, log_ms(m, i), 3);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "captures"); json_bool(j, m->flows.present);
	model_json_join(j, m);
	json_obj_end(j);
}

/* The captures' iterations joined to the logs' as TSV rows. */
static void
tsv_timeline(FILE *out, const struct model *m)
{
	const struct model_flows *f = &m->flows;
	const struct model_fiter *it;
	double ms;
	size_t k;

	fputs("capture\tlog\tstart\tend\twire_ms\tlog_ms\t"
	    "disagreement_ms\n", out);
	for (k = 1; k <= f->niters; k++) {
		it = &f->iters[k - 1];
		ms = (it->end - it->start) * 1e3;
		fprintf(out, "%zu\t", k);
		if (it->log_iter >= 0)
			fprintf(out, "%ld", it->log_iter);
		fprintf(out, "\t%.6f\t%.6f\t%.3f\t", it->start, it->end, ms);
		if (!isnan(it->log_ms))
			fprintf(out, "%.3f\t%.3f", it->log_ms, ms - it->log_ms);
		else
			fputc('\t', out);
		fputc('\n', out);
	}
}

int
model_timeline_data(struct json *j, FILE *out, const struct model *m,
    int tsv)
{
	if (tsv)
		tsv_timeline(out, m);
	else
		json_timeline(j, m);
	return ferror(out) ? -1 : 0;
}
