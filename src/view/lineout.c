/*
 * lineout.c -- a row of the merged log as text, TSV or JSON (see
 * lineout.h).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/util.h"
#include "diag/stage.h"
#include "logs/logmerge.h"
#include "view/canvas.h"
#include "view/lineout.h"

void
lineout_inert(FILE *out, const char *s, size_t len)
{
	struct canvas cv;
	size_t i, n;
	char *line;

	for (i = 0; i < len && (unsigned char)s[i] >= 0x20 &&
	    (unsigned char)s[i] < 0x7f; i++)
		;
	if (i == len) {		/* printable ASCII: as it is */
		fwrite(s, 1, len, out);
		return;
	}
	canvas_init(&cv, (int)len * 4 + 8 > 1 << 20 ? 1 << 20 : (int)len * 4 + 8,
	    0);
	canvas_add_row(&cv);
	canvas_put(&cv, 0, 0, CS_NORMAL, s, len);
	n = (size_t)cv.width * sizeof cv.cells->s + 1;
	line = xmalloc(n);
	canvas_row_text(&cv, 0, line, n);
	n = strlen(line);
	while (n > 0 && line[n - 1] == ' ')
		n--;
	fwrite(line, 1, n, out);
	free(line);
	canvas_release(&cv);
}

void
lineout_time(double t, char *b, size_t n)
{
	double ms = floor(t * 1000.0 + 0.5);	/* to the nearest millisecond */
	time_t s = (time_t)floor(ms / 1000.0);
	struct tm tm;
	size_t k;

	gmtime_r(&s, &tm);
	k = strftime(b, n, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(b + k, n - k, ".%03d", (int)(ms - (double)s * 1000.0));
}

static void
put_str(FILE *out, const char *s)
{
	lineout_inert(out, s, strlen(s));
}

void
lineout_text(FILE *out, const struct lm_row *r, const char *text, size_t len)
{
	char t[48];

	if (!isnan(r->own))
		lineout_time(r->own, t, sizeof t);
	else {		/* placed at the time of the lines before it */
		t[0] = '~';
		lineout_time(r->eff, t + 1, sizeof t - 1);
	}
	fprintf(out, "%-24s ", t);
	put_str(out, r->node[0] != '\0' ? r->node : "-");
	if (r->rank >= 0)
		fprintf(out, " r%d ", r->rank);
	else
		fputs(" - ", out);
	put_str(out, r->path);
	fprintf(out, ":%llu  ", (unsigned long long)r->line);
	lineout_inert(out, text, len);
	fputc('\n', out);
}

void
lineout_tsv_head(FILE *out)
{
	fputs("time\teffective_time\tnode\trank\tstage\titeration\tpath\t"
	    "line\ttext\n", out);
}

void
lineout_tsv(FILE *out, const struct lm_row *r, int stage, long iter,
    const char *text, size_t len)
{
	char t[48] = "";

	if (!isnan(r->own))
		lineout_time(r->own, t, sizeof t);
	fprintf(out, "%s\t", t);
	lineout_time(r->eff, t, sizeof t);
	fprintf(out, "%s\t", t);
	put_str(out, r->node);
	if (r->rank >= 0)
		fprintf(out, "\t%d\t", r->rank);
	else
		fputs("\t\t", out);
	fprintf(out, "%s\t", stage >= 0 ? stage_name((enum stage)stage) : "");
	if (iter >= 0)
		fprintf(out, "%ld", iter);
	fputc('\t', out);
	put_str(out, r->path);
	fprintf(out, "\t%llu\t", (unsigned long long)r->line);
	lineout_inert(out, text, len);
	fputc('\n', out);
}

void
lineout_json(struct json *j, const struct lm_row *r, int stage, long iter,
    const char *text, size_t len)
{
	json_obj_begin(j);
	json_key(j, "node");
	json_str(j, r->node[0] != '\0' ? r->node : NULL);
	json_key(j, "rank");
	if (r->rank >= 0)
		json_int(j, r->rank);
	else
		json_null(j);
	json_key(j, "path");
	json_str(j, r->path);
	json_key(j, "line");
	json_int(j, (int64_t)r->line);
	json_key(j, "time");
	json_num(j, r->own);
	json_key(j, "effective_time");
	json_num(j, r->eff);
	json_key(j, "stage");
	json_str(j, stage >= 0 ? stage_name((enum stage)stage) : NULL);
	json_key(j, "iteration");
	if (iter >= 0)
		json_int(j, iter);
	else
		json_null(j);
	json_key(j, "text");
	json_strn(j, text, len);
	json_obj_end(j);
}
