/*
 * util.h -- allocation, growable buffers, error causes, small helpers.
 *
 * Every module of trainscope uses these.  Allocation failure aborts inside
 * xmalloc() and friends, so callers never test for NULL.  Core functions
 * report failure by returning -1 and filling a `char **cause` with an
 * allocated, lowercase, one-line message (no trailing newline, no full stop)
 * that the caller frees.
 */
#ifndef TS_UTIL_H
#define TS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TS_NORETURN __attribute__((noreturn))
#define TS_UNUSED __attribute__((unused))
#else
#define TS_PRINTF(f, a)
#define TS_NORETURN
#define TS_UNUSED
#endif

#define TS_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation: never return NULL; abort with a message on exhaustion. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* xreallocarray: like xrealloc(p, nmemb * size) with overflow checking. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Return a newly allocated formatted string. */
char *xasprintf(const char *fmt, ...) TS_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);

/*
 * Grow an array of `*cap` elements of `size` bytes so that `need` fit.
 * The check is inline: most calls find room (a stream's events, one at a
 * time, millions of them); xgrow_more() grows.
 */
void *xgrow_more(void *p, size_t *cap, size_t need, size_t size);
static inline void *
xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	return need <= *cap ? p : xgrow_more(p, cap, need, size);
}

/*
 * Set *cause (when cause is not NULL) to a formatted message and return -1,
 * so error paths read `return ts_fail(cause, "cannot open '%s'", path);`.
 * An earlier message in *cause is freed first.
 */
int ts_fail(char **cause, const char *fmt, ...) TS_PRINTF(2, 3);

/* Abort the program after printing "trainscope: fatal: ..." (internal bugs). */
TS_NORETURN void ts_fatal(const char *fmt, ...) TS_PRINTF(1, 2);

/*
 * struct buf -- a growable byte string, always NUL-terminated once any
 * function below has touched it.  Initialise with BUF_INIT or buf_init();
 * buf_release() frees and reinitialises; buf_detach() hands the string to
 * the caller (who frees it) and reinitialises.
 */
struct buf {
	char *s;
	size_t len;
	size_t cap;
};
#define BUF_INIT { NULL, 0, 0 }

void buf_init(struct buf *b);
void buf_release(struct buf *b);
char *buf_detach(struct buf *b);
void buf_reset(struct buf *b);
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *data, size_t n);
void buf_addc(struct buf *b, char c);
void buf_adds(struct buf *b, const char *s);
void buf_addf(struct buf *b, const char *fmt, ...) TS_PRINTF(2, 3);
void buf_vaddf(struct buf *b, const char *fmt, va_list ap);
/* Return b->s, or "" when nothing was ever added. */
const char *buf_str(const struct buf *b);

/* String helpers. */
int ts_startswith(const char *s, const char *prefix);
int ts_endswith(const char *s, const char *suffix);
/* Parse a whole decimal integer (optional sign); 0 on success, -1 if not. */
int ts_parse_long(const char *s, long *out);
int ts_parse_double(const char *s, double *out);

/*
 * ts_qsort() that accepts an empty or NULL array (qsort's pointer must not be
 * NULL even when nmemb is 0).
 */
void ts_qsort(void *base, size_t nmemb, size_t size,
    int (*cmp)(const void *, const void *));

/*
 * Mix the bits of h (a 64-bit finalizer): hash tables index by its low
 * bits, so every input bit must reach them.
 */
static inline uint64_t
ts_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}
/*
 * The cores this process may run on (its affinity mask: a login node's
 * cgroup or taskset), at least 1 and at most `max`.
 */
int ts_ncpus(int max);
/* Monotonic clock in seconds, for progress and benchmarks. */
double ts_now(void);
/* The wall clock in epoch seconds (what file times and log times use). */
double ts_wallclock(void);
/*
 * Decode one UTF-8 sequence of s[0 .. len) (len > 0): its code point in
 * *cp and its length, or 0 when the bytes are not valid UTF-8 (overlong,
 * surrogate, above U+10FFFF, truncated).
 */
size_t ts_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);
/* b bytes in decimal units: "512 B", "3.0 kB", "1.8 TB"; returns buf. */
const char *ts_human_size(uint64_t b, char *buf, size_t len);

/*
 * A checksum of the core's sources, made at build time (source-id.c):
 * results kept in the cache by another build are made again.
 */
extern const char ts_source_id[];

#endif
