/*
 * cache.h -- the SQLite cache file: open, migrate, refuse, transactions.
 *
 * One cache holds every job trainscope has indexed.  The schema is
 * db/schema.sql, embedded in the binary; PRAGMA user_version says which
 * schema a file has and PRAGMA application_id marks it as ours.  A file
 * from a newer trainscope, or one that is not a trainscope cache, is
 * refused with a clear message and left untouched.  WAL mode and a busy
 * timeout let several trainscope processes share one cache.  A struct
 * cache serves one thread at a time (SQLite's mutexes are off for it):
 * threads that talk to the cache at once each open their own.
 *
 * Only db/ talks SQL; other modules call the functions its headers declare.
 */
#ifndef TS_CACHE_H
#define TS_CACHE_H

struct cache;
struct sqlite3;

/* The "TSCP" application id stored in every cache. */
#define CACHE_APP_ID 0x54534350
/* The schema version this build writes and reads. */
int cache_schema_version(void);

/*
 * The default cache path, ${XDG_CACHE_HOME:-$HOME/.cache}/trainscope/
 * cache.db, allocated.  Falls back to ./trainscope-cache.db when neither
 * variable is set.
 */
char *cache_default_path(void);

enum {
	CACHE_READONLY = 1	/* never create or migrate */
};

/*
 * Open (creating and migrating as needed) the cache at `path`; the parent
 * directory is created when missing.  Returns 0 and sets *out, or -1 with
 * *cause naming the file and what is wrong.
 */
int cache_open(const char *path, int flags, struct cache **out, char **cause);
/*
 * Was the cache opened for reading only (asked for, or a file or
 * directory this process cannot write)?  Then cache_begin() fails with a
 * message that says so.
 */
int cache_readonly(const struct cache *c);
/* Close a cache; NULL is fine. */
void cache_close(struct cache *c);
/* The connection, for the other db/ modules (borrowed). */
struct sqlite3 *cache_db(struct cache *c);
/*
 * A statement of `sql` (the same string each time: it is known by its
 * address) prepared once for the connection's life: *st comes reset,
 * its bindings cleared.  The caller resets it when done (so that it
 * holds no read transaction) and never finalizes it; cache_close() does.
 * Returns 0, or -1 with *cause.
 */
struct sqlite3_stmt;
int cache_prepare_kept(struct cache *c, const char *sql,
    struct sqlite3_stmt **st, char **cause);
const char *cache_path(const struct cache *c);

/*
 * Transactions: cache_begin() takes the write lock at once (BEGIN
 * IMMEDIATE), waiting for other processes up to the busy timeout.  Each
 * returns 0, or -1 with *cause set.
 */
int cache_begin(struct cache *c, char **cause);
/*
 * Between two transactions of a long run: pause a few milliseconds, so
 * that a writer waiting for the lock (it tries every millisecond) gets it
 * and a long run does not starve the others past the busy timeout.
 */
void cache_let_in(struct cache *c);
/*
 * Has another connection (another process) committed to the cache since
 * *seen was set?  Reads SQLite's data_version (which this connection's
 * own commits leave alone) into *seen; call it inside a transaction to
 * know what that transaction sees.  Returns 1 (changed, or *seen was -1),
 * 0 (not changed), or -1 with *cause.
 */
int cache_changed(struct cache *c, long long *seen, char **cause);
int cache_commit(struct cache *c, char **cause);
/*
 * From now until cache_close(), a commit that leaves the WAL long hands
 * its checkpoint to a thread of its own (with a connection of its own)
 * instead of doing it before it returns: for a writer with other threads
 * waiting on it.  Nothing changes when the cache is read-only or the
 * thread cannot start.
 */
void cache_checkpoint_behind(struct cache *c);
void cache_rollback(struct cache *c);
/* Run SQL without results; 0, or -1 with *cause set. */
int cache_exec(struct cache *c, const char *sql, char **cause);
/*
 * Turn the connection's last error into "cache 'PATH': WHAT: sqlite
 * message" in *cause, naming corruption plainly; returns -1.
 */
int cache_fail(struct cache *c, const char *what, char **cause);

struct cache_info {
	int schema;
	long long jobs;
	long long bytes;	/* size of the database file */
};
int cache_get_info(struct cache *c, struct cache_info *info, char **cause);

#endif
