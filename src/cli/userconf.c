/*
 * userconf.c -- the user's config file (see userconf.h).
 *
 * A config file is a line-oriented list of settings.  Each line is read
 * on its own: a bad one is kept as an error naming its file and line,
 * with the line, and the rest still counts, so the screen always opens.
 * Binds run commands, so they are taken only from a file the user owns
 * and alone may write, or from one named with --config.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cmd.h"
#include "cli/userconf.h"
#include "view/canvas.h"
#include "view/keys.h"

#define USERCONF_MAX (1 << 20)	/* bytes: a config file is small */
#define LINE_SHOWN 160		/* bytes of a bad line in its message */

static const char *const class_names[] = {
	[CS_NORMAL] = "normal", [CS_DIM] = "dim", [CS_BOLD] = "bold",
	[CS_HEADER] = "header", [CS_STATUS] = "status", [CS_WARN] = "warn",
	[CS_ERROR] = "error", [CS_GOOD] = "good",
	[CS_HEAT0] = "heat0", [CS_HEAT0 + 1] = "heat1",
	[CS_HEAT0 + 2] = "heat2", [CS_HEAT0 + 3] = "heat3",
	[CS_HEAT0 + 4] = "heat4", [CS_HEAT0 + 5] = "heat5",
	[CS_HEAT0 + 6] = "heat6", [CS_HEAT0 + 7] = "heat7",
	[CS_CAT_NETWORK] = "network", [CS_CAT_GPU] = "gpu",
	[CS_CAT_MEMORY] = "memory", [CS_CAT_TIMEOUT] = "timeout",
	[CS_CAT_DATA] = "data", [CS_CAT_STORAGE] = "storage",
	[CS_CAT_CONFIG] = "config", [CS_CAT_OTHER] = "other",
	[CS_VAR] = "var",
};

static const char *const colour_names[] = { "black", "red", "green",
    "yellow", "blue", "magenta", "cyan", "white" };

void
userconf_init(struct userconf *c)
{
	memset(c, 0, sizeof *c);
	c->mouse = -1;
	c->colors = -1;
	c->trusted = 1;
}

void
userconf_release(struct userconf *c)
{
	size_t i;

	for (i = 0; i < c->nbinds; i++) {
		free(c->binds[i].key);
		free(c->binds[i].line);
	}
	for (i = 0; i < c->nerrors; i++)
		free(c->errors[i]);
	free(c->binds);
	free(c->colors_set);
	free(c->errors);
	free(c->path);
	userconf_init(c);
}

int
userconf_class(const char *name)
{
	size_t i;

	if (strcmp(name, "selected") == 0)
		return USERCONF_SELECTED;
	for (i = 0; i < TS_NELEM(class_names); i++)
		if (class_names[i] != NULL && strcmp(class_names[i], name) == 0)
			return (int)i;
	return -1;
}

/* A colour: a name, "default" (-1) or 0..255; -2 when none of these. */
static int
colour_parse(const char *s)
{
	long n;
	size_t i;

	if (strcmp(s, "default") == 0)
		return -1;
	for (i = 0; i < TS_NELEM(colour_names); i++)
		if (strcmp(s, colour_names[i]) == 0)
			return (int)i;
	if (ts_parse_long(s, &n) == 0 && n >= 0 && n <= 255 &&
	    strspn(s, "0123456789") == strlen(s))
		return (int)n;
	return -2;
}

/* ---- one line ---- */

struct line {
	const char *name;	/* the file */
	long no;
	const char *text;	/* the whole line, for messages */
	size_t len;
	char *words[4];		/* the first words; words[3] the rest */
	int nwords;
};

static void
bad(struct userconf *c, const struct line *l, const char *fmt, ...)
    TS_PRINTF(3, 4);

static void
bad(struct userconf *c, const struct line *l, const char *fmt, ...)
{
	va_list ap;
	char *what;
	int n = l->len > LINE_SHOWN ? LINE_SHOWN : (int)l->len;

	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	c->errors = xreallocarray(c->errors, c->nerrors + 1,
	    sizeof *c->errors);
	c->errors[c->nerrors++] = xasprintf("%s:%ld: %s: %.*s%s", l->name,
	    l->no, what, n, l->text, (size_t)n < l->len ? "..." : "");
	free(what);
}

/*
 * Split a line into up to three words and the rest (words[3], its
 * blanks at the ends dropped); a '#' at a word's start begins a comment,
 * in the rest too.
 */
static void
split(struct line *l, char *s)
{
	char *e;

	l->nwords = 0;
	for (;;) {
		s += strspn(s, " \t");
		if (*s == '\0' || *s == '#')
			return;
		if (l->nwords == 3) {
			for (e = s; *e != '\0'; e++)
				if (*e == '#' && (e[-1] == ' ' || e[-1] == '\t'))
					break;
			while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			*e = '\0';
			l->words[l->nwords++] = s;
			return;
		}
		l->words[l->nwords++] = s;
		s += strcspn(s, " \t");
		if (*s != '\0')
			*s++ = '\0';
	}
}

static void
do_set(struct userconf *c, const struct line *l)
{
	const char *what = l->words[1], *v = l->words[2];

	if (l->nwords != 3)
		bad(c, l, "set wants a name and a value");
	else if (strcmp(what, "mouse") == 0 && (strcmp(v, "on") == 0 ||
	    strcmp(v, "off") == 0))
		c->mouse = v[1] == 'n';
	else if (strcmp(what, "mouse") == 0)
		bad(c, l, "set mouse wants on or off, not '%s'", v);
	else if (strcmp(what, "colors") == 0 && (strcmp(v, "256") == 0 ||
	    strcmp(v, "8") == 0 || strcmp(v, "none") == 0))
		c->colors = v[0] == 'n' ? 0 : atoi(v);
	else if (strcmp(what, "colors") == 0)
		bad(c, l, "set colors wants 256, 8 or none, not '%s'", v);
	else
		bad(c, l, "unknown setting '%s' (mouse, colors)", what);
}

static void
do_color(struct userconf *c, const struct line *l)
{
	struct userconf_color cc;

	if (l->nwords < 3 || (l->nwords == 4 && strpbrk(l->words[3], " \t"))) {
		bad(c, l, "color wants a class, a foreground and a background");
		return;
	}
	if ((cc.cls = userconf_class(l->words[1])) < 0) {
		bad(c, l, "unknown colour class '%s' (see 'help config')",
		    l->words[1]);
		return;
	}
	cc.fg = colour_parse(l->words[2]);
	cc.bg = l->nwords == 4 ? colour_parse(l->words[3]) : -1;
	if (cc.fg == -2 || cc.bg == -2) {
		bad(c, l, "bad colour '%s' (a name, default or 0 to 255)",
		    cc.fg == -2 ? l->words[2] : l->words[3]);
		return;
	}
	c->colors_set = xreallocarray(c->colors_set, c->ncolors + 1,
	    sizeof *c->colors_set);
	c->colors_set[c->ncolors++] = cc;
}

static void
do_bind(struct userconf *c, const struct line *l)
{
	struct userconf_bind *b;
	const char *cmd = l->words[2];

	if (l->nwords < 3) {
		bad(c, l, "bind wants a key and a command");
		return;
	}
	if (!keys_name_ok(l->words[1])) {
		bad(c, l, "unknown key '%s' (see 'help config')", l->words[1]);
		return;
	}
	if (cmd[0] != ':' && cmd_find(cmd) == NULL) {
		bad(c, l, "unknown command '%s'", cmd);
		return;
	}
	if (!c->trusted) {
		bad(c, l, "bind ignored: the file is not the user's own");
		return;
	}
	c->binds = xreallocarray(c->binds, c->nbinds + 1, sizeof *c->binds);
	b = &c->binds[c->nbinds++];
	b->key = xstrdup(l->words[1]);
	/* the command line: its first word and the rest, as written */
	b->line = l->nwords == 4 ? xasprintf("%s %s", cmd, l->words[3]) :
	    xstrdup(cmd);
}

static void
parse_line(struct userconf *c, struct line *l, char *s)
{
	split(l, s);
	if (l->nwords == 0)
		return;
	if (strcmp(l->words[0], "bind") == 0)
		do_bind(c, l);
	else if (strcmp(l->words[0], "set") == 0)
		do_set(c, l);
	else if (strcmp(l->words[0], "color") == 0)
		do_color(c, l);
	else
		bad(c, l, "unknown directive '%s' (bind, set, color)",
		    l->words[0]);
}

void
userconf_parse(struct userconf *c, const char *name, const char *text,
    size_t len)
{
	struct line l;
	const char *p = text, *end = text + len, *nl;
	char *s;

	memset(&l, 0, sizeof l);
	l.name = name;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		l.no++;
		l.text = p;
		l.len = (size_t)(nl - p);
		if (l.len > 0 && p[l.len - 1] == '\r')
			l.len--;
		s = xstrndup(p, l.len);
		if (strlen(s) != l.len)
			bad(c, &l, "a NUL byte in the line");
		else
			parse_line(c, &l, s);
		free(s);
		p = nl + 1;
	}
}

char *
userconf_default_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (x != NULL && x[0] == '/')
		return xasprintf("%s/trainscope/config", x);
	if (home != NULL && home[0] != '\0')
		return xasprintf("%s/.config/trainscope/config", home);
	return NULL;
}

/* Read the whole of an open file of at most USERCONF_MAX bytes. */
static int
read_all(int fd, const char *path, struct buf *b, char **cause)
{
	char chunk[4096];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ts_fail(cause, "cannot read '%s': %s", path,
			    strerror(errno));
		if (b->len + (size_t)n > USERCONF_MAX)
			return ts_fail(cause, "'%s' is larger than a config "
			    "file can be (1 MB)", path);
		buf_add(b, chunk, (size_t)n);
	}
	return 0;
}

int
userconf_load(struct userconf *c, const char *path, int given, char **cause)
{
	struct buf b = BUF_INIT;
	struct stat st;
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (!given && errno == ENOENT)
			return 0;
		return ts_fail(cause, "cannot read config '%s': %s", path,
		    strerror(errno));
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ts_fail(cause, "config '%s' is not a file", path);
	}
	c->trusted = given || (st.st_uid == geteuid() &&
	    (st.st_mode & (S_IWGRP | S_IWOTH)) == 0);
	rc = read_all(fd, path, &b, cause);
	close(fd);
	if (rc == 0) {
		free(c->path);
		c->path = xstrdup(path);
		userconf_parse(c, path, b.s != NULL ? b.s : "", b.len);
	}
	buf_release(&b);
	return rc;
}
