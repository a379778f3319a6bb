/*
 * main.c -- the trainscope program: global options, then every request
 * becomes a command line for the table in cmd.c.
 *
 *	trainscope COMMAND [ARGS...]		one command, as a subcommand
 *	trainscope -n -c CMD [-c CMD]... [PATH...]	batch mode
 *	trainscope --replay FILE [--export OUT] [--report OUT] [PATH...]
 *						run a saved session
 *	trainscope JOBDIR			index, then diagnose
 *	trainscope JOB | open JOB		the screen on a job of the cache
 *
 * This file is the only part of the core that prints to the terminal or
 * chooses an exit status.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/cache.h"
#include "db/jobdb.h"
#include "db/logdb.h"
#include "diag/diag.h"
#include "diag/jobmodel.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "cli/help.h"
#include "view/canvas.h"
#include "view/view.h"
#include "logs/scan.h"
#include "ui/ui.h"
#include "base/util.h"

struct options {
	const char **cmds;
	size_t ncmds, cap;
	const char *replay;
	const char *export;	/* --export OUT: the final view, headless */
	const char *report;	/* --report OUT: the report of the final view */
	const char *format;	/* --format F of --export and --report */
	const char *width;
	int keep_going;
	const char *cache;
	const char *threads;
	const char *config;	/* --config FILE */
	int no_config;
	int batch;
	int quiet;
	int follow;		/* --follow: the screen follows the JOBDIR */
};

static void
report(struct cmd_ctx *ctx, const char *line, const char *cause)
{
	struct buf b = BUF_INIT;
	int i;

	buf_adds(&b, cause != NULL ? cause : "failed");
	if (line != NULL && ctx->err_col >= 0) {
		buf_addf(&b, "\n  %s\n  ", line);
		for (i = 0; i < ctx->err_col && line[i] != '\0'; i++)
			buf_addc(&b, line[i] == '\t' ? '\t' : ' ');
		buf_addc(&b, '^');
	}
	cmd_say(stderr, buf_str(&b));
	buf_release(&b);
}

static void
usage_short(FILE *f)
{
	fputs("usage: trainscope [--cache FILE] [--threads N] COMMAND "
	    "[ARGS...]\n"
	    "       trainscope [--cache FILE] -n -c CMD [-c CMD]... [PATH...]\n"
	    "       trainscope [--cache FILE] --replay FILE [--export OUT] "
	    "[--report OUT] [PATH...]\n"
	    "Try 'trainscope --help' or 'trainscope help'.\n", f);
}

/* What the global options that take a value want, by their code. */
static const struct {
	int code;
	const char *name, *wants;
} values[] = {
	{ 'C', "--cache", "a file" },
	{ 'c', "-c", "a command" },
	{ 'r', "--replay", "a file of commands" },
	{ 'E', "--export", "a file (or -)" },
	{ 'R', "--report", "a file (or -)" },
	{ 'F', "--format", "a format (text, md, json or tsv)" },
	{ 'W', "--width", "a number" },
	{ 'T', "--threads", "a number" },
	{ 'O', "--config", "a file" },
};

/* "trainscope: --cache requires a file", or the option is unknown. */
static void
bad_option(int code, const char *arg)
{
	size_t i;

	for (i = 0; i < TS_NELEM(values); i++)
		if (code != 0 && values[i].code == code) {
			fprintf(stderr, "trainscope: %s requires %s\n",
			    strcmp(arg, "--command") == 0 ? "--command" :
			    values[i].name, values[i].wants);
			return;
		}
	if (code != 0 && strncmp(arg, "--", 2) == 0 && strchr(arg, '=') != NULL)
		fprintf(stderr, "trainscope: option '%.*s' takes no value\n",
		    (int)strcspn(arg, "="), arg);
	else if (code != 0)
		fprintf(stderr, "trainscope: unknown option '-%c'\n", code);
	else
		fprintf(stderr, "trainscope: bad option '%s'\n", arg);
}

static int
parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "cache", required_argument, NULL, 'C' },
		{ "command", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "no-screen", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "replay", required_argument, NULL, 'r' },
		{ "export", required_argument, NULL, 'E' },
		{ "follow", no_argument, NULL, 'L' },
		{ "report", required_argument, NULL, 'R' },
		{ "format", required_argument, NULL, 'F' },
		{ "width", required_argument, NULL, 'W' },
		{ "keep-going", no_argument, NULL, 'K' },
		{ "threads", required_argument, NULL, 'T' },
		{ "version", no_argument, NULL, 'V' },
		{ "config", required_argument, NULL, 'O' },
		{ "no-config", no_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 }
	};
	const char *text;
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+c:hnqV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			o->cache = optarg;
			break;
		case 'c':
			o->cmds = xgrow(o->cmds, &o->cap, o->ncmds + 1,
			    sizeof *o->cmds);
			o->cmds[o->ncmds++] = optarg;
			o->batch = 1;
			break;
		case 'h':	/* from the usage line: the summary is its title */
			text = help_find("usage");
			fputs(text + strcspn(text, "\n") + (text[0] != '\0'),
			    stdout);
			exit(CMD_OK);
		case 'n':
			o->batch = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'r':
			o->replay = optarg;
			break;
		case 'E':
			o->export = optarg;
			o->batch = 1;
			break;
		case 'R':
			o->report = optarg;
			o->batch = 1;
			break;
		case 'F':
			o->format = optarg;
			break;
		case 'W':
			o->width = optarg;
			break;
		case 'K':
			o->keep_going = 1;
			break;
		case 'L':
			o->follow = 1;
			break;
		case 'T':
			o->threads = optarg;
			break;
		case 'O':
			o->config = optarg;
			break;
		case 'X':
			o->no_config = 1;
			break;
		case 'V':	/* the same text as the version command */
			printf("trainscope %s (cache schema %d)\n",
			    PACKAGE_VERSION, cache_schema_version());
			exit(CMD_OK);
		default:
			bad_option(optopt, argv[optind - 1]);
			usage_short(stderr);
			return -1;
		}
	}
	return 0;
}

/* --threads N: 0 (one per core available) to 64; -1 said, when not. */
static int
threads_arg(const char *s)
{
	char *end;
	long n;

	n = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || n < 0 || n > 64) {
		fprintf(stderr, "trainscope: --threads wants a number from 0 "
		    "to 64, not '%s'\n", s);
		return -1;
	}
	return (int)n;
}

/* The messages held for the screen, printed: it is not opening. */
static void
unhold(struct cmd_ctx *ctx)
{
	cmd_ctx_unhold(ctx);
	cmd_ctx_held_print(ctx, ctx->err);
}

/* Index the PATHs given after the options, if the build can index. */
static int
index_paths(struct cmd_ctx *ctx, int argc, char **argv)
{
	char **words, *cause = NULL;
	int i, rc;

	if (argc == 0)
		return CMD_OK;
	if (cmd_find("index") == NULL) {
		fprintf(stderr, "trainscope: this build cannot index '%s' yet\n",
		    argv[0]);
		return CMD_FAIL;
	}
	words = xcalloc((size_t)argc + 2, sizeof *words);
	words[0] = (char *)"index";
	for (i = 0; i < argc; i++)
		words[i + 1] = argv[i];
	rc = cmd_exec_argv(ctx, argc + 1, words, &cause);
	if (rc != CMD_OK)
		report(ctx, NULL, cause);
	free(cause);
	free(words);
	return rc;
}

/* Whether the screen can open: both ends on a terminal. */
static int
on_terminal(void)
{
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

/*
 * Whether directory dir is a job of the cache whose index was finished
 * (resuming it and reading its kept diagnosis back take a moment).
 */
static int
indexed_job(struct cmd_ctx *ctx, const char *dir)
{
	struct cache *c;
	struct job_ref ref;
	char *cause = NULL;
	int rc = 0;

	if (cmd_ctx_cache(ctx, &c, &cause) == 0 &&
	    jobdb_find(c, dir, &ref, &cause) == 1) {
		rc = ref.has_logs && ref.pending == 0;
		jobdb_release(&ref);
	}
	free(cause);
	return rc;
}

/* Below this much text a first diagnosis is quick enough to wait for. */
#define BG_DIAGNOSE_BYTES (64u << 20)

/*
 * Whether job NAME of the cache should be diagnosed behind the screen:
 * it is large and no diagnosis of it is kept, so opening it at once
 * would leave the terminal blank for seconds.  Then the fault library's
 * errors are said to ctx->err here (the background cannot say them).
 * 0 also when that cannot be told.  A kept diagnosis read here is left
 * in ctx->kept for the `open` that follows.
 */
static int
diagnose_behind(struct cmd_ctx *ctx, const char *name)
{
	struct job_ref ref;
	struct cache *c;
	char *cause = NULL;
	uint64_t bytes = 0;
	size_t i;
	int rc = 0;

	if (cmd_ctx_cache(ctx, &c, &cause) == 0 &&
	    jobdb_find(c, name, &ref, &cause) == 1) {
		for (i = 0; i < ref.nfiles; i++)
			bytes += ref.files[i].bytes;
		job_kept_free(ctx->kept);
		ctx->kept = NULL;
		rc = bytes >= BG_DIAGNOSE_BYTES &&
		    !job_model_kept(c, &ref, 0, ctx->err, "open", &ctx->kept);
		jobdb_release(&ref);
	}
	free(cause);
	return rc;
}

/*
 * `trainscope JOBDIR`: index the directory, then open the screen on it,
 * or print its diagnosis when the output is not a terminal.  On a
 * terminal a directory not indexed yet (or any with --follow) is indexed
 * and diagnosed in the background of the screen, which opens at once.
 */
static int
index_and_diagnose(struct cmd_ctx *ctx, int argc, char **argv, int follow)
{
	char *words[3], *name, *cause = NULL;
	struct stat sb;
	int rc, dir;

	dir = argc == 1 && stat(argv[0], &sb) == 0 && S_ISDIR(sb.st_mode);
	if (dir && on_terminal() && cmd_find("index") != NULL &&
	    (follow || !indexed_job(ctx, argv[0]))) {
		name = scan_job_name(argv[0]);
		rc = ui_run_live(ctx, argv[0], name, follow);
		free(name);
		return rc;
	}
	if (on_terminal())	/* the screen shows them (ui_run()) */
		cmd_ctx_hold(ctx);
	if ((rc = index_paths(ctx, argc, argv)) != CMD_OK) {
		unhold(ctx);
		return rc;
	}
	if (on_terminal()) {
		name = dir ? scan_job_name(argv[0]) : NULL;
		rc = name != NULL && diagnose_behind(ctx, name) ?
		    ui_run_live(ctx, NULL, name, 0) : ui_run(ctx, name);
		free(name);
		return rc;
	}
	if (!dir || cmd_find("diagnose") == NULL)
		return CMD_OK;
	name = scan_job_name(argv[0]);
	words[0] = (char *)"diagnose";
	words[1] = name;
	words[2] = NULL;
	fputc('\n', ctx->out);
	rc = cmd_exec_argv(ctx, 2, words, &cause);
	if (rc != CMD_OK)
		report(ctx, NULL, cause);
	free(cause);
	free(name);
	return rc;
}

/*
 * `trainscope open JOB` and `trainscope JOB`: the job is open; the
 * screen shows it, or the output is no terminal and that is said.
 */
static int
open_screen(struct cmd_ctx *ctx, const char *job)
{
	if (on_terminal())
		return ui_run(ctx, NULL);
	fputs("trainscope: open: no terminal to open the screen on (standard "
	    "input and output must be one); as text: trainscope view events ",
	    stderr);
	canvas_fput(stderr, job);
	fputc('\n', stderr);
	return CMD_FAIL;
}

/*
 * Whether NAME is a job of the cache (a cache not made yet is not
 * made by asking).
 */
static int
cached_job(struct cmd_ctx *ctx, const char *name)
{
	struct job_ref ref;
	struct cache *c;
	char *path, *cause = NULL;
	int rc;

	path = ctx->cache_path != NULL ? xstrdup(ctx->cache_path) :
	    cache_default_path();
	rc = access(path, F_OK);
	free(path);
	if (rc != 0 || cmd_ctx_cache(ctx, &c, &cause) != 0) {
		free(cause);
		return 0;
	}
	if ((rc = jobdb_find(c, name, &ref, &cause)) > 0)
		jobdb_release(&ref);
	free(cause);
	return rc > 0;
}

/* `trainscope JOB`: `open JOB`, then the screen. */
static int
open_cached(struct cmd_ctx *ctx, char *job)
{
	char *words[] = { (char *)"open", (char *)"--", job, NULL };
	char *cause = NULL;
	int rc;

	if (!on_terminal())
		return open_screen(ctx, job);
	if (diagnose_behind(ctx, job))
		return ui_run_live(ctx, NULL, job, 0);
	cmd_ctx_hold(ctx);	/* the screen shows them (ui_run()) */
	if ((rc = cmd_exec_argv(ctx, 3, words, &cause)) != CMD_OK) {
		unhold(ctx);
		report(ctx, NULL, cause);
		free(cause);
		return rc;
	}
	return open_screen(ctx, job);
}

/*
 * `export` or `report` of the view a replay left, to OUT: what the user
 * asked for on the command line (a session file may write nothing).
 */
static int
write_out(struct cmd_ctx *ctx, const char *cmd, const char *out,
    const char *width, const char *format)
{
	char *words[7], *cause = NULL;
	int n = 0, rc;

	words[n++] = (char *)cmd;
	if (width != NULL) {
		words[n++] = (char *)"--width";
		words[n++] = (char *)width;
	}
	if (format != NULL) {
		words[n++] = (char *)"--format";
		words[n++] = (char *)format;
	}
	words[n++] = (char *)"--";
	words[n++] = (char *)out;
	words[n] = NULL;
	if ((rc = cmd_exec_argv(ctx, n, words, &cause)) != CMD_OK)
		report(ctx, NULL, cause);
	free(cause);
	return rc;
}

/*
 * --format goes to --export and to --report; given both, each takes it
 * only when it is one of its own (md is the report's, json and tsv the
 * export's).
 */
static const char *
export_format(const struct options *o)
{
	if (o->format == NULL || (o->report != NULL &&
	    strcmp(o->format, "md") == 0))
		return NULL;
	return o->format;
}

static const char *
report_format(const struct options *o)
{
	if (o->format == NULL || (o->export != NULL &&
	    (strcmp(o->format, "json") == 0 || strcmp(o->format, "tsv") == 0)))
		return NULL;
	return o->format;
}

/*
 * The options that only mean something with --replay: 0, or -1 after
 * saying which one came without it.
 */
static int
replay_only(const struct options *o)
{
	const char *opt = o->export != NULL ? "--export" : o->report != NULL ?
	    "--report" : o->format != NULL ? "--format" : o->width != NULL ?
	    "--width" : o->keep_going ? "--keep-going" : NULL;

	if (o->replay != NULL || opt == NULL)
		return 0;
	fprintf(stderr, "trainscope: %s is only for --replay FILE (in batch "
	    "mode: -c 'export OUT', -c 'report OUT')\n", opt);
	usage_short(stderr);
	return -1;
}

static int
run_batch(struct cmd_ctx *ctx, struct options *o, int argc, char **argv)
{
	char *cause = NULL;
	size_t i;
	int rc;

	if ((rc = index_paths(ctx, argc, argv)) != CMD_OK)
		return rc;
	if (o->replay != NULL) {
		ctx->keep_going = o->keep_going;
		rc = cmd_source_file(ctx, o->replay, &cause);
		if (rc != CMD_OK) {
			report(ctx, NULL, cause);
			free(cause);
			return rc;
		}
	}
	if (o->export != NULL && (rc = write_out(ctx, "export", o->export,
	    o->width, export_format(o))) != CMD_OK)
		return rc;
	if (o->report != NULL && (rc = write_out(ctx, "report", o->report,
	    NULL, report_format(o))) != CMD_OK)
		return rc;
	for (i = 0; i < o->ncmds && !ctx->quit; i++) {
		rc = cmd_exec_line(ctx, o->cmds[i], &cause);
		if (rc != CMD_OK) {
			report(ctx, o->cmds[i], cause);
			free(cause);
			return rc;
		}
	}
	return CMD_OK;
}

/*
 * Started with standard input, output or error closed (cron, a CI
 * runner, `cmd <&-`), the first file opened would take its number: a log
 * read as commands, a report written over the cache.  /dev/null stands
 * in for each closed one.
 */
static void
fill_stdio(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			_exit(CMD_FAIL);
}

int
main(int argc, char **argv)
{
	struct options o;
	struct cmd_ctx ctx;
	char *cause = NULL;
	int rc;

	fill_stdio();
	memset(&o, 0, sizeof o);
	if (parse_options(argc, argv, &o) != 0 || replay_only(&o) != 0)
		return CMD_USAGE;
	if (o.cache != NULL && *o.cache == '\0') {
		fputs("trainscope: --cache wants a file name, not an empty "
		    "one\n", stderr);
		return CMD_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (o.follow && (o.batch || o.replay != NULL || argc != 1 ||
	    cmd_find(argv[0]) != NULL)) {
		fputs("trainscope: --follow wants one job directory "
		    "(trainscope --follow JOBDIR)\n", stderr);
		free(o.cmds);
		return CMD_USAGE;
	}

	cmd_ctx_init(&ctx, stdout, stderr);
	ctx.progress = !o.quiet && isatty(STDERR_FILENO);
	ctx.quiet = o.quiet;
	if (o.cache != NULL)
		cmd_ctx_set_cache_path(&ctx, o.cache);
	ctx.config = o.config;
	ctx.no_config = o.no_config;
	if (o.threads != NULL && (ctx.threads = threads_arg(o.threads)) < 0)
		return CMD_USAGE;
	diag_set_threads(ctx.threads);

	if (!o.batch && argc > 0 && cmd_find(argv[0]) != NULL) {
		rc = cmd_exec_argv(&ctx, argc, argv, &cause);
		if (rc != CMD_OK)
			report(&ctx, NULL, cause);
		else if (argc == 1 && strcmp(argv[0], "demo") == 0 &&
		    on_terminal())
			rc = ui_run(&ctx, DEMO_JOB);
		else if (strcmp(argv[0], "open") == 0 && ctx.view != NULL &&
		    ctx.view->job != NULL)	/* not its --help */
			rc = open_screen(&ctx, ctx.view->job);
	} else if (o.batch || (o.replay != NULL && !on_terminal())) {
		rc = run_batch(&ctx, &o, argc, argv);
	} else if (o.replay != NULL) {
		/* the session replayed, then the screen where it left off */
		if ((rc = run_batch(&ctx, &o, argc, argv)) == CMD_OK)
			rc = ui_run(&ctx, NULL);
	} else if (argc == 1 && strchr(argv[0], '/') == NULL &&
	    access(argv[0], F_OK) != 0 && cached_job(&ctx, argv[0])) {
		rc = open_cached(&ctx, argv[0]);
	} else if (argc > 0 && strchr(argv[0], '/') == NULL &&
	    access(argv[0], F_OK) != 0) {
		fprintf(stderr, "trainscope: unknown command '%s' (try "
		    "'trainscope help')\n", argv[0]);
		rc = CMD_USAGE;
	} else if (argc > 0) {
		rc = index_and_diagnose(&ctx, argc, argv, o.follow);
	} else if (on_terminal()) {
		rc = ui_run(&ctx, NULL);
	} else {
		usage_short(stderr);
		rc = CMD_USAGE;
	}
	if (fflush(stdout) != 0 && rc == CMD_OK) {
		fprintf(stderr, "trainscope: cannot write output\n");
		rc = CMD_FAIL;
	}
	free(cause);
	free(o.cmds);
	cmd_ctx_release(&ctx);
	return rc;
}
