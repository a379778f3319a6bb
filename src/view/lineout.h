/*
 * lineout.h -- a row of the merged log printed as `lines` prints it: as
 * text (time, node, rank, PATH:LINE, the line), as a TSV row, or as a
 * JSON object; the log pane's export writes the same.  Log text and
 * names are written inert (^X, \xNN) in text and TSV.
 */
#ifndef TS_LINEOUT_H
#define TS_LINEOUT_H

#include <stddef.h>
#include <stdio.h>

struct json;
struct lm_row;

/* "2024-05-01 17:09:06.123" (UTC, to the nearest millisecond) into b. */
void lineout_time(double t, char *b, size_t n);
/* Write s[0 .. len) inert. */
void lineout_inert(FILE *out, const char *s, size_t len);
/*
 * Row r with its text, one line: its own time (else ~ and the time it
 * is placed at), node, rank (r3, - none), PATH:LINE, the text.
 */
void lineout_text(FILE *out, const struct lm_row *r, const char *text,
    size_t len);
/* The TSV header, and a row (stage and iter -1: none). */
void lineout_tsv_head(FILE *out);
void lineout_tsv(FILE *out, const struct lm_row *r, int stage, long iter,
    const char *text, size_t len);
/* A row as a JSON object into j. */
void lineout_json(struct json *j, const struct lm_row *r, int stage,
    long iter, const char *text, size_t len);

#endif
