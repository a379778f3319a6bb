/*
 * grep.c -- the raw-text search of a job's log files (see grep.h).
 *
 * Two phases.  First, worker threads take the files one at a time and
 * read each in blocks of a few MiB (a plain file up to the size it had
 * when indexed); the pattern runs over a whole block of complete lines at
 * once, and only where it matches are the line's ends found (memrchr and
 * memchr), as grep does.  A literal the pattern must start with is looked
 * for with memmem first and the pattern then runs on that one line.  When
 * the lines themselves are wanted, newlines are counted between matches
 * to number them, and each selected line is kept as two varints (the gap
 * in line number and in offset to the one before).  Counting alone keeps
 * nothing.  Second, the files' lists are merged by the merged log's key
 * (logmerge.h) with a heap, and each line's time comes from the merge's
 * chunks.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <zlib.h>

#include "base/util.h"
#include "db/logdb.h"
#include "logs/grep.h"
#include "logs/logmerge.h"

#define BLOCK		(4 * 1024 * 1024)
#define MAX_THREADS	16

struct grep {
	pcre2_code *code;
	int jit;
	char *lit;		/* a literal every match starts with, or NULL */
	size_t litlen;
	int per_line;		/* it may look past a line: match line by line */
};

/* What the search found in one file. */
struct fres {
	struct buf list;	/* varints: line gap, offset gap */
	uint64_t n;		/* selected lines */
	char *err;
};

struct run {
	struct grep *g;
	struct logmerge *m;
	const struct grep_opts *o;
	int want_lines;		/* keep the lines, not only count them */
	struct fres *res;
	size_t next;		/* next file to take */
	int failed;
	pthread_mutex_t mu;
};

/* One thread's state while it scans a file. */
struct scan {
	struct run *run;
	struct fres *r;
	pcre2_match_data *md;
	char *buf;
	size_t cap;
	uint64_t base;		/* file offset of buf[0] */
	uint64_t lineno;	/* line number of the line at buf[0] */
	uint64_t prev_line, prev_off;
};

/* ---- the pattern ---- */

/*
 * The literal the pattern starts with, if every match must (caseless:
 * only one without letters, which has no other case to match).
 */
static void
find_literal(struct grep *g, const char *pat, int caseless)
{
	const char *p = pat, *meta = "\\^$.|?*+()[]{}";
	size_t n, i;

	if (strchr(pat, '|') != NULL)
		return;
	if (*p == '^')
		p++;
	for (n = 0; p[n] != '\0' && strchr(meta, p[n]) == NULL; n++)
		;
	/* "ab?" or "ab*": the last letter is optional */
	if (n > 0 && p[n] != '\0' && strchr("?*{", p[n]) != NULL)
		n--;
	if (n < 2)
		return;
	for (i = 0; caseless && i < n; i++)
		if ((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
		    (unsigned char)p[i] >= 0x80)
			return;
	g->lit = xstrndup(p, n);
	g->litlen = n;
}

/*
 * Can a block's matching differ from each line's alone: lookaround,
 * atomic groups, verbs and callouts, anchors of the subject's ends, and
 * possessive quantifiers (which may eat a newline and not give it back)?
 * Then lines are matched one by one.
 */
static int
looks_across(const char *pat)
{
	static const char *const marks[] = { "(?", "(*", "++", "*+", "?+",
	    "}+" };
	const char *p;
	size_t i;

	for (i = 0; i < TS_NELEM(marks); i++)
		if (strstr(pat, marks[i]) != NULL)
			return 1;
	for (p = pat; (p = strchr(p, '\\')) != NULL && p[1] != '\0'; p += 2)
		if (strchr("AzZGK", p[1]) != NULL)
			return 1;
	return 0;
}

int
grep_compile(const char *pattern, struct grep **out, size_t *err_off,
    char **cause)
{
	return grep_compile_flags(pattern, 0, out, err_off, cause);
}

int
grep_compile_flags(const char *pattern, int flags, struct grep **out,
    size_t *err_off, char **cause)
{
	struct grep *g = xcalloc(1, sizeof *g);
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	int err, caseless = (flags & GREP_CASELESS) != 0;

	*out = NULL;
	*err_off = 0;
	g->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	    PCRE2_MULTILINE | (caseless ? PCRE2_CASELESS : 0), &err, &off,
	    NULL);
	if (g->code == NULL) {
		pcre2_get_error_message(err, msg, sizeof msg);
		ts_fail(cause, "bad pattern: %s", (const char *)msg);
		*err_off = off;
		free(g);
		return -1;
	}
	g->jit = pcre2_jit_compile(g->code, PCRE2_JIT_COMPLETE) == 0;
	find_literal(g, pattern, caseless);
	g->per_line = looks_across(pattern);
	*out = g;
	return 0;
}

void
grep_free(struct grep *g)
{
	if (g == NULL)
		return;
	pcre2_code_free(g->code);
	free(g->lit);
	free(g);
}

static int
run_match(const struct grep *g, const char *s, size_t len, size_t from,
    pcre2_match_data *md)
{
	if (g->jit)
		return pcre2_jit_match(g->code, (PCRE2_SPTR)s, len, from, 0, md,
		    NULL);
	return pcre2_match(g->code, (PCRE2_SPTR)s, len, from, 0, md, NULL);
}

int
grep_match(const struct grep *g, const char *s, size_t len)
{
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	int rc = run_match(g, s, len, 0, md);

	pcre2_match_data_free(md);
	return rc >= 0;
}

/* Has the caller asked the search to stop? */
static int
cancelled(const struct grep_opts *o)
{
	return o->cancel != NULL && __atomic_load_n(o->cancel,
	    __ATOMIC_RELAXED) != 0;
}

/* ---- phase one: the files ---- */

static uint64_t
count_nl(const char *s, size_t n)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < n; i++)
		c += s[i] == '\n';
	return c;
}

/* Keep line [ls, ...) of the block: its number and offset. */
static void
keep_line(struct scan *sc, size_t ls, size_t *counted)
{
	uint64_t line, off;

	sc->r->n++;
	if (!sc->run->want_lines)
		return;
	sc->lineno += count_nl(sc->buf + *counted, ls - *counted);
	*counted = ls;
	line = sc->lineno;
	off = sc->base + ls;
	logdb_varint_put(&sc->r->list, line - sc->prev_line);
	logdb_varint_put(&sc->r->list, off - sc->prev_off);
	sc->prev_line = line;
	sc->prev_off = off;
}

/* With invert: keep every line in [from, to) (to is a line start). */
static void
keep_between(struct scan *sc, size_t from, size_t to, size_t *counted)
{
	const char *nl;

	if (!sc->run->want_lines) {
		sc->r->n += count_nl(sc->buf + from, to - from);
		return;
	}
	while (from < to) {
		keep_line(sc, from, counted);
		nl = memchr(sc->buf + from, '\n', to - from);
		from = (size_t)(nl - sc->buf) + 1;
	}
}

/*
 * The next matching line at or after `pos` in buf[0..len) (complete
 * lines): 1 with its start and end (the newline), 0 when there is none.
 */
static int
next_match(struct scan *sc, size_t pos, size_t len, size_t *ls, size_t *le)
{
	const struct grep *g = sc->run->g;
	const char *s = sc->buf, *p, *nl;
	PCRE2_SIZE *ov = NULL;

	while (pos < len) {
		if (g->per_line && g->lit == NULL) {
			*ls = pos;
			nl = memchr(s + pos, '\n', len - pos);
			*le = nl != NULL ? (size_t)(nl - s) : len;
			if (run_match(g, s + *ls, *le - *ls, 0, sc->md) >= 0)
				return 1;
			pos = *le + 1;
			continue;
		}
		if (g->lit != NULL) {
			p = memmem(s + pos, len - pos, g->lit, g->litlen);
			if (p == NULL)
				return 0;
		} else {
			if (run_match(g, s, len, pos, sc->md) < 0)
				return 0;
			ov = pcre2_get_ovector_pointer(sc->md);
			if (ov[0] >= len)	/* after the last newline */
				return 0;
			p = s + ov[0];
		}
		nl = memrchr(s + pos, '\n', (size_t)(p - (s + pos)));
		*ls = nl != NULL ? (size_t)(nl - s) + 1 : pos;
		nl = memchr(p, '\n', len - (size_t)(p - s));
		*le = nl != NULL ? (size_t)(nl - s) : len;
		/* a literal's line, or a match that ran past its line */
		if ((g->lit == NULL && !g->per_line && ov[1] <= *le) ||
		    run_match(g, s + *ls, *le - *ls, 0, sc->md) >= 0)
			return 1;
		pos = *le + 1;
	}
	return 0;
}

/* Search buf[0..len), complete lines ending in a newline. */
static void
scan_block(struct scan *sc, size_t len)
{
	size_t pos = 0, ls, le, counted = 0;
	int invert = sc->run->o->invert;

	while (pos < len && next_match(sc, pos, len, &ls, &le)) {
		if (invert)
			keep_between(sc, pos, ls, &counted);
		else
			keep_line(sc, ls, &counted);
		pos = le + 1;
	}
	if (invert && pos < len)
		keep_between(sc, pos, len, &counted);
	if (sc->run->want_lines)
		sc->lineno += count_nl(sc->buf + counted, len - counted);
}

/* Read more of the file into sc->buf at `at`: bytes read, 0 end, -1. */
static ssize_t
fill(int fd, gzFile gz, char *to, size_t n, uint64_t *left)
{
	ssize_t got;

	if (gz != NULL)
		return gzread(gz, to, (unsigned)n);
	if (n > *left)
		n = (size_t)*left;
	if (n == 0)
		return 0;
	do
		got = read(fd, to, n);
	while (got < 0 && errno == EINTR);
	if (got > 0)
		*left -= (uint64_t)got;
	return got;
}

static void
scan_blocks(struct scan *sc, int fd, gzFile gz, uint64_t left,
    const char *path)
{
	size_t have = 0, done;
	ssize_t got;
	const char *nl;

	for (;;) {
		if (cancelled(sc->run->o))
			return;
		if (have == sc->cap) {	/* a line longer than the buffer */
			sc->cap *= 2;
			sc->buf = xrealloc(sc->buf, sc->cap + 1);
		}
		got = fill(fd, gz, sc->buf + have, sc->cap - have, &left);
		if (got < 0) {
			sc->r->err = xasprintf("cannot read '%s': %s", path,
			    gz != NULL ? "bad gzip data" : strerror(errno));
			return;
		}
		if (got == 0) {
			if (have > 0) {	/* the last line has no newline */
				sc->buf[have++] = '\n';
				scan_block(sc, have);
			}
			return;
		}
		have += (size_t)got;
		if ((nl = memrchr(sc->buf, '\n', have)) == NULL)
			continue;
		done = (size_t)(nl - sc->buf) + 1;
		scan_block(sc, done);
		memmove(sc->buf, sc->buf + done, have - done);
		have -= done;
		sc->base += done;
	}
}

static void
scan_file(struct scan *sc, size_t fi)
{
	const struct lm_file *f = lm_file(sc->run->m, fi);
	char *path = xasprintf("%s/%s", lm_root(sc->run->m), f->path);
	gzFile gz = NULL;
	int fd;

	sc->base = 0;
	sc->lineno = 1;
	sc->prev_line = sc->prev_off = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		sc->r->err = xasprintf("cannot open '%s': %s", path,
		    strerror(errno));
		free(path);
		return;
	}
	if (f->gz && (gz = gzdopen(fd, "rb")) == NULL) {
		close(fd);
		sc->r->err = xasprintf("cannot read '%s'", path);
		free(path);
		return;
	}
	if (gz != NULL)
		gzbuffer(gz, 256 * 1024);
	else
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	scan_blocks(sc, fd, gz, f->size, path);
	if (gz != NULL)
		gzclose(gz);
	else
		close(fd);
	free(path);
}

static int
file_wanted(const struct run *run, size_t fi)
{
	const struct lm_file *f = lm_file(run->m, fi);

	return (run->o->node == NULL || strcmp(f->node, run->o->node) == 0) &&
	    (run->o->file == NULL || run->o->file(run->o->file_arg, f));
}

static void *
worker(void *arg)
{
	struct run *run = arg;
	struct scan sc;
	size_t fi;

	memset(&sc, 0, sizeof sc);
	sc.run = run;
	sc.md = pcre2_match_data_create_from_pattern(run->g->code, NULL);
	sc.cap = BLOCK;
	sc.buf = xmalloc(sc.cap + 1);
	for (;;) {
		pthread_mutex_lock(&run->mu);
		fi = run->failed || cancelled(run->o) ? SIZE_MAX : run->next++;
		pthread_mutex_unlock(&run->mu);
		if (fi >= lm_nfiles(run->m))
			break;
		if (!file_wanted(run, fi))
			continue;
		sc.r = &run->res[fi];
		scan_file(&sc, fi);
		if (sc.r->err != NULL) {
			pthread_mutex_lock(&run->mu);
			run->failed = 1;
			pthread_mutex_unlock(&run->mu);
		}
	}
	free(sc.buf);
	pcre2_match_data_free(sc.md);
	return NULL;
}

static int
threads_for(const struct grep_opts *o, size_t nfiles)
{
	long n = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if ((size_t)n > nfiles)
		n = nfiles > 0 ? (long)nfiles : 1;
	return (int)n;
}

/* Phase one over every wanted file.  Returns 0, or -1 with *cause. */
static int
search(struct run *run, char **cause)
{
	size_t i, nf = lm_nfiles(run->m);
	pthread_t th[MAX_THREADS];
	int n = threads_for(run->o, nf), k, started = 0;

	run->res = xcalloc(nf + 1, sizeof *run->res);
	pthread_mutex_init(&run->mu, NULL);
	for (k = 1; k < n; k++)
		if (pthread_create(&th[k], NULL, worker, run) == 0)
			started++;
	worker(run);
	for (k = 1; k <= started; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_destroy(&run->mu);
	if (cancelled(run->o))
		return ts_fail(cause, "cancelled");
	for (i = 0; i < nf; i++)
		if (run->res[i].err != NULL) {
			ts_fail(cause, "%s", run->res[i].err);
			return -1;
		}
	return 0;
}

static void
run_release(struct run *run)
{
	size_t i;

	for (i = 0; run->res != NULL && i < lm_nfiles(run->m); i++) {
		buf_release(&run->res[i].list);
		free(run->res[i].err);
	}
	free(run->res);
}

void
grep_buffer(struct grep *g, const char *buf, size_t len, int invert,
    void (*fn)(void *arg, uint64_t line, uint64_t off), void *arg)
{
	struct grep_opts o;
	struct run run;
	struct fres r;
	struct scan sc;
	const unsigned char *p, *end;
	uint64_t line = 0, off = 0, dl, doff;

	memset(&o, 0, sizeof o);
	memset(&run, 0, sizeof run);
	memset(&r, 0, sizeof r);
	memset(&sc, 0, sizeof sc);
	o.invert = invert;
	run.g = g;
	run.o = &o;
	run.want_lines = 1;
	sc.run = &run;
	sc.r = &r;
	sc.md = pcre2_match_data_create_from_pattern(g->code, NULL);
	sc.lineno = 1;
	sc.buf = xmalloc(len + 1);
	memcpy(sc.buf, buf, len);
	if (len > 0 && buf[len - 1] != '\n')	/* as a file's last line */
		sc.buf[len++] = '\n';
	if (len > 0)
		scan_block(&sc, len);
	p = (const unsigned char *)r.list.s;
	end = p != NULL ? p + r.list.len : NULL;
	while (p < end && logdb_varint_get(&p, end, &dl) == 0 &&
	    logdb_varint_get(&p, end, &doff) == 0) {
		line += dl;
		off += doff;
		fn(arg, line, off);
	}
	buf_release(&r.list);
	free(sc.buf);
	pcre2_match_data_free(sc.md);
}

/* ---- phase two: the merge ---- */

struct iter {
	size_t file;
	const unsigned char *p, *end;
	uint64_t line, off;
	struct lm_row row;
	int stage;
	long iter;
	int tagged;		/* its list carries stage and iteration */
};

/* Order of two rows as the merged log has them. */
static int
before(const struct lm_row *a, const struct lm_row *b)
{
	if (a->eff != b->eff)
		return a->eff < b->eff;
	if (a->file != b->file)
		return a->file < b->file;
	return a->line < b->line;
}

/* Move it to its next line the merge knows: 1, 0 at its end, -1. */
static int
iter_next(struct logmerge *m, struct iter *it, char **cause)
{
	uint64_t dl, doff, st = 0, in = 0;
	int rc;

	while (it->p < it->end) {
		if (logdb_varint_get(&it->p, it->end, &dl) != 0 ||
		    logdb_varint_get(&it->p, it->end, &doff) != 0 ||
		    (it->tagged && (logdb_varint_get(&it->p, it->end,
		    &st) != 0 || logdb_varint_get(&it->p, it->end, &in) != 0)))
			return 0;
		it->line += dl;
		it->off += doff;
		it->stage = (int)st - 1;
		it->iter = (long)in - 1;
		if ((rc = lm_line(m, it->file, it->line, &it->row, cause)) != 0)
			return rc;
	}
	return 0;
}

static void
iter_init(struct run *run, size_t i, struct iter *it)
{
	memset(it, 0, sizeof *it);
	it->file = i;
	it->p = (const unsigned char *)run->res[i].list.s;
	it->end = it->p != NULL ? it->p + run->res[i].list.len : NULL;
	it->tagged = run->o->tag != NULL;
	it->stage = -1;
	it->iter = -1;
}

/*
 * Tag file i's lines in line order and keep those the tagger keeps, with
 * their tags, in place of its list.  Returns 0, or -1 with *cause.
 */
static int
tag_file(struct run *run, size_t i, char **cause)
{
	struct fres *r = &run->res[i];
	struct buf kept = BUF_INIT;
	struct iter it;
	uint64_t line = 0, off = 0;
	int rc;

	iter_init(run, i, &it);
	it.tagged = 0;
	r->n = 0;
	while ((rc = iter_next(run->m, &it, cause)) == 1) {
		if (cancelled(run->o)) {
			rc = ts_fail(cause, "cancelled");
			break;
		}
		rc = run->o->tag(run->o->tag_arg, &it.row, &it.stage, &it.iter,
		    cause);
		if (rc < 0)
			break;
		if (rc == 0)
			continue;
		logdb_varint_put(&kept, it.line - line);
		logdb_varint_put(&kept, it.off - off);
		logdb_varint_put(&kept, (uint64_t)(it.stage + 1));
		logdb_varint_put(&kept, (uint64_t)(it.iter + 1));
		line = it.line;
		off = it.off;
		r->n++;
	}
	buf_release(&r->list);
	r->list = kept;
	return rc < 0 ? -1 : 0;
}

static int
tag_all(struct run *run, char **cause)
{
	size_t i;

	for (i = 0; run->o->tag != NULL && i < lm_nfiles(run->m); i++)
		if (run->res[i].list.len > 0 && tag_file(run, i, cause) != 0)
			return -1;
	return 0;
}

static void
sift_down(struct iter **h, size_t n, size_t i)
{
	size_t c;
	struct iter *t;

	for (;;) {
		c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && before(&h[c + 1]->row, &h[c]->row))
			c++;
		if (!before(&h[c]->row, &h[i]->row))
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

static int
merge(struct run *run, int (*fn)(void *, const struct grep_hit *, char **),
    void *arg, char **cause)
{
	size_t nf = lm_nfiles(run->m), n = 0, i;
	struct iter *its = xcalloc(nf + 1, sizeof *its), **h;
	struct grep_hit hit;
	int rc = 0;

	h = xcalloc(nf + 1, sizeof *h);
	for (i = 0; i < nf && rc >= 0; i++) {
		iter_init(run, i, &its[i]);
		if ((rc = iter_next(run->m, &its[i], cause)) == 1)
			h[n++] = &its[i];
	}
	for (i = n; rc >= 0 && i-- > 0;)
		sift_down(h, n, i);
	while (rc >= 0 && n > 0) {
		if (cancelled(run->o)) {
			rc = ts_fail(cause, "cancelled");
			break;
		}
		hit.row = &h[0]->row;
		hit.stage = h[0]->stage;
		hit.iter = h[0]->iter;
		if ((rc = fn(arg, &hit, cause)) != 0)
			break;
		if ((rc = iter_next(run->m, h[0], cause)) < 0)
			break;
		if (rc == 0)
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
	free(h);
	free(its);
	return rc < 0 ? -1 : 0;
}

int
grep_each(struct grep *g, struct logmerge *m, const struct grep_opts *o,
    int (*fn)(void *arg, const struct grep_hit *hit, char **cause), void *arg,
    char **cause)
{
	struct run run;
	int rc;

	memset(&run, 0, sizeof run);
	run.g = g;
	run.m = m;
	run.o = o;
	run.want_lines = 1;
	rc = search(&run, cause);
	if (rc == 0)
		rc = tag_all(&run, cause);
	if (rc == 0)
		rc = merge(&run, fn, arg, cause);
	run_release(&run);
	return rc;
}

int
grep_count(struct grep *g, struct logmerge *m, const struct grep_opts *o,
    uint64_t *count, char **cause)
{
	struct run run;
	size_t i;
	int rc;

	*count = 0;
	memset(&run, 0, sizeof run);
	run.g = g;
	run.m = m;
	run.o = o;
	run.want_lines = o->tag != NULL;	/* the tagger needs them */
	rc = search(&run, cause);
	if (rc == 0)
		rc = tag_all(&run, cause);
	for (i = 0; rc == 0 && i < lm_nfiles(m); i++)
		*count += run.res[i].n;
	run_release(&run);
	return rc;
}
