/*
 * cmd.c -- the command table, the word splitter and the dispatcher.
 *
 * The table is the single description of what trainscope can do.  The
 * dispatcher parses --options against the command's option list, checks the
 * number of positional arguments, and only then calls the handler; so a
 * handler can trust its arguments and the `usage:` message comes from one
 * place.  Help text lives in help/<name>.txt and is checked against this
 * table by the test suite.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view/canvas.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "cli/help.h"
#include "base/util.h"
#include "db/cache.h"
#include "diag/jobmodel.h"

/* Keep sorted by name: cmd_find() and completion rely on it. */
const struct cmd cmd_table[] = {
	{ "back", "[--or-quit]", 0, 0,
	  "go back to the view before the last drill",
	  cmd_back, "or-quit", CMD_SESSION },
	{ "bookmark", "[--next|--prev] [PATH:LINE|event:ID]", 0, 1,
	  "mark the cursor's line or event (again: unmark it), or go to the "
	  "next mark",
	  cmd_bookmark, "next prev", CMD_SESSION },
	{ "bookmarks", "", 0, 0,
	  "list the bookmarked lines and events with their text",
	  cmd_bookmarks, "", 0 },
	{ "cache", "[info|path]", 0, 1,
	  "show where the cache is and what it holds",
	  cmd_cache_info, "", 0 },
	{ "context", "N", 1, 1,
	  "show N lines of context around each line in the lines pane",
	  cmd_context, "", CMD_SESSION },
	{ "copy", "", 0, 0,
	  "copy the bookmarked lines (or the cursor's) to the terminal's "
	  "clipboard (OSC 52)",
	  cmd_copy, "", 0 },
	{ "demo", "", 0, 0,
	  "simulate a failed job and healthy runs, then diagnose it",
	  cmd_demo, "", 0 },
	{ "diagnose", "[--baseline JOB]... [--top N] [--format text|tsv|json] "
	  "[--no-flows] [--threads N] JOB|PATH", 1, 1,
	  "rank the suspect events and nodes of a failed job, with reasons",
	  cmd_diagnose, "baseline= top= format= no-flows threads=", 0 },
	{ "drill", "", 0, 0,
	  "open what the selected row leads to (the log at an event, node or "
	  "iteration)",
	  cmd_drill, "", CMD_SESSION },
	{ "export", "[--width N] [--format text|json|tsv] [--marked] FILE|-",
	  1, 1,
	  "write the current pane, whole, as plain text (or its data)",
	  cmd_export, "width= format= marked", 0 },
	{ "filter", "[-v] node=NAME|stage=NAME|iter=A..B|category=NAME|/PATTERN/...",
	  0, -1,
	  "keep only the rows that match (-v: that do not); filters stack",
	  cmd_filter, "", CMD_SESSION },
	{ "filters", "", 0, 0,
	  "list the filters in force, numbered",
	  cmd_filters, "", 0 },
	{ "flows", "[--format text|tsv|json] [--job NAME] [--no-cache] "
	  "[--idle-timeout S] [--gap S] CAPTURE|JOBDIR...", 1, -1,
	  "find training jobs, parallel groups, iterations and slow parts in captures",
	  cmd_flows, "format= job= no-cache idle-timeout= gap=", 0 },
	{ "follow", "on|off", 1, 1,
	  "index and diagnose the open job again every few seconds, or stop",
	  cmd_follow, "", 0 },
	{ "forget", "JOB", 1, 1,
	  "remove a job and all that is its own from the cache",
	  cmd_forget, "", 0 },
	{ "goto", "node NAME|iter N|time T|line PATH:LINE", 2, 2,
	  "put the cursor on a node, an iteration, a time or a line of the job",
	  cmd_goto, "", CMD_SESSION },
	{ "help", "[COMMAND|TOPIC]", 0, 1,
	  "show help for a command or topic",
	  cmd_help, "", 0 },
	{ "index", "[--job NAME] [--map FILE] [--hostfile FILE] [--log FILE]... "
	  "[--threads N] [--chunk BYTES] [--commit SECS] PATH...", 1, -1,
	  "index the logs of one or more jobs into the cache",
	  cmd_index, "job= map= hostfile= log= threads= chunk= commit=", 0 },
	{ "jobs", "[--format text|tsv|json] [--names]", 0, 0,
	  "list the jobs in the cache",
	  cmd_jobs, "format= names", 0 },
	{ "lines", "[-C|--context N] JOB PATH:LINE | [-C|--context N] --event "
	  "N|--template ID JOB | --node NAME --iter N JOB | --grep RE [--node NAME] "
	  "[--stage S] [--iter A..B] [-v|--invert] [--count] "
	  "[--format text|tsv|json] JOB | --merged [--at WHERE] [-n|--rows N] "
	  "[--back] [filters] JOB", 1, 2,
	  "print the raw lines of a job around a line, of an event, or of a "
	  "node in an iteration",
	  cmd_lines, "context=/C event= template= node= iter= grep= stage= "
	  "invert/v count format= merged at= rows=/n back", 0 },
	{ "mark", "[--for JOB]... JOB good|bad|none", 2, 2,
	  "mark a job good or bad for the healthy pool of diagnose",
	  cmd_mark, "for=", 0 },
	{ "mouse", "on|off|toggle", 1, 1,
	  "let the screen take the mouse, or leave it to the terminal",
	  cmd_mouse, "", 0 },
	{ "move", "up|down|pgup|pgdn|halfup|halfdn|top|bottom|+N|-N|ROW|"
	  "left|right|first|last|column=N|column=off", 1, 1,
	  "move the cursor in the current pane (the heatmap's column too)",
	  cmd_move, "", CMD_SESSION },
	{ "next", "", 0, 0,
	  "go to the next row that matches the search",
	  cmd_next, "", CMD_SESSION },
	{ "open", "[--baseline JOB]... [--no-flows] JOB", 1, 1,
	  "diagnose a job and look at it in the views",
	  cmd_open, "baseline= no-flows", CMD_SESSION },
	{ "pane", "events|heatmap|timeline|groups|lines|jobs|log|next|prev", 1, 1,
	  "show a pane",
	  cmd_pane, "", CMD_SESSION },
	{ "parse", "[--format text|tsv] FILE...", 1, -1,
	  "print the template of every line of log files",
	  cmd_parse, "format=", 0 },
	{ "prev", "", 0, 0,
	  "go to the previous row that matches the search",
	  cmd_prev, "", CMD_SESSION },
	{ "quit", "", 0, 0,
	  "leave the screen (a batch or a replay stops here)",
	  cmd_quit, "", CMD_SESSION },
	{ "report", "[--format text|md] [--paths] [--full] FILE|-", 1, 1,
	  "write a failure report of the open job for a ticket",
	  cmd_report, "format= paths full", 0 },
	{ "save", "FILE", 1, 1,
	  "save the session: the commands that made the current view",
	  cmd_save, "", 0 },
	{ "scroll", "left|right|home|COLUMN", 1, 1,
	  "scroll the text of the events, lines and log panes sideways",
	  cmd_scroll, "", CMD_SESSION },
	{ "search", "[/PATTERN/]", 0, -1,
	  "highlight rows that match a PCRE2 pattern and go to the first",
	  cmd_search, "", CMD_SESSION },
	{ "simulate", "[options] OUTDIR", 1, 1,
	  "write a synthetic training job with injected faults",
	  cmd_simulate, "nodes= gpus-per-node= dp= pp= tp= iters= iter-ms= "
	  "micro-batches= format= layout= prefix= gzip clock-skew-ms= seed= "
	  "healthy fault= no-flows size= transport= capture-iters=", 0 },
	{ "sort", "score|time|count|nodes", 1, 1,
	  "order the events pane",
	  cmd_sort, "", CMD_SESSION },
	{ "source", "FILE", 1, 1,
	  "run the commands in a file, one per line",
	  cmd_source, "", 0 },
	{ "templates", "[--format text|tsv|json] [JOB]", 0, 1,
	  "list the log templates of the indexed jobs with their counts",
	  cmd_templates, "format=", 0 },
	{ "unfilter", "[N|all]", 0, 1,
	  "drop filter N (see filters), or all of them",
	  cmd_unfilter, "", CMD_SESSION },
	{ "version", "", 0, 0,
	  "print the version",
	  cmd_version, "", 0 },
	{ "view", "[--width N] [--height N|all] [--format text|json|tsv] "
	  "[--baseline JOB]... [--no-flows] [PANE [JOB]] [-c COMMAND]...", 0, -1,
	  "print a pane as the screen shows it, as plain text (or its data)",
	  cmd_view, "width= height= format= baseline= no-flows", 0 },
	{ "warnings", "", 0, 0,
	  "list the warnings held back while the screen opened",
	  cmd_warnings, "", 0 },
};
const size_t cmd_count = TS_NELEM(cmd_table);

void
cmd_ctx_init(struct cmd_ctx *ctx, FILE *out, FILE *err)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->out = out;
	ctx->err = err;
	ctx->err_col = -1;
	ctx->mouse = 1;
}

void
cmd_ctx_release(struct cmd_ctx *ctx)
{
	cmd_ctx_view_free(ctx);
	job_kept_free(ctx->kept);
	ctx->kept = NULL;
	cache_close(ctx->cache);
	ctx->cache = NULL;
	free(ctx->cache_path);
	ctx->cache_path = NULL;
	cmd_ctx_unhold(ctx);
	cmd_ctx_held_print(ctx, NULL);
}

/*
 * The stream err becomes while held: bytes are passed on as they come
 * (progress is drawn over itself with carriage returns) except a
 * message, which runs from "trainscope: " to its newline and is kept.
 * Bytes that may be the start of one wait until they are not.
 */
#define HELD_PREFIX "trainscope: "

struct hold {
	struct cmd_ctx *ctx;
	struct buf line;	/* the prefix matched so far, or the message */
	int keep;		/* a message: the prefix was matched whole */
};

/* A message ends (at its newline, or the stream's end): keep it. */
static void
hold_keep(struct hold *h)
{
	cmd_ctx_held_add(h->ctx, buf_str(&h->line));
	buf_reset(&h->line);
	h->keep = 0;
}

void
cmd_ctx_held_add(struct cmd_ctx *ctx, const char *msg)
{
	if (strncmp(msg, HELD_PREFIX, strlen(HELD_PREFIX)) == 0)
		msg += strlen(HELD_PREFIX);
	ctx->held = xreallocarray(ctx->held, ctx->nheld + 1,
	    sizeof *ctx->held);
	ctx->held[ctx->nheld++] = xstrdup(msg);
}

static void
hold_byte(struct hold *h, char c)
{
	FILE *err = h->ctx->held_err;

	if (h->keep) {
		if (c == '\n')
			hold_keep(h);
		else
			buf_addc(&h->line, c);
		return;
	}
	if (c == HELD_PREFIX[h->line.len]) {
		buf_addc(&h->line, c);
		h->keep = h->line.len == strlen(HELD_PREFIX);
		return;
	}
	if (h->line.len > 0)	/* not one after all */
		fwrite(h->line.s, 1, h->line.len, err);
	buf_reset(&h->line);
	if (c == HELD_PREFIX[0])
		buf_addc(&h->line, c);
	else
		fputc(c, err);
}

static ssize_t
hold_write(void *arg, const char *p, size_t n)
{
	struct hold *h = arg;
	size_t i;

	for (i = 0; i < n; i++)
		hold_byte(h, p[i]);
	fflush(h->ctx->held_err);
	return (ssize_t)n;
}

static int
hold_close(void *arg)
{
	struct hold *h = arg;

	if (h->keep)
		hold_keep(h);
	else if (h->line.len > 0)
		fwrite(h->line.s, 1, h->line.len, h->ctx->held_err);
	buf_release(&h->line);
	free(h);
	return 0;
}

void
cmd_ctx_hold(struct cmd_ctx *ctx)
{
	cookie_io_functions_t io = { NULL, hold_write, NULL, hold_close };
	struct hold *h;
	FILE *f;

	if (ctx->held_err != NULL)
		return;
	h = xcalloc(1, sizeof *h);
	h->ctx = ctx;
	buf_init(&h->line);
	if ((f = fopencookie(h, "w", io)) == NULL) {
		free(h);
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);	/* progress shows as it is drawn */
	ctx->held_err = ctx->err;
	ctx->err = f;
}

void
cmd_ctx_unhold(struct cmd_ctx *ctx)
{
	FILE *f = ctx->err;

	if (ctx->held_err == NULL)
		return;
	fclose(f);	/* its last line decided while held_err is set */
	ctx->err = ctx->held_err;
	ctx->held_err = NULL;
}

void
cmd_ctx_held_print(struct cmd_ctx *ctx, FILE *f)
{
	size_t i;

	for (i = 0; i < ctx->nheld; i++) {
		if (f != NULL)
			fprintf(f, "%s%s\n", HELD_PREFIX, ctx->held[i]);
		free(ctx->held[i]);
	}
	free(ctx->held);
	ctx->held = NULL;
	ctx->nheld = 0;
}

void
cmd_ctx_set_cache_path(struct cmd_ctx *ctx, const char *path)
{
	if (path != NULL && ctx->cache_path != NULL &&
	    strcmp(path, ctx->cache_path) == 0)
		return;
	cache_close(ctx->cache);
	ctx->cache = NULL;
	free(ctx->cache_path);
	ctx->cache_path = path != NULL ? xstrdup(path) : NULL;
}

int
cmd_ctx_cache(struct cmd_ctx *ctx, struct cache **out, char **cause)
{
	char *path;
	int rc;

	if (ctx->cache == NULL) {
		if (ctx->cache_path != NULL && ctx->cache_path[0] == '\0')
			return ts_fail(cause, "--cache wants a file name, not an "
			    "empty one");
		path = ctx->cache_path != NULL ? xstrdup(ctx->cache_path) :
		    cache_default_path();
		rc = cache_open(path, 0, &ctx->cache, cause);
		free(path);
		if (rc != 0)
			return -1;
	}
	*out = ctx->cache;
	return 0;
}

/* The path of the cache the context uses (allocated). */
static char *
ctx_cache_path(const struct cmd_ctx *ctx)
{
	if (ctx->cache != NULL)
		return xstrdup(cache_path(ctx->cache));
	if (ctx->cache_path != NULL)
		return xstrdup(ctx->cache_path);
	return cache_default_path();
}

/*
 * Is the open file `sb` the cache of the context or one of its -wal,
 * -shm or -journal files?  Then *cause names it and -1 is returned.
 */
static int
is_cache_file(const struct cmd_ctx *ctx, const char *path,
    const struct stat *sb, char **cause)
{
	static const char *const tails[] = { "", "-wal", "-shm", "-journal" };
	char *cache = ctx_cache_path(ctx), *p;
	struct stat cs;
	size_t i;
	int rc = 0;

	for (i = 0; i < TS_NELEM(tails) && rc == 0; i++) {
		p = xasprintf("%s%s", cache, tails[i]);
		if (stat(p, &cs) == 0 && cs.st_dev == sb->st_dev &&
		    cs.st_ino == sb->st_ino)
			rc = ts_fail(cause, "will not write '%s': it is %s ('%s')",
			    path, i == 0 ? "the cache in use" :
			    "a file of the cache in use", p);
		free(p);
	}
	free(cache);
	return rc;
}

int
cmd_ctx_open_out(struct cmd_ctx *ctx, const char *path, FILE **out,
    char **cause)
{
	struct stat sb;
	int fd, made = 0;

	*out = NULL;
	/* opened before it is truncated: the file checked is the one written */
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 && errno == ENOENT &&
	    (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0666)) >= 0)
		made = 1;
	if (fd < 0)
		return ts_fail(cause, "cannot write '%s': %s", path,
		    strerror(errno));
	if (fstat(fd, &sb) != 0) {
		ts_fail(cause, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (is_cache_file(ctx, path, &sb, cause) != 0) {
		close(fd);
		if (made)
			unlink(path);
		return -1;
	}
	if ((S_ISREG(sb.st_mode) && ftruncate(fd, 0) != 0) ||
	    (*out = fdopen(fd, "w")) == NULL) {
		ts_fail(cause, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

const struct cmd *
cmd_find(const char *name)
{
	size_t lo = 0, hi = cmd_count;

	if (strcmp(name, "q") == 0)	/* as in vi and less */
		name = "quit";
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, cmd_table[mid].name);

		if (c == 0)
			return &cmd_table[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

char *
cmd_usage_line(const struct cmd *c)
{
	if (c->usage[0] == '\0')
		return xasprintf("usage: %s", c->name);
	return xasprintf("usage: %s %s", c->name, c->usage);
}

/* Word splitting state: the word being built and where it started. */
struct splitter {
	char **argv;
	size_t argc, cap;
	struct buf word;
	int in_word;
};

static void
split_push(struct splitter *sp)
{
	sp->argv = xgrow(sp->argv, &sp->cap, sp->argc + 2, sizeof *sp->argv);
	sp->argv[sp->argc++] = buf_detach(&sp->word);
	sp->argv[sp->argc] = NULL;
	sp->in_word = 0;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The escape after a backslash in double quotes, at p: \n, \t, \r and
 * \xHH are those bytes, any other character stands for itself.  Adds the
 * byte to b and returns how many characters it took, or 0 for \x00.
 */
static size_t
dq_escape(const char *p, struct buf *b)
{
	int hi, lo;

	switch (*p) {
	case 'n': buf_addc(b, '\n'); return 1;
	case 't': buf_addc(b, '\t'); return 1;
	case 'r': buf_addc(b, '\r'); return 1;
	case 'x':
		if ((hi = hexval((unsigned char)p[1])) < 0 ||
		    (lo = hexval((unsigned char)p[2])) < 0)
			break;
		if (hi == 0 && lo == 0)
			return 0;
		buf_addc(b, (char)(hi << 4 | lo));
		return 3;
	}
	buf_addc(b, *p);
	return 1;
}

int
cmd_split(const char *line, int *argc, char ***argv, int *col, char **cause)
{
	struct splitter sp = { NULL, 0, 0, BUF_INIT, 0 };
	const char *p = line, *qstart;
	size_t n;
	char q;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == ':')
		p++;
	for (; *p != '\0' && *p != '\n' && *p != '\r'; p++) {
		if (*p == ' ' || *p == '\t') {
			if (sp.in_word)
				split_push(&sp);
			continue;
		}
		if (*p == '#' && !sp.in_word)
			break;
		sp.in_word = 1;
		if (*p == '\\' && p[1] != '\0') {
			buf_addc(&sp.word, *++p);
		} else if (*p == '\'' || *p == '"') {
			q = *p;
			qstart = p++;
			for (; *p != q; p++) {
				if (*p == '\0') {
					*col = (int)(qstart - line);
					cmd_free_argv((int)sp.argc, sp.argv);
					buf_release(&sp.word);
					return ts_fail(cause, "unterminated %s quote",
					    q == '\'' ? "single" : "double");
				}
				if (q == '"' && *p == '\\' && p[1] != '\0') {
					if ((n = dq_escape(p + 1, &sp.word)) == 0) {
						*col = (int)(p - line);
						cmd_free_argv((int)sp.argc, sp.argv);
						buf_release(&sp.word);
						return ts_fail(cause, "a word cannot "
						    "hold a NUL byte (\\x00)");
					}
					p += n;
				} else
					buf_addc(&sp.word, *p);
			}
			buf_grow(&sp.word, 0); /* "" is still a word */
		} else
			buf_addc(&sp.word, *p);
	}
	if (sp.in_word)
		split_push(&sp);
	buf_release(&sp.word);
	if (sp.argv == NULL)
		sp.argv = xcalloc(1, sizeof *sp.argv);
	*argc = (int)sp.argc;
	*argv = sp.argv;
	return 0;
}

/* Can w stand as a word of a command line as it is? */
static int
word_plain(const char *w)
{
	const unsigned char *p;

	if (w[0] == '\0' || w[0] == ':')	/* ':' first is dropped */
		return 0;
	for (p = (const unsigned char *)w; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("'\"\\#", *p) != NULL)
			return 0;
	return 1;
}

void
cmd_quote(struct buf *b, const char *w)
{
	const unsigned char *p = (const unsigned char *)w;
	size_t len, n;
	uint32_t cp;

	if (word_plain(w)) {
		buf_adds(b, w);
		return;
	}
	buf_addc(b, '"');
	for (n = strlen(w); *p != '\0'; p += len, n -= len) {
		len = ts_utf8_decode(p, n, &cp);
		if (*p == '\n')
			buf_adds(b, "\\n");
		else if (*p == '\t')
			buf_adds(b, "\\t");
		else if (*p == '\r')
			buf_adds(b, "\\r");
		else if (*p == '"' || *p == '\\')
			buf_addf(b, "\\%c", *p);
		else if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			buf_addf(b, "\\x%02x", *p);
		else
			buf_add(b, p, len);
		if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			len = 1;
	}
	buf_addc(b, '"');
}

void
cmd_free_argv(int argc, char **argv)
{
	int i;

	if (argv == NULL)
		return;
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

/*
 * Does `spec` (space-separated "name", "name=" or "name=/X") accept
 * --name?  Returns 1 for a flag, 2 for an option taking a value, 0 when
 * unknown.
 */
static int
opt_kind(const char *spec, const char *name, size_t len)
{
	const char *p = spec, *end;

	if (len == 5 && strncmp(name, "cache", 5) == 0)
		return 2;
	while (*p != '\0') {
		while (*p == ' ')
			p++;
		end = p;
		while (*end != '\0' && *end != ' ' && *end != '=' && *end != '/')
			end++;
		if ((size_t)(end - p) == len && strncmp(p, name, len) == 0)
			return *end == '=' ? 2 : 1;
		while (*end != '\0' && *end != ' ')
			end++;
		p = end;
	}
	return 0;
}

/*
 * The long option of `spec` whose short form is -ch ("context=/C"):
 * its name in *name (not NUL-terminated) and *len, or 0 when none.
 */
static int
opt_short(const char *spec, int ch, const char **name, size_t *len)
{
	const char *p = spec, *end, *slash;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		end = p;
		while (*end != '\0' && *end != ' ')
			end++;
		slash = memchr(p, '/', (size_t)(end - p));
		if (slash != NULL && slash + 2 == end && slash[1] == ch) {
			*name = p;
			*len = strcspn(p, "=/");
			return 1;
		}
		p = end;
	}
	return 0;
}

/* What an option's value is, from the metavariable its usage gives it. */
static const char *
value_words(const char *meta, size_t len)
{
	static const struct {
		const char *meta, *words;
	} tab[] = {
		{ "FILE", "a file" }, { "FILE|-", "a file (or -)" },
		{ "OUT", "a file" }, { "NAME", "a name" }, { "JOB", "a job" },
		{ "N", "a number" }, { "BYTES", "a number of bytes" },
		{ "SECS", "a number of seconds" }, { "S", "a number of seconds" },
		{ "MS", "a number of milliseconds" }, { "ID", "an id" },
		{ "G", "a number" }, { "SIZE", "a size" },
		{ "COMMAND", "a command" }, { "CMD", "a command" },
		{ "N|all", "a number or all" },
	};
	size_t i;

	for (i = 0; i < TS_NELEM(tab); i++)
		if (strlen(tab[i].meta) == len &&
		    strncmp(tab[i].meta, meta, len) == 0)
			return tab[i].words;
	return NULL;
}

/* "text|tsv|json" as "text, tsv or json", into b. */
static void
choice_words(struct buf *b, const char *m, size_t n)
{
	const char *last = m + n;
	size_t k;

	while (last > m && last[-1] != '|')
		last--;
	for (k = 0; m + k + 1 < last; k++) {
		if (m[k] == '|')
			buf_adds(b, ", ");
		else
			buf_addc(b, m[k]);
	}
	buf_addf(b, " or %.*s", (int)(m + n - last), last);
}

/*
 * What --name of command c wants, from what follows "--name " in its
 * usage or, failing that, its help text: "a file", "text, tsv or json".
 * Returns an allocated string.
 */
static char *
value_wanted(const struct cmd *c, const char *name, size_t len)
{
	const char *texts[2] = { c->usage, help_find(c->name) }, *p, *m;
	struct buf b = BUF_INIT;
	size_t i, n;

	for (i = 0; i < 2 && b.len == 0; i++) {
		for (p = texts[i]; p != NULL && (p = strstr(p, "--")) != NULL;
		    p += 2)
			if (strncmp(p + 2, name, len) == 0 && p[2 + len] == ' ')
				break;
		if (p == NULL)
			continue;
		m = p + 3 + len;
		n = strcspn(m, " ]\n");
		if (value_words(m, n) != NULL)
			buf_adds(&b, value_words(m, n));
		else if (n > 0 && memchr(m, '|', n) != NULL &&
		    strspn(m, "abcdefghijklmnopqrstuvwxyz|") == n)
			choice_words(&b, m, n);
	}
	if (b.len == 0)
		buf_adds(&b, "a value");
	return buf_detach(&b);
}

/* "--name requires WHAT" for command c, as its cause. */
static int
missing_value(const struct cmd *c, const char *name, size_t len,
    char **cause)
{
	char *what = len == 5 && strncmp(name, "cache", 5) == 0 ?
	    xstrdup("a file") : value_wanted(c, name, len);

	ts_fail(cause, "%s: --%.*s requires %s", c->name, (int)len, name,
	    what);
	free(what);
	return -1;
}

/*
 * Is argv[i] "-X" or "-XVALUE" for a short form the command has?  Then
 * the long name and the value glued to it (NULL: none) are set.
 */
static int
short_opt(const struct cmd *c, const char *arg, const char **name,
    size_t *len, const char **glued)
{
	if (arg[0] != '-' || arg[1] == '\0' || arg[1] == '-' ||
	    !opt_short(c->options, (unsigned char)arg[1], name, len))
		return 0;
	*glued = arg[2] != '\0' ? arg + 2 : NULL;
	return 1;
}

/* Split argv[1..] into positional arguments and options. */
static int
parse_args(const struct cmd *c, int argc, char **argv, struct cmd_args *a,
    int *bad, char **cause)
{
	int i, kind, only_pos = 0;
	const char *eq, *name;
	size_t cap = 0, len;

	a->argv = xcalloc((size_t)argc + 1, sizeof *a->argv);
	for (i = 1; i < argc; i++) {
		if (!only_pos && short_opt(c, argv[i], &name, &len, &eq))
			eq = eq != NULL ? eq - 1 : NULL; /* as "--name=VALUE" */
		else if (only_pos || strncmp(argv[i], "--", 2) != 0 ||
		    argv[i][2] == '\0') {
			if (!only_pos && strcmp(argv[i], "--") == 0) {
				only_pos = 1;
				continue;
			}
			a->argv[a->argc++] = argv[i];
			continue;
		} else {
			name = argv[i] + 2;
			eq = strchr(name, '=');
			len = eq != NULL ? (size_t)(eq - name) : strlen(name);
		}
		kind = opt_kind(c->options, name, len);
		*bad = i;
		if (kind == 0)
			return ts_fail(cause, "%s: unknown option '--%.*s'",
			    c->name, (int)len, name);
		a->opts = xgrow(a->opts, &cap, a->nopts + 1, sizeof *a->opts);
		a->opts[a->nopts].name = xstrndup(name, len);
		if (kind == 1 && eq != NULL)
			return ts_fail(cause, "%s: option '--%.*s' takes no value",
			    c->name, (int)len, name);
		if (kind == 1)
			a->opts[a->nopts].value = "";
		else if (eq != NULL)
			a->opts[a->nopts].value = eq + 1;
		else if (i + 1 < argc)
			a->opts[a->nopts].value = argv[++i];
		else {
			a->nopts++;
			return missing_value(c, name, len, cause);
		}
		a->nopts++;
	}
	*bad = -1;
	return 0;
}

static void
free_args(struct cmd_args *a)
{
	size_t i;

	for (i = 0; i < a->nopts; i++)
		free((char *)a->opts[i].name);
	free(a->opts);
	free(a->argv);
}

/* Byte offset of word `w` of `line` as cmd_split() would find it, roughly. */
static int
word_col(const char *line, int w)
{
	const char *p = line;
	int i;

	for (i = 0;; i++) {
		while (*p == ' ' || *p == '\t' || *p == ':')
			p++;
		if (i == w || *p == '\0')
			return (int)(p - line);
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
	}
}

/* COMMAND ... --help or -h (before a "--"): the user wants its help. */
static int
wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	}
	return 0;
}

/* The usage line, then the help text of command c. */
static int
print_help(struct cmd_ctx *ctx, const struct cmd *c)
{
	const char *text = help_find(c->name);
	char *usage = cmd_usage_line(c);

	fprintf(ctx->out, "%s\n", usage);
	free(usage);
	if (text != NULL) {
		/* the text's first line is the summary: the usage says it */
		fputc('\n', ctx->out);
		fputs(text, ctx->out);
	}
	return CMD_OK;
}

/*
 * Messages name the command they come from ("diagnose: no job 'x'"),
 * unless they already do or are a usage line or a FILE:LINE report.
 */
static void
name_cause(const char *name, char **cause)
{
	size_t n = strlen(name);
	char *s;

	if (cause == NULL || *cause == NULL || (strncmp(*cause, name, n) == 0 &&
	    (*cause)[n] == ':') || strncmp(*cause, "usage:", 6) == 0 ||
	    strcmp(name, "source") == 0)	/* FILE:LINE: reports */
		return;
	s = xasprintf("%s: %s", name, *cause);
	free(*cause);
	*cause = s;
}

/* A command a session file may not run: CMD_USAGE with *cause. */
static int
session_refuse(const char *name, char **cause)
{
	ts_fail(cause, "'%s' is not allowed in a session file", name);
	return CMD_USAGE;
}

/* The index of the word that gives --name (or --name=...), or -1. */
static int
opt_word(int argc, char **argv, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strncmp(argv[i], "--", 2) == 0 &&
		    strncmp(argv[i] + 2, name, n) == 0 &&
		    (argv[i][2 + n] == '\0' || argv[i][2 + n] == '='))
			return i;
	return -1;
}

static int
exec_words(struct cmd_ctx *ctx, int argc, char **argv, int *bad_word,
    char **cause)
{
	const struct cmd *c;
	struct cmd_args a;
	const char *cache;
	char *usage;
	int rc;

	*bad_word = -1;
	if (argc == 0)
		return CMD_OK;
	if ((c = cmd_find(argv[0])) == NULL) {
		*bad_word = 0;
		ts_fail(cause, "unknown command '%s' (try 'help')", argv[0]);
		return CMD_USAGE;
	}
	if (ctx->session && !(c->flags & CMD_SESSION)) {
		*bad_word = 0;
		return session_refuse(c->name, cause);
	}
	if (wants_help(argc, argv))
		return print_help(ctx, c);
	memset(&a, 0, sizeof a);
	a.name = c->name;
	if (parse_args(c, argc, argv, &a, bad_word, cause) != 0) {
		free_args(&a);
		name_cause(c->name, cause);
		return CMD_USAGE;
	}
	if (a.argc < c->min_args || (c->max_args >= 0 && a.argc > c->max_args)) {
		usage = cmd_usage_line(c);
		ts_fail(cause, "%s", usage);
		free(usage);
		free_args(&a);
		return CMD_USAGE;
	}
	if (ctx->session && (cache = cmd_opt(&a, "cache")) != NULL) {
		*bad_word = opt_word(argc, argv, "cache");
		ts_fail(cause, "--cache is not allowed in a session file");
		free_args(&a);
		return CMD_USAGE;
	}
	if ((cache = cmd_opt(&a, "cache")) != NULL && *cache == '\0') {
		ts_fail(cause, "%s: --cache wants a file name, not an empty one",
		    c->name);
		free_args(&a);
		return CMD_USAGE;
	}
	if (cache != NULL)
		cmd_ctx_set_cache_path(ctx, cache);
	rc = c->handler(ctx, &a, cause);
	if (rc != CMD_OK && cause != NULL && *cause == NULL)
		ts_fail(cause, "%s failed", c->name);
	else if (rc != CMD_OK)
		name_cause(c->name, cause);
	free_args(&a);
	return rc;
}

int
cmd_exec_argv(struct cmd_ctx *ctx, int argc, char **argv, char **cause)
{
	int bad;

	ctx->err_col = -1;
	return exec_words(ctx, argc, argv, &bad, cause);
}

int
cmd_exec_line(struct cmd_ctx *ctx, const char *line, char **cause)
{
	char **argv;
	int argc, rc, bad, col = -1;

	ctx->err_col = -1;
	if (cmd_split(line, &argc, &argv, &col, cause) != 0) {
		ctx->err_col = col;
		return CMD_USAGE;
	}
	rc = exec_words(ctx, argc, argv, &bad, cause);
	if (bad >= 0)
		ctx->err_col = word_col(line, bad);
	cmd_free_argv(argc, argv);
	return rc;
}

void
cmd_say(FILE *out, const char *msg)
{
	const char *nl;
	char *line;

	fputs("trainscope: ", out);
	for (;;) {
		nl = strchr(msg, '\n');
		line = xstrndup(msg, nl != NULL ? (size_t)(nl - msg) :
		    strlen(msg));
		canvas_fput(out, line);
		free(line);
		fputc('\n', out);
		if (nl == NULL)
			break;
		msg = nl + 1;
	}
}

const char *
cmd_msg_beside(const char *line, const char *msg)
{
	size_t n;

	line += strspn(line, " \t");
	n = strcspn(line, " \t");
	if (n > 0 && strncmp(msg, line, n) == 0 && msg[n] == ':' &&
	    msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

/* Longest line of a file of commands; a longer one is no command. */
#define SOURCE_LINE_MAX 65536

/* "FILE:LINE: message", then the line and a caret under the bad word. */
static char *
source_error(const char *path, long lineno, const char *line, int col,
    const char *msg)
{
	struct buf b;
	size_t len = strcspn(line, "\r\n");
	int i;

	/* a command that failed as a whole: its last word is the likely one */
	if (col < 0) {
		size_t end = len;

		while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
			end--;
		while (end > 0 && line[end - 1] != ' ' && line[end - 1] != '\t')
			end--;
		col = (int)end;
	}
	buf_init(&b);
	buf_addf(&b, "%s:%ld: %s", path, lineno, msg);
	/* nested sources already carry their own FILE:LINE and caret */
	if (col >= 0 && strchr(msg, '\n') == NULL) {
		buf_addf(&b, "\n  %.*s\n  ", (int)len, line);
		for (i = 0; i < col && (size_t)i < len; i++)
			buf_addc(&b, line[i] == '\t' ? '\t' : ' ');
		buf_addc(&b, '^');
	}
	return buf_detach(&b);
}

/*
 * Where a line of a command file stops being text: the offset of its
 * first control byte (other than tab, CR, LF), invalid or overlong UTF-8
 * or C1 control (U+0080..U+009F), else -1.  Such a line is never run nor
 * echoed: a terminal could take its bytes for escape sequences.
 */
static long
binary_at(const unsigned char *s, size_t n)
{
	size_t i = 0, len;
	uint32_t cp;

	while (i < n) {
		if ((len = ts_utf8_decode(s + i, n - i, &cp)) == 0 ||
		    (cp < 0x20 && cp != '\t' && cp != '\r' && cp != '\n') ||
		    (cp >= 0x7f && cp <= 0x9f))
			return (long)i;
		i += len;
	}
	return -1;
}

/*
 * Is line `lineno` of `path` text?  CMD_OK, or CMD_USAGE with *cause
 * naming the line and the byte (never showing them).
 */
static int
source_text(const char *path, long lineno, const char *line, size_t n,
    char **cause)
{
	long at;

	if (n > SOURCE_LINE_MAX) {
		ts_fail(cause, "%s:%ld: a line of more than %d bytes (not a "
		    "file of commands?)", path, lineno, SOURCE_LINE_MAX);
		return CMD_USAGE;
	}
	if (memchr(line, '\0', n) != NULL) {
		ts_fail(cause, "%s:%ld: NUL byte in command line (not a file "
		    "of commands?)", path, lineno);
		return CMD_USAGE;
	}
	if ((at = binary_at((const unsigned char *)line, n)) >= 0) {
		ts_fail(cause, "%s:%ld: byte %ld is not text (not a file of "
		    "commands?)", path, lineno, at + 1);
		return CMD_USAGE;
	}
	return CMD_OK;
}

/*
 * Read one line of f into b, its newline kept, but no more than
 * SOURCE_LINE_MAX + 1 bytes of it (/dev/zero or a file of one huge line
 * is not read whole).  Returns its length, or -1 at the end of the file.
 */
static ssize_t
source_line(FILE *f, struct buf *b)
{
	int ch;

	buf_reset(b);
	while (b->len <= SOURCE_LINE_MAX && (ch = getc(f)) != EOF) {
		buf_addc(b, (char)ch);
		if (ch == '\n')
			break;
	}
	return b->len > 0 ? (ssize_t)b->len : -1;
}

/*
 * Does line `lineno` of session file `path` name a command a session may
 * run, without --cache?  CMD_OK (also for a line that does not split or
 * names no command: running it says what is wrong), or CMD_USAGE with
 * *cause naming the line and the word.
 */
static int
source_allowed(const char *path, long lineno, const char *line, char **cause)
{
	const struct cmd *c;
	char **argv, *why = NULL;
	int argc, col = -1, w = -1, rc = CMD_OK;

	if (cmd_split(line, &argc, &argv, &col, &why) != 0) {
		free(why);
		return CMD_OK;
	}
	if (argc > 0 && (c = cmd_find(argv[0])) != NULL) {
		if (!(c->flags & CMD_SESSION))
			w = 0;
		else
			w = opt_word(argc, argv, "cache");
	}
	if (w >= 0) {
		if (w == 0)
			session_refuse(argv[0], &why);
		else
			why = xstrdup("--cache is not allowed in a session file");
		*cause = source_error(path, lineno, line, word_col(line, w), why);
		free(why);
		rc = CMD_USAGE;
	}
	cmd_free_argv(argc, argv);
	return rc;
}

/*
 * A file that can be read twice is checked whole before any of its
 * commands runs: a binary file, or one that asks for a command a session
 * may not run, is refused, not half run.
 */
static int
source_check(FILE *f, const char *path, char **cause)
{
	struct buf line = BUF_INIT;
	char *refused = NULL;	/* the first command refused */
	ssize_t n;
	long lineno = 0;
	int rc = CMD_OK;

	if (fseek(f, 0, SEEK_SET) != 0)
		return CMD_OK;		/* a pipe: checked line by line */
	/* a file that is no text is said to be that first */
	while (rc == CMD_OK && (n = source_line(f, &line)) != -1) {
		rc = source_text(path, ++lineno, buf_str(&line), (size_t)n,
		    cause);
		if (rc == CMD_OK && refused == NULL)
			source_allowed(path, lineno, buf_str(&line), &refused);
	}
	if (rc == CMD_OK && refused != NULL) {
		*cause = refused;
		refused = NULL;
		rc = CMD_USAGE;
	}
	free(refused);
	buf_release(&line);
	clearerr(f);
	if (rc == CMD_OK && fseek(f, 0, SEEK_SET) != 0) {
		ts_fail(cause, "cannot read '%s' again: %s", path,
		    strerror(errno));
		rc = CMD_FAIL;
	}
	return rc;
}

int
cmd_source_file(struct cmd_ctx *ctx, const char *path, char **cause)
{
	FILE *f;
	struct buf b = BUF_INIT;
	char *inner = NULL, *msg;
	const char *line;
	ssize_t n;
	long lineno = 0;
	int rc, failed = CMD_OK;

	if (ctx->depth >= 16) {
		ts_fail(cause, "%s: files source each other too deeply", path);
		return CMD_FAIL;
	}
	if ((f = fopen(path, "r")) == NULL) {
		ts_fail(cause, "cannot open '%s': %s", path, strerror(errno));
		return CMD_FAIL;
	}
	ctx->depth++;
	ctx->session++;
	rc = source_check(f, path, cause);
	while (rc == CMD_OK && !ctx->quit && (n = source_line(f, &b)) != -1) {
		line = buf_str(&b);
		if ((rc = source_text(path, ++lineno, line, (size_t)n,
		    cause)) != CMD_OK)
			break;
		rc = cmd_exec_line(ctx, line, &inner);
		if (rc != CMD_OK) {
			msg = source_error(path, lineno, line, ctx->err_col,
			    inner != NULL ? inner : "failed");
			if (ctx->keep_going) {
				cmd_say(ctx->err, msg);
				free(msg);
				failed = rc;
				rc = CMD_OK;
			} else {
				free(*cause);
				*cause = msg;
			}
		}
		free(inner);
		inner = NULL;
	}
	if (rc == CMD_OK && ferror(f)) {
		ts_fail(cause, "cannot read '%s': %s", path, strerror(errno));
		rc = CMD_FAIL;
	}
	if (rc == CMD_OK && failed != CMD_OK) {
		ts_fail(cause, "%s: some commands failed", path);
		rc = failed;
	}
	ctx->session--;
	ctx->depth--;
	buf_release(&b);
	fclose(f);
	return rc;
}

const char *
cmd_opt(const struct cmd_args *args, const char *name)
{
	size_t i;

	for (i = args->nopts; i-- > 0;)
		if (strcmp(args->opts[i].name, name) == 0)
			return args->opts[i].value;
	return NULL;
}

int
cmd_has_opt(const struct cmd_args *args, const char *name)
{
	return cmd_opt(args, name) != NULL;
}

size_t
cmd_opt_all(const struct cmd_args *args, const char *name, const char ***vals)
{
	size_t i, n = 0;

	*vals = xcalloc(args->nopts + 1, sizeof **vals);
	for (i = 0; i < args->nopts; i++)
		if (strcmp(args->opts[i].name, name) == 0)
			(*vals)[n++] = args->opts[i].value;
	return n;
}

int
cmd_opt_long(const struct cmd_args *args, const char *name, long def,
    long min, long max, long *out, char **cause)
{
	const char *v = cmd_opt(args, name);
	long x;

	if (v == NULL) {
		*out = def;
		return 0;
	}
	if (ts_parse_long(v, &x) != 0 || x < min || x > max)
		return ts_fail(cause, "%s: --%s wants a whole number from %ld "
		    "to %ld, not '%s'", args->name, name, min, max, v);
	*out = x;
	return 0;
}
