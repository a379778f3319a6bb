/* cmd-t.c -- the command table, the word splitter and the dispatcher. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/help.h"
#include "base/util.h"
#include "tap.h"

static void
test_table(void)
{
	size_t i;
	int sorted = 1, sane = 1;

	for (i = 1; i < cmd_count; i++)
		if (strcmp(cmd_table[i - 1].name, cmd_table[i].name) >= 0)
			sorted = 0;
	ok(sorted, "command table is sorted by name, no duplicates");
	for (i = 0; i < cmd_count; i++) {
		const struct cmd *c = &cmd_table[i];

		if (c->handler == NULL || c->usage == NULL ||
		    c->summary == NULL || c->options == NULL ||
		    c->min_args < 0 ||
		    (c->max_args >= 0 && c->max_args < c->min_args))
			sane = 0;
		if (cmd_find(c->name) != c)
			sane = 0;
	}
	ok(sane, "every entry is complete and cmd_find() finds it");
	ok(cmd_find("no-such-command") == NULL, "cmd_find() misses unknown");
}

static void
test_split(void)
{
	char **argv, *cause = NULL;
	int argc, col = -1;

	ok(cmd_split(":help  'a b'  \"c\\\"d\" e\\ f # comment", &argc, &argv,
	    &col, &cause) == 0, "split succeeds");
	is_int(argc, 4, "four words");
	is_str(argv[0], "help", "leading ':' dropped");
	is_str(argv[1], "a b", "single quotes keep blanks");
	is_str(argv[2], "c\"d", "double quotes honour backslash");
	is_str(argv[3], "e f", "backslash escapes a blank");
	cmd_free_argv(argc, argv);

	ok(cmd_split("x ''", &argc, &argv, &col, &cause) == 0 && argc == 2 &&
	    strcmp(argv[1], "") == 0, "an empty quoted word is kept");
	cmd_free_argv(argc, argv);

	ok(cmd_split("help 'oops", &argc, &argv, &col, &cause) == -1,
	    "unterminated quote fails");
	is_int(col, 5, "column points at the quote");
	is_str(cause, "unterminated single quote", "message");
	free(cause);
	cause = NULL;
}

static void
test_exec(void)
{
	struct cmd_ctx ctx;
	char *cause = NULL, *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cmd_ctx_init(&ctx, out, out);
	is_int(cmd_exec_line(&ctx, "   # only a comment", &cause), CMD_OK,
	    "comment line is a no-op");
	is_int(cmd_exec_line(&ctx, "", &cause), CMD_OK, "blank line is a no-op");

	is_int(cmd_exec_line(&ctx, "frobnicate now", &cause), CMD_USAGE,
	    "unknown command is a usage error");
	is_str(cause, "unknown command 'frobnicate' (try 'help')",
	    "unknown command message");
	is_int(ctx.err_col, 0, "caret at the command word");

	is_int(cmd_exec_line(&ctx, "version extra", &cause), CMD_USAGE,
	    "too many arguments");
	is_str(cause, "usage: version", "arity error prints usage");

	is_int(cmd_exec_line(&ctx, "source", &cause), CMD_USAGE,
	    "too few arguments");
	is_str(cause, "usage: source FILE", "usage from the table");

	is_int(cmd_exec_line(&ctx, "help --bogus", &cause), CMD_USAGE,
	    "unknown option");
	is_str(cause, "help: unknown option '--bogus'", "option message");
	is_int(ctx.err_col, 5, "caret at the option");

	is_int(cmd_exec_line(&ctx, "help --cache", &cause), CMD_USAGE,
	    "--cache needs a value");
	is_str(cause, "help: --cache requires a file", "and says what it wants");
	is_int(cmd_exec_line(&ctx, "index x --job", &cause), CMD_USAGE,
	    "a missing value");
	is_str(cause, "index: --job requires a name", "what the usage names");
	is_int(cmd_exec_line(&ctx, "jobs --format", &cause), CMD_USAGE,
	    "a missing choice");
	is_str(cause, "jobs: --format requires text, tsv or json",
	    "the choices, in words");
	is_int(cmd_exec_line(&ctx, "simulate x --nodes", &cause), CMD_USAGE,
	    "a missing value of an option the usage does not show");
	is_str(cause, "simulate: --nodes requires a number",
	    "what the help text names");
	is_int(cmd_exec_line(&ctx, "lines -C", &cause), CMD_USAGE,
	    "a short option without its value");
	is_str(cause, "lines: --context requires a number", "named long");
	is_int(cmd_exec_line(&ctx, "lines -C 2 -C3 x", &cause), CMD_USAGE,
	    "-C N and -CN are options, not arguments");
	is_str(cause, "lines: give PATH:LINE or --event ID",
	    "only JOB is left as an argument");

	is_int(cmd_exec_line(&ctx, "help help", &cause), CMD_OK, "help help");
	fflush(out);
	ok(strstr(buf, "usage: help [COMMAND|TOPIC]") != NULL,
	    "help shows the usage line");

	is_int(cmd_exec_line(&ctx, "help --cache=/nonexistent/x.db version",
	    &cause), CMD_OK, "--cache=VALUE accepted by every command");
	is_str(ctx.cache_path, "/nonexistent/x.db", "--cache sets the path");

	free(cause);
	cmd_ctx_release(&ctx);
	fclose(out);
	free(buf);
}

static void
test_options(void)
{
	static char *words[] = { "help", "--cache", "a", "--cache=b", "x", NULL };
	struct cmd_ctx ctx;
	char *cause = NULL;
	FILE *out = fopen("/dev/null", "w");

	cmd_ctx_init(&ctx, out, out);
	is_int(cmd_exec_argv(&ctx, 5, words, &cause), CMD_FAIL,
	    "options parsed; 'help x' then fails");
	is_str(ctx.cache_path, "b", "the last --cache wins");
	is_str(cause, "help: no help for 'x' (try 'help')", "help for unknown topic");
	free(cause);
	cmd_ctx_release(&ctx);
	fclose(out);
}

static void
test_source(void)
{
	char path[] = "/tmp/cmd-t.XXXXXX";
	struct cmd_ctx ctx;
	char *cause = NULL, *want;
	FILE *f, *out = fopen("/dev/null", "w");
	int fd = mkstemp(path);

	f = fdopen(fd, "w");
	fputs("# a session\nversion\n\nhelp help\nversion 1 2\nversion\n", f);
	fclose(f);
	cmd_ctx_init(&ctx, out, out);
	is_int(cmd_source_file(&ctx, path, &cause), CMD_USAGE,
	    "source stops at the bad line");
	want = xasprintf("%s:5: usage: version\n  version 1 2\n            ^",
	    path);
	is_str(cause, want, "error comes back as FILE:LINE: message, the line "
	    "and a caret");
	free(want);
	free(cause);
	cause = NULL;
	is_int(cmd_source_file(&ctx, "/nonexistent/session", &cause), CMD_FAIL,
	    "missing file fails");
	ok(cause != NULL && strstr(cause, "cannot open '/nonexistent/session'"),
	    "missing file is named");
	free(cause);
	unlink(path);
	cmd_ctx_release(&ctx);
	fclose(out);
}

/* The whole of a file, NUL-terminated, or NULL. */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b = BUF_INIT;
	char tmp[4096];
	size_t n;

	if (f == NULL)
		return NULL;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	return buf_detach(&b);
}

/* "no-flows" as roff writes --no-flows: "\-\-no\-flows". */
static char *
roff_option(const char *name)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "\\-\\-");
	for (; *name != '\0'; name++)
		if (*name == '-')
			buf_adds(&b, "\\-");
		else
			buf_addc(&b, *name);
	return buf_detach(&b);
}

/*
 * Every option of every command in the table is in the command's usage
 * or help text, and in the man page (as roff writes it, "\-\-name").
 */
static void
test_documented(void)
{
	const char *src = getenv("TS_SRCDIR");
	char *path, *man, *opt, *want;
	const char *p, *help;
	size_t i, n;
	int in_help = 1, in_man = 1;

	path = xasprintf("%s/help/trainscope.1", src != NULL ? src : ".");
	man = slurp(path);
	ok(man != NULL, "the man page can be read");
	for (i = 0; i < cmd_count && man != NULL; i++) {
		const struct cmd *c = &cmd_table[i];

		help = help_find(c->name);
		for (p = c->options; *p != '\0'; p += n) {
			p += strspn(p, " ");
			n = strcspn(p, " ");
			if (n == 0)
				break;
			opt = xstrndup(p, strcspn(p, " =/"));
			want = xasprintf("--%s", opt);
			if (strstr(c->usage, want) == NULL && (help == NULL ||
			    strstr(help, want) == NULL)) {
				printf("# %s %s: not in its help\n", c->name, want);
				in_help = 0;
			}
			free(want);
			want = roff_option(opt);
			if (strstr(man, want) == NULL) {
				printf("# %s --%s: not in the man page\n", c->name,
				    opt);
				in_man = 0;
			}
			free(want);
			free(opt);
		}
	}
	ok(in_help, "every option is in its command's usage or help");
	ok(in_man, "every option is in the man page");
	free(man);
	free(path);
}

int
main(void)
{
	test_table();
	test_split();
	test_exec();
	test_options();
	test_source();
	test_documented();
	return done_testing();
}
