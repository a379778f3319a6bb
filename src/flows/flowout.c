/*
 * flowout.c -- printers of the flow analysis view model (struct flowan):
 * a readable summary, tab-separated rows (the first column says what
 * the row is: dp/pp JOB HOSTS, pair JOB A B TYPE BYTES, iteration JOB
 * INDEX START END DURATION, finding JOB KIND SUBJECT MAGNITUDE
 * NITERS FROM) and a JSON document.  They only read the model.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "flows/flowan.h"
#include "base/json.h"
#include "base/stats.h"
#include "base/util.h"

/* The address of host h; in text, followed by its node name if known. */
static const char *
hname(const struct flowan *fa, uint32_t h)
{
	return flowan_host_name(fa, h);
}

static const char *
tname(const struct flowan *fa, uint32_t h)
{
	static char buf[4][320];
	static int slot;
	char *b = buf[slot++ % 4];

	if (fa->names == NULL || fa->names[h] == NULL)
		return flowan_host_name(fa, h);
	snprintf(b, sizeof buf[0], "%s (%s)", flowan_host_name(fa, h),
	    fa->names[h]);
	return b;
}

static void
text_group(const struct flowan *fa, const struct flowan_group *g,
    const char *sep, FILE *out)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		fprintf(out, "%s%s", i ? sep : "", tname(fa, g->hosts[i]));
}

static void
iter_stats(const struct flowan_job *job, double *mean, double *med,
    double *lo, double *hi, double *comm)
{
	double *d = xcalloc(job->niters + 1, sizeof *d);
	double *c = xcalloc(job->niters + 1, sizeof *c);
	size_t i;

	for (i = 0; i < job->niters; i++) {
		d[i] = job->iters[i].end - job->iters[i].start;
		c[i] = job->iters[i].comm;
	}
	*mean = stats_mean(d, job->niters);
	*med = stats_median(d, job->niters);
	*lo = stats_quantile(d, job->niters, 0);
	*hi = stats_quantile(d, job->niters, 1);
	*comm = stats_median(c, job->niters);
	free(d);
	free(c);
}

/* The median of the iterations' end uncertainty (end_max - end), s. */
static double
median_uncertainty(const struct flowan_job *job)
{
	double *u = xcalloc(job->niters + 1, sizeof *u), m;
	size_t i, n = 0;

	for (i = 0; i < job->niters; i++)
		if (isfinite(job->iters[i].end_max))
			u[n++] = job->iters[i].end_max - job->iters[i].end;
	m = n ? stats_median(u, n) : NAN;
	free(u);
	return m;
}

/* The pair of hosts a and b in job (either order), or NULL. */
static const struct flowan_pair *
find_pair(const struct flowan_job *job, uint32_t a, uint32_t b,
    enum flowan_type type)
{
	size_t i;

	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		if (p->type == type && ((p->a == a && p->b == b) ||
		    (p->a == b && p->b == a)))
			return p;
	}
	return NULL;
}

/* Pair p's endpoints on host h (see struct flowan_pair), and how many. */
static const uint32_t *
ends_at(const struct flowan_pair *p, uint32_t h, size_t *n)
{
	int k = h == p->b;

	*n = p->nend[k];
	return p->end[k];
}

/*
 * What the wire cannot show of the job: said once, not guessed (several
 * ranks of a host look like one host unless their endpoints tell them
 * apart).
 */
static char *
unseen_text(const struct flowan_job *job)
{
	size_t i;
	int tangled = 0;

	for (i = 0; i < job->npp; i++)
		tangled |= !flowan_pp_chain(job, &job->pp[i]);
	return xasprintf("traffic between ranks of one host (tensor parallel "
	    "groups, and DP rings or pipeline stages that stay inside a "
	    "host)%s%s", job->ndp > 0 ? "" : "; no pair carries "
	    "data-parallel traffic: dp is 1, or every DP ring stays inside "
	    "a host", tangled ? "; which rank pipeline a hop belongs to, "
	    "where hosts hold ranks of several and their endpoints do not "
	    "tell them apart: such a pipeline is its hosts in stage order, "
	    "not one rank pipeline" : "");
}

/* A pipeline's hops: the rank endpoints at each receiving host. */
static void
text_hops(const struct flowan *fa, const struct flowan_job *job,
    const struct flowan_group *g, FILE *out)
{
	const struct flowan_pair *p;
	size_t i, n;
	int qp = 0;

	for (i = 0; i + 1 < g->n; i++)
		if ((p = find_pair(job, g->hosts[i], g->hosts[i + 1],
		    FLOWAN_PP)) != NULL)
			qp |= p->end_qp;
	fprintf(out, "    receiving endpoints a hop (%s at the next stage's "
	    "host):", qp ? "destination QPs, one a connection" :
	    "ports, one a listening rank or rank pair");
	for (i = 0; i + 1 < g->n; i++) {
		p = find_pair(job, g->hosts[i], g->hosts[i + 1], FLOWAN_PP);
		if (p == NULL) {
			fputs(" ?", out);
			continue;
		}
		ends_at(p, g->hosts[i + 1], &n);
		fprintf(out, " %zu", n);
	}
	fputc('\n', out);
	(void)fa;
}

/* The iterations that hold a checkpoint save, and how they were told. */
static void
text_ckpt(const struct flowan_job *job, FILE *out)
{
	size_t i, n = 0, shown = 0;
	int how = FLOWAN_CKPT_NONE;

	for (i = 0; i < job->niters; i++)
		if (job->iters[i].ckpt != FLOWAN_CKPT_NONE) {
			n++;
			if (how == FLOWAN_CKPT_NONE ||
			    job->iters[i].ckpt == FLOWAN_CKPT_WRITES)
				how = job->iters[i].ckpt;
		}
	if (n == 0)
		return;
	fprintf(out, "  checkpoint saves: iteration%s", n == 1 ? "" : "s");
	for (i = 0; i < job->niters && shown < 8; i++)
		if (job->iters[i].ckpt != FLOWAN_CKPT_NONE)
			fprintf(out, "%s %d", shown++ ? "," : "",
			    job->iters[i].index);
	if (n > shown)
		fprintf(out, " and %zu more", n - shown);
	if (how == FLOWAN_CKPT_WRITES)
		fprintf(out, " (slow while the job writes %.1f MB out of "
		    "itself, median; not counted as slow iterations)\n",
		    job->ckpt_bytes / 1e6);
	else
		fprintf(out, " (slow at a fixed cadence and nothing else "
		    "slow, no storage traffic seen; not counted as slow "
		    "iterations)\n");
}

static void
text_job(const struct flowan *fa, const struct flowan_job *job, FILE *out)
{
	double mean, med, lo, hi, comm;
	size_t i, k;
	char *unseen;

	if (fa->name != NULL && fa->njobs == 1) {
		fputs("job ", out);
		canvas_fput(out, fa->name);
		fprintf(out, " (%s): %zu hosts\n", job->id, job->nhosts);
	} else
		fprintf(out, "job %s: %zu hosts\n", job->id, job->nhosts);
	for (i = 0; i < job->ndp; i++) {
		fprintf(out, "  dp group %zu: ", i + 1);
		text_group(fa, &job->dp[i], " ", out);
		fputc('\n', out);
	}
	for (i = 0; i < job->npp; i++) {
		fprintf(out, "  pipeline %zu: ", i + 1);
		text_group(fa, &job->pp[i], " -> ", out);
		fputc('\n', out);
		text_hops(fa, job, &job->pp[i], out);
	}
	unseen = unseen_text(job);
	fprintf(out, "  not on the wire: %s\n", unseen);
	free(unseen);
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		fprintf(out, "  pair %s %s: %s, %.2f MB, %zu steps, "
		    "sizes/step %d, modal size %.0f%%, both ways %.0f%%",
		    tname(fa, p->a), tname(fa, p->b), flowan_type_name(p->type),
		    (double)p->bytes / 1e6, p->nsteps, p->mode_sizes,
		    p->modal * 100, p->both * 100);
		if (p->nconn > 0)
			fprintf(out, ", %zu connections, %zu and %zu %s",
			    p->nconn, p->nend[0], p->nend[1],
			    p->end_qp ? "QPs" : "ports");
		fputc('\n', out);
	}
	if (job->niters > 0) {
		iter_stats(job, &mean, &med, &lo, &hi, &comm);
		fprintf(out, "  iterations: %zu, mean %.1f ms, median %.1f ms, "
		    "min %.1f, max %.1f, ", job->niters, mean * 1e3, med * 1e3,
		    lo * 1e3, hi * 1e3);
		if (job->ndp > 0)
			fprintf(out, "step-end communication %.1f ms\n",
			    comm * 1e3);
		else
			fprintf(out, "steps end with the pipelines' pause "
			    "(no data-parallel traffic on the wire)\n");
		fprintf(out, "  step ends: up to %.1f ms after the last "
		    "transfer (median; the optimizer step is not on the "
		    "wire)\n", median_uncertainty(job) * 1e3);
		text_ckpt(job, out);
	} else
		fprintf(out, "  iterations: none found\n");
	for (i = 0; i < job->nhosts && job->niters > 0; i++)
		fprintf(out, "  host %s: compute %.1f ms, communication %.1f ms "
		    "per iteration (median)\n", tname(fa, job->hstat[i].host),
		    job->hstat[i].compute * 1e3, job->hstat[i].comm * 1e3);
	for (i = 0; i < job->nfindings; i++) {
		const struct flowan_finding *f = &job->findings[i];

		fprintf(out, "  finding: %s %s", flowan_kind_name(f->kind),
		    f->subject);
		if (f->niters > 0)
			fprintf(out, " (iterations %d..%d, %zu in all)",
			    f->iters[0], f->iters[f->niters - 1], f->niters);
		fputc('\n', out);
		for (k = 0; k < f->nreasons; k++)
			fprintf(out, "    - %s\n", f->reasons[k]);
	}
}

void
flowan_print_text(const struct flowan *fa, FILE *out)
{
	size_t i;

	fprintf(out, "%zu hosts, %zu messages, %zu job%s; %.2f MB of control "
	    "and storage traffic set aside\n", fa->set->nhosts,
	    fa->set->nmsgs, fa->njobs, fa->njobs == 1 ? "" : "s",
	    (double)fa->control_bytes / 1e6);
	for (i = 0; i < fa->njobs; i++)
		text_job(fa, &fa->jobs[i], out);
}

/*
 * TSV: one header and one row shape.  Each row says what it is (table)
 * and fills the columns of that kind, the others empty:
 *   dp, pp       hosts (space-separated; a pipeline in stage order)
 *   pair         a, b, type, bytes
 *   iteration    index, start, end, duration, end_uncertainty, kind
 *                ("checkpoint" for a checkpoint save's iteration)
 *   finding      kind, subject, magnitude, iterations, from
 */
static const char tsv_header[] = "table\tjob\thosts\ta\tb\ttype\tbytes\t"
    "index\tstart\tend\tduration\tend_uncertainty\tkind\tsubject\t"
    "magnitude\titerations\tfrom\n";

static void
tsv_group(const struct flowan *fa, const char *table, const char *id,
    const struct flowan_group *g, FILE *out)
{
	size_t i;

	fprintf(out, "%s\t%s\t", table, id);
	for (i = 0; i < g->n; i++)
		fprintf(out, "%s%s", i ? " " : "", hname(fa, g->hosts[i]));
	fputs("\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", out);
}

void
flowan_print_tsv(const struct flowan *fa, FILE *out)
{
	size_t i, j;

	fputs(tsv_header, out);
	for (i = 0; i < fa->njobs; i++) {
		const struct flowan_job *job = &fa->jobs[i];

		for (j = 0; j < job->ndp; j++)
			tsv_group(fa, "dp", job->id, &job->dp[j], out);
		for (j = 0; j < job->npp; j++)
			tsv_group(fa, "pp", job->id, &job->pp[j], out);
		for (j = 0; j < job->npairs; j++)
			fprintf(out, "pair\t%s\t\t%s\t%s\t%s\t%llu"
			    "\t\t\t\t\t\t\t\t\t\t\n", job->id,
			    hname(fa, job->pairs[j].a),
			    hname(fa, job->pairs[j].b),
			    flowan_type_name(job->pairs[j].type),
			    (unsigned long long)job->pairs[j].bytes);
		for (j = 0; j < job->niters; j++)
			fprintf(out, "iteration\t%s\t\t\t\t\t\t%d\t%.6f\t%.6f\t"
			    "%.6f\t%.6f\t%s\t\t\t\t\n", job->id,
			    job->iters[j].index, job->iters[j].start,
			    job->iters[j].end,
			    job->iters[j].end - job->iters[j].start,
			    job->iters[j].end_max - job->iters[j].end,
			    job->iters[j].ckpt != FLOWAN_CKPT_NONE ?
			    "checkpoint" : "");
		for (j = 0; j < job->nfindings; j++)
			fprintf(out, "finding\t%s\t\t\t\t\t\t\t\t\t\t\t%s\t%s\t"
			    "%g\t%zu\t%d\n", job->id,
			    flowan_kind_name(job->findings[j].kind),
			    job->findings[j].subject,
			    job->findings[j].magnitude,
			    job->findings[j].niters, job->findings[j].from);
	}
}

static void
json_group(struct json *j, const struct flowan *fa,
    const struct flowan_group *g)
{
	size_t i;

	json_arr_begin(j);
	for (i = 0; i < g->n; i++)
		json_str(j, hname(fa, g->hosts[i]));
	json_arr_end(j);
}

static void
json_u32s(struct json *j, const uint32_t *v, size_t n)
{
	size_t i;

	json_arr_begin(j);
	for (i = 0; i < n; i++)
		json_int(j, (int64_t)v[i]);
	json_arr_end(j);
}

/*
 * Per pipeline, its hops: from, to and the rank endpoints at `to` (see
 * struct flowan_pair).
 */
static void
json_hops(struct json *j, const struct flowan *fa,
    const struct flowan_job *job)
{
	const struct flowan_pair *p;
	const uint32_t *e;
	size_t i, k, n;

	json_key(j, "pp_hops");
	json_arr_begin(j);
	for (i = 0; i < job->npp; i++) {
		const struct flowan_group *g = &job->pp[i];

		json_arr_begin(j);
		for (k = 0; k + 1 < g->n; k++) {
			json_obj_begin(j);
			json_key(j, "from"); json_str(j, hname(fa, g->hosts[k]));
			json_key(j, "to"); json_str(j, hname(fa, g->hosts[k + 1]));
			p = find_pair(job, g->hosts[k], g->hosts[k + 1],
			    FLOWAN_PP);
			e = p != NULL ? ends_at(p, g->hosts[k + 1], &n) : NULL;
			json_key(j, "endpoint_kind");
			json_str(j, p == NULL ? NULL : p->end_qp ? "qp" : "port");
			json_key(j, "endpoints");
			json_u32s(j, e, e != NULL ? n : 0);
			json_obj_end(j);
		}
		json_arr_end(j);
	}
	json_arr_end(j);
}

static void
json_pairs(struct json *j, const struct flowan *fa,
    const struct flowan_job *job)
{
	size_t i;

	json_key(j, "pairs");
	json_arr_begin(j);
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		json_obj_begin(j);
		json_key(j, "a"); json_str(j, hname(fa, p->a));
		json_key(j, "b"); json_str(j, hname(fa, p->b));
		json_key(j, "type"); json_str(j, flowan_type_name(p->type));
		json_key(j, "raw_type");
		json_str(j, flowan_type_name(p->raw_type));
		json_key(j, "bytes"); json_int(j, (int64_t)p->bytes);
		json_key(j, "messages"); json_int(j, (int64_t)p->nsig);
		json_key(j, "steps"); json_int(j, (int64_t)p->nsteps);
		json_key(j, "throughput"); json_num(j, p->thr);
		json_key(j, "connections"); json_int(j, (int64_t)p->nconn);
		json_key(j, "endpoint_kind");
		json_str(j, p->end_qp ? "qp" : "port");
		json_key(j, "endpoints_a"); json_u32s(j, p->end[0], p->nend[0]);
		json_key(j, "endpoints_b"); json_u32s(j, p->end[1], p->nend[1]);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void
json_iters(struct json *j, const struct flowan_job *job)
{
	size_t i;

	json_key(j, "iterations");
	json_arr_begin(j);
	for (i = 0; i < job->niters; i++) {
		const struct flowan_iter *it = &job->iters[i];

		json_obj_begin(j);
		json_key(j, "index"); json_int(j, it->index);
		json_key(j, "start"); json_numf(j, it->start, 6);
		json_key(j, "end"); json_numf(j, it->end, 6);
		json_key(j, "duration"); json_numf(j, it->end - it->start, 6);
		json_key(j, "end_max"); json_numf(j, it->end_max, 6);
		json_key(j, "end_uncertainty");
		json_numf(j, it->end_max - it->end, 6);
		json_key(j, "comm"); json_numf(j, it->comm, 6);
		json_key(j, "compute");
		json_numf(j, it->end - it->start - it->comm, 6);
		json_key(j, "checkpoint");
		json_str(j, it->ckpt == FLOWAN_CKPT_WRITES ? "writes" :
		    it->ckpt == FLOWAN_CKPT_CADENCE ? "cadence" : NULL);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* Per host: compute and communication seconds of every iteration. */
static void
json_hosts(struct json *j, const struct flowan *fa,
    const struct flowan_job *job)
{
	size_t h, k, ni = job->niters;

	json_key(j, "host_timeline");
	json_arr_begin(j);
	for (h = 0; h < job->nhosts; h++) {
		json_obj_begin(j);
		json_key(j, "host"); json_str(j, hname(fa, job->hosts[h]));
		json_key(j, "compute");
		json_arr_begin(j);
		for (k = 0; k < ni; k++)
			json_numf(j, job->hcomp[h * ni + k], 6);
		json_arr_end(j);
		json_key(j, "comm");
		json_arr_begin(j);
		for (k = 0; k < ni; k++)
			json_numf(j, job->hcomm[h * ni + k], 6);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void
json_findings(struct json *j, const struct flowan_job *job)
{
	size_t i, k;

	json_key(j, "findings");
	json_arr_begin(j);
	for (i = 0; i < job->nfindings; i++) {
		const struct flowan_finding *f = &job->findings[i];

		json_obj_begin(j);
		json_key(j, "kind"); json_str(j, flowan_kind_name(f->kind));
		json_key(j, "subject"); json_str(j, f->subject);
		json_key(j, "iterations");
		json_arr_begin(j);
		for (k = 0; k < f->niters; k++)
			json_int(j, f->iters[k]);
		json_arr_end(j);
		json_key(j, "from"); json_int(j, f->from);
		json_key(j, "magnitude"); json_num(j, f->magnitude);
		json_key(j, "reasons");
		json_arr_begin(j);
		for (k = 0; k < f->nreasons; k++)
			json_str(j, f->reasons[k]);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void
json_job(struct json *j, const struct flowan *fa, const struct flowan_job *job)
{
	size_t i;
	char *unseen;

	json_obj_begin(j);
	json_key(j, "id"); json_str(j, job->id);
	json_key(j, "name");
	json_str(j, fa->name != NULL && fa->njobs == 1 ? fa->name : NULL);
	json_key(j, "hosts");
	json_group(j, fa, &(struct flowan_group){ job->hosts, job->nhosts });
	json_key(j, "dp_groups");
	json_arr_begin(j);
	for (i = 0; i < job->ndp; i++)
		json_group(j, fa, &job->dp[i]);
	json_arr_end(j);
	json_key(j, "pp_pipelines");
	json_arr_begin(j);
	for (i = 0; i < job->npp; i++)
		json_group(j, fa, &job->pp[i]);
	json_arr_end(j);
	if (fa->names != NULL) {
		json_key(j, "names");
		json_obj_begin(j);
		for (i = 0; i < job->nhosts; i++) {
			if (fa->names[job->hosts[i]] == NULL)
				continue;
			json_key(j, hname(fa, job->hosts[i]));
			json_str(j, fa->names[job->hosts[i]]);
		}
		json_obj_end(j);
	}
	json_hops(j, fa, job);
	unseen = unseen_text(job);
	json_key(j, "not_on_wire"); json_str(j, unseen);
	free(unseen);
	json_pairs(j, fa, job);
	json_iters(j, job);
	json_hosts(j, fa, job);
	json_findings(j, job);
	json_obj_end(j);
}

void
flowan_print_json(const struct flowan *fa, FILE *out)
{
	struct json j;
	size_t i;

	json_init(&j, out, 1);
	json_obj_begin(&j);
	json_key(&j, "schema"); json_int(&j, JSON_SCHEMA);
	json_key(&j, "hosts"); json_int(&j, (int64_t)fa->set->nhosts);
	json_key(&j, "messages"); json_int(&j, (int64_t)fa->set->nmsgs);
	json_key(&j, "control_bytes"); json_int(&j, (int64_t)fa->control_bytes);
	json_key(&j, "jobs");
	json_arr_begin(&j);
	for (i = 0; i < fa->njobs; i++)
		json_job(&j, fa, &fa->jobs[i]);
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}
