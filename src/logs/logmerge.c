/*
 * logmerge.c -- the time-ordered merge of a job's log lines (see
 * logmerge.h for the order and the costs).
 *
 * The model: a cursor is a boundary through every file.  For each file it
 * keeps the line just after the boundary (its head) and the line just
 * before (its tail), each with its effective time.  The row under the
 * cursor is the least head by (time, file, line); a step forward moves
 * that file's boundary one line on, a step back moves the file whose tail
 * is greatest one line back.  Because every file's keys rise with its
 * lines, the boundary is the same whichever way it was reached, so a page
 * up costs what a page down does.
 *
 * Lines come from chunks: the lines from one checkpoint of the cache to
 * the next, decoded (offset, length, own time, key, rank) by reading that
 * byte range once.  A checkpoint keeps the latest time seen up to its line,
 * which starts the running key of its chunk.  Chunks and open files live
 * in small LRUs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "base/util.h"
#include "db/cache.h"
#include "db/jobdb.h"
#include "db/linedb.h"
#include "logs/lineparse.h"
#include "logs/logmerge.h"
#include "logs/reader.h"

#define NSRC		64		/* open files kept */
#define NCHUNK		256		/* decoded chunks kept, at least */
#define NCHUNK_MAX	4096		/* and at most */
#define BLK		(64 * 1024)	/* bytes read at a time */
#define HEAD_BYTES	1024		/* of a line, read for its header */
#define STEP		8		/* lines decoded ahead at a time */

/* An open file of the LRU. */
struct src {
	long file;		/* -1: free */
	int fd;
	gzFile gz;
	uint64_t tick;
};

/*
 * The lines of one file between two checkpoints, decoded from the first
 * as far as they were needed.
 */
struct chunk {
	long file;		/* -1: free */
	uint64_t first;		/* its first line number */
	uint64_t total;		/* lines it covers (to the next checkpoint) */
	uint64_t resume;	/* offset of the next line to decode */
	double run;		/* the running key so far, NaN: none */
	int done;		/* decoded to its end (or the file's) */
	size_t n;		/* lines decoded */
	uint64_t *off;
	uint64_t *len;
	double *own;
	double *key;
	int *rank;
	size_t cap;
	uint64_t tick;
};

struct mfile {
	struct lm_file pub;
	struct linedb_file row;
	int kind;		/* the lp_ts_kind its times are read in */
	double none;		/* key of lines before its first time */
	int src;		/* slot + 1 in srcs, 0: closed */
	int chunk;		/* slot + 1 of its last chunk, 0: none */
};

struct logmerge {
	struct cache *cache;
	struct linedb *db;
	char *job, *root;
	struct mfile *files;
	size_t nfiles;
	double first, last;	/* the job's span of times */
	struct src srcs[NSRC];
	struct chunk *chunks;	/* one a file and some: a walk across all
				   files decodes each chunk once */
	size_t nchunks;
	uint64_t tick;
	char *buf;		/* BLK bytes for decoding */
};

/* One side of a file's boundary. */
struct side {
	uint64_t line;		/* 0: none (file start or end) */
	int known;		/* tail only: computed */
	struct lm_row row;
};

struct fpos {
	struct side head, tail;
};

struct lm_cursor {
	struct logmerge *m;
	struct fpos *f;
	long cur;		/* file of the row under the cursor, -1 none */
};

/* ---- the job and its files ---- */

/*
 * The job of `name` (a name, else an indexed directory): the one place a
 * job is looked up here.
 */
static int
find_job(struct cache *c, const char *name, int64_t *id, char **job,
    char **root, char **cause)
{
	struct job_ref ref;
	int rc;

	if ((rc = jobdb_find(c, name, &ref, cause)) < 0)
		return -1;
	if (rc == 0 || !ref.has_logs) {
		jobdb_release(&ref);
		ts_fail(cause, "no job '%s' with indexed logs in the cache "
		    "(index it first)", name);
		return -1;
	}
	*id = ref.id;
	*job = xstrdup(ref.name);
	*root = xstrdup(ref.root);
	jobdb_release(&ref);
	return 0;
}

/* Epoch seconds of 1 January of `year`, UTC. */
static double
year_start(int year)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = year - 1900;
	tm.tm_mday = 1;
	return (double)timegm(&tm);
}

static int
year_of(double t)
{
	time_t s = (time_t)t;
	struct tm tm;

	gmtime_r(&s, &tm);
	return tm.tm_year + 1900;
}

/* The job's span from its files with epoch times. */
static void
job_span(struct logmerge *m)
{
	size_t i;

	m->first = m->last = NAN;
	for (i = 0; i < m->nfiles; i++) {
		const struct linedb_file *r = &m->files[i].row;

		if (r->ts_kind != LP_TS_EPOCH || isnan(r->first_ts))
			continue;
		if (isnan(m->first) || r->first_ts < m->first)
			m->first = r->first_ts;
		if (!isnan(r->last_ts) && (isnan(m->last) || r->last_ts > m->last))
			m->last = r->last_ts;
		if (isnan(m->last) || r->first_ts > m->last)
			m->last = r->first_ts;
	}
}

/* How file f's times are read: timed, shifted, or anchored whole. */
static void
file_times(struct logmerge *m, struct mfile *f)
{
	const struct linedb_file *r = &f->row;
	double ref = !isnan(m->last) ? m->last : r->mtime, t;

	f->kind = r->ts_kind;
	f->pub.shift = 0;
	f->pub.timed = !isnan(r->first_ts) && (r->ts_kind == LP_TS_EPOCH ||
	    r->ts_kind == LP_TS_NOYEAR);
	if (f->pub.timed && r->ts_kind == LP_TS_NOYEAR) {
		f->pub.shift = year_start(year_of(ref));
		/* a date later in the year than the job: the year before */
		if (r->first_ts + f->pub.shift > ref + 31 * 86400.0)
			f->pub.shift = year_start(year_of(ref) - 1);
	}
	f->none = r->first_ts;
	t = r->mtime;
	if (!isnan(m->first) && t < m->first)
		t = m->first;
	if (!isnan(m->last) && t > m->last)
		t = m->last;
	f->pub.anchor = t;
	if (!f->pub.timed)
		f->kind = -1;
}

static int
load_files(struct logmerge *m, int64_t job, char **cause)
{
	struct linedb_file *rows;
	size_t i, n;

	if (linedb_files(m->db, job, &rows, &n, cause) != 0)
		return -1;
	m->files = xcalloc(n + 1, sizeof *m->files);
	m->nfiles = n;
	for (i = 0; i < n; i++) {
		struct mfile *f = &m->files[i];

		f->row = rows[i];
		f->pub.id = rows[i].id;
		f->pub.path = rows[i].path;
		f->pub.node = rows[i].node;
		f->pub.rank = rows[i].rank;
		f->pub.host = rows[i].host;
		f->pub.gz = rows[i].gz;
		f->pub.lines = rows[i].lines;
		f->pub.size = rows[i].size;
	}
	free(rows);		/* the strings now belong to m->files */
	job_span(m);
	for (i = 0; i < n; i++)
		file_times(m, &m->files[i]);
	return 0;
}

/* A merge with nothing loaded yet. */
static struct logmerge *
merge_new(struct cache *c)
{
	struct logmerge *m = xcalloc(1, sizeof *m);
	size_t i;

	m->cache = c;
	for (i = 0; i < NSRC; i++)
		m->srcs[i].file = -1;
	m->buf = xmalloc(BLK);
	return m;
}

/* Load job `job`'s files into m and size the chunk LRU: 0, or -1. */
static int
merge_load(struct logmerge *m, int64_t job, char **cause)
{
	size_t i;

	if (linedb_open(m->cache, &m->db, cause) != 0 ||
	    load_files(m, job, cause) != 0)
		return -1;
	m->nchunks = m->nfiles + 64 < NCHUNK ? NCHUNK : m->nfiles + 64;
	if (m->nchunks > NCHUNK_MAX)
		m->nchunks = NCHUNK_MAX;
	m->chunks = xcalloc(m->nchunks, sizeof *m->chunks);
	for (i = 0; i < m->nchunks; i++)
		m->chunks[i].file = -1;
	return 0;
}

int
lm_open(struct cache *c, const char *name, struct logmerge **out,
    char **cause)
{
	struct logmerge *m = merge_new(c);
	int64_t job;

	*out = NULL;
	if (find_job(c, name, &job, &m->job, &m->root, cause) != 0 ||
	    merge_load(m, job, cause) != 0) {
		lm_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

int
lm_open_job(struct cache *c, int64_t job, const char *name,
    const char *root, struct logmerge **out, char **cause)
{
	struct logmerge *m = merge_new(c);

	*out = NULL;
	m->job = xstrdup(name);
	m->root = xstrdup(root != NULL ? root : ".");
	if (merge_load(m, job, cause) != 0) {
		lm_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

static void
src_close(struct src *s)
{
	if (s->gz != NULL)
		gzclose(s->gz);
	else if (s->fd >= 0)
		close(s->fd);
	s->gz = NULL;
	s->fd = -1;
	s->file = -1;
}

void
lm_free(struct logmerge *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < NSRC; i++)
		if (m->srcs[i].file >= 0)
			src_close(&m->srcs[i]);
	for (i = 0; i < m->nchunks; i++) {
		struct chunk *k = &m->chunks[i];

		free(k->off);
		free(k->len);
		free(k->own);
		free(k->key);
		free(k->rank);
	}
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].row.path);
		free(m->files[i].row.node);
	}
	free(m->files);
	free(m->chunks);
	linedb_free(m->db);
	free(m->job);
	free(m->root);
	free(m->buf);
	free(m);
}

const char *
lm_job(const struct logmerge *m)
{
	return m->job;
}

const char *
lm_root(const struct logmerge *m)
{
	return m->root;
}

size_t
lm_nfiles(const struct logmerge *m)
{
	return m->nfiles;
}

const struct lm_file *
lm_file(const struct logmerge *m, size_t i)
{
	return &m->files[i].pub;
}

void
lm_span(const struct logmerge *m, double *first, double *last)
{
	*first = m->first;
	*last = m->last;
}

uint64_t
lm_total(const struct logmerge *m)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < m->nfiles; i++)
		n += m->files[i].pub.lines;
	return n;
}

/* A time of s in strptime's format f: the rest of s after it, or NULL. */
static const char *
time_of(const char *s, const char *f, struct tm *tm, double *frac)
{
	const char *end = strptime(s, f, tm);
	char *e;

	*frac = 0;
	if (end != NULL && *end == '.' && end[1] >= '0' && end[1] <= '9') {
		*frac = strtod(end, &e);
		end = e;
	}
	return end;
}

int
lm_parse_time(const struct logmerge *m, const char *s, double *t,
    char **cause)
{
	struct tm tm;
	const char *end;
	char *e;
	double frac;
	time_t last;

	if (s[0] == '@') {
		*t = strtod(s + 1, &e);
		if (e != s + 1 && *e == '\0' && isfinite(*t))
			return 0;
	}
	memset(&tm, 0, sizeof tm);
	if ((end = time_of(s, "%Y-%m-%d %H:%M:%S", &tm, &frac)) == NULL)
		end = time_of(s, "%Y-%m-%dT%H:%M:%S", &tm, &frac);
	if (end != NULL && *end == '\0') {
		*t = (double)timegm(&tm) + frac;
		return 0;
	}
	/* a time of day: of the job's last day (the day before when that
	   puts it more than 12 hours after the job's end) */
	last = (time_t)(isnan(m->last) ? (double)time(NULL) : m->last);
	memset(&tm, 0, sizeof tm);
	gmtime_r(&last, &tm);
	end = time_of(s, "%H:%M:%S", &tm, &frac);
	if (end == NULL || *end != '\0' || strchr(s, ':') == NULL)
		return ts_fail(cause, "'%s' is no time ([YYYY-MM-DD ]"
		    "HH:MM:SS[.FFF] or @EPOCH)", s);
	*t = (double)timegm(&tm) + frac;
	if (*t > (double)last + 43200)
		*t -= 86400;
	return 0;
}

long
lm_find_file(const struct logmerge *m, const char *path)
{
	size_t lo = 0, hi = m->nfiles, mid;
	int c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcmp(m->files[mid].pub.path, path);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- reading files through the LRU of open files ---- */

static struct src *
src_get(struct logmerge *m, size_t file, char **cause)
{
	struct mfile *f = &m->files[file];
	struct src *s;
	char *path;
	size_t i, old = 0;
	int fd;

	if (f->src > 0 && m->srcs[f->src - 1].file == (long)file) {
		s = &m->srcs[f->src - 1];
		s->tick = ++m->tick;
		return s;
	}
	for (i = 0; i < NSRC; i++) {
		if (m->srcs[i].file < 0) {
			old = i;
			break;
		}
		if (m->srcs[i].tick < m->srcs[old].tick)
			old = i;
	}
	s = &m->srcs[old];
	if (s->file >= 0)
		src_close(s);
	path = xasprintf("%s/%s", m->root, f->pub.path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ts_fail(cause, "cannot open '%s': %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	free(path);
	s->fd = fd;
	s->gz = NULL;
	if (f->pub.gz && (s->gz = gzdopen(fd, "rb")) == NULL) {
		close(fd);
		ts_fail(cause, "cannot read '%s': out of memory", f->pub.path);
		return NULL;
	}
	if (s->gz != NULL)
		gzbuffer(s->gz, 128 * 1024);
	s->file = (long)file;
	s->tick = ++m->tick;
	f->src = (int)old + 1;
	return s;
}

/*
 * Read up to n bytes of file `file` at (uncompressed) offset off.  Returns
 * the bytes read (0 at the end), or -1 with *cause.
 */
static ssize_t
src_read(struct logmerge *m, size_t file, uint64_t off, char *buf, size_t n,
    char **cause)
{
	struct src *s = src_get(m, file, cause);
	ssize_t got;
	int err;

	if (s == NULL)
		return -1;
	if (s->gz == NULL) {
		got = pread(s->fd, buf, n, (off_t)off);
		if (got < 0)
			ts_fail(cause, "cannot read '%s': %s",
			    m->files[file].pub.path, strerror(errno));
		return got;
	}
	if (gzseek(s->gz, (z_off_t)off, SEEK_SET) < 0) {
		gzclearerr(s->gz);
		return 0;	/* past the end of a short stream */
	}
	got = gzread(s->gz, buf, (unsigned)n);
	if (got < 0 || (got == 0 && gzerror(s->gz, &err) != NULL &&
	    err != Z_OK && err != Z_BUF_ERROR)) {
		ts_fail(cause, "cannot read '%s': %s", m->files[file].pub.path,
		    gzerror(s->gz, &err));
		gzclearerr(s->gz);
		return -1;
	}
	return got;
}

/* ---- chunks ---- */

static void
chunk_add(struct chunk *k, uint64_t off, uint64_t len, double own, int rank)
{
	if (k->n == k->cap) {
		size_t cap = k->cap;

		k->off = xgrow(k->off, &cap, k->n + 1, sizeof *k->off);
		k->len = xrealloc(k->len, cap * sizeof *k->len);
		k->own = xrealloc(k->own, cap * sizeof *k->own);
		k->key = xrealloc(k->key, cap * sizeof *k->key);
		k->rank = xrealloc(k->rank, cap * sizeof *k->rank);
		k->cap = cap;
	}
	k->off[k->n] = off;
	k->len[k->n] = len;
	k->own[k->n] = own;
	k->rank[k->n] = rank;
	k->n++;
}

/* The line's own time and rank, from its first bytes. */
static void
line_head(const struct mfile *f, const char *s, size_t len, double *own,
    int *rank)
{
	struct lp_line lp;

	if (len > HEAD_BYTES)
		len = HEAD_BYTES;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	lp_parse(s, len, &lp);
	*own = (int)lp.ts_kind == f->kind ? lp.ts + f->pub.shift : NAN;
	*rank = lp.rank >= 0 ? lp.rank : f->pub.rank;
}

/*
 * The rest of a line longer than the buffer, from `off`: its length up to
 * the newline (or the end).  Returns 0, or -1 with *cause.
 */
static int
long_line(struct logmerge *m, size_t file, uint64_t start, uint64_t off,
    uint64_t *len, int *eof, char **cause)
{
	ssize_t n;
	char *nl;

	for (;;) {
		if ((n = src_read(m, file, off, m->buf, BLK, cause)) < 0)
			return -1;
		if (n == 0) {
			*eof = 1;
			*len = off - start;
			return 0;
		}
		if ((nl = memchr(m->buf, '\n', (size_t)n)) != NULL) {
			*len = off + (uint64_t)(nl - m->buf) - start;
			return 0;
		}
		off += (uint64_t)n;
	}
}

/*
 * Decode lines of chunk k from k->resume until it holds `want` (or the
 * file ends).  Returns 0, or -1 with *cause.
 */
static int
read_lines(struct logmerge *m, size_t file, uint64_t want, struct chunk *k,
    char **cause)
{
	struct mfile *f = &m->files[file];
	uint64_t off = k->resume, len;
	ssize_t n;
	char *p, *nl, *end;
	double own;
	int rank, eof = 0;

	while (k->n < want && !eof) {
		if ((n = src_read(m, file, off, m->buf, BLK, cause)) < 0)
			return -1;
		if (n == 0) {
			k->done = 1;
			break;
		}
		p = m->buf;
		end = m->buf + n;
		while (k->n < want && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			line_head(f, p, (size_t)(nl - p), &own, &rank);
			chunk_add(k, off + (uint64_t)(p - m->buf),
			    (uint64_t)(nl - p), own, rank);
			p = nl + 1;
		}
		if (k->n >= want) {
			off += (uint64_t)(p - m->buf);
			break;
		}
		if (p == m->buf) {	/* a line longer than the buffer */
			line_head(f, p, (size_t)n, &own, &rank);
			if (long_line(m, file, off, off + (uint64_t)n, &len,
			    &eof, cause) != 0)
				return -1;
			chunk_add(k, off, len, own, rank);
			off += len + 1;
			continue;
		}
		if (n < BLK && p < end) {	/* the last line, no newline */
			line_head(f, p, (size_t)(end - p), &own, &rank);
			chunk_add(k, off + (uint64_t)(p - m->buf),
			    (uint64_t)(end - p), own, rank);
			off += (uint64_t)(end - p);
			k->done = 1;
			break;
		}
		off += (uint64_t)(p - m->buf);
	}
	k->resume = off;
	if (eof || k->n >= k->total)
		k->done = 1;
	return 0;
}

/* The running keys of the chunk's lines from `from` on. */
static void
chunk_keys(const struct mfile *f, struct chunk *k, size_t from)
{
	double key = k->run;
	size_t i;

	for (i = from; i < k->n; i++) {
		if (!f->pub.timed) {
			k->key[i] = f->pub.anchor;
			continue;
		}
		if (!isnan(k->own[i]) && (isnan(key) || k->own[i] > key))
			key = k->own[i];
		k->key[i] = isnan(key) ? f->none + f->pub.shift : key;
	}
	k->run = key;
}

/*
 * Decode the chunk on to line `line` and STEP more.  Returns 1 when it
 * holds the line, 0 when it ends before, -1 with *cause.
 */
static int
chunk_upto(struct logmerge *m, struct chunk *k, uint64_t line, char **cause)
{
	size_t from = k->n;
	uint64_t want = line - k->first + 1 + STEP;

	if (line < k->first + k->n)
		return 1;
	if (k->done)
		return 0;
	if (want > k->total)
		want = k->total;
	if (read_lines(m, (size_t)k->file, want, k, cause) != 0)
		return -1;
	chunk_keys(&m->files[k->file], k, from);
	return line < k->first + k->n;
}

static struct chunk *
chunk_slot(struct logmerge *m)
{
	size_t i, old = 0;

	for (i = 0; i < m->nchunks; i++) {
		if (m->chunks[i].file < 0)
			return &m->chunks[i];
		if (m->chunks[i].tick < m->chunks[old].tick)
			old = i;
	}
	return &m->chunks[old];
}

/* The cached chunk of `file` holding `line`, or NULL. */
static struct chunk *
chunk_find(struct logmerge *m, size_t file, uint64_t line)
{
	struct mfile *f = &m->files[file];
	struct chunk *k;
	size_t i;

	if (f->chunk > 0) {
		k = &m->chunks[f->chunk - 1];
		if (k->file == (long)file && line >= k->first &&
		    line < k->first + k->total)
			return k;
	}
	for (i = 0; i < m->nchunks; i++) {
		k = &m->chunks[i];
		if (k->file == (long)file && line >= k->first &&
		    line < k->first + k->total) {
			f->chunk = (int)i + 1;
			return k;
		}
	}
	return NULL;
}

/*
 * The chunk of `file` holding `line`: 1 with *out, 0 when the file has no
 * such line, -1 with *cause.
 */
static int
chunk_get(struct logmerge *m, size_t file, uint64_t line,
    struct chunk **out, char **cause)
{
	struct mfile *f = &m->files[file];
	struct linedb_cp at, next;
	struct chunk *k;
	int rc;

	if (line == 0 || line > f->pub.lines)
		return 0;
	if ((k = chunk_find(m, file, line)) != NULL) {
		k->tick = ++m->tick;
		if ((rc = chunk_upto(m, k, line, cause)) != 1)
			return rc;
		*out = k;
		return 1;
	}
	rc = linedb_cp_at(m->db, f->pub.id, line, &at, &next, cause);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		at.line = 1;
		at.off = 0;
		at.ts = NAN;
		next.line = 0;
	}
	k = chunk_slot(m);
	k->n = 0;
	k->first = at.line;
	k->total = (next.line > at.line ? next.line : f->pub.lines + 1) -
	    at.line;
	k->resume = at.off;
	k->run = isnan(at.ts) ? NAN : at.ts + f->pub.shift;
	k->done = 0;
	k->file = (long)file;
	k->tick = ++m->tick;
	f->chunk = (int)(k - m->chunks) + 1;
	if ((rc = chunk_upto(m, k, line, cause)) < 0) {
		k->file = -1;
		return -1;
	}
	if (rc == 0)
		return 0;	/* the file is shorter than it was */
	*out = k;
	return 1;
}

static void
fill_row(const struct logmerge *m, size_t file, const struct chunk *k,
    size_t i, struct lm_row *r)
{
	const struct mfile *f = &m->files[file];

	r->file = file;
	r->path = f->pub.path;
	r->node = f->pub.node;
	r->line = k->first + i;
	r->off = k->off[i];
	r->len = k->len[i];
	r->own = k->own[i];
	r->eff = k->key[i];
	r->rank = k->rank[i];
}

int
lm_line(struct logmerge *m, size_t file, uint64_t line, struct lm_row *row,
    char **cause)
{
	struct chunk *k;
	int rc;

	if (file >= m->nfiles)
		return 0;
	if ((rc = chunk_get(m, file, line, &k, cause)) != 1)
		return rc;
	fill_row(m, file, k, (size_t)(line - k->first), row);
	return 1;
}

int
lm_text(struct logmerge *m, const struct lm_row *row, struct buf *out,
    char **cause)
{
	uint64_t want = row->len < READER_LINE_MAX ? row->len : READER_LINE_MAX;
	ssize_t n;
	size_t got = 0;

	buf_reset(out);
	buf_grow(out, (size_t)want + 1);
	while (got < want) {
		n = src_read(m, row->file, row->off + got, out->s + got,
		    (size_t)(want - got), cause);
		if (n < 0)
			return -1;
		if (n == 0) {
			ts_fail(cause, "'%s' is shorter than when it was "
			    "indexed", row->path);
			return -1;
		}
		got += (size_t)n;
	}
	if (got > 0 && out->s[got - 1] == '\r' && got == row->len)
		got--;
	out->len = got;
	out->s[got] = '\0';
	return 0;
}

char *
lm_pos(const struct logmerge *m, const struct lm_row *row)
{
	return xasprintf("%s:%llu", m->files[row->file].pub.path,
	    (unsigned long long)row->line);
}

int
lm_parse_pos(const struct logmerge *m, const char *pos, size_t *file,
    uint64_t *line, char **cause)
{
	const char *colon = strrchr(pos, ':');
	char *path, *end;
	unsigned long long v;
	long i;

	errno = 0;
	if (colon == NULL || colon == pos || colon[1] < '0' || colon[1] > '9' ||
	    (v = strtoull(colon + 1, &end, 10), *end != '\0') || errno != 0 ||
	    v == 0) {
		ts_fail(cause, "'%s' is not PATH:LINE", pos);
		return -1;
	}
	path = xstrndup(pos, (size_t)(colon - pos));
	if (strncmp(path, "./", 2) == 0)
		memmove(path, path + 2, strlen(path + 2) + 1);
	i = lm_find_file(m, path);
	if (i < 0) {
		ts_fail(cause, "no file '%s' in job %s", path, m->job);
		free(path);
		return -1;
	}
	free(path);
	*file = (size_t)i;
	*line = v;
	return 0;
}

/* ---- the cursor ---- */

struct lm_cursor *
lm_cursor_new(struct logmerge *m)
{
	struct lm_cursor *cur = xcalloc(1, sizeof *cur);

	cur->m = m;
	cur->f = xcalloc(m->nfiles + 1, sizeof *cur->f);
	cur->cur = -1;
	return cur;
}

void
lm_cursor_copy(struct lm_cursor *dst, const struct lm_cursor *src)
{
	memcpy(dst->f, src->f, src->m->nfiles * sizeof *dst->f);
	dst->cur = src->cur;
}

uint64_t
lm_index(const struct lm_cursor *cur, const unsigned char *want)
{
	const struct logmerge *m = cur->m;
	uint64_t n = 0;
	size_t i;

	if (cur->cur < 0)
		return 0;
	for (i = 0; i < m->nfiles; i++) {
		if (want != NULL && !want[i])
			continue;
		n += cur->f[i].head.line != 0 ? cur->f[i].head.line - 1 :
		    m->files[i].pub.lines;
	}
	return n;
}

void
lm_cursor_free(struct lm_cursor *cur)
{
	if (cur == NULL)
		return;
	free(cur->f);
	free(cur);
}

/* Order of two rows: by effective time, then file, then line. */
static int
row_cmp(const struct lm_row *a, const struct lm_row *b)
{
	if (a->eff != b->eff)
		return a->eff < b->eff ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* Set a side to line `line` of file `file` (0 or past the end: none). */
static int
side_set(struct logmerge *m, size_t file, uint64_t line, struct side *s,
    char **cause)
{
	int rc;

	s->known = 1;
	s->line = 0;
	if (line == 0)
		return 0;
	if ((rc = lm_line(m, file, line, &s->row, cause)) < 0)
		return -1;
	if (rc == 1)
		s->line = line;
	return 0;
}

/* The file's last line (it may have shrunk since it was indexed). */
static int
last_line(struct logmerge *m, size_t file, struct side *s, char **cause)
{
	struct mfile *f = &m->files[file];
	struct chunk *k;
	uint64_t l = f->pub.lines;

	while (l > 0) {
		if (side_set(m, file, l, s, cause) != 0)
			return -1;
		if (s->line != 0 || f->chunk == 0)
			return 0;
		/* shorter now: the last line the chunk still holds */
		k = &m->chunks[f->chunk - 1];
		if (k->file != (long)file || k->first > l)
			return 0;
		l = k->n > 0 && k->first + k->n - 1 < l ? k->first + k->n - 1 :
		    k->first - 1;
	}
	s->known = 1;
	s->line = 0;
	return 0;
}

/* Make the tail of file `file` known. */
static int
need_tail(struct lm_cursor *cur, size_t file, char **cause)
{
	struct fpos *p = &cur->f[file];

	if (p->tail.known)
		return 0;
	if (p->head.line == 0)
		return last_line(cur->m, file, &p->tail, cause);
	return side_set(cur->m, file, p->head.line - 1, &p->tail, cause);
}

/* The file of the least head, or -1. */
static long
least_head(const struct lm_cursor *cur)
{
	long best = -1;
	size_t i;

	for (i = 0; i < cur->m->nfiles; i++)
		if (cur->f[i].head.line != 0 && (best < 0 ||
		    row_cmp(&cur->f[i].head.row, &cur->f[best].head.row) < 0))
			best = (long)i;
	return best;
}

/*
 * Put file `file`'s boundary before its first line whose key is at or
 * after `t` (after it when `strict`).
 */
static int
file_seek(struct lm_cursor *cur, size_t file, double t, int strict,
    char **cause)
{
	struct logmerge *m = cur->m;
	struct mfile *f = &m->files[file];
	struct fpos *p = &cur->f[file];
	struct linedb_cp cp;
	struct chunk *k;
	uint64_t line = 1;
	size_t i;
	int rc;

	memset(p, 0, sizeof *p);
	if (f->pub.lines == 0)
		return 0;
	if (!f->pub.timed) {
		if (strict ? f->pub.anchor > t : f->pub.anchor >= t)
			return side_set(m, file, 1, &p->head, cause);
		return 0;	/* the head is past the end; tail later */
	}
	rc = linedb_cp_before(m->db, f->pub.id, t - f->pub.shift, f->none,
	    strict, &cp, cause);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		if ((rc = chunk_get(m, file, cp.line, &k, cause)) < 0)
			return -1;
		if (rc == 0)
			return 0;
		for (i = (size_t)(cp.line - k->first); ; i++) {
			if (i >= k->n && (rc = chunk_upto(m, k, k->first + i,
			    cause)) != 1) {
				if (rc < 0)
					return -1;
				break;
			}
			if (strict ? k->key[i] > t : k->key[i] >= t)
				break;
		}
		line = k->first + i;
		if (i > 0 && i <= k->n) {
			fill_row(m, file, k, i - 1, &p->tail.row);
			p->tail.line = line - 1;
			p->tail.known = 1;
		}
	}
	if (side_set(m, file, line, &p->head, cause) != 0)
		return -1;
	if (line == 1)
		p->tail.known = 1;
	return 0;
}

/* Every file's boundary at key t; then the row under the cursor. */
static int
seek_all(struct lm_cursor *cur, double t, long file, char **cause)
{
	size_t i;

	for (i = 0; i < cur->m->nfiles; i++) {
		if ((long)i == file)
			continue;
		if (file_seek(cur, i, t, file >= 0 && (long)i < file,
		    cause) != 0)
			return -1;
	}
	cur->cur = least_head(cur);
	if (cur->cur < 0)
		return lm_seek_last(cur, cause);
	return 0;
}

int
lm_seek_first(struct lm_cursor *cur, char **cause)
{
	size_t i;

	for (i = 0; i < cur->m->nfiles; i++) {
		memset(&cur->f[i], 0, sizeof cur->f[i]);
		cur->f[i].tail.known = 1;
		if (side_set(cur->m, i, 1, &cur->f[i].head, cause) != 0)
			return -1;
	}
	cur->cur = least_head(cur);
	return 0;
}

int
lm_seek_last(struct lm_cursor *cur, char **cause)
{
	size_t i;

	for (i = 0; i < cur->m->nfiles; i++) {
		memset(&cur->f[i], 0, sizeof cur->f[i]);
		if (last_line(cur->m, i, &cur->f[i].tail, cause) != 0)
			return -1;
	}
	cur->cur = -1;
	if (lm_prev(cur, cause) < 0)
		return -1;
	return 0;
}

int
lm_seek_time(struct lm_cursor *cur, double t, char **cause)
{
	return seek_all(cur, t, -1, cause);
}

int
lm_seek_line(struct lm_cursor *cur, size_t file, uint64_t line,
    char **cause)
{
	struct logmerge *m = cur->m;
	struct fpos *p;
	struct side s;

	if (file >= m->nfiles)
		return lm_seek_first(cur, cause);
	memset(&s, 0, sizeof s);
	if (side_set(m, file, line, &s, cause) != 0)
		return -1;
	if (s.line == 0 && last_line(m, file, &s, cause) != 0)
		return -1;
	if (s.line == 0)
		return lm_seek_first(cur, cause);
	p = &cur->f[file];
	memset(p, 0, sizeof *p);
	p->head = s;
	if (s.line == 1)
		p->tail.known = 1;
	return seek_all(cur, s.row.eff, (long)file, cause);
}

int
lm_next(struct lm_cursor *cur, char **cause)
{
	struct fpos *p, save;
	long was = cur->cur;

	if (was < 0)
		return 0;
	p = &cur->f[was];
	save = *p;
	p->tail = p->head;
	if (side_set(cur->m, (size_t)was, p->head.line + 1, &p->head,
	    cause) != 0) {
		*p = save;
		return -1;
	}
	cur->cur = least_head(cur);
	if (cur->cur < 0) {	/* that was the last row: stay on it */
		*p = save;
		cur->cur = was;
		return 0;
	}
	return 1;
}

int
lm_prev(struct lm_cursor *cur, char **cause)
{
	struct fpos *p;
	long best = -1;
	size_t i;

	for (i = 0; i < cur->m->nfiles; i++) {
		if (need_tail(cur, i, cause) != 0)
			return -1;
		if (cur->f[i].tail.line != 0 && (best < 0 ||
		    row_cmp(&cur->f[i].tail.row, &cur->f[best].tail.row) > 0))
			best = (long)i;
	}
	if (best < 0)
		return 0;
	p = &cur->f[best];
	p->head = p->tail;
	p->head.known = 1;
	memset(&p->tail, 0, sizeof p->tail);
	if (p->head.line == 1)
		p->tail.known = 1;
	cur->cur = least_head(cur);
	return 1;
}

int
lm_row(const struct lm_cursor *cur, struct lm_row *row)
{
	if (cur->cur < 0)
		return 0;
	*row = cur->f[cur->cur].head.row;
	return 1;
}
