/*
 * logdb-t.c -- varints, and line lists that survive being extended.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/cache.h"
#include "db/logdb.h"
#include "base/util.h"
#include "tap.h"

static void
test_varint(void)
{
	const uint64_t vals[] = { 0, 1, 127, 128, 300, 16384, 1ULL << 35,
	    UINT64_MAX };
	const unsigned char *p, *end;
	struct buf b = BUF_INIT;
	uint64_t v;
	size_t i;
	int good = 1;

	for (i = 0; i < TS_NELEM(vals); i++)
		logdb_varint_put(&b, vals[i]);
	p = (const unsigned char *)b.s;
	end = p + b.len;
	for (i = 0; i < TS_NELEM(vals); i++)
		if (logdb_varint_get(&p, end, &v) != 0 || v != vals[i])
			good = 0;
	ok(good && p == end, "varints round-trip");
	is_int(b.len, 1 + 1 + 1 + 2 + 2 + 3 + 6 + 10, "varint sizes");
	p = (const unsigned char *)b.s + b.len - 10;
	ok(logdb_varint_get(&p, p + 5, &v) == -1, "truncated varint refused");
	buf_release(&b);
}

static void
occ(struct logdb_occ *o, uint64_t line)
{
	o->line = line;
	o->off = line * 10;
	o->ts = NAN;
}

static void
test_lines(void)
{
	char dir[] = "/tmp/logdb-t.XXXXXX", *path, *cause = NULL;
	struct cache *c;
	struct logdb *db;
	struct logdb_file f;
	struct logdb_occ a, z, cps[130];
	struct buf b = BUF_INIT;
	uint64_t *lines;
	int64_t job;
	size_t n, i;

	if (mkdtemp(dir) == NULL)
		return;
	path = xasprintf("%s/c.db", dir);
	ok(cache_open(path, 0, &c, &cause) == 0, "cache opened");
	logdb_open(c, &db, &cause);
	cache_begin(c, &cause);
	ok(logdb_job(db, "j", "/r", &job, &cause) == 0, "job stored");
	memset(&f, 0, sizeof f);
	f.path = (char *)"a.log";
	f.rank = -1;
	f.first_ts = f.last_ts = NAN;
	ok(logdb_file_put(db, job, &f, &cause) == 0 && f.id > 0, "file stored");
	logdb_varint_put(&b, 3);
	logdb_varint_put(&b, 4);
	logdb_varint_put(&b, 200);
	occ(&a, 3);
	occ(&z, 207);
	ok(logdb_ft_add(db, f.id, 7, 3, &a, &z, &b, &cause) == 0, "lines added");
	buf_reset(&b);
	logdb_varint_put(&b, 1000);	/* absolute: re-encoded as a gap */
	logdb_varint_put(&b, 1);
	occ(&a, 1000);
	occ(&z, 1001);
	ok(logdb_ft_add(db, f.id, 7, 2, &a, &z, &b, &cause) == 0,
	    "lines extended");
	ok(logdb_ft_lines(db, f.id, 7, &lines, &n, &cause) == 0 && n == 5,
	    "five lines back");
	ok(n == 5 && lines[0] == 3 && lines[1] == 7 && lines[2] == 207 &&
	    lines[3] == 1000 && lines[4] == 1001, "in order, gaps decoded");
	free(lines);
	buf_reset(&b);
	logdb_varint_put(&b, 9);
	occ(&a, 9);
	ok(logdb_ft_new(db, f.id, 8, 1, &a, &a, &b, &cause) == 0 &&
	    logdb_ft_lines(db, f.id, 8, &lines, &n, &cause) == 0 && n == 1 &&
	    lines[0] == 9, "a new row inserted");
	free(lines);
	ok(logdb_ft_new(db, f.id, 8, 1, &a, &a, &b, &cause) == -1 &&
	    cause != NULL, "a new row where one is: refused, not merged");
	free(cause);
	cause = NULL;
	/* two statements of many rows and two of one; line 4097 twice */
	for (i = 0; i < 130; i++)
		occ(&cps[i], i == 0 ? 1 : i == 5 || i == 129 ? 4097 :
		    10000 + (uint64_t)i);
	cps[5].off = 1;		/* replaced by the later row */
	ok(logdb_checkpoints(db, f.id, cps, 130, &cause) == 0,
	    "checkpoints stored");
	ok(logdb_checkpoint_before(db, f.id, 10100, &z, &cause) == 1 &&
	    z.line == 10100 && z.off == 101000, "a checkpoint of a batch");
	ok(logdb_checkpoint_before(db, f.id, 5000, &z, &cause) == 1 &&
	    z.line == 4097 && z.off == 40970, "checkpoint before a line");
	ok(logdb_checkpoint_before(db, f.id, 4096, &z, &cause) == 1 &&
	    z.line == 1, "the one before that");
	ok(logdb_checkpoint_before(db, f.id + 1, 10, &z, &cause) == 0,
	    "none for another file");
	cache_commit(c, &cause);
	logdb_free(db);
	cache_close(c);
	buf_release(&b);
	unlink(path);
	free(path);
	rmdir(dir);
}

int
main(void)
{
	test_varint();
	test_lines();
	return done_testing();
}
