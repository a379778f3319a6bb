/*
 * report-fuzz.c -- the failure report of a model made of any bytes (the
 * model's encoding without its checksum, as model-fuzz.c takes it; the
 * model's event texts stand for the session's commands too), as text
 * and as Markdown: no control byte but the newline reaches either, and
 * in Markdown no '<' or ']' outside a code block comes unescaped, every
 * code block closes with the fence that opened it, and the summary table
 * keeps its two columns.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "diag/model.h"
#include "base/util.h"
#include "view/report.h"
#include "view/view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The model of the bytes, with the checksum the writer would add. */
static struct model *
model_of(const uint8_t *data, size_t size)
{
	unsigned char *b = xmalloc(size + 4);
	uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), data, (uInt)size);
	struct model *m;
	int i;

	memcpy(b, data, size);
	for (i = 0; i < 4; i++)
		b[size + (size_t)i] = (unsigned char)(crc >> (8 * i));
	m = model_decode(b, size + 4);
	free(b);
	return m;
}

/* No C0 control but the newline, no DEL: the bytes are inert. */
static void
check_inert(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
			abort();
}

/*
 * Does line s hold an unescaped '<' (HTML, an autolink) or "](" (a
 * link)?  A backslash escapes the byte after it.
 */
static int
markup(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' && s[1] != '\0')
			s++;
		else if (*s == '<' || (*s == ']' && s[1] == '('))
			return 1;
	}
	return 0;
}

/* How many of s's bytes are unescaped `c`. */
static int
count_unescaped(const char *s, char c)
{
	int n = 0;

	for (; *s != '\0'; s++) {
		if (*s == '\\' && s[1] != '\0')
			s++;
		else if (*s == c)
			n++;
	}
	return n;
}

/* The fence a line is (its run of backticks after blanks), or 0. */
static size_t
fence_of(const char *line)
{
	size_t n;

	line += strspn(line, " ");
	n = strspn(line, "`");
	return n >= 3 && line[n] == '\0' ? n : 0;
}

static void
check_markdown(char *md)
{
	char *line, *save = NULL;
	size_t open = 0, f;

	for (line = strtok_r(md, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		f = fence_of(line);
		if (open > 0) {
			/* in a block: only the fence that opened it closes it */
			if (f > 0 && f != open)
				abort();
			if (f == open)
				open = 0;
			continue;
		}
		if (f > 0) {
			open = f;
			continue;
		}
		if (markup(line))
			abort();
		if (strncmp(line, "| ", 2) == 0 && count_unescaped(line, '|') != 3)
			abort();
	}
	if (open > 0)
		abort();
}

static void
report(struct view *v, int md, int paths)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		abort();
	report_write(f, v, md, paths);
	fclose(f);
	check_inert(text, len);
	if (md)
		check_markdown(text);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model *m = model_of(data, size);
	struct view v;
	size_t i;

	if (m == NULL)
		return 0;
	view_init(&v, NULL);
	view_set_model(&v, m->name, m);
	v.log = xcalloc(m->nevents + 1, sizeof *v.log);
	for (i = 0; i < m->nevents; i++)
		v.log[v.nlog++] = xstrdup(m->events[i].text);
	report(&v, 0, 1);
	report(&v, 1, 1);
	view_release(&v);
	return 0;
}
