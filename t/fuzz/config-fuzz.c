/*
 * config-fuzz.c -- the screen's config file from any bytes: every bad
 * line is one error of the form "fuzz:LINE: ..." holding no line break,
 * every bind is of a key the screen knows to a command the table has
 * (and none at all from a file not the user's own), every setting and
 * colour is one the screen can apply.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/userconf.h"
#include "view/canvas.h"
#include "view/keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_errors(const struct userconf *c)
{
	size_t i, n;

	for (i = 0; i < c->nerrors; i++) {
		const char *e = c->errors[i];

		if (strncmp(e, "fuzz:", 5) != 0)
			abort();
		n = strspn(e + 5, "0123456789");
		if (n == 0 || e[5 + n] != ':' || strchr(e, '\n') != NULL)
			abort();
	}
}

static void
check_binds(const struct userconf *c)
{
	size_t i;
	char *first;

	for (i = 0; i < c->nbinds; i++) {
		if (!c->trusted || !keys_name_ok(c->binds[i].key))
			abort();
		first = strndup(c->binds[i].line, strcspn(c->binds[i].line,
		    " \t"));
		if (first == NULL)
			abort();
		if (first[0] != ':' && cmd_find(first) == NULL)
			abort();
		free(first);
	}
}

static void
check_settings(const struct userconf *c)
{
	size_t i;

	if (c->mouse < -1 || c->mouse > 1)
		abort();
	if (c->colors != -1 && c->colors != 0 && c->colors != 8 &&
	    c->colors != 256)
		abort();
	for (i = 0; i < c->ncolors; i++) {
		const struct userconf_color *cc = &c->colors_set[i];

		if ((cc->cls < 0 || cc->cls >= CS_COUNT) &&
		    cc->cls != USERCONF_SELECTED)
			abort();
		if (cc->fg < -1 || cc->fg > 255 || cc->bg < -1 || cc->bg > 255)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct userconf c;
	int trusted;

	for (trusted = 0; trusted < 2; trusted++) {
		userconf_init(&c);
		c.trusted = trusted;
		userconf_parse(&c, "fuzz", (const char *)data, size);
		check_errors(&c);
		check_binds(&c);
		check_settings(&c);
		userconf_release(&c);
	}
	return 0;
}
