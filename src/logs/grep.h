/*
 * grep.h -- search the raw text of every log file of a job.
 *
 * A pattern is a PCRE2 regular expression (JIT-compiled) matched against
 * each raw line of the job's files, bytes as they are (NUL and invalid
 * UTF-8 included), with ^ and $ at the line's ends.  Files are searched by
 * worker threads in large blocks; a line's boundaries are found only
 * around a match, and a pattern that starts with a plain literal is first
 * looked for as that literal.  Matches come back in the merged log's order
 * (logmerge.h), or only counted.
 */
#ifndef TS_GREP_H
#define TS_GREP_H

#include <stddef.h>
#include <stdint.h>

struct logmerge;
struct lm_row;
struct grep;

struct grep_opts {
	int invert;		/* the lines that do not match */
	const char *node;	/* only files of this node, NULL: all */
	int threads;		/* 0: one per core */
	/*
	 * Called for each selected line in merged order before it counts
	 * (NULL: every line counts): 1 keep, 0 drop, -1 stop with *cause.
	 * It is how stage and iteration filters are applied.
	 */
	int (*keep)(void *arg, const struct lm_row *row, char **cause);
	void *keep_arg;
};

/*
 * Compile `pattern`.  Returns 0 and sets *out (free with grep_free()), or
 * -1 with *cause ("bad pattern: MESSAGE") and *err_off the byte offset of
 * the error in the pattern.
 */
int grep_compile(const char *pattern, struct grep **out, size_t *err_off,
    char **cause);
void grep_free(struct grep *g);

/* Whether s[0..len) matches (1) or not (0).  Thread-safe. */
int grep_match(const struct grep *g, const char *s, size_t len);

/*
 * Count the selected lines of the job (matching, or not with invert).
 * With o->keep set this walks them in order as grep_each() does.
 * Returns 0 with *count, or -1 with *cause (a file that cannot be read).
 */
int grep_count(struct grep *g, struct logmerge *m, const struct grep_opts *o,
    uint64_t *count, char **cause);

/*
 * Call fn for each selected line in the merged log's order.  fn returns
 * 0 to go on, 1 to stop, -1 to stop with *cause.  Lines of a file that
 * grew since it was indexed (beyond its indexed lines) are left out.
 * Memory: a few bytes for each selected line, until the walk ends.
 * Returns 0, or -1 with *cause.
 */
int grep_each(struct grep *g, struct logmerge *m, const struct grep_opts *o,
    int (*fn)(void *arg, const struct lm_row *row, char **cause), void *arg,
    char **cause);

#endif
