/*
 * logtext.h -- is a text file a log a process wrote, or a document?
 *
 * A job's directory holds more than its processes' output: a README, a
 * scenario's notes, a check report, a JSON record of its settings.  Those
 * are text, but nothing in them was logged, and their sentences must not
 * rank as events.  Lines are fed one by one (the head of a file, and for a
 * plain file its tail); each either shows that a process wrote it -- a
 * time, a level, a rank or host prefix (lp_parse()), or what processes
 * print without one: a traceback, an exception or crash line, launcher
 * and NCCL lines, progress bars, a loss or key=value metrics, a
 * configuration banner of dotted leaders -- or not.  A file where almost
 * no line does is no log; its shape says what it is instead.
 */
#ifndef TS_LOGTEXT_H
#define TS_LOGTEXT_H

#include <stddef.h>

struct logtext {
	size_t lines;		/* non-blank lines seen */
	size_t process;		/* of them, lines a process wrote */
	size_t prose;		/* sentences: words, mostly letters */
	size_t markdown;	/* headings, fences, tables, bullets */
	int first_seen;		/* the first non-blank line was seen */
	int json_doc;		/* it opens like a JSON document */
};

/* Start an empty tally. */
void logtext_init(struct logtext *lt);
/* Feed one line (no newline). */
void logtext_line(struct logtext *lt, const char *s, size_t n);
/* Does one line (no newline) show that a process wrote it? */
int logtext_process_line(const char *s, size_t n);
/*
 * The verdict on the lines fed: NULL for a log (no lines at all is a
 * log: an empty rank log says something), else why it is none, as a
 * static phrase ("a JSON document", "prose", ...).
 */
const char *logtext_not_log(const struct logtext *lt);

#endif
