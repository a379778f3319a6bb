/* diag-t.c -- the scorer on hand-built job models. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diag.h"
#include "diag/diverge.h"
#include "diag/dtw.h"
#include "diag/model.h"
#include "diag/pool.h"
#include "diag/faults.h"
#include "base/stats.h"
#include "base/util.h"
#include "tap.h"

enum { T_ITER, T_SAVE, T_XID, T_TIMEOUT, T_WARN, T_INIT, NT };

static const char *texts[NT] = {
	"iteration <*>/ <*> | lm loss: <*> |",
	"saving checkpoint at iteration <*>",
	"NVRM: Xid (PCI:<*>): 79, pid=<*>, GPU has fallen off the bus.",
	"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=<*>) "
	    "ran for <*> milliseconds before timing out.",
	"some harmless warning <*>",
	"building GPT model ...",
};

/*
 * A job of `nn` nodes, 20 iterations.  Node `bad` logs an Xid at
 * iteration 15 and stops; every other node logs a watchdog timeout 10
 * minutes later.  A harmless warning appears everywhere.
 */
static struct diag_job *
build(size_t nn, size_t bad, int nhealthy)
{
	struct diag_job *job = diag_job_new("j");
	size_t n, t, s;
	long it;
	char name[32], path[64];
	double t0 = 1700000000;

	for (n = 0; n < nn; n++) {
		snprintf(name, sizeof name, "node-%02zu", n);
		diag_add_node(job, name);
	}
	for (t = 0; t < NT; t++)
		diag_add_tmpl(job, (uint32_t)(t + 100), texts[t]);
	job->tmpls[T_XID].level = DIAG_LEVEL_ERROR;
	job->tmpls[T_TIMEOUT].level = DIAG_LEVEL_ERROR;
	job->tmpls[T_WARN].level = DIAG_LEVEL_WARN;
	diag_job_shape(job);
	job->nhealthy = nhealthy;
	if (nhealthy > 0) {
		job->tmpls[T_ITER].healthy_jobs = nhealthy;
		job->tmpls[T_ITER].healthy_rate = 20;
		job->tmpls[T_SAVE].healthy_jobs = nhealthy;
		job->tmpls[T_SAVE].healthy_rate = 2;
		job->tmpls[T_WARN].healthy_jobs = nhealthy;
		job->tmpls[T_WARN].healthy_rate = 1;
		job->tmpls[T_INIT].healthy_jobs = nhealthy;
		job->tmpls[T_INIT].healthy_rate = 1;
	}
	for (n = 0; n < nn; n++) {
		snprintf(path, sizeof path, "node-%02zu/rank-0.log", n);
		s = diag_add_stream(job, n, path);
		diag_stream_event(job, s, 100 + T_INIT);
		diag_count(job, n, T_INIT, 1);
		diag_count(job, n, T_WARN, 1);
		for (it = 1; it <= (n == bad ? 14 : 15); it++) {
			diag_stream_iter(job, s, it, t0 + it);
			if (it == 11) {
				diag_stream_event(job, s, 100 + T_SAVE);
				diag_count(job, n, T_SAVE, 1);
			}
			diag_stream_event(job, s, 100 + T_ITER);
			diag_count(job, n, T_ITER, 1);
		}
		diag_stream_iter(job, s, it, t0 + it);
		if (n == bad) {
			diag_stream_event(job, s, 100 + T_XID);
			diag_count(job, n, T_XID, 1);
			diag_stream_end(job, s, 14, STAGE_TRAINING, t0 + 15);
			job->nodes[n].first_error_ts = t0 + 15;
		} else {
			diag_stream_event(job, s, 100 + T_TIMEOUT);
			diag_count(job, n, T_TIMEOUT, 1);
			diag_stream_end(job, s, 15, STAGE_TRAINING, t0 + 615);
			job->nodes[n].first_error_ts = t0 + 615;
		}
	}
	diag_set_first(job, T_INIT, 0, "node-00/rank-0.log", 1, t0, STAGE_INIT,
	    -1);
	diag_set_first(job, T_WARN, 0, "node-00/rank-0.log", 2, t0, STAGE_INIT,
	    -1);
	diag_set_first(job, T_ITER, 0, "node-00/rank-0.log", 3, t0 + 1,
	    STAGE_TRAINING, 1);
	diag_set_first(job, T_SAVE, 0, "node-00/rank-0.log", 13, t0 + 11,
	    STAGE_CKPT_SAVE, 11);
	diag_set_first(job, T_XID, bad, "node-bad/rank-0.log", 18, t0 + 15,
	    STAGE_TRAINING, 15);
	diag_set_first(job, T_TIMEOUT, bad == 0, "node-01/rank-0.log", 19,
	    t0 + 615, STAGE_TRAINING, 16);
	return job;
}

static int
has_reason(char **v, size_t n, const char *needle)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strstr(v[i], needle) != NULL)
			return 1;
	return 0;
}

/*
 * The bad node's log stops early: an event of the diagnosis's own, on that
 * node, below the Xid it follows from and above every timeout; in the
 * model, a mark of it where the node stopped.
 */
static void
own_stop(const struct diag_job *job, const struct diag_result *r,
    size_t bad, const char *what)
{
	struct model *m;
	size_t i, own = 0, to = 0, k;
	char label[160];
	int mark = 0;

	for (i = 0; i < r->nevents; i++) {
		if (r->events[i].tmpl == DIAG_SYNTH && own == 0)
			own = i;
		if (r->events[i].tmpl == T_TIMEOUT)
			to = i;
	}
	snprintf(label, sizeof label, "%s: the early stop is an event between "
	    "its cause and the timeouts", what);
	ok(own > 0 && own < to && r->events[own].nnodes == 1 &&
	    job->nodes[r->events[own].nodes[0]].name != NULL &&
	    r->events[own].nodes[0] == r->nodes[0].node &&
	    strcmp(r->events[own].category, "stop") == 0, label);
	m = model_build(job, r, NULL);
	for (i = 0; i < m->nmarks; i++)
		if ((m->marks[i].flags & MODEL_MARK_STOP) &&
		    strcmp(m->nodes[m->marks[i].node].name,
		    job->nodes[r->nodes[0].node].name) == 0)
			mark++;
		else if (m->marks[i].flags & MODEL_MARK_STOP)
			mark = -100;
	for (i = 0, k = 0; i < m->nevents; i++)
		k += model_event_own(&m->events[i]);
	snprintf(label, sizeof label, "%s: the model marks it, one own event",
	    what);
	ok(mark == 1 && k == 1, label);
	(void)bad;
	model_free(m);
}

static void
test_cascade(size_t nn, size_t bad, int nhealthy, const char *what)
{
	struct faults *f = faults_new();
	struct diag_opts o = { 1, f, 0 };
	struct diag_job *job;
	struct diag_result *r;
	char label[160];

	faults_load_text(f, faults_builtin_rules, strlen(faults_builtin_rules),
	    "builtin");
	job = build(nn, bad, nhealthy);
	r = diag_run(job, &o);
	snprintf(label, sizeof label, "%s: faulty node first", what);
	ok(r->nnodes == nn && r->nodes[0].node == bad, label);
	snprintf(label, sizeof label, "%s: root-cause event first", what);
	ok(r->nevents > 0 && r->events[0].tmpl == T_XID, label);
	if (r->nevents > 0 && r->events[0].tmpl != T_XID)
		printf("# top event: %s\n", job->tmpls[r->events[0].tmpl].text);
	snprintf(label, sizeof label, "%s: reasons say why", what);
	ok(r->nevents > 0 && has_reason(r->events[0].reasons,
	    r->events[0].nreasons, "before the first timeout") &&
	    has_reason(r->events[0].reasons, r->events[0].nreasons, "only on"),
	    label);
	snprintf(label, sizeof label, "%s: category from the library", what);
	ok(r->nevents > 0 && r->events[0].category != NULL &&
	    strcmp(r->events[0].category, "xid") == 0, label);
	snprintf(label, sizeof label, "%s: failure iteration 15, last healthy "
	    "14, stage training", what);
	ok(r->failure_iter == 15 && r->last_healthy_iter == 14 &&
	    r->stage == STAGE_TRAINING, label);
	own_stop(job, r, bad, what);
	if (nhealthy > 0) {
		size_t i, warn = 0, xid = 0;

		for (i = 0; i < r->nevents; i++) {
			if (r->events[i].tmpl == T_WARN)
				warn = i;
			if (r->events[i].tmpl == T_XID)
				xid = i;
		}
		ok(warn > xid && has_reason(r->events[warn].reasons,
		    r->events[warn].nreasons, "seen in 3 of 3 healthy runs"),
		    "healthy-pool template demoted, not deleted");
	}
	diag_result_free(r);
	diag_job_free(job);
	faults_free(f);
}

static void
test_explode(void)
{
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_job *job = build(16, 3, 3);
	struct diag_result *r;
	size_t i, warn = 0;

	/* a normal warning whose rate explodes on every node */
	for (i = 0; i < 16; i++)
		diag_count(job, i, T_WARN, 200);
	r = diag_run(job, &o);
	for (i = 0; i < r->nevents; i++)
		if (r->events[i].tmpl == T_WARN)
			warn = i;
	ok(has_reason(r->events[warn].reasons, r->events[warn].nreasons,
	    "its rate in healthy runs"), "exploding normal template is kept "
	    "suspicious");
	ok(r->events[warn].score > 0.3, "with a real score");
	diag_result_free(r);
	diag_job_free(job);
}

#define JSON_HEAD "{\n  \"schema\": 2,\n  \"job\": \"j\",\n  \"root\": null,\n" \
    "  \"stage\": \"training\",\n" \
    "  \"outcome\": \"failed\",\n  \"failure_iteration\": 15,\n" \
    "  \"last_healthy_iteration\": 14,"

static void
test_print(void)
{
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_job *job = build(4, 2, 0);
	struct diag_result *r = diag_run(job, &o);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	enum diag_format fmt;

	ok(diag_format_parse("json", &fmt) == 0 && fmt == DIAG_JSON, "json");
	ok(diag_format_parse("xml", &fmt) == -1, "unknown format");
	diag_print(out, r, DIAG_JSON, 3);
	fflush(out);
	ok(strncmp(buf, JSON_HEAD, strlen(JSON_HEAD)) == 0,
	    "json header fields");
	ok(strstr(buf, "\"position\": 1,") && strstr(buf, "\"template_id\": 102") &&
	    strstr(buf, "\"path\": \"node-bad/rank-0.log\"") &&
	    strstr(buf, "\"line\": 18") && !strstr(buf, "\"position\": 4,"),
	    "json events: position, template id, first path and line, --top");
	fclose(out);
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	diag_print(out, r, DIAG_TSV, 0);
	fflush(out);
	ok(strncmp(buf, "kind\tposition\tscore", 19) == 0 &&
	    strstr(buf, "\nnode\t1\t") && strstr(buf, "\nevent\t6\t"),
	    "tsv has every node and event row");
	fclose(out);
	free(buf);
	diag_result_free(r);
	diag_job_free(job);
}

static void
test_tiny(void)
{
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_job *job = diag_job_new("tiny");
	struct diag_result *r;
	size_t s;

	diag_add_node(job, "localhost");
	diag_add_tmpl(job, 1, "hello <*>");
	diag_job_shape(job);
	s = diag_add_stream(job, 0, "job.log");
	diag_stream_event(job, s, 1);
	diag_count(job, 0, 0, 1);
	diag_stream_end(job, s, -1, STAGE_LAUNCH, NAN);
	r = diag_run(job, &o);
	ok(r->nnodes == 1 && r->nevents == 1 && r->failure_iter == -1,
	    "a one-node, one-line job works");
	diag_result_free(r);
	diag_job_free(job);
	job = diag_job_new("empty");
	r = diag_run(job, &o);
	ok(r->nnodes == 0 && r->nevents == 0, "an empty job works");
	diag_result_free(r);
	diag_job_free(job);
}

static void
test_slowdown(void)
{
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_job *job = build(8, 2, 0);
	struct diag_result *r;
	long i;

	for (i = 1; i <= 40; i++)
		diag_add_time(job, i, (i >= 25 ? 1500 : 1000) + (i * 37 % 11));
	r = diag_run(job, &o);
	is_int(r->slow_iter, 25, "a lasting slowdown is found where it began");
	ok(r->slow_before_ms > 990 && r->slow_before_ms < 1020 &&
	    r->slow_after_ms > 1490 && r->slow_after_ms < 1520,
	    "with the durations before and after");
	is_int(r->failure_iter, 15, "a crash still names the failure iteration");
	diag_result_free(r);
	diag_job_free(job);

	job = build(8, 2, 0);
	for (i = 1; i <= 40; i++)
		diag_add_time(job, i, 1000 + (i * 37 % 50));
	r = diag_run(job, &o);
	is_int(r->slow_iter, -1, "jitter is no slowdown");
	diag_result_free(r);
	diag_job_free(job);
}

/*
 * A job whose ranks all run 30 iterations and shut down, the iterations
 * 1.5 times slower from 18 on when `slow`; node `short_node` (if below
 * 4) stops at 29.
 */
static struct diag_job *
build_ended(int slow, size_t short_node)
{
	struct diag_job *job = diag_job_new("e");
	size_t n, s;
	long it, last;
	char name[32];

	for (n = 0; n < 4; n++) {
		snprintf(name, sizeof name, "node-%02zu", n);
		diag_add_node(job, name);
	}
	diag_add_tmpl(job, 100, texts[T_ITER]);
	diag_job_shape(job);
	for (n = 0; n < 4; n++) {
		snprintf(name, sizeof name, "node-%02zu/rank-0.log", n);
		s = diag_add_stream(job, n, name);
		last = n == short_node ? 29 : 30;
		for (it = 1; it <= last; it++) {
			diag_stream_iter(job, s, it, 1700000000.0 + (double)it);
			diag_stream_event(job, s, 100);
			diag_count(job, n, 0, 1);
		}
		diag_stream_end(job, s, last, n == short_node ? STAGE_TRAINING :
		    STAGE_SHUTDOWN, 1700000000.0 + (double)last);
	}
	for (it = 1; it <= 30; it++)
		diag_add_time(job, it, (slow && it >= 18 ? 1500 : 1000) +
		    (double)(it * 37 % 11));
	return job;
}

static char *
text_of(const struct diag_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	diag_print(out, r, DIAG_TEXT, 1);
	fclose(out);
	return buf;
}

static void
test_outcome(void)
{
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_job *job = build_ended(1, 4);
	struct diag_result *r = diag_run(job, &o);
	char *text = text_of(r);

	is_int(r->failure_iter, 18, "a slowdown dates the trouble");
	is_str(diag_outcome_name(r->outcome), "degraded",
	    "ran to the end, slower: degraded");
	ok(strstr(text, "ran to the end but slowed down from iteration 18") &&
	    !strstr(text, "failed"), "the text claims no failure");
	free(text);
	diag_result_free(r);
	diag_job_free(job);

	job = build_ended(0, 4);
	r = diag_run(job, &o);
	text = text_of(r);
	is_str(diag_outcome_name(r->outcome), "completed",
	    "ran to the end, nothing wrong: completed");
	ok(strstr(text, ", ran to the end\n") != NULL, "the text says so");
	free(text);
	diag_result_free(r);
	diag_job_free(job);

	job = build_ended(1, 2);
	r = diag_run(job, &o);
	text = text_of(r);
	is_str(diag_outcome_name(r->outcome), "failed",
	    "a node that stops short: failed");
	ok(strstr(text, "failed in iteration") != NULL, "the text says so");
	free(text);
	diag_result_free(r);
	diag_job_free(job);
}

/* The reasons of node `name` in r, or NULL. */
static const struct diag_node_result *
node_result(const struct diag_result *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nnodes; i++)
		if (strcmp(r->job->nodes[r->nodes[i].node].name, name) == 0)
			return &r->nodes[i];
	return NULL;
}

/*
 * Nodes whose logs print no iteration lines: one stopped in init (behind
 * its peers), one trained without saying which iteration (not behind).
 */
static void
test_no_iters(void)
{
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_job *job = build_ended(0, 4);
	struct diag_result *r;
	const struct diag_node_result *a, *b;
	size_t s;

	s = diag_add_stream(job, diag_add_node(job, "node-init"), "i.log");
	diag_stream_end(job, s, -1, STAGE_INIT, NAN);
	s = diag_add_stream(job, diag_add_node(job, "node-quiet"), "q.log");
	diag_stream_end(job, s, -1, STAGE_TRAINING, NAN);
	r = diag_run(job, &o);
	a = node_result(r, "node-init");
	b = node_result(r, "node-quiet");
	ok(a != NULL && has_reason(a->reasons, a->nreasons, "log stops in "
	    "init, before training; its peers reach iteration 30"),
	    "a node that never trained stopped before its peers");
	ok(b != NULL && !has_reason(b->reasons, b->nreasons, "stops") &&
	    !has_reason(b->reasons, b->nreasons, "iteration -1"),
	    "a node that trains without iteration lines is not behind");
	diag_result_free(r);
	diag_job_free(job);
}

/* A series of n iterations: loss, grad norm and learning rate each. */
static struct diag_loss *
series(size_t n, const double *loss, const double *gnorm, const double *lr)
{
	struct diag_loss *x = xcalloc(n + 1, sizeof *x);
	size_t i;

	for (i = 0; i < n; i++) {
		x[i].iteration = (long)i + 1;
		x[i].line = (long)i + 40;
		x[i].loss = loss[i];
		x[i].has_loss = 1;
		x[i].gnorm = gnorm[i];
		x[i].has_gnorm = 1;
		x[i].hp[HP_LR] = lr[i];
		x[i].has_hp = 1u << HP_LR;
	}
	return x;
}

static void
test_diverge(void)
{
	double loss[16], gnorm[16], lr[16];
	struct diag_loss *x;
	struct diverge d;
	size_t i;

	for (i = 0; i < 16; i++) {
		loss[i] = 7 - 0.01 * (double)i;
		gnorm[i] = 0.2;
		lr[i] = 1e-3;
	}
	/* lr typo at 9, the loss explodes at 10, grad norm NaN from 12 */
	for (i = 8; i < 16; i++)
		lr[i] = 3e3;
	for (i = 9; i < 16; i++) {
		loss[i] = 1e8 * (double)i;
		gnorm[i] = i >= 11 ? NAN : 1e14;
	}
	x = series(16, loss, gnorm, lr);
	ok(diverge_find(x, 16, &d) && x[d.fail].iteration == 12 &&
	    x[d.onset].iteration == 10 && d.onset_loss, "diverged: failure at "
	    "the first non-finite grad norm, onset at the explosion");
	ok(d.jump == HP_LR && x[d.jump_at].iteration == 9 &&
	    fabs(d.jump_ratio - 3e6) < 1, "the learning rate jump before it");
	ok(d.fail_rec.iteration == 12 && d.onset_rec.iteration == 10 &&
	    d.jump_rec.iteration == 9 && d.jump_prev.iteration == 8 &&
	    d.jump_prev.hp[HP_LR] == 1e-3 && d.after == 16 - 9 - 1,
	    "diverged: the records it names are kept, and the count after");
	free(x);
	{
		/* a long run: 200000 good iterations, then it diverges */
		struct diverge_run *run = xcalloc(1, sizeof *run);
		const struct diag_loss *sp;
		struct diag_loss one;
		double med;
		size_t k;

		memset(&one, 0, sizeof one);
		one.has_loss = one.has_gnorm = 1;
		for (k = 0; k < 200005; k++) {
			one.iteration = (long)k + 1;
			one.loss = k < 200000 ? 2 + 0.001 * (double)(k % 7) :
			    k < 200002 ? 1e6 : NAN;
			one.gnorm = 0.5;
			diverge_add(run, &one);
		}
		sp = diverge_spike(run, &med);
		ok(diverge_end(run, &d) && d.onset == 200000 &&
		    d.onset_rec.iteration == 200001 &&
		    d.fail_rec.iteration == 200003 && d.after == 4 &&
		    sp != NULL && sp->iteration == 200001 && med > 2 &&
		    med < 2.01, "diverged after 200000 iterations: onset, "
		    "failure and the first spike, from a series never held");
		free(run);
	}
	/* a warm-up spike that comes back, one skipped step (backoff) */
	for (i = 0; i < 16; i++) {
		loss[i] = 7 - 0.01 * (double)i;
		gnorm[i] = 0.2;
		lr[i] = 1e-3;
	}
	loss[7] = 60;
	gnorm[11] = INFINITY;
	x = series(16, loss, gnorm, lr);
	ok(!diverge_find(x, 16, &d), "a spike and a skipped step recovered "
	    "from: no divergence");
	/* bad only in the last two: too short to call */
	x[14].loss = x[15].loss = NAN;
	ok(!diverge_find(x, 16, &d), "two bad iterations at the end are not "
	    "enough");
	x[13].loss = 1e9;
	ok(diverge_find(x, 16, &d) && x[d.fail].iteration == 15 &&
	    x[d.onset].iteration == 14 && d.jump < 0, "three are; no jump");
	free(x);
}

/* The settings of a run's shape, and what makes two runs of one shape. */
static void
test_pool(void)
{
	static const char *const lines[] = {
		"using world size: 4, data-parallel size: 2, tensor-model-"
		    "parallel size: 1, pipeline-model-parallel size: 2",
		"  dp .............................. 2",
		"  lr .............................. 0.001",
		"  num_layers ...................... 4",
		"  job_id .......................... gpt-g",
		"iteration 1/ 30 | lm loss: 7.0 |",
	};
	struct pool_run a, b;
	const char *why;
	size_t i;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	for (i = 0; i < TS_NELEM(lines); i++)
		pool_settings_line(lines[i], strlen(lines[i]), &a.kv, &a.nkv);
	ok(a.nkv == 6 && strcmp(a.kv[0].key, "world_size") == 0 &&
	    strcmp(a.kv[1].key, "data_parallel_size") == 0 &&
	    strcmp(a.kv[1].value, "2") == 0 && strcmp(a.kv[4].key, "dp") == 0 &&
	    strcmp(a.kv[5].key, "num_layers") == 0, "shape settings read, the "
	    "learning rate and the job's name left out");
	a.nodes = b.nodes = 4;
	a.ranks = b.ranks = 4;
	pool_settings_line(lines[0], strlen(lines[0]), &b.kv, &b.nkv);
	ok(pool_same_shape(&a, &b, &why), "the settings both logged agree");
	free(b.kv[1].value);
	b.kv[1].value = xstrdup("4");
	ok(!pool_same_shape(&a, &b, &why) && strstr(why, "layout") != NULL,
	    "another data-parallel size is another shape");
	b.kv[1].value[0] = '2';
	b.nodes = 8;
	ok(!pool_same_shape(&a, &b, &why) && strstr(why, "nodes") != NULL,
	    "so are more nodes");
	ok(fabs(pool_likeness(3, 4, 5) - 0.5) < 1e-12, "likeness: Jaccard");
	{
		static const char nul[] = "world size:\0\0 1";
		struct pool_run c;

		memset(&c, 0, sizeof c);
		pool_settings_line(nul, sizeof nul - 1, &c.kv, &c.nkv);
		ok(c.nkv == 0, "a setting whose value starts with a NUL byte "
		    "is none (it would be an empty value)");
		pool_run_release(&c);
	}
	pool_run_release(&a);
	pool_run_release(&b);
}

/* Records of diag_fold_records(): cell by cell, in stream order. */
struct seen_rec {
	long count[8];
	uint32_t first[8];
	size_t n;
};

static void
note_rec(void *arg, size_t node, long at, long iteration,
    const uint32_t *ids, const uint32_t *counts, size_t n)
{
	struct seen_rec *sr = arg;
	size_t k;

	(void)node;
	(void)at;
	for (k = 0; iteration == 7 && k < n && sr->n < 8; k++) {
		sr->count[sr->n] = (long)counts[k];
		sr->first[sr->n++] = ids[k];
	}
}

/*
 * Two ranks of one node, iterations 1 .. n, a warning in iteration
 * warn; see test_fold().
 */
static struct diag_job *
fold_job_n(long n, long warn)
{
	struct diag_job *job = diag_job_new("fold");
	size_t s, i;
	long it;

	diag_add_node(job, "node-00");
	for (i = 0; i < NT; i++)
		diag_add_tmpl(job, (uint32_t)(i + 100), texts[i]);
	job->tmpls[T_WARN].level = DIAG_LEVEL_WARN;
	diag_job_shape(job);
	for (s = 0; s < 2; s++) {
		diag_add_stream(job, 0, s == 0 ? "rank-0.log" : "rank-1.log");
		for (it = 1; it <= n; it++) {
			diag_stream_iter(job, s, it, 1700000000.0 + (double)it);
			if (s == 0 && it == 7)
				diag_stream_event(job, s, 100 + T_INIT);
			if (s == 1 && it == warn) {
				diag_stream_event(job, s, 100 + T_WARN);
				diag_count(job, 0, T_WARN, 1);
			}
			diag_stream_event(job, s, 100 + T_ITER);
			diag_count(job, 0, T_ITER, 1);
		}
		diag_stream_end(job, s, n, STAGE_TRAINING,
		    1700000000.0 + (double)n);
	}
	diag_set_first(job, T_ITER, 0, "rank-0.log", 1, 1700000001.0,
	    STAGE_TRAINING, 1);
	diag_set_first(job, T_INIT, 0, "rank-0.log", 7, 1700000007.0,
	    STAGE_TRAINING, 7);
	diag_set_first(job, T_WARN, 0, "rank-1.log", warn,
	    1700000000.0 + (double)warn, STAGE_TRAINING, warn);
	return job;
}

static struct diag_job *
fold_job(void)
{
	return fold_job_n(3000, 2500);
}

/*
 * Folding: two ranks of one node, 3000 iterations alike but one each,
 * where rank 0 logs a line new to it (iteration 7) and rank 1 a warning
 * (iteration 2500).  The streams are folded out of order (rank 1 first);
 * the fold keeps the last iteration only, the two are anomalous and no
 * other, and a cell's records come in stream order whatever the order of
 * folding.  Folded on a worker thread, the model is the same.
 */
static void
test_fold(void)
{
	struct diag_job *job = fold_job(), *job2 = fold_job();
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_folder *fd;
	struct diag_result *r, *r2;
	struct seen_rec sr;
	struct model *m, *m2;
	size_t s, i, anomalous = 0;

	diag_fold_set_cap(4096);	/* every iteration its own column */
	diag_stream_fold(job, 1);
	diag_stream_fold(job, 0);
	ok(job->streams[0].niters == 1 && job->streams[0].nrecs == 3000 &&
	    job->streams[1].niters == 1 && job->streams[1].nrecs == 3000,
	    "fold: a stream keeps its last iteration of 3000");
	memset(&sr, 0, sizeof sr);
	diag_fold_records(job, note_rec, &sr);
	ok(sr.n == 2 && sr.first[0] == 100 + T_INIT && sr.count[0] == 1 &&
	    sr.first[1] == 100 + T_ITER && sr.count[1] == 2,
	    "fold: a cell's events in stream order, folded out of order");
	r = diag_run(job, &o);
	for (s = 0; s < 2; s++)
		for (i = 0; i < job->streams[s].ncands; i++)
			if (job->streams[s].cands[i].anomalous)
				anomalous += job->streams[s].cands[i].iteration ==
				    (s == 0 ? 7 : 2500) ? 1 : 100;
	ok(anomalous == 2 && r->anomalous_iters == 2,
	    "fold: the two iterations with a new event are anomalous");
	m = model_build(job, r, NULL);
	for (i = 0; i < m->nmarks; i++)
		if (m->marks[i].at == 2500 &&
		    (m->marks[i].flags & MODEL_MARK_ANOMALOUS))
			break;
	ok(i < m->nmarks, "fold: the model marks iteration 2500 anomalous");
	is_int((long)m->niters, 3000, "fold: the model has every iteration");

	diag_set_threads(2);
	fd = diag_folder_start(job2);
	ok(fd != NULL, "fold: a worker starts when two threads are allowed");
	diag_folder_add(fd, job2, 1);
	diag_folder_add(fd, job2, 0);
	diag_folder_finish(fd);
	diag_set_threads(0);
	r2 = diag_run(job2, &o);
	m2 = model_build(job2, r2, NULL);
	for (i = 0; m2->nmarks == m->nmarks && i < m->nmarks; i++)
		if (m2->marks[i].node != m->marks[i].node ||
		    m2->marks[i].at != m->marks[i].at ||
		    m2->marks[i].flags != m->marks[i].flags ||
		    m2->marks[i].n != m->marks[i].n ||
		    m2->marks[i].event != m->marks[i].event)
			break;
	ok(m2->nmarks == m->nmarks && i == m->nmarks &&
	    m2->niters == m->niters &&
	    r2->anomalous_iters == r->anomalous_iters,
	    "fold: on a worker thread, the same model");
	model_free(m2);
	diag_result_free(r2);
	diag_job_free(job2);
	model_free(m);
	diag_result_free(r);
	diag_job_free(job);
	diag_fold_set_cap(0);
}

/*
 * Job of n iterations folded (on a worker thread when `worker`, rank 1
 * first) and modelled under a cap of `cap` buckets.
 */
static struct model *
bucket_model_on(long n, long warn, size_t cap, int worker,
    struct diag_result **rp)
{
	struct diag_job *job = fold_job_n(n, warn);
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_folder *fd;
	struct model *m;

	diag_fold_set_cap(cap);
	if (worker) {
		diag_set_threads(2);
		fd = diag_folder_start(job);
		diag_folder_add(fd, job, 1);
		diag_folder_add(fd, job, 0);
		diag_folder_finish(fd);
		diag_set_threads(0);
	} else {
		diag_stream_fold(job, 0);
		diag_stream_fold(job, 1);
	}
	*rp = diag_run(job, &o);
	m = model_build(job, *rp, NULL);
	diag_fold_set_cap(0);
	(*rp)->job = NULL;
	diag_job_free(job);
	return m;
}

static struct model *
bucket_model(long n, long warn, size_t cap, struct diag_result **rp)
{
	return bucket_model_on(n, warn, cap, 0, rp);
}

/* The same marks and iteration records? */
static int
same_marks(const struct model *a, const struct model *b)
{
	size_t i;

	if (a->nmarks != b->nmarks || a->niters != b->niters ||
	    a->iter_width != b->iter_width)
		return 0;
	for (i = 0; i < a->nmarks; i++)
		if (a->marks[i].node != b->marks[i].node ||
		    a->marks[i].at != b->marks[i].at ||
		    a->marks[i].flags != b->marks[i].flags ||
		    a->marks[i].level != b->marks[i].level ||
		    a->marks[i].n != b->marks[i].n ||
		    a->marks[i].event != b->marks[i].event)
			return 0;
	for (i = 0; i < a->niters; i++)
		if (a->iters[i].iteration != b->iters[i].iteration ||
		    a->iters[i].start != b->iters[i].start ||
		    a->iters[i].flags != b->iters[i].flags)
			return 0;
	return 1;
}

/*
 * Do the marks of b (buckets) merge those of a (one a column) over each
 * bucket: flags joined, the strongest level kept, and the count every
 * event of the bucket's iterations (fold_job_n(): two a rank and
 * iteration, and the two lines of iterations 7 and warn)?
 */
static int
marks_merged(const struct model *a, const struct model *b, long last,
    long warn)
{
	size_t i, k;
	long it;

	for (i = 0; i < b->nmarks; i++) {
		const struct model_mark *bm = &b->marks[i];
		uint64_t n = 0;
		unsigned fl = 0, lv = 0;

		for (it = (long)bm->at; it < (long)bm->at + b->iter_width &&
		    it <= last; it++)
			n += it < 1 ? 0 : 2 + (it == 7) + (it == warn);

		for (k = 0; k < a->nmarks; k++) {
			const struct model_mark *am = &a->marks[k];

			if (am->node != bm->node || (long)am->at < 0 ||
			    model_bucket(b, (long)am->at) != (long)bm->at)
				continue;
			fl |= am->flags;
			lv = am->level > lv ? am->level : lv;
		}
		if ((long)bm->at >= 0 && (n != bm->n || fl != bm->flags ||
		    lv != bm->level))
			return 0;
	}
	return 1;
}

/* Is every iteration record a bucket with its earliest start? */
static int
iters_bucketed(const struct model *m, long n)
{
	size_t i;

	for (i = 0; i < m->niters; i++) {
		long at = m->iters[i].iteration;
		long first = at < 1 ? 1 : at;

		if (at % m->iter_width != 0 || at > n ||
		    m->iters[i].start != 1700000000.0 + (double)first)
			return 0;
	}
	return 1;
}

/*
 * The fold's buckets: a run of exactly the cap keeps a column an
 * iteration; one more doubles the width (and again at twice the cap);
 * a bucket's mark is its iterations' marks merged (the sum of counts,
 * every flag, the strongest level), in whatever order the streams came,
 * and the diagnosis is the same whatever the width.
 */
static void
test_bucket(void)
{
	struct diag_result *ra, *rb;
	struct model *a, *b;
	size_t cap = 64;
	long sizes[] = { 64, 65, 127, 128, 1000 }, n, want, buckets;
	char msg[128];
	size_t k;

	for (k = 0; k < TS_NELEM(sizes); k++) {
		/*
		 * Iterations 1 .. n: at width w > 1 bucket 0 holds w - 1 of
		 * them, so 2 x cap - 1 fill the cap at width 2 and 2 x cap
		 * take width 4.
		 */
		n = sizes[k];
		for (want = 1, buckets = n; buckets > (long)cap; want *= 2)
			buckets = n / (want * 2) + 1;
		a = bucket_model(n, n * 5 / 6, 1 << 20, &ra);
		b = bucket_model(n, n * 5 / 6, cap, &rb);
		snprintf(msg, sizeof msg, "bucket: %ld iterations under a "
		    "cap of %zu: width %ld, %ld buckets", n, cap, want,
		    buckets);
		ok(b->iter_width == want && (long)b->niters == buckets, msg);
		snprintf(msg, sizeof msg, "bucket: %ld iterations: each "
		    "record a bucket's first iteration, earliest start", n);
		ok(iters_bucketed(b, n), msg);
		snprintf(msg, sizeof msg, "bucket: %ld iterations: a mark is "
		    "its iterations' merged", n);
		ok(marks_merged(a, b, n, n * 5 / 6) && b->nmarks > 0, msg);
		snprintf(msg, sizeof msg, "bucket: %ld iterations: the same "
		    "diagnosis", n);
		ok(ra->anomalous_iters == rb->anomalous_iters &&
		    ra->outcome == rb->outcome &&
		    ra->failure_iter == rb->failure_iter &&
		    a->nevents == b->nevents, msg);
		model_free(a);
		model_free(b);
		diag_result_free(ra);
		diag_result_free(rb);
	}
	/* folded in another order on a worker: the same buckets */
	a = bucket_model(1000, 833, cap, &ra);
	b = bucket_model_on(1000, 833, cap, 1, &rb);
	ok(same_marks(a, b), "bucket: folded on a worker thread, rank 1 "
	    "first, the same marks and iterations");
	model_free(a);
	model_free(b);
	diag_result_free(ra);
	diag_result_free(rb);
}

/* ------------------------------------------------------------ parts */

#define PARTS_N 5000
#define PARTS_EV 13

/*
 * A run's two ranks as the loader gives them, iteration by iteration:
 * ten lines alike; drawn by a seeded generator, now and then a save
 * added (too small a change to be flagged) or, after iteration 3000,
 * three Xid lines instead (flagged); a warning added in iteration
 * 4000 + rank (not flagged); uneven spacing, and on rank 1 an unfinished last iteration that ends
 * in a timeout.  Every `part` iterations the complete ones are folded
 * (0: never, the streams folded whole at their end), on a worker when
 * `worker`.  The sequences and starts are kept in seqs/lens/starts
 * (rank r's iteration i at r * (PARTS_N + 1) + i) when not NULL.
 */
static struct diag_job *
parts_job(size_t part, int worker, uint32_t (*seqs)[PARTS_EV], size_t *lens,
    double *starts)
{
	struct diag_job *job = diag_job_new("parts");
	struct diag_folder *fd = NULL;
	uint32_t seed = 12345, ev[PARTS_EV];
	size_t s, k, n, at;
	long it;
	double ts;

	diag_add_node(job, "node-00");
	for (k = 0; k < NT; k++)
		diag_add_tmpl(job, (uint32_t)(k + 100), texts[k]);
	job->tmpls[T_WARN].level = DIAG_LEVEL_WARN;
	job->tmpls[T_TIMEOUT].level = DIAG_LEVEL_ERROR;
	diag_job_shape(job);
	diag_add_stream(job, 0, "rank-0.log");
	diag_add_stream(job, 0, "rank-1.log");
	if (worker) {
		diag_set_threads(2);
		fd = diag_folder_start(job);
	}
	for (s = 0; s < 2; s++) {
		ts = 1700000000.0;
		for (it = 1; it <= PARTS_N + (s == 1); it++) {
			seed = seed * 1103515245u + 12345u;
			ts += 1.0 + (double)((seed >> 16) % 50) / 100;
			n = 0;
			while (n < 9)
				ev[n++] = 100 + T_ITER;
			if (((seed >> 8) & 15) == 0)
				ev[n++] = 100 + T_SAVE;
			if (((seed >> 8) & 15) == 1 && it > 3000)
				for (n = 0; n < 3; n++)	/* short and odd */
					ev[n] = 100 + T_XID;
			if (it == 4000 + (long)s)
				ev[n++] = 100 + T_WARN;
			if (it > PARTS_N) {	/* rank 1's cut iteration */
				n = 0;
				ev[n++] = 100 + T_INIT;
				ev[n++] = 100 + T_TIMEOUT;
			} else
				ev[n++] = 100 + T_ITER;
			diag_stream_iter(job, s, it, ts);
			for (k = 0; k < n; k++)
				diag_stream_event(job, s, ev[k]);
			at = s * (PARTS_N + 1) + (size_t)it - 1;
			if (seqs != NULL) {
				memcpy(seqs[at], ev, sizeof ev);
				lens[at] = n;
				starts[at] = ts;
			}
			if (part > 0 && job->streams[s].niters > part)
				diag_folder_part(fd, job, s);
		}
		diag_stream_end(job, s, PARTS_N, STAGE_TRAINING, ts);
		diag_folder_add(fd, job, s);
	}
	diag_folder_finish(fd);
	diag_set_threads(0);
	return job;
}

/*
 * What folding the whole stream at once with the array scoring
 * (dtw_iter_scores(), dtw_flag()) finds: the flagged iterations of
 * [1, last) that log an event new to the stream, and the median spacing.
 */
static void
parts_expect(uint32_t (*seqs)[PARTS_EV], const size_t *lens, const double *starts,
    size_t n, long *cands, size_t *ncands, double *gap)
{
	const uint32_t **sp = xcalloc(n, sizeof *sp);
	double *score = xcalloc(n, sizeof *score), *best = xcalloc(n,
	    sizeof *best), *gaps = xcalloc(n, sizeof *gaps);
	int *flags = xcalloc(n, sizeof *flags), seen[NT + 100] = { 0 };
	size_t nfresh = 0;
	size_t i, k, last = n, ng = 0;
	int fresh;

	for (i = 0; i < n; i++)
		sp[i] = seqs[i];
	if (seqs[n - 1][lens[n - 1] - 1] == 100 + T_TIMEOUT)
		last = n - 1;	/* the cut one */
	dtw_iter_scores(sp, lens, n, DIAG_WINDOW, DIAG_BAND, score, best);
	dtw_flag(score, best, n, flags);
	*ncands = 0;
	for (i = 0; i < n; i++) {
		for (fresh = 0, k = 0; k < lens[i]; k++)
			fresh |= !seen[seqs[i][k]];
		if (i >= 1 && i < last && flags[i] && fresh)
			cands[(*ncands)++] = (long)i + 1;
		nfresh += i >= 1 && i < last && fresh;
		for (k = 0; k < lens[i]; k++)
			seen[seqs[i][k]] = 1;
		if (i > 0)
			gaps[ng++] = starts[i] - starts[i - 1];
	}
	*gap = stats_median(gaps, ng);
	if (nfresh <= *ncands)	/* the flags would not be tested */
		*ncands = 0;
	free(sp);
	free(score);
	free(best);
	free(gaps);
	free(flags);
}

/* Do the streams of a and b hold the same verdict of their iterations? */
static int
same_streams(const struct diag_job *a, const struct diag_job *b)
{
	const struct diag_stream *x, *y;
	size_t s, i;

	for (s = 0; s < a->nstreams; s++) {
		x = &a->streams[s];
		y = &b->streams[s];
		if (x->nrecs != y->nrecs || x->ncands != y->ncands ||
		    x->has_tail != y->has_tail || x->niters != y->niters ||
		    x->gap_median != y->gap_median ||
		    !(x->best_last == y->best_last ||
		    (isnan(x->best_last) && isnan(y->best_last))) ||
		    x->tail.nfresh != y->tail.nfresh ||
		    x->tail.nwnew != y->tail.nwnew)
			return 0;
		for (i = 0; i < x->ncands; i++)
			if (x->cands[i].iteration != y->cands[i].iteration ||
			    x->cands[i].nfresh != y->cands[i].nfresh ||
			    x->cands[i].nwnew != y->cands[i].nwnew)
				return 0;
	}
	return 1;
}

/*
 * A stream folded in parts as it comes gives what it gives folded whole:
 * the candidates the array scoring flags, the median spacing, the tail,
 * the same model; in parts of one iteration, of a few hundred, on a
 * worker thread.
 */
static void
test_parts(void)
{
	size_t n = 2 * (PARTS_N + 1), parts[] = { 1, 300 }, k, i, nc;
	uint32_t (*seqs)[PARTS_EV] = xcalloc(n, sizeof *seqs);
	size_t *lens = xcalloc(n, sizeof *lens);
	double *starts = xcalloc(n, sizeof *starts), gap;
	long cands[64];
	struct diag_opts o = { 1, NULL, 0 };
	struct diag_job *whole = parts_job(0, 0, seqs, lens, starts), *job;
	struct diag_result *rw = diag_run(whole, &o), *r;
	struct model *mw = model_build(whole, rw, NULL), *m;
	const struct diag_stream *st;
	char msg[128];
	int ok1 = 1;

	for (k = 0; k < 2; k++) {
		st = &whole->streams[k];
		parts_expect(seqs + k * (PARTS_N + 1), lens + k * (PARTS_N + 1),
		    starts + k * (PARTS_N + 1), PARTS_N + k, cands, &nc, &gap);
		ok1 &= st->ncands == nc && nc >= 1 && nc < 64 &&
		    fabs(st->gap_median - gap) < 1e-9;
		for (i = 0; i < nc && i < st->ncands; i++)
			ok1 &= st->cands[i].iteration == cands[i];
	}
	ok(ok1, "parts: a stream folded whole flags what the array scoring "
	    "flags, and has its median spacing");
	ok(!whole->streams[0].has_tail && whole->streams[1].has_tail &&
	    whole->streams[1].tail.iteration == PARTS_N + 1 &&
	    whole->streams[1].nrecs == PARTS_N + 1,
	    "parts: the cut last iteration is the tail");
	for (k = 0; k < 3; k++) {
		job = parts_job(k < 2 ? parts[k] : 300, k == 2, NULL, NULL,
		    NULL);
		r = diag_run(job, &o);
		m = model_build(job, r, NULL);
		snprintf(msg, sizeof msg, "parts: folded %zu at a time%s, "
		    "the same streams and model", k < 2 ? parts[k] : 300,
		    k == 2 ? " on a worker" : "");
		ok(same_streams(whole, job) && same_marks(mw, m) &&
		    r->anomalous_iters == rw->anomalous_iters &&
		    r->failure_iter == rw->failure_iter, msg);
		model_free(m);
		diag_result_free(r);
		diag_job_free(job);
	}
	model_free(mw);
	diag_result_free(rw);
	diag_job_free(whole);
	free(seqs);
	free(lens);
	free(starts);
}

int
main(void)
{
	test_cascade(4, 2, 0, "4 nodes, no history");
	test_cascade(4, 2, 3, "4 nodes, 3 healthy runs");
	test_cascade(64, 17, 0, "64 nodes (forest), no history");
	test_cascade(64, 17, 3, "64 nodes (forest), 3 healthy runs");
	test_explode();
	test_print();
	test_tiny();
	test_slowdown();
	test_outcome();
	test_no_iters();
	test_diverge();
	test_pool();
	test_fold();
	test_bucket();
	test_parts();
	return done_testing();
}
