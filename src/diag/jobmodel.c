/*
 * jobmodel.c -- the model of a job, from the cache (see jobmodel.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db/cache.h"
#include "view/canvas.h"
#include "db/diagdb.h"
#include "db/jobdb.h"
#include "db/logdb.h"
#include "diag/diag.h"
#include "diag/faults.h"
#include "flows/flowjoin.h"
#include "diag/jobload.h"
#include "diag/jobmodel.h"
#include "diag/model.h"
#include "base/util.h"

/* Where warnings go, and the command they name. */
struct say {
	FILE *err;		/* NULL: nowhere */
	const char *cmd;	/* NULL: none */
};

static int compute(struct cache *c, const struct job_ref *ref,
    const char *const *baselines, size_t nbase, int flags,
    const struct faults *fl, const struct say *say, struct model **out,
    char **cause);

static void
warn(const struct say *say, const char *fmt, const char *what)
{
	char *msg;

	if (say->err != NULL) {
		fprintf(say->err, "trainscope: %s%s", say->cmd != NULL ?
		    say->cmd : "", say->cmd != NULL ? ": " : "");
		msg = xasprintf(fmt, what);	/* paths and names: inert */
		canvas_fput(say->err, msg);
		free(msg);
		fputc('\n', say->err);
	}
}

/* FNV-1a, 64 bits, continued from h. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n-- > 0) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t
fnv_str(uint64_t h, const char *s)
{
	return fnv(h, s != NULL ? s : "", s != NULL ? strlen(s) + 1 : 1);
}

/* What the job's files look like on disk now, against the index. */
struct ondisk {
	const char *root;
	uint64_t h;		/* hash of each file's state */
	size_t files, missing, changed;
	char *first_missing;
	uint64_t names;		/* hosts_state() of its directory now */
	int have_root;		/* the directory is there */
};

static void
file_state(struct ondisk *d, const char *path, int64_t size, double mtime)
{
	struct stat sb;
	char *full = xasprintf("%s/%s", d->root, path);
	int64_t now_size = -1;
	double now_mtime = 0;

	d->files++;
	if (stat(full, &sb) != 0) {
		/* hashed as indexed: the model made while it was there holds */
		d->missing++;
		if (d->first_missing == NULL)
			d->first_missing = xstrdup(path);
		now_size = size;
		now_mtime = mtime;
	} else {
		now_size = (int64_t)sb.st_size;
		now_mtime = (double)sb.st_mtim.tv_sec +
		    (double)sb.st_mtim.tv_nsec / 1e9;
		if (now_size != size || (int64_t)now_mtime != (int64_t)mtime)
			d->changed++;
	}
	d->h = fnv(d->h, &now_size, sizeof now_size);
	d->h = fnv(d->h, &now_mtime, sizeof now_mtime);
	free(full);
}

/*
 * A hosts file at the top of the job's directory names the captures'
 * hosts (flownames.c): the model rests on it too.  It is no file of the
 * index, so its state is kept in the model and checked while the
 * directory is there (a job whose directory is gone keeps its model).
 */
static uint64_t
hosts_state(const char *root, int *have_root)
{
	static const char *const names[] = { "hosts", "hostfile" };
	uint64_t h = 0xcbf29ce484222325ULL;
	struct stat sb;
	size_t i;
	char *p;

	*have_root = root != NULL && stat(root, &sb) == 0;
	for (i = 0; root != NULL && i < TS_NELEM(names); i++) {
		int64_t size = -1;
		double mtime = 0;

		p = xasprintf("%s/%s", root, names[i]);
		if (stat(p, &sb) == 0) {
			size = (int64_t)sb.st_size;
			mtime = (double)sb.st_mtim.tv_sec +
			    (double)sb.st_mtim.tv_nsec / 1e9;
		}
		h = fnv(h, &size, sizeof size);
		h = fnv(h, &mtime, sizeof mtime);
		free(p);
	}
	return h;
}

/* Each of the job's files as it is on disk now, against its ref. */
static void
files_state(const struct job_ref *job, struct ondisk *d)
{
	const struct logdb_file *f;
	size_t i;

	for (i = 0; i < job->nfiles; i++) {
		f = &job->files[i];
		file_state(d, f->path, (int64_t)f->size, f->mtime);
	}
}

/*
 * The key of a model: everything it is computed from.  The trainscope
 * version and the checksum of the sources it was built from, the
 * encoding, the options, the fault library as loaded (the
 * user's rules included), and the cache's description of the job, its
 * files, captures, mark and healthy pool (diagdb_stamp()).  Returns 0,
 * or -1 with *cause.
 */
static int
model_key(struct cache *c, const struct job_ref *job, int flags,
    const struct faults *f, struct ondisk *disk, char *key, size_t len,
    char **cause)
{
	struct buf b;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	int rc;

	h = fnv_str(h, PACKAGE_VERSION);
	h = fnv_str(h, ts_source_id);
	h = fnv_str(h, "model-format-6");
	h = fnv(h, &diag_revision, sizeof diag_revision);
	h = fnv(h, &flags, sizeof flags);
	for (i = 0; i < faults_count(f); i++) {
		const struct fault_rule *r = faults_rule(f, i);

		h = fnv_str(h, r->name);
		h = fnv_str(h, r->pattern);
		h = fnv_str(h, r->category);
		h = fnv_str(h, r->explain);
		h = fnv_str(h, r->action);
	}
	buf_init(&b);
	rc = diagdb_stamp(c, job->id, &b, cause);
	if (rc == 0)
		h = fnv(h, buf_str(&b), b.len);
	buf_release(&b);
	/* files that vanished or changed since they were indexed */
	disk->root = job->root;
	disk->h = h;
	if (rc == 0)
		files_state(job, disk);
	h = disk->h;
	disk->names = hosts_state(job->root, &disk->have_root);
	disk->root = NULL;
	snprintf(key, len, "%016llx", (unsigned long long)h);
	return rc;
}

/*
 * An index run of the job that stopped before the end, or could not read
 * some of its files: say what the model rests on.
 */
static void
note_pending(const struct job_ref *job, struct model *m)
{
	long have = (long)job->nfiles;

	if (have < job->pending)
		model_note(m, "index incomplete: %ld of %ld files (an index run "
		    "stopped before the end or could not read them all: index "
		    "the job again)", have, job->pending);
}

/*
 * What job_model_kept() read, for its caller to hand to the
 * job_model_ref_kept() of the same job: the model is then not decoded
 * again, nor the fault library loaded again.
 */
struct job_kept {
	char *path;		/* its cache's cache_path() */
	int64_t id;		/* its job */
	char key[32];		/* the key the model was kept under */
	struct faults *fl;	/* the library the key was made with */
	struct model *m;	/* NULL once taken */
};

void
job_kept_free(struct job_kept *k)
{
	if (k == NULL)
		return;
	free(k->path);
	faults_free(k->fl);
	model_free(k->m);
	free(k);
}

/* kept, when it was read of job in cache c; else NULL (it is freed). */
static struct job_kept *
kept_of(struct job_kept *kept, struct cache *c, const struct job_ref *job)
{
	if (kept != NULL && (kept->id != job->id ||
	    strcmp(kept->path, cache_path(c)) != 0)) {
		job_kept_free(kept);
		kept = NULL;
	}
	return kept;
}

/*
 * The model kept under `key`, decoded, when there is one and the hosts
 * file it rests on is unchanged: 1 and *out, else 0.
 */
/* Does model m rest on the hosts file as it is now? */
static int
hosts_stand(const struct model *m, const struct ondisk *disk)
{
	return !disk->have_root || m->names_stamp == disk->names;
}

static int
fetch_kept(struct cache *c, const struct job_ref *job, const char *key,
    const struct ondisk *disk, struct model **out)
{
	void *blob = NULL;
	size_t len = 0;
	char *why = NULL;

	if (diagdb_result_get(c, job->id, key, &blob, &len, &why) == 1 &&
	    (*out = model_decode(blob, len)) != NULL &&
	    !hosts_stand(*out, disk)) {
		model_free(*out);	/* a hosts file changed */
		*out = NULL;
	}
	free(blob);
	free(why);
	return *out != NULL;
}

/*
 * The model kept under `key` (the one job_model_kept() read, in kept,
 * when the key is still the one it was read under; else read now), with
 * what it says of the files now: 1 and *out, else 0.
 */
static int
read_kept(struct cache *c, const struct job_ref *job, const char *key,
    const struct ondisk *disk, const struct say *say,
    struct job_kept *kept, struct model **out)
{
	*out = NULL;
	if (kept != NULL && kept->m != NULL && strcmp(kept->key, key) == 0) {
		/* the blob fetch_kept() would read and decode again */
		if (!hosts_stand(kept->m, disk))
			return 0;
		*out = kept->m;
		kept->m = NULL;
	} else if (!fetch_kept(c, job, key, disk, out))
		return 0;
	if ((*out)->flows.error != NULL)
		warn(say, "captures left out: %s", (*out)->flows.error);
	if (disk->missing > 0)
		model_note(*out, "%zu of %zu files are gone since they were "
		    "indexed (%s first): this is the diagnosis made while they "
		    "were there", disk->missing, disk->files,
		    disk->first_missing);
	return 1;
}

/* Keep a model computed now under `key`. */
static void
keep(struct cache *c, const struct job_ref *job, const char *key,
    const struct model *m, const struct say *say)
{
	unsigned char *bytes;
	size_t len;
	char *why = NULL;

	model_encode(m, &bytes, &len);
	if (diagdb_result_put(c, job->id, key, bytes, len, &why) != 0) {
		warn(say, "the results were not kept: %s", why);
		free(why);
	}
	free(bytes);
}

/* What a model computed now says of the job's files and index. */
static void
note_disk(const struct job_ref *job, const struct ondisk *disk,
    struct model *m)
{
	m->names_stamp = disk->names;
	if (disk->missing > 0)
		model_note(m, "%zu of %zu files are gone since they were "
		    "indexed (%s first): the diagnosis has only what the index "
		    "kept of them", disk->missing, disk->files,
		    disk->first_missing);
	if (disk->changed > 0)
		model_note(m, "%zu of %zu files changed since they were "
		    "indexed: index the job again to see what is new",
		    disk->changed, disk->files);
	note_pending(job, m);
}

int
job_model(struct cache *c, const char *name, const char *const *baselines,
    size_t nbase, int flags, FILE *err, const char *cmd, struct model **out,
    char **cause)
{
	struct job_ref job;
	int rc;

	*out = NULL;
	if ((rc = jobdb_find(c, name, &job, cause)) <= 0)
		return rc < 0 ? -1 : ts_fail(cause, "no job '%s' (index it "
		    "first)", name);
	rc = job_model_ref(c, &job, baselines, nbase, flags, err, cmd, out,
	    cause);
	jobdb_release(&job);
	return rc;
}

int
job_model_kept(struct cache *c, const struct job_ref *job, int flags,
    FILE *err, const char *cmd, struct job_kept **out)
{
	struct say say = { err, cmd };
	struct faults *fl = faults_default();
	struct job_kept *k;
	struct ondisk disk;
	struct model *m = NULL;
	char key[32], *why = NULL;
	size_t i;
	int kept = 0;

	if (out != NULL)
		*out = NULL;
	memset(&disk, 0, sizeof disk);
	if (!(flags & (JOBMODEL_FRESH | JOBMODEL_LIVE)) &&
	    model_key(c, job, flags, fl, &disk, key, sizeof key, &why) == 0)
		kept = fetch_kept(c, job, key, &disk, &m);
	for (i = 0; !kept && i < faults_nerrors(fl); i++)
		warn(&say, "%s", faults_error(fl, i));
	free(why);
	free(disk.first_missing);
	if (kept && out != NULL) {
		k = xcalloc(1, sizeof *k);
		k->path = xstrdup(cache_path(c));
		k->id = job->id;
		snprintf(k->key, sizeof k->key, "%s", key);
		k->fl = fl;
		k->m = m;
		*out = k;
		return 1;
	}
	model_free(m);
	faults_free(fl);
	return kept;
}

int
job_model_ref(struct cache *c, const struct job_ref *job,
    const char *const *baselines, size_t nbase, int flags, FILE *err,
    const char *cmd, struct model **out, char **cause)
{
	return job_model_ref_kept(c, job, baselines, nbase, flags, err, cmd,
	    NULL, out, cause);
}

int
job_model_ref_kept(struct cache *c, const struct job_ref *job,
    const char *const *baselines, size_t nbase, int flags, FILE *err,
    const char *cmd, struct job_kept *kept, struct model **out,
    char **cause)
{
	struct say say = { err, cmd };
	struct faults *fl;
	struct ondisk disk;
	char key[32], *why = NULL;
	size_t i;
	int keyed = 0, rc;

	*out = NULL;
	if ((kept = kept_of(kept, c, job)) != NULL) {
		fl = kept->fl;		/* loaded once */
		kept->fl = NULL;
	} else
		fl = faults_default();
	for (i = 0; i < faults_nerrors(fl); i++)
		warn(&say, "%s", faults_error(fl, i));
	/* explicit baselines are not part of the key: computed every time */
	memset(&disk, 0, sizeof disk);
	if (nbase == 0 && !(flags & (JOBMODEL_FRESH | JOBMODEL_LIVE)) &&
	    model_key(c, job, flags, fl, &disk, key, sizeof key, &why) == 0) {
		keyed = 1;
		if (read_kept(c, job, key, &disk, &say, kept, out)) {
			job_kept_free(kept);
			free(disk.first_missing);
			faults_free(fl);
			return 0;
		}
	}
	job_kept_free(kept);
	free(why);
	rc = compute(c, job, baselines, nbase, flags, fl, &say, out, cause);
	faults_free(fl);
	if (rc == 0)
		note_disk(job, &disk, *out);
	free(disk.first_missing);
	if (rc == 0 && cache_readonly(c))
		warn(&say, "cache '%s' is read-only here: the outcome and the "
		    "diagnosis are not kept", cache_path(c));
	else if (rc == 0 && keyed && disk.missing == 0)
		/* (made without some files: never kept, or it would stand
		 * for them once they are back) */
		keep(c, job, key, *out, &say);
	return rc;
}

/*
 * The time now on the job's logs' clock: its newest file's last line
 * time, plus how long ago that file was written.  0 when unknown.
 */
static double
logs_now(const struct job_ref *ref)
{
	const struct logdb_file *f = NULL;
	size_t i;

	for (i = 0; i < ref->nfiles; i++)
		if (!isnan(ref->files[i].last_ts) && (f == NULL ||
		    ref->files[i].mtime > f->mtime))
			f = &ref->files[i];
	if (f == NULL)
		return 0;
	return f->last_ts + (ts_wallclock() - f->mtime);
}

static int
compute(struct cache *c, const struct job_ref *ref,
    const char *const *baselines, size_t nbase, int flags,
    const struct faults *fl, const struct say *say, struct model **out,
    char **cause)
{
	struct diag_opts o = { 1, NULL, 0 };
	struct model_flows mf;
	struct diag_job *job = NULL;
	struct diag_result *r;
	char *why = NULL;

	*out = NULL;
	memset(&mf, 0, sizeof mf);
	if (flags & JOBMODEL_LIVE)
		o.now = logs_now(ref);
	if (jobload(c, ref, baselines, nbase, &job, cause) != 0)
		return -1;
	o.faults = fl;
	if (!(flags & JOBMODEL_NO_FLOWS) &&
	    flowjoin_evidence(job, c, ref, say->err, &mf, &why) < 0) {
		warn(say, "captures left out: %s", why);
		free(why);
		why = NULL;
	}
	r = diag_run(job, &o);
	*out = model_build(job, r, &mf);
	if (!cache_readonly(c) && jobload_store(c, ref, job, r, &why) != 0) {
		warn(say, "the outcome was not saved: %s", why);
		free(why);
	}
	diag_result_free(r);
	diag_job_free(job);
	model_flows_release(&mf);
	return 0;
}
