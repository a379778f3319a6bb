/*
 * userconf.h -- the user's config file: key bindings, the mouse, the
 * colours, read headless and handed to the screen to apply.
 *
 *	# a comment
 *	bind KEY COMMAND...	a key runs a command line (as ':' takes it)
 *	set mouse on|off
 *	set colors 256|8|none
 *	color CLASS FG [BG]	a style class's colours (names or 0..255)
 */
#ifndef TS_USERCONF_H
#define TS_USERCONF_H

#include <stddef.h>

/* The colour class of the cursor's row (the canvas's classes are 0 ..). */
#define USERCONF_SELECTED 1000

struct userconf_bind {
	char *key;		/* as keys.h names keys */
	char *line;		/* the command line it runs */
};

struct userconf_color {
	int cls;		/* a CS_* style class, or USERCONF_SELECTED */
	int fg, bg;		/* 0..255, or -1: the terminal's default */
};

struct userconf {
	char *path;		/* where it was read from, NULL: none */
	int trusted;		/* the user's own file: binds may run */
	struct userconf_bind *binds;
	size_t nbinds;
	int mouse;		/* 1 on, 0 off, -1 not said */
	int colors;		/* 256, 8, 0 (none), -1 not said */
	struct userconf_color *colors_set;
	size_t ncolors;
	char **errors;		/* "FILE:LINE: what: LINE", one a bad line */
	size_t nerrors;
};

void userconf_init(struct userconf *c);
void userconf_release(struct userconf *c);

/*
 * Parse the text of a config file named `name` (for its messages) into c,
 * adding to what c holds.  Never fails: a bad line is an error in
 * c->errors and the rest is read.  Binds are kept only when c->trusted.
 */
void userconf_parse(struct userconf *c, const char *name, const char *text,
    size_t len);

/*
 * The default config file: ${XDG_CONFIG_HOME:-$HOME/.config}/trainscope/
 * config (allocated), or NULL when neither is set.
 */
char *userconf_default_path(void);

/*
 * Read config file `path` into c.  `given`: the user named it (--config);
 * else it is the default, and a missing one is no error.  A default file
 * that is not the user's own, or that others may write, is read without
 * its binds (said in c->errors).  Returns 0, or -1 with *cause when the
 * file cannot be read (a given one missing, too large, unreadable).
 */
int userconf_load(struct userconf *c, const char *path, int given,
    char **cause);

/* The style class of a name ("error", "heat3", "selected"), or -1. */
int userconf_class(const char *name);

#endif
