/*
 * tap.h -- a minimal TAP producer for C unit tests.
 *
 *	ok(cond, "what");  is_int(got, want, "what");  is_str(got, want, "what");
 *	return done_testing();
 *
 * Failures print the values to stdout as TAP diagnostics.  The exit
 * status is nonzero when any test failed.
 */
#ifndef TS_TAP_H
#define TS_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static int
tap_ok(int cond, const char *what, const char *file, int line)
{
	tap_n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, what);
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(c, what) tap_ok(!!(c), (what), __FILE__, __LINE__)
#define is_int(got, want, what) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (!ok(g_ == w_, (what)))					\
		printf("#   got %lld, want %lld\n", g_, w_);		\
} while (0)
#define is_str(got, want, what) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (!ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0, (what))) \
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)",	\
		    w_ ? w_ : "(null)");				\
} while (0)

static int
done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}

#endif
