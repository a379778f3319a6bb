/*
 * pool.h -- which healthy runs a job is compared with.
 *
 * A healthy run of the cache speaks for a job only when it is a run of
 * the same job: the same program (most of its templates are the job's,
 * see jobload.c) and the same shape -- as many nodes and ranks, and, where
 * both logged their settings (a banner of "name ..... value" lines, or
 * Megatron's "using world size: 4, data-parallel size: 2, ..."), the same
 * parallel layout and model size.  Runs named for it (--baseline) need
 * no such likeness.
 */
#ifndef TS_POOL_H
#define TS_POOL_H

#include <stddef.h>
#include <stdint.h>

struct cache;

/* One setting of a run's shape: "data_parallel_size" = "2". */
struct pool_kv {
	char *key;
	char *value;
};

struct pool_run {
	char *name;
	long nodes, ranks;
	struct pool_kv *kv;	/* its shape settings, as logged */
	size_t nkv;
};

/*
 * Load what says run `id` of the cache is: its name, node and rank
 * counts, and the shape settings the head of its first log gives (none
 * when that file cannot be read).  Returns 0 (release with
 * pool_run_release()), or -1 with *cause.
 */
int pool_run_load(struct cache *c, int64_t id, struct pool_run *out,
    char **cause);
void pool_run_release(struct pool_run *r);

/*
 * Are a and b of one shape: as many nodes and ranks, and every setting
 * both logged the same?  When not, *why (static) says what differs.
 */
int pool_same_shape(const struct pool_run *a, const struct pool_run *b,
    const char **why);

/*
 * The shape settings of one log message (msg[0..len), the header off),
 * added to *kv (grown) unless a key is there already.
 */
void pool_settings_line(const char *msg, size_t len, struct pool_kv **kv,
    size_t *nkv);

/* The share of templates two runs have in common (Jaccard), [0, 1]. */
double pool_likeness(size_t common, size_t na, size_t nb);

#endif
