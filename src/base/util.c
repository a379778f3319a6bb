/*
 * util.c -- allocation that cannot fail, growable buffers, error causes.
 *
 * The model is git's strbuf and tmux's xmalloc: out-of-memory is not a
 * condition callers can do anything useful about, so it aborts here, and
 * everything else reports errors through a caller-owned `char **cause`.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

static TS_NORETURN void
oom(size_t n)
{
	fprintf(stderr, "trainscope: fatal: out of memory (%zu bytes)\n", n);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom(n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		oom(nmemb * size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		oom(n);
	return q;
}

void *
xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	return xrealloc(p, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT;

	buf_vaddf(&b, fmt, ap);
	return buf_detach(&b);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void *
xgrow_more(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap;

	if (need <= n)
		return p;
	if (n < 8)
		n = 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			oom(SIZE_MAX);
		n *= 2;
	}
	*cap = n;
	return xreallocarray(p, n, size);
}

int
ts_fail(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (cause == NULL)
		return -1;
	free(*cause);
	va_start(ap, fmt);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
	return -1;
}

void
ts_fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("trainscope: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void
buf_init(struct buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
}

void
buf_release(struct buf *b)
{
	free(b->s);
	buf_init(b);
}

char *
buf_detach(struct buf *b)
{
	char *s;

	buf_grow(b, 0);
	s = b->s;
	buf_init(b);
	return s;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->s != NULL)
		b->s[0] = '\0';
}

void
buf_grow(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 < b->len)
		oom(SIZE_MAX);
	b->s = xgrow(b->s, &b->cap, b->len + extra + 1, 1);
	b->s[b->len] = '\0';
}

void
buf_add(struct buf *b, const void *data, size_t n)
{
	buf_grow(b, n);
	memcpy(b->s + b->len, data, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
buf_addc(struct buf *b, char c)
{
	buf_grow(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	buf_grow(b, 64);
	va_copy(cp, ap);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		ts_fatal("vsnprintf failed");
	if ((size_t)n >= b->cap - b->len) {
		buf_grow(b, (size_t)n);
		va_copy(cp, ap);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, cp);
		va_end(cp);
	}
	b->len += (size_t)n;
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

const char *
buf_str(const struct buf *b)
{
	return b->s != NULL ? b->s : "";
}

int
ts_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
ts_endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

int
ts_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

int
ts_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

void
ts_qsort(void *base, size_t nmemb, size_t size,
    int (*cmp)(const void *, const void *))
{
	if (nmemb > 1)
		qsort(base, nmemb, size, cmp);
}

const char *
ts_human_size(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB",
	    "PB" };
	double x = (double)b;
	int u = 0;

	while (x >= 999.95 && u < 5) {	/* 999950 B is 1.0 MB, not 1000.0 kB */
		x /= 1000;
		u++;
	}
	snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", x, unit[u]);
	return buf;
}

double
ts_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
ts_wallclock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

size_t
ts_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n, i;
	uint32_t v;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		v = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		v = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		v = s[0] & 0x07;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 ||
	    v > 0x10ffff)) || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

int
ts_ncpus(int max)
{
	long n = 0;
#ifdef CPU_COUNT	/* glibc, musl: the affinity mask */
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
#endif
	if (n < 1)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > max ? max : (int)n;
}
