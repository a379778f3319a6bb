/*
 * flowjoin.c -- the network's view of a job, as evidence for the log
 * diagnosis.
 *
 * A straggler, a slow link or a slow NIC leaves nothing in the logs:
 * every rank just waits a little longer inside its collectives.  When the
 * job directory also holds captures, the flow analysis (flowan.c,
 * flowtl.c) can see it.  This file loads the captures of the job's
 * directory, names their hosts from the same directory's logs
 * (flownames.c), and hands each straggler, each end of a slow link and
 * each host whose links all slowed down (a slow NIC) to the scorer as
 * evidence about that node (diag_node_evidence()), with a sentence that
 * says what the flows show.
 *
 * Only hosts that map to a node of the job count: a capture of some other
 * job in the same directory adds nothing.  Slow groups, slow iterations
 * and congestion are job-wide or shared by many hosts and are left to the
 * flows report.
 *
 * Loading is this file's too, for `diagnose` and `flows` alike: a job's
 * flow set is read from the cache while its captures are unchanged, and
 * otherwise read from the captures and kept there.  db/flowdb.c only
 * stores and loads rows; the stat of each capture and the decision are
 * made here.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/cache.h"

#include "diag/diag.h"
#include "flows/flowan.h"
#include "flows/flowasm.h"
#include "db/flowdb.h"
#include "db/jobdb.h"
#include "db/logdb.h"
#include "flows/flowjoin.h"
#include "diag/model.h"
#include "base/util.h"

/*
 * Evidence weights, combined with the logs' score as independent evidence
 * (1 - (1 - log)(1 - flows)): a measured straggler outweighs anything but
 * a node's own crash; a slow link is shared by its two ends; a slow NIC
 * (every link of one host slowing down together) is that host's own.
 */
#define JOIN_STRAGGLER 0.9
#define JOIN_SLOW_NIC 0.85
#define JOIN_SLOW_LINK 0.75

/* The host index whose address reads `s` (up to len bytes), or -1. */
static long
host_of(const struct flow_set *set, const char *s, size_t len)
{
	char buf[64];
	uint32_t h;

	for (h = 0; h < set->nhosts; h++) {
		flow_addr_str(&set->hosts[h], buf, sizeof buf);
		if (strlen(buf) == len && strncmp(buf, s, len) == 0)
			return (long)h;
	}
	return -1;
}

/* Hand one end of a finding to the scorer; 1 if the node is the job's. */
static int
give(struct diag_job *job, const struct flowan *fa, char **names, long h,
    double weight, const char *what)
{
	char *why;
	int rc;

	if (h < 0 || names == NULL || names[h] == NULL)
		return 0;
	why = xasprintf("%s (%s in the network captures)", what,
	    flowan_host_name(fa, (uint32_t)h));
	rc = diag_node_evidence(job, names[h], weight, why);
	free(why);
	return rc == 0;
}

/*
 * When the finding starts, on the logs' clock: "12:03:11 (iteration 7 of
 * the capture)".  The capture's iterations count from its first step
 * boundary, not from the job's first iteration.
 */
static char *
onset(const struct flowan_job *fj, const struct flowan_finding *f)
{
	char hms[32];

	if (f->from < 1 || (size_t)f->from > fj->niters)
		return xasprintf("iteration %d of the capture", f->from);
	diag_clock_str(fj->iters[f->from - 1].start, hms, sizeof hms);
	return xasprintf("%s (iteration %d of the capture)", hms, f->from);
}

static int
join_finding(struct diag_job *job, const struct flowan *fa,
    const struct flowan_job *fj, char **names,
    const struct flowan_finding *f)
{
	const struct flow_set *set = fa->set;
	const char *dash;
	char *what, *from = onset(fj, f);
	long a, b;
	int n = 0;

	if (f->kind == FLOWAN_STRAGGLER) {
		what = xasprintf("the network shows a straggler: its data-"
		    "parallel peers wait for it from %s, %.0f ms per "
		    "iteration", from, f->magnitude * 1000);
		n = give(job, fa, names, host_of(set, f->subject,
		    strlen(f->subject)), JOIN_STRAGGLER, what);
		free(what);
	} else if (f->kind == FLOWAN_SLOW_NIC) {
		what = xasprintf("the network shows a slow NIC: %s (from %s)",
		    f->nreasons > 0 ? f->reasons[0] : "all its links slow "
		    "down together", from);
		n = give(job, fa, names, host_of(set, f->subject,
		    strlen(f->subject)), JOIN_SLOW_NIC, what);
		free(what);
	} else if (f->kind == FLOWAN_SLOW_LINK &&
	    (dash = strchr(f->subject, '-')) != NULL) {
		a = host_of(set, f->subject, (size_t)(dash - f->subject));
		b = host_of(set, dash + 1, strlen(dash + 1));
		what = xasprintf("one end of a slow link (%s, from %s)",
		    f->nreasons > 0 ? f->reasons[0] : "slower than its peers",
		    from);
		n = give(job, fa, names, a, JOIN_SLOW_LINK, what);
		n += give(job, fa, names, b, JOIN_SLOW_LINK, what);
		free(what);
	}
	free(from);
	return n;
}

static void
warn_line(void *arg, const char *msg)
{
	if (arg != NULL)
		fprintf(arg, "trainscope: %s\n", msg);
}

/*
 * Keeping a job's flow set in the cache.  Captures are stored by their
 * real path, relative to the job's root when they lie under it; the
 * stored set stands for the captures while it was made with the same
 * parameters by this FLOW_ASM_VERSION from the same files, each with the
 * size and mtime it has now.
 */
static char *
rel_path(const char *root, const char *path)
{
	char real[PATH_MAX], rroot[PATH_MAX];
	const char *p = path;
	size_t n;

	if (realpath(path, real) != NULL)
		p = real;
	if (realpath(root, rroot) != NULL)
		root = rroot;
	n = strlen(root);
	if (n > 0 && strncmp(p, root, n) == 0 && p[n] == '/')
		return xstrdup(p + n + 1);
	return xstrdup(p);
}

/* Distinct paths among rel[0..n). */
static size_t
distinct(char *const *rel, size_t n)
{
	size_t i, j, d = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(rel[i], rel[j]) != 0; j++)
			;
		d += j == i;
	}
	return d;
}

/* 1 when `path` (stored as `rel`) is a capture of head as it is now. */
static int
unchanged(const struct flow_set *head, const char *path, const char *rel)
{
	struct stat sb;
	double mtime;
	size_t i;

	if (stat(path, &sb) != 0)
		return 0;
	mtime = (double)sb.st_mtim.tv_sec + sb.st_mtim.tv_nsec * 1e-9;
	for (i = 0; i < head->ncaps; i++)
		if (strcmp(head->caps[i].path, rel) == 0)
			return head->caps[i].size == (uint64_t)sb.st_size &&
			    fabs(head->caps[i].mtime - mtime) < 1e-6;
	return 0;
}

/* 1 when job's stored set stands for paths[0..n), 0 not, -1 *cause. */
static int
fresh(struct cache *c, const struct job_ref *job, char *const *paths,
    char *const *rel, size_t n, const struct flow_params *p, char **cause)
{
	struct flow_set head;
	struct flow_params sp;
	size_t i;
	int rc, version = 0;

	if ((rc = flowdb_captures(c, job->id, &head, &sp, &version,
	    cause)) != 1)
		return rc;
	rc = sp.idle_timeout == p->idle_timeout && sp.msg_gap == p->msg_gap &&
	    version == FLOW_ASM_VERSION && head.ncaps == distinct(rel, n);
	for (i = 0; rc == 1 && i < n; i++)
		rc = unchanged(&head, paths[i], rel[i]);
	flow_set_free(&head);
	return rc;
}

/* Pass *why to warn as "what: why" and drop it. */
static void
warn_why(void (*warn)(void *arg, const char *msg), void *warn_arg,
    const char *what, char **why)
{
	char *msg;

	if (warn != NULL && *why != NULL) {
		msg = xasprintf("%s: %s", what, *why);
		warn(warn_arg, msg);
		free(msg);
	}
	free(*why);
	*why = NULL;
}

/* Store set for job, its captures named as rel[0..n) (set->caps[i]). */
static int
keep(struct cache *c, const struct job_ref *job, const struct flow_set *set,
    char *const *rel, const struct flow_params *p, char **cause)
{
	struct flow_set kept = *set;
	size_t i;
	int rc;

	kept.caps = xcalloc(set->ncaps + 1, sizeof *kept.caps);
	for (i = 0; i < set->ncaps; i++) {
		kept.caps[i] = set->caps[i];
		kept.caps[i].path = rel[i];
	}
	rc = flowdb_store(c, job->id, &kept, p, cause);
	free(kept.caps);
	return rc;
}

/* flowjoin_load() with a cache and a job. */
static int
load_kept(struct cache *c, const struct job_ref *job, char *const *paths,
    size_t n, const struct flow_params *p,
    void (*warn)(void *arg, const char *msg), void *warn_arg,
    struct flow_set *set, char **cause)
{
	char **rel = xcalloc(n + 1, sizeof *rel), *why = NULL;
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		rel[i] = rel_path(job->root, paths[i]);
	if ((rc = fresh(c, job, paths, rel, n, p, &why)) == 1 &&
	    (rc = flowdb_load(c, job->id, set, NULL, &why)) == 1)
		rc = 0;
	else {
		if (rc < 0)	/* a stored set that cannot be read: made again */
			warn_why(warn, warn_arg, "cannot read flows from the "
			    "cache", &why);
		rc = flow_set_load(set, (const char *const *)paths, n, p, warn,
		    warn_arg, cause);
		if (rc == 0 && !cache_readonly(c) &&
		    keep(c, job, set, rel, p, &why) != 0)
			warn_why(warn, warn_arg, "cannot keep flows in the "
			    "cache", &why);
	}
	for (i = 0; i < n; i++)
		free(rel[i]);
	free(rel);
	return rc;
}

int
flowjoin_load(struct cache *c, const struct job_ref *job, char *const *paths,
    size_t n, const struct flow_params *p,
    void (*warn)(void *arg, const char *msg), void *warn_arg,
    struct flow_set *set, char **cause)
{
	struct flow_params dflt;

	if (p == NULL) {
		flow_params_default(&dflt);
		p = &dflt;
	}
	if (c == NULL || job == NULL)
		return flow_set_load(set, (const char *const *)paths, n, p,
		    warn, warn_arg, cause);
	return load_kept(c, job, paths, n, p, warn, warn_arg, set, cause);
}

/* The captures cannot be used: say so in the model too. */
static int
flows_error(struct model_flows *mf, char **cause)
{
	if (mf != NULL) {
		mf->present = 1;
		free(mf->error);
		mf->error = xstrdup(*cause);
	}
	return -1;
}

static int
cmp_path(const void *key, const void *elem)
{
	return strcmp(key, ((const struct logdb_file *)elem)->path);
}

/*
 * Whether the file at rel is one the index read as a log and holds
 * unchanged (its size, inode, mtime and ctime, as the index itself judges
 * it): discovery took it only after flow_probe() found no capture in it
 * (scan_sniff()), so probing it again finds none.  Not for a file that
 * is a log only because --log named it (found_kind 2: it may be a
 * capture), a row that does not say (-1), or one read while it was still
 * being written (a head hash): those are probed.
 */
static int
indexed_log(void *arg, const char *rel, const struct stat *sb)
{
	const struct job_ref *ref = arg;
	const struct logdb_file *f;
	double mtime, ctime;

	f = ref->nfiles == 0 ? NULL : bsearch(rel, ref->files, ref->nfiles,
	    sizeof *ref->files, cmp_path);
	if (f == NULL || (f->found_kind != 0 && f->found_kind != 1) ||
	    f->head != 0 || isnan(f->ctime))
		return 0;
	mtime = (double)sb->st_mtim.tv_sec + sb->st_mtim.tv_nsec / 1e9;
	ctime = (double)sb->st_ctim.tv_sec + sb->st_ctim.tv_nsec / 1e9;
	return f->size == (uint64_t)sb->st_size &&
	    f->inode == (uint64_t)sb->st_ino &&
	    fabs(f->mtime - mtime) < 1e-6 && fabs(f->ctime - ctime) < 1e-6;
}

int
flowjoin_captures(const struct job_ref *ref, const char *root,
    char ***paths, size_t *n, char **cause)
{
	if (ref == NULL || ref->root == NULL || strcmp(ref->root, root) != 0)
		return flow_find_captures(root, paths, n, cause);
	return flow_find_captures_but(root, indexed_log, (void *)ref, paths,
	    n, cause);
}

int
flowjoin_evidence(struct diag_job *job, struct cache *c,
    const struct job_ref *ref, FILE *warn, struct model_flows *mf,
    char **cause)
{
	struct flow_params fp;
	struct flowan_params ap;
	struct flow_set set;
	struct flowan fa;
	char **paths = NULL, **names;
	size_t np = 0, j, k;
	int given = 0;

	if (job->root == NULL)
		return 0;
	if (flowjoin_captures(ref, job->root, &paths, &np, cause) != 0)
		return flows_error(mf, cause);
	if (np == 0) {
		flow_paths_free(paths, np);
		return 0;
	}
	flow_params_default(&fp);
	flowan_params_default(&ap);
	if (flowjoin_load(c, ref, paths, np, &fp, warn_line, warn, &set,
	    cause) != 0) {
		flow_paths_free(paths, np);
		return flows_error(mf, cause);
	}
	flow_paths_free(paths, np);
	names = flowan_names_from_dir(&set, job->root);
	if (names != NULL) {
		if (flowan_analyse_named(&fa, &set, names, &ap, cause) != 0)
			given = flows_error(mf, cause);
		for (j = 0; given >= 0 && j < fa.njobs; j++)
			for (k = 0; k < fa.jobs[j].nfindings; k++)
				given += join_finding(job, &fa, &fa.jobs[j],
				    names, &fa.jobs[j].findings[k]);
		if (given >= 0 && mf != NULL)
			model_flows_fill(mf, &fa, names, job);
		if (given >= 0)
			flowan_free(&fa);
	} else if (mf != NULL) {
		if (flowan_analyse(&fa, &set, &ap, cause) != 0)
			given = flows_error(mf, cause);
		else {
			model_flows_fill(mf, &fa, NULL, job);
			flowan_free(&fa);
		}
	}
	flowan_names_free(names, set.nhosts);
	flow_set_free(&set);
	return given;
}
