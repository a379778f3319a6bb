/*
 * logtext.c -- telling a log from a document by its lines (logtext.h).
 *
 * Each line is asked whether a process wrote it.  The header parser
 * answers for lines with a time, a level, a rank or a host; for the rest
 * a few cheap scans look for what processes print bare: JSON records, Python
 * tracebacks and exception lines, crash and launcher lines, NCCL's and
 * CUDA's, tqdm bars, a loss or two numeric fields of a record, and the dotted
 * leaders of a configuration banner.  A file is no log when fewer than
 * one line in ten is such a line (one in four when it looks like a
 * document: it opens like JSON, has two of Markdown's marks, or half its
 * lines are sentences); it is then called a JSON document, a Markdown
 * document, prose (a quarter of sentences) or text no process wrote.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "logs/lineparse.h"
#include "logs/logtext.h"

void
logtext_init(struct logtext *lt)
{
	memset(lt, 0, sizeof *lt);
}

/* Does s (n bytes) contain w? */
static int
has(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;

	for (i = 0; i + k <= n; i++)
		if (s[i] == w[0] && memcmp(s + i, w, k) == 0)
			return 1;
	return 0;
}

/* Leading blanks off. */
static const char *
trim(const char *s, size_t *n)
{
	while (*n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		(*n)--;
	}
	while (*n > 0 && (s[*n - 1] == ' ' || s[*n - 1] == '\t' ||
	    s[*n - 1] == '\r'))
		(*n)--;
	return s;
}

/*
 * Python's exception line: a dotted name ending in Error, Exception,
 * Interrupt or Warning, then a colon or the end of the line.
 */
static int
exception_line(const char *s, size_t n)
{
	static const char *const ends[] = {
		"Error", "Exception", "Interrupt", "Warning"
	};
	size_t i = 0, k, e;

	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' ||
	    s[i] == '.'))
		i++;
	if (i == 0 || (i < n && s[i] != ':'))
		return 0;
	for (k = 0; k < sizeof ends / sizeof *ends; k++) {
		e = strlen(ends[k]);
		if (i >= e && memcmp(s + i - e, ends[k], e) == 0)
			return 1;
	}
	return 0;
}

/* What crashing processes, launchers and the GPU stack print. */
static int
crash_or_launcher(const char *s, size_t n)
{
	static const char *const words[] = {
		"Traceback (most recent call last)", "Segmentation fault",
		"core dumped", "terminate called", "what():", "Killed",
		"Aborted", "Fatal Python error", "Exception raised from",
		"frame #", "CUDA error", "CUDA out of memory", "NCCL INFO",
		"NCCL WARN", "NCCL error", "srun: ", "slurmstepd",
		"mpirun", "torchrun", "torch.distributed", "ChildFailedError",
		"*** ", "exitcode", "exit code", "Signal ",
	};
	size_t k;

	for (k = 0; k < sizeof words / sizeof *words; k++)
		if (has(s, n, words[k]))
			return 1;
	return 0;
}

/* A number (or nan, inf) at s[i], after blanks, ':' or '='. */
static int
number_at(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == ':' || s[i] == '=' ||
	    s[i] == '\''))
		i++;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		i++;
	if (i >= n)
		return 0;
	return isdigit((unsigned char)s[i]) || (n - i >= 3 &&
	    (strncasecmp(s + i, "nan", 3) == 0 ||
	    strncasecmp(s + i, "inf", 3) == 0));
}

/*
 * A "key: number" or "key=number" field ending in a field separator ('|'
 * or ','), as in "consumed samples: 43408 |" and "step=120, skipped=0,":
 * where the key's last letter is at s[i - 1] and the ':' or '=' at s[i].
 */
static int
field_at(const char *s, size_t n, size_t i)
{
	size_t k = i + 1;

	if (i == 0 || !isalpha((unsigned char)s[i - 1]) || !number_at(s, n, k))
		return 0;
	while (k < n && (s[k] == ' ' || s[k] == '\''))
		k++;
	while (k < n && s[k] != '|' && s[k] != ',' && s[k] != ' ')
		k++;
	while (k < n && s[k] == ' ')
		k++;
	return k < n && (s[k] == '|' || s[k] == ',');
}

/*
 * Training metrics: "loss" followed by a number ("loss 2.3", "lm loss:
 * 7.1E+00", "'loss': nan"), two numeric fields of a record ("consumed
 * samples: 43408 | ... |", "step=120, skipped=0,"), or a tqdm bar.
 */
static int
metrics(const char *s, size_t n)
{
	size_t i, fields = 0;

	if (has(s, n, "it/s]") || has(s, n, "s/it]") || has(s, n, "%|"))
		return 1;
	for (i = 0; i + 1 < n; i++) {
		if (i + 4 <= n && strncasecmp(s + i, "loss", 4) == 0 &&
		    (i == 0 || !isalpha((unsigned char)s[i - 1])) &&
		    number_at(s, n, i + 4))
			return 1;
		if ((s[i] == ':' || s[i] == '=') && field_at(s, n, i))
			fields++;
	}
	return fields >= 2;
}

/* A configuration banner's "  name ........ value". */
static int
dotted_leader(const char *s, size_t n)
{
	size_t i, dots = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '.')
			dots++;
		else if (dots >= 4 && s[i] == ' ')
			return i + 1 < n && i > dots;
		else
			dots = 0;
	}
	return 0;
}

int
logtext_process_line(const char *s, size_t n)
{
	struct lp_line lp;
	const char *t;
	size_t m = n;

	lp_parse(s, n, &lp);
	if (lp.ts_kind != LP_TS_NONE || lp.level != LP_LEVEL_NONE ||
	    lp.rank >= 0 || lp.host != NULL)
		return 1;
	t = trim(s, &m);
	if (m > 6 && memcmp(t, "File \"", 6) == 0 && has(t, m, "\", line "))
		return 1;
	/* a structured logger's record: one JSON object a line */
	if (m >= 2 && t[0] == '{' && t[m - 1] == '}' && has(t, m, "\":"))
		return 1;
	return exception_line(t, m) || crash_or_launcher(t, m) ||
	    metrics(t, m) || dotted_leader(t, m);
}

/* Is s[a, b) a word: letters (and - '), with punctuation around it? */
static int
word(const char *s, size_t a, size_t b)
{
	while (a < b && (s[a] == '(' || s[a] == '"'))
		a++;
	while (b > a && strchr(",.;:)!?\"", s[b - 1]) != NULL)
		b--;
	if (a == b)
		return 0;
	for (; a < b; a++)
		if (!isalpha((unsigned char)s[a]) && s[a] != '-' &&
		    s[a] != '\'')
			return 0;
	return 1;
}

/* A sentence: six words or more, four in five of them words of letters. */
static int
prose_line(const char *s, size_t n)
{
	size_t i = 0, k, tokens = 0, words = 0;

	while (i < n) {
		while (i < n && s[i] == ' ')
			i++;
		if (i >= n)
			break;
		for (k = i; k < n && s[k] != ' '; k++)
			;
		tokens++;
		words += word(s, i, k);
		i = k;
	}
	return tokens >= 6 && words * 5 >= tokens * 4;
}

static int
markdown_line(const char *s, size_t n)
{
	return (n >= 2 && s[0] == '#' && (s[1] == ' ' || s[1] == '#')) ||
	    (n >= 3 && memcmp(s, "```", 3) == 0) ||
	    (n >= 5 && s[0] == '|' && (has(s, n, "| ---") ||
	    has(s, n, "|---")));
}

void
logtext_line(struct logtext *lt, const char *s, size_t n)
{
	const char *t;
	size_t m = n;

	t = trim(s, &m);
	if (m == 0)
		return;
	if (!lt->first_seen) {
		lt->first_seen = 1;
		/* pretty-printed, not one object a line (a JSON log) */
		lt->json_doc = (t[0] == '{' && t[m - 1] != '}') ||
		    (t[0] == '[' && m == 1);
	}
	lt->lines++;
	if (logtext_process_line(s, n))
		lt->process++;
	else if (markdown_line(t, m))
		lt->markdown++;
	else if (prose_line(t, m))
		lt->prose++;
}

/* A document by its shape: JSON, two Markdown marks, or half prose. */
static int
document(const struct logtext *lt)
{
	return lt->json_doc || lt->markdown >= 2 || lt->prose * 2 >= lt->lines;
}

const char *
logtext_not_log(const struct logtext *lt)
{
	if (lt->lines == 0 || lt->process * (document(lt) ? 4 : 10) >=
	    lt->lines)
		return NULL;
	if (lt->json_doc)
		return "a JSON document";
	if (lt->markdown >= 2)
		return "a Markdown document";
	if (lt->prose * 4 >= lt->lines)
		return "prose";
	return "text no process wrote: no line carries a time, level, rank "
	    "or host, and none is a traceback, error or progress line";
}
