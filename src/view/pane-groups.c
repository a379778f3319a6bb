/*
 * pane-groups.c -- the groups pane: what the job's captures show.
 *
 * A summary of the flow analysis (hosts, data-parallel groups,
 * pipelines, iterations, findings), the pipelines as a grid of their
 * stages, the first findings, and a row per host: its node, groups,
 * time communicating and computing, and what is wrong with it.  Without
 * captures, a row per node with the ranks and last iteration its logs
 * show.  A drill filters the events to the row's node.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "base/json.h"
#include "diag/model.h"
#include "base/stats.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

static const char *
host_label(const struct model_fhost *h)
{
	return h->name != NULL ? h->name : h->addr;
}

static int
host_style(const struct model_fhost *h)
{
	if (h->flags & MODEL_FHOST_STRAGGLER)
		return CS_ERROR;
	if (h->flags & (MODEL_FHOST_SLOW_LINK | MODEL_FHOST_CONGESTED))
		return CS_WARN;
	return CS_NORMAL;
}

static void
groups_grid(struct view *v, struct area *a, int *used)
{
	const struct model_flows *f = &v->m->flows;
	size_t p, s, maxs = 0;
	int row, cw = 14, x;

	for (p = 0; p < f->npp; p++)
		if (f->pp[p].n > maxs)
			maxs = f->pp[p].n;
	if (maxs == 0 || (row = draw_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, row, 0, CS_BOLD, "pipeline");
	for (s = 0, x = 10; s < maxs && x + cw <= a->w; s++, x += cw)
		canvas_printf(a->cv, row, x, CS_BOLD, "stage %zu", s + 1);
	for (p = 0; p < f->npp; p++) {
		if ((row = draw_row(a, used)) < 0)
			return;
		canvas_printf(a->cv, row, 0, CS_NORMAL, "pp %zu", p + 1);
		for (s = 0, x = 10; s < f->pp[p].n && x + cw <= a->w;
		    s++, x += cw) {
			const struct model_fhost *h = &f->hosts[f->pp[p].hosts[s]];

			canvas_put_clip(a->cv, row, x, x + cw - 1, host_style(h),
			    host_label(h), strlen(host_label(h)));
		}
	}
}

static long
host_group(const struct model_fgroup *g, size_t n, size_t h)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < g[i].n; k++)
			if (g[i].hosts[k] == h)
				return (long)i;
	return -1;
}

/*
 * An iteration's end on the wire is its last collective; the optimizer
 * step after it is not seen.  Say by how much the capture's iterations
 * may run longer: the median gap to the job's next message.
 */
static void
groups_slack(const struct model_flows *f, struct area *a, int *used)
{
	double *d = xcalloc(f->niters + 1, sizeof *d), med;
	size_t i, n = 0;
	char buf[160];
	int row;

	for (i = 0; i < f->niters; i++)
		if (!isnan(f->iters[i].end_max) &&
		    f->iters[i].end_max >= f->iters[i].end)
			d[n++] = (f->iters[i].end_max - f->iters[i].end) * 1e3;
	med = n > 0 ? stats_median(d, n) : NAN;
	free(d);
	if (isnan(med) || (row = draw_row(a, used)) < 0)
		return;
	snprintf(buf, sizeof buf, "an iteration may end up to %.0f ms after "
	    "its last collective (optimizer unseen)", med);
	canvas_put_clip(a->cv, row, 0, a->w, CS_DIM, buf, strlen(buf));
	if (*model_flows_ckpt(f, buf, sizeof buf) != '\0' &&
	    (row = draw_row(a, used)) >= 0)
		canvas_put_clip(a->cv, row, 0, a->w, CS_DIM, buf, strlen(buf));
}

/* A node's row without captures: its ranks and last iteration. */
static void
node_row(const struct model_node *n, struct canvas *cv, int row)
{
	canvas_put_clip(cv, row, 0, 19, n->missing ? CS_ERROR : CS_NORMAL,
	    n->name, strlen(n->name));
	if (n->missing) {
		canvas_puts(cv, row, 20, CS_ERROR, "no log");
		return;
	}
	/* a rank the logs do not place: not known */
	if (n->nranks > 0)
		canvas_printf(cv, row, 20, CS_NORMAL, "%5d", n->nranks);
	else
		canvas_puts(cv, row, 24, CS_DIM, "-");
	if (!rows_iter_ok(n->last_iter))
		canvas_puts(cv, row, 27, CS_DIM, "-");
	else
		canvas_printf(cv, row, 27, CS_NORMAL, "%ld", n->last_iter);
}

/* No captures: the nodes the logs show, from the first row on. */
static void
groups_nodes(struct view *v, struct area *a, int *used, int row)
{
	const struct rows *r = rows_get(v);
	size_t i;

	canvas_puts(a->cv, row, 0, CS_DIM, "no network captures in the "
	    "job's directory; the ranks its logs show:");
	if ((row = draw_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, row, 0, CS_BOLD, "node                ranks  "
	    "last iteration");
	for (i = (size_t)v->st.top[PANE_GROUPS]; i < r->n; i++) {
		const struct model_node *n = &v->m->nodes[r->row[i].item];

		if ((row = draw_row(a, used)) < 0)
			break;
		v->page++;
		draw_map(a, row, (long)i);
		if ((int)i == v->st.cursor[PANE_GROUPS])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
		if (v->search_re != NULL && view_regex_find(v->search_re,
		    n->name, strlen(n->name), NULL, NULL))
			canvas_add_attr(a->cv, row, 0, 19, CA_MATCH);
		node_row(n, a->cv, row);
	}
}

/* The analysis in one line, its slack, the pipelines and findings. */
static int
groups_summary(struct view *v, struct area *a, int *used, int row)
{
	const struct model_flows *f = &v->m->flows;
	char sum[200];
	size_t i;

	snprintf(sum, sizeof sum, "%zu host%s, %zu data-parallel "
	    "group%s, %zu pipeline%s, %zu iteration%s of %.1f ms, %zu "
	    "finding%s", f->nhosts, f->nhosts == 1 ? "" : "s", f->ndp,
	    f->ndp == 1 ? "" : "s", f->npp, f->npp == 1 ? "" : "s", f->niters,
	    f->niters == 1 ? "" : "s", f->period * 1e3, f->nfindings,
	    f->nfindings == 1 ? "" : "s");
	canvas_put_clip(a->cv, row, 0, a->w, CS_NORMAL, sum, strlen(sum));
	groups_slack(f, a, used);
	groups_grid(v, a, used);
	for (i = 0; i < f->nfindings && i < 4; i++) {
		const struct model_finding *fd = &f->findings[i];

		if ((row = draw_row(a, used)) < 0)
			return -1;
		canvas_printf(a->cv, row, 0, CS_WARN, "%s %s", fd->kind,
		    fd->subject);
		if (fd->nreasons > 0)
			canvas_put_clip(a->cv, row, 36, a->w, CS_NORMAL,
			    fd->reasons[0], strlen(fd->reasons[0]));
	}
	return 0;
}

/* A host's row: address, node, groups, times, what is wrong. */
static void
host_row(const struct model_flows *f, size_t i, struct canvas *cv, int row)
{
	const struct model_fhost *h = &f->hosts[i];
	long dg = host_group(f->dp, f->ndp, i);
	long pg = host_group(f->pp, f->npp, i);
	char buf[24], pbuf[24];

	canvas_put_clip(cv, row, 0, 15, host_style(h), h->addr,
	    strlen(h->addr));
	if (h->name != NULL)
		canvas_put_clip(cv, row, 16, 29, CS_NORMAL, h->name,
		    strlen(h->name));
	snprintf(buf, sizeof buf, "%ld", dg + 1);
	snprintf(pbuf, sizeof pbuf, "%ld", pg + 1);
	canvas_printf(cv, row, 30, CS_NORMAL, "%3s %3s %8.1f %7.1f",
	    dg < 0 ? "-" : buf, pg < 0 ? "-" : pbuf, h->comm * 1e3,
	    h->compute * 1e3);
	if (dg >= 0)
		canvas_printf(cv, row, 55, f->dp[dg].slow ? CS_WARN : CS_NORMAL,
		    "%8.1f", f->dp[dg].step * 1e3);
	if (h->flags & MODEL_FHOST_STRAGGLER)
		canvas_puts(cv, row, 65, CS_ERROR, "straggler");
	else if (h->flags & MODEL_FHOST_SLOW_LINK)
		canvas_puts(cv, row, 65, CS_WARN, "slow link");
	else if (h->flags & MODEL_FHOST_CONGESTED)
		canvas_puts(cv, row, 65, CS_WARN, "congested");
}

static void
groups_draw(struct view *v, struct area *a, int *used)
{
	const struct model_flows *f = &v->m->flows;
	const struct rows *r = rows_get(v);
	size_t i;
	int row = draw_row(a, used);

	v->page = 0;
	if (!f->present) {
		groups_nodes(v, a, used, row);
		return;
	}
	if (f->error != NULL) {
		canvas_puts(a->cv, row, 0, CS_ERROR, "captures left out: ");
		canvas_put_clip(a->cv, row, 19, a->w, CS_ERROR, f->error,
		    strlen(f->error));
		return;
	}
	if (groups_summary(v, a, used, row) != 0 ||
	    (row = draw_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, row, 0, CS_BOLD, "host            node          "
	    " dp  pp  comm ms compute  sync ms");
	for (i = (size_t)v->st.top[PANE_GROUPS]; i < r->n; i++) {
		if ((row = draw_row(a, used)) < 0)
			break;
		v->page++;
		draw_map(a, row, (long)i);
		host_row(f, r->row[i].item, a->cv, row);
		if ((int)i == v->st.cursor[PANE_GROUPS])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
	}
}

static int
groups_target(struct view *v, size_t r, struct view_target *t)
{
	const struct model_flows *f = &v->m->flows;
	size_t i = rows_get(v)->row[r].item;

	if (!f->present) {
		t->kind = VT_NODE;
		t->node = (long)i;
		return 0;
	}
	if (f->hosts[i].node < 0)
		return -1;
	t->kind = VT_NODE;
	t->node = f->hosts[i].node;
	return 0;
}

static int
groups_match(struct view *v, size_t r, void *re)
{
	const struct model_flows *f = &v->m->flows;
	const struct rows *rs = rows_get(v);
	const struct model_fhost *h;
	const char *name;

	if (r >= rs->n)
		return 0;
	if (!f->present) {
		name = v->m->nodes[rs->row[r].item].name;
		return view_regex_find(re, name, strlen(name), NULL, NULL);
	}
	h = &f->hosts[rs->row[r].item];
	return view_regex_find(re, h->addr, strlen(h->addr), NULL, NULL) ||
	    (h->name != NULL && view_regex_find(re, h->name, strlen(h->name),
	    NULL, NULL));
}

static void
host_tsv(const struct model_flows *f, size_t i, FILE *out)
{
	const struct model_fhost *h = &f->hosts[i];

	canvas_fput(out, h->addr);
	fputc('\t', out);
	canvas_fput(out, h->name);
	fprintf(out, "\t%ld\t%ld\t%.3f\t%.3f\t%d\t%d\n",
	    host_group(f->dp, f->ndp, i) + 1, host_group(f->pp, f->npp, i) + 1,
	    h->comm * 1e3, h->compute * 1e3,
	    !!(h->flags & MODEL_FHOST_STRAGGLER),
	    !!(h->flags & MODEL_FHOST_SLOW_LINK));
}

static void
host_json(const struct model_flows *f, size_t i, struct json *j)
{
	const struct model_fhost *h = &f->hosts[i];

	json_obj_begin(j);
	json_key(j, "host"); json_str(j, h->addr);
	json_key(j, "node"); json_str(j, h->name);
	json_key(j, "dp_group"); json_int(j, host_group(f->dp, f->ndp, i) + 1);
	json_key(j, "pipeline"); json_int(j, host_group(f->pp, f->npp, i) + 1);
	json_key(j, "comm_ms"); json_numf(j, h->comm * 1e3, 3);
	json_key(j, "compute_ms"); json_numf(j, h->compute * 1e3, 3);
	json_key(j, "straggler");
	json_bool(j, h->flags & MODEL_FHOST_STRAGGLER);
	json_key(j, "slow_link");
	json_bool(j, h->flags & MODEL_FHOST_SLOW_LINK);
	json_obj_end(j);
}

static void
findings_json(const struct model_flows *f, struct json *j)
{
	size_t i;

	json_arr_begin(j);
	for (i = 0; i < f->nfindings; i++) {
		json_obj_begin(j);
		json_key(j, "kind"); json_str(j, f->findings[i].kind);
		json_key(j, "subject"); json_str(j, f->findings[i].subject);
		json_key(j, "from"); json_int(j, f->findings[i].from);
		json_key(j, "iterations");
		json_int(j, (int64_t)f->findings[i].niters);
		json_key(j, "magnitude");
		json_num(j, f->findings[i].magnitude);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static int
groups_data(struct view *v, struct json *j, FILE *out, int tsv,
    char **cause)
{
	const struct model_flows *f = &v->m->flows;
	size_t i;

	(void)cause;
	if (tsv) {
		fputs("host\tnode\tdp\tpp\tcomm_ms\tcompute_ms\tstraggler\t"
		    "slow_link\n", out);
		for (i = 0; i < f->nhosts; i++)
			host_tsv(f, i, out);
		return 0;
	}
	json_obj_begin(j);
	json_key(j, "captures"); json_bool(j, f->present);
	json_key(j, "error"); json_str(j, f->error);
	json_key(j, "period_ms"); json_numf(j, f->period * 1e3, 3);
	json_key(j, "hosts");
	json_arr_begin(j);
	for (i = 0; i < f->nhosts; i++)
		host_json(f, i, j);
	json_arr_end(j);
	json_key(j, "findings");
	findings_json(f, j);
	json_obj_end(j);
	return 0;
}

const struct pane_ops pane_groups = {
	.name = "groups",
	.flags = PF_JOB,
	.build = rows_groups,
	.draw = groups_draw,
	.target = groups_target,
	.match = groups_match,
	.data = groups_data
};
