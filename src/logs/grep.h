/*
 * grep.h -- search the raw text of every log file of a job.
 *
 * A pattern is a PCRE2 regular expression (JIT-compiled) matched against
 * each raw line of the job's files, bytes as they are (NUL and invalid
 * UTF-8 included), with ^ and $ at the line's ends.  Files are searched by
 * worker threads in large blocks; a line's boundaries are found only
 * around a match, and a pattern that starts with a plain literal is first
 * looked for as that literal.  A pattern that can see past a line's end
 * without matching its newline (lookaround, \A, \z, verbs) is matched
 * line by line instead.  Matches come back in the merged log's order
 * (logmerge.h), or only counted.
 */
#ifndef TS_GREP_H
#define TS_GREP_H

#include <stddef.h>
#include <stdint.h>

struct logmerge;
struct lm_file;
struct lm_row;
struct grep;

/* Flags of grep_compile_flags(). */
enum {
	GREP_CASELESS = 1	/* letters match either case */
};

struct grep_opts {
	int invert;		/* the lines that do not match */
	const char *node;	/* only files of this node, NULL: all */
	int threads;		/* 0: one per core */
	/* Only the files file() keeps (NULL: all; with node, both). */
	int (*file)(void *arg, const struct lm_file *f);
	void *file_arg;
	/*
	 * Stop soon when *cancel becomes nonzero (NULL: never): the call
	 * then fails with "cancelled".  Another thread may set it.
	 */
	const int *cancel;
	/*
	 * Tag a selected line (NULL: no tags): fill *stage and *iter and
	 * return 1 to keep the line, 0 to drop it, -1 to stop with *cause.
	 * Called once a line, file by file and in line order within a file
	 * (so a tagger may replay a file once), before the lines are merged:
	 * it is how stage and iteration filters are applied.
	 */
	int (*tag)(void *arg, const struct lm_row *row, int *stage, long *iter,
	    char **cause);
	void *tag_arg;
};

/* A selected line and its tags. */
struct grep_hit {
	const struct lm_row *row;	/* borrowed for the call */
	int stage;		/* as the tagger said; -1 without one */
	long iter;		/* -1: none, or no tagger */
};

/*
 * Compile `pattern`.  Returns 0 and sets *out (free with grep_free()), or
 * -1 with *cause ("bad pattern: MESSAGE") and *err_off the byte offset of
 * the error in the pattern.
 */
int grep_compile(const char *pattern, struct grep **out, size_t *err_off,
    char **cause);
/* The same with GREP_* flags. */
int grep_compile_flags(const char *pattern, int flags, struct grep **out,
    size_t *err_off, char **cause);
void grep_free(struct grep *g);

/* Whether s[0..len) matches (1) or not (0).  Thread-safe. */
int grep_match(const struct grep *g, const char *s, size_t len);

/*
 * Count the selected lines of the job (matching, or not with invert), and
 * kept by o->tag when it is set.  Returns 0 with *count, or -1 with
 * *cause (a file that cannot be read).
 */
int grep_count(struct grep *g, struct logmerge *m, const struct grep_opts *o,
    uint64_t *count, char **cause);

/*
 * Call fn for each selected line in the merged log's order.  fn returns
 * 0 to go on, 1 to stop, -1 to stop with *cause.  Lines of a file that
 * grew since it was indexed (beyond its indexed lines) are left out.
 * Memory: a few bytes for each selected line, until the walk ends.  Cost:
 * the search, then a chunk decode (logmerge.h) of each chunk that holds a
 * selected line, then a heap merge.
 * Returns 0, or -1 with *cause.
 */
int grep_each(struct grep *g, struct logmerge *m, const struct grep_opts *o,
    int (*fn)(void *arg, const struct grep_hit *hit, char **cause), void *arg,
    char **cause);

/*
 * Search the lines of buf[0..len) (any bytes; the last line may lack its
 * newline) exactly as a file's blocks are searched, calling fn with each
 * selected line's number (from 1) and offset: for tests and fuzzing.
 */
void grep_buffer(struct grep *g, const char *buf, size_t len, int invert,
    void (*fn)(void *arg, uint64_t line, uint64_t off), void *arg);

#endif
