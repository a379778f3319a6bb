/*
 * flowdb-t.c -- flow sets in the cache: store and load (db/flowdb.c);
 * through the flow join (flowjoin_load()), reuse when nothing changed,
 * re-read when a capture or the parameters changed, keep the old set
 * when reading fails; jobs made for flow sets (db/jobdb.c); the
 * captures of an indexed job found as flow_find_captures() finds them,
 * its unchanged logs not probed (flowjoin_captures()).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "db/flowdb.h"
#include "db/jobdb.h"
#include "db/logdb.h"
#include "flows/flowasm.h"
#include "flows/flowjoin.h"
#include "flows/pcapw.h"
#include "logs/index.h"
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

/*
 * Mark the stored set: a load that comes back with the mark reused the
 * cache; one without it read the captures again.
 */
static void
mark_stored(struct cache *c)
{
	char *cause = NULL;

	if (cache_exec(c, "UPDATE flow_msgs SET bytes = 4242 WHERE rowid = "
	    "(SELECT min(rowid) FROM flow_msgs)", &cause) != 0)
		free(cause);
}

static int
reused(const struct flow_set *set)
{
	return set->nmsgs > 0 && set->msgs[0].bytes == 4242;
}

/* flowjoin_load() through the cache: 0 and *set, or -1. */
static int
load(struct cache *c, const struct job_ref *job, const char **paths,
    size_t n, const struct flow_params *p, struct flow_set *set,
    char **cause)
{
	return flowjoin_load(c, job, (char *const *)paths, n, p, NULL, NULL,
	    set, cause);
}

static void
test_jobs(struct cache *c, const struct job_ref *j)
{
	struct job_ref a, b;
	char *cause = NULL;

	ok(jobdb_flows(c, "j", j->root, &a, &cause) == 0 && a.id == j->id,
	    "jobdb_flows finds a job by name and root");
	jobdb_release(&a);
	ok(jobdb_flows(c, "j", "/elsewhere", &a, &cause) == -1 &&
	    strstr(cause, "rooted at") != NULL &&
	    strstr(cause, "--job") != NULL,
	    "the same name under another root is refused");
	free(cause);
	cause = NULL;
	ok(jobdb_flows(c, "k", "/elsewhere", &a, &cause) == 0 &&
	    jobdb_flows(c, "k", "/elsewhere", &b, &cause) == 0 &&
	    a.id != j->id && a.id == b.id && !a.has_logs,
	    "a new job is made once, with no logs");
	jobdb_release(&a);
	jobdb_release(&b);
}

/* The captures under root both ways, joined by spaces with the root cut. */
static char *
found(const struct job_ref *ref, const char *root)
{
	struct buf b = BUF_INIT;
	char **paths, *cause = NULL;
	size_t n, i;

	if ((ref != NULL ? flowjoin_captures(ref, root, &paths, &n, &cause) :
	    flow_find_captures(root, &paths, &n, &cause)) != 0) {
		printf("# %s\n", cause);
		free(cause);
		return xstrdup("(error)");
	}
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i > 0 ? " " : "", paths[i] +
		    strlen(root) + 1);
	flow_paths_free(paths, n);
	return b.s != NULL ? buf_detach(&b) : xstrdup("");
}

/* Both ways give `want`. */
static void
same_found(const struct job_ref *ref, const char *root, const char *want,
    const char *what)
{
	char *a = found(NULL, root), *b = found(ref, root);

	ok(strcmp(a, want) == 0 && strcmp(b, a) == 0, what);
	if (strcmp(a, want) != 0 || strcmp(b, a) != 0)
		printf("# want '%s', flows '%s', diagnose '%s'\n", want, a, b);
	free(a);
	free(b);
}

static struct logdb_file *
row(struct job_ref *ref, const char *path)
{
	size_t i;

	for (i = 0; i < ref->nfiles; i++)
		if (strcmp(ref->files[i].path, path) == 0)
			return &ref->files[i];
	return NULL;
}

static const char rank_log[] =
    "2026-01-01 10:00:00 INFO [rank0] iteration 1/10 | loss 2.31\n"
    "2026-01-01 10:00:01 INFO [rank0] iteration 2/10 | loss 2.20\n";

/*
 * A job of logs, a packet capture, flow records and flow records that
 * --log made a log: indexed, its captures as `flows DIR` finds them.
 */
static void
test_captures(struct cache *c)
{
	static const char *const names[] = { "node0.log", "node1.log",
	    "flows.csv", "records.txt", "capture.pcap" };
	struct timeval tv[2] = { { 1000, 0 }, { 1000, 0 } };
	struct index_opts io;
	struct index_stats st;
	struct job_ref ref;
	struct logdb_file *f;
	struct pcapw *w;
	char *d = xasprintf("%s/cj", dir), root[PATH_MAX], *p, *logs[1];
	char *cause = NULL;
	size_t i;

	mkdir(d, 0777);
	if (realpath(d, root) == NULL)
		ts_fatal("cannot resolve %s", d);
	free(d);
	write_file((p = xasprintf("%s/node0.log", root)), rank_log);
	free(p);
	write_file((p = xasprintf("%s/node1.log", root)), rank_log);
	free(p);
	write_file((p = xasprintf("%s/flows.csv", root)), csv1);
	free(p);
	write_file((logs[0] = xasprintf("%s/records.txt", root)), csv1);
	p = xasprintf("%s/capture.pcap", root);
	if ((w = pcapw_open(p, 256, &cause)) == NULL ||
	    pcapw_close(w, &cause) != 0)
		ts_fatal("%s", cause);
	free(p);
	for (i = 0; i < TS_NELEM(names); i++) {	/* not racy: no head hash */
		p = xasprintf("%s/%s", root, names[i]);
		utimes(p, tv);
		free(p);
	}
	memset(&io, 0, sizeof io);
	memset(&st, 0, sizeof st);
	io.threads = 1;
	io.logs = logs;
	io.nlogs = 1;
	p = root;
	ok(index_run(c, &p, 1, &io, &st, &cause) == 0 &&
	    jobdb_find(c, root, &ref, &cause) == 1, "a job of logs and "
	    "captures indexed");
	free(st.names);
	free(st.empty);
	ok(ref.nfiles == 3 && (f = row(&ref, "node0.log")) != NULL &&
	    f->found_kind == 0 && f->head == 0 &&
	    (f = row(&ref, "records.txt")) != NULL && f->found_kind == 2,
	    "its logs, and flow records that are a log by --log");
	same_found(&ref, root, "capture.pcap", "the packet capture is found "
	    "as flows finds it");
	unlink((p = xasprintf("%s/capture.pcap", root)));
	free(p);
	same_found(&ref, root, "flows.csv records.txt", "without it the flow "
	    "records, the one --log made a log too");
	if ((f = row(&ref, "records.txt")) != NULL)
		f->found_kind = 0;
	p = found(&ref, root);
	is_str(p, "flows.csv", "a file held as a log found no capture is not "
	    "probed");
	free(p);
	tv[0].tv_sec = tv[1].tv_sec = 2000;
	utimes(logs[0], tv);
	same_found(&ref, root, "flows.csv records.txt", "one changed since "
	    "is probed");
	jobdb_release(&ref);
	free(logs[0]);
}

int
main(void)
{
	struct cache *c = NULL;
	struct flow_set fresh, got, again;
	struct flow_params p, sp;
	struct job_ref job;
	char *db, *csv, *cause = NULL, *sql, *s;
	const char *paths[2];
	struct timeval tv[2] = { { 1000, 0 }, { 1000, 0 } };
	int version = -1;

	if (mkdtemp(dir) == NULL)
		return 1;
	db = xasprintf("%s/cache.db", dir);
	csv = xasprintf("%s/flows.csv", dir);
	write_file(csv, csv1);
	utimes(csv, tv);
	ok(cache_open(db, 0, &c, &cause) == 0, "cache opens");
	sql = xasprintf("INSERT INTO jobs (id, name, root, created) VALUES "
	    "(7, 'j', '%s', 0)", dir);
	ok(cache_exec(c, sql, &cause) == 0 &&
	    jobdb_find(c, "j", &job, &cause) == 1 && job.id == 7,
	    "a job to store flows for");
	free(sql);
	paths[0] = csv;

	ok(load(c, &job, paths, 1, NULL, &fresh, &cause) == 0,
	    "first load reads the capture");
	is_int(fresh.nmsgs, 3, "three messages");
	ok(strcmp(fresh.caps[0].path, csv) == 0,
	    "the set read names its capture as given");
	ok(flowdb_load(c, 7, &got, NULL, &cause) == 1 &&
	    same_set(&fresh, &got), "and is stored whole");
	flow_set_free(&got);
	mark_stored(c);
	ok(load(c, &job, paths, 1, NULL, &got, &cause) == 0 && reused(&got),
	    "second load reuses the cache");
	ok(got.ncaps == 1 && strcmp(got.caps[0].format, "flow-csv") == 0 &&
	    got.caps[0].records == 3, "capture row loaded");
	flow_set_free(&got);
	s = query_text(c, "SELECT path FROM captures WHERE job_id = 7");
	is_str(s, "flows.csv", "capture path stored relative to the root");
	free(s);
	s = query_text(c, "SELECT group_concat(ip) FROM flow_hosts "
	    "WHERE job_id = 7");
	is_str(s, "10.0.0.1,10.0.0.2", "hosts stored as text in order");
	free(s);
	flow_params_default(&p);
	ok(flowdb_captures(c, 7, &got, &sp, &version, &cause) == 1 &&
	    got.ncaps == 1 && got.nmsgs == 0 && got.nrecs == 3 &&
	    sp.msg_gap == p.msg_gap && version == FLOW_ASM_VERSION,
	    "what the set was made from, without its messages");
	flow_set_free(&got);

	p.msg_gap = 1.0;
	ok(load(c, &job, paths, 1, &p, &got, &cause) == 0 && !reused(&got),
	    "other parameters: read again");
	flow_set_free(&got);
	mark_stored(c);
	paths[1] = csv;
	ok(load(c, &job, paths, 2, &p, &got, &cause) == 0 && reused(&got),
	    "the same file twice is the same list");
	flow_set_free(&got);
	ok(cache_exec(c, "UPDATE flow_sets SET asm_version = asm_version - 1",
	    &cause) == 0 && load(c, &job, paths, 1, &p, &got, &cause) == 0 &&
	    !reused(&got), "a set made by another assembler version: read "
	    "again");
	flow_set_free(&got);
	mark_stored(c);
	ok(load(c, &job, paths, 1, &p, &got, &cause) == 0 && reused(&got),
	    "and stored with this version");
	flow_set_free(&got);
	ok(load(NULL, NULL, paths, 1, NULL, &got, &cause) == 0 &&
	    !reused(&got) && got.nmsgs == 3, "without a cache: read");
	flow_set_free(&got);

	write_file(csv, "ts,te,src,dst,bytes\n200,201,10.0.0.9,10.0.0.1,5\n");
	ok(load(c, &job, paths, 1, &p, &again, &cause) == 0 &&
	    !reused(&again), "a changed capture is read again");
	ok(again.nmsgs == 1 && again.nhosts == 2, "new contents used");

	paths[0] = "/nonexistent/flows.pcap";
	ok(load(c, &job, paths, 1, &p, &got, &cause) == -1 && cause != NULL,
	    "a missing capture fails");
	free(cause);
	cause = NULL;
	ok(flowdb_load(c, 7, &got, NULL, &cause) == 1 && same_set(&again, &got),
	    "the failed load left the stored set alone");
	flow_set_free(&got);
	ok(flowdb_load(c, 8, &got, NULL, &cause) == 0 && got.nmsgs == 0,
	    "a job without flows loads nothing");
	ok(flowdb_store(c, 99, &again, NULL, &cause) == -1 && cause != NULL,
	    "storing for a missing job fails");
	free(cause);
	cause = NULL;
	test_jobs(c, &job);
	test_captures(c);

	jobdb_release(&job);
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
