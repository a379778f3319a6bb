/*
 * scan.h -- discovery: which files of a job are logs, and whose.
 *
 * Given job directories or lists of files, scan_paths() finds every log
 * (plain or gzip; binaries such as captures, and data files such as CSV
 * and JSON, are skipped) and says for each the node and rank it belongs
 * to and whether it is a process log or a host log (dmesg, syslog,
 * journal export).  Evidence, strongest first:
 *
 *   --map FILE     lines "GLOB NODE [RANK [KIND]]": the first GLOB
 *                  (fnmatch, '*' also crosses '/') matching the path
 *                  relative to the job root decides; "-" means unknown
 *   the path       node-017/rank-3.log, logs/node03/rank-2.log,
 *                  torchrun attempt_0/3/stderr.log, gpu-a17.log, dmesg
 *                  and syslog by name
 *   the content    the first lines: NCCL "host:pid:tid [d] NCCL INFO" and
 *                  "rank N nranks M", syslog and journal host names, dmesg
 *   --hostfile     "HOST slots=N" (ranks in order) or "HOST RANKS" with
 *                  RANKS like 0-7,12 -- gives the node of a ranked file
 *
 * Lines of combined files carry their own rank prefixes; the indexer
 * reads those (lp_parse()).
 */
#ifndef TS_SCAN_H
#define TS_SCAN_H

#include <stddef.h>
#include <stdint.h>

enum scan_kind {
	SCAN_LOG = 0,		/* a process's stdout/stderr */
	SCAN_HOST = 1		/* dmesg, syslog, journal export */
};

struct scan_file {
	char *path;		/* the path to open */
	char *rel;		/* relative to the job root */
	char *node;		/* NULL when unknown */
	char *line_host;	/* while sniffing: the first host a line names */
	int multi_host;		/* lines name several hosts: split by line */
	int rank;		/* -1 when unknown */
	int kind;		/* enum scan_kind */
	int gz;			/* gzip-compressed (set by scan_sniff()) */
	const char *why;	/* why it is no log (scan_sniff()), static */
	uint64_t size;
	double mtime;
	uint64_t inode;
	double ctime;		/* status change time */
	/*
	 * What the path and the head said before --map and --hostfile
	 * (found_kind -1 until the head is read; 2: text that is a log only
	 * because --log names it), and whether they came from known().
	 */
	char *found_node;
	int found_rank, found_kind;
	int known;
	int racy;		/* written within SCAN_RACY_SECS of the scan */
	uint64_t want_head;	/* known(): the head it must have, 0: any */
	uint64_t head;		/* racy or want_head: scan_head() of it */
};

/*
 * A file modified this recently before it is scanned may be rewritten
 * after it is read without its times showing it (the same tick of a
 * coarse clock, or of another machine's): such a file is `racy`.
 */
#define SCAN_RACY_SECS	5.0

struct scan_job {
	char *name;
	char *root;		/* absolute directory */
	struct scan_file *files;	/* sorted by rel */
	size_t nfiles;
	size_t nunread;		/* logs found but not readable (warned) */
};

struct scan_opts {
	const char *job_name;	/* one job only; NULL: the root's name */
	const char *map_path;	/* NULL: none */
	const char *hostfile;	/* NULL: none */
	char *const *logs;	/* --log: files that are logs whatever their
				   name or content (borrowed) */
	size_t nlogs;
	int threads;		/* read the files' heads on this many threads
				   (the calling one included); 0, 1: one */
	/*
	 * Called for each file of job j (its name and root final) on the
	 * calling thread before any head is read; may be NULL.  Returns 1
	 * when the file is one an earlier run found and it is unchanged: it
	 * has set f->node, f->rank, f->kind, f->gz and f->found_* to what
	 * that run found, and f->want_head to the scan_head() it must have,
	 * if any: its head is not read unless that differs.  0: read it.
	 */
	int (*known)(void *arg, const struct scan_job *j, struct scan_file *f);
	/* Warnings about single files (one line, no newline); may be NULL. */
	void (*warn)(void *arg, const char *msg);
	void *arg;
};

/*
 * Discover the jobs named by paths[0 .. n): each directory is a job, and
 * all plain files given together form one more job rooted at their common
 * directory.  Returns 0 and an allocated array (free with scan_free()),
 * or -1 with *cause (a path that does not exist, a bad --map or
 * --hostfile line as FILE:LINE, --job with several jobs, a --log file
 * that is missing or in none of the paths).  Unreadable files and
 * directories inside a job, and files skipped as no log (with the
 * reason), are warnings, not errors.
 */
int scan_paths(char *const *paths, size_t n, const struct scan_opts *o,
    struct scan_job **jobs, size_t *njobs, char **cause);
void scan_free(struct scan_job *jobs, size_t njobs);

/*
 * What a path relative to the job root says: *node (allocated, or NULL),
 * *rank (-1 when unknown) and *kind.
 */
void scan_path_info(const char *rel, char **node, int *rank, int *kind);

/*
 * What the first bytes of a file (and, for a plain file, its last ones)
 * say: fills f->node, f->rank (only where unknown) and may set f->kind to
 * SCAN_HOST.  Returns 0 for a log, 1 for a binary to skip, 2 for text
 * that is no log -- flow records as 'flows' reads them, a capture tool's
 * statistics report, or text that no process of the job wrote: a JSON
 * document, a Markdown document or prose, a report without a line that
 * carries a time, a level, a rank or host prefix or anything else a
 * process prints (a traceback, an error, progress) -- with f->why set;
 * -1 when the file cannot be read (*cause set).
 */
int scan_sniff(struct scan_file *f, char **cause);

/*
 * A hash of a file's size and its first and last 4 KiB as they are on
 * disk (0 is never returned); 1 when it cannot be read.
 */
uint64_t scan_head(const char *path, uint64_t size);

/*
 * Parse a `--hostfile` (HOST slots=N, or HOST RANKS) into a rank -> node
 * table: *nodes[rank] (allocated strings, NULL where no host).  Returns 0,
 * or -1 with *cause as "PATH:LINE: ...".  Free with scan_free_hosts().
 */
int scan_read_hostfile(const char *path, char ***nodes, size_t *n,
    char **cause);
void scan_free_hosts(char **nodes, size_t n);

/*
 * The job name `index` gives a job directory: the base name of its real
 * path.  Allocated; the caller frees it.
 */
char *scan_job_name(const char *dir);

/*
 * The root of the one job that paths[0 .. n) make, as scan_paths() sees
 * it: a lone directory's real path, or the directory that plain files
 * given together share.  NULL (nothing allocated) when they make several
 * jobs or one is missing.
 */
char *scan_job_root(char *const *paths, size_t n);

#endif
