/*
 * flowdb.c -- storing and loading flow sets.
 *
 * One job, one flow set: store deletes the job's rows in captures,
 * flow_sets, flow_hosts and flow_msgs and inserts the new ones inside one
 * BEGIN IMMEDIATE transaction.  Loading reads them back whole, or only
 * the totals and the capture rows: what the flow join compares with the
 * captures on disk to decide whether the stored set still holds
 * (src/flows/flowjoin.c).  Nothing here reads a capture.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "db/flowdb.h"
#include "base/util.h"

static const char *const formats[] = {
	"pcap", "pcapng", "nfdump-csv", "zeek-conn", "flow-csv", "flow-tsv"
};

/* The static name for a stored format string. */
static const char *
format_name(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && i < TS_NELEM(formats); i++)
		if (strcmp(s, formats[i]) == 0)
			return formats[i];
	return "unknown";
}

static int
prepare(struct cache *c, const char *sql, sqlite3_stmt **st, char **cause)
{
	if (sqlite3_prepare_v2(cache_db(c), sql, -1, st, NULL) != SQLITE_OK)
		return cache_fail(c, "cannot prepare a query", cause);
	return 0;
}

static int
exec_job(struct cache *c, const char *sql, long long job_id, char **cause)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(c, sql, &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "cannot update flows", cause);
	return 0;
}

static int
store_caps(struct cache *c, long long job_id, const struct flow_set *set,
    char **cause)
{
	const struct flow_capture *k;
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	if (prepare(c, "INSERT OR IGNORE INTO captures (job_id, path, format, size, "
	    "mtime, records, skipped, first_ts, last_ts) VALUES "
	    "(?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, cause) != 0)
		return -1;
	for (i = 0; rc == 0 && i < set->ncaps; i++) {
		k = &set->caps[i];
		sqlite3_bind_int64(st, 1, job_id);
		sqlite3_bind_text(st, 2, k->path, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, k->format, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)k->size);
		sqlite3_bind_double(st, 5, k->mtime);
		sqlite3_bind_int64(st, 6, (sqlite3_int64)k->records);
		sqlite3_bind_int64(st, 7, (sqlite3_int64)k->skipped);
		sqlite3_bind_double(st, 8, k->first);
		sqlite3_bind_double(st, 9, k->last);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = cache_fail(c, "cannot store a capture", cause);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int
store_totals(struct cache *c, long long job_id, const struct flow_set *set,
    const struct flow_params *p, char **cause)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(c, "INSERT INTO flow_sets (job_id, idle_timeout, msg_gap, "
	    "records, flows, first_ts, last_ts, bytes, pkts, ack_pkts, "
	    "ack_bytes, warnings, asm_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
	    "?, ?, ?, ?, ?)", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_double(st, 2, p->idle_timeout);
	sqlite3_bind_double(st, 3, p->msg_gap);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)set->nrecs);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)set->nflows);
	sqlite3_bind_double(st, 6, set->first);
	sqlite3_bind_double(st, 7, set->last);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)set->bytes);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)set->pkts);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)set->ack_pkts);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)set->ack_bytes);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)set->nwarn);
	sqlite3_bind_int(st, 13, FLOW_ASM_VERSION);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : cache_fail(c, "cannot store flows",
	    cause);
}

static int
store_hosts(struct cache *c, long long job_id, const struct flow_set *set,
    char **cause)
{
	sqlite3_stmt *st;
	char ip[64];
	size_t i;
	int rc = 0;

	if (prepare(c, "INSERT INTO flow_hosts (job_id, idx, ip) VALUES "
	    "(?, ?, ?)", &st, cause) != 0)
		return -1;
	for (i = 0; rc == 0 && i < set->nhosts; i++) {
		sqlite3_bind_int64(st, 1, job_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_text(st, 3, flow_addr_str(&set->hosts[i], ip,
		    sizeof ip), -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = cache_fail(c, "cannot store a host", cause);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int
store_msgs(struct cache *c, long long job_id, const struct flow_set *set,
    char **cause)
{
	const struct flow_msg *m;
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	if (prepare(c, "INSERT INTO flow_msgs (job_id, src, dst, start_ts, "
	    "end_ts, bytes, payload, pkts, sport, dport, proto, flags, qp, "
	    "ce, cnp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    &st, cause) != 0)
		return -1;
	for (i = 0; rc == 0 && i < set->nmsgs; i++) {
		m = &set->msgs[i];
		sqlite3_bind_int64(st, 1, job_id);
		sqlite3_bind_int64(st, 2, m->src);
		sqlite3_bind_int64(st, 3, m->dst);
		sqlite3_bind_double(st, 4, m->start);
		sqlite3_bind_double(st, 5, m->end);
		sqlite3_bind_int64(st, 6, (sqlite3_int64)m->bytes);
		sqlite3_bind_int64(st, 7, (sqlite3_int64)m->payload);
		sqlite3_bind_int64(st, 8, (sqlite3_int64)m->pkts);
		sqlite3_bind_int(st, 9, m->sport);
		sqlite3_bind_int(st, 10, m->dport);
		sqlite3_bind_int(st, 11, m->proto);
		sqlite3_bind_int(st, 12, m->flags);
		sqlite3_bind_int64(st, 13, m->qp);
		sqlite3_bind_int64(st, 14, m->ce);
		sqlite3_bind_int64(st, 15, m->cnp);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = cache_fail(c, "cannot store a message", cause);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

int
flowdb_store(struct cache *c, long long job_id, const struct flow_set *set,
    const struct flow_params *p, char **cause)
{
	static const char *const del[] = {
		"DELETE FROM captures WHERE job_id = ?",
		"DELETE FROM flow_sets WHERE job_id = ?",
		"DELETE FROM flow_hosts WHERE job_id = ?",
		"DELETE FROM flow_msgs WHERE job_id = ?"
	};
	struct flow_params dflt;
	size_t i;

	if (p == NULL) {
		flow_params_default(&dflt);
		p = &dflt;
	}
	if (cache_begin(c, cause) != 0)
		return -1;
	for (i = 0; i < TS_NELEM(del); i++)
		if (exec_job(c, del[i], job_id, cause) != 0)
			goto fail;
	if (store_caps(c, job_id, set, cause) != 0 ||
	    store_totals(c, job_id, set, p, cause) != 0 ||
	    store_hosts(c, job_id, set, cause) != 0 ||
	    store_msgs(c, job_id, set, cause) != 0)
		goto fail;
	return cache_commit(c, cause);
fail:
	cache_rollback(c);
	return -1;
}

/* The stored totals of job_id's set; *version, its asm_version. */
static int
load_totals(struct cache *c, long long job_id, struct flow_set *set,
    struct flow_params *p, int *version, char **cause)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(c, "SELECT idle_timeout, msg_gap, records, flows, "
	    "first_ts, last_ts, bytes, pkts, ack_pkts, ack_bytes, warnings, "
	    "asm_version FROM flow_sets WHERE job_id = ?", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job_id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (p != NULL) {
			p->idle_timeout = sqlite3_column_double(st, 0);
			p->msg_gap = sqlite3_column_double(st, 1);
		}
		set->nrecs = (uint64_t)sqlite3_column_int64(st, 2);
		set->nflows = (uint64_t)sqlite3_column_int64(st, 3);
		set->first = sqlite3_column_double(st, 4);
		set->last = sqlite3_column_double(st, 5);
		set->bytes = (uint64_t)sqlite3_column_int64(st, 6);
		set->pkts = (uint64_t)sqlite3_column_int64(st, 7);
		set->ack_pkts = (uint64_t)sqlite3_column_int64(st, 8);
		set->ack_bytes = (uint64_t)sqlite3_column_int64(st, 9);
		set->nwarn = (uint64_t)sqlite3_column_int64(st, 10);
		if (version != NULL)
			*version = sqlite3_column_int(st, 11);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : cache_fail(c, "cannot read flows",
	    cause);
}

static int
load_caps(struct cache *c, long long job_id, struct flow_set *set,
    char **cause)
{
	struct flow_capture *k;
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	if (prepare(c, "SELECT path, format, size, mtime, records, skipped, "
	    "first_ts, last_ts FROM captures WHERE job_id = ? ORDER BY id",
	    &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		set->caps = xgrow(set->caps, &cap, set->ncaps + 1,
		    sizeof *set->caps);
		k = &set->caps[set->ncaps++];
		k->path = xstrdup((const char *)sqlite3_column_text(st, 0));
		k->format = format_name((const char *)
		    sqlite3_column_text(st, 1));
		k->size = (uint64_t)sqlite3_column_int64(st, 2);
		k->mtime = sqlite3_column_double(st, 3);
		k->records = (uint64_t)sqlite3_column_int64(st, 4);
		k->skipped = (uint64_t)sqlite3_column_int64(st, 5);
		k->first = sqlite3_column_double(st, 6);
		k->last = sqlite3_column_double(st, 7);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : cache_fail(c, "cannot read captures",
	    cause);
}

static int
load_hosts(struct cache *c, long long job_id, struct flow_set *set,
    char **cause)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	if (prepare(c, "SELECT ip FROM flow_hosts WHERE job_id = ? ORDER BY "
	    "idx", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		set->hosts = xgrow(set->hosts, &cap, set->nhosts + 1,
		    sizeof *set->hosts);
		if (flow_addr_parse((const char *)sqlite3_column_text(st, 0),
		    &set->hosts[set->nhosts++]) != 0) {
			sqlite3_finalize(st);
			return ts_fail(cause, "cache '%s': bad host address in "
			    "flow_hosts", cache_path(c));
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : cache_fail(c, "cannot read hosts",
	    cause);
}

static void
msg_from_row(sqlite3_stmt *st, struct flow_msg *m)
{
	m->src = (uint32_t)sqlite3_column_int64(st, 0);
	m->dst = (uint32_t)sqlite3_column_int64(st, 1);
	m->start = sqlite3_column_double(st, 2);
	m->end = sqlite3_column_double(st, 3);
	m->bytes = (uint64_t)sqlite3_column_int64(st, 4);
	m->payload = (uint64_t)sqlite3_column_int64(st, 5);
	m->pkts = (uint64_t)sqlite3_column_int64(st, 6);
	m->sport = (uint16_t)sqlite3_column_int(st, 7);
	m->dport = (uint16_t)sqlite3_column_int(st, 8);
	m->proto = (uint8_t)sqlite3_column_int(st, 9);
	m->flags = (uint8_t)sqlite3_column_int(st, 10);
	m->qp = (uint32_t)sqlite3_column_int64(st, 11);
	m->ce = (uint32_t)sqlite3_column_int64(st, 12);
	m->cnp = (uint32_t)sqlite3_column_int64(st, 13);
}

static int
load_msgs(struct cache *c, long long job_id, struct flow_set *set,
    char **cause)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc, bad = 0;

	if (prepare(c, "SELECT src, dst, start_ts, end_ts, bytes, payload, "
	    "pkts, sport, dport, proto, flags, qp, ce, cnp FROM flow_msgs "
	    "WHERE job_id = ? ORDER BY rowid", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		set->msgs = xgrow(set->msgs, &cap, set->nmsgs + 1,
		    sizeof *set->msgs);
		msg_from_row(st, &set->msgs[set->nmsgs]);
		if (set->msgs[set->nmsgs].src >= set->nhosts ||
		    set->msgs[set->nmsgs].dst >= set->nhosts)
			bad = 1;
		set->nmsgs++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "cannot read messages", cause);
	if (bad)
		return ts_fail(cause, "cache '%s': a flow message names an "
		    "unknown host", cache_path(c));
	return 0;
}

int
flowdb_load(struct cache *c, long long job_id, struct flow_set *set,
    struct flow_params *p, char **cause)
{
	int rc;

	memset(set, 0, sizeof *set);
	if ((rc = load_totals(c, job_id, set, p, NULL, cause)) != 1)
		return rc;
	if (load_caps(c, job_id, set, cause) != 0 ||
	    load_hosts(c, job_id, set, cause) != 0 ||
	    load_msgs(c, job_id, set, cause) != 0) {
		flow_set_free(set);
		return -1;
	}
	return 1;
}

int
flowdb_captures(struct cache *c, long long job_id, struct flow_set *set,
    struct flow_params *p, int *version, char **cause)
{
	int rc;

	memset(set, 0, sizeof *set);
	if ((rc = load_totals(c, job_id, set, p, version, cause)) != 1)
		return rc;
	if (load_caps(c, job_id, set, cause) != 0) {
		flow_set_free(set);
		return -1;
	}
	return 1;
}
