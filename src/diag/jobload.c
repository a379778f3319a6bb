/*
 * jobload.c -- a job's diagnosis model (src/diag.h) from the cache.
 *
 * Everything comes from one pass over the job's file_templates rows:
 * counts per node, the first occurrence of each template, and per file an
 * array "line -> template" (from the rows' line numbers, read from the
 * cache as the file's turn comes) from which the file is replayed in line
 * order through the stage tracker.  A stream is folded (fold.c) as soon
 * as its file is replayed, so memory holds one file's iterations at a
 * time, not the job's.  The tracker sees
 * one stage rule per template (computed once from a raw sample line), so
 * the replay costs a few operations per line.  Iteration lines are
 * numbered from the raw first and last occurrence of their template in
 * the file (consecutive when the counts agree, interpolated otherwise).
 * The file with the most iteration lines is read once: its durations,
 * losses and the time of each iteration, which place every other file's
 * iteration lines in time (ranks step together); its iteration lines are
 * parsed on every thread, a batch at a time, and taken in order.
 * Only lines from the start of training on enter the iteration sequences.
 * A combined log (ranks interleaved) is read again to split it by rank:
 * there every line's header is parsed, but of the iteration lines only
 * the one stream that gives the durations has its fields read; the others
 * need just their numbers.  The rows come from db/diagdb.c; this file
 * reads the raw lines.
 *
 * With two threads or more the replay is a pipeline: the next files are
 * made ready (their line maps read from the cache, their iteration lines
 * numbered, their clocks built: struct prep) by whichever thread has
 * nothing else to do, this one replays them in file order, and the fold's
 * worker (fold.c) folds the streams' iterations as they complete.
 */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag/diag.h"
#include "db/diagdb.h"
#include "db/jobdb.h"
#include "diag/jobload.h"
#include "diag/pool.h"
#include "logs/lineparse.h"
#include "db/logdb.h"
#include "logs/reader.h"
#include "diag/stage.h"
#include "base/util.h"

/* A file's cache id and its index in the loader's files. */
struct fileid {
	int64_t id;
	size_t file;
};

/* One log file of the job. */
struct lfile {
	int64_t id;
	char *path;
	size_t node;		/* (size_t)-1: split by the lines' ranks */
	size_t stream;		/* its stream, (size_t)-1 when split */
	uint64_t lines;
	double last_ts;
};

/* One node's lines inside a file of several ranks (combined logs). */
/*
 * Where a stream stands in a Python traceback.  A traceback that the paste
 * cut before its exception line speaks through its innermost frame: at
 * the stream's end, the line after the last frame (or that frame) is an
 * error line, no context.
 */
#define TB_LEAD 64

struct tbtrack {
	int after_frame;	/* the line before was a frame */
	int open;		/* a frame was seen, and no exception after it */
	int launcher;		/* it is a launcher's own (a child failed) */
	int report;		/* text lines since a launcher's failure record */
	size_t last;		/* the innermost frame's line (template) */
	/* the context lines of one error, for the line they belong to: */
	size_t lead[TB_LEAD];	/* waiting for the line they lead to */
	size_t nlead;
	size_t told;		/* the last telling line, (size_t)-1 none */
	int told_open;		/* its trace is being recorded (first one) */
};

struct split {
	size_t node;
	char *host;		/* the lines' host prefix, or NULL */
	const char *path;	/* the file's, borrowed */
	size_t stream;
	struct stage_tracker tr;
	int pending;
	struct tbtrack tb;
};

/*
 * One file_templates row (a job of 10 240 files has half a million: 104
 * bytes each, not 152 with the line numbers it held once).
 */
struct lrow {
	uint32_t file;
	uint32_t tmpl;
	uint64_t count, first_line, first_off, last_line, last_off;
	double first_ts, last_ts;
	long iter_first, iter_last;	/* iteration templates only */
	/* its first line as the replay saw it: */
	uint32_t node0;		/* the node it went to */
	unsigned char stage0;	/* enum stage */
	unsigned char seen;
	long iter0;		/* -1 none */
	double at0;		/* when (see ltmpl.first_at), NAN */
};

/* Per template: what the replay needs. */
struct ltmpl {
	int rule;		/* stage rule index, -1 none */
	int is_iter;
	int is_frame;		/* a traceback frame: '  File "...", line N' */
	int is_filler;		/* a traceback header, an underline, ... */
	int is_exc;		/* an exception line: never a frame's source */
	int is_progress;	/* a progress bar */
	int is_trailer;		/* context that follows its error line (a C++
				   exception's "Exception raised from", its
				   "frame #N:" backtrace) */
	int is_exit_report;	/* a launcher's "failed (exitcode ..." */
	int is_launcher_src;	/* a launcher's own source line */
	int plain;		/* none of frame, filler, exception, report */
	size_t *trace;		/* the context lines of its first error */
	size_t ntrace;
	uint64_t ctx;		/* occurrences as a frame or right after one */
	size_t first_row;
	double first_at;	/* when its first line was logged, as the
				   replay places it (a line without a time:
				   that of the lines before it), NAN */
};

struct loader {
	struct cache *c;
	const struct job_ref *jref;	/* the job as the cache knows it */
	struct diag_job *job;
	int64_t job_id;
	char *root;
	struct lfile *files;
	size_t nfiles, filecap;
	struct fileid *by_id;	/* the files by their id, for rows */
	size_t last_file;	/* the file of the last row (rows come by
				   file) */
	struct lrow *rows;
	size_t nrows, rowcap;
	struct ltmpl *lt;
	size_t nlt;
	size_t *tmpl_of_id;	/* template id -> index + 1 */
	size_t idcap;
	int64_t *node_ids;	/* node index -> nodes.id (0 for pseudo) */
	size_t nodeidcap;
	size_t *rank_node;	/* rank -> node index + 1 (0: unknown) */
	size_t nrank;
	size_t time_stream;	/* the split stream giving durations, or -1;
				   -2: a per-rank file gave them */
	size_t gap_stream;	/* the split stream timing its iterations by
				   their lines' times, or -1 */
	long gap_it;		/* its last iteration and that line's time */
	double gap_ts;
	struct diag_time *gaps;	/* durations so found (gap_time()) */
	size_t ngaps, gapcap;
	unsigned char *wrote;	/* rank -> it wrote a line in a split file */
	size_t nwrote;
	double *ref;		/* iteration -> when the reference file (the
				   one with the most iteration lines) logged
				   it, NAN unknown */
	size_t nref;
	char *err;		/* the first error reading the cache while
				   replaying */
	struct diag_folder *folder;	/* folds streams as files end */
	pthread_mutex_t *dbmu;	/* cache reads take turns (struct prep) */
};

static int
load_job(struct loader *l, const struct job_ref *ref, char **cause)
{
	if (!ref->has_logs)	/* made by `flows` alone */
		return ts_fail(cause, "job '%s' has flows but no indexed logs "
		    "(index '%s' first)", ref->name, ref->root);
	l->jref = ref;
	l->job_id = ref->id;
	l->root = xstrdup(ref->root);
	free(l->job->root);
	l->job->root = xstrdup(ref->root);
	return 0;
}

static int
node_row(void *arg, int64_t id, const char *name)
{
	struct loader *l = arg;
	size_t n = diag_add_node(l->job, name);

	l->node_ids = xgrow(l->node_ids, &l->nodeidcap, n + 1,
	    sizeof *l->node_ids);
	l->node_ids[n] = id;
	l->job->nodes[n].missing = 1;	/* until a file shows up */
	return 0;
}

static int
load_nodes(struct loader *l, char **cause)
{
	return diagdb_each_node(l->c, l->job_id, node_row, l, cause);
}

static size_t
node_index(const struct loader *l, int64_t id)
{
	size_t n;

	for (n = 0; n < l->job->nnodes; n++)
		if (l->node_ids[n] == id)
			return n;
	return (size_t)-1;
}

/*
 * Log files.  A file of no known node (a combined log) is split by the
 * rank prefix of each line when it is replayed.
 */
static int
file_row(void *arg, const struct diagdb_file *df)
{
	struct loader *l = arg;
	struct lfile *f;
	size_t node = (size_t)-1;	/* split by rank when replayed */

	if (df->node != 0) {
		node = node_index(l, df->node);
		if (node == (size_t)-1)
			return 0;
		l->job->nodes[node].missing = 0;
	}
	l->files = xgrow(l->files, &l->filecap, l->nfiles + 1,
	    sizeof *l->files);
	f = &l->files[l->nfiles++];
	f->id = df->id;
	f->path = xstrdup(df->path);
	f->node = node;
	f->lines = df->lines;
	f->last_ts = df->last_ts;
	f->stream = node != (size_t)-1 ?
	    diag_add_stream(l->job, node, df->path) : (size_t)-1;
	return 0;
}

static int
cmp_fileid(const void *a, const void *b)
{
	const struct fileid *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The job's files, by path, as its ref holds them, and a table of them
 * by id: a job of ten thousand files has a hundred thousand rows to
 * place.
 */
static int
load_files(struct loader *l)
{
	const struct logdb_file *f;
	struct diagdb_file df;
	size_t i;

	for (i = 0; i < l->jref->nfiles; i++) {
		f = &l->jref->files[i];
		df.id = f->id;
		df.path = f->path;
		df.node = f->node;
		df.lines = f->lines;
		df.last_ts = f->last_ts;
		file_row(l, &df);
	}
	l->by_id = xcalloc(l->nfiles + 1, sizeof *l->by_id);
	for (i = 0; i < l->nfiles; i++) {
		l->by_id[i].id = l->files[i].id;
		l->by_id[i].file = i;
	}
	ts_qsort(l->by_id, l->nfiles, sizeof *l->by_id, cmp_fileid);
	return 0;
}

/* The index of the file of cache id `id`, (size_t)-1 none. */
static size_t
file_index(struct loader *l, int64_t id)
{
	size_t lo = 0, hi = l->nfiles;

	if (l->last_file < l->nfiles && l->files[l->last_file].id == id)
		return l->last_file;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->by_id[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == l->nfiles || l->by_id[lo].id != id)
		return (size_t)-1;
	return l->last_file = l->by_id[lo].file;
}

/* The template index of id, adding the template on first sight. */
static size_t
tmpl_for(struct loader *l, uint32_t id, const char *text)
{
	size_t t;

	if (id >= l->idcap) {
		size_t old = l->idcap;

		l->tmpl_of_id = xgrow(l->tmpl_of_id, &l->idcap, (size_t)id + 1,
		    sizeof *l->tmpl_of_id);
		memset(l->tmpl_of_id + old, 0, (l->idcap - old) *
		    sizeof *l->tmpl_of_id);
	}
	if (l->tmpl_of_id[id] != 0)
		return l->tmpl_of_id[id] - 1;
	t = diag_add_tmpl(l->job, id, text != NULL ? text : "");
	l->tmpl_of_id[id] = t + 1;
	return t;
}

static int
add_row(void *arg, const struct diagdb_row *dr)
{
	struct loader *l = arg;
	struct lrow *r;
	size_t file = file_index(l, dr->file);

	if (file == (size_t)-1)
		return 0;
	l->rows = xgrow(l->rows, &l->rowcap, l->nrows + 1, sizeof *l->rows);
	r = &l->rows[l->nrows++];
	memset(r, 0, sizeof *r);
	r->file = (uint32_t)file;
	r->tmpl = (uint32_t)tmpl_for(l, dr->tmpl, dr->text);
	r->count = dr->count;
	r->first_line = dr->first_line;
	r->first_off = dr->first_off;
	r->first_ts = dr->first_ts;
	r->last_line = dr->last_line;
	r->last_off = dr->last_off;
	r->last_ts = dr->last_ts;
	r->iter_first = r->iter_last = -1;
	return 0;
}

static int
load_rows(struct loader *l, char **cause)
{
	return diagdb_each_row(l->c, l->job_id, add_row, l, cause);
}

/* Is the row's first occurrence earlier than the other's? */
static int
row_before(const struct loader *l, const struct lrow *a, const struct lrow *b)
{
	int c;

	if (!isnan(a->first_ts) && !isnan(b->first_ts) &&
	    a->first_ts != b->first_ts)
		return a->first_ts < b->first_ts;
	if (isnan(a->first_ts) != isnan(b->first_ts))
		return !isnan(a->first_ts);
	c = strcmp(l->files[a->file].path, l->files[b->file].path);
	return c != 0 ? c < 0 : a->first_line < b->first_line;
}

/*
 * Python's way of dying: a "SomethingError: ..." line, or the exception's
 * bare name ("MemoryError", "KeyboardInterrupt") on a line of its own.
 */
static int
looks_like_error(const char *m, size_t len)
{
	size_t i = 0;

	while (i < len && (isalnum((unsigned char)m[i]) || m[i] == '_' ||
	    m[i] == '.'))
		i++;
	if (i == len)
		return (i >= 5 && strncmp(m + i - 5, "Error", 5) == 0) ||
		    (i >= 9 && strncmp(m + i - 9, "Exception", 9) == 0) ||
		    (i >= 9 && strncmp(m + i - 9, "Interrupt", 9) == 0);
	return m[i] == ':' && i >= 5 &&
	    (strncmp(m + i - 5, "Error", 5) == 0 ||
	    (i >= 9 && strncmp(m + i - 9, "Exception", 9) == 0));
}

/* Does m (len bytes, blanks skipped) start with the string w? */
static int
starts(const char *m, size_t len, const char *w)
{
	size_t n = strlen(w);

	return len >= n && strncmp(m, w, n) == 0;
}

/*
 * The part a line plays in a multi-line error, which the error's telling
 * line speaks for: a traceback frame ('  File "...", line N'), or filler
 * -- the "Traceback (most recent call last):" header, the notes chaining
 * two tracebacks, caret and tilde underlines, elision marks, the braces
 * and key lines of a JSON error record, C++'s "terminate called after
 * throwing" (its what() line says what), the banner of a signal
 * handler's report, and a C++ exception's "Exception raised from ..."
 * and "frame #N:" backtrace (no source line follows those frames).
 */
enum role { ROLE_TEXT, ROLE_FRAME, ROLE_FILLER };

/* A C++ backtrace's frame: "frame #12: c10::Error::Error(...)". */
static int
cxx_frame(const char *m, size_t len)
{
	size_t k = 7;

	if (!starts(m, len, "frame #"))
		return 0;
	while (k < len && isdigit((unsigned char)m[k]))
		k++;
	return k > 7 && k < len && m[k] == ':';
}

static enum role
line_role(const char *m, size_t len)
{
	size_t i = 0, marks = 0, k;

	while (i < len && (m[i] == ' ' || m[i] == '\t'))
		i++;
	m += i;
	len -= i;
	while (len > 0 && (m[len - 1] == ' ' || m[len - 1] == '\t'))
		len--;
	if (starts(m, len, "File \"") && len > 6)
		return ROLE_FRAME;
	if (len == 0)
		return ROLE_TEXT;
	if (starts(m, len, "Traceback (most recent call last)") ||
	    starts(m, len, "During handling of the above exception") ||
	    starts(m, len, "The above exception was the direct cause") ||
	    starts(m, len, "terminate called after throwing") ||
	    starts(m, len, "*** Process received signal") ||
	    starts(m, len, "*** End of error message") ||
	    starts(m, len, "Stack trace (most recent call") ||
	    /* PyTorch's C++ exceptions: where it was raised, its backtrace */
	    starts(m, len, "Exception raised from ") || cxx_frame(m, len) ||
	    starts(m, len, "[...]") || starts(m, len, "<snip") ||
	    starts(m, len, "Last error:") ||
	    /* PyTorch's advice after every CUDA error */
	    starts(m, len, "CUDA kernel errors might be asynchronously") ||
	    starts(m, len, "For debugging consider passing CUDA_LAUNCH") ||
	    starts(m, len, "Compile with `TORCH_USE_CUDA_DSA`"))
		return ROLE_FILLER;
	/* NCCL's description of an error class; "Last error:" has the cause */
	if (starts(m, len, "nccl") && memchr(m, ':', len) != NULL &&
	    (starts(m, len, "ncclSystemError:") ||
	    starts(m, len, "ncclInternalError:") ||
	    starts(m, len, "ncclUnhandledCudaError:") ||
	    starts(m, len, "ncclInvalidUsage:") ||
	    starts(m, len, "ncclInvalidArgument:") ||
	    starts(m, len, "ncclRemoteError:")))
		return ROLE_FILLER;
	/* an exception with nothing after its colon: the detail follows */
	if (m[len - 1] == ':' && looks_like_error(m, len) &&
	    memchr(m, ' ', len) == NULL)
		return ROLE_FILLER;
	/* a launcher's failure summary: its title, rules, headings, fields */
	if (len > 7 && strcmp(m + len - 7, " FAILED") == 0 &&
	    memchr(m, ' ', len - 7) == NULL)
		return ROLE_FILLER;
	if (starts(m, len, "Root Cause (first observed failure)") ||
	    starts(m, len, "Failures:") || starts(m, len, "<NO_OTHER_FAILURES>") ||
	    starts(m, len, "error_file:") ||
	    starts(m, len, "traceback : To enable traceback"))
		return ROLE_FILLER;
	for (k = 0; k < len && (m[k] == '=' || m[k] == '-'); k++)
		;
	if (k == len && len >= 8)
		return ROLE_FILLER;
	if (m[0] == '[' && m[len - 1] == ':' && len <= 8 && m[len - 2] == ']')
		return ROLE_FILLER;
	for (k = 0; k < len && islower((unsigned char)m[k]); k++)
		;
	if (k > 0 && k < len && (starts(m, k, "time") ||
	    starts(m, k, "host") || starts(m, k, "rank"))) {
		size_t c = k;

		while (c < len && m[c] == ' ')
			c++;
		if (c < len && m[c] == ':' && c > k)
			return ROLE_FILLER;
	}
	/* underlines and elisions: only ^ ~ . and blanks */
	for (k = 0; k < len; k++) {
		if (m[k] == '^' || m[k] == '~' || m[k] == '.')
			marks++;
		else if (m[k] != ' ')
			break;
	}
	if (k == len && marks >= 3)
		return ROLE_FILLER;
	/* JSON structure: a lone brace or bracket, or '"key": {' */
	if (len <= 2 && strchr("{}[]", m[0]) != NULL &&
	    (len == 1 || m[1] == ','))
		return ROLE_FILLER;
	if (m[0] == '"' && (m[len - 1] == '{' || m[len - 1] == '[')) {
		const char *q = memchr(m + 1, '"', len - 1);

		if (q != NULL && q + 1 < m + len && q[1] == ':')
			return ROLE_FILLER;
	}
	return ROLE_TEXT;
}

/*
 * Context that follows the line it belongs to: a C++ exception's "Exception
 * raised from ..." and its "frame #N:" backtrace come after its message.
 */
static int
trailer(const char *m, size_t len)
{
	while (len > 0 && (*m == ' ' || *m == '\t'))
		m++, len--;
	return starts(m, len, "Exception raised from ") || cxx_frame(m, len);
}

/*
 * The line at `off` of a plain file open on fd, with pread (a few KB, not
 * the reader's large buffers).
 */
static int
plain_line_at(int fd, uint64_t off, struct buf *b)
{
	char chunk[4096], *nl;
	ssize_t n;
	int rc = -1;

	buf_reset(b);
	while (b->len < READER_LINE_MAX &&
	    (n = pread(fd, chunk, sizeof chunk, (off_t)(off + b->len))) > 0) {
		rc = 0;
		if ((nl = memchr(chunk, '\n', (size_t)n)) != NULL) {
			buf_add(b, chunk, (size_t)(nl - chunk));
			break;
		}
		buf_add(b, chunk, (size_t)n);
	}
	if (b->len > 0 && b->s[b->len - 1] == '\r')
		b->s[--b->len] = '\0';
	return rc;
}

/*
 * The raw lines at off[0..n) of a file (ascending), each into out[i] with
 * found[i] set: a plain file's read where they are, a gzip file's in one
 * read to the last of them (each on its own would inflate the file from
 * its start again).
 */
static void
lines_at(const struct loader *l, const struct lfile *f, const uint64_t *off,
    size_t n, struct buf *out, int *found)
{
	char *path = xasprintf("%s/%s", l->root, f->path), *cause = NULL;
	unsigned char magic[2];
	struct reader *rd;
	struct reader_line rl;
	size_t i = 0;
	int fd = open(path, O_RDONLY), gz;

	memset(found, 0, n * sizeof *found);
	if (fd < 0) {
		free(path);
		return;
	}
	gz = pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f &&
	    magic[1] == 0x8b;
	if (!gz)
		for (i = 0; i < n; i++)
			found[i] = plain_line_at(fd, off[i], &out[i]) == 0;
	close(fd);
	if (gz && reader_open(path, 0, 0, &rd, &cause) == 0) {
		while (i < n && reader_next(rd, &rl, &cause) == 1) {
			for (; i < n && off[i] < rl.off; i++)
				;	/* no line starts there */
			for (; i < n && off[i] == rl.off; i++) {
				buf_reset(&out[i]);
				buf_add(&out[i], rl.s, rl.len);
				found[i] = 1;
			}
		}
		reader_close(rd);
	}
	free(cause);
	free(path);
}

/*
 * A source line of a launcher's own traceback, which it prints after a
 * child failed (torch elastic, accelerate, DeepSpeed's launcher): that
 * traceback is a consequence, cut or not.
 */
static int
launcher_source(const char *text)
{
	static const char *const calls[] = {
		"elastic_launch(", "launch_agent(", "ChildFailedError",
		"launch_command(", "multi_gpu_launcher(", "deepspeed_launcher(",
		"sigkill_handler(",
	};
	size_t i;

	for (i = 0; i < TS_NELEM(calls); i++)
		if (strstr(text, calls[i]) != NULL)
			return 1;
	return 0;
}

/* A template's first line, to read: where it is. */
struct pick {
	size_t file;
	uint64_t off;
	size_t t;
};

static int
cmp_pick(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/*
 * Every template's first line (at its first row's first offset) into
 * text[t], found[t] set: the lines of one file read together.
 */
static void
first_lines(struct loader *l, struct buf *text, int *found)
{
	size_t n = l->job->ntmpls, i, j, k;
	struct pick *pk = xreallocarray(NULL, n + 1, sizeof *pk);
	uint64_t *off = xreallocarray(NULL, n + 1, sizeof *off);
	struct buf *out = xcalloc(n + 1, sizeof *out);
	int *got = xcalloc(n + 1, sizeof *got);

	for (i = 0; i < n; i++) {
		const struct lrow *r = &l->rows[l->lt[i].first_row];

		pk[i].file = r->file;
		pk[i].off = r->first_off;
		pk[i].t = i;
	}
	ts_qsort(pk, n, sizeof *pk, cmp_pick);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && pk[j].file == pk[i].file; j++)
			off[j - i] = pk[j].off;
		lines_at(l, &l->files[pk[i].file], off, j - i, out, got);
		for (k = i; k < j; k++) {	/* (handed over, not copied) */
			found[pk[k].t] = got[k - i];
			text[pk[k].t] = out[k - i];
			buf_init(&out[k - i]);
		}
	}
	free(out);
	free(got);
	free(off);
	free(pk);
}

/* Sample, level, stage rule and iteration-ness of every template. */
static void
sample_templates(struct loader *l)
{
	struct diag_job *job = l->job;
	struct buf *text;
	struct lp_line lp;
	struct stage_iter it;
	size_t t, i;
	int *found;

	l->lt = xcalloc(job->ntmpls + 1, sizeof *l->lt);
	l->nlt = job->ntmpls;
	for (t = 0; t < job->ntmpls; t++) {
		l->lt[t].first_row = (size_t)-1;
		l->lt[t].first_at = NAN;
	}
	for (i = 0; i < l->nrows; i++) {
		struct ltmpl *lt = &l->lt[l->rows[i].tmpl];

		if (lt->first_row == (size_t)-1 ||
		    row_before(l, &l->rows[i], &l->rows[lt->first_row]))
			lt->first_row = i;
	}
	text = xcalloc(job->ntmpls + 1, sizeof *text);
	found = xcalloc(job->ntmpls + 1, sizeof *found);
	first_lines(l, text, found);
	for (t = 0; t < job->ntmpls; t++) {
		const struct lrow *r = &l->rows[l->lt[t].first_row];
		struct diag_tmpl *tp = &job->tmpls[t];

		diag_set_first(job, t, l->files[r->file].node == (size_t)-1 ? 0 :
		    l->files[r->file].node, l->files[r->file].path,
		    (long)r->first_line, r->first_ts, STAGE_NONE, -1);
		l->lt[t].rule = stage_rule_index(tp->text, strlen(tp->text));
		l->lt[t].is_exit_report = strstr(tp->text, "failed (exitcode") !=
		    NULL;
		l->lt[t].is_launcher_src = launcher_source(tp->text);
		if (!found[t])
			continue;
		lp_parse(buf_str(&text[t]), text[t].len, &lp);
		tp->sample = xstrndup(lp.msg, lp.msg_len);
		tp->level = (int)lp.level;
		if (tp->level < DIAG_LEVEL_WARN &&
		    looks_like_error(lp.msg, lp.msg_len))
			tp->level = DIAG_LEVEL_ERROR;
		l->lt[t].rule = stage_rule_index(lp.msg, lp.msg_len);
		l->lt[t].is_iter = stage_parse_iter(lp.msg, lp.msg_len, &it);
		l->lt[t].is_frame = line_role(lp.msg, lp.msg_len) == ROLE_FRAME;
		l->lt[t].is_filler = line_role(lp.msg, lp.msg_len) ==
		    ROLE_FILLER;
		l->lt[t].is_exc = looks_like_error(lp.msg, lp.msg_len);
		l->lt[t].is_trailer = trailer(lp.msg, lp.msg_len);
		job->tmpls[t].progress = stage_progress_bar(lp.msg, lp.msg_len);
	}
	for (t = 0; t < job->ntmpls; t++)
		l->lt[t].plain = !l->lt[t].is_frame && !l->lt[t].is_filler &&
		    !l->lt[t].is_exc && !l->lt[t].is_exit_report;
	for (t = 0; t < job->ntmpls; t++)
		buf_release(&text[t]);
	free(text);
	free(found);
}

/*
 * A line number_rows() wants: the first or last occurrence of an
 * iteration row.
 */
struct want {
	uint64_t off;
	size_t row;
	int last;
};

static int
cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The iteration number a wanted line gives its row, if it gives one. */
static void
want_line(struct loader *l, const struct want *w, struct buf *text)
{
	struct lp_line lp;
	struct stage_iter it;

	lp_parse(buf_str(text), text->len, &lp);
	if (!stage_parse_iter(lp.msg, lp.msg_len, &it))
		return;
	if (w->last)
		l->rows[w->row].iter_last = it.iteration;
	else
		l->rows[w->row].iter_first = it.iteration;
}

/*
 * The iteration numbers of the first and last lines of a file's
 * iteration rows [from, to): when the file is made ready, on whichever
 * thread makes it, its lines read together (lines_at()).
 */
static void
number_rows(struct loader *l, size_t from, size_t to)
{
	const struct lfile *f = &l->files[l->rows[from].file];
	struct want *w = NULL;
	struct buf *text;
	uint64_t *off;
	size_t i, n = 0;
	int *found;

	if (f->node == (size_t)-1)
		return;
	for (i = from; i < to; i++) {
		if (!l->lt[l->rows[i].tmpl].is_iter)
			continue;
		w = xreallocarray(w, n + 2, sizeof *w);
		w[n].off = l->rows[i].first_off;
		w[n].row = i;
		w[n++].last = 0;
		w[n].off = l->rows[i].last_off;
		w[n].row = i;
		w[n++].last = 1;
	}
	if (n == 0)
		return;
	ts_qsort(w, n, sizeof *w, cmp_want);
	off = xreallocarray(NULL, n, sizeof *off);
	text = xcalloc(n, sizeof *text);
	found = xcalloc(n, sizeof *found);
	for (i = 0; i < n; i++)
		off[i] = w[i].off;
	lines_at(l, f, off, n, text, found);
	for (i = 0; i < n; i++) {
		if (found[i])
			want_line(l, &w[i], &text[i]);
		buf_release(&text[i]);
	}
	free(found);
	free(text);
	free(off);
	free(w);
}

/* Counts per node and each node's first error-level line. */
static void
count_rows(struct loader *l)
{
	struct diag_job *job = l->job;
	size_t i;

	diag_job_shape(job);
	for (i = 0; i < l->nrows; i++) {
		const struct lrow *r = &l->rows[i];
		struct diag_node *n;

		if (l->files[r->file].node == (size_t)-1)
			continue;	/* counted line by line when replayed */
		n = &job->nodes[l->files[r->file].node];
		diag_count(job, l->files[r->file].node, r->tmpl,
		    r->count > UINT32_MAX ? UINT32_MAX : (uint32_t)r->count);
		if (job->tmpls[r->tmpl].level >= DIAG_LEVEL_ERROR &&
		    !isnan(r->first_ts) && (isnan(n->first_error_ts) ||
		    r->first_ts < n->first_error_ts))
			n->first_error_ts = r->first_ts;
	}
}

/*
 * lround(x) without the call: for 0 <= x < 2^52, x - (long)x is exact,
 * so the half-way test is too.
 */
static inline long
round_half_up(double x)
{
	long n;

	if (!(x >= 0 && x < 4503599627370496.0))
		return lround(x);
	n = (long)x;
	return x - (double)n >= 0.5 ? n + 1 : n;
}

/* Iteration number of the k-th occurrence (from 0) of an iteration row. */
static long
iter_number(const struct lrow *r, long k)
{
	if (r->iter_first < 0)
		return -1;
	if (r->iter_last < 0 || r->count < 2 ||
	    r->iter_last - r->iter_first == (long)r->count - 1)
		return r->iter_first + k;
	return r->iter_first + round_half_up((double)k *
	    (double)(r->iter_last - r->iter_first) / (double)(r->count - 1));
}

/* An iteration line: its number, and its row as the line map has it. */
struct iline {
	size_t line;
	uint32_t mark;
};

/*
 * line_map() as the cache gives the rows' line numbers: the file's rows
 * [from, to), the next of them, and the map so far; and when `iters` is
 * asked for, the lines of its iteration rows, each row's in order.
 */
struct lines_at {
	struct loader *l;
	size_t row, from, to;
	uint32_t *map;
	size_t cap;
	int want_iters;
	struct iline *iters;
	size_t niters, itcap;
	int iter_rows;		/* rows that gave some */
};

/* A row's line numbers (varint deltas) into the map, as they come. */
static int
lines_row(void *arg, uint32_t id, const unsigned char *p, size_t len)
{
	struct lines_at *la = arg;
	struct loader *l = la->l;
	const unsigned char *end = p + len;
	uint64_t v, n, line = 0;
	uint32_t mark;
	size_t old;
	int is_iter;

	/* both by template id: walk the file's rows along */
	while (la->row < la->to && l->job->tmpls[l->rows[la->row].tmpl].id < id)
		la->row++;
	if (la->row == la->to || l->job->tmpls[l->rows[la->row].tmpl].id != id)
		return 0;
	mark = (uint32_t)(la->row++ - la->from + 1);
	is_iter = la->want_iters &&
	    l->lt[l->rows[la->from + mark - 1].tmpl].is_iter;
	la->iter_rows += is_iter;
	if (is_iter) {
		/* room for the row's lines at once (as many as the file's) */
		n = l->rows[la->from + mark - 1].count;
		la->iters = xgrow(la->iters, &la->itcap, la->niters +
		    (size_t)(n < la->cap ? n : la->cap) + 1,
		    sizeof *la->iters);
	}
	while (p < end) {
		/* a step of one byte (most are) without the call */
		if (*p < 0x80)
			v = *p++;
		else if (logdb_varint_get(&p, end, &v) != 0)
			break;
		line += v;
		if (line >= la->cap) {
			old = la->cap;
			la->map = xgrow(la->map, &la->cap, (size_t)line + 1,
			    sizeof *la->map);
			memset(la->map + old, 0, (la->cap - old) *
			    sizeof *la->map);
		}
		la->map[line] = mark;
		if (is_iter && line > 0) {
			/* (room is made a row at a time above: xgrow() for
			   each line instead cost 63 M more on the bench job) */
			if (la->niters == la->itcap)
				la->iters = xgrow(la->iters, &la->itcap,
				    la->niters + 1, sizeof *la->iters);
			la->iters[la->niters].line = (size_t)line;
			la->iters[la->niters++].mark = mark;
		}
	}
	return 0;
}

static int
cmp_iline(const void *a, const void *b)
{
	const struct iline *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * The iteration lines la gathered in line order, those a later row took
 * over (the map has the last row of a line) left out.
 */
static void
ilines_settle(struct lines_at *la)
{
	size_t i, k = 0;

	if (la->iter_rows > 1)
		ts_qsort(la->iters, la->niters, sizeof *la->iters, cmp_iline);
	for (i = 0; i < la->niters; i++)
		if (la->map[la->iters[i].line] == la->iters[i].mark)
			la->iters[k++] = la->iters[i];
	la->niters = k;
}

/*
 * "line -> row + 1" for file fi from its rows [from, to), the row counted
 * from `from` (row_at()), read from the cache: only the files being
 * replayed have theirs (a 10 GB job's are 50 MB).  With `iters`
 * non-NULL, its iteration lines too, in line order (*niters of them).  A
 * cache error goes to *err (when it holds none yet).
 */
static uint32_t *
line_map(struct loader *l, size_t fi, size_t from, size_t to, size_t *nlines,
    struct iline **iters, size_t *niters, char **err)
{
	struct lines_at la;
	char *cause = NULL;
	int rc;

	memset(&la, 0, sizeof la);
	la.l = l;
	la.row = la.from = from;
	la.to = to;
	la.want_iters = iters != NULL;
	la.cap = l->files[fi].lines + 2;
	la.map = xcalloc(la.cap, sizeof *la.map);
	if (l->dbmu != NULL)
		pthread_mutex_lock(l->dbmu);
	rc = diagdb_file_lines(l->c, l->files[fi].id, lines_row, &la, &cause);
	if (l->dbmu != NULL)
		pthread_mutex_unlock(l->dbmu);
	if (rc != 0 && *err == NULL)
		*err = cause;
	else
		free(cause);
	*nlines = la.cap;
	if (iters != NULL) {
		ilines_settle(&la);
		*iters = la.iters;
		*niters = la.niters;
	}
	return la.map;
}

/* The row of a line map's entry v (not 0) for rows from `from`. */
static inline struct lrow *
row_at(const struct loader *l, size_t from, uint32_t v)
{
	return &l->rows[from + v - 1];
}

/*
 * Put one tagged line (number `line`) of template t, logged at ts (NAN
 * unknown), into stream s: its iteration's events, and the stream's stage
 * spans.
 */
static void
stream_line(struct loader *l, size_t s, size_t t,
    const struct stage_tag *tag, int *pending, double ts, long line)
{
	struct diag_job *job = l->job;
	struct diag_stream *st = &job->streams[s];
	uint32_t id = job->tmpls[t].id;

	diag_span_line(job, s, tag->stage, ts, tag->stage >= STAGE_TRAINING ?
	    tag->iteration : -1);
	st->last_line = line;
	if (tag->stage < STAGE_TRAINING && !tag->is_iter && st->niters == 0)
		return;
	if (st->niters == 0 || *pending) {
		/* a step begins as the line of the one before it is printed */
		double prev = st->niters > 0 && *pending ?
		    st->iters[st->niters - 1].end_ts : NAN;

		diag_stream_iter(job, s, tag->iteration, isnan(prev) ? ts :
		    prev);
		*pending = 0;
		/* the ones before it are complete: folded in parts */
		if (st->niters > DIAG_PART)
			diag_folder_part(l->folder, job, s);
	} else if (tag->is_iter)	/* an iteration ends with its line */
		st->iters[st->niters - 1].iteration = tag->iteration;
	diag_stream_event(job, s, id);
	if (tag->is_iter) {
		*pending = 1;
		st->iters[st->niters - 1].end_ts = ts;
		st->iters[st->niters - 1].line = line;
		if (!isnan(ts)) {
			st->last_iter_ts = ts;
			st->iter_id = id;
			st->iter_line = line;
		}
	}
}

/* Record the end of a stream and mark its unfinished iteration. */
static void
stream_finish(struct diag_job *job, size_t s, const struct stage_tracker *tr,
    int pending, double last_ts)
{
	struct diag_stream *st = &job->streams[s];

	diag_stream_end(job, s, tr->iteration, tr->cur, last_ts);
	/* lines after the last iteration line: the unfinished iteration */
	if (!pending && tr->iteration >= 0 && st->niters > 0)
		st->iters[st->niters - 1].truncated = 1;
}

/*
 * When a file's lines were logged, as far as its rows tell: the first and
 * last occurrence of every template give (line, time) points; a line
 * between two points is placed by linear interpolation.
 */
struct lclock {
	uint64_t *line;
	double *ts;
	size_t n;
};

/* Clock points (line, time, order made) by line, then as made. */
static int
cmp_point(const void *a, const void *b)
{
	const double *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[2] < y[2] ? -1 : x[2] > y[2];
}

/* Add a point to a clock: times go forward; a line out of order is out. */
static void
clock_add(struct lclock *ck, double line, double ts)
{
	size_t k = ck->n;

	if (k > 0 && (ts < ck->ts[k - 1] || (uint64_t)line == ck->line[k - 1]))
		return;
	ck->line[k] = (uint64_t)line;
	ck->ts[ck->n++] = ts;
}

/* The time of line `line`, NAN when the file has none. */
static double
clock_at(const struct lclock *ck, uint64_t line, size_t *hint)
{
	size_t i = *hint;

	if (ck->n == 0)
		return NAN;
	if (line <= ck->line[0])
		return ck->ts[0];
	if (line >= ck->line[ck->n - 1])
		return ck->ts[ck->n - 1];
	if (i >= ck->n || ck->line[i] > line)
		i = 0;
	while (i + 1 < ck->n && ck->line[i + 1] <= line)
		i++;
	*hint = i;
	if (ck->line[i] == line)
		return ck->ts[i];
	return ck->ts[i] + (ck->ts[i + 1] - ck->ts[i]) *
	    (double)(line - ck->line[i]) /
	    (double)(ck->line[i + 1] - ck->line[i]);
}

static void
clock_release(struct lclock *ck)
{
	free(ck->line);
	free(ck->ts);
}

static void
tb_init(struct tbtrack *tb)
{
	memset(tb, 0, sizeof *tb);
	tb->told = (size_t)-1;
}

/* Add template c to the trace of template t (once each). */
static void
trace_add(struct loader *l, size_t t, size_t c)
{
	struct ltmpl *lt = &l->lt[t];
	size_t i;

	for (i = 0; i < lt->ntrace; i++)
		if (lt->trace[i] == c)
			return;
	if (lt->ntrace >= TB_LEAD)
		return;
	lt->trace = xreallocarray(lt->trace, lt->ntrace + 1, sizeof *lt->trace);
	lt->trace[lt->ntrace++] = c;
}

/*
 * A context line of an error: it waits for the line it leads to (a
 * Python traceback's header, frames and source lines, the first lines of
 * a launcher's failure record), or, when it trails (a C++ backtrace),
 * joins the trace of the telling line before it.
 */
static void
tb_context(struct loader *l, struct tbtrack *tb, size_t t)
{
	size_t i;

	if (tb->nlead == 0 && l->lt[t].is_trailer && tb->told != (size_t)-1) {
		if (tb->told_open)
			trace_add(l, tb->told, t);
		return;
	}
	for (i = 0; i < tb->nlead && tb->lead[i] != t; i++)
		;
	if (i == tb->nlead && tb->nlead < TB_LEAD)
		tb->lead[tb->nlead++] = t;
}

/* A telling line: the context lines waiting for it are its trace. */
static void
tb_told(struct loader *l, struct tbtrack *tb, size_t t)
{
	size_t i;

	tb->told = t;
	tb->told_open = l->lt[t].ntrace == 0;
	for (i = 0; tb->told_open && i < tb->nlead; i++)
		trace_add(l, t, tb->lead[i]);
	tb->nlead = 0;
}

/* tb_line() of any line. */
static void
tb_line_any(struct loader *l, struct tbtrack *tb, size_t t)
{
	struct ltmpl *lt = &l->lt[t];
	int src = tb->after_frame && !lt->is_exc;

	if (lt->is_frame || lt->is_filler || src) {
		lt->ctx++;
		tb_context(l, tb, t);
	} else
		tb_told(l, tb, t);
	if (lt->is_frame || (src && !lt->is_filler)) {
		/* right after "failed (exitcode: 1) local_rank: 0 ..." */
		if (!tb->open)
			tb->launcher = tb->report > 0;
		tb->open = 1;
		tb->last = t;
		if (src && lt->is_launcher_src)
			tb->launcher = 1;
	} else if (lt->is_exc || !lt->is_filler) {
		tb->open = 0;
		if (tb->report > 0)
			tb->report--;
		if (lt->is_exit_report)
			tb->report = 3;
	}
	tb->after_frame = lt->is_frame;
}

/*
 * Count template t's line as a traceback's context or not; follow it.
 * Most lines are plain and out of any trace: for them tb_line_any()
 * would only make the line the last telling one and close any trace.
 */
static inline void
tb_line(struct loader *l, struct tbtrack *tb, size_t t)
{
	const struct ltmpl *lt = &l->lt[t];

	if (lt->plain && !tb->after_frame && tb->nlead == 0 &&
	    tb->report == 0) {
		tb->told = t;
		tb->told_open = lt->ntrace == 0;
		tb->open = 0;
	} else
		tb_line_any(l, tb, t);
}

/* The stream ended: a traceback still open was cut; its last frame speaks. */
static void
tb_end(struct loader *l, struct tbtrack *tb)
{
	struct diag_tmpl *tp;

	if (!tb->open || tb->launcher)
		return;
	tp = &l->job->tmpls[tb->last];
	if (l->lt[tb->last].ctx > 0)
		l->lt[tb->last].ctx--;
	if (tp->level < DIAG_LEVEL_ERROR)
		tp->level = DIAG_LEVEL_ERROR;
	tp->standin = 1;
	tb->open = 0;
	/* the frames before it are its trace */
	if (tb->nlead > 0 && tb->lead[tb->nlead - 1] == tb->last)
		tb->nlead--;
	tb_told(l, tb, tb->last);
}

/* When the reference file logged iteration k, NAN unknown. */
static double
ref_at(const struct loader *l, long k)
{
	return k >= 0 && (size_t)k < l->nref ? l->ref[k] : NAN;
}

/*
 * When iteration line `k` of row r (the k-th iteration, numbered) was
 * logged, NAN unknown.  A step
 * begins when the line of the one before it is printed, so these bound
 * the iterations, and interpolating between a file's few known lines
 * would drift wherever its lines per second change (a checkpoint, a
 * slowdown).  Every rank waits for the others, so iteration k's line
 * comes when the reference file logged it, shifted by what the file's
 * own first and last such lines say (its clock's offset, its place in
 * the pipeline), interpolated between them -- exact for the reference
 * file, and no other file is read.
 */
static double
iter_time(const struct loader *l, const struct lrow *r, long k)
{
	double a = r->first_ts - ref_at(l, r->iter_first),
	    b = r->last_ts - ref_at(l, r->iter_last);

	if (isnan(a))
		a = b;
	if (isnan(b))
		b = a;
	if (isnan(ref_at(l, k)) || isnan(a))
		return NAN;
	return ref_at(l, k) + (r->iter_last > r->iter_first ?
	    a + (b - a) * (double)(k - r->iter_first) /
	    (double)(r->iter_last - r->iter_first) : a);
}

/*
 * A file made ready for its replay (struct prep): its line map, its rows'
 * places, the numbers of its iteration lines in line order, its clock
 * (not for a combined log, which carries its own times), and the first
 * cache error met.
 */
struct ready {
	size_t from, to;	/* its rows */
	uint32_t *map;		/* line_map() */
	size_t nlines;
	long *num;
	struct lclock ck;
	char *err;
};

/*
 * The clock of the file of rd (its rows, map and iteration numbers made):
 * the points its rows give (their first and last lines' times) and the
 * times of its iteration lines (iter_time()).  The iteration lines come
 * in line order; only the rows' few points are sorted, and the two
 * merged, an iteration line's time first where both know a line.
 */
static void
clock_build(const struct loader *l, struct ready *rd,
    const struct iline *iters, size_t niter)
{
	size_t i, n = 0, k = 0, line;
	struct lclock *ck = &rd->ck;
	double *pt, x;

	/* (filled as far as they are read: not zeroed) */
	pt = xreallocarray(NULL, 3 * 2 * (rd->to - rd->from) + 3, sizeof *pt);
	for (i = rd->from; i < rd->to; i++) {
		const struct lrow *r = &l->rows[i];

		if (!isnan(r->first_ts)) {
			pt[3 * n] = (double)r->first_line;
			pt[3 * n + 1] = r->first_ts;
			pt[3 * n + 2] = (double)n;
			n++;
		}
		if (!isnan(r->last_ts) && r->count > 1) {
			pt[3 * n] = (double)r->last_line;
			pt[3 * n + 1] = r->last_ts;
			pt[3 * n + 2] = (double)n;
			n++;
		}
	}
	ts_qsort(pt, n, 3 * sizeof *pt, cmp_point);
	ck->n = 0;
	ck->line = xreallocarray(NULL, n + niter + 1, sizeof *ck->line);
	ck->ts = xreallocarray(NULL, n + niter + 1, sizeof *ck->ts);
	for (i = 0; i < niter && l->nref > 0; i++) {
		line = iters[i].line;
		x = iter_time(l, row_at(l, rd->from, iters[i].mark),
		    rd->num[i]);
		if (isnan(x))
			continue;
		for (; k < n && pt[3 * k] < (double)line; k++)
			clock_add(ck, pt[3 * k], pt[3 * k + 1]);
		clock_add(ck, (double)line, x);
	}
	for (; k < n; k++)
		clock_add(ck, pt[3 * k], pt[3 * k + 1]);
	free(pt);
}

/* Make rows [from, to) (one file) ready in rd. */
static void
ready_make(struct loader *l, size_t from, size_t to, struct ready *rd)
{
	size_t fi = l->rows[from].file, i, n = 0;
	long *occ;		/* each row's iteration lines so far */
	struct iline *iters = NULL;
	int lines_only = l->files[fi].node == (size_t)-1;

	rd->from = from;
	rd->to = to;
	rd->err = NULL;
	rd->map = line_map(l, fi, from, to, &rd->nlines,
	    lines_only ? NULL : &iters, &n, &rd->err);
	memset(&rd->ck, 0, sizeof rd->ck);
	rd->num = NULL;
	if (lines_only)
		return;
	number_rows(l, from, to);
	occ = xcalloc(to - from + 1, sizeof *occ);
	rd->num = xreallocarray(NULL, n + 1, sizeof *rd->num);
	for (i = 0; i < n; i++)
		rd->num[i] = iter_number(row_at(l, from, iters[i].mark),
		    occ[iters[i].mark - 1]++);
	free(occ);
	clock_build(l, rd, iters, n);
	free(iters);
}

static void
ready_release(struct ready *rd)
{
	free(rd->map);
	free(rd->num);
	clock_release(&rd->ck);
	free(rd->err);
	rd->map = NULL;
	rd->num = NULL;
	rd->err = NULL;
}

/* Row r's first line went to `node`, tagged `tag`, logged at `at`. */
static void
row_seen(struct lrow *r, size_t node, const struct stage_tag *tag,
    double at)
{
	r->node0 = (uint32_t)node;
	r->stage0 = (unsigned char)tag->stage;
	r->iter0 = tag->iteration;
	r->at0 = at;
	r->seen = 1;
}

/* Replay a file made ready (rd) through the stage tracker. */
static void
replay_file(struct loader *l, struct ready *rd)
{
	struct diag_job *job = l->job;
	size_t fi = l->rows[rd->from].file, line, t, nth = 0, hint = 0;
	const uint32_t *map = rd->map;
	const struct lclock *ck = &rd->ck;
	struct stage_tracker tr;
	struct stage_tag tag;
	struct stage_iter it;
	struct tbtrack tb;
	int pending = 0;
	double ts;

	tb_init(&tb);
	stage_tracker_init(&tr);
	memset(&it, 0, sizeof it);
	for (line = 1; line < rd->nlines; line++) {
		struct lrow *r;

		if (map[line] == 0)
			continue;
		r = row_at(l, rd->from, map[line]);
		t = r->tmpl;
		tb_line(l, &tb, t);
		if (l->lt[t].is_iter) {
			it.iteration = rd->num[nth++];
			stage_feed_known(&tr, -1, &it, &tag);
		} else
			stage_feed_known(&tr, l->lt[t].rule, NULL, &tag);
		ts = clock_at(ck, line, &hint);
		if (line == r->first_line)	/* after a timed line, not before */
			row_seen(r, l->files[fi].node,
			    &tag, ck->n > 0 && line >= ck->line[0] ? ts : NAN);
		stream_line(l, l->files[fi].stream, t, &tag, &pending, ts,
		    (long)line);
	}
	tb_end(l, &tb);
	stream_finish(job, l->files[fi].stream, &tr, pending,
	    l->files[fi].last_ts);
	diag_folder_add(l->folder, job, l->files[fi].stream);
}

/*
 * Did row a's first line come before row b's?  By the times the lines
 * carry, else by the iterations they were logged in, else timed before
 * untimed and by path and line (row_before()).
 */
static int
row_earlier(const struct loader *l, const struct lrow *a,
    const struct lrow *b)
{
	if (!isnan(a->first_ts) && !isnan(b->first_ts) &&
	    a->first_ts != b->first_ts)
		return a->first_ts < b->first_ts;
	if (a->seen && b->seen && a->iter0 >= 0 && b->iter0 >= 0 &&
	    a->iter0 != b->iter0)
		return a->iter0 < b->iter0;
	return row_before(l, a, b);
}

/*
 * Each template's first occurrence, now that the replay placed every
 * file's first line of it: its node, line, stage and iteration.  A line
 * without a time that a later file (by path) logged in an earlier
 * iteration came first.
 */
static void
pick_first(struct loader *l)
{
	size_t *best = xcalloc(l->job->ntmpls + 1, sizeof *best), i, t;
	const struct lrow *r;

	for (t = 0; t < l->job->ntmpls; t++)
		best[t] = (size_t)-1;
	for (i = 0; i < l->nrows; i++) {
		t = l->rows[i].tmpl;
		if (l->rows[i].seen && (best[t] == (size_t)-1 ||
		    row_earlier(l, &l->rows[i], &l->rows[best[t]])))
			best[t] = i;
	}
	for (t = 0; t < l->job->ntmpls; t++) {
		if (best[t] == (size_t)-1)
			continue;
		r = &l->rows[best[t]];
		diag_set_first(l->job, t, r->node0, l->files[r->file].path,
		    (long)r->first_line, r->first_ts, (enum stage)r->stage0,
		    r->iter0);
		l->lt[t].first_at = r->at0;
	}
	free(best);
}

/*
 * Lines of files that never say the job is training (ranks that print no
 * progress, kernel logs, a launcher's failure summary) are placed in
 * time: a first occurrence after the first iteration line of the job is
 * in training, in the iteration the longest-running iteration template
 * had reached by then (interpolated).  A line without a time of its own
 * is placed after the timed lines before it in its file.
 */
static void
restage(struct loader *l)
{
	const struct lrow *best = NULL;
	double ts0 = NAN, span;
	size_t i, t;

	for (i = 0; i < l->nrows; i++) {
		const struct lrow *r = &l->rows[i];

		if (!l->lt[r->tmpl].is_iter || isnan(r->first_ts))
			continue;
		if (isnan(ts0) || r->first_ts < ts0)
			ts0 = r->first_ts;
		if (best == NULL || r->iter_last > best->iter_last)
			best = r;
	}
	if (best == NULL)
		return;
	span = best->last_ts - best->first_ts;
	for (t = 0; t < l->job->ntmpls; t++) {
		struct diag_first *f = &l->job->tmpls[t].first;
		double x, at = !isnan(f->ts) ? f->ts : l->lt[t].first_at;

		if (f->stage >= STAGE_TRAINING || isnan(at) || at <= ts0)
			continue;
		f->stage = STAGE_TRAINING;
		if (best->iter_first < 0 || !(span > 0))
			continue;
		x = (at - best->first_ts) / span;
		x = x < 0 ? 0 : x > 1 ? 1 : x;
		f->iteration = best->iter_first + (long)ceil(x *
		    (double)(best->iter_last - best->iter_first));
		if (at > best->last_ts)
			f->iteration = best->iter_last + 1;
	}
}

/*
 * v (of *n elements of `size` bytes) grown to hold `need`, the new
 * elements copies of *fill.
 */
static void *
grow_filled(void *v, size_t *n, size_t need, size_t size, const void *fill)
{
	size_t old = *n;

	if (need <= *n)
		return v;
	v = xgrow(v, n, need, size);
	for (; old < *n; old++)
		memcpy((char *)v + old * size, fill, size);
	return v;
}

/* The reference file logged iteration k at ts (its first line of it). */
static void
ref_set(struct loader *l, long k, double ts)
{
	static const double unknown = NAN;

	if (k < 0 || k > 100000000)
		return;
	l->ref = grow_filled(l->ref, &l->nref, (size_t)k + 1, sizeof *l->ref,
	    &unknown);
	if (isnan(l->ref[k]))
		l->ref[k] = ts;
}

/*
 * Iteration lines that do not say how long they took (DeepSpeed, HF):
 * the time since the last one of their stream, per iteration between.
 * Only one stream counts (all ranks wait for each other).
 */
static void
gap_time(struct loader *l, size_t stream, long iteration, double ts)
{
	if (l->gap_stream == (size_t)-1)
		l->gap_stream = stream;
	if (stream != l->gap_stream || isnan(ts) || iteration <= l->gap_it)
		return;
	if (l->gap_it >= 0 && ts > l->gap_ts) {
		l->gaps = xgrow(l->gaps, &l->gapcap, l->ngaps + 1,
		    sizeof *l->gaps);
		l->gaps[l->ngaps].iteration = iteration;
		l->gaps[l->ngaps++].ms = (ts - l->gap_ts) * 1e3 /
		    (double)(iteration - l->gap_it);
	}
	l->gap_it = iteration;
	l->gap_ts = ts;
}

/* The durations gap_time() found, when no line said any; then start over. */
static void
gap_flush(struct loader *l)
{
	size_t i, n = l->job->ntimes == 0 ? l->ngaps : 0;

	for (i = 0; i < n; i++)
		diag_add_time(l->job, l->gaps[i].iteration, l->gaps[i].ms);
	free(l->gaps);
	l->gaps = NULL;
	l->ngaps = l->gapcap = 0;
	l->gap_stream = (size_t)-1;
	l->gap_it = -1;
}

/*
 * An iteration line of the reference file (collect_times()): where its
 * text is in the batch, and what parsing it gave.
 */
struct tline {
	size_t off, len;	/* in the batch's text */
	uint64_t lineno;
	size_t tmpl;
	int ok;			/* a numbered iteration line */
	int has_ts;
	double ts;
	struct stage_iter it;
};

/*
 * The reference file's iteration lines are read in batches and parsed
 * (a line's header, then its fields: some 15 000 instructions a line) on
 * up to TIMES_THREADS threads, then taken in line order on this one, so
 * the outcome does not depend on how many parsed them.  A batch holds at
 * most TIMES_BATCH lines and about TIMES_TEXT bytes of their text; a
 * thread is worth its start for TIMES_MIN lines or more.
 */
#define TIMES_BATCH 4096
#define TIMES_TEXT (1u << 20)
#define TIMES_MIN 256
#define TIMES_THREADS 8

struct tbatch {
	struct buf text;
	struct tline *v;
	size_t n, cap;
	size_t from, to;	/* a part of it, for a thread */
};

static void
tbatch_parse_part(struct tbatch *b, size_t from, size_t to)
{
	struct lp_line lp;
	struct tline *v;

	for (v = b->v + from; v < b->v + to; v++) {
		lp_parse(b->text.s + v->off, v->len, &lp);
		v->has_ts = lp.ts_kind != LP_TS_NONE;
		v->ts = lp.ts;
		v->ok = stage_parse_iter(lp.msg, lp.msg_len, &v->it) &&
		    v->it.iteration >= 0;
	}
}

static void *
tbatch_main(void *arg)
{
	struct tbatch *part = arg;

	tbatch_parse_part(part, part->from, part->to);
	return NULL;
}

/* Parse the batch's lines, shared among up to `threads` threads. */
static void
tbatch_parse(struct tbatch *b, int threads)
{
	struct tbatch part[TIMES_THREADS];
	pthread_t th[TIMES_THREADS];
	int started[TIMES_THREADS];
	size_t n = threads < 1 ? 1 : (size_t)threads, k;

	if (n > TIMES_THREADS)
		n = TIMES_THREADS;
	if (n > b->n / TIMES_MIN)
		n = b->n / TIMES_MIN > 0 ? b->n / TIMES_MIN : 1;
	for (k = 1; k < n; k++) {
		part[k] = *b;
		part[k].from = b->n * k / n;
		part[k].to = b->n * (k + 1) / n;
		started[k] = pthread_create(&th[k], NULL, tbatch_main,
		    &part[k]) == 0;
	}
	tbatch_parse_part(b, 0, b->n / n);
	for (k = 1; k < n; k++)
		if (started[k])
			pthread_join(th[k], NULL);
		else
			tbatch_parse_part(b, part[k].from, part[k].to);
}

/* Take the batch's parsed lines in order, and empty it. */
static void
tbatch_take(struct loader *l, struct tbatch *b, const char *path)
{
	const struct tline *v;

	tbatch_parse(b, diag_threads());
	for (v = b->v; v < b->v + b->n; v++) {
		if (!v->ok)
			continue;
		if (v->has_ts)
			ref_set(l, v->it.iteration, v->ts);
		if (v->it.has_duration)
			diag_add_time(l->job, v->it.iteration,
			    v->it.duration_ms);
		else if (v->has_ts)
			gap_time(l, 0, v->it.iteration, v->ts);
		diag_add_metrics(l->job, v->it.iteration, &v->it, v->tmpl,
		    path, (long)v->lineno);
	}
	b->n = 0;
	buf_reset(&b->text);
}

/* Add a line to the batch. */
static void
tbatch_add(struct tbatch *b, const struct reader_line *rl, size_t t)
{
	struct tline *v;

	b->v = xgrow(b->v, &b->cap, b->n + 1, sizeof *b->v);
	v = &b->v[b->n++];
	v->off = b->text.len;
	v->len = rl->len;
	v->lineno = rl->lineno;
	v->tmpl = t;
	buf_add(&b->text, rl->s, rl->len);
}

/*
 * Iteration durations, losses and times of the file with the most
 * iteration lines (all ranks wait for each other, so one is enough):
 * read it once, before the replay, whose clocks its times anchor.  When
 * it gives durations, a combined log's ranks need not.
 */
static void
collect_times(struct loader *l)
{
	size_t i, from = 0, to = 0, best = (size_t)-1, nlines, t;
	uint64_t most = 0;
	uint32_t *map;
	char *path, *cause = NULL;
	struct reader *rd;
	struct reader_line rl;
	struct tbatch b;

	for (i = 0; i < l->nrows; i++)
		if (l->lt[l->rows[i].tmpl].is_iter && l->rows[i].count > most &&
		    l->files[l->rows[i].file].node != (size_t)-1) {
			most = l->rows[i].count;
			best = l->rows[i].file;
		}
	if (best == (size_t)-1)
		return;
	for (i = 0; i < l->nrows && l->rows[i].file != best; i++)
		;
	for (from = i, to = i; to < l->nrows && l->rows[to].file == best; to++)
		;
	map = line_map(l, best, from, to, &nlines, NULL, NULL, &l->err);
	path = xasprintf("%s/%s", l->root, l->files[best].path);
	memset(&b, 0, sizeof b);
	buf_init(&b.text);
	if (reader_open(path, 0, 0, &rd, &cause) == 0) {
		while (reader_next(rd, &rl, &cause) == 1) {
			if (rl.lineno >= nlines || map[rl.lineno] == 0 ||
			    !l->lt[t = row_at(l, from, map[rl.lineno])->tmpl].is_iter)
				continue;
			tbatch_add(&b, &rl, t);
			if (b.n == TIMES_BATCH || b.text.len >= TIMES_TEXT)
				tbatch_take(l, &b, l->files[best].path);
		}
		reader_close(rd);
		tbatch_take(l, &b, l->files[best].path);
	}
	buf_release(&b.text);
	free(b.v);
	gap_flush(l);
	if (l->job->ntimes > 0)
		l->time_stream = (size_t)-2;
	free(cause);
	free(path);
	free(map);
}

/* Templates seen only as traceback frames or the source lines after them. */
static void
mark_context(struct loader *l)
{
	struct diag_job *job = l->job;
	size_t t, n;
	uint64_t total;

	for (t = 0; t < job->ntmpls; t++) {
		for (n = 0, total = 0; n < job->nnodes; n++)
			total += job->counts[n * job->ntmpls + t];
		job->tmpls[t].context = total > 0 && l->lt[t].ctx >= total;
		job->tmpls[t].filler = l->lt[t].is_filler;
		job->tmpls[t].trace = l->lt[t].trace;
		job->tmpls[t].ntrace = l->lt[t].ntrace;
		l->lt[t].trace = NULL;
		l->lt[t].ntrace = 0;
	}
}

/* The node index of a name, added when new. */
static size_t
node_named(struct loader *l, const char *name)
{
	size_t n;

	for (n = 0; n < l->job->nnodes; n++)
		if (strcmp(l->job->nodes[n].name, name) == 0)
			return n;
	n = diag_add_node(l->job, name);
	l->node_ids = xgrow(l->node_ids, &l->nodeidcap, n + 1,
	    sizeof *l->node_ids);
	l->node_ids[n] = 0;
	l->job->nodes[n].missing = 1;	/* until a line of it shows up */
	return n;
}

static void
rank_set(struct loader *l, long rank, size_t node)
{
	static const size_t none = 0;

	if (rank < 0 || rank > 1000000)
		return;
	l->rank_node = grow_filled(l->rank_node, &l->nrank, (size_t)rank + 1,
	    sizeof *l->rank_node, &none);
	if (l->rank_node[rank] == 0)
		l->rank_node[rank] = node + 1;
}

/*
 * Rank -> node from the job's hostfile ("HOST slots=N" lines, ranks given
 * out in order), for combined logs whose ranks the index could not place.
 */
static void
ranks_from_hostfile(struct loader *l)
{
	char *path = xasprintf("%s/hostfile", l->root), *line = NULL, *p;
	size_t cap = 0, node;
	long rank = 0, slots;
	FILE *f = fopen(path, "r");

	free(path);
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		if ((p = strtok(line, " \t\r\n")) == NULL || *p == '#')
			continue;
		node = node_named(l, p);
		slots = 1;
		while ((p = strtok(NULL, " \t\r\n")) != NULL)
			if (strncmp(p, "slots=", 6) == 0)
				slots = strtol(p + 6, NULL, 10);
		while (slots-- > 0)
			rank_set(l, rank++, node);
	}
	free(line);
	fclose(f);
}

static int
rank_row(void *arg, long rank, int64_t node)
{
	struct loader *l = arg;
	size_t n = node_index(l, node);

	if (n != (size_t)-1)
		rank_set(l, rank, n);
	return 0;
}

static int
load_ranks(struct loader *l, char **cause)
{
	size_t r;

	if (diagdb_each_rank(l->c, l->job_id, rank_row, l, cause) != 0)
		return -1;
	ranks_from_hostfile(l);
	/* the ranks placed on each node (a node's one file may hold many) */
	for (r = 0; r < l->nrank; r++)
		if (l->rank_node[r] != 0 && l->rank_node[r] - 1 <
		    l->job->nnodes)
			l->job->nodes[l->rank_node[r] - 1].nprocs++;
	return 0;
}

/*
 * The split stream of file fi for `rank` (-1: no prefix): one per rank, so
 * a frozen rank stands out in a combined log too.  by_rank[rank + 1] holds
 * its index + 1.
 */
static struct split *
split_new(struct loader *l, size_t fi, size_t node, char *path,
    struct split **sp, size_t *nsp, size_t *cap)
{
	struct split *x;

	*sp = xgrow(*sp, cap, *nsp + 1, sizeof **sp);
	x = &(*sp)[*nsp];
	memset(x, 0, sizeof *x);
	x->node = node;
	x->path = l->files[fi].path;
	x->stream = diag_add_stream(l->job, node, path);
	l->job->streams[x->stream].file = xstrdup(l->files[fi].path);
	free(path);
	stage_tracker_init(&x->tr);
	tb_init(&x->tb);
	l->job->nodes[node].missing = 0;
	(*nsp)++;
	return x;
}

/*
 * The split stream of the lines of file fi that carry a host prefix: one
 * per host, on the node of that name (NCCL's "host:pid:tid" and pdsh's
 * "host: " name the machine that wrote the line).
 */
static struct split *
split_for_host(struct loader *l, size_t fi, const char *host, size_t len,
    struct split **sp, size_t *nsp, size_t *cap)
{
	char *name = xstrndup(host, len);
	struct split *x;
	size_t i;

	for (i = 0; i < *nsp; i++)
		if ((*sp)[i].host != NULL && strcmp((*sp)[i].host, name) == 0) {
			free(name);
			return &(*sp)[i];
		}
	x = split_new(l, fi, node_named(l, name), xasprintf("%s (%s)",
	    l->files[fi].path, name), sp, nsp, cap);
	x->host = name;
	return x;
}

static struct split *
split_for(struct loader *l, size_t fi, long rank, struct split **sp,
    size_t *nsp, size_t *cap, size_t **by_rank, size_t *nby)
{
	char name[64], *path;
	size_t node, slot = rank >= 0 && rank < 1000000 ? (size_t)rank + 1 : 0;
	size_t old = *nby;

	if (slot >= *nby) {
		*by_rank = xgrow(*by_rank, nby, slot + 1, sizeof **by_rank);
		memset(*by_rank + old, 0, (*nby - old) * sizeof **by_rank);
	}
	if ((*by_rank)[slot] != 0)
		return &(*sp)[(*by_rank)[slot] - 1];
	if (slot > 0 && (size_t)rank < l->nrank && l->rank_node[rank] != 0)
		node = l->rank_node[rank] - 1;
	else if (slot > 0) {
		snprintf(name, sizeof name, "rank-%ld", rank);
		node = node_named(l, name);
	} else {
		node = node_named(l, l->files[fi].path);
		l->job->nodes[node].pseudo = 1;
	}
	path = slot > 0 ? xasprintf("%s (rank %ld)", l->files[fi].path, rank) :
	    xstrdup(l->files[fi].path);
	(*by_rank)[slot] = *nsp + 1;
	return split_new(l, fi, node, path, sp, nsp, cap);
}

/*
 * The split stream of a line: by its rank (a stream per rank, on the node
 * the ranks table or hostfile gives, else on the host the line names),
 * else by the host it names, else the file's lines of no rank.
 */
static struct split *
split_pick(struct loader *l, size_t fi, const struct lp_line *lp,
    struct split **sp, size_t *nsp, size_t *cap, size_t **by_rank,
    size_t *nby)
{
	char *name;

	if (lp->host == NULL)
		return split_for(l, fi, lp->rank, sp, nsp, cap, by_rank, nby);
	if (lp->rank < 0)
		return split_for_host(l, fi, lp->host, lp->host_len, sp, nsp,
		    cap);
	if ((size_t)lp->rank >= l->nrank || l->rank_node[lp->rank] == 0) {
		name = xstrndup(lp->host, lp->host_len);
		rank_set(l, lp->rank, node_named(l, name));
		free(name);
	}
	return split_for(l, fi, lp->rank, sp, nsp, cap, by_rank, nby);
}

/*
 * Read an iteration line of a split file.  Durations come from one stream
 * only (the first whose lines carry them), so the others need only their
 * numbers, which are much cheaper to read.
 */
static int
split_iter(const struct loader *l, const struct split *sp,
    const struct lp_line *lp, struct stage_iter *it)
{
	if (l->time_stream == (size_t)-1 || l->time_stream == sp->stream)
		return stage_parse_iter(lp->msg, lp->msg_len, it);
	return stage_parse_iter_number(lp->msg, lp->msg_len, it);
}

/* One line of a split file: count it, tag it, put it in its stream. */
static void
split_line(struct loader *l, struct split *sp, struct lrow *r, uint64_t line,
    const struct lp_line *lp, double ts)
{
	struct diag_job *job = l->job;
	struct stage_tag tag;
	struct stage_iter it;
	struct diag_node *n = &job->nodes[sp->node];
	size_t t = r->tmpl;

	diag_count(job, sp->node, t, 1);
	if (job->tmpls[t].level >= DIAG_LEVEL_ERROR && !isnan(ts) &&
	    (isnan(n->first_error_ts) || ts < n->first_error_ts))
		n->first_error_ts = ts;
	tb_line(l, &sp->tb, t);
	if (l->lt[t].is_iter && split_iter(l, sp, lp, &it)) {
		stage_feed_known(&sp->tr, -1, &it, &tag);
		if (it.has_duration && (l->time_stream == (size_t)-1 ||
		    l->time_stream == sp->stream)) {
			l->time_stream = sp->stream;
			diag_add_time(job, tag.iteration, it.duration_ms);
		} else if (!it.has_duration && l->time_stream == (size_t)-1 &&
		    lp->ts_kind != LP_TS_NONE)
			gap_time(l, sp->stream, tag.iteration, lp->ts);
		if (l->time_stream == sp->stream)
			diag_add_metrics(job, tag.iteration, &it, t, sp->path,
			    (long)line);
	} else
		stage_feed_known(&sp->tr, l->lt[t].rule, NULL, &tag);
	if (line == r->first_line)
		row_seen(r, sp->node, &tag, ts);
	stream_line(l, sp->stream, t, &tag, &sp->pending, ts, (long)line);
}

/*
 * A launcher's failure summary ("Root Cause (first observed failure):"
 * then "host : NAME", "rank : N", "exitcode : ...") reports a rank of
 * another machine: its lines belong to that host, and its rank is placed
 * there.  The summary ends at its closing rule.
 */
struct summary {
	int in;
	char host[128];
	size_t len;
};

/* The value of "  KEY   : value" in m (its start and length), or 0. */
static size_t
summary_field(const char *m, size_t len, const char *key, const char **val)
{
	size_t i = 0, k = strlen(key), e;

	while (i < len && m[i] == ' ')
		i++;
	if (len - i < k || strncmp(m + i, key, k) != 0)
		return 0;
	for (i += k; i < len && m[i] == ' '; i++)
		;
	if (i >= len || m[i] != ':')
		return 0;
	for (i++; i < len && m[i] == ' '; i++)
		;
	for (e = i; e < len && m[e] != ' '; e++)
		;
	*val = m + i;
	return e - i;
}

static void
summary_line(struct loader *l, struct summary *sum, struct lp_line *lp)
{
	const char *m = lp->msg, *v;
	size_t len = lp->msg_len, n;
	long rank;

	while (len > 0 && *m == ' ')
		m++, len--;
	if (starts(m, len, "Root Cause (first observed failure)") ||
	    starts(m, len, "Failures:")) {
		sum->in = 1;
		sum->len = 0;
		return;
	}
	if (!sum->in)
		return;
	if (len >= 8 && (m[0] == '=' || m[0] == '-') && m[len - 1] == m[0]) {
		if (m[0] == '=')
			sum->in = 0;
		sum->len = 0;
		return;
	}
	if ((n = summary_field(m, len, "host", &v)) > 0 && n < sizeof sum->host) {
		memcpy(sum->host, v, n);
		sum->len = n;
	}
	if (sum->len > 0 && (n = summary_field(m, len, "rank", &v)) > 0 &&
	    (rank = strtol(v, NULL, 10)) >= 0 && v[0] >= '0' && v[0] <= '9') {
		char *name = xstrndup(sum->host, sum->len);

		rank_set(l, rank, node_named(l, name));
		free(name);
	}
	if (sum->len > 0 && lp->host == NULL && lp->rank < 0) {
		lp->host = sum->host;
		lp->host_len = sum->len;
	}
}

/* Rank `rank` wrote a line in a split file. */
static void
wrote_set(struct loader *l, long rank)
{
	static const unsigned char no = 0;

	l->wrote = grow_filled(l->wrote, &l->nwrote, (size_t)rank + 1, 1, &no);
	l->wrote[rank] = 1;
}

/*
 * When every log of the job is a combined one (split by rank), the ranks
 * below the highest that wrote a line but wrote none themselves: the
 * scorer suspects them when their peers time out.
 */
static void
absent_ranks(struct loader *l)
{
	size_t i, top = 0, seen = 0;
	char name[64];

	for (i = 0; i < l->nfiles; i++)
		if (l->files[i].node != (size_t)-1)
			return;
	for (i = 0; i < l->nwrote; i++)
		if (l->wrote[i]) {
			top = i;
			seen++;
		}
	l->job->nseen = seen;
	for (i = 0; seen >= 2 && i < top; i++) {
		if (l->wrote[i])
			continue;
		if (i < l->nrank && l->rank_node[i] != 0)
			diag_add_absent(l->job, (long)i,
			    l->job->nodes[l->rank_node[i] - 1].name);
		else {
			snprintf(name, sizeof name, "rank-%zu", i);
			diag_add_absent(l->job, (long)i, name);
		}
	}
}

/*
 * Replay a file of several ranks: each line goes to the node of its rank
 * prefix (the ranks table, the hostfile, else a node per rank), with a
 * stream and a stage tracker per rank.
 */
static void
replay_split(struct loader *l, const struct ready *ready)
{
	size_t fi = l->rows[ready->from].file, nlines = ready->nlines;
	char *path = xasprintf("%s/%s", l->root, l->files[fi].path);
	char *cause = NULL;
	struct reader *rd;
	struct reader_line rl;
	struct lp_line lp;
	struct split *sp = NULL;
	size_t nsp = 0, cap = 0, i, *by_rank = NULL, nby = 0;
	const uint32_t *map = ready->map;
	double ts = NAN;
	struct summary sum;

	memset(&sum, 0, sizeof sum);
	if (reader_open(path, 0, 0, &rd, &cause) == 0) {
		while (reader_next(rd, &rl, &cause) == 1) {
			lp_parse(rl.s, rl.len, &lp);
			if (lp.ts_kind == LP_TS_EPOCH)
				ts = lp.ts;
			summary_line(l, &sum, &lp);
			if (rl.lineno >= nlines || map[rl.lineno] == 0)
				continue;
			split_line(l, split_pick(l, fi, &lp, &sp, &nsp, &cap,
			    &by_rank, &nby), row_at(l, ready->from,
			    map[rl.lineno]), rl.lineno, &lp, ts);
		}
		reader_close(rd);
	}
	for (i = 1; i < nby; i++)
		if (by_rank[i] != 0)
			wrote_set(l, (long)i - 1);
	for (i = 0; i < nsp; i++) {
		tb_end(l, &sp[i].tb);
		stream_finish(l->job, sp[i].stream, &sp[i].tr, sp[i].pending,
		    l->files[fi].last_ts);
		diag_folder_add(l->folder, l->job, sp[i].stream);
		free(sp[i].host);
	}
	free(cause);
	free(path);
	free(sp);
	free(by_rank);
}

/*
 * Files are made ready (read from the cache, numbered, clocked) ahead of
 * their replay, file k in slot k % nslots.  On one thread a file is made
 * just before its replay.  With the fold's worker (two threads or more)
 * any thread may make the next file: the worker when it has nothing to
 * fold, the replay when the worker's queue is full or when the file it
 * needs next is not begun, and with three threads or more a thread of
 * its own.  So two threads share three kinds of work without a third
 * thread taking turns with them.  Reads of the cache, which one
 * connection serves, take turns (dbmu).  A file is made the same way
 * whoever makes it, and the replay takes the files in order, so the
 * outcome does not depend on timing.
 *
 * Small files are made many ahead, so that the replay seldom waits for
 * one (10 240 files of a thousand lines made one ahead kept the two
 * threads taking turns); large ones two ahead, so that what a made file
 * holds (its line map, 4 bytes a line, its iteration numbers and clock,
 * 24 bytes an iteration line) stays small next to the rest of the
 * diagnosis: the slots hold about PREP_LINES lines.  (2^20 lines made
 * the 10 GB bench job's peak 51 MB against 27 MB at 1 GB: six slots of
 * 3 MB.)
 */
#define PREP_MIN 2
#define PREP_MAX 16
#define PREP_LINES (1u << 18)

enum slot_state { SLOT_FREE, SLOT_MAKING, SLOT_READY };

struct prep {
	struct loader *l;
	size_t *bounds;		/* file k's rows [bounds[k], bounds[k + 1]) */
	size_t nfiles;
	struct ready *slot;	/* file k in slot k % nslots */
	enum slot_state *state;
	size_t nslots;
	size_t taking;		/* the file the replay takes or replays */
	int shared;		/* several threads make files */
	int threaded;		/* one of them is a thread of its own */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a slot was made or freed */
	pthread_mutex_t dbmu;
};

/*
 * With the lock held: claim the first file not begun from `ahead` files
 * after the one the replay is at, or (size_t)-1.  A file's slot is free
 * once the file nslots before it is replayed, so each file in [taking,
 * taking + nslots) whose slot is free is not begun.
 */
static size_t
prep_claim(struct prep *p, size_t ahead)
{
	size_t k;

	for (k = p->taking + ahead; k < p->taking + p->nslots &&
	    k < p->nfiles; k++)
		if (p->state[k % p->nslots] == SLOT_FREE) {
			p->state[k % p->nslots] = SLOT_MAKING;
			return k;
		}
	return (size_t)-1;
}

/* Make file k, claimed, and say it is ready. */
static void
prep_make(struct prep *p, size_t k)
{
	ready_make(p->l, p->bounds[k], p->bounds[k + 1],
	    &p->slot[k % p->nslots]);
	pthread_mutex_lock(&p->mu);
	p->state[k % p->nslots] = SLOT_READY;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/*
 * diag_folder_idle(): make a file ahead if one may be made now.  The
 * worker leaves the file after the one being replayed to the replay,
 * which makes it itself when it comes to it if nobody has: the worker,
 * making the very next one, kept the replay waiting for it, file after
 * file, where files are small.
 */
static int
prep_idle(void *arg, int worker)
{
	struct prep *p = arg;
	size_t k;

	pthread_mutex_lock(&p->mu);
	k = prep_claim(p, worker ? 2 : 1);
	pthread_mutex_unlock(&p->mu);
	if (k == (size_t)-1)
		return 0;
	prep_make(p, k);
	return 1;
}

static void *
prep_main(void *arg)
{
	struct prep *p = arg;
	size_t k;

	pthread_mutex_lock(&p->mu);
	while (p->taking + 1 < p->nfiles) {
		if ((k = prep_claim(p, 1)) == (size_t)-1) {
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		pthread_mutex_unlock(&p->mu);
		prep_make(p, k);
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* File k, made ready (by this thread when no other has begun it). */
static struct ready *
prep_take(struct prep *p, size_t k)
{
	struct ready *rd = &p->slot[k % p->nslots];

	if (!p->shared) {
		ready_make(p->l, p->bounds[k], p->bounds[k + 1], rd);
		return rd;
	}
	/* a later file may be begun now */
	pthread_mutex_lock(&p->mu);
	p->taking = k;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	diag_folder_poke(p->l->folder);
	pthread_mutex_lock(&p->mu);
	while (p->state[k % p->nslots] != SLOT_READY) {
		if (p->state[k % p->nslots] == SLOT_FREE) {
			p->state[k % p->nslots] = SLOT_MAKING;
			pthread_mutex_unlock(&p->mu);
			prep_make(p, k);
			pthread_mutex_lock(&p->mu);
		} else
			pthread_cond_wait(&p->cv, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return rd;
}

/* Done with file k: its slot may take the next. */
static void
prep_give_back(struct prep *p, size_t k)
{
	struct ready *rd = &p->slot[k % p->nslots];

	if (rd->err != NULL && p->l->err == NULL) {
		p->l->err = rd->err;
		rd->err = NULL;
	}
	ready_release(rd);
	if (!p->shared)
		return;
	pthread_mutex_lock(&p->mu);
	p->state[k % p->nslots] = SLOT_FREE;
	pthread_mutex_unlock(&p->mu);
}

static void
prep_start(struct prep *p, struct loader *l)
{
	uint64_t lines = 0;
	size_t i, k;

	memset(p, 0, sizeof *p);
	p->l = l;
	p->bounds = xcalloc(l->nrows + 2, sizeof *p->bounds);
	for (i = 0; i < l->nrows; i++)
		if (i == 0 || l->rows[i].file != l->rows[i - 1].file)
			p->bounds[p->nfiles++] = i;
	p->bounds[p->nfiles] = l->nrows;
	for (k = 0; k < p->nfiles; k++)
		lines += l->files[l->rows[p->bounds[k]].file].lines;
	p->nslots = 1;
	if (l->folder != NULL && p->nfiles >= 2) {
		p->nslots = PREP_MAX;
		while (p->nslots > PREP_MIN &&
		    (uint64_t)p->nslots * (lines / p->nfiles) > PREP_LINES)
			p->nslots--;
	}
	p->slot = xcalloc(p->nslots, sizeof *p->slot);
	p->state = xcalloc(p->nslots, sizeof *p->state);
	if (p->nslots == 1)
		return;
	p->shared = 1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_mutex_init(&p->dbmu, NULL);
	l->dbmu = &p->dbmu;
	diag_folder_idle(l->folder, prep_idle, p);
	if (diag_threads() >= 3)
		p->threaded = pthread_create(&p->thread, NULL, prep_main,
		    p) == 0;
}

static void
prep_finish(struct prep *p)
{
	if (p->threaded)
		pthread_join(p->thread, NULL);
	if (p->shared) {
		/* the worker makes no more: every file is made */
		diag_folder_idle(p->l->folder, NULL, NULL);
		p->l->dbmu = NULL;
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->dbmu);
	}
	free(p->slot);
	free(p->state);
	free(p->bounds);
}

static void
replay(struct loader *l)
{
	struct prep p;
	struct ready *rd;
	size_t k;

	prep_start(&p, l);
	for (k = 0; k < p.nfiles; k++) {
		rd = prep_take(&p, k);
		if (l->files[l->rows[rd->from].file].node == (size_t)-1)
			replay_split(l, rd);
		else
			replay_file(l, rd);
		prep_give_back(&p, k);
	}
	prep_finish(&p);
}

/* Per healthy job: its count of each template of this job. */
struct pool_acc {
	struct loader *l;
	uint64_t *count;
	size_t rows;		/* its templates */
};

static int
pool_row(void *arg, uint32_t id, uint64_t count)
{
	struct pool_acc *pa = arg;
	struct loader *l = pa->l;

	pa->rows++;
	if (id < l->idcap && l->tmpl_of_id[id] != 0)
		pa->count[l->tmpl_of_id[id] - 1] += count;
	return 0;
}

/*
 * A run of the pool: its count of each of this job's templates, its
 * nodes, and how many templates it has.
 */
struct pool_cand {
	int64_t id;
	int named;		/* --baseline: no likeness needed */
	uint64_t *count;
	double nodes;
	size_t rows;
	double hours;
	char *name;
};

static int
pool_counts(struct loader *l, struct pool_cand *pc, char **cause)
{
	struct pool_acc pa;

	pc->count = xcalloc(l->job->ntmpls + 1, sizeof *pc->count);
	pa.l = l;
	pa.count = pc->count;
	pa.rows = 0;
	if (diagdb_template_sums(l->c, pc->id, &pc->nodes, pool_row, &pa,
	    cause) != 0)
		return -1;
	pc->rows = pa.rows;
	return 0;
}

/*
 * Is candidate pc a run of this job: of the same program (half or more
 * of the two runs' templates in common) and of the same shape
 * (pool_same_shape())?  Fills pc->name either way.
 */
static int
pool_same_job(struct loader *l, const struct pool_run *self,
    struct pool_cand *pc, int *same, char **cause)
{
	struct pool_run run;
	const char *why;
	size_t t, common = 0;

	if (pool_run_load(l->c, pc->id, &run, cause) != 0)
		return -1;
	pc->name = run.name;
	run.name = NULL;
	for (t = 0; t < l->job->ntmpls; t++)
		common += pc->count[t] > 0;
	*same = pc->named || (pool_likeness(common, l->job->ntmpls,
	    pc->rows) >= 0.5 && pool_same_shape(self, &run, &why));
	pool_run_release(&run);
	return 0;
}

/*
 * Add healthy run pc to the pool: where each template occurs, its rate
 * there (per node, or per node-hour when the job's rates are), and the
 * templates it cannot speak for.  A healthy run that logs none of this
 * job's iteration lines is of another kind (framework, launcher): that it
 * lacks a line says nothing of the line, that it has one still says the
 * line is normal.  A job without iteration lines is compared with every
 * run.
 */
static void
pool_add(struct loader *l, const struct pool_cand *pc, double *rate)
{
	struct diag_job *job = l->job;
	double per = pc->nodes * (job->hours > 0 ? pc->hours : 1);
	int iters = 0, kin = 0;
	size_t t;

	for (t = 0; t < job->ntmpls; t++)
		if (l->lt[t].is_iter) {
			iters = 1;
			kin |= pc->count[t] > 0;
		}
	kin |= !iters;
	for (t = 0; t < job->ntmpls; t++) {
		if (pc->count[t] > 0) {
			job->tmpls[t].healthy_jobs++;
			rate[t] += (double)pc->count[t] / per;
		} else if (!kin)
			job->tmpls[t].healthy_blind++;
	}
	job->healthy_names = xreallocarray(job->healthy_names,
	    (size_t)job->nhealthy + 1, sizeof *job->healthy_names);
	job->healthy_names[job->nhealthy++] = xstrdup(pc->name);
}

/* Mark the candidates named healthy runs of the job (mark --for). */
static int
pool_named(struct loader *l, struct pool_cand *pc, size_t n, char **cause)
{
	int64_t *ids;
	size_t nids, i, k;

	if (diagdb_named(l->c, l->job_id, &ids, &nids, cause) != 0)
		return -1;
	for (i = 0; i < n; i++)
		for (k = 0; k < nids; k++)
			if (pc[i].id == ids[k])
				pc[i].named = 1;
	free(ids);
	return 0;
}

/*
 * Ids of the candidate healthy runs: the cache's pool (marked good, or
 * ended cleanly, or named for the job with mark --for) and the jobs named
 * as baselines (names or directories), these two kinds marked named.
 */
static int
pool_ids(struct loader *l, const char *const *base, size_t nbase,
    struct pool_cand **pc, size_t *n, char **cause)
{
	struct job_ref b;
	int64_t *ids = NULL;
	size_t i, k;
	int rc;

	if (diagdb_pool(l->c, l->job_id, &ids, n, cause) != 0)
		return -1;
	*pc = xcalloc(*n + nbase + 1, sizeof **pc);
	for (i = 0; i < *n; i++)
		(*pc)[i].id = ids[i];
	free(ids);
	if (pool_named(l, *pc, *n, cause) != 0)
		return -1;
	for (i = 0; i < nbase; i++) {
		if ((rc = jobdb_find(l->c, base[i], &b, cause)) < 0)
			return -1;
		if (rc == 0 || b.id == l->job_id) {
			jobdb_release(&b);
			return ts_fail(cause, "no baseline job '%s' (or it is "
			    "the job itself)", base[i]);
		}
		for (k = 0; k < *n && (*pc)[k].id != b.id; k++)
			;
		if (k == *n)
			(*pc)[(*n)++].id = b.id;
		(*pc)[k].named = 1;
		jobdb_release(&b);
	}
	return 0;
}

/*
 * How long the job and each healthy run logged (epoch times): rates are
 * compared per node-hour when all of them ran a minute or more, else per
 * node.  A run of a hundred times the iterations has a hundred times the
 * retries.
 */
static int
pool_hours(struct loader *l, struct pool_cand *pc, size_t n, char **cause)
{
	double secs;
	size_t i;

	if (diagdb_job_span(l->c, l->job_id, LP_TS_EPOCH, &secs, cause) != 0)
		return -1;
	l->job->hours = secs >= 60 ? secs / 3600 : 0;
	for (i = 0; i < n; i++) {
		if (diagdb_job_span(l->c, pc[i].id, LP_TS_EPOCH, &secs,
		    cause) != 0)
			return -1;
		pc[i].hours = secs / 3600;
		if (secs < 60)
			l->job->hours = 0;
	}
	return 0;
}

/*
 * Keep the candidates that are runs of this job (pool_same_job()), in
 * place; *n is how many.
 */
static int
pool_select(struct loader *l, struct pool_cand *pc, size_t *n, char **cause)
{
	struct pool_run self;
	size_t i, keep = 0;
	int same, rc = -1;

	if (pool_run_load(l->c, l->job_id, &self, cause) != 0)
		return -1;
	for (i = 0; i < *n; i++) {
		if (pool_counts(l, &pc[i], cause) != 0 ||
		    pool_same_job(l, &self, &pc[i], &same, cause) != 0)
			goto out;
		if (same) {
			struct pool_cand tmp = pc[keep];

			pc[keep++] = pc[i];
			pc[i] = tmp;
		}
	}
	rc = 0;
out:
	for (i = keep; i < *n; i++) {
		free(pc[i].count);
		free(pc[i].name);
		pc[i].count = NULL;
		pc[i].name = NULL;
	}
	*n = keep;
	pool_run_release(&self);
	return rc;
}

static int
load_pool(struct loader *l, const char *const *base, size_t nbase,
    char **cause)
{
	struct pool_cand *pc = NULL;
	double *rate = xcalloc(l->job->ntmpls + 1, sizeof *rate);
	size_t n = 0, i;
	int rc = -1;

	if (pool_ids(l, base, nbase, &pc, &n, cause) != 0 ||
	    pool_select(l, pc, &n, cause) != 0 ||
	    pool_hours(l, pc, n, cause) != 0)
		goto out;
	for (i = 0; i < n; i++)
		pool_add(l, &pc[i], rate);
	for (i = 0; i < l->job->ntmpls; i++)
		if (l->job->tmpls[i].healthy_jobs > 0)
			l->job->tmpls[i].healthy_rate = rate[i] /
			    l->job->tmpls[i].healthy_jobs;
	rc = 0;
out:
	for (i = 0; pc != NULL && i < n; i++) {
		free(pc[i].count);
		free(pc[i].name);
	}
	free(pc);
	free(rate);
	return rc;
}

static void
loader_release(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nfiles; i++)
		free(l->files[i].path);
	free(l->files);
	free(l->by_id);
	free(l->rows);
	free(l->gaps);
	for (i = 0; l->lt != NULL && i < l->nlt; i++)
		free(l->lt[i].trace);
	free(l->lt);
	free(l->tmpl_of_id);
	free(l->node_ids);
	free(l->rank_node);
	free(l->ref);
	free(l->wrote);
	free(l->root);
	free(l->err);
}

/* Streams of files that had no template rows (empty files) end here. */
static void
end_empty(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nfiles; i++) {
		size_t s = l->files[i].stream;

		if (s != (size_t)-1 && l->job->streams[s].niters == 0 &&
		    l->job->streams[s].last_stage == STAGE_NONE)
			diag_stream_end(l->job, s, -1, STAGE_NONE,
			    l->files[i].last_ts);
	}
}

int
jobload(struct cache *c, const struct job_ref *ref,
    const char *const *baselines, size_t nbase, struct diag_job **out,
    char **cause)
{
	struct loader l;
	int rc = -1;

	memset(&l, 0, sizeof l);
	l.c = c;
	l.job = diag_job_new(ref->name);
	if (load_job(&l, ref, cause) != 0 || load_nodes(&l, cause) != 0 ||
	    load_files(&l) != 0 || load_rows(&l, cause) != 0 ||
	    load_ranks(&l, cause) != 0)
		goto out;
	sample_templates(&l);
	count_rows(&l);
	l.time_stream = (size_t)-1;
	l.gap_stream = (size_t)-1;
	l.gap_it = -1;
	collect_times(&l);
	diag_fold_begin(l.job);	/* on one thread or more, the same */
	l.folder = diag_folder_start(l.job);
	replay(&l);
	diag_folder_finish(l.folder);
	if (l.err != NULL) {
		ts_fail(cause, "%s", l.err);
		goto out;
	}
	gap_flush(&l);
	pick_first(&l);
	absent_ranks(&l);
	restage(&l);
	mark_context(&l);
	end_empty(&l);
	diag_spans(l.job);
	if (load_pool(&l, baselines, nbase, cause) != 0)
		goto out;
	*out = l.job;
	l.job = NULL;
	rc = 0;
out:
	diag_job_free(l.job);
	loader_release(&l);
	return rc;
}


int
jobload_store(struct cache *c, const struct job_ref *ref,
    const struct diag_job *job, const struct diag_result *r, char **cause)
{
	struct diagdb_tag *tags = xcalloc(job->ntmpls + 1, sizeof *tags);
	size_t t, n = 0;
	int rc;

	for (t = 0; t < job->ntmpls; t++) {
		const struct diag_first *f = &job->tmpls[t].first;

		if (f->path == NULL)
			continue;
		tags[n].tmpl = job->tmpls[t].id;
		tags[n].path = f->path;
		tags[n].line = f->line;
		tags[n].stage = stage_name(f->stage);
		tags[n].iteration = f->iteration;
		n++;
	}
	/* a completed run joins the healthy pool without being marked */
	rc = diagdb_store(c, ref->id, diag_outcome_name(r->outcome), tags, n,
	    cause);
	free(tags);
	return rc;
}
