/*
 * keys.c -- the screen's key table (see keys.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "view/keys.h"
#include "base/util.h"

const struct key_binding key_table[] = {
	{ "j", "move down", "next row" },
	{ "Down", "move down", "next row" },
	{ "k", "move up", "previous row" },
	{ "Up", "move up", "previous row" },
	{ "PgDn", "move pgdn", "next page" },
	{ "Space", "move pgdn", "next page" },
	{ "PgUp", "move pgup", "previous page" },
	{ "C-f", "move pgdn", "next page" },
	{ "C-b", "move pgup", "previous page" },
	{ "b", "move pgup", "previous page" },
	{ "C-d", "move halfdn", "half a page down" },
	{ "C-u", "move halfup", "half a page up" },
	{ "g", "move top", "first row" },
	{ "Home", "move top", "first row" },
	{ "G", "move bottom", "last row" },
	{ "End", "move bottom", "last row" },
	{ "Right", "scroll right", "scroll the text to the right" },
	{ "l", "scroll right", "scroll the text to the right" },
	{ "Left", "scroll left", "scroll the text back to the left" },
	{ "h", "scroll left", "scroll the text back to the left" },
	{ "]", "move right", "heatmap: the column cursor a column right" },
	{ "[", "move left", "heatmap: the column cursor a column left" },
	{ "}", "move last", "heatmap: the column cursor on the last column" },
	{ "{", "move first", "heatmap: the column cursor on the first column" },
	{ "Enter", "drill", "open what the row leads to (the log at an event, "
	  "a node, an iteration, a heatmap cell)" },
	{ "Backspace", "back", "back to the view before the drill" },
	{ "q", "back --or-quit", "back; quit when there is nothing to go back to" },
	{ "Q", "quit", "quit at once" },
	{ "Tab", "pane next", "next pane" },
	{ "S-Tab", "pane prev", "previous pane" },
	{ "1", "pane events", "events pane" },
	{ "2", "pane heatmap", "heatmap pane" },
	{ "3", "pane timeline", "timeline pane" },
	{ "4", "pane groups", "groups pane" },
	{ "5", "pane lines", "lines pane" },
	{ "6", "pane jobs", "jobs pane" },
	{ "7", "pane log", "log pane: every raw line of the job in time order" },
	{ "/", ":search /", "search (PCRE2)" },
	{ "n", "next", "next match" },
	{ "N", "prev", "previous match" },
	{ "f", ":filter ", "add a filter" },
	{ "F", "unfilter all", "drop every filter" },
	{ "s", ":sort ", "sort the events" },
	{ "m", "bookmark", "bookmark the line or event (again: unmark)" },
	{ "'", "bookmark --next", "go to the next bookmark" },
	{ "y", "copy", "copy the bookmarked lines, or this one (OSC 52)" },
	{ "M", "mouse toggle", "take the mouse, or leave it to the "
	  "terminal's own selection" },
	{ ":", ":", "type a command" },
	{ "?", "help keys", "this table" },
};
const size_t key_count = TS_NELEM(key_table);

/* The user's bindings (the config file), before the table's. */
static struct key_binding *user;
static size_t nuser;

int
keys_name_ok(const char *name)
{
	static const char *const named[] = { "Up", "Down", "Left", "Right",
	    "PgUp", "PgDn", "Home", "End", "Enter", "Backspace", "Tab",
	    "S-Tab", "Space" };
	size_t i;
	long n;

	if (name[0] > ' ' && name[0] < 127 && name[1] == '\0')
		return 1;
	/* not C-c, C-z (quit, suspend), nor the control codes of Backspace,
	 * Tab and Enter: those keys have their own names */
	if (name[0] == 'C' && name[1] == '-' && name[2] >= 'a' &&
	    name[2] <= 'z' && name[3] == '\0')
		return strchr("chijmz", name[2]) == NULL;
	if (name[0] == 'F' && name[1] >= '1' && name[1] <= '9' &&
	    strspn(name + 1, "0123456789") == strlen(name + 1) &&
	    ts_parse_long(name + 1, &n) == 0 && n >= 1 && n <= 12)
		return 1;
	for (i = 0; i < TS_NELEM(named); i++)
		if (strcmp(named[i], name) == 0)
			return 1;
	return 0;
}

void
keys_bind(const char *name, const char *line)
{
	size_t i;

	for (i = 0; i < nuser; i++)
		if (strcmp(user[i].key, name) == 0)
			break;
	if (i == nuser) {
		user = xreallocarray(user, nuser + 1, sizeof *user);
		user[nuser++].key = xstrdup(name);
	} else
		free((char *)user[i].line);
	user[i].line = xstrdup(line);
	user[i].what = "(bound in the config file)";
}

void
keys_unbind_all(void)
{
	size_t i;

	for (i = 0; i < nuser; i++) {
		free((char *)user[i].key);
		free((char *)user[i].line);
	}
	free(user);
	user = NULL;
	nuser = 0;
}

const char *
keys_find(const char *name)
{
	size_t i;

	for (i = 0; i < nuser; i++)
		if (strcmp(user[i].key, name) == 0)
			return user[i].line;
	for (i = 0; i < key_count; i++)
		if (strcmp(key_table[i].key, name) == 0)
			return key_table[i].line;
	return NULL;
}

static int
user_bound(const char *name)
{
	size_t i;

	for (i = 0; i < nuser; i++)
		if (strcmp(user[i].key, name) == 0)
			return 1;
	return 0;
}

static void
print_one(FILE *out, const struct key_binding *k)
{
	fprintf(out, "  %-10s %-16s %s\n", k->key, k->line[0] == ':' ?
	    "(prompt)" : k->line, k->what);
}

void
keys_print(FILE *out)
{
	size_t i;

	fputs("Keys of the screen and the command each runs.  At the prompt,\n"
	    "Tab completes, Up and Down recall history, Ctrl-C cancels (Esc\n"
	    "too, unless the inputrc sets vi mode).  A command's output closes\n"
	    "with q or Esc, or with any key that is not its own.  Ctrl-Z\n"
	    "suspends the screen (fg brings it back), Ctrl-C quits.\n\n", out);
	for (i = 0; i < nuser; i++)
		print_one(out, &user[i]);
	for (i = 0; i < key_count; i++)
		if (!user_bound(key_table[i].key))
			print_one(out, &key_table[i]);
}
