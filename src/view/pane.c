/*
 * pane.c -- the table of panes and the questions asked through it.
 *
 * One entry per enum view_pane, in the order of the tabs; each is the
 * struct pane_ops its own file fills (pane-NAME.c).  The view's
 * questions about the active pane (its rows, the drill target of the
 * cursor's row, the next search match, its data) are answered here by
 * calling the pane's operation; nowhere else is a pane picked by kind.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

static const struct pane_ops *const table[PANE_COUNT] = {
	[PANE_EVENTS] = &pane_events,
	[PANE_HEATMAP] = &pane_heatmap,
	[PANE_TIMELINE] = &pane_timeline,
	[PANE_GROUPS] = &pane_groups,
	[PANE_LINES] = &pane_lines,
	[PANE_JOBS] = &pane_jobs,
	[PANE_LOG] = &pane_log
};

const struct pane_ops *
pane_get(enum view_pane p)
{
	return (unsigned)p < PANE_COUNT ? table[p] : table[PANE_JOBS];
}

const struct pane_ops *
pane_active(const struct view *v)
{
	const struct pane_ops *ops = pane_get(v->st.pane);

	return v->m == NULL && (ops->flags & PF_JOB) ? table[PANE_JOBS] : ops;
}

/* The active pane when it can answer (it has what it shows), or NULL. */
static const struct pane_ops *
usable(const struct view *v)
{
	const struct pane_ops *ops = pane_get(v->st.pane);

	return v->m == NULL && (ops->flags & PF_JOB) ? NULL : ops;
}

const char *
view_pane_name(enum view_pane p)
{
	return (unsigned)p < PANE_COUNT ? table[p]->name : "?";
}

int
view_pane_parse(const char *s)
{
	size_t i, n = strlen(s);
	int found = -1;

	if (n == 1 && s[0] >= '1' && s[0] < '1' + PANE_COUNT)
		return s[0] - '1';
	for (i = 0; i < PANE_COUNT; i++) {
		if (strcmp(table[i]->name, s) == 0)
			return (int)i;
		if (n > 0 && strncmp(table[i]->name, s, n) == 0)
			found = found == -1 ? (int)i : -2;
	}
	return found < 0 ? -1 : found;
}

int
view_nrows(struct view *v)
{
	const struct pane_ops *ops = usable(v);
	const struct rows *r;

	if (ops == NULL)
		return 0;
	if (ops->nrows != NULL)
		return (int)ops->nrows(v);
	r = rows_get(v);
	return r != NULL ? (int)r->n : 0;
}

int
view_page(const struct view *v)
{
	return v->page > 0 ? v->page : 1;
}

int
view_target(struct view *v, struct view_target *t)
{
	const struct pane_ops *ops = usable(v);
	int n = view_nrows(v), cur = v->st.cursor[v->st.pane];

	memset(t, 0, sizeof *t);
	t->node = -1;
	if (ops == NULL || ops->target == NULL || cur < 0 || cur >= n)
		return -1;
	return ops->target(v, (size_t)cur, t);
}

char *
view_row_key(struct view *v)
{
	const struct pane_ops *ops = usable(v);
	int n, cur;

	if (ops == NULL || ops->key == NULL || (unsigned)v->st.pane >=
	    PANE_COUNT)
		return NULL;
	n = view_nrows(v);	/* (rows built first: they place the cursor) */
	cur = v->st.cursor[v->st.pane];
	if (cur < 0 || cur >= n)
		return NULL;
	return ops->key(v, (size_t)cur);
}

void
pane_release_all(struct view *v)
{
	size_t i;

	for (i = 0; i < PANE_COUNT; i++)
		if (table[i]->release != NULL)
			table[i]->release(v);
}

int
pane_find(struct view *v, void *re, int dir, size_t *row)
{
	const struct pane_ops *ops = usable(v);
	int n = view_nrows(v), cur = v->st.cursor[v->st.pane], i, r;

	if (ops != NULL && ops->find != NULL)
		return ops->find(v, re, dir, row);
	if (ops == NULL || ops->match == NULL || n <= 0)
		return FIND_NONE;
	for (i = dir == 0 ? 0 : 1; i <= n; i++) {
		r = dir < 0 ? cur - i : cur + i;
		r = ((r % n) + n) % n;
		if (ops->match(v, (size_t)r, re)) {
			*row = (size_t)r;
			return FIND_FOUND;
		}
	}
	return FIND_NONE;
}

/* "events, heatmap, groups, jobs": the panes that have data. */
static char *
data_panes(void)
{
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < PANE_COUNT; i++)
		if (table[i]->data != NULL)
			buf_addf(&b, "%s%s", b.len > 0 ? ", " : "",
			    table[i]->name);
	return buf_detach(&b);
}

int
view_data(struct view *v, FILE *out, int tsv, char **cause)
{
	const struct pane_ops *ops = usable(v);
	struct json j;
	char *list;
	int rc;

	if (ops == NULL)
		return ts_fail(cause, "no job is open");
	if (ops->data == NULL) {
		list = data_panes();
		ts_fail(cause, "the %s pane is text only (json and tsv: %s)",
		    ops->name, list);
		free(list);
		return -1;
	}
	json_init(&j, out, 1);
	rc = ops->data(v, &j, out, tsv, cause);
	if (!tsv)
		json_finish(&j);
	return rc != 0 ? -1 : ferror(out) ? ts_fail(cause, "cannot write") : 0;
}
