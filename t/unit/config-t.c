/* config-t.c -- the screen's config file: settings, bad lines, trust. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/userconf.h"
#include "view/canvas.h"
#include "view/keys.h"
#include "tap.h"

static void
parse(struct userconf *c, const char *text)
{
	userconf_init(c);
	userconf_parse(c, "cfg", text, strlen(text));
}

static void
test_good(void)
{
	struct userconf c;

	parse(&c, "# keys\n\nbind C-o pane log\r\nbind F5 :filter node=\n"
	    "  bind x   search /a b/  \nset mouse off\nset colors 8\n"
	    "color heat7 white red\ncolor selected 0 226 # on yellow\n");
	is_int(c.nerrors, 0, "a good file has no errors");
	is_int(c.nbinds, 3, "three binds");
	is_str(c.binds[0].key, "C-o", "a control key");
	is_str(c.binds[0].line, "pane log", "its command line (CR dropped)");
	is_str(c.binds[1].line, ":filter node=", "a bind that opens the prompt");
	is_str(c.binds[2].line, "search /a b/", "the rest of the line, its "
	    "ends trimmed");
	is_int(c.mouse, 0, "set mouse off");
	is_int(c.colors, 8, "set colors 8");
	is_int(c.ncolors, 2, "two colours");
	is_int(c.colors_set[0].cls, CS_HEAT7, "heat7 is the hottest class");
	is_int(c.colors_set[0].fg, 7, "white");
	is_int(c.colors_set[0].bg, 1, "on red");
	is_int(c.colors_set[1].cls, USERCONF_SELECTED, "the cursor's row");
	is_int(c.colors_set[1].bg, 226, "a colour of 256");
	userconf_release(&c);
	parse(&c, "set colors none\nset mouse on\ncolor error 196\n");
	is_int(c.colors, 0, "set colors none");
	is_int(c.mouse, 1, "set mouse on");
	is_int(c.colors_set[0].bg, -1, "no background: the default");
	userconf_release(&c);
}

static void
test_bad(void)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "frob x", "cfg:2: unknown directive 'frob' (bind, set, "
		  "color): frob x" },
		{ "bind C-% quit", "cfg:2: unknown key 'C-%' (see 'help "
		  "config'): bind C-% quit" },
		{ "bind F13 quit", "cfg:2: unknown key 'F13'" },
		{ "bind z rm -rf /", "cfg:2: unknown command 'rm'" },
		{ "bind z", "cfg:2: bind wants a key and a command" },
		{ "set mouse maybe", "cfg:2: set mouse wants on or off, not "
		  "'maybe'" },
		{ "set colors 16", "cfg:2: set colors wants 256, 8 or none" },
		{ "set beep on", "cfg:2: unknown setting 'beep' (mouse, "
		  "colors)" },
		{ "set mouse", "cfg:2: set wants a name and a value" },
		{ "color nosuch red", "cfg:2: unknown colour class 'nosuch'" },
		{ "color error 256", "cfg:2: bad colour '256'" },
		{ "color error red -1", "cfg:2: bad colour '-1'" },
		{ "color error red blue green", "cfg:2: color wants a class" },
	};
	struct userconf c;
	char *text;
	size_t i;
	int all = 1;

	for (i = 0; i < TS_NELEM(cases); i++) {
		text = xasprintf("set mouse off\n%s\nset colors 8\n",
		    cases[i].line);
		parse(&c, text);
		if (c.nerrors != 1 || strncmp(c.errors[0], cases[i].want,
		    strlen(cases[i].want)) != 0 || c.mouse != 0 ||
		    c.colors != 8 || c.nbinds != 0) {
			printf("# '%s': %s\n", cases[i].line, c.nerrors > 0 ?
			    c.errors[0] : "no error");
			all = 0;
		}
		userconf_release(&c);
		free(text);
	}
	ok(all, "each bad line is one FILE:LINE error with the line; the "
	    "lines around it count");
	userconf_init(&c);
	userconf_parse(&c, "cfg", "bind a q\0uit\nset mouse off\n", 27);
	ok(c.nerrors == 1 && strstr(c.errors[0], "cfg:1: a NUL byte") &&
	    c.mouse == 0, "a NUL byte spoils its line only");
	userconf_release(&c);
	text = xasprintf("bind z quit %0400d\n", 7);
	parse(&c, text);
	ok(c.nbinds == 1, "a long line is a line");
	userconf_release(&c);
	text[0] = 'X';
	parse(&c, text);
	ok(c.nerrors == 1 && strlen(c.errors[0]) < 260 &&
	    strstr(c.errors[0], "...") != NULL, "its message shows the "
	    "line's start");
	userconf_release(&c);
	free(text);
}

static void
test_trust(void)
{
	struct userconf c;
	char dir[] = "/tmp/config-t.XXXXXX", *path, *cause = NULL;
	FILE *f;

	userconf_init(&c);
	c.trusted = 0;
	userconf_parse(&c, "cfg", "bind z quit\nset mouse off\n", 26);
	ok(c.nbinds == 0 && c.nerrors == 1 && strstr(c.errors[0],
	    "cfg:1: bind ignored: the file is not the user's own") &&
	    c.mouse == 0, "a file not the user's own binds nothing");
	userconf_release(&c);
	if (mkdtemp(dir) == NULL)
		abort();
	path = xasprintf("%s/config", dir);
	userconf_init(&c);
	ok(userconf_load(&c, path, 0, &cause) == 0 && c.path == NULL,
	    "no default file: nothing to read, no error");
	ok(userconf_load(&c, path, 1, &cause) == -1 && cause != NULL &&
	    strstr(cause, "cannot read config") != NULL,
	    "a --config file that is not there is an error");
	free(cause);
	cause = NULL;
	if ((f = fopen(path, "w")) == NULL)
		abort();
	fputs("bind z quit\n", f);
	fclose(f);
	chmod(path, 0600);
	ok(userconf_load(&c, path, 0, &cause) == 0 && c.nbinds == 1,
	    "the user's own default file binds");
	userconf_release(&c);
	chmod(path, 0666);
	ok(userconf_load(&c, path, 0, &cause) == 0 && c.nbinds == 0 &&
	    c.nerrors == 1, "a default file others may write binds nothing");
	userconf_release(&c);
	ok(userconf_load(&c, path, 1, &cause) == 0 && c.nbinds == 1,
	    "the same file named with --config binds");
	userconf_release(&c);
	unlink(path);
	rmdir(dir);
	free(path);
}

static void
test_keys(void)
{
	static const char *const good[] = { "a", "G", "9", "/", "C-a", "C-y",
	    "F1", "F9", "F12", "Home", "End", "PgUp", "PgDn", "Up", "Down",
	    "Left", "Right", "Enter", "Tab", "S-Tab" };
	static const char *const bad[] = { "", " ", "ab", "C-", "C-A", "C-1",
	    "F0", "F13", "F01", "home", "\x7f", "é", "C-c", "C-z", "C-i",
	    "C-m", "C-h", "C-j" };
	size_t i;
	int all = 1;

	for (i = 0; i < TS_NELEM(good); i++)
		all &= keys_name_ok(good[i]);
	for (i = 0; i < TS_NELEM(bad); i++)
		all &= !keys_name_ok(bad[i]);
	ok(all, "key names: characters, C-x, F1..F12, the named keys; not "
	    "Ctrl-C, Ctrl-Z nor the control codes of named keys");
	keys_bind("q", "quit");
	keys_bind("C-o", "pane log");
	keys_bind("C-o", "pane jobs");
	is_str(keys_find("q"), "quit", "a bind goes over the table's key");
	is_str(keys_find("C-o"), "pane jobs", "the last bind of a key counts");
	keys_unbind_all();
	is_str(keys_find("q"), "back --or-quit", "unbound: the table again");
}

int
main(void)
{
	test_good();
	test_bad();
	test_trust();
	test_keys();
	return done_testing();
}
