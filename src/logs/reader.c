/*
 * reader.c -- streaming lines out of plain and gzip files.
 *
 * One buffer of READ_BUF bytes holds uncompressed data; buf[0] is at
 * stream offset `base`.  reader_next() looks for the next newline with
 * memchr() and returns a pointer into the buffer; when no newline is left
 * the unread tail moves to the front and the buffer is refilled, by read()
 * for plain files or by inflate() from a second buffer of compressed bytes
 * for gzip files.  A line that fills READER_LINE_MAX bytes without a
 * newline switches to "long line" mode: its prefix is copied aside and the
 * rest is only counted until its newline turns up.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "logs/reader.h"
#include "base/util.h"

#define READ_BUF	(1024 * 1024)
#define GZ_IN_BUF	(256 * 1024)

struct reader {
	int fd;
	char *path;
	int gz;
	int zinit;		/* z is initialised */
	int zend;		/* the current gzip member ended */
	const char *zerr;	/* zlib failed after the bytes in buf */
	z_stream z;
	unsigned char *in;
	uint64_t in_total;	/* compressed bytes read */
	uint64_t in_limit;	/* read no more compressed bytes than this */

	char *buf;
	size_t pos, end;
	uint64_t base;		/* stream offset of buf[0] */
	uint64_t lineno;	/* lines returned so far */
	uint64_t size;		/* file size at open */
	uint64_t consumed;	/* plain: file bytes read */
	int eof;
	int failed;

	int in_long;		/* inside an overlong line */
	char *lng;		/* its prefix */
	uint64_t lng_len, lng_off;
};

static int
open_gzip(struct reader *r, char **cause)
{
	memset(&r->z, 0, sizeof r->z);
	if (inflateInit2(&r->z, 15 + 16) != Z_OK)
		return ts_fail(cause, "cannot read '%s': zlib failed", r->path);
	r->zinit = 1;
	r->in = xmalloc(GZ_IN_BUF);
	return 0;
}

/* read() that retries on EINTR; returns bytes read or -1. */
static ssize_t
read_some(int fd, void *p, size_t n)
{
	ssize_t got;

	do
		got = read(fd, p, n);
	while (got == -1 && errno == EINTR);
	return got;
}

/* Is the file gzip?  Reads two bytes at the start and seeks back. */
static int
sniff_gzip(int fd)
{
	unsigned char m[2];

	if (pread(fd, m, 2, 0) != 2)
		return 0;
	return m[0] == 0x1f && m[1] == 0x8b;
}

/*
 * A pipe (or standard input) cannot be sniffed with pread(): read its
 * first two bytes and hand them to whichever buffer the format needs.
 */
static int
open_stream(struct reader *r, char **cause)
{
	unsigned char head[2];
	ssize_t got;
	size_t n = 0;

	while (n < sizeof head && (got = read_some(r->fd, head + n,
	    sizeof head - n)) > 0)
		n += (size_t)got;
	r->gz = n == 2 && head[0] == 0x1f && head[1] == 0x8b;
	if (r->gz) {
		if (open_gzip(r, cause) != 0)
			return -1;
		memcpy(r->in, head, n);
		r->z.next_in = r->in;
		r->z.avail_in = (uInt)n;
		r->in_total = n;
	} else {
		memcpy(r->buf, head, n);
		r->end = n;
		r->consumed = n;
	}
	return 0;
}

int
reader_open(const char *path, uint64_t off, uint64_t line,
    struct reader **out, char **cause)
{
	struct reader *r;
	struct stat sb;
	int fd, stream;

	*out = NULL;
	fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO) : open(path, O_RDONLY);
	if (fd == -1)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	if (fstat(fd, &sb) != 0 || S_ISDIR(sb.st_mode)) {
		close(fd);
		return ts_fail(cause, "cannot read '%s': %s", path,
		    S_ISDIR(sb.st_mode) ? "Is a directory" : strerror(errno));
	}
	stream = !S_ISREG(sb.st_mode);
	if (stream && off != 0) {
		close(fd);
		return ts_fail(cause, "cannot resume '%s': not a regular file",
		    path);
	}
	r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->path = xstrdup(path);
	r->size = stream ? UINT64_MAX : (uint64_t)sb.st_size;
	r->buf = xmalloc(READ_BUF);
	if (stream) {
		r->lineno = line;
		if (open_stream(r, cause) != 0) {
			reader_close(r);
			return -1;
		}
		*out = r;
		return 0;
	}
	r->gz = sniff_gzip(fd);
	if (r->gz && off != 0) {
		reader_close(r);
		return ts_fail(cause, "cannot resume '%s': gzip files are read "
		    "from the start", path);
	}
	if (r->gz && open_gzip(r, cause) != 0) {
		reader_close(r);
		return -1;
	}
	if (!r->gz && off != 0 && lseek(fd, (off_t)off, SEEK_SET) == -1) {
		ts_fail(cause, "cannot seek in '%s': %s", path,
		    strerror(errno));
		reader_close(r);
		return -1;
	}
	r->base = r->consumed = off;
	r->lineno = line;
	*out = r;
	return 0;
}

void
reader_close(struct reader *r)
{
	if (r == NULL)
		return;
	if (r->zinit)
		inflateEnd(&r->z);
	if (r->fd != -1)
		close(r->fd);
	free(r->in);
	free(r->buf);
	free(r->lng);
	free(r->path);
	free(r);
}


static int
fill_plain(struct reader *r, char **cause)
{
	size_t want = READ_BUF - r->end;
	ssize_t got;

	if (r->consumed >= r->size) {
		r->eof = 1;
		return 0;
	}
	if (want > r->size - r->consumed)
		want = (size_t)(r->size - r->consumed);
	if ((got = read_some(r->fd, r->buf + r->end, want)) == -1)
		return ts_fail(cause, "'%s': line %llu: read error: %s",
		    r->path,
		    (unsigned long long)r->lineno + 1, strerror(errno));
	if (got == 0)
		r->eof = 1;	/* the file shrank while we read it */
	r->end += (size_t)got;
	r->consumed += (uint64_t)got;
	return 0;
}

/* Refill the compressed input; 0 at its end. */
static ssize_t
refill_in(struct reader *r)
{
	size_t want = GZ_IN_BUF;
	ssize_t got;

	if (r->in_limit > 0 && r->in_limit - r->in_total < want)
		want = (size_t)(r->in_limit - r->in_total);
	if (want == 0)
		return 0;
	got = read_some(r->fd, r->in, want);
	if (got > 0) {
		r->z.next_in = r->in;
		r->z.avail_in = (uInt)got;
		r->in_total += (uint64_t)got;
	}
	return got;
}

/* After a gzip member: another member follows, or the stream ends. */
static int
next_member(struct reader *r)
{
	if (r->z.avail_in == 0 && refill_in(r) <= 0)
		return 0;
	if (r->z.next_in[0] != 0x1f)
		return 0;	/* trailing padding or garbage: ignore it */
	inflateReset(&r->z);
	r->zend = 0;
	return 1;
}

static int
gz_fail(struct reader *r, const char *what, char **cause)
{
	return ts_fail(cause, "'%s': line %llu: %s; keeping the lines before",
	    r->path, (unsigned long long)r->lineno + 1, what);
}

static int
fill_gzip(struct reader *r, char **cause)
{
	size_t start = r->end;
	ssize_t got;
	int zrc;

	if (r->zerr != NULL)
		return gz_fail(r, r->zerr, cause);
	while (r->end == start) {
		if (r->zend && !next_member(r)) {
			r->eof = 1;
			return 0;
		}
		if (r->z.avail_in == 0) {
			if ((got = refill_in(r)) < 0)
				return gz_fail(r, strerror(errno), cause);
			if (got == 0)
				return gz_fail(r, "truncated gzip stream",
				    cause);
		}
		r->z.next_out = (unsigned char *)r->buf + r->end;
		r->z.avail_out = (uInt)(READ_BUF - r->end);
		zrc = inflate(&r->z, Z_NO_FLUSH);
		r->end = READ_BUF - r->z.avail_out;
		if (zrc == Z_STREAM_END)
			r->zend = 1;
		else if (zrc != Z_OK && zrc != Z_BUF_ERROR) {
			/* keep what zlib gave before it stopped (a bad CRC
			   trailer costs nothing); fail on the next fill */
			if (r->end > start) {
				r->zerr = "corrupt gzip data";
				return 0;
			}
			return gz_fail(r, "corrupt gzip data", cause);
		}
	}
	return 0;
}

/* Move the unread tail to the front and read more. */
static int
fill(struct reader *r, char **cause)
{
	int rc;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->base += r->pos;
		r->end -= r->pos;
		r->pos = 0;
	}
	rc = r->gz ? fill_gzip(r, cause) : fill_plain(r, cause);
	if (rc != 0) {
		r->failed = r->eof = 1;
		r->pos = r->end = 0;
		r->in_long = 0;
	}
	return rc;
}

static void
emit(struct reader *r, struct reader_line *l, const char *s, size_t len,
    uint64_t off, uint64_t full, int newline)
{
	l->s = s;
	l->len = len;
	l->full_len = full;
	l->off = off;
	l->newline = newline;
	if (len > 0 && s[len - 1] == '\r' && len == full)
		l->len--;
	if (l->len > READER_LINE_MAX)
		l->len = READER_LINE_MAX;
	l->lineno = ++r->lineno;
}

/* Start keeping only the prefix of an overlong line. */
static void
start_long(struct reader *r)
{
	if (r->lng == NULL)
		r->lng = xmalloc(READER_LINE_MAX);
	memcpy(r->lng, r->buf + r->pos, READER_LINE_MAX);
	r->lng_off = r->base + r->pos;
	r->lng_len = r->end - r->pos;
	r->pos = r->end;
	r->in_long = 1;
}

/* Inside a long line: 1 when it ended and was emitted. */
static int
scan_long(struct reader *r, struct reader_line *l)
{
	char *p;

	p = memchr(r->buf + r->pos, '\n', r->end - r->pos);
	if (p == NULL && !r->eof) {
		r->lng_len += r->end - r->pos;
		r->pos = r->end;
		return 0;
	}
	if (p == NULL)
		p = r->buf + r->end;
	r->lng_len += (size_t)(p - (r->buf + r->pos));
	r->in_long = 0;
	emit(r, l, r->lng, READER_LINE_MAX, r->lng_off, r->lng_len,
	    p < r->buf + r->end);
	r->pos = (size_t)(p - r->buf) + (p < r->buf + r->end);
	return 1;
}

int
reader_next(struct reader *r, struct reader_line *l, char **cause)
{
	char *s, *p;

	for (;;) {
		if (r->in_long) {
			if (scan_long(r, l))
				return 1;
		} else {
			s = r->buf + r->pos;
			p = memchr(s, '\n', r->end - r->pos);
			if (p != NULL) {
				emit(r, l, s, (size_t)(p - s), r->base + r->pos,
				    (uint64_t)(p - s), 1);
				r->pos += (size_t)(p - s) + 1;
				return 1;
			}
			if (r->eof && r->pos < r->end) {
				emit(r, l, s, r->end - r->pos, r->base + r->pos,
				    r->end - r->pos, 0);
				r->pos = r->end;
				return 1;
			}
			if (r->end - r->pos >= READER_LINE_MAX) {
				start_long(r);
				continue;
			}
		}
		if (r->eof)
			return 0;
		if (fill(r, cause) != 0)
			return -1;
	}
}

void
reader_limit(struct reader *r, uint64_t bytes)
{
	if (r->gz)
		r->in_limit = bytes;
	else if (r->base + bytes < r->size)
		r->size = r->base + bytes;
}

int
reader_is_gzip(const struct reader *r)
{
	return r->gz;
}

uint64_t
reader_file_size(const struct reader *r)
{
	return r->size;
}

uint64_t
reader_consumed(const struct reader *r)
{
	if (r->gz)
		return r->in_total - r->z.avail_in;
	return r->consumed;
}

int
reader_line_at(const char *path, uint64_t off, struct buf *out, char **cause)
{
	struct reader *r;
	struct reader_line l;
	int gz, rc;

	if (reader_open(path, 0, 0, &r, cause) != 0)
		return -1;
	gz = r->gz;
	reader_close(r);
	if (reader_open(path, gz ? 0 : off, 0, &r, cause) != 0)
		return -1;
	buf_reset(out);
	while ((rc = reader_next(r, &l, cause)) == 1) {
		if (l.off < off)
			continue;
		if (l.off == off)
			buf_add(out, l.s, l.len);
		break;
	}
	if (rc == 0 || (rc == 1 && l.off != off))
		rc = ts_fail(cause, "'%s': no line starts at offset %llu", path,
		    (unsigned long long)off);
	reader_close(r);
	return rc == 1 ? 0 : -1;
}
