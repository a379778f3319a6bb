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

/* cmd_split() of cmd_quote() of w gives back w as one word. */
static int
quote_back(const char *w)
{
	struct buf b = BUF_INIT;
	char **argv, *cause = NULL;
	int argc, col, same;

	cmd_quote(&b, w);
	same = strchr(buf_str(&b), '\n') == NULL &&
	    cmd_split(buf_str(&b), &argc, &argv, &col, &cause) == 0 &&
	    argc == 1 && strcmp(argv[0], w) == 0;
	if (!same)
		printf("# '%s' quoted as '%s'\n", w, buf_str(&b));
	else
		cmd_free_argv(argc, argv);
	free(cause);
	buf_release(&b);
	return same;
}

static void
test_quote(void)
{
	static const char *const words[] = {
		"plain", "", "a b", "y\nsimulate x\n#", "#x", "q\"uote", "'",
		"back\\slash", "tab\there", "cr\r", "\033]0;t\007", "\x7f",
		"caf\xc3\xa9", "bad\xff\xfe utf8", "c1 \xc2\x9b" "2J", "x|y",
		"\\x41", "\\n", ":", "::x",
	};
	struct buf b = BUF_INIT;
	char **argv, *cause = NULL;
	size_t i;
	int argc, col, all = 1;

	for (i = 0; i < TS_NELEM(words); i++)
		all &= quote_back(words[i]);
	ok(all, "every word, control bytes and bad UTF-8 too, is quoted as "
	    "one line that splits back to it");
	cmd_quote(&b, "y\nsimulate --nodes 2 DIR\n# \"q\" |x");
	is_str(buf_str(&b), "\"y\\nsimulate --nodes 2 DIR\\n# \\\"q\\\" |x\"",
	    "a newline is written \\n");
	buf_reset(&b);
	cmd_quote(&b, "\033[2J\xff");
	is_str(buf_str(&b), "\"\\x1b[2J\\xff\"", "other bytes \\xHH");
	buf_release(&b);
	ok(cmd_split("open \"a\\tb\\x41\\q\" 'c\\n'", &argc, &argv, &col,
	    &cause) == 0 && argc == 3 && strcmp(argv[1], "a\tbAq") == 0 &&
	    strcmp(argv[2], "c\\n") == 0,
	    "double quotes read \\t and \\xHH, single quotes are literal");
	cmd_free_argv(argc, argv);
	ok(cmd_split("open \"a\\x00b\"", &argc, &argv, &col, &cause) == -1 &&
	    col == 7, "\\x00 is refused, the caret on it");
	free(cause);
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
	fputs("# a session\nquit 1\n", f);
	fclose(f);
	cmd_ctx_init(&ctx, out, out);
	is_int(cmd_source_file(&ctx, path, &cause), CMD_USAGE,
	    "source stops at the bad line");
	want = xasprintf("%s:2: usage: quit\n  quit 1\n       ^", path);
	is_str(cause, want, "error comes back as FILE:LINE: message, the line "
	    "and a caret");
	free(want);
	free(cause);
	cause = NULL;
	is_int(ctx.session, 0, "the session is over with the file");

	f = fopen(path, "w");
	fputs("# a session\nquit\n\n  help --cache x help\n", f);
	fclose(f);
	is_int(cmd_source_file(&ctx, path, &cause), CMD_USAGE,
	    "a session file may not ask for help");
	want = xasprintf("%s:4: 'help' is not allowed in a session file\n"
	    "    help --cache x help\n    ^", path);
	is_str(cause, want, "it says so at FILE:LINE, the command marked");
	ok(!ctx.quit, "and nothing of the file ran (its quit neither)");
	ok(ctx.cache_path == NULL, "nor its --cache");
	free(want);
	free(cause);
	cause = NULL;

	f = fopen(path, "w");
	fputs("quit --cache x\n", f);
	fclose(f);
	is_int(cmd_source_file(&ctx, path, &cause), CMD_USAGE,
	    "--cache is refused in a session file");
	want = xasprintf("%s:1: --cache is not allowed in a session file\n"
	    "  quit --cache x\n       ^", path);
	is_str(cause, want, "with the option marked");
	free(want);
	free(cause);
	cause = NULL;

	ctx.session = 1;
	is_int(cmd_exec_line(&ctx, "save x.ts", &cause), CMD_USAGE,
	    "a line of a file read as it comes (a pipe) is checked too");
	is_str(cause, "'save' is not allowed in a session file", "and refused");
	is_int(cmd_exec_line(&ctx, "quit --cache=y", &cause), CMD_USAGE,
	    "--cache=FILE too");
	ok(ctx.cache_path == NULL && !ctx.quit, "nothing of either ran");
	ctx.session = 0;
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
	test_quote();
	test_exec();
	test_options();
	test_source();
	test_documented();
	return done_testing();
}
