/*
 * pool.c -- the runs of the same job (pool.h).
 *
 * A run's shape is its node and rank counts from the cache, and the
 * settings that say how it was laid out and how big its model is, read
 * from the first lines of its first log: a settings banner's
 * "  data_parallel_size ....... 2" lines and "name: value" fields
 * ("using world size: 4, data-parallel size: 2").  Keys are compared in
 * one spelling (lower case, '_' for blanks and dashes); only settings of
 * the shape count (world size, the parallel sizes, layers, hidden size,
 * heads, sequence length, batch sizes), so a changed learning rate or
 * seed keeps a run of the same job.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "db/diagdb.h"
#include "diag/pool.h"
#include "logs/lineparse.h"
#include "logs/reader.h"
#include "base/util.h"

#define HEAD_LINES 400	/* lines of a log read for its settings */

/* Settings of the shape: exact keys, and parts of keys. */
static const char *const exact_keys[] = { "dp", "pp", "tp", "cp", "ep" };
static const char *const key_parts[] = {
	"world_size", "parallel_size", "num_layers", "hidden_size",
	"attention_heads", "seq_length", "batch_size", "num_nodes",
	"nproc_per_node",
};

static int
shape_key(const char *k)
{
	size_t i;

	for (i = 0; i < TS_NELEM(exact_keys); i++)
		if (strcmp(k, exact_keys[i]) == 0)
			return 1;
	for (i = 0; i < TS_NELEM(key_parts); i++)
		if (strstr(k, key_parts[i]) != NULL)
			return 1;
	return 0;
}

/* s[0..n) as a key: trimmed, lower case, '_' for blanks and dashes. */
static char *
norm_key(const char *s, size_t n)
{
	char *k;
	size_t i;

	while (n > 0 && (*s == ' ' || *s == '>'))
		s++, n--;
	if (n > 6 && strncmp(s, "using ", 6) == 0)
		s += 6, n -= 6;
	while (n > 0 && s[n - 1] == ' ')
		n--;
	k = xstrndup(s, n);
	for (i = 0; k[i] != '\0'; i++)
		k[i] = k[i] == ' ' || k[i] == '-' ? '_' :
		    (char)tolower((unsigned char)k[i]);
	return k;
}

/* Add key = s[0..n) (its first word) when it is of the shape and new. */
static void
kv_add(struct pool_kv **kv, size_t *nkv, char *key, const char *s,
    size_t n)
{
	size_t i, e;

	while (n > 0 && *s == ' ')
		s++, n--;
	for (e = 0; e < n && s[e] != ' ' && s[e] != ',' && s[e] != '\0';
	    e++)
		;
	for (i = 0; i < *nkv && strcmp((*kv)[i].key, key) != 0; i++)
		;
	if (e == 0 || i < *nkv || !shape_key(key)) {
		free(key);
		return;
	}
	*kv = xreallocarray(*kv, *nkv + 1, sizeof **kv);
	(*kv)[*nkv].key = key;
	(*kv)[(*nkv)++].value = xstrndup(s, e);
}

void
pool_settings_line(const char *msg, size_t len, struct pool_kv **kv,
    size_t *nkv)
{
	const char *dots = len > 4 ? memmem(msg, len, "....", 4) : NULL;
	const char *p = msg, *end = msg + len, *seg, *colon;

	if (dots != NULL) {	/* a banner: "  name ........ value" */
		const char *v = dots;

		while (v < end && *v == '.')
			v++;
		kv_add(kv, nkv, norm_key(msg, (size_t)(dots - msg)), v,
		    (size_t)(end - v));
		return;
	}
	while (p < end) {	/* fields: "name: value, name: value" */
		seg = memchr(p, ',', (size_t)(end - p));
		seg = seg != NULL ? seg : end;
		if ((colon = memchr(p, ':', (size_t)(seg - p))) != NULL &&
		    colon > p)
			kv_add(kv, nkv, norm_key(p, (size_t)(colon - p)),
			    colon + 1, (size_t)(seg - colon - 1));
		p = seg + 1;
	}
}

/* The shape settings of the first lines of root/log. */
static void
read_settings(const char *root, const char *log, struct pool_run *r)
{
	char *path = xasprintf("%s/%s", root, log), *cause = NULL;
	struct reader *rd;
	struct reader_line rl;
	struct lp_line lp;

	if (reader_open(path, 0, 0, &rd, &cause) == 0) {
		while (reader_next(rd, &rl, &cause) == 1 &&
		    rl.lineno <= HEAD_LINES) {
			lp_parse(rl.s, rl.len, &lp);
			pool_settings_line(lp.msg, lp.msg_len, &r->kv, &r->nkv);
		}
		reader_close(rd);
	}
	free(cause);
	free(path);
}

int
pool_run_load(struct cache *c, int64_t id, struct pool_run *out,
    char **cause)
{
	struct diagdb_shape s;

	memset(out, 0, sizeof *out);
	if (diagdb_job_shape(c, id, &s, cause) != 0)
		return -1;
	out->name = s.name;
	s.name = NULL;
	out->nodes = s.nodes;
	out->ranks = s.ranks;
	if (s.log != NULL)
		read_settings(s.root, s.log, out);
	diagdb_shape_release(&s);
	return 0;
}

void
pool_run_release(struct pool_run *r)
{
	size_t i;

	for (i = 0; i < r->nkv; i++) {
		free(r->kv[i].key);
		free(r->kv[i].value);
	}
	free(r->kv);
	free(r->name);
	memset(r, 0, sizeof *r);
}

int
pool_same_shape(const struct pool_run *a, const struct pool_run *b,
    const char **why)
{
	size_t i, k;

	*why = NULL;
	if (a->nodes != b->nodes)
		*why = "another number of nodes";
	else if (a->ranks != b->ranks)
		*why = "another number of ranks";
	for (i = 0; i < a->nkv && *why == NULL; i++)
		for (k = 0; k < b->nkv; k++)
			if (strcmp(a->kv[i].key, b->kv[k].key) == 0 &&
			    strcmp(a->kv[i].value, b->kv[k].value) != 0)
				*why = "another layout or model size";
	return *why == NULL;
}

double
pool_likeness(size_t common, size_t na, size_t nb)
{
	size_t all = na + nb - common;

	return all > 0 ? (double)common / (double)all : 0;
}
