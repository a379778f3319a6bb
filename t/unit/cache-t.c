/*
 * cache-t.c -- opening, migrating and refusing cache files, and several
 * processes writing to one cache at once.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "base/util.h"
#include "tap.h"

static char dir[] = "/tmp/cache-t.XXXXXX";

static char *
path_in(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static long long
query_int(struct cache *c, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(cache_db(c), sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void
write_file(const char *path, const char *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	fwrite(data, 1, n, f);
	fclose(f);
}

static void
test_create(void)
{
	char *p = path_in("sub/dir/new.db"), *cause = NULL;
	struct cache *c;
	struct cache_info info;

	ok(cache_open(p, 0, &c, &cause) == 0, "a new cache is created, "
	    "parent directories too");
	is_int(query_int(c, "PRAGMA user_version"), cache_schema_version(),
	    "user_version is the current schema");
	is_int(query_int(c, "PRAGMA application_id"), CACHE_APP_ID,
	    "application_id marks it as ours");
	ok(sqlite3_exec(cache_db(c), "PRAGMA journal_mode", NULL, NULL, NULL)
	    == SQLITE_OK && query_int(c, "SELECT count(*) FROM jobs") == 0,
	    "schema applied");
	ok(cache_get_info(c, &info, &cause) == 0 && info.jobs == 0 &&
	    info.schema == cache_schema_version(), "cache_get_info");
	cache_close(c);
	ok(cache_open(p, 0, &c, &cause) == 0, "reopening works");
	cache_close(c);
	ok(cache_open(p, CACHE_READONLY, &c, &cause) == 0, "read-only open");
	cache_close(c);
	free(p);
}

static void
test_refuse(void)
{
	char *p, *cause = NULL;
	struct cache *c;
	sqlite3 *db;

	p = path_in("garbage.db");
	write_file(p, "this is not a database at all, just text\n", 41);
	ok(cache_open(p, 0, &c, &cause) == -1, "a text file is refused");
	ok(cause != NULL && strstr(cause, "is not a trainscope cache") &&
	    strstr(cause, p), "message names the file and the problem");
	free(p);

	p = path_in("foreign.db");
	sqlite3_open(p, &db);
	sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)", NULL,
	    NULL, NULL);
	sqlite3_close(db);
	ok(cache_open(p, 0, &c, &cause) == -1, "another program's database "
	    "is refused");
	ok(cause != NULL && strstr(cause, "another program's SQLite database"),
	    "and says so");
	sqlite3_open(p, &db);
	ok(sqlite3_exec(db, "SELECT x FROM t", NULL, NULL, NULL) == SQLITE_OK,
	    "and is left untouched");
	sqlite3_close(db);
	free(p);

	p = path_in("newer.db");
	ok(cache_open(p, 0, &c, &cause) == 0, "make a cache");
	sqlite3_exec(cache_db(c), "PRAGMA user_version = 999", NULL, NULL, NULL);
	cache_close(c);
	ok(cache_open(p, 0, &c, &cause) == -1, "a newer schema is refused");
	ok(cause != NULL && strstr(cause, "newer trainscope") &&
	    strstr(cause, "schema 999"), "and the message says why");
	free(p);

	p = path_in("truncated.db");
	ok(cache_open(p, 0, &c, &cause) == 0, "make another cache");
	cache_close(c);
	{
		FILE *f = fopen(p, "r+b");
		char page[4096];

		memset(page, 0x5a, sizeof page);
		fseek(f, 100, SEEK_SET);
		fwrite(page, 1, sizeof page, f);
		fclose(f);
	}
	ok(cache_open(p, 0, &c, &cause) == -1, "a damaged cache is refused");
	ok(cause != NULL && strstr(cause, p) != NULL, "naming the file");
	ok(cause != NULL && strstr(cause, "is damaged") &&
	    strstr(cause, "remove it"), "ours (its header says so): remove it");
	free(p);

	p = path_in("notours.db");
	write_file(p, "SQLite format 3\0and then anything at all, for a page "
	    "or two of bytes that are not a database", 92);
	ok(cache_open(p, 0, &c, &cause) == -1, "a file with only SQLite's "
	    "magic is refused");
	ok(cause != NULL && strstr(cause, "not a trainscope cache") &&
	    strstr(cause, "remove") == NULL, "and not advised away");
	free(p);

	p = path_in("adir");
	ok(mkdir(p, 0700) == 0 && cache_open(p, 0, &c, &cause) == -1,
	    "a directory is refused");
	ok(cause != NULL && strstr(cause, "is a directory, not a file"),
	    "and says so");
	free(p);
	free(cause);
}

/* Each child adds `rows` jobs in small transactions. */
static int
child(const char *p, int id, int rows)
{
	struct cache *c;
	char *cause = NULL, *sql;
	int i;

	if (cache_open(p, 0, &c, &cause) != 0) {
		fprintf(stderr, "child %d: %s\n", id, cause);
		return 1;
	}
	for (i = 0; i < rows; i++) {
		sql = xasprintf("INSERT INTO jobs(name, root, created) VALUES "
		    "('c%d-%d', '/x', %d)", id, i, i);
		if (cache_begin(c, &cause) != 0 ||
		    cache_exec(c, sql, &cause) != 0 ||
		    cache_commit(c, &cause) != 0) {
			fprintf(stderr, "child %d: %s\n", id, cause);
			return 1;
		}
		free(sql);
	}
	cache_close(c);
	return 0;
}

static void
test_concurrent(void)
{
	char *p = path_in("shared.db"), *cause = NULL;
	enum { NPROC = 6, ROWS = 40 };
	struct cache *c;
	pid_t pids[NPROC];
	int i, status, good = 1;

	for (i = 0; i < NPROC; i++) {
		if ((pids[i] = fork()) == 0)
			_exit(child(p, i, ROWS));
	}
	for (i = 0; i < NPROC; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			good = 0;
	}
	ok(good, "six processes create and write one cache at once");
	ok(cache_open(p, 0, &c, &cause) == 0, "the cache opens afterwards");
	is_int(query_int(c, "SELECT count(*) FROM jobs"), NPROC * ROWS,
	    "no write was lost");
	ok(query_int(c, "SELECT count(*) FROM pragma_integrity_check "
	    "WHERE integrity_check != 'ok'") == 0, "integrity check passes");
	cache_close(c);
	free(p);
}

static off_t
file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? sb.st_size : -1;
}

/*
 * cache_checkpoint_behind(): a commit that leaves 8 MB in the WAL returns
 * with the database file still small; the thread copies it in, and
 * nothing is lost across a close.
 */
static void
test_behind(void)
{
	char *p = path_in("behind.db"), *wal = path_in("behind.db-wal");
	char *cause = NULL;
	struct cache *c;
	int i, rc = 0;
	off_t before;

	ok(cache_open(p, 0, &c, &cause) == 0, "a cache to write");
	cache_checkpoint_behind(c);
	cache_checkpoint_behind(c);	/* twice: one thread */
	before = file_size(p);
	rc |= cache_exec(c, "CREATE TABLE big(x BLOB); BEGIN", &cause);
	for (i = 0; i < 2048 && rc == 0; i++)
		rc |= cache_exec(c, "INSERT INTO big VALUES (randomblob(4000))",
		    &cause);
	rc |= cache_commit(c, &cause);
	ok(rc == 0, "2 048 pages written in one transaction");
	/* the thread copies them in: wait for it, ten seconds at most */
	for (i = 0; i < 1000 && file_size(p) < before + 2048 * 4000; i++)
		usleep(10000);
	ok(file_size(p) >= before + 2048 * 4000,
	    "the WAL is copied into the database behind the commit");
	is_int(query_int(c, "SELECT count(*) FROM big"), 2048,
	    "the writer reads its rows meanwhile");
	cache_close(c);
	ok(access(wal, F_OK) != 0, "closing removes the WAL");
	ok(cache_open(p, CACHE_READONLY, &c, &cause) == 0, "reopened");
	cache_checkpoint_behind(c);	/* read-only: nothing to do */
	is_int(query_int(c, "SELECT count(*) FROM big"), 2048,
	    "no row was lost");
	ok(query_int(c, "SELECT count(*) FROM pragma_integrity_check "
	    "WHERE integrity_check != 'ok'") == 0, "integrity check passes");
	cache_close(c);
	free(wal);
	free(p);
}

/*
 * cache_prepare_kept(): one statement per SQL string, reset each time;
 * past eight, the oldest idle one goes, never one being stepped.
 */
static void
test_kept(void)
{
	static const char *const sql[] = {
		"SELECT 0 FROM jobs", "SELECT 1 FROM jobs", "SELECT 2 FROM jobs",
		"SELECT 3 FROM jobs", "SELECT 4 FROM jobs", "SELECT 5 FROM jobs",
		"SELECT 6 FROM jobs", "SELECT 7 FROM jobs", "SELECT 8 FROM jobs",
		"SELECT 9 FROM jobs",
	};
	char *p = path_in("kept.db"), *cause = NULL;
	sqlite3_stmt *a, *b, *st[10];
	struct cache *c;
	int i, rc = 0;

	ok(cache_open(p, 0, &c, &cause) == 0 && cache_exec(c, "INSERT INTO "
	    "jobs (name, root, created) VALUES ('a', '/a', 0), "
	    "('b', '/b', 0)", &cause) == 0, "a cache of two jobs");
	ok(cache_prepare_kept(c, sql[0], &a, &cause) == 0 &&
	    sqlite3_step(a) == SQLITE_ROW && cache_prepare_kept(c, sql[0],
	    &b, &cause) == 0 && a == b && sqlite3_step(b) == SQLITE_ROW &&
	    sqlite3_step(b) == SQLITE_ROW, "the same statement, reset");
	sqlite3_reset(b);
	/* the first one busy, then nine more: the idle ones make room */
	ok(cache_prepare_kept(c, sql[0], &a, &cause) == 0 &&
	    sqlite3_step(a) == SQLITE_ROW, "one statement being stepped");
	for (i = 1; i < 10; i++)
		rc |= cache_prepare_kept(c, sql[i], &st[i], &cause);
	ok(rc == 0, "ten statements kept in turn");
	is_int(sqlite3_step(a), SQLITE_ROW, "the busy one was kept");
	sqlite3_reset(a);
	/* eight busy: a ninth is refused, and says why */
	for (i = 0, rc = 0; i < 8; i++)
		rc |= cache_prepare_kept(c, sql[i], &st[i], &cause) != 0 ||
		    sqlite3_step(st[i]) != SQLITE_ROW;
	ok(rc == 0, "eight statements being stepped");
	ok(cache_prepare_kept(c, sql[8], &st[8], &cause) == -1 &&
	    cause != NULL && strstr(cause, "statements in use") != NULL,
	    "a ninth is refused");
	free(cause);
	cause = NULL;
	for (i = 0; i < 8; i++)
		sqlite3_reset(st[i]);
	cache_close(c);
	free(p);
}

/* A cache of schema 1 (before flow_sets.asm_version) is brought up to date. */
static void
test_migrate(void)
{
	struct cache *c;
	char *p = path_in("old.db"), *cause = NULL;

	ok(cache_open(p, 0, &c, &cause) == 0, "make a cache to age");
	ok(cache_exec(c, "INSERT INTO jobs (name, root, created) VALUES "
	    "('j', '/r', 0); INSERT INTO flow_sets (job_id, idle_timeout, "
	    "msg_gap, records, flows, bytes, pkts, ack_pkts, ack_bytes, "
	    "warnings) VALUES (1, 2, 0.001, 0, 0, 0, 0, 0, 0, 0); "
	    "ALTER TABLE flow_sets DROP COLUMN asm_version; "
	    "DROP TABLE results; DROP TABLE baselines; ALTER TABLE files DROP "
	    "COLUMN found_node; ALTER TABLE files DROP COLUMN found_rank; "
	    "ALTER TABLE files DROP COLUMN found_kind; ALTER TABLE files DROP "
	    "COLUMN ctime; ALTER TABLE files DROP COLUMN head; "
	    "PRAGMA user_version = 1",
	    &cause) == 0, "now it is schema 1");
	cache_close(c);
	if (!ok(cache_open(p, 0, &c, &cause) == 0, "a schema-1 cache opens")) {
		printf("#   %s\n", cause);
		free(p);
		free(cause);
		return;
	}
	is_int(query_int(c, "PRAGMA user_version"), cache_schema_version(),
	    "and is migrated");
	is_int(query_int(c, "SELECT asm_version FROM flow_sets"), 0,
	    "its flow set reads as made by no known assembler");
	cache_close(c);
	free(p);
	free(cause);
}

int
main(void)
{
	char *cmd;

	if (mkdtemp(dir) == NULL)
		return 1;
	test_create();
	test_refuse();
	test_concurrent();
	test_behind();
	test_kept();
	test_migrate();
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	return done_testing();
}
