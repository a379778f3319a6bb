/*
 * viewjob.c -- a job indexed and diagnosed away from the keyboard (see
 * viewint.h), once or, under `follow`, again every few seconds.
 *
 * One thread with its own cache connection (the cache's one writer in
 * this process; WAL lets the screen's connection read meanwhile) runs
 * rounds: index the job's directory (only what was appended, new files,
 * files read again when they were truncated or replaced), then, when
 * anything changed, the diagnosis.  A finished model waits to be taken
 * by the screen (a newer one replaces it), and a byte on a pipe wakes a
 * screen that waits.  What the thread does now is a line of text the
 * status line shows.
 *
 * Under follow the index leaves lines still being written for the next
 * round (index_opts.whole_lines): a half-written line is a line once it
 * is complete, or once its file was left alone for ten seconds.  Under
 * follow the diagnosis is made against the time now (JOBMODEL_LIVE):
 * a silence lasts until now, so a rank or a job that stopped logging
 * becomes a stop or a hang as time passes; it runs again every 15 s
 * when nothing was appended.  A file that holds fewer lines than were indexed (truncated, or
 * a new file under the old name) is read again from its start: its old
 * lines are gone from the disk, and the note says so; a file renamed
 * away is a new file of the job, read whole.
 *
 * Stopping: a cancel flag the index checks on every line; the diagnosis
 * runs to its end, so viewjob_free() waits a moment for the thread and
 * otherwise leaves it to end on its own (the process is quitting).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "db/cache.h"
#include "db/jobdb.h"
#include "db/logdb.h"
#include "diag/faults.h"
#include "diag/jobmodel.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "logs/index.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

#define FOLLOW_SECS	2.0	/* between rounds under follow, at least
				   (and as long as the last round took: the
				   background takes half a core at most) */
#define WAIT_MS		150	/* viewjob_free() waits this long */
#define QUIET_SECS	15.0	/* under follow, diagnosed again this often
				   when nothing was appended: a silence that
				   lasts is a hang */

struct viewjob {
	char *path;		/* the cache */
	char *dir;		/* what to index; NULL: diagnose only */
	char *name;		/* the job */
	int threads;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	int cancel;		/* read by the index without the lock */
	int quit, follow, ended, orphan;
	int wake[2];
	/* what the thread says (under the lock) */
	char doing[96];
	struct model *m;	/* the newest model not taken */
	int64_t id;
	char *error;		/* the last round's, not taken */
	char *note;		/* truncated files, not taken */
	double last_write;	/* the job's newest file, epoch s; NAN */
	unsigned rounds;
	struct buf warned;	/* warnings not taken, a line each */
	/* the thread's own */
	double diagnosed;	/* when it last diagnosed (ts_now()) */
	double took;		/* how long the last round took, seconds */
	struct cache *c;
	struct logdb_file *seen;	/* the files as the last round left them */
	size_t nseen;
	char **said;		/* every warning line passed on, sorted */
	size_t nsaid;
};

static void
say(struct viewjob *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(struct viewjob *j, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&j->mu);
	va_start(ap, fmt);
	vsnprintf(j->doing, sizeof j->doing, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&j->mu);
}

static void
wake(struct viewjob *j)
{
	ssize_t w;

	do
		w = write(j->wake[1], "", 1);
	while (w < 0 && errno == EINTR);
}

static void
tick(void *arg, size_t files_done, size_t nfiles, uint64_t done,
    uint64_t total)
{
	struct viewjob *j = arg;

	if (total > 0)
		say(j, "indexing: %zu/%zu files, %.0f%%", files_done, nfiles,
		    100.0 * (double)done / (double)total);
	else
		say(j, "indexing: %zu/%zu files", files_done, nfiles);
}

static int
stopping(struct viewjob *j)
{
	return __atomic_load_n(&j->cancel, __ATOMIC_RELAXED);
}

/* A stream the round's warnings go to (*text when it is closed). */
static FILE *
warn_open(char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	return open_memstream(text, len);
}

/*
 * Note `line` as passed on: 1 when it is new.  (A follow round says
 * every skipped file again: thousands of lines every few seconds.)
 */
static int
warn_new(struct viewjob *j, const char *line)
{
	size_t lo = 0, hi = j->nsaid, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(j->said[mid], line)) == 0)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	j->said = xreallocarray(j->said, j->nsaid + 1, sizeof *j->said);
	memmove(j->said + lo + 1, j->said + lo, (j->nsaid - lo) *
	    sizeof *j->said);
	j->said[lo] = xstrdup(line);
	j->nsaid++;
	return 1;
}

/* The round's warnings passed on, each line once in the job's life. */
static void
warn_close(struct viewjob *j, FILE *f, char **textp)
{
	char *text, *line, *next;

	if (f == NULL)
		return;
	fclose(f);	/* (sets *textp) */
	text = *textp;
	for (line = text; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (*line == '\0' || *line == '\r' || !warn_new(j, line))
			continue;	/* a progress line, or said */
		pthread_mutex_lock(&j->mu);
		buf_addf(&j->warned, "%s\n", line);
		pthread_mutex_unlock(&j->mu);
	}
	free(text);
}

/* Index the directory: 1 when lines came in (or it is time to diagnose
   again), 0 not, -1 with *cause. */
static int
round_index(struct viewjob *j, char **cause)
{
	struct index_opts o;
	struct index_stats st;
	char *paths[1], *text;
	size_t len;
	int rc;

	if (j->dir == NULL)
		return 1;
	memset(&o, 0, sizeof o);
	o.job_name = j->name;
	o.threads = j->threads;
	o.err = warn_open(&text, &len);
	pthread_mutex_lock(&j->mu);
	o.whole_lines = j->follow;	/* a finished job's last line counts */
	o.cmd = j->follow ? "follow" : "index";
	pthread_mutex_unlock(&j->mu);
	o.cancel = &j->cancel;
	o.tick = tick;
	o.tick_arg = j;
	paths[0] = j->dir;
	say(j, "indexing");
	rc = index_run(j->c, paths, 1, &o, &st, cause);
	warn_close(j, o.err, &text);
	if (rc != 0)
		return -1;
	free(st.names);
	free(st.empty);
	/* (a file whose only news is a line still being written was read
	   for nothing: no bytes stored) */
	return st.lines > 0 || st.bytes > 0 || j->rounds == 0 ||
	    (o.whole_lines && ts_now() - j->diagnosed >= QUIET_SECS);
}

/* The files that hold fewer lines than the last round saw (a note). */
static char *
shrunk(struct viewjob *j, const struct job_ref *ref)
{
	struct buf b = BUF_INIT;
	size_t i, k, n = 0;

	for (i = 0; i < ref->nfiles; i++)
		for (k = 0; k < j->nseen; k++)
			if (strcmp(ref->files[i].path, j->seen[k].path) == 0 &&
			    ref->files[i].lines < j->seen[k].lines &&
			    n++ == 0)
				buf_addf(&b, "'%s'", ref->files[i].path);
	if (n == 0)
		return NULL;
	if (n > 1)
		buf_addf(&b, " and %zu other%s", n - 1, n > 2 ? "s" : "");
	buf_adds(&b, n > 1 ? " were" : " was");
	buf_adds(&b, " truncated or replaced: read again from the start");
	return buf_detach(&b);
}

/* Keep what the round's files look like for the next one. */
static void
remember(struct viewjob *j, const struct job_ref *ref)
{
	size_t i;
	double last = NAN;

	for (i = 0; i < j->nseen; i++)
		free(j->seen[i].path);
	free(j->seen);
	j->seen = xcalloc(ref->nfiles + 1, sizeof *j->seen);
	for (i = 0; i < ref->nfiles; i++) {
		j->seen[i] = ref->files[i];
		j->seen[i].path = xstrdup(ref->files[i].path);
		j->seen[i].found_node = NULL;	/* (ref's, not kept) */
		if (isnan(last) || ref->files[i].mtime > last)
			last = ref->files[i].mtime;
	}
	j->nseen = ref->nfiles;
	pthread_mutex_lock(&j->mu);
	j->last_write = last;
	pthread_mutex_unlock(&j->mu);
}

/* Diagnose the job and hand the model over. */
static int
round_diag(struct viewjob *j, char **cause)
{
	struct job_ref ref;
	struct model *m;
	char *note, *text;
	size_t len;
	FILE *err;
	int rc, live;

	if ((rc = jobdb_find(j->c, j->name, &ref, cause)) <= 0) {
		if (rc == 0)
			ts_fail(cause, "no job '%s'", j->name);
		return -1;
	}
	note = shrunk(j, &ref);
	remember(j, &ref);
	say(j, "diagnosing");
	pthread_mutex_lock(&j->mu);
	live = j->follow ? JOBMODEL_LIVE : 0;	/* its silence lasts until now */
	pthread_mutex_unlock(&j->mu);
	j->diagnosed = ts_now();
	err = warn_open(&text, &len);
	rc = job_model_ref(j->c, &ref, NULL, 0, live, err, live ? "follow" :
	    "open", &m, cause);
	warn_close(j, err, &text);
	pthread_mutex_lock(&j->mu);
	if (rc == 0) {
		model_free(j->m);
		j->m = m;
		j->id = ref.id;
	}
	if (note != NULL) {
		free(j->note);
		j->note = note;
	}
	pthread_mutex_unlock(&j->mu);
	jobdb_release(&ref);
	return rc;
}

/* Before the first round: the job's files as the cache has them, if any. */
static void
prime(struct viewjob *j)
{
	struct job_ref ref;
	char *cause = NULL;

	if (jobdb_find(j->c, j->name, &ref, &cause) == 1) {
		remember(j, &ref);
		jobdb_release(&ref);
	}
	free(cause);
}

static void
round_run(struct viewjob *j)
{
	char *cause = NULL;
	double t0 = ts_now();
	int rc;

	if (j->rounds == 0)
		prime(j);
	if ((rc = round_index(j, &cause)) > 0 && !stopping(j))
		rc = round_diag(j, &cause);
	j->rounds++;
	j->took = ts_now() - t0;
	pthread_mutex_lock(&j->mu);
	j->doing[0] = '\0';
	if (rc < 0 && !stopping(j)) {
		free(j->error);
		j->error = cause;
		cause = NULL;
	}
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	free(cause);
	wake(j);
}

/* Wait for the next round under follow: 0 to go on, -1 to end. */
static int
pause_round(struct viewjob *j)
{
	struct timespec until;
	double wait = j->took > FOLLOW_SECS ? j->took : FOLLOW_SECS;
	int rc;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)wait;
	until.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&j->mu);
	while (!j->quit && j->follow &&
	    pthread_cond_timedwait(&j->cv, &j->mu, &until) != ETIMEDOUT)
		;
	while (!j->quit && !j->follow)	/* follow off: wait to be asked */
		pthread_cond_wait(&j->cv, &j->mu);
	rc = j->quit ? -1 : 0;
	pthread_mutex_unlock(&j->mu);
	return rc;
}

static void
job_free(struct viewjob *j)
{
	size_t i;

	for (i = 0; i < j->nseen; i++)
		free(j->seen[i].path);
	free(j->seen);
	model_free(j->m);
	free(j->error);
	free(j->note);
	buf_release(&j->warned);
	for (i = 0; i < j->nsaid; i++)
		free(j->said[i]);
	free(j->said);
	for (i = 0; i < 2; i++)
		if (j->wake[i] >= 0)
			close(j->wake[i]);
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	free(j->path);
	free(j->dir);
	free(j->name);
	free(j);
}

static void *
worker(void *arg)
{
	struct viewjob *j = arg;
	char *cause = NULL;
	int orphan;

	if (cache_open(j->path, 0, &j->c, &cause) != 0) {
		pthread_mutex_lock(&j->mu);
		j->error = cause;
		pthread_mutex_unlock(&j->mu);
		wake(j);
	} else
		do
			round_run(j);
		while (pause_round(j) == 0);
	cache_close(j->c);
	j->c = NULL;
	stage_thread_end();
	faults_thread_end();
	pthread_mutex_lock(&j->mu);
	j->ended = 1;
	orphan = j->orphan;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	if (orphan)
		job_free(j);
	return NULL;
}

struct viewjob *
viewjob_start(const char *cache, const char *dir, const char *name,
    int follow, int threads, char **cause)
{
	struct viewjob *j = xcalloc(1, sizeof *j);
	size_t i;

	j->path = xstrdup(cache);
	j->dir = dir != NULL ? xstrdup(dir) : NULL;
	j->name = xstrdup(name);
	j->follow = follow;
	j->threads = threads;
	j->last_write = NAN;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	if (pipe(j->wake) != 0)
		j->wake[0] = j->wake[1] = -1;
	for (i = 0; i < 2 && j->wake[0] >= 0; i++)
		fcntl(j->wake[i], F_SETFL, fcntl(j->wake[i], F_GETFL) |
		    O_NONBLOCK);
	snprintf(j->doing, sizeof j->doing, dir != NULL ? "indexing" :
	    "diagnosing");
	if (j->wake[0] < 0 || pthread_create(&j->th, NULL, worker, j) != 0) {
		ts_fail(cause, "cannot start a thread: %s", strerror(errno));
		job_free(j);
		return NULL;
	}
	return j;
}

void
viewjob_free(struct viewjob *j)
{
	struct timespec until;
	int ended;

	if (j == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += WAIT_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&j->mu);
	j->quit = 1;
	__atomic_store_n(&j->cancel, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&j->cv);
	while (!j->ended && pthread_cond_timedwait(&j->cv, &j->mu,
	    &until) != ETIMEDOUT)
		;
	ended = j->ended;
	if (!ended)		/* a diagnosis runs on: it frees j when done */
		j->orphan = 1;
	pthread_mutex_unlock(&j->mu);
	if (!ended) {
		pthread_detach(j->th);
		return;
	}
	pthread_join(j->th, NULL);
	job_free(j);
}

void
viewjob_follow(struct viewjob *j, int on)
{
	pthread_mutex_lock(&j->mu);
	j->follow = on;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

int
viewjob_following(struct viewjob *j)
{
	int on;

	pthread_mutex_lock(&j->mu);
	on = j->follow;
	pthread_mutex_unlock(&j->mu);
	return on;
}

struct model *
viewjob_take(struct viewjob *j, int64_t *id, char **error, char **note)
{
	struct model *m;
	char b[64];

	while (j->wake[0] >= 0 && read(j->wake[0], b, sizeof b) > 0)
		;
	pthread_mutex_lock(&j->mu);
	m = j->m;
	j->m = NULL;
	*id = j->id;
	*error = j->error;
	j->error = NULL;
	*note = j->note;
	j->note = NULL;
	pthread_mutex_unlock(&j->mu);
	return m;
}

char *
viewjob_take_warnings(struct viewjob *j)
{
	char *text = NULL;

	pthread_mutex_lock(&j->mu);
	if (j->warned.len > 0)
		text = buf_detach(&j->warned);
	pthread_mutex_unlock(&j->mu);
	return text;
}

int
viewjob_status(struct viewjob *j, char *buf, size_t len, double *last)
{
	int busy;

	pthread_mutex_lock(&j->mu);
	snprintf(buf, len, "%s", j->doing);
	busy = j->doing[0] != '\0' || j->m != NULL || j->error != NULL;
	*last = j->last_write;
	pthread_mutex_unlock(&j->mu);
	return busy;
}

void
viewjob_wait(struct viewjob *j)
{
	pthread_mutex_lock(&j->mu);
	while (j->doing[0] != '\0' && !j->ended)
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
}

int
viewjob_fd(const struct viewjob *j)
{
	return j->wake[0];
}

const char *
viewjob_name(const struct viewjob *j)
{
	return j->name;
}

/* ---- the view's side ---- */

#define IDENT_SCAN	100000	/* rows looked through for the cursor's */

/* What row r of the active pane is: its key, else what it leads to. */
static char *
row_ident(struct view *v, size_t r)
{
	const struct pane_ops *ops = pane_active(v);
	struct view_target t;
	const char *node = "";
	char *s;

	if (ops->key != NULL)
		return ops->key(v, r);
	memset(&t, 0, sizeof t);
	if (ops->target == NULL || ops->target(v, r, &t) != 0) {
		free(t.owned);
		return NULL;
	}
	if (v->m != NULL && t.node >= 0 && (size_t)t.node < v->m->nnodes &&
	    v->m->nodes[t.node].name != NULL)
		node = v->m->nodes[t.node].name;
	s = xasprintf("%d %u %s %ld %s", t.kind, t.id, node, t.iter,
	    t.name != NULL ? t.name : "");
	free(t.owned);
	return s;
}

/*
 * Put the active pane's cursor back on the row that is `key`; the scroll
 * offset stays (the draw scrolls only when the row left the page).
 */
static void
find_ident(struct view *v, const char *key)
{
	int p = (int)v->st.pane, n = view_nrows(v), i;
	char *k;

	for (i = 0; i < n && i < IDENT_SCAN; i++) {
		k = row_ident(v, (size_t)i);
		if (k != NULL && strcmp(k, key) == 0) {
			free(k);
			v->st.cursor[p] = i;
			return;
		}
		free(k);
	}
}

/* The index in model `to` of node n of model `from` (-1: none there). */
static long
node_again(const struct model *from, const struct model *to, long n)
{
	if (n < 0 || (size_t)n >= from->nnodes || from->nodes[n].name == NULL)
		return -1;
	return model_node_index(to, from->nodes[n].name);
}

/* What of state st names the old model's nodes by index, for model m. */
static void
renode(struct view_state *st, const struct model *old, const struct model *m)
{
	size_t i;

	for (i = 0; i < st->nfilters; i++)
		if (st->filters[i].kind == VF_NODE)
			st->filters[i].a = node_again(old, m,
			    st->filters[i].a);
	if (st->l_node >= 0)
		st->l_node = node_again(old, m, st->l_node);
}

/*
 * Look at the job's newer model m (taken): the view state stays (pane,
 * filters, sort, history, scroll offsets), the cursor stays on the same
 * row (by what it is, not by its index).  The log pane's place is its
 * row's PATH:LINE, built again there at the same place on the page.
 */
static void
swap_model(struct view *v, struct model *m)
{
	const struct pane_ops *ops = pane_active(v);
	int p = (int)v->st.pane, merged = (ops->flags & PF_MERGED) != 0;
	char *key;
	size_t i;

	key = merged ? view_row_key(v) : v->st.cursor[p] >= 0 &&
	    v->st.cursor[p] < view_nrows(v) ?
	    row_ident(v, (size_t)v->st.cursor[p]) : NULL;
	renode(&v->st, v->m, m);
	for (i = 0; i < v->nhist; i++)
		renode(&v->hist[i], v->m, m);
	model_free(v->m);
	v->m = m;
	v->gen++;
	rows_drop(v, -1);
	pane_release_all(v);
	viewlog_free(v->vlog);	/* the merge sees the new lines */
	v->vlog = NULL;
	v->find_pending = 0;
	view_lines_clear(v);
	if (key != NULL && merged) {
		free(v->st.lg_pos);	/* built again there, the page kept */
		v->st.lg_pos = key;
		return;
	}
	if (key != NULL)
		find_ident(v, key);
	free(key);
}

char *
view_take_warnings(struct view *v)
{
	char *w = v->warned;

	v->warned = NULL;
	return w;
}

/* The background's new warnings kept for view_take_warnings(): 1 if any. */
static int
take_warnings(struct view *v)
{
	char *w = viewjob_take_warnings(v->live), *both;

	if (w == NULL)
		return 0;
	if (v->warned == NULL)
		v->warned = w;
	else {
		both = xasprintf("%s%s", v->warned, w);
		free(v->warned);
		free(w);
		v->warned = both;
	}
	return 1;
}

int
view_live_poll(struct view *v)
{
	struct viewjob *j;
	struct model *m;
	char *error, *note;
	int64_t id;
	int warned;

	if (v->live == NULL)
		return 0;
	warned = take_warnings(v);
	m = viewjob_take(v->live, &id, &error, &note);
	if (m != NULL && (v->m == NULL || v->job == NULL ||
	    strcmp(v->job, m->name) != 0)) {
		j = v->live;	/* (kept whatever the cache calls the job) */
		v->live = NULL;
		view_set_model(v, m->name, m);	/* the first: its events */
		v->live = j;
	} else if (m != NULL)
		swap_model(v, m);
	if (m != NULL)
		v->job_id = id;
	if (error != NULL || note != NULL) {
		free(v->message);
		v->message = error != NULL ? error : note;
		if (error != NULL)
			free(note);
	}
	return m != NULL || error != NULL || note != NULL || warned;
}

int
view_live_busy(const struct view *v)
{
	char buf[96];
	double last;

	return v->live != NULL && viewjob_status(v->live, buf, sizeof buf,
	    &last);
}

int
view_open_live(struct view *v, const char *dir, const char *name,
    int follow, int threads, char **cause)
{
	struct viewjob *j;

	if (v->cache == NULL)
		return ts_fail(cause, "no cache");
	if ((j = viewjob_start(cache_path(v->cache), dir, name, follow,
	    threads, cause)) == NULL)
		return -1;
	viewjob_free(v->live);
	v->live = j;
	v->async = 1;
	return 0;
}

/* One round at once (batch use): index, diagnose, look at the model. */
static int
follow_once(struct view *v, char **cause)
{
	struct viewjob *j;
	char *error = NULL, *note = NULL;
	struct model *m;
	int64_t id;

	if ((j = viewjob_start(cache_path(v->cache), v->m->root, v->job, 1,
	    0, cause)) == NULL)
		return -1;
	viewjob_wait(j);
	m = viewjob_take(j, &id, &error, &note);
	viewjob_free(j);
	if (m != NULL)
		swap_model(v, m);
	free(v->message);
	v->message = note;
	if (error != NULL) {
		ts_fail(cause, "%s", error);
		free(error);
		return -1;
	}
	return 0;
}

int
view_follow(struct view *v, int on, char **cause)
{
	if (v->m == NULL || v->job == NULL)
		return ts_fail(cause, "no job is open (open JOB, or drill on "
		    "the jobs pane)");
	if (v->m->root == NULL || v->m->root[0] == '\0')
		return ts_fail(cause, "job '%s' has no directory to follow",
		    v->job);
	if (!v->async)
		return on ? follow_once(v, cause) : 0;
	if (v->live != NULL && strcmp(viewjob_name(v->live), v->job) == 0) {
		viewjob_follow(v->live, on);
		return 0;
	}
	if (!on)
		return 0;
	return view_open_live(v, v->m->root, v->job, 1, 0, cause);
}

int
view_following(const struct view *v)
{
	return v->live != NULL && viewjob_following(v->live);
}

void
view_live_text(struct view *v, char *doing, size_t dlen, char *head,
    size_t hlen)
{
	double last, ago;
	const char *dot = v->ascii ? "-" : "\xc2\xb7";

	doing[0] = head[0] = '\0';
	if (v->live == NULL)
		return;
	viewjob_status(v->live, doing, dlen, &last);
	if (!viewjob_following(v->live))
		return;
	ago = ts_wallclock() - last;
	if (isnan(last))
		snprintf(head, hlen, "following");
	else if (ago < 120)
		snprintf(head, hlen, "following %s last line %.0f s ago", dot,
		    ago < 0 ? 0 : ago);
	else if (ago < 7200)
		snprintf(head, hlen, "following %s last line %.0f min ago",
		    dot, ago / 60);
	else
		snprintf(head, hlen, "following %s last line %.0f h ago", dot,
		    ago / 3600);
}
