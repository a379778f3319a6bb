/*
 * keys.h -- the screen's keys, as data: each key runs a command line of
 * the command table, so that every key press can be saved and replayed.
 * Keys are named as `help keys` prints them: a character ("j", "G",
 * "1"), a control key ("C-f"; not C-c, C-h, C-i, C-j, C-m or C-z), or "Up", "Down", "Left", "Right", "PgUp",
 * "PgDn", "Home", "End", "Enter", "Backspace", "Tab", "S-Tab", "Space",
 * "F1" .. "F12".
 */
#ifndef TS_KEYS_H
#define TS_KEYS_H

#include <stddef.h>
#include <stdio.h>

struct key_binding {
	const char *key;
	const char *line;	/* the command line it runs; see below */
	const char *what;
};

/*
 * Lines that do not run a command but open the prompt: ":" (empty), or
 * ":TEXT" (the prompt starts with TEXT, e.g. ":search /").
 */
extern const struct key_binding key_table[];
extern const size_t key_count;

/* Whether `name` names a key (as above). */
int keys_name_ok(const char *name);
/*
 * Bind key `name` to command line `line` (copied) over the table's
 * binding, for this process; keys_unbind_all() drops every such binding.
 */
void keys_bind(const char *name, const char *line);
void keys_unbind_all(void);
/* The command line of key `name` (a binding of keys_bind() first), or NULL. */
const char *keys_find(const char *name);
/* Print the table for `help keys`. */
void keys_print(FILE *out);

#endif
