/*
 * jobdb-t.c -- a job found once by name or by directory, with its files;
 * refreshed only when the cache changed; marked, given an outcome and
 * forgotten through the one module that owns the jobs table.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "db/jobdb.h"
#include "db/logdb.h"
#include "base/util.h"
#include "tap.h"

static char *
query_text(struct cache *c, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(cache_db(c), sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* The files row of job `job` at `path` now has `lines` lines. */
static int
add_file(struct logdb *db, int64_t job, const char *path, uint64_t lines)
{
	struct logdb_file f, old;
	char *cause = NULL;
	int rc;

	memset(&f, 0, sizeof f);
	if (logdb_file_get(db, job, path, &old, &cause) == 1) {
		f.id = old.id;
		free(old.path);
		free(old.found_node);
	}
	f.path = (char *)path;
	f.rank = -1;
	f.size = lines * 10;
	f.lines = lines;
	f.first_ts = f.last_ts = f.ctime = NAN;
	f.found_kind = -1;
	rc = logdb_file_put(db, job, &f, &cause);
	free(cause);
	return rc;
}

static void
test_find(struct cache *c, struct logdb *db, const char *root)
{
	struct job_ref r;
	char *cause = NULL, *dotted = xasprintf("%s/.", root), *s;
	int64_t id = 0, other = 0;

	ok(jobdb_index(c, "job1", root, &id, &cause) == 0 && id > 0,
	    "an index run makes the job");
	ok(add_file(db, id, "b.log", 20) == 0 && add_file(db, id, "a.log",
	    10) == 0, "two files indexed");
	ok(jobdb_find(c, "job1", &r, &cause) == 1 && r.id == id &&
	    strcmp(r.name, "job1") == 0 && strcmp(r.root, root) == 0 &&
	    r.has_logs && !isnan(r.indexed) && r.pending == 0,
	    "found by name: its row");
	ok(r.nfiles == 2 && strcmp(r.files[0].path, "a.log") == 0 &&
	    r.files[0].lines == 10 && strcmp(r.files[1].path, "b.log") == 0,
	    "and its files, by path");
	jobdb_release(&r);
	ok(jobdb_find(c, dotted, &r, &cause) == 1 && r.id == id,
	    "found by its directory, spelt another way");
	jobdb_release(&r);
	ok(jobdb_find(c, "nosuch", &r, &cause) == 0 && r.name == NULL &&
	    r.nfiles == 0, "an unknown job is not found");
	ok(jobdb_index(c, dotted, "/elsewhere", &other, &cause) == 0 &&
	    jobdb_find(c, dotted, &r, &cause) == 1 && r.id == other,
	    "a job's name wins over another job's root");
	jobdb_release(&r);
	ok(jobdb_index(c, "job1", root, &other, &cause) == 0 && other == id,
	    "indexing again keeps the job");
	ok(jobdb_root(c, "job1", &s, &cause) == 0 && s != NULL &&
	    strcmp(s, root) == 0, "its root by name");
	free(s);
	ok(jobdb_root(c, "nosuch", &s, &cause) == 0 && s == NULL,
	    "no root for no job");
	free(dotted);
}

static void
test_refresh(struct cache *c, struct logdb *db)
{
	struct job_ref r;
	char *cause = NULL;

	if (jobdb_find(c, "job1", &r, &cause) != 1)
		return;
	ok(jobdb_refresh(c, &r, &cause) == 0 && r.nfiles == 2,
	    "nothing new: the ref stays");
	ok(add_file(db, r.id, "c.log", 5) == 0 &&
	    jobdb_refresh(c, &r, &cause) == 1 && r.nfiles == 3 &&
	    strcmp(r.files[2].path, "c.log") == 0,
	    "a file indexed since: the ref has it");
	ok(add_file(db, r.id, "c.log", 9) == 0 &&
	    jobdb_refresh(c, &r, &cause) == 1 && r.files[2].lines == 9,
	    "a file that grew: the ref has its new length");
	ok(logdb_job_pending(db, r.id, 5, &cause) == 0 &&
	    jobdb_refresh(c, &r, &cause) == 1 && r.pending == 5,
	    "an index run under way shows");
	ok(logdb_job_pending(db, r.id, -1, &cause) == 0 &&
	    jobdb_refresh(c, &r, &cause) == 1 && r.pending == 0,
	    "and its end");
	jobdb_release(&r);
}

static void
test_rows(struct cache *c, struct logdb *db)
{
	struct job_ref r;
	char *cause = NULL, *s = NULL;

	ok(jobdb_mark(c, "job1", "good", &cause) == 0 &&
	    (s = query_text(c, "SELECT marked FROM jobs WHERE name = 'job1'"))
	    != NULL && strcmp(s, "good") == 0, "marked good");
	free(s);
	ok(jobdb_mark(c, "nosuch", "bad", &cause) == -1 &&
	    strstr(cause, "no job 'nosuch'") != NULL, "marking no job fails");
	free(cause);
	cause = NULL;
	if (jobdb_find(c, "job1", &r, &cause) != 1)
		return;
	s = NULL;
	ok(jobdb_set_outcome(c, r.id, "failed", &cause) == 0 &&
	    (s = query_text(c, "SELECT outcome FROM jobs WHERE name = 'job1'"))
	    != NULL && strcmp(s, "failed") == 0, "an outcome by id");
	free(s);
	logdb_job_pending(db, r.id, 5, &cause);
	ok(jobdb_forget(c, "job1", &cause) == 1, "forgotten");
	ok((s = query_text(c, "SELECT count(*) FROM files")) != NULL &&
	    strcmp(s, "0") == 0, "with its files");
	free(s);
	ok((s = query_text(c, "SELECT count(*) FROM meta WHERE key LIKE "
	    "'index-pending:%'")) != NULL && strcmp(s, "0") == 0,
	    "and its unfinished index run");
	free(s);
	ok(jobdb_refresh(c, &r, &cause) == -1 &&
	    strstr(cause, "no longer") != NULL && r.nfiles == 3,
	    "a ref of a forgotten job cannot be refreshed, and stays");
	free(cause);
	cause = NULL;
	ok(jobdb_forget(c, "job1", &cause) == 0, "forgetting twice: no job");
	jobdb_release(&r);
}

int
main(void)
{
	char dir[] = "/tmp/jobdb-t.XXXXXX", real[PATH_MAX], *path, *root;
	char *cause = NULL;
	struct cache *c;
	struct logdb *db;

	if (mkdtemp(dir) == NULL || realpath(dir, real) == NULL)
		return 1;
	path = xasprintf("%s/c.db", real);
	root = xasprintf("%s/job1", real);
	mkdir(root, 0777);
	ok(cache_open(path, 0, &c, &cause) == 0 &&
	    logdb_open(c, &db, &cause) == 0, "cache opened");
	test_find(c, db, root);
	test_refresh(c, db);
	test_rows(c, db);
	logdb_free(db);
	cache_close(c);
	unlink(path);
	rmdir(root);
	rmdir(real);
	free(path);
	free(root);
	return done_testing();
}
