/*
 * reader-t.c -- the line reader: CRLF, missing final newline, NUL bytes,
 * gzip (several members), truncated gzip, overlong lines, offsets,
 * resuming at an offset, reading a line back.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "logs/reader.h"
#include "base/util.h"
#include "tap.h"

static char dir[] = "/tmp/reader-t.XXXXXX";

static char *
write_file(const char *name, const char *data, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	fwrite(data, 1, len, f);
	fclose(f);
	return path;
}

static char *
write_gz(const char *name, const char *const *members, int n)
{
	char *path = xasprintf("%s/%s", dir, name);
	gzFile g;
	int i;

	unlink(path);
	for (i = 0; i < n; i++) {
		g = gzopen(path, i == 0 ? "wb" : "ab");
		gzputs(g, members[i]);
		gzclose(g);
	}
	return path;
}

/* All lines of a file joined by '|', offsets in *offs. */
static char *
slurp(const char *path, uint64_t off, uint64_t line, uint64_t *offs,
    char **cause, int *rc)
{
	struct buf b = BUF_INIT;
	struct reader *r;
	struct reader_line l;
	int i = 0;

	*rc = reader_open(path, off, line, &r, cause);
	if (*rc != 0)
		return NULL;
	while ((*rc = reader_next(r, &l, cause)) == 1) {
		if (b.len > 0)
			buf_addc(&b, '|');
		buf_add(&b, l.s, l.len);
		if (offs != NULL && i < 16)
			offs[i++] = l.off;
	}
	reader_close(r);
	return buf_detach(&b);
}

static void
test_plain(void)
{
	uint64_t offs[16];
	char *p, *s, *cause = NULL;
	int rc;

	p = write_file("crlf.log", "alpha\r\nbeta\n\ngamma", 19);
	s = slurp(p, 0, 0, offs, &cause, &rc);
	is_str(s, "alpha|beta||gamma", "CRLF stripped, last line kept");
	is_int(rc, 0, "clean end");
	is_int(offs[1], 7, "offset of line 2");
	is_int(offs[3], 13, "offset of the unterminated line");
	free(s);
	s = slurp(p, 7, 1, NULL, &cause, &rc);
	is_str(s, "beta||gamma", "resume at an offset");
	free(s);
	free(p);

	p = write_file("nul.log", "a\0b\nc\n", 6);
	{
		struct reader *r;
		struct reader_line l;

		reader_open(p, 0, 0, &r, &cause);
		reader_next(r, &l, &cause);
		is_int(l.len, 3, "NUL byte kept in the line");
		reader_next(r, &l, &cause);
		is_int(l.lineno, 2, "line number after a NUL line");
		reader_close(r);
	}
	free(p);
	rc = reader_open("/nonexistent/x.log", 0, 0, (struct reader **)&s,
	    &cause);
	ok(rc == -1 && strstr(cause, "cannot open '/nonexistent/x.log'") != NULL,
	    "missing file named in the error");
	free(cause);
}

static void
test_long(void)
{
	size_t n = 300000;
	char *data = xmalloc(n + 8), *p, *cause = NULL;
	struct reader *r;
	struct reader_line l;

	memset(data, 'x', n);
	memcpy(data + n, "\nok\n", 4);
	p = write_file("long.log", data, n + 4);
	reader_open(p, 0, 0, &r, &cause);
	ok(reader_next(r, &l, &cause) == 1, "long line read");
	is_int(l.len, READER_LINE_MAX, "prefix kept");
	is_int(l.full_len, n, "full length counted");
	ok(reader_next(r, &l, &cause) == 1 && l.len == 2 &&
	    memcmp(l.s, "ok", 2) == 0, "line after the long one");
	is_int(l.off, n + 1, "its offset");
	is_int(l.lineno, 2, "its number");
	ok(reader_next(r, &l, &cause) == 0, "then the end");
	reader_close(r);
	free(p);
	free(data);
}

static void
test_gzip(void)
{
	const char *m[] = { "one\ntwo\r\n", "three\nfour" };
	uint64_t offs[16];
	struct buf big = BUF_INIT, line = BUF_INIT;
	char *p, *s, *cause = NULL, *q;
	FILE *f;
	long size;
	int rc, i;

	p = write_gz("x.gz", m, 2);
	s = slurp(p, 0, 0, offs, &cause, &rc);
	is_str(s, "one|two|three|four", "gzip with two members");
	is_int(offs[2], 9, "uncompressed offset");
	ok(reader_line_at(p, 9, &line, &cause) == 0 &&
	    strcmp(buf_str(&line), "three") == 0, "line read back by offset");
	free(s);
	free(p);

	for (i = 0; i < 20000; i++)
		buf_addf(&big, "line %d of a compressible log %d\n", i, i * 7);
	m[0] = big.s;
	p = write_gz("t.gz", m, 1);
	f = fopen(p, "r+b");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	truncate(p, size / 2);
	s = slurp(p, 0, 0, NULL, &cause, &rc);
	is_int(rc, -1, "truncated gzip is an error");
	ok(cause != NULL && strstr(cause, "truncated") != NULL &&
	    strstr(cause, "t.gz': line ") != NULL, "which names file and line");
	q = s != NULL ? strrchr(s, '|') : NULL;
	ok(s != NULL && strncmp(s, "line 0 of", 9) == 0 && q != NULL,
	    "lines before the damage are kept");
	free(s);
	free(p);
	free(cause);
	buf_release(&big);
	buf_release(&line);
}

int
main(void)
{
	char *cmd;

	if (mkdtemp(dir) == NULL)
		return 1;
	test_plain();
	test_long();
	test_gzip();
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot clean %s\n", dir);
	free(cmd);
	return done_testing();
}
