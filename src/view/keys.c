/*
 * keys.c -- the screen's key table (see keys.h).
 */
#include "config.h"

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
	{ "Enter", "drill", "open what the row leads to (the log at an event, "
	  "a node, an iteration)" },
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
	{ "M", "mouse toggle", "take the mouse, or leave it to the "
	  "terminal's own selection" },
	{ ":", ":", "type a command" },
	{ "?", "help keys", "this table" },
};
const size_t key_count = TS_NELEM(key_table);

const char *
keys_find(const char *name)
{
	size_t i;

	for (i = 0; i < key_count; i++)
		if (strcmp(key_table[i].key, name) == 0)
			return key_table[i].line;
	return NULL;
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
	for (i = 0; i < key_count; i++)
		fprintf(out, "  %-10s %-16s %s\n", key_table[i].key,
		    key_table[i].line[0] == ':' ? "(prompt)" : key_table[i].line,
		    key_table[i].what);
}
