/*
 * flowdb-t.c -- flow sets in the cache: store, load, reuse when nothing
 * changed, re-read when a capture or the parameters changed, keep the
 * old set when reading fails.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "db/flowdb.h"
#include "tap.h"
#include "base/util.h"

static char dir[] = "/tmp/flowdb-t.XXXXXX";

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	fputs(text, fp);
	fclose(fp);
}

static int
same_set(const struct flow_set *a, const struct flow_set *b)
{
	size_t i;

	if (a->nhosts != b->nhosts || a->nmsgs != b->nmsgs ||
	    a->nrecs != b->nrecs || a->nflows != b->nflows ||
	    a->bytes != b->bytes || a->first != b->first ||
	    a->ncaps != b->ncaps)
		return 0;
	for (i = 0; i < a->nhosts; i++)
		if (flow_addr_cmp(&a->hosts[i], &b->hosts[i]) != 0)
			return 0;
	for (i = 0; i < a->nmsgs; i++) {
		const struct flow_msg *m = &a->msgs[i], *n = &b->msgs[i];

		if (m->src != n->src || m->dst != n->dst ||
		    m->start != n->start || m->end != n->end ||
		    m->bytes != n->bytes || m->payload != n->payload ||
		    m->pkts != n->pkts || m->sport != n->sport ||
		    m->dport != n->dport || m->proto != n->proto ||
		    m->flags != n->flags || m->qp != n->qp || m->ce != n->ce ||
		    m->cnp != n->cnp)
			return 0;
	}
	return 1;
}

static char *
query_text(struct cache *c, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(cache_db(c), sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static const char csv1[] =
    "ts,te,src,dst,sport,dport,proto,bytes,packets,ce\n"
    "100.0,100.1,10.0.0.1,10.0.0.2,1,4791,udp,1000,10,2\n"
    "100.5,100.6,10.0.0.2,10.0.0.1,1,4791,udp,500,5,0\n"
    "101.0,101.1,10.0.0.1,10.0.0.2,1,4791,udp,1000,10,0\n";

int
main(void)
{
	struct cache *c = NULL;
	struct flow_set fresh, got, again;
	struct flow_params p;
	char *db, *csv, *cause = NULL, *sql, *s;
	const char *paths[2];
	struct timeval tv[2] = { { 1000, 0 }, { 1000, 0 } };
	int reused = -1;

	if (mkdtemp(dir) == NULL)
		return 1;
	db = xasprintf("%s/cache.db", dir);
	csv = xasprintf("%s/flows.csv", dir);
	write_file(csv, csv1);
	utimes(csv, tv);
	ok(cache_open(db, 0, &c, &cause) == 0, "cache opens");
	sql = xasprintf("INSERT INTO jobs (id, name, root, created) VALUES "
	    "(7, 'j', '%s', 0)", dir);
	ok(cache_exec(c, sql, &cause) == 0, "a job to store flows for");
	free(sql);
	paths[0] = csv;

	ok(flowdb_ingest(c, 7, paths, 1, NULL, NULL, NULL, &fresh, &reused,
	    &cause) == 0 && reused == 0, "first ingest reads the capture");
	is_int(fresh.nmsgs, 3, "three messages");
	ok(flowdb_ingest(c, 7, paths, 1, NULL, NULL, NULL, &got, &reused,
	    &cause) == 0 && reused == 1, "second ingest reuses the cache");
	ok(same_set(&fresh, &got), "the stored set is the set");
	ok(got.ncaps == 1 && strcmp(got.caps[0].format, "flow-csv") == 0 &&
	    got.caps[0].records == 3, "capture row loaded");
	s = query_text(c, "SELECT path FROM captures WHERE job_id = 7");
	is_str(s, "flows.csv", "capture path stored relative to the root");
	free(s);
	s = query_text(c, "SELECT group_concat(ip) FROM flow_hosts "
	    "WHERE job_id = 7");
	is_str(s, "10.0.0.1,10.0.0.2", "hosts stored as text in order");
	free(s);
	flow_set_free(&got);

	flow_params_default(&p);
	p.msg_gap = 1.0;
	ok(flowdb_fresh(c, 7, paths, 1, &p, &cause) == 0,
	    "other parameters: not fresh");
	paths[1] = csv;
	ok(flowdb_fresh(c, 7, paths, 2, NULL, &cause) == 1,
	    "the same file twice is the same list");
	ok(cache_exec(c, "UPDATE flow_sets SET asm_version = asm_version - 1",
	    &cause) == 0 && flowdb_fresh(c, 7, paths, 1, NULL, &cause) == 0,
	    "a set made by another assembler version: not fresh");
	ok(flowdb_ingest(c, 7, paths, 1, NULL, NULL, NULL, &got, &reused,
	    &cause) == 0 && reused == 0 && same_set(&fresh, &got),
	    "so it is made again");
	flow_set_free(&got);
	ok(flowdb_fresh(c, 7, paths, 1, NULL, &cause) == 1,
	    "and stored with this version");

	write_file(csv, "ts,te,src,dst,bytes\n200,201,10.0.0.9,10.0.0.1,5\n");
	ok(flowdb_ingest(c, 7, paths, 1, NULL, NULL, NULL, &again, &reused,
	    &cause) == 0 && reused == 0, "a changed capture is read again");
	ok(again.nmsgs == 1 && again.nhosts == 2, "new contents used");

	paths[0] = "/nonexistent/flows.pcap";
	ok(flowdb_ingest(c, 7, paths, 1, NULL, NULL, NULL, &got, &reused,
	    &cause) == -1 && cause != NULL, "a missing capture fails");
	free(cause);
	cause = NULL;
	ok(flowdb_load(c, 7, &got, NULL, &cause) == 1 && same_set(&again, &got),
	    "the failed ingest left the stored set alone");
	flow_set_free(&got);
	ok(flowdb_load(c, 8, &got, NULL, &cause) == 0 && got.nmsgs == 0,
	    "a job without flows loads nothing");
	ok(flowdb_store(c, 99, &again, NULL, &cause) == -1 &&
	    strstr(cause, "no job 99") != NULL, "storing for a missing job fails");
	free(cause);
	cause = NULL;

	{
		long long id = 0, id2 = 0;

		ok(flowdb_job(c, "j", dir, &id, &cause) == 0 && id == 7,
		    "flowdb_job finds a job by name and root");
		ok(flowdb_job(c, "j", "/elsewhere", &id, &cause) == -1 &&
		    strstr(cause, "rooted at") != NULL &&
		    strstr(cause, "--job") != NULL,
		    "the same name under another root is refused");
		free(cause);
		cause = NULL;
		ok(flowdb_job(c, "k", "/elsewhere", &id, &cause) == 0 &&
		    flowdb_job(c, "k", "/elsewhere", &id2, &cause) == 0 &&
		    id != 7 && id == id2, "a new job is made once");
	}

	flow_set_free(&fresh);
	flow_set_free(&again);
	cache_close(c);
	unlink(csv);
	unlink(db);
	sql = xasprintf("rm -rf '%s'", dir);
	if (system(sql) != 0)
		printf("# cannot remove %s\n", dir);
	free(sql);
	free(db);
	free(csv);
	return done_testing();
}
