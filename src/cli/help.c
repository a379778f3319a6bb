/*
 * help.c -- looking up the help texts compiled in from help/.
 */
#include "config.h"

#include <string.h>

#include "cli/help.h"
#include "base/util.h"

const char *
help_find(const char *name)
{
	size_t lo = 0, hi = help_count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, help_entries[mid].name);

		if (c == 0)
			return help_entries[mid].text;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

char *
help_summary(const char *text)
{
	return xstrndup(text, strcspn(text, "\n"));
}
