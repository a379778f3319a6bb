/*
 * reader.h -- a streaming line reader for plain and gzip log files.
 *
 * The reader hands out one line at a time without copying when it can:
 * the line points into a large read buffer (plain files) or inflate buffer
 * (gzip, detected by its magic bytes, any number of members).  A trailing
 * CR is stripped; other bytes, NUL and invalid UTF-8 included, pass
 * through untouched.  A line longer than READER_LINE_MAX keeps its first
 * READER_LINE_MAX bytes and the rest is skipped but counted.
 *
 * Offsets are byte offsets of line starts in the (uncompressed) stream, so
 * a plain file's line can be read back with one pread().  A plain file is
 * read up to the size it had when it was opened: lines appended while it
 * is read are left for the next (incremental) run.  A gzip file is read
 * to the end of its stream, and so is a pipe or standard input (path "-"),
 * whose format is told by its first two bytes.
 */
#ifndef TS_READER_H
#define TS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

#define READER_LINE_MAX (64 * 1024)

struct reader;

struct reader_line {
	const char *s;		/* the line, no newline or CR (borrowed) */
	size_t len;		/* bytes in s (at most READER_LINE_MAX) */
	uint64_t full_len;	/* bytes of the line in the file, with CR */
	uint64_t lineno;	/* 1-based line number */
	uint64_t off;		/* offset of the line start */
	int newline;		/* the line ended with a newline */
};

/*
 * Open `path` for reading from byte offset `off`, which is the start of
 * line number `line` + 1 (pass 0, 0 for the whole file).  Resuming is only
 * possible for plain files: for gzip files `off` must be 0.  Returns 0 and
 * sets *out, or -1 with *cause ("cannot open 'PATH': ...").
 */
int reader_open(const char *path, uint64_t off, uint64_t line,
    struct reader **out, char **cause);
/* Close the reader and free it; NULL is fine. */
void reader_close(struct reader *r);

/*
 * Read the next line into *l (valid until the next call).  Returns 1 for a
 * line, 0 at the end, -1 on a read or decompression error; then *cause
 * names the file and line and what was read so far stays valid (the next
 * call returns 0).
 */
int reader_next(struct reader *r, struct reader_line *l, char **cause);

/*
 * Read at most about `bytes` more bytes of the file (compressed bytes for
 * gzip), for a quick look at its head: a plain file then ends there (its
 * last line may be cut), a gzip stream ends with a truncation error.
 */
void reader_limit(struct reader *r, uint64_t bytes);

/* Whether the file is gzip-compressed. */
int reader_is_gzip(const struct reader *r);
/* Size of the file on disk when it was opened (compressed size for gzip). */
uint64_t reader_file_size(const struct reader *r);
/* Bytes of the file consumed so far (compressed bytes for gzip). */
uint64_t reader_consumed(const struct reader *r);

/*
 * Read back the line starting at `off` of a plain or gzip file into `out`
 * (at most READER_LINE_MAX bytes).  For gzip files this inflates from the
 * start.  Returns 0, or -1 with *cause set.
 */
int reader_line_at(const char *path, uint64_t off, struct buf *out,
    char **cause);

#endif
