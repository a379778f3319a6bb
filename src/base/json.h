/*
 * json.h -- a streaming JSON writer.
 *
 * The writer tracks nesting and commas so callers emit values in order:
 *
 *	struct json j;
 *	json_init(&j, out, 1);
 *	json_obj_begin(&j);
 *	json_key(&j, "job"); json_str(&j, "a");
 *	json_key(&j, "nodes"); json_arr_begin(&j); ... json_arr_end(&j);
 *	json_obj_end(&j);
 *	json_finish(&j);
 *
 * Strings are escaped as JSON requires; bytes that are not valid UTF-8 are
 * written as U+FFFD so the output is always valid JSON.  Non-finite numbers
 * are written as null.
 */
#ifndef TS_JSON_H
#define TS_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 64

/*
 * The version of trainscope's JSON outputs (diagnose, view, export,
 * jobs): its "schema" field.  It goes up when a field is renamed or
 * removed or changes its meaning; help/trainscope.1 (JSON OUTPUT) lists
 * the fields.
 */
#define JSON_SCHEMA 2

struct json {
	FILE *out;
	int pretty;
	int depth;
	int first[JSON_MAX_DEPTH];
	int after_key;
};

/* Write to `out` (borrowed); pretty != 0 indents by two spaces. */
void json_init(struct json *j, FILE *out, int pretty);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);	/* NULL writes null */
void json_strn(struct json *j, const char *s, size_t n);
void json_int(struct json *j, int64_t v);
void json_num(struct json *j, double v);	/* %.17g trimmed; NaN -> null */
void json_numf(struct json *j, double v, int decimals);
void json_bool(struct json *j, int v);
void json_null(struct json *j);
/* Terminate the document with a newline. */
void json_finish(struct json *j);

/* Append `s` escaped as a JSON string body (no quotes) to `out`. */
void json_escape(FILE *out, const char *s, size_t n);

#endif
