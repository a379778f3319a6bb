/*
 * index.h -- indexing jobs into the cache.
 *
 * index_run() discovers the jobs named by paths (scan.h), works out per
 * file what is new (unchanged files are skipped, appended plain files
 * continue where they stopped, anything else is read again), parses the
 * files on worker threads and on the calling thread, and stores the
 * results from the calling thread: the only thread that talks to the
 * cache.  Each job is its own series of
 * transactions, committed at file boundaries, so a failure in one job
 * never touches another and never leaves a half-stored file.
 */
#ifndef TS_INDEX_H
#define TS_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cache;

struct index_opts {
	const char *job_name;	/* --job: only with one job */
	const char *map_path;	/* --map FILE */
	const char *hostfile;	/* --hostfile FILE */
	char *const *logs;	/* --log FILE...: logs whatever they look like */
	size_t nlogs;
	int threads;		/* threads in all, the calling one
				   included; 0: one per core */
	uint64_t chunk;		/* split plain files into ranges of this
				   many bytes; 0: the default (32 MiB) */
	double commit_secs;	/* commit at the first file boundary after
				   this many seconds; 0: the default (2 s);
				   below 0: after every file */
	FILE *err;		/* warnings, progress (borrowed) or NULL */
	const char *cmd;	/* the command warnings name, or NULL */
	int progress;		/* draw progress on err */
	/*
	 * Lines still being written are left for a later run: a trailing
	 * line without its newline (unless its file was last written ten
	 * seconds ago or more: its writer is gone), and any line that ends
	 * past the size the file had when it was found, are not indexed
	 * (the file is stored as read up to the line before; the next run
	 * goes on there).  For a job that is still writing (`--follow`).
	 */
	int whole_lines;
	/* Stop as soon as *cancel turns nonzero (may be NULL): -1, cause
	   "cancelled", and what the run had not committed is rolled back. */
	const int *cancel;
	/*
	 * Called now and then as the run goes (may be NULL): files stored
	 * of those to read, bytes read of those to read.
	 */
	void (*tick)(void *arg, size_t files_done, size_t nfiles,
	    uint64_t done, uint64_t total);
	void *tick_arg;
};

struct index_stats {
	size_t jobs;
	size_t files;		/* files found */
	size_t indexed;		/* files read (whole or appended part) */
	size_t skipped;		/* unchanged files */
	size_t failed;		/* files that could not be read */
	size_t partial;		/* files read up to an error (lines kept) */
	uint64_t lines;		/* lines read in this run */
	uint64_t bytes;		/* file bytes read in this run */
	uint64_t text;		/* text bytes in them (gzip inflated) */
	uint32_t templates;	/* templates in the cache afterwards */
	double seconds;
	char *names;		/* the jobs indexed, ", "-separated (free it) */
	size_t nempty;		/* directories without a log file: no job */
	char *empty;		/* the first of them (free it), or NULL */
};

/*
 * Index paths[0 .. n) into cache `c`.  Per-file problems are one-line
 * warnings on o->err and do not fail the run.  A directory in which no
 * log file is found makes no job (and a job it already is keeps what was
 * indexed): it is counted in st->nempty for the caller to report.
 * Returns 0 and fills *st, or -1 with *cause (bad arguments, a cache
 * error; jobs finished before the error stay stored).
 */
int index_run(struct cache *c, char *const *paths, size_t n,
    const struct index_opts *o, struct index_stats *st, char **cause);

#endif
