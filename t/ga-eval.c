/*
 * ga-eval.c -- grouping accuracy of `trainscope parse` against a log
 * parsing ground truth.
 *
 *	ga-eval TRUTH.csv PARSED.tsv
 *
 * TRUTH.csv is a loghub structured file (RFC 4180: quoted fields may hold
 * commas, quotes are doubled) with LineId and EventId columns; PARSED.tsv
 * is `trainscope parse --format tsv` output (path, line, id, template).
 * Prints "GA FGA NPARSED NTRUE": GA is the share of lines whose true
 * group the parser reproduced exactly (same lines, no others); FGA is the
 * F1 of the same criterion counted per group.  Exit status 2 on bad input.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct truth {
	char **ids;		/* distinct EventIds */
	size_t nids, capids;
	int *group;		/* by line (1-based): index into ids, -1 none */
	size_t nlines, caplines;
};

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT;
	char tmp[65536];
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "ga-eval: cannot open '%s'\n", path);
		exit(2);
	}
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	buf_grow(&b, 0);
	*len = b.len;
	return buf_detach(&b);
}

/*
 * Read one CSV field at *p; store it in `f` (reset first).  Returns the
 * byte that ended it: ',', '\n', or 0 at the end of input.
 */
static int
csv_field(const char **p, const char *end, struct buf *f)
{
	const char *s = *p;

	buf_reset(f);
	buf_grow(f, 0);
	if (s < end && *s == '"') {
		for (s++; s < end; s++) {
			if (*s == '"' && s + 1 < end && s[1] == '"')
				buf_addc(f, *s++);
			else if (*s == '"') {
				s++;
				break;
			} else
				buf_addc(f, *s);
		}
	}
	while (s < end && *s != ',' && *s != '\n')
		if (*s++ != '\r')
			buf_addc(f, s[-1]);
	*p = s < end ? s + 1 : s;
	return s < end ? *s : 0;
}

static int
truth_id(struct truth *t, const char *id)
{
	size_t i;

	for (i = 0; i < t->nids; i++)
		if (strcmp(t->ids[i], id) == 0)
			return (int)i;
	t->ids = xgrow(t->ids, &t->capids, t->nids + 1, sizeof *t->ids);
	t->ids[t->nids] = xstrdup(id);
	return (int)t->nids++;
}

static void
truth_set(struct truth *t, long line, const char *id)
{
	size_t old = t->caplines;

	if (line < 1 || line > 10000000)
		return;
	if ((size_t)line >= t->caplines) {
		t->group = xgrow(t->group, &t->caplines, (size_t)line + 1,
		    sizeof *t->group);
		memset(t->group + old, 0xff, (t->caplines - old) *
		    sizeof *t->group);
	}
	t->group[line] = truth_id(t, id);
	if ((size_t)line > t->nlines)
		t->nlines = (size_t)line;
}

static void
read_truth(const char *path, struct truth *t)
{
	size_t len;
	char *data = slurp(path, &len);
	const char *p = data, *end = data + len;
	struct buf f = BUF_INIT;
	char *lineid = NULL;
	int col = 0, c_line = -1, c_event = -1, c, header = 1;
	long ln;

	memset(t, 0, sizeof *t);
	while (p < end) {
		c = csv_field(&p, end, &f);
		if (header && strcmp(f.s, "LineId") == 0)
			c_line = col;
		if (header && strcmp(f.s, "EventId") == 0)
			c_event = col;
		if (!header && col == c_line) {
			free(lineid);
			lineid = xstrdup(f.s);
		}
		if (!header && col == c_event && lineid != NULL &&
		    ts_parse_long(lineid, &ln) == 0)
			truth_set(t, ln, f.s);
		col++;
		if (c != ',') {
			if (header && (c_line < 0 || c_event < 0)) {
				fprintf(stderr, "ga-eval: %s: no LineId and "
				    "EventId columns\n", path);
				exit(2);
			}
			header = 0;
			col = 0;
		}
	}
	free(lineid);
	buf_release(&f);
	free(data);
}

/* Predicted ids by line from the TSV; returns the array (1-based). */
static long *
read_parsed(const char *path, size_t nlines)
{
	size_t len;
	char *data = slurp(path, &len), *line, *save = NULL, *f2, *f3;
	long *pred = xcalloc(nlines + 1, sizeof *pred), ln;

	for (line = strtok_r(data, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if ((f2 = strchr(line, '\t')) == NULL ||
		    (f3 = strchr(f2 + 1, '\t')) == NULL)
			continue;
		ln = strtol(f2 + 1, NULL, 10);
		if (ln >= 1 && (size_t)ln <= nlines)
			pred[ln] = strtol(f3 + 1, NULL, 10);
	}
	free(data);
	return pred;
}

int
main(int argc, char **argv)
{
	struct truth t;
	long *pred, maxp = 0;
	size_t i, *predcount, *size, nparsed = 0, ncorrect = 0, lines = 0,
	    good = 0;
	long *first;
	int *mixed;
	double p, r;

	if (argc != 3) {
		fprintf(stderr, "usage: ga-eval TRUTH.csv PARSED.tsv\n");
		return 2;
	}
	read_truth(argv[1], &t);
	pred = read_parsed(argv[2], t.nlines);
	for (i = 1; i <= t.nlines; i++)
		if (pred[i] > maxp)
			maxp = pred[i];
	predcount = xcalloc((size_t)maxp + 1, sizeof *predcount);
	for (i = 1; i <= t.nlines; i++)
		if (t.group[i] >= 0 && predcount[pred[i]]++ == 0)
			nparsed++;
	size = xcalloc(t.nids, sizeof *size);
	first = xcalloc(t.nids, sizeof *first);
	mixed = xcalloc(t.nids, sizeof *mixed);
	for (i = 1; i <= t.nlines; i++) {
		int g = t.group[i];

		if (g < 0)
			continue;
		lines++;
		if (size[g]++ == 0)
			first[g] = pred[i];
		else if (first[g] != pred[i])
			mixed[g] = 1;
	}
	for (i = 0; i < t.nids; i++) {
		if (mixed[i] || first[i] == 0 || predcount[first[i]] != size[i])
			continue;
		ncorrect++;
		good += size[i];
	}
	p = nparsed ? (double)ncorrect / nparsed : 0;
	r = t.nids ? (double)ncorrect / t.nids : 0;
	printf("%.4f %.4f %zu %zu\n", lines ? (double)good / lines : 0,
	    p + r > 0 ? 2 * p * r / (p + r) : 0, nparsed, t.nids);
	for (i = 0; i < t.nids; i++)
		free(t.ids[i]);
	free(t.ids);
	free(t.group);
	free(pred);
	free(predcount);
	free(size);
	free(first);
	free(mixed);
	return 0;
}
