/*
 * json.c -- a streaming JSON writer with comma and indent bookkeeping.
 *
 * One `first` flag per nesting level says whether the next value needs a
 * leading comma.  Keys set `after_key` so the value that follows is written
 * on the same line.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"

void
json_init(struct json *j, FILE *out, int pretty)
{
	memset(j, 0, sizeof *j);
	j->out = out;
	j->pretty = pretty;
	j->first[0] = 1;
}

static void
indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Separate a new value from the previous one at this level. */
static void
sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = 0;
	if (j->depth > 0)
		indent(j);
}

static void
open(struct json *j, char c)
{
	sep(j);
	fputc(c, j->out);
	if (j->depth + 1 >= JSON_MAX_DEPTH)
		ts_fatal("json nesting too deep");
	j->depth++;
	j->first[j->depth] = 1;
}

static void
close(struct json *j, char c)
{
	int empty = j->first[j->depth];

	j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->out);
}

void json_obj_begin(struct json *j) { open(j, '{'); }
void json_obj_end(struct json *j) { close(j, '}'); }
void json_arr_begin(struct json *j) { open(j, '['); }
void json_arr_end(struct json *j) { close(j, ']'); }

void
json_key(struct json *j, const char *key)
{
	sep(j);
	fputc('"', j->out);
	json_escape(j->out, key, strlen(key));
	fputs(j->pretty ? "\": " : "\":", j->out);
	j->after_key = 1;
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void
json_escape(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
			i++;
		} else if (c == '\n') {
			fputs("\\n", out);
			i++;
		} else if (c == '\t') {
			fputs("\\t", out);
			i++;
		} else if (c == '\r') {
			fputs("\\r", out);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
		} else if ((len = utf8_len(p + i, n - i)) == 0) {
			fputs("\\ufffd", out);
			i++;
		} else if (len == 2 && c == 0xc2 && p[i + 1] < 0xa0) {
			/* C1 controls (CSI is one) escaped like C0 */
			fprintf(out, "\\u%04x", p[i + 1]);
			i += 2;
		} else {
			fwrite(p + i, 1, len, out);
			i += len;
		}
	}
}

void
json_strn(struct json *j, const char *s, size_t n)
{
	sep(j);
	fputc('"', j->out);
	json_escape(j->out, s, n);
	fputc('"', j->out);
}

void
json_str(struct json *j, const char *s)
{
	if (s == NULL)
		json_null(j);
	else
		json_strn(j, s, strlen(s));
}

void
json_int(struct json *j, int64_t v)
{
	sep(j);
	fprintf(j->out, "%lld", (long long)v);
}

void
json_num(struct json *j, double v)
{
	char tmp[64];

	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	sep(j);
	if (v == (double)(long long)v && fabs(v) < 1e15)
		snprintf(tmp, sizeof tmp, "%lld", (long long)v);
	else
		snprintf(tmp, sizeof tmp, "%.10g", v);
	fputs(tmp, j->out);
}

void
json_numf(struct json *j, double v, int decimals)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	sep(j);
	fprintf(j->out, "%.*f", decimals, v);
}

void
json_bool(struct json *j, int v)
{
	sep(j);
	fputs(v ? "true" : "false", j->out);
}

void
json_null(struct json *j)
{
	sep(j);
	fputs("null", j->out);
}

void
json_finish(struct json *j)
{
	fputc('\n', j->out);
}
