/*
 * cache.c -- opening the cache file safely.
 *
 * Opening is the dangerous moment: the file may be missing (create it),
 * empty (apply the schema), ours at an older version (migrate), ours at a
 * newer version (refuse), somebody else's SQLite database or not SQLite at
 * all (refuse), or being opened by another trainscope at the same instant
 * (wait for it).  Migration runs inside BEGIN IMMEDIATE and re-reads
 * user_version after taking the lock, so two processes never migrate twice.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "base/util.h"

#define CACHE_KEPT 8		/* statements kept prepared at most */

struct cache {
	sqlite3 *db;
	char *path;
	int readonly;		/* opened for reading only */
	int ours;		/* its header names trainscope: damage may be fixed
				   by removing it */
	double busy_since;	/* when the current wait for a lock began */
	FILE *trace;		/* TS_SQL_TRACE: every statement run, or NULL */
	struct behind *behind;	/* checkpoints on a thread, or NULL */
	struct kept {		/* cache_prepare_kept() */
		const char *sql;
		sqlite3_stmt *st;
	} kept[CACHE_KEPT];
	size_t nkept;
};

/*
 * Checkpoints behind the writer (cache_checkpoint_behind()): a thread of
 * its own, on a connection of its own, copies the WAL into the database
 * when a commit leaves it past CKPT_FRAMES pages, SQLite's own automatic
 * threshold.  Done in the commit, as SQLite does by default, it cost the
 * writer two fdatasync()s and the copy while every other thread waited
 * for the next step (20-30 ms at the end of indexing a 1 GB job).
 */
#define CKPT_FRAMES 1000

struct behind {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sqlite3 *db;
	int wanted, closing;
};

/* Generated from db/schema.sql and db/migrate-N.sql by make. */
extern const char cache_schema_sql[];
extern const char cache_migrate_2_sql[];
extern const char cache_migrate_3_sql[];
extern const char cache_migrate_4_sql[];
extern const char cache_migrate_5_sql[];

/* migrations[i] takes a cache from version i to i + 1. */
static const char *const *
migrations(size_t *n)
{
	static const char *m[5];

	m[0] = cache_schema_sql;
	m[1] = cache_migrate_2_sql;
	m[2] = cache_migrate_3_sql;
	m[3] = cache_migrate_4_sql;
	m[4] = cache_migrate_5_sql;
	*n = TS_NELEM(m);
	return m;
}

int
cache_schema_version(void)
{
	size_t n;

	migrations(&n);
	return (int)n;
}

#define BUSY_TIMEOUT_MS 30000
#define BUSY_POLL_US	1000

char *
cache_default_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		return xasprintf("%s/trainscope/cache.db", xdg);
	if (home != NULL && home[0] != '\0')
		return xasprintf("%s/.cache/trainscope/cache.db", home);
	return xstrdup("trainscope-cache.db");
}

/* mkdir -p for the directory part of `path`. */
static int
make_parent(const char *path, char **cause)
{
	char *dir = xstrdup(path), *p;
	int rc = 0;

	for (p = dir + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
			rc = ts_fail(cause, "cannot create '%s': %s", dir,
			    strerror(errno));
			break;
		}
		*p = '/';
	}
	free(dir);
	return rc;
}

/* Is `path` the default cache (which only trainscope should have made)? */
static int
is_default(const char *path)
{
	char *d = cache_default_path();
	int same = strcmp(d, path) == 0;

	free(d);
	return same;
}

/*
 * A path that is not a regular file, or a non-empty file that does not
 * start with the SQLite header, is refused before SQLite sees it, so the
 * message can say what is wrong.  *ours is set when the header carries
 * trainscope's application id (bytes 68-71, big-endian).
 */
static int
check_header(const char *path, int *ours, char **cause)
{
	static const char magic[16] = "SQLite format 3";
	unsigned char head[72];
	struct stat sb;
	size_t n;
	FILE *f;

	*ours = 0;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return ts_fail(cause, "cache '%s' is %s, not a file: choose a "
		    "file with --cache", path, S_ISDIR(sb.st_mode) ?
		    "a directory" : "a device or a pipe");
	if ((f = fopen(path, "rb")) == NULL) {
		if (errno == ENOENT)
			return 0;
		return ts_fail(cause, "cannot open cache '%s': %s", path,
		    strerror(errno));
	}
	n = fread(head, 1, sizeof head, f);
	fclose(f);
	if (n == 0)
		return 0;
	if (n < sizeof magic || memcmp(head, magic, sizeof magic) != 0)
		return ts_fail(cause, "'%s' is not a trainscope cache (not an "
		    "SQLite database)%s", path, is_default(path) ?
		    "; move it away or choose another cache with --cache" :
		    ": choose a new file or an existing cache with --cache");
	*ours = n == sizeof head && ((uint32_t)head[68] << 24 |
	    (uint32_t)head[69] << 16 | (uint32_t)head[70] << 8 | head[71]) ==
	    CACHE_APP_ID;
	return 0;
}

/* Did the last error come from a full disk (the file or its -wal, -shm)? */
static int
disk_full(sqlite3 *db)
{
	int code = sqlite3_errcode(db) & 0xff;

	return code == SQLITE_FULL || (code == SQLITE_IOERR &&
	    sqlite3_system_errno(db) == ENOSPC);
}

int
cache_fail(struct cache *c, const char *what, char **cause)
{
	int code = sqlite3_errcode(c->db) & 0xff;

	if (disk_full(c->db))
		return ts_fail(cause, "cache '%s': the disk is full (%s); what "
		    "it holds is kept: free some space, or choose another cache "
		    "with --cache", c->path, what);

	if ((code == SQLITE_CORRUPT || code == SQLITE_NOTADB) && c->ours)
		return ts_fail(cause, "cache '%s' is damaged (%s); remove it "
		    "and index again, or choose another with --cache", c->path,
		    sqlite3_errmsg(c->db));
	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		return ts_fail(cause, "'%s' is damaged or not a trainscope "
		    "cache (%s): choose another with --cache", c->path,
		    sqlite3_errmsg(c->db));
	return ts_fail(cause, "cache '%s': %s: %s", c->path, what,
	    sqlite3_errmsg(c->db));
}

int
cache_exec(struct cache *c, const char *sql, char **cause)
{
	if (sqlite3_exec(c->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return cache_fail(c, "query failed", cause);
	return 0;
}

/* Read an integer PRAGMA; -1 on error. */
static long long
pragma_int(struct cache *c, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * Is this file ours, and at which version?  0 when it is usable.  The three
 * facts are read in one statement so that they come from one snapshot even
 * while another process is migrating.
 */
static int
check_identity(struct cache *c, long long *version, char **cause)
{
	static const char sql[] = "SELECT (SELECT application_id FROM "
	    "pragma_application_id), (SELECT user_version FROM "
	    "pragma_user_version), (SELECT count(*) FROM sqlite_master)";
	long long app = -1, tables = -1;
	sqlite3_stmt *st;

	*version = -1;
	if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "cannot read", cause);
	if (sqlite3_step(st) == SQLITE_ROW) {
		app = sqlite3_column_int64(st, 0);
		*version = sqlite3_column_int64(st, 1);
		tables = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (app < 0 || *version < 0 || tables < 0)
		return cache_fail(c, "cannot read", cause);
	if (app != CACHE_APP_ID && (app != 0 || tables != 0))
		return ts_fail(cause, "'%s' is not a trainscope cache (another "
		    "program's SQLite database); choose another with --cache",
		    c->path);
	if (*version > cache_schema_version())
		return ts_fail(cause, "cache '%s' was written by a newer "
		    "trainscope (schema %lld; this one knows up to %d); upgrade "
		    "trainscope or choose another cache with --cache", c->path,
		    *version, cache_schema_version());
	return 0;
}

/* Bring the schema up to date; safe against a concurrent opener. */
static int
migrate(struct cache *c, char **cause)
{
	const char *const *m;
	long long version;
	size_t n, i;
	char *sql;

	m = migrations(&n);
	if (cache_begin(c, cause) != 0)
		return -1;
	if (check_identity(c, &version, cause) != 0)
		goto fail;
	for (i = (size_t)version; i < n; i++) {
		if (cache_exec(c, m[i], cause) != 0)
			goto fail;
	}
	if ((size_t)version < n) {
		sql = xasprintf("PRAGMA application_id = %d; PRAGMA "
		    "user_version = %zu; INSERT OR REPLACE INTO meta VALUES "
		    "('written_by', '%s')", CACHE_APP_ID, n, PACKAGE_VERSION);
		i = (size_t)cache_exec(c, sql, cause);
		free(sql);
		if (i != 0)
			goto fail;
	}
	return cache_commit(c, cause);
fail:
	cache_rollback(c);
	return -1;
}

/*
 * Switching to WAL needs a moment alone with the file and may answer
 * "locked" at once, without the busy handler, while another opener is
 * migrating: retry for as long as the busy timeout.
 */
static int
set_wal(struct cache *c, char **cause)
{
	int i, rc;

	for (i = 0; i < BUSY_TIMEOUT_MS / 10; i++) {
		rc = sqlite3_exec(c->db, "PRAGMA journal_mode = WAL", NULL, NULL,
		    NULL) & 0xff;
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			break;
		usleep(10000);
	}
	if (rc != SQLITE_OK)
		return cache_fail(c, "cannot use WAL mode", cause);
	return 0;
}

/*
 * Waiting for a lock: try again every millisecond for as long as the busy
 * timeout.  (SQLite's own handler backs off to 100 ms between tries, so a
 * waiting writer almost never finds the moment a long index run lets go
 * between two transactions; see cache_let_in().)
 */
static int
busy_cb(void *arg, int count)
{
	struct cache *c = arg;

	if (count == 0)
		c->busy_since = ts_now();
	else if (ts_now() - c->busy_since > BUSY_TIMEOUT_MS / 1000.0)
		return 0;
	usleep(BUSY_POLL_US);
	return 1;
}

static int
configure(struct cache *c, int readonly, char **cause)
{
	long long version;

	sqlite3_busy_handler(c->db, busy_cb, c);
	sqlite3_extended_result_codes(c->db, 1);
	/* One read transaction, so another opener's migration is seen whole. */
	if (cache_exec(c, "BEGIN", cause) != 0)
		return -1;
	if (check_identity(c, &version, cause) != 0) {
		cache_rollback(c);
		return -1;
	}
	if (cache_exec(c, "COMMIT", cause) != 0)
		return -1;
	if (readonly) {
		if (version != cache_schema_version())
			return ts_fail(cause, "cache '%s' is at schema %lld and "
			    "cannot be upgraded read-only", c->path, version);
		return 0;
	}
	if (set_wal(c, cause) != 0 ||
	    cache_exec(c, "PRAGMA synchronous = NORMAL; "
	    "PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY", cause) != 0)
		return -1;
	if (version < cache_schema_version())
		return migrate(c, cause);
	return 0;
}

/*
 * Can this process not write the cache file at `path` or its directory?
 * Then it cannot even read a WAL database the usual way (readers write
 * the -shm index): the file is opened immutable, for reading only.
 */
static int
cannot_write(const char *path)
{
	char *dir, *slash;
	int no;

	if (access(path, F_OK) != 0)
		return 0;
	if (access(path, W_OK) != 0)
		return 1;
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL)
		no = access(".", W_OK) != 0;
	else {
		slash[slash == dir] = '\0';
		no = access(dir, W_OK) != 0;
	}
	free(dir);
	return no;
}

/* "file:PATH?immutable=1" with the URI's special characters escaped. */
static char *
immutable_uri(const char *path)
{
	struct buf b = BUF_INIT;
	const char *p;

	buf_adds(&b, "file:");
	for (p = path; *p != '\0'; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			buf_addf(&b, "%%%02X", (unsigned char)*p);
		else
			buf_addc(&b, *p);
	}
	buf_adds(&b, "?immutable=1");
	return buf_detach(&b);
}

/* One line per statement run: its SQL as written, not its values. */
static int
trace_stmt(unsigned type, void *arg, void *stmt, void *sql)
{
	(void)type;
	(void)stmt;
	fprintf(arg, "%s\n", (const char *)sql);
	return 0;
}

/*
 * With TS_SQL_TRACE set to a file name, every statement this connection
 * runs is appended to that file, one line each: how many times a command
 * asks the cache a question (t/jobref.sh counts the job lookups of one
 * `diagnose`).  A file that cannot be opened is ignored.
 */
static void
trace_on(struct cache *c)
{
	const char *path = getenv("TS_SQL_TRACE");

	if (path == NULL || *path == '\0' ||
	    (c->trace = fopen(path, "a")) == NULL)
		return;
	setvbuf(c->trace, NULL, _IOLBF, 0);
	sqlite3_trace_v2(c->db, SQLITE_TRACE_STMT, trace_stmt, c->trace);
}

static pthread_once_t sqlite_once = PTHREAD_ONCE_INIT;

/*
 * Before SQLite's first use: no memory statistics (their global mutex was
 * taken on every allocation of the index's writer, and nothing reads
 * them).  Refused once SQLite is in use, which changes nothing else.
 */
static void
sqlite_setup(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int
cache_open(const char *path, int flags, struct cache **out, char **cause)
{
	struct cache *c;
	char *uri = NULL;
	int oflags, rc, ours;

	*out = NULL;
	if (check_header(path, &ours, cause) != 0)
		return -1;
	if (cannot_write(path))
		flags |= CACHE_READONLY;
	if (!(flags & CACHE_READONLY) && make_parent(path, cause) != 0)
		return -1;
	c = xcalloc(1, sizeof *c);
	c->path = xstrdup(path);
	c->ours = ours;
	pthread_once(&sqlite_once, sqlite_setup);
	/* a connection serves one thread at a time: no mutex of its own */
	oflags = SQLITE_OPEN_NOMUTEX | ((flags & CACHE_READONLY) ?
	    SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	if ((flags & CACHE_READONLY) && cannot_write(path)) {
		uri = immutable_uri(path);
		oflags |= SQLITE_OPEN_URI;
	}
	c->readonly = (flags & CACHE_READONLY) != 0;
	rc = sqlite3_open_v2(uri != NULL ? uri : path, &c->db, oflags, NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		if (c->db == NULL)
			ts_fail(cause, "cannot open cache '%s': out of memory",
			    path);
		else if (disk_full(c->db))
			cache_fail(c, "cannot open", cause);
		else
			ts_fail(cause, "cannot open cache '%s': %s", path,
			    sqlite3_errmsg(c->db));
		cache_close(c);
		return -1;
	}
	if (configure(c, flags & CACHE_READONLY, cause) != 0) {
		cache_close(c);
		return -1;
	}
	trace_on(c);
	*out = c;
	return 0;
}

static void *
behind_main(void *arg)
{
	struct behind *b = arg;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		while (!b->wanted && !b->closing)
			pthread_cond_wait(&b->cv, &b->mu);
		if (!b->wanted)
			break;
		b->wanted = 0;
		pthread_mutex_unlock(&b->mu);
		/* passive: never waits for a reader or the writer */
		(void)sqlite3_wal_checkpoint_v2(b->db, NULL,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&b->mu);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* SQLite's WAL hook, after each commit: a checkpoint when it is long. */
static int
behind_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct behind *b = arg;

	(void)db;
	(void)name;
	if (frames < CKPT_FRAMES)
		return SQLITE_OK;
	pthread_mutex_lock(&b->mu);
	b->wanted = 1;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	return SQLITE_OK;
}

void
cache_checkpoint_behind(struct cache *c)
{
	struct behind *b;

	if (c->readonly || c->behind != NULL)
		return;
	b = xcalloc(1, sizeof *b);
	/* a connection that has read nothing does not know it is WAL yet */
	if (sqlite3_open_v2(c->path, &b->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(b->db, "PRAGMA schema_version", NULL, NULL,
	    NULL) != SQLITE_OK) {
		sqlite3_close(b->db);
		free(b);
		return;		/* the commits checkpoint, as before */
	}
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	if (pthread_create(&b->thread, NULL, behind_main, b) != 0) {
		pthread_mutex_destroy(&b->mu);
		pthread_cond_destroy(&b->cv);
		sqlite3_close(b->db);
		free(b);
		return;
	}
	c->behind = b;
	sqlite3_wal_hook(c->db, behind_hook, b);
}

/* Stop checkpointing behind (the connection is closing). */
static void
behind_stop(struct cache *c)
{
	struct behind *b = c->behind;

	if (b == NULL)
		return;
	sqlite3_wal_hook(c->db, NULL, NULL);
	pthread_mutex_lock(&b->mu);
	b->closing = 1;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->thread, NULL);
	sqlite3_close(b->db);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	free(b);
	c->behind = NULL;
}

int
cache_prepare_kept(struct cache *c, const char *sql, sqlite3_stmt **st,
    char **cause)
{
	struct kept *k;
	size_t i;

	for (i = 0; i < c->nkept; i++)
		if (c->kept[i].sql == sql) {
			*st = c->kept[i].st;
			sqlite3_reset(*st);
			sqlite3_clear_bindings(*st);
			return 0;
		}
	if (sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "cannot prepare a statement", cause);
	/* full: the oldest one not being stepped goes */
	for (i = 0; c->nkept == CACHE_KEPT && i < CACHE_KEPT; i++) {
		if (sqlite3_stmt_busy(c->kept[i].st))
			continue;
		sqlite3_finalize(c->kept[i].st);
		memmove(c->kept + i, c->kept + i + 1, (CACHE_KEPT - 1 - i) *
		    sizeof *k);
		c->nkept--;
	}
	if (c->nkept == CACHE_KEPT) {
		sqlite3_finalize(*st);
		*st = NULL;
		return ts_fail(cause, "cache '%s': more than %d statements "
		    "in use at once", c->path, CACHE_KEPT);
	}
	k = &c->kept[c->nkept++];
	k->sql = sql;
	k->st = *st;
	return 0;
}

void
cache_close(struct cache *c)
{
	size_t i;

	if (c == NULL)
		return;
	behind_stop(c);
	for (i = 0; i < c->nkept; i++)
		sqlite3_finalize(c->kept[i].st);
	if (c->trace != NULL) {
		sqlite3_trace_v2(c->db, 0, NULL, NULL);
		fclose(c->trace);
	}
	sqlite3_close_v2(c->db);
	free(c->path);
	free(c);
}

sqlite3 *
cache_db(struct cache *c)
{
	return c->db;
}

const char *
cache_path(const struct cache *c)
{
	return c->path;
}

int
cache_begin(struct cache *c, char **cause)
{
	if (c->readonly)
		return ts_fail(cause, "cache '%s' is read-only here: nothing "
		    "can be stored in it", c->path);
	return cache_exec(c, "BEGIN IMMEDIATE", cause);
}

void
cache_let_in(struct cache *c)
{
	(void)c;
	usleep(3 * BUSY_POLL_US);
}

int
cache_changed(struct cache *c, long long *seen, char **cause)
{
	long long v = pragma_int(c, "PRAGMA data_version");
	int changed;

	if (v < 0)
		return cache_fail(c, "cannot read the data version", cause);
	changed = *seen < 0 || v != *seen;
	*seen = v;
	return changed;
}

int
cache_readonly(const struct cache *c)
{
	return c->readonly;
}

int
cache_commit(struct cache *c, char **cause)
{
	return cache_exec(c, "COMMIT", cause);
}

void
cache_rollback(struct cache *c)
{
	if (!sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
}

int
cache_get_info(struct cache *c, struct cache_info *info, char **cause)
{
	struct stat sb;

	memset(info, 0, sizeof *info);
	info->schema = (int)pragma_int(c, "PRAGMA user_version");
	info->jobs = pragma_int(c, "SELECT count(*) FROM jobs");
	if (info->jobs < 0)
		return cache_fail(c, "cannot count jobs", cause);
	if (stat(c->path, &sb) == 0)
		info->bytes = (long long)sb.st_size;
	return 0;
}
