/*
 * cmd.h -- the command table and the one entry point that runs a command.
 *
 * Every way of asking trainscope to do something -- a subcommand on the
 * shell command line, `-c CMD` in batch mode, a line of a replayed session
 * file, the `:` prompt and key bindings of the screen -- becomes a command
 * line that goes through cmd_exec_line() or cmd_exec_argv().  The table in
 * cmd.c says, for each command, its usage, how many positional arguments it
 * takes, which --options it accepts and the handler; the dispatcher checks
 * all of that so handlers never do.
 */
#ifndef TS_CMD_H
#define TS_CMD_H

#include <stddef.h>
#include <stdio.h>

struct buf;
struct cache;
struct view;

/* Handler and dispatcher results; also the process exit status. */
enum {
	CMD_OK = 0,
	CMD_FAIL = 1,	/* the command ran and failed */
	CMD_USAGE = 2	/* the command line itself is wrong */
};

/*
 * What a command runs against.  `out` receives results, `err` receives
 * warnings and progress; both are borrowed.  The cache is opened on first
 * use by cmd_ctx_cache() and closed by cmd_ctx_release().
 */
struct cmd_ctx {
	FILE *out;
	FILE *err;
	char *cache_path;	/* NULL: the default path */
	struct cache *cache;
	int progress;		/* nonzero: draw progress on err */
	int quiet;		/* -q: no summary line on err */
	int depth;		/* nesting of `source` */
	int err_col;		/* byte offset of the bad word, or -1 */
	int quit;		/* set by a command that ends the session */
	struct view *view;	/* the investigation (view/cmd-view.c), or NULL */
	int keep_going;		/* `source` goes on after a failed line */
	int threads;		/* --threads: threads for indexing (0: one
				   per core available) */
	int session;		/* a session file runs: CMD_SESSION commands only */
	int mouse;		/* the screen takes the mouse (1, the default)
				   or leaves it to the terminal (0) */
	const char *config;	/* --config FILE for the screen; NULL: the
				   default file */
	int no_config;		/* --no-config: none at all */
	/* messages held back from err while the screen is to open
	   (cmd_ctx_hold()): each without its "trainscope: " */
	char **held;
	size_t nheld;
	FILE *held_err;		/* err as it was while holding, or NULL */
	/* what job_model_kept() read of the job the next `open` opens,
	   taken there (job_model_ref_kept()), or NULL */
	struct job_kept *kept;
};

/* One --option value as given on the command line. */
struct cmd_optval {
	const char *name;	/* without the leading "--" */
	const char *value;	/* "" for a flag */
};

/* A parsed command line: positional arguments and options (all borrowed). */
struct cmd_args {
	const char *name;	/* the command's name */
	int argc;
	char **argv;
	size_t nopts;
	struct cmd_optval *opts;
};

typedef int cmd_fn(struct cmd_ctx *ctx, struct cmd_args *args, char **cause);

struct cmd {
	const char *name;
	const char *usage;	/* arguments only, e.g. "[--top N] JOB" */
	int min_args;
	int max_args;		/* -1: no limit */
	const char *summary;	/* the first line of help/<name>.txt */
	cmd_fn *handler;
	/*
	 * Options the command accepts, separated by spaces: "top=" takes a
	 * value, "healthy" is a flag, "context=/C" may also be given as -C N
	 * (or -CN).  Every command also accepts --cache=FILE.
	 */
	const char *options;
	int flags;		/* CMD_SESSION */
};

/*
 * The command only changes the view (what `save` writes): it may stand in
 * a session file.  A session file is outside input, like a log: commands
 * without this flag (they write files or change the cache) are refused
 * there, and so is --cache.
 */
#define CMD_SESSION 0x1

void cmd_ctx_init(struct cmd_ctx *ctx, FILE *out, FILE *err);
/* Close the cache and free what the context owns. */
void cmd_ctx_release(struct cmd_ctx *ctx);
/* Free the investigation of the context (view/cmd-view.c). */
void cmd_ctx_view_free(struct cmd_ctx *ctx);
/*
 * Hold back the messages written to ctx->err that start "trainscope: "
 * (warnings, which the screen about to open would hide) until
 * cmd_ctx_unhold(): each is kept in ctx->held[], without that prefix;
 * everything else (progress, the index's summary) goes on to the real
 * err as it comes.  Holding again while held does nothing.
 */
void cmd_ctx_hold(struct cmd_ctx *ctx);
/* ctx->err back as it was (nothing if not held); ctx->held[] stays. */
void cmd_ctx_unhold(struct cmd_ctx *ctx);
/* Keep msg ("trainscope: " before it or not) as a held message. */
void cmd_ctx_held_add(struct cmd_ctx *ctx, const char *msg);
/* Write the held messages to f, "trainscope: " before each, and forget them. */
void cmd_ctx_held_print(struct cmd_ctx *ctx, FILE *f);
/* Use `path` (copied; NULL = default) as the cache from now on. */
void cmd_ctx_set_cache_path(struct cmd_ctx *ctx, const char *path);
/*
 * Open the cache if it is not open yet and return it in *out (borrowed from
 * the context).  Returns 0, or -1 with *cause set.
 */
int cmd_ctx_cache(struct cmd_ctx *ctx, struct cache **out, char **cause);

/*
 * Open `path` for a command to write (save, export, report), truncated,
 * in *out (the caller fcloses it).  The cache in use, or its -wal, -shm
 * or -journal file, is refused under any name (a symlink or a link to it
 * is the same device and inode) and left as it was.  Returns 0, or -1
 * with *cause.
 */
int cmd_ctx_open_out(struct cmd_ctx *ctx, const char *path, FILE **out,
    char **cause);

/* The table: cmd_table[0 .. cmd_count - 1], sorted by name. */
extern const struct cmd cmd_table[];
extern const size_t cmd_count;
/* Find a command by its exact name ("q" is "quit"), or NULL. */
const struct cmd *cmd_find(const char *name);

/*
 * Split a command line into words: blanks separate words, '...' quotes
 * literally, "..." quotes with backslash escapes (\n, \t, \r and \xHH are
 * those bytes, a backslash before any other character stands for it), a
 * backslash outside quotes escapes the next character, and an unquoted #
 * at the start of a word begins a comment.  A leading ':' is ignored.  On
 * success returns 0 and fills *argv (NULL-terminated, free with
 * cmd_free_argv()) and *argc; on a bad line returns -1 with *cause set and
 * *col at the offending byte.
 */
int cmd_split(const char *line, int *argc, char ***argv, int *col,
    char **cause);
void cmd_free_argv(int argc, char **argv);
/*
 * Add w to b as one word of a command line that cmd_split() reads back
 * as w: as it is when that is safe, else in double quotes with quotes,
 * backslashes, control bytes, C1 controls and bytes that are not UTF-8
 * escaped, so the word is one line of printable text whatever it holds.
 */
void cmd_quote(struct buf *b, const char *w);

/*
 * Run one command line.  Blank lines and comments succeed and do nothing.
 * Returns CMD_OK, CMD_FAIL or CMD_USAGE; on anything but CMD_OK *cause
 * holds a one-line message and ctx->err_col the byte offset of the word at
 * fault when there is one (-1 otherwise).
 */
int cmd_exec_line(struct cmd_ctx *ctx, const char *line, char **cause);
/* Run a command given as words; argv[0] is the command name. */
int cmd_exec_argv(struct cmd_ctx *ctx, int argc, char **argv, char **cause);

/*
 * Write "trainscope: MESSAGE" and a newline to out, each line of the
 * message made inert as the canvas shows text (a file name or a word of
 * a log in a message cannot retitle or clear the terminal).
 */
void cmd_say(FILE *out, const char *msg);

/*
 * The message of a failed command line, to show beside that line: msg
 * without its leading "NAME: " when NAME is the line's first word (the
 * line names the command already).  Points into msg.
 */
const char *cmd_msg_beside(const char *line, const char *msg);

/*
 * Run every line of `path` as a command of a session file: only commands
 * flagged CMD_SESSION, and none with --cache.  A file that can be read
 * twice is checked whole first: a line that is not text or names another
 * command refuses the file before any of it runs.  Stops at the first
 * failure (ctx->keep_going: reports it on ctx->err and goes on) and returns
 * its status, with *cause of the form "PATH:LINE: message".
 */
int cmd_source_file(struct cmd_ctx *ctx, const char *path, char **cause);

/* Option accessors: the last value of --name, or NULL when absent. */
const char *cmd_opt(const struct cmd_args *args, const char *name);
/* Nonzero when --name was given. */
int cmd_has_opt(const struct cmd_args *args, const char *name);
/*
 * Every value of a repeatable option, in order.  Returns how many there
 * are; *vals (allocated, free it; entries borrowed) holds them.
 */
size_t cmd_opt_all(const struct cmd_args *args, const char *name,
    const char ***vals);
/*
 * --name as an integer in [min, max]; `def` when absent.  Returns 0, or -1
 * with *cause set when the value is not such an integer.
 */
int cmd_opt_long(const struct cmd_args *args, const char *name, long def,
    long min, long max, long *out, char **cause);

/* "usage: NAME USAGE" for a command, allocated. */
char *cmd_usage_line(const struct cmd *c);

#endif
