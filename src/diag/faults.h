/*
 * faults.h -- the fault library: PCRE2 patterns naming known failures.
 *
 * A library is a list of rules, each a name, a pattern, a category, a
 * one-line explanation and a suggested action.  The shipped rules
 * (src/diag/faults.rules, compiled into the binary) load first; the user's file
 * extends them, and a rule with the same name as an earlier one replaces
 * it in place.  The format is described in help/faults.txt:
 *
 *	[name]
 *	pattern  = PCRE2 pattern (matched against a raw log message)
 *	category = network
 *	explain  = one line saying what it means
 *	action   = one line saying what to do
 *
 * A bad stanza in a file is skipped with a "FILE:LINE: message" error kept
 * in the library (faults_nerrors()/faults_error()); the rest still loads.
 * Categories label events for the diagnosis; they are a prior, not a
 * verdict.
 */
#ifndef TS_FAULTS_H
#define TS_FAULTS_H

#include <stddef.h>

struct faults;

struct fault_rule {
	char *name;
	char *pattern;
	char *category;
	char *explain;
	char *action;
	char *file;		/* where it was defined ("builtin" or a path) */
	long line;		/* the line of its [name] header */
	long pattern_line;	/* the line of its pattern */
	void *code;		/* compiled pattern (pcre2_code) */
};

/* An empty library; free with faults_free() (NULL is fine). */
struct faults *faults_new(void);
void faults_free(struct faults *f);

/*
 * Load rules from text (`file` names it in errors).  Good rules are added
 * or replace same-named ones; bad ones are recorded as errors.  Returns
 * the number of errors added by this call.
 */
size_t faults_load_text(struct faults *f, const char *text, size_t len,
    const char *file);
/*
 * Load a rules file.  Returns 0 (errors in stanzas are recorded, not
 * fatal) or -1 with *cause set when the file cannot be read.  A missing
 * file is not an error when `optional` is nonzero.
 */
int faults_load_file(struct faults *f, const char *path, int optional,
    char **cause);
/*
 * The library most commands want: the shipped rules plus the user's
 * ${XDG_CONFIG_HOME:-$HOME/.config}/trainscope/faults when it exists.
 * Never fails; problems are recorded as errors.
 */
struct faults *faults_default(void);
/* The user's rules path, allocated; NULL when neither variable is set. */
char *faults_user_path(void);

/* The shipped rules text (generated from src/diag/faults.rules). */
extern const char faults_builtin_rules[];

size_t faults_count(const struct faults *f);
/* Rule i (borrowed), 0 <= i < faults_count(). */
const struct fault_rule *faults_rule(const struct faults *f, size_t i);
/* The rule called `name` (borrowed), or NULL. */
const struct fault_rule *faults_find(const struct faults *f, const char *name);
size_t faults_nerrors(const struct faults *f);
/* Error i, "FILE:LINE: message" (borrowed). */
const char *faults_error(const struct faults *f, size_t i);

/*
 * The first rule whose pattern matches msg[0..len), or NULL.  Thread-safe
 * once loading is done.
 */
const struct fault_rule *faults_match(const struct faults *f, const char *msg,
    size_t len);
/*
 * Free the calling thread's match data of faults_match(): a thread that
 * matched calls it before it ends.
 */
void faults_thread_end(void);

/*
 * How strongly a category points at a root cause, in [0, 1]: hardware and
 * data faults high, consequences (timeouts, killed children) lower.
 */
double faults_category_weight(const char *category);

#endif
