/*
 * logmerge-t.c -- the merged log's order against one computed here from
 * the lines as they were written: timed and untimed lines, a file's lines
 * before its first time, times that step back, ties, a file without any
 * time, a combined log, a gzip file, files read in several ranges; walks
 * forward and back and seeks by line and by time agree.  Then the raw
 * search: counts, inverted counts and the order of its matches.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "base/util.h"
#include "db/cache.h"
#include "db/jobdb.h"
#include "logs/grep.h"
#include "logs/index.h"
#include "logs/logmerge.h"
#include "../lib/tap.h"

#define T0 1714564800.0		/* 2024-05-01 12:00:00 UTC */
#define MAXL 4000

/* What the test wrote: each file's lines and their own times. */
struct wfile {
	const char *path;	/* relative */
	int gz;
	size_t n;
	double own[MAXL];	/* NaN: none */
	int rank[MAXL];
	double mtime;		/* NaN: leave it */
};

static struct wfile files[] = {
	{ "logs/job.log", 0, 0, {0}, {0}, NAN },
	{ "logs/node-001/rank-0.log", 0, 0, {0}, {0}, NAN },
	{ "logs/node-001/rank-1.log", 0, 0, {0}, {0}, NAN },
	{ "logs/node-002/rank-2.log", 0, 0, {0}, {0}, T0 + 20 },
	{ "logs/node-002/rank-3.log.gz", 1, 0, {0}, {0}, NAN },
};
#define NF (sizeof files / sizeof files[0])

static char dir[] = "/tmp/logmerge-t.XXXXXX";

static void
stamp(char *b, size_t n, double t)
{
	time_t s = (time_t)floor(t);
	struct tm tm;

	gmtime_r(&s, &tm);
	snprintf(b, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    (int)lround((t - floor(t)) * 1000) % 1000);
}

/* Line j of file i: its text into b, its own time and rank noted. */
static void
make_line(size_t i, size_t j, char *b, size_t n)
{
	struct wfile *f = &files[i];
	char ts[64];
	double t = NAN;
	int rank = -1;

	switch (i) {
	case 0:		/* combined: two ranks, timed, second ties */
		rank = (int)(j % 2) + 6;
		t = T0 + 3 + (double)(j / 10);
		break;
	case 1:		/* untimed head, tracebacks, a time that steps back */
		if (j >= 3 && j % 7 != 0)
			t = T0 + 1 + (double)j * 0.01 -
			    (j % 100 >= 50 && j % 100 < 80 ? 3.0 : 0);
		break;
	case 2:		/* whole seconds: many ties with the others */
		t = T0 + (double)(j / 50);
		break;
	case 3:		/* no time at all */
		break;
	default:	/* gzip, millisecond steps */
		t = T0 + 2 + (double)j * 0.003;
		break;
	}
	f->own[j] = t;
	if (isnan(t))
		snprintf(b, n, "  File \"x.py\", line %zu, in step pid %zu", j,
		    i * 10000 + j);
	else {
		stamp(ts, sizeof ts, t);
		if (rank >= 0)
			snprintf(b, n, "[default%d]:%s INFO step %zu SeqNum=%zu",
			    rank - 6, ts, j, i * 10000 + j);
		else
			snprintf(b, n, "%s INFO step %zu SeqNum=%zu", ts, j,
			    i * 10000 + j);
	}
	f->rank[j] = rank >= 0 ? rank - 6 : (i == 0 ? -1 : (int)i - 1);
}

static void
write_files(void)
{
	static const size_t count[NF] = { 1200, 3000, 2500, 400, 1500 };
	char path[512], line[256];
	size_t i, j;

	for (i = 0; i < NF; i++) {
		FILE *fp = NULL;
		gzFile gz = NULL;
		char *slash;

		snprintf(path, sizeof path, "%s/%s", dir, files[i].path);
		for (slash = path + strlen(dir) + 1; (slash = strchr(slash,
		    '/')) != NULL; slash++) {
			*slash = '\0';
			mkdir(path, 0755);
			*slash = '/';
		}
		if (files[i].gz)
			gz = gzopen(path, "wb");
		else
			fp = fopen(path, "w");
		files[i].n = count[i];
		for (j = 0; j < count[i]; j++) {
			make_line(i, j, line, sizeof line);
			if (gz != NULL)
				gzprintf(gz, "%s\n", line);
			else
				fprintf(fp, "%s%s", line, j + 1 < count[i] ||
				    i != 2 ? "\n" : "");	/* no last newline */
		}
		if (gz != NULL)
			gzclose(gz);
		else
			fclose(fp);
		if (!isnan(files[i].mtime)) {
			struct timeval tv[2] = {
				{ (time_t)files[i].mtime, 0 },
				{ (time_t)files[i].mtime, 0 } };

			utimes(path, tv);
		}
	}
}

/* The expected order: (file, line) pairs sorted by the documented key. */
struct exp {
	size_t file;
	uint64_t line;
	double key;
};

static int
cmp_exp(const void *a, const void *b)
{
	const struct exp *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static struct exp *
expected(size_t *n)
{
	struct exp *e = xcalloc(20000, sizeof *e);
	double first, key;
	size_t i, j;

	*n = 0;
	for (i = 0; i < NF; i++) {
		first = NAN;
		for (j = 0; j < files[i].n && isnan(first); j++)
			first = files[i].own[j];
		key = NAN;
		for (j = 0; j < files[i].n; j++) {
			double o = files[i].own[j];

			if (!isnan(o) && (isnan(key) || o > key))
				key = o;
			e[*n].file = i;
			e[*n].line = j + 1;
			e[*n].key = isnan(first) ? files[i].mtime :
			    isnan(key) ? first : key;
			(*n)++;
		}
	}
	qsort(e, *n, sizeof *e, cmp_exp);
	return e;
}

static int
same(const struct lm_row *r, const struct exp *e)
{
	return r->file == e->file && r->line == e->line && r->eff == e->key;
}

static void
test_walks(struct logmerge *m, const struct exp *e, size_t n)
{
	struct lm_cursor *cur = lm_cursor_new(m);
	struct lm_row r;
	char *cause = NULL;
	size_t i, bad = n, rows = 0;

	ok(lm_seek_first(cur, &cause) == 0 && lm_row(cur, &r), "first row");
	for (i = 0; i < n; i++) {
		lm_row(cur, &r);
		if (bad == n && !same(&r, &e[i]))
			bad = i;
		rows++;
		if (lm_next(cur, &cause) != 1)
			break;
	}
	if (!ok(bad == n && rows == n, "forward walk: every line in order"))
		printf("#   first difference at row %zu of %zu (rows %zu)\n",
		    bad, n, rows);
	ok(lm_next(cur, &cause) == 0, "no row past the last");
	ok(lm_seek_last(cur, &cause) == 0, "seek last");
	bad = n;
	rows = 0;
	for (i = n; i-- > 0;) {
		lm_row(cur, &r);
		if (bad == n && !same(&r, &e[i]))
			bad = i;
		rows++;
		if (lm_prev(cur, &cause) != 1)
			break;
	}
	if (!ok(bad == n && rows == n, "backward walk: the same rows reversed"))
		printf("#   first difference at row %zu (rows %zu)\n", bad, rows);
	ok(lm_prev(cur, &cause) == 0, "no row before the first");
	lm_cursor_free(cur);
}

/* From random places, by line and by time: the neighbours agree. */
static void
test_seeks(struct logmerge *m, const struct exp *e, size_t n)
{
	struct lm_cursor *cur = lm_cursor_new(m);
	struct lm_row r;
	char *cause = NULL;
	size_t k, i, j, bad = 0, lo;
	unsigned seed = 7;

	for (k = 0; k < 300; k++) {
		seed = seed * 1103515245u + 12345u;
		i = (seed >> 8) % n;
		if (lm_seek_line(cur, e[i].file, e[i].line, &cause) != 0 ||
		    !lm_row(cur, &r) || !same(&r, &e[i])) {
			bad++;
			continue;
		}
		/* a page back and a page forward, then back to the start */
		for (j = 0; j < 40 && i >= j + 1; j++) {
			lm_prev(cur, &cause);
			lm_row(cur, &r);
			if (!same(&r, &e[i - j - 1]))
				bad++;
		}
		for (lo = i - j; j-- > 0;)
			lm_next(cur, &cause);
		lm_row(cur, &r);
		if (!same(&r, &e[i]))
			bad++;
		for (j = 1; j < 40 && i + j < n; j++) {
			lm_next(cur, &cause);
			lm_row(cur, &r);
			if (!same(&r, &e[i + j]))
				bad++;
		}
		(void)lo;
		/* by time: the first row at or after the row's key */
		lm_seek_time(cur, e[i].key, &cause);
		lm_row(cur, &r);
		for (j = i; j > 0 && e[j - 1].key >= e[i].key; j--)
			;
		if (!same(&r, &e[j]))
			bad++;
	}
	is_int(bad, 0, "300 seeks by line and time: a page back and forth "
	    "from each agrees");
	lm_cursor_free(cur);
}

static void
test_rows(struct logmerge *m)
{
	struct lm_row r;
	struct buf b = BUF_INIT;
	char *cause = NULL, *pos;
	size_t f;
	uint64_t l;

	ok(lm_line(m, 0, 5, &r, &cause) == 1 && r.rank == 0 &&
	    !isnan(r.own), "a combined log's line has its rank prefix's rank");
	ok(lm_line(m, 1, 1, &r, &cause) == 1 && isnan(r.own) &&
	    r.eff == files[1].own[3] && r.rank == 0 &&
	    strcmp(r.node, "node-001") == 0,
	    "a line before the first time takes it; node and rank of the file");
	ok(lm_line(m, 4, 1500, &r, &cause) == 1 && lm_text(m, &r, &b,
	    &cause) == 0 && strstr(b.s, "step 1499 SeqNum=41499") != NULL,
	    "a gzip file's last line, read back");
	ok(lm_line(m, 3, 400, &r, &cause) == 1 && lm_text(m, &r, &b,
	    &cause) == 0 && strstr(b.s, "line 399,") != NULL,
	    "a last line without a newline");
	ok(lm_line(m, 3, 401, &r, &cause) == 0, "no line past the end");
	lm_line(m, 2, 77, &r, &cause);
	pos = lm_pos(m, &r);
	is_str(pos, "logs/node-001/rank-1.log:77", "a position as text");
	ok(lm_parse_pos(m, pos, &f, &l, &cause) == 0 && f == 2 && l == 77,
	    "and back");
	free(pos);
	ok(lm_parse_pos(m, "nope.log:3", &f, &l, &cause) == -1 &&
	    strstr(cause, "no file 'nope.log'") != NULL, "an unknown file");
	free(cause);
	cause = NULL;
	ok(lm_parse_pos(m, "logs/job.log:x", &f, &l, &cause) == -1,
	    "a bad line number");
	free(cause);
	buf_release(&b);
}

/* A copy goes on as the original; the index is the row's place. */
static void
test_index(struct logmerge *m, const struct exp *e, size_t n)
{
	struct lm_cursor *a = lm_cursor_new(m), *b = lm_cursor_new(m);
	struct lm_row ra, rb;
	unsigned char want[NF] = { 0, 0, 1, 1, 0 };
	char *cause = NULL;
	size_t k, i, j, bad = 0, before;
	unsigned seed = 11;
	double t;

	is_int((long)lm_total(m), (long)n, "the total is every file's lines");
	for (k = 0; k < 100; k++) {
		seed = seed * 1103515245u + 12345u;
		i = (seed >> 8) % n;
		lm_seek_line(a, e[i].file, e[i].line, &cause);
		if (lm_index(a, NULL) != i)
			bad++;
		for (j = before = 0; j < i; j++)
			before += want[e[j].file];
		if (lm_index(a, want) != before)
			bad++;
		lm_cursor_copy(b, a);
		for (j = 0; j < 30; j++) {
			lm_next(a, &cause);
			lm_next(b, &cause);
		}
		lm_row(a, &ra);
		lm_row(b, &rb);
		if (ra.file != rb.file || ra.line != rb.line ||
		    lm_index(b, NULL) != (i + 30 < n ? i + 30 : n - 1))
			bad++;
	}
	is_int(bad, 0, "100 places: the index is the row's, and a copied "
	    "cursor walks as the original");
	lm_seek_last(a, &cause);
	is_int((long)lm_index(a, NULL), (long)n - 1, "the last row's index");
	ok(lm_parse_time(m, "12:00:03.25", &t, &cause) == 0 && t == T0 + 3.25,
	    "a time of day is of the job's day");
	ok(lm_parse_time(m, "2024-05-01T12:00:07", &t, &cause) == 0 &&
	    t == T0 + 7 && lm_parse_time(m, "@1714564801.5", &t, &cause) == 0 &&
	    t == T0 + 1.5, "a date and time, and epoch seconds");
	ok(lm_parse_time(m, "noon", &t, &cause) == -1 &&
	    strstr(cause, "'noon' is no time") != NULL, "no time");
	free(cause);
	lm_cursor_free(a);
	lm_cursor_free(b);
}

static int
only_rank2(void *arg, const struct lm_file *f)
{
	(void)arg;
	return strstr(f->path, "rank-2") != NULL;
}

static int
count_rows(void *arg, const struct grep_hit *hit, char **cause)
{
	struct exp **e = arg;
	const struct lm_row *r = hit->row;

	(void)cause;
	if (r->file != (*e)->file || r->line != (*e)->line)
		return 1;
	(*e)++;
	return 0;
}

static void
test_grep(struct logmerge *m, const struct exp *e, size_t n)
{
	struct grep *g;
	struct grep_opts o;
	struct exp *want, *at;
	uint64_t c;
	size_t off, i, k = 0;
	char *cause = NULL;
	int cancel = 1;

	memset(&o, 0, sizeof o);
	ok(grep_compile("SeqNum=2100[0-9]\\b", &g, &off, &cause) == 0,
	    "compile");
	ok(grep_count(g, m, &o, &c, &cause) == 0 && c == 10,
	    "a value only the raw text has is found");
	o.invert = 1;
	ok(grep_count(g, m, &o, &c, &cause) == 0 && c == n - 10,
	    "inverted: every other line");
	grep_free(g);
	ok(grep_compile("pid|SeqNum=1[0-9]*5$", &g, &off, &cause) == 0,
	    "compile an alternation");
	want = xcalloc(n, sizeof *want);
	for (i = 0; i < n; i++) {
		char seq[32];
		size_t len;

		len = (size_t)snprintf(seq, sizeof seq, "%zu", e[i].file *
		    10000 + e[i].line - 1);
		if (isnan(files[e[i].file].own[e[i].line - 1]) ||
		    (seq[0] == '1' && len > 1 && seq[len - 1] == '5'))
			want[k++] = e[i];
	}
	o.invert = 0;
	at = want;
	ok(grep_each(g, m, &o, count_rows, &at, &cause) == 0 &&
	    at == want + k, "matches come in the merged order");
	o.node = "node-002";
	ok(grep_count(g, m, &o, &c, &cause) == 0 && c == 400,
	    "a node's files only");
	o.node = NULL;
	o.file = only_rank2;
	ok(grep_count(g, m, &o, &c, &cause) == 0 && c == 400,
	    "the files a callback keeps");
	o.file = NULL;
	o.cancel = &cancel;
	ok(grep_count(g, m, &o, &c, &cause) == -1 &&
	    strcmp(cause, "cancelled") == 0, "a cancelled search stops");
	free(cause);
	cause = NULL;
	o.cancel = NULL;
	grep_free(g);
	ok(grep_compile_flags("seqNUM=2100[0-9]\\b", GREP_CASELESS, &g, &off,
	    &cause) == 0 && grep_count(g, m, &o, &c, &cause) == 0 && c == 10,
	    "caseless");
	grep_free(g);
	ok(grep_compile("seqNUM=2100[0-9]\\b", &g, &off, &cause) == 0 &&
	    grep_count(g, m, &o, &c, &cause) == 0 && c == 0,
	    "and not without the flag");
	grep_free(g);
	ok(grep_compile_flags("21005\\b", GREP_CASELESS, &g, &off, &cause) == 0 &&
	    grep_count(g, m, &o, &c, &cause) == 0 && c == 1,
	    "caseless with a literal of digits");
	grep_free(g);
	free(want);
	ok(grep_compile("a(b", &g, &off, &cause) == -1 && off == 3 &&
	    strstr(cause, "bad pattern") != NULL, "a bad pattern, and where");
	free(cause);
}

int
main(void)
{
	struct cache *c = NULL;
	struct logmerge *m = NULL;
	struct index_opts o;
	struct index_stats st;
	char *cause = NULL, *db, *paths[1];
	struct exp *e;
	struct job_ref ref;
	size_t n;

	if (mkdtemp(dir) == NULL)
		return 1;
	write_files();
	db = xasprintf("%s.db", dir);
	memset(&o, 0, sizeof o);
	o.job_name = "j";
	o.threads = 2;
	o.chunk = 20000;	/* several ranges a file */
	memset(&st, 0, sizeof st);
	paths[0] = dir;
	ok(cache_open(db, 0, &c, &cause) == 0 &&
	    index_run(c, paths, 1, &o, &st, &cause) == 0, "index the job");
	free(st.names);
	free(st.empty);
	ok(lm_open(c, "j", &m, &cause) == 0 && lm_nfiles(m) == NF,
	    "open the merge");
	if (m == NULL) {
		printf("# %s\n", cause);
		return done_testing();
	}
	e = expected(&n);
	test_rows(m);
	test_walks(m, e, n);
	test_seeks(m, e, n);
	test_index(m, e, n);
	test_grep(m, e, n);
	lm_free(m);
	ok(jobdb_find(c, "j", &ref, &cause) == 1 && lm_open_job(c, ref.id,
	    ref.name, ref.root, &m, &cause) == 0 && lm_nfiles(m) == NF &&
	    strcmp(lm_job(m), "j") == 0, "open the merge by the job's id");
	jobdb_release(&ref);
	lm_free(m);
	ok(lm_open(c, "nope", &m, &cause) == -1 && m == NULL &&
	    strstr(cause, "no job 'nope'") != NULL, "an unknown job");
	free(cause);
	free(e);
	cache_close(c);
	unlink(db);
	free(db);
	return done_testing();
}
