/*
 * modelout.c -- the diagnosis printed from the model: text, TSV, JSON
 * (`diagnose`, diag_print()).
 *
 * Log text reaches the text and TSV forms only made inert (as the canvas
 * shows it: ^X for control characters, \xNN for invalid UTF-8), so
 * printing a diagnosis cannot retitle or clear the user's terminal; JSON
 * escapes control characters itself.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "diag/diag.h"
#include "base/json.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"

static size_t
limit(size_t n, size_t top)
{
	return top > 0 && top < n ? top : n;
}

/*
 * The suspects worth naming: those whose score shows as more than 0.00
 * (they come most suspect first, so they are a prefix), at most `top`.
 * A node with nothing against it is no suspect.
 */
static size_t
suspects_shown(const struct model *m, size_t top)
{
	size_t n = 0;

	while (n < m->nsuspects && m->nodes[m->suspects[n]].score >= 0.005)
		n++;
	return limit(n, top);
}

/* Write s made inert (tabs and newlines too, so a TSV field stays one). */
static void
put(FILE *out, const char *s, int tsv)
{
	(void)tsv;
	canvas_fput(out, s);
}

static void
json_reasons(struct json *j, char **v, size_t n)
{
	size_t i;

	json_key(j, "reasons");
	json_arr_begin(j);
	for (i = 0; i < n; i++)
		json_str(j, v[i]);
	json_arr_end(j);
}

static void
json_iter(struct json *j, const char *key, long v)
{
	json_key(j, key);
	if (v < 0)
		json_null(j);
	else
		json_int(j, v);
}

/* A stage, or null for none known. */
static void
json_stage(struct json *j, const char *key, int stage)
{
	json_key(j, key);
	json_str(j, stage == STAGE_NONE ? NULL : stage_name((enum stage)stage));
}

void
model_json_event(struct json *j, const struct model *m, size_t i)
{
	const struct model_event *e = &m->events[i];
	size_t k;

	json_obj_begin(j);
	json_key(j, "position"); json_int(j, (int64_t)i + 1);
	json_key(j, "score"); json_numf(j, e->score, 3);
	json_key(j, "template_id"); json_int(j, e->id);
	json_key(j, "template"); json_str(j, e->text);
	json_key(j, "category"); json_str(j, e->category);
	json_key(j, "count"); json_int(j, (int64_t)e->count);
	json_key(j, "nodes");
	json_arr_begin(j);
	for (k = 0; k < e->nnodes; k++)
		json_str(j, m->nodes[e->nodes[k]].name);
	json_arr_end(j);
	json_key(j, "first");
	json_obj_begin(j);
	json_key(j, "path"); json_str(j, e->path);
	json_key(j, "line"); json_int(j, e->line);
	json_key(j, "ts");
	if (isnan(e->ts))
		json_null(j);
	else
		json_numf(j, e->ts, 3);
	json_obj_end(j);
	json_stage(j, "stage", e->stage);
	json_iter(j, "iteration", e->iteration);
	json_key(j, "fault_rule"); json_str(j, e->rule);
	json_reasons(j, e->reasons, e->nreasons);
	json_key(j, "trace");
	json_arr_begin(j);
	for (k = 0; k < e->ntrace; k++)
		json_str(j, e->trace[k]);
	json_arr_end(j);
	json_key(j, "lines");
	json_arr_begin(j);
	for (k = 0; k < e->nlocs; k++) {
		json_obj_begin(j);
		json_key(j, "path"); json_str(j, e->locs[k].path);
		json_key(j, "line"); json_int(j, e->locs[k].line);
		json_key(j, "node"); json_str(j, m->nodes[e->locs[k].node].name);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "explain"); json_str(j, e->explain);
	json_key(j, "action"); json_str(j, e->action);
	json_obj_end(j);
}

static void json_captures(struct json *j, const struct model *m);

static void
print_json(FILE *out, const struct model *m, size_t top)
{
	struct json j;
	size_t i;

	json_init(&j, out, 1);
	json_obj_begin(&j);
	json_key(&j, "schema"); json_int(&j, JSON_SCHEMA);
	json_key(&j, "job"); json_str(&j, m->name);
	json_key(&j, "root");
	if (m->root != NULL)
		json_str(&j, m->root);
	else
		json_null(&j);
	json_stage(&j, "stage", m->stage);
	json_key(&j, "outcome");
	json_str(&j, diag_outcome_name((enum diag_outcome)m->outcome));
	json_iter(&j, "failure_iteration", m->failure_iter);
	json_iter(&j, "last_healthy_iteration", m->last_healthy_iter);
	json_key(&j, "healthy_runs"); json_int(&j, m->nhealthy);
	json_key(&j, "healthy_run_names");
	json_arr_begin(&j);
	for (i = 0; i < m->nhealthy_runs; i++)
		json_str(&j, m->healthy_runs[i]);
	json_arr_end(&j);
	json_key(&j, "anomalous_iterations");
	json_int(&j, (int64_t)m->anomalous);
	json_key(&j, "slowdown");
	if (m->slow_iter < 0)
		json_null(&j);
	else {
		json_obj_begin(&j);
		json_key(&j, "iteration"); json_int(&j, m->slow_iter);
		json_key(&j, "before_ms"); json_numf(&j, m->slow_before_ms, 1);
		json_key(&j, "after_ms"); json_numf(&j, m->slow_after_ms, 1);
		json_obj_end(&j);
	}
	json_key(&j, "notes");
	json_arr_begin(&j);
	for (i = 0; i < m->nnotes; i++)
		json_str(&j, m->notes[i]);
	json_arr_end(&j);
	json_key(&j, "nodes");
	json_arr_begin(&j);
	for (i = 0; i < suspects_shown(m, top); i++) {
		const struct model_node *n = &m->nodes[m->suspects[i]];

		json_obj_begin(&j);
		json_key(&j, "node"); json_str(&j, n->name);
		json_key(&j, "score"); json_numf(&j, n->score, 3);
		json_reasons(&j, n->reasons, n->nreasons);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "events");
	json_arr_begin(&j);
	for (i = 0; i < limit(m->nevents, top); i++)
		model_json_event(&j, m, i);
	json_arr_end(&j);
	json_captures(&j, m);
	json_obj_end(&j);
	json_finish(&j);
}

/*
 * The node a capture address belongs to, or NULL: the logs' NCCL lines
 * or a hosts file named it.
 */
static const char *
addr_node(const struct model_flows *f, const char *addr, size_t len)
{
	size_t i;

	for (i = 0; i < f->nhosts; i++)
		if (strlen(f->hosts[i].addr) == len &&
		    strncmp(f->hosts[i].addr, addr, len) == 0)
			return f->hosts[i].name;
	return NULL;
}

/*
 * The nodes of a finding's subject: "node03", a pair's "node03-node04";
 * NULL when it names no address ("job", "group 2").  *unnamed is set
 * when an address of it has no node.  Allocated.
 */
static char *
subject_nodes(const struct model_flows *f, const char *subject, int *unnamed)
{
	const char *dash = strchr(subject, '-'), *a, *b = NULL;
	size_t la = dash != NULL ? (size_t)(dash - subject) : strlen(subject);

	if (strchr(subject, '.') == NULL && strchr(subject, ':') == NULL)
		return NULL;
	a = addr_node(f, subject, la);
	if (dash != NULL)
		b = addr_node(f, dash + 1, strlen(dash + 1));
	if (a == NULL || (dash != NULL && b == NULL)) {
		*unnamed = 1;
		return NULL;
	}
	return dash != NULL ? xasprintf("%s-%s", a, b) : xstrdup(a);
}

/* "captures": what they showed, null when the job has none. */
static void
json_captures(struct json *j, const struct model *m)
{
	const struct model_flows *f = &m->flows;
	const char *a, *dash;
	size_t i;

	json_key(j, "captures");
	if (!f->present) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "error");
	if (f->error != NULL)
		json_str(j, f->error);
	else
		json_null(j);
	json_key(j, "hosts"); json_int(j, (int64_t)f->nhosts);
	json_key(j, "dp_groups"); json_int(j, (int64_t)f->ndp);
	json_key(j, "pipelines"); json_int(j, (int64_t)f->npp);
	json_key(j, "iterations"); json_int(j, (int64_t)f->niters);
	json_key(j, "period_ms"); json_numf(j, f->period * 1e3, 3);
	model_json_join(j, m);
	json_key(j, "findings");
	json_arr_begin(j);
	for (i = 0; i < f->nfindings; i++) {
		const struct model_finding *fd = &f->findings[i];

		json_obj_begin(j);
		json_key(j, "kind"); json_str(j, fd->kind);
		json_key(j, "subject"); json_str(j, fd->subject);
		/* the nodes of its addresses, null where none is named */
		json_key(j, "nodes");
		json_arr_begin(j);
		dash = strchr(fd->subject, '-');
		if (strchr(fd->subject, '.') != NULL ||
		    strchr(fd->subject, ':') != NULL) {
			a = addr_node(f, fd->subject, dash != NULL ?
			    (size_t)(dash - fd->subject) : strlen(fd->subject));
			if (a != NULL)
				json_str(j, a);
			else
				json_null(j);
			if (dash != NULL && (a = addr_node(f, dash + 1,
			    strlen(dash + 1))) != NULL)
				json_str(j, a);
			else if (dash != NULL)
				json_null(j);
		}
		json_arr_end(j);
		json_key(j, "from"); json_int(j, fd->from);
		json_key(j, "from_log");	/* the logs' number of it */
		if (f->join != MODEL_JOIN_NONE)
			json_int(j, fd->from + f->join_offset);
		else
			json_null(j);
		json_key(j, "iterations"); json_int(j, (int64_t)fd->niters);
		json_key(j, "magnitude"); json_num(j, fd->magnitude);
		json_reasons(j, fd->reasons, fd->nreasons);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void
put_reasons(FILE *out, char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i > 0)
			fputs("; ", out);
		put(out, v[i], 1);
	}
}

static void
print_tsv(FILE *out, const struct model *m, size_t top)
{
	size_t i, k;

	fprintf(out, "kind\tposition\tscore\tname\tcategory\tcount\tnodes\tfirst\t"
	    "stage\titeration\treasons\n");
	for (i = 0; i < suspects_shown(m, top); i++) {
		const struct model_node *n = &m->nodes[m->suspects[i]];

		fprintf(out, "node\t%zu\t%.3f\t", i + 1, n->score);
		put(out, n->name, 1);
		fputs("\t\t\t\t\t\t\t", out);
		put_reasons(out, n->reasons, n->nreasons);
		fputc('\n', out);
	}
	for (i = 0; i < limit(m->nevents, top); i++) {
		const struct model_event *e = &m->events[i];

		fprintf(out, "event\t%zu\t%.3f\t", i + 1, e->score);
		put(out, e->text, 1);
		fputc('\t', out);
		put(out, e->category, 1);
		fprintf(out, "\t%llu\t", (unsigned long long)e->count);
		for (k = 0; k < e->nnodes; k++) {
			fputs(k ? "," : "", out);
			put(out, m->nodes[e->nodes[k]].name, 1);
		}
		fputc('\t', out);
		put(out, e->path, 1);
		fprintf(out, ":%ld\t%s\t", e->line,
		    stage_name((enum stage)e->stage));
		if (e->iteration >= 0)
			fprintf(out, "%ld", e->iteration);
		fputc('\t', out);
		put_reasons(out, e->reasons, e->nreasons);
		fputc('\n', out);
	}
	/* what the captures found: subject, kind, nodes, first iteration */
	for (i = 0; m->flows.present && i < m->flows.nfindings; i++) {
		const struct model_finding *fd = &m->flows.findings[i];
		int unnamed = 0;
		char *s = subject_nodes(&m->flows, fd->subject, &unnamed);

		fprintf(out, "capture\t%zu\t\t", i + 1);
		put(out, fd->subject, 1);
		fputc('\t', out);
		put(out, fd->kind, 1);
		fprintf(out, "\t%zu\t", fd->niters);
		put(out, s, 1);
		fprintf(out, "\t\t\t%d\t", fd->from);
		put_reasons(out, fd->reasons, fd->nreasons);
		fputc('\n', out);
		free(s);
	}
}

/* The lines of an event of one iteration, on each rank: the first few. */
static void
text_locs(FILE *out, const struct model_event *e)
{
	size_t k;

	if (e->nlocs < 2)
		return;
	fputs("       in that iteration at ", out);
	for (k = 0; k < e->nlocs && k < 3; k++) {
		fputs(k ? ", " : "", out);
		put(out, e->locs[k].path, 0);
		fprintf(out, ":%ld", e->locs[k].line);
	}
	if (e->nlocs > 3)
		fprintf(out, " and %zu more", e->nlocs - 3);
	fputc('\n', out);
}

static void
text_event(FILE *out, const struct model *m, size_t i)
{
	const struct model_event *e = &m->events[i];
	char when[32] = "";
	size_t k;

	fprintf(out, "%3zu. %.2f  %s", i + 1, e->score, e->category ? "[" : "");
	put(out, e->category, 0);
	fputs(e->category ? "] " : "", out);
	put(out, e->text, 0);
	fputc('\n', out);
	if (!isnan(e->ts))
		diag_clock_str(e->ts, when, sizeof when);
	if (model_event_own(e))
		fputs("       on ", out);
	else
		fprintf(out, "       %llu time%s on ", (unsigned long long)
		    e->count, e->count == 1 ? "" : "s");
	if (e->nnodes == 0)
		fputs("the job", out);
	for (k = 0; k < e->nnodes && k < 5; k++) {
		fputs(k ? ", " : "", out);
		put(out, m->nodes[e->nodes[k]].name, 0);
	}
	if (e->nnodes > 5)
		fprintf(out, " and %zu more nodes", e->nnodes - 5);
	if (e->path == NULL)
		fputs("; no line of it", out);
	else {
		fputs(model_event_own(e) ? "; at " : "; first ", out);
		put(out, e->path, 0);
		fprintf(out, ":%ld", e->line);
	}
	fprintf(out, "%s%s (%s", when[0] ? " at " : "", when,
	    stage_name((enum stage)e->stage));
	if (e->iteration >= 0)
		fprintf(out, ", iteration %ld", e->iteration);
	fputs(")\n", out);
	text_locs(out, e);
	for (k = 0; k < e->nreasons; k++) {
		fputs("       - ", out);
		put(out, e->reasons[k], 0);
		fputc('\n', out);
	}
	if (e->rule != NULL) {
		fputs("       means: ", out);
		put(out, e->explain, 0);
		fputs("\n       do: ", out);
		put(out, e->action, 0);
		fputc('\n', out);
	}
}

/*
 * How the captures' iterations meet the logs': "  iterations: capture
 * iteration 1 is log iteration 12 (by the times of the iteration
 * lines); the wire's are 12.3 ms (1.6 %) shorter than the logs' (median)".
 * Nothing when they were not joined.
 */
static void
text_join(FILE *out, const struct model_flows *f)
{
	if (f->join == MODEL_JOIN_NONE)
		return;
	fprintf(out, "  iterations: capture iteration 1 is log iteration "
	    "%ld (by the %s of the iteration lines)", 1 + f->join_offset,
	    f->join == MODEL_JOIN_TIME ? "times" : "durations");
	if (!isnan(f->join_ms))
		fprintf(out, "; the wire's are %.1f ms (%.1f %%) %s than the "
		    "logs' (median)", fabs(f->join_ms), fabs(f->join_pct),
		    f->join_ms < 0 ? "shorter" : "longer");
	fputc('\n', out);
}

/* What the captures showed: their shape and findings. */
static void
text_captures(FILE *out, const struct model *m)
{
	const struct model_flows *f = &m->flows;
	size_t i, k;
	int unnamed = 0;
	char *s;

	if (!f->present)
		return;
	if (f->error != NULL) {
		fputs("\ncaptures left out: ", out);
		put(out, f->error, 0);
		fputc('\n', out);
		return;
	}
	if (f->nhosts == 0) {
		fputs("\ncaptures: no training traffic in them (the job "
		    "may have stopped before it trained)\n", out);
		return;
	}
	fprintf(out, "\ncaptures: %zu host%s, %zu data-parallel group%s, "
	    "%zu pipeline%s, %zu iteration%s of %.1f ms\n", f->nhosts,
	    f->nhosts == 1 ? "" : "s", f->ndp, f->ndp == 1 ? "" : "s", f->npp,
	    f->npp == 1 ? "" : "s", f->niters, f->niters == 1 ? "" : "s",
	    f->period * 1e3);
	text_join(out, f);
	for (i = 0; i < f->nfindings; i++) {
		s = subject_nodes(f, f->findings[i].subject, &unnamed);
		fprintf(out, "  %s ", f->findings[i].kind);
		put(out, f->findings[i].subject, 0);
		if (s != NULL) {
			fputs(" (", out);
			put(out, s, 0);
			fputc(')', out);
		}
		fprintf(out, " from capture iteration %d", f->findings[i].from);
		if (f->join != MODEL_JOIN_NONE)
			fprintf(out, " (log iteration %ld)",
			    f->findings[i].from + f->join_offset);
		fputc('\n', out);
		free(s);
		for (k = 0; k < f->findings[i].nreasons; k++) {
			fputs("       - ", out);
			put(out, f->findings[i].reasons[k], 0);
			fputc('\n', out);
		}
	}
	if (unnamed)
		fputs("  (neither the logs' NCCL lines nor a hosts file name these "
		    "addresses: a file named 'hosts' of 'ADDRESS NAME' lines in "
		    "the job's directory joins them to its nodes)\n", out);
}

/* "failed in iteration N", or how a job that ran to the end went. */
static void
text_outcome(FILE *out, const struct model *m)
{
	const char *sep = m->stage != STAGE_NONE ? "," : "";
	char when[48];

	if (m->outcome == DIAG_COMPLETED)
		fprintf(out, "%s ran to the end", sep);
	else if (m->outcome == DIAG_DIVERGED)
		fprintf(out, "%s diverged in iteration %ld (and ran to the end)",
		    sep, m->failure_iter);
	else if (m->outcome == DIAG_DEGRADED && m->slow_iter >= 0 &&
	    m->slow_iter == m->failure_iter)
		fprintf(out, "%s ran to the end but slowed down from iteration "
		    "%ld", sep, m->failure_iter);
	else if (m->outcome == DIAG_DEGRADED)
		fprintf(out, "%s ran to the end but went wrong from iteration "
		    "%ld", sep, m->failure_iter);
	else if (*model_fail_when(m, when, sizeof when) != '\0')
		fprintf(out, "%s failed %s", sep, when);
	else
		fprintf(out, "%s failed", sep);
}

static void
print_text(FILE *out, const struct model *m, size_t top)
{
	size_t i, k;
	char healthy[512];

	fputs("job ", out);
	put(out, m->name, 0);
	/* no stage line seen: nothing to say of it */
	if (m->stage != STAGE_NONE)
		fprintf(out, ": stage %s", stage_name((enum stage)m->stage));
	else
		fputc(':', out);
	text_outcome(out, m);
	if (m->last_healthy_iter >= 0)
		fprintf(out, ", last healthy iteration %ld", m->last_healthy_iter);
	fputc('\n', out);
	put(out, model_healthy_str(m, healthy, sizeof healthy), 0);
	fprintf(out, ", %zu anomalous iteration%s\n", m->anomalous,
	    m->anomalous == 1 ? "" : "s");
	if (m->root != NULL) {
		fputs("files under ", out);
		put(out, m->root, 0);
		fputc('\n', out);
	}
	if (m->slow_iter >= 0)
		fprintf(out, "iterations slowed down from iteration %ld: "
		    "%.0f ms, then %.0f ms\n", m->slow_iter, m->slow_before_ms,
		    m->slow_after_ms);
	for (i = 0; i < m->nnotes; i++) {
		fputs("note: ", out);
		put(out, m->notes[i], 0);
		fputc('\n', out);
	}
	fputs("\nsuspect nodes:\n", out);
	if (suspects_shown(m, top) == 0)
		fputs("  no suspect node\n", out);
	for (i = 0; i < suspects_shown(m, top); i++) {
		const struct model_node *n = &m->nodes[m->suspects[i]];

		fprintf(out, "%3zu. %.2f  ", i + 1, n->score);
		put(out, n->name, 0);
		fputc('\n', out);
		for (k = 0; k < n->nreasons; k++) {
			fputs("       - ", out);
			put(out, n->reasons[k], 0);
			fputc('\n', out);
		}
	}
	text_captures(out, m);
	fputs("\nsuspect events:\n", out);
	for (i = 0; i < limit(m->nevents, top); i++)
		text_event(out, m, i);
}

int
model_print(FILE *out, const struct model *m, int fmt, size_t top)
{
	if (fmt == DIAG_JSON)
		print_json(out, m, top);
	else if (fmt == DIAG_TSV)
		print_tsv(out, m, top);
	else
		print_text(out, m, top);
	return ferror(out) ? -1 : 0;
}
