/*
 * faults.c -- loading and matching the fault library.
 *
 * The parser reads stanzas: a "[name]" header, then "key = value" lines
 * (pattern, category, explain, action), blank lines and "#" comments.  A
 * stanza is checked when the next header or the end of the text arrives:
 * every key present, the pattern compiles.  Each rule's pattern is
 * compiled once with PCRE2 (JIT when available); matching uses a match
 * data block per thread.
 */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/faults.h"
#include "base/util.h"

struct faults {
	struct fault_rule *rules;
	size_t n, cap;
	char **errors;
	size_t nerr, errcap;
};

static __thread pcre2_match_data *faults_md;

struct faults *
faults_new(void)
{
	return xcalloc(1, sizeof(struct faults));
}

static void
rule_release(struct fault_rule *r)
{
	free(r->name);
	free(r->pattern);
	free(r->category);
	free(r->explain);
	free(r->action);
	free(r->file);
	pcre2_code_free(r->code);
	memset(r, 0, sizeof *r);
}

void
faults_free(struct faults *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++)
		rule_release(&f->rules[i]);
	for (i = 0; i < f->nerr; i++)
		free(f->errors[i]);
	free(f->rules);
	free(f->errors);
	free(f);
}

static void add_error(struct faults *, const char *, long, const char *, ...)
    TS_PRINTF(4, 5);

static void
add_error(struct faults *f, const char *file, long line, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	f->errors = xgrow(f->errors, &f->errcap, f->nerr + 1, sizeof *f->errors);
	f->errors[f->nerr++] = xasprintf("%s:%ld: %s", file, line, msg);
	free(msg);
}

/* Compile r->pattern; 0, or -1 with an error recorded. */
static int
rule_compile(struct faults *f, struct fault_rule *r)
{
	PCRE2_UCHAR msg[160];
	PCRE2_SIZE off;
	int err;

	r->code = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED,
	    0, &err, &off, NULL);
	if (r->code == NULL) {
		pcre2_get_error_message(err, msg, sizeof msg);
		add_error(f, r->file, r->pattern_line, "rule '%s': bad pattern at "
		    "offset %ld: %s", r->name, (long)off, (char *)msg);
		return -1;
	}
	pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE);
	return 0;
}

/* Add a finished stanza (taking its strings), or record why it is bad. */
static void
rule_finish(struct faults *f, struct fault_rule *r)
{
	const char *missing = NULL;
	size_t i;

	if (r->name == NULL)
		return;
	if (r->pattern == NULL)
		missing = "pattern";
	else if (r->category == NULL)
		missing = "category";
	else if (r->explain == NULL)
		missing = "explain";
	if (missing != NULL) {
		add_error(f, r->file, r->line, "rule '%s': no %s", r->name,
		    missing);
	}
	if (missing != NULL || rule_compile(f, r) != 0) {
		rule_release(r);
		return;
	}
	if (r->action == NULL)
		r->action = xstrdup("");
	for (i = 0; i < f->n; i++)
		if (strcmp(f->rules[i].name, r->name) == 0) {
			rule_release(&f->rules[i]);
			f->rules[i] = *r;
			memset(r, 0, sizeof *r);
			return;
		}
	f->rules = xgrow(f->rules, &f->cap, f->n + 1, sizeof *f->rules);
	f->rules[f->n++] = *r;
	memset(r, 0, sizeof *r);
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* One "key = value" line of the stanza in *r. */
static void
rule_field(struct faults *f, struct fault_rule *r, char *line,
    const char *file, long lineno)
{
	char *eq = strchr(line, '='), *key, *val, **slot;

	if (eq == NULL) {
		add_error(f, file, lineno, "expected 'key = value'");
		return;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (strcmp(key, "pattern") == 0) {
		slot = &r->pattern;
		r->pattern_line = lineno;
	}
	else if (strcmp(key, "category") == 0)
		slot = &r->category;
	else if (strcmp(key, "explain") == 0)
		slot = &r->explain;
	else if (strcmp(key, "action") == 0)
		slot = &r->action;
	else {
		add_error(f, file, lineno, "unknown key '%s'", key);
		return;
	}
	free(*slot);
	*slot = xstrdup(val);
}

/* A "[name]" header: finish the previous stanza, start a new one. */
static void
rule_header(struct faults *f, struct fault_rule *r, char *line,
    const char *file, long lineno)
{
	char *end = strchr(line, ']');

	rule_finish(f, r);
	rule_release(r);
	if (end == NULL || trim(end + 1)[0] != '\0' || end == line + 1) {
		add_error(f, file, lineno, "bad rule header '%s'", line);
		r->name = NULL;
		return;
	}
	r->name = xstrndup(line + 1, (size_t)(end - line - 1));
	r->file = xstrdup(file);
	r->line = lineno;
}

size_t
faults_load_text(struct faults *f, const char *text, size_t len,
    const char *file)
{
	struct fault_rule r;
	size_t before = f->nerr, i = 0, j;
	long lineno = 0;
	char *line, *s;

	memset(&r, 0, sizeof r);
	while (i < len) {
		for (j = i; j < len && text[j] != '\n'; j++)
			;
		line = xstrndup(text + i, j - i);
		lineno++;
		s = trim(line);
		if (s[0] == '[')
			rule_header(f, &r, s, file, lineno);
		else if (s[0] != '\0' && s[0] != '#' && r.name != NULL)
			rule_field(f, &r, s, file, lineno);
		else if (s[0] != '\0' && s[0] != '#')
			add_error(f, file, lineno, "text outside a rule");
		free(line);
		i = j + 1;
	}
	rule_finish(f, &r);
	rule_release(&r);
	return f->nerr - before;
}

int
faults_load_file(struct faults *f, const char *path, int optional,
    char **cause)
{
	FILE *fp = fopen(path, "r");
	struct buf b = BUF_INIT;
	char chunk[8192];
	size_t n;

	if (fp == NULL) {
		if (optional && errno == ENOENT)
			return 0;
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	}
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(fp)) {
		fclose(fp);
		buf_release(&b);
		return ts_fail(cause, "cannot read '%s'", path);
	}
	fclose(fp);
	faults_load_text(f, buf_str(&b), b.len, path);
	buf_release(&b);
	return 0;
}

char *
faults_user_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		return xasprintf("%s/trainscope/faults", xdg);
	if (home != NULL && home[0] != '\0')
		return xasprintf("%s/.config/trainscope/faults", home);
	return NULL;
}

struct faults *
faults_default(void)
{
	struct faults *f = faults_new();
	char *path = faults_user_path(), *cause = NULL;

	faults_load_text(f, faults_builtin_rules, strlen(faults_builtin_rules),
	    "builtin");
	if (path != NULL && faults_load_file(f, path, 1, &cause) != 0) {
		f->errors = xgrow(f->errors, &f->errcap, f->nerr + 1,
		    sizeof *f->errors);
		f->errors[f->nerr++] = cause;
	}
	free(path);
	return f;
}

size_t
faults_count(const struct faults *f)
{
	return f->n;
}

const struct fault_rule *
faults_rule(const struct faults *f, size_t i)
{
	return i < f->n ? &f->rules[i] : NULL;
}

const struct fault_rule *
faults_find(const struct faults *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (strcmp(f->rules[i].name, name) == 0)
			return &f->rules[i];
	return NULL;
}

size_t
faults_nerrors(const struct faults *f)
{
	return f->nerr;
}

const char *
faults_error(const struct faults *f, size_t i)
{
	return i < f->nerr ? f->errors[i] : NULL;
}

const struct fault_rule *
faults_match(const struct faults *f, const char *msg, size_t len)
{
	size_t i;

	if (faults_md == NULL)
		faults_md = pcre2_match_data_create(4, NULL);
	for (i = 0; i < f->n; i++)
		if (pcre2_match(f->rules[i].code, (PCRE2_SPTR)msg, len, 0, 0,
		    faults_md, NULL) >= 0)
			return &f->rules[i];
	return NULL;
}

void
faults_thread_end(void)
{
	pcre2_match_data_free(faults_md);
	faults_md = NULL;
}

/*
 * Categories that name a cause, and the ones that name a consequence: a
 * lost connection could be either (the link failed, or the peer died);
 * a retried error and what a healthy node logs too weigh nothing.
 */
static const struct {
	const char *name;
	double weight;
} category_weights[] = {
	{ "xid", 1.0 }, { "ecc", 1.0 }, { "network", 0.9 }, { "cuda", 0.9 },
	{ "oom", 0.9 }, { "nan", 0.85 }, { "checkpoint", 0.85 },
	{ "config", 0.85 }, { "dataloader", 0.8 }, { "hardware", 1.0 },
	{ "link", 0.95 }, { "gpu", 0.9 }, { "hang", 0.8 },
	{ "collective", 0.6 }, { "stop", 0.8 }, { "scheduler", 0.85 },
	{ "crash", 0.8 },
	{ "disconnect", 0.5 }, { "timeout", 0.35 }, { "process", 0.2 },
	{ "retry", 0.2 }, { "benign", 0 },
};

double
faults_category_weight(const char *category)
{
	size_t i;

	if (category == NULL)
		return 0;
	for (i = 0; i < TS_NELEM(category_weights); i++)
		if (strcmp(category_weights[i].name, category) == 0)
			return category_weights[i].weight;
	return 0.6;
}
