/*
 * screen.c -- the interactive screen (see ui.h).
 *
 * The screen is a painter: every frame is view_draw() of the
 * investigation into a canvas, copied cell by cell onto the terminal with
 * the colours of its style classes.  Keys are looked up in the key table
 * (src/view/keys.c) and run as command lines, so a key and a typed command do
 * the same.  The prompt is GNU readline through its callback interface:
 * ncurses reads the keys and hands them to readline one byte at a time,
 * and readline's redisplay draws into the status line.  Readline never
 * touches the terminal itself: its terminal preparation is switched off,
 * its output goes nowhere, and the variables the screen relies on are
 * set after the user's inputrc is read.
 *
 * Keys that are waiting are all handed to readline before the next frame,
 * and the terminal brackets pastes, so a paste of any size is one frame
 * and arrives as text, never as keys.
 *
 * Beyond the key table: Ctrl-Z stops the screen as a shell's suspend
 * would (raw mode keeps the terminal from sending the signal), Home and
 * End are also read from the raw sequences a terminal sends whatever its
 * TERM says, and a key bound to nothing says so.  The mouse (SGR reports
 * through ncurses) moves, selects rows and switches panes by running
 * command lines too (view_click()), until `mouse off` gives it back to
 * the terminal.  The config file (src/cli/userconf.c) is read before the
 * screen starts: its binds go over the key table, its mouse and colours
 * are applied here.
 *
 * Output of commands that print (help, filters, diagnose, ...) opens in a
 * pager over the pane; errors show on the status line with the bad word
 * marked.  A terminal that cannot hold the screen (unknown to terminfo,
 * or unable to move the cursor) gets plain text: the view, then a
 * command a line.
 */
#include "config.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curses.h>
#include <readline/history.h>
#include <readline/readline.h>

#include "view/canvas.h"
#include "cli/cmd.h"
#include "cli/userconf.h"
#include "view/keys.h"
#include "base/util.h"
#include "view/view.h"
#include "ui/ui.h"

/* last: its capability macros (lines, columns, ...) would hit names above */
#include <term.h>

static struct screen {
	struct cmd_ctx *ctx;
	SCREEN *term;
	struct canvas cv;
	int active;		/* curses is on */
	int ncolors;		/* 0, 8 or 256 */
	int ascii;
	int mouse;		/* the mouse is the screen's */
	struct userconf conf;	/* the config file */
	int sel_pair;		/* the cursor row's colour pair, 0: reverse */
	/* the prompt */
	int prompting;
	struct buf queue;	/* bytes for readline: queue.s[qhead ..] */
	size_t qhead;
	char *entered;		/* the line readline gave back */
	int got_line;
	char *history;		/* the history file, NULL: none */
	/* the pager over the pane */
	char **out;
	size_t nout, outtop;
	char *matches;		/* completions offered, shown over the prompt */
	/* the last error: the line and the bad byte */
	char *err_line;
	int err_col;
	int had_model;		/* a model was on the screen */
} S;

#define PASTE_BEGIN "\033[200~"
#define PASTE_END "\033[201~"
#define PASTE_MODE_ON "\033[?2004h"
#define PASTE_MODE_OFF "\033[?2004l"

static volatile sig_atomic_t got_term;

static void
on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

/* ---- colours ---- */

struct look {
	short fg256, fg8;
	attr_t attr;		/* with colours */
	attr_t mono;		/* without */
};

static const struct look looks[CS_COUNT] = {
	[CS_NORMAL] = { -1, -1, 0, 0 },
	[CS_DIM] = { 244, -1, A_DIM, A_DIM },
	[CS_BOLD] = { -1, -1, A_BOLD, A_BOLD },
	[CS_HEADER] = { 15, 7, A_BOLD | A_REVERSE, A_BOLD | A_REVERSE },
	[CS_STATUS] = { -1, -1, A_REVERSE, A_REVERSE },
	[CS_WARN] = { 178, COLOR_YELLOW, 0, A_BOLD },
	[CS_ERROR] = { 196, COLOR_RED, A_BOLD, A_BOLD },
	[CS_GOOD] = { 71, COLOR_GREEN, 0, 0 },
	[CS_HEAT0] = { 240, -1, A_DIM, A_DIM },
	[CS_HEAT0 + 1] = { 101, COLOR_YELLOW, 0, 0 },
	[CS_HEAT0 + 2] = { 143, COLOR_YELLOW, 0, 0 },
	[CS_HEAT0 + 3] = { 178, COLOR_YELLOW, 0, 0 },
	[CS_HEAT0 + 4] = { 208, COLOR_YELLOW, A_BOLD, 0 },
	[CS_HEAT0 + 5] = { 202, COLOR_RED, 0, A_BOLD },
	[CS_HEAT0 + 6] = { 160, COLOR_RED, A_BOLD, A_BOLD },
	[CS_HEAT0 + 7] = { 196, COLOR_RED, A_BOLD, A_BOLD },
	[CS_CAT_NETWORK] = { 39, COLOR_BLUE, 0, 0 },
	[CS_CAT_GPU] = { 170, COLOR_MAGENTA, 0, 0 },
	[CS_CAT_MEMORY] = { 203, COLOR_RED, 0, 0 },
	[CS_CAT_TIMEOUT] = { 178, COLOR_YELLOW, 0, 0 },
	[CS_CAT_DATA] = { 44, COLOR_CYAN, 0, 0 },
	[CS_CAT_STORAGE] = { 71, COLOR_GREEN, 0, 0 },
	[CS_CAT_CONFIG] = { 250, COLOR_WHITE, 0, 0 },
	[CS_CAT_OTHER] = { -1, -1, 0, 0 },
	[CS_VAR] = { 37, COLOR_CYAN, 0, A_UNDERLINE },
};

/* A config file's colour, as this terminal can show it (-1: default). */
static short
conf_colour(int c)
{
	return c >= 0 && c < COLORS && c < S.ncolors ? (short)c : -1;
}

/* The config file's colours over the classes' own. */
static void
colours_conf(void)
{
	const struct userconf_color *cc;
	size_t i;

	for (i = 0; i < S.conf.ncolors; i++) {
		cc = &S.conf.colors_set[i];
		if (cc->cls == USERCONF_SELECTED) {
			S.sel_pair = CS_COUNT + 1;
			init_pair(CS_COUNT + 1, conf_colour(cc->fg),
			    conf_colour(cc->bg));
		} else if (cc->cls >= 0 && cc->cls < CS_COUNT)
			init_pair((short)(cc->cls + 1), conf_colour(cc->fg),
			    conf_colour(cc->bg));
	}
}

/*
 * Colours: 256 or 8 as the terminal has them, fewer when the config file
 * says so (set colors), none with NO_COLOR or "set colors none".
 */
static void
colours_init(void)
{
	const char *nc = getenv("NO_COLOR");
	short i;

	S.ncolors = 0;
	if ((nc != NULL && nc[0] != '\0') || !has_colors() ||
	    S.conf.colors == 0)
		return;
	start_color();
	use_default_colors();
	S.ncolors = COLORS >= 256 && S.conf.colors != 8 ? 256 : 8;
	for (i = 0; i < CS_COUNT; i++) {
		short fg = S.ncolors == 256 ? looks[i].fg256 : looks[i].fg8;

		if (i == CS_HEADER)
			init_pair(i + 1, S.ncolors == 256 ? 15 : COLOR_WHITE,
			    S.ncolors == 256 ? 24 : COLOR_BLUE);
		else
			init_pair(i + 1, fg, -1);
	}
	colours_conf();
}

static attr_t
cell_attr(const struct canvas_cell *c)
{
	attr_t a;
	int st = c->style < CS_COUNT ? c->style : CS_NORMAL;

	if (S.ncolors == 0)
		a = looks[st].mono;
	else {
		a = looks[st].attr | COLOR_PAIR(st + 1);
		if (st == CS_HEADER)
			a &= ~(attr_t)A_REVERSE;
	}
	if ((c->attr & CA_SELECTED) && S.sel_pair != 0 && S.ncolors != 0)
		a = (a & ~(attr_t)(A_COLOR | A_REVERSE)) | COLOR_PAIR(S.sel_pair);
	else if (c->attr & CA_SELECTED)
		a ^= A_REVERSE;
	if (c->attr & CA_MATCH)
		a |= A_UNDERLINE | A_BOLD;
	return a;
}

/* ---- painting ---- */

static void
paint_row(const struct canvas *cv, int crow, int y)
{
	int x;

	move(y, 0);
	for (x = 0; x < cv->width && x < COLS; x++) {
		const struct canvas_cell *c = &cv->cells[(size_t)crow *
		    cv->width + x];

		if (c->s[0] == '\0')
			continue;	/* the right half of a wide character */
		attrset(cell_attr(c));
		mvaddstr(y, x, c->s);
	}
	attrset(A_NORMAL);
}

/* A command's output over the pane, and on the status line its keys. */
static void
draw_pager(void)
{
	struct canvas cv;
	int y, r, rows = LINES - 3;
	size_t i, last;
	char st[128];

	canvas_init(&cv, COLS, S.ascii);
	for (y = 0; y < rows; y++) {
		r = canvas_add_row(&cv);
		i = S.outtop + (size_t)y;
		if (i < S.nout)
			canvas_puts(&cv, r, 0, CS_NORMAL, S.out[i]);
	}
	for (y = 0; y < rows; y++)
		paint_row(&cv, y, y + 2);
	canvas_reset(&cv);
	r = canvas_add_row(&cv);
	last = S.outtop + (size_t)(rows > 0 ? rows : 1);
	snprintf(st, sizeof st, "output %zu-%zu of %zu   j/k Space scroll  "
	    "q or Esc closes", S.nout > 0 ? S.outtop + 1 : 0,
	    last < S.nout ? last : S.nout, S.nout);
	canvas_puts(&cv, r, 0, CS_STATUS, st);
	canvas_set_style(&cv, r, 0, COLS, CS_STATUS);
	paint_row(&cv, r, LINES - 1);
	canvas_release(&cv);
}

/*
 * The completions offered, above the prompt: as many rows as they need,
 * up to a third of the screen (the last row says how many more).
 */
static void
draw_matches(void)
{
	struct canvas mc;
	const char *p = S.matches, *e;
	int maxrows = LINES / 3 > 1 ? LINES / 3 : 1, x = 0, r, y;

	canvas_init(&mc, COLS, S.ascii);
	r = canvas_add_row(&mc);
	for (; *p != '\0'; p = e + strspn(e, " ")) {
		int w;

		e = p + strcspn(p, " ");
		w = canvas_text_width(p, (size_t)(e - p));
		if (x > 0 && x + w > COLS) {
			if (mc.nrows == maxrows) {
				canvas_puts(&mc, r, COLS - 6 > x ? x : COLS - 6,
				    CS_STATUS, "...");
				break;
			}
			r = canvas_add_row(&mc);
			x = 0;
		}
		canvas_put_clip(&mc, r, x, COLS, CS_STATUS, p, (size_t)(e - p));
		x += w + 2;
	}
	for (y = 0; y < mc.nrows; y++) {
		canvas_set_style(&mc, y, 0, COLS, CS_STATUS);
		paint_row(&mc, y, LINES - 1 - mc.nrows + y);
	}
	canvas_release(&mc);
}

/*
 * Where the prompt's text starts on the screen so that the cursor, at
 * byte `point`, fits in `room` columns: walked back from the cursor a
 * character at a time, never more than a screen's worth of bytes, so a
 * line of any length (a paste) costs the same to draw.
 */
static size_t
prompt_start(const char *buf, size_t point, int room)
{
	size_t start = point, prev, most = (size_t)room * 4 + 16;
	int w = 0;

	while (start > 0 && point - start < most) {
		prev = start - 1;
		while (prev > 0 && start - prev < 4 &&
		    ((unsigned char)buf[prev] & 0xc0) == 0x80)
			prev--;
		w += canvas_text_width(buf + prev, start - prev);
		if (w > room)
			break;
		start = prev;
	}
	return start;
}

/* The status line while the prompt is open: the part around the cursor. */
static void
draw_prompt(int y)
{
	struct canvas cv;
	const char *buf = rl_line_buffer != NULL ? rl_line_buffer : "";
	size_t end = rl_end > 0 ? (size_t)rl_end : 0, point, start, len;
	int r, x, cur;

	point = rl_point > 0 && (size_t)rl_point <= end ? (size_t)rl_point : 0;
	start = prompt_start(buf, point, COLS - 3);
	len = end - start;
	if (len > (size_t)COLS * 4 + 16)
		len = (size_t)COLS * 4 + 16;
	canvas_init(&cv, COLS, S.ascii);
	r = canvas_add_row(&cv);
	x = start == 0 ? canvas_puts(&cv, r, 0, CS_BOLD, ":") : 0;
	cur = x + canvas_text_width(buf + start, point - start);
	canvas_put(&cv, r, x, CS_NORMAL, buf + start, len);
	move(y, 0);
	clrtoeol();
	paint_row(&cv, r, y);
	move(y, cur < COLS ? cur : COLS - 1);
	canvas_release(&cv);
}

/* The failed line with the bad word marked, then the message. */
static void
draw_error(struct view *v, int y)
{
	struct canvas cv;
	const char *msg = v->message;
	int r, x = 0, col;

	canvas_init(&cv, COLS, S.ascii);
	r = canvas_add_row(&cv);
	if (S.err_line != NULL) {
		size_t len = strlen(S.err_line), end;

		col = S.err_col >= 0 && (size_t)S.err_col < len ? S.err_col :
		    (int)len;
		x = canvas_put(&cv, r, 0, CS_NORMAL, S.err_line, (size_t)col);
		for (end = (size_t)col; end < len && S.err_line[end] != ' ';
		    end++)
			;
		x = canvas_put(&cv, r, x, CS_ERROR, S.err_line + col,
		    end - (size_t)col);
		canvas_add_attr(&cv, r, x - (int)(end - (size_t)col), x,
		    CA_MATCH);
		x = canvas_put(&cv, r, x, CS_NORMAL, S.err_line + end,
		    len - end);
		x = canvas_puts(&cv, r, x, CS_NORMAL, ": ");
		msg = cmd_msg_beside(S.err_line, msg);
	}
	canvas_put_clip(&cv, r, x, COLS, CS_ERROR, msg, strlen(msg));
	move(y, 0);
	clrtoeol();
	paint_row(&cv, r, y);
	canvas_release(&cv);
}

static void
draw(void)
{
	struct view *v = S.ctx->view;
	int y, err = v->message != NULL && S.err_line != NULL;
	char *msg = NULL;

	if (err) {
		msg = v->message;
		v->message = NULL;
	}
	view_draw(v, &S.cv, COLS, LINES);
	if (err)
		v->message = msg;
	erase();
	for (y = 0; y < S.cv.nrows && y < LINES; y++)
		paint_row(&S.cv, y, y);
	if (S.nout > 0)
		draw_pager();
	if (S.prompting) {
		curs_set(1);
		if (S.matches != NULL && LINES > 2)
			draw_matches();
		draw_prompt(LINES - 1);
	} else {
		curs_set(0);
		if (err)
			draw_error(v, LINES - 1);
		move(LINES - 1, COLS - 1);
	}
	refresh();
}

/* ---- readline ---- */

static int
rl_getc_queue(FILE *f)
{
	(void)f;
	if (S.qhead >= S.queue.len)
		return EOF;
	return (unsigned char)S.queue.s[S.qhead++];
}

static int
rl_input_waiting(void)
{
	return S.qhead < S.queue.len;
}

/*
 * Readline's redisplay draws nothing: the main loop draws the prompt once
 * the keys that were waiting are all read (a paste is one frame, not one
 * a byte).
 */
static void
rl_draw(void)
{
}

static void
rl_no_prep(int meta)
{
	(void)meta;
}

static void
rl_no_deprep(void)
{
}

static void
on_line(char *line)
{
	S.entered = line;
	S.got_line = 1;
}

static char **match_list;
static size_t match_n;

static char *
match_next(const char *text, int state)
{
	static size_t i;

	(void)text;
	if (state == 0)
		i = 0;
	return i < match_n ? xstrdup(match_list[i++]) : NULL;
}

static void
add_match(const char *s, const char *text)
{
	if (strncmp(s, text, strlen(text)) != 0)
		return;
	match_list = xreallocarray(match_list, match_n + 1,
	    sizeof *match_list);
	match_list[match_n++] = xstrdup(s);
}

/* Commands whose argument is a file: completed as paths. */
static int
takes_path(const char *cmd)
{
	static const char *const cmds[] = { "index", "save", "export",
	    "report", "source" };
	size_t i;

	for (i = 0; i < TS_NELEM(cmds); i++)
		if (strcmp(cmd, cmds[i]) == 0)
			return 1;
	return 0;
}

static char **
complete(const char *text, int start, int end)
{
	char **words = NULL, **m;
	size_t i, n;

	(void)end;
	rl_attempted_completion_over = 1;
	for (i = 0; i < match_n; i++)
		free(match_list[i]);
	match_n = 0;
	if (start == 0 || strspn(rl_line_buffer, " ") == (size_t)start) {
		for (i = 0; i < cmd_count; i++)
			add_match(cmd_table[i].name, text);
	} else {
		/* the command is the line's first word */
		const char *c = rl_line_buffer + strspn(rl_line_buffer, " ");
		char *cmd = xstrndup(c, strcspn(c, " "));

		if (takes_path(cmd) && text[0] != '-') {
			/* readline's own: a directory gets its slash */
			free(cmd);
			return rl_completion_matches(text,
			    rl_filename_completion_function);
		}
		n = view_complete(S.ctx->view, cmd, text, &words);
		free(cmd);
		for (i = 0; i < n; i++) {
			add_match(words[i], text);
			free(words[i]);
		}
		free(words);
	}
	m = rl_completion_matches(text, match_next);
	return m;
}

/* Several completions: list them on the status line's pager. */
static void
show_matches(char **matches, int n, int maxlen)
{
	struct buf b;
	int i;

	(void)maxlen;
	buf_init(&b);
	for (i = 1; i <= n && b.len < 2000; i++)
		buf_addf(&b, "%s  ", matches[i]);
	free(S.matches);
	S.matches = buf_detach(&b);
}

static char *
history_path(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *dir, *p;

	if (state != NULL && state[0] == '/')
		dir = xasprintf("%s/trainscope", state);
	else if (home != NULL && home[0] != '\0')
		dir = xasprintf("%s/.local/state/trainscope", home);
	else
		return NULL;
	for (p = dir + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		free(dir);
		return NULL;
	}
	p = xasprintf("%s/history", dir);
	free(dir);
	return p;
}

static void
readline_init(void)
{
	static FILE *devnull;

	rl_readline_name = "trainscope";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_prep_term_function = rl_no_prep;
	rl_deprep_term_function = rl_no_deprep;
	rl_getc_function = rl_getc_queue;
	rl_input_available_hook = rl_input_waiting;
	rl_redisplay_function = rl_draw;
	rl_attempted_completion_function = complete;
	/* a word is what lies between blanks: node=node-001 is one */
	rl_completer_word_break_characters = (char *)" \t";
	rl_completion_display_matches_hook = show_matches;
	if (devnull == NULL)
		devnull = fopen("/dev/null", "w");
	rl_outstream = devnull;
	rl_initialize();	/* reads the user's inputrc */
	/* what the screen relies on, whatever the inputrc says */
	rl_variable_bind("horizontal-scroll-mode", "on");
	/* the screen turns the terminal's paste brackets on (paste_mode()) */
	rl_variable_bind("enable-bracketed-paste", "on");
	rl_variable_bind("bell-style", "none");
	rl_variable_bind("page-completions", "off");
	rl_variable_bind("completion-query-items", "0");
	rl_variable_bind("show-all-if-ambiguous", "on");
	rl_variable_bind("echo-control-characters", "off");
	rl_variable_bind("colored-stats", "off");
	rl_variable_bind("colored-completion-prefix", "off");
	using_history();
	stifle_history(1000);
	if ((S.history = history_path()) != NULL &&
	    read_history(S.history) != 0 && write_history(S.history) != 0) {
		free(S.history);
		S.history = NULL;
	}
}

static void
queue_bytes(const char *s, size_t n)
{
	if (S.qhead >= S.queue.len) {
		buf_reset(&S.queue);
		S.qhead = 0;
	}
	buf_add(&S.queue, s, n);
}

static void
prompt_open(const char *text)
{
	S.prompting = 1;
	S.got_line = 0;
	buf_reset(&S.queue);
	S.qhead = 0;
	rl_callback_handler_install("", on_line);
	rl_replace_line(text, 0);
	rl_point = rl_end;
}

static void
prompt_close(void)
{
	rl_callback_handler_remove();
	S.prompting = 0;
	free(S.matches);
	S.matches = NULL;
}

/* ---- running lines ---- */

static void
pager_free(void)
{
	size_t i;

	for (i = 0; i < S.nout; i++)
		free(S.out[i]);
	free(S.out);
	S.out = NULL;
	S.nout = S.outtop = 0;
}

static void
pager_set(const char *text, size_t len)
{
	const char *p = text, *nl, *end = text + len;

	pager_free();
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		S.out = xreallocarray(S.out, S.nout + 1, sizeof *S.out);
		S.out[S.nout++] = xstrndup(p, (size_t)(nl - p));
		p = nl + 1;
	}
}

/*
 * A line with a line break in it (a paste of several lines) is refused
 * whole: only its first line would run, and the rest was meant to.
 */
static int
one_line(const char *line)
{
	if (strpbrk(line, "\n\r") == NULL)
		return 1;
	free(S.ctx->view->message);
	S.ctx->view->message = xstrdup("the line holds a line break (a paste "
	    "of several lines?): run one command at a time");
	free(S.err_line);
	S.err_line = xstrndup(line, strcspn(line, "\n\r"));
	S.err_col = (int)strlen(S.err_line);
	return 0;
}

/* What `copy` left to send (OSC 52): written to the terminal as it is. */
static void
clip_send(struct view *v)
{
	if (v->clip == NULL)
		return;
	fflush(stdout);
	if (fwrite(v->clip, 1, v->nclip, stdout) != v->nclip ||
	    fflush(stdout) != 0) {
		free(v->message);
		v->message = xstrdup("copy: cannot write to the terminal");
	}
	free(v->clip);
	v->clip = NULL;
	v->nclip = 0;
}

static void
run_line(const char *line)
{
	struct cmd_ctx *ctx = S.ctx;
	FILE *out, *saved = ctx->out, *serr = ctx->err;
	char *text = NULL, *cause = NULL;
	size_t len = 0;
	int rc;

	free(S.err_line);
	S.err_line = NULL;
	free(ctx->view->message);
	ctx->view->message = NULL;
	if ((out = open_memstream(&text, &len)) == NULL)
		return;
	ctx->out = out;
	ctx->err = out;
	rc = cmd_exec_line(ctx, line, &cause);
	fclose(out);
	ctx->out = saved;
	ctx->err = serr;
	if (rc != CMD_OK) {
		ctx->view->message = xstrdup(cause != NULL ? cause : "failed");
		S.err_line = xstrdup(line);
		S.err_col = ctx->err_col;
		/* the whole line failed: mark its first word */
		if (S.err_col < 0)
			S.err_col = (int)strspn(line, " ");
	} else if (len > 0)
		pager_set(text, len);
	free(cause);
	free(text);
	clip_send(ctx->view);
}

/*
 * The key table's name of an ncurses key, or NULL.  Home and End under
 * a TERM that is not the terminal's (tmux with TERM=xterm-256color) come
 * as ESC [ 1 ~ and ESC [ 4 ~, which xterm's description calls Find and
 * Select: they are Home and End here, as every terminal means them.
 */
static const char *
key_label(int ch, char *buf)
{
	switch (ch) {
	case KEY_UP: return "Up";
	case KEY_DOWN: return "Down";
	case KEY_LEFT: return "Left";
	case KEY_RIGHT: return "Right";
	case KEY_NPAGE: return "PgDn";
	case KEY_PPAGE: return "PgUp";
	case KEY_HOME: case KEY_FIND: return "Home";
	case KEY_END: case KEY_SELECT: return "End";
	case KEY_ENTER: case '\r': case '\n': return "Enter";
	case KEY_BACKSPACE: case 127: case 8: return "Backspace";
	case '\t': return "Tab";
	case KEY_BTAB: return "S-Tab";
	case ' ': return "Space";
	default:
		if (ch > ' ' && ch < 127) {
			buf[0] = (char)ch;
			buf[1] = '\0';
			return buf;
		}
		if (ch > 0 && ch < 27) {
			snprintf(buf, 8, "C-%c", 'a' + ch - 1);
			return buf;
		}
		if (ch >= KEY_F(1) && ch <= KEY_F(12)) {
			snprintf(buf, 8, "F%d", ch - KEY_F(0));
			return buf;
		}
		return NULL;
	}
}

/*
 * The raw sequences of Home and End that a terminal may send whatever
 * its description says (as htop does): decoded as keys, not dropped.
 */
static void
keys_define(void)
{
	static const char *const home[] = { "\033[H", "\033OH", "\033[1~",
	    "\033[7~" };
	static const char *const end[] = { "\033[F", "\033OF", "\033[4~",
	    "\033[8~" };
	size_t i;

	for (i = 0; i < TS_NELEM(home); i++)
		if (key_defined(home[i]) == 0)
			define_key(home[i], KEY_HOME);
	for (i = 0; i < TS_NELEM(end); i++)
		if (key_defined(end[i]) == 0)
			define_key(end[i], KEY_END);
}

/* A key bound to nothing says so on the status line. */
static void
key_unbound(int ch, const char *label)
{
	struct view *v = S.ctx->view;
	const char *name = label;

	if (name == NULL && (name = keyname(ch)) == NULL)
		name = "?";
	free(S.err_line);
	S.err_line = NULL;
	free(v->message);
	v->message = xasprintf("key '%s' is not bound (? lists the keys)",
	    name);
}

/*
 * Ctrl-Z: the terminal is given back and the job stops as the shell's
 * suspend would stop it (raw mode keeps the terminal from sending the
 * signal); after fg the screen is drawn whole again.
 */
static void
screen_suspend(void)
{
	struct sigaction dfl, old;

	fputs(PASTE_MODE_OFF, stdout);
	fflush(stdout);
	endwin();
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGTSTP, &dfl, &old);
	kill(0, SIGTSTP);
	sigaction(SIGTSTP, &old, NULL);
	/* continued */
	reset_prog_mode();
	fputs(PASTE_MODE_ON, stdout);
	fflush(stdout);
	clearok(curscr, TRUE);
}

/* Let readline read what is queued; run the line it gives back. */
static void
prompt_feed(void)
{
	while (rl_input_waiting() && S.prompting && !S.got_line)
		rl_callback_read_char();
	if (!S.got_line)
		return;
	prompt_close();
	if (S.entered != NULL && S.entered[strspn(S.entered, " ")] != '\0') {
		add_history(S.entered);
		if (S.history != NULL)
			append_history(1, S.history);
		if (one_line(S.entered))
			run_line(S.entered);
	}
	free(S.entered);
	S.entered = NULL;
}

/* Hand an ncurses key to readline as the bytes a terminal sends. */
static void
prompt_key(int ch)
{
	static const struct {
		int key;
		const char *seq;
	} seqs[] = {
		{ KEY_LEFT, "\033[D" }, { KEY_RIGHT, "\033[C" },
		{ KEY_UP, "\033[A" }, { KEY_DOWN, "\033[B" },
		{ KEY_HOME, "\001" }, { KEY_END, "\005" }, { KEY_DC, "\004" },
		{ KEY_FIND, "\001" }, { KEY_SELECT, "\005" },
		{ KEY_BACKSPACE, "\177" }, { KEY_ENTER, "\r" },
	};
	char b;
	size_t i;

	for (i = 0; i < TS_NELEM(seqs); i++)
		if (seqs[i].key == ch) {
			queue_bytes(seqs[i].seq, strlen(seqs[i].seq));
			break;
		}
	if (i == TS_NELEM(seqs)) {
		if (ch <= 0 || ch > 255)
			return;
		b = (char)ch;
		queue_bytes(&b, 1);
	}
	prompt_feed();
}

/*
 * After an Esc at the prompt: a bracketed paste (ESC [200~ ... ESC [201~)
 * is read whole and handed to readline at once, which inserts it as text
 * (a line break in it runs nothing); another escape sequence is dropped.
 * Returns 0 when the Esc was a key of its own (the next key, if any, is
 * put back).
 */
static int
prompt_escape(void)
{
	struct buf seq = BUF_INIT;
	int ch, rc = 1;

	timeout(30);
	if ((ch = getch()) != '[') {
		if (ch != ERR)
			ungetch(ch);
		rc = 0;
		goto out;
	}
	buf_adds(&seq, "\033[");
	while (seq.len < 16 && (ch = getch()) != ERR && ch < 256) {
		buf_addc(&seq, (char)ch);
		if (ch >= 0x40 && ch <= 0x7e)
			break;
	}
	if (strcmp(buf_str(&seq), PASTE_BEGIN) != 0)
		goto out;
	/* the whole paste: the terminal sends it at once */
	timeout(1000);
	while ((ch = getch()) != ERR) {
		if (ch > 255)
			continue;
		buf_addc(&seq, (char)ch);
		if (seq.len >= sizeof PASTE_BEGIN - 1 + sizeof PASTE_END - 1 &&
		    memcmp(seq.s + seq.len -
		    (sizeof PASTE_END - 1), PASTE_END, sizeof PASTE_END - 1) == 0)
			break;
	}
	if (ch == ERR)		/* its end never came: close it */
		buf_adds(&seq, PASTE_END);
	queue_bytes(seq.s, seq.len);
	prompt_feed();
out:
	buf_release(&seq);
	timeout(250);
	return rc;
}

/* A key at the prompt: Ctrl-C (and Esc in emacs mode) closes it. */
static void
prompt_input(int ch)
{
	if (ch == 27 && prompt_escape())
		return;
	if (ch == 3 || (ch == 27 && rl_editing_mode == 1))
		prompt_close();
	else
		prompt_key(ch);
}

/*
 * Every key already waiting goes to the prompt before the screen is
 * drawn again: typing ahead or a paste the terminal does not bracket
 * costs one frame, not one a key.
 */
static void
prompt_drain(void)
{
	int ch;

	timeout(0);
	while (S.prompting && (ch = getch()) != ERR)
		if (ch != KEY_RESIZE)
			prompt_input(ch);
	timeout(250);
}

/*
 * After an Esc outside the prompt: the rest of an escape sequence the
 * terminal description did not know (Home and End under another TERM
 * arrive as ESC [ 1 ~ ...) is read and dropped, so that its '4' does not
 * switch panes.
 */
static void
swallow_escape(void)
{
	int ch, n = 0;

	timeout(30);
	ch = getch();
	if (ch == '[' || ch == 'O')
		/* parameters and intermediates, up to the final byte */
		while (n++ < 32 && (ch = getch()) != ERR &&
		    !(ch >= 0x40 && ch <= 0x7e))
			;
	else if (ch != ERR)
		ungetch(ch);
	timeout(250);
}

/* Scroll the pager; 0 when the key is not one of its own. */
static int
pager_key(int ch)
{
	size_t page = LINES > 4 ? (size_t)LINES - 4 : 1;

	switch (ch) {
	case 'j': case KEY_DOWN: case '\r': case '\n': case KEY_ENTER:
		if (S.outtop + 1 < S.nout)
			S.outtop++;
		break;
	case 'k': case KEY_UP:
		if (S.outtop > 0)
			S.outtop--;
		break;
	case ' ': case KEY_NPAGE:
		if (S.outtop + page < S.nout)
			S.outtop += page;
		break;
	case KEY_PPAGE:
		S.outtop = S.outtop > page ? S.outtop - page : 0;
		break;
	case 'g': case KEY_HOME:
		S.outtop = 0;
		break;
	case 'G': case KEY_END:
		S.outtop = S.nout > page ? S.nout - page : 0;
		break;
	default:
		return 0;
	}
	return 1;
}

/* The wheel over a command's output: three lines up or down. */
static void
pager_wheel(int up)
{
	int i;

	for (i = 0; i < 3; i++)
		pager_key(up ? KEY_UP : KEY_DOWN);
}

/* ---- the mouse ---- */

#define MOUSE_EVENTS (BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED)

/* Take the mouse or give it back to the terminal, as `mouse` last said. */
static void
mouse_apply(void)
{
	int want = S.ctx->mouse != 0;

	if (want == S.mouse)
		return;
	mousemask(want ? MOUSE_EVENTS : 0, NULL);
	S.mouse = want;
}

/*
 * A mouse event: the wheel moves the cursor (or scrolls a command's
 * output), a click on a row selects it, a click on a tab shows its pane.
 * Each runs a command line, as a key does.
 */
static void
mouse_event(void)
{
	MEVENT me;
	char *line = NULL;

	if (getmouse(&me) != OK || !S.mouse)
		return;
	if (me.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		int up = (me.bstate & BUTTON4_PRESSED) != 0;

		if (S.nout > 0) {
			pager_wheel(up);
			return;
		}
		line = xstrdup(up ? "move -3" : "move +3");
	} else if (me.bstate & BUTTON1_PRESSED) {
		pager_free();
		line = view_click(S.ctx->view, me.y, me.x);
	}
	if (line != NULL)
		run_line(line);
	free(line);
}

static void
screen_end(void)
{
	if (S.active) {
		if (S.mouse)
			mousemask(0, NULL);
		if (S.prompting)
			prompt_close();
		/* a terminal without an alternate screen keeps what was
		 * drawn: leave it blank, the cursor at the top */
		erase();
		move(0, 0);
		refresh();
		curs_set(1);
		endwin();
		fputs(PASTE_MODE_OFF, stdout);
		fflush(stdout);
		S.active = 0;
	}
}

/*
 * Why this terminal cannot hold the screen, in *why, or 0 when it can:
 * TERM unknown to terminfo, or a terminal that cannot move the cursor
 * (dumb, hardcopy, generic).  ncurses would print its own message and
 * exit on the first, and draw every line over the last on the second.
 */
static int
term_unfit(char *why, size_t len)
{
	const char *term = getenv("TERM");
	char *cup;
	int err = 0;

	if (term == NULL || *term == '\0') {
		snprintf(why, len, "TERM is not set");
		return 1;
	}
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		snprintf(why, len, "TERM=%s is %s", term, err == -1 ?
		    "not known here (no terminfo database)" :
		    "not a terminal type this system knows");
		return 1;
	}
	cup = tigetstr("cup");
	if (cup == NULL || cup == (char *)-1 || tigetflag("hc") > 0 ||
	    tigetflag("gn") > 0)
		snprintf(why, len, "TERM=%s cannot move the cursor", term);
	del_curterm(cur_term);
	cur_term = NULL;
	return *why != '\0';
}

/* The size of the terminal, for the plain text fallback (80x24 unknown). */
static void
plain_size(int *cols, int *rows)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS"), *l = getenv("LINES");
	long n;

	*cols = 80;
	*rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 &&
	    ws.ws_row >= 5) {
		*cols = ws.ws_col > 1000 ? 1000 : ws.ws_col;
		*rows = ws.ws_row > 1000 ? 1000 : ws.ws_row;
		return;
	}
	if (c != NULL && ts_parse_long(c, &n) == 0 && n >= 20 && n <= 1000)
		*cols = (int)n;
	if (l != NULL && ts_parse_long(l, &n) == 0 && n >= 5 && n <= 1000)
		*rows = (int)n;
}

/*
 * Run a command line in the plain text fallback, then print the view in
 * the rows the terminal has but `keep` (what is above it to keep in
 * sight, and the prompt's line).
 */
static void
plain_line(struct cmd_ctx *ctx, const char *line, int keep)
{
	char *cause = NULL, *view;
	int rc = cmd_exec_line(ctx, line, &cause), cols, rows;

	if (rc != CMD_OK) {
		cmd_say(stderr, cause != NULL ? cause : "failed");
		free(cause);
		return;
	}
	if (ctx->quit)
		return;
	plain_size(&cols, &rows);
	view = xasprintf("view --width %d --height %d", cols,
	    rows - keep >= 5 ? rows - keep : 5);
	if (cmd_exec_line(ctx, view, &cause) != CMD_OK)
		cmd_say(stderr, cause != NULL ? cause : "failed");
	free(cause);
	free(view);
}

/*
 * The screen on a terminal that cannot hold it: the view as plain text,
 * then a command a line (from standard input) with the view again after
 * each, until quit or the end of the input.
 */
static int
plain_run(struct cmd_ctx *ctx, const char *why)
{
	struct buf line = BUF_INIT;
	char *msg;
	int ch, cols, rows;

	msg = xasprintf("trainscope: no screen: %s; plain text instead (a "
	    "command a line, 'quit' to leave)", why);
	fprintf(stderr, "%s\n", msg);
	plain_size(&cols, &rows);
	plain_line(ctx, "", 1 + ((int)strlen(msg) + cols - 1) / cols);
	free(msg);
	while (!ctx->quit && !got_term) {
		fputs(": ", stdout);
		fflush(stdout);
		buf_reset(&line);
		while ((ch = getchar()) != EOF && ch != '\n')
			buf_addc(&line, (char)ch);
		if (ch == EOF && line.len == 0)
			break;
		plain_line(ctx, buf_str(&line), 1);
	}
	buf_release(&line);
	fflush(stdout);
	return CMD_OK;
}

/* ui_run_live()'s directory and follow, for open_first(). */
static int live_bg;
static const char *live_dir;
static int live_follow;

/* The job to look at first (NULL: the jobs pane); 0, or -1 said. */
static int
open_first(struct cmd_ctx *ctx, const char *job)
{
	char *words[] = { (char *)"open", (char *)"--", (char *)job, NULL };
	char *cause = NULL;
	int rc;

	if (ctx->view == NULL && cmd_exec_line(ctx, "pane jobs", &cause) !=
	    CMD_OK) {
		fprintf(stderr, "trainscope: %s\n", cause);
		free(cause);
		return -1;
	}
	if (job != NULL && live_bg) {	/* in the background */
		if (view_open_live(ctx->view, live_dir, job, live_follow,
		    ctx->threads, &cause) == 0)
			return 0;
		fprintf(stderr, "trainscope: %s\n", cause);
		free(cause);
		return -1;
	}
	if (job == NULL)
		return 0;
	/* the first look at a large job takes seconds: say what runs */
	if (ctx->progress) {
		fputs("opening ", ctx->err);
		canvas_fput(ctx->err, job);
		fputs("...", ctx->err);
		fflush(ctx->err);
	}
	rc = cmd_exec_argv(ctx, 3, words, &cause);
	if (ctx->progress)
		fputs("\r\033[K", ctx->err);
	if (rc != CMD_OK) {
		fprintf(stderr, "trainscope: %s\n", cause != NULL ? cause :
		    "cannot open the job");
		free(cause);
		return -1;
	}
	return 0;
}

/*
 * A config error for the status line: its file named by the last two
 * parts of its path ("trainscope/config:5: ..."), so that at 80 columns
 * what is wrong shows whatever the path; stderr gets it whole on exit.
 */
static const char *
conf_short(const char *err)
{
	const char *colon = strstr(err, ":"), *p, *cut = err;
	int slashes = 0;

	if (colon == NULL)
		return err;
	for (p = colon; p > err; p--)
		if (p[-1] == '/' && ++slashes == 2) {
			cut = p;
			break;
		}
	return cut;
}

/*
 * The config file: read before the screen starts, its binds and mouse
 * setting applied; its first bad line shown on the status line, every
 * one printed when the screen ends.
 */
static void
conf_read(struct cmd_ctx *ctx)
{
	struct userconf *c = &S.conf;
	char *path, *cause = NULL;
	size_t i;

	userconf_init(c);
	if (ctx->no_config)
		return;
	path = ctx->config != NULL ? xstrdup(ctx->config) :
	    userconf_default_path();
	if (path != NULL && userconf_load(c, path, ctx->config != NULL,
	    &cause) != 0) {
		c->errors = xreallocarray(c->errors, c->nerrors + 1,
		    sizeof *c->errors);
		c->errors[c->nerrors++] = cause;
	}
	free(path);
	for (i = 0; i < c->nbinds; i++)
		keys_bind(c->binds[i].key, c->binds[i].line);
	if (c->mouse >= 0)
		ctx->mouse = c->mouse;
	if (c->nerrors > 0) {
		free(ctx->view->message);
		ctx->view->message = c->nerrors == 1 ?
		    xstrdup(conf_short(c->errors[0])) :
		    xasprintf("%s (and %zu more)", conf_short(c->errors[0]),
		    c->nerrors - 1);
	}
}

/* The config file's errors, for the terminal given back; then freed. */
static void
conf_done(void)
{
	size_t i;

	for (i = 0; i < S.conf.nerrors; i++) {
		fputs("trainscope: ", stderr);
		canvas_fput(stderr, S.conf.errors[i]);
		fputc('\n', stderr);
	}
	userconf_release(&S.conf);
	keys_unbind_all();
}

static int
width(const char *s)
{
	return canvas_drawn_width(&S.cv, s, strlen(s));
}

/*
 * A file named in a held message, '/a/b/c/d.log' or /a/b/c/d.log:5: at
 * its start, by its last two parts ('c/d.log'): where in the job, not
 * where the job is.
 */
static char *
held_short(const char *msg)
{
	const char *q = strstr(msg, "'/"), *end, *p, *cut;
	int slashes = 0;

	if (msg[0] == '/')
		q = msg - 1;
	if (q == NULL || (end = strchr(q + 1, q < msg ? ':' : '\'')) == NULL)
		return xstrdup(msg);
	cut = q + 1;
	for (p = end; p > q + 1; p--)
		if (p[-1] == '/' && ++slashes == 2) {
			cut = p;
			break;
		}
	return xasprintf("%.*s%s", (int)(q + 1 - msg), msg, cut);
}

/*
 * The command a held message names ("index: warning: ..."): its length
 * (0: none), and in *rest what it says, "warning: " left out.
 */
static int
held_cmd(const char *msg, const char **rest)
{
	size_t n = strcspn(msg, ": ");
	char word[32];

	*rest = msg;
	if (n == 0 || n >= sizeof word || strncmp(msg + n, ": ", 2) != 0)
		return 0;
	memcpy(word, msg, n);
	word[n] = '\0';
	if (cmd_find(word) == NULL)
		return 0;
	*rest = msg + n + 2;
	if (strncmp(*rest, "warning: ", 9) == 0)
		*rest += 9;
	return (int)n;
}

/*
 * The messages held while the job opened, on the status line: how many
 * and the first, cut so that ":warnings lists them" fits the width
 * ("index: 3 warnings (first: 'n1/r0.log': line 5: ...); :warnings
 * lists them").  A config error already there keeps its place first.
 */
static char *held_said;		/* held_say()'s last message */

static void
held_say(struct cmd_ctx *ctx)
{
	const char *first = ctx->nheld > 0 ? ctx->held[0] : NULL, *rest;
	char *what, *head, *msg, *old;
	int n, room;

	if (first == NULL)
		return;
	if (ctx->view->message != NULL && held_said != NULL &&
	    strcmp(ctx->view->message, held_said) == 0) {
		free(ctx->view->message);	/* said again, with more */
		ctx->view->message = NULL;
	}
	n = held_cmd(first, &rest);
	what = held_short(rest);
	head = xasprintf("%.*s%s%zu warning%s (first: ", n, first,
	    n > 0 ? ": " : "", ctx->nheld, ctx->nheld == 1 ? "" : "s");
	old = ctx->view->message;
	room = COLS - 1 - width(head) - (int)strlen("); :warnings lists "
	    "them") - (old != NULL ? width(old) + 2 : 0);
	if (width(what) > room && room > 3) {
		msg = xasprintf("%.*s...", (int)canvas_fit(&S.cv, what,
		    strlen(what), room - 3), what);
		free(what);
		what = msg;
	}
	ctx->view->message = xasprintf("%s%s%s%s); :warnings lists %s",
	    old != NULL ? old : "", old != NULL ? "; " : "", head, what,
	    ctx->nheld == 1 ? "it" : "them");
	free(held_said);
	held_said = xstrdup(ctx->view->message);
	free(old);
	free(head);
	free(what);
}

/*
 * Warnings of the job indexed or diagnosed behind the screen: held as
 * those of the opening were, and said on the status line.
 */
static void
live_warnings(struct cmd_ctx *ctx, int say)
{
	char *text = view_take_warnings(ctx->view), *line, *next;

	for (line = text; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		cmd_ctx_held_add(ctx, line);
	}
	if (text != NULL && say)
		held_say(ctx);
	else if (say && !S.had_model && ctx->view->m != NULL &&
	    ctx->nheld > 0 && (ctx->view->message == NULL ||
	    held_said == NULL || strstr(ctx->view->message, held_said) == NULL))
		held_say(ctx);	/* the first model's notes took its place */
	if (ctx->view->m != NULL)
		S.had_model = 1;
	free(text);
}

/* curses on the terminal, set up as the screen needs it. */
static int
screen_start(void)
{
	if ((S.term = newterm(NULL, stdout, stdin)) == NULL) {
		fprintf(stderr, "trainscope: cannot start the screen (TERM=%s)\n",
		    getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	set_term(S.term);
	S.active = 1;
	atexit(screen_end);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	keys_define();
	mouseinterval(0);	/* a press is a click: no wait for its release */
	timeout(250);
	colours_init();
	readline_init();
	/* pastes come bracketed: readline takes them as text, not keys */
	fputs(PASTE_MODE_ON, stdout);
	fflush(stdout);
	canvas_init(&S.cv, COLS, S.ascii);
	return 0;
}

/*
 * A key outside the prompt: the mouse, Esc, the pager's own keys,
 * Ctrl-Z, else the key table's command line (or the prompt it opens).
 */
static void
key_press(int ch)
{
	const char *label, *line;
	char kb[8];

	if (ch == KEY_MOUSE) {
		mouse_event();
		return;
	}
	if (ch == 27) {		/* closes the output; no key of its own */
		swallow_escape();
		pager_free();
		return;
	}
	if (S.nout > 0) {
		/* any other key closes it and does what it does */
		if (ch != 'q' && pager_key(ch))
			return;
		pager_free();
		if (ch == 'q')
			return;
	}
	if (ch == 26) {		/* Ctrl-Z */
		screen_suspend();
		return;
	}
	label = key_label(ch, kb);
	if (label == NULL || (line = keys_find(label)) == NULL)
		key_unbound(ch, label);
	else if (line[0] == ':')
		prompt_open(line + 1);
	else
		run_line(line);
}

int
ui_run_live(struct cmd_ctx *ctx, const char *dir, const char *name,
    int follow)
{
	int rc;

	live_bg = 1;
	live_dir = dir;
	live_follow = follow;
	rc = ui_run(ctx, name);
	live_bg = 0;
	live_dir = NULL;
	return rc;
}

int
ui_run(struct cmd_ctx *ctx, const char *job)
{
	struct sigaction sa;
	const char *cs;
	char why[160];
	int ch, rc;

	memset(&S, 0, sizeof S);
	S.ctx = ctx;
	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	S.ascii = cs == NULL || strcmp(cs, "UTF-8") != 0;
	rc = open_first(ctx, job);
	cmd_ctx_unhold(ctx);	/* what it held is shown on the screen */
	if (rc != 0) {
		cmd_ctx_held_print(ctx, stderr);
		return CMD_FAIL;
	}
	ctx->view->ascii = S.ascii;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	why[0] = '\0';
	if (term_unfit(why, sizeof why)) {
		cmd_ctx_held_print(ctx, stderr);
		return plain_run(ctx, why);
	}
	ctx->view->async = 1;	/* slow answers come in the background */
	conf_read(ctx);
	if (screen_start() != 0) {
		conf_done();
		cmd_ctx_held_print(ctx, stderr);
		return CMD_FAIL;
	}
	held_say(ctx);
	while (!got_term && !ctx->quit) {
		mouse_apply();
		live_warnings(ctx, 1);
		draw();
		/* an answer awaited shows within a key's time */
		timeout(view_busy(ctx->view) ? 40 : 250);
		ch = getch();
		if (ch == ERR || ch == KEY_RESIZE)
			continue;
		if (ch == 3 && !S.prompting)	/* Ctrl-C */
			break;
		if (S.prompting) {
			prompt_input(ch);
			prompt_drain();
			continue;
		}
		key_press(ch);
	}
	screen_end();
	conf_done();
	/* seen on the screen; kept when standard error is not the terminal */
	live_warnings(ctx, 0);	/* the last ones, for stderr */
	cmd_ctx_held_print(ctx, isatty(STDERR_FILENO) ? NULL : stderr);
	free(held_said);
	held_said = NULL;
	canvas_release(&S.cv);
	pager_free();
	free(S.err_line);
	free(S.history);
	buf_release(&S.queue);
	return CMD_OK;
}
