/*
 * viewbg.c -- the view's slow questions about the raw lines, answered
 * away from the keyboard (see viewint.h).
 *
 * Three kinds of task: the stage and iteration of the rows on screen
 * (a file's first costs a replay of it), a raw search of the whole job
 * (about a second a gigabyte), and how many lines the filters keep (the
 * same).  On the screen each kind has a thread of its own, started when
 * first asked, with its own cache connection and its own merge of the
 * job (a merge and a cache connection serve one thread); a new task of a
 * kind takes the place of one waiting, and a search or a count under way
 * is cancelled by a newer one.  A finished task waits to be taken, and a
 * byte is written to a pipe so that a screen waiting on it wakes.  In
 * batch use the same tasks run at once, on the view's own merge.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "db/cache.h"
#include "diag/linetag.h"
#include "logs/grep.h"
#include "logs/logmerge.h"
#include "view/viewint.h"

struct slot {
	struct viewbg *bg;
	pthread_t th;
	int started;
	int running;
	int cancel;		/* read by the worker without the lock */
	struct viewbg_task *want;	/* the next to run */
	struct viewbg_task *done;	/* the last finished */
	/* the worker's own */
	struct cache *c;
	struct logmerge *m;
	struct linetag *t;
};

struct viewbg {
	char *path;		/* the cache */
	int64_t job;
	char *name, *root;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int quit;
	int wake[2];		/* a byte for each finished task */
	struct slot slot[VBG_KINDS];
};

void
viewbg_task_free(struct viewbg_task *t)
{
	if (t == NULL)
		return;
	free(t->rows);
	free(t->pattern);
	rawf_free(t->filt);
	free(t->stage);
	free(t->iter);
	free(t->hits);
	free(t->error);
	free(t);
}

/* ---- the tasks ---- */

static void
run_tags(struct viewbg_task *t, struct logmerge *m, struct linetag *tags,
    const int *cancel)
{
	enum stage st;
	char *why = NULL;
	size_t i;

	t->stage = xcalloc(t->nrows + 1, sizeof *t->stage);
	t->iter = xcalloc(t->nrows + 1, sizeof *t->iter);
	for (i = 0; i < t->nrows; i++) {
		t->stage[i] = -1;
		t->iter[i] = -1;
		if (__atomic_load_n(cancel, __ATOMIC_RELAXED) ||
		    t->rows[i].file >= lm_nfiles(m))
			continue;
		if (linetag_get(tags, &t->rows[i], &st, &t->iter[i], &why) != 0) {
			free(why);
			why = NULL;
			continue;
		}
		t->stage[i] = (int)st;
	}
}

static int
keep_hit(void *arg, const struct grep_hit *hit, char **cause)
{
	struct viewbg_task *t = arg;
	struct viewbg_hit *h;

	(void)cause;
	t->count++;
	if (t->nhits >= VBG_HITS_MAX)
		return 0;
	t->hits = xgrow(t->hits, &t->cap, t->nhits + 1, sizeof *t->hits);
	h = &t->hits[t->nhits++];
	h->eff = hit->row->eff;
	h->file = hit->row->file;
	h->line = hit->row->line;
	return 0;
}

static void
run_search(struct viewbg_task *t, struct logmerge *m, struct linetag *tags,
    const int *cancel)
{
	struct grep *g;
	size_t off;

	if (grep_compile_flags(t->pattern, GREP_CASELESS, &g, &off,
	    &t->error) != 0)
		return;
	if (rawf_each(t->filt, g, m, tags, 0, cancel, keep_hit, t,
	    &t->error) != 0) {
		free(t->hits);
		t->hits = NULL;
		t->nhits = 0;
	}
	grep_free(g);
}

void
viewbg_run(struct viewbg_task *t, struct logmerge *m, struct linetag *tags,
    const int *cancel)
{
	static const int never;

	if (cancel == NULL)
		cancel = &never;
	switch (t->kind) {
	case VBG_TAGS:
		run_tags(t, m, tags, cancel);
		break;
	case VBG_SEARCH:
		run_search(t, m, tags, cancel);
		break;
	default:
		rawf_count(t->filt, m, tags, cancel, &t->count, &t->error);
		break;
	}
}

/* ---- the workers ---- */

/* The worker's cache connection and merge, opened on its first task. */
static int
open_own(struct slot *s, char **cause)
{
	struct viewbg *bg = s->bg;

	if (s->m != NULL)
		return 0;
	if (s->c == NULL && cache_open(bg->path, CACHE_READONLY, &s->c,
	    cause) != 0)
		return -1;
	if (lm_open_job(s->c, bg->job, bg->name, bg->root, &s->m, cause) != 0)
		return -1;
	s->t = linetag_new(s->m);
	return 0;
}

static void
close_own(struct slot *s)
{
	stage_thread_end();	/* the tracker's match data of this thread */
	linetag_free(s->t);
	lm_free(s->m);
	cache_close(s->c);
	s->t = NULL;
	s->m = NULL;
	s->c = NULL;
}

/* Take the next task (NULL: quit), with the lock held. */
static struct viewbg_task *
next_task(struct slot *s)
{
	struct viewbg *bg = s->bg;
	struct viewbg_task *t;

	while (!bg->quit && s->want == NULL)
		pthread_cond_wait(&bg->cv, &bg->mu);
	if (bg->quit)
		return NULL;
	t = s->want;
	s->want = NULL;
	s->running = 1;
	__atomic_store_n(&s->cancel, 0, __ATOMIC_RELAXED);
	return t;
}

static void *
worker(void *arg)
{
	struct slot *s = arg;
	struct viewbg *bg = s->bg;
	struct viewbg_task *t;
	ssize_t w;

	for (;;) {
		pthread_mutex_lock(&bg->mu);
		t = next_task(s);
		pthread_mutex_unlock(&bg->mu);
		if (t == NULL)
			break;
		if (open_own(s, &t->error) == 0)
			viewbg_run(t, s->m, s->t, &s->cancel);
		pthread_mutex_lock(&bg->mu);
		s->running = 0;
		viewbg_task_free(s->done);
		s->done = t;
		pthread_mutex_unlock(&bg->mu);
		do
			w = write(bg->wake[1], "", 1);
		while (w < 0 && errno == EINTR);
	}
	close_own(s);
	return NULL;
}

struct viewbg *
viewbg_new(const char *cache, int64_t job, const char *name, const char *root)
{
	struct viewbg *bg = xcalloc(1, sizeof *bg);
	size_t i;

	bg->path = xstrdup(cache);
	bg->job = job;
	bg->name = xstrdup(name);
	bg->root = xstrdup(root != NULL ? root : ".");
	pthread_mutex_init(&bg->mu, NULL);
	pthread_cond_init(&bg->cv, NULL);
	if (pipe(bg->wake) != 0)
		bg->wake[0] = bg->wake[1] = -1;
	for (i = 0; i < 2 && bg->wake[0] >= 0; i++)
		fcntl(bg->wake[i], F_SETFL, fcntl(bg->wake[i], F_GETFL) |
		    O_NONBLOCK);
	for (i = 0; i < VBG_KINDS; i++)
		bg->slot[i].bg = bg;
	return bg;
}

void
viewbg_free(struct viewbg *bg)
{
	size_t i;

	if (bg == NULL)
		return;
	pthread_mutex_lock(&bg->mu);
	bg->quit = 1;
	for (i = 0; i < VBG_KINDS; i++)
		__atomic_store_n(&bg->slot[i].cancel, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&bg->cv);
	pthread_mutex_unlock(&bg->mu);
	for (i = 0; i < VBG_KINDS; i++) {
		if (bg->slot[i].started)
			pthread_join(bg->slot[i].th, NULL);
		viewbg_task_free(bg->slot[i].want);
		viewbg_task_free(bg->slot[i].done);
	}
	pthread_cond_destroy(&bg->cv);
	pthread_mutex_destroy(&bg->mu);
	for (i = 0; i < 2; i++)
		if (bg->wake[i] >= 0)
			close(bg->wake[i]);
	free(bg->path);
	free(bg->name);
	free(bg->root);
	free(bg);
}

int
viewbg_post(struct viewbg *bg, struct viewbg_task *t, char **cause)
{
	struct slot *s = &bg->slot[t->kind];
	int rc = 0;

	pthread_mutex_lock(&bg->mu);
	viewbg_task_free(s->want);
	s->want = t;
	if (s->running && t->kind != VBG_TAGS)
		__atomic_store_n(&s->cancel, 1, __ATOMIC_RELAXED);
	if (!s->started) {
		if (pthread_create(&s->th, NULL, worker, s) == 0)
			s->started = 1;
		else {
			s->want = NULL;
			rc = ts_fail(cause, "cannot start a thread: %s",
			    strerror(errno));
		}
	}
	pthread_cond_broadcast(&bg->cv);
	pthread_mutex_unlock(&bg->mu);
	return rc;
}

struct viewbg_task *
viewbg_take(struct viewbg *bg, int kind)
{
	struct viewbg_task *t;
	char b[64];

	while (bg->wake[0] >= 0 && read(bg->wake[0], b, sizeof b) > 0)
		;
	pthread_mutex_lock(&bg->mu);
	t = bg->slot[kind].done;
	bg->slot[kind].done = NULL;
	pthread_mutex_unlock(&bg->mu);
	return t;
}

int
viewbg_busy(struct viewbg *bg)
{
	size_t i;
	int busy = 0;

	pthread_mutex_lock(&bg->mu);
	for (i = 0; i < VBG_KINDS; i++)
		busy |= bg->slot[i].running || bg->slot[i].want != NULL ||
		    bg->slot[i].done != NULL;
	pthread_mutex_unlock(&bg->mu);
	return busy;
}

int
viewbg_fd(const struct viewbg *bg)
{
	return bg->wake[0];
}
